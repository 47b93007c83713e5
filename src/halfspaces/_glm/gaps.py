"""Certified duality gaps: bounds on J(w) - J* that rounding cannot make too small.

A duality gap P(w) - D(a) bounds the suboptimality of w only when both values are the exact
values of the points given, yet they are computed in float64. Every evaluation here returns a
bound that holds for the exact value instead: an upper bound for the primal, a lower bound
for the dual, from the standard a-priori error bounds of floating-point summation and dot
products (Higham [1]_, Section 3.1: a sum of k products computed in any order is within
gamma_k sum |x_j w_j| of the exact one, gamma_k = k u / (1 - k u), u = 2^-53), and sums of
many terms taken with :func:`math.fsum`, correctly rounded (Shewchuk [2]_), so that their
error is half an ulp of the result whatever n is.

References
----------
.. [1] N. J. Higham. Accuracy and Stability of Numerical Algorithms, 2nd edition. SIAM,
   2002. Chapter 3 (error bounds of sums and inner products).
.. [2] J. R. Shewchuk. Adaptive precision floating-point arithmetic and fast robust
   geometric predicates. Discrete & Computational Geometry 18, 1997 (``math.fsum``).
"""

from __future__ import annotations

import math

import numpy as np
import scipy.sparse as sp
from numpy.typing import NDArray

from halfspaces._fast import loop_input, products

__all__ = [
    "UNIT_ROUNDOFF", "column_products", "dot_errors", "gamma", "lower_sum", "row_products",
    "squared_norm_upper", "up", "upper_sum",
]

UNIT_ROUNDOFF = 2.0**-53
"""u: the relative error of one float64 operation rounded to nearest."""

# a matrix of weight vectors (one column per class) is taken a block of rows at a time, each
# block cast to float64 on its own (about 2 MB of float64), so that a float32 X is never
# copied whole into float64; a vector goes through the compiled loops, which copy nothing
_BLOCK_ELEMENTS = 1 << 18


def gamma(k: int) -> float:
    """gamma_k = k u / (1 - k u), rounded up: the relative error bound of k operations."""
    ku = k * UNIT_ROUNDOFF
    if ku >= 0.5:
        return math.inf  # beyond the bound's validity: nothing is certified
    return up(up(ku) / (1.0 - ku))


def up(value: float, operations: int = 1) -> float:
    """An upper bound on the exact result of ``operations`` float64 operations that gave
    ``value`` (each rounded to nearest, so within one ulp of the exact value per step)."""
    for _ in range(operations):
        value = math.nextafter(value, math.inf)
    return value


def upper_sum(terms) -> float:
    """An upper bound on the exact sum of float64 terms: their correctly rounded sum, one ulp
    up (``math.fsum`` is within half an ulp of the exact sum, for any number of terms)."""
    return up(math.fsum(np.asarray(terms, dtype=np.float64).ravel().tolist()))


def lower_sum(terms) -> float:
    """A lower bound on the exact sum of float64 terms (see :func:`upper_sum`)."""
    return -upper_sum(-np.asarray(terms, dtype=np.float64))


def _loop_rows(X):
    """X as the compiled loops take it (CSR arrays; another sparse format converted)."""
    if sp.issparse(X) and X.format != "csr":
        X = sp.csr_matrix(X)
    return loop_input(X)


def _row_blocks(X):
    """Consecutive blocks of X's rows as float64 copies (CSR for sparse X), about
    ``_BLOCK_ELEMENTS`` entries (stored entries for CSR) each: (start, stop, block)."""
    n = X.shape[0]
    if sp.issparse(X):
        X = sp.csr_matrix(X) if X.format != "csr" else X
        per_row = max(X.nnz / max(n, 1), 1.0)
    else:
        per_row = max(X.shape[1], 1)
    step = max(int(_BLOCK_ELEMENTS // per_row), 1)
    for start in range(0, n, step):
        stop = min(start + step, n)
        block = X[start:stop]
        # a copy (never a view of X), which the caller may overwrite with its absolute values
        yield start, stop, (block.astype(np.float64) if sp.issparse(block)
                            else np.array(block, dtype=np.float64))


def row_products(X, w: NDArray) -> tuple[NDArray, NDArray]:
    """(X @ w, |X| @ |w|) in float64 without a float64 copy of X.

    ``w`` is a vector (results of length n) or a matrix of k columns (n x k results).
    """
    w = np.asarray(w, dtype=np.float64)
    shape = (X.shape[0],) + w.shape[1:]
    scores, magnitudes = np.empty(shape), np.empty(shape)
    if w.ndim == 1:
        products.row_products(_loop_rows(X), w, np.abs(w), scores, magnitudes)
        return scores, magnitudes
    abs_w = np.abs(w)
    for start, stop, block in _row_blocks(X):
        scores[start:stop] = np.asarray(block @ w)
        block = abs(block) if sp.issparse(block) else np.abs(block, out=block)
        magnitudes[start:stop] = np.asarray(block @ abs_w)
    return scores, magnitudes


def column_products(X, v: NDArray, a: NDArray) -> tuple[NDArray, NDArray]:
    """(X^T v, |X|^T a) in float64 without a float64 copy of X (one compiled pass)."""
    v = np.ascontiguousarray(v, dtype=np.float64)
    a = np.ascontiguousarray(a, dtype=np.float64)
    sums, magnitudes = np.zeros(X.shape[1]), np.zeros(X.shape[1])
    products.column_products(_loop_rows(X), v, a, sums, magnitudes)
    return sums, magnitudes


def dot_errors(X, w: NDArray) -> NDArray:
    """e_i >= |<x_i, w> - fl(<x_i, w>)| for the rows of X, whatever order the products of a
    row are summed in (BLAS and Numba's vectorised loops reorder them).

    |x_i| |w| is itself computed in float64: it is multiplied by gamma of two operations
    more than the row has terms, which covers its own rounding (Higham, Lemma 3.4).
    """
    return row_products(X, w)[1] * gamma(X.shape[1] + 2)


def squared_norm_upper(v: NDArray) -> float:
    """An upper bound on the exact ||v||^2 of a float64 vector (each square rounded once)."""
    return up(upper_sum(np.square(v)) * (1.0 + 2.0 * UNIT_ROUNDOFF))
