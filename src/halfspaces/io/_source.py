"""Opening data files: the one place that turns a path into bytes for every reader.

* Input that cannot be read twice (a pipe, ``/dev/stdin``, a FIFO) is read once into memory
  and served from there, so that sniffing the format, scanning and parsing each see all of it.
* gzip, bzip2 and xz files are decompressed whatever their name (a ``.svm`` file that is
  really ``train.svm.gz`` renamed), as scikit-learn does for ``.gz`` and ``.bz2`` names.
* A UTF-8 byte-order mark at the start of a text file is skipped (``utf-8-sig``), so that it
  does not become part of the first label or header name.
* A file opened as text that starts with the signature of a binary format (.npy, .npz,
  Parquet), decompressed or not, is refused by name: a ``data.csv`` holding ``np.save``'s
  bytes was reported as "byte 0x93 at column 1 is not UTF-8", and as svmlight as a bad label.
"""

from __future__ import annotations

import bz2
import contextlib
import gzip
import io
import lzma
import os
import stat
import threading
import zlib
from collections.abc import Iterator
from typing import BinaryIO

from halfspaces.exceptions import DataFileError
from halfspaces.io._npfiles import BINARY_NAMES, SIGNATURE_LENGTH, binary_format

__all__ = ["ReadMeter", "open_data", "raw_source", "watch_reads"]

BOM = b"\xef\xbb\xbf"
# GzipFile takes a file object as `fileobj` (its first argument is a file name), BZ2File and
# LZMAFile as their first argument (they have no `fileobj`)
_COMPRESSED = ((b"\x1f\x8b", "gzip", lambda raw: gzip.GzipFile(fileobj=raw)),
               (b"BZh", "bzip2", bz2.BZ2File), (b"\xfd7zXZ\x00", "xz", lzma.LZMAFile))
_DAMAGED = (OSError, EOFError, zlib.error, lzma.LZMAError, ValueError)
_BUFFERED: dict[tuple[int, int], bytes] = {}  # (device, inode) of a pipe -> its content


def open_data(path: str | os.PathLike, *, binary: bool = False) -> BinaryIO:
    """A binary handle on a text data file: decompressed, without a BOM, re-readable.

    Use it as a context manager; iterating gives lines. Read errors, including a damaged
    compressed stream, are :class:`DataFileError` naming `path`, and so is a file that
    starts with a binary format's signature unless `binary` (the format sniffer's case).
    """
    handle = _open_raw(path)
    try:
        head = handle.read(SIGNATURE_LENGTH)
        handle.seek(0)
        packed = next(((name, opener) for magic, name, opener in _COMPRESSED
                       if head.startswith(magic)), None)
        if packed is not None:
            handle = _Decompressed(path, handle, packed[1](handle), packed[0])
            head = handle.head
        elif head.startswith(BOM):
            handle.seek(len(BOM))
    except (OSError, DataFileError) as exc:
        handle.close()
        if isinstance(exc, DataFileError):
            raise
        raise DataFileError(path, f"cannot read the file ({exc.strerror or exc})") from None
    if not binary:
        _refuse_binary(path, handle, head, packed and packed[0])
    return handle


def _refuse_binary(path, handle, head: bytes, compression: str | None) -> None:
    """A DataFileError, the handle closed, if `head` is a binary format's signature."""
    fmt = binary_format(head)
    if fmt is None:
        return
    handle.close()
    packed = f"is {compression}-compressed and " if compression else ""
    first = "decompress it, then read it" if compression else "read it"
    raise DataFileError(path, f"the file {packed}holds {BINARY_NAMES[fmt]}, not text; {first} "
                              f"as {fmt}: format={fmt!r} (--format {fmt}), or a name ending "
                              f"in .{fmt}")


def raw_source(path: str | os.PathLike) -> str | BinaryIO:
    """`path` itself for a regular file, else its buffered content (for NumPy, pyarrow)."""
    if _regular(path):
        return os.fspath(path)
    return _open_raw(path)


def _regular(path) -> bool:
    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except OSError:
        return True  # let the reader report the missing file in its own words


def _open_raw(path) -> BinaryIO:
    try:
        if _regular(path):
            handle = open(path, "rb")
            if _WATCHED:  # one stat more, only while a progress bar watches a file
                meter = _WATCHED.get(_file_key(handle.fileno()))
                if meter is not None:
                    meter.opened(handle)
            return handle
        return io.BytesIO(_buffered(path))
    except OSError as exc:
        raise DataFileError(path, f"cannot read the file ({exc.strerror or exc})") from None


