"""The rows of a training Gram matrix that the dual (kernel) perceptron reads: computed when
an update first needs them, in blocks, and kept as ``cache_size`` allows.

:class:`GramRows` is the cache :func:`halfspaces._dual_run.run_kernel_perceptron` reads; it
computes the rows of named kernels with the compiled loops of :mod:`halfspaces._fast.dual`
(CSR) or BLAS products (dense), a callable kernel's rows by calling it, and holds a
precomputed Gram matrix as it is. It also gives the matrix's diagonal, which a margin is
measured in.
"""

from __future__ import annotations

from collections.abc import Callable

import numba
import numpy as np
import scipy.sparse as sp
from numpy.typing import NDArray
from scipy.linalg.blas import dsyrk

from halfspaces._fast import dual as kd
from halfspaces._fast import loop_input
from halfspaces._kernel_matrix import as_float64, squared_norms

__all__ = ["DENSE_BLOCK", "DIAGONAL_BLOCK", "GRAM_BLOCK", "GRAM_COLUMNS", "PARALLEL_WORK",
           "GramRows"]


# Gram rows computed together when the dual loop stops for a missing one. Measured on
# 10,000 a9a rows (RBF, one thread): 0.97 ms for one row, 2.3 ms for 16 (0.15 ms a row), 9 ms
# for 32: past 16 rows the block's columns of Zt (d x block) no longer stay in L1.
GRAM_BLOCK = 16
# Dense X: a block's dot products come from BLAS, one product of the block's rows by at most
# GRAM_COLUMNS columns of X at a time (the scratch stays at DENSE_BLOCK x GRAM_COLUMNS floats
# whatever n), and blocks are larger: BLAS's cost per row falls with the rows of the product
# (MNIST, 784 pixels: 0.10 ms a row per 4,096 columns at 16 rows, 0.073 at 128).
DENSE_BLOCK = 128
GRAM_COLUMNS = 4096
# Rows of X per call of a callable kernel for the Gram matrix's diagonal: k(A, A) of a block
# costs DIAGONAL_BLOCK^2 values for DIAGONAL_BLOCK useful ones
DIAGONAL_BLOCK = 64
# Multiply-adds of a block of CSR rows (block x nnz(X)) from which its rows are split
# between threads: starting the threads cost about 20 ms on the 2-core machine
# shared with other jobs where this was measured (a 2.3 ms block took 20 ms in parallel), so
# only long blocks pay it back.
PARALLEL_WORK = 2**25


