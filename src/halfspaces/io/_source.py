"""Opening data files: the one place that turns a path into bytes for every reader.

* Input that cannot be read twice (a pipe, ``/dev/stdin``, a FIFO) is read once into memory
  and served from there, so that sniffing the format, scanning and parsing each see all of it.
* gzip, bzip2 and xz files are decompressed whatever their name (a ``.svm`` file that is
  really ``train.svm.gz`` renamed), as scikit-learn does for ``.gz`` and ``.bz2`` names.
* A UTF-8 byte-order mark at the start of a text file is skipped (``utf-8-sig``), so that it
  does not become part of the first label or header name.
"""

from __future__ import annotations

import bz2
import gzip
import io
import lzma
import os
import stat
import zlib
from typing import BinaryIO

from halfspaces.io._errors import DataFileError

__all__ = ["open_data", "raw_source"]

BOM = b"\xef\xbb\xbf"
# GzipFile takes a file object as `fileobj` (its first argument is a file name), BZ2File and
# LZMAFile as their first argument (they have no `fileobj`)
_COMPRESSED = ((b"\x1f\x8b", "gzip", lambda raw: gzip.GzipFile(fileobj=raw)),
               (b"BZh", "bzip2", bz2.BZ2File), (b"\xfd7zXZ\x00", "xz", lzma.LZMAFile))
_DAMAGED = (OSError, EOFError, zlib.error, lzma.LZMAError, ValueError)
_BUFFERED: dict[tuple[int, int], bytes] = {}  # (device, inode) of a pipe -> its content


def open_data(path: str | os.PathLike) -> BinaryIO:
    """A binary handle on a text data file: decompressed, without a BOM, re-readable.

    Use it as a context manager; iterating gives lines. Read errors, including a damaged
    compressed stream, are :class:`DataFileError` naming `path`.
    """
    handle = _open_raw(path)
    try:
        head = handle.read(6)
        handle.seek(0)
        for magic, name, opener in _COMPRESSED:
            if head.startswith(magic):
                return _Decompressed(path, handle, opener(handle), name)
        if head.startswith(BOM):
            handle.seek(len(BOM))
    except OSError as exc:
        handle.close()
        raise DataFileError(path, f"cannot read the file ({exc.strerror or exc})") from None
    return handle


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
            return open(path, "rb")
        return io.BytesIO(_buffered(path))
    except OSError as exc:
        raise DataFileError(path, f"cannot read the file ({exc.strerror or exc})") from None


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
        if self._call(handle.read, len(BOM)) != BOM:
            self._call(handle.seek, 0)

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
