"""Certified duality gaps of the generalised linear models: logistic, softmax, squared.

J(w, b) = (1/n) sum_i s_i loss_i(<w, x_i> + b) + alpha/2 ||w||^2, each loss the supremum of
its conjugate, loss_i(z) = max_a [<a, c_i> - <a, z> + phi_i(a)], gives for any dual point A
(rows a_i) the lower bound (Fenchel duality; Shalev-Shwartz and Zhang [1]_)

    J* >= D(A) = (1/n) sum_i s_i phi_i(a_i) - ||sum_i s_i a_i x_i^T||^2 / (2 alpha n^2)
                 - (B / n) ||sum_i s_i a_i||_1,

the last term the price of the intercept: D is -inf unless sum_i s_i a_i = 0, which the
points below meet up to rounding; restricting b to a box ||b||_inf <= B that holds an
optimal b* leaves J* unchanged and turns that constraint into this term. The primal point
gives the dual one, a_i = -loss_i'(z_i), optimal at the optimum, so that the gap
J(w, b) - D(A) goes to 0 with the suboptimality:

- logistic: a_i = theta_i y_i, theta_i = sigma(-m_i) in [0, 1], phi the binary entropy;
- softmax: a_i = p_i - e_{y_i}, p_i in the simplex, phi the entropy of p_i;
- squared: a_i = r_i = y_i - z_i, phi_i(r) = y_i r - r^2 / 2.

With alpha = 0 the dual also needs sum_i s_i a_i x_i = 0 exactly, which no point built from
a float64 primal one meets: the gap is then inf (nothing is certified), except for least
squares, whose suboptimality is a quadratic form in the gradient
(:func:`least_squares_gap`). Every value is bounded on the side that keeps the gap an upper
bound (the primitives of :mod:`halfspaces._glm.gaps`: an upper bound for J, a lower bound
for D), logarithms and exponentials with their error bounds (``ELEMENTARY_ULPS``).

References
----------
.. [1] S. Shalev-Shwartz and T. Zhang. Stochastic dual coordinate ascent methods for
   regularized loss minimization. JMLR 14, 2013 (the conjugate duals of these losses).
.. [2] N. J. Higham. Accuracy and Stability of Numerical Algorithms, 2nd edition. SIAM,
   2002. Theorem 10.5 (Cholesky's backward error).
"""

from __future__ import annotations

import functools
import math

import numpy as np
import scipy.sparse as sp
from numpy.typing import NDArray

from halfspaces._glm.gaps import (
    UNIT_ROUNDOFF,
    gamma,
    lower_sum,
    squared_norm_upper,
    up,
    upper_sum,
)

__all__ = ["ELEMENTARY_ULPS", "GRAM_MAX", "absolute", "down", "largest_row_norm",
           "least_squares_gap", "logistic_gap", "penalty_upper", "ridge_gap",
           "scores_with_errors", "softmax_gap"]

ELEMENTARY_ULPS = 4
"""log, log1p and exp of NumPy are taken to be within this many ulps of the exact value
(glibc's are within 1, NumPy's SIMD versions document at most 4)."""

_TINY = 2.0**-1000  # an absolute slack per term that covers subnormal results
_GRID = 2.0**-52  # the grid on which the softmax's dual rows sum to 1 exactly


def _guarded(gap_function):
    """Run a gap function with NumPy's floating-point warnings off and its overflow turned
    into inf: a value that overflows (X of 1e200) bounds nothing, so the gap is inf, and
    a NaN from inf - inf is inf too (never a gap that looks small)."""
    @functools.wraps(gap_function)
    def guarded(*args, **kwargs) -> tuple[float, float]:
        try:
            with np.errstate(all="ignore"):
                primal, gap = gap_function(*args, **kwargs)
        except (OverflowError, ValueError):  # math.fsum's overflow, or inf - inf in it
            return math.inf, math.inf
        primal = math.inf if math.isnan(primal) else primal
        return primal, math.inf if math.isnan(gap) else gap
    return guarded


def _down(x):
    return np.nextafter(x, -np.inf)


def _upv(x):
    return np.nextafter(x, np.inf)


def down(value: float, operations: int = 1) -> float:
    """A lower bound on the exact result of ``operations`` rounded operations (see :func:`up`)."""
    return -up(-value, operations)


