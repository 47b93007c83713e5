"""The compiled logistic, softmax and squared-loss loops against plain NumPy twins.

Small sizes: CI also runs this file with NUMBA_DISABLE_JIT=1, as plain Python. The twins
use :mod:`halfspaces.losses` (the single definition of the pointwise losses) and NumPy/SciPy
formulas, nothing from the package's middle layer.
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from _datasets import in_format, noisy
from _glm_reference import naive_sgd_epoch
from numpy.testing import assert_allclose
from scipy.special import expit, logsumexp

from halfspaces._fast import logistic as fast_logistic
from halfspaces._fast import loop_input
from halfspaces.losses import get_loss

FORMATS = ["dense64", "dense32", "csr32", "csr64"]


def dense(X):
    return np.asarray(X.toarray() if sp.issparse(X) else X, dtype=np.float64)


def augmented(X, c):
    return np.hstack([dense(X), np.full((X.shape[0], 1), c)])


def data(fmt, seed=0, n=40, d=5, k=3):
    """X in a format, ±1 labels, real targets, class indices and a random w and W."""
    X, y = noisy(n, d, seed=seed, sparsity=0.3)
    rng = np.random.default_rng(seed)
    targets = X @ rng.normal(size=d) + rng.normal(size=n)
    labels = rng.integers(0, k, n).astype(np.intp)
    return in_format(X, fmt), y, targets, labels, rng.normal(size=d + 1), rng.normal(
        size=(k, d + 1))


def twin_loss_grad(X, y, w, c, loss):
    """sum_i ell(z_i) and sum_i ell'(z_i) x'_i from losses.py (squared: (z - y)^2 / 2)."""
    A = augmented(X, c)
    z = A @ w
    if loss == fast_logistic.LOGISTIC:
        value = get_loss("logistic").value(y * z)
        deriv = y * get_loss("logistic").derivative(y * z)
    else:
        value, deriv = 0.5 * (z - y) ** 2, z - y
    return value.sum(), A.T @ deriv


@pytest.mark.parametrize("c", [1.0, 0.0])
@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("loss", [fast_logistic.LOGISTIC, fast_logistic.SQUARED])
def test_loss_grad_sums_match_the_twin(loss, fmt, c):
    X, y, targets, _, w, _ = data(fmt)
    t = y if loss == fast_logistic.LOGISTIC else targets
    rows = np.arange(X.shape[0], dtype=np.intp)
    grad = np.full(w.size, 0.5)  # the loop adds to what is there
    value = fast_logistic.loss_grad(loop_input(X), t, w, c, rows, loss, grad)
    expected_value, expected_grad = twin_loss_grad(X, t, w, c, loss)
    rtol = 1e-5 if fmt.endswith("32") else 1e-12
    assert_allclose(value, expected_value, rtol=rtol)
    assert_allclose(grad - 0.5, expected_grad, rtol=rtol, atol=rtol)


def test_loss_grad_visits_only_the_given_rows():
    X, y, _, _, w, _ = data("csr64", seed=1)
    rows = np.array([3, 7, 7, 20], dtype=np.intp)  # a repeated row counts twice
    grad = np.zeros(w.size)
    value = fast_logistic.loss_grad(loop_input(X), y, w, 1.0, rows, fast_logistic.LOGISTIC, grad)
    expected_value, expected_grad = twin_loss_grad(X[rows], y[rows], w, 1.0, fast_logistic.LOGISTIC)
    assert_allclose(value, expected_value, rtol=1e-12)
    assert_allclose(grad, expected_grad, rtol=1e-12, atol=1e-14)


def test_pointwise_loss_is_accurate_in_the_tails():
    logistic = get_loss("logistic")
    for m in (-800.0, -40.0, -1.0, 0.0, 1.0, 40.0, 700.0):
        value, deriv = fast_logistic.point_loss_deriv(fast_logistic.LOGISTIC, m, 1.0)
        assert_allclose(value, np.logaddexp(0.0, -m), rtol=1e-15, atol=1e-300)
        assert_allclose(deriv, -expit(-m), rtol=1e-15, atol=1e-300)
        assert_allclose(value, logistic.value(m), rtol=1e-15, atol=1e-300)
        assert_allclose(deriv, logistic.derivative(m), rtol=1e-15, atol=1e-300)
        # y = -1 is the margin -z: value and derivative in z mirror
        value_neg, deriv_neg = fast_logistic.point_loss_deriv(fast_logistic.LOGISTIC, -m, -1.0)
        assert value_neg == value and deriv_neg == -deriv


def test_squared_point_loss_is_the_margin_form_for_plus_minus_one_targets():
    squared = get_loss("squared")
    for z in (-3.0, -1.0, 0.0, 0.25, 1.0, 4.0):
        for y in (-1.0, 1.0):
            value, deriv = fast_logistic.point_loss_deriv(fast_logistic.SQUARED, z, y)
            assert value == pytest.approx(squared.value(y * z), rel=1e-15)
            assert deriv == pytest.approx(y * squared.derivative(y * z), rel=1e-15, abs=1e-300)


@pytest.mark.parametrize("fmt", ["dense64", "csr32"])
@pytest.mark.parametrize("loss", [fast_logistic.LOGISTIC, fast_logistic.SQUARED])
def test_curvature_and_hessian_products_match_the_twin(loss, fmt):
    X, y, _, _, w, _ = data(fmt, seed=2)
    rows = np.arange(X.shape[0], dtype=np.intp)
    h = np.empty(X.shape[0])
    fast_logistic.curvature(loop_input(X), y, w, 1.0, rows, loss, h)
    A = augmented(X, 1.0)
    p = expit(A @ w)
    assert_allclose(h, p * (1 - p) if loss == fast_logistic.LOGISTIC else 1.0, rtol=1e-12)
    v = np.random.default_rng(3).normal(size=w.size)
    out = np.zeros(w.size)
    fast_logistic.hessp(loop_input(X), h, v, 1.0, rows, out)
    assert_allclose(out, A.T @ (h * (A @ v)), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("c", [1.0, 0.0, 2.5])
@pytest.mark.parametrize("fmt", ["csr32", "csr64"])
def test_csr_weighted_gram_is_the_upper_triangle_of_the_twin(fmt, c):
    X, *_ = data(fmt, seed=4)
    h = np.random.default_rng(5).random(X.shape[0]) - 0.2  # negative weights too
    H = np.zeros((X.shape[1] + 1,) * 2)
    fast_logistic.csr_weighted_gram(X.data, X.indices, X.indptr, h, c, H)
    A = augmented(X, c)
    expected = A.T @ (A * h[:, None])
    assert_allclose(np.triu(H[:-1, :-1]), np.triu(expected[:-1, :-1]), rtol=1e-5, atol=1e-6)
    assert_allclose(H[:-1, -1], expected[:-1, -1], rtol=1e-5, atol=1e-6)
    assert_allclose(H[-1, -1], expected[-1, -1], rtol=1e-12)


@pytest.mark.parametrize("fmt", ["dense64", "csr64"])
def test_softmax_loss_grad_matches_the_twin(fmt):
    X, _, _, labels, _, W = data(fmt, seed=6)
    rows = np.arange(X.shape[0], dtype=np.intp)
    G = np.zeros_like(W)
    value = fast_logistic.softmax_loss_grad(loop_input(X), labels, W, 1.0, rows, G, np.empty(3))
    A = augmented(X, 1.0)
    Z = A @ W.T
    R = np.exp(Z - logsumexp(Z, axis=1, keepdims=True))
    R[rows, labels] -= 1.0
    assert_allclose(value, np.sum(logsumexp(Z, axis=1) - Z[rows, labels]), rtol=1e-12)
    assert_allclose(G, R.T @ A, rtol=1e-10, atol=1e-12)


def test_step_sizes_follow_their_schedules():
    alpha, eta0, power = 0.01, 0.3, 0.5
    for t in (1, 2, 10, 1000):
        assert fast_logistic.step_size(fast_logistic.CONSTANT, eta0, power, alpha, t) == eta0
        step = fast_logistic.step_size(fast_logistic.INVSCALING, eta0, power, alpha, t)
        assert_allclose(step, eta0 / t ** power)
        # t0 = 1 / (alpha eta0): the first step (t = 1) is close to eta0
        assert_allclose(fast_logistic.step_size(fast_logistic.OPTIMAL, eta0, power, alpha, t),
                        1.0 / (alpha * (t + 1.0 / (alpha * eta0))), rtol=1e-15)


# -- the stochastic loops against a plain NumPy twin -----------------------------------------
@pytest.mark.parametrize("fmt", ["dense64", "dense32", "csr64"])
@pytest.mark.parametrize("loss,batch", [("logistic", 1), ("logistic", 7), ("softmax", 5)])
def test_sgd_loop_matches_the_naive_twin(loss, batch, fmt):
    X, y, _, labels, w, W = data(fmt, seed=4, n=50, d=6)
    order = np.random.default_rng(5).permutation(50).astype(np.intp)
    opts = (0.01, float(fast_logistic.CONSTANT), 0.05, 0.5)
    if loss == "softmax":
        y, start = labels, W
        it, avg = W.copy(), np.zeros_like(W)
        t, n_avg = fast_logistic.softmax_sgd_epoch(loop_input(X), y, it, 1.0, order, batch, opts, 0,
                                        np.empty_like(it), np.empty(3), avg, 0)
    else:
        start = w
        it, avg = w.copy(), np.zeros_like(w)
        t, n_avg = fast_logistic.sgd_epoch(loop_input(X), y, it, 1.0, order, batch,
                                           fast_logistic.LOGISTIC, opts, 0,
                                np.empty_like(it), avg, 0)
    expected_w, expected_mean = naive_sgd_epoch(X, y, start.ravel().copy(), order, batch, 0.01,
                                                 0.05, loss, 3 if loss == "softmax" else 1)
    assert t == n_avg == -(-50 // batch)
    assert_allclose(it.ravel(), expected_w, rtol=1e-10, atol=1e-12)
    assert_allclose(avg.ravel(), expected_mean, rtol=1e-10, atol=1e-12)


def test_running_mean_waits_until_averaging_starts():
    u, w = np.zeros(3), np.array([1.0, 2.0, 3.0])
    assert fast_logistic.running_mean(u, w, -1) == -1 and not u.any()  # averaging off: untouched
    assert fast_logistic.running_mean(u, w, 0) == 1
    assert_allclose(u, w)
    assert fast_logistic.running_mean(u, 3 * w, 1) == 2
    assert_allclose(u, 2 * w)
