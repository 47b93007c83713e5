"""Mistake bounds of the perceptron and the sample complexity of PAC learning.

References
----------
.. [1] A. B. J. Novikoff. On convergence proofs on perceptrons. Symposium on the Mathematical
   Theory of Automata, 1962.
.. [2] Y. Freund and R. E. Schapire. Large margin classification using the perceptron
   algorithm. Machine Learning 37(3), 1999. Theorem 2.
.. [3] S. Shalev-Shwartz and S. Ben-David. Understanding Machine Learning, 2014. Theorem 6.8
   (the fundamental theorem of statistical learning).
.. [4] S. Hanneke. The optimal sample complexity of PAC learning. JMLR 17(38), 2016.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import NamedTuple

import numpy as np
import scipy.linalg
import scipy.sparse as sp
from numpy.typing import ArrayLike, NDArray

from halfspaces._exact import (
    SignedRows,
    column_max,
    decide,
    min_norm_separator,
    proved_separator,
    scores,
    smallest_root,
    unproved_certificate_error,
)
from halfspaces._sklearn import FloatInterval, IntegerInterval, validate_params
from halfspaces._utils.scaling import max_row_norm, power_of_two_scale
from halfspaces._validation import sample_weights
from halfspaces.exceptions import NotSeparableError, SolverError
from halfspaces.losses import hinge
from halfspaces.theory._checks import signed_sample
from halfspaces.theory.margins import radius
from halfspaces.theory.separability import augmented_separator

__all__ = [
    "FreundSchapireBound",
    "best_freund_schapire_bound",
    "best_freund_schapire_bound_of_rows",
    "freund_schapire_bound",
    "mistake_bound",
    "perceptron_mistake_bound",
    "rounded_up",
    "sample_complexity",
]

# NaN and inf fail both (scikit-learn's Interval refuses NaN; the open bounds refuse inf),
# and so does an int beyond float64 (10**400), which float() then failed on unnamed
_POSITIVE = FloatInterval(0, math.inf, closed="neither")
_UNIT = FloatInterval(0, 1, closed="neither")


class FreundSchapireBound(NamedTuple):
    """``(bound, u, gamma)``: the bound ((R + D)/gamma)^2 and the unit u and gamma giving it.

    Attributes
    ----------
    bound : float
        The mistake bound ((R + D)/gamma)^2.
    u : ndarray of shape (n_features,)
        The unit vector that gives it.
    gamma : float
        The margin parameter that gives it.
    """

    bound: float
    u: NDArray
    gamma: float


def rounded_up(bound: float, n_rows: int, n_columns: int) -> float:
    """A mistake bound computed in floating point, raised past its rounding error.

    R, D, the scores and gamma come from dot products and norms of length at most
    p = n_columns and n = n_rows, each within gamma_k = k u / (1 - k u) of the exact value
    (u = 2^-53; Higham, Accuracy and Stability of Numerical Algorithms, 2002, (3.5)); a score's
    error relative to gamma is at most gamma_p R / gamma <= gamma_p sqrt(bound). Squaring
    doubles the relative error. Without this, bounds that are exact integers (4 orthonormal
    rows: 4 mistakes, the perceptron makes 4) came out 1-2 ulps below them, and certify
    called a run within the theorem one that "EXCEEDS" it.
    """
    if not bound < math.inf:
        return bound
    u = 2.0**-53
    error = 4.0 * u * (n_rows + (n_columns + 4) * (math.sqrt(n_rows) + math.sqrt(bound)) + 8)
    return math.nextafter(bound * (1.0 + error), math.inf)


def mistake_bound(R: float, D: float, gamma: float, n_rows: int, n_columns: int) -> float:
    """((R + D) / gamma)^2 rounded up (:func:`rounded_up`): inf where it leaves float range."""
    with np.errstate(over="ignore"):
        ratio = (np.float64(R) + D) / gamma
        return rounded_up(float(ratio * ratio), n_rows, n_columns)


def hinge_deficit(Z, u: NDArray, gamma: float) -> float:
    r"""Freund and Schapire's total deficit D of the unit vector u at margin gamma.

    .. math:: D = \Big(\sum_i d_i^2\Big)^{1/2},\qquad
              d_i = \max(0,\ \gamma - \langle u, z_i\rangle)
              = \gamma\, \ell_{\rm hinge}(\langle u, z_i\rangle / \gamma)

    on the signed rows z_i = y_i x'_i (Freund and Schapire 1999, Theorem 2).
    """
    return gamma * float(scipy.linalg.norm(hinge(scores(Z, u) / gamma)))


def perceptron_mistake_bound(X: ArrayLike, y: ArrayLike, fit_intercept: bool = True,
                             sample_weight: ArrayLike | None = None) -> float:
    r"""Novikoff's bound on the perceptron's mistakes on separable data.

    .. math:: M \le \left(\frac{R'}{\gamma'}\right)^2 = (R' B)^2,\qquad
              R' = \max_i \lVert x'_i\rVert,\quad
              \gamma' = \max_{\lVert u\rVert = 1} \min_i y_i\langle u, x'_i\rangle = 1/B

    on the data the perceptron runs on, x' = (1, x) when ``fit_intercept`` (Novikoff 1962;
    Shalev-Shwartz and Ben-David, Theorem 9.1). It holds for every order of the examples and
    every number of passes: it bounds the total number of updates. gamma' is the margin of
    the minimum-norm solution B of :func:`max_margin`, recomputed in floating point.

    With ``sample_weight`` s, the bound is that of the weighted perceptron, whose update on
    row i is s_i y_i x'_i (``Perceptron().fit(X, y, sample_weight=s)``). Novikoff's proof
    with those steps gives, over the updates k = 1..M on rows of positive weight,
    <w*, w_M> >= gamma' sum_k s_k and ||w_M||^2 <= R'^2 sum_k s_k^2 <= R'^2 s_max sum_k s_k,
    so

    .. math:: \sum_k s_k \le s_{\max} \left(\frac{R'}{\gamma'}\right)^2,\qquad
              M \le \frac{s_{\max}}{s_{\min}} \left(\frac{R'}{\gamma'}\right)^2

    with s_min, s_max the smallest and largest positive weights and R', gamma' those of the
    rows of positive weight (a row of weight 0 never updates: it need not be separable).
    The count M is returned; equal weights give Novikoff's bound itself (the perceptron
    is the same run on c x' for any c > 0).

    Parameters
    ----------
    X : {array-like, sparse matrix} of shape (n_samples, n_features)
        Linearly separable examples.
    y : array-like of shape (n_samples,)
        Labels in {-1, +1}, or any two values (the larger one is +1).
    fit_intercept : bool, default=True
        Bound the perceptron that learns an intercept (runs on x').
    sample_weight : array-like of shape (n_samples,), default=None
        The row weights of a weighted run (finite, >= 0, not all 0); None: all 1.

    Returns
    -------
    bound : float

    Raises
    ------
    NotSeparableError
        When the data are not separable (then see :func:`best_freund_schapire_bound`).

    Examples
    --------
    >>> from halfspaces.theory import perceptron_mistake_bound
    >>> round(perceptron_mistake_bound([[1.0], [-1.0]], [1, -1], fit_intercept=False), 9)
    1.0
    """
    _, Z = signed_sample(X, y, fit_intercept)
    ratio = 1.0
    if sample_weight is not None:
        weights = sample_weights(sample_weight, Z.shape[0])
        kept = weights > 0
        Z, ratio = Z[kept], float(weights[kept].max() / weights[kept].min())
    bound = _novikoff_bound(Z, fit_intercept)
    if ratio == 1.0:
        return bound
    # the ratio and the product each round once (half an ulp each): two ulps up cover them
    return math.nextafter(math.nextafter(bound * ratio, math.inf), math.inf)


def _novikoff_bound(Z, fit_intercept: bool) -> float:
    """(R'/gamma')^2 of the signed rows Z, rounded up."""
    # R'/gamma' is the same on c x' for any c > 0: on rows scaled to max |z_ij| in [1, 2),
    # ||w||^2 and R'^2 neither overflow (data 1e-155 gave w = 1e155) nor underflow
    scaled = Z * power_of_two_scale(Z)
    try:
        w = _novikoff_separator(scaled, fit_intercept)
    except NotSeparableError as err:
        raise _proved_on(Z, scaled, str(err)) from None
    Z = scaled
    if w is None:
        raise SolverError("the hard-margin QP returned a hyperplane that does not separate "
                          "the data in floating point; rescale X.")
    gamma = float(scores(Z, w).min() / scipy.linalg.norm(w))  # BLAS nrm2: no overflow
    if gamma == 0.0:  # ||w|| beyond 1e308 times the data: a bound beyond any float
        return math.inf
    return mistake_bound(max_row_norm(Z), 0.0, gamma, *Z.shape)


def _novikoff_separator(Z, fit_intercept: bool) -> NDArray | None:
    """The separator of B = min ||w'|| s.t. <w', z_i> >= 1, proved (None if it fails)."""
    if fit_intercept:  # features of 1e-7 next to the constant 1 fail the QP: see there
        return augmented_separator(SignedRows(Z), column_max(Z), lambda: proved_separator(
            Z, min_norm_separator(Z, free_first=True)))
    return proved_separator(Z, min_norm_separator(Z, free_first=False))


def _proved_on(Z, scaled, message: str) -> Exception:
    """The error for rows found inseparable once scaled: decided again on Z itself.

    One power of two for the whole of Z underflows entries 2^1074 times below its
    largest, and the scaled rows' certificate proved nothing about Z: (0, 1e-200),
    (0, -1e-200) and (1e200, 0) with labels +, -, + are separable, but not once the
    1e-200 entries are 0. So NotSeparableError is raised only with the certificate that
    :func:`decide` proves on Z; on separable Z the bound is refused (SolverError).
    """
    found = decide(Z)
    if not found.separable:
        if not found.exact:
            return unproved_certificate_error(found.certificate)
        return NotSeparableError(message, certificate=found.certificate)
    entries, scaled = (Z.data, scaled.data) if sp.issparse(Z) else (Z, scaled)  # alike
    lost = int(np.count_nonzero((entries != 0) & (abs(scaled) < np.finfo(np.float64).tiny)))
    return SolverError(
        "the data are separable, but B = min ||w'|| cannot be computed in float64: the "
        f"entries of y_i x'_i span more than float64 holds under one scale ({lost} of them "
        "underflow once the largest is scaled to 1). Rescale the features."
    )


def _check_u(u: ArrayLike, n_columns: int, fit_intercept: bool) -> tuple[NDArray, float]:
    """u and ||u||, refused unless ||u|| is 1 to 1e-9."""
    u = np.asarray(u, dtype=np.float64).ravel()
    if u.shape[0] != n_columns:
        first = " (the first for the constant feature)" if fit_intercept else ""
        raise ValueError(f"u has {u.shape[0]} entries; it needs {n_columns}{first}.")
    norm = float(scipy.linalg.norm(u))
    if not abs(norm - 1.0) <= 1e-9:
        raise ValueError(f"u must be a unit vector but ||u|| = {norm!r}; pass "
                         "u / np.linalg.norm(u) (the bound is stated for ||u|| = 1).")
    return u, norm


@validate_params({"gamma": [_POSITIVE], "passes": [IntegerInterval(1, None, closed="left")]},
                 prefer_skip_nested_validation=True)
def freund_schapire_bound(X: ArrayLike, y: ArrayLike, u: ArrayLike, gamma: float,
                          fit_intercept: bool = True, passes: int = 1) -> float:
    r"""Freund and Schapire's mistake bound for the online perceptron on any data.

    .. math:: M \le \left(\frac{R + D}{\gamma}\right)^2,\qquad
              D = \Big(\sum_i \max(0,\ \gamma - y_i\langle u, x'_i\rangle)^2\Big)^{1/2}

    for every unit vector u and every gamma > 0 (Freund and Schapire 1999, Theorem 2), with
    R = max ||x'_i|| and x' = (1, x) when ``fit_intercept``. It bounds the mistakes of one
    pass of :func:`halfspaces.perceptron.online_perceptron` over the sample in any order.

    Parameters
    ----------
    X : {array-like, sparse matrix} of shape (n_samples, n_features)
        The sequence of examples.
    y : array-like of shape (n_samples,)
        Labels in {-1, +1}, or any two values (the larger one is +1).
    u : array-like of shape (n_features + 1,) or (n_features,)
        A unit vector (checked to 1e-9, never normalised silently: the bound returned is
        ((R ||u|| + D) / gamma)^2, the theorem's for u / ||u|| at gamma / ||u||); with
        ``fit_intercept`` its first entry weighs the constant feature.
    gamma : float
        The target margin, > 0.
    fit_intercept : bool, default=True
        Bound the perceptron that learns an intercept (runs on x').
    passes : int, default=1
        Bound the mistakes of this many passes over the sample in the same order: the
        theorem on the sample repeated `passes` times, whose R is the same and whose D is
        sqrt(passes) times the sample's.

    Returns
    -------
    bound : float
        Rounded up past its floating-point error (:func:`rounded_up`), inf beyond floats.

    Examples
    --------
    >>> from halfspaces.theory import freund_schapire_bound
    >>> bound = freund_schapire_bound([[1.0], [-1.0], [0.5]], [1, -1, -1], [1.0], 0.5,
    ...                               fit_intercept=False)
    >>> bound >= 16.0, round(bound, 9)  # ((1 + 1)/0.5)^2, rounded up past its rounding error
    (True, 16.0)
    """
    X, Z = signed_sample(X, y, fit_intercept)
    u, norm = _check_u(u, Z.shape[1], fit_intercept)
    R = radius(X, fit_intercept)
    # the bound is the same for c z_i and c gamma: on rows scaled by a power of two to
    # R = max ||z_i|| in [1, 2) no score is subnormal. On data of 2^-1069 the scores'
    # underflow, far beyond what rounded_up allows for, gave 36.50 where the bound is 36.54.
    # Data within 2^+-500 keep every score normal: their copy is not worth its cost
    shift = _normalising_shift(R)
    scaled_gamma = _times_power_of_two(gamma, shift)
    if abs(shift) > 500 and np.finfo(np.float64).tiny <= scaled_gamma < math.inf:
        for part in _power_of_two_steps(shift):
            Z = Z * 2.0**part
        R, gamma = max_row_norm(Z), scaled_gamma
    # the theorem's bound for the unit u / ||u|| at gamma / ||u||: exact for ||u|| within
    # 1e-9 of 1, where R alone undercounted by up to 1e-9 (3.9999999928 for 4 mistakes)
    # sqrt(passes) D: the deficits d_i of each pass again, so D^2 grows passes-fold; the
    # rows counted for the rounding are those of the repeated sequence
    deficit = math.sqrt(passes) * hinge_deficit(Z, u, gamma) if passes > 1 \
        else hinge_deficit(Z, u, gamma)
    return mistake_bound(R * norm, deficit, gamma, Z.shape[0] * int(passes), Z.shape[1])


def best_freund_schapire_bound(X: ArrayLike, y: ArrayLike, fit_intercept: bool = True, *,
                               hard_margin: bool = True) -> FreundSchapireBound:
    r"""The smallest Freund-Schapire bound found over u and gamma; valid on any data.

    With v = u / gamma the bound is a convex function of v alone,

    .. math:: \left(\frac{R + D}{\gamma}\right)^2
              = \Big(R\lVert v\rVert + \big\lVert (1 - y_i\langle v, x'_i\rangle)_+
              \big\rVert_2\Big)^2,

    so the search (:func:`halfspaces._exact.smallest_root`) follows the trade-off between
    ||v|| and the hinge term (squared-hinge problems lam ||v||^2 + ||(1 - Zv)_+||^2 on a grid
    of lam), adds the hard-margin solution when the data are separable (where the bound is
    Novikoff's), and finishes with a direct descent on the convex function from the best
    point. Every u and gamma give a valid bound (Freund and Schapire 1999, Theorem 2), so the
    search is sound even where it is not optimal; the bound returned is recomputed by
    :func:`freund_schapire_bound` at (u, gamma). :func:`halfspaces.dask.best_freund_schapire_bound`
    runs the same search on a cluster.

    Parameters
    ----------
    X : {array-like, sparse matrix} of shape (n_samples, n_features)
        The sequence of examples.
    y : array-like of shape (n_samples,)
        Labels in {-1, +1}, or any two values (the larger one is +1).
    fit_intercept : bool, default=True
        Bound the perceptron that learns an intercept (runs on x').
    hard_margin : bool, default=True
        Add the hard-margin solution to the search when the data are separable. It is a
        quadratic program whose time grows about as n^1.8 (300 s, then a failure, at 10^6
        rows in the plane): pass False on many rows; the bound stays valid (and near
        Novikoff's on separable data, where the path's small lam approaches that solution).

    Returns
    -------
    result : FreundSchapireBound
        ``(bound, u, gamma)`` with ||u|| = 1. ``gamma`` is inf (or 0) where the search's
        gamma, found on the rows scaled by a power of two, leaves the floats when unscaled
        (entries 1e300); ``bound`` is then the one computed on the scaled rows, as it is
        where R itself leaves the floats (rows of norm 2e308).

    Examples
    --------
    >>> from halfspaces.theory import best_freund_schapire_bound
    >>> bound, u, gamma = best_freund_schapire_bound([[1.0], [-1.0], [0.5]], [1, -1, -1],
    ...                                              fit_intercept=False)
    >>> bound < 16.0, u.tolist()
    (True, [1.0])
    """
    X, Z = signed_sample(X, y, fit_intercept)
    found = best_freund_schapire_bound_of_rows(SignedRows(Z), hard_margin=hard_margin)
    if not 0.0 < found.gamma < math.inf:  # gamma of the scaled rows, unscaled, left floats
        return found
    bound = freund_schapire_bound(X, y, found.u, found.gamma, fit_intercept)
    # R beyond float64 (rows (1.5e308, 1.5e308)) makes the unscaled bound inf; the scaled
    # rows' bound is the same ratio, finite
    return FreundSchapireBound(bound, found.u, found.gamma) if bound < math.inf else found


def best_freund_schapire_bound_of_rows(rows: SignedRows, *,
                                       hard_margin: bool = True) -> FreundSchapireBound:
    """:func:`best_freund_schapire_bound` of signed rows held anywhere (e.g. in partitions on
    a cluster, :func:`halfspaces.dask.best_freund_schapire_bound`); `hard_margin` as there.

    The bound is ((R + D)/gamma)^2 at the (u, gamma) found, R = max_i ||z_i|| and D
    computed from the rows, each in one more pass. All-zero rows (R = 0, possible without
    an intercept) get the bound n: the perceptron errs on each of them.
    """
    n, p = rows.shape
    # the bound is the same for c z_i, c R and c gamma: the search runs on rows scaled by a
    # power of two to max |z_ij| in [1, 2), where ||v||^2 neither overflows nor underflows
    # (data 1e-200 and 1e200 made it fail). R is taken there too, not passed in: an R of
    # the unscaled rows was inf for rows of norm 1e308 (or from squares of 1e200 entries),
    # the search's lam = R^2 10^k was inf, and it ended on an empty argmin
    shift = _normalising_shift(float(np.max(rows.column_max(), initial=0.0)))
    for part in _power_of_two_steps(shift):  # 2^1066 (data 2^-1066) is two steps
        rows = rows.scaled(np.full(p, 2.0**part))
    R = rows.max_row_norm()
    if R == 0.0:  # every z_i = 0: any unit u at any gamma has D = gamma sqrt(n), bound n
        u = np.zeros(p)
        u[0] = 1.0
        return FreundSchapireBound(rounded_up(float(n), n, p), u, 1.0)
    u, gamma = _unit_and_gamma(smallest_root(rows, R, hard_margin))
    squares, _ = rows.squared_hinge(u / gamma)
    return FreundSchapireBound(mistake_bound(R, gamma * math.sqrt(squares), gamma, n, p), u,
                               _times_power_of_two(gamma, -shift))


def _normalising_shift(top: float) -> int:
    """k with 2^k top in [1, 2) (0 for top 0 or inf): the exponent power_of_two_scale stops
    at 1023, which left subnormal data (2^-1066) at 2^-43, where the search ended on a
    bound of 40 instead of the 36.8 it finds at every other scale."""
    return -(math.frexp(top)[1] - 1) if 0.0 < top < math.inf else 0


def _times_power_of_two(value: float, shift: int) -> float:
    """value 2^shift, inf or 0 where it leaves the floats (math.ldexp raises there)."""
    for part in _power_of_two_steps(shift):
        value *= 2.0**part
    return value


def _power_of_two_steps(shift: int) -> list[int]:
    """Exponents within float64's powers of two (2^-1022 to 2^1023) that sum to ``shift``."""
    steps = []
    while shift:
        steps.append(max(-1022, min(1023, shift)))
        shift -= steps[-1]
    return steps


def _unit_and_gamma(v: NDArray) -> tuple[NDArray, float]:
    """(u, gamma) = (v / ||v||, 1 / ||v||), u renormalised so that ||u|| = 1 in floating point."""
    norm = float(scipy.linalg.norm(v))
    u = v / norm
    return u / scipy.linalg.norm(u), 1.0 / norm


@validate_params({"epsilon": [_UNIT], "delta": [_UNIT],
                  "vc_dim": [IntegerInterval(0, None, closed="left")], "C": [_POSITIVE]},
                 prefer_skip_nested_validation=True)
def sample_complexity(epsilon: float, delta: float, vc_dim: int, realizable: bool = True,
                      C: float = 1.0) -> int:
    r"""Samples that suffice to PAC-learn a class of VC dimension d, up to the constant C.

    .. math:: m = \left\lceil C\,\frac{d + \ln(1/\delta)}{\epsilon}\right\rceil
              \ \text{(realizable)},\qquad
              m = \left\lceil C\,\frac{d + \ln(1/\delta)}{\epsilon^2}\right\rceil
              \ \text{(agnostic)}

    The fundamental theorem of statistical learning (Shalev-Shwartz and Ben-David, Theorem
    6.8) gives these rates with unspecified universal constants; the realizable rate without
    a log(1/epsilon) factor is Hanneke's (2016) optimal bound, which matches the lower bound
    (for ERM, Theorem 6.8 has d log(1/epsilon) in place of d). C stands for the constant.

    Parameters
    ----------
    epsilon : float
        Accuracy, in (0, 1).
    delta : float
        Confidence parameter, in (0, 1).
    vc_dim : int
        The VC dimension d >= 0 (see :func:`vc_dimension`).
    realizable : bool, default=True
        The realizable (1/epsilon) rate, or the agnostic (1/epsilon^2) one.
    C : float, default=1.0
        The universal constant, > 0.

    Returns
    -------
    m : int
        The smallest integer with m >= C (d + ln(1/delta)) / epsilon (or epsilon^2),
        computed exactly (rational arithmetic on epsilon and C as written, and ball
        arithmetic enclosing ln(1/delta) of the float delta as tightly as the ceiling
        needs), so it is right for any vc_dim, epsilon and delta.

    Examples
    --------
    >>> from halfspaces.theory import sample_complexity
    >>> sample_complexity(0.1, 0.05, vc_dim=3), sample_complexity(0.1, 0.05, 3, realizable=False)
    (60, 600)
    """
    # exact: in floats epsilon ** 2 underflows to 0 for epsilon = 1e-200, and d = 1e30 plus
    # ln(1/delta) rounds back to d, giving less than the formula. epsilon and C are read as
    # the decimals they print as (0.1 is 1/10, not the binary float just above it)
    eps = Fraction(str(float(epsilon)))
    rate = eps if realizable else eps ** 2
    return _ceiling(Fraction(str(float(C))) / rate, int(vc_dim), float(delta))


def _ceiling(scale: Fraction, d: int, delta: float) -> int:
    """ceil(scale (d + ln(1/delta))) exactly, for rational scale > 0 and a float delta in
    (0, 1).

    The float ln(1/delta) is off by up to an ulp, which moved the ceiling when the exact
    value lies just above an integer (delta just below e^-2 gave 10 where 10 + 2.6e-16 needs
    11). Ball arithmetic (Arb, through python-flint) encloses ln(1/delta) at rising
    precision until no integer lies in the enclosure of the whole expression; that ends,
    because ln(1/delta) is irrational for rational delta != 1 (Lindemann-Weierstrass), so
    the expression is never an integer.
    """
    import flint  # lazy, as in halfspaces._exact.rational

    q = flint.fmpq(scale.numerator, scale.denominator)
    delta_q = flint.fmpq(*delta.as_integer_ratio())
    # enough bits for the integer part of the answer, and some for its fraction
    bits = 64 + math.ceil(scale * (d + 1100)).bit_length()
    while True:
        with flint.ctx.workprec(bits):
            value = q * (d - flint.arb(delta_q).log())
            low, high = _exact_end(value.lower()), _exact_end(value.upper())
        if math.ceil(low) == math.ceil(high) and low != math.ceil(low):
            return math.ceil(high)
        bits *= 2


def _exact_end(end) -> Fraction:
    """An end of an Arb ball (an exact binary number) as a Fraction."""
    mantissa, exponent = end.mid().man_exp()
    return Fraction(int(mantissa)) * Fraction(2) ** int(exponent)
