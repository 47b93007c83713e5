"""Contexts that hold BLAS to one thread where its threads only add contention.

Both share one cached :class:`threadpoolctl.ThreadpoolController` (building one scans the
loaded libraries, a few milliseconds).
"""

from __future__ import annotations

import contextlib
from functools import cache
from pathlib import Path

from threadpoolctl import ThreadpoolController

__all__ = ["one_blas_thread", "scipy_blas_one_thread"]


@cache
def _controller() -> ThreadpoolController:
    return ThreadpoolController()


def one_blas_thread():
    """Every BLAS/LAPACK library on one thread.

    Multithreaded LAPACK on a small matrix is slower than one thread, and on a busy
    machine up to a hundred times slower (threads wait on descheduled siblings).
    """
    return _controller().limit(limits=1, user_api="blas")


def scipy_blas_one_thread():
    """SciPy's own BLAS on one thread, where it ships one apart from NumPy's (pip wheels do).

    SciPy's compiled optimisers (L-BFGS-B) call it for small vector operations, after
    which its idle threads spin for a while: on two cores they took the cores from NumPy's
    BLAS and from the compiled loops, and made a 0.13 ms product take 3 to 5 ms. Where both
    share one library (conda, a system BLAS) there is no second pool and nothing to limit.
    """
    own = [lib.filepath for lib in _controller().lib_controllers
           if lib.user_api == "blas" and Path(lib.filepath).parent.name == "scipy.libs"]
    if not own:
        return contextlib.nullcontext()
    return _controller().select(filepath=own).limit(limits=1)
