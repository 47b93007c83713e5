"""The command line, run as users run it: ``python -m halfspaces`` in a subprocess.

Every accuracy the CLI prints is recomputed here in-process from the library (and, for files,
from scikit-learn's own svmlight reader), so the tests check the numbers, not just the format.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest
from sklearn.datasets import dump_svmlight_file, load_svmlight_files

import halfspaces
from halfspaces import AveragedPerceptron, Perceptron, PocketPerceptron, VotedPerceptron
from halfspaces.datasets import load_a9a
from halfspaces.exceptions import ConvergenceWarning

MODELS = {
    "perceptron": Perceptron,
    "averaged": AveragedPerceptron,
    "voted": VotedPerceptron,
    "pocket": PocketPerceptron,
}


def run_cli(*args: str, debug: bool = False) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("HALFSPACES_DEBUG", "FORCE_COLOR")}
    env.update(NO_COLOR="1", **({"HALFSPACES_DEBUG": "1"} if debug else {}))
    return subprocess.run(
        [sys.executable, "-m", "halfspaces", *args],
        capture_output=True, text=True, env=env, timeout=120,
    )


def accuracy(model, X, y) -> float:
    return float(np.mean(model.predict(X) == y))


@pytest.fixture(scope="module")
def a9a_report():
    # the quick start's command: the default model and epochs on the bundled a9a
    result = run_cli("fit", "--json")
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


@pytest.fixture
def svmlight_pair(tmp_path):
    """A noisy linear problem as train and test svmlight files (1-based, as LIBSVM writes)."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(120, 6)) * (rng.random((120, 6)) < 0.7)
    y = np.where(X @ rng.normal(size=6) + 0.3 * rng.normal(size=120) > 0, 1.0, -1.0)
    train, test = tmp_path / "train.svm", tmp_path / "test.svm"
    dump_svmlight_file(X[:80], y[:80], str(train), zero_based=False)
    dump_svmlight_file(X[80:], y[80:], str(test), zero_based=False)
    return train, test


def test_bundled_a9a_accuracies_match_the_library(a9a_report):
    X, y = load_a9a("train")
    X_test, y_test = load_a9a("test")
    # the default model is the averaged perceptron, for the CLI's 10 epochs
    model = AveragedPerceptron(max_epochs=10, selection="shuffle", random_state=0,
                               fit_intercept=True)
    with pytest.warns(ConvergenceWarning) as record:
        model.fit(X, y)
    assert a9a_report["train_accuracy"] == pytest.approx(accuracy(model, X, y), abs=1e-12)
    assert a9a_report["test_accuracy"] == pytest.approx(accuracy(model, X_test, y_test), abs=1e-12)
    assert a9a_report["n_updates"] == model.n_updates_
    assert a9a_report["n_epochs"] == model.n_epochs_ == 10
    assert a9a_report["converged"] is False
    # the convergence warning is reported as a note, not dumped
    assert a9a_report["notes"] == [str(record[0].message)]


def test_bundled_a9a_sizes(a9a_report):
    assert a9a_report["n_train"] + a9a_report["n_test"] == 48_842
    assert (a9a_report["n_train"], a9a_report["n_features"]) == (32_561, 123)
    assert a9a_report["fit_time_s"] >= 0 and a9a_report["compile_time_s"] >= 0


def test_quick_start_trains_the_averaged_perceptron_to_084(a9a_report):
    assert a9a_report["model"] == "averaged" and a9a_report["max_epochs"] == 10
    assert a9a_report["test_accuracy"] >= 0.84


def test_plain_perceptron_is_one_flag_away():
    report = json.loads(run_cli("fit", "--model", "perceptron", "--epochs", "2", "--json").stdout)
    X, y = load_a9a("train")
    model = Perceptron(selection="shuffle", max_epochs=2, random_state=0)
    with pytest.warns(ConvergenceWarning):
        model.fit(X, y)
    assert report["model"] == "perceptron"
    assert report["n_updates"] == model.n_updates_
    assert report["train_accuracy"] == pytest.approx(accuracy(model, X, y), abs=1e-12)


