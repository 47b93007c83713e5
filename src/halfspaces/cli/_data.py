"""Reading the data files named on the command line (LIBSVM / svmlight for now).

scikit-learn's parser is fast but its errors name neither the file nor the line; this module
adds both, so that a bad file gives one actionable message.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the CLI imports NumPy/SciPy only when a command runs
    import scipy.sparse as sp
    from numpy.typing import NDArray

__all__ = ["DataFileError", "read_svmlight_files"]


class DataFileError(ValueError):
    """A data file is missing, unreadable or malformed."""


def read_svmlight_files(
    paths: list[Path],
) -> list[tuple[sp.csr_matrix, NDArray]]:
    """Read svmlight files into (X, y) pairs that share one feature space.

    As in :func:`sklearn.datasets.load_svmlight_files`, indices count from 1 unless some
    file uses index 0, and every X gets as many columns as the widest file needs.

    Parameters
    ----------
    paths : list of Path
        The files, e.g. ``[train]`` or ``[train, test]``.

    Returns
    -------
    list of (X, y)
        One CSR float64 matrix and one label vector per file.

    Raises
    ------
    DataFileError
        If a file cannot be read or parsed; the message names the file and, when it can be
        found, the first bad line.
    """
    import scipy.sparse as sp

    raw = [_read_zero_based(path) for path in paths]
    # scikit-learn's "auto" rule: 1-based unless some file uses index 0 (or is empty)
    shift = int(all(X.nnz and X.indices.min() > 0 for X, _ in raw))
    n_features = max(X.shape[1] for X, _ in raw) - shift
    return [
        (sp.csr_matrix((X.data, X.indices - shift, X.indptr), shape=(X.shape[0], n_features)), y)
        for X, y in raw
    ]


def _read_zero_based(path: Path) -> tuple[sp.csr_matrix, NDArray]:
    """Parse `path` taking its indices as 0-based column numbers (the caller may shift)."""
    import numpy as np
    from sklearn.datasets import load_svmlight_file

    try:
        return load_svmlight_file(os.fspath(path), dtype=np.float64, zero_based=True)
    except OSError as exc:
        raise DataFileError(f"cannot read {path}: {exc.strerror or exc}") from exc
    except ValueError as exc:
        line = _first_bad_line(path)
        where = f"{path}, line {line}" if line else f"{path}"
        raise DataFileError(f"{where}: not a valid svmlight/LIBSVM file ({exc})") from exc


def _first_bad_line(path: Path) -> int | None:
    """The number of the first line that breaks the svmlight format, or None if none does.

    Only called after scikit-learn has rejected the file, so its cost is paid on errors only.
    """
    with open(path, "rb") as lines:
        for number, line in enumerate(lines, start=1):
            if not _is_valid_line(line):
                return number
    return None


def _is_valid_line(line: bytes) -> bool:
    """``label [qid:q] index:value ...`` with increasing indices >= 0; ``#`` starts a comment."""
    tokens = line.split(b"#", 1)[0].split()
    if not tokens:
        return True
    try:
        float(tokens[0])
        indices = [_parse_pair(token) for token in tokens[1:] if not token.startswith(b"qid:")]
    except ValueError:
        return False
    return min(indices, default=0) >= 0 and all(a < b for a, b in zip(indices, indices[1:]))


def _parse_pair(token: bytes) -> int:
    """The index of an ``index:value`` token; ValueError if either part is not a number."""
    index, value = token.split(b":")  # ValueError unless exactly one ":"
    float(value)
    return int(index)
