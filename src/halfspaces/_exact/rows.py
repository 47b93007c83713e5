"""The signed rows z_i = y_i x'_i every exact problem is stated on, and small helpers on them.

A halfspace sign(<w, x> + b) is the homogeneous halfspace sign(<w', x'>) on x' = (1, x) with
w' = (b, w) (:func:`halfspaces.augment`), and y_i <w', x'_i> = <w', z_i>. So separability,
the hard margin, the hinge LP and the 0-1 MILP all need Z alone, with rows z_i; CSR input
stays CSR so that large sparse samples reach HiGHS without being densified.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from numpy.typing import NDArray

from halfspaces._validation import augment, column_max_abs

__all__ = [
    "column_max", "column_scales", "power_of_two_scales", "scale_columns", "scores",
    "signed_rows", "split_intercept", "tolerance_scale",
]


def signed_rows(X: NDArray | sp.csr_matrix, y_pm: NDArray, fit_intercept: bool):
    """Z with rows z_i = y_i x'_i (x' = (1, x) when ``fit_intercept``); CSR stays CSR.

    Parameters
    ----------
    X : ndarray or csr_matrix of shape (n_samples, n_features)
        The examples, already validated.
    y_pm : ndarray of shape (n_samples,)
        Labels in {-1, +1}, as floats.
    fit_intercept : bool
        Prepend the constant feature.

    Returns
    -------
    Z : ndarray or csr_matrix of shape (n_samples, n_features + fit_intercept)

    Examples
    --------
    >>> import numpy as np
    >>> from halfspaces._exact import signed_rows
    >>> signed_rows(np.array([[2.0], [3.0]]), np.array([1.0, -1.0]), True)
    array([[ 1.,  2.],
           [-1., -3.]])
    """
    Xa = augment(X) if fit_intercept else X
    if sp.issparse(Xa):
        return sp.csr_matrix(sp.diags(y_pm) @ Xa)
    return y_pm[:, None] * Xa


def tolerance_scale(Z) -> float:
    """max(1, max |z_ij|): tolerances are absolute for data of unit scale, relative beyond."""
    if sp.issparse(Z):
        top = np.abs(Z.data).max() if Z.nnz else 0.0
    else:
        top = np.abs(Z).max() if Z.size else 0.0
    return max(1.0, float(top))


# max_i |z_ij| for each column j: the size every column-wise tolerance is relative to
column_max = column_max_abs


def column_scales(Z) -> NDArray:
    """Powers of two s_j with max_i |s_j z_ij| in [1, 2) (1 for a zero column).

    Solving on Z diag(s) and mapping w back by w = diag(s) w~ is exact in floating point
    (a product by a power of two only changes the exponent), so an answer found on the
    normalised columns is the answer on Z, and the solver sees entries of order 1 whatever
    the units of each feature: the data's scale can neither fake nor hide a margin.
    """
    return power_of_two_scales(column_max(Z))


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


def scores(Z, w: NDArray) -> NDArray:
    """The functional margins <w', z_i> = y_i <w', x'_i> as a flat float64 array."""
    return np.asarray(Z @ w, dtype=np.float64).ravel()


def split_intercept(w: NDArray, fit_intercept: bool) -> tuple[NDArray, float]:
    """(coef, intercept) from w' = (b, w) when ``fit_intercept``, else (w, 0.0); copies."""
    return (w[1:].copy(), float(w[0])) if fit_intercept else (w.copy(), 0.0)
