"""LinearSVM's gap_ is honest: J(coef_, intercept_) - J* <= gap_ however the run ended.

J* comes from HiGHS's QP of the primal (``_oracles.qp_svm``), J(coef_, intercept_) is
recomputed here. The sweep scales X by 2^k over 2^-27..2^27 (7e-9..1.3e8) with alpha scaled
by 4^k: the problem is then exactly the unscaled one (w -> w / 2^k), whose J* the QP
computes on data of unit scale, where its absolute tolerances mean something.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from _oracles import qp_svm, svm_objective
from hypothesis import given, settings
from hypothesis import strategies as st

from halfspaces import ConvergenceWarning, LinearSVM

# rounding in the two evaluations of J (fewer than 50 terms, summed by fsum)
EVALUATION = 1e-13


def problem(seed: int, n: int, d: int, separable: bool):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    w = rng.normal(size=d)
    scores = X @ w + 0.3
    if separable:  # push each row to a margin of at least 0.5 from the hyperplane
        X += np.outer(np.sign(scores) * 0.5, w / np.linalg.norm(w))
        return X, np.where(scores > 0, 1.0, -1.0)
    y = np.where(scores + rng.normal(scale=0.7, size=n) > 0, 1.0, -1.0)
    return X, y


def weights_of(kind: str, n: int, seed: int):
    rng = np.random.default_rng(seed + 7)
    if kind == "none":
        return None
    weights = rng.uniform(0.1, 5.0, size=n)
    if kind == "zeros":
        weights[rng.random(n) < 0.3] = 0.0
        weights[0] = 1.0  # some weight left
    return weights


def assert_honest(est, X, y, weights, J_ref):
    J = svm_objective(X, y, est.coef_[0], float(est.intercept_[0]), est.alpha, est.loss,
                      weights)
    assert J - J_ref <= est.gap_ + EVALUATION * J_ref
    assert est.objective_ >= J * (1.0 - EVALUATION)
    if est.converged_:
        assert est.gap_ <= est.tol * est.objective_
    return J


def fit_quietly(est, X, y, weights):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return est.fit(X, y, sample_weight=weights)


@settings(max_examples=80, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(4, 40), d=st.integers(1, 5),
       exponent=st.integers(-27, 27), alpha_n=st.sampled_from([0.05, 0.3, 1.0, 4.0]),
       separable=st.booleans(), weights=st.sampled_from(["none", "positive", "zeros"]),
       loss=st.sampled_from(["hinge", "squared_hinge"]), fit_intercept=st.booleans(),
       budget=st.sampled_from([(1, 1e-4), (3, 1e-4), (20, 1e-4), (1000, 1e-4),
                               (100_000, 1e-12)]))
def test_the_gap_bounds_the_suboptimality_at_every_scale(seed, n, d, exponent, alpha_n,
                                                          separable, weights, loss,
                                                          fit_intercept, budget):
    X, y = problem(seed, n, d, separable)
    if np.unique(y).size < 2:
        y[0] = -y[0]
    s = weights_of(weights, n, seed)
    alpha = alpha_n / n
    _, _, J_ref = qp_svm(X, y, alpha, loss, fit_intercept, s)
    scale = 2.0**exponent  # exact: the scaled problem is the same problem
    max_iter, tol = budget
    est = LinearSVM(alpha=alpha * scale * scale, loss=loss, fit_intercept=fit_intercept,
                    tol=tol, max_iter=max_iter, random_state=seed % 1000)
    fit_quietly(est, X * scale, y, s)
    assert_honest(est, X * scale, y, s, J_ref)


@pytest.mark.parametrize("fit_intercept", [True, False])
@pytest.mark.parametrize("loss", ["hinge", "squared_hinge"])
@pytest.mark.parametrize("max_iter", [1, 2, 5])
def test_a_run_stopped_early_reports_a_gap_above_its_suboptimality(max_iter, loss,
                                                                    fit_intercept):
    X, y = problem(11, 120, 5, separable=False)
    alpha = 0.01 / len(y)  # C = 100: far from the optimum after a few passes
    _, _, J_ref = qp_svm(X, y, alpha, loss, fit_intercept)
    est = LinearSVM(alpha=alpha, loss=loss, fit_intercept=fit_intercept, max_iter=max_iter,
                    random_state=0)
    with pytest.warns(ConvergenceWarning, match="certified duality gap"):
        est.fit(X, y)
    assert not est.converged_ and est.n_iter_ == max_iter
    J = assert_honest(est, X, y, None, J_ref)
    assert J - J_ref > 1e-6 * J_ref  # really stopped short: the bound had work to do


@pytest.mark.parametrize("loss", ["hinge", "squared_hinge"])
def test_integer_weights_are_repeated_rows_within_the_gaps(loss):
    X, y = problem(12, 40, 3, separable=False)
    counts = np.random.default_rng(12).integers(0, 4, size=40)
    counts[:2] = 1
    weighted = LinearSVM(alpha=0.02, loss=loss, tol=1e-10, max_iter=100_000,
                         random_state=0).fit(X, y, sample_weight=counts)
    repeated = LinearSVM(alpha=0.02, loss=loss, tol=1e-10, max_iter=100_000,
                         random_state=0).fit(X.repeat(counts, axis=0), y.repeat(counts))
    # each one's J on the other's data: the same function of (w, b)
    J_w = svm_objective(X, y, weighted.coef_[0], weighted.intercept_[0], 0.02, loss, counts)
    J_r = svm_objective(X, y, repeated.coef_[0], repeated.intercept_[0], 0.02, loss, counts)
    assert abs(J_w - J_r) <= weighted.gap_ + repeated.gap_ + EVALUATION * J_w


def test_zero_weights_are_removed_rows():
    X, y = problem(13, 50, 3, separable=False)
    weights = np.ones(50)
    weights[::4] = 0.0
    kept = weights > 0
    a = LinearSVM(alpha=0.02, random_state=5).fit(X, y, sample_weight=weights)
    b = LinearSVM(alpha=0.02, random_state=5).fit(X[kept], y[kept])
    assert np.array_equal(a.coef_, b.coef_) and np.array_equal(a.intercept_, b.intercept_)
    assert np.array_equal(a.dual_coef_[:, kept], b.dual_coef_)
    assert np.all(a.dual_coef_[:, ~kept] == 0.0)
