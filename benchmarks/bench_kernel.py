"""KernelPerceptron against SVC, MulticlassPerceptron against scikit-learn's Perceptron (OvR).

Run: python benchmarks/bench_kernel.py [--quick] [--rounds N] [--json FILE] [--models-only]
     python benchmarks/bench_kernel.py --issue14 [gram,a9a,mnist,scale] [--rounds N]
     [--epochs 1,3,10] [--selection shuffle] [--margin 1 --margin-epochs 20 --seeds 0,1,2]

Cases (issue 5):
- KernelPerceptron(kernel="rbf") against SVC(kernel="rbf"), the same gamma, on a 10,000-row
  subset of a9a (tested on the 16,281 rows of a9a's test split) and on concentric circles:
  fit time (median of the rounds) and test accuracy. Ours runs with the default
  cache_size=200 (the 10,000 x 10,000 Gram matrix does not fit: rows on demand) and with
  cache_size=1000 (the whole matrix), for max_epochs=10 on a9a (not separable) and to
  convergence on circles.
- MulticlassPerceptron, plain and averaged, against scikit-learn's Perceptron (one-vs-rest,
  the same 10 passes in the given order, eta0=1, no penalty) on digits, pendigits and MNIST
  t10k (../shared/data; skipped when absent): fit time and test accuracy.
- Every ``--model`` on the bundled data (issue 13): ``halfspaces fit --model kernel`` and
  ``--model voted`` in a fresh process with a warm Numba cache (wall time, median of the
  rounds), and the library calls behind them: KernelPerceptron().fit on a9a's train split
  (the linear kernel, run in the primal) and VotedPerceptron.decision_function on a9a's
  48,842 rows (train and test, as the command scores them). The dual loop with the linear
  kernel (a callable, 75 s) runs once with --dual.

Cases of issue 14 (``--issue14``; each fit timed in rounds interleaved with the reference's,
the median of the per-round ratios reported, and the machine's load printed with them):
- Gram rows one at a time (block=1) against blocks of 16 (the default), on the a9a subset
  below: the same run (the same alpha), fit time only.
- a9a, 10,000 training rows (seed 0), RBF gamma 0.08, tested on a9a test: the last,
  averaged (``KernelPerceptron(average=True)``) and voted (``VotedKernelPerceptron``)
  hypotheses after 1, 3 and 10 epochs against SVC (C=1): fit time / SVC's, accuracy. The
  whole Gram matrix is cached (cache_size=1000), as SVC's libsvm cache would hold it.
- MNIST t10k (../shared/data: first 8,000 rows train, last 2,000 test, pixels / 255),
  polynomial kernels of degree 3 and 4 and RBF, gamma = 1 / (d Var X) (SVC's "scale"),
  coef0=1: averaged and voted multiclass (one-vs-rest) kernel perceptrons against SVC
  (one-vs-one, C=1), the same kernels; SVC one-vs-rest (``OneVsRestClassifier``) beside
  them, to tell the multiclass reduction's part of the gap from the binary learner's.
  With ``--margin m``: the averaged and voted forms with that margin
  (``KernelPerceptron(margin=m)``), ``--margin-epochs`` shuffled passes (20), averaged or
  voted over the second half of them (``burn_in``), for each of ``--seeds``.
- Kernels at scale: at n = 10,000 and all 32,561 a9a rows, the averaged dual (3 epochs)
  against Nystroem (1,000 components) and RBFSampler (2,000) pipelines with
  AveragedPerceptron (10 epochs), same gamma: where each wins.
A class that this checkout lacks (the averaged and voted forms before they land) is skipped
with a printed note.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
import warnings
from functools import partial
from pathlib import Path

import numba
import numpy as np
import scipy.sparse as sp
from _harness import Bench, dump, machine
from sklearn.datasets import load_digits, load_svmlight_file, make_circles
from sklearn.linear_model import Perceptron as SkPerceptron
from sklearn.model_selection import train_test_split
from sklearn.multiclass import OneVsRestClassifier
from sklearn.svm import SVC

import halfspaces
from halfspaces import AveragedPerceptron, KernelPerceptron, MulticlassPerceptron

# ../shared/data beside the checkout (a worktree one level deeper: beside its parent)
SHARED_DATA = next((parent / "shared" / "data" for parent in Path(__file__).resolve().parents[2:4]
                    if (parent / "shared" / "data").exists()),
                   Path(__file__).resolve().parents[2] / "shared" / "data")
EPOCHS = 10


def accuracies(models: dict, train, test) -> dict[str, tuple[float, float]]:
    """Test accuracy and predict time of one fit of each model."""
    out = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name, make in models.items():
            model = make().fit(*train)
            start = time.perf_counter()
            accuracy = model.score(*test)
            out[name] = (accuracy, time.perf_counter() - start)
    print(f"\n{'model':<44} {'test accuracy':>14} {'predict s':>10}")
    for name, (accuracy, seconds) in out.items():
        print(f"{name:<44} {accuracy:>14.4f} {seconds:>10.3f}")
    return out


def fit_bench(title: str, models: dict, train, comparisons) -> Bench:
    bench = Bench(title)
    for name, make in models.items():
        bench.case(name, lambda make=make: make().fit(*train))
    for label, numerator, denominator in comparisons:
        bench.compare(label, numerator, denominator, ">= 1")  # met: ours is the faster
    return bench


# ---------------------------------------------------------------- kernel perceptron vs SVC

def a9a_subset(n: int):
    from halfspaces.datasets import load_a9a

    X, y = load_a9a("train")
    rows = np.random.default_rng(0).choice(X.shape[0], n, replace=False)
    return (X[rows], y[rows]), load_a9a("test")


def circles(n: int):
    X, y = make_circles(2 * n, factor=0.5, noise=0.05, random_state=0)
    X_train, X_test, y_train, y_test = train_test_split(X, y, train_size=n, random_state=0)
    return (X_train, y_train), (X_test, y_test)


def svc_models(gamma: float, epochs: int | None) -> dict:
    limit = {} if epochs is None else {"max_epochs": epochs}
    return {
        "KernelPerceptron rbf (cache 200 MB)":
            lambda: KernelPerceptron(kernel="rbf", gamma=gamma, **limit),
        "KernelPerceptron rbf (cache 1000 MB)":
            lambda: KernelPerceptron(kernel="rbf", gamma=gamma, cache_size=1000, **limit),
        "SVC rbf": lambda: SVC(kernel="rbf", gamma=gamma),
    }


def kernel_benches(n: int, rounds: int) -> list[dict]:
    results = []
    for name, (train, test), gamma, epochs in [
        (f"a9a subset {n:,} rows (rbf, gamma 0.08, {EPOCHS} epochs)", a9a_subset(n), 0.08, EPOCHS),
        (f"circles {n:,} rows (rbf, gamma 1, to convergence)", circles(n), 1.0, None),
    ]:
        models = svc_models(gamma, epochs)
        names = list(models)
        bench = fit_bench(f"{name}: fit", models, train,
                          [("SVC / ours (cache 200)", names[2], names[0]),
                           ("SVC / ours (cache 1000)", names[2], names[1])])
        result = bench.run(rounds)
        result["accuracy"] = accuracies(models, train, test)
        results.append(result)
    return results


# ---------------------------------------------------------------- multiclass

def digits():
    X, y = load_digits(return_X_y=True)
    X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.3, random_state=0)
    return (X_train, y_train), (X_test, y_test)


def pendigits():
    X, y = load_svmlight_file(str(SHARED_DATA / "pendigits"), n_features=16)
    X_test, y_test = load_svmlight_file(str(SHARED_DATA / "pendigits.t"), n_features=16)
    return (X.toarray(), y), (X_test.toarray(), y_test)


def mnist_t10k():
    """The official MNIST test set, pixels scaled to [0, 1]: 8,000 rows to train, 2,000 to test."""
    X = np.fromfile(SHARED_DATA / "mnist-t10k-images-idx3-ubyte", dtype=np.uint8, offset=16)
    y = np.fromfile(SHARED_DATA / "mnist-t10k-labels-idx1-ubyte", dtype=np.uint8, offset=8)
    X = X.reshape(-1, 784) / 255.0
    return (X[:8000], y[:8000].astype(np.int64)), (X[8000:], y[8000:].astype(np.int64))


MULTICLASS = {
    "MulticlassPerceptron": lambda: MulticlassPerceptron(max_epochs=EPOCHS),
    "MulticlassPerceptron average=True":
        lambda: MulticlassPerceptron(max_epochs=EPOCHS, average=True),
    "sklearn Perceptron (OvR)":
        lambda: SkPerceptron(max_iter=EPOCHS, tol=None, shuffle=False, eta0=1.0),
}


def multiclass_benches(rounds: int) -> list[dict]:
    results = []
    for name, load in [("digits", digits), ("pendigits", pendigits), ("MNIST t10k", mnist_t10k)]:
        if load is not digits and not SHARED_DATA.exists():
            print(f"\n{name}: skipped, {SHARED_DATA} is absent")
            continue
        train, test = load()
        names = list(MULTICLASS)
        bench = fit_bench(f"{name} {train[0].shape[0]:,} x {train[0].shape[1]}, "
                          f"{EPOCHS} epochs: fit", MULTICLASS, train,
                          [("sklearn / ours", names[2], names[0]),
                           ("sklearn / ours averaged", names[2], names[1])])
        result = bench.run(rounds)
        result["accuracy"] = accuracies(MULTICLASS, train, test)
        results.append(result)
    return results


# ---------------------------------------------------------------- every --model on a9a

SRC = Path(__file__).resolve().parents[1] / "src"


def cli_wall(model: str) -> float:
    """Wall seconds of ``halfspaces fit --model MODEL`` on the bundled a9a, a fresh process."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        filter(None, [str(SRC), os.environ.get("PYTHONPATH")]))}
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "halfspaces", "fit", "--model", model,
                           "--json"], capture_output=True, text=True, env=env)
    if done.returncode != 0:
        raise RuntimeError(done.stderr[-2000:])
    return time.perf_counter() - start


