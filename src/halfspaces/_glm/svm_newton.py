"""The squared-hinge linear SVM by a primal Newton method, stopped on a certified duality gap.

The primal in LIBLINEAR's units is

    P(w, b) = 1/2 ||w||^2 + sum_i C_i max(0, 1 - y_i (<w, x_i> + b))^2,

a differentiable, piecewise quadratic function whose gradient is Lipschitz but not
differentiable where a margin equals 1. Its generalised Hessian (Mangasarian [1]_)

    H = diag(1, ..., 1, 0) + 2 X_I'^T diag(C_I) X_I',   I = {i : y_i (<w, x_i> + b) < 1},

(x' = (x, 1); the intercept's 0 on the diagonal: it is not penalised) gives the finite
Newton method of [1]_, which LIBLINEAR's ``-s 2`` runs with a trust region and conjugate
gradients (Lin, Weng and Keerthi [2]_). With few features H is small: it is formed and
factored here (one product X_I^T X_I, BLAS on dense rows), and the step length is found by an
exact line search on the one-dimensional piecewise quadratic, safeguarded by bisection.

The point reached is certified as the dual solver's is (:func:`svm_duality_gap`): the dual
point a_i = 2 C_i max(0, 1 - m_i) (the optimality condition of the squared hinge, so the gap
closes at the solution), w recomputed from it, the gap bounded against rounding. The gap is
evaluated only once the Newton decrement says the target is within reach, so a fit pays for
one or two certificates, not one per step.

References
----------
.. [1] O. L. Mangasarian. A finite Newton method for classification. Optimization Methods
   and Software 17(5), 2002.
.. [2] C.-J. Lin, R. C. Weng and S. S. Keerthi. Trust region Newton method for large-scale
   logistic regression. JMLR 9, 2008 (and LIBLINEAR's ``-s 2``).
"""

from __future__ import annotations

import numpy as np
import scipy.linalg
import scipy.sparse as sp
from numpy.typing import NDArray

from halfspaces._glm.svm_dual import SvmDualRun, svm_duality_gap
from halfspaces._utils.blas import one_blas_thread

__all__ = ["NEWTON_MAX_FEATURES", "pick_svm_solver", "solve_svm_newton"]

# the Hessian is formed and factored: (d + 1)^2 memory and d^3 / 3 flops per step, against
# X_I^T X_I's |I| d^2; beyond this many features the dual's O(nnz) passes are the better buy
NEWTON_MAX_FEATURES = 1000
# the line search: a step is exact once the set I stops changing; else bisection ends it
_LINE_SEARCH_STEPS = 60
# X_I^T X_I is formed from a dense copy of X_I when at least this fraction of it is nonzero
_DENSE_ENOUGH = 0.1
# the certificate costs about two Newton steps: it is evaluated once the decrement (an
# estimate of J - J*, exact for a quadratic) is this fraction of the target
_DECREMENT_MARGIN = 0.1


def pick_svm_solver(X, loss: str) -> str:
    """"newton" or "dual": what ``solver="auto"`` runs.

    The primal Newton method needs the squared hinge (the hinge has no Hessian) and few
    features; it wins wherever dual coordinate descent needs many passes, which the squared
    hinge at C of order 1 does on dense rows and on the LIBSVM sets measured
    (benchmarks/RESULTS.md, the SVM family).
    """
    if loss == "squared_hinge" and X.shape[1] <= NEWTON_MAX_FEATURES:
        return "newton"
    return "dual"


def solve_svm_newton(X, y: NDArray, *, loss: str, alpha: float, fit_intercept: bool,
                     tol: float, max_iter: int, seed: int = 0, weights: NDArray | None = None,
                     start: SvmDualRun | None = None) -> SvmDualRun:
    """Minimise J for the squared hinge by Newton steps until the certified gap <= tol * J.

    The signature and the result are :func:`~halfspaces._glm.svm_dual.solve_svm_dual`'s
    (``seed`` is unused: the method is deterministic); ``max_iter`` counts Newton steps.
    """
    if loss != "squared_hinge":
        raise ValueError("the primal Newton method needs loss='squared_hinge'")
    # the products are of (d + 1)-wide blocks: BLAS threads only wait on each other (a
    # 15,000 x 23 product took 1 s instead of 1 ms on a loaded two-core machine)
    with one_blas_thread():
        return _newton(X, y, loss, alpha, fit_intercept, tol, max_iter, weights, start)


