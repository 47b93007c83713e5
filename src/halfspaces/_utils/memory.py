"""How much memory this process may use: the machine's RAM, or a container's smaller limit.

In a container (Docker, Kubernetes, a batch job's cgroup) the physical RAM that ``sysconf``
reports is the host's; the process is killed once it passes its cgroup's limit, long before
NumPy would see an allocation fail. So every budget of the package (a data file read whole,
a model read from a pipe, the weight vectors of a fit) starts from :func:`memory_limit`,
the smaller of the two.
"""

from __future__ import annotations

import functools
import os
from pathlib import Path

__all__ = ["check_dense_vectors", "cgroup_limit", "memory_limit", "physical_memory"]

_CGROUP_FILES = ("sys/fs/cgroup/memory.max",  # cgroup v2; "max" means no limit
                 "sys/fs/cgroup/memory/memory.limit_in_bytes")  # cgroup v1
# cgroup v1 writes "no limit" as the largest page-aligned int64 (9223372036854771712);
# anything from 2**60 (1 EiB) up is read as no limit
_NO_LIMIT = 2**60
_UNKNOWN_RAM = 2**36  # 64 GiB, where the platform cannot say (not POSIX)


def physical_memory() -> int:
    """Bytes of physical RAM of this machine (64 GiB where the platform cannot say)."""
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):  # pragma: no cover - not POSIX
        return _UNKNOWN_RAM


@functools.lru_cache(maxsize=8)
def cgroup_limit(root: str | Path = "/") -> int | None:
    """The memory limit of this process's cgroup in bytes, or None where there is none.

    Reads cgroup v2's ``memory.max`` and cgroup v1's ``memory.limit_in_bytes`` under `root`
    (a test points it at a folder of its own): at the top of the cgroup mount, which is the
    process's own cgroup in a container with a cgroup namespace (Docker's default), and in
    the process's cgroup as ``/proc/self/cgroup`` names it and each cgroup above it, since
    a limit set on a parent (a batch system's job, a systemd slice, a nested container)
    binds its children, whose own files may say "max". The smallest limit found counts; a
    file that is missing, unreadable or not a number says nothing. Read once per process
    and root: the reads cost 0.3 ms or more on this VM's overlay filesystem, and every fit
    and ``partial_fit`` asks (:func:`check_dense_vectors`), where a one-pass a9a fit takes
    2.5 ms.
    """
    found = [_read_limit(path) for path in _limit_files(Path(root))]
    limits = [limit for limit in found if limit is not None]
    return min(limits) if limits else None


def _limit_files(root: Path) -> list[Path]:
    """The limit files of the mount's top and of this process's cgroup and its parents."""
    v2, v1 = (root / name for name in _CGROUP_FILES)
    files = [v2, v1]
    for controllers, cgroup in _own_cgroups(root):
        if controllers == "":  # cgroup v2's unified hierarchy: "0::/path"
            top, name = v2.parent, v2.name
        elif "memory" in controllers.split(","):
            top, name = v1.parent, v1.name
        else:
            continue
        parts = Path(cgroup).relative_to("/").parts if cgroup.startswith("/") else ()
        # the process's cgroup first, then each parent up to (not including) the top
        files += [top.joinpath(*parts[:k], name) for k in range(len(parts), 0, -1)]
    return files


def _own_cgroups(root: Path) -> list[tuple[str, str]]:
    """(controllers, path) of each line "id:controllers:path" of /proc/self/cgroup."""
    try:
        text = (root / "proc/self/cgroup").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return []
    lines = [line.split(":", 2) for line in text.splitlines()]
    return [(fields[1], fields[2]) for fields in lines
            if len(fields) == 3 and ".." not in fields[2].split("/")]


def _read_limit(path: Path) -> int | None:
    try:
        text = path.read_text(encoding="ascii").strip()
    except (OSError, UnicodeDecodeError):
        return None
    if not text.isdigit():  # "max", or damage
        return None
    limit = int(text)
    return limit if 0 < limit < _NO_LIMIT else None


def memory_limit(root: str | Path = "/") -> int:
    """Bytes this process may use: physical RAM, or the cgroup limit where it is smaller.

    Examples
    --------
    >>> from halfspaces._utils.memory import memory_limit, physical_memory
    >>> 0 < memory_limit() <= physical_memory()
    True
    """
    ram, limit = physical_memory(), cgroup_limit(root)
    return ram if limit is None else min(ram, limit)


def check_dense_vectors(n_columns: int, n_vectors: int, name: str = "X") -> None:
    """Refuse a width whose `n_vectors` dense float64 vectors of ``n_columns + 1`` entries
    (weights, averages, gradients, with the intercept's slot) would not fit in memory.

    Called where an estimator validates X, before it allocates: a sparse matrix may declare
    2**40 columns in a few bytes, and the fit then failed with NumPy's bare "Unable to
    allocate 8.00 TiB", a ``std::bad_alloc`` from SciPy's C++ code, or, in a container, a
    process killed by its cgroup. `n_vectors` may be a lower bound: the check exists to
    name X's width, not to predict a fit's peak.

    Raises
    ------
    MemoryError
        Naming `name`'s column count, the bytes needed and the memory limit.
    """
    needed = 8 * n_vectors * (n_columns + 1)
    limit = memory_limit()
    if needed > limit:
        raise MemoryError(
            f"{name} has {n_columns:,} columns: a fit keeps at least {n_vectors} dense "
            f"float64 vectors of {n_columns + 1:,} entries (weights and their companions), "
            f"{needed:,} bytes ({_size(needed)}), more than the {_size(limit)} of memory "
            "this process may use. Is the column count a mistake "
            "(a sparse matrix's declared shape, a stray feature index)? Otherwise reduce "
            "the features (e.g. hashing) or use a machine with more memory."
        )


def _size(n_bytes: int) -> str:
    for unit, scale in (("TiB", 2**40), ("GiB", 2**30), ("MiB", 2**20)):
        if n_bytes >= scale:
            return f"{n_bytes / scale:.1f} {unit}"
    return f"{n_bytes} bytes"
