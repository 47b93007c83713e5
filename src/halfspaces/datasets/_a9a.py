"""The Adult census data (LIBSVM ``a9a``): 48,842 people, 123 binary features, income > 50K.

The bundled file is LIBSVM's a9a followed by a9a.t, in the original UCI order: the first
:data:`A9A_N_TRAIN` rows are UCI ``adult.data`` and the last :data:`A9A_N_TEST` rows are
``adult.test``. Provenance and the check of that order are in ``data/README.md``.
"""

from __future__ import annotations

import functools
import io
import lzma
from importlib import resources

import numpy as np
import scipy.sparse as sp
from numpy.typing import NDArray

__all__ = ["A9A_N_TEST", "A9A_N_TRAIN", "load_a9a"]

A9A_N_TRAIN = 32561
"""Rows of the training split (UCI ``adult.data``; LIBSVM ``a9a``)."""
A9A_N_TEST = 16281
"""Rows of the test split (UCI ``adult.test``; LIBSVM ``a9a.t``)."""
A9A_N_FEATURES = 123

_SUBSETS = ("all", "train", "test")


def _a9a_bytes() -> bytes:
    """The decompressed bundled file: LIBSVM text, one sample per line."""
    source = resources.files("halfspaces.datasets").joinpath("data", "a9a.xz")
    return lzma.decompress(source.read_bytes())


@functools.lru_cache(maxsize=1)
def _parsed() -> tuple[sp.csr_matrix, NDArray[np.float64]]:
    """Parse the bundle once per process; callers get copies (see :func:`load_a9a`)."""
    from sklearn.datasets import load_svmlight_file  # scikit-learn is slow to import

    # a9a numbers its features from 1; saying so (rather than "auto") keeps column j fixed
    # even if a subset happened to miss feature 1.
    X, y = load_svmlight_file(
        io.BytesIO(_a9a_bytes()), n_features=A9A_N_FEATURES, dtype=np.float64, zero_based=False
    )
    return X.tocsr(), y


def load_a9a(subset: str = "all") -> tuple[sp.csr_matrix, NDArray[np.float64]]:
    """Load the Adult (a9a) data set bundled with halfspaces.

    Parameters
    ----------
    subset : {"all", "train", "test"}, default="all"
        ``"train"`` is the first 32,561 rows (UCI ``adult.data``), ``"test"`` the last 16,281
        (UCI ``adult.test``), ``"all"`` both, in that order.

    Returns
    -------
    X : scipy.sparse.csr_matrix of shape (n_samples, 123), dtype float64
        Binary (0/1) features: LIBSVM's one-hot coding of the 14 census attributes.
        Always 123 columns, whichever subset.
    y : ndarray of shape (n_samples,), dtype float64
        -1.0 (income <= 50K) or +1.0 (income > 50K).

    Raises
    ------
    ValueError
        If `subset` is not one of "all", "train", "test".

    Notes
    -----
    The file is parsed once per process and cached; every call returns fresh copies, so
    changing the arrays you get back does not change what the next call returns.

    References
    ----------
    .. [1] B. Becker and R. Kohavi. Adult. UCI Machine Learning Repository, 1996.
       https://doi.org/10.24432/C5XW20
    .. [2] C.-C. Chang and C.-J. Lin. LIBSVM data sets (a9a).
       https://www.csie.ntu.edu.tw/~cjlin/libsvmtools/datasets/binary.html

    Examples
    --------
    >>> from halfspaces.datasets import load_a9a
    >>> X, y = load_a9a("train")
    >>> X.shape
    (32561, 123)
    >>> sorted(set(y.tolist()))
    [-1.0, 1.0]
    """
    rows = _subset_rows(subset)
    X, y = _parsed()
    if rows == slice(None):
        return X.copy(), y.copy()
    return X[rows], y[rows].copy()  # slicing CSR rows already copies


def _subset_rows(subset: str) -> slice:
    """The rows of `subset`, or a ValueError naming the allowed values."""
    if subset == "train":
        return slice(0, A9A_N_TRAIN)
    if subset == "test":
        return slice(A9A_N_TRAIN, A9A_N_TRAIN + A9A_N_TEST)
    if subset == "all":
        return slice(None)
    allowed = ", ".join(map(repr, _SUBSETS))
    raise ValueError(f"subset={subset!r} is not supported; use one of {allowed}.")
