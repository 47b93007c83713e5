"""Data files: svmlight parse throughput, streaming training throughput and peak memory.

* Parse: ``halfspaces.io.read_svmlight`` (a compiled parser plus our checks: finite
  values, index base, line-numbered errors) and ``iter_chunks`` against scikit-learn's
  ``load_svmlight_file`` on the same file, interleaved rounds, MB/s.
* Streaming: ``halfspaces fit BIG --stream --model averaged`` (a fresh process, as users run
  it) on a ~150 MB file: examples/s and the peak RSS of the whole process; the library call
  ``fit_stream`` alone; and Vowpal Wabbit (``pip install vowpalwabbit``; one online pass,
  hinge loss, its own C++ parser) on the same data in VW's text format, when it is installed.
  Rounds are interleaved; ``over_vw`` gives VW's time over ours, round by round (median):
  the training pass (``fit_stream``), the CLI's fit time, and the whole command's wall time.

The files are generated under /tmp from the bundled a9a (its text repeated), and removed at
the end. Run: ``python benchmarks/bench_io.py [--size-mb 150]``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPEATS_PARSE = 10  # a9a text x 10: ~36 MB for the parse benchmark


def a9a_text() -> bytes:
    from halfspaces.datasets._a9a import _a9a_bytes

    return _a9a_bytes()


def write_repeated(path: Path, text: bytes, repeats: int) -> int:
    """Write `text` `repeats` times; return the number of rows."""
    with open(path, "wb") as handle:
        for _ in range(repeats):
            handle.write(text)
    return repeats * text.count(b"\n")


def to_vw(text: bytes) -> bytes:
    """svmlight lines -> VW text lines: ``label | index:value ...``."""
    out = []
    for line in text.splitlines():
        label, _, rest = line.partition(b" ")
        out.append(b"%s | %s" % (b"1" if float(label) > 0 else b"-1", rest))
    return b"\n".join(out) + b"\n"


def bench_parse(path: Path, rounds: int = 3) -> dict:
    import numpy as np
    from sklearn.datasets import load_svmlight_file

    from halfspaces.io import iter_chunks, read_svmlight

    def chunks():
        for _ in iter_chunks(path, chunk_size=10_000, n_features=123):
            pass

    cases = {"sklearn load_svmlight_file": lambda: load_svmlight_file(str(path),
                                                                      dtype=np.float64),
             "halfspaces.io.read_svmlight": lambda: read_svmlight(path),
             "halfspaces.io.iter_chunks (10,000 rows)": chunks}
    times = {name: [] for name in cases}
    names = list(cases)
    for r in range(rounds):
        for name in names[r % 3:] + names[:r % 3]:
            start = time.perf_counter()
            cases[name]()
            times[name].append(time.perf_counter() - start)
    size_mb = path.stat().st_size / 1e6
    medians = {name: statistics.median(t) for name, t in times.items()}
    reference = times["sklearn load_svmlight_file"]
    return {
        "file_mb": round(size_mb, 1),
        "seconds": {k: round(v, 3) for k, v in medians.items()},
        "mb_per_s": {k: round(size_mb / v, 1) for k, v in medians.items()},
        "ours_over_sklearn_throughput": {
            k: round(statistics.median(a / b for a, b in zip(reference, times[k], strict=True)), 3)
            for k in names[1:]},
    }


PEAK = r"""
def peak_rss():  # this process's own peak RSS; ru_maxrss would include the parent's
    with open("/proc/self/status") as handle:
        return next(int(l.split()[1]) * 1024 for l in handle if l.startswith("VmHWM:"))
"""

CLI = PEAK + r"""
import json, sys
from halfspaces.cli import run  # the console script's entry point, as a user runs it
sys.argv = ["halfspaces", *sys.argv[1:]]
try:
    run()
except SystemExit:
    pass
