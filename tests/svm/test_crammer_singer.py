"""Crammer and Singer's multiclass SVM (the sequential dual method and its certified gap)
against independent oracles: scikit-learn's LinearSVC(multi_class="crammer_singer") without
intercepts, a QP solved by HiGHS with free intercepts, the subproblem's KKT conditions, and
the objective written out in NumPy."""

from __future__ import annotations

import highspy
import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.svm import LinearSVC

from halfspaces._fast import loop_input
from halfspaces._fast.svm_multiclass import crammer_singer_descent, solve_subproblem
from halfspaces._glm.crammer_singer import solve_crammer_singer


def cs_objective(W, b, X, y, alpha, weights=None):
    """J(W, b) = (1/n) sum_i s_i max(0, 1 + max_{m != y_i} z_im - z_iy) + alpha/2 ||W||^2."""
    X = X.toarray() if sp.issparse(X) else np.asarray(X, dtype=np.float64)
    n = len(y)
    Z = X @ np.asarray(W).T + b
    rows = np.arange(n)
    own = Z[rows, y].copy()
    Z[rows, y] = -np.inf
    losses = np.maximum(0.0, 1.0 + Z.max(axis=1) - own)
    s = np.ones(n) if weights is None else weights
    return float(np.sum(s * losses) / n + 0.5 * alpha * np.sum(np.asarray(W) ** 2))


def highs_optimum(X, y, k, alpha, fit_intercept, weights=None):
    """J* of the primal QP over (W, b, xi), solved by HiGHS; J evaluated at its W and b.

    Data far from unit size are solved in their own units (X / s, alpha / s^2 for s =
    max |x_ij|: the same problem with W scaled by s): HiGHS's absolute tolerances are made for
    numbers near one."""
    original = np.asarray(X, dtype=np.float64)
    unit = float(np.abs(original).max()) or 1.0
    unit = 1.0 if 1e-3 <= unit <= 1e3 else unit
    X, alpha_original, alpha = original / unit, alpha, alpha / unit**2
    n, d = X.shape
    s = np.ones(n) if weights is None else weights
    n_w, n_b = k * d, k if fit_intercept else 0
    n_cols = n_w + n_b + n
    inf = highspy.kHighsInf
    lp = highspy.HighsLp()
    lp.num_col_ = n_cols
    lp.col_cost_ = np.r_[np.zeros(n_w + n_b), s / n]
    lp.col_lower_ = np.r_[np.full(n_w + n_b, -inf), np.zeros(n)]
    lp.col_upper_ = np.full(n_cols, inf)
    rows, cols, vals = [], [], []
    r = 0
    for i in range(n):  # z_iy - z_im + xi_i >= 1 for m != y_i
        for m in range(k):
            if m == y[i]:
                continue
            for j in range(d):
                rows += [r, r]
                cols += [y[i] * d + j, m * d + j]
                vals += [X[i, j], -X[i, j]]
            if fit_intercept:
                rows += [r, r]
                cols += [n_w + y[i], n_w + m]
                vals += [1.0, -1.0]
            rows.append(r)
            cols.append(n_w + n_b + i)
            vals.append(1.0)
            r += 1
    A = sp.csc_matrix((vals, (rows, cols)), shape=(r, n_cols))
    lp.num_row_ = r
    lp.row_lower_ = np.ones(r)
    lp.row_upper_ = np.full(r, inf)
    lp.a_matrix_.format_ = highspy.MatrixFormat.kColwise
    lp.a_matrix_.start_ = A.indptr
    lp.a_matrix_.index_ = A.indices
    lp.a_matrix_.value_ = A.data
    lp.a_matrix_.num_col_ = n_cols
    lp.a_matrix_.num_row_ = r
    h = highspy.Highs()
    h.silent()
    h.passModel(lp)
    # objective 1/2 x^T Q x + c^T x: Q = alpha on the weights, zero on b and xi
    h.passHessian(n_cols, n_w, highspy.HessianFormat.kTriangular,
                  np.r_[np.arange(n_w + 1), np.full(n_cols - n_w, n_w)].astype(np.int32),
                  np.arange(n_w, dtype=np.int32), np.full(n_w, alpha))
    for key, value in {"primal_feasibility_tolerance": 1e-12,
                       "dual_feasibility_tolerance": 1e-12}.items():
        h.setOptionValue(key, value)
    h.run()
    assert h.modelStatusToString(h.getModelStatus()) == "Optimal"
    x = np.array(h.getSolution().col_value)
    W = x[:n_w].reshape(k, d) / unit
    b = x[n_w:n_w + n_b] if fit_intercept else np.zeros(k)
    return cs_objective(W, b, original, y, alpha_original, weights)


