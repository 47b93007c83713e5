"""CSV/TSV, Parquet and NumPy files cut into (X, y) blocks of a fixed number of rows.

The tabular half of :func:`halfspaces.io.iter_chunks` (svmlight has its own, threaded path
in :mod:`halfspaces.io._files`): CSV/TSV is read line by line, Parquet batch by batch and
re-cut to the chunk size, .npy memory-mapped, .npz loaded whole and sliced; every block is
checked against the expected width and labels before it is handed out.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from halfspaces._validation import unknown_labels
from halfspaces.exceptions import DataFileError
from halfspaces.io import tabular
from halfspaces.io._parquet import read_parquet
from halfspaces.io._source import open_data

__all__ = ["array_chunks", "first_data_line", "is_data_line", "text_chunks"]


def is_data_line(line: bytes) -> bool:
    """Whether a line of a text file holds data: neither blank nor a ``#`` comment."""
    stripped = line.strip()
    return bool(stripped) and not stripped.startswith(b"#")


def text_chunks(path, chunk_size, n_features, label_column, classes, skip, feature_names,
                text_labels=False):
    header_number, first = first_data_line(path)
    if first is None:
        return
    layout = tabular.text_layout(path, first, label_column, line=header_number)
    if feature_names is not None and layout.header:
        layout = tabular.match_columns(path, layout, feature_names)
    elif _unlabelled(layout.n_columns, n_features, label_column):
        layout = dataclasses.replace(layout, label=None)
    width = len(layout.feature_columns)
    if width == 0:
        raise DataFileError(path, _NO_FEATURES)
    if n_features is not None and n_features != width:
        raise DataFileError(path, f"{width} feature columns where {n_features} are expected")
    skip_header = header_number if layout.header else 0
    for _, numbers, lines in _line_blocks(path, chunk_size, skip, False, skip_header):
        yield tabular.parse_rows(path, lines, numbers, layout, classes,
                                 text_labels=text_labels)


def first_data_line(path) -> tuple[int, bytes | None]:
    """(line number, line) of the first line that is neither blank nor a comment, or
    (0, None) for a file without one: the header of a CSV/TSV file that has one."""
    with open_data(path) as handle:
        return next(((n, line) for n, line in enumerate(handle, 1) if is_data_line(line)),
                    (0, None))


def _line_blocks(path, chunk_size, skip: int, keep_all: bool, header_line: int = 0):
    """(first line number, data line numbers, lines) per block of `chunk_size` data lines.

    With `keep_all`, blank and comment lines inside a block are kept (svmlight's parser
    skips them) so that the block's lines are consecutive.
    """
    limit = chunk_size or float("inf")
    with open_data(path) as handle:
        lines, numbers = [], []
        for number, line in enumerate(handle, 1):
            if not is_data_line(line) or number == header_line:
                if keep_all and lines:
                    lines.append(line)
                continue
            if skip:
                skip -= 1
                continue
            lines.append(line)
            numbers.append(number)
            if len(numbers) >= limit:
                yield numbers[0], numbers, lines
                lines, numbers = [], []
        if numbers:
            yield numbers[0], numbers, lines


def array_chunks(path, fmt, chunk_size, n_features, label_column, classes, skip,
                 text_labels=False):
    if fmt == "parquet":
        blocks = read_parquet(path, label_column, batch_size=chunk_size or 65_536)
        blocks = _rechunk(blocks, chunk_size, skip)
    elif fmt == "npy":
        data, label = tabular.read_numpy(path, label_column, mmap=True)
        if _unlabelled(data.shape[1], n_features, label_column):
            label = None
        # text labels stay text where the expected classes are text (a chunk of them may
        # all be numbers)
        text_labels = text_labels or _is_text(classes)
        blocks = (tabular.split_label(path, data[i:i + _step(chunk_size, data)], label, i,
                                      text_labels=text_labels)
                  for i in range(skip, data.shape[0], _step(chunk_size, data)))
    else:
        blocks = _npz_blocks(path, chunk_size, skip)
    for X, y in blocks:
        yield _check_block(path, X, y, n_features, classes)


def _npz_blocks(path, chunk_size, skip):
    """Slices of an .npz file's arrays. A function of its own: a generator expression reads
    its free names when each block is made, and in the caller's scope the loop over the
    blocks rebinds X and y, so every block after the first would slice the first block."""
    X, y = tabular.read_numpy(path)
    step = _step(chunk_size, X)
    return ((X[i:i + step], y[i:i + step]) for i in range(skip, X.shape[0], step))


def _step(chunk_size, data) -> int:
    return chunk_size or max(1, data.shape[0])


def _rechunk(blocks, chunk_size, skip):
    """Blocks of exactly `chunk_size` rows (None: one block) from blocks of any size."""
    pending = []
    for X, y in blocks:
        if skip >= X.shape[0]:
            skip -= X.shape[0]
            continue
        X, y, skip = X[skip:], y[skip:], 0
        pending.append((X, y))
        rows = sum(x.shape[0] for x, _ in pending)
        while chunk_size and rows >= chunk_size:
            X, y = _concat(pending)
            yield X[:chunk_size], y[:chunk_size]
            pending, rows = [(X[chunk_size:], y[chunk_size:])], rows - chunk_size
    if pending and sum(x.shape[0] for x, _ in pending):
        yield _concat(pending)


def _concat(pending):
    return np.vstack([x for x, _ in pending]), np.concatenate([y for _, y in pending])


def _unlabelled(n_columns: int, n_features: int | None, label_column) -> bool:
    """Whether a table holds features only: as many columns as the model has features."""
    return label_column is None and n_features is not None and n_columns == n_features


_NO_FEATURES = "no feature columns: its only column is the label"


def _is_text(classes) -> bool:
    return classes is not None and np.asarray(classes).dtype.kind in "US"


def _check_block(path, X, y, n_features, classes):
    if X.shape[1] == 0:
        raise DataFileError(path, _NO_FEATURES)
    if n_features is not None and X.shape[1] != n_features:
        raise DataFileError(path, f"{X.shape[1]} feature columns where {n_features} are "
                                  "expected")
    if classes is not None and y is not None:
        bad = _unexpected(y, np.asarray(classes))
        if bad.any():  # the label as Python shows it, not NumPy 2's np.float64(...)
            label = y[np.argmax(bad)]
            label = label.item() if isinstance(label, np.generic) else label
            raise DataFileError(path, f"label {label!r} is not one of the expected labels "
                                      f"({', '.join(map(str, classes))})")
    return X, y


def _unexpected(y, classes) -> np.ndarray:
    """Which labels equal no class, compared exactly (as encode_targets compares them).

    np.isin compares int64 labels with uint64 classes in float64, where 2**63 - 1 and 2**63
    are one number: such a label passed here and was refused later by a plain ValueError
    that named neither the file nor the label. Each distinct label is compared once.
    """
    distinct, inverse = np.unique(y, return_inverse=True)
    unknown = set(unknown_labels(distinct.tolist(), classes))
    return np.array([label in unknown for label in distinct.tolist()], dtype=bool)[inverse]
