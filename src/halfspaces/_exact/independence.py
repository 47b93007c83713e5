"""Linear (in)dependence of points, proved in exact arithmetic at any width.

Theorem 9.2 of Shalev-Shwartz and Ben-David needs one fact about the rows x'_i of X': they
are linearly independent, or some a != 0 has sum_i a_i x'_i = 0. Both are proved here in
exact arithmetic, at a cost close to one pass over X' however many columns it has:

- every float is an integer times a power of two, so each column of X' times a power of two
  is a column of integers with the same dependences among the rows (:class:`IntegerColumns`);
- LU with partial pivoting on X'^T (Golub and Van Loan, Matrix Computations, 4th ed., 3.4)
  picks m columns C where a nonzero m x m minor is likely. Its rank modulo a prime q is
  m when that minor is nonzero modulo q, hence nonzero: the rows are independent, proved,
  whatever the other columns hold (:func:`first_dependence`);
- otherwise FLINT's fraction-free elimination gives the exact null space of X'[:, C],
  which holds every dependence of X';
- a vector a of that null space is a dependence of X' iff sum_i a_i x'_ij = 0 on every
  column j, checked exactly by residues modulo primes above 2^30 (vectorised, O(m p) per
  prime) until their product exceeds twice a bound on |sum_i a_i x'_ij|: a sum that is 0
  modulo such a product is 0 (the Chinese remainder theorem). A column where it fails
  joins C and the null space shrinks; when no column fails, a is proved.

No floating-point result is ever taken as evidence: floats only choose which columns to try.
"""

from __future__ import annotations

import threading
import warnings
from dataclasses import dataclass
from math import gcd

import numpy as np
import scipy.linalg
import scipy.sparse as sp
from numpy.typing import NDArray

from halfspaces._exact.signed import dyadic, nonzero_columns
from halfspaces.exceptions import SolverError

__all__ = [
    "MAX_ELIMINATION_WORK", "DependenceSpace", "IntegerColumns", "dependence_space",
    "first_dependence", "is_dependence", "nonzero_sums",
]

# r^2 c multiply-adds of FLINT's elimination on r rows and c columns; 400 x 400 floats took
# about a second (see rational.MAX_EXACT_WORK, measured 2026-11-26)
MAX_ELIMINATION_WORK = 64_000_000
_BLOCK = 1 << 16  # columns per block of the residue check: 20 rows x 65536 int64 = 10 MB
_PRIMES: list[int] = []  # primes below 2^31, largest first, grown on demand
_PRIMES_LOCK = threading.Lock()


def _primes(n: int) -> list[int]:
    """The n largest primes below 2^31 (each above 2^30 for any n this module asks for)."""
    import flint

    # one writer at a time: two threads appending the same prime would count it twice
    # in the product of moduli, and the residue check would no longer be a proof
    with _PRIMES_LOCK:
        candidate = _PRIMES[-1] - 2 if _PRIMES else 2**31 - 1
        while len(_PRIMES) < n:
            if flint.fmpz(candidate).is_prime():
                _PRIMES.append(candidate)
            candidate -= 2
        return _PRIMES[:n]


@dataclass(frozen=True)
class IntegerColumns:
    """A float matrix P as integers column by column: P_ij = M_ij 2^(shift_ij) 2^(e_j).

    Attributes
    ----------
    mantissa : ndarray of int64, shape (s, p)
        M_ij, |M_ij| < 2^53 (0 where P_ij = 0).
    shift : ndarray of int64, shape (s, p), or None
        shift_ij >= 0, below 2^11 (the span of float64's exponents); None where every
        entry of P is an integer below 2^53 (then M = P, e_j = 0): no shift at all.
    bits : ndarray of int64, shape (p,)
        A bound on the bits of column j's integers: |M_ij 2^shift_ij| < 2^bits_j.
    """

    mantissa: NDArray
    shift: NDArray | None
    bits: NDArray

    @classmethod
    def of(cls, P: NDArray) -> IntegerColumns:
        """The integer columns of a finite float64 matrix with at least one row
        (subnormals included: frexp normalises their mantissa too)."""
        if np.abs(P).max() < 2.0**53:
            # integer data (counts, pixels, planted tests): one conversion, no shifts
            mantissa = P.astype(np.int64)
            if np.array_equal(mantissa, P):
                return cls(mantissa, None, _bit_length(mantissa))
        mantissa, exponent = dyadic(P)
        used = mantissa != 0
        low = np.where(used, exponent, np.iinfo(exponent.dtype).max).min(axis=0)
        shift = np.where(used, exponent - low, 0).astype(np.int64)
        return cls(mantissa, shift, _bit_length(mantissa) + shift.max(axis=0))

    def integers(self, columns: NDArray) -> list[list[int]]:
        """The chosen columns as lists of Python integers, one list per column, each
        divided by the largest power of two that divides all of it (short integers for
        FLINT: 1.0 is 1, not 2^52 2^-52)."""
        out = []
        for j in columns:
            column = self.mantissa[:, j].tolist()
            if self.shift is not None:
                column = [x << e for x, e in zip(column, self.shift[:, j].tolist(),
                                                 strict=True)]
            low = min((x & -x).bit_length() for x in column if x) - 1
            out.append([x >> low for x in column])
        return out


