"""svmlight / LIBSVM files: ``label [qid:q] index:value ... [# comment]``, one sample a line.

Plain input (decimal numbers, increasing indices, comments) is parsed by a compiled parser
(:mod:`halfspaces._fast.svmlight`, ~5x scikit-learn's on a9a); anything else by scikit-learn's
:func:`~sklearn.datasets.load_svmlight_file`, whose rules stay the reference. Both run in raw
mode (indices taken as written), so that this module decides the index base once for a whole
file or stream. scikit-learn's errors name neither the file nor the line; when it rejects a
block, or a block breaks our stricter rules (NaN or infinite values, a label outside the
expected set, an index beyond ``n_features``), :func:`line_problem` re-reads that block line
by line and the error names the file, the line and what is wrong.
"""

from __future__ import annotations

import io
import math
import os
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from halfspaces._utils.memory import memory_limit
from halfspaces.exceptions import DataFileError
from halfspaces.io._source import open_data

if TYPE_CHECKING:
    import scipy.sparse as sp
    from numpy.typing import NDArray

__all__ = ["check_width", "dense_budget", "line_problem", "parse_block", "parse_text",
           "read_svmlight", "read_svmlight_base", "read_svmlight_files"]

_MAX_INDEX = 2**31 - 1  # scikit-learn parses indices into a C int
_PARSE_ERRORS = (ValueError, OverflowError, IndexError)


def read_svmlight(
    path: str | os.PathLike,
    *,
    n_features: int | None = None,
    zero_based: bool | str = "auto",
    classes: Sequence | None = None,
) -> tuple[sp.csr_matrix, NDArray[np.float64]]:
    """Read a whole svmlight/LIBSVM file.

    Parameters
    ----------
    path : str or os.PathLike
        The file.
    n_features : int or None, default=None
        Columns of X; None takes the largest index in the file.
    zero_based : bool or "auto", default="auto"
        Whether index 0 is the first column. "auto": 0-based if some line uses index 0,
        1-based (LIBSVM's convention) otherwise.
    classes : sequence or None, default=None
        The allowed labels; None allows any finite label.

    Returns
    -------
    X : scipy.sparse.csr_matrix of shape (n_samples, n_features), float64
    y : ndarray of shape (n_samples,), float64

    Raises
    ------
    DataFileError
        If the file cannot be read, or a line is malformed (the message names the line).

    Examples
    --------
    >>> import pathlib, tempfile
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "tiny.svm"
    >>> _ = path.write_text("1 1:0.5 3:2\\n-1 2:1 # a comment\\n")
    >>> X, y = read_svmlight(path)
    >>> X.toarray(), y
    (array([[0.5, 0. , 2. ],
           [0. , 1. , 0. ]]), array([ 1., -1.]))
    """
    return read_svmlight_files([path], n_features=n_features, zero_based=zero_based,
                               classes=classes)[0]


def read_svmlight_files(
    paths: Sequence[str | os.PathLike],
    *,
    n_features: int | None = None,
    zero_based: bool | str = "auto",
    classes: Sequence | None = None,
) -> list[tuple[sp.csr_matrix, NDArray[np.float64]]]:
    """Read svmlight files into (X, y) pairs sharing one feature space and one index base.

    As in :func:`sklearn.datasets.load_svmlight_files`, "auto" means 1-based unless some
    file uses index 0, and every X gets as many columns as the widest file needs.
    Errors are those of :func:`read_svmlight`.

    Parameters
    ----------
    paths : sequence of str or os.PathLike
        The files.
    n_features, zero_based, classes
        As for :func:`read_svmlight`, for all the files together.

    Returns
    -------
    list of (X, y)
        One pair per file, in order, as :func:`read_svmlight` returns it.
    """
    return read_svmlight_base(paths, n_features=n_features, zero_based=zero_based,
                              classes=classes)[0]


def read_svmlight_base(paths, *, n_features=None, zero_based="auto", classes=None):
    """:func:`read_svmlight_files` and the index base it used (True: 0-based)."""
    raw = [(path, *_read_raw(path)) for path in paths]
    for path, X, _ in raw:
        if X.shape[0] == 0:
            raise DataFileError(path, "the file holds no samples")
    if zero_based == "auto":
        zero_based = any(X.nnz and X.indices.min() == 0 for _, X, _ in raw)
    shift = 0 if zero_based else 1
    if n_features is None:
        for path, X, _ in raw:
            check_width(path, X.shape[1])
        n_features = max([X.shape[1] - shift for _, X, _ in raw] + [0])
    pairs = [
        finish_block(path, X, y, lambda path=path: _lines(path), first_line=1, shift=shift,
                     n_features=n_features, classes=classes)
        for path, X, y in raw
    ]
    return pairs, bool(zero_based)


