"""Hostile model files and checkpoints: a clean, named refusal, never a crash or a huge allocation.

Each attack of issue 15 on model files and streaming checkpoints has a test here; then
Hypothesis mutates real saved models of every exported estimator (binary and multiclass,
dense and sparse) and real checkpoints, structure-aware: truncated and flipped bytes, JSON
values of the wrong type or range, keys dropped and added, arrays of another dtype or shape,
.npy headers declaring other shapes, members dropped, added or compressed into a zip bomb.
Whatever the file, ``load`` must return a model that predicts on valid input, or raise
ModelFileError naming the file, within a small memory budget (measured by tracemalloc).
"""

from __future__ import annotations

import contextlib
import copy
import inspect
import io
import json
import os
import re
import subprocess
import sys
import tracemalloc
import warnings
import zipfile

import numpy as np
import pytest
import scipy.sparse as sp
from _cli import cli_error
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sklearn.base import BaseEstimator, is_classifier
from sklearn.datasets import dump_svmlight_file

import halfspaces
from halfspaces.cli import main as halfspaces_main
from halfspaces.io import DataFileError, fit_stream
from halfspaces.io.model import ModelFileError, load_with_extra
from halfspaces.io.streaming import CheckpointMismatchError

META = "__halfspaces__.npy"
MEMORY_LIMIT = 16 * 2**20  # bytes: every model here is a few KiB
FAST = {"ZeroOneERMClassifier": {"time_limit": 2.0}, "LogisticRegression": {"max_iter": 30},
        "LinearRegression": {"max_iter": 30}}


# ---------------------------------------------------------------------------- model files


def estimator_classes():
    classes = (getattr(halfspaces, name) for name in halfspaces.__all__)
    return [c for c in classes if inspect.isclass(c) and issubclass(c, BaseEstimator)]


def clusters(n_classes, seed=0, n=24):
    """Clusters at the corners of a triangle: every class is linearly separable from the
    rest, so that every estimator (the hard-margin ones included) fits quickly."""
    rng = np.random.default_rng(seed)
    corners = np.array([[4.0, 0.0, 0.0], [-4.0, 4.0, 0.0], [-4.0, -4.0, 0.0]])
    labels = np.arange(n) % n_classes
    X = corners[labels] + rng.normal(scale=0.5, size=(n, 3))
    return X, np.array(["ant", "bee", "cat"])[labels]


def fit_variants():
    """(name, fitted model, X) for every exported estimator, two and three classes, dense
    and sparse, plus the stateful variants (a precomputed kernel, SGD's partial_fit)."""
    variants = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for cls in estimator_classes():
            params = FAST.get(cls.__name__, {})
            for k in (2, 3):
                X, y = clusters(k)
                if not is_classifier(cls()):
                    if k == 3:
                        continue
                    y = X @ np.array([1.0, -2.0, 0.5])
                for sparse in (False, True):
                    data = sp.csr_matrix(X) if sparse else X
                    model = cls(**params).fit(data, y)
                    variants.append((f"{cls.__name__}-{k}-{'csr' if sparse else 'dense'}",
                                     model, data))
        X, y = clusters(3)
        kernel = halfspaces.KernelPerceptron(kernel="precomputed").fit(X @ X.T, y)
        variants.append(("KernelPerceptron-precomputed", kernel, X @ X.T))
        sgd = halfspaces.LogisticRegression(solver="sgd", random_state=np.random.RandomState(3))
        variants.append(("LogisticRegression-sgd", sgd.partial_fit(X, y, classes=np.unique(y)),
                         X))
        streamed = halfspaces.LinearRegression(solver="sgd", random_state=np.random.RandomState(3))
        variants.append(("LinearRegression-sgd",
                         streamed.partial_fit(X, X @ np.array([1.0, -2.0, 0.5])), X))
        variants.append(("Perceptron-unfitted", halfspaces.Perceptron(max_epochs=5), X))
    return variants


class Files(dict):
    """A dict with a short repr, for Hypothesis's failure reports."""

    def __repr__(self) -> str:
        return f"<{len(self)} files>"


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    """name -> (file bytes, the model, its training X)."""
    folder = tmp_path_factory.mktemp("saved")
    files = Files()
    for name, model, X in fit_variants():
        path = halfspaces.save(model, folder / name)
        files[name] = (path.read_bytes(), model, X)
    return files


def unpack(blob: bytes) -> tuple[dict[str, bytes], dict]:
    with zipfile.ZipFile(io.BytesIO(blob)) as archive:
        members = {name: archive.read(name) for name in archive.namelist()}
    return members, json.loads(np.load(io.BytesIO(members[META])).tobytes())


def pack(members: dict[str, bytes], document: dict | None = None,
         deflated: frozenset = frozenset()) -> bytes:
    members = dict(members)
    if document is not None:
        members[META] = npy(np.frombuffer(json.dumps(document).encode(), np.uint8))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        for name, data in members.items():
            kind = zipfile.ZIP_DEFLATED if name in deflated else zipfile.ZIP_STORED
            archive.writestr(name, data, compress_type=kind)
    return out.getvalue()


def npy(array: np.ndarray) -> bytes:
    out = io.BytesIO()
    np.lib.format.write_array(out, array, allow_pickle=False)
    return out.getvalue()


def npy_header(shape: tuple, descr: str = "<f8") -> bytes:
    out = io.BytesIO()
    np.lib.format.write_array_header_1_0(out, {"descr": descr, "fortran_order": False,
                                              "shape": shape})
    return out.getvalue()


