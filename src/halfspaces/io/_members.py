"""What :func:`halfspaces.io.model.load` reads of a model file's archive, and how.

Only the ``.npy`` members that the file's JSON refers to are read (:func:`references`), and
each only after its header passed the checks (:class:`Members`): a known ``.npy`` version,
no Python objects (never unpickled), a declared size that matches the member's, and all of
them together within a given multiple of the file's size, so that a "zip bomb" is refused
before anything is decompressed. Every problem is a ValueError (or EOFError) naming the
member; :mod:`halfspaces.io.model` turns it into a ModelFileError naming the file.
"""

from __future__ import annotations

import math
import zipfile

import numpy as np

from halfspaces.io._npfiles import read_exactly

__all__ = ["Members", "references"]

_SLACK = 2**20  # bytes allowed beyond the ratio: the JSON and small arrays of a tiny file
_HEADER_READERS = {(1, 0): np.lib.format.read_array_header_1_0,
                   (2, 0): np.lib.format.read_array_header_2_0}


class Members:
    """Reads .npy members of an archive of `size` bytes, each only after its header passed
    the checks, all of them within `ratio` times `size` (plus 1 MiB)."""

    def __init__(self, archive: zipfile.ZipFile, size: int, ratio: int) -> None:
        self.archive, self.budget, self.ratio = archive, ratio * size + _SLACK, ratio

    def read(self, key: str) -> np.ndarray:
        if not isinstance(key, str):
            raise ValueError(f"an array reference {key!r} is not a name")
        name = key + ".npy"
        info = self.archive.getinfo(name)
        self._spend(name, info.file_size)
        with self.archive.open(info) as handle:
            version = np.lib.format.read_magic(handle)
            if version not in _HEADER_READERS:
                raise ValueError(f"{name}: unsupported .npy version {version}")
            shape, fortran, dtype = _HEADER_READERS[version](handle)
            if dtype.hasobject:
                raise ValueError(f"{name} holds Python objects, which are never unpickled")
            nbytes = math.prod(shape) * dtype.itemsize
            if nbytes != info.file_size - handle.tell():
                raise ValueError(f"{name}: its header declares {shape} {dtype} ({nbytes} "
                                 f"bytes) but the member holds {info.file_size} bytes")
            try:
                buffer = read_exactly(handle, nbytes)
            except EOFError:
                raise EOFError(f"{name} is truncated") from None
        array = np.frombuffer(buffer, dtype=dtype) if nbytes else np.empty(0, dtype)
        return array.reshape(shape, order="F" if fortran else "C")

    def _spend(self, name: str, nbytes: int) -> None:
        self.budget -= nbytes
        if self.budget < 0:
            raise ValueError(f"{name} declares {nbytes} bytes: the arrays would take more "
                             f"than {self.ratio} times the file's size (a zip bomb?)")


def references(document: dict) -> set[str]:
    """The array names the JSON refers to: the only members that are read."""
    found: set[str] = set()
    stack = [document.get(k) for k in ("params", "state", "extra")]
    while stack:
        value = stack.pop()
        if isinstance(value, list):
            stack.extend(value)
        elif isinstance(value, dict):
            for tag, body in value.items():
                if tag in ("$array", "$scalar"):
                    found.add(body)
                elif tag == "$sparse" and isinstance(body, dict):
                    found.update(body[p] for p in ("data", "indices", "indptr", "row", "col")
                                 if p in body)
                elif tag == "$random_state" and isinstance(body, dict) and "keys" in body:
                    found.add(body["keys"])
                else:
                    stack.append(body)
    return found
