"""SIGTERM and SIGHUP end a ``halfspaces`` process the way Ctrl-C does: as an exception in
the main thread, so that what a command is doing is undone on the way out (an output's
temporary file is removed by :func:`halfspaces.io.safe_write`, a Dask cluster is closed);
then the process ends by the same signal, so that its parent sees what ended it.

By default both signals kill a Python process on the spot, leaving a half-written
``.model.hs.XXXX.tmp`` beside the output. Only the process entry point
(:func:`halfspaces.cli.run`) installs the handlers: a library caller keeps its own. A signal
that is ignored (``nohup`` ignores SIGHUP) stays ignored. A second signal of the same kind
during the clean-up ends the process at once.
"""

from __future__ import annotations

import os
import signal

__all__ = ["Signalled", "end_by", "install"]

_SIGNALS = tuple(getattr(signal, name) for name in ("SIGTERM", "SIGHUP")
                 if hasattr(signal, name))


class Signalled(SystemExit):
    """Raised in the main thread by SIGTERM or SIGHUP. A :class:`SystemExit`, so that the
    ``except Exception`` of the command line lets it through, as it lets Ctrl-C's
    :class:`KeyboardInterrupt` through."""

    def __init__(self, signum: int) -> None:
        super().__init__(128 + signum)
        self.signum = signum


def install() -> None:
    """Turn SIGTERM and SIGHUP into :class:`Signalled`, where they have their default action."""
    for signum in _SIGNALS:
        if signal.getsignal(signum) is signal.SIG_DFL:
            signal.signal(signum, _raise)


def _raise(signum: int, frame) -> None:
    signal.signal(signum, signal.SIG_DFL)  # a second one ends the clean-up
    raise Signalled(signum)


def end_by(signum: int) -> None:
    """End this process by `signum`, with the signal's default action (after the clean-up)."""
    signal.signal(signum, signal.SIG_DFL)
    os.kill(os.getpid(), signum)
