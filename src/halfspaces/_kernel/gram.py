"""Everything that evaluates a kernel: k(a_i, b_j) of a named Mercer kernel or of a callable
k(A, B), and the cache of training Gram rows the dual perceptron reads.

:func:`kernel_matrix` is the checked public entry (re-exported by :mod:`halfspaces.kernel`);
:func:`kernel_block` and :func:`named_kernel` compute the matrix of inputs already checked,
block after block, for the estimators' scores; :func:`squared_norms` gives the rows'
||a_i||^2 (computed once for the RBF kernel) and :func:`callable_matrix` a callable
kernel's matrix, its shape checked.

:class:`GramRows` holds the rows k(x_i, .) + c of a training Gram matrix that
:func:`halfspaces._kernel.dual_run.run_kernel_perceptron` reads: computed when an update
first needs them, in blocks, and kept as ``cache_size`` allows. It computes the rows of
named kernels with the compiled loops of :mod:`halfspaces._fast.dual` (CSR) or BLAS
products (dense), a callable kernel's rows by calling it, and holds a precomputed Gram
matrix as it is. It also gives the matrix's diagonal, which a margin is measured in.
"""

from __future__ import annotations

from collections.abc import Callable

import numba
import numpy as np
import scipy.sparse as sp
from numpy.typing import ArrayLike, NDArray
from scipy.linalg.blas import dsyrk
from sklearn.utils import check_array

from halfspaces._fast import dual as fast_dual
from halfspaces._fast import loop_input
from halfspaces._sklearn import FloatInterval, StrOptions, validate_params

__all__ = ["DENSE_BLOCK", "DIAGONAL_BLOCK", "GRAM_BLOCK", "GRAM_COLUMNS", "GramRows", "KERNELS",
           "MAX_CACHE_SIZE", "PARALLEL_WORK", "as_float64", "callable_matrix", "check_kernel_scale",
           "kernel_block", "kernel_matrix", "log2_largest_square_norm", "named_kernel",
           "squared_norms"]

MAX_CACHE_SIZE = 2.0**40
"""The largest ``cache_size`` (MB): more memory than any machine has, and small enough that
the cache's size in bytes is an int64 (at 1e308 MB it was inf, and the rows it holds an
OverflowError in fit and at predict)."""

KERNELS = ("linear", "poly", "rbf", "sigmoid")


@validate_params({
    "A": ["array-like", "sparse matrix"],
    "B": ["array-like", "sparse matrix"],
    "kernel": [StrOptions(set(KERNELS)), callable],
    "degree": [FloatInterval(0, None, closed="left")],
    "gamma": [FloatInterval(0, None, closed="neither"), None],
    "coef0": [FloatInterval(None, None, closed="neither")],
}, prefer_skip_nested_validation=True)
def kernel_matrix(A: ArrayLike, B: ArrayLike, kernel: str | Callable = "linear",
                  degree: float = 3, gamma: float | None = None,
                  coef0: float = 1.0) -> NDArray[np.float64]:
    r"""The matrix k(a_i, b_j) of a named kernel, or of a callable k(A, B).

    .. math::

        \text{linear: } \langle a, b\rangle \quad
        \text{poly: } (\gamma\langle a, b\rangle + c_0)^{p} \quad
        \text{rbf: } e^{-\gamma\|a - b\|^2} \quad
        \text{sigmoid: } \tanh(\gamma\langle a, b\rangle + c_0)

    Parameters
    ----------
    A : {array-like, sparse matrix} of shape (n_a, n_features)
    B : {array-like, sparse matrix} of shape (n_b, n_features)
        Finite real numbers (a named kernel); a callable gets A and B as given.
    kernel : {"linear", "poly", "rbf", "sigmoid"} or callable, default="linear"
        A callable gets (A, B) and returns the (n_a, n_b) matrix.
    degree : float, default=3
        p >= 0 of the polynomial kernel.
    gamma : float, default=None
        gamma > 0 of poly, rbf and sigmoid; None means 1 / n_features (which needs a
        feature: with none, pass gamma).
    coef0 : float, default=1.0
        c_0 of poly and sigmoid.

    Returns
    -------
    K : ndarray of shape (n_a, n_b), float64

    Raises
    ------
    ValueError
        For an unknown kernel name or a parameter out of range (naming it), and for A or B
        that are not two-dimensional, hold complex, non-numeric or non-finite values, or
        differ in their number of features.

    Examples
    --------
    >>> from halfspaces.kernel import kernel_matrix
    >>> kernel_matrix([[1.0, 2.0]], [[3.0, 4.0], [0.0, 0.0]], "poly", degree=2, gamma=1.0)
    array([[144.,   1.]])
    """
    if callable(kernel):
        return kernel_block(A, B, kernel, degree, gamma, coef0)
    # check_array refuses what NumPy let through: 1-D and 3-D arrays (an IndexError; a 3-D
    # "matrix"), complex values (their imaginary parts silently dropped), NaN and inf
    Ac, Bc = (check_array(M, accept_sparse="csr", dtype=np.float64, ensure_min_samples=0,
                          ensure_min_features=0, input_name=name)
              for M, name in ((A, "A"), (B, "B")))
    if Ac.shape[1] != Bc.shape[1]:
        raise ValueError(f"A has {Ac.shape[1]} features and B has {Bc.shape[1]}: a kernel "
                         "compares rows of the same number of features.")
    if Ac.shape[1] == 0 and gamma is None and kernel != "linear":
        raise ValueError(f"gamma=None means 1 / n_features, which A and B of 0 features do "
                         f"not define: pass gamma to the {kernel!r} kernel.")
    return kernel_block(Ac, Bc, kernel, degree, gamma, coef0)


