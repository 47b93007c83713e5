"""LogisticRegressionCV: ours against scikit-learn's on a9a, the same grid and folds.

Run: python benchmarks/bench_cv.py [--quick] [--rounds N] [--n-jobs 1,5] [--tol 1e-4]
     [--blas-threads 1] [--json FILE]

The grid is scikit-learn's default, Cs = 10 values from 1e-4 to 1e4, and ours is the same
grid in our convention, alpha = 1 / (C n_train) (the five stratified training folds of the
a9a training set, 32,561 x 123 CSR, hold 26,048 or 26,049 rows: the mean is used). Both walk
the same StratifiedKFold(5) folds, score accuracy, refit at the best value. scikit-learn:
lbfgs at its default tol = 1e-4 (a gradient rule), max_iter = 100, ``l1_ratios=(0,)``; ours:
lbfgs with ``tol`` (a certified relative duality gap, default 1e-4 here). Each n_jobs in
``--n-jobs`` runs both with that many workers (threads for ours; scikit-learn's joblib
default, processes). Reported: the median time of each, the median of the per-round
ratios ours / scikit-learn (target <= 0.5), the chosen C of each and the mean CV accuracy
there, and ours with n_jobs = k against ours with 1 (the threads' speedup).

--blas-threads 1 holds BLAS to one thread in the whole process (scikit-learn's worker
processes hold it so by themselves): on two busy cores scikit-learn's n_jobs = 1 loses most
of its time to BLAS threads that spin, which flatters us.
"""

from __future__ import annotations

import argparse
import warnings

import numpy as np
from _harness import Bench, dump, machine
from sklearn.linear_model import LogisticRegressionCV as SkLogisticRegressionCV
from sklearn.model_selection import StratifiedKFold

from halfspaces import LogisticRegressionCV
from halfspaces.datasets import load_a9a


def data(quick: bool):
    X, y = load_a9a("train")
    if quick:
        rows = np.random.default_rng(0).permutation(X.shape[0])[:3000]
        X, y = X[np.sort(rows)], y[np.sort(rows)]
    return X, y


def models(Cs, folds, n_train: float, n_jobs: int, tol: float):
    alphas = 1.0 / (np.asarray(Cs) * n_train)
    ours = LogisticRegressionCV(alphas=alphas, cv=folds, tol=tol, n_jobs=n_jobs)
    theirs = SkLogisticRegressionCV(Cs=Cs, cv=folds, l1_ratios=(0.0,), scoring="accuracy",
                                    n_jobs=n_jobs, use_legacy_attributes=False)
    return ours, theirs


def choices(ours, theirs, X, y, n_train: float) -> dict:
    """The C each chose and the mean CV accuracy there (of each one's own folds' fits)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ours.fit(X, y)
        theirs.fit(X, y)
    ours_mean = ours.scores_.mean(axis=0)[0]
    theirs_mean = np.asarray(theirs.scores_).mean(axis=0).ravel()
    found = {
        "ours C": float(1.0 / (ours.alpha_ * n_train)),
        "ours mean accuracy": float(ours_mean.max()),
        "scikit-learn C": float(np.ravel(theirs.C_)[0]),
        "scikit-learn mean accuracy": float(theirs_mean.max()),
        "ours at scikit-learn's C": float(ours_mean[int(np.argmax(theirs_mean))]),
    }
    for key, value in found.items():
        print(f"{key:<44} {value:>10.6g}")
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--quick", action="store_true", help="3,000 rows, 4 Cs")
    parser.add_argument("--n-jobs", default="1", help="comma-separated worker counts")
    parser.add_argument("--tol", type=float, default=1e-4, help="ours: relative gap")
    parser.add_argument("--blas-threads", type=int, default=None,
                        help="hold every BLAS library to this many threads for the whole run")
    parser.add_argument("--json", help="also write the results to this file")
    args = parser.parse_args()
    print(f"machine: {machine()}")
    if args.blas_threads is not None:
        from threadpoolctl import threadpool_limits

        threadpool_limits(args.blas_threads, user_api="blas")
    X, y = data(args.quick)
    Cs = np.logspace(-4, 4, 4 if args.quick else 10)
    folds = list(StratifiedKFold(5).split(X, y))
    n_train = float(np.mean([len(train) for train, _ in folds]))
    bench = Bench(f"LogisticRegressionCV on a9a ({X.shape[0]} x {X.shape[1]}), {len(Cs)} Cs, "
                  f"5 folds, ours tol={args.tol:g}")
    jobs = [int(j) for j in args.n_jobs.split(",")]
    found = {}
    for n_jobs in jobs:
        ours, theirs = models(Cs, folds, n_train, n_jobs, args.tol)
        found[n_jobs] = choices(ours, theirs, X, y, n_train)
        bench.case(f"ours, n_jobs={n_jobs}", lambda m=ours: m.fit(X, y))
        bench.case(f"scikit-learn, n_jobs={n_jobs}", lambda m=theirs: m.fit(X, y))
        bench.compare(f"ours / scikit-learn, n_jobs={n_jobs}", f"ours, n_jobs={n_jobs}",
                      f"scikit-learn, n_jobs={n_jobs}", "<= 0.5")
    for n_jobs in jobs[1:]:
        bench.compare(f"ours n_jobs={n_jobs} / ours n_jobs={jobs[0]}", f"ours, n_jobs={n_jobs}",
                      f"ours, n_jobs={jobs[0]}", f"<= {jobs[0] / n_jobs * 1.5:.2f}")
    result = bench.run(args.rounds)
    result["choices"] = found
    dump([result], args.json)


if __name__ == "__main__":
    main()
