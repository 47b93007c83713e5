"""Independent oracles for the exact solvers, theory, ERM and SGD tests: plain NumPy, SciPy
and scikit-learn, never our own solvers."""

from __future__ import annotations

import itertools
from fractions import Fraction

import numpy as np
import scipy.sparse as sp
from scipy.optimize import linprog, nnls


def signed(X, y, fit_intercept):
    X = X.toarray() if sp.issparse(X) else np.asarray(X, dtype=float)
    y = np.asarray(y, dtype=float)
    Xa = np.hstack([np.ones((X.shape[0], 1)), X]) if fit_intercept else X
    return y[:, None] * Xa


def linprog_separable(X, y, fit_intercept=True):
    """Feasibility of y_i <w', x'_i> >= 1 by scipy.optimize.linprog."""
    Z = signed(X, y, fit_intercept)
    res = linprog(np.zeros(Z.shape[1]), A_ub=-Z, b_ub=-np.ones(Z.shape[0]),
                  bounds=(None, None), method="highs")
    assert res.status in (0, 2), res.message
    return res.status == 0


def min_norm_point(Z):
    """p*, the minimum-norm point of conv{z_i}, by NNLS (Lawson-Hanson).

    For separable rows, w* = p* / ||p*||^2 solves min ||w|| s.t. <w, z_i> >= 1 (the
    homogeneous hard margin), so its margin gamma' = 1/B is ||p*||.
    """
    weight = 1e4
    system = np.vstack([Z.T, weight * np.ones((1, Z.shape[0]))])
    rhs = np.r_[np.zeros(Z.shape[1]), weight]
    a, _ = nnls(system, rhs, maxiter=50 * Z.shape[0])
    a /= a.sum()
    return Z.T @ a


def min_norm_point_norm(Z):
    """||p*||: the margin gamma' = 1/B of the homogeneous hard-margin problem."""
    return float(np.linalg.norm(min_norm_point(Z)))


def freund_schapire_by_hand(X, y, u, gamma, fit_intercept=True):
    """((R + D) / gamma)^2 written out with plain NumPy (Freund and Schapire 1999, Thm 2)."""
    Z = signed(X, y, fit_intercept)
    R = float(np.sqrt(np.max(np.sum(Z * Z, axis=1))))
    D = float(np.sqrt(np.sum(np.maximum(0.0, gamma - Z @ np.asarray(u)) ** 2)))
    return ((R + D) / gamma) ** 2


def brute_force_errors(X, y, fit_intercept):
    """Fewest points whose removal leaves a separable set (linprog), enumerating subsets."""
    n = len(y)
    for k in range(n + 1):
        for removed in itertools.combinations(range(n), k):
            keep = np.setdiff1d(np.arange(n), removed)
            if keep.size == 0 or linprog_separable(X[keep], y[keep], fit_intercept):
                return k
    return n


def weighted_hinge_linprog(X, y, weights, fit_intercept=True):
    """min over (w, b) of the weighted mean hinge loss sum_i c_i s_i / sum_i c_i, by
    scipy.optimize.linprog with one slack per row (Bennett and Mangasarian 1992)."""
    Z = signed(X, y, fit_intercept)
    n, p = Z.shape
    c = np.asarray(weights, dtype=float)
    res = linprog(np.r_[np.zeros(p), c / c.sum()], A_ub=-np.hstack([Z, np.eye(n)]),
                  b_ub=-np.ones(n), bounds=[(None, None)] * p + [(0, None)] * n,
                  method="highs")
    assert res.status == 0, res.message
    return float(res.fun)


def brute_force_weighted_errors(X, y, weights, fit_intercept):
    """The lightest set of rows whose removal leaves a separable set: every subset, in
    order of its weight, until linprog finds the rest separable."""
    n = len(y)
    weights = np.asarray(weights, dtype=float)
    subsets = [removed for k in range(n + 1) for removed in itertools.combinations(range(n), k)]
    subsets.sort(key=lambda removed: weights[list(removed)].sum())
    for removed in subsets:
        keep = np.setdiff1d(np.arange(n), removed)
        if keep.size == 0 or linprog_separable(X[keep], y[keep], fit_intercept):
            return float(weights[list(removed)].sum())
    raise AssertionError("unreachable: removing every row leaves a separable set")