def kernel_block(A, B, kernel: str | Callable, degree: float, gamma: float | None,
                 coef0: float) -> NDArray[np.float64]:
    """:func:`kernel_matrix` of inputs already checked (the estimators' validated rows and
    support vectors, block after block: the checks would repeat a pass over each)."""
    if not sp.issparse(A):
        A = np.asarray(A)
    if not sp.issparse(B):
        B = np.asarray(B)
    if callable(kernel):
        return callable_matrix(kernel, A, B)
    B = as_float64(B)
    sq_norms = squared_norms(B) if kernel == "rbf" else None
    return named_kernel(as_float64(A), B, kernel, degree, gamma, coef0, sq_norms)


def callable_matrix(kernel: Callable, A, B) -> NDArray[np.float64]:
    K = np.asarray(kernel(A, B), dtype=np.float64)
    expected = (A.shape[0], B.shape[0])
    if K.shape != expected:
        raise ValueError(
            f"The callable kernel returned a matrix of shape {K.shape} for inputs of "
            f"{A.shape[0]} and {B.shape[0]} rows; kernel(A, B) must return shape {expected}."
        )
    finite = np.isfinite(K)
    if not finite.all():  # a NaN was reported as an overflow of the decision values
        i, j = np.argwhere(~finite)[0]
        raise ValueError(
            f"The callable kernel returned {K[i, j]} for rows {i} and {j} of its inputs; "
            "kernel(A, B) must return finite values.")
    return K


def named_kernel(A, B, kernel: str, degree: float, gamma: float | None, coef0: float,
                 sq_norms_B: NDArray | None = None) -> NDArray[np.float64]:
    """:func:`kernel_matrix` of float64 A and B, given ||b_j||^2 for "rbf" (computed once)."""
    K = _dots(A, B)
    if kernel == "linear":  # no gamma, so defined for 0 features too
        return K
    gamma = 1.0 / A.shape[1] if gamma is None else gamma
    if kernel == "rbf":
        assert sq_norms_B is not None, "the rbf kernel is given ||b_j||^2"
        K *= -2.0
        K += squared_norms(A)[:, None]
        K += sq_norms_B[None, :]
        np.maximum(K, 0.0, out=K)  # rounding can make a squared distance negative
        K *= -gamma
        return np.exp(K, out=K)
    K *= gamma
    K += coef0
    return K**degree if kernel == "poly" else np.tanh(K, out=K)


def _dots(A, B) -> NDArray[np.float64]:
    """The matrix of <a_i, b_j>, dense and C-ordered.

    A sparse operand of at most 2^22 entries is made dense for BLAS; a larger one, or a
    sparse B against a few rows A (one Gram row), stays sparse.
    """
    few = A.shape[0] <= 64
    A, B = _dense_if_small(A), B if few else _dense_if_small(B)
    if sp.issparse(B) and not sp.issparse(A):
        return np.ascontiguousarray(np.asarray(B @ A.T).T)
    product = A @ B.T
    product = product.toarray() if sp.issparse(product) else np.asarray(product)
    return np.ascontiguousarray(product, dtype=np.float64)


def _dense_if_small(A):
    return A.toarray() if sp.issparse(A) and A.shape[0] * A.shape[1] <= 2**22 else A


def squared_norms(A) -> NDArray[np.float64]:
    """||a_i||^2 of every row, accumulated in float64 (also for float32 A)."""
    if sp.issparse(A):
        A = A.astype(np.float64, copy=False)
        return np.asarray(A.multiply(A).sum(axis=1)).ravel()
    return np.einsum("ij,ij->i", A, A, dtype=np.float64)


def as_float64(A):
    """A as float64 (CSR stays CSR), without a copy when it already is."""
    if sp.issparse(A):
        return A.astype(np.float64, copy=False)
    return np.asarray(A, dtype=np.float64)


# the kernel's argument (gamma <a, b> + coef0, or gamma ||a - b||^2) counts when it is above
# 2^-60 of what it is added to; inner products below 2^-1000 carry the underflow of their
# subnormal terms (d 2^-1075) beyond 2^-53 of their size or so
_NEGLIGIBLE, _FULL_PRECISION = -60.0, -1000.0