def linear_callable(A, B):
    from halfspaces.kernel import kernel_matrix

    return kernel_matrix(A, B, "linear")


def model_benches(rounds: int, dual: bool) -> list[dict]:
    from halfspaces import VotedPerceptron
    from halfspaces.datasets import load_a9a

    (X, y), (X_test, _) = load_a9a("train"), load_a9a("test")
    rows = sp.vstack([X, X_test], format="csr")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        voted = VotedPerceptron(max_epochs=EPOCHS).fit(X, y)
    bench = Bench(f"every --model on a9a ({EPOCHS} epochs)")
    bench.case("halfspaces fit --model kernel (CLI)", lambda: cli_wall("kernel"))
    bench.case("halfspaces fit --model voted (CLI)", lambda: cli_wall("voted"))
    bench.case("KernelPerceptron().fit, train split",
               lambda: KernelPerceptron(max_epochs=EPOCHS).fit(X, y))
    bench.case("VotedPerceptron.decision_function, 48,842 rows",
               lambda: voted.decision_function(rows))
    results = [bench.run(rounds)]  # a CLI case's time is its process's wall time
    if dual:
        start = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            KernelPerceptron(kernel=linear_callable, max_epochs=EPOCHS).fit(X, y)
        seconds = time.perf_counter() - start
        print(f"KernelPerceptron(callable linear kernel: the dual loop).fit {seconds:.1f} s")
        results.append({"title": "dual loop, linear kernel", "seconds": seconds})
    return results