def _newton(X, y, loss, alpha, fit_intercept, tol, max_iter, weights, start) -> SvmDualRun:
    n, d = X.shape
    weights = np.ones(n) if weights is None else np.asarray(weights, dtype=np.float64)
    C = weights / (alpha * n)
    Xf = X.astype(np.float64) if X.dtype != np.float64 else X  # margins to float64 accuracy
    w = np.zeros(d) if start is None else np.array(start.coef, dtype=np.float64)
    b = 0.0 if start is None or not fit_intercept else float(start.intercept)
    scores = _scores(Xf, w, b)
    steps, certified, settled = 0, None, False
    while True:
        slack = np.maximum(0.0, 1.0 - y * scores)
        primal = 0.5 * (w @ w) + float(C @ (slack * slack))
        active = slack > 0.0
        gradient, hessian = _gradient_hessian(Xf, y, C, w, slack, active, fit_intercept)
        direction = _newton_direction(hessian, gradient)
        decrement = -float(gradient @ direction)  # g^T H^-1 g: twice the quadratic model's gain
        # the decrement judges J - J* only where the set I has settled: after a full step
        small = 0.5 * decrement <= _DECREMENT_MARGIN * tol * primal
        if steps >= max_iter or (small and (settled or decrement <= 1e-3 * tol * primal)):
            previous = certified
            certified = _certify(X, y, C, b, scores, alpha, fit_intercept)
            if (certified[1] <= tol * certified[0] or steps >= max_iter or decrement <= 0.0
                    or (previous is not None and certified[1] >= previous[1])):
                break  # converged, out of steps, or stalled on rounding
        step_scores = _scores(Xf, direction[:d], direction[d] if fit_intercept else 0.0)
        t = _line_search(w, direction[:d], y * scores, y * step_scores, C)
        settled = abs(t - 1.0) <= 1e-6
        w = w + t * direction[:d]
        b = b + t * direction[d] if fit_intercept else 0.0
        scores = scores + t * step_scores
        steps += 1
        if steps % 8 == 0:  # refresh: the running update drifts by rounding
            scores = _scores(Xf, w, b)
    objective, gap, coef, a = certified
    return SvmDualRun(coef=coef, intercept=b, dual=a / C, multiplier=np.array([b, 0.0]),
                      n_iter=steps, objective=objective, gap=gap,
                      converged=bool(gap <= tol * objective))


def _scores(X, w, b) -> NDArray:
    return np.asarray(X @ w, dtype=np.float64).ravel() + b


def _gradient_hessian(X, y, C, w, slack, active, fit_intercept):
    """The gradient and the generalised Hessian of P at (w, b), over (w, b) or w alone."""
    d = X.shape[1]
    k = d + 1 if fit_intercept else d
    coefficient = 2.0 * C * slack * y  # the loss's derivative, per example, times -1
    rows = X[active]
    weights = 2.0 * C[active]
    gradient = np.empty(k)
    gradient[:d] = w - np.asarray(X.T @ coefficient).ravel()
    hessian = np.zeros((k, k))
    if sp.issparse(rows) and rows.nnz < _DENSE_ENOUGH * rows.shape[0] * d:
        scaled = sp.diags(np.sqrt(weights)) @ rows
        hessian[:d, :d] = (scaled.T @ scaled).toarray()
        column = np.asarray(rows.T @ weights).ravel()
    else:
        # few features and dense enough rows: BLAS on a dense copy of X_I beats the sparse
        # product (ijcnn1, 59% dense: the sparse one was half of a Newton step)
        rows = rows.toarray() if sp.issparse(rows) else rows
        scaled = rows * np.sqrt(weights)[:, None]
        hessian[:d, :d] = scaled.T @ scaled
        column = rows.T @ weights
    hessian[np.arange(d), np.arange(d)] += 1.0
    if fit_intercept:
        gradient[d] = -float(coefficient.sum())
        hessian[:d, d] = hessian[d, :d] = column
        # no example inside the margin: the intercept has no curvature (and no gradient)
        hessian[d, d] = float(weights.sum()) or 1.0
    return gradient, hessian


def _newton_direction(hessian, gradient) -> NDArray:
    try:
        return -scipy.linalg.cho_solve(scipy.linalg.cho_factor(hessian), gradient)
    except np.linalg.LinAlgError:  # the intercept's block near singular: least squares
        return -np.linalg.lstsq(hessian, gradient, rcond=None)[0]


def _line_search(w, p, margins, changes, C) -> float:
    """argmin_t phi(t) = 1/2 ||w + t p||^2 + sum_i C_i max(0, 1 - m_i - t c_i)^2, t >= 0:
    Newton's method on the piecewise quadratic, kept inside a bracket by bisection."""
    wp, pp = float(w @ p), float(p @ p)

    def derivatives(t):
        r = np.maximum(0.0, 1.0 - margins - t * changes)
        inside = r > 0.0
        first = wp + t * pp - 2.0 * float(C @ (r * changes))
        return first, pp + 2.0 * float(C[inside] @ (changes[inside] ** 2))

    lo, hi, t = 0.0, np.inf, 1.0
    for _ in range(_LINE_SEARCH_STEPS):
        first, second = derivatives(t)
        if first == 0.0 or second <= 0.0:
            return t
        if first < 0.0:
            lo = t
        else:
            hi = t
        proposal = t - first / second
        if proposal == t:
            return t
        t = proposal if lo < proposal < hi else (0.5 * (lo + hi) if np.isfinite(hi) else 2.0 * t)
        if hi - lo <= 1e-15 * max(hi, 1.0):
            break
    return t


def _certify(X, y, C, b, scores, alpha, fit_intercept):
    """(J bounded above, the certified gap, the coef recomputed from the dual point, a)."""
    a = 2.0 * C * np.maximum(0.0, 1.0 - y * scores)
    objective, gap, coef = svm_duality_gap(X, y, a, b, loss="squared_hinge", alpha=alpha, C=C,
                                           fit_intercept=fit_intercept)
    return objective, gap, coef, a
