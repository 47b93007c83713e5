"""halfspaces.dask.LogisticRegression: 2 worker processes against 1, serial and dask-ml.

Run: python benchmarks/bench_dask.py [--quick] [--full] [--rows N] [--features D]
     [--a9a-copies K] [--partitions P] [--rounds R] [--only dense|a9a] [--on-workers]
     [--no-dask-ml] [--json FILE]

Cases (issue 11, Speed): LogisticRegression lbfgs, alpha = 1/N, on dense Gaussian data
(default 400,000 x 100; --full 4,000,000 x 100) and on a9a repeated K times (CSR; default
10 copies, 488,420 rows; --full 41 copies, 2,002,522 rows), each split into P partitions.
Clusters are ``LocalCluster(processes=True, threads_per_worker=1)`` with 1 and 2 workers,
every BLAS library held to one thread (workers and client), so that 2 workers against 1 is
the parallel speed-up on this 2-core machine.

Reported: the fit on 2 workers against 1 (target >= 1.6), the fit on 1 worker against the
serial fit on one core (the overhead, target <= 1.2), the time of an empty pass (one task
per partition, results gathered and added), and dask-ml's LogisticRegression (lbfgs and
admm, C = 1 which is alpha = 1/N; it also penalises the intercept) on the same 2-worker
cluster: its time and the relative gap of its J to ours, target ours >= 5x faster. Last,
what dask-ml does with 10 classes (digits), which ours fits as one softmax model.
"""

from __future__ import annotations

import argparse
import os
import time
import warnings

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_var] = "1"  # before NumPy loads; worker processes inherit it

import dask.array as da  # noqa: E402
import numpy as np  # noqa: E402
import scipy.sparse as sp  # noqa: E402
from _harness import Bench, dump, machine  # noqa: E402
from distributed import Client, LocalCluster  # noqa: E402

import halfspaces  # noqa: E402
from halfspaces.dask import LogisticRegression, Partitions  # noqa: E402
from halfspaces.datasets import load_a9a  # noqa: E402


