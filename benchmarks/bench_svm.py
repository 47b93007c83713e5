"""The linear SVM: time to the same objective as LIBLINEAR 2.50 and scikit-learn's LinearSVC.

Run: python benchmarks/bench_svm.py [--rounds N] [--only a9a,w8a,...] [--dense-rows N]
[--large] [--loss hinge,squared_hinge] [--json FILE]

Problem: J(w) = (1/n) sum_i loss(y_i <w, x_i>) + alpha/2 ||w||^2 at alpha = 1/n (C = 1 in
LIBLINEAR's and scikit-learn's units), loss the hinge (LIBLINEAR -s 3) or the squared hinge
(-s 1). LIBLINEAR and LinearSVC penalise their bias, halfspaces does not: to compare the same
problem every solver is given X with a constant column appended, as a penalised feature, and
fits no intercept.

Cases: a9a (48,842 x 123 CSR), w8a (49,749 x 300 CSR), ijcnn1's validation split (14,990 x
22; the only part of ijcnn1 in ``shared/data``), each skipped cleanly when ``shared/data`` is
absent, and a dense Gaussian set labelled by a noisy linear rule: 20,000 x 100 by default,
the issue's 400,000 x 100 with ``--large`` (``--dense-rows`` for other sizes). The large set
is not the default because its references are the cost: our tol-1e-9 fit and LIBLINEAR's
eps-1e-8 fit run thousands of whole passes over 320 MB (dual coordinate descent needs
thousands of passes on this set even at 20,000 rows), and LinearSVC's squared hinge took a
minute a fit at 20,000 rows.

"Time to the same objective": J* is the lower of our solver at tol = 1e-9 (a certified gap:
its own J is within 1e-9 J of the optimum) and LIBLINEAR at eps = 1e-8 (LinearSVC's eps =
1e-8 without LIBLINEAR); where our reference fit stops (100,000 passes) with a certified gap
above 1e-7 J (a tenth of the 1e-6 aimed at), J* is not known well enough and the case prints
no ratios. Ours is the dual for the hinge, the primal Newton method for the squared hinge,
which is timed beside the dual. Each solver is calibrated to its loosest tolerance whose fit
reaches J <= J* (1 + 1e-6) (ours: the relative certified gap tol in 1e-1, 1e-2, ...;
LIBLINEAR and LinearSVC: eps in 1, 1e-1, ...), then the configurations are timed in one
process in interleaved rounds; medians of time and of per-round ratios. Targets: ours /
LIBLINEAR <= 0.5 and ours / LinearSVC <= 0.5. LIBLINEAR 2.50 stops its dual solvers after
300 passes whatever eps says (``-s 1`` then switches to its primal Newton method, ``-s 2``);
where that leaves it short of J* (1 + 1e-6) the table says so.

What is timed: ours, ``solve_svm_dual`` on the matrix as given (the estimator's validation is
not part of the solver); LIBLINEAR, ``train`` on a ``problem`` built once outside the timing
(its conversion to feature nodes is not counted, in its favour); LinearSVC, ``fit`` (its copy
into LIBLINEAR's format is counted, as a user pays it). LIBLINEAR's Python package is the
``bench`` extra (``pip install liblinear-official==2.50.0``, an sdist that compiles
``linear.cpp``); without it those columns are skipped.
"""

from __future__ import annotations

import argparse
import time
import warnings
from pathlib import Path

import numpy as np
import scipy.sparse as sp
from _harness import Bench, dump, liblinear_fits, machine
from sklearn.datasets import load_svmlight_file
from sklearn.svm import LinearSVC

from halfspaces._glm.svm_dual import solve_svm_dual
from halfspaces._glm.svm_newton import solve_svm_newton

try:
    from liblinear import liblinearutil
except ImportError:  # the bench extra is not installed: LinearSVC only
    liblinearutil = None

