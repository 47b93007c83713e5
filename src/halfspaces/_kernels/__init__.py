"""Numba kernels over plain arrays. Private: no validation, no raising, no Python objects.

Every kernel takes its data as ``X``: either a C-contiguous 2-D float array, or a CSR triple
``(data, indices, indptr)``. Numba compiles one specialisation per dtype and layout (float32
or float64; int32 or int64 indices); :func:`kernel_input` is the one place that turns a
validated matrix into that argument.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp


def kernel_input(X):
    """The kernels' view of a validated X: the dense array itself, or its CSR arrays (no copy)."""
    if sp.issparse(X):
        return (X.data, X.indices, X.indptr)
    return np.ascontiguousarray(X)
