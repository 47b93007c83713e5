"""One entry point per job over every format: :func:`read`, :func:`scan`, :func:`iter_chunks`.

Here too: finding a file's format, and svmlight's chunks (its text cut at line ends by a
compiled scan and parsed by a pool of threads, :func:`svmlight_raw_chunks`). The tabular
formats' chunks come from :mod:`halfspaces.io._table_chunks`.
"""

from __future__ import annotations

import dataclasses
import glob
import itertools
import os
import sys
from collections.abc import Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np

from halfspaces._fast.svmlight import cut_lines
from halfspaces.exceptions import DataFileError
from halfspaces.io import svmlight
from halfspaces.io._ahead import ahead
from halfspaces.io._npfiles import SIGNATURE_LENGTH, binary_format
from halfspaces.io._source import open_data
from halfspaces.io._table_chunks import array_chunks, is_data_line, text_chunks

__all__ = ["FORMATS", "MAX_ROWS", "DataInfo", "check_count", "detect_format", "expand_paths",
           "iter_chunks", "read", "scan"]

FORMATS = ("svmlight", "csv", "parquet", "npy", "npz")
_SUFFIXES = {
    ".svm": "svmlight", ".svmlight": "svmlight", ".libsvm": "svmlight", ".t": "svmlight",
    ".csv": "csv", ".tsv": "csv", ".tab": "csv",
    ".parquet": "parquet", ".pq": "parquet", ".npy": "npy", ".npz": "npz",
}
DEFAULT_CHUNK_SIZE = 10_000
MAX_ROWS = 2**63 - 1
"""The largest row count a chunk may have: the compiled line cutter counts rows in int64."""


def check_count(value: Any, name: str, what: str = "a positive number of rows") -> int:
    """`value` if it is an integer in [1, :data:`MAX_ROWS`], else a ValueError naming `name`.

    A bool is refused (``True`` is 1 to Python, never a row count meant by a user), and so is
    a float even when whole: a bad count once reached loops that never end (``chunk_size=-1``
    or ``2.5`` on svmlight, where the block is cut when the rows found equal the count).

    Parameters
    ----------
    value : object
        The count to check.
    name : str
        The parameter's name, for the error.
    what : str, default="a positive number of rows"
        What the count means, for the error.

    Returns
    -------
    int
        `value` itself.

    Examples
    --------
    >>> check_count(5, "chunk_size")
    5
    >>> check_count(2.5, "chunk_size")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: chunk_size=2.5 must be a positive number of rows (an int from 1 to ...).
    """
    if isinstance(value, bool | np.bool_) or not isinstance(value, int | np.integer) \
            or not 1 <= value <= MAX_ROWS:
        raise ValueError(f"{name}={value!r} must be {what} (an int from 1 to {MAX_ROWS}).")
    return int(value)


@dataclasses.dataclass(frozen=True)
class DataInfo:
    """What a first pass over a file found: enough to stream it with fixed shapes.

    Attributes
    ----------
    format : str
        One of :data:`FORMATS`.
    n_samples, n_features : int
        Rows, and feature columns (the widest index for svmlight).
    classes : ndarray or None
        The distinct labels, sorted; None when the scan did not collect them (a regression
        target).
    zero_based : bool
        Index base of an svmlight file (True for other formats).
    """

    format: str
    n_samples: int
    n_features: int
    classes: Any
    zero_based: bool = True


def expand_paths(paths) -> list[str]:
    """The files named by a path, a glob pattern, or a sequence of them; sorted per pattern.

    Parameters
    ----------
    paths : str, path or sequence of them
        Files or glob patterns (``"data/part-*.svm"``).

    Returns
    -------
    files : list of str
        Each pattern's matches in sorted order, the patterns in the order given.

    Raises
    ------
    FileNotFoundError
        If a pattern matches no file.
    """
    patterns = [paths] if isinstance(paths, (str, os.PathLike)) else list(paths)
    found = []
    for pattern in patterns:
        matches = sorted(glob.glob(str(pattern)))
        if not matches:
            raise FileNotFoundError(f"no file matches {str(pattern)!r}.")
        found.extend(matches)
    return found


