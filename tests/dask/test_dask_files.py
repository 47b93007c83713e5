"""halfspaces.dask.read_files against the serial readers of halfspaces.io."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

pytest.importorskip("distributed")

import scipy.sparse as sp  # noqa: E402
from _datasets import noisy  # noqa: E402
from numpy.testing import assert_array_equal  # noqa: E402

import halfspaces  # noqa: E402
from halfspaces import dask as hd  # noqa: E402
from halfspaces.io import read, read_svmlight_files  # noqa: E402


def gathered(parts):
    Xs = parts.client.gather(parts.X_blocks)
    ys = parts.client.gather(parts.y_blocks)
    X = sp.vstack(Xs, format="csr") if sp.issparse(Xs[0]) else np.vstack(Xs)
    return X, np.concatenate(ys)


def write_svmlight(path, X, y, one_based=True):
    with open(path, "w") as f:
        for row, label in zip(X, y, strict=True):
            pairs = " ".join(f"{j + one_based}:{float(v)!r}" for j, v in enumerate(row) if v)
            f.write(f"{label:g} {pairs}\n")


def test_svmlight_files_round_trip_with_one_feature_space(client, tmp_path):
    X, y = noisy(70, 5, seed=1, sparsity=0.5)
    X[:40, 4] = 0.0  # the first file does not reach the last column
    for i, (a, b) in enumerate([(0, 40), (40, 41), (41, 70)]):
        write_svmlight(tmp_path / f"part-{i}.svm", X[a:b], y[a:b])
    parts = hd.read_files(tmp_path / "part-*.svm")
    serial = read_svmlight_files([tmp_path / f"part-{i}.svm" for i in range(3)])
    assert parts.n_rows.tolist() == [40, 1, 29] and parts.n_features == 5
    Xp, yp = gathered(parts)
    assert_array_equal(Xp.toarray(), sp.vstack([s[0] for s in serial]).toarray())
    assert_array_equal(yp, np.concatenate([s[1] for s in serial]))
    split = hd.read_files(str(tmp_path / "part-*.svm"), rows_per_partition=16)
    assert split.n_rows.tolist() == [16, 16, 8, 1, 16, 13]
    assert_array_equal(gathered(split)[0].toarray(), Xp.toarray())


def test_csv_and_parquet_round_trip(client, tmp_path):
    pd = pytest.importorskip("pandas")
    pytest.importorskip("pyarrow")
    X, y = noisy(50, 3, seed=2)
    labels = np.where(y > 0, "yes", "no")
    for i, (a, b) in enumerate([(0, 20), (20, 50)]):
        frame = pd.DataFrame(X[a:b], columns=["a", "b", "c"]).assign(label=labels[a:b])
        frame.to_csv(tmp_path / f"part-{i}.csv", index=False)
        frame.to_parquet(tmp_path / f"part-{i}.parquet")
    for ext in ("csv", "parquet"):
        parts = hd.read_files(sorted(tmp_path.glob(f"part-*.{ext}")), label_column="label",
                              rows_per_partition=15)
        serial = [read(tmp_path / f"part-{i}.{ext}", label_column="label") for i in range(2)]
        Xp, yp = gathered(parts)
        assert_array_equal(Xp, np.vstack([s[0] for s in serial]))
        assert_array_equal(yp, np.concatenate([s[1] for s in serial]))
        assert parts.classes.tolist() == ["no", "yes"]


@pytest.mark.filterwarnings("ignore::halfspaces.ConvergenceWarning")
def test_a_partitions_goes_to_the_estimators_and_the_certificates(client, tmp_path):
    X, y = noisy(60, 3, seed=3)
    write_svmlight(tmp_path / "all.svm", X, y)
    parts = hd.read_files(tmp_path / "all.svm")  # one partition: the serial fit, bit for bit
    ours = hd.Perceptron(max_epochs=3).fit(parts)
    theirs = halfspaces.Perceptron(max_epochs=3).fit(*read(tmp_path / "all.svm"))
    assert_array_equal(ours.coef_, theirs.coef_)
    assert not hd.separability(parts).separable


def test_files_that_disagree_are_refused_by_name(client, tmp_path):
    (tmp_path / "a.csv").write_text("1,2,1\n3,4,0\n")
    (tmp_path / "b.csv").write_text("1,2,3,1\n")
    with pytest.raises(ValueError, match="different numbers of feature columns"):
        hd.read_files(tmp_path / "*.csv")
    with pytest.raises(FileNotFoundError, match="no file matches"):
        hd.read_files(tmp_path / "*.svm")


def test_an_empty_file_gives_no_partition(client, tmp_path):
    (tmp_path / "part-0.svm").write_text("1 1:2 2:1\n-1 1:-1 2:-2\n")
    (tmp_path / "part-1.svm").write_text("")
    (tmp_path / "part-2.svm").write_text("# only a comment\n-1 1:-2 2:-1\n")
    for rows in (None, 1):
        parts = hd.read_files(tmp_path / "part-*.svm", rows_per_partition=rows)
        assert parts.n_rows.tolist() == ([2, 1] if rows is None else [1, 1, 1])
        assert gathered(parts)[1].tolist() == [1.0, -1.0, -1.0]


def test_files_without_any_sample_are_named(client, tmp_path):
    (tmp_path / "a.svm").write_text("")
    with pytest.raises(ValueError, match="a.svm: the files hold no samples"):
        hd.read_files(tmp_path / "a.svm")


@pytest.mark.parametrize("rows", [2.5, 3.0, True, "3", 0, -1, 2**63])
def test_a_bad_rows_per_partition_is_refused_by_name(client, tmp_path, rows):
    # 2.5 and "3" were TypeErrors from range() or <, True and 2**63 failed on the workers as
    # iter_chunks' chunk_size: the count is checked as every other row count is
    (tmp_path / "a.svm").write_text("1 1:2\n-1 1:-1\n1 1:1\n")
    with pytest.raises(ValueError, match=r"rows_per_partition=.* must be None \(one "):
        hd.read_files(tmp_path / "a.svm", rows_per_partition=rows)


def test_a_numpy_integer_rows_per_partition_is_a_count(client, tmp_path):
    (tmp_path / "a.svm").write_text("1 1:2\n-1 1:-1\n1 1:1\n")
    parts = hd.read_files(tmp_path / "a.svm", rows_per_partition=np.int64(2))
    assert parts.n_rows.tolist() == [2, 1]


# -- the files' column names --------------------------------------------------------------------

def named_parts(tmp_path, ext, columns=("a", "b", "c")):
    """(pattern, X, labels) of two files with a header (CSV) or a schema (Parquet)."""
    pd = pytest.importorskip("pandas")
    pytest.importorskip("pyarrow")
    X, y = noisy(60, 3, seed=4)
    labels = np.where(y > 0, 1, -1)
    for i, (a, b) in enumerate([(0, 25), (25, 60)]):
        frame = pd.DataFrame(X[a:b], columns=list(columns)).assign(label=labels[a:b])
        if ext == "csv":
            frame.to_csv(tmp_path / f"part-{i}.csv", index=False, float_format="%.17g")
        else:
            frame.to_parquet(tmp_path / f"part-{i}.parquet")
    return str(tmp_path / f"part-*.{ext}"), X, labels


@pytest.mark.filterwarnings("ignore::halfspaces.ConvergenceWarning")
@pytest.mark.parametrize("ext", ["csv", "parquet"])
@pytest.mark.parametrize("name", ["Perceptron", "AveragedPerceptron", "LogisticRegression"])
def test_the_files_column_names_become_the_models_feature_names(client, tmp_path, ext, name):
    # the oracle is scikit-learn's own check of a DataFrame's columns against a model's
    # feature_names_in_: a model without names scored one in another order silently wrong
    import pandas as pd
    from sklearn.linear_model import Perceptron as Reference

    pattern, X, labels = named_parts(tmp_path, ext)
    parts = hd.read_files(pattern, label_column="label")
    assert parts.feature_names == ("a", "b", "c")
    model = getattr(hd, name)(max_iter=5) if name == "LogisticRegression" else \
        getattr(hd, name)(max_epochs=5)
    model.fit(parts)
    assert model.feature_names_in_.tolist() == ["a", "b", "c"]
    path = halfspaces.save(model.to_local(), tmp_path / "m.hs")
    local = halfspaces.load(path)
    assert local.feature_names_in_.tolist() == ["a", "b", "c"]
    frame = pd.DataFrame(X, columns=["a", "b", "c"])
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the same names in the same order: no warning
        assert_array_equal(local.predict(frame), model.predict(frame))
    reference = Reference(max_iter=2, tol=None).fit(frame, labels)
    with pytest.raises(ValueError) as theirs:
        reference.predict(frame[["c", "a", "b"]])
    with pytest.raises(ValueError) as ours:
        local.predict(frame[["c", "a", "b"]])
    assert str(ours.value).replace(type(local).__name__, "") == \
        str(theirs.value).replace("Perceptron", "")


def test_svmlight_files_give_no_names(client, tmp_path):
    X, y = noisy(30, 3, seed=5)
    write_svmlight(tmp_path / "part-0.svm", X, y)
    parts = hd.read_files(tmp_path / "part-0.svm")
    assert parts.feature_names is None
    assert not hasattr(hd.Perceptron(max_epochs=2).fit(parts), "feature_names_in_")


def test_files_naming_their_columns_in_other_orders_are_refused(client, tmp_path):
    pd = pytest.importorskip("pandas")
    X, y = noisy(20, 2, seed=6)
    pd.DataFrame(X, columns=["a", "b"]).assign(label=y).to_csv(tmp_path / "part-0.csv",
                                                               index=False)
    pd.DataFrame(X, columns=["b", "a"]).assign(label=y).to_csv(tmp_path / "part-1.csv",
                                                               index=False)
    with pytest.raises(ValueError, match=r"part-0.csv and .*part-1.csv name different feature "
                                         r"columns \(\['a', 'b'\] and \['b', 'a'\]\)"):
        hd.read_files(tmp_path / "part-*.csv", label_column="label")
