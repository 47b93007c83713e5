"""X times a vector and |X| times a vector, in float64, in one compiled pass without a copy of X.

The certified duality gaps (:mod:`halfspaces._glm.gaps`) need X w, X^T v and the same
products with |X|, whose values bound the rounding error of the first. NumPy and SciPy take
a float32 X times a float64 vector by first copying X into float64 (twice X's memory), and
|X| is one more copy of X; these loops read X in place, each float32 entry widened exactly
to float64 as it is read, and write only their length-n or length-d results.

Each result is a sum of products taken in some order (the dense row's in a vectorised,
reassociated order), which is all the a-priori bounds of the gaps assume (Higham,
*Accuracy and Stability of Numerical Algorithms*, Section 3.1).
"""

from __future__ import annotations

from numba import njit

from halfspaces._fast._dense_or_csr import (
    n_rows,
    row_abs_axpy,
    row_abs_dot,
    row_axpy,
    row_dot,
    row_squared_norm,
)


@njit(cache=True, nogil=True)
def row_products(X, w, abs_w, scores, magnitudes):
    """scores[i] = <x_i, w> and magnitudes[i] = <|x_i|, abs_w> (``abs_w`` = |w|)."""
    for i in range(n_rows(X)):
        scores[i] = row_dot(X, i, w)
        magnitudes[i] = row_abs_dot(X, i, abs_w)


@njit(cache=True, nogil=True)
def column_products(X, v, a, products, magnitudes):
    """products += X^T v and magnitudes += |X|^T a (both length d, zeroed by the caller)."""
    for i in range(n_rows(X)):
        if v[i] != 0.0:
            row_axpy(X, i, v[i], products)
        if a[i] != 0.0:
            row_abs_axpy(X, i, a[i], magnitudes)


@njit(cache=True, nogil=True)
def row_squared_norms(X, out):
    """out[i] = ||x_i||^2 in float64 (SciPy's ``X.multiply(X)`` would copy a CSR X twice)."""
    for i in range(n_rows(X)):
        out[i] = row_squared_norm(X, i)
