"""The Dask worker preload of ``--dask local:N``: its worker processes leave Ctrl-C to the
command.

A terminal's Ctrl-C reaches every process of the job, the local cluster's workers
included. Each worker then died with its own KeyboardInterrupt traceback ("Process Dask
Worker process (from Nanny)") while the command, which shuts the cluster down on Ctrl-C,
was already ending. Ignored here, as the module is imported by the worker being set up in
its process's main thread, SIGINT is handled once, by the command.
"""

from __future__ import annotations

import signal
import threading

if threading.current_thread() is threading.main_thread():
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def dask_setup(worker) -> None:
    """Nothing more to do at the worker's start: importing this module was the setup."""
