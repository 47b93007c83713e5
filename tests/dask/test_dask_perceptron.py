"""halfspaces.dask's perceptrons (iterative parameter mixing) against the serial classes,
a plain-Python twin of the mixing, and the mistake bounds of McDonald, Hall and Mann (2010)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

pytest.importorskip("distributed")

import dask.array as da  # noqa: E402
from _datasets import dask_chunked, in_format, noisy, separable  # noqa: E402
from distributed import Client, LocalCluster  # noqa: E402
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from numpy.testing import assert_allclose, assert_array_equal  # noqa: E402

import halfspaces  # noqa: E402
from halfspaces import ConvergenceWarning  # noqa: E402
from halfspaces import dask as hd  # noqa: E402


def quiet(estimator, *args):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return estimator.fit(*args)


SERIAL = {hd.Perceptron: halfspaces.Perceptron,
          hd.AveragedPerceptron: halfspaces.AveragedPerceptron}


@pytest.mark.parametrize("fmt", ["dense64", "dense32", "csr64"])
@pytest.mark.parametrize("cls", list(SERIAL))
@pytest.mark.parametrize("data", ["noisy", "separable", "three classes"])
def test_one_partition_is_the_serial_class_bit_for_bit(client, fmt, cls, data):
    if data == "noisy":
        X, y = noisy(150, 4, seed=5)
    elif data == "separable":
        X, y = separable(150, 4, seed=5)[:2]
    else:
        X, _ = noisy(150, 4, seed=5)
        y = np.array(["a", "b", "c"])[np.argmax(X[:, :3], axis=1)]
    X = in_format(X, fmt)
    ours = quiet(cls(max_epochs=6), *dask_chunked(X, y, [X.shape[0]]))
    theirs = quiet(SERIAL[cls](max_epochs=6), X, y)
    for name in ("coef_", "intercept_", "n_updates_", "classes_"):
        assert_array_equal(getattr(ours, name), getattr(theirs, name))
    assert (ours.n_epochs_, ours.converged_) == (theirs.n_epochs_, theirs.converged_)
    for a, b in zip(ours.to_local()._states, theirs._states, strict=True):
        assert_array_equal(a.counters, b.counters)
        assert_array_equal(a.aux, b.aux)


def naive_ipm(blocks, n_features, epochs, mixing, averaged):
    """Iterative parameter mixing written out: the plain-Python twin of the estimators.

    Returns the hypothesis (last mixed weights, or the mean of every weight vector a
    partition held after each of its steps), the mistakes and the mixing weights.
    """
    w = np.zeros(n_features + 1)
    visited, steps, log_k, log_mu = np.zeros(n_features + 1), 0, [], []
    for _ in range(epochs):
        ends, ks = [], []
        for X, y in blocks:
            v, k = w.copy(), 0
            for x, label in zip(X, y, strict=True):
                x1 = np.r_[x, 1.0]
                if label * (v @ x1) <= 0:
                    v, k = v + label * x1, k + 1
                visited, steps = visited + v, steps + 1
            ends.append(v)
            ks.append(k)
        ks, holds = np.array(ks), np.array([len(y) > 0 for _, y in blocks])
        # uniform over the shards: partitions that hold rows (McDonald et al. 2010)
        mu = (ks / ks.sum() if mixing == "error" and ks.sum()
              else np.where(holds, 1 / holds.sum(), 0.0))
        w = sum(m * v for m, v in zip(mu, ends, strict=True))
        log_k.append(ks)
        log_mu.append(mu)
        if ks.sum() == 0:
            break
    h = visited / steps if averaged else w
    return h, np.array(log_k).T, np.array(log_mu).T


@pytest.mark.parametrize("mixing", ["error", "uniform"])
@pytest.mark.parametrize("cls", list(SERIAL))
def test_mixing_matches_its_plain_python_twin(client, mixing, cls):
    X, y = noisy(60, 3, seed=7)
    sizes = [25, 0, 1, 34]  # unequal, one empty, one of a single row
    ours = quiet(cls(max_epochs=5, mixing=mixing), *dask_chunked(X, y, sizes))
    cuts = np.cumsum([0, *sizes])
    blocks = [(X[a:b], y[a:b]) for a, b in zip(cuts[:-1], cuts[1:], strict=True)]
    h, k, mu = naive_ipm(blocks, 3, 5, mixing, cls is hd.AveragedPerceptron)
    assert_allclose(ours.coef_.ravel(), h[:-1], rtol=1e-10, atol=1e-12)
    assert_allclose(ours.intercept_, h[-1:], rtol=1e-10, atol=1e-12)
    assert_array_equal(ours.mistakes_, k)
    assert_allclose(ours.mixing_weights_, mu, rtol=1e-15)
    assert ours.n_updates_ == k.sum()


@pytest.mark.parametrize("mixing", ["error", "uniform"])
@pytest.mark.parametrize("cls", list(SERIAL))
def test_empty_partitions_take_no_part_in_the_mixing(client, mixing, cls):
    # an empty partition is no shard: beside one partition of data it leaves the serial
    # run bit for bit (with mu = 1/3 each it dragged every mix back to the weights sent),
    # and beside several it leaves the mix of those
    X, y = noisy(80, 3, seed=11)
    alone = quiet(cls(max_epochs=6, mixing=mixing), *dask_chunked(X, y, [0, 80, 0]))
    serial = quiet(SERIAL[cls](max_epochs=6), X, y)
    for name in ("coef_", "intercept_", "n_updates_", "n_epochs_"):
        assert_array_equal(getattr(alone, name), getattr(serial, name))
    assert_array_equal(alone.to_local()._states[0].aux, serial._states[0].aux)
    assert_array_equal(alone.mixing_weights_[[0, 2]], 0.0)
    two = quiet(cls(max_epochs=6, mixing=mixing), *dask_chunked(X, y, [30, 50]))
    # a filtered frame: the 20 rows of its middle partition all fail the filter
    dd = pytest.importorskip("dask.dataframe")
    pd = pytest.importorskip("pandas")
    table = pd.DataFrame(np.vstack([X[:30], np.full((20, 3), 9.0), X[30:]]), columns=list("abc"))
    table["y"] = np.r_[y[:30], np.full(20, y[0]), y[30:]]
    table["keep"] = (np.arange(100) < 30) | (np.arange(100) >= 50)
    frame = dd.from_pandas(table, npartitions=1).repartition(divisions=[0, 30, 50, 99])
    kept = frame[frame["keep"]]
    parts = hd.Partitions.from_collections(kept[["a", "b", "c"]], kept["y"])
    assert list(parts.n_rows) == [30, 0, 50]
    filtered = quiet(cls(max_epochs=6, mixing=mixing), parts)
    for name in ("coef_", "intercept_", "n_updates_", "n_epochs_"):
        assert_array_equal(getattr(filtered, name), getattr(two, name))


@pytest.mark.parametrize("sizes", [[150, 100, 150], [1, 0, 250, 149], [399, 1]])
@pytest.mark.parametrize("fmt", ["dense64", "csr64"])
def test_stops_with_no_training_error_on_separable_data(client, sizes, fmt):
    X, y, _, _ = separable(400, 24, seed=2, gap=0.1)  # 25 weights: some round
    chunked = dask_chunked(in_format(X, fmt), y, sizes)
    clf = hd.Perceptron().fit(*chunked)
    assert clf.converged_
    assert np.all(clf.predict(in_format(X, fmt)) == y)
    assert clf.mistakes_[:, -1].sum() == 0 and clf.mistakes_.shape == (len(sizes), clf.n_epochs_)
    # the epoch without a mistake leaves the weights it checked, bit for bit (mixed
    # uniformly, w/3 + w/3 + w/3 rounds)
    before = quiet(hd.Perceptron(max_epochs=clf.n_epochs_ - 1), *chunked)
    assert_array_equal(np.r_[clf.coef_.ravel(), clf.intercept_],
                       np.r_[before.coef_.ravel(), before.intercept_])


@given(seed=st.integers(0, 10**6), n=st.integers(2, 40), d=st.integers(1, 4),
       cuts=st.lists(st.integers(0, 40), min_size=1, max_size=4),
       mixing=st.sampled_from(["error", "uniform"]), intercept=st.booleans())
@settings(max_examples=25, deadline=None)
def test_mixed_mistakes_respect_novikoffs_bound(client, seed, n, d, cuts, mixing, intercept):
    # McDonald, Hall and Mann (2010), Theorem 3: for a unit u with y_i <u, x'_i> >= gamma
    # and ||x'_i|| <= R, sum over epochs of sum_i mu_i k_i <= (R / gamma)^2; with error
    # mixing every epoch with a mistake adds sum_i k_i^2 / sum_i k_i >= 1 to that sum
    rng = np.random.default_rng(seed)
    u = rng.normal(size=d + 1)
    if not intercept:
        u[-1] = 0.0
    u /= np.linalg.norm(u)
    X = rng.normal(size=(n, d))
    X1 = np.c_[X, np.ones(n) if intercept else np.zeros(n)]
    y = np.where(X1 @ u > 0, 1.0, -1.0)
    gamma = np.min(y * (X1 @ u))
    if gamma < 1e-3 or np.unique(y).size < 2:
        return
    bound = (np.max(np.linalg.norm(X1, axis=1)) / gamma) ** 2
    bounds = sorted(min(c, n) for c in cuts)
    sizes = np.diff([0, *bounds, n])
    clf = hd.Perceptron(max_epochs=10_000, mixing=mixing, fit_intercept=intercept).fit(
        *dask_chunked(X, y, sizes))
    assert clf.converged_
    mixed = np.sum(clf.mixing_weights_ * clf.mistakes_)
    assert mixed <= bound * (1 + 1e-12)
    if mixing == "error":
        assert np.sum(clf.mistakes_.sum(axis=0) > 0) <= bound


def test_attributes_and_to_local_save_and_load(client, tmp_path):
    X, y = noisy(80, 3, seed=8)
    clf = quiet(hd.AveragedPerceptron(max_epochs=3), *dask_chunked(X, y, [30, 50]))
    assert_allclose(clf.mixing_weights_.sum(axis=0), 1.0)
    assert clf.mistakes_.sum() == clf.n_updates_
    local = clf.to_local()
    assert type(local) is halfspaces.AveragedPerceptron
    halfspaces.save(local, tmp_path / "m.npz")
    loaded = halfspaces.load(tmp_path / "m.npz")
    assert_array_equal(loaded.predict(X), clf.predict(X))
    assert_array_equal(clf.predict(da.from_array(X, chunks=(40, 3))).compute(), clf.predict(X))
    assert clf.score(X, y) == local.score(X, y)


def test_warm_start_continues_the_mixed_state(client):
    X, y = noisy(60, 3, seed=9)
    Xd, yd = dask_chunked(X, y, [20, 40])
    once = quiet(hd.Perceptron(max_epochs=4), Xd, yd)
    twice = quiet(hd.Perceptron(max_epochs=2, warm_start=True), Xd, yd)
    quiet(twice, Xd, yd)
    assert_array_equal(once.coef_, twice.coef_)
    assert once.n_updates_ == twice.n_updates_


@pytest.mark.parametrize("cls", list(SERIAL))
def test_the_warning_on_noisy_data_is_the_serial_classs(client, cls):
    # halfspaces.dask.AveragedPerceptron said "raise max_epochs or use AveragedPerceptron"
    X, y = noisy(60, 3, seed=9, flip=0.3)
    Xd, yd = dask_chunked(X, y, [20, 40])
    with pytest.warns(ConvergenceWarning) as ours:
        cls(max_epochs=2).fit(Xd, yd)
    with pytest.warns(ConvergenceWarning) as serial:
        SERIAL[cls](max_epochs=2).fit(X, y)
    assert str(ours[0].message) == str(serial[0].message)


def test_bad_arguments_name_the_fix(client):
    X, y = noisy(20, 2)
    Xd, yd = dask_chunked(X, y, [10, 10])
    with pytest.raises(ValueError, match="selection"):
        hd.Perceptron(selection="worst").fit(Xd, yd)
    with pytest.raises(ValueError, match="only one class"):
        hd.Perceptron().fit(Xd, da.ones(20, chunks=10))
    with pytest.raises(ValueError, match="y is required"):
        hd.Perceptron().fit(Xd)


def test_shuffle_is_reproducible_and_differs_from_cyclic(client):
    X, y = noisy(90, 3, seed=10)
    Xd, yd = dask_chunked(X, y, [45, 45])
    a = quiet(hd.Perceptron(max_epochs=3, selection="shuffle", random_state=0), Xd, yd)
    b = quiet(hd.Perceptron(max_epochs=3, selection="shuffle", random_state=0), Xd, yd)
    c = quiet(hd.Perceptron(max_epochs=3), Xd, yd)
    assert_array_equal(a.coef_, b.coef_)
    assert not np.array_equal(a.coef_, c.coef_)


def test_one_and_two_workers_give_the_same_bits(client):
    X, y = noisy(100, 4, seed=11)
    Xd, yd = dask_chunked(X, y, [30, 30, 40])
    two = quiet(hd.AveragedPerceptron(max_epochs=4), Xd, yd)
    with LocalCluster(n_workers=1, processes=False, threads_per_worker=1,
                      dashboard_address=":0") as cluster, Client(cluster):
        one = quiet(hd.AveragedPerceptron(max_epochs=4), *dask_chunked(X, y, [30, 30, 40]))
    assert_array_equal(one.coef_, two.coef_)
    assert_array_equal(one.intercept_, two.intercept_)


def test_a_worker_lost_mid_fit_leaves_the_result_unchanged(monkeypatch):
    import halfspaces.dask._perceptron as ipm

    X, y = noisy(400, 4, seed=12)
    with LocalCluster(n_workers=2, processes=False, threads_per_worker=1,
                      dashboard_address=":0") as cluster, Client(cluster) as c:
        Xd, yd = dask_chunked(X, y, [100, 100, 100, 100])
        reference = quiet(hd.AveragedPerceptron(max_epochs=5), Xd, yd)
        report = ipm.report

        def close_a_worker_after_epoch_two(epoch, total):
            if epoch == 2:  # its persisted blocks are lost and recomputed from the graph
                _, worker = sorted(cluster.workers.items())[-1]
                assert len(worker.data) > 0
                cluster.sync(worker.close)
            report(epoch, total)

        monkeypatch.setattr(ipm, "report", close_a_worker_after_epoch_two)
        survived = quiet(hd.AveragedPerceptron(max_epochs=5), Xd, yd)
        assert len(c.scheduler_info()["workers"]) == 1
    assert_array_equal(survived.coef_, reference.coef_)
    assert_array_equal(survived.intercept_, reference.intercept_)


@pytest.mark.parametrize("cls", [hd.Perceptron, hd.AveragedPerceptron])
@pytest.mark.parametrize("n_classes", [2, 3])
def test_predicting_a_dask_array_with_an_empty_chunk(client, cls, n_classes):
    # empty chunks are what X[mask] often gives; scikit-learn's checks refuse 0 samples
    X, y = noisy(30, 3, seed=7)
    if n_classes == 3:
        y = np.arange(30) % 3
    clf = quiet(cls(max_epochs=3), da.from_array(X, chunks=(10, 3)), da.from_array(y, chunks=10))
    local = clf.to_local()
    Xe = da.from_array(X, chunks=((10, 0, 20, 0), (2, 1)))  # and two column chunks
    assert_array_equal(clf.predict(Xe).compute(), local.predict(X))
    assert_array_equal(clf.decision_function(Xe).compute(), local.decision_function(X))
