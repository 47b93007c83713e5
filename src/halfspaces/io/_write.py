"""The one way halfspaces writes a file: model files, checkpoints and ``predict --out``.

* A regular file (new, or replacing one) is written beside its target under a temporary
  name, flushed to disk and renamed over it, so that a reader or a crash sees the old file
  or the new one, never half of one. A new file gets the mode the umask gives (as ``open``
  would: the temporary file is created with 0o666 and the kernel applies the umask); a
  replaced file keeps its mode. A symbolic link is followed: its target is replaced and the
  link stays.
* An existing FIFO or character device (``/dev/null``, ``/dev/stdout``, a terminal, a pipe
  named by ``/proc/self/fd/1``) is written to directly: renaming a regular file over it would
  destroy it and nothing would reach its reader.
* An output that is the same file as one of the inputs (compared by device and inode, so
  another spelling, a symbolic link or a hard link is caught), a directory, a block device,
  a socket, or a file in a missing or read-only directory is refused before anything is
  written, with a message that names the file and the fix (:class:`OutputFileError`).
* The temporary file is named ``.<name>.<host>-<pid>-<random>.tmp`` (host: a hash of the
  host name). A writer killed with SIGKILL leaves it behind; the first successful write of
  the same target in a process removes such files of that target whose writer, on this
  host, is no longer running. A live writer's file (or one whose process id was reused) is
  never touched, nor one written from another host to a shared directory.
"""

from __future__ import annotations

import hashlib
import os
import re
import secrets
import socket
import stat
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import BinaryIO

from halfspaces.exceptions import OutputFileError, shown

__all__ = ["check_output", "remove_stale_temporaries", "safe_write"]

_DIRECT = (stat.S_ISFIFO, stat.S_ISCHR)  # written in place, never replaced
# process ids are per host: a temporary file names the host its writer ran on
_HOST = hashlib.sha256(socket.gethostname().encode()).hexdigest()[:8]
_CLEANED: set[str] = set()  # targets whose stale temporaries this process has removed


def check_output(path: str | os.PathLike,
                 inputs: Iterable[str | os.PathLike | None] = ()) -> None:
    """Refuse an output `path` that cannot or must not be written, before any work is done.

    Parameters
    ----------
    path : str or os.PathLike
        The output file.
    inputs : iterable of path or None, default=()
        Files the same command reads (data, test data, a model, a checkpoint); None entries
        and files that do not exist are skipped.

    Raises
    ------
    OutputFileError
        If `path` is one of `inputs`, a directory, a block device or socket, or lies in a
        directory that does not exist or cannot be written.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> data = pathlib.Path(tempfile.mkdtemp()) / "train.svm"
    >>> _ = data.write_text("1 1:1\\n")
    >>> check_output(data.parent / "model.hs", [data])
    >>> check_output(data.parent / "." / "train.svm", [data])  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    halfspaces.exceptions.OutputFileError: .../train.svm: it is the same file as the input ...
    """
    found = _stat(path)
    if found is not None:
        _check_kind(path, found)
        _check_not_input(path, found, inputs)
        if any(test(found.st_mode) for test in _DIRECT):
            return
    _check_directory(path)


def safe_write(path: str | os.PathLike, write: Callable[[BinaryIO], None], *,
               inputs: Iterable[str | os.PathLike | None] = ()) -> Path:
    """Call ``write(binary_handle)`` to produce `path`, safely (see the module's notes).

    Parameters
    ----------
    path : str or os.PathLike
        The file to write, exactly (no extension is added).
    write : callable
        Writes the whole content to the binary handle it is given.
    inputs : iterable of path or None, default=()
        Files that `path` must not be (see :func:`check_output`).

    Returns
    -------
    Path
        `path`.

    Raises
    ------
    OutputFileError
        If :func:`check_output` refuses `path`, or writing fails (the file is then left as it
        was and no temporary file remains). Errors raised by `write` itself pass unchanged.

    Examples
    --------
    >>> import os, pathlib, tempfile
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "out.txt"
    >>> _ = path.write_text("old")
    >>> os.chmod(path, 0o640)
    >>> _ = safe_write(path, lambda handle: handle.write(b"new"))
    >>> path.read_text(), oct(path.stat().st_mode & 0o777)
    ('new', '0o640')
    """
    check_output(path, inputs)
    found = _stat(path)
    if found is not None and any(test(found.st_mode) for test in _DIRECT):
        _write_in_place(path, write)
    else:
        target = Path(_resolved(path))
        _replace(path, target, write, None if found is None else stat.S_IMODE(found.st_mode))
    return Path(path)


