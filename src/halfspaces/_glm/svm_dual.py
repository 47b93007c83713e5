"""The linear SVM by dual coordinate descent, stopped on a certified duality gap.

The estimator's objective is

    J(w, b) = (1/n) sum_i loss(y_i (<w, x_i> + b)) + alpha/2 ||w||^2,

loss the hinge max(0, 1 - m) or the squared hinge max(0, 1 - m)^2, the intercept b not
penalised. It is alpha times LIBLINEAR's primal P(w, b) = 1/2 ||w||^2 + C sum_i loss_i with
C = 1 / (alpha n), whose dual the compiled loop (:mod:`halfspaces._fast.svm`) solves, with
the intercept's constraint sum_i y_i a_i = 0 kept by the method of multipliers. The loop
stops on its projected gradients (LIBLINEAR's rule, a tolerance of the gradient's units);
this driver then evaluates the duality gap at the point reached, bounded against rounding
(:mod:`halfspaces._glm.gaps`), and goes on with a tighter loop tolerance until the gap is
at most ``tol`` times J or the passes run out. The gap is an upper bound on J(w, b) - J*
whatever the loop did, so it is what the estimator reports as ``gap_``.

References
----------
.. [1] C.-J. Hsieh, K.-W. Chang, C.-J. Lin, S. S. Keerthi and S. Sundararajan. A dual
   coordinate descent method for large-scale linear SVM. ICML 2008.
.. [2] B. Schoelkopf and A. J. Smola. Learning with Kernels. MIT Press, 2002. Chapter 7
   (the soft-margin dual and the intercept's constraint).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from numpy.typing import NDArray

from halfspaces._fast import loop_input, products
from halfspaces._fast.svm import dual_coordinate_descent
from halfspaces._glm.gaps import (
    UNIT_ROUNDOFF,
    column_products,
    gamma,
    lower_sum,
    row_products,
    squared_norm_upper,
    up,
    upper_sum,
)
from halfspaces._sklearn import FloatInterval
from halfspaces._utils.blas import one_blas_thread

__all__ = ["SVM_LOSSES", "PositiveAlpha", "SvmDualRun", "kept_rows", "solve_svm_dual",
           "svm_duality_gap"]

SVM_LOSSES = ("hinge", "squared_hinge")

# LIBLINEAR's default loop tolerance, where the first round starts
_FIRST_EPS = 0.1
# the loop's tolerance is never set below this: projected gradients are margins (scale 1),
# and float64 cannot resolve them more finely
_LAST_EPS = 1e-13


@dataclass(frozen=True)
class SvmDualRun:
    """What a dual coordinate descent run reached.

    ``dual`` holds beta_i = a_i / C_i in [0, 1] for the hinge (beta_i >= 0 for the squared
    hinge): w = (1 / (alpha n)) sum_i beta_i s_i y_i x_i with s_i the example weights (1).
    ``objective`` is J(coef, intercept) and ``gap`` a certified upper bound on
    ``objective - J*``, both bounded against rounding; ``multiplier`` is the method of
    multipliers' state (mu, s), kept for warm starts.
    """

    coef: NDArray
    intercept: float
    dual: NDArray
    multiplier: NDArray
    n_iter: int
    objective: float
    gap: float
    converged: bool


def solve_svm_dual(X, y: NDArray, *, loss: str, alpha: float, fit_intercept: bool,
                   tol: float, max_iter: int, seed: int, weights: NDArray | None = None,
                   start: SvmDualRun | None = None) -> SvmDualRun:
    """Minimise J by dual coordinate descent until the certified gap is at most tol * J.

    ``y`` holds -1.0 and +1.0; ``weights`` (default ones) scale each example's C; ``start``
    warm-starts from an earlier run on the same rows (a new alpha rescales its dual point
    into the new box).
    """
    n = X.shape[0]
    weights = np.ones(n) if weights is None else np.asarray(weights, dtype=np.float64)
    C = weights / (alpha * n)
    sq_norms = _row_squared_norms(X)
    upper, diag = (C, np.zeros(n)) if loss == "hinge" else (np.full(n, np.inf), 0.5 / C)
    # the multiplier's step: of the curvature's scale, so that the coordinate steps are
    # neither frozen by the penalty (rho >> |x|^2) nor the constraint slow to close
    rho = 0.1 * float(np.mean(sq_norms + diag)) if fit_intercept else 0.0
    qdiag = sq_norms + diag + rho
    a, multiplier = _starting_point(start, y, C, fit_intercept)
    w = column_products(X, a * y, a)[0] if a.any() else np.zeros(X.shape[1])
    rows = loop_input(X)
    eps, done = _FIRST_EPS, 0
    while True:
        passes, _ = dual_coordinate_descent(rows, y, qdiag, upper, diag, a, w, multiplier,
                                            rho, seed + done, max_iter - done, eps)
        done += int(passes)
        b = float(multiplier[0] + rho * multiplier[1]) if fit_intercept else 0.0
        with one_blas_thread():  # matrix-vector products: threads only wait on each other
            objective, gap, w_checked = svm_duality_gap(X, y, a, b, loss=loss, alpha=alpha,
                                                        C=C, fit_intercept=fit_intercept)
        converged = gap <= tol * objective
        if converged or done >= max_iter or eps <= _LAST_EPS:
            break
        eps = max(eps * _tightening(gap, tol * objective), _LAST_EPS)
    return SvmDualRun(coef=w_checked, intercept=b, dual=a / C, multiplier=multiplier,
                      n_iter=done, objective=objective, gap=gap, converged=converged)


def _tightening(gap: float, target: float) -> float:
    """The factor for the loop's next eps: the gap has been measured to fall about in
    proportion to eps (a9a, w8a, ijcnn1, dense Gaussian: 10x per 10x), so aim at half the
    target in one round, at least 10x tighter (progress) and at most 1000x (a safeguard
    where the proportion fails). Each round restarts the shrinking from every coordinate,
    so rounds saved are passes saved: on ijcnn1 at tol 1e-6 two rounds instead of four."""
    if not math.isfinite(gap) or gap <= 0.0:
        return 0.1
    return min(max(0.5 * target / gap, 1e-3), 0.1)


def _starting_point(start, y, C, fit_intercept):
    """(a, (mu, s)) to start from: zeros, or an earlier run's beta in this run's box (beta
    is scale-free, so a new alpha keeps the same beta), with s recomputed for it."""
    if start is None:
        return np.zeros(len(y)), np.zeros(2)
    a = np.clip(start.dual, 0.0, None) * C
    multiplier = np.zeros(2)
    if fit_intercept:
        multiplier[0] = start.multiplier[0]
        multiplier[1] = math.fsum((a * y).tolist())
    return a, multiplier


def _row_squared_norms(X) -> NDArray:
    norms = np.empty(X.shape[0])
    rows = loop_input(X.tocsr() if sp.issparse(X) else X)
    products.row_squared_norms(rows, norms)  # in place: X is not copied
    return norms


def svm_duality_gap(X, y: NDArray, a: NDArray, b: float, *, loss: str, alpha: float,
                    C: NDArray, fit_intercept: bool) -> tuple[float, float, NDArray]:
    """(J(w, b) bounded above, a certified bound on J(w, b) - J*, w) at w = sum a_i y_i x_i.

    The dual point is made feasible first: with an intercept the constraint sum_i y_i a_i = 0
    is restored by scaling down the larger class's dual variables (which keeps them in their
    box); what rounding leaves of it, r, costs |b*| |r| in the bound, with |b*| <= 1 +
    sqrt(2 sum_i C_i) max_i ||x_i|| (the optimal intercept lies among the breakpoints
    y_i - <w*, x_i>, and ||w*||^2 / 2 <= P* <= P(0, 0) = sum_i C_i).
    """
    a = np.clip(a, 0.0, None)
    if loss == "hinge":
        a = np.minimum(a, C)
    residual = 0.0
    if fit_intercept:
        a, residual = _balanced(a, y)
    w, magnitudes = column_products(X, a * y, a)
    primal = _primal_upper(X, y, w, b, loss, C)
    dual = _dual_lower(X, a, w, magnitudes, loss, C)
    intercept_bound = 0.0
    if residual:
        largest_row = math.sqrt(up(float(np.max(_row_squared_norms(X))), 3))
        intercept_bound = up(1.0 + up(math.sqrt(up(2.0 * upper_sum(C), 2)) * largest_row, 2))
    gap_scaled = up(up(primal - dual) + up(intercept_bound * residual))
    # J = alpha P: one more rounding each
    return up(alpha * primal), up(alpha * max(gap_scaled, 0.0)), w


def _balanced(a: NDArray, y: NDArray) -> tuple[NDArray, float]:
    """The dual point with sum_i y_i a_i = 0 up to rounding, and a bound on |sum_i y_i a_i|."""
    positive = y > 0
    plus, minus = math.fsum(a[positive].tolist()), math.fsum(a[~positive].tolist())
    a = a.copy()
    if plus > minus and plus > 0.0:
        a[positive] *= minus / plus
    elif minus > plus and minus > 0.0:
        a[~positive] *= plus / minus
    # fsum is correctly rounded: the exact sum is within one ulp of it
    residual = math.fsum((a * y).tolist())
    return a, up(abs(residual))


def _primal_upper(X, y, w, b, loss, C) -> float:
    """An upper bound on P(w, b) = 1/2 ||w||^2 + sum_i C_i loss(y_i (<w, x_i> + b))."""
    scores, magnitudes = row_products(X, w)
    scores += b
    # the dot products' error (as gaps.dot_errors), and one rounding more for the addition of b
    errors = (magnitudes * gamma(X.shape[1] + 2)
              + (np.abs(scores) + abs(b)) * (2.0 * UNIT_ROUNDOFF))
    low_margins = np.nextafter(y * scores - errors, -np.inf)
    slack = np.nextafter(np.maximum(0.0, 1.0 - low_margins), np.inf)
    losses = slack if loss == "hinge" else np.nextafter(slack * slack, np.inf)
    weighted = np.nextafter(C * losses, np.inf)
    return up(up(0.5 * squared_norm_upper(w)) + upper_sum(weighted))


def _dual_lower(X, a, w, magnitudes, loss, C) -> float:
    """A lower bound on D(a) = sum_i a_i - 1/2 ||w(a)||^2 - sum_i a_i^2 / (4 C_i), where
    w(a) = sum_i a_i y_i x_i exactly, ``w`` is its float64 value and ``magnitudes`` the
    float64 value of |X|^T a."""
    # |w(a) - w| <= gamma_{n+2} |X|^T a componentwise (each coordinate a sum of n products)
    error = magnitudes * gamma(X.shape[0] + 2)
    norm = up(up(math.sqrt(squared_norm_upper(w)), 2) + up(math.sqrt(squared_norm_upper(error)), 2))
    value = lower_sum(a) - up(0.5 * up(norm * norm))
    if loss == "squared_hinge":
        value -= upper_sum(np.nextafter(a * a / (4.0 * C), np.inf))
        value = math.nextafter(value, -math.inf)
    return math.nextafter(value, -math.inf) if math.isfinite(value) else value


class PositiveAlpha(FloatInterval):
    """alpha > 0, whose refusal of 0 says which estimators minimise the unpenalised loss.

    The message is scikit-learn's "The 'alpha' parameter of LinearSVM must be <this>. Got 0
    instead.", raised wherever the declared constraints are checked (fit, load, the CLI).
    """

    def __init__(self) -> None:
        super().__init__(0, None, closed="neither")

    def __str__(self) -> str:
        return (f"{super().__str__()}; alpha = 0 is the unregularised hinge loss, which "
                "LinearProgramClassifier(on_infeasible=\"hinge\") minimises exactly "
                "(MaxMarginClassifier gives the hard margin of separable data)")


def kept_rows(X, weights: NDArray | None):
    """(rows, X at those rows, their weights for the solver): the rows of positive weight.

    The solver's C_i are weights_i / (alpha n) for its n rows; the weights passed are s_i n
    / S, so that C_i = s_i / (alpha S), the C_i of J's weighted mean. Rows of zero weight
    contribute nothing to J (C_i = 0) and are left out, which keeps C_i > 0 for the squared
    hinge's 1 / (2 C_i): zero weights and removed rows then give the same problem. X is
    copied only when some weight is zero.
    """
    if weights is None:
        return slice(None), X, None
    kept = np.flatnonzero(weights > 0)
    total = math.fsum(weights[kept].tolist())
    scaled = weights[kept] * (kept.size / total)
    if kept.size == weights.size:
        return slice(None), X, scaled
    return kept, X[kept], scaled
