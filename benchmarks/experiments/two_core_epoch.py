"""Experiment (not wired in): an exact two-core perceptron epoch on dense data, issue 13.

A parallel pass (``prange``) computes the decision values of a block of rows ahead with the
weights at its start, using :func:`halfspaces._fast.perceptron.decision`, the function the
sequential loop calls, so each value is the sequential loop's bit for bit while the weights
do not change. The rows up to the block's first mistake are settled from those values; the
mistake itself (or a non-finite value) goes through the unchanged
:func:`~halfspaces._fast.perceptron.perceptron_epoch` on that one row, and the next block
starts after it. The block doubles after a block without a mistake and halves after one
with a mistake (256 to 65,536 rows); an epoch after one with more than n/256 mistakes runs
sequentially. Weights, averaging sums, counters and update logs are checked equal to the
sequential loop's in every round.

Run: ``python benchmarks/experiments/two_core_epoch.py [--rounds 3] [--mode 0]`` (mode 0
plain, 1 averaged, 3 pocket). Prints medians over interleaved rounds of: one epoch from zero
weights (forced through the ahead loop), one epoch without a mistake, and a run to
convergence, on separable dense 1,000,000 x 100 data (margin 0.05). Results:
benchmarks/RESULTS.md, "Perceptrons (dense, sparse, partial_fit)".
"""

from __future__ import annotations

import argparse
import math
import os
import statistics
import time

import numpy as np
from numba import njit, prange

from halfspaces._fast import perceptron as fast_perceptron
from halfspaces._fast._dense_or_csr import n_rows

SMALLEST, LARGEST, FIRST = 256, 65_536, 4_096
SEQUENTIAL_ABOVE = 1 / 256  # mistakes per row in the last epoch


@njit(cache=True, nogil=True, parallel=True)
def decisions_ahead(X, order, start, c, w, f):
    """f[k] = <w, x'_i> for the rows at positions start, start + 1, ... of the pass."""
    cyclic = order.shape[0] == 0
    for k in prange(f.shape[0]):
        f[k] = fast_perceptron.decision(X, start + k if cyclic else order[start + k], c, w)


@njit(cache=True, nogil=True)
def epoch_ahead(X, Y, order, c, mode, w, aux, counters, log, block, smallest, largest):
    """:func:`halfspaces._fast.perceptron.perceptron_epoch`, its decision values computed
    ahead on every core; the same return value and the same state afterwards."""
    cyclic = order.shape[0] == 0
    n = n_rows(X) if cyclic else order.shape[0]
    f = np.empty(min(largest, n))
    one = np.empty(1, dtype=np.int64)
    entry = np.empty((2, 1 if log.shape[1] > 0 else 0), dtype=np.int64)
    n_updates, pos = 0, 0
    while pos < n:
        start, stop = pos, min(pos + block, n)
        ahead = f[:stop - start]
        decisions_ahead(X, order, start, c, w, ahead)
        while pos < stop:
            a = ahead[pos - start]
            i = pos if cyclic else order[pos]
            if not (math.isfinite(a) and fast_perceptron.target(Y, i) * a > 0.0):
                break
            counters[fast_perceptron.STEP] += 1
            if mode == fast_perceptron.POCKET:
                fast_perceptron._pocket_after_correct(X, Y, c, w, aux, counters)
            pos += 1
        if pos == stop:
            block = min(2 * block, largest)
            continue
        one[0] = pos if cyclic else order[pos]
        k = fast_perceptron.perceptron_epoch(X, Y, one, c, mode, w, aux, counters, entry)
        if k < 0:
            return k
        if k > 0:
            if n_updates < log.shape[1]:
                log[0, n_updates], log[1, n_updates] = entry[0, 0], entry[1, 0]
            n_updates += 1
        pos += 1
        block = max(block // 2, smallest)
    return n_updates


def separable_dense(n: int, d: int, margin: float, seed: int = 0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    w = rng.normal(size=d)
    w /= np.linalg.norm(w)
    f = X @ w
    inside = np.abs(f) < margin
    X[inside] += np.outer(np.sign(f[inside]) * 2 * margin, w)
    return X, np.where(X @ w > 0, 1.0, -1.0), w


def run(X, y, mode, epochs, ahead, w=None, last=None):
    """(seconds, updates per epoch, final state) of `epochs` passes (stops at a clean one);
    `last`: the mistakes of the epoch before (None: as many as rows, a sequential start)."""
    n, d = X.shape
    w = np.zeros(d + 1) if w is None else w.copy()
    aux, counters = np.zeros(d + 1), np.zeros(fast_perceptron.N_COUNTERS, dtype=np.int64)
    if mode == fast_perceptron.POCKET:
        counters[fast_perceptron.POCKET_ERRORS] = fast_perceptron.count_errors(X, (y, 1.0), 1.0,
                                                                               aux)
        counters[fast_perceptron.POCKET_IS_CURRENT] = 1
    empty, updates, logs = np.empty(0, dtype=np.int64), [], []
    last = n if last is None else last
    start = time.perf_counter()
    for _ in range(epochs):
        log = np.full((2, 1000), -1, dtype=np.int64)
        if ahead and last <= n * SEQUENTIAL_ABOVE:
            k = epoch_ahead(X, (y, 1.0), empty, 1.0, mode, w, aux, counters, log, FIRST,
                            SMALLEST, LARGEST)
        else:
            k = fast_perceptron.perceptron_epoch(X, (y, 1.0), empty, 1.0, mode, w, aux, counters,
                                                 log)
        updates.append(k)
        logs.append(log)
        last = k
        if k == 0:
            break
    return time.perf_counter() - start, updates, (w, aux, counters, *logs)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--mode", type=int, default=fast_perceptron.PLAIN)
    options = parser.parse_args()
    X, y, w_true = separable_dense(1_000_000, 100, 0.05)
    clean = np.append(w_true, 0.0)  # an epoch without a mistake
    cases = {"one epoch from zero": (1, None, 0), "one epoch, no mistake": (1, clean, 0),
             "to convergence": (200, None, None)}
    for epochs, w, last in cases.values():  # compile both loops
        run(X, y, options.mode, min(epochs, 2), True, w, last)
    times = {name: {"sequential": [], "ahead": []} for name in cases}
    for _ in range(options.rounds):
        for name, (epochs, w, last) in cases.items():
            seconds, updates, state = run(X, y, options.mode, epochs, False, w, last)
            times[name]["sequential"].append(seconds)
            ahead = run(X, y, options.mode, epochs, True, w, last)
            times[name]["ahead"].append(ahead[0])
            assert ahead[1] == updates, name
            for a, b in zip(ahead[2], state, strict=True):
                assert np.array_equal(a, b), name
            if name == "to convergence" and len(times[name]["ahead"]) == 1:
                print(f"{len(updates)} epochs, updates {updates[:5]} ... {updates[-5:]}")
    for name, pair in times.items():
        seq, par = statistics.median(pair["sequential"]), statistics.median(pair["ahead"])
        print(f"{name:24s} sequential {seq:.3f} s  ahead {par:.3f} s  ahead/sequential "
              f"{par / seq:.2f}")
    print("load", os.getloadavg())


if __name__ == "__main__":
    main()