def array_of(members: dict[str, bytes], document: dict, *path) -> tuple[str, np.ndarray]:
    """The member name and the array of the JSON value at `path` (tags included)."""
    value = document
    for key in path:
        value = value[key]
    name = value + ".npy"
    return name, np.load(io.BytesIO(members[name]))


def load_measured(path):
    """halfspaces.load(path) and the peak of Python-tracked memory it took."""
    tracemalloc.start()
    try:
        return halfspaces.load(path), tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def refused(path, match=None):
    with pytest.raises(ModelFileError, match=match) as caught:
        halfspaces.load(path)
    assert str(path) in str(caught.value)
    return str(caught.value)


# 1. zip bomb: only referenced members are read, each checked before it is decompressed


def bomb(n_bytes: int) -> bytes:
    """A .npy member of n_bytes of zeros (float64), to be stored deflated (~1000:1)."""
    return npy_header((n_bytes // 8,)) + bytes(n_bytes)


def test_unreferenced_member_is_never_decompressed(saved, tmp_path):
    blob, model, X = saved["Perceptron-2-dense"]
    members, _ = unpack(blob)
    members["zz.npy"] = bomb(2**25)  # 32 MiB of zeros in ~33 KiB
    path = tmp_path / "bomb.hs"
    path.write_bytes(pack(members, deflated=frozenset({"zz.npy"})))
    assert path.stat().st_size < 2**20
    loaded, peak = load_measured(path)
    assert peak < MEMORY_LIMIT
    assert np.array_equal(loaded.predict(X), model.predict(X))


def test_referenced_member_declaring_a_huge_size_is_refused_before_reading(saved, tmp_path):
    members, document = unpack(saved["Perceptron-2-dense"][0])
    name, _ = array_of(members, document, "state", "coef_", "$array")
    members[name] = bomb(2**25)
    path = tmp_path / "bomb.hs"
    path.write_bytes(pack(members, deflated=frozenset({name})))
    tracemalloc.start()
    try:
        message = refused(path, "zip bomb")
    finally:
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    assert peak < MEMORY_LIMIT and name in message


def test_header_declaring_a_huge_shape_is_refused_without_allocating(saved, tmp_path):
    members, document = unpack(saved["Perceptron-2-dense"][0])
    name, coef = array_of(members, document, "state", "coef_", "$array")
    members[name] = npy_header((2**40,)) + coef.tobytes()  # 8 TiB declared, 32 bytes held
    path = tmp_path / "huge.hs"
    path.write_bytes(pack(members))
    refused(path, "header declares")


# 2. out-of-bounds reads and writes from loaded state


def rewrite_array(blob, path, json_path, change) -> None:
    members, document = unpack(blob)
    name, array = array_of(members, document, *json_path)
    members[name] = npy(change(array))
    path.write_bytes(pack(members))


def test_sparse_support_vector_indices_out_of_range_are_refused(saved, tmp_path):
    path = tmp_path / "kernel.hs"
    rewrite_array(saved["KernelPerceptron-2-csr"][0], path,
                  ("state", "support_vectors_", "$sparse", "indices"),
                  lambda a: np.full_like(a, 2**31 - 1000))
    refused(path, "support_vectors_")


def test_cli_predict_refuses_a_crafted_kernel_model(saved, tmp_path):
    _, _, X = saved["KernelPerceptron-2-csr"]
    model = tmp_path / "kernel.hs"
    rewrite_array(saved["KernelPerceptron-2-csr"][0], model,
                  ("state", "support_vectors_", "$sparse", "indices"),
                  lambda a: np.full_like(a, 2**31 - 1000))
    data = tmp_path / "x.svm"
    dump_svmlight_file(X, np.ones(X.shape[0]), str(data), zero_based=False)
    env = {k: v for k, v in os.environ.items() if k != "HALFSPACES_DEBUG"}
    result = subprocess.run([sys.executable, "-m", "halfspaces", "predict", str(model),
                             str(data)], capture_output=True, text=True, env=env, timeout=300)
    assert result.returncode == 1, (result.returncode, result.stderr)  # not -11 (SIGSEGV)
    assert str(model) in " ".join(result.stderr.split()) and "support_vectors_" in result.stderr


@pytest.mark.parametrize("where", [
    ("state", "_states", "$list", 0, "fields", "w", "$array"),
    ("state", "_states", "$list", 0, "fields", "aux", "$array"),
    ("state", "_states", "$list", 0, "fields", "counters", "$array"),
])
def test_perceptron_state_cut_short_is_refused(saved, tmp_path, where):
    path = tmp_path / "cut.hs"
    rewrite_array(saved["AveragedPerceptron-3-dense"][0], path, where, lambda a: a[:2])
    refused(path, "_states")


@pytest.mark.parametrize("variant, where, change, match", [
    ("LogisticRegression-sgd", ("state", "_state", "fields", "iterate", "$array"), lambda a: a[:2],
     "_state"),
    ("LogisticRegression-2-dense", ("state", "_w", "$array"), lambda a: a[:2], "_w"),
    ("MulticlassPerceptron-3-dense", ("state", "coef_", "$array"), lambda a: a[:, :2],
     "coef_"),
    ("VotedPerceptron-3-csr", ("state", "update_support_", "$list", 1, "$array"),
     lambda a: a + 10**6, "update_support_"),
    ("VotedPerceptron-2-dense", ("state", "vote_counts_", "$list", 0, "$array"),
     lambda a: a[:-3], "vote_counts_"),
    ("KernelPerceptron-3-dense", ("state", "support_", "$array"), lambda a: a + 1000,
     "support_"),
    ("KernelPerceptron-precomputed", ("state", "support_", "$array"), lambda a: a + 1000,
     "support_"),
])
def test_state_read_by_partial_fit_warm_start_and_predict_is_checked(saved, tmp_path, variant,
                                                                     where, change, match):
    path = tmp_path / "m.hs"
    rewrite_array(saved[variant][0], path, where, change)
    refused(path, match)


def test_invalid_csr_structure_is_refused(saved, tmp_path):
    path = tmp_path / "m.hs"
    rewrite_array(saved["VotedPerceptron-2-csr"][0], path,
                  ("state", "support_vectors_", "$sparse", "indptr"), lambda a: a[::-1].copy())
    refused(path, "support_vectors_")


def decreasing(indptr: np.ndarray) -> np.ndarray:
    """indptr [0, a, b, c] as [0, c, b, c]: it descends inside, where SciPy's constructor
    does not look (it checks the first and last entries)."""
    out = indptr.copy()
    out[1] = out[-1]
    return out


@pytest.mark.parametrize("part, change", [
    ("indptr", decreasing),
    ("indices", lambda a: np.full_like(a, 2**31 - 1000)),
], ids=["indptr-descending", "index-out-of-range"])
def test_loader_and_fit_give_one_reason_for_one_broken_csr_matrix(saved, tmp_path, part,
                                                                  change):
    """The loader checks support vectors with the check fit runs on its input (one
    function): the oracle is fit's error on a matrix with the same arrays. Only the advice
    differs: building the matrix from consistent arrays is no fix for a damaged file."""
    blob, model, _ = saved["VotedPerceptron-3-csr"]
    path = tmp_path / "m.hs"
    rewrite_array(blob, path, ("state", "support_vectors_", "$sparse", part), change)
    message = refused(path, "support_vectors_ is not a valid CSR matrix: ")
    broken = model.support_vectors_.copy()
    # set after construction, which SciPy's own (partial) check runs at
    setattr(broken, part, change(getattr(broken, part)))
    with pytest.raises(ValueError, match="Build it with") as caught:
        halfspaces.Perceptron().fit(broken, np.arange(broken.shape[0]) % 2)
    reason = str(caught.value).split("matrix: ", 1)[1].split(". Build it", 1)[0]
    assert f"support_vectors_ is not a valid CSR matrix: {reason}." in message
    assert "Build it" not in message


def emptied_rows(blob: bytes, path, last: int) -> None:
    """The support vectors' indptr ending at `last` <= 0 over no stored entries: SciPy's
    check_format(full_check=True) skips every check then, and sparsetools trusted the
    middle entries (a segmentation fault at predict)."""
    members, document = unpack(blob)
    sparse = document["state"]["support_vectors_"]["$sparse"]
    indptr = np.load(io.BytesIO(members[sparse["indptr"] + ".npy"]))
    indptr[-1] = last
    members[sparse["indptr"] + ".npy"] = npy(indptr)
    members[sparse["data"] + ".npy"] = npy(np.zeros(0))
    members[sparse["indices"] + ".npy"] = npy(np.zeros(0, indptr.dtype))
    path.write_bytes(pack(members))


# three support vectors, so that the middle of indptr ([0, 3, 6, 0]) claims entries
@pytest.mark.parametrize("variant", ["KernelPerceptron-3-csr", "VotedKernelPerceptron-3-csr",
                                     "VotedPerceptron-3-csr"])
def test_csr_indptr_ending_at_zero_or_below_is_refused(saved, tmp_path, variant):
    blob, _, X = saved[variant]
    paths = [tmp_path / "zero.hs", tmp_path / "negative.hs"]
    emptied_rows(blob, paths[0], 0)
    emptied_rows(blob, paths[1], np.iinfo(np.int32).min)
    np.save(tmp_path / "x.npy", X.toarray())
    # in a child process, so that a crash in sparsetools fails this test, not the session
    script = ("import sys, numpy as np, halfspaces\n"
              "from halfspaces.io.model import ModelFileError\n"
              "X = np.load(sys.argv[1])\n"
              "for path in sys.argv[2:]:\n"
              "    try:\n"
              "        model = halfspaces.load(path)\n"
              "    except ModelFileError as exc:\n"
              "        print('refused:', exc, flush=True)\n"
              "    else:\n"
              "        print('loaded', model.predict(X), flush=True)\n")
    result = subprocess.run([sys.executable, "-c", script, str(tmp_path / "x.npy"),
                             *map(str, paths)], capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, (result.returncode, result.stderr[-2000:])
    lines = result.stdout.splitlines()
    assert len(lines) == 2, result.stdout
    for path, line in zip(paths, lines, strict=True):
        assert line.startswith(f"refused: {path}") and "support_vectors_" in line, line


def rewrite_document(blob, path, change) -> None:
    members, document = unpack(blob)
    change(document)
    path.write_bytes(pack(members, document))


@pytest.mark.parametrize("key, value", [
    ("predict", 1), ("__dict__", {"$dict": {}}), ("__class__", None), ("fit", None),
    ("unknown_", 3),
])
def test_state_keys_that_are_not_fitted_attributes_are_refused(saved, tmp_path, key, value):
    path = tmp_path / "m.hs"
    rewrite_document(saved["Perceptron-2-dense"][0], path,
                     lambda d: d["state"].update({key: value}))
    refused(path, "not a fitted attribute")


@pytest.fixture
def named_model(tmp_path):
    """(model file, CSV file, expected predictions): a model saved with the reading
    options ``fit --out`` records, and a CSV file whose columns are in another order."""
    X, y = clusters(2)
    model = halfspaces.Perceptron().fit(X, y)
    path = halfspaces.save(model, tmp_path / "named.hs", extra={"data": {
        "format": "csv", "zero_based": None, "label_column": None,
        "feature_names": ["a", "b", "c"]}})
    data = tmp_path / "new.csv"
    np.savetxt(data, X[:, [2, 0, 1]], delimiter=",", header="c,a,b", comments="",
               fmt="%.17g")
    return path, data, model.predict(X)


def predicted(*args: str) -> list[str]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out), pytest.raises(SystemExit) as ended:
        halfspaces_main(list(args))
    assert ended.value.code in (0, None)
    return out.getvalue().split()


@pytest.mark.parametrize("where, value, match", [
    ("data", 5, "its data is 5, not an object"),
    ("data", {"$list": [1]}, "its data is \\[1\\], not an object"),
    ("data", "csv", "its data is 'csv', not an object"),
    ("checkpoint", 7, "its checkpoint is 7, not an object"),
    ("zero_based", "yes", "data.zero_based is 'yes', not true, false or null"),
    ("zero_based", 7, "data.zero_based is 7"),
    ("zero_based", {"$list": []}, "data.zero_based is \\[\\]"),
    ("feature_names", {"$list": ["a", "a", "c"]}, "data.feature_names .*'a' repeats"),
    ("feature_names", {"$list": ["a", "b"]}, "data.feature_names .*3 column names"),
    ("feature_names", {"$list": ["a", 1, "c"]}, "data.feature_names .*list of column names"),
    ("feature_names", "abc", "data.feature_names .*list of column names"),
])
def test_cli_metadata_of_a_model_file_is_checked(named_model, tmp_path, where, value, match):
    path, data, expected = named_model
    assert predicted("predict", str(path), str(data)) == [str(v) for v in expected]
    extra = {"zero_based": "data", "feature_names": "data"}.get(where)
    rewrite_document(path.read_bytes(), path, lambda d: (
        d["extra"]["$dict"].update({where: value}) if extra is None
        else d["extra"]["$dict"][extra]["$dict"].update({where: value})))
    for command in ("predict", "evaluate"):
        code, message = cli_error(command, str(path), str(data))
        assert code == 1 and str(path) in message and "internal error" not in message
        assert re.search(match, message), message


def test_feature_names_must_name_every_feature(saved, tmp_path):
    _, model, X = saved["Perceptron-2-dense"]
    model = copy.deepcopy(model)
    model.feature_names_in_ = np.array(["x", "y", "z"])
    assert halfspaces.load(halfspaces.save(model, tmp_path / "m")).feature_names_in_.size == 3
    model.feature_names_in_ = np.array(["x", "y"])
    refused(halfspaces.save(model, tmp_path / "m"), "feature_names_in_")


@pytest.mark.parametrize("names, match", [
    (np.array(["x", "y", "x"]), "feature_names_in_ repeats the name 'x'"),
    (np.array(["x", "y", "z", "w"]), "feature_names_in_ has size 4 where 3"),
    (np.array([1, 2, 3]), "feature_names_in_ must be a one-dimensional array of strings"),
    (np.array([["x", "y", "z"]]), "feature_names_in_ must be a one-dimensional array"),
])
def test_hostile_feature_names_are_refused(saved, tmp_path, names, match):
    # a repeated name would let a DataFrame with those two columns swapped pass the check
    # by name (scikit-learn's fit refuses such a frame) and the command line read one twice
    path = tmp_path / "m.hs"
    blob = saved["Perceptron-2-dense"][0]
    members, document = unpack(blob)
    members["names.npy"] = npy(names)
    document["state"]["feature_names_in_"] = {"$array": "names"}
    path.write_bytes(pack(members, document))
    refused(path, match)


def test_the_command_line_refuses_two_lists_of_feature_names(named_model, tmp_path):
    """A file whose recorded CSV columns and fitted feature names disagree is damaged: which
    one would predict match the columns by?"""
    path, data, expected = named_model
    model, extra = load_with_extra(path)
    model.feature_names_in_ = np.array(["a", "b", "c"], dtype=object)
    halfspaces.save(model, path, extra=extra)
    assert predicted("predict", str(path), str(data)) == [str(v) for v in expected]
    model.feature_names_in_ = np.array(["b", "a", "c"], dtype=object)
    halfspaces.save(model, path, extra=extra)
    for command in ("predict", "evaluate"):
        code, message = cli_error(command, str(path), str(data))
        assert code == 1 and "internal error" not in message
        assert re.search(r"data.feature_names is \['a', 'b', 'c'\], not the model's "
                         r"feature_names_in_ \['b', 'a', 'c'\]", message), message


def test_missing_fitted_attribute_is_refused(saved, tmp_path):
    path = tmp_path / "m.hs"
    rewrite_document(saved["Perceptron-2-dense"][0], path, lambda d: d["state"].pop("coef_"))
    refused(path, "'coef_'.*missing")


# 10. damaged state and header fields


@pytest.mark.parametrize("where, change, match", [
    (("state", "coef_", "$array"), lambda a: np.where(a == a.flat[0], np.nan, a), "coef_"),
    (("state", "intercept_", "$array"), lambda a: np.append(a, 1.0), "intercept_"),
    (("state", "classes_", "$array"), lambda a: np.array(["ant", "bee", "cat"]), "coef_"),
    (("state", "classes_", "$array"), lambda a: a[::-1].copy(), "classes_"),
    (("state", "coef_", "$array"), lambda a: a.astype(np.float32), "coef_"),
    (("state", "coef_", "$array"), lambda a: a.astype(">f8"), "coef_"),
    (("state", "classes_", "$array"), lambda a: a.astype("S3"), "classes_"),  # fit refuses
])
def test_damaged_state_is_refused(saved, tmp_path, where, change, match):
    path = tmp_path / "m.hs"
    rewrite_array(saved["Perceptron-2-dense"][0], path, where, change)
    refused(path, match)


@pytest.mark.parametrize("version", [True, -5, 0, "1", 1.0, None])
def test_format_version_must_be_a_positive_integer(saved, tmp_path, version):
    path = tmp_path / "m.hs"
    rewrite_document(saved["Perceptron-2-dense"][0], path, lambda d: d.update(version=version))
    message = refused(path, "version must be a positive integer")
    assert "upgrade" not in message


def test_deeply_nested_json_is_a_model_file_error(saved, tmp_path):
    members, _ = unpack(saved["Perceptron-2-dense"][0])
    text = ('{"format": "halfspaces-model", "version": 1, "class": "Perceptron", "params": '
            '{"max_epochs": ' + '[' * 3000 + ']' * 3000 + '}, "state": {}}')
    members[META] = npy(np.frombuffer(text.encode(), np.uint8))
    path = tmp_path / "m.hs"
    path.write_bytes(pack(members))
    refused(path, "nested too deeply")


def test_decoded_nesting_is_a_model_file_error(saved, tmp_path):
    path = tmp_path / "m.hs"
    nested: dict = {"$list": []}
    for _ in range(400):  # shallow enough for the JSON parser, too deep for the decoder
        nested = {"$list": [nested]}
    rewrite_document(saved["Perceptron-2-dense"][0], path,
                     lambda d: d["extra"].update({"$dict": {"x": nested}}))
    refused(path, "nested too deeply")


def test_random_state_position_out_of_range(tmp_path):
    model = halfspaces.Perceptron(random_state=np.random.RandomState(0))
    path = halfspaces.save(model, tmp_path / "m.hs")
    rewrite_document(path.read_bytes(), path,
                     lambda d: d["params"]["random_state"]["$random_state"].update(pos=10**30))
    refused(path, "position")


def test_memory_error_becomes_a_model_file_error(saved, tmp_path, monkeypatch):
    path = tmp_path / "m.hs"
    path.write_bytes(saved["Perceptron-2-dense"][0])

    def exhausted(*args, **kwargs):
        raise MemoryError

    monkeypatch.setattr(json, "loads", exhausted)
    refused(path, "too large for memory")


@pytest.mark.parametrize("name", [[], {}, None, 3, "os.system"])
def test_class_name_of_any_type_is_refused(saved, tmp_path, name):
    path = tmp_path / "m.hs"
    rewrite_document(saved["Perceptron-2-dense"][0], path, lambda d: d.update({"class": name}))
    refused(path, "unknown estimator class")


def test_invalid_parameters_are_refused(saved, tmp_path):
    path = tmp_path / "m.hs"
    rewrite_document(saved["KernelPerceptron-2-dense"][0], path,
                     lambda d: d["params"].update(kernel="bogus"))
    refused(path, "kernel")


@pytest.mark.parametrize("variant, name, value", [
    ("KernelPerceptron-2-dense", "cache_size", 1e308),
    ("VotedKernelPerceptron-2-dense", "cache_size", 10**400),
    ("KernelPerceptron-2-dense", "gamma", 10**400),
    ("LogisticRegression-sgd", "eta0", 10**400),
    ("LogisticRegression-sgd", "power_t", 10**400),
    ("LogisticRegression-2-dense", "alpha", 10**400),
    ("LogisticRegression-sgd", "batch_size", 2**63),
    ("ZeroOneERMClassifier-2-dense", "time_limit", 10**400),
], ids=lambda v: "10**400" if v == 10**400 else None)
def test_numeric_parameters_out_of_range_are_refused_by_name(saved, tmp_path, variant, name,
                                                              value):
    # cache_size = 1e308 loaded, and predict raised OverflowError; the others failed in fit
    path = tmp_path / "m.hs"
    rewrite_document(saved[variant][0], path, lambda d: d["params"].update({name: value}))
    refused(path, f"'{name}' parameter")


@pytest.mark.parametrize("value, match", [
    ({"$pairs": [[1, {"$float": "nan"}]]}, r"class_weight' gives label 1 the weight nan"),
    ({"$pairs": [[1, -2.0]]}, r"class_weight' gives label 1 the weight -2.0"),
    ({"$pairs": [[7, 1.0]]}, r"class_weight' names \[7\]"),
    ({"$dict": {"1": 2.0}}, r"class_weight' names \['1'\]"),
    ({"$pairs": [[{"$list": []}, 1.0]]}, "key of type list"),
    ({"$pairs": [[1, 1.0], [1, 2.0]]}, "given twice"),
    ({"$pairs": "1=2"}, "not a list of"),
    ({"$pairs": [[1]]}, "not a list of"),
    ("even", "'class_weight' parameter"),
])
@pytest.mark.parametrize("variant", ["LogisticRegression-2-dense", "LinearSVM-2-dense"])
def test_hostile_class_weights_are_refused_by_name(saved, tmp_path, variant, value, match):
    path = tmp_path / "m.hs"
    rewrite_document(saved[variant][0], path,
                     lambda d: d["params"].update(class_weight=value))
    refused(path, match)


def test_a_loaded_int_step_continues_as_the_float_it_equals(saved, tmp_path):
    # an int eta0 of 10**30 loaded, and partial_fit failed typing it in the compiled loop
    blob, _, X = saved["LogisticRegression-sgd"]
    models = []
    for eta0 in (10**30, 1e30):
        path = tmp_path / f"{type(eta0).__name__}.hs"
        rewrite_document(blob, path, lambda d, eta0=eta0: d["params"].update(eta0=eta0))
        model = halfspaces.load(path)
        models.append(model.partial_fit(X, model.classes_[np.arange(len(X)) % 3]))
    assert models[0].eta0 == 10**30 and np.isfinite(models[1].coef_).all()
    assert np.array_equal(models[0].coef_, models[1].coef_)
    assert np.array_equal(models[0].intercept_, models[1].intercept_)


# ------------------------------------------------------------------ Hypothesis mutations

HOSTILE_VALUES = [
    None, True, False, -1, 0, 1, 2**31 - 1000, 2**63, 10**30, -(10**30), 1.5, -0.0, "1", "x",
    "", [], {}, [1, 2], {"$float": "nan"}, {"$float": "inf"}, {"$float": 3}, {"$array": "a1"},
    {"$array": "missing"}, {"$array": 7}, {"$scalar": "a1"}, {"$list": []}, {"$list": [1]},
    {"$tuple": [1.0, 2]}, {"$dict": {"__dict__": 1}}, {"$dict": []},
    {"$state": "PerceptronState", "fields": {}}, {"$state": "os.system", "fields": {}},
    {"$sparse": {"format": "csr", "kind": "matrix", "shape": [2, 2**40], "data": "a1",
                 "indices": "a1", "indptr": "a1"}},
    {"$random_state": {"keys": "a1", "pos": 10**30, "has_gauss": 0, "cached": 0.0}},
    {"$bogus": 1}, {"$array": "a1", "$list": []},
]
NEW_KEYS = ["predict", "__dict__", "__class__", "foo_", "_states", "coef_", "classes_",
            "n_features_in_", "$array"]
DTYPES = ["float32", "int64", "int32", "uint8", "bool", ">f8", ">i8", "complex128", "U3", "S2",
          "float16"]


def json_paths(value, path=()):
    """Every path in a JSON document, depth first (the document itself first)."""
    yield path
    if isinstance(value, dict):
        for key, item in value.items():
            yield from json_paths(item, (*path, key))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            yield from json_paths(item, (*path, i))


def at(document, path):
    for key in path:
        document = document[key]
    return document


@st.composite
def mutate_json(draw, members, document):
    document = copy.deepcopy(document)
    paths = list(json_paths(document))[1:]
    path = draw(st.sampled_from(paths))
    parent, key = at(document, path[:-1]), path[-1]
    action = draw(st.sampled_from(["replace", "drop", "add", "scale"]))
    if action == "drop" and isinstance(parent, dict):
        del parent[key]
    elif action == "add" and isinstance(parent, dict):
        parent[draw(st.sampled_from(NEW_KEYS))] = draw(st.sampled_from(HOSTILE_VALUES))
    elif action == "scale" and type(parent[key]) is int:
        parent[key] = parent[key] * draw(st.sampled_from([-1, 0, 2, 10**6, 2**62]))
    else:
        parent[key] = copy.deepcopy(draw(st.sampled_from(HOSTILE_VALUES)))
    return pack(members, document)


def change_array(draw, array: np.ndarray) -> np.ndarray:
    action = draw(st.sampled_from(["cut", "grow", "reshape", "dtype", "poke", "empty",
                                   "scalar", "transpose"]))
    if action == "cut":
        return array.reshape(-1)[: draw(st.integers(0, max(0, array.size - 1)))]
    if action == "grow":
        return np.concatenate([array.reshape(-1), array.reshape(-1)[:1]]) if array.size \
            else np.zeros(3, array.dtype)
    if action == "reshape":
        return array.reshape(-1, 1) if array.ndim != 2 else array.reshape(-1)
    if action == "dtype":
        dtype = np.dtype(draw(st.sampled_from(DTYPES)))
        try:
            return array.astype(dtype)
        except (ValueError, TypeError):  # e.g. labels "ant" as numbers
            return np.zeros(array.shape, dtype)
    if action == "empty":
        return np.zeros((0,) * max(1, array.ndim), array.dtype)
    if action == "scalar":
        return np.asarray(array.reshape(-1)[0] if array.size else 0)
    if action == "transpose":
        return np.asfortranarray(array.T)
    array = array.copy()
    if array.size and array.dtype.kind in "fiu":
        value = draw(st.sampled_from([np.nan, np.inf, -1, 2**31 - 1000, 10**18, 0]))
        if array.dtype.kind == "f" or (isinstance(value, int) and
                                       np.can_cast(np.min_scalar_type(value), array.dtype)):
            array.flat[draw(st.integers(0, array.size - 1))] = value
    return array


@st.composite
def mutate_arrays(draw, members, document):
    members = dict(members)
    names = sorted(n for n in members if n != META)
    if not names:
        return pack(members)
    name = draw(st.sampled_from(names))
    array = np.load(io.BytesIO(members[name]))
    action = draw(st.sampled_from(["array", "array", "header", "bomb", "drop", "add",
                                   "garbage"]))
    deflated = frozenset()
    if action == "array":
        members[name] = npy(change_array(draw, array))
    elif action == "header":  # keep the data, declare another shape or dtype
        shape = draw(st.sampled_from([(2**40,), (0,), (array.size + 1,), (1, 2**31), (-1,),
                                      tuple(reversed(array.shape))]))
        descr = draw(st.sampled_from([array.dtype.str, "<i8", "|O", "<U2", "|b1"]))
        members[name] = npy_header(shape, descr) + array.tobytes()
    elif action == "bomb":
        members[name], deflated = bomb(2**25), frozenset({name})
    elif action == "drop":
        del members[name]
    elif action == "add":
        members[draw(st.sampled_from(["zz.npy", "a999.npy", "x/../y.npy"]))] = npy(array)
    else:
        members[name] = draw(st.binary(max_size=64))
    return pack(members, deflated=deflated)


@st.composite
def mutate_bytes(draw, blob: bytes):
    if draw(st.booleans()):
        return blob[: draw(st.integers(0, len(blob) - 1))]
    data = bytearray(blob)
    for _ in range(draw(st.integers(1, 8))):
        data[draw(st.integers(0, len(data) - 1))] ^= draw(st.integers(1, 255))
    return bytes(data)


@st.composite
def mutated_file(draw, files):
    name = draw(st.sampled_from(sorted(files)))
    blob, _, _ = files[name]
    members, document = unpack(blob)
    how = draw(st.sampled_from(["json", "json", "arrays", "arrays", "bytes"]))
    if how == "json":
        return name, draw(mutate_json(members, document))
    if how == "arrays":
        return name, draw(mutate_arrays(members, document))
    return name, draw(mutate_bytes(blob))


TRIED = {"model files": 0, "loaded": 0, "checkpoints": 0, "resumed": 0}


def works_on_valid_input(model) -> None:
    """Predictions, and a further partial_fit where there is one, on data of the model's
    declared shape: any outcome but a crash or an undeclared exception."""
    if not hasattr(model, "n_features_in_"):
        return
    d = model.n_features_in_
    assert d <= 10_000
    X = np.random.default_rng(0).normal(size=(6, d))
    prediction = model.predict(X)
    assert prediction.shape == (6,)
    if hasattr(model, "classes_"):
        assert np.isin(prediction, model.classes_).all()
        if hasattr(model, "partial_fit"):
            y = model.classes_[np.arange(6) % len(model.classes_)]
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                model.partial_fit(X, y)


@settings(max_examples=400, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_mutated_model_files_load_or_fail_cleanly(saved, tmp_path_factory, data):
    name, blob = data.draw(mutated_file(saved))
    path = tmp_path_factory.getbasetemp() / "mutated.hs"
    path.write_bytes(blob)
    TRIED["model files"] += 1
    tracemalloc.start()
    try:
        model, _ = load_with_extra(path)
    except ModelFileError as exc:
        assert str(path) in str(exc)
        return
    finally:
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    assert peak < MEMORY_LIMIT, (name, peak)
    TRIED["loaded"] += 1
    works_on_valid_input(model)


# ------------------------------------------------------------------ 11. checkpoints


class Killed(Exception):
    pass


class Stream(tuple):
    """(data file, checkpoint, its bytes) with a short repr, for Hypothesis's reports."""

    def __repr__(self) -> str:
        return f"<stream {self[0]}>"


@pytest.fixture(scope="module")
def stream(tmp_path_factory):
    """A data file and a mid-run checkpoint of an AveragedPerceptron on it."""
    folder = tmp_path_factory.mktemp("stream")
    rng = np.random.default_rng(0)
    X = np.round(rng.normal(size=(300, 4)), 3)
    y = np.where(X @ np.array([1.0, -1.0, 0.5, 0.0]) > 0, 1, -1)
    data = folder / "d.svm"
    dump_svmlight_file(X, y, str(data), zero_based=False)
    checkpoint = folder / "ck.hs"

    def stop(n, seen=[0]):  # noqa: B006 - a counter across calls
        seen[0] += n
        if seen[0] >= 150:
            raise Killed

    with pytest.raises(Killed):
        fit_stream(halfspaces.AveragedPerceptron(), data, epochs=2, chunk_size=50,
                   checkpoint=checkpoint, on_progress=stop)
    return Stream((data, checkpoint, checkpoint.read_bytes()))


def resume(data, checkpoint, model=None, **settings):
    options = dict(epochs=2, chunk_size=50, checkpoint=checkpoint, resume=True)
    return fit_stream(model or halfspaces.AveragedPerceptron(), data, **{**options, **settings})


def test_checkpoint_resumes_as_written(stream, tmp_path):
    data, _, blob = stream
    (tmp_path / "ck").write_bytes(blob)
    assert resume(data, tmp_path / "ck").resumed_at == (0, 150)


@pytest.mark.parametrize("model, match", [
    (halfspaces.Perceptron(), "holds a AveragedPerceptron, not the Perceptron"),
    (halfspaces.AveragedPerceptron(fit_intercept=False), "fit_intercept=True, not False"),
    (halfspaces.AveragedPerceptron(selection="shuffle"), "selection='cyclic'"),
])
def test_resume_refuses_another_model(stream, tmp_path, model, match):
    data, _, blob = stream
    (tmp_path / "ck").write_bytes(blob)
    with pytest.raises(CheckpointMismatchError, match=match):
        resume(data, tmp_path / "ck", model)


def test_resume_refuses_other_reading_options(stream, tmp_path):
    data, _, blob = stream
    (tmp_path / "ck").write_bytes(blob)
    with pytest.raises(CheckpointMismatchError, match="format=None, not 'svmlight'") as caught:
        resume(data, tmp_path / "ck", format="svmlight")
    assert caught.value.setting == "format"


@pytest.mark.parametrize("change", ["cut", "same size", "touched"])
def test_resume_notices_the_data_file_changed(stream, tmp_path, change):
    data, _, blob = stream
    copy_of = tmp_path / "d.svm"
    text = data.read_bytes()
    copy_of.write_bytes(text)
    fit_stream(halfspaces.AveragedPerceptron(), copy_of, epochs=2, chunk_size=50,
               checkpoint=tmp_path / "ck")
    if change == "cut":
        copy_of.write_bytes(text[: len(text) // 2])
    elif change == "same size":
        copy_of.write_bytes(text.replace(b"1:", b"2:", 1))
    else:
        os.utime(copy_of, ns=(0, 0))
    with pytest.raises(CheckpointMismatchError, match="changed since the checkpoint"):
        resume(copy_of, tmp_path / "ck")


@pytest.mark.parametrize("key, value, match", [
    ("position", "150", "position is '150'"),
    ("position", -5, "position is -5"),
    ("position", 10**9, "beyond the end"),
    ("position", 10**30, "position is 10"),  # was an OverflowError from the line cutter
    # a checkpoint further on than the run's epochs is refused naming epochs, not as damage:
    # the user's fix is epochs (or deleting it)
    ("epoch", 10**9, "after 1000000000 passes .* epochs of at least 1000000000"),
    ("epoch", -1, "epoch is -1"),
    ("epoch", True, "epoch is True"),
    ("n_features", "4", "n_features is '4'"),
    ("n_features", 7, "n_features is 7"),
    ("zero_based", "no", "zero_based"),
    ("classes", {"$list": [1, 2]}, "classes is"),
    ("classes", {"$list": [{"$list": [-1]}, 1]}, "classes is"),
    ("classes", [-1, 1], "untagged list"),
    ("chunk_size", 10**30, "chunk_size"),
])
def test_checkpoint_progress_is_checked(stream, tmp_path, key, value, match):
    data, _, blob = stream
    path = tmp_path / "ck"
    rewrite_document(blob, path, lambda d: d["extra"]["$dict"]["checkpoint"]["$dict"].update(
        {key: value}))
    with pytest.raises(ModelFileError, match=match) as caught:
        resume(data, path)
    assert str(path) in str(caught.value)


@pytest.mark.parametrize("progress, match", [
    ({"classes": {"$list": [-1, 2.0**53]}, "seen": {"$list": [-1]}}, "classes is"),
    ({"classes": {"$list": [-1, 2**53 + 1]}, "seen": {"$list": [2.0**53]}}, "seen is"),
])
def test_checkpoint_classes_are_compared_exactly(stream, tmp_path, progress, match):
    # compared in float64, the model's class 2**53 + 1 (int64) and the checkpoint's 2.0**53
    # were one number: the checkpoint passed, and its run went on with other classes
    data, _, blob = stream
    members, document = unpack(blob)
    name, _ = array_of(members, document, "state", "classes_", "$array")
    members[name] = npy(np.array([-1, 2**53 + 1]))
    document["extra"]["$dict"]["checkpoint"]["$dict"].update(progress)
    path = tmp_path / "ck"
    path.write_bytes(pack(members, document))
    with pytest.raises(ModelFileError, match=match) as caught:
        resume(data, path)
    assert str(path) in str(caught.value)


def test_cli_resume_names_the_option(stream, tmp_path):
    data, _, blob = stream
    (tmp_path / "ck").write_bytes(blob)
    env = {k: v for k, v in os.environ.items() if k != "HALFSPACES_DEBUG"}
    env["NO_COLOR"] = "1"
    result = subprocess.run(
        [sys.executable, "-m", "halfspaces", "fit", str(data), "--stream", "--epochs", "2",
         "--chunk-size", "50", "--checkpoint", str(tmp_path / "ck"), "--resume", "--model",
         "averaged", "--no-intercept"], capture_output=True, text=True, env=env, timeout=300)
    assert result.returncode == 2, result.stderr
    assert "--intercept/--no-intercept" in result.stderr and "fit_intercept" in result.stderr


PROGRESS_VALUES = [None, True, -1, 0, 1, 49, 50, 150, 299, 300, 301, 2**40, 10**30, 1.5, "1",
                   [], {}, {"$list": [-1, 1]}, {"$list": [1, -1]}, {"$list": [-1.0, 1.0]},
                   {"$list": ["-1", "1"]}, {"$list": [-1, 1, 2]}, {"$list": []}]


@settings(max_examples=120, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_mutated_checkpoints_resume_or_fail_cleanly(stream, tmp_path_factory, data):
    source, _, blob = stream
    members, document = unpack(blob)
    progress = document["extra"]["$dict"]["checkpoint"]["$dict"]
    if data.draw(st.booleans()):  # a progress field of another type or range
        key = data.draw(st.sampled_from(sorted(progress)))
        progress[key] = data.draw(st.sampled_from(PROGRESS_VALUES))
        mutated = pack(members, document)
    else:  # the model inside, as for model files
        mutated = data.draw(st.one_of(mutate_json(members, document),
                                      mutate_arrays(members, document)))
    path = tmp_path_factory.getbasetemp() / "mutated-ck.hs"
    path.write_bytes(mutated)
    TRIED["checkpoints"] += 1
    try:
        run = resume(source, path)
    except ModelFileError as exc:
        assert str(path) in str(exc)
        return
    except DataFileError as exc:  # e.g. zero_based flipped: the data no longer parse
        assert str(source) in str(exc)
        return
    TRIED["resumed"] += 1
    assert run.model.predict(np.zeros((2, 4))).shape == (2,)


def test_report_how_many_inputs_were_tried():
    """Runs after the property tests (file order): both outcomes must have been exercised,
    or the mutations are too weak (all refused) or too timid (all harmless)."""
    print(f"\nhostile inputs tried: {TRIED}")
    if TRIED["model files"]:
        assert 0 < TRIED["loaded"] < TRIED["model files"]
    if TRIED["checkpoints"]:
        assert 0 < TRIED["resumed"] < TRIED["checkpoints"]
