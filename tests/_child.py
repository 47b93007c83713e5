"""Run risky calls in a child interpreter, so that a crash fails one test, not pytest.

The compiled loops have no bounds checks: a regression in the checks in front of them is a
segmentation fault, which would kill the whole test run if it happened in-process.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import halfspaces

# the child imports the halfspaces under test, wherever this process found it
SOURCE = str(Path(halfspaces.__file__).resolve().parents[1])


def outcomes(setup: str, *calls: str) -> list[str]:
    """What each of ``calls`` does after ``setup``, in one fresh interpreter (a child costs
    seconds of imports): "ExceptionName: message", or "returned". A child that dies (rc -11
    for a segmentation fault) fails the calling test with its return code and stderr."""
    code = [textwrap.dedent(setup)]
    for call in calls:
        code.append("try:\n" + textwrap.indent(textwrap.dedent(call), "    ")
                    + "\nexcept Exception as error:\n"
                    + "    print(f'{type(error).__name__}: {error}'.replace('\\n', ' '))"
                    + "\nelse:\n    print('returned')\n")
    path = os.pathsep.join(p for p in (SOURCE, os.environ.get("PYTHONPATH")) if p)
    result = subprocess.run([sys.executable, "-W", "ignore", "-c", "\n".join(code)],
                            capture_output=True, text=True, timeout=300,
                            env={**os.environ, "PYTHONPATH": path})
    assert result.returncode == 0, f"the child died (rc {result.returncode}):\n{result.stderr}"
    return result.stdout.strip().splitlines()[-len(calls):]
