"""Dual coordinate descent's round schedule and shuffle: the answer stays HiGHS's, the gap
stays an upper bound on the true suboptimality, and rounds are few."""

from __future__ import annotations

import numpy as np
import pytest

from halfspaces._fast import loop_input
from halfspaces._fast.svm import dual_coordinate_descent
from halfspaces._glm import svm_dual
from halfspaces._glm.svm_dual import solve_svm_dual
from tests._datasets import in_format, noisy
from tests._oracles import svm_objective, svm_qp_objective


@pytest.mark.parametrize("loss", ["hinge", "squared_hinge"])
@pytest.mark.parametrize("fit_intercept", [True, False])
@pytest.mark.parametrize("fmt", ["dense64", "csr32"])
def test_objective_matches_the_qp_and_the_gap_is_honest(loss, fit_intercept, fmt):
    X, y = noisy(150, 5, seed=4, flip=0.2)
    X = in_format(X + 0.5, fmt)
    alpha = 2.0 / len(y)
    reference = svm_qp_objective(X, y, alpha, loss, fit_intercept)
    for tol in (1e-2, 1e-5, 1e-9):
        run = solve_svm_dual(X, y, loss=loss, alpha=alpha, fit_intercept=fit_intercept,
                             tol=tol, max_iter=100_000, seed=0)
        ours = svm_objective(X, y, run.coef, run.intercept, alpha, loss)
        assert run.converged and run.gap <= tol * run.objective
        # the QP's own answer is accurate to about 1e-10 of J: beyond that it cannot judge
        assert ours - reference <= run.gap + 1e-9 * reference
    assert ours == pytest.approx(reference, rel=1e-8)


@pytest.mark.parametrize("scale", [1e-6, 1.0, 1e6])
def test_the_gap_is_honest_when_the_passes_run_out(scale):
    X, y = noisy(150, 5, seed=5, flip=0.2)
    X = X * scale
    alpha = 1.0 / len(y)
    reference = svm_qp_objective(X, y, alpha, "hinge", True)
    for max_iter in (1, 3, 10):
        run = solve_svm_dual(X, y, loss="hinge", alpha=alpha, fit_intercept=True, tol=1e-12,
                             max_iter=max_iter, seed=0)
        ours = svm_objective(X, y, run.coef, run.intercept, alpha, "hinge")
        assert ours - reference <= run.gap + 1e-9 * reference
        assert run.n_iter <= max_iter


def test_the_tightening_aims_at_the_target_within_its_bounds():
    assert svm_dual._tightening(1e-5, 1e-6) == pytest.approx(0.05)  # 0.5 target / gap
    assert svm_dual._tightening(1e-3, 1e-3) == 0.1  # at least 10x a round
    assert svm_dual._tightening(1.0, 1e-12) == 1e-3  # at most 1000x
    assert svm_dual._tightening(np.inf, 1e-6) == 0.1
    assert svm_dual._tightening(0.0, 1e-6) == 0.1


def test_few_rounds_reach_a_tight_tolerance(monkeypatch):
    """The gap falls about in proportion to eps, so a tight tol takes a round or two after
    the first, not one round per factor of 10."""
    X, y = noisy(400, 8, seed=6, flip=0.1)
    rounds = []
    loop = svm_dual.dual_coordinate_descent

    def counted(*args):
        rounds.append(args[-1])
        return loop(*args)

    monkeypatch.setattr(svm_dual, "dual_coordinate_descent", counted)
    run = solve_svm_dual(X, y, loss="hinge", alpha=1.0 / len(y), fit_intercept=False,
                         tol=1e-8, max_iter=100_000, seed=0)
    assert run.converged
    assert len(rounds) <= 4 < 1 + round(np.log10(rounds[0] / rounds[-1]))


@pytest.mark.parametrize("n", [1, 2, 3, 50])
def test_every_coordinate_is_visited_by_the_shuffle(n):
    """One pass from a = 0 over orthogonal rows: each coordinate is its own problem, solved
    in one visit, a_i = min(1 / ||x_i||^2, C); a coordinate the shuffle skipped stays 0."""
    rng = np.random.default_rng(n)
    X = np.diag(rng.uniform(2.0, 10.0, n))
    y = np.where(rng.random(n) < 0.5, -1.0, 1.0)
    sq = np.einsum("ij,ij->i", X, X)
    a, w = np.zeros(n), np.zeros(n)
    passes, _ = dual_coordinate_descent(loop_input(X), y, sq, np.ones(n), np.zeros(n), a, w,
                                        np.zeros(2), 0.0, 7, 1, np.inf)
    assert passes == 1
    np.testing.assert_allclose(a, 1.0 / sq, rtol=1e-15)