class ReadMeter:
    """How far this process's readers have read one regular file, for a progress bar.

    Every handle opened on the file through the readers of :mod:`halfspaces.io` is noted
    (also from their read-ahead threads); :meth:`position` is the furthest offset among
    those still open, as the operating system keeps it (what has been read from the file,
    compressed bytes for a compressed file), or the last one seen once they are closed.
    Made by :func:`watch_reads`.

    Parameters
    ----------
    size : int
        The file's size in bytes.
    """

    def __init__(self, size: int) -> None:
        self.size = size
        """The file's size in bytes when it began to be watched."""
        self._handles: list[BinaryIO] = []
        self._last = 0
        self._lock = threading.Lock()

    def opened(self, handle: BinaryIO) -> None:
        """Note a handle just opened on the file.

        Parameters
        ----------
        handle : binary file object
            Opened by a reader of :mod:`halfspaces.io` on the watched file.
        """
        with self._lock:
            self._handles.append(handle)

    def restart(self) -> None:
        """Forget the handles so far: a new pass over the file begins at offset 0."""
        with self._lock:
            self._handles, self._last = [], 0

    def position(self) -> int:
        """Bytes read so far by the furthest open handle.

        Returns
        -------
        int
            At most :attr:`size`; 0 after :meth:`restart` until a handle reads on.
        """
        with self._lock:
            self._handles = [h for h in self._handles if not h.closed]
            for handle in self._handles:
                with contextlib.suppress(OSError, ValueError):  # closed meanwhile
                    # the descriptor's offset, not handle.tell(): no lock of the reader's
                    # buffer is taken from this thread
                    self._last = max(self._last, os.lseek(handle.fileno(), 0, os.SEEK_CUR))
            return min(self._last, self.size)


_WATCHED: dict[tuple[int, int], ReadMeter] = {}


def _file_key(descriptor: int | str | os.PathLike) -> tuple[int, int]:
    found = os.stat(descriptor)
    return found.st_dev, found.st_ino


@contextlib.contextmanager
def watch_reads(path: str | os.PathLike) -> Iterator[ReadMeter | None]:
    """A :class:`ReadMeter` of `path` within the block; None where its size is not known
    (a pipe, ``/dev/stdin``, a missing file): such input is read once into memory.

    Parameters
    ----------
    path : str or os.PathLike
        The data file that the readers of :mod:`halfspaces.io` will open.

    Yields
    ------
    ReadMeter or None

    Examples
    --------
    >>> import pathlib, tempfile
    >>> from halfspaces.io import iter_chunks, watch_reads
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "tiny.svm"
    >>> _ = path.write_text("1 1:1\\n-1 2:1\\n1 3:1\\n")
    >>> with watch_reads(path) as meter:  # the position is read while a reader thread runs
    ...     for X, y in iter_chunks(path, chunk_size=2):
    ...         print(meter.size, 0 <= meter.position() <= meter.size)
    19 True
    19 True
    """
    try:
        regular = stat.S_ISREG(os.stat(path).st_mode)
    except OSError:
        regular = False
    if not regular:
        yield None
        return
    key = _file_key(path)
    meter = ReadMeter(os.stat(path).st_size)
    _WATCHED[key] = meter
    try:
        yield meter
    finally:
        if _WATCHED.get(key) is meter:
            del _WATCHED[key]


def _buffered(path) -> bytes:
    """The whole content of a non-seekable input, read once per process."""
    found = os.stat(path)
    key = (found.st_dev, found.st_ino)
    if key not in _BUFFERED:
        with open(path, "rb") as handle:
            _BUFFERED[key] = handle.read()
    return _BUFFERED[key]


class _Decompressed:
    """A decompressing handle whose errors name the file; skips a leading UTF-8 BOM.

    (Plain files are read through their own handle: a wrapper would slow every line.)
    """

    def __init__(self, path, raw, handle, compression: str) -> None:
        self._path, self._raw, self._handle, self._compression = path, raw, handle, compression
        try:
            self.head = self._call(handle.read, SIGNATURE_LENGTH)  # decompressed
            self._call(handle.seek, len(BOM) if self.head.startswith(BOM) else 0)
        except DataFileError:
            self.close()
            raise

    def _call(self, method, *args):
        try:
            return method(*args)
        except _DAMAGED as exc:
            detail = getattr(exc, "strerror", None) or exc
            raise DataFileError(self._path, f"a damaged {self._compression} file ({detail})") \
                from None

    def read(self, size: int = -1) -> bytes:
        return self._call(self._handle.read, size)

    def readline(self) -> bytes:
        return self._call(self._handle.readline)

    def __iter__(self):
        return self

    def __next__(self) -> bytes:
        line = self.readline()
        if not line:
            raise StopIteration
        return line

    def close(self) -> None:
        self._handle.close()
        self._raw.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc_info) -> None:
        self.close()