def detect_format(path: str | os.PathLike, format: str | None = None) -> str:
    """The format of `path`: `format` if given, else from the extension, else sniffed.

    Sniffing reads the first bytes through :func:`~halfspaces.io._source.open_data`
    (decompressed, and buffered for a pipe or FIFO, so that the reader still sees all of
    it): a binary signature (.npz, .npy, Parquet) decides first, then the first data line
    (svmlight if its second token holds a colon, else CSV). A binary file read as text
    was parsed as CSV, or its first "line" could be the whole file.

    The extension or `format` wins over the content, but the text readers (svmlight, CSV)
    check the first bytes they read: a ``data.csv`` that holds .npy, .npz or Parquet bytes
    (compressed or not), even with ``format="csv"``, is a :class:`DataFileError` naming the
    format found and the `format` or extension that reads it.

    Parameters
    ----------
    path : str or os.PathLike
        The data file (a pipe or FIFO too).
    format : str or None, default=None
        One of :data:`FORMATS` (or "tsv", read as "csv"), which then wins.

    Returns
    -------
    str
        One of :data:`FORMATS`.

    Examples
    --------
    >>> detect_format("train.csv"), detect_format("a9a.t"), detect_format("x.bin", "npy")
    ('csv', 'svmlight', 'npy')
    """
    if format is not None:
        fmt = "csv" if format == "tsv" else format
        if fmt not in FORMATS:
            raise ValueError(f"format={format!r} is not one of {', '.join(FORMATS)}, tsv.")
        return fmt
    suffix = Path(path).suffix.lower()
    if suffix in _SUFFIXES:
        return _SUFFIXES[suffix]
    return _sniff(path)


def _sniff(path) -> str:
    with open_data(path, binary=True) as handle:
        head = handle.read(SIGNATURE_LENGTH)
        binary = binary_format(head)
        if binary is not None:
            return binary
        # the rest of the line the signature bytes end in (they may hold a line or more)
        lines = itertools.chain((head + handle.readline()).splitlines(keepends=True), handle)
        first = next((line for line in lines if is_data_line(line)), b"")
    tokens = first.split(b"#", 1)[0].split()
    return "svmlight" if len(tokens) > 1 and b":" in tokens[1] else "csv"


def read(path: str | os.PathLike, *, format: str | None = None,
         label_column: int | str | None = None, zero_based: bool | str = "auto",
         n_features: int | None = None, classes: Sequence | None = None,
         feature_names: Sequence[str] | None = None):
    """Read a whole data file into (X, y).

    Parameters
    ----------
    path : str or os.PathLike
        An svmlight/LIBSVM, CSV/TSV, Parquet, .npy or .npz file.
    format : str or None, default=None
        One of :data:`FORMATS` (or "tsv"); None goes by the extension, else sniffs.
    label_column : int or str or None, default=None
        Tabular formats: the label column, by header name or index (see
        :func:`halfspaces.io.tabular.text_layout`).
    zero_based : bool or "auto", default="auto"
        svmlight only: the index base.
    n_features : int or None, default=None
        Expected feature count (e.g. a model's ``n_features_in_``); None takes the file's.
    classes : sequence or None, default=None
        The allowed labels; a row with another label is an error naming its line.
    feature_names : sequence of str or None, default=None
        CSV/TSV with a header: the feature columns by name (see :func:`iter_chunks`).

    Returns
    -------
    X : scipy.sparse.csr_matrix (svmlight) or ndarray (other formats), float64
    y : ndarray of float64 labels (str for non-numeric tabular labels)

    Raises
    ------
    DataFileError
        If the file is unreadable or malformed; the message names file, line and problem.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "tiny.csv"
    >>> _ = path.write_text("x1,x2,label\\n0.5,1,yes\\n2,-1,no\\n")
    >>> X, y = read(path)
    >>> X, y
    (array([[ 0.5,  1. ],
           [ 2. , -1. ]]), array(['yes', 'no'], dtype='<U3'))
    """
    fmt = detect_format(path, format)
    if fmt == "svmlight":
        return svmlight.read_svmlight(path, n_features=n_features, zero_based=zero_based,
                                      classes=classes)
    X, y = next(iter_chunks(path, chunk_size=None, format=fmt, label_column=label_column,
                            n_features=n_features, classes=classes,
                            feature_names=feature_names), (None, None))
    if X is None:
        raise DataFileError(path, "the file holds no samples")
    return X, y


