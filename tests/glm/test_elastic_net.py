"""The elastic-net fits (``l1_ratio > 0``, coordinate descent) against independent solvers.

J is recomputed from coef_ and intercept_ by its formula (``_glm_reference``), never read
from the estimator, and compared with the J of scikit-learn's ``ElasticNet``/``Lasso``
(whose objective is ours: the mean of (z - y)^2 / 2 plus alpha (rho ||w||_1 + (1 - rho)/2
||w||^2)) and ``LogisticRegression`` (C = 1 / (n alpha)), fitted to tolerances far below
the comparison's. Then the optimality (KKT) conditions, the honesty of ``gap_`` (J - J_ref
<= gap_, also after one to five outer iterations), alpha_max, dense = CSR and float32.
"""

from __future__ import annotations

import functools
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from _datasets import in_format, noisy
from _glm_reference import elastic_net_gradient, elastic_net_value
from numpy.testing import assert_allclose
from sklearn.exceptions import ConvergenceWarning as SkConvergenceWarning
from sklearn.linear_model import ElasticNet as SkElasticNet
from sklearn.linear_model import LogisticRegression as SkLogisticRegression

import halfspaces
from halfspaces import LinearRegression, LogisticRegression
from halfspaces._glm.coordinate_descent import alpha_max, solve_cd
from halfspaces.exceptions import ConvergenceWarning

TIGHT = dict(tol=1e-12, max_iter=1000)


def regression(seed=0, n=80, d=12, fmt="dense64"):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)) * rng.uniform(0.5, 2.0, size=d)
    w = np.where(rng.random(d) < 0.4, rng.normal(size=d), 0.0)
    y = X @ w + 0.5 * rng.normal(size=n) + 1.5
    return in_format(X, fmt), y


def classification(seed=0, n=100, d=8, fmt="dense64"):
    X, y = noisy(n, d, seed=seed, sparsity=0.3)
    return in_format(X, fmt), np.where(y > 0, 1.0, -1.0)


def sk_elastic_net(X, y, alpha, l1_ratio, fit_intercept):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SkConvergenceWarning)
        return SkElasticNet(alpha=alpha, l1_ratio=l1_ratio, fit_intercept=fit_intercept,
                            tol=1e-15, max_iter=200_000).fit(X, y)


def sk_logistic(X, y, alpha, l1_ratio, fit_intercept):
    n = X.shape[0]
    # liblinear penalises its intercept: it is the reference without one, saga with one
    solver = "liblinear" if (l1_ratio == 1.0 and not fit_intercept) else "saga"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return SkLogisticRegression(C=1.0 / (n * alpha), l1_ratio=l1_ratio, solver=solver,
                                    fit_intercept=fit_intercept, tol=1e-14,
                                    max_iter=1_000_000).fit(X, y)


@pytest.mark.parametrize("l1_ratio", [1.0, 0.5])
@pytest.mark.parametrize("fit_intercept", [True, False])
@pytest.mark.parametrize("fmt", ["dense64", "csr32"])
@pytest.mark.parametrize("seed", [0, 1])
def test_lasso_and_elastic_net_reach_scikit_learns_objective(l1_ratio, fit_intercept, fmt,
                                                             seed):
    X, y = regression(seed, fmt=fmt)
    alpha = 0.1
    ours = LinearRegression(solver="auto", alpha=alpha, l1_ratio=l1_ratio,
                            fit_intercept=fit_intercept, **TIGHT).fit(X, y)
    sk = sk_elastic_net(X, y, alpha, l1_ratio, fit_intercept)
    J = elastic_net_value(X, y, ours.coef_, ours.intercept_, alpha, l1_ratio, "squared")
    J_sk = elastic_net_value(X, y, sk.coef_, sk.intercept_, alpha, l1_ratio, "squared")
    assert abs(J - J_sk) <= 1e-8 * J_sk
    assert_allclose(ours.coef_, sk.coef_, atol=1e-6)
    assert J - min(J, J_sk) <= ours.gap_
    assert ours.gap_ <= 1e-10 * J


