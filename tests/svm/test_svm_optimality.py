"""LinearSVM reaches the SVM's optimum: the J of independent solvers (HiGHS's convex QP of the
primal, scikit-learn's LinearSVC, i.e. LIBLINEAR, without an intercept), and the KKT
conditions checked on the fitted dual variables.

J is recomputed here from coef_ and intercept_ (``_oracles.svm_objective``), never read from
the estimator.
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from _oracles import qp_svm, svm_objective
from sklearn.svm import LinearSVC

from halfspaces import LinearSVM

TIGHT = dict(tol=1e-12, max_iter=100_000, random_state=0)


def noisy_problem(seed: int, n: int = 60, d: int = 4, flip: float = 0.15):
    """Gaussian rows, labels of a random affine halfspace with a fraction flipped."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)) * rng.uniform(0.5, 2.0, size=d)
    y = np.where(X @ rng.normal(size=d) + 0.4 > 0, 1.0, -1.0)
    y[rng.random(n) < flip] *= -1
    return X, y


def weights_for(kind: str | None, n: int, seed: int):
    if kind is None:
        return None
    rng = np.random.default_rng(seed + 100)
    weights = rng.uniform(0.2, 3.0, size=n)
    if kind == "with zeros":
        weights[rng.random(n) < 0.2] = 0.0
    return weights


def fitted_objective(est, X, y, weights=None) -> float:
    return svm_objective(X, y, est.coef_[0], float(est.intercept_[0]), est.alpha, est.loss,
                         weights)


@pytest.mark.parametrize("weights", [None, "positive", "with zeros"])
@pytest.mark.parametrize("fit_intercept", [True, False])
@pytest.mark.parametrize("loss", ["hinge", "squared_hinge"])
@pytest.mark.parametrize("seed, alpha_n", [(0, 1.0), (1, 0.1), (2, 10.0)])
def test_the_objective_is_the_highs_qps(seed, alpha_n, loss, fit_intercept, weights):
    X, y = noisy_problem(seed)
    s = weights_for(weights, len(y), seed)
    alpha = alpha_n / len(y)
    _, _, J_qp = qp_svm(X, y, alpha, loss, fit_intercept, s)
    est = LinearSVM(alpha=alpha, loss=loss, fit_intercept=fit_intercept, **TIGHT)
    est.fit(X, y, sample_weight=s)
    J = fitted_objective(est, X, y, s)
    assert est.converged_
    assert abs(J - J_qp) <= 1e-8 * J_qp
    assert est.objective_ == pytest.approx(J, rel=1e-12)
    if not fit_intercept:
        assert est.intercept_[0] == 0.0


@pytest.mark.parametrize("loss", ["hinge", "squared_hinge"])
@pytest.mark.parametrize("seed, alpha_n", [(3, 1.0), (4, 0.2), (5, 5.0)])
def test_without_an_intercept_the_objective_is_liblinears(seed, alpha_n, loss):
    # LIBLINEAR penalises its bias, so only fit_intercept=False is the same problem; C =
    # 1 / (alpha n)
    X, y = noisy_problem(seed, n=120, d=5)
    alpha = alpha_n / len(y)
    # LIBLINEAR at tol=1e-12 ran out of its iterations with J 2.6e-5 above the QP's (its
    # projected gradients cannot all reach 1e-12 in float64); at 1e-8 it reaches the QP's J
    reference = LinearSVC(C=1.0 / (alpha * len(y)), loss=loss, fit_intercept=False,
                          dual=True, tol=1e-8, max_iter=1_000_000, random_state=0).fit(X, y)
    J_ref = svm_objective(X, y, reference.coef_[0], 0.0, alpha, loss)
    est = LinearSVM(alpha=alpha, loss=loss, fit_intercept=False, **TIGHT).fit(X, y)
    assert abs(fitted_objective(est, X, y) - J_ref) <= 1e-6 * J_ref


