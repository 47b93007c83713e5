"""Column and matrix scaling by powers of two: exact in floating point.

A product by a power of two only changes the exponent, so a problem solved on columns scaled
by powers of two, its answer mapped back, is the problem on the data as given: the solvers
see entries of order 1 whatever the units of each feature, and the data's scale can neither
fake nor hide a margin. Norms computed on scaled values neither overflow (entries of 1e200)
nor underflow (1e-200).
"""

from __future__ import annotations

import math

import numpy as np
import scipy.sparse as sp
from numpy.typing import NDArray

from halfspaces._validation import column_max_abs

__all__ = ["column_scales", "max_row_norm", "max_square_norm", "power_of_two_scale",
           "power_of_two_scales", "scale_columns", "tolerance_scale"]


def tolerance_scale(Z) -> float:
    """max(1, max |z_ij|): tolerances are absolute for data of unit scale, relative beyond."""
    if sp.issparse(Z):
        top = np.abs(Z.data).max() if Z.nnz else 0.0
    else:
        top = np.abs(Z).max() if Z.size else 0.0
    return max(1.0, float(top))


def column_scales(Z) -> NDArray:
    """Powers of two s_j with max_i |s_j z_ij| in [1, 2) (1 for a zero column).

    Solving on Z diag(s) and mapping w back by w = diag(s) w~ is exact in floating point
    (a product by a power of two only changes the exponent), so an answer found on the
    normalised columns is the answer on Z, and the solver sees entries of order 1 whatever
    the units of each feature: the data's scale can neither fake nor hide a margin.
    """
    return power_of_two_scales(column_max_abs(Z))


def power_of_two_scales(top: NDArray) -> NDArray:
    """Powers of two s with s * top in [1, 2) for top > 0, and 1 where top = 0."""
    top = np.asarray(top, dtype=np.float64)
    exponent = np.zeros(top.shape, dtype=np.int64)
    positive = top > 0
    exponent[positive] = np.frexp(top[positive])[1] - 1  # top = m 2^e, m in [0.5, 1)
    # 2^1023 is the largest power of two: subnormal columns are scaled as far as it goes
    return np.ldexp(1.0, -np.clip(exponent, -1023, 1023))


def scale_columns(Z, s: NDArray):
    """Z diag(s), CSR staying CSR; Z itself when every s_j is 1."""
    if np.all(s == 1.0):
        return Z
    if sp.issparse(Z):
        Z = Z.copy()
        Z.data *= s[Z.indices]
        return Z
    return Z * s


def max_square_norm(Z) -> float:
    """max_i ||z_i||^2 (0.0 for no rows): R'^2, as ||z_i|| = ||x'_i|| for labels ±1.

    The squares of Z's own entries: inf from entries of 1e154 up, 0 below 1e-162. For R
    itself use :func:`max_row_norm`, which scales first.
    """
    if Z.shape[0] == 0:
        return 0.0
    squares = Z.multiply(Z).sum(axis=1) if sp.issparse(Z) else np.einsum("ij,ij->i", Z, Z)
    return float(np.max(np.asarray(squares, dtype=np.float64)))


def power_of_two_scale(M) -> float:
    """A power of two c with c max_ij |M_ij| in [1, 2) (1 for zeros); M dense, CSR or 1-D.

    Multiplying by c is exact (bar subnormal results), and a theorem's ratios such as R / gamma
    do not change under a common scale; on the scaled values squares neither overflow
    (entries 1e200) nor underflow (1e-200).
    """
    top = float(abs(M).max()) if np.prod(M.shape) else 0.0
    return float(power_of_two_scales(np.array([top if top < np.inf else 0.0]))[0])


def max_row_norm(M) -> float:
    """max_i ||m_i||_2 of a float64 dense or CSR matrix (0.0 for no rows), computed on M
    scaled by a power of two: entries of 1e200 or 1e-200 give R, not inf or 0.

    The squares of the scaled rows are those of M times 4^k, exactly, and the square root
    of their sum is sqrt(sum) 2^k, exactly, so row blocks each scaled by their own power of
    two (:class:`halfspaces.dask.PartitionedRows`) give the same R, bit for bit, unless
    an entry's square is subnormal in one scaling and not the other.
    """
    c = power_of_two_scale(M)
    return math.sqrt(max_square_norm(M * c)) / c
