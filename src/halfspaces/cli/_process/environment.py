"""The process environment a command runs in, made safe before the command starts.

A shell can hand the program closed streams, a reader that goes away (``| head -1``), a
terminal width of 0 columns, an output encoding that cannot write a label, or a working
directory that was deleted. Each used to end in a traceback, an empty screen or a silent
loss of the results; :func:`prepared` turns each into a working run or one clear error:

* a closed standard error (``2>&-``) discards notes and errors instead of failing the
  command when it asks whether stderr is a terminal;
* a closed standard output (``>&-``) fails the first write of results with a message that
  says so, rather than a success (exit 0) whose results went nowhere;
* ``COLUMNS`` or typer's ``TERMINAL_WIDTH`` below :data:`MIN_COLUMNS` (Rich prints nothing
  at 0 columns, the error message included, and one character a line at 1) or above
  :data:`MAX_COLUMNS` (Rich allocates lines that wide: a ``MemoryError``) is clamped, and a
  ``TERMINAL_WIDTH`` that is not a number is dropped (typer's ``int()`` of it failed);
* text for people on a standard output whose encoding cannot write a file name or a label
  (``PYTHONIOENCODING=ascii``) is written with backslash escapes, as Python writes standard
  error, instead of failing after the work is done (the predictions themselves are data:
  ``predict`` writes them as UTF-8, as ``--out`` does);
* a deleted working directory is reported before anything starts
  (:func:`check_working_directory`): relative paths cannot be opened there, and Numba's
  compiler fails on it.

A reader that closes the pipe ends the command quietly with exit status 1, as Click does
for a pipe closed while the command writes: :func:`prepared` flushes standard output as it
ends, so that the caller can answer a :class:`BrokenPipeError` with
:func:`quiet_broken_pipe`.
"""

from __future__ import annotations

import contextlib
import io
import os
import sys
from collections.abc import Iterator

from halfspaces._utils.descriptors import point_at_null

__all__ = ["MAX_COLUMNS", "MIN_COLUMNS", "check_working_directory", "prepared",
           "quiet_broken_pipe"]

MIN_COLUMNS = 40
"""The narrowest table and help text drawn: the labels of the fit report and a number."""

MAX_COLUMNS = 10_000
"""The widest: Rich builds whole lines of the width it is given."""

_WIDTH_VARIABLES = ("COLUMNS", "TERMINAL_WIDTH")


@contextlib.contextmanager
def prepared() -> Iterator[None]:
    """Within the block, the process's streams, width and encoding are safe to use (see
    the module's notes); everything is restored on exit.

    """
    with _open_streams(), _sane_width(), _escaping_stdout():
        yield


def quiet_broken_pipe() -> None:
    """After a reader closed standard output: point descriptor 1 at the null device, so
    that the interpreter's final flush of what is still buffered fails no more (it printed
    "Exception ignored ... BrokenPipeError" and exited with 120)."""
    try:
        descriptor = sys.stdout.fileno()
    except (AttributeError, OSError, ValueError):  # not a real file (a test's StringIO)
        return
    point_at_null(descriptor)


def check_working_directory() -> None:
    """Raise OSError, saying so, when the working directory no longer exists."""
    try:
        os.getcwd()
    except FileNotFoundError:
        raise OSError("the current directory no longer exists (it was deleted or "
                      "moved); change to an existing directory and run the command "
                      "again") from None


class _Discarded(io.TextIOBase):
    """What a closed standard error becomes: notes and errors go nowhere, as the shell's
    ``2>&-`` asked; not a terminal."""

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        return len(text)


class _Closed(io.TextIOBase):
    """What a closed standard output becomes: the results have nowhere to go, so the first
    write of them fails, naming the fix."""

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        if not text:
            return 0
        raise OSError("standard output is closed, so the results cannot be printed; "
                      "redirect it to /dev/null to discard them")


@contextlib.contextmanager
def _open_streams() -> Iterator[None]:
    saved = sys.stdout, sys.stderr
    if sys.stdout is None:  # Python's value for a descriptor that was not open at start
        sys.stdout = _Closed()
    if sys.stderr is None:
        sys.stderr = _Discarded()
    try:
        yield
    finally:
        current = sys.stdout  # Click swaps in a wrapper when a write meets a closed pipe
        sys.stdout, sys.stderr = saved
        # what is still buffered goes now, while a closed pipe can be answered quietly
        # (at the interpreter's exit it printed "Exception ignored" and exited with 120)
        for stream in {id(s): s for s in (current, saved[0]) if s is not None}.values():
            stream.flush()


@contextlib.contextmanager
def _sane_width() -> Iterator[None]:
    saved = {name: os.environ.get(name) for name in _WIDTH_VARIABLES}
    for name, value in saved.items():
        width = _width(value)
        if value is not None and width is None and name == "TERMINAL_WIDTH":
            del os.environ[name]
        elif width is not None and not MIN_COLUMNS <= width <= MAX_COLUMNS:
            os.environ[name] = str(min(max(width, MIN_COLUMNS), MAX_COLUMNS))
    try:
        yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def _width(value: str | None) -> int | None:
    """A width variable's number; None when unset or not digits (Rich then ignores
    COLUMNS and asks the terminal)."""
    if value is None or not (value.isascii() and value.isdigit()):
        return None
    return int(value)


@contextlib.contextmanager
def _escaping_stdout() -> Iterator[None]:
    stream = sys.stdout
    errors = stream.errors if isinstance(stream, io.TextIOWrapper) else None
    if errors in ("strict", "surrogateescape"):
        stream.reconfigure(errors="backslashreplace")
    try:
        yield
    finally:
        if errors in ("strict", "surrogateescape"):
            with contextlib.suppress(OSError, ValueError):  # a pipe closed meanwhile
                stream.reconfigure(errors=errors)
