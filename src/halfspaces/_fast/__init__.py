"""Compiled loops (Numba) over plain arrays. Private: no validation, no raising, no Python objects.

Every loop takes its data as ``X``: either a C-contiguous 2-D float array, or a CSR triple
``(data, indices, indptr)``. Numba compiles one specialisation per dtype and layout (float32
or float64; int32 or int64 indices); :func:`loop_input` is the one place that turns a
validated matrix into that argument. (The name follows scikit-learn's ``_sgd_fast`` and
``_cd_fast``; "kernel" in this library means a Mercer kernel, see :mod:`halfspaces.kernel`.)

Compiled code is cached on disk (``cache=True``), where Numba's cache locator puts it: the
``__pycache__`` folder beside each module when the package folder is writable; otherwise
(a system-wide install) the user's cache folder, ``$XDG_CACHE_HOME/numba`` or
``~/.cache/numba`` on Linux, so the compilation is paid once per user, not on every run;
``NUMBA_CACHE_DIR`` overrides both. :func:`is_cached` tells whether a module's loops are
there yet.

Where none of those folders can be written (a read-only install run by a user whose home is
unset, missing or read-only, or a ``NUMBA_CACHE_DIR`` that cannot be written), Numba refuses
to define a cached function at all ("cannot cache function ...: no locator available"), so
importing any loop module would fail. This package decides that once, here, before any loop
is declared (:func:`_choose_cache_folder`): it then points ``numba.config.CACHE_DIR`` at a
private folder of this user in the temporary directory, ``$TMPDIR/halfspaces-numba-<uid>``,
where the compilation is again paid once per user (until the temporary directory is
cleaned). That setting is process-wide: other cached Numba functions of the process go there
too, which is where they could not otherwise be cached either.
"""

from __future__ import annotations

import importlib
import os
import stat
import sys
import tempfile
from pathlib import Path

import numpy as np
import scipy.sparse as sp


def loop_input(X):
    """The loops' view of a validated X: the dense array itself, or its CSR arrays (no copy)."""
    if sp.issparse(X):
        return (X.data, X.indices, X.indptr)
    return np.ascontiguousarray(X)


def cache_folder(module: str) -> Path | None:
    """The folder where Numba caches the loops of ``halfspaces._fast.<module>``.

    Read from the module's first loop (its ``stats.cache_path``), so it is the folder
    Numba's own locator chose; None when nothing is compiled (``NUMBA_DISABLE_JIT=1``).
    """
    loops = importlib.import_module(f"{__name__}.{module}")
    for value in vars(loops).values():
        stats = getattr(value, "stats", None)
        if getattr(value, "__module__", None) == loops.__name__ and stats is not None:
            return Path(stats.cache_path)
    return None


def is_cached(module: str) -> bool:
    """Whether compiled loops of ``halfspaces._fast.<module>`` are in Numba's cache.

    A folder listing, not a compilation: it looks for the index files Numba writes per
    function, ``<module>.<function>-<line>.py<major><minor>[abiflags].nbi``. True when the
    loops are not compiled at all (``NUMBA_DISABLE_JIT=1``). An index can be present while
    a new dtype or layout still has to be compiled, so this answers "first run", not "no
    compilation".
    """
    folder = cache_folder(module)
    if folder is None:
        return True
    version = f"py{sys.version_info[0]}{sys.version_info[1]}"
    return any(folder.glob(f"{module}.*-*.{version}*.nbi"))


def _choose_cache_folder() -> None:
    """Give Numba a cache folder it can write when its own choices all fail (module notes)."""
    import numba

    try:
        numba.njit(cache=True)(_probe)  # a loop of this folder, declared as the others are
    except RuntimeError:  # no locator: no folder Numba would use is writable
        # Numba ships no types: mypy reads its config module as a bare ModuleType
        numba.config.CACHE_DIR = _private_folder()  # type: ignore[attr-defined]


def _probe() -> int:  # pragma: no cover - declared to find a cache folder, never called
    return 0


def _private_folder() -> str:
    """A folder in the temporary directory that only this user can write: the shared one,
    ``halfspaces-numba-<uid>``, or, where that name is taken by another user or is not a
    plain folder of ours (Numba loads code from its cache folder: never trust a folder
    others can write), a new one for this process."""
    user = getattr(os, "getuid", lambda: None)()
    shared = os.path.join(tempfile.gettempdir(), f"halfspaces-numba-{user}")
    try:
        os.mkdir(shared, 0o700)
    except FileExistsError:
        pass
    except OSError:
        return tempfile.mkdtemp(prefix="halfspaces-numba-")
    found = os.lstat(shared)
    mine = user is None or found.st_uid == user
    if stat.S_ISDIR(found.st_mode) and mine and not found.st_mode & 0o022:
        return shared
    return tempfile.mkdtemp(prefix="halfspaces-numba-")


_choose_cache_folder()
