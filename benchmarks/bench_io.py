"""Data files: svmlight parse throughput, streaming training throughput and peak memory.

* Parse: ``halfspaces.io.read_svmlight`` (a compiled parser plus our checks: finite
  values, index base, line-numbered errors) and ``iter_chunks`` against scikit-learn's
  ``load_svmlight_file`` on the same file, interleaved rounds, MB/s.
* Streaming: ``halfspaces fit BIG --stream --model averaged`` (a fresh process, as users run
  it) on a ~150 MB file: examples/s and the peak RSS of the whole process; the library call
  ``fit_stream`` alone; and Vowpal Wabbit (``pip install vowpalwabbit``; one online pass,
  hinge loss, its own C++ parser) on the same data in VW's text format, when it is installed.

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
from halfspaces.cli import main
try:
    main(sys.argv[1:])
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


def bench_stream(big: Path, rows: int, vw_file: Path | None) -> dict:
    report = {"file_mb": round(big.stat().st_size / 1e6, 1), "rows": rows}
    seconds, result = run_child(CLI, "fit", str(big), "--stream", "--model", "averaged",
                                "--chunk-size", "10000", "--json", "--quiet")
    fit = json.loads(result.stdout)
    peak = json.loads(result.stderr.strip().splitlines()[-1])["peak_rss"]
    report["cli"] = {"wall_s": round(seconds, 2), "fit_s": round(fit["fit_time_s"], 2),
                     "examples_per_s_fit": round(rows / fit["fit_time_s"]),
                     "examples_per_s_wall": round(rows / seconds),
                     "peak_rss_mb": round(peak / 1e6, 1),
                     "train_accuracy": round(fit["train_accuracy"], 4)}
    _, result = run_child(LIBRARY_ONLY, str(big))
    lib = json.loads(result.stdout)
    report["fit_stream"] = {"seconds": round(lib["seconds"], 2),
                            "examples_per_s": round(lib["n_seen"] / lib["seconds"]),
                            "peak_rss_mb": round(lib["peak_rss"] / 1e6, 1)}
    if vw_file is not None:
        _, result = run_child(VW, str(vw_file))
        vw = json.loads(result.stdout)
        report["vowpalwabbit"] = {"seconds": round(vw["seconds"], 2),
                                  "examples_per_s": round(rows / vw["seconds"]),
                                  "peak_rss_mb": round(vw["peak_rss"] / 1e6, 1)}
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
        stream = bench_stream(big, rows, vw_file)
    print(json.dumps({"machine": f"{platform.processor() or platform.machine()}, "
                      f"{os.cpu_count()} cores, Python {platform.python_version()}",
                      "parse": parse, "stream": stream}, indent=2))


if __name__ == "__main__":
    main()