print(json.dumps({"peak_rss": peak_rss()}), file=sys.stderr)
"""

LIBRARY_ONLY = PEAK + r"""
import json, sys, time
import halfspaces
from halfspaces.io import fit_stream
start = time.perf_counter()
run = fit_stream(halfspaces.AveragedPerceptron(), sys.argv[1], chunk_size=10_000)
seconds = time.perf_counter() - start
print(json.dumps({"seconds": seconds, "n_seen": run.n_seen, "peak_rss": peak_rss()}))
"""

VW = PEAK + r"""
import json, sys, time
from vowpalwabbit import pyvw
start = time.perf_counter()
vw = pyvw.Workspace(f"-d {sys.argv[1]} --loss_function hinge -b 18 --quiet")
vw.run_parser()
vw.finish()
print(json.dumps({"seconds": time.perf_counter() - start, "peak_rss": peak_rss()}))
"""


def run_child(code: str, *args: str) -> tuple[float, subprocess.CompletedProcess]:
    start = time.perf_counter()
    result = subprocess.run([sys.executable, "-c", code, *args], capture_output=True,
                            text=True, check=True)
    return time.perf_counter() - start, result


def bench_stream(big: Path, rows: int, vw_file: Path | None, rounds: int = 3) -> dict:
    """Interleaved rounds of the CLI, the library call and VW; medians, and ratios to VW
    (ours over VW's examples/s: above 1 is faster) taken round by round."""
    runs: dict[str, list[dict]] = {"cli": [], "fit_stream": [], "vowpalwabbit": []}
    for _ in range(rounds):
        seconds, result = run_child(CLI, "fit", str(big), "--stream", "--model", "averaged",
                                    "--chunk-size", "10000", "--json", "--quiet")
        fit = json.loads(result.stdout)
        peak = json.loads(result.stderr.strip().splitlines()[-1])["peak_rss"]
        runs["cli"].append({"wall_s": seconds, "fit_s": fit["fit_time_s"], "peak_rss": peak,
                            "train_accuracy": fit["train_accuracy"]})
        _, result = run_child(LIBRARY_ONLY, str(big))
        lib = json.loads(result.stdout)
        runs["fit_stream"].append({"seconds": lib["seconds"], "peak_rss": lib["peak_rss"]})
        if vw_file is not None:
            wall, result = run_child(VW, str(vw_file))
            vw = json.loads(result.stdout)
            runs["vowpalwabbit"].append({"seconds": vw["seconds"], "wall_s": wall,
                                         "peak_rss": vw["peak_rss"]})

    def median(name, key):
        return statistics.median(r[key] for r in runs[name])

    report = {"file_mb": round(big.stat().st_size / 1e6, 1), "rows": rows, "rounds": rounds}
    report["cli"] = {"wall_s": round(median("cli", "wall_s"), 2),
                     "fit_s": round(median("cli", "fit_s"), 2),
                     "examples_per_s_fit": round(rows / median("cli", "fit_s")),
                     "examples_per_s_wall": round(rows / median("cli", "wall_s")),
                     "peak_rss_mb": round(median("cli", "peak_rss") / 1e6, 1),
                     "train_accuracy": round(runs["cli"][0]["train_accuracy"], 4)}
    report["fit_stream"] = {"seconds": round(median("fit_stream", "seconds"), 2),
                            "examples_per_s": round(rows / median("fit_stream", "seconds")),
                            "peak_rss_mb": round(median("fit_stream", "peak_rss") / 1e6, 1)}
    if vw_file is not None:
        report["vowpalwabbit"] = {
            "seconds": round(median("vowpalwabbit", "seconds"), 2),
            "wall_s": round(median("vowpalwabbit", "wall_s"), 2),
            "examples_per_s": round(rows / median("vowpalwabbit", "seconds")),
            "peak_rss_mb": round(median("vowpalwabbit", "peak_rss") / 1e6, 1)}

        vw_runs = runs["vowpalwabbit"]
        report["over_vw"] = {
            # training pass: fit_stream's examples/s over VW's (in-process seconds both)
            "training_pass": round(statistics.median(
                v["seconds"] / o["seconds"] for o, v in zip(runs["fit_stream"], vw_runs,
                                                            strict=True)), 3),
            # the CLI's fit time (the training passes only) over VW's single pass
            "cli_fit": round(statistics.median(
                v["seconds"] / o["fit_s"] for o, v in zip(runs["cli"], vw_runs, strict=True)), 3),
            # whole commands, process start to exit: VW's wall time over ours
            "cli_wall": round(statistics.median(
                v["wall_s"] / o["wall_s"] for o, v in zip(runs["cli"], vw_runs, strict=True)), 3),
        }
    return report


def has_vw() -> bool:
    try:
        import vowpalwabbit  # noqa: F401
    except ImportError:
        return False
    return True


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size-mb", type=float, default=150.0)
    parser.add_argument("--rounds", type=int, default=3)
    options = parser.parse_args()
    text = a9a_text()
    with tempfile.TemporaryDirectory(dir="/tmp", prefix="bench_io_") as folder:
        folder = Path(folder)
        parse_file = folder / "parse.svm"
        write_repeated(parse_file, text, REPEATS_PARSE)
        parse = bench_parse(parse_file, options.rounds)
        parse_file.unlink()
        big = folder / "big.svm"
        repeats = max(1, round(options.size_mb * 1e6 / len(text)))
        rows = write_repeated(big, text, repeats)
        vw_file = None
        if has_vw():
            vw_file = folder / "big.vw"
            write_repeated(vw_file, to_vw(text), repeats)
        stream = bench_stream(big, rows, vw_file, options.rounds)
    print(json.dumps({"machine": f"{platform.processor() or platform.machine()}, "
                      f"{os.cpu_count()} cores, Python {platform.python_version()}",
                      "parse": parse, "stream": stream}, indent=2))


if __name__ == "__main__":
    main()
