"""The one-pass column statistics (max |x_ij| and finiteness) against NumPy's reductions."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

from halfspaces import LinearRegression, LogisticRegression
from halfspaces._fast import loop_input
from halfspaces._fast.columns import column_stats


def damaged(seed: int, dtype) -> np.ndarray:
    """Random data with a few NaN, +inf and -inf (or none), a zero column and huge values."""
    rng = np.random.default_rng(seed)
    X = (rng.standard_normal((23, 7)) * 10.0 ** rng.integers(-30, 30, size=7)).astype(dtype)
    X[:, 3] = 0.0
    for _ in range(seed % 4):
        X[rng.integers(23), rng.integers(7)] = rng.choice([np.nan, np.inf, -np.inf])
    return X


def numpy_stats(X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    bad = ~np.isfinite(X).all(axis=0)
    finite = np.where(np.isfinite(X), np.abs(X), 0.0)
    return finite.max(axis=0).astype(np.float64), bad


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("seed", range(24))
@pytest.mark.parametrize("sparse", [False, True])
def test_column_stats_match_numpy(seed, dtype, sparse):
    X = damaged(seed, dtype)
    if sparse:
        X[np.random.default_rng(seed).random(X.shape) < 0.5] = 0.0
    top, bad = column_stats(loop_input(sp.csr_matrix(X) if sparse else X), X.shape[1])
    want_top, want_bad = numpy_stats(X)
    np.testing.assert_array_equal(bad, want_bad)
    # on finite columns the maximum itself; a column with NaN or inf is refused anyway
    np.testing.assert_array_equal(top[~want_bad], want_top[~want_bad])
    assert top.dtype == np.float64


def test_no_rows_give_zeros():
    top, bad = column_stats(np.zeros((0, 4)), 4)
    assert not bad.any() and np.array_equal(top, np.zeros(4))


@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("value", [np.nan, np.inf, -np.inf])
@pytest.mark.parametrize("make", [
    lambda: LogisticRegression(), lambda: LogisticRegression(solver="newton"),
    lambda: LinearRegression(), lambda: LinearRegression(solver="lstsq"),
    lambda: LinearRegression(solver="gd"), lambda: LogisticRegression(solver="sgd")])
def test_glm_fit_refuses_nan_and_inf_naming_the_column(make, value, sparse):
    """The GLMs skip scikit-learn's finiteness pass: the datafits' column pass must refuse."""
    rng = np.random.default_rng(0)
    X = rng.standard_normal((30, 5))
    y = np.where(X[:, 0] > 0, 1.0, 0.0)
    X[17, 2] = value
    with pytest.raises(ValueError, match=r"NaN or infinity \(first in column 2\)"):
        make().fit(sp.csr_matrix(X) if sparse else X, y)
