"""halfspaces.dask.LogisticRegression and LinearRegression against the serial estimators.

Oracles: the serial estimators (one partition must be the serial fit bit for bit: the same
sums, the same curvature sample, the same solver path), their optimum J* (any partitioning
must reach it), numpy.linalg.lstsq for least squares, and the fit itself on a different
number of workers, with a worker lost, or in worker processes (same bits).
"""

import subprocess
import sys
import warnings

import numpy as np
import pytest
import scipy.sparse as sp

pytest.importorskip("distributed")

import dask.array as da  # noqa: E402
from _datasets import dask_chunked  # noqa: E402
from distributed import Client, LocalCluster  # noqa: E402
from sklearn.datasets import load_digits  # noqa: E402

import halfspaces  # noqa: E402
from halfspaces._glm.datafits import Logistic, Softmax  # noqa: E402
from halfspaces._glm.objective import Objective  # noqa: E402
from halfspaces.dask import LinearRegression, LogisticRegression  # noqa: E402
from halfspaces.exceptions import ConvergenceWarning  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore::halfspaces.exceptions.ConvergenceWarning")


def cluster_client(n_workers=2, **kwargs):
    cluster = LocalCluster(processes=False, n_workers=n_workers, threads_per_worker=1,
                           dashboard_address=":0", **kwargs)
    return cluster, Client(cluster, set_as_default=False)


@pytest.fixture(scope="module")
def digits():
    """digits scaled to [0, 1] (unscaled, L-BFGS takes 400 iterations at alpha = 1e-3)."""
    X, y = load_digits(return_X_y=True)
    return X / 16.0, y


