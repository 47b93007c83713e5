"""Progress of long loops (epochs, solver iterations), reported to whoever listens.

Estimators take no progress parameter: the loops call :func:`report` and a caller that
wants to show progress (the CLI's Rich bar, a notebook) wraps the fit in :func:`listen`.
With no listener a report costs one context-variable lookup.
"""

from __future__ import annotations

import contextlib
import contextvars
from collections.abc import Callable, Iterator

Listener = Callable[[int, "int | None"], None]

_listener: contextvars.ContextVar[Listener | None] = contextvars.ContextVar(
    "halfspaces_progress", default=None
)

StatusListener = Callable[[str], None]

_status_listener: contextvars.ContextVar[StatusListener | None] = contextvars.ContextVar(
    "halfspaces_progress_status", default=None
)


def report(done: int, total: int | None) -> None:
    """Tell the listener, if any, that ``done`` of ``total`` steps of a loop are complete."""
    listener = _listener.get()
    if listener is not None:
        listener(done, total)


@contextlib.contextmanager
def listen(listener: Listener) -> Iterator[None]:
    """Within the block, ``listener(done, total)`` hears every :func:`report`.

    Examples
    --------
    >>> import numpy as np
    >>> from halfspaces import Perceptron
    >>> heard = []
    >>> with listen(lambda done, total: heard.append((done, total))):
    ...     _ = Perceptron(max_epochs=5).fit(np.array([[1.0], [-1.0]]), [1, 0])
    >>> heard
    [(1, 5), (2, 5)]
    """
    token = _listener.set(listener)
    try:
        yield
    finally:
        _listener.reset(token)


def status(text: str) -> None:
    """Tell the status listener, if any, where a loop without a count stands (a MILP's
    incumbent, bound and gap)."""
    listener = _status_listener.get()
    if listener is not None:
        listener(text)


def hears_status() -> bool:
    """Whether a status listener is listening (so that a solver need not gather its
    figures for nobody)."""
    return _status_listener.get() is not None


@contextlib.contextmanager
def listen_status(listener: StatusListener) -> Iterator[None]:
    """Within the block, ``listener(text)`` hears every :func:`status`."""
    token = _status_listener.set(listener)
    try:
        yield
    finally:
        _status_listener.reset(token)
