"""The BLAS thread contexts: which pools they limit, and that they restore them."""

from __future__ import annotations

from pathlib import Path

import scipy.linalg  # noqa: F401  (loads SciPy's BLAS, when it ships its own)
from threadpoolctl import threadpool_info

from halfspaces._utils.blas import one_blas_thread, scipy_blas_one_thread


def blas_threads() -> dict[str, int]:
    return {info["filepath"]: info["num_threads"] for info in threadpool_info()
            if info["user_api"] == "blas"}


def test_scipy_blas_one_thread_limits_scipys_own_pool_only():
    before = blas_threads()
    with scipy_blas_one_thread():
        inside = blas_threads()
    assert blas_threads() == before
    for path, threads in inside.items():
        own = Path(path).parent.name == "scipy.libs"  # pip wheels ship SciPy's BLAS there
        assert threads == (1 if own else before[path])


def test_one_blas_thread_limits_every_pool():
    before = blas_threads()
    with one_blas_thread():
        assert set(blas_threads().values()) <= {1}
    assert blas_threads() == before