def blobs(n, d, k, seed, scale=1.0):
    """Overlapping Gaussian classes (the hinge is active on many rows), every class present."""
    rng = np.random.default_rng(seed)
    centres = 1.5 * rng.normal(size=(k, d))
    y = np.r_[np.arange(k), rng.integers(0, k, size=n - k)]
    X = (centres[y] + rng.normal(size=(n, d)) + 0.5) * scale
    return X, y


# ---------------------------------------------------------------- the per-example subproblem


@pytest.mark.parametrize("seed", range(40))
def test_the_subproblem_solution_meets_its_kkt_conditions(seed):
    # min sum_p (a/2 x_p^2 + B_p x_p), sum_p x_p = -(shrunk label's C), x_p <= bound_p: the
    # gradients a x_p + B_p all equal beta where x_p is below its bound, at most beta at it
    rng = np.random.default_rng(seed)
    k = int(rng.integers(2, 9))
    curvature = float(rng.uniform(0.01, 10.0))
    B = rng.normal(size=k) * rng.choice([0.01, 1.0, 100.0])
    upper = float(rng.choice([0.0, 1e-3, 1.0, 50.0]))
    y_pos = int(rng.integers(0, k + 1))  # k: the label is shrunk, held at its bound
    out = np.empty(k)
    solve_subproblem(curvature, B, k, y_pos, upper, np.empty(k), out)
    bounds = np.where(np.arange(k) == y_pos, upper, 0.0)
    target = -upper if y_pos >= k else 0.0
    scale = max(1.0, upper, np.abs(B).max() / curvature)
    assert np.all(out <= bounds)
    assert abs(out.sum() - target) <= 1e-12 * k * scale
    g = curvature * out + B
    beta = g.max()
    free = out < bounds
    assert np.all(np.abs(g[free] - beta) <= 1e-11 * curvature * scale)


# ---------------------------------------------------------------- against independent solvers


# the last case is weakly regularised (C = 4): dual coordinate descent needs thousands of
# passes there, LIBLINEAR as much as this loop, so it stops at J* (1 + 1e-7)
@pytest.mark.parametrize("n,d,k,alpha,seed,tol", [(200, 5, 3, None, 0, 1e-9),
                                                  (300, 8, 5, None, 1, 1e-9),
                                                  (150, 20, 4, 1e-1, 2, 1e-9),
                                                  (250, 3, 6, 1e-3, 3, 1e-7)])
def test_the_objective_matches_liblinears_crammer_singer_without_intercepts(n, d, k, alpha, seed,
                                                                            tol):
    X, y = blobs(n, d, k, seed)
    alpha = 1.0 / n if alpha is None else alpha
    run = solve_crammer_singer(X, y, k, alpha=alpha, fit_intercept=False, tol=tol,
                               max_iter=100_000, seed=seed)
    sk = LinearSVC(multi_class="crammer_singer", fit_intercept=False, C=1.0 / (alpha * n),
                   tol=1e-10, max_iter=1_000_000).fit(X, y)
    reference = cs_objective(sk.coef_, 0.0, X, y, alpha)
    ours = cs_objective(run.coef, run.intercept, X, y, alpha)
    assert run.converged
    assert_array_equal(run.intercept, 0.0)
    assert abs(ours - reference) <= 1e-6 * reference
    assert ours <= run.objective * (1 + 1e-12)  # the reported value bounds J from above
    assert ours - reference <= run.gap


@pytest.mark.parametrize("n,d,k,weighted,seed", [(40, 3, 3, False, 0), (60, 4, 4, True, 1),
                                                 (30, 2, 2, False, 2), (50, 5, 5, True, 3),
                                                 (45, 3, 3, True, 4)])
def test_the_objective_with_free_intercepts_matches_a_highs_qp(n, d, k, weighted, seed):
    X, y = blobs(n, d, k, seed)
    weights = np.random.default_rng(seed).uniform(0.2, 3.0, size=n) if weighted else None
    alpha = 1.0 / n
    run = solve_crammer_singer(X, y, k, alpha=alpha, fit_intercept=True, tol=1e-11,
                               max_iter=200_000, seed=seed, weights=weights)
    reference = highs_optimum(X, y, k, alpha, True, weights)
    ours = cs_objective(run.coef, run.intercept, X, y, alpha, weights)
    assert run.converged
    assert abs(ours - reference) <= 1e-8 * reference
    assert ours - reference <= run.gap
    # the intercepts matter here: the model without them is worse
    without = highs_optimum(X, y, k, alpha, False, weights)
    assert without > reference * (1 + 1e-6)