@pytest.mark.parametrize("model", MODELS)
def test_each_model_on_files_matches_the_library(model, svmlight_pair):
    train, test = svmlight_pair
    result = run_cli("fit", str(train), "--test", str(test), "--model", model,
                     "--epochs", "3", "--selection", "shuffle", "--seed", "4", "--json")
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    X, y, X_test, y_test = load_svmlight_files([str(train), str(test)])
    estimator = MODELS[model](max_epochs=3, selection="shuffle", random_state=4)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        estimator.fit(X, y)
    assert (report["n_train"], report["n_test"], report["n_features"]) == (80, 40, 6)
    assert report["train_accuracy"] == pytest.approx(accuracy(estimator, X, y), abs=1e-12)
    assert report["test_accuracy"] == pytest.approx(accuracy(estimator, X_test, y_test), abs=1e-12)
    assert report["n_updates"] == estimator.n_updates_


def test_file_without_test_set(svmlight_pair):
    report = json.loads(run_cli("fit", str(svmlight_pair[0]), "--epochs", "1", "--json").stdout)
    assert (report["n_train"], report["n_test"], report["test_accuracy"]) == (80, 0, None)


def test_table_output_and_one_line_note(svmlight_pair):
    result = run_cli("fit", str(svmlight_pair[0]), "--epochs", "1")
    assert result.returncode == 0
    assert "train accuracy" in result.stdout
    assert result.stderr.startswith("note: ") and result.stderr.count("\n") == 1
    assert "Warning" not in result.stderr  # no Python warning dump
    quiet = run_cli("fit", str(svmlight_pair[0]), "--epochs", "1", "--quiet")
    assert quiet.returncode == 0 and quiet.stderr == ""


def assert_one_line_error(result, *fragments):
    assert result.returncode == 1
    assert result.stdout == ""
    assert result.stderr.startswith("error: ") and result.stderr.count("\n") == 1
    assert "Traceback" not in result.stderr
    for fragment in fragments:
        assert fragment in result.stderr


def test_missing_file_is_one_line_and_exit_1(tmp_path):
    missing = tmp_path / "missing.svm"
    assert_one_line_error(run_cli("fit", str(missing)), str(missing), "No such file")


def test_malformed_file_names_file_and_line(tmp_path):
    bad = tmp_path / "bad.svm"
    bad.write_text("1 1:0.5 2:1\n-1 1:0.5 2:x\n")
    assert_one_line_error(run_cli("fit", str(bad)), str(bad), "line 2")


def test_a_newline_in_a_file_name_is_shown_as_its_escape(tmp_path):
    # a message is one line: the newline of "bad\nname.svm" printed as a space named
    # another file ("bad name.svm"), which may exist; it is shown as \n, as repr shows it
    from _cli import cli_error

    folder = tmp_path / "a\nb"
    folder.mkdir()
    bad = folder / "bad\nname.svm"
    bad.write_text("1 1:0.5 2:1\n-1 1:0.5 2:x\n")
    good = tmp_path / "good.svm"
    good.write_text("1 1:0.5 2:1\n-1 1:-0.5 2:-1\n")
    not_a_model = folder / "m\n.hs"
    not_a_model.write_text("hello")
    for args, shown in [(("fit", str(bad)), "a\\nb/bad\\nname.svm, line 2"),
                        (("fit", str(good), "--out", str(folder / "no\ndir" / "m.hs")),
                         "the directory " + str(tmp_path) + "/a\\nb/no\\ndir does not exist"),
                        (("predict", str(not_a_model), str(good)),
                         "a\\nb/m\\n.hs is not a halfspaces model file")]:
        code, err = cli_error(*args)
        assert code == 1 and shown in err, err


def test_debug_variable_shows_the_traceback(tmp_path):
    bad = tmp_path / "bad.svm"
    bad.write_text("1 3:1 2:1\n")
    result = run_cli("fit", str(bad), debug=True)
    assert result.returncode == 1
    assert "Traceback" in result.stderr and "DataFileError" in result.stderr


@pytest.mark.parametrize("args", [["--model", "nope"], ["--selection", "random"],
                                  ["--epochs", "0"]])