def dense(n, d, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = (X @ rng.normal(size=d) / np.sqrt(d) + rng.logistic(size=n) > 0).astype(np.int64)
    return X, y


def a9a_copies(k):
    X, y = load_a9a()
    return sp.vstack([X] * k, format="csr"), np.tile(y, k)


def on_cluster(client, X, y, parts):
    chunks = -(-X.shape[0] // parts)
    dX = da.from_array(X, chunks=(chunks, X.shape[1]), asarray=False)
    dy = da.from_array(y, chunks=chunks)
    # persisted once, as a user would before fitting several models
    return Partitions.from_collections(dX, dy, client), dX, dy


def objective(X, y, alpha):
    est = halfspaces.LogisticRegression(alpha=alpha)
    from halfspaces._validation import encode_targets

    obj = est._objective(X, encode_targets(y))
    return lambda coef, b: obj.value(np.append(np.ravel(coef), b))


def fit_dask(client, parts, alpha):
    with client.as_current():
        return LogisticRegression(alpha=alpha).fit(parts)


def empty_pass(client, parts):
    with client.as_current():
        return parts.sum(_nothing)


def _nothing(X, y):
    return 0.0


def dense_block(part, rows, d):
    """Partition ``part`` of the dense data made on a worker: rows of N(0, 1) features with
    logistic-noise labels of one fixed direction (the same for every partition)."""
    rng = np.random.default_rng([0, part])
    X = rng.normal(size=(rows, d))
    w = np.random.default_rng(12345).normal(size=d)
    return X, (X @ w / np.sqrt(d) + rng.logistic(size=rows) > 0).astype(np.int64)


def block_rows(n, parts):
    return [n // parts + (i < n % parts) for i in range(parts)]


def made_on_workers(client, n, d, parts):
    """Partitions made by the workers themselves: nothing goes through the client."""
    from dask import delayed

    make = delayed(dense_block, pure=True)
    with client.as_current():
        return Partitions.from_blocks(
            [make(i, rows, d) for i, rows in enumerate(block_rows(n, parts))], client)


def bench_data(name, X, y, args, clients, results, partitions=None):
    """``partitions(client)`` gives the data on a cluster; default: X and y sent there."""
    alpha = 1.0 / X.shape[0]
    J = objective(X, y, alpha)
    partitions = partitions or (lambda c: on_cluster(c, X, y, args.partitions)[0])
    parts = {k: partitions(c) for k, c in clients.items()}
    bench = Bench(f"{name}: {X.shape[0]:,} x {X.shape[1]} "
                  f"{'CSR' if sp.issparse(X) else 'dense'}, {args.partitions} partitions")
    bench.case("serial, one core", lambda: halfspaces.LogisticRegression(alpha=alpha).fit(X, y))
    for k in clients:
        bench.case(f"dask, {k} worker(s)", lambda k=k: fit_dask(clients[k], parts[k], alpha))
        bench.case(f"empty pass, {k} worker(s)", lambda k=k: empty_pass(clients[k], parts[k]))
    bench.compare("2 workers / 1 worker (speed-up)", "dask, 1 worker(s)", "dask, 2 worker(s)",
                  ">= 1.6")
    bench.compare("1 worker / serial (overhead)", "dask, 1 worker(s)", "serial, one core",
                  "<= 1.2")
    results.append(bench.run(args.rounds))
    ours = fit_dask(clients[2], parts[2], alpha)
    best = J(ours.coef_, ours.intercept_)
    print(f"ours: {ours.n_iter_} iterations, J = {best:.10g}")
    if not args.no_dask_ml:
        solvers = ("lbfgs",) if args.quick else ("lbfgs", "admm")
        dask_ml(clients[2], X, y, args.partitions, J, best, results, name, solvers)


def dask_ml(client, X, y, partitions, J, best, results, name, solvers):
    try:
        from dask_ml.linear_model import LogisticRegression as DaskMLLogisticRegression
    except ImportError:
        print("dask-ml is not installed: skipped")
        return
    _, dX, dy = on_cluster(client, X, y, partitions)
    with client.as_current():
        if sp.issparse(X):
            print("dask-ml: not run on CSR partitions (its solvers take dense chunks, dask-ml#827)")
            return
        dX, dy = dX.persist(), dy.persist()
        for solver in solvers:
            start = time.perf_counter()
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    est = DaskMLLogisticRegression(solver=solver, C=1.0).fit(dX, dy)
            except Exception as err:  # report, whatever dask-ml raises
                print(f"dask-ml {solver}: failed, {type(err).__name__}: {err}"[:300])
                continue
            seconds = time.perf_counter() - start
            gap = (J(est.coef_, est.intercept_) - best) / best
            print(f"dask-ml {solver}: {seconds:.3f} s, J relative gap to ours {gap:.2e}")
            results.append({"title": f"{name}: dask-ml {solver}", "seconds": seconds,
                            "relative_gap": gap})


def multinomial(client):
    from sklearn.datasets import load_digits

    X, y = load_digits(return_X_y=True)
    X = X / 16.0
    dX, dy = da.from_array(X, chunks=600), da.from_array(y, chunks=600)
    with client.as_current():
        ours = LogisticRegression(alpha=1e-2).fit(dX, dy)
        print(f"digits, ours: softmax over {ours.classes_.size} classes, training accuracy "
              f"{np.mean(ours.predict(X) == y):.4f}")
        try:
            from dask_ml.linear_model import LogisticRegression as DaskMLLogisticRegression

            est = DaskMLLogisticRegression(solver="lbfgs").fit(dX, dy)
            pred = est.predict(dX).compute()
            print(f"digits, dask-ml: coef_ shape {np.shape(est.coef_)}, predicted labels "
                  f"{np.unique(pred).tolist()}, training accuracy {np.mean(pred == y):.4f}")
        except Exception as err:  # report, whatever dask-ml raises
            print(f"digits, dask-ml: {type(err).__name__}: {err}"[:300])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="tiny sizes (a smoke run)")
    parser.add_argument("--full", action="store_true", help="the issue's sizes")
    parser.add_argument("--rows", type=int, default=400_000)
    parser.add_argument("--features", type=int, default=100)
    parser.add_argument("--a9a-copies", type=int, default=10)
    parser.add_argument("--partitions", type=int, default=8)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--no-dask-ml", action="store_true")
    parser.add_argument("--only", choices=["dense", "a9a"], help="one data set")
    parser.add_argument("--on-workers", action="store_true",
                        help="make the dense data on the workers (the client keeps a copy "
                             "for the serial fit) instead of sending it from the client")
    parser.add_argument("--json")
    args = parser.parse_args()
    if args.full:
        args.rows, args.a9a_copies = 4_000_000, 41
    if args.quick:
        args.rows, args.features, args.a9a_copies, args.partitions = 20_000, 20, 1, 4
    print(machine(), f"load {os.getloadavg()[0]:.1f}")
    results: list[dict] = []
    clusters = {k: LocalCluster(n_workers=k, threads_per_worker=1, processes=True,
                                dashboard_address=":0") for k in (1, 2)}
    clients = {k: Client(c, set_as_default=False) for k, c in clusters.items()}
    try:
        if args.only in (None, "dense") and args.on_workers:
            blocks = [dense_block(i, rows, args.features)
                      for i, rows in enumerate(block_rows(args.rows, args.partitions))]
            X, y = np.concatenate([b[0] for b in blocks]), np.concatenate([b[1] for b in blocks])
            del blocks
            bench_data("dense, made on the workers", X, y, args, clients, results,
                       lambda c: made_on_workers(c, args.rows, args.features, args.partitions))
        elif args.only in (None, "dense"):
            bench_data("dense", *dense(args.rows, args.features), args, clients, results)
        if args.only in (None, "a9a"):
            bench_data("a9a", *a9a_copies(args.a9a_copies), args, clients, results)
        multinomial(clients[2])
    finally:
        for k in clusters:
            clients[k].close()
            clusters[k].close()
    print(f"load {os.getloadavg()[0]:.1f}")
    dump(results, args.json)


if __name__ == "__main__":
    main()
