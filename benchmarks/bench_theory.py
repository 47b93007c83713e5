"""Benchmark: separability and max_margin against plain SciPy/scikit-learn, in one process.

    .venv/bin/python benchmarks/bench_theory.py [--repeats 5]

Ours: :func:`halfspaces.theory.separability` (certificate included) and
:func:`halfspaces.theory.max_margin`. References: ``scipy.optimize.linprog`` feasibility of
y_i(<w, x_i> + b) >= 1 with a zero objective (HiGHS, no certificate), and
``SVC(kernel="linear", C=1e10)``. Medians of the repeats and ratios only: the machine is shared.
The wide dense case is MNIST digits 0 vs 1 (2,115 x 784) when ``shared/data`` beside the
repository holds the t10k files, else a separable 3,000 x 400 Gaussian sample.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from pathlib import Path

import numpy as np
import scipy.sparse as sp
from _harness import shared_data
from scipy.optimize import linprog
from sklearn.svm import SVC

from halfspaces import NotSeparableError
from halfspaces.theory import geometric_margins, max_margin, separability


def median_time(fn, repeats):
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def linprog_feasibility(X, y):
    n = X.shape[0]
    ones = np.ones((n, 1))
    Xa = sp.hstack([ones, X], format="csr") if sp.issparse(X) else np.hstack([ones, X])
    Z = sp.diags(y) @ Xa if sp.issparse(Xa) else y[:, None] * Xa
    return linprog(np.zeros(Z.shape[1]), A_ub=-Z, b_ub=-np.ones(n), bounds=(None, None),
                   method="highs").status


def load_a9a():
    try:
        from halfspaces.datasets import load_a9a as load

        return load("all")
    except (ImportError, AttributeError, OSError):
        from sklearn.datasets import load_svmlight_file

        root = Path(__file__).resolve().parents[2]
        return load_svmlight_file(str(root / "shared" / "data" / "a9a"), n_features=123)


def wide_dense():
    """MNIST t10k digits 0 vs 1 scaled to [0, 1] (idx files), else a 3000 x 400 sample."""
    images, labels = shared_data("mnist-t10k-images-idx3-ubyte"), shared_data(
        "mnist-t10k-labels-idx1-ubyte")
    if images is None or labels is None:
        return "dense 3000x400 separable", *separable(3000, 400, 2, gap=0.5)
    X = np.fromfile(images, dtype=np.uint8, offset=16).reshape(-1, 784)
    y = np.fromfile(labels, dtype=np.uint8, offset=8)
    keep = y <= 1
    return "MNIST 0 vs 1 2115x784 dense", X[keep] / 255.0, np.where(y[keep] == 1, 1.0, -1.0)


def separable(n, d, seed, gap=0.0):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n * 2, d))
    s = X @ rng.standard_normal(d) + 0.3
    keep = np.flatnonzero(np.abs(s) > gap)[:n]
    return X[keep], np.where(s[keep] > 0, 1.0, -1.0)


def max_margin_or_certificate(X, y):
    try:
        return max_margin(X, y)
    except NotSeparableError as err:
        return err.certificate


def row(name, ours, ref, ref_name):
    print(f"{name:42s} ours {ours:8.3f} s   {ref_name} {ref:8.3f} s   "
          f"ratio ours/ref {ours / ref:6.3f}")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeats", type=int, default=5)
    repeats = parser.parse_args().repeats
    print(f"cores: {os.cpu_count()}, repeats: {repeats}, medians")
    X, y = load_a9a()
    y = np.where(y > 0, 1.0, -1.0)
    assert not separability(X, y).separable and linprog_feasibility(X, y) == 2
    row("separability a9a 48842x123 sparse", median_time(lambda: separability(X, y), repeats),
        median_time(lambda: linprog_feasibility(X, y), repeats), "linprog")
    row("max_margin a9a (raises, certificate)",
        median_time(lambda: max_margin_or_certificate(X, y), repeats),
        median_time(lambda: linprog_feasibility(X, y), repeats), "linprog")
    X, y = separable(100_000, 50, 0)
    ours = median_time(lambda: separability(X, y), max(1, repeats // 2))
    ref = median_time(lambda: linprog_feasibility(X, y), 1)
    row("separability dense 100000x50 separable", ours, ref, "linprog")
    ours = median_time(lambda: max_margin(X, y), max(1, repeats // 2))
    print(f"{'max_margin dense 100000x50 separable':42s} ours {ours:8.3f} s   "
          "(SVC C=1e10 not run: too slow)")
    X, y = separable(5000, 20, 1, gap=0.01)
    mm = max_margin(X, y)
    svc = SVC(kernel="linear", C=1e10)
    ref = median_time(lambda: svc.fit(X, y), max(1, repeats // 2))
    svc_margin = geometric_margins(X, y, svc.coef_, svc.intercept_[0]).min()
    row("max_margin dense 5000x20 separable", median_time(lambda: max_margin(X, y), repeats),
        ref, "SVC")
    print(f"{'':42s} margin ours {mm.margin:.9f}  SVC {svc_margin:.9f}")
    name, X, y = wide_dense()
    mm = max_margin(X, y)
    ref = median_time(lambda: svc.fit(X, y), repeats)
    svc_margin = geometric_margins(X, y, svc.coef_, svc.intercept_[0]).min()
    row(f"max_margin {name}", median_time(lambda: max_margin(X, y), repeats), ref, "SVC")
    print(f"{'':42s} margin ours {mm.margin:.9f}  SVC {svc_margin:.9f}")


if __name__ == "__main__":
    main()