def test_bad_option_values_are_usage_errors(args):
    result = run_cli("fit", *args)
    assert result.returncode == 2
    assert "Traceback" not in result.stderr


@pytest.mark.parametrize("args, named", [
    (["fit", "--bogus", "x"], "--bogus"),
    (["fit", "--model", "nosuch"], "--model"),
    (["certify", "--epochs"], "--epochs"),
    (["predict", "only-one-argument"], "data"),
])
def test_a_usage_error_is_one_red_line_naming_the_commands_help(args, named):
    # Click printed three lines: the usage, a "Try ... --help" hint and the error
    result = run_cli(*args)
    assert result.returncode == 2
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("error: ") and named in lines[0]
    assert f"halfspaces {args[0]} --help" in lines[0]


def test_version():
    result = run_cli("--version")
    assert result.returncode == 0
    assert result.stdout.strip() == f"halfspaces {halfspaces.__version__}"


def test_cli_import_stays_light():
    # --help must not pay for NumPy, scikit-learn or Numba
    code = ("import sys, halfspaces.cli; "
            "print([m for m in ('numpy', 'scipy', 'sklearn', 'numba') if m in sys.modules])")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.stdout.strip() == "[]"


@pytest.mark.parametrize("train_text, test_text", [
    ("1 1:1 3:2\n-1 2:1\n", "1 5:1\n-1 1:4\n"),     # 1-based, test wider than train
    ("1 1:1 3:2\n-1 2:1\n", "1 0:1\n-1 1:4\n"),     # index 0 in one file: all 0-based
    ("1 1:1 # comment\n-1 qid:3 2:1\n", "1 1:1\n"),  # comments and qid are allowed
])
def test_reader_matches_sklearn_feature_space(tmp_path, train_text, test_text):
    from halfspaces.cli._reading import read_svmlight_files

    train, test = tmp_path / "train.svm", tmp_path / "test.svm"
    train.write_text(train_text)
    test.write_text(test_text)
    ours = read_svmlight_files([train, test])
    theirs = load_svmlight_files([str(train), str(test)])
    for (X, y), X_ref, y_ref in zip(ours, theirs[0::2], theirs[1::2], strict=True):
        assert X.shape == X_ref.shape and (X != X_ref).nnz == 0
        assert np.array_equal(y, y_ref)


# ---------------------------------------------------------------------------------------
# Every model and every format, predict/evaluate/certify/datasets, exit codes, --help time.

ALL_MODELS = ["perceptron", "averaged", "voted", "pocket", "kernel", "voted-kernel",
              "multiclass", "logistic", "svm", "lp", "max-margin", "zero-one"]
FORMATS = ["svm", "csv", "tsv", "parquet", "npy", "npz"]
EXTRA = {"zero-one": ["--param", "time_limit=5"], "kernel": ["--param", "kernel=linear"],
         "voted-kernel": ["--param", "kernel=rbf", "--param", "gamma=0.5"]}


def available(model):
    from halfspaces.cli._models import available_models

    return model in available_models()


def write_data(path, X, y):
    """Write (X, y) in the format of `path`'s extension; tabular files get string labels."""
    import pandas as pd

    labels = np.where(y > 0, "yes", "no")
    frame = pd.DataFrame(X, columns=[f"f{i}" for i in range(X.shape[1])])
    if path.suffix == ".svm":
        dump_svmlight_file(X, y, str(path), zero_based=False)
    elif path.suffix == ".csv":
        frame.assign(label=labels).to_csv(path, index=False)
    elif path.suffix == ".tsv":
        frame.assign(label=labels).to_csv(path, index=False, sep="\t")
    elif path.suffix == ".parquet":
        frame.assign(target=labels).to_parquet(path)
    elif path.suffix == ".npy":
        np.save(path, np.column_stack([y, X]))
    else:
        np.savez(path, X=X, y=y)
    return labels if path.suffix in (".csv", ".tsv", ".parquet") else y


