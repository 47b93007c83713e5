"""halfspaces.dask.Partitions: validated row blocks on the workers, summed in partition order.

Oracles: NumPy over the whole array (row counts, labels, column maxima, sums), and the
order of the partitions itself (a sum that depends on the order would be caught by the
non-commutative concatenation test).
"""

import numpy as np
import pytest
import scipy.sparse as sp

pytest.importorskip("distributed")

import dask.array as da  # noqa: E402
from _datasets import dask_chunked  # noqa: E402

from halfspaces.dask import Partitions  # noqa: E402

CHUNKS = (7, 0, 1, 12)  # unequal, one empty, one single row


@pytest.fixture
def data():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(20, 5)) * np.array([1.0, 1e-3, 10.0, 0.0, 1.0])
    y = np.array(["b", "a", "c", "a"] * 5)
    return X, y


def partitioned(X, y, chunks=CHUNKS):
    return dask_chunked(X, y, chunks)


@pytest.mark.parametrize("fmt", ["dense", "csr", "float32"])
def test_one_pass_measures_every_block(client, data, fmt):
    X, y = data
    Xf = {"dense": X, "csr": sp.csr_matrix(X), "float32": X.astype(np.float32)}[fmt]
    parts = Partitions.from_collections(*partitioned(Xf, y), client)
    assert parts.n_partitions == 4 and parts.n_rows.tolist() == list(CHUNKS)
    assert parts.shape == X.shape and parts.sparse == (fmt == "csr")
    assert parts.dtype == (np.float32 if fmt == "float32" else np.float64)
    assert parts.classes.tolist() == ["a", "b", "c"]
    np.testing.assert_array_equal(parts.column_max_abs, np.abs(Xf).max(axis=0).toarray().ravel()
                                  if fmt == "csr" else np.abs(Xf).max(axis=0))
    expected_nnz = [sp.csr_matrix(X[a:b]).nnz if fmt == "csr" else (b - a) * 5
                    for a, b in zip(np.cumsum((0,) + CHUNKS)[:-1], np.cumsum(CHUNKS),
                                    strict=True)]
    assert parts.nnz.tolist() == expected_nnz


def test_map_and_sum_keep_partition_order(client, data):
    X, y = data
    parts = Partitions.from_collections(*partitioned(X, y), client)
    blocks = parts.map(lambda Xb, yb: Xb)
    np.testing.assert_array_equal(np.vstack(blocks), X)  # concatenation is not commutative
    total, count = parts.sum(lambda Xb, yb, scale: (scale * Xb.sum(axis=0), len(yb)), 2.0)
    np.testing.assert_allclose(total, 2.0 * X.sum(axis=0), rtol=1e-13)
    assert count == 20
    assert parts.map_with_index(lambda Xb, yb, i: (i, Xb.shape[0])) == list(enumerate(CHUNKS))


def test_partitions_are_spread_evenly_and_a_pass_is_one_task_per_worker(client):
    # all 8 chunks come from one client array, which the scheduler alone placed 6 to 2
    X = np.arange(160.0).reshape(40, 4)
    y = np.arange(40) % 2
    parts = Partitions.from_collections(*dask_chunked(X, y, [5] * 8), client)
    workers = sorted(client.scheduler_info(n_workers=-1)["workers"])
    assert parts.workers == tuple([workers[0]] * 4 + [workers[1]] * 4)  # contiguous runs
    for i, block in enumerate(parts.X_blocks):
        assert list(client.who_has(block)[block.key]) == [parts.workers[i]]
    client.get_task_stream()  # start recording
    seen = parts.map_with_index(lambda Xb, yb, i: (i, float(Xb[0, 0])))
    assert seen == [(i, 20.0 * i) for i in range(8)]  # partition order, each its own block
    tasks = [t for t in client.get_task_stream() if "_each_block" in str(t["key"])]
    assert sorted(t["worker"] for t in tasks) == workers  # one task per worker, where it lives
    # derived partitions keep the placement
    assert parts.map_targets(lambda yb: yb + 1).workers == parts.workers