@pytest.mark.parametrize("l1_ratio", [1.0, 0.5])
@pytest.mark.parametrize("fit_intercept", [True, False])
@pytest.mark.parametrize("seed", [0, 1])
def test_binary_logistic_reaches_scikit_learns_objective(l1_ratio, fit_intercept, seed):
    X, y = classification(seed)
    alpha = 0.02
    ours = LogisticRegression(solver="cd", alpha=alpha, l1_ratio=l1_ratio,
                              fit_intercept=fit_intercept, **TIGHT).fit(X, y)
    sk = sk_logistic(X, y, alpha, l1_ratio, fit_intercept)
    J = elastic_net_value(X, y, ours.coef_, ours.intercept_[0], alpha, l1_ratio, "logistic")
    J_sk = elastic_net_value(X, y, sk.coef_, sk.intercept_[0] if fit_intercept else 0.0,
                             alpha, l1_ratio, "logistic")
    assert abs(J - J_sk) <= 1e-8 * J_sk
    assert J - min(J, J_sk) <= ours.gap_
    assert np.count_nonzero(ours.coef_) < X.shape[1] or l1_ratio < 1


@pytest.mark.parametrize("loss", ["squared", "logistic", "squared_hinge"])
@pytest.mark.parametrize("l1_ratio", [1.0, 0.3])
def test_the_solution_meets_the_subgradient_conditions(loss, l1_ratio):
    X, y = regression(2) if loss == "squared" else classification(2)
    # a third of alpha_max: some weights zero, some not
    alpha = 0.3 * alpha_max(X, y, loss=loss, l1_ratio=l1_ratio, fit_intercept=True)
    run = solve_cd(X, y, loss=loss, alpha=alpha, l1_ratio=l1_ratio, fit_intercept=True,
                   tol=1e-13, max_iter=1000)
    w, b = run.w[:-1], run.w[-1]
    g, g_b = elastic_net_gradient(X, y, w, b, loss)
    a1, a2 = alpha * l1_ratio, alpha * (1 - l1_ratio)
    scale = 1e-6 * max(1.0, np.abs(g).max())
    on = w != 0
    # 0 in g_j + a1 sign(w_j) + a2 w_j on the support, |g_j| <= a1 off it; dJ/db = 0
    assert np.all(np.abs(g[on] + a1 * np.sign(w[on]) + a2 * w[on]) <= scale)
    assert np.all(np.abs(g[~on]) <= a1 + scale)
    assert abs(g_b) <= scale
    assert on.any() and (~on).any()


@pytest.mark.parametrize("loss", ["squared", "logistic", "squared_hinge"])
@pytest.mark.parametrize("max_iter", [1, 2, 3, 4, 5])
@pytest.mark.parametrize("fmt", ["dense64", "csr64"])
def test_the_gap_is_honest_after_early_stops(loss, max_iter, fmt):
    X, y = regression(3, fmt=fmt) if loss == "squared" else classification(3, fmt=fmt)
    alpha, l1_ratio = 0.01, 1.0
    best = solve_cd(X, y, loss=loss, alpha=alpha, l1_ratio=l1_ratio, fit_intercept=True,
                    tol=1e-13, max_iter=1000)
    J_ref = elastic_net_value(X, y, best.w[:-1], best.w[-1], alpha, l1_ratio, loss)
    if loss == "squared":
        J_ref = min(J_ref, _lasso_reference(alpha))
    run = solve_cd(X, y, loss=loss, alpha=alpha, l1_ratio=l1_ratio, fit_intercept=True,
                   tol=1e-13, max_iter=max_iter)
    J = elastic_net_value(X, y, run.w[:-1], run.w[-1], alpha, l1_ratio, loss)
    assert run.n_iter == max_iter and not run.converged
    assert J - J_ref <= run.gap
    assert J <= run.objective


@functools.lru_cache
def _lasso_reference(alpha):
    """scikit-learn's J of the early-stop test's lasso (the same for both formats)."""
    X, y = regression(3)
    sk = sk_elastic_net(X, y, alpha, 1.0, True)
    return elastic_net_value(X, y, sk.coef_, sk.intercept_, alpha, 1.0, "squared")


