"""Model files written by an earlier layout of the package still load, and predict as before.

The files in ``model_files/`` were written by halfspaces 0.1.0 before its private modules
moved into family folders (``_perceptron/``, ``_kernel/``, ``_glm/``, ``_utils/``), by running
this module as a script: ``python tests/io/test_model_files_written_before.py DIR``. A model
file names classes, never modules, so the move must not matter; the oracle is a fresh fit of
the same configuration by the code under test (every configuration is deterministic), whose
predictions and scores the loaded model must give bit for bit.
"""

from __future__ import annotations

import sys
import warnings
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp

import halfspaces as hs

FILES = Path(__file__).resolve().parent / "model_files"


def _data():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 4))
    y = (X[:, 0] + 0.5 * X[:, 1] > 0).astype(int)
    X3 = rng.normal(size=(90, 3))
    y3 = np.argmax(X3 @ rng.normal(size=(3, 3)), axis=1)
    Xs = sp.csr_matrix(np.where(rng.random((60, 6)) < 0.4, rng.normal(size=(60, 6)), 0.0))
    ys = (Xs @ np.arange(1, 7) > 0).astype(int)
    return X, y, X3, y3, Xs, ys


def cases():
    """name -> (unfitted estimator, X, y), as the files were written."""
    X, y, X3, y3, Xs, ys = _data()
    return {
        "perceptron": (hs.Perceptron(max_epochs=20, selection="shuffle", random_state=0),
                       X, y),
        "averaged_csr": (hs.AveragedPerceptron(max_epochs=5), Xs, ys),
        "voted_multiclass": (hs.VotedPerceptron(max_epochs=5), X3, y3),
        "pocket": (hs.PocketPerceptron(max_epochs=5, random_state=0, selection="shuffle"),
                   X3, y3 == 1),
        "lp": (hs.LinearProgramClassifier(), X, y),
        "max_margin": (hs.MaxMarginClassifier(), X, y),
        "zero_one": (hs.ZeroOneERMClassifier(), X[:20], y[:20]),
        "kernel_rbf_averaged": (hs.KernelPerceptron(kernel="rbf", gamma=0.5, average=True,
                                                    max_epochs=3, margin=1.0, burn_in=30),
                                X, y),
        "voted_kernel_poly": (hs.VotedKernelPerceptron(kernel="poly", degree=2, max_epochs=3),
                              X3, y3),
        "multiclass": (hs.MulticlassPerceptron(max_epochs=5, average=True), X3, y3),
        "logistic_lbfgs": (hs.LogisticRegression(alpha=0.01), X3, y3),
        "logistic_sgd": (hs.LogisticRegression(alpha=0.01, solver="sgd", max_iter=5,
                                               random_state=0), X, y),
        "linear_regression": (hs.LinearRegression(), X, X @ np.arange(1, 5) + 0.1),
        # written by the layout that introduced it (halfspaces.svm)
        "linear_svm": (hs.LinearSVM(alpha=0.01, loss="hinge", random_state=0), X3, y3),
    }


def _fit(estimator, X, y):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # non-separable runs warn; the fit is what matters
        return estimator.fit(X, y)


@pytest.mark.parametrize("name", sorted(cases()))
def test_a_file_written_before_the_move_loads_and_predicts_as_a_fresh_fit(name):
    estimator, X, y = cases()[name]
    loaded = hs.load(FILES / f"{name}.hs")
    fresh = _fit(estimator, X, y)
    assert type(loaded) is type(fresh)
    assert loaded.get_params() == fresh.get_params()
    np.testing.assert_array_equal(loaded.predict(X), fresh.predict(X))
    if hasattr(fresh, "decision_function"):
        np.testing.assert_array_equal(loaded.decision_function(X), fresh.decision_function(X))
    for attribute in ("coef_", "intercept_", "classes_"):
        if hasattr(fresh, attribute):
            np.testing.assert_array_equal(getattr(loaded, attribute), getattr(fresh, attribute))


def test_every_estimator_class_has_a_file():
    from halfspaces._registry import ESTIMATORS

    written = {type(estimator).__name__ for estimator, _, _ in cases().values()}
    assert written == set(ESTIMATORS)


if __name__ == "__main__":  # write the files (run with the layout whose files you want)
    out = Path(sys.argv[1])
    for name, (estimator, X, y) in cases().items():
        hs.save(_fit(estimator, X, y), out / f"{name}.hs")