def separable_problem(n=48, seed=0):
    rng = np.random.default_rng(seed)
    X = np.round(rng.normal(size=(n, 4)), 2)
    w = np.array([1.0, -1.0, 0.5, 0.0])
    keep = np.abs(X @ w + 0.2) > 0.3  # a margin, so every model separates it
    X = X[keep]
    return X, np.where(X @ w + 0.2 > 0, 1.0, -1.0)


@pytest.mark.parametrize("model, fmt", [(m, FORMATS[i % len(FORMATS)])
                                        for i, m in enumerate(ALL_MODELS)])
def test_every_model_and_format_end_to_end(model, fmt, tmp_path):
    if not available(model):
        pytest.skip(f"--model {model} is not in the library yet")
    if fmt == "parquet":
        pytest.importorskip("pyarrow")
    X, y = separable_problem()
    train, test = tmp_path / f"train.{fmt}", tmp_path / f"test.{fmt}"
    y_train = write_data(train, X[:30], y[:30])
    y_test = write_data(test, X[30:], y[30:])
    out = tmp_path / "model.hs"
    result = run_cli("fit", str(train), "--test", str(test), "--model", model, "--out",
                     str(out), "--json", *EXTRA.get(model, []))
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert (report["n_train"], report["n_test"], report["n_features"]) == (30, len(y_test), 4)
    saved = halfspaces.load(out)  # scores recomputed on data read by numpy/pandas, not us
    assert report["train_accuracy"] == pytest.approx(accuracy(saved, X[:30], y_train))
    assert report["test_accuracy"] == pytest.approx(accuracy(saved, X[30:], y_test))
    if model in MODELS:  # an independent refit gives the same weights, bit for bit
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            reference = MODELS[model](selection="shuffle", max_epochs=10,
                                      random_state=0).fit(X[:30], y_train)
        assert np.array_equal(saved.coef_, reference.coef_)


@pytest.fixture
def saved_model(tmp_path, svmlight_pair):
    train, test = svmlight_pair
    out = tmp_path / "m.hs"
    model = "logistic" if available("logistic") else "averaged"
    assert run_cli("fit", str(train), "--model", model, "--out", str(out),
                   "--quiet").returncode == 0
    return out, test


def test_predict_writes_labels_in_original_values(saved_model, tmp_path):
    out, test = saved_model
    result = run_cli("predict", str(out), str(test), "--out", str(tmp_path / "p.txt"))
    assert result.returncode == 0, result.stderr
    X_test, _ = load_svmlight_files([str(test)])[:2]
    expected = [str(int(v)) for v in halfspaces.load(out).predict(X_test)]
    assert (tmp_path / "p.txt").read_text().splitlines() == expected
    stdout = run_cli("predict", str(out), str(test))
    assert stdout.stdout.splitlines() == expected


def test_predict_proba_lines(saved_model, tmp_path):
    out, test = saved_model
    model = halfspaces.load(out)
    result = run_cli("predict", str(out), str(test), "--proba")
    if not hasattr(model, "predict_proba"):
        assert_one_line_error(result, "gives no probabilities")
        return
    assert result.returncode == 0, result.stderr
    X_test, _ = load_svmlight_files([str(test)])[:2]
    rows = [[float(p) for p in line.split(",")] for line in result.stdout.splitlines()]
    assert np.array_equal(np.array(rows), model.predict_proba(X_test))