def alpha_max_by_hand(X, y, loss, l1_ratio, fit_intercept):
    """||X^T l'(b0)||_inf / (n rho), b0 the intercept-only optimum found by SciPy."""
    from scipy.optimize import minimize_scalar

    X = X.toarray() if sp.issparse(X) else X
    if fit_intercept:
        b0 = minimize_scalar(lambda b: elastic_net_value(X, y, np.zeros(X.shape[1]), b, 0.0,
                                                         1.0, loss),
                             bracket=(-1.0, 1.0), tol=1e-12).x
    else:
        b0 = 0.0
    g, _ = elastic_net_gradient(X, y, np.zeros(X.shape[1]), b0, loss)
    return np.abs(g).max() / l1_ratio


@pytest.mark.parametrize("loss", ["squared", "logistic", "squared_hinge"])
@pytest.mark.parametrize("l1_ratio", [1.0, 0.5])
@pytest.mark.parametrize("fit_intercept", [True, False])
def test_alpha_max_is_where_the_weights_become_zero(loss, l1_ratio, fit_intercept):
    X, y = regression(4) if loss == "squared" else classification(4)
    top = alpha_max(X, y, loss=loss, l1_ratio=l1_ratio, fit_intercept=fit_intercept)
    assert_allclose(top, alpha_max_by_hand(X, y, loss, l1_ratio, fit_intercept), rtol=1e-6)
    at = solve_cd(X, y, loss=loss, alpha=top, l1_ratio=l1_ratio,
                  fit_intercept=fit_intercept, tol=1e-12, max_iter=1000)
    assert not np.any(at.w[:-1])
    below = solve_cd(X, y, loss=loss, alpha=0.99 * top, l1_ratio=l1_ratio,
                     fit_intercept=fit_intercept, tol=1e-12, max_iter=1000)
    assert np.count_nonzero(below.w[:-1]) >= 1


def test_alpha_max_of_lasso_is_scikit_learns_first_alpha():
    X, y = regression(5)
    n = X.shape[0]
    # scikit-learn's path starts at ||X_c^T y_c||_inf / n (X and y centred)
    want = np.abs((X - X.mean(0)).T @ (y - y.mean())).max() / n
    assert_allclose(alpha_max(X, y, loss="squared", l1_ratio=1.0, fit_intercept=True), want,
                    rtol=1e-12)
    reg = LinearRegression(solver="cd", alpha=want, l1_ratio=1.0).fit(X, y)
    assert not np.any(reg.coef_)


@pytest.mark.parametrize("estimator,data", [
    (LinearRegression(solver="cd", alpha=0.05, l1_ratio=0.8, tol=1e-12), regression),
    (LogisticRegression(solver="cd", alpha=0.01, l1_ratio=0.8, tol=1e-12), classification),
])
def test_dense_csr_and_float32_give_the_same_model(estimator, data):
    X, y = data(6)
    base = estimator.fit(X, y)
    coef, intercept = base.coef_.copy(), np.copy(base.intercept_)
    for fmt in ["csr32", "csr64"]:
        other = estimator.fit(in_format(X, fmt), y)
        assert_allclose(other.coef_, coef, rtol=1e-9, atol=1e-11)
        assert_allclose(other.intercept_, intercept, rtol=1e-9, atol=1e-11)
    X32 = X.astype(np.float32)
    from_32 = estimator.fit(X32, y)
    again = estimator.fit(X32.astype(np.float64), y)
    assert from_32.coef_.dtype == np.float64
    assert_allclose(from_32.coef_, again.coef_, rtol=1e-9, atol=1e-11)


def test_a_warm_started_path_ends_where_cold_fits_do():
    X, y = classification(7, n=150, d=30)
    top = alpha_max(X, y, loss="logistic", l1_ratio=1.0, fit_intercept=True)
    warm = LogisticRegression(solver="auto", l1_ratio=1.0, warm_start=True, tol=1e-8)
    for alpha in top * np.geomspace(1.0, 0.01, 12):
        warm.set_params(alpha=alpha).fit(X, y)
        cold = LogisticRegression(solver="auto", alpha=alpha, l1_ratio=1.0, tol=1e-8).fit(X, y)
        J_warm = elastic_net_value(X, y, warm.coef_, warm.intercept_[0], alpha, 1.0, "logistic")
        J_cold = elastic_net_value(X, y, cold.coef_, cold.intercept_[0], alpha, 1.0, "logistic")
        assert J_warm - J_cold <= warm.gap_ and J_cold - J_warm <= cold.gap_


