"""Run risky calls in a child interpreter, so that a crash fails one test, not pytest.

The compiled loops have no bounds checks: a regression in a check that keeps inconsistent
sizes away from them reads or writes out of bounds, and that kills the process (signal 11)
rather than raising. Tests of those checks run the risky call here.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import halfspaces

# the child imports the halfspaces under test, wherever this process found it
SOURCE = str(Path(halfspaces.__file__).resolve().parents[1])


def run_child(*parts: str, timeout: float = 300) -> str:
    """Run the script made of `parts` (each dedented) in a new Python, warnings ignored;
    return its stdout, asserting that it exited cleanly (a child costs seconds of imports,
    so a test puts all its calls in one)."""
    script = "\n".join(textwrap.dedent(part) for part in parts)
    path = os.pathsep.join(p for p in (SOURCE, os.environ.get("PYTHONPATH")) if p)
    done = subprocess.run([sys.executable, "-W", "ignore", "-c", script],
                          capture_output=True, text=True, timeout=timeout,
                          env={**os.environ, "PYTHONPATH": path})
    assert done.returncode == 0, (
        f"the child exited with {done.returncode} (-11: a segfault)\n{done.stderr[-2000:]}")
    return done.stdout


def outcomes(setup: str, *calls: str) -> list[str]:
    """What each of ``calls`` does after ``setup``, in one child: "ExceptionName: message",
    or "returned"."""
    wrapped = ["try:\n" + textwrap.indent(textwrap.dedent(call), "    ")
               + "\nexcept Exception as error:\n"
               + "    print(f'{type(error).__name__}: {error}'.replace('\\n', ' '))"
               + "\nelse:\n    print('returned')\n" for call in calls]
    return run_child(setup, *wrapped).strip().splitlines()[-len(calls):]


REFUSED = """
def refused(call):
    try:
        call()
    except ValueError as exc:
        print("refused:", exc)
    else:
        print("accepted")
"""
"""A first part for :func:`run_child`: ``refused(lambda: ...)`` prints "refused: " and the
message of the ValueError raised, or "accepted"."""


@contextlib.contextmanager
def read_only_install(tmp_path: Path):
    """A copy of the package under test in ``tmp_path/site`` that nobody can write into, as
    a system-wide install is for its users: yields the folder to put on PYTHONPATH, and
    makes it writable again afterwards, so that tmp_path can be removed.

    Root writes through permission bits, so a file stands where the in-tree Numba cache
    folder (``_fast/__pycache__``) would go: that makes it just as unusable for root.
    """
    site = tmp_path / "site"
    shutil.copytree(Path(halfspaces.__file__).parent, site / "halfspaces",
                    ignore=shutil.ignore_patterns("__pycache__"))
    (site / "halfspaces" / "_fast" / "__pycache__").write_text("")
    for path in [site, *site.rglob("*")]:
        path.chmod(path.stat().st_mode & ~0o222)
    try:
        yield site
    finally:
        for path in [site, *site.rglob("*")]:
            path.chmod(path.stat().st_mode | 0o200)