def _elementary(k: int = 1) -> float:
    """The relative error bound of k elementary functions and as many roundings (an ulp
    is at most 2u relative)."""
    return gamma(k * (2 * ELEMENTARY_ULPS + 1))


def absolute(X):
    """|X|, dense or CSR (computed once per gap: it is a copy of X)."""
    return abs(X) if sp.issparse(X) else np.abs(X)


def scores_with_errors(X, W: NDArray, b: NDArray, abs_X=None) -> tuple[NDArray, NDArray]:
    """Z = X W^T + b (shape (n, k), W of shape (k, d)) and E >= |Z - exact| entrywise;
    ``abs_X`` is |X| when the caller has it."""
    Z = np.asarray(X @ W.T, dtype=np.float64) + b
    magnitudes = (absolute(X) if abs_X is None else abs_X) @ np.abs(W).T
    E = np.asarray(magnitudes, dtype=np.float64) * gamma(X.shape[1] + 2)
    # the addition of b: one rounding more, relative to |Z| + |b|
    return Z, _upv(E + (np.abs(Z) + np.abs(b)) * (2.0 * UNIT_ROUNDOFF))


def largest_row_norm(X) -> float:
    """An upper bound on max_i ||x_i||."""
    if sp.issparse(X):
        rows = np.repeat(np.arange(X.shape[0]), np.diff(X.indptr))
        squares = np.bincount(rows, weights=np.square(X.data, dtype=np.float64),
                              minlength=X.shape[0])
    else:
        squares = np.einsum("ij,ij->i", X, X, dtype=np.float64)
    top = float(np.max(squares, initial=0.0)) * (1.0 + gamma(X.shape[1] + 2))
    return up(math.sqrt(up(top)), 2)


def penalty_upper(alpha: float, W: NDArray) -> float:
    """An upper bound on alpha/2 ||W||_F^2."""
    return up(0.5 * alpha * squared_norm_upper(np.ravel(W)), 2)


def _quadratic_upper(X, abs_X, A: NDArray, alpha: float, n: int, products: int) -> float:
    """An upper bound on ||X^T A*||_F^2 / (2 alpha n^2) for the exact A* whose float64 value
    is ``A``, each entry a product of ``products - 2`` factors rounded."""
    norm = _adjoint_norm_upper(X, abs_X, A, products)
    return up(up(up(up(norm / n) * up(norm / n)) / 2.0) / alpha)


def _certified(primal: float, conjugates: float, quadratic: float, residual: float,
               intercept_bound: float, n: int) -> float:
    """P - D(A) rounded up, D(A) = conjugates / n - quadratic - B residual / n, every part
    bounded on the side that keeps the result an upper bound."""
    dual = down(down(conjugates / n) - quadratic)
    if residual > 0.0:
        dual = down(dual - up(up(intercept_bound * residual) / n, 2))
    if math.isnan(dual):
        return math.inf
    return max(up(primal - dual), 0.0)


def _mean_upper(terms: NDArray, n: int) -> float:
    """An upper bound on (1/n) sum_i terms_i for nonnegative terms already bounded above."""
    return up(up(upper_sum(terms) + n * _TINY) / n)


def _weights(n: int, weights) -> NDArray:
    return np.ones(n) if weights is None else np.asarray(weights, dtype=np.float64)


def _weighted_sum_bound(s: NDArray | None, values: NDArray) -> float:
    """An upper bound on |sum_i s_i values_i| (exact), the products rounded; s None: unit
    weights, no products."""
    if s is None:  # fsum is correctly rounded: 0.0 only for an exact 0
        total = math.fsum(values.tolist())
        return up(abs(total)) if total else 0.0
    products = s * values
    total = math.fsum(products.tolist())
    spread = upper_sum(np.abs(products)) * (2.0 * UNIT_ROUNDOFF)
    return up(up(abs(total)) + spread)


