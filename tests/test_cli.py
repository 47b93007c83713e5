"""The command line, run as users run it: ``python -m halfspaces`` in a subprocess.

Every accuracy the CLI prints is recomputed here in-process from the library (and, for files,
from scikit-learn's own svmlight reader), so the tests check the numbers, not just the format.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import warnings

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
    result = run_cli("fit", "--epochs", "2", "--json")
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
    model = Perceptron(max_epochs=2, selection="cyclic", random_state=0, fit_intercept=True)
    with pytest.warns(ConvergenceWarning) as record:
        model.fit(X, y)
    assert a9a_report["train_accuracy"] == pytest.approx(accuracy(model, X, y), abs=1e-12)
    assert a9a_report["test_accuracy"] == pytest.approx(accuracy(model, X_test, y_test), abs=1e-12)
    assert a9a_report["n_updates"] == model.n_updates_
    assert a9a_report["n_epochs"] == model.n_epochs_ == 2
    assert a9a_report["converged"] is False
    # the convergence warning is reported as a note, not dumped
    assert a9a_report["notes"] == [str(record[0].message)]


def test_bundled_a9a_sizes(a9a_report):
    assert a9a_report["n_train"] + a9a_report["n_test"] == 48_842
    assert (a9a_report["n_train"], a9a_report["n_features"]) == (32_561, 123)
    assert a9a_report["model"] == "perceptron" and a9a_report["fit_time_s"] >= 0


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


def test_debug_variable_shows_the_traceback(tmp_path):
    bad = tmp_path / "bad.svm"
    bad.write_text("1 3:1 2:1\n")
    result = run_cli("fit", str(bad), debug=True)
    assert result.returncode == 1
    assert "Traceback" in result.stderr and "DataFileError" in result.stderr


@pytest.mark.parametrize("args", [["--model", "svm"], ["--selection", "random"],
                                  ["--epochs", "0"]])
def test_bad_option_values_are_usage_errors(args):
    result = run_cli("fit", *args)
    assert result.returncode == 2
    assert "Traceback" not in result.stderr


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
    from halfspaces.cli._data import read_svmlight_files

    train, test = tmp_path / "train.svm", tmp_path / "test.svm"
    train.write_text(train_text)
    test.write_text(test_text)
    ours = read_svmlight_files([train, test])
    theirs = load_svmlight_files([str(train), str(test)])
    for (X, y), X_ref, y_ref in zip(ours, theirs[0::2], theirs[1::2]):
        assert X.shape == X_ref.shape and (X != X_ref).nnz == 0
        assert np.array_equal(y, y_ref)