def parse_block(
    path: str | os.PathLike,
    lines: list[bytes],
    *,
    first_line: int,
    shift: int,
    n_features: int | None,
    classes: Sequence | None = None,
) -> tuple[sp.csr_matrix, NDArray[np.float64]]:
    """Parse consecutive lines of `path` (the first is line `first_line`) into (X, y).

    `shift` is 1 for a 1-based file, 0 for a 0-based one. Used by :func:`iter_chunks`.
    """
    X, y = _parse_raw(path, b"".join(lines), lambda: enumerate(lines, first_line))
    return finish_block(path, X, y, lambda: enumerate(lines, first_line), first_line,
                        shift, n_features, classes)


def parse_text(
    path: str | os.PathLike,
    text,
    *,
    first_line: int,
    shift: int,
    n_features: int | None,
    classes: Sequence | None = None,
) -> tuple[sp.csr_matrix, NDArray[np.float64]]:
    """:func:`parse_block` for a block given as one buffer (bytes or a uint8 array) of
    consecutive lines, the first being line `first_line`: no list of lines is made unless
    an error has to be located."""
    def numbered():
        return enumerate(bytes(text).split(b"\n"), first_line)

    X, y = _parse_raw(path, text, numbered)
    return finish_block(path, X, y, numbered, first_line, shift, n_features, classes)


def finish_block(path, X, y, numbered_lines, first_line: int, shift: int, n_features: int,
                 classes) -> tuple[sp.csr_matrix, NDArray[np.float64]]:
    """Check a raw (0-based) block against the rules and shift it to `n_features` columns.

    `numbered_lines` is called only when a check fails, to find the line to blame.
    """
    if not _block_ok(X, y, shift, n_features, classes):
        raise _locate(path, numbered_lines(), shift, n_features, classes, None)
    width = max(X.shape[1] - shift if n_features is None else n_features, 0)
    if shift:
        X.indices -= shift  # in place: scikit-learn's fresh arrays are ours
    X.resize(X.shape[0], width)  # every index is below width (checked): nothing is cut
    return X, y


def dense_budget() -> int:
    """Bytes one dense weight vector over a file's features may take: a quarter of the
    memory this process may use (:func:`halfspaces._utils.memory.memory_limit`: physical RAM, or
    a container's smaller cgroup limit), as a model keeps a few such vectors: weights,
    averages, a best-so-far."""
    return memory_limit() // 4


def check_width(path: str | os.PathLike, raw_width: int) -> None:
    """Refuse a file whose largest feature index (``raw_width - 1`` as written) would make
    every model allocate more than :func:`dense_budget`; the error names the index and line.
    """
    needed = 8 * raw_width  # float64 weights, one per column
    if needed <= dense_budget():
        return
    index = raw_width - 1
    line = next((number for number, text in _lines(path) if index in _indices(text)), None)
    raise DataFileError(
        path, f"feature index {index} means {raw_width:,} features, and one weight vector "
              f"over them needs {needed / 2**30:.1f} GiB (more than a quarter of the "
              "memory this process may use); is the index a mistake?", line=line)


def _indices(line: bytes) -> set[int]:
    found = set()
    for token in _strip_comment(line).split()[1:]:
        try:
            found.add(int(token.split(b":", 1)[0]))
        except ValueError:
            continue
    return found


def _block_ok(X, y, shift: int, n_features: int, classes) -> bool:
    if X.nnz and X.indices.min() < shift:
        return False
    if X.nnz and n_features is not None and X.indices.max() - shift >= n_features:
        return False
    if not (np.isfinite(X.data).all() and np.isfinite(y).all()):
        return False
    return classes is None or bool(np.isin(y, np.asarray(classes, dtype=np.float64)).all())


def _read_raw(path: str | os.PathLike) -> tuple[sp.csr_matrix, NDArray[np.float64]]:
    """Parse `path` with indices as written (0-based raw); errors name the line."""
    with open_data(path) as handle:
        text = handle.read()
    return _parse_raw(path, text, lambda: _lines(path))