def test_integer_weights_are_repeated_rows():
    X, y = classification(8)
    k = np.random.default_rng(0).integers(0, 4, size=X.shape[0])
    weighted = solve_cd(X, y, loss="logistic", alpha=0.02, l1_ratio=0.7, fit_intercept=True,
                        tol=1e-13, max_iter=1000, weights=k.astype(float))
    repeated = solve_cd(np.repeat(X, k, axis=0), np.repeat(y, k), loss="logistic",
                        alpha=0.02, l1_ratio=0.7, fit_intercept=True, tol=1e-13,
                        max_iter=1000)
    assert_allclose(weighted.w, repeated.w, atol=1e-7)
    J = elastic_net_value(X, y, weighted.w[:-1], weighted.w[-1], 0.02, 0.7, "logistic", k)
    J_rep = elastic_net_value(np.repeat(X, k, axis=0), np.repeat(y, k), repeated.w[:-1],
                              repeated.w[-1], 0.02, 0.7, "logistic")
    assert J - J_rep <= weighted.gap and J_rep - J <= repeated.gap


@pytest.mark.parametrize("solver", ["lbfgs", "newton", "gd", "sgd"])
def test_solvers_without_l1_refuse_it_by_name(solver):
    X, y = classification(9)
    with pytest.raises(ValueError, match=rf"solver='{solver}'.*l1_ratio=0.5.*'cd'"):
        LogisticRegression(solver=solver, alpha=0.1, l1_ratio=0.5).fit(X, y)


@pytest.mark.parametrize("bad", [-0.1, 1.5])
def test_l1_ratio_outside_the_unit_interval_is_refused_by_name(bad):
    X, y = regression(9)
    with pytest.raises(ValueError, match="l1_ratio"):
        LinearRegression(solver="cd", alpha=0.1, l1_ratio=bad).fit(X, y)


def test_l1_ratio_zero_keeps_the_l2_meaning_of_alpha():
    X, y = classification(10)
    cd = LogisticRegression(solver="cd", alpha=0.05, tol=1e-12).fit(X, y)
    lbfgs = LogisticRegression(solver="lbfgs", alpha=0.05, tol=1e-10).fit(X, y)
    assert_allclose(cd.coef_, lbfgs.coef_, atol=1e-6)


def test_running_out_of_iterations_warns():
    X, y = classification(11)
    with pytest.warns(ConvergenceWarning, match="max_iter=1"):
        LogisticRegression(solver="cd", alpha=0.001, l1_ratio=1.0, max_iter=1,
                           tol=1e-12).fit(X, y)


def multiclass(seed=0, n=150, d=10, k=4):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    W = rng.normal(size=(k, d)) * (rng.random((k, d)) < 0.4)
    return X, np.argmax(X @ W.T + rng.gumbel(size=(n, k)), axis=1)


def softmax_value(X, y, coef, intercept, alpha, l1_ratio):
    """The softmax J from its formula, the elastic net on every entry of coef (k, d)."""
    from scipy.special import logsumexp

    X = np.asarray(X.toarray() if sp.issparse(X) else X, dtype=np.float64)
    Z = X @ coef.T + intercept
    data = np.mean(logsumexp(Z, axis=1) - Z[np.arange(len(y)), y])
    return (data + alpha * l1_ratio * np.abs(coef).sum()
            + 0.5 * alpha * (1 - l1_ratio) * np.sum(coef**2))


