"""Judge named mutants against a chosen test selection, outside mutmut's runner.

mutmut runs a mutant against every selected test that executes the mutated function. For
the exact modules, which nearly every exact and theory test reaches, a mutant that survives
costs minutes (8 minutes for each of ``highs.solve``'s). This script runs
``pytest -x`` on the tests you name, once per mutant, each in a fresh process. The mutated
copy ``mutants/src`` comes first on the path, and ``MUTANT_UNDER_TEST`` selects the mutant
in mutmut's trampolines.

    python tools/mutant_check.py --tests tests/exact/test_exact.py::test_x [--record] NAME...
    python tools/mutant_check.py --tests tests/exact/test_exact.py -k min_norm --jobs 2 ...

``-k`` passes pytest's keyword expression; ``--jobs`` judges that many mutants at once (one
pytest process each; the verdicts are written by the main process, one at a time).

``--record`` writes each kill and each timeout into mutmut's own records
(``mutants/**/*.py.meta``), so that ``mutmut results`` and ``tools/mutation_score.py``
count them. A mutant the chosen tests do not kill keeps mutmut's verdict: a narrower
selection cannot prove that a mutant survives the whole selection. One that has no verdict
yet ("not checked") is recorded as survived: once run, it is not left out of the score.

``mutants/`` must hold the current source: any ``mutmut run`` regenerates it. The script
refuses to judge a module whose source is newer than its mutated copy.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import fnmatch
import json
import os
import signal
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MUTANTS = ROOT / "mutants"
KILLED, TIMEOUT = 1, 36  # mutmut's exit codes for "killed" and "timeout"
RUNNING: set[subprocess.Popen] = set()  # the pytest runs under way, killed when we stop


def records() -> dict[str, Path]:
    """Each mutant's name -> the .meta file that holds its verdict."""
    found = {}
    for meta in (MUTANTS / "src").rglob("*.py.meta"):
        for name in json.loads(meta.read_text())["exit_code_by_key"]:
            found[name] = meta
    return found


def check_fresh(meta: Path) -> None:
    mutated = meta.with_suffix("")  # x.py.meta -> x.py
    source = ROOT / mutated.relative_to(MUTANTS)
    if source.stat().st_mtime > mutated.stat().st_mtime:
        sys.exit(f"{source} changed after mutmut copied it: run `mutmut run` on one of its "
                 "mutants first, so that mutants/ holds the current code.")


def judge(name: str, tests: list[str], timeout: float, keyword: str | None = None) -> int:
    """pytest's exit code with mutant `name` active (TIMEOUT when it ran out of time)."""
    env = dict(os.environ, MUTANT_UNDER_TEST=name,
               PYTHONPATH=os.pathsep.join([str(MUTANTS / "src"), os.environ.get("PYTHONPATH", "")]))
    # fork-safe threading for Numba, as tools/mutation.sh sets it for mutmut
    env.setdefault("NUMBA_THREADING_LAYER", "workqueue")
    select = ["-k", keyword] if keyword else []
    with subprocess.Popen([sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider",
                           *select, *tests], cwd=ROOT, env=env, stdout=subprocess.DEVNULL,
                          stderr=subprocess.DEVNULL) as run:
        RUNNING.add(run)
        try:
            return run.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            run.kill()
            return TIMEOUT
        finally:
            RUNNING.discard(run)


def verdict_of(meta: Path, name: str) -> int | None:
    """mutmut's exit code on record for `name` (None: not checked)."""
    return json.loads(meta.read_text())["exit_code_by_key"].get(name)


def record(meta: Path, verdicts: dict[str, int]) -> None:
    data = json.loads(meta.read_text())
    data["exit_code_by_key"].update(verdicts)
    meta.write_text(json.dumps(data, indent=4))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("names", nargs="+", help="mutant names or globs (fnmatch)")
    parser.add_argument("--tests", action="append", required=True,
                        help="a pytest file or node id; repeat for several")
    parser.add_argument("--record", action="store_true",
                        help="write kills and timeouts into mutmut's records")
    parser.add_argument("--timeout", type=float, default=300.0,
                        help="seconds per mutant before it counts as a timeout")
    parser.add_argument("-k", dest="keyword", help="pytest's keyword expression")
    parser.add_argument("--jobs", type=int, default=1, help="mutants judged at once")
    args = parser.parse_args()
    # stopped by a signal: raise SystemExit in the main thread, whose `finally` kills the runs
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    known = records()
    names = sorted({n for pattern in args.names for n in fnmatch.filter(known, pattern)})
    if not names:
        sys.exit(f"no mutant matches {args.names}")
    for meta in {known[n] for n in names}:
        check_fresh(meta)
    caught = 0
    pool = concurrent.futures.ThreadPoolExecutor(max(args.jobs, 1))
    running = {pool.submit(judge, name, args.tests, args.timeout, args.keyword): name
               for name in names}
    try:
        for future in concurrent.futures.as_completed(running):
            name, code = running[future], future.result()
            # pytest: 1 a test failed, 3 an internal error (mutmut counts both as kills); 2
            # and 4 (interrupted, usage) say nothing about the mutant, nor does a crash by
            # a signal
            verdict = {0: "survived", 1: "killed", 3: "killed", TIMEOUT: "timeout"}.get(
                code, f"not judged (pytest exit code {code})")
            print(f"{name}: {verdict}", flush=True)
            if verdict in ("killed", "timeout"):
                caught += 1
                if args.record:  # at once, so that an interrupted check keeps what it found
                    record(known[name], {name: TIMEOUT if code == TIMEOUT else KILLED})
            elif (verdict == "survived" and args.record
                  and verdict_of(known[name], name) is None):
                record(known[name], {name: 0})  # no verdict yet: surviving some tests is a miss
    finally:
        # stopped (SIGTERM, Ctrl-C) or done: no new run starts, the ones under way are killed
        # (a pool left to finish its queue kept judging, unrecorded, for 20 minutes)
        pool.shutdown(wait=False, cancel_futures=True)
        for run in list(RUNNING):
            run.kill()
    print(f"{caught} of {len(names)} caught", file=sys.stderr)


if __name__ == "__main__":
    main()