@_guarded
def logistic_gap(X, y: NDArray, w: NDArray, b: float, *, alpha: float, fit_intercept: bool,
                 weights: NDArray | None = None) -> tuple[float, float]:
    """(J(w, b) bounded above, a certified bound on J(w, b) - J*) for the logistic loss.

    J = (1/n) sum_i s_i log(1 + exp(-y_i (<w, x_i> + b))) + alpha/2 ||w||^2, y in {-1, +1},
    s the example weights (ones). The dual point is theta_i = sigma(-m_i), balanced so that
    sum_i s_i theta_i y_i = 0 with an intercept (the larger class's theta scaled down, which
    keeps them in [0, 1], then one theta corrected by the rounding left), the rest charged
    with |b*| <= R sqrt(2 P / alpha) + n P / max_{i in the class} s_i for either class (a
    point of the other class has loss at least |b| - R ||w*|| there, and s_i loss_i <= n J*
    <= n P; alpha/2 ||w*||^2 <= P). With alpha = 0 the gap is inf.
    """
    n = X.shape[0]
    s = _weights(n, weights)
    abs_X = absolute(X)
    z, e = scores_with_errors(X, w[None, :], np.array([b]), abs_X)
    z, e = z[:, 0], e[:, 0]
    margins = _down(y * z - e)  # a lower bound on each exact margin: the loss decreases
    primal = up(_mean_upper(_upv(s * _logistic_upper(margins)), n) + penalty_upper(alpha, w))
    if not alpha > 0 or not math.isfinite(primal):
        return primal, math.inf
    from scipy.special import expit

    theta = expit(-y * z)
    residual, bound = 0.0, 0.0
    if fit_intercept:
        theta, r = _balanced_binary(theta, y, s)
        if weights is None:  # fsum is correctly rounded: 0.0 only for an exact 0
            residual = up(abs(r)) if r else 0.0
        else:
            residual = _weighted_sum_bound(s, theta * y)
        bound = _binary_intercept_bound(X, y, s, primal, alpha)
    conjugates = lower_sum(_down(s * _binary_entropy_lower(theta)))
    quadratic = _quadratic_upper(X, abs_X, (s * theta * y)[:, None], alpha, n, 3)
    return primal, _certified(primal, conjugates, quadratic, residual, bound, n)


def _logistic_upper(m: NDArray) -> NDArray:
    """Upper bounds on log(1 + exp(-m)), computed without overflow."""
    with np.errstate(over="ignore", under="ignore"):
        value = np.where(m >= 0, np.log1p(np.exp(-np.abs(m))),
                         -m + np.log1p(np.exp(-np.abs(m))))
    return _upv(value * (1.0 + _elementary(3)) + _TINY)


def _binary_entropy_lower(theta: NDArray) -> NDArray:
    """Lower bounds on -t log t - (1 - t) log(1 - t) at the exact float64 values t = theta.

    H is symmetric, and 1 - t is exact for t >= 1/2 (Sterbenz), so H is evaluated at
    min(t, 1 - t) <= 1/2, where log1p(-t) needs no rounded argument. Both terms are >= 0.
    """
    t = np.where(theta > 0.5, 1.0 - theta, theta)
    with np.errstate(divide="ignore", invalid="ignore", under="ignore"):
        first = np.where(t > 0, -t * np.log(np.where(t > 0, t, 1.0)), 0.0)
        second = -(1.0 - t) * np.log1p(-t)
    value = (first + second) * (1.0 - _elementary(3)) - _TINY
    return np.maximum(_down(value), 0.0)


def _balanced_binary(theta: NDArray, y: NDArray, s: NDArray) -> tuple[NDArray, float]:
    """theta in [0, 1] with sum_i s_i theta_i y_i = 0 up to the rounding of one entry, and
    that sum's correctly rounded value (math.fsum)."""
    theta = theta.copy()
    positive = y > 0
    plus, minus = float(np.sum((s * theta)[positive])), float(np.sum((s * theta)[~positive]))
    if plus > minus and plus > 0.0:
        theta[positive] *= minus / plus
    elif minus > plus and minus > 0.0:
        theta[~positive] *= plus / minus
    for attempt in range(4):  # the rest, moved into one entry that can absorb it
        r = math.fsum((s * theta * y).tolist())
        if r == 0.0 or attempt == 3:
            break
        room = np.where(y * r > 0, s * theta, 0.0)  # lowering these lowers |r|
        j = int(np.argmax(room))
        if room[j] < abs(r):
            break
        theta[j] = max(theta[j] - abs(r) / s[j], 0.0)
    return theta, r