# ---------------------------------------------------------------- the gap's honesty


@pytest.mark.parametrize("fit_intercept", [False, True])
@pytest.mark.parametrize("max_iter", [1, 2, 5, 20, 100])
def test_the_gap_bounds_the_suboptimality_of_an_early_stop(fit_intercept, max_iter):
    X, y = blobs(50, 4, 4, seed=7)
    alpha = 1.0 / 50
    reference = highs_optimum(X, y, 4, alpha, fit_intercept)
    run = solve_crammer_singer(X, y, 4, alpha=alpha, fit_intercept=fit_intercept, tol=1e-14,
                               max_iter=max_iter, seed=3)
    ours = cs_objective(run.coef, run.intercept, X, y, alpha)
    assert run.n_iter <= max_iter
    assert run.gap >= 0.0
    assert ours - reference <= run.gap
    if not run.converged:
        assert run.gap > 1e-14 * run.objective


@pytest.mark.parametrize("scale", [1e-6, 1e-3, 1.0, 1e3, 1e6])
@pytest.mark.parametrize("fit_intercept", [False, True])
def test_the_gap_is_honest_across_scales_and_weights(scale, fit_intercept):
    X, y = blobs(40, 3, 3, seed=11, scale=scale)
    weights = np.random.default_rng(5).uniform(0.0, 2.0, size=40)
    weights[:3] = 0.0  # examples that count for nothing
    alpha = scale * scale / 40  # the same problem, W scaled by 1 / scale
    reference = highs_optimum(X, y, 3, alpha, fit_intercept, weights)
    for max_iter in (3, 10_000):
        run = solve_crammer_singer(X, y, 3, alpha=alpha, fit_intercept=fit_intercept,
                                   tol=1e-10, max_iter=max_iter, seed=0, weights=weights)
        ours = cs_objective(run.coef, run.intercept, X, y, alpha, weights)
        assert ours - reference <= run.gap
        if run.converged:
            assert run.gap <= 1e-10 * run.objective


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**16), k=st.integers(2, 5), log_scale=st.integers(-8, 8),
       log_alpha=st.integers(-2, 1), fit_intercept=st.booleans(), weighted=st.booleans(),
       separable=st.booleans(), max_iter=st.sampled_from([1, 4, 50, 20_000]))