def test_evaluate_matches_sklearn_metrics(saved_model):
    from scipy.special import log_expit
    from sklearn.metrics import (
        confusion_matrix,
        log_loss,
        precision_recall_fscore_support,
        roc_auc_score,
    )

    out, test = saved_model
    result = run_cli("evaluate", str(out), str(test), "--json")
    assert result.returncode == 0, result.stderr
    record = json.loads(result.stdout)
    X_test, y_test = load_svmlight_files([str(test)])[:2]
    model = halfspaces.load(out)
    predicted = model.predict(X_test)
    assert record["accuracy"] == pytest.approx(np.mean(predicted == y_test))
    assert record["confusion"] == confusion_matrix(y_test, predicted,
                                                   labels=model.classes_).tolist()
    assert record["classes"] == ["-1", "1"]
    if hasattr(model, "predict_proba"):  # unclipped: -log sigma(y s) by scipy's log_expit
        signs = np.where(y_test == model.classes_[1], 1.0, -1.0)
        unclipped = -np.mean(log_expit(signs * model.decision_function(X_test)))
        assert record["log_loss"] == pytest.approx(unclipped, rel=1e-9)
        # scikit-learn clips p at 2.2e-16: never more, and equal where nothing was clipped
        assert record["log_loss"] >= log_loss(y_test, model.predict_proba(X_test),
                                              labels=model.classes_) - 1e-12
    else:
        assert record["log_loss"] is None
    precision, recall, f1, _ = precision_recall_fscore_support(
        y_test, predicted, labels=model.classes_, zero_division=np.nan)
    for ours, theirs in ((record["precision"], precision), (record["recall"], recall),
                         (record["f1"], f1)):
        assert [np.nan if v is None else v for v in ours] == pytest.approx(theirs, nan_ok=True)
    assert record["roc_auc"] == pytest.approx(
        roc_auc_score(y_test, model.decision_function(X_test)))


def test_evaluate_reports_the_log_loss_of_a_confidently_wrong_point_unclipped(tmp_path):
    # scikit-learn's log_loss clips probabilities at 2.2e-16, so a point predicted wrong with
    # p = exp(-6600) cost 36 where the model's own -log p is 6600
    X = np.array([[-1.0], [1.0], [-2.0], [2.0], [-3.0], [3.0], [1000.0]])
    y = np.array([0, 1, 0, 1, 0, 1, 0])  # the last point: far on the wrong side
    model = halfspaces.LogisticRegression(alpha=0.1).fit(X[:-1], y[:-1])
    path = tmp_path / "m.hs"
    halfspaces.save(model, path)
    data = tmp_path / "d.csv"
    data.write_text("label,x\n" + "".join(f"{a},{b}\n" for a, b in zip(y, X[:, 0], strict=True)))
    from halfspaces.cli.evaluate import evaluate

    record = evaluate(path, data)
    own = -model.predict_log_proba(X)[np.arange(len(y)), y].mean()
    assert own * len(y) > 1000  # the wrong point alone: far beyond the clip's 36.04
    assert record["log_loss"] == pytest.approx(own, rel=1e-12)


def test_evaluate_measures_a_regression_model_by_its_residuals(tmp_path):
    # "internal error, AttributeError: 'LinearRegression' object has no attribute 'classes_'"
    from sklearn.metrics import mean_absolute_error, mean_squared_error, r2_score

    rng = np.random.default_rng(3)
    X = rng.normal(size=(120, 3))
    y = X @ [2.0, -1.0, 0.5] + 1e6 + rng.normal(size=120)  # a large mean: r2 must not cancel
    model = halfspaces.LinearRegression().fit(X[:60], y[:60])
    path = tmp_path / "r.hs"
    halfspaces.save(model, path)
    data = tmp_path / "r.csv"
    data.write_text("y,a,b,c\n" + "".join(f"{float(t)!r},{float(a)!r},{float(b)!r},{float(c)!r}\n"
                                           for t, (a, b, c) in zip(y[60:], X[60:], strict=True)))
    for chunk in (7, 10_000):
        from halfspaces.cli.evaluate import evaluate

        record = evaluate(path, data, chunk_size=chunk)
        predicted = model.predict(X[60:])
        assert record["n_samples"] == 60 and "accuracy" not in record
        assert record["r2"] == pytest.approx(r2_score(y[60:], predicted), rel=1e-9)
        assert record["rmse"] == pytest.approx(
            np.sqrt(mean_squared_error(y[60:], predicted)), rel=1e-12)
        assert record["mae"] == pytest.approx(mean_absolute_error(y[60:], predicted), rel=1e-12)
    assert run_cli("evaluate", str(path), str(data)).returncode == 0