def _binary_intercept_bound(X, y, s, primal, alpha) -> float:
    heaviest = [float(np.max(s[y > 0], initial=0.0)), float(np.max(s[y < 0], initial=0.0))]
    if min(heaviest) <= 0.0:
        return math.inf  # one class: no optimal intercept (J* is an infimum at b = ±inf)
    slope = up(largest_row_norm(X) * up(math.sqrt(up(up(2.0 * primal) / alpha)), 2))
    return up(slope + up(up(X.shape[0] * primal) / min(heaviest)), 2)


@_guarded
def softmax_gap(X, labels: NDArray, W: NDArray, b: NDArray, *, alpha: float,
                fit_intercept: bool, weights: NDArray | None = None) -> tuple[float, float]:
    """(J(W, b) bounded above, a certified bound on J(W, b) - J*) for the softmax loss.

    J = (1/n) sum_i s_i (logsumexp(z_i) - z_{i, y_i}) + alpha/2 ||W||_F^2, z_i = W x_i + b,
    W of shape (k, d), labels the class indices. The dual point: the softmax probabilities
    p_i (a_i = p_i - e_{y_i}), balanced to the class totals with an intercept (each class
    with too much mass scaled down, the mass moved to the classes short of it, row by row),
    then put on the grid of multiples of 2^-52, where each row sums to 1 exactly. The
    intercepts' residual is charged with ||b*||_inf <= 2 R sqrt(2 P / alpha) + n P / min_c
    max_{y_i = c} s_i for the centred optimal b (shift-invariant, as the residual sums to
    0), over the classes present; with alpha = 0 the gap is inf.
    """
    n, k = X.shape[0], W.shape[0]
    s = _weights(n, weights)
    rows = np.arange(n)
    abs_X = absolute(X)
    Z, E = scores_with_errors(X, W, b, abs_X)
    primal = up(_mean_upper(_upv(s * _softmax_loss_upper(Z, E, labels)), n)
                + penalty_upper(alpha, W))
    if not alpha > 0 or not math.isfinite(primal):
        return primal, math.inf
    from scipy.special import softmax

    P = softmax(Z, axis=1)
    Y = np.zeros((n, k))
    Y[rows, labels] = 1.0
    totals = np.bincount(labels, weights=s, minlength=k).astype(np.float64)
    if fit_intercept:
        P = _balanced_rows(P, s, totals)
    P = _on_the_grid(P)
    residual, bound = 0.0, 0.0
    if fit_intercept:
        present = totals > 0
        unit = None if weights is None else s
        residual = sum(_weighted_sum_bound(unit, P[:, a] - Y[:, a]) for a in range(k))
        heaviest = [float(np.max(s[labels == a])) for a in np.flatnonzero(present)]
        if present.sum() < 2 or residual > 0 and min(heaviest) <= 0.0:
            bound = math.inf
        else:
            slope = up(largest_row_norm(X) * up(math.sqrt(up(up(2.0 * primal) / alpha)), 2))
            bound = up(up(2.0 * slope) + up(up(n * primal) / min(heaviest)), 2)
    conjugates = lower_sum(_down(s * _entropy_lower(P)))
    quadratic = _quadratic_upper(X, abs_X, s[:, None] * (P - Y), alpha, n, 4)
    return primal, _certified(primal, conjugates, quadratic, residual, bound, n)


def _softmax_loss_upper(Z: NDArray, E: NDArray, labels: NDArray) -> NDArray:
    """Upper bounds on logsumexp(z_i) - z_{i, y_i} at the exact scores within Z ± E.

    The loss grows with every other score and falls with its own: it is evaluated at the
    others' upper and its own lower bound, as m + log sum_a exp(d_a - m) with d_a the
    differences (rounded up) and m their largest (>= 0, since d_{y_i} = 0).
    """
    n = Z.shape[0]
    rows = np.arange(n)
    own = _down(Z[rows, labels] - E[rows, labels])
    D = _upv(_upv(Z + E) - own[:, None])
    D[rows, labels] = 0.0
    m = D.max(axis=1)
    with np.errstate(under="ignore"):
        total = np.exp(_upv(D - m[:, None])).sum(axis=1)
    spread = 2.0 * gamma(Z.shape[1] + 2 * ELEMENTARY_ULPS + 2)
    logs = _upv(np.log(total) * (1.0 + _elementary(1)) + spread)
    return _upv(_upv(m + logs) + _TINY)


