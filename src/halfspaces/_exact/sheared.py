r"""Columns that are dependent in floating point but not exactly, sheared apart.

A column derived from others, such as 0.3 x_0 + 0.7 x_1 or the redundant features of
``make_classification``, is computed in floating point: it differs from the combination by
rounding errors of 1e-16 of its size, so the columns of X are exactly independent while the
LP, whose tolerances are 1e-9 and coarser, reads them as dependent. The LP's certificate
then lives on too few rows to hold exactly, and a separator that uses the rounding errors
is beyond its reach. Both questions are the same on Z M for any invertible M (w' separates
Z M iff M w' separates Z; a certificate is one for both), so each direction v in which the
columns nearly cancel (a small singular value of Z, Golub and Van Loan, Matrix Computations,
4th ed., 2.4) replaces one column of Z by Z v, computed to about twice float64's precision
(Ogita, Rump and Oishi, Accurate sum and dot product, SIAM J. Sci. Comput. 26, 2005,
Algorithm 5.3): the rounding errors become a column of their own, scaled like every other
to order 1, where the LP sees them. Nothing here is a proof: the answer found on Z M is
proved on Z itself by :mod:`.feasibility` (an exact certificate or exact scores).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.linalg
import scipy.sparse as sp
from numpy.typing import NDArray

from halfspaces._exact.signed import column_max
from halfspaces._utils.scaling import power_of_two_scales

__all__ = ["DENSE_LIMIT", "Sheared", "shear"]

# the rows are read as one dense array for the SVD: at most 4e6 entries (32 MB)
DENSE_LIMIT = 4_000_000
# singular values below this times the largest are directions the LP cannot tell from 0
# (HiGHS's feasibility tolerances are 1e-7, the certificate check's 1e-9); shearing a
# direction that did not need it costs nothing, M stays invertible
_NULL_TOL = 1e-7
_SPLIT = 134217729.0  # 2^27 + 1, Veltkamp's splitting constant for float64


@dataclass(frozen=True)
class Sheared:
    """The rows Z M (rounded to float64, columns of order 1) and M's pieces.

    Attributes
    ----------
    rows : ndarray of shape (n_rows, n_columns)
        Z M, with M = diag(s) T diag(t), rounded once per entry.
    s, t : ndarray of shape (n_columns,)
        Powers of two: s scales Z's columns to order 1, t those of Z diag(s) T.
    T : ndarray of shape (n_columns, n_columns)
        The identity with columns J replaced by the near-null directions v.
    J : ndarray of int
        Those columns.
    """

    rows: NDArray
    s: NDArray
    T: NDArray
    t: NDArray

    J: NDArray

    def separator(self, w: NDArray) -> NDArray:
        """The weights M w on Z for weights w on Z M, each rounded once (a candidate).

        Where the margin is an ulp of the weights (points 2^53 and 2^53 - 2 against
        2^53 - 4: b = -(2^53 - 3) alone fits), a weight rounded twice misses it: T x is
        summed in twice float64's precision, and s and t are powers of two.
        """
        with np.errstate(all="ignore"):  # weights beyond float64 come out inf or nan
            x = self.t * w
            rest = x.copy()
            rest[self.J] = 0.0
            return self.s * accurate_product(self.T[:, self.J], x[self.J], rest)


def shear(rows) -> Sheared | None:
    """Z M for the rows Z (ndarray or CSR, at most :data:`DENSE_LIMIT` entries), or None
    when no direction of Z's columns is below :data:`_NULL_TOL` of the largest."""
    Z = rows.toarray() if sp.issparse(rows) else np.asarray(rows, dtype=np.float64)
    n, p = Z.shape
    if n == 0 or p < 2 or n * p > DENSE_LIMIT:
        return None
    s = power_of_two_scales(column_max(Z))
    P = Z * s
    try:
        _, S, Vt = scipy.linalg.svd(P, full_matrices=False)
    except np.linalg.LinAlgError:  # gesdd did not converge: no shear, no answer lost
        return None
    # only directions in the row space (the first min(n, p)): with more columns than rows
    # the others are exact dependences, and Z v would be v's own rounding errors
    small = np.flatnonzero(S <= _NULL_TOL * S[0]) if S.size and S[0] > 0 else []
    if len(small) == 0:
        return None
    N = Vt[small].T  # p x k, orthonormal
    # one column of T per direction, at the rows where N is best conditioned, so that T
    # is invertible (det T = det N[J]) and far from singular
    J = scipy.linalg.qr(N.T, pivoting=True, mode="economic")[2][:N.shape[1]]
    T = np.eye(p)
    T[:, J] = N
    Q = P.copy()
    for k, j in enumerate(J):
        Q[:, j] = accurate_product(P, N[:, k])
    t = power_of_two_scales(column_max(Q))
    return Sheared(Q * t, s, T, t, J)


def accurate_product(P: NDArray, v: NDArray, start: NDArray | None = None) -> NDArray:
    """start + P v as if computed in twice float64's precision, then rounded (Dot2: error
    at most u |P v| + gamma_p^2 sum_j |P_ij v_j|, Ogita, Rump and Oishi 2005).

    Entries of P v that are rounding errors of 1e-16 against terms of order 1 come out
    accurate to about 1e-16 of themselves, where P @ v is all noise.
    """
    total = np.zeros(P.shape[0]) if start is None else np.array(start, dtype=np.float64)
    carry = np.zeros(P.shape[0])
    for j in range(P.shape[1]):
        high, low = _two_product(P[:, j], float(v[j]))
        total, error = _two_sum(total, high)
        carry += error + low
    return total + carry


def _two_sum(a: NDArray, b: NDArray) -> tuple[NDArray, NDArray]:
    """(a + b rounded, its exact error) (Knuth's TwoSum)."""
    s = a + b
    z = s - a
    return s, (a - (s - z)) + (b - z)


def _two_product(a: NDArray, b: float) -> tuple[NDArray, NDArray]:
    """(a b rounded, its exact error) by Veltkamp's splitting (Dekker's TwoProduct):
    no FMA in NumPy; exact for |a|, |b| well inside float64's range."""
    p = a * b
    a_hi, a_lo = _split(a)
    b_hi, b_lo = _split(np.float64(b))
    return p, a_lo * b_lo - (((p - a_hi * b_hi) - a_lo * b_hi) - a_hi * b_lo)


def _split(a):
    c = _SPLIT * a
    hi = c - (c - a)
    return hi, a - hi
