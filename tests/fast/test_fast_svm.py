"""The SVM's dual coordinate descent loop against the optimality conditions and a QP solver.

These run a second time without the JIT in CI (every test in tests/fast/), so each line
of the compiled loop is also exercised as Python; the problems are small for that reason.
The oracles are independent of the loop: the KKT conditions of the dual, recomputed here in
NumPy, and the dual QP solved by HiGHS.
"""

from __future__ import annotations

import highspy
import numpy as np
import pytest
import scipy.sparse as sp
from numpy.testing import assert_allclose

from halfspaces._fast import loop_input
from halfspaces._fast.svm import dual_coordinate_descent


def noisy_problem(seed, n=60, d=4):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = np.where(X @ rng.normal(size=d) + 0.3 + 0.5 * rng.normal(size=n) > 0, 1.0, -1.0)
    return X, y


def run_loop(X, y, C, loss, rho_scale, max_epochs=20_000, eps=1e-10, seed=3):
    n = X.shape[0]
    dense = X.toarray() if sp.issparse(X) else X
    sq = np.einsum("ij,ij->i", dense, dense)
    upper, diag = ((np.full(n, C), np.zeros(n)) if loss == "hinge"
                   else (np.full(n, np.inf), np.full(n, 0.5 / C)))
    rho = rho_scale * float(np.mean(sq))
    a, w, lagrange = np.zeros(n), np.zeros(X.shape[1]), np.zeros(2)
    passes, spread = dual_coordinate_descent(loop_input(X), y, sq + diag + rho, upper, diag,
                                             a, w, lagrange, rho, seed, max_epochs, eps)
    return a, w, lagrange[0] + rho * lagrange[1], passes, spread, upper, diag


def dual_qp_value(X, y, upper, diag, with_constraint):
    """min 1/2 a^T (Q + D) a - sum a over the box (and sum y a = 0), by HiGHS."""
    n = X.shape[0]
    Z = X * y[:, None]
    H = sp.csc_matrix(Z @ Z.T + np.diag(diag))
    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    h.addVars(n, np.zeros(n), np.where(np.isfinite(upper), upper, highspy.kHighsInf))
    h.changeColsCost(n, np.arange(n, dtype=np.int32), -np.ones(n))
    if with_constraint:
        h.addRow(0.0, 0.0, n, np.arange(n, dtype=np.int32), y)
    lower = sp.tril(H).tocsc()  # HiGHS reads the lower triangle, column by column
    h.passHessian(n, lower.nnz, 1, lower.indptr.astype(np.int32),
                  lower.indices.astype(np.int32), lower.data)
    h.run()
    return h.getInfo().objective_function_value


def dual_value(X, y, a, diag):
    v = X.T @ (a * y)
    return 0.5 * v @ v + 0.5 * np.sum(diag * a * a) - a.sum()


@pytest.mark.parametrize("loss", ["hinge", "squared_hinge"])
@pytest.mark.parametrize("with_intercept", [False, True])
def test_the_loop_reaches_the_dual_optimum_and_its_kkt_conditions(loss, with_intercept):
    X, y = noisy_problem(0)
    C = 0.5
    a, w, b, passes, spread, upper, diag = run_loop(X, y, C, loss, 0.1 if with_intercept else 0.0)
    assert passes < 20_000
    # the dual point is in its box, w is its image, and the constraint holds
    assert np.all(a >= 0.0) and np.all(a <= upper)
    assert_allclose(w, X.T @ (a * y), atol=1e-12)
    if with_intercept:
        assert abs(np.sum(y * a)) <= 1e-9
    else:
        assert b == 0.0
    # KKT: gradient >= 0 at a = 0, <= 0 at the upper bound, 0 in between
    g = y * (X @ w + b) - 1.0 + diag * a
    at_zero, at_top = a == 0.0, a == upper
    free = ~at_zero & ~at_top
    assert np.all(g[at_zero] >= -1e-8) and np.all(g[at_top] <= 1e-8)
    assert_allclose(g[free], 0.0, atol=1e-8)
    # the dual optimum of an independent QP solver
    want = dual_qp_value(X, y, upper, diag, with_intercept)
    assert dual_value(X, y, a, diag) == pytest.approx(want, rel=1e-7, abs=1e-9)


def test_dense_and_csr_rows_reach_the_same_point():
    X, y = noisy_problem(1)
    X[np.abs(X) < 0.5] = 0.0
    dense = run_loop(X, y, 1.0, "hinge", 0.1)
    sparse = run_loop(sp.csr_matrix(X), y, 1.0, "hinge", 0.1)
    assert_allclose(sparse[0], dense[0], atol=1e-9)
    assert sparse[2] == pytest.approx(dense[2], abs=1e-9)


def test_more_passes_never_raise_the_dual_objective():
    """Each coordinate step minimises the dual exactly along its coordinate (rho = 0)."""
    X, y = noisy_problem(2)
    values = []
    for passes in (1, 2, 4, 8, 16):
        a, _, _, done, _, _, diag = run_loop(X, y, 2.0, "hinge", 0.0, max_epochs=passes,
                                             eps=0.0)
        assert done == passes
        values.append(dual_value(X, y, a, diag))
    assert all(later <= earlier + 1e-12 for earlier, later in zip(values, values[1:], strict=False))


def test_the_hard_margin_limit_on_separable_data_has_the_max_margin():
    rng = np.random.default_rng(5)
    X = rng.normal(size=(60, 3))
    u = np.array([1.0, -2.0, 0.5]) / np.sqrt(5.25)
    X = X[np.abs(X @ u - 0.1) > 0.3]  # a gap of 0.6 around the plane <u, x> = 0.1
    y = np.where(X @ u > 0.1, 1.0, -1.0)
    n = X.shape[0]
    sq = np.einsum("ij,ij->i", X, X)
    rho = 0.1 * sq.mean()
    a, w, lagrange = np.zeros(n), np.zeros(3), np.zeros(2)
    dual_coordinate_descent(loop_input(X), y, sq + rho, np.full(n, np.inf), np.zeros(n), a, w,
                            lagrange, rho, 0, 100_000, 1e-10)
    b = lagrange[0] + rho * lagrange[1]
    margins = y * (X @ w + b)
    # the hard-margin solution: every margin >= 1, the support vectors' exactly 1, and
    # 1/||w|| is the largest geometric margin, which no direction tried beats
    assert margins.min() == pytest.approx(1.0, abs=1e-7)
    best = margins.min() / np.linalg.norm(w)
    for _ in range(200):
        v = rng.normal(size=3)
        scores = X @ v
        lo, hi = scores[y < 0].max(), scores[y > 0].min()
        assert (hi - lo) / 2 / np.linalg.norm(v) <= best + 1e-9