def test_predict_json_gives_numbers_for_numeric_labels_and_text_for_text(tmp_path):
    # --json printed every label as a string ("1", "-1") whatever the model's classes
    from _cli import run_cli as run_in_process

    X = np.array([[0.0], [1.0], [2.0], [3.0]])
    for labels, expected in (([-1, -1, 1, 1], [-1, -1, 1, 1]),
                             (np.array([0.0, 0.0, 2.0, 2.0]), [0, 0, 2, 2]),
                             (["no", "no", "yes", "yes"], ["no", "no", "yes", "yes"])):
        model = halfspaces.LogisticRegression(alpha=0.01).fit(X, labels)
        halfspaces.save(model, tmp_path / "m.hs")
        np.save(tmp_path / "x.npy", X)
        record = run_in_process("predict", str(tmp_path / "m.hs"), str(tmp_path / "x.npy"))
        assert record["predictions"] == expected
        assert [type(v) for v in record["predictions"]] == [type(v) for v in expected]
        probabilities = run_in_process("predict", str(tmp_path / "m.hs"),
                                       str(tmp_path / "x.npy"), "--proba")["predictions"]
        np.testing.assert_array_equal(probabilities, model.predict_proba(X))


def test_failed_predict_leaves_no_output(saved_model, tmp_path):
    out, test = saved_model
    bad = tmp_path / "bad.svm"
    bad.write_text(test.read_text() + "1 1:oops\n")
    target = tmp_path / "p.txt"
    assert_one_line_error(run_cli("predict", str(out), str(bad), "--out", str(target)),
                          str(bad), "oops")
    assert not target.exists() and [p.name for p in tmp_path.iterdir()
                                     if p.name.startswith(".p.txt")] == []


@pytest.mark.parametrize("separable", [True, False])
def test_certify_matches_theory(tmp_path, separable):
    from halfspaces import theory

    X, y = separable_problem(seed=1)
    if not separable:
        y = y.copy()
        y[:3] = -y[:3]
    path = tmp_path / "d.svm"
    dump_svmlight_file(X, y, str(path), zero_based=False)
    result = run_cli("certify", str(path), "--json")
    assert result.returncode == 0, result.stderr
    record = json.loads(result.stdout)
    X_read, y_read = load_svmlight_files([str(path)])[:2]
    assert record["separable"] is theory.separability(X_read, y_read).separable is separable
    assert record["vc_dimension"] == X.shape[1] + 1
    assert record["radius"] == pytest.approx(theory.radius(X_read, fit_intercept=True))
    if separable:
        assert record["margin"] == pytest.approx(theory.max_margin(X_read, y_read).margin)
    else:
        assert record["certificate_residual"] < 1e-6 and record["certificate_support"] > 0
        assert record["certificate_exact"] is True  # a few support rows: proved exactly
    assert len(record["sample_complexity"]) == 6


def test_datasets_lists_the_bundled_sets():
    result = run_cli("datasets", "--json")
    names = [d["name"] for d in json.loads(result.stdout)["datasets"]]
    assert names == ["a9a", "breast_cancer", "digits", "iris", "wine"]


@pytest.mark.parametrize("args", [
    ["fit", "--param", "no_such_param=1"],
    ["fit", "--param", "max_epochs=-3"],
    ["fit", "--checkpoint", "x.ck"],
    ["fit", "--stream", "--model", "lp", "x.svm"],  # no partial_fit
    ["fit", "--stream"],
    ["predict", "only-one-argument"],
])
def test_usage_errors_exit_2(args):
    result = run_cli(*args)
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr


def test_bad_model_files_are_one_line_errors(tmp_path, svmlight_pair):
    import pickle

    pickled = tmp_path / "model.pkl"
    pickled.write_bytes(pickle.dumps({"a": 1}))
    assert_one_line_error(run_cli("predict", str(pickled), str(svmlight_pair[1])),
                          "is a pickle")
    assert_one_line_error(run_cli("evaluate", str(svmlight_pair[0]), str(svmlight_pair[1])),
                          "not a halfspaces model file")


@pytest.mark.parametrize("args", [["--help"], ["--version"], ["fit", "--help"],
                                  ["plot", "--help"]])
