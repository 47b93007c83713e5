"""Row blocks of (X, y) persisted on the workers of a Dask cluster: the engine of halfspaces.dask.

Spark MLlib's recipe for distributed generalised linear models (Meng et al., "MLlib: Machine
Learning in Apache Spark", JMLR 17, 2016): the optimiser runs on the client; each evaluation
sends the weights out once, every partition computes its sums over its own rows, and the
client adds the per-partition results. XGBoost's and LightGBM's Dask integrations keep the
partitions persisted on the workers and send one task per partition, as :class:`Partitions`
does.

Determinism. The client adds the partitions' results in partition order, so a fit does not
depend on which worker ran which task, nor on how many workers there are. Every task is
pure (its key is a hash of its function and inputs), so a task lost with its worker is
recomputed from the same inputs and gives the same bits.
"""

from __future__ import annotations

import operator
from dataclasses import dataclass, replace

import numpy as np
import scipy.sparse as sp
from numpy.typing import NDArray

from halfspaces._utils.memory import check_dense_vectors
from halfspaces._utils.rounding import refuse_rounded_values
from halfspaces._validation import (
    FIT_INPUT,
    check_sparse_structure,
    checked_input,
    column_max_abs,
)
from halfspaces.dask._gather import gather

__all__ = ["Partitions", "map_row_blocks"]

# Arguments larger than this travel once per call to every worker (scatter, broadcast) rather
# than inside each of the n_partitions task messages.
_SCATTER_BYTES = 1 << 17


@dataclass(frozen=True)
class _BlockStats:
    """What the validating pass learns about one block."""

    n_rows: int
    n_features: int
    nnz: int
    dtype: str
    sparse: bool
    labels: NDArray | None
    column_max_abs: NDArray


