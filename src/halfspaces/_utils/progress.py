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
