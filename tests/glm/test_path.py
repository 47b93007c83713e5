"""regularization_path: its grid (alpha_max against scikit-learn's L1 solvers, which find all-zero
coefficients there and not below), its fits against cold fits at the same alphas (J from the
textbook formulas, within the certified gaps), and its refusals by name."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from _datasets import noisy
from _glm_reference import dense, reference_value
from _oracles import svm_objective
from sklearn.linear_model import ElasticNet, Lasso
from sklearn.linear_model import LogisticRegression as SkLogisticRegression

from halfspaces import LinearRegression, LinearSVM, LogisticRegression, regularization_path
from halfspaces._glm.path import alpha_max


def regression(n=80, d=6, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)) * rng.uniform(0.5, 3.0, d)
    return X, X @ rng.normal(size=d) + 3.0 + rng.normal(size=n)


def three_classes(n=90, d=4, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = np.argmax(X[:, :3] + 0.8 * rng.normal(size=(n, 3)), axis=1)
    return X, y


def objective_of(est, X, y, coef, intercept):
    """J at (coef, intercept) by the textbook formula of the estimator's loss."""
    if isinstance(est, LinearSVM):
        t = np.where(y == np.unique(y)[1], 1.0, -1.0)
        return svm_objective(X, t, coef[0], intercept[0], est.alpha, est.loss)
    if isinstance(est, LinearRegression):
        return reference_value(X, y, np.append(coef, intercept), est.alpha, "squared")
    classes = np.unique(y)
    if classes.size == 2:
        t = np.where(y == classes[1], 1.0, -1.0)
        return reference_value(X, t, np.append(coef[0], intercept[0]), est.alpha, "logistic")
    W = np.column_stack([coef, intercept]).ravel()
    return reference_value(X, np.searchsorted(classes, y), W, est.alpha, "softmax",
                           classes.size)


CASES = {  # the estimator, its data, the grid (a number: from alpha_max down to 1e-3 of it)
    "logistic": (LogisticRegression(tol=1e-8), lambda: noisy(120, 5, seed=1), 6),
    "softmax": (LogisticRegression(tol=1e-8), three_classes, 6),
    "least squares (gd)": (LinearRegression(solver="gd", tol=1e-7, max_iter=50_000),
                           regression, 6),
    "least squares (lstsq)": (LinearRegression(), regression, 6),
    "squared hinge": (LinearSVM(tol=1e-8, random_state=0), lambda: noisy(120, 5, seed=2), 6),
    # the hinge's dual does not reach tol at alpha >= 1 on these data (an intercept near
    # 180, a gap of 0.99 J after 1e5 passes, cold or warm): a grid below that
    "hinge": (LinearSVM(loss="hinge", solver="dual", tol=1e-6, max_iter=100_000,
                        random_state=0), lambda: noisy(120, 5, seed=3),
              np.geomspace(0.1, 1e-4, 6)),
}


@pytest.mark.filterwarnings("ignore::halfspaces.exceptions.ConvergenceWarning")  # the gaps say
@pytest.mark.parametrize("case", sorted(CASES))
def test_every_fit_of_the_path_is_a_cold_fit_at_its_alpha(case):
    # warm starts change where each solver starts, never what it certifies: J of the path's
    # fit and of a cold fit at the same alpha differ by at most the larger certified gap
    est, data, grid = CASES[case]
    X, y = data()
    path = regularization_path(est, X, y, alphas=grid, eps=1e-3)
    assert path.alphas.shape == (6,) and np.all(np.diff(path.alphas) < 0)
    assert np.allclose(path.alphas[-1] / path.alphas[0], 1e-3)
    assert path.coefs.shape[0] == path.intercepts.shape[0] == path.gaps.shape[0] == 6
    for k, alpha in enumerate(path.alphas):
        cold = type(est)(**{**est.get_params(), "alpha": alpha}).fit(X, y)
        assert path.coefs[k].shape == np.shape(cold.coef_)
        probe = type(est)(**{**est.get_params(), "alpha": alpha})
        ours = objective_of(probe, X, y, path.coefs[k], path.intercepts[k])
        theirs = objective_of(probe, X, y, np.asarray(cold.coef_), np.atleast_1d(
            cold.intercept_))
        slack = max(np.max(path.gaps[k]), np.max(cold.gap_)) + 1e-12 * max(ours, 1.0)
        assert slack <= 1e-4 * theirs  # both fits certified: the comparison is tight
        assert abs(ours - theirs) <= slack, (k, ours, theirs, slack)


