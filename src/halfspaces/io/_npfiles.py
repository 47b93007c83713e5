"""NumPy data files (``.npy``, ``.npz``) read without trusting their headers.

An ``.npy`` header declares a shape and a dtype, and NumPy allocates what it declares before
reading: a 300-byte ``.npz`` whose header claims shape (10**11, 3) asked for 2 TiB. Here each
header is read first and checked against the bytes that hold the array (the file's size, or
the member's size in the archive's directory), as model files are
(:mod:`halfspaces.io.model`); an ``.npz`` file, read whole, must also fit in half of the
memory this process may use. Nothing is unpickled. Every failure is a
:class:`~halfspaces.DataFileError` naming the file and, where it applies, the array.
"""

from __future__ import annotations

import math
import os
import zipfile
import zlib
from typing import BinaryIO

import numpy as np

from halfspaces._utils.memory import memory_limit
from halfspaces.exceptions import DataFileError

__all__ = ["BINARY_NAMES", "SIGNATURE_LENGTH", "binary_format", "is_archive", "load_npy",
           "load_npz", "memory_budget", "read_exactly"]

_NPY_MAGIC = b"\x93NUMPY"
_ZIP_MAGICS = (b"PK\x03\x04", b"PK\x05\x06")  # an archive with members, an empty one
_COMPRESSED = ((b"\x1f\x8b", "gzip"), (b"BZh", "bzip2"), (b"\xfd7zXZ\x00", "xz"))
# At both ends of a Parquet file; the byte after the first is a Thrift compact field header
# (field 1, an i32: the first page's type, or an empty file's version), 0x15 in every file,
# and never in text: a CSV whose header starts "PAR1," is not Parquet
_PARQUET_MAGIC = b"PAR1\x15"
SIGNATURE_LENGTH = len(_NPY_MAGIC)
"""The first bytes of a file that :func:`binary_format` needs (its longest signature)."""
_HEADER_READERS = {(1, 0): np.lib.format.read_array_header_1_0,
                   (2, 0): np.lib.format.read_array_header_2_0}
# What a damaged archive or member raises while being read: the archive's own errors, an
# encrypted member (RuntimeError), a compression zipfile lacks (NotImplementedError)
_DAMAGED = (OSError, EOFError, ValueError, zipfile.BadZipFile, zlib.error, RuntimeError,
            NotImplementedError)
_CHUNK = 2**20


def memory_budget() -> int:
    """Bytes the arrays of an ``.npz`` file (or a model read from a pipe) may take: half of
    the memory this process may use (:func:`halfspaces._utils.memory.memory_limit`: physical RAM,
    or a container's smaller cgroup limit)."""
    return memory_limit() // 2


def binary_format(head: bytes) -> str | None:
    """The binary data format whose signature starts `head`, a file's first
    :data:`SIGNATURE_LENGTH` bytes: "npz" (a ZIP archive), "npy", "parquet", or None (a
    text file, or none of these).

    Examples
    --------
    >>> binary_format(b"\\x93NUMPY"), binary_format(b"PAR1\\x15\\x04"), binary_format(b"1,2\\n")
    ('npy', 'parquet', None)
    """
    if head.startswith(_ZIP_MAGICS):
        return "npz"
    if head.startswith(_NPY_MAGIC):
        return "npy"
    if head.startswith(_PARQUET_MAGIC):
        return "parquet"
    return None


BINARY_NAMES = {"npy": "NumPy .npy data", "npz": "a ZIP archive (an .npz file is one)",
                "parquet": "Parquet data"}
"""How an error names each format of :func:`binary_format`."""


def is_archive(path, source: str | BinaryIO) -> bool:
    """Whether `source` holds an ``.npz`` archive (False: an ``.npy`` array); anything else
    is an error naming `path`. `source` is a regular file's name or a pipe's content."""
    head = _head(path, source)
    if head.startswith(_ZIP_MAGICS):
        return True
    if head.startswith(_NPY_MAGIC):
        return False
    packed = next((name for magic, name in _COMPRESSED if head.startswith(magic)), None)
    if packed is not None:
        raise DataFileError(path, f"a {packed}-compressed file: NumPy files are read "
                                  "uncompressed; decompress it first")
    raise DataFileError(path, "not a NumPy .npy or .npz file (it starts with neither's "
                              "signature)")


def _head(path, source) -> bytes:
    if not isinstance(source, str):
        return bytes(source.getbuffer()[:len(_NPY_MAGIC)])
    try:
        with open(source, "rb") as handle:
            return handle.read(len(_NPY_MAGIC))
    except OSError as exc:
        raise DataFileError(path, f"cannot read the file ({exc.strerror or exc})") from None


