"""A float32 fit by dual coordinate descent never holds a float64 copy of X.

The certified gap multiplies X by vectors in float64; NumPy and SciPy would first copy a
float32 X whole into float64 (and |X| once more). The products are taken in one compiled
pass instead (``halfspaces._fast.products``), so the fit's peak of traced memory stays below
the size of X in float64. An allocation test, not a timing test: tracemalloc counts NumPy's
allocations, whatever the machine's speed.
"""

from __future__ import annotations

import tracemalloc

import numpy as np
import pytest
import scipy.sparse as sp

from halfspaces import LinearSVM
from halfspaces._glm.gaps import column_products, row_products


def data(n=20_000, d=40, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)).astype(np.float32)
    w = rng.normal(size=d)
    y = np.where(X @ w + rng.normal(size=n) > 0, 1, -1)
    return X, y


def peak_of(call) -> int:
    tracemalloc.start()
    try:
        call()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


@pytest.mark.parametrize("loss", ["hinge", "squared_hinge"])
@pytest.mark.parametrize("fit_intercept", [False, True])
@pytest.mark.parametrize("sparse", [False, True])
def test_a_float32_fit_allocates_no_float64_copy_of_X(loss, fit_intercept, sparse):
    X, y = data()
    if sparse:
        X = sp.csr_matrix(X)
    size64 = X.shape[0] * X.shape[1] * 8  # X in float64, dense (its CSR form is larger)
    svm = LinearSVM(alpha=1e-3, loss=loss, fit_intercept=fit_intercept, solver="dual",
                    tol=1e-4, max_iter=30, random_state=0)
    svm.fit(X[:50], y[:50])  # compile the loops outside the measurement
    peak = peak_of(lambda: svm.fit(X, y))
    assert svm.gap_ > 0.0
    assert peak < size64, (peak, size64)


@pytest.mark.parametrize("sparse", [False, True])
def test_the_gap_products_copy_nothing_and_match_float64_products(sparse):
    X, _ = data(n=5_000, d=30)
    rng = np.random.default_rng(1)
    w, v, a = rng.normal(size=30), rng.normal(size=5_000), rng.uniform(size=5_000)
    X64 = X.astype(np.float64)  # the oracle: float64 products, exact widening of float32
    Xs = sp.csr_matrix(X) if sparse else X
    peak = peak_of(lambda: (row_products(Xs, w), column_products(Xs, v, a)))
    assert peak < X.nbytes / 2  # the results only (n + d floats each)
    scores, magnitudes = row_products(Xs, w)
    sums, column_magnitudes = column_products(Xs, v, a)
    np.testing.assert_allclose(scores, X64 @ w, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(magnitudes, np.abs(X64) @ np.abs(w), rtol=1e-12)
    np.testing.assert_allclose(sums, X64.T @ v, rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(column_magnitudes, np.abs(X64).T @ a, rtol=1e-12)
