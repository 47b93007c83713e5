"""Ctrl-C during ``halfspaces fit --dask local:N`` ends it as it ends a serial fit: exit 130
and one line, without asyncio's "Task exception was never retrieved ... AllExit" traceback
or the cluster's timestamped shutdown warnings.

The fit reads a named pipe on its worker, so it waits there for as long as the test likes:
the test sends the signal once the worker has opened the pipe (a writer's non-blocking
open succeeds only then), with the worker process alive; no sleep decides when.
"""

from __future__ import annotations

import errno
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytest.importorskip("distributed")

pytestmark = pytest.mark.skipif(not (hasattr(os, "mkfifo") and Path("/proc").is_dir()),
                                reason="needs named pipes and /proc")


def children(pid: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                found.append(int(entry.name))
    return found


def open_when_read(fifo: Path, process: subprocess.Popen, deadline: float) -> int:
    """The pipe's write end, once a reader holds it open (ENXIO until then)."""
    while time.monotonic() < deadline:
        try:
            return os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)
        except OSError as exc:
            if exc.errno != errno.ENXIO:
                raise
        if process.poll() is not None:
            pytest.fail(f"the fit ended before reading: {process.communicate()}")
        time.sleep(0.05)  # polling for the reader, not timing the fit
    pytest.fail("no worker opened the pipe")


def as_in_a_terminal():
    """A terminal's Ctrl-C reaches a process whose SIGINT is neither ignored nor blocked; the
    child would inherit either from the test process (in the whole suite SIGINT was ignored
    there: the signal never arrived, and the fit went on to the end of its one-row file),
    which is not what this test is about."""
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
    signal.signal(signal.SIGINT, signal.SIG_DFL)


@pytest.mark.parametrize("whole_group", [True, False], ids=["terminal", "process"])
def test_ctrl_c_during_a_dask_fit_is_one_line_and_exit_130(tmp_path, whole_group):
    fifo = tmp_path / "train.csv"
    os.mkfifo(fifo)
    env = {k: v for k, v in os.environ.items() if k != "HALFSPACES_DEBUG"}
    env.update(NO_COLOR="1", PYTHONPATH=os.pathsep.join(sys.path))
    process = subprocess.Popen(
        [sys.executable, "-m", "halfspaces", "fit", str(fifo), "--dask", "local:1"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
        start_new_session=True, preexec_fn=as_in_a_terminal)
    writer = None
    try:
        writer = open_when_read(fifo, process, time.monotonic() + 240)
        os.write(writer, b"label,a\n1,2\n")  # a first line, then the pipe stays open
        assert children(process.pid), "the cluster's worker is not running"
        if whole_group:  # a terminal's Ctrl-C reaches every process of the job
            os.killpg(process.pid, signal.SIGINT)
        else:
            process.send_signal(signal.SIGINT)
        # the pipe stays open while the command handles the interrupt: closed at once, the
        # worker's read could end first on a loaded machine, and the one-row file's fit fail
        # (exit 1) before the interrupt was handled; a worker still blocked in its read can
        # hold up the cluster's shutdown, so the pipe is closed if the command has not ended
        # once the interrupt has long been delivered
        try:
            _, err = process.communicate(timeout=20)
        except subprocess.TimeoutExpired:
            os.close(writer)
            writer = None
            _, err = process.communicate(timeout=120)
    finally:
        if writer is not None:
            os.close(writer)
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.communicate()
    assert process.returncode == 130, err
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1 and "interrupted" in lines[0], err
    assert "Traceback" not in err and "AllExit" not in err and "WARNING" not in err