def test_the_gap_is_honest_on_random_problems(seed, k, log_scale, log_alpha, fit_intercept,
                                               weighted, separable, max_iter):
    n = 12 * k
    X, y = blobs(n, 3, k, seed, scale=10.0**log_scale)
    if separable:  # spread the class centres far apart: every hinge can be met
        X += 20.0 * 10.0**log_scale * np.eye(k, 3)[y % 3] * (1 + y[:, None] // 3)
    weights = np.random.default_rng(seed).uniform(0.0, 3.0, size=n) if weighted else None
    # alpha in the data's units: scaling X by s and alpha by s^2 gives the same problem
    alpha = 10.0**log_alpha * 10.0 ** (2 * log_scale) / n
    reference = highs_optimum(X, y, k, alpha, fit_intercept, weights)
    run = solve_crammer_singer(X, y, k, alpha=alpha, fit_intercept=fit_intercept, tol=1e-9,
                               max_iter=max_iter, seed=seed, weights=weights)
    ours = cs_objective(run.coef, run.intercept, X, y, alpha, weights)
    assert ours - reference <= run.gap
    assert ours <= run.objective * (1 + 1e-12)
    if run.converged:
        assert run.gap <= 1e-9 * run.objective


def test_a_converged_run_has_its_gap_below_tol_and_a_zero_row_counts_fully():
    X, y = blobs(60, 3, 3, seed=4)
    X[:2] = 0.0  # loss 1 whatever W is (without intercepts): the dual must pay it in full
    alpha = 1.0 / 60
    for fit_intercept in (False, True):
        reference = highs_optimum(X, y, 3, alpha, fit_intercept)
        for tol in (1e-2, 1e-5, 1e-9):
            run = solve_crammer_singer(X, y, 3, alpha=alpha, fit_intercept=fit_intercept,
                                       tol=tol, max_iter=100_000, seed=1)
            ours = cs_objective(run.coef, run.intercept, X, y, alpha)
            assert run.converged
            assert run.gap <= tol * run.objective
            assert ours - reference <= run.gap


# ---------------------------------------------------------------- the dual point


@pytest.mark.parametrize("fit_intercept", [False, True])
def test_the_dual_is_feasible_and_gives_the_coefficients(fit_intercept):
    n, k = 120, 4
    X, y = blobs(n, 5, k, seed=8)
    weights = np.random.default_rng(8).uniform(0.5, 2.0, size=n)
    alpha = 0.5 / n
    run = solve_crammer_singer(X, y, k, alpha=alpha, fit_intercept=fit_intercept, tol=1e-8,
                               max_iter=100_000, seed=2, weights=weights)
    beta = run.dual
    rows = np.arange(n)
    own = beta[rows, y]
    others = beta.copy()
    others[rows, y] = 0.0
    assert np.all((own >= 0.0) & (own <= 1.0 + 1e-15))
    assert np.all((others <= 0.0) & (others >= -1.0))
    assert_allclose(beta.sum(axis=1), 0.0, atol=1e-15)
    C = weights / (alpha * n)
    assert_allclose(run.coef, (C[:, None] * beta).T @ X, rtol=1e-12, atol=1e-12)
    if fit_intercept:
        # sum_i C_i beta_im = 0 for every class: the free intercepts' constraints
        assert_allclose((C[:, None] * beta).sum(axis=0), 0.0, atol=1e-12 * C.sum())
        assert abs(run.intercept.sum()) <= 1e-9 * max(1.0, np.abs(run.intercept).max())
    else:
        assert np.abs((C[:, None] * beta).sum(axis=0)).max() > 1e-3  # unconstrained there


# ---------------------------------------------------------------- layouts and warm starts


def test_dense_and_csr_rows_give_the_same_loop_bit_for_bit_float32_too():
    X, y = blobs(200, 30, 5, seed=9)
    X[np.abs(X) < 1.0] = 0.0  # sparse enough that CSR skips many entries
    n, d, k = X.shape[0], X.shape[1], 5
    X32 = X.astype(np.float32)
    X64 = X32.astype(np.float64)
    qdiag = np.einsum("ij,ij->i", X64, X64)
    results = []
    for rows in (X64, loop_input(sp.csr_matrix(X64)), X32, loop_input(sp.csr_matrix(X32))):
        A, Wt, lagrange = np.zeros((n, k)), np.zeros((d, k)), np.zeros((2, k))
        passes, _ = crammer_singer_descent(rows, y, qdiag, np.full(n, 0.7), A, Wt, lagrange,
                                           2.0, 5, 50, 1e-3)
        results.append((passes, A, Wt, lagrange))
    for other in results[1:]:
        assert other[0] == results[0][0]
        for a, b in zip(other[1:], results[0][1:], strict=True):
            assert_array_equal(a, b)
    X32 = X.astype(np.float32)
    runs = [solve_crammer_singer(data, y, k, alpha=1.0 / n, fit_intercept=True, tol=1e-6,
                                 max_iter=10_000, seed=0)
            for data in (X32, sp.csr_matrix(X32), X32.astype(np.float64))]
    for other in runs[1:]:
        assert other.n_iter == runs[0].n_iter
        assert_allclose(other.coef, runs[0].coef, rtol=1e-12, atol=1e-14)
        assert_allclose(other.intercept, runs[0].intercept, rtol=1e-12, atol=1e-14)
        # the gap is a difference of sums larger than J (the dual's terms cancel): equal up
        # to their rounding, which is far below J
        assert abs(other.gap - runs[0].gap) <= 1e-9 * runs[0].objective


def test_a_warm_start_at_a_new_alpha_reaches_the_cold_optimum():
    X, y = blobs(100, 4, 3, seed=12)
    n = 100
    first = solve_crammer_singer(X, y, 3, alpha=1.0 / n, fit_intercept=True, tol=1e-8,
                                 max_iter=100_000, seed=0)
    warm = solve_crammer_singer(X, y, 3, alpha=0.3 / n, fit_intercept=True, tol=1e-9,
                                max_iter=100_000, seed=0, start=first)
    reference = highs_optimum(X, y, 3, 0.3 / n, True)
    ours = cs_objective(warm.coef, warm.intercept, X, y, 0.3 / n)
    assert warm.converged
    assert abs(ours - reference) <= 1e-8 * reference
    # the same alpha again: the start is already certified, a few passes stop the loop (a label
    # variable that the certificate moved by an ulp below C_i counts as free, so the first
    # pass sees a violation and puts it back)
    again = solve_crammer_singer(X, y, 3, alpha=0.3 / n, fit_intercept=True, tol=1e-8,
                                 max_iter=100_000, seed=0, start=warm)
    assert again.converged
    assert again.n_iter <= 5
