"""Two source trees of halfspaces side by side: is the new one slower anywhere?

Run: python benchmarks/bench_revisions.py OLD_SRC NEW_SRC [--rounds N] [--only GROUP]

OLD_SRC and NEW_SRC are ``src`` folders of two checkouts (e.g. a ``git worktree`` of the
last release and this one). Each round runs every case group once in a fresh subprocess per
tree, the trees alternating and their order rotating from round to round, so drift in the
machine's load hits both alike; a subprocess times each case a few times after a warm-up
(compilation, caches). Printed per case: the median time of each tree and the median of the
per-round ratios new / old. The cases are those of bench_perceptron.py, bench_logistic.py and
bench_theory.py, least squares, small partial_fit calls and the kernel perceptrons' dual
loop and vote, through the public API only
(both trees must have it). A refactoring should keep every ratio within noise of 1.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

WORKER = r'''
import json, sys, time, warnings
import numpy as np
warnings.simplefilter("ignore")
group, repeats = sys.argv[1], int(sys.argv[2])
cases = {}

def dense(n, d, seed=0, logistic=False):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    w = rng.standard_normal(d) * (2.0 / np.sqrt(d) if logistic else 1.0)
    noise = rng.logistic(size=n) + 0.3 if logistic else 0.0
    return X, np.where(X @ w + noise > 0, 1.0, -1.0)

if group == "perceptron":
    from halfspaces import AveragedPerceptron, Perceptron, PocketPerceptron, VotedPerceptron
    from halfspaces.datasets import load_a9a
    X, y = dense(1_000_000, 100)
    cases["dense 1M x 100, Perceptron 1 epoch"] = lambda: Perceptron(max_epochs=1).fit(X, y)
    cases["dense 1M x 100, Averaged 1 epoch"] = (
        lambda: AveragedPerceptron(max_epochs=1).fit(X, y))
    A, b = load_a9a()
    for e in (1, 10):
        for cls in (Perceptron, AveragedPerceptron, PocketPerceptron, VotedPerceptron):
            cases[f"a9a {cls.__name__} {e} epoch(s)"] = (
                lambda cls=cls, e=e: cls(max_epochs=e).fit(A, b))
elif group == "logistic":
    from sklearn.datasets import load_digits
    from halfspaces import LogisticRegression
    from halfspaces.datasets import load_a9a
    A, b = load_a9a()
    D, t = load_digits(return_X_y=True)
    D = D / 16.0
    X, y = dense(1_000_000, 100, logistic=True)
    data = {"a9a": (A, b, 1e-6), "digits": (D, t, 1e-6), "dense 1M x 100": (X, y, 1e-5)}
    for name, (P, q, tol) in data.items():
        for solver in ("lbfgs", "newton"):
            cases[f"{name} LogisticRegression {solver}"] = (
                lambda P=P, q=q, s=solver, tol=tol: LogisticRegression(
                    solver=s, alpha=1.0 / P.shape[0], tol=tol).fit(P, q))
elif group == "theory":
    from halfspaces.datasets import load_a9a
    from halfspaces.theory import max_margin, separability
    A, b = load_a9a()
    cases["separability a9a"] = lambda: separability(A, b)
    X, y = dense(100_000, 50)
    cases["separability dense 100000 x 50"] = lambda: separability(X, y)
    rng = np.random.default_rng(1)
    Z = rng.standard_normal((10_000, 20))
    s = Z @ rng.standard_normal(20) + 0.3
    keep = np.flatnonzero(np.abs(s) > 0.01)[:5000]
    cases["max_margin dense 5000 x 20"] = (
        lambda: max_margin(Z[keep], np.where(s[keep] > 0, 1.0, -1.0)))
elif group == "linear":
    import scipy.sparse as sp
    from halfspaces import LinearRegression
    from halfspaces.datasets import load_a9a
    A, b = load_a9a()
    rng = np.random.default_rng(2)
    X = rng.standard_normal((200_000, 50))
    t = X @ rng.standard_normal(50) + rng.standard_normal(200_000)
    for solver in ("lstsq", "cholesky"):
        cases[f"dense 200000 x 50 LinearRegression {solver}"] = (
            lambda s=solver: LinearRegression(solver=s).fit(X, t))
    cases["a9a (CSR) LinearRegression cholesky"] = (
        lambda: LinearRegression(solver="cholesky").fit(A, b))
    fitted = LinearRegression(solver="cholesky").fit(X, t)
    cases["dense 200000 x 50 LinearRegression score"] = lambda: fitted.score(X, t)
elif group == "partial_fit":
    # the per-call costs in front of the loops (parameter and state checks, the rollback's
    # snapshot) on small batches, where they weigh most
    from halfspaces import KernelPerceptron, LogisticRegression, Perceptron
    X, y = dense(100, 10)
    classes = np.array([-1.0, 1.0])
    for name, make in (("Perceptron", lambda: Perceptron()),
                       ("LogisticRegression sgd", lambda: LogisticRegression(
                           solver="sgd", random_state=np.random.RandomState(0))),
                       ("KernelPerceptron rbf", lambda: KernelPerceptron(kernel="rbf"))):
        model = make().partial_fit(X, y, classes=classes)
        cases[f"dense 100 x 10 {name} partial_fit"] = (
            lambda model=model: model.partial_fit(X, y))
elif group == "kernel":
    # the dual loop (its update test reads a threshold per visit) and the
    # voted scoring, at the default margin 0 and burn_in 0
    from sklearn.datasets import load_digits
    from halfspaces import KernelPerceptron, VotedKernelPerceptron
    from halfspaces.datasets import load_a9a
    A, b = load_a9a()
    A, b = A[:5000], b[:5000]
    X, y = dense(3000, 50)
    D, t = load_digits(return_X_y=True)
    D = D / 16.0
    cases["a9a 5000 (CSR) KernelPerceptron rbf averaged 3 epochs"] = (
        lambda: KernelPerceptron(kernel="rbf", gamma=0.08, average=True, max_epochs=3,
                                 cache_size=400).fit(A, b))
    cases["dense 3000 x 50 KernelPerceptron rbf averaged 10 epochs"] = (
        lambda: KernelPerceptron(kernel="rbf", gamma=0.02, average=True, max_epochs=10,
                                 cache_size=400).fit(X, y))
    cases["digits VotedKernelPerceptron poly 3 10 epochs"] = (
        lambda: VotedKernelPerceptron(kernel="poly", gamma=1 / 64, max_epochs=10).fit(D, t))
    voted = VotedKernelPerceptron(kernel="poly", gamma=1 / 64, max_epochs=10).fit(D, t)
    cases["digits VotedKernelPerceptron poly 3 decision_function"] = (
        lambda: voted.decision_function(D))
def work(fitted):
    """What the call did: iterations of a solver, updates of a perceptron (a change in them
    is a change of behaviour, not of speed)."""
    for attr in ("n_iter_", "n_updates_", "n_epochs_"):
        value = getattr(fitted, attr, None)
        if value is not None:
            return int(np.sum(value))
    return None

times, works = {}, {}
for name, fn in cases.items():
    works[name] = work(fn())
    runs, spent = [], 0.0
    # at least ``repeats`` calls, and more of a short case (up to 0.5 s or 200 calls): the
    # median of a few 3 ms calls moves by more than the 5% being looked for
    while len(runs) < repeats or (spent < 0.5 and len(runs) < 200):
        start = time.perf_counter()
        fn()
        runs.append(time.perf_counter() - start)
        spent += runs[-1]
    times[name] = sorted(runs)[len(runs) // 2]
print(json.dumps({"times": times, "works": works}))
'''

GROUPS = ("perceptron", "logistic", "theory", "linear", "partial_fit", "kernel")


def run_tree(src: str, group: str, repeats: int) -> dict:
    """{"times": case -> median seconds, "works": case -> iterations or updates}."""
    env = dict(os.environ, PYTHONPATH=src)
    done = subprocess.run([sys.executable, "-c", WORKER, group, str(repeats)], env=env,
                          capture_output=True, text=True, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("old", help="the src folder of the reference tree")
    parser.add_argument("new", help="the src folder of the tree under test")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--repeats", type=int, default=3, help="timed calls per subprocess")
    parser.add_argument("--only", choices=GROUPS)
    args = parser.parse_args()
    trees = {"old": str(Path(args.old).resolve()), "new": str(Path(args.new).resolve())}
    for group in [args.only] if args.only else GROUPS:
        seconds = {"old": [], "new": []}
        for r in range(args.rounds):
            for label in (("old", "new") if r % 2 == 0 else ("new", "old")):
                seconds[label].append(run_tree(trees[label], group, args.repeats))
        print(f"\n{group}: medians of {args.rounds} rounds x >= {args.repeats} calls "
              "(work: iterations or updates, old -> new)")
        print(f"{'case':48s} {'old s':>9s} {'new s':>9s} {'new/old':>8s}  work")
        for case in seconds["old"][0]["times"]:
            old = [s["times"][case] for s in seconds["old"]]
            new = [s["times"][case] for s in seconds["new"]]
            ratio = statistics.median(n / o for n, o in zip(new, old, strict=True))
            works = f"{seconds['old'][0]['works'][case]} -> {seconds['new'][0]['works'][case]}"
            print(f"{case:48s} {statistics.median(old):9.4f} {statistics.median(new):9.4f} "
                  f"{ratio:8.3f}  {works}")


if __name__ == "__main__":
    main()