def test_the_path_starts_near_zero_for_the_l2_penalty_and_leaves_it():
    # glmnet's start for a pure L2 penalty: alpha_max of the L1 formula at l1_ratio 0.001,
    # where every coefficient is at most ||X^T r||_inf sqrt(d) / (1000 ||X^T r||_inf)
    X, y = noisy(150, 6, seed=4)
    path = regularization_path(LogisticRegression(), X, y, alphas=20)
    assert np.linalg.norm(path.coefs[0]) <= np.sqrt(6) / 1000
    assert np.linalg.norm(path.coefs[-1]) > 100 * np.linalg.norm(path.coefs[0])
    # the default eps: 1e-7 for the L2 penalty, so that its grid ends where an L1 grid
    # would (alpha_max of the L1 times 1e-4)
    assert np.allclose(path.alphas[-1] / path.alphas[0], 1e-7)
    assert np.isclose(path.alphas[-1], alpha_max(LogisticRegression(), X, y, 1.0) * 1e-4)


def test_the_path_leaves_the_estimator_unfitted_and_uses_its_parameters():
    X, y = noisy(60, 3, seed=5)
    est = LogisticRegression(fit_intercept=False)
    path = regularization_path(est, X, y, alphas=[0.1, 1.0, 0.01])
    assert not hasattr(est, "coef_") and est.warm_start is False
    assert np.array_equal(path.alphas, [1.0, 0.1, 0.01])  # walked from the largest
    assert np.all(path.intercepts == 0.0)
    assert path.l1_ratio == 0.0


# -- alpha_max: the smallest alpha with all coefficients zero, by scikit-learn's L1 solvers --
def test_alpha_max_is_where_scikit_learns_lasso_becomes_all_zero():
    X, y = regression()
    top = alpha_max(LinearRegression(), X, y, 1.0)
    assert np.all(Lasso(alpha=top * (1 + 1e-9), tol=1e-12).fit(X, y).coef_ == 0.0)
    assert np.any(Lasso(alpha=top * 0.99, tol=1e-12).fit(X, y).coef_ != 0.0)


def test_alpha_max_of_the_elastic_net_divides_by_l1_ratio():
    # ElasticNet's objective is ours: (1/2n)||r||^2 + alpha (rho ||w||_1 + (1-rho)/2 ||w||^2)
    X, y = regression(seed=1)
    top = alpha_max(LinearRegression(), X, y, 0.3)
    fit = ElasticNet(alpha=top * (1 + 1e-9), l1_ratio=0.3, tol=1e-12).fit
    assert np.all(fit(X, y).coef_ == 0.0)
    assert np.any(ElasticNet(alpha=top * 0.99, l1_ratio=0.3, tol=1e-12).fit(X, y).coef_ != 0)


def test_weighted_alpha_max_is_scikit_learns_weighted_lasso_threshold():
    X, y = regression(seed=2)
    s = np.random.default_rng(0).integers(0, 4, X.shape[0]).astype(float)
    top = alpha_max(LinearRegression(), X, y, 1.0, s)
    assert np.all(Lasso(alpha=top * (1 + 1e-9), tol=1e-12).fit(X, y, sample_weight=s).coef_
                  == 0.0)
    assert np.any(Lasso(alpha=top * 0.99, tol=1e-12).fit(X, y, sample_weight=s).coef_ != 0.0)