def scan(path: str | os.PathLike, *, format: str | None = None,
         label_column: int | str | None = None, zero_based: bool | str = "auto",
         chunk_size: int = DEFAULT_CHUNK_SIZE, classes: bool = True) -> DataInfo:
    """One bounded-memory pass over `path`: sizes, labels and index base, all rows checked.

    Parameters
    ----------
    path, format, label_column, zero_based
        As for :func:`read`.
    chunk_size : int, default=10000
        Rows held in memory at a time.
    classes : bool, default=True
        Collect the distinct labels. False for a regression target, whose distinct values
        can be as many as the rows (memory beyond the chunk's): ``classes`` is then None.

    Returns
    -------
    DataInfo
        Rows, features, sorted classes (or None) and the index base (svmlight).

    Examples
    --------
    >>> import pathlib, tempfile
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "tiny.svm"
    >>> _ = path.write_text("1 1:1\\n-1 4:1\\n1 2:1\\n")
    >>> info = scan(path, chunk_size=2)
    >>> info.n_samples, info.n_features, info.classes.tolist(), info.zero_based
    (3, 4, [-1.0, 1.0], False)
    """
    check_count(chunk_size, "chunk_size")
    fmt = detect_format(path, format)
    if fmt == "svmlight":
        return _scan_svmlight(path, zero_based, chunk_size, classes)
    n_samples, n_features, numbers, texts = 0, 0, set(), set()
    for X, y in iter_chunks(path, chunk_size=chunk_size, format=fmt,
                            label_column=label_column):
        n_samples, n_features = n_samples + X.shape[0], X.shape[1]
        if classes:
            (texts if y.dtype.kind == "U" else numbers).update(np.unique(y).tolist())
    if not classes:
        return DataInfo(fmt, n_samples, n_features, None)
    if numbers and texts:
        # a chunk's labels are numbers when all of that chunk's are; read whole, no label
        # would be a number: take them all as text, as read() does
        numbers, texts = set(), _label_texts(path, fmt, chunk_size, label_column)
    return DataInfo(fmt, n_samples, n_features, _sorted(numbers or texts))


def _label_texts(path, fmt, chunk_size, label_column) -> set[str]:
    """Every label of a CSV/TSV or text .npy file, as text (the formats whose chunks can
    differ in the type of their labels)."""
    if fmt == "csv":
        chunks = text_chunks(path, chunk_size, None, label_column, None, 0, None,
                             text_labels=True)
    else:
        chunks = array_chunks(path, fmt, chunk_size, None, label_column, None, 0,
                              text_labels=True)
    return set().union(*(np.unique(y).tolist() for _, y in chunks))


def _scan_svmlight(path, zero_based, chunk_size: int, classes: bool = True) -> DataInfo:
    n_samples, width, smallest, labels = 0, 0, None, set()
    for X, y in svmlight_raw_chunks(path, chunk_size):
        n_samples += X.shape[0]
        if classes:
            labels.update(np.unique(y).tolist())
        if X.nnz:
            width = max(width, int(X.indices.max()) + 1)
            smallest = min(int(X.indices.min()), width if smallest is None else smallest)
    svmlight.check_width(path, width)
    zero = smallest == 0 if zero_based == "auto" else bool(zero_based)
    return DataInfo("svmlight", n_samples, width - (0 if zero else 1) if width else 0,
                    _sorted(labels) if classes else None, zero)


def svmlight_raw_chunks(path, chunk_size: int | None, *, shift: int = 0,
                        n_features: int | None = None, classes=None, skip: int = 0):
    """(X, y) blocks of an svmlight file, read by a thread and parsed a few blocks ahead by
    a pool of threads (the compiled parser releases the GIL), handed out in file order.

    With the default ``shift=0, n_features=None`` indices are raw (as written) and each X is
    as wide as its own largest index: the caller decides the index base and width.
    """
    workers = max(1, min(_PARSERS, os.cpu_count() or 1))
    pool = ThreadPoolExecutor(workers, thread_name_prefix="halfspaces-parser")

    def parse(first, text):
        return svmlight.parse_text(path, text, first_line=first, shift=shift,
                                   n_features=n_features, classes=classes)

    jobs = (pool.submit(parse, first, text)
            for first, text in _svmlight_texts(path, chunk_size, skip))
    try:
        for job in ahead(jobs, depth=workers + 1):
            yield job.result()
    finally:
        pool.shutdown(wait=False, cancel_futures=True)


_PARSERS = 4  # parsing threads at most; a few blocks of text and their arrays in memory
_READ_BYTES = 1 << 18  # a few of these are alive at once: the memory bound of a stream


def _svmlight_texts(path, chunk_size, skip: int):
    """(line number, text) per block of `chunk_size` data lines, after `skip` of them.

    The file is read in large pieces and cut at line ends by a compiled scan, so no Python
    object is made per line; a block's text runs from its first data line to the end of its
    last, the blank and comment lines between them included (the parser skips them).
    """
    limit = chunk_size or sys.maxsize
    with open_data(path) as handle:
        line, parts, first, found = 1, [], 0, 0
        for block in line_ended_blocks(handle, _READ_BYTES):
            cut = len(block)
            buf = np.frombuffer(block, dtype=np.uint8)
            pos = 0
            while pos < cut:
                if skip:
                    _, pos, got, _, newlines = cut_lines(buf, pos, skip)
                    skip, line = skip - got, line + newlines
                    continue
                start, end, got, before, newlines = cut_lines(buf, pos, limit - found)
                if parts:
                    parts.append(buf[pos:end])
                elif got:
                    first = line + before
                    parts.append(buf[start:end])
                line, found, pos = line + newlines, found + got, end
                if found == limit:
                    yield first, _joined(parts)
                    parts, found = [], 0
        if found:
            yield first, _joined(parts)