def _bit_length(M: NDArray) -> NDArray:
    """The bit length of max_i |M_ij| for each column (|M| < 2^53: exact in float64)."""
    return np.frexp(np.abs(M).max(axis=0).astype(np.float64))[1].astype(np.int64)


def nonzero_sums(P: IntegerColumns, a: list[int]) -> NDArray:
    """Which columns j have sum_i a_i P_ij != 0, exactly (integers a_i).

    Residues modulo primes q above 2^30 (int64 products below 2^62): a column is nonzero
    once a residue is, and zero once its residues are zero modulo primes whose product
    exceeds twice 2^bits > |sum_i a_i M_ij 2^shift_ij|.
    """
    rows = np.flatnonzero([x != 0 for x in a])
    p = P.mantissa.shape[1]
    found = np.zeros(p, dtype=bool)
    if rows.size == 0:
        return found
    support = [a[i] for i in rows]
    value_bits = max(abs(x).bit_length() for x in support)
    bits = value_bits + P.bits + int(rows.size).bit_length()
    need = (bits + 1) // 30 + 1  # prod q > 2^(30 need) > 2^(bits + 1)
    open_ = np.arange(p)
    for t, q in enumerate(_primes(int(need.max(initial=0)))):
        open_ = open_[need[open_] > t]
        if open_.size == 0:
            break
        hit = _residues(P, rows, support, q, open_) != 0
        found[open_[hit]] = True
        open_ = open_[~hit]
    return found


def _residues(P: IntegerColumns, rows: NDArray, a: list[int], q: int,
              columns: NDArray) -> NDArray:
    """sum_i a_i M_ij 2^shift_ij mod q on the given columns, in column blocks."""
    aq = np.array([x % q for x in a], dtype=np.int64)[:, None]
    every_row = rows.size == P.mantissa.shape[0]
    if P.shift is not None:
        powers = np.array([pow(2, e, q) for e in range(int(P.shift.max()) + 1)],
                          dtype=np.int64)
    out = np.empty(columns.size, dtype=np.int64)
    for start in range(0, columns.size, _BLOCK):
        block = columns[start:start + _BLOCK]
        index = (slice(None), block) if every_row else np.ix_(rows, block)
        terms = P.mantissa[index] % q * aq % q
        if P.shift is not None:
            terms = terms * powers[P.shift[index]] % q
        out[start:start + _BLOCK] = terms.sum(axis=0) % q
    return out


@dataclass(frozen=True)
class DependenceSpace:
    """Every linear dependence of the rows of X', exactly: {a : E a = 0}.

    Attributes
    ----------
    equations : list of list of int
        E, r x m integer rows, linearly independent (r = rank X').
    basis : list of list of int
        m - r integer vectors spanning the dependences, each checked on every column.
    """

    equations: list[list[int]]
    basis: list[list[int]]

    @property
    def nullity(self) -> int:
        """The number of independent dependences: 0 iff the rows are independent."""
        return len(self.basis)


