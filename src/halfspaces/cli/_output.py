"""The one output sink of the CLI: a Rich table for people, one JSON object for programs.

Results go to stdout; notes (e.g. a convergence warning) and errors go to stderr, so that
``--json`` output can always be piped into ``json.loads`` or ``jq``.
"""

from __future__ import annotations

import contextlib
import json
import math
import sys
import warnings
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any

from rich.console import Console
from rich.table import Table
from rich.text import Text

__all__ = ["StreamBar", "caught_warnings", "describe", "error", "grid", "note", "number",
           "progress", "render", "stream_progress"]

# errors whose message is meant for users (bad input, a file that cannot be read or written,
# and the library's own exceptions, see _library_errors); anything else is a bug in halfspaces
_EXPECTED = (ValueError, OSError)


def render(
    record: Mapping[str, Any],
    *,
    title: str,
    as_json: bool = False,
    labels: Mapping[str, str] | None = None,
) -> None:
    """Print `record` as one JSON object (`as_json`) or as a two-column Rich table.

    Parameters
    ----------
    record : mapping of str to JSON-serialisable values
        The result of a command, in display order.
    title : str
        The table's title (ignored for JSON).
    as_json : bool, default=False
        Print ``json.dumps(record)`` on one line instead of a table.
    labels : mapping of str to str or None, default=None
        Display names for keys; other keys are shown with underscores as spaces.
    """
    if as_json:
        # plain print, not Rich: Rich would wrap long lines and colour the JSON
        print(json.dumps(record, allow_nan=False))
        return
    labels = labels or {}
    # at least as wide as its title, which Rich folds at the table's width ("halfspaces
    # plot" above "regions" over a narrow table)
    table = Table(title=title, show_header=False, title_justify="left", min_width=len(title))
    # fold, never cut with an ellipsis: a path or a number cut short would mislead
    table.add_column(style="bold", overflow="fold")
    table.add_column(overflow="fold")
    for key, value in record.items():
        table.add_row(labels.get(key, key.replace("_", " ")), Text(_format(value)))
    Console().print(table)


def grid(rows: Sequence[Sequence[Any]], *, title: str, header: Sequence[str]) -> None:
    """Print a table with a header row (e.g. a confusion matrix) to stdout."""
    table = Table(title=title, title_justify="left", min_width=len(title))
    for name in header:
        table.add_column(Text(_printable(str(name))), justify="right", overflow="fold")
    for row in rows:
        table.add_row(*(Text(_format(value)) for value in row))
    Console().print(table)


@contextlib.contextmanager
def progress(description: str, total: int | None, enabled: bool, *,
             unit: str | None = None) -> Iterator[Callable[[int], None]]:
    """A Rich progress bar on stderr, shown only when `enabled` and stderr is a terminal.

    Yields a function to call with the amount of work done since the last call; with no
    `total` the bar is a spinner with the elapsed time until a library loop (epochs, solver
    iterations) reports its progress through :mod:`halfspaces._utils.progress`. With a
    `unit` (``"examples"``) it counts that work alone, with its rate and the elapsed time,
    and ignores the library's loops: a stream's partial_fit calls each report one epoch
    of one, which showed ``20001/1`` and stopped the clock.
    """
    if not (enabled and sys.stderr.isatty()):
        yield lambda advance: None
        return
    from rich.progress import (
        BarColumn,
        Progress,
        SpinnerColumn,
        TextColumn,
        TimeElapsedColumn,
    )

    if unit is not None:
        columns = [SpinnerColumn(), TextColumn("{task.description}"),
                   TextColumn("{task.completed:,.0f} " + unit),
                   TextColumn("{task.fields[rate]}"), TimeElapsedColumn()]
        with Progress(*columns, console=Console(stderr=True), transient=True) as bar:
            task = bar.add_task(description, total=total, rate="")

            def counted(advance: int) -> None:
                speed = bar.tasks[task].speed
                bar.update(task, advance=advance,
                           rate=f"({speed:,.0f} {unit}/s)" if speed else "")

            yield counted
        return
    # "{done}/{total}" as a field, empty until a loop counts: MofNCompleteColumn drew
    # "0/?" beside the spinner of the 0-1 MILP, whose progress is its incumbent and gap
    columns = [SpinnerColumn(), TextColumn("{task.description}"), BarColumn(),
               TextColumn("{task.fields[steps]}"), TextColumn("{task.fields[status]}"),
               TimeElapsedColumn()]
    from halfspaces._utils.progress import listen, listen_status

    with Progress(*columns, console=Console(stderr=True), transient=True) as bar:
        task = bar.add_task(description, total=total, steps="", status="")

        def loop_step(done: int, loop_total: int | None) -> None:
            # the epochs or solver iterations of an in-memory fit (one-vs-rest restarts them)
            bar.update(task, completed=done, total=loop_total,
                       steps=f"{done}/{'?' if loop_total is None else loop_total}")

        def solver_status(text: str) -> None:
            # a MILP's incumbent, bound and gap, as HiGHS reports them
            bar.update(task, status=text)

        def advanced(advance: int) -> None:
            bar.advance(task, advance)
            done = bar.tasks[task].completed
            bar.update(task, steps=f"{done:,.0f}/{'?' if total is None else total}")

        with listen(loop_step), listen_status(solver_status):
            yield advanced


