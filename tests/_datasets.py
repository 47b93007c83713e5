"""Random data for the tests: separable with a known margin, or noisy; in every input format."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import scipy.sparse as sp

SHARED_DATA = Path(__file__).resolve().parents[2] / "shared" / "data"
FORMATS = ("dense64", "dense32", "csr32", "csr64")


def separable(n=200, d=5, seed=0, gap=0.2, intercept=True, sparsity=0.0):
    """Points with |<w*, x> + b*| >= gap, labelled by sign(<w*, x> + b*), ||w*|| = 1."""
    rng = np.random.default_rng(seed)
    w = rng.normal(size=d)
    w /= np.linalg.norm(w)
    b = rng.normal() * 0.5 if intercept else 0.0
    X = rng.normal(size=(4 * n, d))
    if sparsity:
        X *= rng.random(X.shape) >= sparsity
    f = X @ w + b
    keep = np.abs(f) >= gap
    X, f = X[keep][:n], f[keep][:n]
    return X, np.where(f > 0, 1.0, -1.0), w, b


def noisy(n=200, d=5, seed=0, flip=0.15, sparsity=0.0):
    """A linear rule with a fraction ``flip`` of the labels flipped: not separable."""
    X, y, _, _ = separable(n, d, seed, gap=0.0, sparsity=sparsity)
    rng = np.random.default_rng(seed + 1)
    flipped = rng.random(len(y)) < flip
    return X, np.where(flipped, -y, y)


def in_format(X, fmt):
    """X as dense float64/float32, or CSR with int32/int64 indices."""
    if fmt == "dense64":
        return np.ascontiguousarray(X, dtype=np.float64)
    if fmt == "dense32":
        return np.ascontiguousarray(X, dtype=np.float32)
    A = sp.csr_matrix(X, dtype=np.float64)
    if fmt == "csr64":
        A.indices = A.indices.astype(np.int64)
        A.indptr = A.indptr.astype(np.int64)
    return A


def dask_chunked(X, y, sizes):
    """(X, y) as dask arrays whose row chunks have the given sizes (empty chunks allowed),
    each chunk dense or CSR as X is."""
    import dask.array as da

    rows = sizes if isinstance(sizes, int) else tuple(sizes)
    return (da.from_array(X, chunks=(rows, X.shape[1]), asarray=False),
            da.from_array(np.asarray(y), chunks=(rows,)))


def float_dependent_columns(case):
    """Inseparable data whose columns are dependent in float64 only: make_classification's
    two redundant features (rank 18 of 20 to 1e-15), or one column 0.3 x_0 + 0.7 x_1."""
    if case == "redundant":
        from sklearn.datasets import make_classification

        return make_classification(500, 20, n_informative=10, flip_y=0.05, random_state=0)
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 5))
    y = rng.integers(0, 2, size=300)
    return np.c_[X, 0.3 * X[:, 0] + 0.7 * X[:, 1]], y


def hidden_separator(d, score=1e-11, seed=0):
    """Homogeneous data separated by w = e_1 with scores `score` on d rows and 1 on one: the
    d rows' other features combine to 0 with positive weights (a float certificate on d
    rows passes its 1e-9 check, since the first column's largest entry is 1)."""
    rng = np.random.default_rng(seed)
    U = rng.normal(size=(d, d - 1))
    U[-1] = -((rng.random(d - 1) + 0.5) @ U[:-1])
    Z = np.r_[np.c_[1.0, np.zeros((1, d - 1))], np.c_[np.full(d, score), U]]
    y = np.where(rng.random(d + 1) < 0.5, 1, -1)
    return y[:, None] * Z, y


def integers_two_apart(s):
    """s, s - 2 labelled + and s - 4 labelled -: separated by w = 1, b = -(s - 3)."""
    return np.array([[s], [s - 2], [s - 4]]), np.array([1, 1, -1])
