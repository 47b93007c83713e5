"""Input handling shared by the theory tools: labels to ±1 and the signed rows z_i = y_i x'_i.

Every theorem here is stated on the data the perceptron runs on: x' = (1, x) when
``fit_intercept`` (the homogeneous reduction of :func:`halfspaces.augment`), x otherwise.
Most results only need the signed rows z_i = y_i x'_i, since y_i <w', x'_i> = <w', z_i>.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from numpy.typing import ArrayLike, NDArray
from sklearn.utils import check_array
from sklearn.utils.multiclass import check_classification_targets

from halfspaces._validation import augment

__all__ = ["check_X", "plus_minus", "signed_rows", "tolerance_scale"]


def check_X(X: ArrayLike, name: str = "X") -> NDArray | sp.csr_matrix:
    """Float64 C-contiguous array or CSR matrix with at least one row and one column."""
    X = check_array(X, accept_sparse="csr", dtype=np.float64, order="C",
                    accept_large_sparse=True, input_name=name)
    if sp.issparse(X):
        X.sum_duplicates()
        X.sort_indices()
    return X


def plus_minus(y: ArrayLike, n_samples: int) -> NDArray:
    """Labels as ±1: values in {-1, +1} are kept, any two other values map as in the estimators.

    For two values the positive class is the larger one (``classes_[1]``), exactly as the
    estimators map them; ±1 labels therefore keep their sign.
    """
    y = np.asarray(y).ravel()
    if y.shape[0] != n_samples:
        raise ValueError(f"y has {y.shape[0]} labels but X has {n_samples} rows; pass one label per row.")
    if y.dtype.kind in "iufb" and np.all((y == 1) | (y == -1)):
        return y.astype(np.float64)
    check_classification_targets(y)
    classes, index = np.unique(y, return_inverse=True)
    if classes.size != 2:
        raise ValueError(
            f"y holds {classes.size} classes {classes!r}; the theory tools are binary: pass "
            "labels in {-1, +1} or exactly two distinct values (one-vs-rest for more)."
        )
    return np.where(index.ravel() == 1, 1.0, -1.0)


def signed_rows(X: NDArray | sp.csr_matrix, y_pm: NDArray, fit_intercept: bool):
    """Z with rows z_i = y_i x'_i; CSR stays CSR, dense stays dense."""
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
