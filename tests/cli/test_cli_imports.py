"""What the command line imports: modules it never uses are deferred, and nothing else changes.

The warm ``halfspaces fit`` is import-bound (issue 13); these tests check the causes, not the
seconds: which modules a fit leaves loaded for real, that a deferred module becomes the real
one when used, and that the report's numbers are the library's.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
import warnings

import numpy as np
import pytest
from sklearn.datasets import dump_svmlight_file

from halfspaces import AveragedPerceptron, Perceptron
from halfspaces.cli import main
from halfspaces.cli._fit_measures import BOUND_CELLS, accuracy
from halfspaces.cli._process import lazy
from halfspaces.exceptions import ConvergenceWarning

NOT_LOADED = ("absent", "deferred")


def run_python(code: str, *args: str) -> subprocess.CompletedProcess:
    result = subprocess.run([sys.executable, "-c", textwrap.dedent(code), *args],
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    return result


def test_fit_loads_neither_scipy_stats_nor_pandas_and_reports_the_librarys_numbers(tmp_path):
    # past BOUND_CELLS, as a9a is: the Novikoff bound (a QP, scipy.optimize) is not computed
    n, d = 2200, 120
    assert 2000 * d > BOUND_CELLS
    rng = np.random.default_rng(0)
    X = np.round(rng.normal(size=(n, d)), 2) * (rng.random((n, d)) < 0.1)
    y = np.where(X @ rng.normal(size=d) + 0.3 * rng.normal(size=n) > 0, 1.0, -1.0)
    train, test, state = tmp_path / "train.svm", tmp_path / "test.svm", tmp_path / "state"
    dump_svmlight_file(X[:2000], y[:2000], str(train), zero_based=False)
    dump_svmlight_file(X[2000:], y[2000:], str(test), zero_based=False)
    result = run_python("""
        import json, sys
        from halfspaces.cli import main
        from halfspaces.cli._process.lazy import is_deferred
        try:
            main(["fit", sys.argv[1], "--test", sys.argv[2], "--json", "--epochs", "5"])
        except SystemExit as exc:
            assert exc.code in (0, None), exc.code
        names = ("scipy.optimize", "scipy.special", "scipy.stats", "pandas",
                 "sklearn.metrics", "sklearn.linear_model")
        state = {name: "absent" if name not in sys.modules else
                 "deferred" if is_deferred(sys.modules[name]) else "loaded" for name in names}
        open(sys.argv[3], "w").write(json.dumps(state))
        """, str(train), str(test), str(state))
    loaded = json.loads(state.read_text())
    for name in ("scipy.optimize", "scipy.special", "scipy.stats"):
        assert loaded[name] in NOT_LOADED, name
    assert loaded["pandas"] == "absent"  # hidden, so scikit-learn's DataFrame probes skip it
    assert loaded["sklearn.metrics"] == loaded["sklearn.linear_model"] == "absent"
    report = json.loads(result.stdout)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        model = AveragedPerceptron(max_epochs=5, selection="shuffle", random_state=0).fit(
            X[:2000], y[:2000])  # the command line shuffles, seed 0
    assert report["train_accuracy"] == model.score(X[:2000], y[:2000])
    assert report["test_accuracy"] == model.score(X[2000:], y[2000:])
    assert report["n_updates"] == model.n_updates_


@pytest.mark.parametrize("first", ["scikit-learn's reference", "an import"])
def test_deferred_modules_become_the_real_ones(first):
    run_python(f"""
        import sys
        from halfspaces.cli._process import lazy

        with lazy.deferring(("scipy.stats",), {{"sklearn.utils.fixes": ("pandas",)}}):
            import sklearn.utils.fixes as fixes
            import scipy.stats
        assert lazy.is_deferred(sys.modules["scipy.stats"])
        assert "pandas" not in sys.modules and lazy.is_deferred(fixes.pd)
        assert scipy.stats.norm.cdf(0.0) == 0.5  # the first use runs the body in place
        assert not lazy.is_deferred(sys.modules["scipy.stats"])
        assert sys.modules["scipy.stats"] is scipy.stats is fixes.scipy.stats
        from scipy.stats import norm
        assert norm is scipy.stats.norm
        if {first!r} == "an import":
            import pandas
            assert fixes.pd.DataFrame is pandas.DataFrame  # forwarded to the real pandas
        else:
            assert fixes.pd.DataFrame is not None  # loads pandas in place
            import pandas
            assert pandas is fixes.pd and not lazy.is_deferred(pandas)
        assert sys.modules["pandas"] is pandas
        assert pandas.DataFrame({{"a": [1, 2]}})["a"].sum() == 3
        """)


def test_deferring_ends_with_the_command(capsys):
    with pytest.raises(SystemExit):
        main(["--version"])
    assert not any(isinstance(finder, lazy._Finder) for finder in sys.meta_path)
    assert capsys.readouterr().out.startswith("halfspaces ")


@pytest.mark.parametrize("labels", [
    np.array([-1.0, 1.0]), np.array([0, 1, 2]), np.array(["no", "yes"]),
    np.array(["a", "b", "c"])])
def test_accuracy_is_sklearns_score(labels):
    rng = np.random.default_rng(1)
    X = rng.normal(size=(90, 4))
    y = labels[np.argmax(X[:, :len(labels)] + 0.8 * rng.normal(size=(90, len(labels))),
                         axis=1)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        model = Perceptron(max_epochs=3).fit(X[:60], y[:60])
    for rows in (slice(0, 60), slice(60, 90)):
        assert accuracy(model, X[rows], y[rows]) == model.score(X[rows], y[rows])


def test_accuracy_refuses_what_score_refuses():
    X = np.array([[1.0], [-1.0], [2.0], [-2.0]])
    model = Perceptron().fit(X, np.array([1, 0, 1, 0]))
    for bad in (np.array(["1", "0", "1", "0"]), np.array([0.5, 0.0, 1.5, 0.0])):
        with pytest.raises(ValueError) as ours:
            accuracy(model, X, bad)
        with pytest.raises(ValueError) as theirs:
            model.score(X, bad)
        assert type(ours.value) is type(theirs.value)
