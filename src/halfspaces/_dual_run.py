"""The dual (kernel) perceptron's run and the Gram rows it reads.

The perceptron's weights are always a sum of training examples, w = sum_i alpha_i y_i x_i,
where alpha_i counts the updates on example i; replacing <x_i, x> by a Mercer kernel
k(x_i, x) gives the kernel perceptron (Aizerman, Braverman and Rozonoer 1964; Freund and
Schapire 1999; Shalev-Shwartz and Ben-David, *Understanding Machine Learning*, 2014,
Section 16.2). :func:`run_kernel_perceptron` supplies one pass of the compiled dual loop
(:mod:`halfspaces._fast.dual`) to the epoch driver; :class:`GramRows` computes the rows of the
Gram matrix an update needs (with the rows of the next likely updates, in one pass over X),
and keeps as many as ``cache_size`` allows. With the linear
kernel the dual run is the primal run, so :func:`run_linear_perceptron` runs the primal loop
(O(nnz) per update instead of an O(n nnz) Gram row) and reads alpha off its update log.
Both runs also return what the averaged and voted forms of Freund and Schapire (1999) need:
the step count, the sums of the steps of each example's updates (the average of the
hypotheses is alpha - sums / T) and, when asked, the log of the updates; and both continue
an earlier hypothesis (its decision values, or its primal weights) for warm starts and
``partial_fit``. The kernel matrices themselves are computed in
:mod:`halfspaces._kernel_matrix` (their names are re-exported here, where they used to live).

References
----------
.. [1] M. A. Aizerman, E. M. Braverman and L. I. Rozonoer. Theoretical foundations of the
   potential function method in pattern recognition learning. Automation and Remote
   Control 25, 1964.
.. [2] Y. Freund and R. E. Schapire. Large margin classification using the perceptron
   algorithm. Machine Learning 37(3), 1999.
.. [3] S. Shalev-Shwartz and S. Ben-David. Understanding Machine Learning: From Theory to
   Algorithms. Cambridge University Press, 2014 (Chapter 16: kernel methods).
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial

import numba
import numpy as np
import scipy.sparse as sp
from numpy.typing import NDArray
from scipy.linalg.blas import dsyrk

from halfspaces._epochs import run_epochs
from halfspaces._fast import dual as kd
from halfspaces._fast import loop_input
from halfspaces._fast import perceptron as kp
from halfspaces._kernel_matrix import (  # the kernel matrices, re-exported: their former home
    KERNELS,
    as_float64,
    callable_matrix,
    check_kernel_scale,
    kernel_block,
    kernel_matrix,
    log2_largest_square_norm,
    named_kernel,
    squared_norms,
)
from halfspaces._perceptron_run import PerceptronState, loop_targets, run_perceptron

__all__ = [
    "DENSE_BLOCK", "GRAM_BLOCK", "KERNELS", "GramRows", "KernelRun", "as_float64",
    "kernel_block", "kernel_matrix", "named_kernel", "overflow_error", "run_kernel_perceptron",
    "run_linear_perceptron", "training_gram", "update_threshold",
]

_KIND = {"linear": kd.LINEAR, "poly": kd.POLY, "rbf": kd.RBF, "sigmoid": kd.SIGMOID}


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
        sessions 6-10, not on OpenBLAS 0.3.31 on an AMD EPYC), then the kernel's map over its
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
        rows on the builds of sessions 6-10 (16 rows, 128 rows and the whole X X^T gave the
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


@dataclass(frozen=True)
class KernelRun:
    """The outcome of :func:`run_kernel_perceptron` on one binary problem.

    ``alpha[i]`` counts the updates on example i; the hypothesis is
    f(x) = sum_i alpha_i y_i (k(x_i, x) + c), added to the starting hypothesis of a resumed
    run. ``sums[i]`` is the sum of max(t - 1 - burn_in, 0) over the 1-based steps t of
    those updates, and ``n_steps`` the step count T at the end (including the steps of
    earlier runs): the average of the coefficients after the steps burn_in + 1, ..., T is
    alpha - sums / (T - burn_in) (Freund and Schapire 1999; burn_in = 0 averages them
    all). ``update_rows`` and ``update_steps`` list the row and step of every update, in
    order, when the run recorded them (the voted perceptron's hypotheses).

    Attributes
    ----------
    alpha : ndarray of int64 of shape (n_samples,)
        Updates per example in this run.
    n_updates, n_epochs : int
        Updates and passes made by this run.
    converged : bool
        Whether the last pass made no update.
    sums : ndarray of int64 of shape (n_samples,) or None
        Per example, the sum of max(t - 1 - burn_in, 0) over the steps t of its updates
        (always set by :func:`run_kernel_perceptron`).
    n_steps : int
        The step count T at the end, earlier runs' steps included.
    update_rows, update_steps : ndarray of int64 or None
        Row and step of every update, in order (None unless recorded).
    """

    alpha: NDArray[np.int64]
    n_updates: int
    n_epochs: int
    converged: bool
    sums: NDArray[np.int64] | None = None
    n_steps: int = 0
    update_rows: NDArray[np.int64] | None = None
    update_steps: NDArray[np.int64] | None = None


def run_kernel_perceptron(gram: GramRows, y: NDArray, *, positive=1.0, max_epochs: int = 1,
                          selection: str = "cyclic",
                          rng: np.random.RandomState | None = None,
                          f0: NDArray | None = None, n_steps: int = 0,
                          record_updates: bool = False, margin: float = 0.0,
                          burn_in: int = 0) -> KernelRun:
    """The dual perceptron on the targets +1 where ``y == positive``, -1 elsewhere.

    Example i causes an update when y_i f(x_i) <= margin (k(x_i, x_i) + c): at margin 0
    the perceptron's mistakes, above it the perceptron with margin (Krauth and Mezard 1987),
    whose test does not change when the kernel is multiplied by a constant. Stops after a
    pass with no update (converged) or after ``max_epochs`` passes; with
    ``selection="shuffle"`` each pass visits a fresh permutation drawn from ``rng``. A run
    that continues an earlier hypothesis h (warm start, partial_fit) starts from its
    decision values ``f0`` = h(x_j) on these rows and from its step count ``n_steps``;
    alpha then counts the new updates only. ``sums`` leave out the first ``burn_in`` steps
    of all runs (:func:`halfspaces._fast.dual.dual_epoch`). Arguments of the wrong length,
    shape or type (y not one label per row of ``gram``, f0 not one finite value per label)
    raise ValueError naming them.

    Parameters
    ----------
    gram : GramRows
        The rows k(x_i, .) + c of the training Gram matrix, computed as updates need them.
    y : ndarray of shape (n_samples,)
        The labels.
    positive : object, default=1.0
        The label that is +1.
    max_epochs : int, default=1
        The most passes.
    selection : {"cyclic", "shuffle"}, default="cyclic"
        The order of each pass.
    rng : numpy.random.RandomState or None, default=None
        Draws the permutations of ``selection="shuffle"`` (which needs it).
    f0 : ndarray of shape (n_samples,) or None, default=None
        The decision values of the hypothesis a resumed run continues (None: 0).
    n_steps : int, default=0
        The steps made before this run.
    record_updates : bool, default=False
        Record the row and step of every update (the voted perceptron).
    margin : float, default=0.0
        Update when y_i f(x_i) <= margin (k(x_i, x_i) + c) (:func:`update_threshold`).
    burn_in : int, default=0
        The steps, counted over all runs, that take no part in ``sums``.

    Returns
    -------
    KernelRun
        The dual coefficients and the run's counts.
    """
    y, f0 = _run_arguments(gram, y, f0, positive, max_epochs, selection, n_steps)
    if selection == "shuffle" and rng is None:
        raise ValueError("selection='shuffle' draws its permutations from rng: pass one.")
    n = y.shape[0]
    rule = (update_threshold(gram, margin), _checked_burn_in(burn_in))
    Y = loop_targets(y, positive)
    f = np.zeros(n) if f0 is None else np.array(f0, dtype=np.float64)
    alpha, sums = np.zeros(n, dtype=np.int64), np.zeros(n, dtype=np.int64)
    clock = np.array([n_steps, 0], dtype=np.int64)
    log = np.empty((2, n if record_updates else 0), dtype=np.int64)
    logs = []

    def one_epoch(order: NDArray[np.int64]) -> int:
        clock[1] = 0
        k = _one_epoch(gram, Y, f, (alpha, sums, clock), log, order, rule)
        if record_updates and k >= 0:
            logs.append(log[:, :clock[1]].copy())
        return k

    epochs = run_epochs(one_epoch, n, max_epochs=max_epochs, selection=selection, rng=rng,
                        bad_row=overflow_error)
    rows, steps = np.concatenate(logs, axis=1) if record_updates else (None, None)
    return KernelRun(alpha, epochs.n_updates, epochs.n_epochs, epochs.converged, sums,
                     int(clock[0]), rows, steps)


def _run_arguments(gram, y, f0, positive, max_epochs, selection, n_steps):
    """y and f0 as arrays, once every argument of :func:`run_kernel_perceptron` is checked.

    The compiled loop reads y[i], f[i], slot[i] and K[slot[i], j] for i, j < len(y) without
    bounds checks: a y longer than the Gram matrix, or an f0 longer than y, read and wrote
    past their ends (a segmentation fault), so the lengths are checked here, by name.
    """
    if not isinstance(gram, GramRows):
        raise TypeError(f"gram must be a GramRows (see training_gram); got {type(gram).__name__}.")
    n = gram.slot.shape[0]
    _check_gram_rows(gram, n)
    y = np.asarray(y)
    if y.ndim != 1 or y.dtype.kind not in "biuf" or y.shape[0] != n:
        raise ValueError(f"y must be a one-dimensional numeric array of {n} labels, one per "
                         f"row of the Gram matrix; got a {y.dtype} array of shape {y.shape}.")
    if y.dtype.kind == "f" and not np.isfinite(y).all():
        raise ValueError("y holds NaN or infinite labels.")
    if np.ndim(positive) != 0 or np.asarray(positive).dtype.kind not in "biuf":
        raise ValueError(f"positive must be one numeric label; got {positive!r}.")
    if f0 is not None:
        f0 = np.asarray(f0)
        if f0.shape != (n,) or f0.dtype.kind not in "biuf":
            raise ValueError(f"f0 must be a numeric array of shape ({n},), a decision value "
                             f"per row of y; got a {f0.dtype} array of shape {f0.shape}.")
        if not np.isfinite(f0).all():
            raise ValueError("f0 holds NaN or infinite decision values.")
    if not _is_int(max_epochs) or max_epochs < 1:
        raise ValueError(f"max_epochs must be an integer of at least 1; got {max_epochs!r}.")
    if selection not in ("cyclic", "shuffle"):
        raise ValueError(f"selection must be 'cyclic' or 'shuffle'; got {selection!r}.")
    if not _is_int(n_steps) or not 0 <= n_steps <= np.iinfo(np.int64).max:
        raise ValueError(f"n_steps must be a non-negative int64 step count; got {n_steps!r}.")
    return y, f0


def update_threshold(gram: GramRows, margin: float) -> NDArray[np.float64]:
    """margin (k(x_i, x_i) + c) for each training row: the dual loop's update test.

    Zeros at margin 0 (no kernel value computed). A diagonal entry that is not finite, or a
    margin that overflows it, would update on every visit (inf) or never (NaN), so it is
    refused, naming the row.
    """
    n = gram.slot.shape[0]
    if not (isinstance(margin, numbers.Real) and math.isfinite(margin) and margin >= 0):
        raise ValueError(f"margin must be a finite number >= 0; got {margin!r}.")
    if margin == 0:
        return np.zeros(n)
    with np.errstate(over="ignore", invalid="ignore"):
        threshold = float(margin) * gram.diagonal()
    bad = np.flatnonzero(~np.isfinite(threshold))
    if bad.size:
        raise ValueError(
            f"margin={margin!r} times k(x_i, x_i) + c is not finite for row {bad[0]}: the "
            "kernel value overflowed, or the margin is too large for it; rescale X, or "
            "lower degree, gamma or the margin.")
    return threshold


def _checked_burn_in(burn_in) -> int:
    if not _is_int(burn_in) or not 0 <= burn_in <= np.iinfo(np.int64).max:
        raise ValueError(f"burn_in must be a non-negative int64 step count; got {burn_in!r}.")
    return int(burn_in)


def _is_int(value) -> bool:
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


def _check_gram_rows(gram: GramRows, n: int) -> None:
    """Refuse a GramRows whose arrays disagree (the loop indexes K with slot, last_use with
    K's rows): only a GramRows changed after it was built can, so this is cheap insurance."""
    K, slot = gram.K, gram.slot
    if (K.ndim != 2 or K.shape[1] != n or slot.shape != (n,)
            or gram.last_use.shape != (K.shape[0] + 1,)
            or (n and not -1 <= slot.min() <= slot.max() < K.shape[0])):
        raise ValueError("gram's rows, slots and clock disagree: build it again with "
                         "training_gram or GramRows.")


def run_linear_perceptron(X, y: NDArray, *, positive=1.0, fit_intercept: bool = True,
                          max_epochs: int = 1, selection: str = "cyclic",
                          rng: np.random.RandomState | None = None,
                          w0: NDArray | None = None, n_steps: int = 0,
                          burn_in: int = 0) -> KernelRun:
    """:func:`run_kernel_perceptron` with the linear kernel at margin 0, run in the primal.

    The dual loop visits the examples in the same order and updates on the same sign test
    as the primal loop, whose weights are w = sum_i alpha_i y_i x'_i: the same updates, so
    alpha_i is the number of times example i appears in the primal run's update log. The
    decision values are the same sums taken in another order: on data whose products are
    exact (integers, a9a's 0/1 features) they are the same numbers and the runs agree bit
    for bit; on real-valued data they differ by rounding, which changes a run only where a
    decision value is within rounding of zero. ``rng`` draws the same permutations as
    there (the same epoch driver). A resumed run starts from the primal weights ``w0``
    (d coefficients, then the intercept) of the earlier hypothesis and its step count.

    The log of updates holds the row and the step of each, which is all the averaged and
    voted forms need (the sums of :class:`KernelRun`), so the primal loop runs in its
    plain mode: the same updates as its averaged mode, without the running sum over d
    coordinates, which the dual coefficients do not use.
    """
    state = None
    if w0 is not None or n_steps:
        state = PerceptronState.zeros(X.shape[1])
        if w0 is not None:
            state.w[:] = w0
        state.counters[kp.STEP] = n_steps
    run = run_perceptron(X, y, positive=positive, fit_intercept=fit_intercept,
                         max_epochs=max_epochs, selection=selection, rng=rng, state=state,
                         record_updates=True)
    n = X.shape[0]
    empty = np.empty(0, dtype=np.int64)
    rows = run.update_rows if run.update_rows is not None else empty
    steps = run.update_steps if run.update_steps is not None else empty
    alpha = np.bincount(rows, minlength=n).astype(np.int64, copy=False)
    sums = np.zeros(n, dtype=np.int64)
    np.add.at(sums, rows, np.maximum(steps - 1 - _checked_burn_in(burn_in), 0))
    return KernelRun(alpha, run.n_updates, run.n_epochs, run.converged, sums,
                     run.state.n_steps, rows, steps)


def _one_epoch(gram: GramRows, Y, f, state, log, order, rule) -> int:
    """One pass of the dual loop, computing missing Gram rows (a block) where the pass stops."""
    n, pos, total = f.shape[0], 0, 0
    while True:
        pos, k = kd.dual_epoch(gram.K, gram.slot, Y, order, pos, f, state, log,
                               gram.last_use, rule)
        total += k
        if pos < 0:
            return pos  # -1 - i for row i: the driver raises
        if pos == n:
            return total
        gram.fetch_ahead(Y, f, order, pos, rule[0])


def overflow_error(row: int) -> ValueError:
    # The data passed the finiteness check (at fit, or at predict), so a non-finite decision
    # value is an overflow of the kernel values (or of a precomputed or callable kernel's
    # entries).
    return ValueError(
        f"The decision value of row {row} overflowed; the kernel values are too large: "
        "rescale X, or lower degree or gamma."
    )


def training_gram(X, kernel: str | Callable, *, degree: int = 3, gamma: float | None = None,
                  coef0: float = 1.0, fit_intercept: bool = True,
                  cache_size: float = 200.0) -> GramRows:
    """The :class:`GramRows` of validated training data X for the dual run.

    ``kernel`` is a name of :data:`KERNELS` (rows computed by the compiled loop), a callable
    k(A, B), or "precomputed" (X is the square Gram matrix itself). ``gamma=None`` means
    1 / n_features, as in :func:`kernel_matrix`. The constant feature of the homogeneous
    reduction adds 1 to every entry when ``fit_intercept``.
    """
    c = 1.0 if fit_intercept else 0.0
    if kernel == "precomputed":
        gram = X.toarray() if sp.issparse(X) else X
        return GramRows(X, cache_size, spec=(0, 0.0, 0.0, 0.0, c), gram=gram)
    if callable(kernel):
        return GramRows(X, cache_size, spec=(0, 0.0, 0.0, 0.0, c),
                        kernel_rows=partial(callable_matrix, kernel, B=X))
    gamma = 1.0 / X.shape[1] if gamma is None else float(gamma)
    if kernel != "linear":
        check_kernel_scale(log2_largest_square_norm(X), kernel, degree, gamma, coef0)
    spec = (_KIND[kernel], gamma, float(coef0), float(degree), c)
    return GramRows(X, cache_size, spec=spec)
