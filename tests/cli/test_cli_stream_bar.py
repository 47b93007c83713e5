"""The progress bars of ``halfspaces fit``. ``--stream``: the epoch, the examples, and for a
regular file the bytes read with the time left; a pipe keeps the count alone. The 0-1 MILP:
its incumbent, bound and gap.

The bar is drawn on a stand-in terminal (a string buffer that says it is a TTY) and its
text is read back, colours removed; no test waits for a refresh or measures a time.
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import sys
import threading

import numpy as np
import pytest

from halfspaces.cli import _output, main
from halfspaces.io import iter_chunks, watch_reads

ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


class Terminal(io.StringIO):
    def isatty(self):
        return True


@pytest.fixture
def screen(monkeypatch):
    """Call it in the test (pytest's capture puts its own stderr back after fixtures) to
    draw on a stand-in terminal; it returns what was drawn, colours removed."""

    def install():
        terminal = Terminal()
        monkeypatch.setattr(sys, "stderr", terminal)
        monkeypatch.setenv("COLUMNS", "200")
        return lambda: ANSI.sub("", terminal.getvalue())

    return install


class HalfRead:
    """A ReadMeter of a 1,000-byte file read half way."""

    size = 1000

    def __init__(self):
        self.restarts = 0

    def position(self):
        return 500

    def restart(self):
        self.restarts += 1


def test_a_sized_bar_shows_the_epoch_the_bytes_of_all_passes_and_the_time_left(screen):
    screen = screen()
    meter = HalfRead()
    with _output.stream_progress("training", True, epochs=3, meter=meter) as bar:
        bar.epoch(2, 3)
        bar.examples(20_000)
        bar.examples(1)
    text = screen()
    assert "training, epoch 2 of 3" in text
    assert "1.5/3.0 kB" in text  # one pass of 1,000 bytes done, half of the second
    assert "eta" in text and "20,001 examples" in text
    assert meter.restarts == 2  # each pass reads the file again from its start


def test_an_unsized_bar_counts_examples_with_the_epoch_and_no_bytes(screen):
    screen = screen()
    with _output.stream_progress("training", True, epochs=4, meter=None) as bar:
        bar.epoch(3, 4)
        bar.examples(7)
    text = screen()
    assert "training, epoch 3 of 4" in text and "7 examples" in text
    assert "kB" not in text and "eta" not in text


def test_no_bar_without_a_terminal(monkeypatch):
    monkeypatch.setattr(sys, "stderr", io.StringIO())
    with _output.stream_progress("training", True, epochs=2, meter=HalfRead()) as bar:
        bar.epoch(1, 2)
        bar.examples(3)
    assert sys.stderr.getvalue() == ""


def labelled_csv(path, n=400):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(n, 3)).round(3)
    y = np.where(X[:, 0] > 0, 1, -1)
    lines = ["label,a,b,c"] + [f"{t},{a},{b},{c}" for t, (a, b, c) in zip(y, X, strict=True)]
    path.write_text("\n".join(lines) + "\n")
    return path.stat().st_size


def run_fit(*args):
    with contextlib.redirect_stdout(io.StringIO()), pytest.raises(SystemExit) as ended:
        main(["fit", *args])
    assert ended.value.code in (0, None)


def test_fit_stream_on_a_file_shows_its_epochs_and_bytes(screen, tmp_path):
    screen = screen()
    size = labelled_csv(tmp_path / "d.csv")
    run_fit(str(tmp_path / "d.csv"), "--stream", "--chunk-size", "50", "--epochs", "2",
            "--out", str(tmp_path / "m.hs"), "--no-train-score")
    text = screen()  # its last state is drawn as it closes; earlier ones, as time allows
    assert "training, epoch 2 of 2" in text
    total = f"{2 * size / 1000:.1f}"
    assert f"{total}/{total} kB" in text  # both passes read to the end
    assert "800 examples" in text


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs named pipes")
def test_fit_stream_from_a_pipe_keeps_the_count_only_bar(screen, tmp_path):
    screen = screen()
    source = tmp_path / "source.csv"
    labelled_csv(source)
    fifo = tmp_path / "pipe.csv"
    os.mkfifo(fifo)
    writer = threading.Thread(target=lambda: fifo.write_bytes(source.read_bytes()))
    writer.start()
    try:
        run_fit(str(fifo), "--stream", "--chunk-size", "50", "--epochs", "2",
                "--out", str(tmp_path / "m.hs"), "--no-train-score")
    finally:
        writer.join(timeout=30)
    text = screen()
    assert "training, epoch 2 of 2" in text and "800 examples" in text
    assert "kB" not in text and "eta" not in text


def test_a_read_meter_follows_the_readers_through_the_file(tmp_path):
    path = tmp_path / "big.csv"
    size = labelled_csv(path, n=20_000)
    seen = []
    with watch_reads(path) as meter:
        assert meter.size == size
        for _ in iter_chunks(path, chunk_size=1000):
            seen.append(meter.position())
        meter.restart()
        assert meter.position() == 0
    assert seen == sorted(seen) and 0 < seen[0] < size and seen[-1] == size


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs named pipes")
def test_a_pipe_has_no_read_meter(tmp_path):
    fifo = tmp_path / "pipe.csv"
    os.mkfifo(fifo)
    with watch_reads(fifo) as meter:
        assert meter is None
    with watch_reads(tmp_path / "missing.csv") as meter:
        assert meter is None


def test_the_milp_bar_shows_its_incumbent_bound_and_gap_not_a_count(screen):
    # it showed a spinner and "0/?": the 0-1 MILP counts no epochs
    from halfspaces._utils.progress import status

    screen = screen()
    with _output.progress("fitting zero-one", None, True):
        status("incumbent 12 errors, bound 9.4, gap 21.7%")
    text = screen()
    assert "fitting zero-one" in text and "incumbent 12 errors, bound 9.4, gap 21.7%" in text
    assert "0/?" not in text


def test_a_loop_that_counts_still_shows_its_count(screen):
    from halfspaces._utils.progress import report

    screen = screen()
    with _output.progress("fitting averaged", None, True):
        report(3, 10)
    assert "3/10" in screen()
