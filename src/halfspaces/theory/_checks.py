"""Input handling shared by the theory tools: X checked, and the signed rows z_i = y_i x'_i.

Every theorem here is stated on the data the perceptron runs on: x' = (1, x) when
``fit_intercept`` (the homogeneous reduction of :func:`halfspaces.augment`), x otherwise.
Most results only need the signed rows z_i = y_i x'_i, since y_i <w', x'_i> = <w', z_i>
(:func:`halfspaces._exact.signed`).
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from numpy.typing import ArrayLike, NDArray
from sklearn.utils import check_array

from halfspaces._exact import signed_rows
from halfspaces._utils.rounding import refuse_rounded_values
from halfspaces._validation import (
    check_sparse_structure,
    checked_input,
    plus_minus,
    refuse_dask,
)

__all__ = [
    "check_X", "labelled_sample", "signed_sample",
]


def check_X(X: ArrayLike, name: str = "X") -> NDArray | sp.csr_matrix:
    """Float64 C-contiguous array or CSR matrix with at least one row and one column."""
    refuse_dask("halfspaces.theory", **{name: X})
    given = check_sparse_structure(X, name)
    found = check_array(given, accept_sparse="csr", dtype=np.float64, order="C",
                        accept_large_sparse=True, input_name=name)
    refuse_rounded_values(given, found, name)
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