def test_help_and_version_import_nothing_heavy(args):
    # what --help costs is what it imports; its time is measured in benchmarks/bench_firstrun.py
    code = ("import sys\n"
            "from halfspaces.cli import main\n"
            "code = 'returned'\n"
            "try:\n"
            f"    main({args!r})\n"
            "except SystemExit as exit:\n"
            "    code = exit.code\n"
            "heavy = ('numba', 'scipy', 'sklearn', 'matplotlib')\n"
            "loaded = sorted({m.split('.')[0] for m in sys.modules} & set(heavy))\n"
            "print('LOADED', loaded, code)\n")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            env={**os.environ, "NO_COLOR": "1"}, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.rstrip().splitlines()[-1] in ("LOADED [] 0", "LOADED [] None")
    assert "fit" in result.stdout or "halfspaces " in result.stdout


def run_with_terminal_stderr(*args: str, cache: str) -> tuple[str, str]:
    """Run the CLI with stderr on a pseudo-terminal (as in a shell) and Numba's cache in
    `cache`; return (stdout, stderr without terminal escape codes)."""
    import pty

    env = {k: v for k, v in os.environ.items() if k not in ("HALFSPACES_DEBUG", "FORCE_COLOR")}
    env.update(NO_COLOR="1", NUMBA_CACHE_DIR=cache)
    terminal, child_end = pty.openpty()
    proc = subprocess.Popen([sys.executable, "-m", "halfspaces", *args],
                            stdout=subprocess.PIPE, stderr=child_end, env=env)
    os.close(child_end)
    received = []
    while True:  # read as it comes: a full terminal buffer would block the child
        try:
            chunk = os.read(terminal, 4096)
        except OSError:  # EIO: the child has closed the terminal
            break
        if not chunk:
            break
        received.append(chunk)
    os.close(terminal)
    stdout = proc.communicate(timeout=300)[0].decode()
    assert proc.returncode == 0, b"".join(received).decode(errors="replace")
    stderr = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", b"".join(received).decode(errors="replace"))
    return stdout, stderr


def table_value(stdout: str, label: str) -> float:
    line = next(line for line in stdout.splitlines() if label in line)
    return float(line.replace("│", " ").split()[-1])


COMPILING = "compiling the training loops (first run only)"


@pytest.mark.skipif(sys.platform == "win32", reason="needs a pseudo-terminal")
def test_first_run_notes_and_times_compilation_apart(svmlight_pair, tmp_path):
    args = ("fit", str(svmlight_pair[0]), "--epochs", "1")
    cache = tmp_path / "numba-cache"  # empty: a fresh install's first run
    stdout, stderr = run_with_terminal_stderr(*args, cache=str(cache))
    assert COMPILING in stderr
    assert table_value(stdout, "compile time (s)") > 0
    assert list(cache.rglob("perceptron.perceptron_epoch-*.nbi"))
    files = {(p, p.stat().st_mtime_ns, p.stat().st_size) for p in cache.rglob("*")}
    # the second run finds every loop it needs in the cache: no note, and nothing compiled
    # (Numba rewrites a function's index whenever it compiles and saves an overload)
    stdout, stderr = run_with_terminal_stderr(*args, cache=str(cache))
    assert COMPILING not in stderr
    assert {(p, p.stat().st_mtime_ns, p.stat().st_size) for p in cache.rglob("*")} == files


def test_read_only_install_caches_loops_in_the_users_cache_folder(tmp_path):
    # a system-wide install: a copy of the package in a folder this user cannot write
    from _child import read_only_install

    code = ("import numpy as np\n"
            "from halfspaces._fast import cache_folder, is_cached\n"
            "from halfspaces._fast.labels import two_or_fewer\n"
            "print(cache_folder('labels'), is_cached('labels'))\n"
            "two_or_fewer(np.array([1.0, -1.0]))\n"
            "print(is_cached('labels'))\n")
    env = {k: v for k, v in os.environ.items() if k not in ("NUMBA_CACHE_DIR", "PYTHONPATH")}
    with read_only_install(tmp_path) as site:
        before = sorted(site.rglob("*"))
        env.update(PYTHONPATH=str(site), XDG_CACHE_HOME=str(tmp_path / "cache"),
                   HOME=str(tmp_path / "home"), PYTHONDONTWRITEBYTECODE="1")
        result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                                env=env, cwd=tmp_path, timeout=300)
    assert result.returncode == 0, result.stderr
    (folder, cold), (warm,) = (line.split() for line in result.stdout.splitlines())
    assert Path(folder).is_relative_to(tmp_path / "cache" / "numba")
    assert (cold, warm) == ("False", "True")
    assert list(Path(folder).glob("labels.two_or_fewer-*.nbi"))
    assert sorted(site.rglob("*")) == before  # nothing written into the install