# ---------------------------------------------------------------- issue 14

def load_note() -> str:
    return "load average {:.2f} {:.2f} {:.2f}".format(*os.getloadavg())


NOTES: set[str] = set()


def note(text: str) -> None:
    if text not in NOTES:
        NOTES.add(text)
        print(f"note: {text}")


def dual_forms(epochs: int, **kernel) -> dict:
    """The last, averaged and voted kernel perceptrons this checkout has, by name."""
    forms = {f"last, {epochs} ep": lambda: KernelPerceptron(max_epochs=epochs, **kernel)}
    if "average" in KernelPerceptron().get_params():
        forms[f"averaged, {epochs} ep"] = lambda: KernelPerceptron(
            max_epochs=epochs, average=True, **kernel)
    else:
        note("KernelPerceptron has no average parameter here: averaged cases skipped")
    voted = getattr(halfspaces, "VotedKernelPerceptron", None)
    if voted is not None:
        forms[f"voted, {epochs} ep"] = lambda: voted(max_epochs=epochs, **kernel)
    else:
        note("no VotedKernelPerceptron here: voted cases skipped")
    return forms


def against(title: str, models: dict, reference: str, train, test, rounds: int) -> dict:
    """Fit every model ``rounds`` times, interleaved; score the last fit of each.

    Reports each model's median fit time, the median over rounds of fit time / the
    reference's (fit times taken in the same round, so the same load), and test accuracy.
    """
    times = {name: [] for name in models}
    fitted = {}
    names = list(models)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for r in range(rounds):
            for name in names[r % len(names):] + names[:r % len(names)]:
                start = time.perf_counter()
                fitted[name] = models[name]().fit(*train)
                times[name].append(time.perf_counter() - start)
        accuracy = {name: fitted[name].score(*test) if test else float("nan")
                    for name in names}
    ref = times[reference]
    rows = {name: {"fit_s": float(np.median(t)),
                   "ratio": float(np.median([a / b for a, b in zip(t, ref, strict=True)])),
                   "accuracy": float(accuracy[name])} for name, t in times.items()}
    print(f"\n## {title} ({rounds} rounds; {load_note()})")
    print(f"{'model':<40} {'fit s':>9} {'/ ' + reference:>14} {'accuracy':>9} {'- ref':>8}")
    for name, row in rows.items():
        print(f"{name:<40} {row['fit_s']:>9.3f} {row['ratio']:>14.3f} "
              f"{row['accuracy']:>9.4f} {row['accuracy'] - accuracy[reference]:>+8.4f}")
    return {"title": title, "load": load_note(), "rows": rows}