@pytest.mark.parametrize("l1_ratio", [1.0, 0.5])
@pytest.mark.parametrize("fmt", ["dense64", "csr32"])
def test_softmax_reaches_scikit_learns_objective(l1_ratio, fmt):
    X, y = multiclass(0)
    alpha = 0.01
    ours = LogisticRegression(solver="cd", alpha=alpha, l1_ratio=l1_ratio, **TIGHT).fit(
        in_format(X, fmt), y)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sk = SkLogisticRegression(C=1.0 / (len(y) * alpha), l1_ratio=l1_ratio, solver="saga",
                                  tol=1e-14, max_iter=1_000_000).fit(X, y)
    J = softmax_value(X, y, ours.coef_, ours.intercept_, alpha, l1_ratio)
    J_sk = softmax_value(X, y, sk.coef_, sk.intercept_, alpha, l1_ratio)
    assert abs(J - J_sk) <= 1e-8 * J_sk
    assert J - min(J, J_sk) <= ours.gap_
    assert 0 < np.count_nonzero(ours.coef_) < ours.coef_.size or l1_ratio < 1


@pytest.mark.parametrize("max_iter", [1, 3, 5])
def test_softmax_gap_is_honest_after_early_stops(max_iter):
    X, y = multiclass(1)
    alpha = 0.005
    best = solve_cd(X, y, loss="softmax", n_classes=4, alpha=alpha, l1_ratio=1.0,
                    fit_intercept=True, tol=1e-13, max_iter=1000)
    W = best.w.reshape(4, -1)
    J_best = softmax_value(X, y, W[:, :-1], W[:, -1], alpha, 1.0)
    run = solve_cd(X, y, loss="softmax", n_classes=4, alpha=alpha, l1_ratio=1.0,
                   fit_intercept=True, tol=1e-13, max_iter=max_iter)
    W = run.w.reshape(4, -1)
    assert softmax_value(X, y, W[:, :-1], W[:, -1], alpha, 1.0) - J_best <= run.gap


def test_softmax_alpha_max_is_where_the_weights_become_zero():
    X, y = multiclass(2)
    n = len(y)
    share = np.bincount(y) / n
    P = np.tile(share, (n, 1))
    P[np.arange(n), y] -= 1.0
    want = np.abs(X.T @ P).max() / n  # at W = 0 with the log-share intercepts
    top = alpha_max(X, y, loss="softmax", n_classes=4, l1_ratio=1.0, fit_intercept=True)
    assert_allclose(top, want, rtol=1e-10)
    at = solve_cd(X, y, loss="softmax", n_classes=4, alpha=top, l1_ratio=1.0,
                  fit_intercept=True, tol=1e-12, max_iter=100)
    below = solve_cd(X, y, loss="softmax", n_classes=4, alpha=0.99 * top, l1_ratio=1.0,
                     fit_intercept=True, tol=1e-12, max_iter=100)
    assert not np.any(at.w.reshape(4, -1)[:, :-1])
    assert np.any(below.w.reshape(4, -1)[:, :-1])


@pytest.mark.parametrize("make", [
    lambda: halfspaces.LogisticRegression(alpha=0.02, l1_ratio=0.7, solver="cd", tol=1e-12),
    lambda: halfspaces.LinearRegression(alpha=0.02, l1_ratio=0.7, solver="cd", tol=1e-12),
    lambda: halfspaces.LinearSVM(alpha=0.02, l1_ratio=0.7, tol=1e-12),
], ids=["logistic", "lasso", "svm"])
def test_integer_sample_weights_are_repeated_rows_for_the_elastic_net(make):
    # the estimators hand their row weights to coordinate descent: weight k is the row k
    # times, weight 0 the row removed (the oracle is the unweighted fit of the repeated rows)
    rng = np.random.default_rng(0)
    X = rng.normal(size=(80, 6))
    y = (X[:, 0] + 0.3 * rng.normal(size=80) > 0).astype(int)
    k = rng.integers(0, 4, size=80)
    k[:3] = 0
    if isinstance(make(), halfspaces.LinearRegression):
        y = y + X[:, 1]
    weighted = make().fit(X, y, sample_weight=k)
    repeated = make().fit(np.repeat(X, k, axis=0), np.repeat(y, k))
    np.testing.assert_allclose(weighted.coef_, repeated.coef_, rtol=1e-8, atol=1e-10)
    np.testing.assert_allclose(weighted.intercept_, repeated.intercept_, rtol=1e-8,
                               atol=1e-10)