RTOL = 1e-6
# the certified gap bounds the reference's own suboptimality: 1e-9 J is far below RTOL J
REFERENCE_TOL = 1e-9
# the reference must be certified this close, or the case prints no ratios: a J* that sits
# above the optimum by more than a tenth of RTOL would let solvers "reach" it too early
REFERENCE_LIMIT = RTOL / 10
# passes of dual coordinate descent (iterations of the Newton method) at most, in every fit
MAX_PASSES = 100_000
OURS = {"hinge": "halfspaces dual", "squared_hinge": "halfspaces newton"}
OUR_TOLS = [10.0 ** -k for k in range(1, 13)]
THEIR_EPS = [10.0 ** -k for k in range(0, 9)]
LIBLINEAR_SOLVER = {"hinge": 3, "squared_hinge": 1}
# ../shared/data beside the checkout (a worktree one level deeper: beside its parent)
SHARED_DATA = next((parent / "shared" / "data" for parent in Path(__file__).resolve().parents[1:4]
                    if (parent / "shared" / "data").exists()), None)
DATASETS = {"a9a": ("a9a", 123), "w8a": ("w8a", 300), "ijcnn1": ("ijcnn1.val", 22)}


def objective(X, y, w, loss, alpha):
    """J(w) in float64 (no intercept: the constant column is a feature)."""
    slack = np.maximum(0.0, 1.0 - y * np.asarray(X @ w).ravel())
    losses = slack if loss == "hinge" else slack * slack
    return float(np.mean(losses) + 0.5 * alpha * (w @ w))


def ours(X, y, loss, alpha, solve=solve_svm_dual):
    def make(tol):
        return lambda: solve(X, y, loss=loss, alpha=alpha, fit_intercept=False, tol=tol,
                             max_iter=MAX_PASSES, seed=0).coef
    return make


def our_reference(X, y, loss, alpha, solve):
    """(coef, certified relative gap) of our fit at REFERENCE_TOL, which may stop short of
    it (dual coordinate descent on a9a's hinge: 3e-8 after 100,000 passes)."""
    run = solve(X, y, loss=loss, alpha=alpha, fit_intercept=False, tol=REFERENCE_TOL,
                max_iter=MAX_PASSES, seed=0)
    return run.coef, run.gap / run.objective


def liblinear(X, y, loss, alpha):
    return liblinear_fits(X, y, LIBLINEAR_SOLVER[loss], alpha)


def linear_svc(X, y, loss, alpha):
    C = 1.0 / (alpha * X.shape[0])

    def make(eps):
        svc = LinearSVC(loss=loss, C=C, tol=eps, dual=True, fit_intercept=False,
                        max_iter=100_000, random_state=0)
        return lambda: svc.fit(X, y).coef_.ravel()
    return make


def calibrate(make, tols, J, best, slow_limit):
    """The loosest tolerance whose fit reaches J <= best (1 + RTOL), and its relative gap."""
    gap = np.inf
    for tol in tols:
        start = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            gap = (J(make(tol)()) - best) / best
        if gap <= RTOL or time.perf_counter() - start > slow_limit:
            return tol, gap
    return tols[-1], gap


