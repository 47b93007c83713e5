"""The certified duality gaps of the GLMs (``gap_``): honest against independent optima.

The gap claims J(w) - J* <= gap_. Each test computes J* independently (scikit-learn's
LogisticRegression with tol=1e-12 and C = 1 / (alpha n), the ridge's closed form by
scipy.linalg, least squares by scipy.linalg.lstsq), on the problem at unit scale: X c with
alpha c^2 is the same problem (w* / c, the same J*), so one reference serves a sweep of
scales from 1e-8 to 1e8. J(w) is the textbook formula summed exactly (math.fsum); the
comparison allows 16 ulps of J for the reference's own evaluation. Solvers stopped early
(max_iter of 1 to 5) must still report a gap above their true suboptimality; converged
ones a gap at most tol J.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
import scipy.linalg
import scipy.optimize
import scipy.sparse as sp
from _datasets import in_format, noisy, separable
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scipy.special import logsumexp
from sklearn.linear_model import LogisticRegression as SkLogisticRegression

from halfspaces import ConvergenceWarning, LinearRegression, LogisticRegression
from halfspaces._glm.duals import least_squares_gap, logistic_gap, ridge_gap, softmax_gap

EPS = np.finfo(np.float64).eps
SWEEP = settings(max_examples=30, deadline=None,
                 suppress_health_check=[HealthCheck.too_slow])


def dense(X):
    return np.asarray(X.toarray() if sp.issparse(X) else X, dtype=np.float64)


# -- J from its formula, summed exactly ------------------------------------------------------
def logistic_J(X, y, w, b, alpha, s=None):
    s = np.ones(len(y)) if s is None else s
    losses = s * np.logaddexp(0.0, -y * (dense(X) @ w + b))
    return math.fsum(losses.tolist()) / len(y) + 0.5 * alpha * math.fsum((w * w).tolist())


def softmax_J(X, labels, W, b, alpha):
    Z = dense(X) @ W.T + b
    losses = logsumexp(Z, axis=1) - Z[np.arange(len(labels)), labels]
    return math.fsum(losses.tolist()) / len(labels) + 0.5 * alpha * math.fsum(
        (W * W).ravel().tolist())


def squared_J(X, y, w, b, alpha):
    r = dense(X) @ w + b - y
    return math.fsum((r * r).tolist()) / (2 * len(y)) + 0.5 * alpha * math.fsum((w * w).tolist())


def honest(J, J_ref, gap):
    """J - J* <= gap, with 16 ulps of J for the rounding of the two evaluations of J."""
    return J - J_ref <= gap + 16 * EPS * abs(J_ref)


# -- references ------------------------------------------------------------------------------
def sklearn_reference(X, y, alpha, fit_intercept):
    """J* of the logistic (two labels) or softmax (more) objective by scikit-learn."""
    n = X.shape[0]
    sk = SkLogisticRegression(C=1.0 / (alpha * n), solver="newton-cholesky", tol=1e-12,
                              max_iter=1000, fit_intercept=fit_intercept).fit(dense(X), y)
    b = sk.intercept_ if fit_intercept else np.zeros(sk.coef_.shape[0])
    if sk.coef_.shape[0] == 1:
        return logistic_J(X, np.where(y == sk.classes_[1], 1.0, -1.0), sk.coef_[0], b[0], alpha)
    return softmax_J(X, np.searchsorted(sk.classes_, y), sk.coef_, b, alpha)


def ridge_reference(X, y, alpha, fit_intercept):
    """J* by the closed form: the centred normal equations (X_c^T X_c / n + alpha I) w = ..."""
    X = dense(X)
    n, d = X.shape
    x_mean = X.mean(axis=0) if fit_intercept else np.zeros(d)
    y_mean = y.mean() if fit_intercept else 0.0
    Xc = X - x_mean
    w = scipy.linalg.solve(Xc.T @ Xc / n + alpha * np.eye(d), Xc.T @ (y - y_mean) / n,
                           assume_a="pos")
    return squared_J(X, y, w, y_mean - x_mean @ w, alpha)


def lstsq_reference(X, y, fit_intercept):
    X = dense(X)
    A = np.column_stack([X, np.ones(len(y))]) if fit_intercept else X
    v = scipy.linalg.lstsq(A, y)[0]
    return squared_J(X, y, v[:X.shape[1]], v[-1] if fit_intercept else 0.0, 0.0)


def binary_problem(seed, separable_data, n=60, d=4):
    if separable_data:
        X, y, _, _ = separable(n, d, seed=seed)
    else:
        X, y = noisy(n, d, seed=seed, flip=0.2)
    return X, np.where(y > 0, 1, 0)


def classes_problem(seed, k, n=90, d=4):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    labels = np.argmax(X @ rng.normal(size=(d, k)) + rng.normal(size=(n, k)), axis=1)
    labels[:k] = np.arange(k)  # every class present
    return X, labels


def regression_problem(seed, n=60, d=4):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)) + 0.5
    return X, X @ rng.normal(size=d) + 3.0 + rng.normal(size=n)


def fit_quietly(estimator, X, y):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return estimator.fit(X, y)


scales = st.integers(-8, 8).map(lambda e: 10.0 ** e)
budgets = st.sampled_from([1, 2, 5, None])


# -- the sweep: honest at every scale, format, budget ----------------------------------------
@SWEEP
@given(seed=st.integers(0, 50), scale=scales, alpha=st.sampled_from([1e-3, 0.03, 1.0]),
       separable_data=st.booleans(), fmt=st.sampled_from(["dense64", "csr64"]),
       fit_intercept=st.booleans(), solver=st.sampled_from(["lbfgs", "newton", "gd"]),
       max_iter=budgets)
def test_the_logistic_gap_bounds_the_suboptimality(seed, scale, alpha, separable_data, fmt,
                                                   fit_intercept, solver, max_iter):
    X, y = binary_problem(seed, separable_data)
    J_ref = sklearn_reference(X, y, alpha, fit_intercept)
    Xs = in_format(X * scale, fmt)
    clf = fit_quietly(LogisticRegression(solver=solver, alpha=alpha * scale**2,
                                         fit_intercept=fit_intercept, max_iter=max_iter),
                      Xs, y)
    J = logistic_J(Xs, np.where(y > 0, 1.0, -1.0), clf.coef_[0], clf.intercept_[0],
                   alpha * scale**2)
    assert honest(J, J_ref, clf.gap_), (J - J_ref, clf.gap_)
    if clf.converged_:
        assert clf.gap_ <= clf.tol * J


@SWEEP
@given(seed=st.integers(0, 50), scale=scales, alpha=st.sampled_from([1e-3, 0.03, 1.0]),
       k=st.sampled_from([3, 4]), fmt=st.sampled_from(["dense64", "csr64"]),
       fit_intercept=st.booleans(), solver=st.sampled_from(["lbfgs", "newton", "gd"]),
       max_iter=budgets)
def test_the_softmax_gap_bounds_the_suboptimality(seed, scale, alpha, k, fmt, fit_intercept,
                                                  solver, max_iter):
    X, labels = classes_problem(seed, k)
    J_ref = sklearn_reference(X, labels, alpha, fit_intercept)
    Xs = in_format(X * scale, fmt)
    clf = fit_quietly(LogisticRegression(solver=solver, alpha=alpha * scale**2,
                                         fit_intercept=fit_intercept, max_iter=max_iter),
                      Xs, labels)
    J = softmax_J(Xs, labels, clf.coef_, clf.intercept_, alpha * scale**2)
    assert honest(J, J_ref, clf.gap_), (J - J_ref, clf.gap_)
    if clf.converged_:
        assert clf.gap_ <= clf.tol * J


@SWEEP
@given(seed=st.integers(0, 50), scale=scales, alpha=st.sampled_from([0.0, 1e-3, 0.03, 1.0]),
       fmt=st.sampled_from(["dense64", "csr64"]), fit_intercept=st.booleans(),
       solver=st.sampled_from(["lstsq", "cholesky", "gd"]), max_iter=budgets)
def test_the_least_squares_gap_bounds_the_suboptimality(seed, scale, alpha, fmt,
                                                        fit_intercept, solver, max_iter):
    X, y = regression_problem(seed)
    J_ref = (ridge_reference(X, y, alpha, fit_intercept) if alpha > 0
             else lstsq_reference(X, y, fit_intercept))
    Xs = in_format(X * scale, fmt)
    reg = fit_quietly(LinearRegression(solver=solver, alpha=alpha * scale**2,
                                       fit_intercept=fit_intercept, max_iter=max_iter), Xs, y)
    J = squared_J(Xs, y, reg.coef_, reg.intercept_, alpha * scale**2)
    assert np.isfinite(reg.gap_)  # full column rank: certified even without a penalty
    assert honest(J, J_ref, reg.gap_), (J - J_ref, reg.gap_)
    if reg.converged_ and solver == "gd":
        assert reg.gap_ <= reg.tol * J


# -- stopped early, and stochastic -----------------------------------------------------------
@pytest.mark.parametrize("loss,solver", [
    (loss, solver) for loss in ("logistic", "softmax", "squared")
    for solver in ("lbfgs", "newton", "gd", "sgd", "minibatch")
    if loss != "squared" or solver not in ("lbfgs", "newton")])  # LinearRegression has neither
def test_a_run_stopped_after_one_iteration_reports_more_than_its_suboptimality(solver, loss):
    if loss == "squared":
        X, y = regression_problem(3, n=200)
        J_ref = ridge_reference(X, y, 0.01, True)
        reg = fit_quietly(LinearRegression(solver=solver, alpha=0.01, max_iter=1,
                                           random_state=0), X, y)
        J, gap = squared_J(X, y, reg.coef_, reg.intercept_, 0.01), reg.gap_
    else:
        X, y = (binary_problem(3, False, n=200) if loss == "logistic"
                else classes_problem(3, 3, n=200))
        J_ref = sklearn_reference(X, y, 0.01, True)
        clf = fit_quietly(LogisticRegression(solver=solver, alpha=0.01, max_iter=1,
                                             random_state=0), X, y)
        J = (logistic_J(X, np.where(y > 0, 1.0, -1.0), clf.coef_[0], clf.intercept_[0], 0.01)
             if loss == "logistic" else softmax_J(X, y, clf.coef_, clf.intercept_, 0.01))
        gap = clf.gap_
    assert J - J_ref > 0 and honest(J, J_ref, gap)
    assert gap < 100 * max(J - J_ref, 1e-12)  # a bound, not a formality


@pytest.mark.parametrize("fmt", ["dense64", "csr64", "dense32", "csr32"])
@pytest.mark.parametrize("loss,solver", [
    ("logistic", "lbfgs"), ("logistic", "newton"), ("logistic", "gd"), ("softmax", "lbfgs"),
    ("softmax", "newton"), ("softmax", "gd"), ("squared", "gd")])
def test_a_converged_full_batch_fit_has_a_gap_below_tol_times_J(fmt, loss, solver):
    if loss == "squared":
        X, y = regression_problem(1, n=150)
        est = LinearRegression(solver="gd", alpha=0.05, tol=1e-7)
    else:
        X, y = binary_problem(1, False, n=150) if loss == "logistic" else classes_problem(1, 3)
        est = LogisticRegression(solver=solver, alpha=0.05, tol=1e-7)
    est.fit(in_format(X, fmt), y)
    Xd = dense(in_format(X, fmt))
    if loss == "squared":
        J = squared_J(Xd, y, est.coef_, est.intercept_, 0.05)
    elif loss == "logistic":
        J = logistic_J(Xd, np.where(y > 0, 1.0, -1.0), est.coef_[0], est.intercept_[0], 0.05)
    else:
        J = softmax_J(Xd, y, est.coef_, est.intercept_, 0.05)
    assert est.converged_ and 0.0 <= est.gap_ <= 1e-7 * J


@pytest.mark.parametrize("tol", [1e-2, 1e-4, 1e-6])
@pytest.mark.parametrize("solver", ["lbfgs", "newton"])
def test_an_ill_conditioned_fit_stops_on_the_gap_not_on_the_gradient(solver, tol):
    # features of size 1e-3 and a weak penalty: the gradient rule (|g_j| <= tol s_j,
    # s_j = 1e-3) is met where J is still far from J* relative to tol; the fit goes on
    X, y = binary_problem(5, False, n=300)
    X, alpha = X * 1e-3, 1e-4 * 1e-6
    clf = fit_quietly(LogisticRegression(solver=solver, alpha=alpha, tol=tol), X, y)
    J = logistic_J(X, np.where(y > 0, 1.0, -1.0), clf.coef_[0], clf.intercept_[0], alpha)
    J_ref = sklearn_reference(X * 1e3, y, 1e-4, True)
    assert clf.converged_ and clf.gap_ <= tol * J and honest(J, J_ref, clf.gap_)


# -- without a penalty -------------------------------------------------------------------------
def test_without_a_penalty_the_logistic_gap_is_inf():
    X, y = binary_problem(0, False)
    assert LogisticRegression(alpha=0.0).fit(X, y).gap_ == math.inf
    X3, labels = classes_problem(0, 3)
    assert LogisticRegression(alpha=0.0).fit(X3, labels).gap_ == math.inf


def test_least_squares_without_a_penalty_is_certified_only_at_full_column_rank():
    X, y = regression_problem(0)
    assert np.isfinite(LinearRegression().fit(X, y).gap_)
    tied = np.column_stack([X, X[:, 0] + X[:, 1]])  # rank 4 of 5 columns
    assert LinearRegression().fit(tied, y).gap_ == math.inf
    wide = np.random.default_rng(0).normal(size=(3, 5))
    assert LinearRegression().fit(wide, [1.0, 2.0, 3.0]).gap_ == math.inf


# -- the gap functions, with example weights ----------------------------------------------------
@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 30), fit_intercept=st.booleans(), step=st.sampled_from([0.0, 1e-6,
                                                                                   1e-3, 0.3]))
def test_weighted_logistic_and_ridge_gaps_bound_the_weighted_suboptimality(seed,
                                                                          fit_intercept, step):
    rng = np.random.default_rng(seed)
    X, y01 = binary_problem(seed, bool(seed % 2))
    y = np.where(y01 > 0, 1.0, -1.0)
    s = rng.uniform(0.1, 3.0, size=len(y))
    alpha, n, d = 0.02, *X.shape
    sk = SkLogisticRegression(C=1.0 / (alpha * n), solver="newton-cholesky", tol=1e-12,
                              max_iter=1000, fit_intercept=fit_intercept).fit(X, y, sample_weight=s)
    b0 = sk.intercept_[0] if fit_intercept else 0.0
    J_ref = logistic_J(X, y, sk.coef_[0], b0, alpha, s)
    w = sk.coef_[0] + step * rng.normal(size=d)
    b = b0 + step * rng.normal() if fit_intercept else 0.0
    J = logistic_J(X, y, w, b, alpha, s)
    primal, gap = logistic_gap(X, y, w, b, alpha=alpha, fit_intercept=fit_intercept, weights=s)
    assert primal >= J and honest(J, J_ref, gap)

    t = X @ rng.normal(size=d) + rng.normal(size=n)
    A = np.column_stack([X, np.ones(n)]) if fit_intercept else X
    penalty = np.diag(np.r_[np.full(d, alpha * n), 0.0][:A.shape[1]])
    v = scipy.linalg.solve(A.T @ (s[:, None] * A) + penalty, A.T @ (s * t), assume_a="pos")

    def weighted_J(w, b):
        r = X @ w + b - t
        return math.fsum((s * r * r).tolist()) / (2 * n) + 0.5 * alpha * math.fsum((w * w).tolist())
    J_ref = weighted_J(v[:d], v[d] if fit_intercept else 0.0)
    w = v[:d] + step * rng.normal(size=d)
    b = (v[d] + step * rng.normal()) if fit_intercept else 0.0
    primal, gap = ridge_gap(X, t, w, b, alpha=alpha, fit_intercept=fit_intercept, weights=s)
    assert primal >= weighted_J(w, b) and honest(weighted_J(w, b), J_ref, gap)


def test_a_softmax_batch_missing_a_class_still_has_an_honest_gap():
    # partial_fit's batches may lack a class: its intercept's optimum is -inf
    X, labels = classes_problem(2, 3)
    labels = np.where(labels == 2, 1, labels)
    W = np.random.default_rng(0).normal(size=(3, 4)) * 0.1
    primal, gap = softmax_gap(X, labels, W, np.zeros(3), alpha=0.1, fit_intercept=True)
    assert primal >= softmax_J(X, labels, W, np.zeros(3), 0.1) - 16 * EPS
    assert gap >= 0.0  # finite or inf, never negative


def test_overflowing_data_give_an_infinite_gap_not_a_warning():
    X, y = regression_problem(0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert ridge_gap(X * 1e200, y, np.full(4, 1e200), 0.0, alpha=1.0,
                         fit_intercept=True)[1] == math.inf
        assert least_squares_gap(X * 1e160, y, np.ones(4), 0.0, fit_intercept=True)[1] == math.inf


# -- kept where a model is kept ----------------------------------------------------------------
def test_the_gap_survives_a_model_file(tmp_path):
    import halfspaces as hs

    X, y = binary_problem(0, False)
    clf = LogisticRegression(alpha=0.01).fit(X, y)
    loaded = hs.load(hs.save(clf, tmp_path / "m.hs"))
    assert loaded.gap_ == clf.gap_


def test_sgd_reports_a_gap_without_stopping_on_it():
    X, y = binary_problem(0, False, n=200)
    clf = fit_quietly(LogisticRegression(solver="sgd", alpha=0.01, max_iter=3, random_state=0),
                      X, y)
    J_ref = sklearn_reference(X, y, 0.01, True)
    J = logistic_J(X, np.where(y > 0, 1.0, -1.0), clf.coef_[0], clf.intercept_[0], 0.01)
    assert clf.n_iter_ == 3 and honest(J, J_ref, clf.gap_) and np.isfinite(clf.gap_)
