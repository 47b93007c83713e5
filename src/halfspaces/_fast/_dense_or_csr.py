"""Row access shared by the compiled loops: <x_i, w> and w += a x_i for dense rows and CSR rows.

The loops are written once against ``row_dot``/``row_axpy``/``n_rows``; Numba picks the
dense or the CSR body from the argument's type at compile time (``overload``), so each epoch
loop exists in one copy. Under ``NUMBA_DISABLE_JIT=1`` the same bodies run as Python,
dispatched by ``isinstance``.

Weight vectors have one slot more than X has columns: ``w[:d]`` is the coefficient vector
and ``w[d]`` the intercept, which multiplies the implicit constant feature (the homogeneous
reduction x' = (1, x), without copying X).
"""

from __future__ import annotations

from numba import types
from numba.extending import overload


def _dot_dense(X, i, w):
    s = 0.0
    for j in range(X.shape[1]):
        s += X[i, j] * w[j]
    return s


def _dot_csr(X, i, w):
    data, indices, indptr = X
    s = 0.0
    for k in range(indptr[i], indptr[i + 1]):
        s += data[k] * w[indices[k]]
    return s


def _axpy_dense(X, i, a, w):
    for j in range(X.shape[1]):
        w[j] += a * X[i, j]


def _axpy_csr(X, i, a, w):
    data, indices, indptr = X
    for k in range(indptr[i], indptr[i + 1]):
        w[indices[k]] += a * data[k]


def _dots_dense(X, i, Zt, out):
    for r in range(out.shape[0]):
        out[r] = 0.0
    for k in range(X.shape[1]):
        a = X[i, k]
        if a != 0.0:  # adds only zeros (data are finite): a dense row with many zeros
            for r in range(out.shape[0]):
                out[r] += a * Zt[k, r]


def _dots_csr(X, i, Zt, out):
    data, indices, indptr = X
    for r in range(out.shape[0]):
        out[r] = 0.0
    for p in range(indptr[i], indptr[i + 1]):
        a, k = data[p], indices[p]
        for r in range(out.shape[0]):
            out[r] += a * Zt[k, r]


def _scatter_dense(X, i, a, Zt, r):
    for k in range(X.shape[1]):
        Zt[k, r] += a * X[i, k]


def _scatter_csr(X, i, a, Zt, r):
    data, indices, indptr = X
    for p in range(indptr[i], indptr[i + 1]):
        Zt[indices[p], r] += a * data[p]


def _scatter_some_dense(X, i, steps, columns, count, Zt):
    for k in range(X.shape[1]):
        a = X[i, k]
        if a != 0.0:  # as in _dots_dense: the same updates as the CSR row's
            for p in range(count):
                Zt[k, columns[p]] += a * steps[p]


def _scatter_some_csr(X, i, steps, columns, count, Zt):
    data, indices, indptr = X
    for q in range(indptr[i], indptr[i + 1]):
        a, k = data[q], indices[q]
        for p in range(count):
            Zt[k, columns[p]] += a * steps[p]


def _norm2_dense(X, i):
    s = 0.0
    for k in range(X.shape[1]):
        a = float(X[i, k])  # float32 data squared in float64
        if a != 0.0:  # the CSR row's sum, term for term
            s += a * a
    return s


def _norm2_csr(X, i):
    data, indices, indptr = X
    s = 0.0
    for q in range(indptr[i], indptr[i + 1]):
        a = float(data[q])
        s += a * a
    return s


def _abs_dot_dense(X, i, v):
    s = 0.0
    for j in range(X.shape[1]):
        s += abs(X[i, j]) * v[j]
    return s


def _abs_dot_csr(X, i, v):
    data, indices, indptr = X
    s = 0.0
    for k in range(indptr[i], indptr[i + 1]):
        s += abs(data[k]) * v[indices[k]]
    return s


def _abs_axpy_dense(X, i, a, v):
    for j in range(X.shape[1]):
        v[j] += a * abs(X[i, j])


def _abs_axpy_csr(X, i, a, v):
    data, indices, indptr = X
    for k in range(indptr[i], indptr[i + 1]):
        v[indices[k]] += a * abs(data[k])


def _n_rows_dense(X):
    return X.shape[0]


def _n_rows_csr(X):
    return X[2].shape[0] - 1


def row_dot(X, i, w):
    """<x_i, w[:d]>, accumulated in float64."""
    return (_dot_csr if isinstance(X, tuple) else _dot_dense)(X, i, w)