def run_case(title, X, y, loss, rounds, slow_limit=120.0) -> dict:
    n = X.shape[0]
    X = (sp.hstack([X, np.ones((n, 1))], format="csr") if sp.issparse(X)
         else np.ascontiguousarray(np.c_[X, np.ones(n)]))
    alpha = 1.0 / n
    J = lambda w: objective(X, y, w, loss, alpha)  # noqa: E731
    configs = {"halfspaces dual": (ours(X, y, loss, alpha), OUR_TOLS)}
    if loss == "squared_hinge":
        configs["halfspaces newton"] = (ours(X, y, loss, alpha, solve_svm_newton), OUR_TOLS)
    if liblinearutil is not None:
        configs["LIBLINEAR 2.50"] = (liblinear(X, y, loss, alpha), THEIR_EPS)
    configs["LinearSVC"] = (linear_svc(X, y, loss, alpha), THEIR_EPS)
    solve = solve_svm_newton if loss == "squared_hinge" else solve_svm_dual
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        reference, certified = our_reference(X, y, loss, alpha, solve)
        if not certified <= REFERENCE_LIMIT:
            print(f"\n{title}, {loss}: our reference fit (tol {REFERENCE_TOL:.0e}, "
                  f"{MAX_PASSES:,} passes at most) is certified only to {certified:.1e} J, "
                  f"above {REFERENCE_LIMIT:.0e} J: J* unknown, no ratios")
            return {"title": title, "loss": loss, "reference gap": certified}
        references = {"halfspaces": J(reference)}
        other = "LIBLINEAR 2.50" if liblinearutil is not None else "LinearSVC"
        references[other] = J(configs[other][0](1e-8)())
    best = min(references.values())
    print(f"\n{title}, {loss}: J* = {best:.15g} ("
          + ", ".join(f"{k} {v:.15g}" for k, v in references.items())
          + f"; ours certified within {certified:.1e} J of the optimum)")
    bench = Bench(f"{title}, {loss}, alpha = 1/n: time to J <= J* (1 + 1e-6)")
    chosen, label = {}, {}
    for name, (make, tols) in configs.items():
        tol, gap = calibrate(make, tols, J, best, slow_limit=slow_limit)
        chosen[name] = (tol, gap)
        unit = "tol" if name.startswith("halfspaces") else "eps"
        label[name] = f"{name} ({unit}={tol:.0e})"
        print(f"  {name:<18} {unit}={tol:.0e}  "
              f"relative gap {gap:.1e}" + ("" if gap <= RTOL else "  (does NOT reach J*)"))
        bench.case(label[name], make(tol))
    for mine in (nm for nm in configs if nm.startswith("halfspaces")):
        for name in (nm for nm in configs if not nm.startswith("halfspaces")):
            bench.compare(f"{mine} / {name}", label[mine], label[name], "<= 0.5")
    result = bench.run(rounds)
    result["calibration"] = {nm: {"tol": t, "gap": g} for nm, (t, g) in chosen.items()}
    result["J*"] = best
    result["reference gap"] = certified
    return result


def dense_data(n, d=100, seed=0):
    """Gaussian X, labels from a linear rule with logistic noise (not separable)."""
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    w = rng.standard_normal(d) * 2.0 / np.sqrt(d)
    y = np.where(X @ w + rng.logistic(size=n) > 0, 1.0, -1.0)
    return X, y


def load(name):
    if SHARED_DATA is None or not (SHARED_DATA / DATASETS[name][0]).exists():
        print(f"{name}: not in shared/data, skipped")
        return None
    X, y = load_svmlight_file(str(SHARED_DATA / DATASETS[name][0]),
                              n_features=DATASETS[name][1])
    return X, np.where(y > 0, 1.0, -1.0)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--only", default="a9a,w8a,ijcnn1,dense",
                        help="comma-separated cases among a9a, w8a, ijcnn1, dense")
    parser.add_argument("--loss", default="hinge,squared_hinge")
    parser.add_argument("--dense-rows", type=int, default=20_000,
                        help="rows of the dense Gaussian case (default 20,000; see --large)")
    parser.add_argument("--large", action="store_true",
                        help="the dense case at the issue's 400,000 x 100 (float64, 320 MB)")
    parser.add_argument("--slow-limit", type=float, default=120.0,
                        help="calibration stops tightening a solver whose fit takes longer")
    parser.add_argument("--json", help="also write the results to this file")
    args = parser.parse_args()
    print(f"machine: {machine()}")
    if liblinearutil is None:
        print("LIBLINEAR's Python package is not installed (pip install "
              "liblinear-official==2.50.0): LinearSVC only")
    results = []
    for case in args.only.split(","):
        if case == "dense":
            rows = 400_000 if args.large else args.dense_rows
            data = dense_data(rows)
            title = f"dense {rows:,} x 100 + 1 float64"
        else:
            data = load(case)
            if data is None:
                continue
            title = f"{case} CSR {data[0].shape[0]:,} x {data[0].shape[1]} + 1"
        for loss in args.loss.split(","):
            results.append(run_case(title, *data, loss, args.rounds, args.slow_limit))
    dump(results, args.json)


if __name__ == "__main__":
    main()
