"""The homogeneous reduction x' = (1, x), both ways.

A halfspace sign(<w, x> + b) on X is the homogeneous halfspace sign(<w', x'>) on x' = (1, x)
with w' = (b, w): :func:`augment` builds x' (for users and for the exact solvers, which state
every problem on the signed rows y_i x'_i), and :func:`split_intercept` reads (w, b) back
off a solution w'.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from numpy.typing import ArrayLike, NDArray
from sklearn.utils import check_array

from halfspaces._validation import refuse_dask

__all__ = ["augment", "split_intercept"]


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

    References
    ----------
    S. Shalev-Shwartz and S. Ben-David, *Understanding Machine Learning: From Theory to
    Algorithms*, Cambridge University Press, 2014, section 9.1 (halfspaces).

    Examples
    --------
    >>> import numpy as np
    >>> from halfspaces import augment
    >>> augment(np.array([[2.0, 3.0], [4.0, 5.0]]))
    array([[1., 2., 3.],
           [1., 4., 5.]])
    """
    refuse_dask("halfspaces.augment", X=X)
    data = check_array(X, accept_sparse=("csr", "csc", "coo"), dtype=(np.float64, np.float32),
                       accept_large_sparse=True, ensure_min_samples=0)
    ones = np.ones((data.shape[0], 1), dtype=data.dtype)
    if sp.issparse(data):
        return sp.hstack([sp.csr_matrix(ones), data], format="csr", dtype=data.dtype)
    return np.hstack([ones, data])


def split_intercept(w: NDArray, fit_intercept: bool) -> tuple[NDArray, float]:
    """(coef, intercept) from w' = (b, w) when ``fit_intercept``, else (w, 0.0); copies."""
    return (w[1:].copy(), float(w[0])) if fit_intercept else (w.copy(), 0.0)