def _balanced_rows(P: NDArray, s: NDArray, totals: NDArray) -> NDArray:
    """Rows of the simplex whose weighted column sums are ``totals`` (up to rounding)."""
    current = s @ P
    over, under = current > totals, current < totals
    shortfall = float(np.sum((totals - current)[under]))
    if shortfall <= 0.0:
        return P
    ratio = np.where(over, totals / np.where(over, current, 1.0), 1.0)
    moved = (P * (1.0 - ratio)).sum(axis=1)
    share = np.where(under, (totals - current) / shortfall, 0.0)
    return P * ratio + moved[:, None] * share


def _on_the_grid(P: NDArray) -> NDArray:
    """P's rows rounded down to multiples of 2^-52, the rest of 1 added to each row's
    largest entry: every partial sum of a row is then exact, so each row sums to 1 exactly
    and stays nonnegative."""
    Q = np.floor(np.clip(P, 0.0, 1.0) / _GRID) * _GRID
    rest = 1.0 - Q.sum(axis=1)
    Q[np.arange(Q.shape[0]), Q.argmax(axis=1)] += rest
    return Q


def _entropy_lower(P: NDArray) -> NDArray:
    """Lower bounds on -sum_a p_a log p_a per row (each term >= 0)."""
    with np.errstate(divide="ignore", invalid="ignore", under="ignore"):
        terms = np.where(P > 0, -P * np.log(np.where(P > 0, P, 1.0)), 0.0)
    total = terms.sum(axis=1) * (1.0 - _elementary(1) - gamma(P.shape[1] + 2))
    total = total - P.shape[1] * _TINY
    return np.maximum(_down(total), 0.0)


@_guarded
def ridge_gap(X, y: NDArray, w: NDArray, b: float, *, alpha: float, fit_intercept: bool,
              weights: NDArray | None = None) -> tuple[float, float]:
    """(J(w, b) bounded above, a certified bound on J(w, b) - J*) for the squared loss.

    J = (1/(2n)) sum_i s_i (<w, x_i> + b - y_i)^2 + alpha/2 ||w||^2. The dual point is the
    residual vector r = y - z, centred with an intercept (a plain shift: r has no box), the
    rounding left moved into one entry and the rest charged with |b*| <= max_i |y_i| +
    R sqrt(2 P / alpha) (b* = ybar - <xbar, w*>, the weighted means). With alpha = 0 see
    :func:`least_squares_gap_unpenalised`.
    """
    n = X.shape[0]
    s = _weights(n, weights)
    abs_X = absolute(X)
    z, e = scores_with_errors(X, w[None, :], np.array([b]), abs_X)
    z, e = z[:, 0], e[:, 0]
    size = _upv(_upv(np.abs(z - y)) + e)  # >= |exact z_i - y_i|
    with np.errstate(over="ignore"):
        losses = _upv(0.5 * _upv(size * size))
        primal = up(_mean_upper(_upv(s * losses), n) + penalty_upper(alpha, w))
    if not alpha > 0 or not math.isfinite(primal):
        return primal, math.inf
    r = y - z
    residual, bound = 0.0, 0.0
    if fit_intercept:
        r = _centred(r, s)
        residual = _weighted_sum_bound(None if weights is None else s, r)
        slope = up(largest_row_norm(X) * up(math.sqrt(up(up(2.0 * primal) / alpha)), 2))
        bound = up(float(np.max(np.abs(y), initial=0.0)) + slope)
    with np.errstate(over="ignore"):
        terms = s * (y * r - 0.5 * r * r)
        slack = _upv(s * (np.abs(y * r) + 0.5 * r * r)) * gamma(6)
    conjugates = lower_sum(_down(terms - slack))
    quadratic = _quadratic_upper(X, abs_X, (s * r)[:, None], alpha, n, 3)
    return primal, _certified(primal, conjugates, quadratic, residual, bound, n)


def _centred(r: NDArray, s: NDArray) -> NDArray:
    """r - its weighted mean, the rounding left moved into the heaviest entry."""
    r = r - math.fsum((s * r).tolist()) / math.fsum(s.tolist())
    j = int(np.argmax(s))
    for _ in range(3):
        rest = math.fsum((s * r).tolist())
        if rest == 0.0:
            break
        r[j] -= rest / s[j]
    return r