def milp_weighted_errors(X, y, weights, fit_intercept, tau=1e-5):
    """The least weight of errors by scipy.optimize.milp: w' in the box [-1, 1], one binary
    e_i per row, y_i <w', x'_i> >= tau - (tau + ||x'_i||_1) e_i, minimise sum_i c_i e_i."""
    from scipy.optimize import Bounds, LinearConstraint, milp

    Z = signed(X, y, fit_intercept)
    n, p = Z.shape
    big = tau + np.abs(Z).sum(axis=1)
    res = milp(np.r_[np.zeros(p), np.asarray(weights, dtype=float)],
               constraints=LinearConstraint(np.hstack([Z, np.diag(big)]), tau, np.inf),
               integrality=np.r_[np.zeros(p), np.ones(n)],
               bounds=Bounds(np.r_[-np.ones(p), np.zeros(n)], np.ones(p + n)),
               options={"mip_rel_gap": 0.0})
    assert res.status == 0, res.message
    return float(res.fun)


def check_certificate(X, y, a, fit_intercept=True):
    Z = signed(X, y, fit_intercept)
    assert a.shape == (Z.shape[0],)
    assert np.all(a >= 0)
    assert abs(a.sum() - 1) <= 1e-12
    # relative to each column's size: an absolute 1e-9 once passed a false certificate on
    # data of scale 1e-10 (the features' residual 2.5e-10 hid under the intercept's 1)
    assert np.all(np.abs(Z.T @ a) <= 1e-9 * np.abs(Z).max(axis=0))


def perceptron_separates(X, y, fit_intercept=True, epochs=100_000):
    """Plain NumPy perceptron (Rosenblatt 1958): True once a pass makes no mistake."""
    Z = signed(X, y, fit_intercept)
    w = np.zeros(Z.shape[1])
    for _ in range(epochs):
        mistakes = 0
        for z in Z:
            if z @ w <= 0:
                w += z
                mistakes += 1
        if mistakes == 0:
            return True
    return False


def one_hot_sample(rng, n, n_categories=(3, 4), numeric_scale=1.0, gap=0.3):
    """Separable data of one-hot columns (every category present, so each block sums to the
    constant feature: the columns are linearly dependent) and two numeric columns of size
    ``numeric_scale`` (raw units, as in census data), labelled by a random hyperplane."""
    blocks = [np.eye(k)[np.r_[np.arange(k), rng.integers(0, k, 4 * n - k)]]
              for k in n_categories]
    numeric = (rng.standard_normal((4 * n, 2)) + 3.0) * numeric_scale
    X = np.hstack(blocks + [numeric])
    w = rng.standard_normal(X.shape[1])
    w[-2:] /= numeric_scale
    s = X @ w
    s -= np.median(s)
    keep = np.flatnonzero(np.abs(s) >= gap)
    keep = np.r_[keep[: n - 1], keep[-1]]
    return X[keep], np.where(s[keep] > 0, 1, -1)



def separable_sample(rng, n, d, gap=0.1, scale=1.0, fit_intercept=True):
    """Gaussian points labelled by a random hyperplane, the band |margin| < gap removed."""
    X = rng.standard_normal((4 * n, d)) * scale
    w = rng.standard_normal(d)
    w /= np.linalg.norm(w)
    b = rng.uniform(-0.5, 0.5) * scale if fit_intercept else 0.0
    s = X @ w + b
    keep = np.flatnonzero(np.abs(s) >= gap * scale)[:n]
    return X[keep], np.where(s[keep] > 0, 1, -1)


def noisy_sample(rng, n, d, flip=0.1):
    X = rng.standard_normal((n, d))
    y = np.where(X @ rng.standard_normal(d) + 0.2 > 0, 1, -1)
    y[rng.random(n) < flip] *= -1
    return X, y


