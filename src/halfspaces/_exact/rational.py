"""Gordan certificates proved in exact rational arithmetic (python-flint).

A certificate checked in floating point, |sum_i a_i z_ij| <= 1e-9 max_i |z_ij|, proves only
that no halfspace separates the rows by more than about 1e-9 of their scale: two points
1e-10 apart with opposite labels pass it, and are separable. Exact zero needs exact
arithmetic. Every float is a rational with a power-of-two denominator, so the rows on the
certificate's support are an integer matrix once each column is scaled by a power of two
(which leaves the dependences among the rows as they are). Its reduced row echelon form
over the integers (FLINT's fraction-free elimination) gives every exact dependence: the
float certificate's values on the free rows, as exact rationals, fix the others. When those
are >= 0 too, the rows combine to zero exactly and no halfspace separates them (Gordan's
theorem; Schrijver, Theory of Linear and Integer Programming, 1986, Section 7.8).
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import NamedTuple

import numpy as np
import scipy.sparse as sp
from numpy.typing import NDArray
from scipy.optimize import nnls

from halfspaces._exact.signed import as_signed_rows, dyadic, nonzero_columns
from halfspaces.exceptions import SolverError

__all__ = [
    "MAX_EXACT_SCORES", "MAX_EXACT_WORK", "ExactCheck", "exact_certificate", "exact_fits",
    "exact_least_score", "exact_margin", "exact_separator", "integer_weights",
    "rational_certificate", "residual_certificate", "unproved_certificate_error",
]

# s^2 p multiply-adds of the elimination on s support rows and p columns: 400 dense rows of
# 400 float columns take about a second with FLINT (measured 2026-11-26, 0.94 s)
MAX_EXACT_WORK = 64_000_000
# row entries whose scores exact_separator computes in Python integers (1.2 s for 10^6,
# measured 2026-11-29 on 10,000 x 100)
MAX_EXACT_SCORES = 1_000_000
# the second try drops support rows whose weight is float noise next to the largest
_NOISE = 1e-9
# the least-squares try reads every row as a dense array: at most 4e6 entries (32 MB)
_DENSE_LIMIT = 4_000_000


class ExactCheck(NamedTuple):
    """The answer of :func:`exact_certificate`."""

    certificate: NDArray | None
    """The certificate proved exactly (rounded to floats), or None."""
    checked: bool
    """False when every support tried was beyond :data:`MAX_EXACT_WORK`: no verdict."""


def exact_fits(n_rows: int, n_columns: int) -> bool:
    """Whether exact elimination on n_rows rows of n_columns nonzero columns is in budget."""
    return n_rows * n_rows * max(n_columns, 1) <= MAX_EXACT_WORK


def exact_certificate(Z, a: NDArray) -> ExactCheck:
    """An exact Gordan certificate on a's support with a's values on its free rows.

    Tried on the support {a_i > 0}, then on {a_i > 1e-9 max a}, then (on samples within the
    budget) on the support of the non-negative least-squares certificate over every row,
    which restores rows that the LP's tolerance dropped (a weight of 5e-11 below 1e-9). The
    certificate a' >= 0 has sum(a') = 1 (to rounding) and sum_i a'_i z_i = 0 in exact
    arithmetic before it is rounded to floats. ``certificate`` None with ``checked`` means
    that no such certificate exists on the supports tried: the rows may be separable by a
    margin below the float check's 1e-9.

    Parameters
    ----------
    Z : ndarray, csr_matrix or SignedRows of shape (n_rows, n_columns)
        The signed rows.
    a : ndarray of shape (n_rows,)
        A certificate checked in floating point (a >= 0, sum(a) = 1), or zeros: then only
        the least-squares certificate is tried.

    Returns
    -------
    check : ExactCheck
    """
    Z = as_signed_rows(Z)
    checked = False
    for weights in _candidates(Z, a):
        support = np.flatnonzero(weights > 0)
        if support.size == 0 or not np.all(np.isfinite(weights)):
            # no rows, no proof: an empty support once "proved" the zero vector a
            # certificate (exact=True) of separable rows
            continue
        rows = nonzero_columns(Z.take(support))
        if not exact_fits(*rows.shape):
            continue
        checked = True
        exact = _exact_weights(rows, weights[support])
        if exact is not None:
            found = np.zeros(a.shape[0])
            found[support] = exact
            return ExactCheck(found, True)
    return ExactCheck(None, checked)


def _candidates(Z, a: NDArray):
    """a; a without its float noise; the least-squares certificate over every row."""
    if np.any(a > 0):
        yield a
        strong = np.where(a > _NOISE * a.max(), a, 0.0)
        if np.count_nonzero(strong) < np.count_nonzero(a > 0):
            yield strong
    n, p = Z.shape
    if n * p > _DENSE_LIMIT or not exact_fits(n, p):
        return
    ZT = nonzero_columns(Z.take(np.arange(n))).T
    # each column scaled to max 1 (the certificate's own check is relative to it), then each
    # row z_i: a certificate of rows 1 and -1e18 weighs them 1 and 1e-18, which least
    # squares loses as noise, and c_i = a_i max|z_i| weighs them alike
    ZT = ZT / np.abs(ZT).max(axis=1, keepdims=True)
    size = np.abs(ZT).max(axis=0, initial=0.0)
    size[size == 0] = 1.0
    system = np.vstack([ZT / size, np.ones((1, n))])  # the last row asks for sum(c) = 1
    rhs = np.zeros(system.shape[0])
    rhs[-1] = 1.0
    c, _ = nnls(system, rhs)
    if np.any(c > 0):
        # b = c / size, divided by the least size on the support first: sizes span up to
        # 2^2098 (column maxima 1e175 beside entries 3e-147 make subnormal sizes), and
        # c / size overflowed to inf, and b / b.sum() to nan; off the support b is 0, not
        # 0 * (least / subnormal size) = 0 * inf = nan, which lost a valid certificate
        on = c > 0
        b = np.zeros_like(c)
        b[on] = c[on] * (size[on].min() / size[on])
        yield b / b.sum()


def _exact_weights(ZS: NDArray, a: NDArray) -> NDArray | None:
    """Weights v >= 0 on the rows of ZS with ZS^T v = 0 exactly, v_free = a_free; or None.

    The last step multiplies the integer matrix by the integer weights and asks for zero:
    that product, not the elimination, is the proof.
    """
    V = _integer_dependence(ZS, a)
    if V is None:
        return None
    total = sum(V)
    return np.array([x / total for x in V])  # int / int is correctly rounded


def _integer_dependence(ZS: NDArray, a: NDArray) -> list[int] | None:
    """:func:`_exact_weights` as integers V >= 0 (not all 0) with ZS^T V = 0 exactly."""
    import flint  # lazy: only certificates of non-separable data need it

    s = ZS.shape[0]
    M = _integer_columns(ZS)  # column j of ZS, scaled to integers, as row j (none zero)
    if M.nrows() == 0:  # every row is zero, and so a combination of its own
        return integer_weights(a)
    R, den, rank = M.rref()
    if rank == s:  # the rows are exactly independent: no dependence at all
        return None
    pivots = [next(j for j in range(s) if R[i, j] != 0) for i in range(rank)]
    free = sorted(set(range(s)) - set(pivots))
    # with a_f = n_f / 2^k exactly, V = 2^k den v is an integer vector: row i of the echelon
    # form reads den v_(pivot i) + sum_f R_if v_f = 0
    nums = integer_weights(a[free])
    V = [0] * s
    for f, n in zip(free, nums, strict=True):
        V[f] = n * int(den)
    for i, c in enumerate(pivots):
        V[c] = -sum(int(R[i, f]) * n for f, n in zip(free, nums, strict=True))
    if den < 0:
        V = [-x for x in V]
    if any(x < 0 for x in V) or not any(V):
        return None
    if any(M * flint.fmpz_mat(s, 1, V)):  # pragma: no cover - the echelon form's promise
        return None
    return V


def rational_certificate(Z, a: NDArray) -> list[Fraction] | None:
    """The exact weights behind a proved certificate `a` (which holds them rounded to floats).

    Fractions q_i >= 0 with sum(q) = 1 and sum_i q_i z_i = 0 exactly, zero off a's support,
    for a reader to check by hand or in rational arithmetic; None when none is found. The
    rounded weights are tried as they are, then as their nearby fractions of small
    denominator (XOR's 1/4 is 0.25 exactly, but a third is not a float), each checked by one
    exact pass (:func:`~halfspaces._exact.independence.is_dependence`), then, within
    :data:`MAX_EXACT_WORK`, by exact elimination on the support as :func:`exact_certificate`
    proves it.

    Parameters
    ----------
    Z : ndarray, csr_matrix or SignedRows of shape (n_rows, n_columns)
        The signed rows z_i = y_i x'_i.
    a : ndarray of shape (n_rows,)
        A certificate proved exactly (``exact=True``), rounded to floats.

    Returns
    -------
    list of Fraction of length n_rows, or None
    """
    from halfspaces._exact.independence import is_dependence

    Z = as_signed_rows(Z)
    a = np.asarray(a, dtype=np.float64)
    support = np.flatnonzero(a > 0)
    if support.size == 0 or not np.all(np.isfinite(a)):
        return None
    rows = Z.take(support)
    found = next((w for w in _nearby_integer_weights(a[support]) if is_dependence(rows, w)),
                 None)
    if found is None:
        dense = nonzero_columns(rows)
        if exact_fits(*dense.shape):
            found = _integer_dependence(dense, a[support])
    if found is None:
        return None
    total = sum(found)
    weights = [Fraction(0)] * a.shape[0]
    for i, x in zip(support.tolist(), found, strict=True):
        weights[i] = Fraction(x, total)
    return weights


def integer_weights(x: NDArray) -> list[int]:
    """Integers n_i with x_i = n_i / 2^k exactly for one k >= 0 (x finite floats)."""
    ratios = [float(v).as_integer_ratio() for v in x]
    k = max(d.bit_length() - 1 for _, d in ratios)
    return [n << (k - d.bit_length() + 1) for n, d in ratios]


def _integer_columns(ZS: NDArray):
    """The columns of ZS (none all zero: :func:`~halfspaces._exact.signed.nonzero_columns`),
    each times a power of two, as integer rows."""
    import flint

    columns = [integer_weights(column) for column in ZS.T]
    return flint.fmpz_mat(columns) if columns else flint.fmpz_mat(0, ZS.shape[0])


def exact_margin(rows, w: NDArray, n_unpenalised: int) -> float:
    """min_i <w, z_i> / ||w[n_unpenalised:]|| over `rows`, exactly, rounded down to a float.

    The scores and the squared norm are exact (every float is an integer times a power of
    two, and so are their products and sums: Python integers, no rounding), and the square
    root is taken on integers (isqrt) with 64 bits to spare, so the float returned is at
    most the exact margin and at most an ulp below it (1.0 where the margin is exactly 1).
    0.0 when a score is <= 0; inf when the norm is 0 or there are no rows.

    Parameters
    ----------
    rows : ndarray or csr_matrix of shape (n_rows, n_columns)
        The signed rows z_i that may hold the least score.
    w : ndarray of shape (n_columns,)
    n_unpenalised : int
        Leading entries of w outside the norm (1 for an intercept measured on x, not x').
    """
    from fractions import Fraction

    w = np.asarray(w, dtype=np.float64)
    scores = list(_exact_scores(rows, w))
    penalised = w[n_unpenalised:]
    norm_int, norm_exp = _exact_dot(penalised, penalised)
    if not scores or norm_int == 0:
        return np.inf
    low = min(e for _, e in scores)
    least = min(t << (e - low) for t, e in scores)  # the least score is least 2^low
    if least <= 0:
        return 0.0
    # margin^2 = least^2 2^(2 low) / (norm_int 2^norm_exp)
    return _sqrt_rounded_down(Fraction(least * least, norm_int), 2 * low - norm_exp)


def unproved_certificate_error(certificate: NDArray) -> SolverError:
    """The error for a certificate that passed its float check but was not proved exactly
    (its support beyond :data:`MAX_EXACT_WORK` and its residual not exactly 0): a float
    check passes rows 1e-10 apart with opposite labels, which are separable, so only an
    exact certificate proves that nothing separates the data."""
    support = int(np.count_nonzero(np.asarray(certificate) > 0))
    return SolverError(
        "separability cannot be decided: the LP's certificate passes its floating-point "
        "check (|sum_i a_i z_ij| <= 1e-9 max_i |z_ij|), which proves only that no halfspace "
        "separates the data by more than about 1e-9 of each feature's scale, and its "
        f"support of {support} rows is beyond the budget of the exact proof (about 400 rows "
        "of 400 features). Fewer features, or a subsample, can be decided."
    )


def residual_certificate(Z, a: NDArray) -> NDArray | None:
    """a, or a nearby rational vector b >= 0, when its rows combine to 0 exactly (b rounded
    to floats, normalised); None otherwise. For certificates beyond :data:`MAX_EXACT_WORK`.

    No elimination: the LP's weights are tried as they are, then each as the nearest
    fraction of denominator at most 2^8, 2^16, 2^24 (continued fractions, Python's
    limit_denominator), since they carry the LP's rounding (0.25000000000000006 for XOR's
    1/4). Each try is one exact pass over the support's rows by residues modulo primes
    (:func:`~halfspaces._exact.independence.is_dependence`), whatever their number.
    """
    from halfspaces._exact.independence import is_dependence

    Z = as_signed_rows(Z)
    support = np.flatnonzero(a > 0)
    if support.size == 0:
        return None
    rows = Z.take(support)
    for weights in _nearby_integer_weights(a[support]):
        if is_dependence(rows, weights):
            found = np.zeros(a.shape[0])
            total = sum(weights)
            found[support] = [x / total for x in weights]  # int / int: correctly rounded
            return found
    return None


def _nearby_integer_weights(a: NDArray):
    """a as integers (a common power of two), then a's nearby fractions as integers."""
    from fractions import Fraction

    yield integer_weights(a)
    for bits in (8, 16, 24):
        near = [Fraction(float(x)).limit_denominator(2**bits) for x in a]
        if any(q <= 0 for q in near):
            continue
        common = math.lcm(*(q.denominator for q in near))
        yield [int(q * common) for q in near]


def exact_separator(rows, w: NDArray) -> NDArray | None:
    """w times a power of two with every exact score <w, z_i> >= 1, or None.

    For few rows (at most :data:`MAX_EXACT_SCORES` entries): the scores are computed in
    exact rational arithmetic (:func:`exact_least_score`), so no rounding error bound is
    needed (the proof of a separator whose float scores cancel too much for one), and a
    power of two scales them exactly. None when the least of them is <= 0, when the power
    of two would overflow w, or with too many rows.
    """
    if not np.all(np.isfinite(w)) or np.prod(rows.shape) > MAX_EXACT_SCORES:
        return None
    least = exact_least_score(rows, w)
    if least is None or least <= 0:
        return None
    # least = n / d >= 2^(bits(n) - 1 - bits(d)), so 2^k least >= 1
    k = max(0, least.denominator.bit_length() - least.numerator.bit_length() + 1)
    with np.errstate(over="ignore"):
        scaled = np.ldexp(w, k)
    if not np.all(np.isfinite(scaled)) or exact_least_score(rows, scaled) < 1:
        return None
    return scaled


def exact_least_score(rows, w: NDArray):
    """min_i <w, z_i> over `rows` exactly, as a Fraction (None for no rows).

    Every float is an integer times a power of two, so each score is one too (Python
    integers, no rounding): the proof of a separator whose float scores cancel too much for
    :func:`~halfspaces._exact.feasibility.score_error_bound`.
    """
    from fractions import Fraction

    scores = list(_exact_scores(rows, np.asarray(w, dtype=np.float64)))
    if not scores:
        return None
    low = min(e for _, e in scores)
    return Fraction(min(t << (e - low) for t, e in scores)) * Fraction(2) ** low


def _exact_scores(rows, w: NDArray):
    """Each row's <z_i, w> exactly, as (t, e) for t 2^e."""
    mw, ew = dyadic(w)
    if sp.issparse(rows):
        rows = sp.csr_matrix(rows)
        mz, ez = dyadic(rows.data)
        for i in range(rows.shape[0]):
            part = slice(rows.indptr[i], rows.indptr[i + 1])
            j = rows.indices[part]
            yield _dyadic_dot(mz[part], ez[part], mw[j], ew[j])
    else:
        mz, ez = dyadic(np.asarray(rows, dtype=np.float64))
        for i in range(mz.shape[0]):
            yield _dyadic_dot(mz[i], ez[i], mw, ew)


def _exact_dot(a: NDArray, b: NDArray) -> tuple[int, int]:
    """sum_j a_j b_j exactly, as (t, e) for the integer t times 2^e."""
    return _dyadic_dot(*dyadic(a), *dyadic(b))


def _dyadic_dot(ma: NDArray, ea: NDArray, mb: NDArray, eb: NDArray) -> tuple[int, int]:
    """sum_j (ma_j 2^ea_j)(mb_j 2^eb_j) as (t, e) for t 2^e: each product is an integer
    times a power of two, and their sum one integer over the smallest of those powers."""
    keep = (ma != 0) & (mb != 0)
    if not keep.any():
        return 0, 0
    exponents = ea[keep] + eb[keep]
    low = int(exponents.min())
    return sum(x * y << e for x, y, e in zip(ma[keep].tolist(), mb[keep].tolist(),
                                             (exponents - low).tolist(), strict=True)), low


def _sqrt_rounded_down(q, shift: int = 0) -> float:
    """The largest float <= sqrt(q 2^shift) (to within an ulp) for a rational q > 0, with
    no overflow or underflow on the way: the root of 2^(2k) q as an integer, over 2^k."""
    import math
    from fractions import Fraction

    n, d = q.numerator, q.denominator
    if shift % 2:  # an even power of two comes out of the root exactly
        n, shift = n << 1, shift - 1
    k = 64 - (n.bit_length() - d.bit_length()) // 2  # the root gets about 64 bits
    # sqrt(n / d) >= isqrt(n 4^k / d) / 2^k, the floor of an integer division included
    scaled = (n << 2 * k) // d if k >= 0 else n // (d << -2 * k)
    root = Fraction(math.isqrt(scaled)) * Fraction(2) ** (shift // 2 - k)
    try:
        m = float(root)
    except OverflowError:
        return float(np.finfo(np.float64).max)
    return m if Fraction(m) <= root else math.nextafter(m, 0.0)