def dependence_space(Xp) -> DependenceSpace:
    """The dependences of the rows of X' (ndarray or CSR, finite), proved exactly.

    Raises
    ------
    SolverError
        When the exact elimination would exceed :data:`MAX_ELIMINATION_WORK`.
    """
    P = nonzero_columns(Xp)
    m = P.shape[0]
    if P.shape[1] == 0:  # every row is zero: every vector is a dependence
        return DependenceSpace([], [[int(i == j) for j in range(m)] for i in range(m)])
    columns = IntegerColumns.of(P)
    chosen = _first_columns(P)
    while True:
        M = _elimination(columns, chosen)
        basis = _basis(M)
        bad = np.zeros(P.shape[1], dtype=bool)
        for vector in basis:
            bad |= nonzero_sums(columns, vector)
        if not bad.any():
            R, _, rank = M.rref()
            return DependenceSpace([[int(R[i, j]) for j in range(m)] for i in range(rank)],
                                   basis)
        chosen = _grow(P, chosen, bad, basis)


def first_dependence(Xp) -> list[int] | None:
    """The dependence of the first row in the span of those before it, exactly; or None.

    With k the least index such that x'_0, ..., x'_k are dependent, the coefficients are
    a = (c, -1, 0, ...) with x'_k = sum_(i<k) c_i x'_i, as integers (a times the least
    positive integer that clears c's denominators); a = (0, ..., 1, 0, ...) where x'_k = 0.
    None when the rows are linearly independent, proved by an m x m minor that is nonzero
    modulo a prime (so nonzero). Otherwise the rank profile modulo that prime gives a k_q
    <= k (a dependence over the rationals is one modulo q), and exact elimination runs on
    the first k_q + 1 rows, then twice as many while they are independent.

    Raises
    ------
    SolverError
        When the exact elimination would exceed :data:`MAX_ELIMINATION_WORK` (the first
        dependence lies beyond hundreds of rows independent on hundreds of columns).
    """
    Xp = Xp.tocsr() if sp.issparse(Xp) else np.asarray(Xp, dtype=np.float64)
    total = Xp.shape[0]
    # any p + 1 rows of p nonzero columns are dependent, so the first dependence is
    # among the first p + 1 rows: 48,842 sparse rows of 123 columns are never densified
    P = nonzero_columns(Xp[:min(total, int(_column_used(Xp).sum()) + 1)])
    m, p = P.shape
    if p == 0:  # every row is zero: x'_0 = 0 is a dependence of its own
        return [1] + [0] * (total - 1)
    chosen = _first_columns(P)
    k = _modular_rank_profile(IntegerColumns.of(P[:, chosen]))
    if k == m:  # proved without reading the other columns exactly
        return None
    rows = k + 1
    while True:
        found = (_first_of_prefix(P, chosen=chosen) if rows == m
                 else _first_of_prefix(nonzero_columns(P[:rows])))
        if found is not None:
            return found + [0] * (total - rows)
        if rows == m:  # dependent modulo q only (q divides a minor): independent
            return None
        rows = min(2 * rows, m)


def _modular_rank_profile(columns: IntegerColumns) -> int:
    """The least k with rows 0..k dependent on these columns modulo a prime, or m.

    Reduced echelon form of the columns (as rows) modulo q: its pivots are the first
    maximal set of rows independent modulo q, so rows 0..k-1 are independent over the
    rationals too, and m means a nonzero m x m minor modulo q: independence, proved.
    """
    import flint

    m, p = columns.mantissa.shape
    R, rank = flint.nmod_mat(columns.integers(np.arange(p)), _primes(1)[0]).rref()
    pivots = set()
    for i in range(rank):
        pivots.add(next(j for j in range(m) if int(R[i, j])))
    return next((j for j in range(m) if j not in pivots), m)


def is_dependence(Xp, a: list[int]) -> bool:
    """Whether sum_i a_i x'_i = 0 exactly for the integers a_i (X' ndarray or CSR, finite)."""
    P = nonzero_columns(Xp)
    return P.shape[1] == 0 or not nonzero_sums(IntegerColumns.of(P), a).any()