def warm_up() -> None:
    """Compile the dual loops (every form, dense and CSR) outside the timings."""
    from sklearn.datasets import make_classification

    X, y = make_classification(60, 5, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for data in (X, sp.csr_matrix(X)):
            for make in dual_forms(2, kernel="rbf").values():
                make().fit(data, y).predict(data)


def issue14_a9a(rounds: int, epochs_list) -> dict:
    train, test = a9a_subset(10_000)
    kernel = dict(kernel="rbf", gamma=0.08, cache_size=1000)
    models = {"SVC rbf (C=1)": lambda: SVC(kernel="rbf", gamma=0.08)}
    for epochs in epochs_list:
        models.update(dual_forms(epochs, **kernel))
    return against("a9a 10,000 rows, rbf gamma 0.08", models, "SVC rbf (C=1)", train, test,
                   rounds)


def margin_forms(margin: float, epochs: int, seeds, n_train: int, **kernel) -> dict:
    """The averaged and voted kernel perceptrons with a margin, averaged or voted over the
    second half of ``epochs`` shuffled passes (burn_in = half of the steps), per seed."""
    if "margin" not in KernelPerceptron().get_params():
        note("KernelPerceptron has no margin parameter here: margin cases skipped")
        return {}
    rule = dict(max_epochs=epochs, margin=margin, burn_in=epochs // 2 * n_train,
                selection="shuffle", **kernel)
    label = f"m {margin:g}, burn-in {epochs // 2} of {epochs} ep"
    forms = {}
    for seed in seeds:
        forms[f"averaged, {label}, seed {seed}"] = partial(
            KernelPerceptron, average=True, random_state=seed, **rule)
        forms[f"voted, {label}, seed {seed}"] = partial(
            halfspaces.VotedKernelPerceptron, random_state=seed, **rule)
    return forms


def issue14_mnist(rounds: int, epochs: int, selection: str = "cyclic",
                  margin: float | None = None, margin_epochs: int = 20,
                  seeds=(0,)) -> list[dict]:
    if not (SHARED_DATA / "mnist-t10k-images-idx3-ubyte").exists():
        print(f"\nMNIST: skipped, not in {SHARED_DATA}")
        return []
    train, test = mnist_t10k()
    gamma = 1.0 / (train[0].shape[1] * train[0].var())  # SVC's gamma="scale"
    results = []
    for name, kernel in [("poly 3", dict(kernel="poly", degree=3, gamma=gamma, coef0=1.0)),
                         ("poly 4", dict(kernel="poly", degree=4, gamma=gamma, coef0=1.0)),
                         ("rbf", dict(kernel="rbf", gamma=gamma))]:
        forms = dual_forms(epochs, cache_size=600, selection=selection, random_state=0,
                           **kernel)  # the 8,000^2 Gram matrix
        forms.pop(f"last, {epochs} ep")
        if margin is not None:
            forms.update(margin_forms(margin, margin_epochs, seeds, train[0].shape[0],
                                      cache_size=600, **kernel))
        # SVC one-vs-rest as well: the perceptrons are one-vs-rest, so this row separates
        # the multiclass reduction's share of the gap from the binary learner's.
        models = {"SVC (OvO, C=1)": lambda kernel=kernel: SVC(**kernel),
                  "SVC (OvR, C=1)": lambda kernel=kernel: OneVsRestClassifier(SVC(**kernel)),
                  **forms}
        results.append(against(f"MNIST t10k 8,000/2,000, {name}, gamma {gamma:.4f}", models,
                               "SVC (OvO, C=1)", train, test, rounds))
    return results


def issue14_scale(rounds: int) -> list[dict]:
    from sklearn.kernel_approximation import Nystroem, RBFSampler
    from sklearn.pipeline import make_pipeline

    from halfspaces.datasets import load_a9a

    (X, y), test = load_a9a("train"), load_a9a("test")
    forms = dual_forms(3, kernel="rbf", gamma=0.08)
    dual = {name: make for name, make in forms.items() if name.startswith("averaged")} or forms
    results = []
    for n in (10_000, X.shape[0]):
        rows = np.random.default_rng(0).choice(X.shape[0], n, replace=False)
        models = {
            "Nystroem 1000 + AveragedPerceptron 10 ep": lambda: make_pipeline(
                Nystroem(gamma=0.08, n_components=1000, random_state=0),
                AveragedPerceptron(max_epochs=10)),
            "RBFSampler 2000 + AveragedPerceptron 10 ep": lambda: make_pipeline(
                RBFSampler(gamma=0.08, n_components=2000, random_state=0),
                AveragedPerceptron(max_epochs=10)),
            **dual,
        }
        results.append(against(f"a9a {n:,} rows, rbf gamma 0.08: dual or feature map",
                               models, next(iter(models)), (X[rows], y[rows]), test, rounds))
    return results


def with_block(block: int, make):
    """A factory whose fit computes Gram rows ``block`` at a time (1: the one-row path)."""
    from halfspaces._kernel.gram import GramRows

    def fit_with_block(X, y):
        defaults = GramRows.__init__.__kwdefaults__
        kept, defaults["block"] = defaults["block"], block
        try:
            return make().fit(X, y)
        finally:
            defaults["block"] = kept

    return lambda: type("Blocked", (), {"fit": staticmethod(fit_with_block)})()


def issue14_gram(rounds: int) -> list[dict]:
    """Gram rows one at a time against blocks of 16, the last hypothesis (the same run)."""
    train, test = a9a_subset(10_000)
    results = []
    for epochs, cache in [(1, 1000), (10, 1000), (10, 200)]:
        make = partial(KernelPerceptron, kernel="rbf", gamma=0.08, max_epochs=epochs,
                       cache_size=cache)
        models = {"rows one at a time": with_block(1, make),
                  "blocks of 16": with_block(16, make)}
        results.append(against(f"a9a 10,000 rows, rbf, {epochs} epochs, cache {cache} MB: "
                               "Gram rows", models, "rows one at a time", train, None, rounds))
    return results


def issue14(sections: list[str], rounds: int, epochs_list, selection: str = "cyclic",
            margin: float | None = None, margin_epochs: int = 20,
            seeds=(0,)) -> list[dict]:
    print(f"{load_note()}; numba threads {numba.get_num_threads()}")
    warm_up()
    results = []
    if "gram" in sections:
        results += issue14_gram(rounds)
    if "a9a" in sections:
        results.append(issue14_a9a(rounds, epochs_list))
    if "mnist" in sections:
        results += issue14_mnist(rounds, max(epochs_list), selection, margin, margin_epochs,
                                 seeds)
    if "scale" in sections:
        results += issue14_scale(rounds)
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small sizes, a smoke test")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--json", help="also write the results to this file")
    parser.add_argument("--models-only", action="store_true",
                        help="only the every---model cases on a9a")
    parser.add_argument("--dual", action="store_true",
                        help="also time the dual loop with the linear kernel once (slow)")
    parser.add_argument("--issue14", nargs="?", const="gram,a9a,mnist,scale",
                        help="only issue 14's cases (comma-separated: gram, a9a, mnist, "
                             "scale)")
    parser.add_argument("--selection", default="cyclic", choices=["cyclic", "shuffle"],
                        help="the order of the MNIST cases' passes (shuffle: seed 0)")
    parser.add_argument("--epochs", default="1,3,10",
                        help="epochs of the issue-14 a9a cases (the largest for MNIST)")
    parser.add_argument("--margin", type=float, default=None,
                        help="MNIST: also the averaged and voted forms with this margin, "
                             "shuffled, averaged or voted over the second half of the passes")
    parser.add_argument("--margin-epochs", type=int, default=20,
                        help="the passes of the --margin cases (burn-in: half of them)")
    parser.add_argument("--seeds", default="0",
                        help="the random_state of each --margin case (comma-separated)")
    args = parser.parse_args()
    print(f"machine: {machine()}")
    if args.issue14:
        epochs = [int(e) for e in args.epochs.split(",")]
        seeds = [int(seed) for seed in args.seeds.split(",")]
        dump(issue14(args.issue14.split(","), args.rounds, epochs, args.selection,
                     args.margin, args.margin_epochs, seeds), args.json)
        return
    n, rounds = (1_000, 1) if args.quick else (10_000, args.rounds)
    results = model_benches(rounds, args.dual)
    if not args.models_only:
        results += kernel_benches(n, rounds) + multiclass_benches(rounds)
    dump(results, args.json)


if __name__ == "__main__":
    main()