@dataclass(frozen=True, eq=False)
class Partitions:
    """Row blocks of (X, y) persisted on the workers of a distributed Client, in order.

    Build it with :meth:`from_collections` (dask arrays or DataFrames) or
    :meth:`from_blocks` (futures or delayed objects of ``(X_block, y_block)`` pairs, as a
    file reader makes them). Every block is validated on its worker (float64 or float32,
    finite, a consistent CSR structure) in the same pass that collects the statistics below;
    empty blocks, and blocks of one row, are allowed everywhere and contribute nothing.

    Attributes
    ----------
    client : distributed.Client
    X_blocks, y_blocks : list of distributed.Future
        The validated blocks, in partition order: X dense C-contiguous or CSR, y 1-D.
    n_rows : ndarray of shape (n_partitions,)
        Rows per partition.
    n_features : int
    nnz : ndarray of shape (n_partitions,)
        Stored entries per partition (the size of a dense block).
    dtype : numpy.dtype
        float64 or float32, the same for every block.
    sparse : bool
        Whether the blocks are CSR matrices.
    classes : ndarray or None
        The sorted distinct labels of all blocks (None unless ``targets="classes"``). After
        :meth:`map_targets` they are still the labels the blocks were built with.
    column_max_abs : ndarray of shape (n_features,)
        ``max_i |x_ij|`` over all rows, float64: the datafits' scales.
    zero_based : bool or None
        The index base of the svmlight files :func:`halfspaces.dask.read_files` read them
        from (None for other sources): read further files of the same data with it.
    workers : tuple of str
        The worker each partition was placed on (empty if the cluster had no workers then):
        every pass sends one task per worker, for all of its partitions.
    feature_names : tuple of str or None
        The columns' names (a CSV/TSV header's or a Parquet schema's, from
        :func:`halfspaces.dask.read_files`); the estimators keep them as
        ``feature_names_in_``. None where the data have none.
    """

    client: object
    X_blocks: list
    y_blocks: list
    n_rows: NDArray
    n_features: int
    nnz: NDArray
    dtype: np.dtype
    sparse: bool
    classes: NDArray | None
    column_max_abs: NDArray
    zero_based: bool | None = None
    workers: tuple = ()
    feature_names: tuple[str, ...] | None = None

    # -- construction ----------------------------------------------------------------------
    @classmethod
    def from_collections(cls, X, y, client=None, *, accept_sparse: bool = True,
                         targets: str | None = None, exact_values: bool = False) -> Partitions:
        """Validate and persist the row partitions of dask collections X and y.

        Parameters
        ----------
        X : dask.array.Array or dask.dataframe.DataFrame
            Chunked by rows only (a chunked column axis is rechunked to one column block);
            chunks dense NumPy arrays or ``scipy.sparse`` matrices (made CSR).
        y : dask.array.Array, dask.dataframe.Series or one-column DataFrame
            With the same row partitions as X.
        client : distributed.Client, optional
            Default: the current client (``distributed.get_client()``).
        accept_sparse : bool, default=True
            False refuses sparse blocks.
        targets : {"classes", "continuous", "encoded"} or None, default=None (classes)
            "classes" collects the distinct labels of y; "continuous" requires float y,
            finite, and collects none (regression); "encoded" keeps y as it is (targets
            already encoded for a datafit) and collects none.
        exact_values : bool, default=False
            True refuses a block whose values float64 would round (integers beyond 2^53,
            long doubles), naming the partition, row and column: what the theory tools
            prove is about float64 values
            (:func:`halfspaces._utils.rounding.refuse_rounded_values`).
            The estimators convert as scikit-learn's do.

        Returns
        -------
        Partitions
        """
        client = _client(client)
        _check_declared_width(X)
        x_parts, y_parts = _row_blocks(X, "X"), _row_blocks(y, "y")
        if len(x_parts) != len(y_parts):
            raise ValueError(
                f"X has {len(x_parts)} row partitions but y has {len(y_parts)}; give them the "
                "same row partitions (e.g. y = y.rechunk(X.chunks[0]) for dask arrays)."
            )
        pair = _dask_delayed()(_pair, pure=True)
        pairs = [pair(xb, yb) for xb, yb in zip(x_parts, y_parts, strict=True)]
        return cls.from_blocks(pairs, client, accept_sparse=accept_sparse, targets=targets,
                               exact_values=exact_values)

    @classmethod
    def from_blocks(cls, futures_or_delayed, client=None, *, accept_sparse: bool = True,
                    targets: str | None = None, exact_values: bool = False) -> Partitions:
        """Validate and persist blocks given as futures or delayed ``(X_block, y_block)``.

        Parameters
        ----------
        futures_or_delayed : list of distributed.Future or dask.delayed.Delayed
            Each produces one ``(X_block, y_block)`` pair: one partition, in order.
        client, accept_sparse, targets, exact_values
            As in :meth:`from_collections`.

        Returns
        -------
        Partitions
        """
        client = _client(client)
        mode = _targets_mode(targets)
        items = list(futures_or_delayed)
        where = _placement(client, len(items))
        raw = [_as_future(client, item, on) for item, on in zip(items, where, strict=True)]
        checked = [client.submit(_validated, item, i, accept_sparse, mode, exact_values,
                                 pure=True, **on)
                   for i, (item, on) in enumerate(zip(raw, where, strict=True))]
        X_blocks = [client.submit(operator.getitem, c, 0, pure=True) for c in checked]
        y_blocks = [client.submit(operator.getitem, c, 1, pure=True) for c in checked]
        stats = gather(client, [client.submit(operator.getitem, c, 2, pure=True)
                                for c in checked])
        placed = tuple(on["workers"][0] for on in where) if all(where) else ()
        return cls._from_stats(client, X_blocks, y_blocks, stats, mode, placed)

    @classmethod
    def _from_stats(cls, client, X_blocks, y_blocks, stats, mode,
                    workers: tuple = ()) -> Partitions:
        if not stats:
            raise ValueError("X has no partitions; pass at least one block of rows.")
        widths = {s.n_features for s in stats}
        if len(widths) > 1:
            raise ValueError(f"the partitions have different numbers of columns, "
                             f"{[s.n_features for s in stats]}; every block needs the same.")
        dtypes = {s.dtype for s in stats if s.n_rows} or {stats[0].dtype}
        if len(dtypes) > 1:
            raise ValueError(f"the partitions have different dtypes {sorted(dtypes)}; cast X "
                             "to one of float64 or float32.")
        kinds = {s.sparse for s in stats if s.n_rows} or {stats[0].sparse}
        if len(kinds) > 1:
            raise ValueError("some partitions are sparse and some dense; make them all one.")
        n_rows = np.array([s.n_rows for s in stats], dtype=np.int64)
        if n_rows.sum() == 0:
            raise ValueError("X has 0 rows in all its partitions; at least one row is required.")
        classes = None
        if mode == "classes":
            classes = np.unique(np.concatenate([s.labels for s in stats]))
        return cls(client, list(X_blocks), list(y_blocks), n_rows, widths.pop(),
                   np.array([s.nnz for s in stats], dtype=np.int64), np.dtype(dtypes.pop()),
                   kinds.pop(), classes, np.max([s.column_max_abs for s in stats], axis=0),
                   workers=workers)

    # -- sizes -----------------------------------------------------------------------------
    @property
    def n_partitions(self) -> int:
        """The number of row partitions."""
        return len(self.X_blocks)

    @property
    def n_samples(self) -> int:
        """The number of rows of all partitions."""
        return int(self.n_rows.sum())

    @property
    def shape(self) -> tuple[int, int]:
        """(n_samples, n_features)."""
        return (self.n_samples, self.n_features)

    # -- work ------------------------------------------------------------------------------
    def map(self, fn, *args, **kwargs) -> list:
        """``fn(X_block, y_block, *args, **kwargs)`` on every partition, results in order.

        One pure task per worker, for its partitions in order (per partition when the
        placement is unknown); arrays larger than 128 kB among the arguments travel once to
        every worker (``scatter(..., broadcast=True)``), not once per task.

        Parameters
        ----------
        fn : callable
            A pure function of the blocks, run on the worker that holds them.
        *args, **kwargs
            Passed on to `fn` after the block arguments.

        Returns
        -------
        list
            One result per partition, in partition order.
        """
        return self._run(fn, False, args, kwargs)

    def map_with_index(self, fn, *args, **kwargs) -> list:
        """``fn(X_block, y_block, i, *args, **kwargs)`` on partition i, results in order.

        Parameters
        ----------
        fn : callable
            A pure function of the blocks and the partition's index i.
        *args, **kwargs
            Passed on to `fn` after the block arguments.

        Returns
        -------
        list
            One result per partition, in partition order.
        """
        return self._run(fn, True, args, kwargs)

    def _run(self, fn, with_index: bool, args, kwargs) -> list:
        """The results of fn on every partition, in partition order.

        A pass costs a round trip through the scheduler per task: 27 ms for an empty pass
        over 8 partitions on 2 workers, against 12-16 ms for 2 partitions. So the
        partitions of one worker go in one task (as XGBoost's Dask integration sends one
        task per worker), restricted loosely to that worker: where its blocks are.
        """
        args, kwargs = self._shipped(args, kwargs)
        groups: dict = {}
        for i, worker in enumerate(self.workers or range(self.n_partitions)):
            groups.setdefault(worker, []).append(i)
        futures = []
        for worker, members in groups.items():
            on = {"workers": [worker], "allow_other_workers": True} if self.workers else {}
            futures.append(self.client.submit(
                _each_block, fn, [self.X_blocks[i] for i in members],
                [self.y_blocks[i] for i in members], members if with_index else None, args,
                kwargs, pure=True, **on))
        results: list = [None] * self.n_partitions
        for members, found in zip(groups.values(), gather(self.client, futures), strict=True):
            for i, result in zip(members, found, strict=True):
                results[i] = result
        return results

    def sum(self, fn, *args, **kwargs):
        """The results of :meth:`map` added in partition order on the client.

        Tuples are added elementwise. The order is fixed, so the sum is the same bits
        whichever worker ran which partition; with one partition it is that partition's
        result itself.

        Parameters
        ----------
        fn : callable
            As for :meth:`map`: returns a number, an array or a tuple of them.
        *args, **kwargs
            Passed on to `fn` after the block arguments.

        Returns
        -------
        object
            The sum, of the type `fn` returns.
        """
        return add_in_order(self.map(fn, *args, **kwargs))

    def map_targets(self, fn) -> Partitions:
        """The same partitions with each y block replaced by ``fn(y_block)`` on its worker.

        For label encoding (the classes to ±1 or to class indices); the X blocks are shared,
        not copied.

        Parameters
        ----------
        fn : callable
            A pure function of one y block, returning the new block (same length).

        Returns
        -------
        Partitions
        """
        y_blocks = [self.client.submit(fn, yb, pure=True) for yb in self.y_blocks]
        return replace(self, y_blocks=y_blocks)

    def map_blocks(self, fn, *args, targets: str | None = None) -> Partitions:
        """New partitions from ``fn(X_block, y_block, i, *args) -> (X', y')`` on partition i.

        The new blocks are validated and measured like the originals (e.g. a sample of each
        partition's rows).

        Parameters
        ----------
        fn : callable
            A pure function ``fn(X_block, y_block, i, *args) -> (X', y')``.
        *args
            Passed on to `fn` after the partition's index.
        targets : {"classes", "continuous", "encoded"} or None, default=None
            How the new y blocks are checked, as in :meth:`from_collections`.

        Returns
        -------
        Partitions
        """
        mode = _targets_mode(targets)
        checked = [self.client.submit(_transformed, fn, xb, yb, i, args, mode, pure=True)
                   for i, (xb, yb) in enumerate(zip(self.X_blocks, self.y_blocks, strict=True))]
        X_blocks = [self.client.submit(operator.getitem, c, 0, pure=True) for c in checked]
        y_blocks = [self.client.submit(operator.getitem, c, 1, pure=True) for c in checked]
        stats = gather(self.client, [self.client.submit(operator.getitem, c, 2, pure=True)
                                     for c in checked])
        # each new block is made where its partition lives (its only large input)
        return self._from_stats(self.client, X_blocks, y_blocks, stats, mode, self.workers)

    def _shipped(self, args, kwargs):
        def ship(value):
            if isinstance(value, np.ndarray) and value.nbytes > _SCATTER_BYTES:
                return self.client.scatter(value, broadcast=True, hash=True)
            return value

        return tuple(ship(a) for a in args), {k: ship(v) for k, v in kwargs.items()}