def line_ended_blocks(handle, size: int):
    """The bytes of `handle` in blocks that end at a line end (the last block at the end of
    the file), reading `size` bytes at a time.

    A line longer than `size` arrives in many reads: its pieces are kept in a list and joined
    once, when its end arrives, so each byte is copied a bounded number of times whatever
    the length of its line (joining the unfinished line to every read copied a 128 MB line
    about 500 times: 48 s). Only the part of a read after its last line end is carried into
    the next block.
    """
    pending: list[bytes] = []
    while data := handle.read(size):
        end = data.rfind(b"\n") + 1
        if not end:  # still inside one line
            pending.append(data)
            continue
        pending.append(data[:end])
        yield b"".join(pending)
        pending = [data[end:]] if end < len(data) else []
    if pending:
        yield b"".join(pending)


def _joined(parts):
    return parts[0] if len(parts) == 1 else np.concatenate(parts)


def _sorted(labels: set):
    return np.array(sorted(labels))


def iter_chunks(
    path: str | os.PathLike,
    chunk_size: int | None = DEFAULT_CHUNK_SIZE,
    n_features: int | None = None,
    *,
    format: str | None = None,
    label_column: int | str | None = None,
    zero_based: bool | str = "auto",
    classes: Sequence | None = None,
    skip: int = 0,
    feature_names: Sequence[str] | None = None,
) -> Iterator[tuple[Any, Any]]:
    """Yield (X, y) blocks of `chunk_size` rows, holding only one block in memory at a time.

    Parameters
    ----------
    path : str or os.PathLike
        Any format of :func:`read`. svmlight text is read in large blocks, cut at line ends
        by compiled code and parsed by background threads a few chunks ahead; CSV/TSV is read
        line by line, Parquet batch by batch, .npy memory-mapped; .npz (compressed) is loaded
        whole, then sliced.
    chunk_size : int or None, default=10000
        Rows per block (the last may be shorter); None yields the whole file as one block.
    n_features : int or None, default=None
        Columns of every X. None: for svmlight, found by a first pass (:func:`scan`); for
        tabular formats, the file's. With `n_features` given and ``zero_based="auto"`` an
        svmlight file is taken as 1-based (LIBSVM's convention), without a first pass.
    format, label_column, zero_based, classes
        As for :func:`read`. A CSV/TSV or ``.npy`` file with exactly `n_features` columns
        and no `label_column` given has no label column (data to predict): y is then None.
        Without `classes`, a chunk's labels are numbers when all of that chunk's are; give
        ``scan(path).classes`` to type them as :func:`read` types the whole file's.
    skip : int, default=0
        Rows to skip first (without parsing them), e.g. to resume a stream.
    feature_names : sequence of str or None, default=None
        CSV/TSV with a header: the feature columns by name, in this order (e.g. those a
        model was trained on, from :func:`column_names`); the label is then the column
        left over. Files without a header, and other formats, are read by position.

    Returns
    -------
    iterator of (X, y)
        X a scipy.sparse.csr_matrix (svmlight) or an ndarray of shape (rows, n_features);
        y an ndarray of shape (rows,), or None for a file without labels. The arguments
        are checked, and the format detected, before the iterator is returned.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "tiny.svm"
    >>> _ = path.write_text("1 1:1\\n-1 2:1\\n1 3:1\\n")
    >>> [(X.shape, y.tolist()) for X, y in iter_chunks(path, chunk_size=2)]
    [((2, 3), [1.0, -1.0]), ((1, 3), [1.0])]
    """
    if chunk_size is not None:
        check_count(chunk_size, "chunk_size")
    fmt = detect_format(path, format)
    if fmt == "svmlight":
        return _svmlight_chunks(path, chunk_size, n_features, zero_based, classes, skip)
    if fmt == "csv":
        return text_chunks(path, chunk_size, n_features, label_column, classes, skip,
                           feature_names)
    return array_chunks(path, fmt, chunk_size, n_features, label_column, classes, skip)


def _svmlight_chunks(path, chunk_size, n_features, zero_based, classes, skip):
    if n_features is None:
        info = _scan_svmlight(path, zero_based, chunk_size or DEFAULT_CHUNK_SIZE)
        n_features, zero_based = info.n_features, info.zero_based
    shift = 0 if zero_based is True else 1
    yield from svmlight_raw_chunks(path, chunk_size, shift=shift, n_features=n_features,
                                   classes=classes, skip=skip)
