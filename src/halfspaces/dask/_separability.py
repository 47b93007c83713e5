"""Separability and the maximum-margin hyperplane of data held in partitions on a cluster.

The serial working-set algorithms (:func:`halfspaces.theory.separability`,
:func:`halfspaces.theory.max_margin`) solve on a subset of rows, check every row against
the candidate, add the violated rows and repeat. Only the check reads every row. Here each
partition checks its own rows (:func:`halfspaces._exact.block_violations`) and returns its
most violated ones; the working set (a few thousand rows) is fetched to the client, where
HiGHS solves on it. The answers are the serial ones, checked the same way: a separator
against every row (on the workers), a Gordan certificate by Z^T a summed over the
partitions and compared with each column's size.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from numpy.typing import NDArray

from halfspaces._exact import SignedRows, block_violations, scores, signed_rows
from halfspaces._exact.signed import combine_violations, squared_hinge
from halfspaces._utils.scaling import max_row_norm, scale_columns
from halfspaces._validation import plus_minus
from halfspaces.dask._partitions import Partitions, add_in_order
from halfspaces.dask._perceptron import as_partitions
from halfspaces.theory.bounds import FreundSchapireBound, best_freund_schapire_bound_of_rows
from halfspaces.theory.separability import (
    MaxMargin,
    Separability,
    max_margin_of_rows,
    separability_of_rows,
)

__all__ = ["PartitionedRows", "best_freund_schapire_bound", "max_margin", "radius",
           "separability", "signed_partitions"]


class _Signs:
    """y -> ±1 on a worker, from the sign of each class (a picklable callable)."""

    def __init__(self, classes: NDArray, signs: NDArray) -> None:
        self.classes, self.signs = classes, signs

    def __call__(self, y: NDArray) -> NDArray:
        return self.signs[np.searchsorted(self.classes, y)]


def _float64_block(X):
    """One block of X in float64, CSR canonical, as the serial theory tools check it."""
    if sp.issparse(X):
        X = sp.csr_matrix(X, dtype=np.float64, copy=True)
        X.sum_duplicates()
        X.sort_indices()
        return X
    return np.ascontiguousarray(X, dtype=np.float64)


def _block_rows(X, y_pm, fit_intercept: bool, scale: NDArray | None):
    """The signed rows of one block, in float64, as the serial theory tools build them."""
    Z = signed_rows(_float64_block(X), y_pm, fit_intercept)
    return Z if scale is None else scale_columns(Z, scale)


def _take(X, y, index, offsets, rows, fit_intercept, scale):
    local = rows[(rows >= offsets[index]) & (rows < offsets[index + 1])] - offsets[index]
    return _block_rows(X, y, fit_intercept, scale)[local]


def _check(X, y, index, offsets, w, threshold, strict, exclude, limit, fit_intercept, scale):
    return block_violations(_block_rows(X, y, fit_intercept, scale), w, threshold,
                            strict=strict, exclude=exclude, limit=limit,
                            offset=int(offsets[index]))


def _min_score(X, y, fit_intercept, scale, w):
    return float(scores(_block_rows(X, y, fit_intercept, scale), w).min(initial=np.inf))


def _transposed_product(X, y, index, offsets, rows, values, fit_intercept, scale):
    Z = _block_rows(X, y, fit_intercept, scale)
    a = np.zeros(Z.shape[0])
    mine = (rows >= offsets[index]) & (rows < offsets[index + 1])
    a[rows[mine] - offsets[index]] = values[mine]
    return np.asarray(Z.T @ a).ravel()


def _squared_hinge(X, y, fit_intercept, scale, v):
    return squared_hinge(_block_rows(X, y, fit_intercept, scale), v)


def _max_row_norm(X, y, fit_intercept, scale):
    return max_row_norm(_block_rows(X, y, fit_intercept, scale))


def _max_feature_norm(X, y):
    return max_row_norm(_float64_block(X))


def _column_range(X, y, fit_intercept, scale, j):
    if X.shape[0] == 0:
        return (np.inf, -np.inf)
    Z = _block_rows(X, y, fit_intercept, scale)
    c = np.abs(np.asarray(Z[:, j].toarray() if sp.issparse(Z) else Z[:, j]).ravel())
    return (float(c.min()), float(c.max()))


class PartitionedRows(SignedRows):
    """The signed rows z_i = y_i x'_i of partitions on a cluster, as the solvers read them.

    The blocks of Z are built on the workers from the persisted (X, ±1) blocks when a
    method needs them (a product by a power of two per column when scaled); only the rows
    of the working set and per-partition summaries come back to the client.

    Parameters
    ----------
    parts : Partitions
        The (X, ±1) partitions (see :func:`signed_partitions`).
    fit_intercept : bool
        Whether z_i = y_i (1, x_i) (True) or y_i x_i.
    scale : ndarray of shape (n_columns,) or None, default=None
        Column scales (powers of two) applied to Z; None for none.
    """

    def __init__(self, parts: Partitions, fit_intercept: bool,
                 scale: NDArray | None = None) -> None:
        self.parts, self.fit_intercept, self.scale = parts, bool(fit_intercept), scale
        self.offsets = np.r_[0, np.cumsum(parts.n_rows)].astype(np.int64)

    @property
    def shape(self) -> tuple[int, int]:
        """(n_rows, n_columns) of Z."""
        return (int(self.offsets[-1]), self.parts.n_features + int(self.fit_intercept))

    def _args(self):
        return self.fit_intercept, self.scale

    def matrix(self) -> None:
        """None: the rows stay on the workers (the solvers that need them all in one
        process, as the coordinate descent of the hard margin does, are passed over).

        Returns
        -------
        None
        """
        return None

    def take(self, rows: NDArray):
        """Z[rows], gathered from the partitions that hold them.

        Parameters
        ----------
        rows : ndarray of int
            Row indices, sorted.

        Returns
        -------
        ndarray or scipy.sparse.csr_matrix of shape (len(rows), n_columns)
            The rows, in the given order.
        """
        rows = np.asarray(rows, dtype=np.int64)
        blocks = self.parts.map_with_index(_take, self.offsets, rows, *self._args())
        if self.parts.sparse:
            return sp.vstack(blocks, format="csr")
        return np.vstack(blocks)

    def column_max(self) -> NDArray:
        """The largest magnitude of each column, ``max_i |z_ij|``, from the partitions' maxima.

        Returns
        -------
        ndarray of shape (n_columns,)
            Scaled as Z is.
        """
        top = self.parts.column_max_abs.astype(np.float64)
        if self.fit_intercept:
            top = np.r_[1.0, top]
        return top if self.scale is None else top * self.scale

    def column_range(self, j: int) -> tuple[float, float]:
        """The least and largest magnitudes of column `j` over every partition.

        Parameters
        ----------
        j : int
            The column.

        Returns
        -------
        tuple of float
            ``(min_i |z_ij|, max_i |z_ij|)``.
        """
        ranges = self.parts.map(_column_range, *self._args(), j)
        return min(r[0] for r in ranges), max(r[1] for r in ranges)

    def scaled(self, s: NDArray) -> PartitionedRows:
        """The rows of Z diag(s), computed on the workers when asked for; self when s is 1.

        Parameters
        ----------
        s : ndarray of shape (n_columns,)
            Column factors (powers of two).

        Returns
        -------
        PartitionedRows
            The same partitions, scaled.
        """
        if np.all(s == 1.0):
            return self
        return PartitionedRows(self.parts, self.fit_intercept,
                               s if self.scale is None else self.scale * s)

    def check(self, w, threshold, *, strict=False, exclude=None, limit=None):
        """The rows with <w, z_i> <= threshold (``<`` when strict), checked on every partition.

        Parameters
        ----------
        w : ndarray of shape (n_columns,)
            The candidate.
        threshold : float
            The score a row must exceed.
        strict : bool, default=False
            Count only scores strictly below `threshold`.
        exclude : ndarray of int or None, default=None
            Rows not to report (the working set).
        limit : int or None, default=None
            The most rows to report, those of least score first.

        Returns
        -------
        Violations
            The number of violated rows, the reported rows with their scores, and
            min_i <w, z_i>.
        """
        exclude = np.empty(0, dtype=np.int64) if exclude is None else exclude
        found = self.parts.map_with_index(_check, self.offsets, w, threshold, strict,
                                          exclude, limit, *self._args())
        return combine_violations(found, limit)

    def min_score(self, w: NDArray) -> float:
        """min_i <w, z_i> over every partition.

        Parameters
        ----------
        w : ndarray of shape (n_columns,)
            The weights.

        Returns
        -------
        float
            The least score.
        """
        return min(self.parts.map(_min_score, *self._args(), w))

    def transposed_product(self, a: NDArray) -> NDArray:
        """Z^T a, the partitions' products added in partition order.

        Parameters
        ----------
        a : ndarray of shape (n_rows,)
            One weight per row (only its non-zero rows are read).

        Returns
        -------
        ndarray of shape (n_columns,)
            The product, flat.
        """
        rows = np.flatnonzero(a)
        return add_in_order(self.parts.map_with_index(
            _transposed_product, self.offsets, rows, a[rows], *self._args()))

    def squared_hinge(self, v: NDArray) -> tuple[float, NDArray]:
        """(||(1 - Zv)_+||^2, Z^T (1 - Zv)_+), added over the partitions in order.

        Parameters
        ----------
        v : ndarray of shape (n_columns,)
            The point.

        Returns
        -------
        tuple of (float, ndarray of shape (n_columns,))
            ||(1 - Zv)_+||^2 and Z^T (1 - Zv)_+.
        """
        return add_in_order(self.parts.map(_squared_hinge, *self._args(), v))

    def max_row_norm(self) -> float:
        """max_i ||z_i|| over every partition (each scaled by a power of two first).

        Returns
        -------
        float
            The largest row norm.
        """
        # each partition scales by its own power of two (max_row_norm): the square root of
        # the largest squared norm overflowed at entries 1e200 and was 0 at 1e-200
        return max(self.parts.map(_max_row_norm, *self._args()))


def signed_partitions(X, y=None, fit_intercept: bool = True) -> PartitionedRows:
    """The :class:`PartitionedRows` of (X, y): labels mapped to ±1 as the theory tools map them.

    Labels in {-1, +1} keep their sign; any two other values map the larger one to +1.

    Parameters
    ----------
    X : dask array, dask DataFrame or Partitions
        The data, chunked by rows.
    y : dask array, Series or None, default=None
        Two-class labels with X's row partitions (None when X is a Partitions).
    fit_intercept : bool, default=True
        Whether each row gets the constant feature 1 (affine halfspaces).

    Returns
    -------
    PartitionedRows
        The signed rows z_i = y_i x'_i, held on the workers.
    """
    parts = as_partitions(X, y, exact_values=True)  # proofs are about float64 values
    signs = plus_minus(parts.classes, parts.classes.size)
    return PartitionedRows(parts.map_targets(_Signs(parts.classes, signs)), fit_intercept)


def separability(X, y=None, fit_intercept: bool = True) -> Separability:
    """:func:`halfspaces.theory.separability` of data in partitions on a Dask cluster.

    Decides linear separability with a separating hyperplane or Gordan's certificate of
    non-separability, both verified in floating point against every row: the serial
    working-set LP, with the check of every row done by each partition on its own rows.

    Parameters
    ----------
    X : dask array, dask DataFrame or Partitions
        Chunked by rows (dense or CSR chunks); a Partitions holds the labels too.
    y : dask array or Series, default=None
        Two labels (the larger one is +1, or labels in {-1, +1}).
    fit_intercept : bool, default=True
        Affine rather than homogeneous halfspaces.

    Returns
    -------
    result : halfspaces.theory.Separability
        ``certificate`` has one entry per row, in partition order.

    Examples
    --------
    >>> import dask.array as da
    >>> from distributed import Client, LocalCluster
    >>> from halfspaces.dask import separability
    >>> X = da.from_array([[0.0, 0.0], [1.0, 1.0], [0.0, 1.0], [1.0, 0.0]], chunks=2)
    >>> with LocalCluster(n_workers=2, processes=False) as cluster, Client(cluster):
    ...     found = separability(X, da.from_array([1, 1, 0, 0], chunks=2))
    >>> found.certificate  # XOR: not separable
    array([0.25, 0.25, 0.25, 0.25])
    """
    return separability_of_rows(signed_partitions(X, y, fit_intercept), fit_intercept)


def max_margin(X, y=None, fit_intercept: bool = True) -> MaxMargin:
    """:func:`halfspaces.theory.max_margin` of data in partitions on a Dask cluster.

    The hard-margin QP on a working set, with the check of every row done per partition;
    ``support`` indexes rows in partition order.

    Parameters
    ----------
    X : dask array, dask DataFrame or Partitions
        Linearly separable examples, chunked by rows.
    y : dask array or Series, default=None
        Two labels.
    fit_intercept : bool, default=True
        Affine hyperplanes.

    Returns
    -------
    result : halfspaces.theory.MaxMargin

    Raises
    ------
    NotSeparableError
        When the data are not separable; ``.certificate`` proves it.
    """
    return max_margin_of_rows(signed_partitions(X, y, fit_intercept), fit_intercept)


def radius(X, y=None, fit_intercept: bool = False) -> float:
    r""":func:`halfspaces.theory.radius` of data in partitions on a Dask cluster.

    .. math:: R = \max_i \lVert x_i\rVert_2 \quad\text{or, when fit\_intercept,}\quad
              R' = \sqrt{1 + R^2}

    Each partition returns the largest norm of its rows, computed on the rows scaled by a
    power of two (:func:`halfspaces._exact.max_row_norm`), so entries of 1e200 or 1e-200
    give R rather than inf or 0; the client takes the maximum. It is the serial R, bit for
    bit, unless some entry's square is subnormal (see there).

    Parameters
    ----------
    X : dask array, dask DataFrame or Partitions
        Chunked by rows (dense or CSR chunks).
    y : dask array or Series, default=None
        The labels, only to hold the rows in :class:`Partitions` (None with a Partitions).
    fit_intercept : bool, default=False
        Measure x' = (1, x) instead of x.

    Returns
    -------
    R : float

    Examples
    --------
    >>> import dask.array as da
    >>> from distributed import Client, LocalCluster
    >>> from halfspaces import theory
    >>> from halfspaces.dask import radius
    >>> X = [[3e200, 4e200], [1.0, 0.0]]
    >>> with LocalCluster(n_workers=1, processes=False) as cluster, Client(cluster):
    ...     R = radius(da.from_array(X, chunks=1), da.from_array([1, 0], chunks=1))
    >>> f"{R:.6g}", R == theory.radius(X)  # squared first, it was inf
    ('5e+200', True)
    """
    R = max(as_partitions(X, y, exact_values=True).map(_max_feature_norm), default=0.0)
    return float(np.hypot(1.0, R)) if fit_intercept else float(R)


def best_freund_schapire_bound(X, y=None, fit_intercept: bool = True) -> FreundSchapireBound:
    """:func:`halfspaces.theory.best_freund_schapire_bound` of data in partitions on a cluster.

    The smallest Freund-Schapire mistake bound ((R + D)/gamma)^2 the serial search finds,
    valid on any data, separable or not. Each evaluation of the bound's root costs one pass
    in which every partition returns its squared hinge and Z^T of its slack (O(d) numbers),
    added in partition order; the separable case's hard-margin point comes from the working
    set, as in :func:`max_margin`.

    Parameters
    ----------
    X : dask array, dask DataFrame or Partitions
        Chunked by rows (dense or CSR chunks); a Partitions holds the labels too.
    y : dask array or Series, default=None
        Two labels (the larger one is +1, or labels in {-1, +1}).
    fit_intercept : bool, default=True
        Bound the perceptron that learns an intercept (runs on x').

    Returns
    -------
    result : halfspaces.theory.FreundSchapireBound
        ``(bound, u, gamma)`` with ||u|| = 1.
    """
    rows = signed_partitions(X, y, fit_intercept)
    return best_freund_schapire_bound_of_rows(rows)