def row_axpy(X, i, a, w):
    """w[:d] += a * x_i."""
    (_axpy_csr if isinstance(X, tuple) else _axpy_dense)(X, i, a, w)


def row_abs_dot(X, i, v):
    """<|x_i|, v[:d]>, accumulated in float64 (|x_i| taken entry by entry, no copy)."""
    return (_abs_dot_csr if isinstance(X, tuple) else _abs_dot_dense)(X, i, v)


def row_abs_axpy(X, i, a, v):
    """v[:d] += a * |x_i|."""
    (_abs_axpy_csr if isinstance(X, tuple) else _abs_axpy_dense)(X, i, a, v)


def row_dots(X, i, Zt, out):
    """out[r] = <x_i, Zt[:, r]> for r < len(out): one pass over x_i for a block of vectors.

    Each sum runs over x_i's entries in increasing feature order, from 0.0, one product at
    a time: on a CSR row the sum :func:`row_dot` takes, bit for bit; on a dense row the plain
    sequential sum (row_dot's vectorised reduction reassociates it), zero entries skipped.
    """
    (_dots_csr if isinstance(X, tuple) else _dots_dense)(X, i, Zt, out)


def row_scatter(X, i, a, Zt, r):
    """Zt[:d, r] += a * x_i (x_i into column r of a feature-major block)."""
    (_scatter_csr if isinstance(X, tuple) else _scatter_dense)(X, i, a, Zt, r)


def row_scatter_some(X, i, steps, columns, count, Zt):
    """Zt[:d, columns[p]] += steps[p] * x_i for p < count: one pass over x_i for a few columns
    of a feature-major block (each column gets the updates :func:`row_scatter` gives it)."""
    (_scatter_some_csr if isinstance(X, tuple) else _scatter_some_dense)(X, i, steps, columns,
                                                                         count, Zt)


def row_squared_norm(X, i):
    """||x_i||^2 in float64, summed in increasing feature order: the same bits for a dense row
    and its CSR twin."""
    return (_norm2_csr if isinstance(X, tuple) else _norm2_dense)(X, i)


def n_rows(X):
    """Number of rows of a dense array or of a CSR triple."""
    return (_n_rows_csr if isinstance(X, tuple) else _n_rows_dense)(X)


def _pick(X, dense, csr):
    if isinstance(X, types.Array) and X.ndim == 2:
        return dense
    if isinstance(X, types.BaseTuple) and len(X) == 3:
        return csr
    return None


# Reassociation is allowed in the dense dot product only: it lets LLVM vectorise the
# reduction (about twice the speed of the sequential sum). On CSR rows it would emit gathers,
# measured 5% slower on a9a than the plain loop, so CSR keeps strict order, as do updates
# and everything else. No nnan/ninf: the epoch loops rely on NaN and inf propagating to
# flag bad rows.
@overload(row_dot, jit_options={"fastmath": {"reassoc", "contract"}})
def _overload_row_dot_dense(X, i, w):
    return _pick(X, _dot_dense, None)


@overload(row_dot)
def _overload_row_dot_csr(X, i, w):
    return _pick(X, None, _dot_csr)


@overload(row_abs_dot, jit_options={"fastmath": {"reassoc", "contract"}})
def _overload_row_abs_dot_dense(X, i, v):
    return _pick(X, _abs_dot_dense, None)


@overload(row_abs_dot)
def _overload_row_abs_dot_csr(X, i, v):
    return _pick(X, None, _abs_dot_csr)


@overload(row_abs_axpy)
def _overload_row_abs_axpy(X, i, a, v):
    return _pick(X, _abs_axpy_dense, _abs_axpy_csr)


@overload(row_axpy)
def _overload_row_axpy(X, i, a, w):
    return _pick(X, _axpy_dense, _axpy_csr)


@overload(row_dots)
def _overload_row_dots(X, i, Zt, out):
    return _pick(X, _dots_dense, _dots_csr)


@overload(row_scatter)
def _overload_row_scatter(X, i, a, Zt, r):
    return _pick(X, _scatter_dense, _scatter_csr)


@overload(row_scatter_some)
def _overload_row_scatter_some(X, i, steps, columns, count, Zt):
    return _pick(X, _scatter_some_dense, _scatter_some_csr)


@overload(row_squared_norm)
def _overload_row_squared_norm(X, i):
    return _pick(X, _norm2_dense, _norm2_csr)


@overload(n_rows)
def _overload_n_rows(X):
    return _pick(X, _n_rows_dense, _n_rows_csr)
