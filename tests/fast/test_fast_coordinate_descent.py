"""The compiled coordinate descent pass against its plain NumPy twin (``_naive``).

One pass over all columns, dense (float32 and float64, as the (d, n) rows of X^T) and CSC
(int32 and int64 indices), for the three losses, with and without the intercept. Small
sizes: CI runs this file with NUMBA_DISABLE_JIT=1 too.
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from _datasets import in_format, noisy
from _naive import coordinate_descent_pass
from numpy.testing import assert_allclose

from halfspaces._fast import coordinate_descent as fast_cd

FORMATS = ["dense64", "dense32", "csr32", "csr64"]
LOSSES = {"squared": fast_cd.SQUARED, "logistic": fast_cd.LOGISTIC,
          "squared_hinge": fast_cd.SQUARED_HINGE}


def columns_of(X):
    """The loop's view of X by columns: X^T's rows, dense or the CSC triple."""
    if sp.issparse(X):
        csc = X.tocsc()
        csc.sort_indices()
        if X.indices.dtype == np.int64:
            csc.indices, csc.indptr = csc.indices.astype(np.int64), csc.indptr.astype(np.int64)
        return csc.data, csc.indices, csc.indptr
    return np.ascontiguousarray(X.T)


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("loss", list(LOSSES))
@pytest.mark.parametrize("fit_intercept", [True, False])
def test_one_pass_matches_the_naive_twin(fmt, loss, fit_intercept):
    X, y = noisy(40, 6, seed=3, sparsity=0.4)
    y = y.astype(np.float64)
    if loss == "squared":
        y = y + np.random.default_rng(0).normal(size=y.shape)
    X = in_format(X, fmt)
    X[:, 2] = 0.0 if not sp.issparse(X) else X[:, 2]  # an all-zero dense column: skipped
    n, d = X.shape
    rng = np.random.default_rng(1)
    w = np.append(rng.normal(size=d) * (rng.random(d) < 0.5), 0.3)
    alpha1, alpha2 = 0.02, 0.01
    code = LOSSES[loss]
    c = 1.0 if fit_intercept else 0.0
    if not fit_intercept:
        w[-1] = 0.0
    s = np.ones(n)
    K = columns_of(X)
    lips = fast_cd.column_lipschitz(K, s, fast_cd.CURVATURE[code], 1.0 / n)
    ws = np.flatnonzero(lips > 0).astype(np.intp)
    z = np.asarray(X @ w[:-1], dtype=np.float64).ravel() + c * w[-1]
    got = w.copy()
    fast_cd.cd_epochs(K, y, s, got, z, lips, ws, code, (alpha1, alpha2, c, 1.0 / n,
                                                        fast_cd.CURVATURE[code]), 1)
    want_w, want_b = coordinate_descent_pass(X, y, w[:-1], w[-1], alpha1, alpha2, loss,
                                             fit_intercept)
    assert_allclose(got[:-1], want_w, rtol=1e-9, atol=1e-12)
    assert_allclose(got[-1], want_b, rtol=1e-9, atol=1e-12)
    # the scores kept in step with the weights
    assert_allclose(z, np.asarray(X @ got[:-1], dtype=np.float64).ravel() + c * got[-1],
                    rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("loss", list(LOSSES))
def test_datafit_value_is_the_weighted_mean_loss(loss):
    rng = np.random.default_rng(2)
    z, y, s = rng.normal(size=30) * 5, np.where(rng.random(30) < 0.5, -1.0, 1.0), rng.random(30)
    if loss == "squared":
        want = 0.5 * (z - y) ** 2
    elif loss == "logistic":
        want = np.logaddexp(0.0, -y * z)
    else:
        want = np.maximum(0.0, 1.0 - y * z) ** 2
    got = fast_cd.datafit_value(y, s, z, LOSSES[loss], 1.0 / s.sum())
    assert_allclose(got, s @ want / s.sum(), rtol=1e-12)
