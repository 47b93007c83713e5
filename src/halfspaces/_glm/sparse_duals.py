"""Certified duality gaps of the elastic-net fits: squared, logistic and squared hinge losses.

J(w, b) = (1/n) sum_i s_i loss_i(<w, x_i> + b) + h(w), h the elastic net
(:class:`halfspaces._glm.penalties.ElasticNet`), has for any dual point A (a_i per row) the
lower bound of :mod:`halfspaces._glm.duals` with the penalty's conjugate in place of the
ridge's quadratic:

    J* >= D(A) = (1/n) sum_i s_i phi_i(a_i) - h*(X^T (s a) / n) - (B / n) |sum_i s_i a_i|.

h* is finite everywhere when alpha_2 > 0; for the lasso (alpha_2 = 0) it is the indicator
of the box ||v||_inf <= alpha_1, so the dual point a_i = -loss_i'(z_i) is first rescaled
into it (celer's and skglm's construction, Massias et al. 2018): every a_i multiplied by
the same c <= 1, which keeps the logistic's a_i y_i in [0, 1], the squared hinge's >= 0 and
the intercept's balance. The rescaled point is checked against the box with the rounding
bounds of :mod:`halfspaces._glm.gaps` (|X^T A| plus gamma_{n+k} |X|^T |A|), and shrunk
further until it provably lies inside; every other term is bounded as in
:mod:`halfspaces._glm.duals`, whose primitives this module reuses.

The conjugates phi_i: the logistic's binary entropy of theta_i = a_i y_i; the squared
loss's y_i r - r^2 / 2; the squared hinge's t - t^2 / 4 for t = a_i y_i >= 0, from
max(0, 1 - m)^2 = max_{t >= 0} t (1 - m) - t^2 / 4.

References
----------
.. [1] M. Massias, A. Gramfort and J. Salmon. Celer: a fast solver for the Lasso with dual
   extrapolation. ICML 2018 (the rescaled dual point).
.. [2] S. Shalev-Shwartz and T. Zhang. Stochastic dual coordinate ascent methods for
   regularized loss minimization. JMLR 14, 2013 (the conjugate duals).
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import NDArray

from halfspaces._glm import duals
from halfspaces._glm.gaps import UNIT_ROUNDOFF, gamma, lower_sum, up
from halfspaces._glm.penalties import ElasticNet

__all__ = ["LOSSES", "elastic_net_gap", "softmax_elastic_net_gap"]

LOSSES = ("squared", "logistic", "squared_hinge")

# the rescaling's first margin below the box, relative; it grows fourfold at each retry
# (the bounds' own rounding, gamma_{n+3}, can put the rescaled point just outside)
_SHRINK = 2.0**-50


@duals._guarded
def elastic_net_gap(X, y: NDArray, w: NDArray, b: float, *, loss: str, penalty: ElasticNet,
                    fit_intercept: bool, weights: NDArray | None = None
                    ) -> tuple[float, float]:
    """(J(w, b) bounded above, a certified bound on J(w, b) - J*).

    ``weights`` are the s_i of J's (1/n) sum_i s_i loss_i (None: all 1); a weighted mean
    with weights v is s = v n / sum(v). With alpha = 0 (or alpha_1 = alpha_2 = 0) the gap
    is inf.
    """
    n = X.shape[0]
    s = duals._weights(n, weights)
    abs_X = duals.absolute(X)
    z, e = duals.scores_with_errors(X, w[None, :], np.array([b]), abs_X)
    z, e = z[:, 0], e[:, 0]
    primal = up(duals._mean_upper(duals._upv(s * _loss_upper(loss, y, z, e)), n)
                + penalty.upper(w))
    if not (penalty.alpha1 > 0 or penalty.alpha2 > 0) or not math.isfinite(primal):
        return primal, math.inf
    a = _dual_point(loss, y, z, s, fit_intercept)
    scale = 1.0
    for attempt in range(12):
        held = _balanced(loss, y, a * scale, s, fit_intercept)
        u = _adjoint_upper(X, abs_X, s * held, n)
        top = float(np.max(u, initial=0.0))
        if penalty.alpha2 > 0 or top <= penalty.alpha1:
            break
        scale *= penalty.alpha1 / top * (1.0 - _SHRINK * 4.0**attempt)
    else:
        return primal, math.inf
    conjugate = penalty.conjugate_upper(u)
    residual, bound = 0.0, 0.0
    if fit_intercept:
        residual = duals._weighted_sum_bound(None if weights is None else s, held)
        bound = _intercept_bound(X, y, s, loss, primal, penalty) if residual > 0 else 0.0
    conjugates = _conjugates_lower(loss, y, held, s)
    return primal, duals._certified(primal, conjugates, conjugate, residual, bound, n)


def _loss_upper(loss: str, y: NDArray, z: NDArray, e: NDArray) -> NDArray:
    """Upper bounds on each loss at the exact scores within z ± e."""
    if loss == "logistic":
        return duals._logistic_upper(duals._down(y * z - e))
    if loss == "squared":
        size = duals._upv(duals._upv(np.abs(z - y)) + e)
        return duals._upv(0.5 * duals._upv(size * size))
    slack = np.maximum(duals._upv(duals._upv(1.0 - y * z) + e), 0.0)  # >= 1 - exact margin
    return duals._upv(slack * slack)


def _dual_point(loss: str, y: NDArray, z: NDArray, s: NDArray, fit_intercept: bool) -> NDArray:
    """a_i = -loss_i'(z_i): theta_i y_i (logistic), y_i - z_i (squared), 2 (1 - m_i)_+ y_i."""
    if loss == "logistic":
        from scipy.special import expit

        return expit(-y * z) * y
    if loss == "squared":
        return y - z
    return 2.0 * np.maximum(1.0 - y * z, 0.0) * y