def sklearn_l1_logistic(X, y, alpha):
    """scikit-learn's L1 logistic regression (saga) at our alpha: C = 1 / (alpha n)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return SkLogisticRegression(C=1.0 / (alpha * X.shape[0]), l1_ratio=1.0,
                                    solver="saga", tol=1e-10, max_iter=20000).fit(X, y)


@pytest.mark.parametrize("data", ["binary", "three classes"])
def test_alpha_max_is_where_scikit_learns_l1_logistic_regression_becomes_all_zero(data):
    X, y = noisy(100, 4, seed=6) if data == "binary" else three_classes(seed=1)
    top = alpha_max(LogisticRegression(), X, y, 1.0)
    assert np.allclose(sklearn_l1_logistic(X, y, top * (1 + 1e-6)).coef_, 0.0, atol=1e-9)
    assert np.max(np.abs(sklearn_l1_logistic(X, y, top * 0.9).coef_)) > 1e-4


def test_alpha_max_for_the_squared_hinge_zeroes_a_hand_written_subgradient():
    # at w = 0 and the intercept-only optimum b0 = (S+ - S-)/S, the squared hinge's gradient
    # in w is X^T r / n; alpha_max (l1_ratio 1) is its largest entry, computed here by hand
    X, y = noisy(90, 5, seed=7)
    t = np.where(y > 0, 1.0, -1.0)
    b0 = t.mean()
    r = -2.0 * t * np.maximum(0.0, 1.0 - t * b0)
    assert np.isclose(alpha_max(LinearSVM(), X, y, 1.0), np.max(np.abs(dense(X).T @ r)) / 90)


def test_a_null_model_optimal_at_every_alpha_gives_a_positive_grid():
    X = np.random.default_rng(0).normal(size=(20, 3))
    path = regularization_path(LinearRegression(), X, np.full(20, 2.0), alphas=3)
    assert np.all(path.alphas > 0) and np.allclose(path.coefs, 0.0, atol=1e-12)


# -- the L1 path (coordinate descent: solver="auto") --------------------------------------------
@pytest.mark.parametrize("make", [LogisticRegression, LinearRegression],
                         ids=["logistic", "least squares"])
def test_the_l1_path_starts_all_zero_and_its_next_fit_is_not(make):
    X, y = (noisy(100, 5, seed=8) if make is LogisticRegression else regression(seed=3))
    path = regularization_path(make(solver="auto", tol=1e-10), X, y, alphas=10, l1_ratio=1.0,
                               eps=1e-2)
    assert np.all(path.coefs[0] == 0.0)
    assert np.any(path.coefs[1] != 0.0)


def test_the_l1_path_endpoints_are_cold_fits():
    X, y = noisy(100, 5, seed=9)
    est = LogisticRegression(solver="auto", tol=1e-10)
    path = regularization_path(est, X, y, alphas=5, l1_ratio=0.5, eps=1e-2)
    for k in (0, -1):
        cold = LogisticRegression(solver="auto", tol=1e-10, alpha=path.alphas[k],
                                  l1_ratio=0.5).fit(X, y)
        assert np.allclose(path.coefs[k], cold.coef_, atol=1e-5)


# -- refusals, by name ---------------------------------------------------------------------------
@pytest.mark.parametrize("kwargs, match", [
    ({"alphas": 0}, "alphas=0"),
    ({"alphas": [1.0, -1.0]}, "alphas="),
    ({"alphas": [1.0, np.nan]}, "alphas="),
    ({"eps": 0.0}, "eps=0.0"),
    ({"l1_ratio": 1.5}, "l1_ratio=1.5"),
])
def test_bad_grids_are_refused_by_name(kwargs, match):
    X, y = noisy(30, 2)
    with pytest.raises(ValueError, match=match):
        regularization_path(LogisticRegression(), X, y, **kwargs)


def test_an_l1_penalty_is_refused_by_name_for_a_loss_without_one():
    X, y = noisy(30, 2)
    with pytest.raises(ValueError, match=r"LinearSVM\(l1_ratio=0.5\)"):
        regularization_path(LinearSVM(loss="hinge"), X, y, l1_ratio=0.5)


def test_integer_weights_walk_the_path_of_repeated_rows():
    # LinearSVM takes sample_weight: weight k is the row repeated k times, so the grid (the
    # weighted alpha_max) and each fit's J agree with the repeated data's, within the gaps
    X, y = noisy(60, 3, seed=10)
    k = np.random.default_rng(1).integers(0, 3, 60)
    est = LinearSVM(tol=1e-10, random_state=0)
    weighted = regularization_path(est, X, y, alphas=4, sample_weight=k)
    repeated = regularization_path(est, np.repeat(X, k, axis=0), np.repeat(y, k), alphas=4)
    assert np.allclose(weighted.alphas, repeated.alphas, rtol=1e-12)
    Xr, yr = np.repeat(X, k, axis=0), np.repeat(y, k)
    for j, alpha in enumerate(weighted.alphas):
        probe = LinearSVM(alpha=alpha)
        a = objective_of(probe, Xr, yr, weighted.coefs[j], weighted.intercepts[j])
        b = objective_of(probe, Xr, yr, repeated.coefs[j], repeated.intercepts[j])
        assert abs(a - b) <= weighted.gaps[j] + repeated.gaps[j] + 1e-12
