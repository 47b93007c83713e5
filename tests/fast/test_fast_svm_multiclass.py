"""The Crammer-Singer loop's row helper and invariants: row_scatter_some against NumPy and
against row_scatter column by column, and the loop's state after any number of passes (W is
X^T A, the dual in its box with rows summing to zero, s the column sums of A)."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from numba import njit
from numpy.testing import assert_allclose, assert_array_equal

from halfspaces._fast import loop_input
from halfspaces._fast._dense_or_csr import n_rows, row_scatter, row_scatter_some
from halfspaces._fast.svm_multiclass import crammer_singer_descent


@njit(cache=False)
def _scatter_all_rows(X, steps, columns, count, Zt):
    for i in range(n_rows(X)):
        row_scatter_some(X, i, steps[i], columns, count, Zt)


@njit(cache=False)
def _one_at_a_time(X, n, steps, columns, count, Zt):
    for i in range(n):
        for p in range(count):
            row_scatter(X, i, steps[i, p], Zt, columns[p])


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("layout", ["dense", "csr"])
def test_row_scatter_some_adds_each_row_to_the_chosen_columns(dtype, layout):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(30, 7)).astype(dtype)
    X[rng.random(X.shape) < 0.5] = 0.0
    rows = loop_input(sp.csr_matrix(X)) if layout == "csr" else X
    columns = np.array([4, 0, 2], dtype=np.int64)
    steps = rng.normal(size=(30, 3))
    Zt = rng.normal(size=(7, 5))
    expected = Zt.copy()
    for p, c in enumerate(columns):
        expected[:, c] += X.astype(np.float64).T @ steps[:, p]
    twin = Zt.copy()
    _one_at_a_time(rows, 30, steps, columns, 3, twin)
    _scatter_all_rows(rows, steps, columns, 3, Zt)
    assert_array_equal(Zt, twin)  # the same updates, in the same order, per column
    assert_allclose(Zt, expected, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("rho", [0.0, 1.5])
@pytest.mark.parametrize("passes", [1, 3, 30])
def test_the_loop_keeps_its_invariants_after_any_number_of_passes(rho, passes):
    rng = np.random.default_rng(passes)
    n, d, k = 80, 6, 4
    X = rng.normal(size=(n, d))
    y = rng.integers(0, k, size=n)
    C = rng.uniform(0.0, 2.0, size=n)
    A, Wt, lagrange = np.zeros((n, k)), np.zeros((d, k)), np.zeros((2, k))
    done, _ = crammer_singer_descent(X, y, np.einsum("ij,ij->i", X, X), C, A, Wt, lagrange,
                                     rho, 7, passes, 1e-12)
    assert done == passes
    rows = np.arange(n)
    assert np.all(A[rows, y] <= C) and np.all(A[rows, y] >= 0.0)
    others = A.copy()
    others[rows, y] = 0.0
    assert np.all(others <= 0.0)
    assert_allclose(A.sum(axis=1), 0.0, atol=1e-13 * max(1.0, C.max()))
    assert_allclose(Wt, X.T @ A, rtol=1e-10, atol=1e-12)
    if rho:
        assert_allclose(lagrange[1], A.sum(axis=0), atol=1e-12)
    else:
        assert_array_equal(lagrange, 0.0)
