"""Sparse models: L1 logistic regression and the lasso, time to the same objective.

Run: python benchmarks/bench_l1.py [--rounds N] [--only a9a,w8a,lasso] [--rows N]
[--lasso-rows N] [--json FILE] [--quick]

Problems: L1 logistic regression, J(w) = (1/n) sum_i log(1 + exp(-y_i <w, x_i>)) +
alpha ||w||_1 at alpha = 1/n (C = 1 in LIBLINEAR's and scikit-learn's units), without an
intercept (LIBLINEAR penalises its bias, so every solver fits none and solves the same
problem); and the lasso, J(w, b) = (1/2n) ||y - X w - b||^2 + alpha ||w||_1 (scikit-learn's
``Lasso`` objective, the intercept free) at alpha = alpha_max / 20, on a dense Gaussian set
with 20 informative columns of 1,000.

Solvers: ours (``halfspaces._glm.coordinate_descent.solve_cd``: working sets, proximal
Newton steps for the logistic loss, plain coordinate descent for the lasso, stopped on the
certified gap), scikit-learn's ``LogisticRegression`` with ``liblinear`` and ``saga``,
LIBLINEAR 2.50's ``-s 6`` (liblinear-official) and scikit-learn's ``Lasso``. glum and
skglm are timed when importable (they are not in this environment).

"Time to the same objective": J* is bounded below by our fit at a relative certified gap of
1e-9 (J - gap <= J*); each solver is calibrated to its loosest tolerance in 1e-1, 1e-2, ...
whose fit reaches J <= J_low (1 + 1e-6) (ours: the gap's tol, which guarantees it), then
all run side by side in one process in interleaved rounds; medians of times and of
per-round ratios. A solver whose tolerances never reach it within ``--slow-limit`` seconds
per fit is reported as not reaching it, and left out of the timing.
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np
from _harness import Bench, dump, liblinear_fits, machine, shared_data
from sklearn.datasets import load_svmlight_file
from sklearn.linear_model import Lasso
from sklearn.linear_model import LogisticRegression as SkLogisticRegression

from halfspaces._glm.coordinate_descent import alpha_max, solve_cd

try:
    from liblinear import liblinearutil
except ImportError:  # the bench extra is not installed
    liblinearutil = None

RTOL = 1e-6
TOLS = [10.0 ** -k for k in range(1, 11)]


def logistic_objective(X, y, alpha):
    return lambda w: float(np.mean(np.logaddexp(0.0, -y * np.asarray(X @ w).ravel()))
                           + alpha * np.abs(w).sum())


def ours(X, y, loss, alpha, intercept):
    def make(tol):
        def fit():
            w = solve_cd(X, y, loss=loss, alpha=alpha, l1_ratio=1.0, fit_intercept=intercept,
                         tol=tol, max_iter=10_000).w
            return w if intercept else w[:-1]
        return fit
    return make


def sk_logistic(X, y, alpha, solver):
    def make(tol):
        est = SkLogisticRegression(C=1.0 / (alpha * X.shape[0]), l1_ratio=1.0, solver=solver,
                                   fit_intercept=False, tol=tol, max_iter=100_000)
        return lambda: est.fit(X, y).coef_.ravel()
    return make


def liblinear(X, y, alpha):
    return liblinear_fits(X, y, 6, alpha)  # L1-regularised logistic regression


def sk_lasso(X, y, alpha):
    def make(tol):
        est = Lasso(alpha=alpha, tol=tol, max_iter=100_000)
        return lambda: np.append(est.fit(X, y).coef_, est.intercept_)
    return make


def calibrate(make, J, low, slow_limit):
    """The loosest tolerance whose fit reaches J <= low (1 + RTOL), and its relative excess."""
    excess = np.inf
    for tol in TOLS:
        start = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            excess = (J(make(tol)()) - low) / low
        if excess <= RTOL or time.perf_counter() - start > slow_limit:
            return tol, excess
    return TOLS[-1], excess


def run_case(title, cases, J, low, rounds, slow_limit, compare_to):
    bench = Bench(title)
    for name, make in cases.items():
        tol, excess = calibrate(make, J, low, slow_limit)
        met = excess <= RTOL
        print(f"{title}: {name} tol={tol:g}, (J - J_low) / J_low = {excess:.2e}"
              f"{'' if met else ' (does not reach J* (1 + 1e-6): not timed)'}")
        if met:
            bench.case(name, make(tol))
    for other in compare_to:
        if other in bench.cases and "halfspaces" in bench.cases:
            bench.compare(f"halfspaces / {other}", "halfspaces", other,
                          "<= 0.5" if "Lasso" in other or "logistic" in title else "<= 1.0")
    if not bench.cases:
        return {"title": title, "median_seconds": {}, "ratios": {}}
    return bench.run(rounds)


def logistic_case(name, X, y, rounds, slow_limit, quick):
    n = X.shape[0]
    alpha = 1.0 / n
    J = logistic_objective(X, y, alpha)
    reference = solve_cd(X, y, loss="logistic", alpha=alpha, l1_ratio=1.0, fit_intercept=False,
                         tol=1e-9, max_iter=10_000)
    low = reference.objective - reference.gap
    cases = {"halfspaces": ours(X, y, "logistic", alpha, False),
             "sklearn liblinear": sk_logistic(X, y, alpha, "liblinear")}
    if not quick:  # saga needs tens of seconds even on the quick run's 2,000 rows
        cases["sklearn saga"] = sk_logistic(X, y, alpha, "saga")
    if liblinearutil is not None:
        cases["LIBLINEAR -s 6"] = liblinear(X, y, alpha)
    return run_case(f"L1 logistic, {name} {n:,} x {X.shape[1]}, C = 1", cases, J, low, rounds,
                    slow_limit, [c for c in cases if c != "halfspaces"])


def lasso_case(n, d, rounds, slow_limit):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(n, d))
    w = np.zeros(d)
    w[:20] = rng.normal(size=20)
    y = X @ w + rng.normal(size=n)
    alpha = alpha_max(X, y, loss="squared", l1_ratio=1.0, fit_intercept=True) / 20

    def J(wb):
        r = y - X @ wb[:-1] - wb[-1]
        return float(r @ r / (2 * n) + alpha * np.abs(wb[:-1]).sum())

    reference = solve_cd(X, y, loss="squared", alpha=alpha, l1_ratio=1.0, fit_intercept=True,
                         tol=1e-9, max_iter=10_000)
    low = reference.objective - reference.gap
    cases = {"halfspaces": ours(X, y, "squared", alpha, True),
             "sklearn Lasso": sk_lasso(X, y, alpha)}
    return run_case(f"lasso, dense {n:,} x {d}, alpha = alpha_max / 20", cases, J, low, rounds,
                    slow_limit, ["sklearn Lasso"])


def load(name, rows):
    path = shared_data(name)
    if path is None:
        return None
    X, y = load_svmlight_file(str(path))
    X, y = X.tocsr()[:rows], np.where(y[:rows] > 0, 1.0, -1.0)
    return X, y


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--only", default="a9a,w8a,lasso")
    parser.add_argument("--rows", type=int, default=None, help="first rows of a9a and w8a")
    parser.add_argument("--lasso-rows", type=int, default=20_000)
    parser.add_argument("--slow-limit", type=float, default=120.0)
    parser.add_argument("--quick", action="store_true", help="a smoke test at small sizes")
    parser.add_argument("--json", help="also write the results to this file")
    args = parser.parse_args()
    rows = 2_000 if args.quick else args.rows
    print(f"machine: {machine()}")
    results = []
    for name in args.only.split(","):
        if name == "lasso":
            results.append(lasso_case(500 if args.quick else args.lasso_rows,
                                      50 if args.quick else 1_000, args.rounds,
                                      args.slow_limit))
            continue
        data = load(name, rows)
        if data is None:
            print(f"{name}: not in shared/data, skipped")
            continue
        results.append(logistic_case(name, *data, args.rounds, args.slow_limit, args.quick))
    dump(results, args.json)


if __name__ == "__main__":
    main()