GRAM_MAX = 2048
"""Least squares without a penalty certifies its gap up to this many columns of X' = (X, 1)
(a Gram matrix and its Cholesky factor, as the normal equations' solver forms)."""


@_guarded
def least_squares_gap(X, y: NDArray, w: NDArray, b: float, *, fit_intercept: bool,
                      weights: NDArray | None = None) -> tuple[float, float]:
    """(J(w, b) bounded above, a certified bound on J(w, b) - J*) for alpha = 0.

    With row weights s_i, J = (1/(2n)) sum_i s_i (z_i - y_i)^2 (the convention of the
    other gap functions: :func:`weighted_mean_gap` turns it into the weighted mean), the
    same bound holds with the weighted gradient X'^T S r / n and H = X'^T S X' / n, every
    product s_i r_i and s_i x_ij x_ik charged one rounding more.

    J is a quadratic with Hessian H = X'^T X' / n, so for X' of full column rank
    J(w') - J* = g^T H^-1 g / 2 = (Tg)^T S^-1 (Tg) / 2 <= ||T g||^2 / (2 lambda_min(S)),
    g the gradient at w', S = T H T and T the diagonal of powers of two nearest
    diag(H)^-1/2 (Jacobi scaling, exact in float64, so that columns of any scale count
    alike). ||T g|| is bounded above from the residuals' rounding, lambda_min(S) below:
    Weyl's inequality against the computed S (its error at most gamma_{n+3} sum_j t_j^2
    ||x'_j||^2 / n in Frobenius norm), and a Cholesky factorisation of S - sigma I that
    runs to completion, which proves lambda_min >= sigma - gamma_{2d'+4} tr(S - sigma I)
    (Demmel's bound on Cholesky's backward error; Higham [2]_, Theorem 10.5). With more
    than ``GRAM_MAX`` columns, fewer rows than columns, or X' rank deficient in float64
    the gap is inf.
    """
    n, d = X.shape
    abs_X = absolute(X)
    z, e = scores_with_errors(X, w[None, :], np.array([b]), abs_X)
    z, e = z[:, 0], e[:, 0]
    size = _upv(_upv(np.abs(z - y)) + e)
    s = None if weights is None else np.asarray(weights, dtype=np.float64)
    losses = _upv(0.5 * _upv(size * size))
    primal = up(_mean_upper(losses if s is None else _upv(s * losses), n))
    columns = d + int(fit_intercept)
    rows = n if s is None else int(np.count_nonzero(s))
    if columns > GRAM_MAX or rows < columns or not math.isfinite(primal):
        return primal, math.inf
    r = y - z
    slack = _upv((e + np.abs(r) * (2.0 * UNIT_ROUNDOFF)) * (1.0 + 4.0 * UNIT_ROUNDOFF))
    # X'^T S r, and a componentwise bound on its distance to the exact X'^T S r*: with
    # weights, the products s_i r_i round once more (gamma_{n+3}) and the slack scales
    if s is not None:
        r, slack = s * r, _upv(s * slack)
    extra = 0 if s is None else 1
    V = np.asarray(X.T @ r, dtype=np.float64)
    error = _upv(_magnitudes(abs_X, np.abs(r)) * gamma(n + 2 + extra)
                 + _magnitudes(abs_X, slack) * (1.0 + gamma(n + 2)))
    if fit_intercept:
        V = np.append(V, math.fsum(r.tolist()))
        own = up(upper_sum(np.abs(r)) * UNIT_ROUNDOFF) if extra else 0.0
        error = np.append(error, up(up(upper_sum(slack) + 2.0 * UNIT_ROUNDOFF * abs(V[-1]))
                                    + own))
    scaled, smallest = _scaled_smallest_eigenvalue(X, fit_intercept, s)
    if not smallest > 0.0:
        return primal, math.inf
    # ||T g|| with g = -V / n: T is exact, |V| + error >= |exact V|
    g = up(up(math.sqrt(squared_norm_upper(_upv(np.abs(V) + error) * scaled)), 2) / n)
    return primal, up(up(g * g) / up(2.0 * smallest))


