"""The squared-hinge SVM's primal Newton method against HiGHS's QP solution of the same primal
(:func:`tests._oracles.svm_qp_objective`), independently of any solver of ours."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

from halfspaces._glm.svm_dual import solve_svm_dual
from halfspaces._glm.svm_newton import NEWTON_MAX_FEATURES, pick_svm_solver, solve_svm_newton
from tests._datasets import in_format, noisy
from tests._oracles import svm_objective, svm_qp_objective


def qp_objective(X, y, alpha, weights, fit_intercept):
    return svm_qp_objective(X, y, alpha, "squared_hinge", fit_intercept, weights)


def objective(X, y, w, b, alpha, weights):
    """J in the solvers' convention, (1/n) sum_i s_i loss_i + alpha/2 ||w||^2: the weighted
    mean's J at alpha n / S, times S / n."""
    n = len(y)
    total = float(n if weights is None else np.sum(weights))
    return total / n * svm_objective(X, y, w, b, alpha * n / total, "squared_hinge", weights)


def problem(seed, scale=1.0, n=120, d=6):
    X, y = noisy(n, d, seed=seed, flip=0.2)
    return X * scale, y


@pytest.mark.parametrize("fmt", ["dense64", "dense32", "csr32", "csr64"])
@pytest.mark.parametrize("fit_intercept", [True, False])
def test_objective_matches_the_qp(fmt, fit_intercept):
    X, y = problem(0)
    X = in_format(X + 0.7, fmt)  # shifted: the intercept matters
    weights = np.random.default_rng(0).uniform(0.2, 3.0, len(y))
    alpha = 3.0 / len(y)
    run = solve_svm_newton(X, y, loss="squared_hinge", alpha=alpha,
                           fit_intercept=fit_intercept, tol=1e-10, max_iter=100,
                           weights=weights)
    reference = qp_objective(X, y, alpha, weights, fit_intercept)
    ours = objective(X, y, run.coef, run.intercept, alpha, weights)
    assert run.converged
    assert ours == pytest.approx(reference, rel=1e-8)
    assert ours - reference <= run.gap <= 1e-10 * run.objective
    assert run.objective >= ours * (1 - 1e-15)  # J is reported as an upper bound
    assert np.all(run.dual >= 0.0)


@pytest.mark.parametrize("scale", [1e-6, 1e-3, 1.0, 1e3, 1e6])
@pytest.mark.parametrize("max_iter", [0, 1, 2, 100])
def test_the_gap_is_honest_at_every_scale_and_when_stopped_early(scale, max_iter):
    X, y = problem(1, scale)
    alpha = 10.0 ** np.random.default_rng(int(scale * 1e6) % 7).uniform(-1, 1) / len(y)
    run = solve_svm_newton(X, y, loss="squared_hinge", alpha=alpha, fit_intercept=True,
                           tol=1e-12, max_iter=max_iter)
    reference = qp_objective(X, y, alpha, np.ones(len(y)), True)
    suboptimality = objective(X, y, run.coef, run.intercept, alpha, np.ones(len(y))) - reference
    # the QP's own answer is accurate to about 1e-10 of J: beyond that it cannot judge
    assert suboptimality <= run.gap + 1e-9 * reference
    assert run.n_iter <= max_iter


def test_warm_start_from_the_dual_solver_and_at_a_new_alpha():
    X, y = problem(2)
    n = len(y)
    dual = solve_svm_dual(X, y, loss="squared_hinge", alpha=1.0 / n, fit_intercept=True,
                          tol=1e-4, max_iter=1000, seed=0)
    run = solve_svm_newton(X, y, loss="squared_hinge", alpha=1.0 / n, fit_intercept=True,
                           tol=1e-10, max_iter=100, start=dual)
    cold = solve_svm_newton(X, y, loss="squared_hinge", alpha=1.0 / n, fit_intercept=True,
                            tol=1e-10, max_iter=100)
    assert run.converged and run.n_iter <= cold.n_iter
    moved = solve_svm_newton(X, y, loss="squared_hinge", alpha=4.0 / n, fit_intercept=True,
                             tol=1e-10, max_iter=100, start=run)
    reference = qp_objective(X, y, 4.0 / n, np.ones(n), True)
    assert moved.converged
    assert objective(X, y, moved.coef, moved.intercept, 4.0 / n, np.ones(n)) == pytest.approx(
        reference, rel=1e-8)


def test_only_the_squared_hinge():
    X, y = problem(3)
    with pytest.raises(ValueError, match="squared_hinge"):
        solve_svm_newton(X, y, loss="hinge", alpha=0.1, fit_intercept=True, tol=1e-6,
                         max_iter=10)


def test_the_automatic_choice():
    narrow, wide = np.zeros((3, 10)), sp.csr_matrix((3, NEWTON_MAX_FEATURES + 1))
    assert pick_svm_solver(narrow, "squared_hinge") == "newton"
    assert pick_svm_solver(narrow, "hinge") == "dual"
    assert pick_svm_solver(wide, "squared_hinge") == "dual"