def add_in_order(results: list):
    """results[0] + results[1] + ..., left to right; tuples elementwise."""
    total = results[0]
    for item in results[1:]:
        if isinstance(total, tuple):
            total = tuple(a + b for a, b in zip(total, item, strict=True))
        else:
            total = total + item
    return total


# -- on the workers --------------------------------------------------------------------------
def _each_block(fn, X_blocks, y_blocks, indices, args, kwargs) -> list:
    """fn on each of one worker's blocks, in partition order (with its index if given)."""
    if indices is None:
        return [fn(X, y, *args, **kwargs) for X, y in zip(X_blocks, y_blocks, strict=True)]
    return [fn(X, y, i, *args, **kwargs)
            for X, y, i in zip(X_blocks, y_blocks, indices, strict=True)]


def _pair(X, y):
    return X, y


def _validated(item, index: int, accept_sparse: bool, mode: str, exact_values: bool = False):
    """(X, y, stats) for one block, X and y validated; errors name the partition."""
    try:
        X, y = item
        return _check_block(X, y, accept_sparse, mode, exact_values)
    except (ValueError, TypeError) as err:
        raise type(err)(f"partition {index}: {err}") from err


def _transformed(fn, X, y, index: int, args: tuple, mode: str):
    try:
        X, y = fn(X, y, index, *args)
        return _check_block(X, y, True, mode)
    except (ValueError, TypeError) as err:
        raise type(err)(f"partition {index}: {err}") from err


