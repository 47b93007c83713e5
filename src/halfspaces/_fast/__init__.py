"""Compiled loops (Numba) over plain arrays. Private: no validation, no raising, no Python objects.

Every loop takes its data as ``X``: either a C-contiguous 2-D float array, or a CSR triple
``(data, indices, indptr)``. Numba compiles one specialisation per dtype and layout (float32
or float64; int32 or int64 indices); :func:`loop_input` is the one place that turns a
validated matrix into that argument. (The name follows scikit-learn's ``_sgd_fast`` and
``_cd_fast``; "kernel" in this library means a Mercer kernel, see :mod:`halfspaces.kernel`.)
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp


def loop_input(X):
    """The loops' view of a validated X: the dense array itself, or its CSR arrays (no copy)."""
    if sp.issparse(X):
        return (X.data, X.indices, X.indptr)
    return np.ascontiguousarray(X)