def _stat(path) -> os.stat_result | None:
    try:
        return os.stat(path)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise OutputFileError(path, f"cannot use it as an output ({exc.strerror or exc})") \
            from None


def _check_kind(path, found: os.stat_result) -> None:
    mode = found.st_mode
    if stat.S_ISDIR(mode):
        raise OutputFileError(path, "it is a directory; give a file name inside it")
    if not (stat.S_ISREG(mode) or any(test(mode) for test in _DIRECT)):
        kind = "a block device" if stat.S_ISBLK(mode) else "not a regular file"
        raise OutputFileError(path, f"it is {kind}; write to a regular file, a FIFO or a "
                                    "character device")


def _check_not_input(path, found: os.stat_result, inputs) -> None:
    for source in inputs:
        if source is None:
            continue
        try:
            other = os.stat(source)
        except OSError:
            continue
        if (other.st_dev, other.st_ino) == (found.st_dev, found.st_ino):
            raise OutputFileError(path, f"it is the same file as the input {os.fspath(source)}; "
                                        "writing it would destroy that input: choose another "
                                        "output file")


def _resolved(path) -> str:
    """``os.path.realpath(path)``; a relative path in a deleted working directory (where
    ``os.getcwd()`` fails) is refused by name instead of as a bare FileNotFoundError."""
    try:
        return os.path.realpath(path)
    except OSError as exc:
        raise OutputFileError(path, f"cannot find where it is ({exc.strerror or exc}): the "
                                    "current directory no longer exists; give an absolute "
                                    "path or change to an existing directory") from None


def _check_directory(path) -> None:
    directory = os.path.dirname(_resolved(path)) or "."
    if not os.path.isdir(directory):
        raise OutputFileError(path, f"the directory {shown(directory)} does not exist; create it "
                                    "or choose another output file")
    if not os.access(directory, os.W_OK | os.X_OK):
        raise OutputFileError(path, f"cannot create files in the directory {shown(directory)} "
                                    "(permission denied); choose another output file")


def _write_in_place(path, write) -> None:
    try:
        descriptor = os.open(path, os.O_WRONLY)  # no O_CREAT: it must still be the same kind
    except OSError as exc:
        raise OutputFileError(path, f"cannot open it for writing ({exc.strerror or exc})") \
            from None
    try:
        with os.fdopen(descriptor, "wb") as handle:
            write(handle)
    except BrokenPipeError:  # the pipe's reader left (| head): the command ends quietly
        raise
    except OSError as exc:
        raise _about_output(path, None, exc) from None


def _replace(path, target: Path, write, mode: int | None) -> None:
    # An exception from a signal handler (Ctrl-C, and SIGTERM and SIGHUP in the command
    # line) arriving between the file's creation and a try that removes it left it behind,
    # empty (4 of 75 SIGTERMs during a checkpointing stream). The name is chosen before the
    # file is created and the creation is inside the try, so whatever line the exception
    # interrupts, the file of that name is removed. (Blocking the signals around the
    # creation does not work: another thread of the process, a progress bar's or a
    # reader's, receives them, and the handler still runs at the next line.)
    claimed: list[str] = []
    try:
        descriptor = _create_temporary(path, target, claimed)
        with os.fdopen(descriptor, "wb") as handle:
            if mode is not None:
                os.fchmod(handle.fileno(), mode)
            write(handle)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(claimed[0], target)
    except BaseException as exc:
        for temporary in claimed:
            Path(temporary).unlink(missing_ok=True)
        if isinstance(exc, OSError):
            raise _about_output(path, claimed[0] if claimed else None, exc) from None
        raise
    _fsync_directory(target.parent)
    if os.fspath(target) not in _CLEANED:  # once per target: a checkpoint is written often
        _CLEANED.add(os.fspath(target))
        remove_stale_temporaries(target)