def _first_of_prefix(P: NDArray, columns: IntegerColumns | None = None,
                     chosen: NDArray | None = None) -> list[int] | None:
    """:func:`first_dependence` on a block of rows (nonzero columns), eliminated at once."""
    m = P.shape[0]
    if P.shape[1] == 0:
        return [1] + [0] * (m - 1)
    columns = IntegerColumns.of(P) if columns is None else columns
    chosen = _first_columns(P) if chosen is None else chosen
    while True:
        basis = _basis(_elimination(columns, chosen))
        if not basis:
            return None
        a = _earliest(basis)
        bad = nonzero_sums(columns, a)
        if not bad.any():
            return a
        chosen = _grow(P, chosen, bad, [a])


def _column_used(Xp) -> NDArray:
    if sp.issparse(Xp):
        used = np.zeros(Xp.shape[1], dtype=bool)
        used[Xp.indices[Xp.data != 0]] = True
        return used
    return np.any(Xp != 0, axis=0)


def _first_columns(P: NDArray) -> NDArray:
    """Every column, or (wide P) m columns where a nonzero m x m minor is likely: the pivot
    rows of LU with partial pivoting on P^T, its columns scaled to max 1 (blocked, unlike
    QR with column pivoting, which took 0.7 s on 20 x 300,000)."""
    m, p = P.shape
    if p <= 2 * m:
        return np.arange(p)
    scaled = P.T / np.abs(P).max(axis=0)[:, None]
    with warnings.catch_warnings():  # a singular factor is expected of dependent rows
        warnings.simplefilter("ignore", scipy.linalg.LinAlgWarning)
        swaps = scipy.linalg.lu_factor(scaled, check_finite=False)[1]
    order = np.arange(p)
    for i, j in enumerate(swaps):
        order[[i, j]] = order[[j, i]]
    return np.sort(order[:m])


def _grow(P: NDArray, chosen: NDArray, bad: NDArray, vectors: list[list[int]]) -> NDArray:
    """chosen plus up to m of the failing columns, those of largest float residual first.

    Each added column fails one of the vectors exactly, so the null space shrinks by one
    dimension at least: at most m rounds.
    """
    m = P.shape[0]
    failing = np.flatnonzero(bad)
    top = max(abs(x) for x in vectors[0]) or 1
    a = np.array([x / top for x in vectors[0]])  # int / int: correctly rounded, no overflow
    with np.errstate(all="ignore"):
        residual = np.abs(a @ (P[:, failing] / np.abs(P[:, failing]).max(axis=0)))
    order = np.argsort(-np.nan_to_num(residual, nan=np.inf), kind="stable")
    return np.union1d(chosen, failing[order[:m]])


def _elimination(columns: IntegerColumns, chosen: NDArray):
    """The chosen columns as the rows of a FLINT integer matrix, within the budget."""
    import flint

    m = columns.mantissa.shape[0]
    if m * m * chosen.size > MAX_ELIMINATION_WORK:
        raise SolverError(
            f"the linear dependence of {m} points on {chosen.size} columns needs an exact "
            f"elimination beyond its budget ({m}^2 x {chosen.size} > "
            f"{MAX_ELIMINATION_WORK:,} multiply-adds); pass fewer points.")
    return flint.fmpz_mat(columns.integers(chosen))


def _basis(M) -> list[list[int]]:
    """Integer vectors spanning {a : M a = 0}, each divided by the gcd of its entries."""
    N, nullity = M.nullspace()
    return [_primitive([int(N[i, j]) for i in range(M.ncols())]) for j in range(nullity)]


def _earliest(basis: list[list[int]]) -> list[int]:
    """The vector of span(basis) whose last nonzero index k is least, as a = (c, -1).

    The reduced echelon form of the basis with its coordinates reversed: its last row is
    zero beyond the least such k, and unique up to scale there (rows 0..k-1 are independent).
    """
    import flint

    m = len(basis[0])
    R, _, rank = flint.fmpz_mat([row[::-1] for row in basis]).rref()
    a = _primitive([int(R[rank - 1, m - 1 - i]) for i in range(m)])
    k = max(i for i in range(m) if a[i])
    if not any(a[:k]):  # x'_k = 0: a dependence of its own, with the sign of the old search
        return [int(i == k) for i in range(m)]
    return a if a[k] < 0 else [-x for x in a]


def _primitive(v: list[int]) -> list[int]:
    g = 0
    for x in v:
        g = gcd(g, x)
    return [x // g for x in v] if g > 1 else v