@pytest.mark.parametrize("weights", [None, "with zeros"])
@pytest.mark.parametrize("fit_intercept", [True, False])
@pytest.mark.parametrize("loss", ["hinge", "squared_hinge"])
@pytest.mark.parametrize("seed", [0, 6])
def test_kkt_conditions_hold_on_the_dual_coefficients(seed, loss, fit_intercept, weights):
    X, y = noisy_problem(seed, n=80)
    s = weights_for(weights, len(y), seed)
    alpha = 1.0 / len(y)
    est = LinearSVM(alpha=alpha, loss=loss, fit_intercept=fit_intercept, **TIGHT)
    est.fit(X, y, sample_weight=s)
    s = np.ones(len(y)) if s is None else s
    beta = est.dual_coef_[0]
    w, b = est.coef_[0], float(est.intercept_[0])
    margin = y * (X @ w + b)
    # J is alpha-strongly convex in w: ||w - w*||^2 <= 2 gap / alpha, so a margin is within
    # about that distance times max ||x_i|| of the optimal one (margins are of order 1)
    radius = np.sqrt(np.max(np.sum(X * X, axis=1)))
    slack = 1e-9 + 10.0 * np.sqrt(2.0 * est.gap_ / alpha) * (1.0 + radius)
    assert slack < 1e-3  # the test decides something
    live = s > 0
    assert np.all(beta >= 0.0) and np.all(beta[~live] == 0.0)
    if loss == "hinge":
        assert np.all(beta <= 1.0)
        assert np.all(beta[live & (margin < 1.0 - slack)] == 1.0)
        assert np.all(beta[live & (margin > 1.0 + slack)] == 0.0)
    else:  # a_i = 2 C_i xi_i at the optimum: beta_i = 2 max(0, 1 - margin_i)
        assert np.allclose(beta[live], 2.0 * np.maximum(0.0, 1.0 - margin[live]),
                           rtol=0.0, atol=slack)
    # stationarity in w: w = (1 / (alpha S)) sum_i beta_i s_i y_i x_i
    w_dual = X.T @ (beta * s * y) / (alpha * s.sum())
    assert np.allclose(w, w_dual, rtol=0.0, atol=1e-7 * np.max(np.abs(w)))
    if fit_intercept:  # stationarity in b: sum_i s_i y_i beta_i = 0
        assert abs(np.sum(s * y * beta)) <= 1e-7 * np.sum(s * beta)


def test_one_vs_rest_is_one_binary_fit_per_class():
    rng = np.random.default_rng(7)
    X = rng.normal(size=(90, 3))
    y = np.array(["ant", "bee", "cat"])[np.argmax(X + 0.5 * rng.normal(size=(90, 3)), axis=1)]
    est = LinearSVM(alpha=0.02, loss="hinge", random_state=3).fit(X, y)
    assert est.coef_.shape == (3, 3) and est.dual_coef_.shape == (3, 90)
    assert list(est.classes_) == ["ant", "bee", "cat"]
    assert np.shape(est.gap_) == (3,) and np.shape(est.n_iter_) == (3,)
    for k, label in enumerate(est.classes_):
        alone = LinearSVM(alpha=0.02, loss="hinge", random_state=3).fit(X, y == label)
        assert np.array_equal(alone.coef_[0], est.coef_[k])
        assert alone.intercept_[0] == est.intercept_[k]
        assert alone.gap_ == est.gap_[k] and alone.n_iter_ == est.n_iter_[k]
    scores = est.decision_function(X)
    assert np.array_equal(est.predict(X), est.classes_[np.argmax(scores, axis=1)])


def test_binary_attributes_have_scikit_learns_shapes():
    X, y = noisy_problem(8)
    est = LinearSVM(alpha=0.02).fit(X, y)
    assert est.coef_.shape == (1, 4) and est.intercept_.shape == (1,)
    assert est.dual_coef_.shape == (1, 60)
    assert isinstance(est.gap_, float) and isinstance(est.n_iter_, int)
    assert isinstance(est.objective_, float)
    assert est.decision_function(X).shape == (60,)


@pytest.mark.parametrize("loss", ["hinge", "squared_hinge"])
def test_dense_csr_and_float32_reach_the_same_optimum(loss):
    X, y = noisy_problem(9, n=100, d=6)
    X[np.abs(X) < 0.5] = 0.0  # a sparse matrix with real zeros
    X = X.astype(np.float32).astype(np.float64)  # values that float32 holds exactly
    alpha = 1.0 / len(y)
    _, _, J_ref = qp_svm(X, y, alpha, loss, True)
    for form in (X, sp.csr_matrix(X), X.astype(np.float32), sp.csr_matrix(X, dtype=np.float32)):
        est = LinearSVM(alpha=alpha, loss=loss, **TIGHT).fit(form, y)
        assert abs(fitted_objective(est, X, y) - J_ref) <= 1e-8 * J_ref
