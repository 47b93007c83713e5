"""The benchmark scripts still run: each one with a ``--quick`` mode, at small sizes.

Timings are not asserted (the machine is shared and noisy; see benchmarks/RESULTS.md); this
only keeps the scripts from rotting as the library changes under them.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"
QUICK = sorted(p for p in BENCHMARKS.glob("bench_*.py") if "--quick" in p.read_text())


@pytest.mark.parametrize("script", QUICK, ids=lambda p: p.stem)
def test_benchmark_runs_quick(script):
    done = subprocess.run([sys.executable, str(script), "--quick", "--rounds", "1"],
                          capture_output=True, text=True, timeout=300, cwd=BENCHMARKS)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "ratio" in done.stdout or "/" in done.stdout