@pytest.mark.parametrize("quiet", [False, True])
def test_compile_note_only_without_quiet_or_json(quiet, monkeypatch, capsys):
    import halfspaces._fast
    from halfspaces.cli import fit as fit_module

    # a terminal, and a cache without the loops: the note depends on --quiet/--json alone
    monkeypatch.setattr(halfspaces._fast, "is_cached", lambda module: module != "perceptron")
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    fit_module._announce_compilation("averaged", None, None, None, show=not quiet)
    assert (COMPILING in capsys.readouterr().err) is not quiet


TRAINING_LOOPS = ("perceptron", "dual", "multiclass", "logistic")


@pytest.mark.parametrize(("model", "params"), [
    ("perceptron", {}), ("averaged", {}), ("voted", {}), ("pocket", {}), ("kernel", {}),
    ("kernel", {"kernel": "rbf"}), ("kernel", {"kernel": "poly"}), ("multiclass", {}),
    ("logistic", {})])
def test_compile_note_names_the_loops_the_fit_calls(model, params, monkeypatch):
    # the oracle is the fit itself: every call that Python code makes into a training-loop
    # module is recorded (through the module objects that the algorithm layer holds; the
    # compiled loops' own calls to each other stay untouched), and the note's table must
    # name that module and only that one
    import importlib
    import types

    from halfspaces.cli import fit as fit_module
    from halfspaces.cli._models import make_model

    called: set[str] = set()
    loops = {importlib.import_module(f"halfspaces._fast.{name}"): name for name in TRAINING_LOOPS}
    for module in [m for n, m in sys.modules.items() if n.startswith("halfspaces.")
                   and not n.startswith("halfspaces._fast")]:
        for attr, value in list(vars(module).items()):
            if isinstance(value, types.ModuleType) and value in loops:
                monkeypatch.setattr(module, attr, _Recording(value, loops[value], called))
    estimator = make_model(model, params, {"max_epochs": 5, "max_iter": 5})
    X, y = separable_problem()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        estimator.fit(X, y)
    assert called == {fit_module._loop_module(model, estimator)}


class _Recording:
    """A stand-in for a loop module: its functions, each noting its module's name when called."""

    def __init__(self, module, name, called):
        self._module, self._name, self._called = module, name, called

    def __getattr__(self, attr):
        value = getattr(self._module, attr)
        if not callable(value):
            return value

        def record(*args, **kwargs):
            self._called.add(self._name)
            return value(*args, **kwargs)
        return record


@pytest.mark.parametrize("fmt", ["csv", "npy"])
def test_predict_and_evaluate_on_features_only(fmt, tmp_path):
    X, y = separable_problem()
    train = tmp_path / f"train.{fmt}"
    write_data(train, X[:30], y[:30])
    out = tmp_path / "model.hs"
    assert run_cli("fit", str(train), "--model", "perceptron", "--out", str(out),
                   "--quiet").returncode == 0
    features = tmp_path / f"new.{fmt}"
    if fmt == "csv":
        np.savetxt(features, X[30:], delimiter=",")
    else:
        np.save(features, X[30:])
    result = run_cli("predict", str(out), str(features))
    assert result.returncode == 0, result.stderr
    from halfspaces.cli._reading import label_text

    expected = halfspaces.load(out).predict(X[30:])  # the model in-process, on NumPy's data
    assert result.stdout.split() == [label_text(v) for v in expected]
    result = run_cli("evaluate", str(out), str(features))
    assert result.returncode == 1 and "no label column" in result.stderr
    assert "Traceback" not in result.stderr