def _balanced(loss: str, y: NDArray, a: NDArray, s: NDArray, fit_intercept: bool) -> NDArray:
    """``a`` with sum_i s_i a_i = 0 up to the rounding of one entry, in the losses' domains
    (theta_i = a_i y_i in [0, 1] for the logistic, >= 0 for the squared hinge)."""
    if not fit_intercept:
        return a
    if loss == "squared":
        return duals._centred(a, s)
    theta = np.maximum(a * y, 0.0)
    if loss == "logistic":
        theta = np.minimum(theta, 1.0)
    return duals._balanced_binary(theta, y, s)[0] * y


def _adjoint_upper(X, abs_X, A: NDArray, n: int) -> NDArray:
    """u_j >= |(X^T A*)_j| / n for the exact A* = s a (one rounding per entry of A)."""
    V = np.abs(np.asarray(X.T @ A, dtype=np.float64))
    error = duals._magnitudes(abs_X, np.abs(A)) * gamma(X.shape[0] + 3)
    return duals._upv(duals._upv(V + error) / n)


def _conjugates_lower(loss: str, y: NDArray, a: NDArray, s: NDArray) -> float:
    """A lower bound on sum_i s_i phi_i(a_i)."""
    if loss == "logistic":
        return lower_sum(duals._down(s * duals._binary_entropy_lower(np.clip(a * y, 0, 1))))
    with np.errstate(over="ignore"):
        if loss == "squared":
            terms = s * (y * a - 0.5 * a * a)
            slack = duals._upv(s * (np.abs(y * a) + 0.5 * a * a)) * gamma(6)
        else:
            t = np.abs(a)  # t = a y >= 0, exact
            terms = s * (t - 0.25 * t * t)
            slack = duals._upv(s * (t + 0.25 * t * t)) * gamma(6)
    return lower_sum(duals._down(terms - slack))


