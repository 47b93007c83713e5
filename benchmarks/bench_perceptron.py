"""Perceptron family against scikit-learn's Perceptron and the memory-bandwidth floor.

Run: python benchmarks/bench_perceptron.py [--quick] [--rounds N] [--json FILE]

Cases (the issue's targets in brackets):
- dense 1,000,000 x 100 float64 Gaussian, one epoch, whole fit call including validation:
  ours vs sklearn [>= 4x faster], ours vs one pass X @ w [<= 1.5x], averaged vs plain
  [<= 1.5x]. X @ w runs on every core; the perceptron is sequential, so the pass with BLAS
  on one thread is shown too: that is the floor a single core can reach;
- separable dense 1,000,000 x 100 float64 (Gaussian rows at distance >= 0.1 from a unit
  normal's hyperplane, about 16 epochs and 2,600 updates), run to convergence: ours vs
  sklearn given the same number of epochs (it has no stop at a pass without mistakes; with
  tol=None it learns the same weights); most of these epochs have few mistakes, the case a
  speculative two-core epoch would aim at;
- a9a (48,842 x 123) as CSR: one epoch and ten epochs, ours vs sklearn on the same CSR
  matrix [>= 3x faster].
"""

from __future__ import annotations

import argparse
import functools

import numpy as np
from _harness import Bench, dump, machine
from sklearn.linear_model import Perceptron as SkPerceptron

from halfspaces import AveragedPerceptron, Perceptron, PocketPerceptron, VotedPerceptron


def sklearn_perceptron(epochs: int) -> SkPerceptron:
    return SkPerceptron(shuffle=False, eta0=1.0, alpha=0.0, penalty=None, tol=None,
                        max_iter=epochs)


@functools.cache
def _blas():
    from threadpoolctl import ThreadpoolController

    return ThreadpoolController()  # finding the libraries takes milliseconds: do it once


def one_thread(fn):
    """The memory floor of a sequential algorithm: BLAS limited to one thread."""
    with _blas().limit(limits=1, user_api="blas"):
        return fn()


def dense_bench(n: int, d: int) -> Bench:
    rng = np.random.default_rng(0)
    X = rng.standard_normal((n, d))
    w = rng.standard_normal(d)
    y = np.where(X @ w > 0, 1.0, -1.0)
    bench = Bench(f"dense {n:,} x {d} float64, one epoch (fit incl. validation)")
    bench.case("halfspaces Perceptron", lambda: Perceptron(max_epochs=1).fit(X, y))
    bench.case("halfspaces AveragedPerceptron",
               lambda: AveragedPerceptron(max_epochs=1).fit(X, y))
    bench.case("sklearn Perceptron", lambda: sklearn_perceptron(1).fit(X, y))
    bench.case("floor: X @ w", lambda: X @ w)
    bench.case("floor: X @ w, one BLAS thread", lambda: one_thread(lambda: X @ w))
    bench.compare("sklearn / ours", "sklearn Perceptron", "halfspaces Perceptron", ">= 4")
    bench.compare("ours / floor", "halfspaces Perceptron", "floor: X @ w", "<= 1.5")
    bench.compare("ours / one-thread floor", "halfspaces Perceptron",
                  "floor: X @ w, one BLAS thread", "<= 1.5")
    bench.compare("averaged / plain", "halfspaces AveragedPerceptron",
                  "halfspaces Perceptron", "<= 1.5")
    return bench


def separable_dense(n: int, d: int, gap: float = 0.1):
    """Gaussian rows with |<w*, x>| >= gap for a unit w*, labelled by the sign."""
    rng = np.random.default_rng(0)
    w = rng.standard_normal(d)
    w /= np.linalg.norm(w)
    X = rng.standard_normal((n + n // 4, d))
    f = X @ w
    keep = np.flatnonzero(np.abs(f) >= gap)[:n]
    return np.ascontiguousarray(X[keep]), np.where(f[keep] > 0, 1.0, -1.0)


def convergence_bench(n: int, d: int) -> Bench:
    X, y = separable_dense(n, d)
    epochs = Perceptron(max_epochs=1000).fit(X, y).n_epochs_
    w = np.ones(d)
    bench = Bench(f"separable dense {n:,} x {d} float64, to convergence ({epochs} epochs)")
    bench.case("halfspaces Perceptron", lambda: Perceptron(max_epochs=1000).fit(X, y))
    bench.case("sklearn Perceptron (same epochs)", lambda: sklearn_perceptron(epochs).fit(X, y))
    bench.case("floor: epochs x (X @ w)", lambda: [X @ w for _ in range(epochs)])
    bench.case("floor: epochs x (X @ w), one BLAS thread",
               lambda: one_thread(lambda: [X @ w for _ in range(epochs)]))
    bench.compare("sklearn / ours", "sklearn Perceptron (same epochs)", "halfspaces Perceptron",
                  ">= 4")
    bench.compare("ours / floor", "halfspaces Perceptron", "floor: epochs x (X @ w)", "<= 1.5")
    bench.compare("ours / one-thread floor", "halfspaces Perceptron",
                  "floor: epochs x (X @ w), one BLAS thread", "<= 1.5")
    return bench


def a9a_bench(epochs: int) -> Bench:
    from halfspaces.datasets import load_a9a

    X, y = load_a9a()
    bench = Bench(f"a9a CSR {X.shape[0]:,} x {X.shape[1]}, {epochs} epoch(s)")
    bench.case("halfspaces Perceptron", lambda: Perceptron(max_epochs=epochs).fit(X, y))
    bench.case("sklearn Perceptron (same CSR)", lambda: sklearn_perceptron(epochs).fit(X, y))
    bench.case("halfspaces AveragedPerceptron",
               lambda: AveragedPerceptron(max_epochs=epochs).fit(X, y))
    bench.case("halfspaces PocketPerceptron",
               lambda: PocketPerceptron(max_epochs=epochs).fit(X, y))
    bench.case("halfspaces VotedPerceptron (fit)",
               lambda: VotedPerceptron(max_epochs=epochs).fit(X, y))
    bench.compare("sklearn / ours", "sklearn Perceptron (same CSR)", "halfspaces Perceptron",
                  ">= 3")
    bench.compare("averaged / plain", "halfspaces AveragedPerceptron",
                  "halfspaces Perceptron", "<= 1.5")
    return bench


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small sizes, a smoke test")
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--json", help="also write the results to this file")
    args = parser.parse_args()
    print(f"machine: {machine()}")
    n, rounds = (20_000, 2) if args.quick else (1_000_000, args.rounds)
    benches = [dense_bench(n, 100), convergence_bench(n, 100), a9a_bench(1), a9a_bench(10)]
    dump([bench.run(rounds) for bench in benches], args.json)


if __name__ == "__main__":
    main()