class StreamBar:
    """What a streamed fit tells its bar: :meth:`examples` after each chunk, :meth:`epoch`
    when a pass begins (``fit_stream``'s ``on_progress`` and ``on_epoch``)."""

    def __init__(self, update: Callable[[int, int | None], None] | None = None) -> None:
        self._update = update

    def examples(self, count: int) -> None:
        """`count` more examples were trained on."""
        if self._update is not None:
            self._update(count, None)

    def epoch(self, k: int, epochs: int) -> None:
        """Pass `k` of `epochs` (from 1) begins."""
        if self._update is not None:
            self._update(0, k)


@contextlib.contextmanager
def stream_progress(description: str, enabled: bool, *, epochs: int,
                    meter: Any = None) -> Iterator[StreamBar]:
    """A Rich bar on stderr for a streamed fit: the epoch (k of `epochs`), the examples seen
    with their rate and the elapsed time; with a `meter` (a regular file's
    :class:`halfspaces.io.ReadMeter`) also the bytes read of all the passes, their rate
    and the time left. A pipe has no size: its bar counts examples only. Shown only when
    `enabled` and stderr is a terminal.
    """
    if not (enabled and sys.stderr.isatty()):
        yield StreamBar()
        return
    from rich.progress import (
        BarColumn,
        DownloadColumn,
        Progress,
        SpinnerColumn,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
        TransferSpeedColumn,
    )

    sized = meter is not None
    columns: list[Any] = [SpinnerColumn(), TextColumn("{task.description}")]
    if sized:
        columns += [BarColumn(), DownloadColumn(), TransferSpeedColumn(),
                    TextColumn("eta"), TimeRemainingColumn()]
    columns += [TextColumn("{task.fields[examples]}"), TimeElapsedColumn()]
    with Progress(*columns, console=Console(stderr=True), transient=True) as bar:
        task = bar.add_task(description, total=meter.size * epochs if sized else None,
                            examples="")
        state = {"epoch": 1, "seen": 0}

        def update(count: int, epoch: int | None) -> None:
            if epoch is not None:
                state["epoch"] = epoch
                if sized:
                    meter.restart()  # the new pass reads the file from its start
            state["seen"] += count
            elapsed = bar.tasks[task].elapsed or 0.0
            rate = f" ({state['seen'] / elapsed:,.0f} examples/s)" if elapsed > 0 else ""
            fields: dict[str, Any] = {
                "description": f"{description}, epoch {state['epoch']} of {epochs}",
                "examples": f"{state['seen']:,} examples{rate}"}
            if sized:
                fields["completed"] = (state["epoch"] - 1) * meter.size + meter.position()
            bar.update(task, **fields)

        update(0, 1)
        yield StreamBar(update)


@contextlib.contextmanager
def caught_warnings() -> Iterator[list[str]]:
    """Record the warnings raised inside: a list that gets each distinct message once, on exit.

    A ConvergenceWarning is the expected outcome on non-separable data (a perceptron fitted
    for a picture of a9a): a command reports it as a note, never as Python's warning dump
    with a file path and a source line.
    """
    messages: list[str] = []
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            yield messages
        finally:
            messages.extend(dict.fromkeys(str(w.message) for w in caught))


def note(messages: Iterable[str]) -> None:
    """Print each message as one yellow ``note:`` line on stderr."""
    console = Console(stderr=True)
    for message in messages:
        console.print(Text.assemble(("note: ", "yellow"), _one_line(message)), soft_wrap=True)


def error(message: str) -> None:
    """Print `message` as one red ``error:`` line on stderr."""
    line = Text.assemble(("error: ", "bold red"), (_one_line(message), "red"))
    Console(stderr=True).print(line, soft_wrap=True)  # soft_wrap: never break the line


def describe(exc: BaseException) -> str:
    """A one-line message for `exc`: its text for library errors, more context for bugs."""
    if isinstance(exc, _EXPECTED + _library_errors()):
        return str(exc) or type(exc).__name__
    if isinstance(exc, MemoryError):  # NumPy's says what it failed to allocate; Python's is empty
        return (f"out of memory{f' ({exc})' if str(exc) else ''}: free memory or give the "
                "command less data (fit --stream reads a file chunk by chunk)")
    return (
        f"internal error, {type(exc).__name__}: {exc} "
        "(set HALFSPACES_DEBUG=1 to see the traceback)"
    )


def _library_errors() -> tuple[type[BaseException], ...]:
    """The exceptions :mod:`halfspaces.exceptions` documents (e.g. ``SolverError``: HiGHS
    cannot decide), imported on the error path only: that module imports scikit-learn."""
    import halfspaces.exceptions as library

    found = (getattr(library, name) for name in library.__all__)
    return tuple(c for c in found if isinstance(c, type) and issubclass(c, Exception)
                 and not issubclass(c, Warning))


def _format(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return number(value)
    if isinstance(value, (list, tuple)):
        return ", ".join(_format(item) for item in value) or "-"
    return _printable(str(value))


def number(value: float) -> str:
    """Four decimals for ordinary magnitudes; six significant digits with an exponent from
    1e12 up and below 1e-4 (0 and inf/nan aside), where four decimals printed 1e200 as 201
    digits and 1e-200 as 0.0000."""
    size = abs(value)
    if 1e12 <= size < math.inf or 0.0 < size < 1e-4:
        return f"{value:.6g}"
    return f"{value:.4f}"


def _one_line(message: str) -> str:
    # scikit-learn's messages can span lines; the CLI promises one line per message
    return _printable(" ".join(str(message).split()))


def _printable(text: str) -> str:
    """`text` with every control or format character written as its escape (ESC as ``\\x1b``).

    File names and labels come from users' files: raw, an escape sequence in one would
    recolour, move the cursor or retitle the terminal (CWE-150), and a
    bidirectional override would show text other than what is there.
    """
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else ascii(c)[1:-1] for c in text)
