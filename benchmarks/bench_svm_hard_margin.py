"""Benchmark: the hard margin by dual coordinate descent against SVC and the QP route.

    .venv/bin/python benchmarks/bench_svm_hard_margin.py [--rounds 7] [--no-qp] [--quick]
        [--json out.json]

Ours: ``MaxMarginClassifier().fit`` and :func:`halfspaces.theory.max_margin` (the margin on x
and min ||(b, w)|| on x' = (1, x): two hard-margin problems), each answer verified (duality
gap, floating-point separation, the margin computed exactly). References:
``SVC(kernel="linear", C=1e10)`` (libsvm's SMO, not verified), and our own QP route (HiGHS on
a working set, the coordinate route switched off), the path taken before. Interleaved
rounds in one process, medians of the per-round ratios. The margins are computed here in
plain NumPy from each model's coefficients, not by the library.

Cases: MNIST t10k digits 0 vs 1 (2,115 x 784 dense, pixels / 255) and mushrooms (8,124 x 112
CSR), from ``shared/data`` beside the repository; a case whose file is absent is skipped.
``--quick`` runs MNIST alone without the QP route, or, where it is absent, a separable
Gaussian sample of 300 x 100 (wide rows, the regime the dual is for).
"""

from __future__ import annotations

import argparse
import contextlib

import numpy as np
import scipy.sparse as sp
from _harness import Bench, dump, machine, shared_data
from sklearn.datasets import load_svmlight_file
from sklearn.svm import SVC

from halfspaces import MaxMarginClassifier, SolverError
from halfspaces._exact import min_norm
from halfspaces.theory import max_margin


def mnist_0_vs_1():
    images, labels = (shared_data("mnist-t10k-images-idx3-ubyte"),
                      shared_data("mnist-t10k-labels-idx1-ubyte"))
    if images is None or labels is None:
        return None
    X = np.fromfile(images, dtype=np.uint8, offset=16).reshape(-1, 784)
    y = np.fromfile(labels, dtype=np.uint8, offset=8)
    keep = y <= 1
    return X[keep] / 255.0, np.where(y[keep] == 1, 1.0, -1.0)


def mushrooms():
    path = shared_data("mushrooms")
    if path is None:
        return None
    X, y = load_svmlight_file(str(path))
    return X.tocsr(), np.where(y == y.max(), 1.0, -1.0)


def wide_gaussian():
    """300 separable Gaussian points in R^100, |<w*, x> + b*| >= 0.1 with ||w*|| = 1."""
    rng = np.random.default_rng(0)
    w = rng.standard_normal(100)
    w /= np.linalg.norm(w)
    X = rng.standard_normal((1200, 100))
    s = X @ w + 0.2
    keep = np.flatnonzero(np.abs(s) >= 0.1)[:300]
    return X[keep], np.where(s[keep] > 0, 1.0, -1.0)


def geometric_margin(X, y, coef, intercept):
    """min_i y_i (<w, x_i> + b) / ||w||, in plain NumPy."""
    X = X.toarray() if sp.issparse(X) else X
    coef = np.ravel(coef.toarray() if sp.issparse(coef) else coef)
    return float(np.min(y * (X @ coef + intercept)) / np.linalg.norm(coef))


@contextlib.contextmanager
def qp_route():
    """The coordinate route switched off: min_norm_separator goes to its QPs."""
    def switched_off(Z, Zs, free_first):
        raise SolverError("switched off.")
    original = min_norm._coordinate
    min_norm._coordinate = switched_off
    try:
        yield
    finally:
        min_norm._coordinate = original


def qp_fit(X, y):
    with qp_route():
        return MaxMarginClassifier().fit(X, y)


def bench_case(name, X, y, rounds, with_qp):
    svc = SVC(kernel="linear", C=1e10)
    # SVC on dense rows as it is given them; CSR with int32 indices (it refuses int64)
    X_svc = X if not sp.issparse(X) else sp.csr_matrix(X, dtype=np.float64)
    if sp.issparse(X_svc):
        X_svc.indices, X_svc.indptr = (X_svc.indices.astype(np.int32),
                                       X_svc.indptr.astype(np.int32))
    bench = Bench(f"hard margin, {name} ({X.shape[0]:,} x {X.shape[1]})")
    bench.case("MaxMarginClassifier.fit", lambda: MaxMarginClassifier().fit(X, y))
    bench.case("theory.max_margin", lambda: max_margin(X, y))
    bench.case('SVC(kernel="linear", C=1e10).fit', lambda: svc.fit(X_svc, y))
    bench.compare("fit / SVC", "MaxMarginClassifier.fit", 'SVC(kernel="linear", C=1e10).fit',
                  "<= 1.0")
    bench.compare("max_margin / SVC", "theory.max_margin", 'SVC(kernel="linear", C=1e10).fit',
                  "<= 2.0")
    if with_qp:
        bench.case("MaxMarginClassifier.fit, QP route", lambda: qp_fit(X, y))
        bench.compare("fit / QP route", "MaxMarginClassifier.fit",
                      "MaxMarginClassifier.fit, QP route", "<= 1.0")
    result = bench.run(rounds)
    ours, theirs = MaxMarginClassifier().fit(X, y), svc.fit(X_svc, y)
    margins = {"ours": geometric_margin(X, y, ours.coef_, ours.intercept_[0]),
               "SVC": geometric_margin(X, y, theirs.coef_, theirs.intercept_[0])}
    if with_qp:
        qp = qp_fit(X, y)
        margins["QP route"] = geometric_margin(X, y, qp.coef_, qp.intercept_[0])
    print("geometric margins (NumPy): " + ", ".join(f"{k} {v:.12g}" for k, v in margins.items())
          + f"; ours >= SVC's: {margins['ours'] >= margins['SVC']}")
    result["margins"] = margins
    return result


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--no-qp", action="store_true", help="skip the QP route (slow)")
    parser.add_argument("--quick", action="store_true",
                        help="MNIST alone (or a Gaussian sample), no QP route")
    parser.add_argument("--json", default=None)
    args = parser.parse_args()
    print(machine())
    cases = [("MNIST 0 vs 1", mnist_0_vs_1), ("mushrooms", mushrooms)]
    if args.quick:
        cases = [("MNIST 0 vs 1", mnist_0_vs_1) if mnist_0_vs_1() is not None
                 else ("Gaussian", wide_gaussian)]
    results = []
    for name, load in cases:
        data = load()
        if data is None:
            print(f"{name}: not in shared/data, skipped")
            continue
        results.append(bench_case(name, *data, args.rounds, not (args.no_qp or args.quick)))
    dump(results, args.json)


if __name__ == "__main__":
    main()