def _intercept_bound(X, y: NDArray, s: NDArray, loss: str, primal: float,
                     penalty: ElasticNet) -> float:
    """An upper bound on |b*| for an optimal (w*, b*): h(w*) <= J* <= P bounds ||w*||, and
    then the loss of the other class (or, for least squares, b* = ybar - <xbar, w*>)."""
    slope = up(duals.largest_row_norm(X) * penalty.norm_bound(primal))
    if loss == "squared":
        return up(float(np.max(np.abs(y), initial=0.0)) + slope)
    heaviest = [float(np.max(s[y > 0], initial=0.0)), float(np.max(s[y < 0], initial=0.0))]
    if min(heaviest) <= 0.0:
        return math.inf
    worst = up(up(X.shape[0] * primal) / min(heaviest))  # s_i loss_i <= n P
    if loss == "logistic":  # log(1 + e^t) >= t at t = |b| - R ||w||
        return up(slope + worst, 2)
    # (1 + |b| - R ||w||)^2 <= n P / s_i
    return up(slope + up(math.sqrt(worst) * (1.0 + 4.0 * UNIT_ROUNDOFF)), 2)


@duals._guarded
def softmax_elastic_net_gap(X, labels: NDArray, W: NDArray, b: NDArray, *,
                            penalty: ElasticNet, fit_intercept: bool,
                            weights: NDArray | None = None) -> tuple[float, float]:
    """(J(W, b) bounded above, a certified bound on J(W, b) - J*) for the softmax loss with
    the elastic net on every entry of W (k, d).

    The dual point is that of :func:`halfspaces._glm.duals.softmax_gap`, the rows p_i of
    the simplex (balanced to the class totals with an intercept); the lasso's rescaling
    a -> c a is p_i -> c p_i + (1 - c) e_{y_i}, which stays in the simplex and keeps the
    balance. The intercepts' residual is charged with ||b*||_inf <= 2 R ||W*||_F +
    n P / min_c max_{y_i = c} s_i, ||W*||_F bounded by h(W*) <= P.
    """
    n, k = X.shape[0], W.shape[0]
    s = duals._weights(n, weights)
    abs_X = duals.absolute(X)
    Z, E = duals.scores_with_errors(X, W, b, abs_X)
    primal = up(duals._mean_upper(duals._upv(s * duals._softmax_loss_upper(Z, E, labels)), n)
                + penalty.upper(W))
    if not (penalty.alpha1 > 0 or penalty.alpha2 > 0) or not math.isfinite(primal):
        return primal, math.inf
    from scipy.special import softmax

    P = softmax(Z, axis=1)
    Y = np.zeros((n, k))
    Y[np.arange(n), labels] = 1.0
    totals = np.bincount(labels, weights=s, minlength=k).astype(np.float64)
    if fit_intercept:
        P = duals._balanced_rows(P, s, totals)
    scale = 1.0
    for attempt in range(12):
        Q = duals._on_the_grid(P if scale == 1.0 else scale * P + (1.0 - scale) * Y)
        u = _adjoint_upper(X, abs_X, s[:, None] * (Q - Y), n)
        top = float(np.max(u, initial=0.0))
        if penalty.alpha2 > 0 or top <= penalty.alpha1:
            break
        scale *= penalty.alpha1 / top * (1.0 - _SHRINK * 4.0**attempt)
    else:
        return primal, math.inf
    residual, bound = 0.0, 0.0
    if fit_intercept:
        unit = None if weights is None else s
        residual = sum(duals._weighted_sum_bound(unit, Q[:, a] - Y[:, a]) for a in range(k))
        present = np.flatnonzero(totals > 0)
        heaviest = [float(np.max(s[labels == a])) for a in present]
        if residual > 0 and (present.size < 2 or min(heaviest) <= 0.0):
            bound = math.inf
        elif residual > 0:
            slope = up(duals.largest_row_norm(X) * penalty.norm_bound(primal))
            bound = up(up(2.0 * slope) + up(up(n * primal) / min(heaviest)), 2)
    conjugates = lower_sum(duals._down(s * duals._entropy_lower(Q)))
    return primal, duals._certified(primal, conjugates, penalty.conjugate_upper(u.ravel()),
                                    residual, bound, n)