def hull_half_distance(X, y):
    """Half the distance between the convex hulls of the two classes, by NNLS.

    For separable data it equals the margin of the maximum-margin affine hyperplane.
    """
    X, y = np.asarray(X, dtype=float), np.asarray(y)
    P, N = X[y == 1], X[y == -1]
    weight = 1e4
    system = np.block([
        [P.T, -N.T],
        [weight * np.ones((1, len(P))), np.zeros((1, len(N)))],
        [np.zeros((1, len(P))), weight * np.ones((1, len(N)))],
    ])
    rhs = np.r_[np.zeros(X.shape[1]), weight, weight]
    c, _ = nnls(system, rhs, maxiter=50 * len(X))
    a, b = c[: len(P)] / c[: len(P)].sum(), c[len(P):] / c[len(P):].sum()
    return float(np.linalg.norm(P.T @ a - N.T @ b)) / 2


def exact_null_vector(rows):
    """A nonzero a with sum_i a_i x_i = 0 in rational arithmetic (Fractions), or None.

    Gauss-Jordan elimination on the columns of the rows, every float read exactly.
    """
    A = [[Fraction(float(v)) for v in column] for column in np.asarray(rows, float).T]
    m = len(A[0]) if A else np.asarray(rows).shape[0]
    pivots, r = [], 0
    for c in range(m):
        p = next((i for i in range(r, len(A)) if A[i][c] != 0), None)
        if p is None:
            continue
        A[r], A[p] = A[p], A[r]
        for i in range(len(A)):
            if i != r and A[i][c] != 0:
                f = A[i][c] / A[r][c]
                A[i] = [x - f * y for x, y in zip(A[i], A[r], strict=True)]
        pivots.append(c)
        r += 1
    free = [c for c in range(m) if c not in pivots]
    if not free:
        return None
    a = [Fraction(0)] * m
    a[free[0]] = Fraction(1)
    for i, c in enumerate(pivots):
        a[c] = -A[i][free[0]] / A[i][c]
    return a


def _pm(y):
    y = np.asarray(y)
    return np.where(y == y.max(), 1, -1)


def exact_signed_rows(X, y, fit_intercept):
    """The rows y_i x'_i as lists of Fractions: the float64 values exactly."""
    X = X.toarray() if sp.issparse(X) else np.asarray(X, dtype=float)
    rows = []
    for x, label in zip(X.tolist(), _pm(y).tolist(), strict=True):
        x = ([1.0] if fit_intercept else []) + x
        rows.append([label * Fraction(v) for v in x])
    return rows


def exact_certificate_holds(X, y, a, fit_intercept=True):
    """Whether the rows on a's support combine to 0 exactly with weights >= 0 that are a,
    to rounding: the exact null vector of those rows (Fractions), which must be unique
    up to scale (a basic certificate), of one sign, and a once normalised and rounded."""
    a = np.asarray(a, dtype=float)
    support = np.flatnonzero(a > 0)
    v = exact_null_vector(signed(X, _pm(y), fit_intercept)[support])
    if v is None:
        return False
    total = sum(v)
    if total == 0 or min(x / total for x in v) < 0:
        return False
    return np.allclose([float(x / total) for x in v], a[support], rtol=1e-12, atol=0)


def exact_least_score(X, y, coef, intercept, fit_intercept=True):
    """min_i y_i (<w, x_i> + b) in exact rational arithmetic, w and b as float64 values."""
    w = ([Fraction(float(intercept))] if fit_intercept else []) + [
        Fraction(float(v)) for v in np.asarray(coef)]
    return min(sum(wj * zj for wj, zj in zip(w, row, strict=True))
               for row in exact_signed_rows(X, y, fit_intercept))


def svm_objective(X, y, coef, intercept, alpha, loss, weights=None):
    """J(w, b) = sum_i s_i loss_i / sum_i s_i + alpha/2 ||w||^2, written out in NumPy (the
    sums by math.fsum), for y in {-1, +1}."""
    import math

    X = X.toarray() if sp.issparse(X) else np.asarray(X, dtype=np.float64)
    s = np.ones(X.shape[0]) if weights is None else np.asarray(weights, dtype=np.float64)
    slack = np.maximum(0.0, 1.0 - y * (X @ coef + intercept))
    losses = slack if loss == "hinge" else slack * slack
    return (math.fsum((s * losses).tolist()) / math.fsum(s.tolist())
            + alpha / 2.0 * math.fsum((coef * coef).tolist()))


