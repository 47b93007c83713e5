"""The solvers on plain objectives: scikit-learn's optimum, the whitening of L-BFGS as a change
of variables, the sub-sampled curvature of tall dense data, Newton-CG beyond CHOLESKY_MAX, the
stochastic outer loop against a plain twin, and the stopping rules."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from _datasets import in_format, noisy
from _glm_reference import (
    assert_same_optimum,
    dense,
    objective,
    problem,
    reference_value,
    sklearn_optimum,
)
from numpy.testing import assert_allclose
from scipy.special import expit
from sklearn.linear_model import LogisticRegression as SkLogisticRegression

from halfspaces import ConvergenceWarning, LogisticRegression
from halfspaces._glm.solvers import (
    CHOLESKY_MAX,
    SgdState,
    StepRule,
    armijo,
    auto_eta0,
    gradient_descent,
    solve,
)
from halfspaces._validation import encode_targets


def sk_w(sk):
    return np.c_[sk.coef_, sk.intercept_].ravel()


@pytest.mark.parametrize("solver,rtol", [("lbfgs", 1e-12), ("newton", 1e-12), ("gd", 1e-9),
                                         ("sgd", 1e-3), ("minibatch", 1e-3)])
def test_each_solver_reaches_sklearns_optimum_on_a_plain_objective(solver, rtol):
    X, y = noisy(500, 5, seed=30, flip=0.2)
    alpha = 1e-2
    obj = objective(X, y, alpha, True, "logistic")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        sk = sklearn_optimum(X, y, 1.0 / (alpha * 500))
    steps = StepRule(batch_size=32)
    run = solve(obj, solver, np.zeros(6), 1e-8, None, steps, np.random.RandomState(0))
    best = reference_value(X, y, sk_w(sk), alpha, "logistic")
    assert obj.value(run.w) <= best * (1 + rtol)
    assert_allclose(run.loss_curve[-1], obj.value(run.w), rtol=1e-12)
    if solver in ("lbfgs", "newton", "gd"):
        assert run.converged
        assert_allclose(run.w, sk_w(sk), rtol=1e-5, atol=1e-6)


# -- the whitening of L-BFGS ------------------------------------------------------------------
@pytest.mark.parametrize("at_zero", [False, True])
@pytest.mark.parametrize("diagonal", [False, True])
@pytest.mark.parametrize("loss", ["logistic", "softmax"])
def test_whitening_is_a_change_of_variables_with_the_chain_rule(loss, diagonal, at_zero,
                                                                monkeypatch):
    from halfspaces._glm import solvers as _solvers

    monkeypatch.setattr(_solvers, "CHOLESKY_MAX", 1 if diagonal else 2048)
    X, y, w, k = problem(loss, "dense64", seed=15)
    obj = objective(X, y, 0.05, True, loss, k)
    white = _solvers.Whitening.at(obj, np.zeros_like(w) if at_zero else w)
    assert white.diagonal == diagonal
    # at W = 0 every softmax class has the same block: one factor serves them all
    assert white.inverse.shape[0] == (1 if at_zero or loss == "logistic" else k)
    v = white.to_v(w)
    assert_allclose(white.to_w(v), w, rtol=1e-12, atol=1e-14)
    h = 1e-6  # the gradient of v -> J(w(v)) by central differences
    numeric = [(obj.value(white.to_w(v + h * e)) - obj.value(white.to_w(v - h * e))) / (2 * h)
               for e in np.eye(v.size)]
    assert_allclose(white.grad_v(obj.value_grad(w)[1]), numeric, rtol=1e-6, atol=1e-8)


def test_whitening_blocks_stay_within_their_memory_budget(monkeypatch):
    from halfspaces._glm import solvers as _solvers

    X, y, w, k = problem("softmax", "dense64", seed=19)  # 3 classes of 7 slots
    obj = objective(X, y, 0.05, True, "softmax", k)
    monkeypatch.setattr(_solvers, "WHITEN_MAX", 3 * 7 * 7)
    assert not _solvers.Whitening.at(obj, w).diagonal
    monkeypatch.setattr(_solvers, "WHITEN_MAX", 3 * 7 * 7 - 1)
    assert _solvers.Whitening.at(obj, w).diagonal


@pytest.mark.parametrize("fmt", ["dense64", "csr64"])
@pytest.mark.parametrize("fit_intercept", [True, False])
def test_lbfgs_with_jacobi_whitening_reaches_sklearns_optimum(fmt, fit_intercept, monkeypatch):
    # beyond CHOLESKY_MAX slots L-BFGS whitens by the diagonal alone: force it on small data
    from halfspaces._glm import solvers as _solvers

    monkeypatch.setattr(_solvers, "CHOLESKY_MAX", 1)
    X, y = noisy(800, 6, seed=16, flip=0.2, sparsity=0.3)
    X = in_format(X * np.array([1.0, 10.0, 0.1, 3.0, 1.0, 30.0]), fmt)  # badly scaled columns
    ours = LogisticRegression(alpha=1.0 / 800, tol=1e-7, fit_intercept=fit_intercept).fit(X, y)
    assert ours.converged_
    sk = SkLogisticRegression(C=1.0, solver="newton-cholesky", tol=1e-12, max_iter=500,
                              fit_intercept=fit_intercept).fit(dense(X), y)
    assert_same_optimum(ours, sk, dense(X), y, 1.0)


@pytest.mark.parametrize("d,diagonal", [(150, False), (500, True)])
def test_lbfgs_whitening_by_blocks_only_where_they_are_cheap(d, diagonal):
    # dense 1,000 x d: the Gram block costs 1000 (d + 1)^2 / 2 multiply-adds, 100
    # evaluations 100 * 2 * 1000 d; beyond that (d = 500) the diagonal is used
    from halfspaces._glm.solvers import Whitening

    X, y = noisy(1000, d, seed=20, flip=0.1)
    obj = objective(X, np.where(y > 0, 1.0, -1.0), 1e-3, True, "logistic")
    assert Whitening.at(obj, np.zeros(obj.size)).diagonal == diagonal
    # 1,000 rows in up to 500 dimensions are nearly separable: alpha is the only curvature
    # left, so the coefficients need a tight gradient tolerance (error <= sqrt(d) tol / alpha)
    ours = LogisticRegression(alpha=1e-3, tol=1e-9).fit(X, y)
    assert ours.converged_
    assert_same_optimum(ours, sklearn_optimum(X, y, 1.0), X, y, 1.0)


def test_lbfgs_stops_on_the_gradient_in_the_original_coordinates():
    X, y = noisy(600, 5, seed=17)
    for tol in (1e-3, 1e-5, 1e-7):
        clf = LogisticRegression(alpha=1e-3, tol=tol).fit(X, y)
        obj = objective(X, np.where(y > 0, 1.0, -1.0), 1e-3, True, "logistic")
        grad = obj.value_grad(np.r_[clf.coef_.ravel(), clf.intercept_])[1]
        assert clf.converged_ and np.max(np.abs(grad)) <= tol


def test_lbfgs_on_rank_deficient_data_without_penalty():
    # a duplicated and a constant column: B is singular but for the whitening's ridge
    X, y = noisy(500, 3, seed=18, flip=0.25)
    X = np.column_stack([X, X[:, 0], np.full(500, 2.0)])
    ours = LogisticRegression(tol=1e-7).fit(X, y)
    # newton-cholesky refuses the singular Hessian; newton-cg solves the same problem
    sk = SkLogisticRegression(C=np.inf, solver="newton-cg", tol=1e-12, max_iter=500).fit(X, y)
    t = np.where(y > 0, 1.0, -1.0)

    def J(est):
        return reference_value(X, t, np.r_[est.coef_.ravel(), est.intercept_], 0.0, "logistic")

    assert ours.converged_
    assert_allclose(J(ours), J(sk), rtol=1e-10)


# -- the sub-sampled curvature of tall dense data, and Newton-CG beyond CHOLESKY_MAX -----------
@pytest.mark.parametrize("n_classes", [2, 3])
@pytest.mark.parametrize("solver", ["newton", "lbfgs"])
def test_tall_dense_data_reach_sklearns_optimum_with_sampled_curvature(solver, n_classes):
    # n >= 400 (d + 1): Newton's Hessian (binary) or its preconditioner (softmax) and
    # L-BFGS's whitening come from a fixed sample of max(100 (d + 1), n / 20) rows
    X, y = noisy(4000, 4, seed=31, flip=0.2)
    if n_classes == 3:
        y = np.where(X[:, 2] + 0.5 * np.random.default_rng(31).normal(size=4000) > 0.8,
                     2.0, y)
    obj = LogisticRegression()._objective(X, encode_targets(y))
    assert obj.curvature_rows().X.shape[0] == 500 < 4000
    ours = LogisticRegression(solver=solver, alpha=1.0 / 4000, tol=1e-9).fit(X, y)
    assert ours.converged_
    assert_same_optimum(ours, sklearn_optimum(X, y, 1.0), X, y, 1.0)


def test_newton_beyond_cholesky_max_uses_conjugate_gradients_and_reaches_the_optimum():
    # 3 classes x 701 slots = 2,103 parameters > CHOLESKY_MAX: Newton-CG on Hessian products
    rng = np.random.default_rng(32)
    X = rng.normal(size=(300, 700)) / np.sqrt(700)
    y = np.argmax(X @ rng.normal(size=(700, 3)) + 0.3 * rng.normal(size=(300, 3)), axis=1)
    assert 3 * 701 > CHOLESKY_MAX
    alpha = 1e-2
    ours = LogisticRegression(solver="newton", alpha=alpha, tol=1e-9).fit(X, y)
    assert ours.converged_
    sk = SkLogisticRegression(C=1.0 / (alpha * 300), solver="newton-cg", tol=1e-12,
                              max_iter=1000).fit(X, y)
    assert_same_optimum(ours, sk, X, y, 1.0 / (alpha * 300))


# -- the stochastic outer loop against a plain twin --------------------------------------------
def twin_stochastic(X, y, alpha, epochs, batch, schedule, eta0, power_t, average, seed):
    """Epochs of mini-batch SGD, written plainly: a fresh permutation per epoch, the step
    of the schedule at step t (t0 = 1 / (alpha eta0) for 'optimal'), and the mean of the
    iterates from the second epoch on."""
    A = np.hstack([X, np.ones((X.shape[0], 1))])
    mask = np.r_[np.ones(X.shape[1]), 0.0]
    w, t, iterates, models = np.zeros(A.shape[1]), 0, [], []
    rng = np.random.RandomState(seed)
    for epoch in range(epochs):
        order = rng.permutation(X.shape[0])
        for start in range(0, len(order), batch):
            rows = order[start:start + batch]
            t += 1
            eta = {"constant": eta0, "invscaling": eta0 / t ** power_t,
                   "optimal": 1.0 / (alpha * (t + 1.0 / (alpha * eta0)))}[schedule]
            r = -y[rows] * expit(-y[rows] * (A[rows] @ w))
            w = w - eta * (A[rows].T @ r / len(rows) + alpha * mask * w)
            if average and epoch > 0:
                iterates.append(w)
        models.append(np.mean(iterates, axis=0) if iterates else w)
    return models[-1], models


@pytest.mark.parametrize("schedule,average", [("constant", True), ("invscaling", True),
                                              ("optimal", True), ("constant", False),
                                              ("invscaling", False)])
@pytest.mark.parametrize("batch", [1, 6, 40, 64])  # 40, 64: one step per epoch
def test_stochastic_solver_is_the_plain_loop(schedule, average, batch):
    X, y = noisy(40, 3, seed=33, flip=0.2)
    obj = objective(X, y, 0.05, True, "logistic")
    steps = StepRule(0.3, schedule, 0.7, batch, True, average)
    run = solve(obj, "minibatch", np.zeros(4), 0.0, 3, steps, np.random.RandomState(4))
    expected, models = twin_stochastic(X, y, 0.05, 3, batch, schedule, 0.3, 0.7, average, 4)
    assert_allclose(run.w, expected, rtol=1e-10, atol=1e-12)
    # J of the start, then of the model (the mean once averaging began) after each epoch
    curve = [reference_value(X, y, w, 0.05, "logistic") for w in [np.zeros(4), *models]]
    assert_allclose(run.loss_curve, curve, rtol=1e-10)
    assert run.n_iter == 3 and isinstance(run.state, SgdState)
    assert run.state.t == 3 * -(-40 // batch)
    assert run.state.n_avg == (2 * -(-40 // batch) if average else -1)


def test_stochastic_runs_continue_from_their_state():
    X, y = noisy(60, 3, seed=34)
    obj = objective(X, y, 0.01, True, "logistic")
    steps = StepRule(0.2, "invscaling", 0.5, 4, True, True)
    whole = solve(obj, "minibatch", np.zeros(4), 0.0, 3, steps, np.random.RandomState(5))
    rng, state = np.random.RandomState(5), None
    for _ in range(3):
        part = solve(obj, "minibatch", np.zeros(4), 0.0, 1, steps, rng, state)
        state = part.state
    assert_allclose(part.w, whole.w, rtol=1e-13)
    assert state.t == whole.state.t and state.n_avg == whole.state.n_avg
    # a continued run starts its curve from the model it continues: the mean, once begun
    assert part.loss_curve[0] == pytest.approx(whole.loss_curve[2], rel=1e-12)
    assert part.loss_curve[1] == pytest.approx(whole.loss_curve[3], rel=1e-12)


# -- stopping rules -----------------------------------------------------------------------------
@pytest.mark.parametrize("solver", ["gd", "newton", "lbfgs"])
def test_full_batch_solvers_decrease_the_objective_monotonically(solver):
    X, y = noisy(500, 5, seed=8)
    clf = LogisticRegression(solver=solver, alpha=1e-3, max_iter=200).fit(X, y)
    assert np.all(np.diff(clf.loss_curve_) <= 1e-15)
    assert clf.converged_ and clf.n_iter_ == len(clf.loss_curve_) - 1


@pytest.mark.parametrize("solver", ["gd", "newton", "lbfgs"])
def test_full_batch_solvers_stop_on_the_gradient_or_when_stalled(solver):
    X, y = noisy(300, 4, seed=35)
    obj = objective(X, y, 1e-2, True, "logistic")
    run = solve(obj, solver, np.zeros(5), 1e-4, None)
    assert run.converged is True and run.stalled is False
    assert np.max(np.abs(obj.value_grad(run.w)[1])) <= 1e-4
    # tol = 0 cannot be met: the solver stops once J no longer decreases in floating point
    run = solve(obj, solver, np.zeros(5), 0.0, 5000)
    assert run.stalled is True and run.converged is False and run.n_iter < 5000
    # what a stalled run returns is its last iterate, whose J ends the curve
    assert len(run.loss_curve) == run.n_iter + 1
    assert obj.value(run.w) == pytest.approx(run.loss_curve[-1], rel=1e-14)
    assert np.max(np.abs(obj.value_grad(run.w)[1])) <= 1e-7


def test_stochastic_solvers_stop_when_the_objective_settles():
    X, y = noisy(300, 4, seed=36)
    obj = objective(X, y, 1e-2, True, "logistic")
    run = solve(obj, "sgd", np.zeros(5), 1e-4, 200, StepRule(), np.random.RandomState(0))
    curve = np.asarray(run.loss_curve)
    change = np.abs(np.diff(curve)) / np.abs(curve[1:])
    assert run.converged and change[-1] <= 1e-4 and np.all(change[:-1] > 1e-4)
    assert run.n_iter == len(curve) - 1 < 200


def test_gd_without_line_search_is_the_plain_algorithm():
    X, y = noisy(100, 3, seed=9)
    clf = LogisticRegression(solver="gd", line_search=False, eta0=0.5, alpha=0.1,
                             max_iter=3, tol=0.0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        clf.fit(X, y)
    obj = objective(X, y, 0.1, True, "logistic")
    w = np.zeros(4)
    for _ in range(3):
        w = w - 0.5 * obj.value_grad(w)[1]
    assert_allclose(np.r_[clf.coef_.ravel(), clf.intercept_], w, rtol=1e-12)


@pytest.mark.parametrize("fmt", ["dense64", "csr32"])
@pytest.mark.parametrize("fit_intercept", [True, False])
def test_default_first_steps_are_the_documented_ones(fmt, fit_intercept):
    # gd: 1 / (curvature bound * mean ||x'_i||^2 + alpha); stochastic: sqrt(B) / (2 R'^2)
    X, y = noisy(50, 4, seed=35)
    X[7] *= 6.0  # the largest row, far above the mean
    squares = np.sum(X**2, axis=1) + (1.0 if fit_intercept else 0.0)
    X = in_format(X, fmt)
    for loss, bound in [("logistic", 0.25), ("squared", 1.0)]:
        obj = objective(X, y, 0.03, fit_intercept, loss)
        assert auto_eta0(obj, "gd", 1) == pytest.approx(
            1.0 / (bound * squares.mean() + 0.03), rel=1e-6)
        for batch in (1, 9):
            assert auto_eta0(obj, "minibatch", batch) == pytest.approx(
                np.sqrt(batch) / (2.0 * squares.max()), rel=1e-6)
        # B is the rows a step averages: a batch beyond the 50 rows is all of them
        for batch in (50, 256, 2**62):
            assert auto_eta0(obj, "minibatch", batch) == pytest.approx(
                np.sqrt(50) / (2.0 * squares.max()), rel=1e-6)


@pytest.mark.parametrize("form", ["blocks", "diagonal", "not positive definite"])
@pytest.mark.parametrize("loss", ["logistic", "softmax"])
def test_whitening_makes_the_start_curvature_the_identity(loss, form, monkeypatch):
    # w = M^T v, so the curvature block B_a becomes M_a B_a M_a^T in v: the identity for the
    # Cholesky factors, a unit diagonal for Jacobi scaling (also the fallback when B_a is not
    # positive definite in floating point)
    from halfspaces._glm import solvers as _solvers

    X, y, w, k = problem(loss, "dense64", seed=16)
    obj = objective(X, y, 0.05, True, loss, k)
    blocks = obj.feature_curvature(w)
    if form == "diagonal":
        monkeypatch.setattr(_solvers, "CHOLESKY_MAX", 1)
    if form == "not positive definite":
        def refuse(*args, **kwargs):
            raise np.linalg.LinAlgError("not positive definite")
        monkeypatch.setattr(_solvers, "cholesky", refuse)
    white = _solvers.Whitening.at(obj, w)
    assert white.diagonal == (form != "blocks")
    for a in range(k):
        B = blocks[a]
        if white.diagonal:
            assert_allclose(white.inverse[a] ** 2 * np.diag(B), 1.0, rtol=1e-9)
        else:
            M = white.inverse[a]
            assert np.allclose(M, np.tril(M))  # lower triangular
            assert_allclose(M @ B @ M.T, np.eye(B.shape[0]), atol=1e-9)
    # and the change of variables of every form works on the k class rows: w = M^T v
    v = np.arange(obj.size, dtype=float)
    Ms = np.broadcast_to(white.inverse, (k, *white.inverse.shape[1:]))
    expected = [Ma * va if white.diagonal else Ma.T @ va
                for Ma, va in zip(Ms, v.reshape(k, -1), strict=True)]
    assert_allclose(white.to_w(v), np.concatenate(expected), rtol=1e-12)


@pytest.mark.parametrize("solver", ["gd", "newton", "lbfgs"])
def test_a_start_at_the_optimum_returns_it_untouched(solver):
    X, y = noisy(200, 3, seed=37)
    obj = objective(X, y, 1e-2, True, "logistic")
    optimum = solve(obj, solver, np.zeros(4), 1e-9, None).w
    again = solve(obj, solver, optimum, 1e-6, None)
    assert again.converged and again.n_iter == 0 and not again.stalled
    assert_allclose(again.w, optimum, rtol=0, atol=0)
    assert len(again.loss_curve) == 1
    assert again.loss_curve[0] == pytest.approx(obj.value(optimum), rel=1e-14)


@pytest.mark.parametrize("solver", ["gd", "newton", "lbfgs"])
def test_a_run_cut_short_by_max_iter_returns_its_last_iterate(solver):
    X, y = noisy(200, 3, seed=38)
    obj = objective(X, y, 1e-3, True, "logistic")
    run = solve(obj, solver, np.zeros(4), 1e-12, 2)
    assert run.n_iter == 2 and not run.converged and not run.stalled
    assert len(run.loss_curve) == 3 and run.loss_curve[2] < run.loss_curve[0]
    assert obj.value(run.w) == pytest.approx(run.loss_curve[-1], rel=1e-12)


def test_a_diverging_stochastic_run_stops_at_the_first_non_finite_objective():
    # squared loss, a step far beyond 2 / L: J overflows within a few epochs
    X, y = noisy(60, 3, seed=39)
    obj = objective(X, y, 0.0, True, "squared")
    with np.errstate(over="ignore", invalid="ignore"):
        run = solve(obj, "minibatch", np.zeros(4), 1e-4, 500,
                    StepRule(50.0, "constant", 0.5, 1, True, False), np.random.RandomState(0))
    assert not np.isfinite(run.loss_curve[-1]) and np.all(np.isfinite(run.loss_curve[:-1]))
    assert run.n_iter == len(run.loss_curve) - 1 < 500 and not run.converged


# -- Armijo's backtracking, on objectives written by hand ---------------------------------------
class HandObjective:
    """J and its gradient as two functions, and the gradient scales (all armijo reads)."""

    def __init__(self, value, grad, scales=1.0):
        self.value, self.grad, self.calls = value, grad, 0
        self._scales = np.array([scales])

    def value_grad(self, w):
        self.calls += 1
        return float(self.value(w)), np.asarray(self.grad(w), dtype=float)

    def scales(self):
        return self._scales


def largest_armijo_step(J, w, g, s, t):
    """t / 2^j for the least j < 60 with J(w - t s) < J(w) and J(w - t s) <= J(w) - 1e-4 t
    <g, s> (sufficient decrease: Nocedal and Wright 2006, eq. 3.4), or None."""
    for j in range(60):
        step = t / 2**j
        if J(w - step * s) < J(w) and J(w - step * s) <= J(w) - 1e-4 * step * (g @ s):
            return step
    return None


@pytest.mark.parametrize("t", [1.9999, 8.0, 1000.0, 3e5, 0.3])
@pytest.mark.parametrize("newton", [False, True])
def test_armijo_takes_the_largest_halved_step_with_sufficient_decrease(t, newton):
    A, b = np.array([[2.0, 1.0], [0.5, 3.0]]), np.array([1.0, -2.0])
    J = lambda w: 0.5 * np.sum((A @ w - b) ** 2)  # noqa: E731
    grad = lambda w: A.T @ (A @ w - b)  # noqa: E731
    obj, w = HandObjective(J, grad), np.array([1.0, 1.0])
    g = grad(w)
    s = np.linalg.solve(A.T @ A, g) if newton else g
    step, w_new, f_new, g_new = armijo(obj, w, J(w), g, s, t)
    assert step == largest_armijo_step(J, w, g, s, t)
    assert_allclose(w_new, w - step * s, rtol=0, atol=0)
    assert (f_new, list(g_new)) == (J(w_new), list(grad(w_new)))


def test_armijo_asks_for_more_than_a_decrease():
    # on J = w^2 / 2 from w = 1, t = 1.9999 decreases J, but not by 1e-4 t <g, s>
    half = HandObjective(lambda w: 0.5 * w @ w, lambda w: w)
    assert armijo(half, np.ones(1), 0.5, np.ones(1), np.ones(1), 1.9999)[0] == 1.9999 / 2


def test_armijo_halves_the_step_60_times_at_most():
    J = lambda w: 0.5 * w @ w  # noqa: E731
    for t, found in [(1.5 * 2.0**59, 1.5), (1.5 * 2.0**60, None)]:  # J decreases for t < 2
        obj = HandObjective(J, lambda w: w)
        result = armijo(obj, np.ones(1), 0.5, np.ones(1), np.ones(1), t)
        assert (None if result is None else result[0]) == found
        assert obj.calls == 60


@pytest.mark.parametrize("level", [0.0, 1.0, 0.5, -3.0])
def test_armijo_where_j_is_flat_takes_a_step_that_shrinks_the_gradient(level):
    # J(w) constant in floating point, its gradient w: the step to 0 is taken as progress
    obj = HandObjective(lambda w: level, lambda w: w)
    step, w_new, f_new, g_new = armijo(obj, np.ones(1), level, np.ones(1), np.ones(1), 1.0)
    assert (step, list(w_new), f_new, list(g_new)) == (1.0, [0.0], level, [0.0])
    # with shrink = 0.5 the gradient must shrink by half: t = 1.5 gives 1/2, t = 0.75 1/4
    obj = HandObjective(lambda w: level, lambda w: w)
    assert armijo(obj, np.ones(1), level, np.ones(1), np.ones(1), 1.5, shrink=0.5)[0] == 0.75
    # a gradient that does not shrink is no progress, at the default shrink of 1
    obj = HandObjective(lambda w: level, lambda w: np.ones(1))
    assert armijo(obj, np.ones(1), level, np.ones(1), np.ones(1), 1.0) is None


@pytest.mark.parametrize("level, gradient, scales, noise", [
    (1e6, 1e-12, 1.0, True),  # within 64 ulps of max(1, J) = 1e6: rounding noise
    (1e6, 1e-12, 1e-6, False),  # relative to its scale 1e-6 it is not
    (0.5, 2e-14, 1.0, False),  # 2e-14 > 64 ulps of max(1, 0.5) = 1.4e-14
    (0.5, 1e-14, 1.0, True),
])
def test_armijo_takes_no_flat_step_on_a_gradient_of_rounding_noise(level, gradient, scales,
                                                                     noise):
    obj = HandObjective(lambda w: level, lambda w: gradient * w, scales)
    found = armijo(obj, np.ones(1), level, np.full(1, gradient), np.ones(1), 1.0)
    assert (found is None) == noise
    if not noise:
        assert found[0] == 1.0


# -- L-BFGS alone, without the Newton finish ----------------------------------------------------
@pytest.mark.parametrize("loss", ["logistic", "softmax"])
def test_lbfgs_meets_the_gradient_test_by_itself_on_well_scaled_data(loss, monkeypatch):
    # Newton finishes a run only where L-BFGS's line search saw J flat (features of size
    # 1e-8); on well-scaled data L-BFGS must reach the tolerance itself, and a run cut short
    # by max_iter is returned as it is
    from halfspaces._glm import solvers as _solvers

    def no_newton(*args):
        raise AssertionError("the Newton finish ran")

    monkeypatch.setattr(_solvers, "_newton", no_newton)
    X, y, w, k = problem(loss, "dense64", seed=17)
    obj = objective(X, y, 1e-2, True, loss, k)
    points = []
    real_value_grad = obj.value_grad
    monkeypatch.setattr(obj, "value_grad", lambda w: points.append(w.copy()) or
                        real_value_grad(w))
    run = solve(obj, "lbfgs", np.zeros(obj.size), 1e-8, 200)
    # the callback and the end reuse the line search's last evaluation: no point twice in a row
    assert not any(np.array_equal(a, b) for a, b in zip(points, points[1:], strict=False))
    assert run.converged and not run.stalled and 0 < run.n_iter < 200
    assert np.max(np.abs(obj.value_grad(run.w)[1]) / obj.scales()) <= 1e-8
    assert len(run.loss_curve) == run.n_iter + 1
    assert run.loss_curve[-1] == pytest.approx(obj.value(run.w), rel=1e-14)
    assert np.all(np.diff(run.loss_curve) <= 0)
    cut = solve(obj, "lbfgs", np.zeros(obj.size), 1e-8, 3)
    assert cut.n_iter == 3 and not cut.converged and len(cut.loss_curve) == 4
    assert cut.loss_curve[-1] == pytest.approx(obj.value(cut.w), rel=1e-14)


# -- the stochastic loop's stopping rule ---------------------------------------------------------
def settled(curve, tol):
    """|J_t - J_t-1| <= tol max(|J_t|, 1e-12): relative, floored for J near 0."""
    return abs(curve[-2] - curve[-1]) <= tol * max(abs(curve[-1]), 1e-12)


def test_a_stochastic_run_stops_at_the_first_epoch_its_objective_settles():
    # all-zero features and balanced labels: the mean gradient at w = 0 is exactly 0, so a
    # full-batch step leaves J unchanged and even tol = 0 is met after one epoch
    X, y = np.zeros((8, 2)), np.array([1.0, -1.0] * 4)
    obj = objective(X, y, 0.1, True, "logistic")
    run = solve(obj, "minibatch", np.zeros(3), 0.0, 50, StepRule(0.5, "constant", 0.5, 8,
                                                                 True, False),
                np.random.RandomState(0))
    assert run.converged and run.n_iter == 1 and run.loss_curve == (np.log(2),) * 2
    # a consistent least-squares problem: J falls towards 0 by a steady factor per epoch, so
    # its relative change stays large while J is far above the floor of 1e-12
    rng = np.random.default_rng(40)
    X = rng.normal(size=(40, 3))
    y = X @ np.array([1.0, -2.0, 0.5]) + 0.3
    obj = objective(X, y, 0.0, True, "squared")
    for tol in (0.5, 1e-3):
        run = solve(obj, "minibatch", np.zeros(4), tol, 60,
                    StepRule(0.3, "constant", 0.5, 40, True, False), np.random.RandomState(0))
        curve = run.loss_curve
        stops = [t for t in range(1, len(curve)) if settled(curve[:t + 1], tol)]
        assert run.converged == bool(stops) and run.n_iter == (stops[0] if stops else 60)
        assert len(curve) == run.n_iter + 1
    # J fell by a factor of 0.7 per epoch to 5e-12 without settling: an absolute test, or a
    # floor of 1 in place of 1e-12, would have stopped it at J near 1e-3
    assert not run.converged and curve[-1] < 1e-10


# -- the solvers' wiring and their inner steps, each against its documented rule ---------------
def test_default_first_steps_sum_float32_rows_in_float64_and_floor_only_at_zero():
    # float32 rows: the squared norms are summed in float64 (float32 sums drift by 1e-7
    # over 300 features); rows of size 1e-4: the floor of 1e-12 must not bind (a floor
    # near 1 would cut the step 10^6-fold)
    X, y = noisy(60, 300, seed=41)
    X32 = X.astype(np.float32)
    squares = np.einsum("ij,ij->i", X32, X32, dtype=np.float64)
    obj = objective(X32, y, 0.0, False, "logistic")
    assert auto_eta0(obj, "gd", 1) == pytest.approx(1.0 / (0.25 * squares.mean()), rel=1e-12)
    assert auto_eta0(obj, "sgd", 4) == pytest.approx(2.0 / (2.0 * squares.max()), rel=1e-12)
    small = objective(1e-4 * X, y, 0.0, False, "logistic")
    squares = np.sum((1e-4 * X) ** 2, axis=1)
    assert auto_eta0(small, "gd", 1) == pytest.approx(1.0 / (0.25 * squares.mean()),
                                                      rel=1e-9)
    assert auto_eta0(small, "sgd", 1) == pytest.approx(1.0 / (2.0 * squares.max()), rel=1e-9)
    assert auto_eta0(small, "gd", 1) > 1e4


def test_solve_runs_gd_from_its_own_default_step_and_sgd_one_example_at_a_time():
    X, y = noisy(80, 3, seed=42)
    obj = objective(X, y, 0.05, True, "logistic")
    run = solve(obj, "gd", np.zeros(4), 0.0, 1, StepRule(line_search=False))
    eta = auto_eta0(obj, "gd", 1)
    assert eta != pytest.approx(auto_eta0(obj, "sgd", 1))
    assert_allclose(run.w, -eta * obj.value_grad(np.zeros(4))[1], rtol=1e-14)
    # sgd: batch 1 whatever StepRule's batch_size, and the first step of a batch of 1
    sgd = solve(obj, "sgd", np.zeros(4), 0.0, 2, StepRule(batch_size=7, average=False),
                np.random.RandomState(3))
    twin = twin_stochastic(X, y, 0.05, 2, 1, "constant", auto_eta0(obj, "sgd", 1), 0.5,
                           False, 3)
    assert_allclose(sgd.w, twin[0], rtol=1e-10)


def test_stochastic_runs_stop_at_max_iter_before_the_objective_settles():
    X, y = noisy(200, 4, seed=43)
    obj = objective(X, y, 1e-3, True, "logistic")
    for max_iter in (1, 2):
        run = solve(obj, "sgd", np.zeros(5), 1e-6, max_iter, StepRule(),
                    np.random.RandomState(0))
        assert run.n_iter == max_iter and not run.converged
        assert len(run.loss_curve) == max_iter + 1


@pytest.mark.parametrize("solver", ["lbfgs", "newton", "gd", "sgd", "minibatch"])
def test_every_solver_reports_each_iteration_out_of_max_iter(solver):
    from halfspaces._utils.progress import listen

    X, y = noisy(120, 3, seed=44)
    obj = objective(X, y, 0.05, True, "logistic")
    heard = []
    with listen(lambda done, total: heard.append((done, total))):
        run = solve(obj, solver, np.zeros(4), 1e-6, 40, StepRule(batch_size=16),
                    np.random.RandomState(0))
    assert run.n_iter >= 2
    assert heard == [(i, 40) for i in range(1, run.n_iter + 1)]


def test_solve_refuses_entries_beyond_the_largest_safe_one_only():
    X, y = noisy(30, 3, seed=45)
    limit = objective(X, y, 0.1, True, "logistic").largest_safe_entry()
    X[4, 1] = limit  # at the limit: accepted
    obj = objective(X, y, 0.1, True, "logistic")
    assert obj.max_abs == limit
    solve(obj, "gd", np.zeros(4), 1e-6, 1)
    X[4, 1] = np.nextafter(limit, np.inf)
    with pytest.raises(ValueError, match=r"largest entry in absolute value is .*Rescale X "
                       r"\(divide it by its largest entry, or use "
                       r"sklearn\.preprocessing\.MaxAbsScaler or StandardScaler\)"):
        solve(objective(X, y, 0.1, True, "logistic"), "gd", np.zeros(4), 1e-6, 1)


def softmax_problem(seed):
    # three classes, columns of very different scales: the block preconditioner matters
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(150, 4)) * np.array([1e-2, 1.0, 30.0, 3.0])
    y = rng.integers(0, 3, 150)
    return objective(X, y, 1e-3, True, "softmax", 3)


def test_newton_cg_steps_are_preconditioned_cg_to_the_documented_residual():
    # the inexact Newton step: CG on H s = g, preconditioned by the inverse of H's class
    # blocks at the start, stopped at the relative residual min(1/2, sqrt(||g||)); SciPy's
    # cg with a preconditioner built here from np.linalg.inv is the oracle
    from scipy.sparse.linalg import LinearOperator, cg

    from halfspaces._glm.solvers import Whitening, _cg_step

    obj = softmax_problem(46)
    w0 = np.zeros(obj.size)
    white = Whitening.at(obj, w0)
    blocks = obj.feature_curvature(w0, diagonal=False, max_cost=np.inf)
    inverse = [np.linalg.inv(B) for B in np.broadcast_to(blocks, (3, *blocks.shape[1:]))]

    def preconditioned(r):
        return np.concatenate([Bi @ ra for Bi, ra in zip(inverse, r.reshape(3, -1),
                                                          strict=True)])

    # near the optimum, moved along every column in proportion to 1 / its scale^2, so
    # that the gradient has all the curvature's directions in it
    scales = np.tile([1e-2, 1.0, 30.0, 3.0, 1.0], 3)
    near = solve(obj, "newton", w0, 1e-10, None).w + 1e-6 * np.sin(np.arange(15)) / scales**2
    for w in (w0, near):  # rtol 1/2, then about 7e-3
        g = obj.value_grad(w)[1]
        counts = {}
        for name, pre in [("none", None), ("blocks", preconditioned)]:
            calls = []
            H = obj.hess_operator(w)
            op = LinearOperator((obj.size, obj.size), dtype=float,
                                matvec=lambda v, H=H, calls=calls: calls.append(1) or H(v))
            M = None if pre is None else LinearOperator((obj.size, obj.size), matvec=pre,
                                                        dtype=float)
            rtol = min(0.5, np.sqrt(np.linalg.norm(g)))
            expected, _ = cg(op, g, rtol=rtol, maxiter=max(50, obj.size // 10), M=M)
            counts[name] = len(calls)
            s = _cg_step(obj, w, g, None if pre is None else white)
            assert_allclose(s, expected, rtol=1e-7, atol=1e-12 * np.abs(expected).max())
    assert counts["blocks"] < counts["none"]  # near the optimum


def test_a_cg_step_that_is_no_descent_direction_falls_back_to_the_gradient():
    from halfspaces._glm.solvers import _cg_step

    class NegativeCurvature:  # H = -I: CG returns s = -g, an ascent direction
        size = 3

        def hess_operator(self, w):
            return lambda v: -v

    g = np.array([1.0, -2.0, 0.5])
    assert_allclose(_cg_step(NegativeCurvature(), np.zeros(3), g, None), g)


def test_lbfgs_is_scipys_l_bfgs_b_with_options_it_knows():
    # SciPy warns of options a method does not know (OptimizeWarning) and picks BFGS when
    # no method is named: errors here
    import scipy.optimize

    X, y = noisy(150, 4, seed=47)
    obj = objective(X, y, 0.05, True, "logistic")
    methods = []
    minimize = scipy.optimize.minimize

    def recording(*args, **kwargs):
        methods.append(kwargs.get("method"))
        return minimize(*args, **kwargs)

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(scipy.optimize, "minimize", recording)
            run = solve(obj, "lbfgs", np.zeros(5), 1e-8, None)
    assert run.converged and [m.lower() for m in methods] == ["l-bfgs-b"]


@pytest.mark.parametrize("solver", ["newton", "gd"])
def test_a_run_that_converges_at_its_last_allowed_iteration_says_so(solver):
    X, y = noisy(150, 4, seed=48)
    obj = objective(X, y, 0.05, True, "logistic")
    free = solve(obj, solver, np.zeros(5), 1e-7, 5000)
    assert free.converged and free.n_iter >= 2
    capped = solve(obj, solver, np.zeros(5), 1e-7, free.n_iter)
    assert capped.converged is True and capped.n_iter == free.n_iter
    assert_allclose(capped.w, free.w, rtol=0, atol=0)
    short = solve(obj, solver, np.zeros(5), 1e-7, free.n_iter - 1)
    assert short.converged is False and short.n_iter == free.n_iter - 1


def test_gd_with_line_search_tries_twice_the_last_step_first():
    # the documented rule: eta is the Armijo step tried from 2 eta (Nocedal and Wright's
    # backtracking); eta0 small enough that 2 eta0 (and larger) already decreases J enough
    X, y = noisy(100, 3, seed=49)
    obj = objective(X, y, 0.1, True, "logistic")
    w, eta = np.zeros(4), 0.01
    for _ in range(3):
        f, g = obj.value_grad(w)
        eta = largest_armijo_step(obj.value, w, g, g, 2.0 * eta)
        w = w - eta * g
    run = solve(obj, "gd", np.zeros(4), 0.0, 3, StepRule(eta0=0.01))
    assert_allclose(run.w, w, rtol=1e-13)
    assert eta == 0.08  # each trial step was taken: no halving hides the first trial


def test_blas_threads_are_limited_everywhere_below_2_22_multiply_adds_only():
    from types import SimpleNamespace

    from halfspaces._glm import solvers as _solvers

    chosen = []
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(_solvers, "one_blas_thread", lambda: chosen.append("all pools"))
        patch.setattr(_solvers, "scipy_blas_one_thread", lambda: chosen.append("scipy's"))
        for n_samples, size in [(2**20 - 1, 4), (2**20, 4), (2**22, 1), (2**21, 4), (10, 3)]:
            _solvers._blas_threads_for(SimpleNamespace(n_samples=n_samples, size=size))
    assert chosen == ["all pools", "scipy's", "scipy's", "scipy's", "all pools"]


@pytest.mark.parametrize("loss,below_size,expected", [  # CHOLESKY_MAX = size - below_size
    ("logistic", None, "cholesky"),
    ("squared", None, "cholesky"),
    ("softmax", None, "cg, blocks"),
    ("softmax", 0, "cg, blocks"),  # exactly CHOLESKY_MAX parameters
    ("softmax", 1, "cg, plain"),
    ("logistic", 1, "cg, plain"),
])
def test_newton_solves_for_its_step_as_documented(loss, below_size, expected, monkeypatch):
    from halfspaces._glm import solvers as _solvers

    X, y, w, k = problem(loss, "dense64", seed=50)
    obj = objective(X, y, 0.05, True, loss, k)
    if below_size is not None:
        monkeypatch.setattr(_solvers, "CHOLESKY_MAX", obj.size - below_size)
    calls = []
    monkeypatch.setattr(_solvers, "_cg_step",
                        lambda obj, w, g, white: calls.append(white) or np.zeros_like(g))
    step = _solvers._newton_step_rule(obj, w)
    g = obj.value_grad(w)[1]
    s = step(w, g)
    if expected == "cholesky":
        assert calls == []
        assert_allclose(s, obj.newton_direction(w, g), rtol=1e-14)
    else:
        assert len(calls) == 1 and (calls[0] is None) == (expected == "cg, plain")


def test_a_start_or_saved_state_of_another_size_is_refused():
    # the compiled loops index the parameters without bounds checks: a saved stochastic
    # state of 2 entries for an objective of 4 was read and written beyond its end
    X, y = noisy(30, 3, seed=2)
    obj = objective(X, y, 0.01, True, "logistic")
    short = SgdState.start(np.zeros(2))
    for solver in ("sgd", "minibatch"):
        with pytest.raises(ValueError, match="start holds parameters of shape .2,. for an "
                                             "objective of 4"):
            solve(obj, solver, np.zeros(4), 0.0, 1, StepRule(0.1), np.random.RandomState(0),
                  short)
    for solver in ("lbfgs", "newton", "gd", "sgd"):
        with pytest.raises(ValueError, match="objective of 4"):
            solve(obj, solver, np.zeros(3), 1e-6, 5, StepRule(0.1), np.random.RandomState(0))


@pytest.mark.parametrize("solver", ["lbfgs", "newton", "gd", "sgd"])
def test_a_start_with_an_intercept_on_a_problem_without_one_drops_it(solver):
    # no solver moves the intercept of a problem without one: a warm start's intercept
    # was returned as the solution's
    X, y = noisy(40, 3, seed=3)
    obj = objective(X, y, 0.01, False, "logistic")
    w0 = np.array([0.1, 0.2, 0.3, 5.0])
    state = SgdState.start(w0) if solver == "sgd" else None
    run = solve(obj, solver, w0, 1e-8, 50, StepRule(0.1), np.random.RandomState(0), state)
    assert run.w[-1] == 0.0 and w0[-1] == 5.0


EPS = np.finfo(np.float64).eps


# -- Armijo and gd on objectives written by hand ---------------------------------------------------
class Hand:
    """J and its gradient as functions of w (armijo and gd read these and scales)."""

    def __init__(self, value, grad):
        self.value, self.grad = value, grad

    def value_grad(self, w):
        return float(self.value(w)), np.asarray(self.grad(w), dtype=float)

    def scales(self):
        return np.ones(1)

    def stationary(self, g, tol):
        return False


def test_armijo_counts_a_change_beyond_16_ulps_of_j_as_visible():
    # J falls from 1 by 16.5 eps (> 16 ulps): not flat, a decrease (slope 1e-12 asks for
    # 1e-16), so t = 1 is taken; were it flat, the unchanged gradient would refuse every step
    obj = Hand(lambda w: 1.0 if w[0] == 1.0 else 1.0 - 16.5 * EPS, lambda w: np.ones(1))
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # also: no deprecated NumPy call on the way
        found = armijo(obj, np.ones(1), 1.0, np.ones(1), np.full(1, 1e-12), 1.0)
    assert found is not None and found[0] == 1.0


@pytest.mark.parametrize("gradient,noise", [(64 * EPS, True), (64.5 * EPS, False)])
def test_armijo_gradient_noise_is_up_to_64_ulps_of_max_1_j(gradient, noise):
    # J flat at 1, the gradient 0 at the trial point: a flat step that shrinks the gradient
    # is taken only while |g| exceeds 64 ulps of max(1, J) (docstring); at exactly 64 ulps
    # the gradient is rounding noise
    obj = Hand(lambda w: 1.0, lambda w: np.zeros(1))
    found = armijo(obj, np.ones(1), 1.0, np.full(1, gradient), np.ones(1), 1.0)
    assert (found is None) == noise
    if not noise:
        assert found[0] == 1.0


def test_armijo_accepts_a_decrease_of_exactly_1e_4_t_slope():
    # J(w - t s) <= J(w) - 1e-4 t <g, s> (Nocedal and Wright eq. 3.4, as the docstring
    # writes it): equality at t = 1 is sufficient
    target = 1.0 - 1e-4 * 1.0 * 1.0
    obj = Hand(lambda w: 1.0 if w[0] == 1.0 else target, lambda w: np.ones(1))
    assert armijo(obj, np.ones(1), 1.0, np.ones(1), np.ones(1), 1.0)[0] == 1.0


@pytest.mark.parametrize("factor,taken", [(0.99, True), (0.9995, False), (1.5, False)])
def test_gd_takes_a_flat_step_only_for_a_01_percent_shrink_of_the_gradient(factor, taken):
    # J flat: gd's line search takes a step that multiplies ||g||_1 by less than 0.999
    # ("gd asks for a 0.1% shrink at least"), else it stalls at once
    obj = Hand(lambda w: 1.0, lambda w: np.ones(1) if w[0] == 1.0 else factor * np.ones(1))
    run = gradient_descent(obj, np.ones(1), 0.0, 1, StepRule(eta0=0.5))
    assert (run.n_iter, run.stalled) == ((1, False) if taken else (0, True))


# -- Newton, L-BFGS, CG, the stochastic loop -------------------------------------------------------
def test_newtons_first_iteration_takes_the_full_newton_step():
    # logistic J at w = 0: p = 1/2, gradient -X'^T y / (2n), Hessian X'^T X' / (4n) + alpha P;
    # the full step t = 1 satisfies Armijo's test here (so does t = 2, which must not be
    # tried first)
    X, y = noisy(100, 3, seed=0, flip=0.05)
    alpha, n = 0.01, 100
    Xp = np.c_[X, np.ones(n)]
    g = -Xp.T @ y / (2 * n)
    H = Xp.T @ Xp / (4 * n) + alpha * np.diag([1.0, 1.0, 1.0, 0.0])
    expected = -np.linalg.solve(H, g)
    obj = objective(X, y, alpha, True, "logistic")
    run = solve(obj, "newton", np.zeros(4), 0.0, 1)
    assert run.n_iter == 1
    assert_allclose(run.w, expected, rtol=1e-10)
    assert_allclose(run.loss_curve[1], reference_value(X, y, expected, alpha, "logistic"),
                    rtol=1e-12)


def test_the_newton_finish_of_lbfgs_stays_within_max_iter(monkeypatch):
    # L-BFGS-B stopped by its line search after 1 of max_iter = 3 iterations (made to
    # here): Newton finishes with the 2 iterations left, no more
    import scipy.optimize

    def stalls(fun, x0, **kwargs):
        return scipy.optimize.OptimizeResult(x=np.array(x0), nit=1, fun=fun(x0)[0])

    X, y = noisy(150, 4, seed=2, flip=0.1)
    obj = objective(X, y, 1e-3, True, "logistic")
    monkeypatch.setattr(scipy.optimize, "minimize", stalls)
    run = solve(obj, "lbfgs", np.zeros(5), 1e-14, 3)
    assert run.n_iter == 3 and not run.converged
    assert len(run.loss_curve) == 3  # J(w0), then Newton's two iterations


def test_whitening_uses_full_blocks_up_to_exactly_cholesky_max_slots(monkeypatch):
    # "Beyond CHOLESKY_MAX slots per class ... only their diagonals": d + 1 = CHOLESKY_MAX
    # is not beyond
    from halfspaces._glm import solvers as _solvers

    X, y, w, _ = problem("logistic", "dense64", seed=5)  # 6 features: 7 slots
    obj = objective(X, y, 0.05, True, "logistic")
    monkeypatch.setattr(_solvers, "CHOLESKY_MAX", 7)
    assert not _solvers.Whitening.at(obj, w).diagonal
    monkeypatch.setattr(_solvers, "CHOLESKY_MAX", 6)
    assert _solvers.Whitening.at(obj, w).diagonal


class DiagonalHessian:
    """H = diag(lam), counting its products (all _cg_step reads: size, hess_operator)."""

    def __init__(self, lam):
        self.lam, self.size, self.products = lam, lam.size, 0

    def hess_operator(self, w):
        def product(v):
            self.products += 1
            return self.lam * v
        return product


def test_a_cg_step_costs_only_cgs_own_hessian_products():
    # H = 2 I: CG solves H s = g in one iteration, one product; no other product (e.g. to
    # find the operator's dtype, a pass over X for a real objective)
    from halfspaces._glm.solvers import _cg_step

    obj = DiagonalHessian(np.full(5, 2.0))
    g = np.array([1.0, -2.0, 0.5, 3.0, 0.25])
    assert_allclose(_cg_step(obj, np.zeros(5), g, None), g / 2, rtol=1e-14)
    assert obj.products == 1


@pytest.mark.parametrize("size,cap", [(100, 50), (1000, 100)])
def test_a_cg_step_stops_after_max_50_size_over_10_iterations(size, cap):
    # eigenvalues over 8 decades and the residual asked 1e-8 (||g|| = 1e-16): CG cannot get
    # there in max(50, size // 10) iterations, one Hessian product each, and stops at that cap
    from halfspaces._glm.solvers import _cg_step

    lam = np.logspace(0, 8, size)
    g = np.random.default_rng(size).normal(size=size)
    g *= 1e-16 / np.linalg.norm(g)
    obj = DiagonalHessian(lam)
    s = _cg_step(obj, np.zeros(size), g, None)
    assert obj.products == cap
    # the cap, not the residual, stopped it: the relative residual is still above 1e-8
    assert np.linalg.norm(lam * s - g) > 1e-8 * np.linalg.norm(g)


@pytest.mark.parametrize("average", [False, True])
def test_a_continued_stochastic_run_starts_its_curve_at_the_model_it_continues(average):
    # after one epoch the model is the last iterate (averaging, when asked, starts with the
    # second epoch): the continued run's curve starts from J of that model
    X, y = noisy(60, 3, seed=34)
    obj = objective(X, y, 0.01, True, "logistic")
    steps = StepRule(0.2, "constant", 0.5, 4, True, average)
    rng = np.random.RandomState(5)
    first = solve(obj, "minibatch", np.zeros(4), 0.0, 1, steps, rng)
    assert first.state.n_avg == -1 and np.any(first.w != 0.0)
    then = solve(obj, "minibatch", np.zeros(4), 0.0, 1, steps, rng, first.state)
    assert then.loss_curve[0] == pytest.approx(
        reference_value(X, y, first.w, 0.01, "logistic"), rel=1e-12)