def _parse_raw(path, text: bytes, numbered_lines) -> tuple[sp.csr_matrix, NDArray[np.float64]]:
    """Raw (X, y) of svmlight `text`: the compiled parser, else scikit-learn's.

    The compiled parser (:mod:`halfspaces._fast.svmlight`) takes the plain common case and
    declines anything else, which scikit-learn's parser then reads (or rejects: the error
    names the line found by `numbered_lines`).
    """
    import scipy.sparse as sp

    from halfspaces._fast import svmlight as fast_svmlight

    status, y, indptr, indices, data, width = fast_svmlight.parse(text)
    if status == fast_svmlight.OK:
        return sp.csr_matrix((data, indices, indptr), shape=(len(y), width)), y
    from sklearn.datasets import load_svmlight_file

    try:
        return load_svmlight_file(io.BytesIO(bytes(text)), dtype=np.float64, zero_based=True)
    except _PARSE_ERRORS as exc:
        raise _locate(path, numbered_lines(), 0, None, None, exc) from None


def _lines(path):
    with open_data(path) as handle:
        yield from enumerate(handle, start=1)


def _locate(path, numbered_lines, shift, n_features, classes, exc) -> DataFileError:
    """The error for the first line of `numbered_lines` that breaks the rules."""
    for number, line in numbered_lines:
        reason = line_problem(line, shift=shift, n_features=n_features, classes=classes)
        if reason:
            return DataFileError(path, reason, line=number)
    detail = f" ({' '.join(str(exc).split())})" if exc is not None else ""
    return DataFileError(path, f"not a valid svmlight/LIBSVM file{detail}")


def line_problem(
    line: bytes,
    *,
    shift: int = 0,
    n_features: int | None = None,
    classes: Sequence | None = None,
) -> str | None:
    """What is wrong with one svmlight line, or None if nothing is.

    The rules are scikit-learn's (same tokenizer, same number parsing) plus ours: values
    and labels finite, indices >= `shift` and below ``n_features + shift``, labels in
    `classes`.

    Examples
    --------
    >>> line_problem(b"1 1:0.5 3:2 # ok")
    >>> line_problem(b"1 3:1 2:1")
    'feature index 2 is out of order (it follows 3); indices must increase'
    >>> line_problem(b"+1 1:nan")
    "value of feature 1 is 'nan'; NaN and infinity are not allowed"
    """
    tokens = _strip_comment(line).split()
    if not tokens:
        return None
    problem = _label_problem(tokens[0], classes)
    features = tokens[1:]
    if not problem and features and features[0].startswith(b"qid"):
        problem = None if b":" in features[0] else f"bad token {_show(features[0])}"
        features = features[1:]
    previous = -1
    for token in features:
        if problem:
            return problem
        problem, previous = _pair_problem(token, previous, shift, n_features)
    return problem


def _strip_comment(line: bytes) -> bytes:
    # scikit-learn finds '#' with C strchr, which stops at a NUL byte
    head = line.split(b"\0", 1)[0]
    cut = head.find(b"#")
    return line if cut < 0 else line[:cut]


def _label_problem(token: bytes, classes) -> str | None:
    if b":" in token:
        return f"the line starts with {_show(token)}, not a label"
    try:
        label = float(token)
    except ValueError:
        return f"label {_show(token)} is not a number"
    if not math.isfinite(label):
        return f"label is {_show(token)}; NaN and infinity are not allowed"
    if classes is not None and label not in set(np.asarray(classes, dtype=float).tolist()):
        expected = ", ".join(f"{c:g}" for c in np.asarray(classes, dtype=float))
        return f"label {_show(token)} is not one of the expected labels ({expected})"
    return None


def _pair_problem(token: bytes, previous: int, shift: int, n_features) -> tuple[str | None, int]:
    if b":" not in token:
        return f"bad token {_show(token)}; expected index:value", previous
    index_text, value_text = token.split(b":", 1)
    try:
        index = int(index_text)
    except ValueError:
        return f"feature index {_show(index_text)} is not an integer", previous
    if index > _MAX_INDEX:
        return f"feature index {index} is too large (at most {_MAX_INDEX})", previous
    if index < shift:
        first = "1 (this file is 1-based)" if shift else "0"
        return f"feature index {index} is out of range; indices start at {first}", previous
    if index <= previous:
        what = "repeated" if index == previous else f"out of order (it follows {previous})"
        return f"feature index {index} is {what}; indices must increase", previous
    try:
        value = float(value_text)
    except ValueError:
        return f"value {_show(value_text)} of feature {index} is not a number", previous
    if not math.isfinite(value):
        return f"value of feature {index} is {_show(value_text)}; NaN and infinity are not " \
               "allowed", previous
    if n_features is not None and index - shift >= n_features:
        return f"feature index {index} is beyond the {n_features} features expected", previous
    return None, index


def _show(token: bytes) -> str:
    text = token.decode("utf-8", "backslashreplace")
    return repr(text if len(text) <= 40 else text[:37] + "...")