def _scaled_smallest_eigenvalue(X, fit_intercept: bool,
                                s: NDArray | None = None) -> tuple[NDArray, float]:
    """(t, a lower bound on the smallest eigenvalue of S = T X'^T D X' T / n), T = diag(t)
    powers of two, D = diag(s) the row weights (the identity for None); the bound is 0.0
    where none is found."""
    from scipy.linalg import cholesky, eigvalsh

    n = X.shape[0]
    X64 = X.astype(np.float64) if X.dtype != np.float64 else X
    weighted = X64 if s is None else (
        sp.diags(s) @ X64 if sp.issparse(X64) else X64 * s[:, None])
    gram = X64.T @ weighted
    gram = gram.toarray() if sp.issparse(gram) else np.asarray(gram)
    if fit_intercept:
        sums = np.asarray(weighted.sum(axis=0), dtype=np.float64).ravel()
        corner = float(n) if s is None else math.fsum(s.tolist())
        gram = np.block([[gram, sums[:, None]], [sums[None, :], np.array([[corner]])]])
    diagonal = np.diag(gram) / n
    if not np.all(diagonal > 0.0):
        return np.ones(len(diagonal)), 0.0  # an all-zero column: rank deficient
    # 2^-round(log2(h_jj) / 2): products by it are exact (barring underflow)
    t = np.ldexp(1.0, -np.round(np.log2(diagonal) / 2.0).astype(int))
    S = gram / n * t[:, None] * t[None, :]
    # sum_i s_i ||T x'_i||^2 = sum_j t_j^2 sum_i s_i x'_ij^2 bounds || T |X'|^T D |X'| T ||_F
    # (the trace of a positive semidefinite matrix); a weight is one factor more per product
    if sp.issparse(X64):
        squares = np.square(X64.data)
        if s is not None:
            squares = squares * np.repeat(s, np.diff(X64.indptr))
        columns = np.bincount(X64.indices, weights=squares, minlength=X.shape[1])
    else:
        columns = np.einsum("ij,ij->j", X64, weighted)
    if fit_intercept:
        columns = np.append(columns, float(n) if s is None else math.fsum(s.tolist()))
    extra = 0 if s is None else 1
    total = up(upper_sum(columns * t * t) * (1.0 + gamma(n + 4 + extra)))
    weyl = up(up(gamma(n + 3 + extra) * total) / n, 2)
    try:
        estimate = float(eigvalsh(S, subset_by_index=[0, 0], check_finite=False)[0])
    except (np.linalg.LinAlgError, ValueError):
        return t, 0.0
    cholesky_error = gamma(2 * S.shape[0] + 4)
    sigma = 0.5 * estimate
    for _ in range(4):
        if not sigma > 0.0:
            return t, 0.0
        shifted = S - sigma * np.eye(S.shape[0])
        try:
            cholesky(shifted, lower=True, check_finite=False)
        except np.linalg.LinAlgError:
            sigma *= 0.25
            continue
        trace = upper_sum(np.abs(np.diag(shifted)))
        # the shift's own rounding: u |diagonal| each
        lost = up(up(cholesky_error + 2.0 * UNIT_ROUNDOFF) * trace, 2)
        return t, down(down(sigma - lost) - weyl)
    return t, 0.0


def _adjoint_norm_upper(X, abs_X, A: NDArray, products: int,
                        slack: NDArray | None = None) -> float:
    """An upper bound on ||X^T A*||_F for the exact A* within ``products - 2`` roundings of
    A relative, and within ``slack`` of it entrywise more (none if None)."""
    V = np.asarray(X.T @ A, dtype=np.float64)
    error = _magnitudes(abs_X, np.abs(A)) * gamma(X.shape[0] + products)
    if slack is not None:
        error = _upv(error + _magnitudes(abs_X, slack) * (1.0 + gamma(X.shape[0] + 2)))
    return up(up(math.sqrt(squared_norm_upper(V.ravel())), 2)
              + up(math.sqrt(squared_norm_upper(error.ravel())), 2))


def _magnitudes(abs_X, B: NDArray) -> NDArray:
    """|X|^T B (B >= 0) in float64."""
    return np.asarray(abs_X.T @ B, dtype=np.float64)
