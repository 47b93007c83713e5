"""Sparse matrices built from inconsistent arrays are refused before any loop reads them.

The compiled loops and SciPy's sparse products index ``data`` through ``indices`` and
``indptr`` without bounds checks: a CSR matrix whose index arrays point outside it would make
them read (or, in an update, write) outside its memory. Every public entry point that takes X
must refuse it with a ValueError that says the matrix is invalid.
"""

from __future__ import annotations

import warnings
from functools import partial

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


def broken_other(fmt: str, n_columns: int = 4):
    """A 4-row matrix in CSC or COO whose row index points far outside it: SciPy's own
    tocsr() of it is a segmentation fault, so it must be refused before any conversion."""
    dense = np.eye(4)[:, :n_columns]
    X = sp.csc_matrix(dense) if fmt == "csc" else sp.coo_matrix(dense)
    (X.indices if fmt == "csc" else X.row)[0] = 2**31 - 1000
    return X


@pytest.mark.parametrize("fmt", ["csc", "coo"])
def test_csc_and_coo_matrices_are_checked_before_scipy_converts_them(fmt):
    message = f"not a valid {fmt.upper()} matrix"
    for name in ESTIMATORS:
        with pytest.raises(ValueError, match=message):
            getattr(halfspaces, name)().fit(broken_other(fmt), Y)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            model = getattr(halfspaces, name)().fit(GOOD, Y_GOOD)
        with pytest.raises(ValueError, match=message):
            model.predict(broken_other(fmt, 3))
    with pytest.raises(ValueError, match=message):
        halfspaces.LinearRegression().fit(broken_other(fmt), Y.astype(float))
    with pytest.raises(ValueError, match=message):
        halfspaces.online_perceptron(broken_other(fmt), Y)
    with pytest.raises(ValueError, match=message):
        theory.separability(broken_other(fmt), Y)
    with pytest.raises(ValueError, match="a row index is outside|row indices must lie in"):
        halfspaces.Perceptron().partial_fit(broken_other(fmt), Y, classes=[-1, 1])


def with_duplicates(X: np.ndarray, rng) -> sp.csr_matrix:
    """X as a CSR matrix that stores some entries as two summands, in shuffled order: the
    same matrix to SciPy (which sums them), not to a loop reading one entry at a time."""
    rows, cols = np.nonzero(X)
    split = rng.random(rows.size) < 0.5
    part = np.where(split, rng.standard_normal(rows.size), 0.0)
    r = np.concatenate([rows, rows[split]])
    c = np.concatenate([cols, cols[split]])
    v = np.concatenate([X[rows, cols] - part, part[split]])
    order = rng.permutation(r.size)
    r, c, v = r[order], c[order], v[order]
    indptr = np.searchsorted(r[np.argsort(r, kind="stable")], np.arange(X.shape[0] + 1))
    by_row = np.argsort(r, kind="stable")
    return sp.csr_matrix((v[by_row], c[by_row], indptr), shape=X.shape)


def duplicate_cases():
    rng = np.random.default_rng(7)
    X = rng.standard_normal((60, 4)) * (rng.random((60, 4)) < 0.7)
    y = (X @ [1.0, -2.0, 0.5, 1.5] > 0).astype(int)
    return X, y, with_duplicates(X, rng)


@pytest.mark.parametrize("make", [
    lambda: halfspaces.LinearRegression(solver="lstsq"),
    lambda: halfspaces.LinearRegression(solver="cholesky"),
    lambda: halfspaces.LogisticRegression(solver="newton"),
    lambda: halfspaces.VotedPerceptron(max_epochs=3),
    lambda: halfspaces.KernelPerceptron(kernel="poly", degree=2, max_epochs=3),
    lambda: halfspaces.AveragedPerceptron(max_epochs=3),
], ids=["lstsq", "cholesky", "newton", "voted", "kernel-poly", "averaged"])
def test_a_column_stored_twice_in_a_row_is_read_as_scipy_sums_it(make):
    # lstsq/cholesky/newton squared the two entries apart (a^2 + b^2 on a Gram diagonal),
    # the voted scores kept the last entry only: silent wrong models and scores
    X, y, Xdup = duplicate_cases()
    assert not Xdup.has_canonical_format and np.allclose(Xdup.toarray(), X, atol=1e-12)
    target = X @ [1.0, 2.0, -1.0, 0.5] + 3.0 if "Regression" in repr(make()) and \
        "Logistic" not in repr(make()) else y
    kept = Xdup.copy()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        on_dense = make().fit(X, target)
        on_dup = make().fit(Xdup, target)
    scores = on_dup.decision_function(Xdup) if hasattr(on_dup, "decision_function") \
        else on_dup.predict(Xdup)
    expected = on_dense.decision_function(X) if hasattr(on_dense, "decision_function") \
        else on_dense.predict(X)
    np.testing.assert_allclose(scores, expected, rtol=1e-7, atol=1e-7 * np.abs(expected).max())
    # the caller's matrix is left as it was given
    for a in ("data", "indices", "indptr"):
        np.testing.assert_array_equal(getattr(Xdup, a), getattr(kept, a))


def test_theory_leaves_the_callers_matrix_as_given():
    X, y, Xdup = duplicate_cases()
    kept = Xdup.copy()
    found = theory.separability(Xdup, y)
    assert found.separable == theory.separability(X, y).separable
    for a in ("data", "indices", "indptr"):
        np.testing.assert_array_equal(getattr(Xdup, a), getattr(kept, a))


def test_a_false_canonical_flag_is_not_trusted():
    X, y, Xdup = duplicate_cases()
    Xdup.has_sorted_indices = True  # anyone may set them; sum_duplicates would trust them
    Xdup.has_canonical_format = True
    model = halfspaces.LinearRegression(solver="cholesky").fit(Xdup, X @ [1.0, 2.0, -1.0, 0.5])
    np.testing.assert_allclose(model.coef_, [1.0, 2.0, -1.0, 0.5], rtol=1e-9)


PARTIAL_FIT = {"Perceptron": {}, "AveragedPerceptron": {}, "PocketPerceptron": {},
               "KernelPerceptron": {}, "LogisticRegression": {"solver": "sgd"}}


@pytest.mark.parametrize("name", ESTIMATORS)
def test_half_precision_labels_fit_as_their_float64_values(name):
    # Numba has no float16: every fit raised NotImplementedError from its type system
    X = GOOD.toarray()
    labels = np.array([1.0, 0.0, 1.0, 0.0])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        half = getattr(halfspaces, name)().fit(X, labels.astype(np.float16))
        full = getattr(halfspaces, name)().fit(X, labels)
    np.testing.assert_array_equal(half.classes_.astype(float), full.classes_)
    np.testing.assert_array_equal(half.predict(X).astype(float), full.predict(X))


@pytest.mark.parametrize("name", PARTIAL_FIT)
def test_partial_fit_refuses_the_classes_fit_refuses(name):
    # fit refuses NaN and 0.5 as labels; as classes they were accepted, and the pocket
    # perceptron then predicted NaN
    X, y = GOOD.toarray(), np.array([1, 0, 1, 0])
    make = partial(getattr(halfspaces, name), **PARTIAL_FIT[name])
    for classes, message in [([0, 1, np.nan], "NaN"), ([0, 0.5, 1], "Unknown label")]:
        with pytest.raises(ValueError, match=message):
            make().partial_fit(X, y, classes=classes)
        with pytest.raises(ValueError, match=message):
            make().fit(X, np.array(classes)[[0, 1, 2, 0]])