def qp_svm(X, y, alpha, loss, fit_intercept, weights=None, require_optimal=True):
    """The soft-margin SVM's primal as a convex QP solved by HiGHS: (w, b, J(w, b)).

    min 1/2 ||w||^2 + sum_i C_i xi_i (hinge; sum_i C_i xi_i^2 for the squared hinge)
    subject to y_i (<w, x_i> + b) + xi_i >= 1, xi_i >= 0, with C_i = s_i / (alpha S): J is
    alpha times it (Cortes and Vapnik 1995). b is free, or fixed at 0 without an intercept.
    """
    import highspy

    X = X.toarray() if sp.issparse(X) else np.asarray(X, dtype=np.float64)
    n, d = X.shape
    s = np.ones(n) if weights is None else np.asarray(weights, dtype=np.float64)
    C = s / (alpha * s.sum())
    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    for option in ("primal_feasibility_tolerance", "dual_feasibility_tolerance"):
        h.setOptionValue(option, 1e-10)
    inf = highspy.kHighsInf
    nv = d + 1 + n  # w, b, xi
    free_b = inf if fit_intercept else 0.0
    h.addVars(nv, np.r_[np.full(d, -inf), -free_b, np.zeros(n)],
              np.r_[np.full(d, inf), free_b, np.full(n, inf)])
    cost = np.r_[np.zeros(d + 1), C if loss == "hinge" else np.zeros(n)]
    h.changeColsCost(nv, np.arange(nv, dtype=np.int32), cost)
    A = sp.hstack([sp.diags(y) @ sp.csr_matrix(X), sp.csr_matrix(y[:, None]),
                   sp.identity(n)]).tocsr()
    h.addRows(n, np.ones(n), np.full(n, inf), A.nnz, A.indptr[:-1].astype(np.int32),
              A.indices.astype(np.int32), A.data)
    hessian = sp.diags(np.r_[np.ones(d), 0.0, 2.0 * C if loss != "hinge" else np.zeros(n)])
    hessian = hessian.tocsc()
    h.passHessian(nv, hessian.nnz, 1, hessian.indptr.astype(np.int32),
                  hessian.indices.astype(np.int32), hessian.data)
    h.run()
    # J(w, b) at any point of HiGHS's is >= J*: without the proof it is an upper bound only
    assert not require_optimal or h.modelStatusToString(h.getModelStatus()) == "Optimal"
    solution = np.array(h.getSolution().col_value)
    w, b = solution[:d], float(solution[d])
    return w, b, svm_objective(X, y, w, b, alpha, loss, s)


def svm_qp_objective(X, y, alpha, loss, fit_intercept, weights=None):
    """J* in the solver's convention, J = (1/n) sum_i s_i loss_i + alpha/2 ||w||^2 (C_i =
    s_i / (alpha n)), by HiGHS: it is (S/n) times the weighted mean's J at alpha n / S. An
    upper bound on J* where HiGHS does not prove its point optimal (tiny scales)."""
    n = len(y)
    total = float(n if weights is None else np.sum(weights))
    return total / n * qp_svm(X, y, alpha * n / total, loss, fit_intercept, weights,
                              require_optimal=False)[2]


def sgd_regressor_twin(X, y, chunks, seed, **params):
    """scikit-learn's SGDRegressor fed the rows in the order ours visits them: each chunk
    in the permutation our partial_fit draws from RandomState(seed), no shuffling of its own.

    Its average=n averages the iterates from the n-th step on; ours starts averaging with
    the second partial_fit call, after the first chunk's steps.
    """
    from sklearn.linear_model import SGDRegressor

    first = len(chunks[0]) + 1 if params.pop("average") else False
    sk = SGDRegressor(loss="squared_error", penalty="l2", shuffle=False, tol=None,
                      average=first, **params)
    rng = np.random.RandomState(seed)
    for rows in chunks:
        order = rows[rng.permutation(len(rows))]
        sk.partial_fit(X[order], y[order])
    return sk
