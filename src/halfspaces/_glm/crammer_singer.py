"""Crammer and Singer's multiclass SVM by the sequential dual method, stopped on a certified gap.

The estimator's objective, for k classes, W (k, d) and intercepts b (k,), is

    J(W, b) = (1/n) sum_i s_i max(0, 1 + max_{m != y_i} z_im - z_{i y_i}) + alpha/2 ||W||_F^2,

z_im = <w_m, x_i> + b_m, s_i the example weights (ones by default), the intercepts not
penalised (LIBLINEAR and scikit-learn penalise them). It is alpha times Crammer and Singer's
primal [1]_ P(W, b) = 1/2 ||W||_F^2 + sum_i C_i xi_i with C_i = s_i / (alpha n), the scale of
LIBLINEAR's ``-s 4``, whose dual the compiled loop (:mod:`halfspaces._fast.svm_multiclass`)
solves by the sequential dual method of [2]_, the k constraints that the free intercepts add
to the dual kept by the method of multipliers. The loop stops on its per-example violations
(LIBLINEAR's rule); this driver then evaluates the duality gap at the point reached, bounded
against rounding (:mod:`halfspaces._glm.gaps`), and goes on with a tighter loop tolerance
until the gap is at most ``tol`` times J or the passes run out.

The certificate (:func:`crammer_singer_gap`). Writing the dual with the multipliers
lambda_im >= 0 of the constraints z_{i y_i} - z_im >= 1 - xi_i (m != y_i), any lambda with
sum_{m != y_i} lambda_im <= C_i for every i gives, for every intercept vector b,

    P(W, b) >= D(lambda) - <b, r>,   D = sum_im lambda_im - 1/2 ||W(lambda)||_F^2,

w_m(lambda) = sum_i ([y_i = m] Lambda_i - lambda_im) x_i, Lambda_i = sum_{m != y_i} lambda_im,
r_m = sum_i ([y_i = m] Lambda_i - lambda_im) the intercepts' residuals. The loop's point is
made feasible first (negative parts clipped, a row whose sum exceeds C_i scaled into it), then
scaled per class to bring r to rounding level (one k x k least-squares solve: the scale t with
sum_c N_mc t_c = P_m t_m, N_mc the lambda_im of class-c examples, P_m the Lambda_i of class m;
a class scale at most one keeps every row feasible). What remains of r costs |<b*, r>| for an
optimal b*; since sum_m r_m = 0 exactly, b* may be shifted to its midrange, and there is an
optimal b* whose sorted values are never more than 1 + max_{i,m,m'} |<w*_m - w*_m', x_i>| apart
(a larger gap between two groups of classes can be closed without raising any example's loss),
so |<b*, r>| <= (k - 1) (1 + 2 sqrt(sum_i C_i) max_i ||x_i||) ||r||_1 / 2, using
||W*||_F^2 / 2 <= P* <= P(0, 0) = sum_i C_i.

References
----------
.. [1] K. Crammer and Y. Singer. On the algorithmic implementation of multiclass kernel-based
   vector machines. JMLR 2, 2001.
.. [2] S. S. Keerthi, S. Sundararajan, K.-W. Chang, C.-J. Hsieh and C.-J. Lin. A sequential
   dual method for large scale multi-class linear SVMs. KDD 2008.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from numpy.typing import NDArray

from halfspaces._fast import loop_input
from halfspaces._fast.svm_multiclass import crammer_singer_descent, squared_norms
from halfspaces._glm.gaps import (
    UNIT_ROUNDOFF,
    dot_errors,
    gamma,
    lower_sum,
    squared_norm_upper,
    up,
    upper_sum,
)

__all__ = ["CrammerSingerRun", "crammer_singer_gap", "solve_crammer_singer"]

# LIBLINEAR's default loop tolerance, where the first round starts
_FIRST_EPS = 0.1
# the loop's tolerance is never set below this: violations are margins (scale 1), and float64
# cannot resolve them more finely
_LAST_EPS = 1e-13


@dataclass(frozen=True)
class CrammerSingerRun:
    """What a run of the sequential dual method reached.

    ``coef`` (k, d) and ``intercept`` (k,) are the primal point, ``intercept`` summing to
    about zero from a cold start, to the start's sum from a warm one (the problem is invariant
    to a common shift of the intercepts). ``dual`` (n, k)
    holds beta_im = A_im / C_i: beta_{i y_i} in [0, 1], beta_im in [-1, 0] otherwise, each row
    summing to zero (up to rounding), so that W = (1 / (alpha n)) sum_i s_i x_i beta_i^T with
    s_i the example weights; with intercepts, sum_i s_i beta_im = 0 for every class m (up to
    rounding). ``objective`` is J(coef, intercept) and ``gap`` a certified upper bound on
    ``objective - J*``, both bounded against rounding.
    """

    coef: NDArray
    intercept: NDArray
    dual: NDArray
    n_iter: int
    objective: float
    gap: float
    converged: bool


def solve_crammer_singer(X, y_index: NDArray, n_classes: int, *, alpha: float,
                         fit_intercept: bool, tol: float, max_iter: int, seed: int,
                         weights: NDArray | None = None,
                         start: CrammerSingerRun | None = None) -> CrammerSingerRun:
    """Minimise J by the sequential dual method until the certified gap is at most tol * J.

    ``X`` a validated dense array or CSR matrix (float32 or float64); ``y_index`` the class
    index of each row, in ``range(n_classes)``; ``weights`` (default ones) scale each example's
    C_i; ``start`` warm-starts from an earlier run on the same rows (its dual is scale-free, so
    a new alpha keeps it, clipped into the new box); ``max_iter`` bounds the passes over the
    data, all rounds together; ``seed`` seeds the loop's order.
    """
    n = X.shape[0]
    labels = np.asarray(y_index, dtype=np.int64)
    weights = np.ones(n) if weights is None else np.asarray(weights, dtype=np.float64)
    C = weights / (alpha * n)
    rows = loop_input(X)
    sq_norms = squared_norms(rows)
    # the multipliers' step: of the curvature's scale, so that the per-example steps are neither
    # frozen by the penalty (rho >> |x|^2) nor the constraints slow to close
    rho = (0.1 * float(np.mean(sq_norms)) or 1.0) if fit_intercept else 0.0
    A, lagrange = _starting_point(start, labels, n_classes, C, rho, fit_intercept)
    Wt = np.ascontiguousarray(_transpose_times(X, A))
    eps, done = _FIRST_EPS, 0
    while True:
        passes, _ = crammer_singer_descent(rows, labels, sq_norms, C, A, Wt, lagrange, rho,
                                           seed + done, max_iter - done, eps)
        done += int(passes)
        b = lagrange[0] + rho * lagrange[1] if fit_intercept else np.zeros(n_classes)
        objective, gap, coef, certified = crammer_singer_gap(
            X, labels, A, b, alpha=alpha, C=C, fit_intercept=fit_intercept)
        converged = gap <= tol * objective
        if converged or done >= max_iter or eps <= _LAST_EPS:
            break
        eps = max(eps / 10.0, _LAST_EPS)
    dual = np.divide(certified, C[:, None], out=np.zeros_like(certified), where=C[:, None] > 0)
    return CrammerSingerRun(coef=coef, intercept=np.array(b, dtype=np.float64), dual=dual,
                            n_iter=done, objective=objective, gap=gap, converged=converged)


def _starting_point(start, labels, k, C, rho, fit_intercept):
    """(A, (mu, s)) to start from: zeros, or an earlier run's dual scaled into this run's box,
    with s recomputed and mu chosen so that the intercepts start at the earlier ones."""
    lagrange = np.zeros((2, k))
    if start is None:
        return np.zeros((len(labels), k)), lagrange
    A = _dual_point(_feasible(np.asarray(start.dual) * C[:, None], labels, C), labels)
    if fit_intercept:
        lagrange[1] = A.sum(axis=0)
        lagrange[0] = np.asarray(start.intercept, dtype=np.float64) - rho * lagrange[1]
    return A, lagrange


def _transpose_times(X, A: NDArray) -> NDArray:
    """X^T A in float64, (d, k)."""
    return np.asarray(X.T @ A, dtype=np.float64)


def crammer_singer_gap(X, labels: NDArray, A: NDArray, b: NDArray, *, alpha: float,
                       C: NDArray, fit_intercept: bool) -> tuple[float, float, NDArray, NDArray]:
    """(J(W, b) bounded above, a certified bound on J(W, b) - J*, W (k, d), the dual point A).

    ``A`` (n, k) is the loop's dual point (A_im = -lambda_im off the label), made feasible
    here; W = sum_i x_i A_i^T is evaluated from the feasible point, which is returned (see
    the module notes for the bound).
    """
    n, k = A.shape
    lam = _feasible(A, labels, C)
    if fit_intercept:
        lam = _balanced(lam, labels, k)
    certified = _dual_point(lam, labels)
    W = _transpose_times(X, certified)
    primal = _primal_upper(X, labels, W, b, C)
    dual = _dual_lower(X, lam, certified, W)
    intercept_term = 0.0
    if fit_intercept:
        intercept_term = _intercept_term(X, labels, certified, C)
    gap_scaled = up(up(primal - dual) + intercept_term)
    # J = alpha P: one more rounding each
    return up(alpha * primal), up(alpha * max(gap_scaled, 0.0)), W.T.copy(), certified


def _feasible(A: NDArray, labels: NDArray, C: NDArray) -> NDArray:
    """lambda (n, k) >= 0, zero at the labels, with sum_m lambda_im <= C_i exactly.

    A computed row sum S is within gamma_{k} S of the exact one, and exact when the row has one
    nonzero (the usual case at the bound: one competing class); a row whose bound exceeds C_i
    is scaled by C_i / bound (1 - 8u), which leaves room for the rounding of the division and
    of the products (each within u)."""
    rows = np.arange(A.shape[0])
    lam = np.clip(-np.asarray(A, dtype=np.float64), 0.0, None)
    lam[rows, labels] = 0.0
    sums = lam.sum(axis=1)
    bound = np.where(np.count_nonzero(lam, axis=1) <= 1, sums,
                     np.nextafter(sums * (1.0 + 2.0 * gamma(A.shape[1])), np.inf))
    over = bound > C
    if over.any():
        scale = C[over] / bound[over] * (1.0 - 8.0 * UNIT_ROUNDOFF)
        lam[over] *= scale[:, None]
    return lam


def _balanced(lam: NDArray, labels: NDArray, k: int) -> NDArray:
    """lambda scaled per class of example so that the residuals r vanish up to rounding.

    Scales never exceed one (rounding is monotone, so no entry grows and every row stays
    feasible); where the k x k system gives no usable scale (a non-positive or non-finite
    one), lambda is returned as it is and the bound pays for the whole residual."""
    n = lam.shape[0]
    member = sp.csr_matrix((np.ones(n), (labels, np.arange(n))), shape=(k, n))
    P = np.asarray(member @ lam.sum(axis=1)).ravel()  # P_c: the Lambda_i of class c
    N = np.asarray(member @ lam).T  # N[m, c]: the lambda_im of class-c examples
    K = N - np.diag(P)
    residual = P - N.sum(axis=1)  # = -K 1, so K (1 + delta) = 0 when K delta = residual
    delta = np.linalg.lstsq(K, residual, rcond=None)[0]
    scale = 1.0 + delta
    if not np.all(np.isfinite(scale)) or scale.max() <= 0.0:
        return lam
    scale = np.minimum(scale / scale.max(), 1.0)
    if scale.min() <= 0.0:
        return lam
    return lam * scale[labels][:, None]


def _dual_point(lam: NDArray, labels: NDArray) -> NDArray:
    """A (n, k): -lambda off the labels, Lambda_i = sum_m lambda_im (rounded) at them."""
    A = -lam
    A[np.arange(lam.shape[0]), labels] = lam.sum(axis=1)
    return A


def _primal_upper(X, labels, W, b, C) -> float:
    """An upper bound on P(W, b) = 1/2 ||W||^2 + sum_i C_i max(0, 1 + max_{m != y_i} z_im
    - z_{i y_i}), ``W`` (d, k)."""
    n, k = X.shape[0], W.shape[1]
    scores = np.asarray(X @ W, dtype=np.float64) + b
    # the dot products' error, and one rounding more for the addition of b
    errors = dot_errors(X, W).reshape(n, k) + (np.abs(scores) + np.abs(b)) * (2.0 * UNIT_ROUNDOFF)
    high = np.nextafter(scores + errors, np.inf)
    low_label = np.nextafter(scores - errors, -np.inf)[np.arange(n), labels]
    excess = np.nextafter(np.nextafter(high - low_label[:, None], np.inf) + 1.0, np.inf)
    excess[np.arange(n), labels] = 0.0  # the label's own term is the slack's xi_i >= 0
    losses = excess.max(axis=1)
    weighted = np.nextafter(C * losses, np.inf)
    return up(up(0.5 * squared_norm_upper(W)) + upper_sum(weighted))


def _dual_lower(X, lam, A, W) -> float:
    """A lower bound on D(lambda) = sum lambda - 1/2 ||W(lambda)||^2, W(lambda) exact and ``W``
    its float64 value from the rounded ``A``."""
    n, k = A.shape
    # |W(lambda) - W| <= gamma_{n+k+4} |X|^T |A| entrywise: each entry a sum of n products,
    # the label's entries of A each a rounded sum of k terms, and the bound's own rounding
    magnitudes = abs(X).T @ np.abs(A) if sp.issparse(X) else np.abs(X).T @ np.abs(A)
    error = np.asarray(magnitudes, dtype=np.float64) * gamma(n + k + 4)
    norm = up(up(math.sqrt(squared_norm_upper(W)), 2) + up(math.sqrt(squared_norm_upper(error)), 2))
    value = lower_sum(lam) - up(0.5 * up(norm * norm))
    return math.nextafter(value, -math.inf) if math.isfinite(value) else value


def _intercept_term(X, labels, A, C) -> float:
    """An upper bound on |<b*, r>| for an optimal b* (module notes), r the exact residuals."""
    n, k = A.shape
    # the columns' correctly rounded sums, and the label entries' own rounding
    residual_l1 = upper_sum([up(abs(math.fsum(A[:, m].tolist()))) for m in range(k)])
    residual_l1 = up(residual_l1 + up(gamma(2 * k + 2) * upper_sum(A[np.arange(n), labels])))
    if residual_l1 == 0.0:
        return 0.0
    # each squared norm a sum of d products, each within gamma_{d+1} of its exact value
    largest = float(np.max(squared_norms(loop_input(X)), initial=0.0))
    largest_row = up(math.sqrt(up(largest * (1.0 + gamma(X.shape[1] + 1)), 2)), 2)
    spread = up((k - 1) * up(1.0 + up(2.0 * up(math.sqrt(upper_sum(C))) * largest_row, 2)), 2)
    return up(0.5 * up(spread * residual_l1))
