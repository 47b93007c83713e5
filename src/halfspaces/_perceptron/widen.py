"""Zero columns around a fitted model's arrays, for a stream that meets new features.

A stream read once (:func:`halfspaces.io.fit_stream`) may hold a larger feature index than
any batch before it; a model with a ``widen`` method then takes the new features with zero
weights and goes on. :func:`widened` makes the wider copy of one of its arrays, dense or
sparse: weight vectors that end with their intercept, rows of coefficients, or stored
training rows.
"""

from __future__ import annotations

import numpy as np

__all__ = ["widened"]


def widened(a, n_features: int, offset: int, intercept: bool = False):
    """`a` (a vector ending with its intercept, or rows of coefficients) with zero columns
    around the old ones, which start at `offset`."""
    import scipy.sparse as sp

    d = a.shape[-1] - intercept
    if sp.issparse(a):
        a = a.tocsr()
        return type(a)((a.data, a.indices + offset, a.indptr),
                       shape=(a.shape[0], n_features))
    out = np.zeros((*a.shape[:-1], n_features + intercept), dtype=a.dtype)
    out[..., offset:offset + d] = a[..., :d]
    if intercept:
        out[..., -1] = a[..., -1]
    return out