class GramRows:
    """The rows k(x_i, .) + c of a training Gram matrix, computed when an update needs them.

    ``capacity`` rows are kept: all n when the n x n matrix fits in ``cache_size`` MB (the
    Gram matrix cached), fewer otherwise, the least recently used rows then making room for
    new ones (as libsvm's kernel cache does). Rows of examples that never cause an update are
    never computed.

    When the dual loop stops for a missing row, :meth:`fetch_block` computes it together
    with the rows of the next ``block - 1`` examples of the pass that have no row and are
    mistakes of the current hypothesis (:func:`halfspaces._fast.dual.missing_rows`): one
    pass over X for the block. A block of 16 a9a rows costs 2.4 times one row, so the rows
    computed ahead that the loop turns out not to need (an update on an earlier example
    corrected them; about half of them on a9a) cost less than the passes they save. Rows
    are computed ahead only into free slots, and enter the cache as its oldest rows: once
    it is full, the loop's own rows evict those never used first, and a block is the one
    missing row. On CSR X a block of at least ``PARALLEL_WORK`` multiply-adds is split
    between Numba's threads (on dense X the BLAS product has its own).

    The rows come from ``spec`` = (kind, gamma, coef0, degree, c) for a named kernel, from
    ``kernel_rows(A)`` (the kernel matrix of the rows of A against X) for a callable, or
    from ``gram``, the Gram matrix itself (precomputed). A named kernel's rows on CSR X come
    from the compiled loop over X (:func:`halfspaces._fast.dual.gram_rows`), each dot
    product summed over the row's entries in order, bit for bit those of one row at a time.
    On dense X the dot products come from BLAS, the block's rows against at most
    ``GRAM_COLUMNS`` columns of X per product, then the compiled map
    (:func:`halfspaces._fast.dual.gram_from_dots`); an entry depends on which rows share its
    block by rounding at most (:meth:`_blas`), and it differs from the compiled loop's sum by
    rounding (6e-15 relative on MNIST). Blocks are then up to ``DENSE_BLOCK`` rows.

    On dense X a cache that holds the whole matrix (``whole``) gets it whole at the first
    missing row (:meth:`fill`): one symmetric product and one pass of the kernel map, the
    same entries as the rows' products. It costs what blocks of 128 rows cost for 40% of
    the rows (MNIST t10k, 8,000 rows: 0.7 s for the whole RBF matrix where a fit's blocks
    took 1.5-2.5 s for 92-98% of it), so it pays in multi-epoch and one-vs-rest fits,
    whose mistakes reach most rows; a run that needs few rows of a small matrix loses
    little, and past 5,120 rows the whole matrix fits only in a larger ``cache_size``.
    """

    def __init__(self, X, cache_size: float, *, spec: tuple, kernel_rows: Callable | None = None,
                 gram=None, block: int | None = None) -> None:
        n = X.shape[0]
        self.X, self.spec, self.kernel_rows = X, spec, kernel_rows
        self.capacity = max(1, min(n, int(cache_size * 2**20) // (8 * max(n, 1))))
        self.dense = gram is None and kernel_rows is None and not sp.issparse(X)
        if block is None:
            block = DENSE_BLOCK if self.dense else GRAM_BLOCK
        self.block = max(1, min(block, self.capacity))
        if gram is not None:
            self.K = np.ascontiguousarray(np.asarray(gram, np.float64) + spec[4])
            if self.K.shape != (n, n):  # the loop reads K[i, j] for i, j < n unchecked
                raise ValueError(f"gram must be the square Gram matrix of the {n} rows of X; "
                                 f"got shape {self.K.shape}.")
            self.slot, self.capacity = np.arange(n, dtype=np.int64), n
        else:
            self.K = np.empty((self.capacity, n))
            self.slot = np.full(n, -1, dtype=np.int64)
        self.owner = np.full(self.capacity, -1, dtype=np.int64)
        self.last_use = np.zeros(self.capacity + 1, dtype=np.int64)  # the clock last
        self.used = self.capacity if gram is not None else 0
        self.n_computed = 0
        self.n_blocks = 0
        self.whole = self.dense and self.capacity == n
        if self.dense:
            self.Xd, self.sq = as_float64(X), squared_norms(X)
            rows = max(2, self.block)  # a product of one row would be BLAS's gemv: see _blas
            self.tile = np.zeros((rows, X.shape[1]))
            widths = {min(n, GRAM_COLUMNS), n % GRAM_COLUMNS or GRAM_COLUMNS}  # all, the last
            self.dots = {width: np.empty((rows, width)) for width in widths}
        elif gram is None and kernel_rows is None:
            self.Xk, self.sq = loop_input(X), squared_norms(X)
            self.Zt = np.zeros((X.shape[1], self.block))
            parallel = self.block * X.nnz >= PARALLEL_WORK and numba.get_num_threads() > 1
            self.gram_rows = kd.gram_rows_parallel if parallel else kd.gram_rows

    def diagonal(self) -> NDArray[np.float64]:
        """k(x_i, x_i) + c for every training row: what a margin is measured in, O(n)."""
        n = self.slot.shape[0]
        if self.kernel_rows is None and not hasattr(self, "sq"):  # the Gram matrix given
            return np.ascontiguousarray(np.diagonal(self.K)[:n], dtype=np.float64)
        if self.kernel_rows is None:
            out = np.empty(n)
            kd.gram_diagonal(self.spec, self.sq, out)
            return out
        out = np.empty(n)
        for start in range(0, n, DIAGONAL_BLOCK):  # the callable sees small square blocks
            rows = self.X[start:start + DIAGONAL_BLOCK]
            # kernel_rows is callable_matrix with B=X bound by keyword: B=rows replaces it
            out[start:start + rows.shape[0]] = np.diagonal(self.kernel_rows(rows, B=rows))
        with np.errstate(invalid="ignore"):
            return out + self.spec[4]

    def fetch(self, row: int) -> None:
        """Compute the row of example ``row``, in a free slot or the least recently used."""
        self.fetch_block(np.array([row], dtype=np.int64))

    def fetch_ahead(self, Y, f: NDArray, order: NDArray, pos: int,
                    threshold: NDArray) -> None:
        """Compute the missing row at position ``pos`` of the pass and up to block - 1 more
        (the next examples that would update, by the run's ``threshold``)."""
        if self.whole:
            self.fill()
            return
        # rows ahead go only to free slots: evicting for them thrashed (10,000 a9a rows,
        # cache_size=200, 10 epochs: a block's guesses evicted the next block's, 34,643 rows
        # computed where one row at a time computed 4,936)
        rows = np.empty(max(1, min(self.block, self.capacity - self.used)), dtype=np.int64)
        count = kd.missing_rows(self.slot, Y, order, pos, f, threshold, rows)
        self.fetch_block(rows[:count])

    def fill(self) -> None:
        """Compute the whole matrix (dense X, a cache that holds it; rows computed before are
        computed again).

        One symmetric product X X^T (BLAS's syrk: half the multiply-adds of the rows' gemm
        products, and equal to them to rounding; the same bits on the OpenBLAS builds of
        the 2-core VM, not on OpenBLAS 0.3.31 on an AMD EPYC), then the kernel's map over its
        lower triangle, each value written to both halves.
        """
        n = self.slot.shape[0]
        # syrk writes the upper triangle of the Fortran-ordered K^T: K's lower triangle
        upper = dsyrk(1.0, self.Xd.T, c=self.K.T, trans=1, overwrite_c=1)
        if not np.may_share_memory(upper, self.K):  # f2py copied instead (not expected)
            self.K[...] = upper.T
        kd.gram_from_lower_dots(self.K, self.spec, self.sq)
        self.slot[:] = self.owner[:] = np.arange(n)
        self.used = n
        self.n_computed += n
        self.n_blocks += 1

    def fetch_block(self, rows: NDArray[np.int64]) -> None:
        """Compute the rows of the examples ``rows`` (none cached, at most ``block``)."""
        slots = self._free_slots(rows.shape[0])
        self.slot[self.owner[slots][self.owner[slots] >= 0]] = -1
        self._compute(rows, slots)
        self.n_computed += rows.shape[0]
        self.n_blocks += 1
        self.slot[rows], self.owner[slots] = slots, rows
        self.last_use[slots] = 0  # computed ahead: the first to go unless used
        self.last_use[slots[0]] = self.last_use[-1]  # the row asked for

    def _free_slots(self, m: int) -> NDArray[np.int64]:
        """m slots: the free ones first, then those of the least recently used rows."""
        free = min(m, self.capacity - self.used)
        slots = np.arange(self.used, self.used + free, dtype=np.int64)
        self.used += free
        if free == m:
            return slots
        ages = self.last_use[:self.used - free]
        if m - free == 1:
            oldest = np.array([np.argmin(ages)], dtype=np.int64)
        else:
            oldest = np.argpartition(ages, m - free - 1)[:m - free].astype(np.int64)
        return np.concatenate([slots, oldest])

    def _compute(self, rows: NDArray[np.int64], slots: NDArray[np.int64]) -> None:
        if self.dense:
            self._blas(rows, slots)
            return
        if self.kernel_rows is None:
            self.gram_rows(self.Xk, rows, self.spec, self.sq, self.Zt, self.K, slots)
            return
        # an overflow becomes inf here and is reported by the epoch loop, naming the row
        with np.errstate(over="ignore", invalid="ignore"):
            self.K[slots] = self.kernel_rows(self.X[rows]) + self.spec[4]

    def _blas(self, rows: NDArray[np.int64], slots: NDArray[np.int64]) -> None:
        """The rows of at most ``block`` examples of dense X, by BLAS products.

        An entry does not depend on the block but for rounding: OpenBLAS's matrix product
        (gemm) summed each entry over the features in the same order whatever the number of
        rows on the builds of the 2-core VM (16 rows, 128 rows and the whole X X^T gave the
        same bits on MNIST and on Gaussian data), but OpenBLAS 0.3.31 on an AMD EPYC sums
        some entries of small products in another order. One row alone would go to the
        matrix-vector product (gemv), which sums in another order everywhere, so a block of
        one row is computed with one more (any) row.
        """
        X, m = self.Xd, rows.shape[0]
        tile = self.tile[:max(2, m)]
        np.take(X, rows, axis=0, out=tile[:m])  # a second row, if any, is an earlier one
        for start in range(0, X.shape[0], GRAM_COLUMNS):
            columns = X[start:start + GRAM_COLUMNS]
            dots = self.dots[columns.shape[0]][:tile.shape[0]]
            np.matmul(tile, columns.T, out=dots)
            kd.gram_from_dots(dots, rows, self.spec, self.sq, self.K, slots, start)
