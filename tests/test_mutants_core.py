"""The core's rules that its layer tests let mutants change.

Each test was written for a surviving mutant of ``_datafits``, ``_solvers`` or
``_perceptron_run`` (benchmarks/MUTATION_SURVIVORS.md lists what is left). Each states the
rule it checks and computes its expectation independently (by hand, in NumPy, or from the
rule as documented), never from the function under test.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from _datasets import noisy
from _glm_reference import objective, problem, reference_value
from numpy.testing import assert_allclose, assert_array_equal

from halfspaces._fast import loop_input
from halfspaces._fast import perceptron as fast_perceptron
from halfspaces._glm.datafits import Block, Softmax, _weighted_diagonal, gram_cost
from halfspaces._glm.solvers import StepRule, armijo, gradient_descent, solve
from halfspaces._perceptron.run import (
    PerceptronState,
    perceptron_block_epoch,
    run_perceptron,
)

EPS = np.finfo(np.float64).eps


# -- _perceptron_run ---------------------------------------------------------------------------
def separable_rows():
    X = np.array([[1.0, 2.0], [2.0, 1.0], [-1.0, -2.0], [-2.0, -1.5]])
    return X, np.array([1.0, 1.0, -1.0, -1.0])


def test_a_recorded_run_without_updates_logs_no_rows_rather_than_nothing():
    # record_updates=True asks for the log of every update: a run that makes none (a warm
    # start from weights that already separate the rows) logs an empty list, not None
    X, y = separable_rows()
    first = run_perceptron(X, y, mode="voted", max_epochs=50, record_updates=True)
    assert first.converged
    again = run_perceptron(X, y, mode="voted", state=first.state, record_updates=True)
    assert again.n_updates == 0 and again.converged
    assert again.update_rows is not None and again.update_steps is not None
    assert again.update_rows.shape == (0,) and again.update_steps.shape == (0,)


def test_a_pocket_call_judges_current_weights_whose_run_beats_the_pocket():
    # Gallant's ratchet on a warm start: the current weights separate the rows, the pocket
    # holds weights that err on all four. The first correct prediction gives the current
    # weights a run (1) longer than the pocket's (0): they are judged, make no error and
    # replace the pocket.
    X, y = separable_rows()
    good = np.array([1.0, 1.0, 0.0])
    state = PerceptronState(good.copy(), -good)
    run = run_perceptron(X, y, mode="pocket", state=state)
    assert_array_equal(run.coef, good[:-1])
    assert run.intercept == 0.0 and run.n_errors == 0 and run.n_updates == 0


def test_the_pocket_run_grows_while_the_current_weights_are_the_pocket():
    # Warm start with w = pocket = (1, 0), no intercept. Rows 1-2 are correct: the pocket's
    # run becomes 2. Row 3 (f = 0) is a mistake: w = (1, 1). Row 4 is correct: the run of
    # (1, 1) is 1, not longer than the pocket's 2, so (1, 1) is not judged even though it
    # makes no error, and the pocket (1, 0) with its one error (row 3) stays.
    X = np.array([[1.0, 0.0], [1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    y = np.ones(4)
    start = np.array([1.0, 0.0, 0.0])
    state = PerceptronState(start.copy(), start.copy())
    run = run_perceptron(X, y, mode="pocket", fit_intercept=False, state=state)
    assert run.n_updates == 1
    assert_array_equal(run.state.w, [1.0, 1.0, 0.0])
    assert_array_equal(run.coef, [1.0, 0.0])
    assert run.n_errors == 1


def test_the_averaged_hypothesis_of_a_run_without_steps_is_its_weights():
    # selection="worst" makes no step when every margin is already positive: with a step
    # count of 0 the average of no iterates falls back to the weights themselves
    X, y = separable_rows()
    w = np.array([1.0, 1.0, 0.0])
    run = run_perceptron(X, y, mode="averaged", selection="worst", max_epochs=3,
                         state=PerceptronState(w.copy(), np.zeros(3)))
    assert run.n_updates == 0 and run.converged and run.state.n_steps == 0
    assert_array_equal(run.coef, w[:-1])
    assert run.intercept == 0.0


def test_the_averaged_hypothesis_after_one_step_is_w_minus_the_sum():
    # the averaged hypothesis is w - aux / T for every step count T >= 1, T = 1 included
    # (a state mixed by the Dask classes can hold T = 1 with aux != 0)
    X, y = separable_rows()
    w, aux = np.array([1.0, 1.0, 0.5]), np.array([0.25, -0.5, 0.125])
    state = PerceptronState(w.copy(), aux.copy())
    state.counters[fast_perceptron.STEP] = 1
    run = run_perceptron(X, y, mode="averaged", selection="worst", state=state)
    assert run.n_updates == 0 and run.state.n_steps == 1
    assert_array_equal(run.coef, (w - aux)[:-1])
    assert run.intercept == (w - aux)[-1]


def test_a_block_epoch_from_integer_weights_computes_in_float64():
    # rows x = 0.5 (+1), then x = -1.5 (-1), with an intercept: row 1 (f = 0) updates
    # w = (0.5, 1); row 2 has f = -0.75 + 1 = 0.25 > 0 but y = -1: w = (2, 0), and the
    # averaging sum gains (2 - 1) * (-1) * (-1.5, 1) = (1.5, -1)
    X, y = np.array([[0.5], [-1.5]]), np.array([1.0, -1.0])
    plain = perceptron_block_epoch(X, y, [0, 0])
    assert plain.w.dtype == np.float64 and plain.aux.dtype == np.float64
    assert_array_equal(plain.w, [2.0, 0.0])
    assert plain.n_updates == 2 and plain.n_steps == 2
    for w, aux in [([0, 0], None), (np.zeros(2), [0, 0])]:
        out = perceptron_block_epoch(X, y, w, aux, mode="averaged")
        assert out.w.dtype == np.float64 and out.aux.dtype == np.float64
        assert_array_equal(out.w, [2.0, 0.0])
        assert_array_equal(out.aux, [1.5, -1.0])


# -- _datafits ---------------------------------------------------------------------------------
def test_the_softmax_hessian_of_an_empty_block_is_zero():
    # a Dask partition may be empty ("empty blocks ... contribute nothing"): its Hessian
    # sum is the zero matrix of the parameters' size
    k, d = 3, 2
    b = Block.of(np.empty((0, d)), np.empty(0, dtype=np.intp), 1.0)
    w = np.random.default_rng(0).normal(size=k * (d + 1))
    H = Softmax(k).hessian(b, w)
    assert_array_equal(H, np.zeros((k * (d + 1), k * (d + 1))))


def test_gram_cost_of_a_csr_row_longer_than_46341_entries():
    # sum_i nnz_i^2 / 2: with SciPy's int32 indptr, 50,000^2 overflows int32 unless the
    # squares are taken in float64
    X = sp.csr_matrix(np.ones((1, 50_000)))
    assert X.indptr.dtype == np.int32
    assert gram_cost(X, loop_input(X)) == 50_000.0**2 / 2


def test_the_weighted_diagonal_of_float32_csr_sums_float64_squares():
    # float32 entries 1 + 2^-20 and 3 - 2^-21: their squares need 48 bits; the dense
    # branch squares in float64, and so must the CSR one
    a, b = 1.0 + 2.0**-20, 3.0 - 2.0**-21
    D = np.array([[a, 0.0], [b, a], [0.0, b]])
    X = sp.csr_matrix(D.astype(np.float32))
    h = np.array([0.5, 2.0, 1.25])
    expected = np.r_[h @ D**2, 1.0 * h.sum()]  # D holds the float32 values exactly
    assert_allclose(_weighted_diagonal(X, loop_input(X), h, 1.0), expected, rtol=1e-15)


def test_the_weighted_diagonal_of_csr_with_empty_last_columns():
    # columns 2 and 3 hold no entry: their diagonal slots are 0, the intercept's sum h c^2
    D = np.array([[1.0, 2.0, 0.0, 0.0], [0.0, -1.0, 0.0, 0.0]])
    X = sp.csr_matrix(D)
    h = np.array([0.25, 3.0])
    out = _weighted_diagonal(X, loop_input(X), h, 2.0)
    assert_allclose(out, [0.25, 0.25 * 4 + 3.0, 0.0, 0.0, 4.0 * 3.25], rtol=1e-15)


# -- _solvers: Armijo and gd on objectives written by hand -------------------------------------
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


# -- _solvers: Newton, L-BFGS, CG, the stochastic loop -----------------------------------------
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
