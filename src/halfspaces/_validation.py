"""Input checks shared by every estimator: labels, one-vs-rest targets and the constant feature.

The homogeneous reduction x' = (1, x) is how the lecture notes turn an affine halfspace
sign(<w, x> + b) into a homogeneous one sign(<w', x'>). The kernels apply it implicitly (a
bias slot in the weight vector, scaled by ``fit_intercept``) so X is never copied;
:func:`augment` builds x' explicitly for users and for the theory tools.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from numpy.typing import ArrayLike, NDArray
from sklearn.utils import check_array
from sklearn.utils.multiclass import check_classification_targets

__all__ = ["augment", "binary_targets", "check_partial_fit_classes", "encode_classes"]


def augment(X: ArrayLike) -> NDArray | sp.csr_matrix:
    """Return x' = (1, x) for every row of X: the homogeneous reduction.

    A halfspace sign(<w, x> + b) on X is the homogeneous halfspace sign(<w', x'>) on
    ``augment(X)`` with w' = (b, w).

    Parameters
    ----------
    X : array-like or sparse matrix of shape (n_samples, n_features)
        The data. Dense input stays dense (float32 is kept), sparse input becomes CSR.

    Returns
    -------
    X_aug : ndarray or csr_matrix of shape (n_samples, n_features + 1)
        X with a first column of ones.

    Examples
    --------
    >>> import numpy as np
    >>> from halfspaces import augment
    >>> augment(np.array([[2.0, 3.0], [4.0, 5.0]]))
    array([[1., 2., 3.],
           [1., 4., 5.]])
    """
    X = check_array(X, accept_sparse=("csr", "csc", "coo"), dtype=(np.float64, np.float32),
                    accept_large_sparse=True, ensure_min_samples=0)
    ones = np.ones((X.shape[0], 1), dtype=X.dtype)
    if sp.issparse(X):
        return sp.hstack([sp.csr_matrix(ones), X], format="csr", dtype=X.dtype)
    return np.hstack([ones, X])


def encode_classes(y: ArrayLike) -> tuple[NDArray, NDArray]:
    """Sorted class labels and the index of each sample's label; at least two classes."""
    y = np.asarray(y)
    check_classification_targets(y)
    classes, y_index = np.unique(y, return_inverse=True)
    if classes.size < 2:
        raise ValueError(
            f"y contains only one class ({classes.tolist()[0]!r}); a classifier needs samples of at "
            "least 2 classes."
        )
    return classes, y_index.ravel()


def check_partial_fit_classes(
    y: ArrayLike, classes: ArrayLike | None, known: NDArray | None
) -> tuple[NDArray, NDArray]:
    """Classes for a partial_fit call and the index of each label among them.

    ``known`` is classes_ from an earlier call (None on the first). ``classes`` may be omitted
    on the first call when the batch itself holds at least two labels.
    """
    y = np.asarray(y)
    check_classification_targets(y)
    if known is None:
        if classes is None:
            classes = np.unique(y)
            if classes.size < 2:
                raise ValueError(
                    "classes must be passed on the first call to partial_fit when the first "
                    "batch holds fewer than 2 labels."
                )
        known = np.unique(np.asarray(classes))
        if known.size < 2:
            raise ValueError(f"classes={classes!r} names fewer than 2 classes.")
    elif classes is not None and not np.array_equal(np.unique(classes), known):
        raise ValueError(
            f"classes={np.unique(classes)!r} differs from the classes of the earlier "
            f"partial_fit calls, {known!r}."
        )
    y_index = np.searchsorted(known, y)
    y_index = np.clip(y_index, 0, known.size - 1)
    unknown = known[y_index] != y
    if np.any(unknown):
        raise ValueError(
            f"y contains labels {np.unique(y[unknown])!r} that are not in classes_ {known!r}."
        )
    return known, y_index.ravel()


def binary_targets(y_index: NDArray, n_classes: int) -> list[NDArray]:
    """The ±1 targets of each binary problem: one for two classes, one-vs-rest for more.

    For two classes the positive class is classes_[1], as in scikit-learn.
    """
    if n_classes == 2:
        return [np.where(y_index == 1, 1.0, -1.0)]
    return [np.where(y_index == k, 1.0, -1.0) for k in range(n_classes)]
