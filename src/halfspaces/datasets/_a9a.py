"""The Adult census data (LIBSVM ``a9a``): 48,842 people, 123 binary features, income > 50K.

The bundle holds LIBSVM's a9a followed by a9a.t, in the original UCI order: the first
:data:`A9A_N_TRAIN` rows are UCI ``adult.data`` and the last :data:`A9A_N_TEST` rows are
``adult.test``. It is stored as the CSR arrays of that text (``data/a9a.npz``), so loading
it reads about 300 kB and parses nothing; provenance, and how the arrays were made from the
text, are in ``data/README.md``.
"""

from __future__ import annotations

import functools
import io
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
_ARRAYS = ("data", "indices", "indptr", "y")  # the members of a9a.npz


def _stored() -> dict[str, NDArray]:
    """The arrays of ``data/a9a.npz`` in their stored (smallest exact) dtypes."""
    source = resources.files("halfspaces.datasets") / "data" / "a9a.npz"
    with np.load(io.BytesIO(source.read_bytes()), allow_pickle=False) as members:
        return {name: members[name] for name in _ARRAYS}


@functools.lru_cache(maxsize=1)
def _parsed() -> tuple[sp.csr_matrix, NDArray[np.float64]]:
    """Build the matrix once per process; callers get copies (see :func:`load_a9a`)."""
    stored = _stored()
    # int32 indices and float64 values, as scikit-learn's svmlight reader gives them
    X = sp.csr_matrix(
        (stored["data"].astype(np.float64), stored["indices"].astype(np.int32),
         stored["indptr"].astype(np.int32)),
        shape=(stored["indptr"].size - 1, A9A_N_FEATURES),
    )
    return X, stored["y"].astype(np.float64)


def _a9a_bytes() -> bytes:
    """The bundle written back as LIBSVM text: byte for byte the source file.

    The source writes every line as ``label index:value ... `` with labels ``+1``/``-1``,
    1-based indices, values ``1`` and a space before the newline; the tests check that this
    rendering has the source's sha256, which proves the arrays lost nothing.
    """
    stored = _stored()
    indptr = stored["indptr"]
    tokens = [f" {j + 1}:{v}" for j, v in zip(stored["indices"].tolist(),
                                               stored["data"].tolist(), strict=True)]
    lines = [
        f"{label:+d}" + "".join(tokens[indptr[i]:indptr[i + 1]]) + " \n"
        for i, label in enumerate(stored["y"].tolist())
    ]
    return "".join(lines).encode("ascii")


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
    The arrays are read once per process and cached; every call returns fresh copies, so
    changing the arrays you get back does not change what the next call returns. Loading
    imports NumPy and SciPy only (not scikit-learn).

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