def _check_block(X, y, accept_sparse: bool, mode: str, exact_values: bool = False):
    from sklearn.utils import check_array
    from sklearn.utils.validation import column_or_1d

    if hasattr(X, "to_numpy") and not sp.issparse(X):  # a pandas block
        X = X.to_numpy()
    if sp.issparse(X) and not accept_sparse:
        raise TypeError("X is sparse and this model takes dense data only; pass X.todense() "
                        "blocks or use a model that accepts sparse X.")
    given = check_sparse_structure(X)
    converted = check_array(given, ensure_min_samples=0, **FIT_INPUT)
    if exact_values:
        refuse_rounded_values(given, converted, "X")
    X = checked_input(converted, X)
    y = column_or_1d(np.asarray(y), warn=True)
    if y.shape[0] != X.shape[0]:
        raise ValueError(f"X has {X.shape[0]} rows but y has {y.shape[0]} labels; give X "
                         "and y the same row partitions.")
    labels = None
    if mode == "encoded":
        pass
    elif mode == "continuous":
        y = check_array(y, ensure_2d=False, ensure_min_samples=0, dtype=np.float64,
                        input_name="y")
    else:
        if y.dtype.kind == "f" and not np.all(np.isfinite(y)):
            raise ValueError("y contains NaN or infinity; every label must be finite.")
        labels = np.unique(y)
    stats = _BlockStats(X.shape[0], X.shape[1], X.nnz if sp.issparse(X) else X.size,
                        X.dtype.str, sp.issparse(X), labels, column_max_abs(X))
    return X, y, stats