def log2_largest_square_norm(X, sq: NDArray | None = None) -> float:
    """log2 of max_i ||x_i||^2 (-inf for X = 0), on X scaled by a power of two: squares of
    entries of 1e200 or 1e-200 neither overflow nor underflow.

    ``sq``, the rows' squared norms when the caller has them (a Gram matrix's cache does),
    answers without the two copies of X the scaling takes, wherever its largest entry is
    finite and far from the subnormals.
    """
    if sq is not None and sq.size:
        top_square = float(sq.max())
        if 2.0**-1000 < top_square < np.inf:
            return float(np.log2(top_square))
    top = float(abs(X).max()) if X.shape[0] * X.shape[1] else 0.0
    if not top > 0.0:
        return -np.inf
    e = int(np.frexp(top)[1])
    if sp.issparse(X):
        X = X.copy()
        X.data = np.ldexp(X.data, -e)
    else:
        X = np.ldexp(X, -e)
    return float(np.log2(squared_norms(X).max())) + 2.0 * e


def check_kernel_scale(log2_r2: float, kernel: str, degree: float, gamma: float,
                       coef0: float) -> None:
    """Refuse data whose kernel values underflow or overflow while they still matter.

    ``log2_r2`` is log2 max_i ||x_i||^2 (:func:`log2_largest_square_norm`): every |<a, b>|
    is at most R^2, every ||a - b||^2 at most 4 R^2. The kernels are scale-free in exact
    arithmetic (X 2^k with gamma 2^-2k gives the same values), floats are not: the
    homogeneous poly kernel (coef0 = 0, degree 3) on X of 2^-200 had every value
    (gamma <x, x'>)^3 ~ 2^-1200 = 0, and the perceptron erred on every row without end;
    with gamma 2^1040 on X of 2^-520 the inner products were subnormal, of a few bits, and
    gamma times them O(1); the rbf kernel with gamma 2^-1040 on X of 2^520 gave exp(-inf)
    = 0 and the sigmoid tanh(inf) = 1, silently.
    """
    if kernel not in ("poly", "rbf", "sigmoid") or log2_r2 == -np.inf:
        return
    if kernel == "rbf":  # gamma ||a - b||^2 against 1 (exp(-t) = 1 - t), inf past 2^10
        largest = log2_r2 + 2.0
        argument, offset, saturated = np.log2(gamma) + largest, 0.0, 10.0
    else:  # gamma <a, b> against coef0; tanh is +-1 past 2^5 (poly's inf is refused later)
        largest = log2_r2
        argument = np.log2(gamma) + largest
        offset = np.log2(abs(coef0)) if coef0 != 0 else -np.inf
        saturated = 5.0 if kernel == "sigmoid" else -np.inf
    imprecise = log2_r2 < _FULL_PRECISION and argument > offset + _NEGLIGIBLE
    overflowed = largest >= 1024.0 and argument < saturated
    # without coef0 the values are (gamma <a, b>)^degree, or tanh of it: all subnormal
    largest = argument * (degree if kernel == "poly" else 1.0)
    if imprecise or overflowed or (kernel != "rbf" and coef0 == 0
                                   and largest < _FULL_PRECISION):
        raise ValueError(
            f"X's largest row norm is 2^{log2_r2 / 2:.1f}: the {kernel} kernel's values "
            f"(gamma={gamma:.3g}, coef0={coef0:g}) come from products that underflow or "
            "overflow float64. The kernel is the same on X 2^k with gamma 2^-2k: "
            "multiply X by a power of two (say 2^600) and gamma by its inverse square.")


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
# Block of X per call of a callable kernel for the Gram matrix's diagonal: k(A, A) of a block
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
    new ones (as libsvm's kernel cache does). Block of examples that never cause an update are
    never computed.

    When the dual loop stops for a missing row, :meth:`fetch_block` computes it together
    with the rows of the next ``block - 1`` examples of the pass that have no row and are
    mistakes of the current hypothesis (:func:`halfspaces._fast.dual.missing_rows`): one
    pass over X for the block. A block of 16 a9a rows costs 2.4 times one row, so the rows
    computed ahead that the loop turns out not to need (an update on an earlier example
    corrected them; about half of them on a9a) cost less than the passes they save. Block
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
            self.gram_rows = fast_dual.gram_rows_parallel if parallel else fast_dual.gram_rows

    def diagonal(self) -> NDArray[np.float64]:
        """k(x_i, x_i) + c for every training row: what a margin is measured in, O(n)."""
        n = self.slot.shape[0]
        if self.kernel_rows is None and not hasattr(self, "sq"):  # the Gram matrix given
            return np.ascontiguousarray(np.diagonal(self.K)[:n], dtype=np.float64)
        if self.kernel_rows is None:
            out = np.empty(n)
            fast_dual.gram_diagonal(self.spec, self.sq, out)
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
        count = fast_dual.missing_rows(self.slot, Y, order, pos, f, threshold, rows)
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
        fast_dual.gram_from_lower_dots(self.K, self.spec, self.sq)
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
            fast_dual.gram_from_dots(dots, rows, self.spec, self.sq, self.K, slots, start)