def load_npy(path, source: str | BinaryIO) -> np.ndarray:
    """The array of an ``.npy`` file: memory-mapped from a regular file (after its header
    is checked against the file's size), else read from the pipe's buffered content."""
    if isinstance(source, str):
        try:
            with open(source, "rb") as handle:
                _checked_header(path, handle, os.fstat(handle.fileno()).st_size, "the array")
            return np.load(source, mmap_mode="r", allow_pickle=False)
        except DataFileError:
            raise
        except (OSError, ValueError) as exc:
            raise DataFileError(path, f"not a readable .npy file ({_detail(exc)})") from None
    source.seek(0)
    shape, fortran, dtype, nbytes = _checked_header(path, source, len(source.getbuffer()),
                                                    "the array")
    return _array(read_exactly(source, nbytes), shape, fortran, dtype)


def load_npz(path, source: str | BinaryIO, names: tuple[str, ...]) -> dict[str, np.ndarray]:
    """The arrays `names` of an ``.npz`` file, each header checked before its data is read,
    and all of them within :func:`memory_budget`."""
    try:
        with zipfile.ZipFile(source) as archive:
            members = _members(path, archive, names)
            _check_budget(path, members)
            return {name: _read_member(path, archive, info, name)
                    for name, info in members.items()}
    except DataFileError:
        raise
    except _DAMAGED as exc:
        raise DataFileError(path, f"a damaged .npz file ({_detail(exc)})") from None


def _members(path, archive: zipfile.ZipFile, names) -> dict[str, zipfile.ZipInfo]:
    found = {info.filename.removesuffix(".npy"): info for info in archive.infolist()}
    if not set(names) <= set(found):
        raise DataFileError(path, f"an .npz data file needs arrays "
                                  f"{' and '.join(map(repr, names))} (it has "
                                  f"{', '.join(found) or 'none'})")
    return {name: found[name] for name in names}


def _check_budget(path, members: dict[str, zipfile.ZipInfo]) -> None:
    total, budget = sum(info.file_size for info in members.values()), memory_budget()
    if total > budget:
        raise DataFileError(path, f"its arrays take {total / 2**30:.1f} GiB, more than half "
                                  "of the memory this process may use, and an .npz file is "
                                  "read whole: save them as .npy (memory-mapped) or svmlight "
                                  "and stream it")


def _read_member(path, archive: zipfile.ZipFile, info: zipfile.ZipInfo, name: str):
    with archive.open(info) as handle:
        shape, fortran, dtype, nbytes = _checked_header(path, handle, info.file_size,
                                                        f"array {name!r}")
        buffer = read_exactly(handle, nbytes)  # the archive checks its CRC at the end
    return _array(buffer, shape, fortran, dtype)


def _checked_header(path, handle, size: int, what: str):
    """(shape, fortran order, dtype, data bytes) of the .npy header at `handle`, whose data
    must be exactly the rest of its `size` bytes."""
    try:
        version = np.lib.format.read_magic(handle)
        if version not in _HEADER_READERS:
            raise ValueError(f"unsupported .npy format version {version}")
        shape, fortran, dtype = _HEADER_READERS[version](handle)
    except (ValueError, EOFError) as exc:
        raise DataFileError(path, f"{what}: a damaged .npy header ({_detail(exc)})") from None
    if dtype.hasobject:
        raise DataFileError(path, f"{what} holds Python objects, which are never unpickled")
    if dtype.itemsize == 0:  # any shape would fit in no bytes at all
        raise DataFileError(path, f"{what} has dtype {dtype}, whose values hold no bytes")
    nbytes, held = math.prod(shape) * dtype.itemsize, size - handle.tell()
    if nbytes != held:
        raise DataFileError(path, f"{what}: its header declares shape {shape} of {dtype} "
                                  f"({nbytes:,} bytes) but {held:,} bytes follow it; the "
                                  "file is truncated or damaged")
    return shape, fortran, dtype, nbytes


def read_exactly(handle, nbytes: int) -> bytearray:
    """`nbytes` bytes into a writable buffer, a chunk at a time (no second full copy)."""
    buffer = bytearray(nbytes)
    view, done = memoryview(buffer), 0
    while done < nbytes:
        got = handle.readinto(view[done:done + _CHUNK])
        if not got:
            raise EOFError(f"the data end after {done:,} of {nbytes:,} bytes")
        done += got
    return buffer


def _array(buffer: bytearray, shape, fortran: bool, dtype: np.dtype) -> np.ndarray:
    flat = np.frombuffer(buffer, dtype=dtype) if buffer else np.empty(0, dtype)
    return flat.reshape(shape, order="F" if fortran else "C")


def _detail(exc: BaseException) -> str:
    return " ".join(str(exc).split())[:200] or type(exc).__name__
