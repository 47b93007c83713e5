"""Run a snippet in a fresh interpreter, so that a segfault fails a test instead of pytest.

The compiled loops run without bounds checks: a regression in a check that keeps
inconsistent sizes away from them reads or writes out of bounds, and that kills the process
(signal 11) rather than raising. Tests of those checks run the risky call here.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap


def run_child(*parts: str, timeout: float = 300) -> str:
    """Run the script made of `parts` (each dedented) in a new Python; return its stdout,
    asserting that it exited cleanly."""
    script = "\n".join(textwrap.dedent(part) for part in parts)
    done = subprocess.run([sys.executable, "-c", script],
                          capture_output=True, text=True, timeout=timeout)
    assert done.returncode == 0, (
        f"the child exited with {done.returncode} (-11: a segfault)\n{done.stderr[-2000:]}")
    return done.stdout


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