def test_large_arguments_are_scattered_once(client, data):
    X, y = data
    parts = Partitions.from_collections(*partitioned(X, y), client)
    big = np.arange(40_000, dtype=np.float64)  # 320 kB: above the scatter threshold
    sums = parts.map(lambda Xb, yb, v: float(v.sum()) + Xb.shape[0], big)
    assert sums == [big.sum() + n for n in CHUNKS]


def test_map_targets_keeps_x_and_encodes_y(client, data):
    X, y = data
    parts = Partitions.from_collections(*partitioned(X, y), client)
    encoded = parts.map_targets(lambda yb: np.where(yb == "a", 1.0, -1.0))
    assert encoded.X_blocks == parts.X_blocks
    np.testing.assert_array_equal(np.concatenate(encoded.map(lambda Xb, yb: yb)),
                                  np.where(y == "a", 1.0, -1.0))


def test_map_blocks_measures_the_new_blocks(client, data):
    X, y = data
    parts = Partitions.from_collections(*partitioned(X, y), client)
    firsts = parts.map_blocks(lambda Xb, yb, i: (Xb[:1], yb[:1]))
    assert firsts.n_rows.tolist() == [1, 0, 1, 1]
    assert firsts.classes.tolist() == sorted({y[0], y[7], y[8]})


def test_column_chunks_are_joined(client, data):
    X, y = data
    dX = da.from_array(X, chunks=(CHUNKS, (2, 3)))
    parts = Partitions.from_collections(dX, da.from_array(y, chunks=(CHUNKS,)), client)
    np.testing.assert_array_equal(np.vstack(parts.map(lambda Xb, yb: Xb)), X)


def test_dataframe_and_series(client, data):
    pd = pytest.importorskip("pandas")
    dd = pytest.importorskip("dask.dataframe")
    X, y = data
    frame = dd.from_pandas(pd.DataFrame(X, columns=list("pqrst")), npartitions=3)
    series = dd.from_pandas(pd.Series(y), npartitions=3)
    parts = Partitions.from_collections(frame, series, client)
    assert parts.n_rows.sum() == 20 and parts.n_partitions == 3
    np.testing.assert_array_equal(np.vstack(parts.map(lambda Xb, yb: Xb)), X)


def test_errors_name_the_partition(client, data):
    X, y = data
    X = X.copy()
    X[7, 2] = np.nan  # the single-row partition, index 2
    with pytest.raises(ValueError, match="partition 2: .*NaN"):
        Partitions.from_collections(*partitioned(X, y), client)
    with pytest.raises(ValueError, match="partition 3: X has 12 rows but y has 11"):
        Partitions.from_collections(
            da.from_array(data[0], chunks=(CHUNKS, 5)),
            da.from_array(y[:19], chunks=((7, 0, 1, 11),)), client)
    with pytest.raises(ValueError, match="row partitions"):
        Partitions.from_collections(da.from_array(data[0], chunks=(10, 5)),
                                    da.from_array(y, chunks=5), client)
    with pytest.raises(TypeError, match=r"partition \d: X is sparse"):
        Partitions.from_collections(*partitioned(sp.csr_matrix(data[0]), y), client,
                                    accept_sparse=False)
    with pytest.raises(TypeError, match="dask arrays"):
        Partitions.from_collections(data[0], y, client)


def test_continuous_targets_are_checked_not_counted(client, data):
    X, _ = data
    y = np.linspace(0.0, 1.0, 20)
    parts = Partitions.from_collections(*partitioned(X, y), client, targets="continuous")
    assert parts.classes is None
    y[3] = np.inf
    with pytest.raises(ValueError, match="partition 0: .*infinity"):
        Partitions.from_collections(*partitioned(X, y), client, targets="continuous")
