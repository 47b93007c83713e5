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
"""

from __future__ import annotations

import importlib
import sys
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