# -- on the client ---------------------------------------------------------------------------
def _targets_mode(targets: str | None) -> str:
    mode = "classes" if targets is None else targets
    if mode not in ("classes", "continuous", "encoded"):
        raise ValueError(f"targets={targets!r}; use 'classes', 'continuous' or 'encoded'.")
    return mode


def _client(client):
    if client is not None:
        return client
    from distributed import get_client

    try:
        return get_client()
    except ValueError as err:
        raise ValueError(
            "no Dask client: start one (distributed.Client(address) or "
            "distributed.Client(distributed.LocalCluster())) or pass client=."
        ) from err


def _dask_delayed():
    from dask import delayed

    return delayed


def _as_future(client, item, on: dict):
    """A future of ``item``: kept if it is one, computed on the cluster (where ``on`` says)
    if it is delayed."""
    from distributed import Future

    return item if isinstance(item, Future) else client.compute(item, **on)


def _placement(client, n: int) -> list[dict]:
    """Where each of n partitions is made and kept: contiguous runs of partitions spread
    evenly over the workers (sorted by address), as loose restrictions.

    Left to itself the scheduler put 6 of 8 a9a partitions on one of 2 workers (their chunks
    came from one client array), and every later pass ran where the data were: 2 workers
    were 1.23x faster than 1 on 2,000,000 CSR rows, with one worker busy 3.5 s and the other
    1.3 s. Every task that reads a partition follows its blocks, so this one choice balances
    every pass. The restriction is loose (``allow_other_workers``): a lost worker's
    partitions are recomputed elsewhere. No restriction while the cluster has no workers.
    """
    workers = sorted(client.scheduler_info(n_workers=-1).get("workers", {}))  # -1: all
    if not workers:
        return [{} for _ in range(n)]
    return [{"workers": [workers[i * len(workers) // n]], "allow_other_workers": True}
            for i in range(n)]


def _check_declared_width(X) -> None:
    """Refuse, by name and before any task, a width whose per-column vectors (the blocks'
    column statistics, the client's weights) cannot fit: a sparse chunk may declare 2**40
    columns, and each worker's check then failed with NumPy's bare MemoryError."""
    shape = getattr(X, "shape", ())
    if len(shape) == 2 and isinstance(shape[1], (int, np.integer)):  # nan: not yet known
        check_dense_vectors(int(shape[1]), 1)


def _row_blocks(collection, name: str) -> list:
    """The row partitions of a dask array, DataFrame or Series as delayed objects, in order."""
    import dask.array as da

    if isinstance(collection, da.Array):
        if collection.ndim == 2 and len(collection.chunks[1]) > 1:
            collection = collection.rechunk({1: -1})
        if collection.ndim not in (1, 2):
            raise ValueError(f"{name} has {collection.ndim} dimensions; pass a 2-D X and a 1-D y.")
        return list(np.asarray(collection.to_delayed(), dtype=object).ravel())
    to_delayed = getattr(collection, "to_delayed", None)
    if to_delayed is None or not hasattr(collection, "npartitions"):
        raise TypeError(f"{name} is a {type(collection).__name__}; halfspaces.dask takes dask "
                        "arrays, DataFrames or Series (dask.array.from_array(...) wraps an "
                        "array).")
    return list(to_delayed())


def map_row_blocks(X, estimator, method: str, columns: int | None, dtype):
    """``estimator.<method>`` on every row block of the dask array `X`, lazily.

    The result has one value per row (`columns` None) or `columns` values per row. A block
    with no rows gives an empty result without calling the estimator, whose scikit-learn
    checks refuse 0 samples: such blocks are common, e.g. ``X[mask]`` with unknown chunk
    sizes. The dask estimators all predict through this one function.
    """
    if X.ndim == 2 and len(X.chunks[1]) > 1:
        X = X.rechunk({1: -1})  # a block must hold whole rows
    if columns is None:
        return X.map_blocks(_apply, estimator, method, (), dtype, drop_axis=1, dtype=dtype)
    return X.map_blocks(_apply, estimator, method, (columns,), dtype,
                        chunks=(X.chunks[0], (columns,)), dtype=dtype)


def _apply(block, estimator, method: str, columns: tuple, dtype):
    if block.shape[0] == 0:
        return np.empty((0, *columns), dtype=dtype)
    return getattr(estimator, method)(block)
