"""A small harness: run our code and the reference side by side in one process.

Cases run interleaved (each round runs every case once, in rotating order) so that drift in
the machine's load hits them alike; we report the median time of each case and, for each
comparison, the median of the per-round ratios. Absolute times are for orientation only:
the machine is shared and noisy.
"""

from __future__ import annotations

import json
import platform
import statistics
import sys
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np


@dataclass
class Comparison:
    """``numerator / denominator`` of two cases, with the target it should meet."""

    name: str
    numerator: str
    denominator: str
    target: str  # e.g. ">= 4" or "<= 1.5"

    def holds(self, ratio: float) -> bool:
        op, bound = self.target.split()
        return ratio >= float(bound) if op == ">=" else ratio <= float(bound)


@dataclass
class Bench:
    title: str
    cases: dict[str, Callable[[], object]] = field(default_factory=dict)
    comparisons: list[Comparison] = field(default_factory=list)

    def case(self, name: str, fn: Callable[[], object]) -> None:
        self.cases[name] = fn

    def compare(self, name: str, numerator: str, denominator: str, target: str) -> None:
        self.comparisons.append(Comparison(name, numerator, denominator, target))

    def run(self, rounds: int = 7) -> dict:
        times = {name: [] for name in self.cases}
        names = list(self.cases)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for fn in self.cases.values():  # warm-up: compilation, caches, page faults
                fn()
            for r in range(rounds):
                for name in names[r % len(names):] + names[: r % len(names)]:
                    start = time.perf_counter()
                    self.cases[name]()
                    times[name].append(time.perf_counter() - start)
        return self._report(times)

    def _report(self, times: dict[str, list[float]]) -> dict:
        medians = {name: statistics.median(t) for name, t in times.items()}
        ratios = {
            c.name: statistics.median(
                a / b for a, b in zip(times[c.numerator], times[c.denominator], strict=True)
            )
            for c in self.comparisons
        }
        print(f"\n## {self.title}")
        print(f"{'case':<44} {'median s':>10}")
        for name, t in medians.items():
            print(f"{name:<44} {t:>10.4f}")
        print(f"\n{'ratio':<44} {'median':>10} {'target':>10}  met")
        for c in self.comparisons:
            met = "yes" if c.holds(ratios[c.name]) else "NO"
            print(f"{c.name:<44} {ratios[c.name]:>10.2f} {c.target:>10}  {met}")
        return {"title": self.title, "median_seconds": medians, "ratios": ratios}


def machine() -> str:
    import os

    return (f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
            f"Python {sys.version.split()[0]}, {platform.system()}")


def dump(results: list[dict], path: str | None) -> None:
    if path:
        with open(path, "w") as f:
            json.dump({"machine": machine(), "results": results}, f, indent=2)


def shared_data(name: str) -> Path | None:
    """``shared/data/name`` beside the repository (or beside its parent, for a worktree)."""
    root = Path(__file__).resolve().parents[1]
    for base in (root.parent, root.parent.parent):
        if (base / "shared" / "data" / name).exists():
            return base / "shared" / "data" / name
    return None


def liblinear_fits(X, y, solver: int, alpha: float):
    """A maker of LIBLINEAR 2.50 fits by tolerance: ``make(eps)`` is a call that trains
    ``-s solver`` at C = 1 / (alpha n) with no bias term and returns w for labels +-1.

    LIBLINEAR penalises its bias, so the comparisons run without an intercept (a constant
    column stands for it where one is wanted). Needs the ``liblinear-official`` package."""
    from liblinear import liblinearutil

    prob = liblinearutil.problem(y, X)
    C = 1.0 / (alpha * X.shape[0])

    def make(eps):
        param = liblinearutil.parameter(f"-s {solver} -c {C!r} -e {eps!r} -B -1 -q")

        def fit():
            model = liblinearutil.train(prob, param)
            w = np.array(model.get_decfun()[0])
            return w if model.get_labels()[0] == 1 else -w
        return fit
    return make