def remove_stale_temporaries(target: str | os.PathLike) -> list[str]:
    """Remove the temporary files of `target` that writers killed on this host left behind.

    Only names of our pattern for this target and host are considered, and of those only
    regular files whose writer's process id no longer exists: a writer still running keeps
    its file, and a reused process id errs on the side of keeping one.

    Returns
    -------
    list of str
        The files removed.
    """
    target = Path(target)
    ours = re.escape(f".{target.name}.{_HOST}-")
    pattern = re.compile(ours + r"([0-9]{1,10})-[0-9a-f]{8}\.tmp")
    try:
        names = os.listdir(target.parent)
    except OSError:
        return []
    removed = []
    for name in names:
        found = pattern.fullmatch(name)
        if found is None or _running(int(found.group(1))):
            continue
        stale = target.parent / name
        try:
            if stat.S_ISREG(os.lstat(stale).st_mode):
                stale.unlink()
                removed.append(os.fspath(stale))
        except OSError:  # gone already, or not ours to remove: leave it
            continue
    return removed


def _running(pid: int) -> bool:
    """Whether a process `pid` exists on this host (True when that cannot be told)."""
    if os.name != "posix" or pid <= 0 or pid == os.getpid():
        # Windows' os.kill ends the process; 0 would signal our own process group; our
        # own process's writes (another thread's) are in progress
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (OSError, OverflowError):  # e.g. another user's process: it exists
        return True
    return True


def _create_temporary(path, target: Path, claimed: list[str]) -> int:
    """A new file beside `target`, created with 0o666 so that the kernel applies the umask;
    its name is in `claimed` from before it exists until it is removed or renamed.

    The names hold this host's hash, this process's id and 32 random bits: a name that
    exists already is tried again with another. Only an interruption in the instant between
    finding it and forgetting it would remove that file: one with this process's id, left by
    a dead writer that had it before (which :func:`remove_stale_temporaries` removes anyway).
    """
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0)
    for _ in range(100):
        claimed[:] = [os.fspath(target.parent / f".{target.name}.{_HOST}-{os.getpid()}-"
                                                 f"{secrets.token_hex(4)}.tmp")]
        try:
            return os.open(claimed[0], flags, 0o666)
        except FileExistsError:
            claimed.clear()  # not ours: never removed
            continue
        except OSError as exc:
            claimed.clear()
            raise OutputFileError(path, f"cannot create a file in {shown(target.parent)} "
                                        f"({exc.strerror or exc})") from None
    raise OutputFileError(path, f"cannot create a temporary file in {shown(target.parent)}")


def _about_output(path, temporary: str | None, exc: OSError) -> OSError:
    """`exc` as an error naming `path` when it is about the output (not about a file that
    `write` reads), never naming the temporary file."""
    if isinstance(exc, OutputFileError) or exc.filename not in (None, temporary,
                                                                 os.fspath(path)):
        return exc
    unchanged = "; the file is unchanged" if temporary is not None else ""
    return OutputFileError(path, f"cannot write it ({exc.strerror or exc}){unchanged}")


def _fsync_directory(directory: Path) -> None:
    try:
        descriptor = os.open(directory, os.O_RDONLY)
    except OSError:  # pragma: no cover - e.g. platforms without directory handles
        return
    try:
        os.fsync(descriptor)
    except OSError:  # pragma: no cover
        pass
    finally:
        os.close(descriptor)
