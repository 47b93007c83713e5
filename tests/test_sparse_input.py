"""Sparse matrices built from inconsistent arrays are refused before any loop reads them.

The compiled loops and SciPy's sparse products index ``data`` through ``indices`` and
``indptr`` without bounds checks: a CSR matrix whose index arrays point outside it would make
them read (or, in an update, write) outside its memory. Every public entry point that takes X
must refuse it with a ValueError that says the matrix is invalid.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import scipy.sparse as sp

import halfspaces
from halfspaces import theory


def broken(kind: str) -> sp.csr_matrix:
    """A 4 x 3 CSR matrix whose arrays are inconsistent in the way `kind` says."""
    data = np.ones(4)
    indices = np.array([0, 1, 2, 1], dtype=np.int32)
    indptr = np.array([0, 1, 2, 3, 4], dtype=np.int32)
    X = sp.csr_matrix((data, indices, indptr), shape=(4, 3))
    if kind == "index past the last column":
        X.indices[2] = 2**31 - 1000
    elif kind == "negative index":
        X.indices[1] = -5
    elif kind == "indptr past nnz":
        X.indptr[-1] = 40
    elif kind == "indptr decreasing":
        X.indptr[2] = 0
    return X


KINDS = ["index past the last column", "negative index", "indptr past nnz",
         "indptr decreasing"]
Y = np.array([1, -1, 1, -1])
GOOD = sp.csr_matrix(np.array([[1.0, 0, 0], [0, 1.0, 0], [0, 0, 1.0], [0, 1.0, 0]]))
Y_GOOD = np.array([1, -1, 1, -1])
ESTIMATORS = ["Perceptron", "AveragedPerceptron", "VotedPerceptron", "PocketPerceptron",
              "KernelPerceptron", "VotedKernelPerceptron", "MulticlassPerceptron",
              "LogisticRegression", "LinearProgramClassifier", "MaxMarginClassifier"]


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("name", ESTIMATORS)
def test_fit_refuses_an_invalid_csr_matrix(name, kind):
    with pytest.raises(ValueError, match="not a valid CSR matrix"):
        getattr(halfspaces, name)().fit(broken(kind), Y)


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("name", ESTIMATORS)
def test_predict_refuses_an_invalid_csr_matrix(name, kind):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = getattr(halfspaces, name)().fit(GOOD, Y_GOOD)
    with pytest.raises(ValueError, match="not a valid CSR matrix"):
        model.predict(broken(kind))


@pytest.mark.parametrize("kind", KINDS)
def test_partial_fit_linear_regression_and_theory_refuse_it(kind):
    with pytest.raises(ValueError, match="not a valid CSR matrix"):
        halfspaces.Perceptron().partial_fit(broken(kind), Y, classes=[-1, 1])
    with pytest.raises(ValueError, match="not a valid CSR matrix"):
        halfspaces.KernelPerceptron().partial_fit(broken(kind), Y, classes=[-1, 1])
    with pytest.raises(ValueError, match="not a valid CSR matrix"):
        halfspaces.LinearRegression().fit(broken(kind), Y.astype(float))
    with pytest.raises(ValueError, match="not a valid CSR matrix"):
        halfspaces.online_perceptron(broken(kind), Y)
    with pytest.raises(ValueError, match="not a valid CSR matrix"):
        theory.separability(broken(kind), Y)


def test_a_valid_matrix_passes_unchanged():
    model = halfspaces.Perceptron().fit(GOOD, Y_GOOD)
    assert np.array_equal(model.predict(GOOD), Y_GOOD)
