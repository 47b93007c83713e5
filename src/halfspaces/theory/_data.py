"""Input handling shared by the theory tools: X checked, and the signed rows z_i = y_i x'_i.

Every theorem here is stated on the data the perceptron runs on: x' = (1, x) when
``fit_intercept`` (the homogeneous reduction of :func:`halfspaces.augment`), x otherwise.
Most results only need the signed rows z_i = y_i x'_i, since y_i <w', x'_i> = <w', z_i>
(:func:`halfspaces._exact.signed_rows`).
"""

from __future__ import annotations

import math

import numpy as np
import scipy.sparse as sp
from numpy.typing import ArrayLike, NDArray
from sklearn.utils import check_array

from halfspaces._exact import max_square_norm, power_of_two_scales, signed_rows
from halfspaces._validation import (
    check_sparse_structure,
    checked_input,
    plus_minus,
    refuse_dask,
)

__all__ = [
    "check_X", "labelled_sample", "max_row_norm", "power_of_two_scale", "signed_sample",
]


def check_X(X: ArrayLike, name: str = "X") -> NDArray | sp.csr_matrix:
    """Float64 C-contiguous array or CSR matrix with at least one row and one column."""
    refuse_dask("halfspaces.theory", **{name: X})
    found = check_array(check_sparse_structure(X, name), accept_sparse="csr", dtype=np.float64,
                        order="C", accept_large_sparse=True, input_name=name)
    # canonical on a copy where needed: check_array hands back the caller's own CSR matrix,
    # which sum_duplicates() used to rewrite in place
    return checked_input(found, X, name)


def labelled_sample(X: ArrayLike, y: ArrayLike):
    """(X checked, labels): labels mapped to ±1 by ``plus_minus``."""
    refuse_dask("halfspaces.theory", y=y)
    X = check_X(X)
    return X, plus_minus(y, X.shape[0])


def signed_sample(X: ArrayLike, y: ArrayLike, fit_intercept: bool):
    """(X checked, Z): the sample and its signed rows, labels mapped to ±1 by ``plus_minus``."""
    X, labels = labelled_sample(X, y)
    return X, signed_rows(X, labels, bool(fit_intercept))


def power_of_two_scale(M) -> float:
    """A power of two c with c max_ij |M_ij| in [1, 2) (1 for zeros); M dense, CSR or 1-D.

    Multiplying by c is exact (bar subnormal results), and a theorem's ratios such as R / gamma
    do not change under a common scale; on the scaled values squares neither overflow
    (entries 1e200) nor underflow (1e-200).
    """
    top = float(abs(M).max()) if np.prod(M.shape) else 0.0
    return float(power_of_two_scales(np.array([top if top < np.inf else 0.0]))[0])


def max_row_norm(M) -> float:
    """max_i ||m_i||_2 of a dense or CSR matrix, computed on M scaled by a power of two."""
    c = power_of_two_scale(M)
    return math.sqrt(max_square_norm(M * c)) / c