def layouts(n):
    """Row partitions of n rows: 1, and 2, 3 and 7 of unequal sizes, one empty and one
    with a single row among the 3 and 7."""
    return {1: (n,), 2: (n // 3, n - n // 3), 3: (1, 0, n - 1),
            7: (n // 10, 1, 0, n // 7, n // 5, n // 3, n - n // 10 - 1 - n // 7 - n // 5 - n // 3)}


def same_fit(a, b):
    np.testing.assert_array_equal(a.coef_, b.coef_)
    np.testing.assert_array_equal(a.intercept_, b.intercept_)
    assert a.n_iter_ == b.n_iter_


def tall_dense(n=12_000, d=9, seed=0):
    """n >= 400 (d + 1): the curvature is averaged over a sample of the rows."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    return X, (X @ rng.normal(size=d) + rng.normal(size=n) > 0).astype(int)


@pytest.mark.parametrize("case", ["a9a-lbfgs", "a9a-newton", "digits-lbfgs", "digits-newton",
                                  "tall-lbfgs", "tall-newton"])
def test_one_partition_is_the_serial_fit_bit_for_bit(client, a9a, digits, case):
    data, solver = case.split("-")
    X, y = {"a9a": a9a, "digits": digits, "tall": tall_dense()}[data]
    params = dict(solver=solver, alpha=1.0 / X.shape[0] if data == "a9a" else 1e-2)
    serial = halfspaces.LogisticRegression(**params).fit(X, y)
    dist = LogisticRegression(**params).fit(*dask_chunked(X, y, (X.shape[0],)))
    same_fit(dist, serial)
    np.testing.assert_array_equal(dist.loss_curve_, serial.loss_curve_)
    assert dist.converged_ == serial.converged_


def objective_at(est, X, y):
    """The serial J at a fitted estimator's parameters."""
    classes = est.classes_
    if classes.size == 2:
        target, fit = np.where(y == classes[1], 1.0, -1.0), Logistic()
    else:
        target, fit = np.searchsorted(classes, y).astype(np.intp), Softmax(classes.size)
    return Objective(X, target, fit, est.alpha, est.fit_intercept).value(est._w)


@pytest.mark.parametrize("n_parts", [2, 3, 7])
@pytest.mark.parametrize("data", ["a9a", "digits"])
def test_partitions_reach_the_serial_optimum(client, a9a, digits, data, n_parts):
    X, y = {"a9a": a9a, "digits": digits}[data]
    params = dict(alpha=1.0 / X.shape[0] if data == "a9a" else 1e-2, tol=1e-9)
    serial = halfspaces.LogisticRegression(**params).fit(X, y)
    dist = LogisticRegression(**params).fit(*dask_chunked(X, y, layouts(X.shape[0])[n_parts]))
    best = objective_at(serial, X, y)
    assert abs(objective_at(dist, X, y) - best) <= 1e-8 * best
    scale = max(1.0, np.abs(serial.coef_).max())
    np.testing.assert_allclose(dist.coef_, serial.coef_, rtol=0, atol=1e-6 * scale)
    np.testing.assert_allclose(dist.intercept_, serial.intercept_, rtol=0, atol=1e-6 * scale)


def test_sampled_curvature_takes_each_partitions_share(client):
    X, y = tall_dense()
    dist = LogisticRegression(solver="newton", tol=1e-10).fit(
        *dask_chunked(X, y, layouts(12_000)[3]))
    serial = halfspaces.LogisticRegression(solver="newton", tol=1e-10).fit(X, y)
    np.testing.assert_allclose(dist.coef_, serial.coef_, rtol=0, atol=1e-8)


def test_one_and_two_workers_give_the_same_bits(client, a9a):
    X, y = a9a
    chunks = layouts(X.shape[0])[7]
    two = LogisticRegression(solver="newton", alpha=1e-4).fit(*dask_chunked(X, y, chunks))
    cluster, c = cluster_client(n_workers=1)
    with cluster, c, c.as_current():
        one = LogisticRegression(solver="newton", alpha=1e-4).fit(*dask_chunked(X, y, chunks))
    same_fit(one, two)


class LosesAWorker(LogisticRegression):
    """Closes a worker holding partitions at the third evaluation of J (after the first
    passes over the data), as a machine lost in the middle of a fit."""

    def _distributed_objective(self, parts, classes):
        obj = super()._distributed_objective(parts, classes)
        evaluate, calls = obj.value_grad, []

        def value_grad(w):
            calls.append(1)
            if len(calls) == 3:
                self.held_ = len(self.worker_.data)
                self.cluster_.sync(self.worker_.close)
            return evaluate(w)
        obj.value_grad = value_grad
        return obj


def test_a_worker_lost_mid_fit_changes_nothing(client, a9a):
    X, y = a9a
    chunks = layouts(X.shape[0])[7]
    expected = LogisticRegression(alpha=1e-4).fit(*dask_chunked(X, y, chunks))
    cluster, c = cluster_client()
    with cluster, c, c.as_current():
        est = LosesAWorker(alpha=1e-4)
        est.cluster_, est.worker_ = cluster, next(iter(cluster.workers.values()))
        est.fit(*dask_chunked(X, y, chunks))
        assert len(c.scheduler_info()["workers"]) == 1
    assert est.held_ > 0  # the closed worker did hold partitions
    same_fit(est, expected)


def test_worker_processes_pickle_everything(client, digits):
    X, y = digits
    chunks = layouts(X.shape[0])[2]
    threads = LogisticRegression(alpha=1e-2).fit(*dask_chunked(X, y, chunks))
    with LocalCluster(processes=True, n_workers=2, threads_per_worker=1,
                      dashboard_address=":0") as cluster, \
            Client(cluster, set_as_default=False) as c, c.as_current():
        procs = LogisticRegression(alpha=1e-2).fit(*dask_chunked(X, y, chunks))
        proba = procs.predict_proba(dask_chunked(X, y, chunks)[0]).compute()
    # not the same bits: worker processes run BLAS on one thread (distributed sets
    # OPENBLAS_NUM_THREADS=1 for them) while the in-process workers share this process's
    # threads, and OpenBLAS may split a long sum such as X^T R (digits: 1,797 rows) between
    # two threads; 1 or 2 workers of one kind give the same bits (tests above)
    assert procs.n_iter_ == threads.n_iter_
    np.testing.assert_allclose(procs.coef_, threads.coef_, rtol=1e-10, atol=1e-13)
    np.testing.assert_allclose(procs.intercept_, threads.intercept_, rtol=1e-10, atol=1e-13)
    np.testing.assert_allclose(proba, threads.to_local().predict_proba(X), rtol=1e-10)


@pytest.mark.parametrize("fmt", ["dense", "csr"])
def test_least_squares_match_lstsq(client, fmt):
    rng = np.random.default_rng(1)
    X = rng.normal(size=(500, 6))
    y = X @ rng.normal(size=6) + 3.0 + 0.1 * rng.normal(size=500)
    A = np.column_stack([X, np.ones(500)])
    expected = np.linalg.lstsq(A, y, rcond=None)[0]
    Xf = sp.csr_matrix(X) if fmt == "csr" else X
    for solver in ("lstsq", "cholesky"):
        reg = LinearRegression(solver=solver).fit(*dask_chunked(Xf, y, layouts(500)[7]))
        np.testing.assert_allclose(np.append(reg.coef_, reg.intercept_), expected,
                                   rtol=1e-10, atol=1e-10)
    one = LinearRegression(solver="cholesky").fit(*dask_chunked(Xf, y, (500,)))
    serial = halfspaces.LinearRegression(solver="cholesky").fit(Xf, y)
    np.testing.assert_array_equal(one.coef_, serial.coef_)
    ridge = LinearRegression(alpha=0.1).fit(*dask_chunked(X, y, layouts(500)[3]))
    np.testing.assert_allclose(ridge.coef_, halfspaces.LinearRegression(alpha=0.1).fit(X, y).coef_,
                               rtol=1e-10)


@pytest.mark.parametrize("fmt", ["dense", "csr"])
def test_least_squares_at_extreme_scales_are_the_serial_ones(client, fmt):
    # the partitions' X^T X were summed unscaled, inf at entries 1e200 and 0 at 1e-200;
    # now the serial powers of two scale the columns, each partition scales its own y and
    # the client brings them to one scale (|y| near 2^-500 in the first, 2^300 after)
    rng = np.random.default_rng(8)
    X = rng.normal(size=(90, 4)) * np.array([2.0**665, 2.0**-665, 1.0, 2.0**300])
    w = np.array([2.0**-665, 2.0**665, 1.0, 2.0**-300]) * 2.0**300
    y = X @ w + (0.5 + 0.01 * rng.normal(size=90)) * 2.0**300
    X[:30] *= 2.0**-800
    y[:30] *= 2.0**-800
    Xf = sp.csr_matrix(X) if fmt == "csr" else X
    for solver in ("lstsq", "cholesky"):
        serial = halfspaces.LinearRegression(solver=solver).fit(Xf, y)
        np.testing.assert_allclose(serial.coef_, w, rtol=0.05)  # an answer, not inf or 0
        reg = LinearRegression(solver=solver).fit(*dask_chunked(Xf, y, (30, 0, 60)))
        np.testing.assert_allclose(reg.coef_, serial.coef_, rtol=1e-9)
        np.testing.assert_allclose(reg.intercept_, serial.intercept_, rtol=1e-9)
    one = LinearRegression(solver="cholesky").fit(*dask_chunked(Xf, y, (90,)))
    np.testing.assert_array_equal(one.coef_, serial.coef_)


def test_qr_path_keeps_ill_conditioned_least_squares_accurate(client):
    """cond(X) about 1e7: the normal equations square it (error ~ 1e14 eps, about 1e-2),
    TSQR does not (error ~ 1e7 eps)."""
    rng = np.random.default_rng(2)
    U, _ = np.linalg.qr(rng.normal(size=(400, 5)))
    V, _ = np.linalg.qr(rng.normal(size=(5, 5)))
    X = (U * np.logspace(0, -7, 5)) @ V.T
    w = rng.normal(size=5)
    y = X @ w
    chunks = layouts(400)[7]
    qr = LinearRegression(solver="lstsq", fit_intercept=False).fit(*dask_chunked(X, y, chunks))
    normal = LinearRegression(solver="cholesky", fit_intercept=False).fit(
        *dask_chunked(X, y, chunks))
    expected = np.linalg.lstsq(X, y, rcond=None)[0]
    assert np.abs(qr.coef_ - expected).max() < 1e-6
    assert np.abs(normal.coef_ - expected).max() > 100 * np.abs(qr.coef_ - expected).max()


def test_dataframe_input_is_the_array_fit(client, digits):
    pd = pytest.importorskip("pandas")
    dd = pytest.importorskip("dask.dataframe")
    X, y = digits
    columns = [f"pixel{j}" for j in range(64)]
    frame = dd.from_pandas(pd.DataFrame(X, columns=columns), npartitions=3)
    labels = dd.from_pandas(pd.Series(y), npartitions=3)
    chunks = tuple(frame.map_partitions(len).compute())
    from_frame = LogisticRegression(alpha=1e-2).fit(frame, labels)
    same_fit(from_frame, LogisticRegression(alpha=1e-2).fit(*dask_chunked(X, y, chunks)))
    assert list(from_frame.feature_names_in_) == columns
    np.testing.assert_array_equal(from_frame.predict(frame).compute(), from_frame.predict(X))


def test_predictions_are_dask_arrays_block_by_block(client, digits, tmp_path):
    X, y = digits
    dX, dy = dask_chunked(X, y, layouts(X.shape[0])[7])
    clf = LogisticRegression(alpha=1e-2).fit(dX, dy)
    local = clf.to_local()
    assert type(local) is halfspaces.LogisticRegression
    for method in ("predict", "predict_proba", "predict_log_proba", "decision_function"):
        lazy = getattr(clf, method)(dX)
        assert isinstance(lazy, da.Array)
        # block by block: BLAS may block the product differently, in the last bits
        np.testing.assert_allclose(lazy.compute(), getattr(local, method)(X), rtol=1e-12,
                                   atol=1e-300)
        np.testing.assert_array_equal(getattr(clf, method)(X), getattr(local, method)(X))
    np.testing.assert_array_equal(clf.predict(dX).compute(), local.predict(X))
    halfspaces.save(local, tmp_path / "m.json")
    np.testing.assert_array_equal(halfspaces.load(tmp_path / "m.json").predict(X), clf.predict(X))
    reg = LinearRegression().fit(dX, dy.astype(float))
    np.testing.assert_allclose(reg.predict(dX).compute(), reg.to_local().predict(X), rtol=1e-13)


def test_binary_string_labels(client, a9a):
    X, y = a9a
    names = np.where(y > 0, "yes", "no")
    chunks = layouts(X.shape[0])[3]
    by_name = LogisticRegression(alpha=1e-2).fit(*dask_chunked(X, names, chunks))
    by_sign = LogisticRegression(alpha=1e-2).fit(*dask_chunked(X, y, chunks))
    np.testing.assert_array_equal(by_name.coef_, by_sign.coef_)
    assert by_name.classes_.tolist() == ["no", "yes"]


def separable_and_not(seed=0, n=60):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    separable = np.where(X @ [1.0, -2.0, 0.5] > 0, "b", "a")
    noisy = separable.copy()
    noisy[:6] = np.where(noisy[:6] == "a", "b", "a")  # six rows on the wrong side
    return X, separable, noisy


@pytest.mark.parametrize("solver", ["lbfgs", "newton"])
@pytest.mark.parametrize("chunks", [[60], [0, 25, 35]])
def test_an_unpenalised_fit_on_separable_data_warns_as_the_serial_one(client, solver, chunks):
    # the serial class warns that the maximum-likelihood weights do not exist; the Dask one
    # said nothing. The oracle of separability is the serial class's own check (scipy's
    # LP on the same rows would say the same: the labels are those of a hyperplane).
    X, separable, noisy = separable_and_not()
    for labels, expected in ((separable, True), (noisy, False)):
        with warnings.catch_warnings(record=True) as ours:
            warnings.simplefilter("always")
            LogisticRegression(alpha=0.0, solver=solver).fit(*dask_chunked(X, labels, chunks))
        with warnings.catch_warnings(record=True) as serial:
            warnings.simplefilter("always")
            halfspaces.LogisticRegression(alpha=0.0, solver=solver).fit(X, labels)
        said = ["do not exist" in str(w.message) for w in ours]
        assert any(said) is expected
        assert any("do not exist" in str(w.message) for w in serial) is expected
    three = np.where(X[:, 0] > 0.5, "c", separable)  # three classes, separable one-vs-rest
    with pytest.warns(ConvergenceWarning, match="do not exist"):
        LogisticRegression(alpha=0.0, solver=solver).fit(*dask_chunked(X, three, chunks))


def test_solvers_that_need_rows_are_refused(client, digits):
    dX, dy = dask_chunked(*digits, (1797,))
    with pytest.raises(ValueError, match="solver='sgd'.*halfspaces.LogisticRegression"):
        LogisticRegression(solver="sgd").fit(dX, dy)
    with pytest.raises(ValueError, match="solver='gd'.*halfspaces.LinearRegression"):
        LinearRegression(solver="gd").fit(dX, dy.astype(float))
    assert not hasattr(LogisticRegression(solver="sgd"), "partial_fit")


@pytest.mark.parametrize("estimator", [LogisticRegression, LinearRegression])
def test_an_l1_part_is_refused_by_name_before_any_pass(estimator, digits):
    # refused before the partitions are read: no client is needed to say so
    dX, dy = dask_chunked(*digits, (1797,))
    with pytest.raises(ValueError, match=r"l1_ratio=0.5.*solver='cd'"):
        estimator(l1_ratio=0.5).fit(dX, dy.astype(float))


def test_serial_estimators_refuse_dask_collections(client, digits):
    X, y = digits
    dX, dy = dask_chunked(X, y, (1797,))
    for fit in (lambda: halfspaces.LogisticRegression().fit(dX, y),
                lambda: halfspaces.LinearRegression().fit(X, dy),
                lambda: halfspaces.Perceptron().fit(dX, dy),
                lambda: halfspaces.LogisticRegression(max_iter=2).fit(X, y).predict(dX),
                lambda: halfspaces.theory.separability(dX, y == 1)):
        with pytest.raises(TypeError, match="halfspaces.dask"), warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            fit()


def test_serial_fits_never_import_dask():
    code = ("import sys, numpy as np, halfspaces; "
            "halfspaces.LogisticRegression().fit(np.eye(4), [0, 1, 0, 1]); "
            "print('dask' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "False"


@pytest.mark.parametrize("name", ["Perceptron", "AveragedPerceptron", "LogisticRegression",
                                  "LinearRegression"])
def test_a_declared_width_beyond_memory_is_refused_by_name(client, name):
    # a CSR chunk may declare 2**40 columns in a few bytes; the client's dense weights (and
    # least squares' d x d Gram) would need TiBs: MemoryError naming X's width, before any
    # task runs, as the serial estimators give
    X = sp.csr_matrix((np.ones(4), np.arange(4), np.arange(5)), shape=(4, 2**40))
    y = np.array([0, 1, 0, 1])
    Xd, yd = dask_chunked(X, y, 2)
    with pytest.raises(MemoryError, match=r"^X has 1,099,511,627,776 columns"):
        getattr(halfspaces.dask, name)().fit(Xd, yd)
