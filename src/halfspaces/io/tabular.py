"""Delimited text (CSV, TSV), Parquet and NumPy files: one sample a row, one label column.

Text is parsed by :func:`numpy.loadtxt` (C speed); when it rejects a block, or accepts one
with NaN or infinity in it, the block is re-read line by line so that the error names the
file, the line and the problem. Quoted fields holding delimiters are not supported.
"""

from __future__ import annotations

import csv
import dataclasses
import math
import os
import re
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from halfspaces._utils.rounding import exact_digits, first_rounded, may_round
from halfspaces.exceptions import DataFileError
from halfspaces.io import _npfiles
from halfspaces.io._source import raw_source

if TYPE_CHECKING:
    from numpy.typing import NDArray

__all__ = ["NOT_A_LABEL", "TextLayout", "decoded", "label_index", "label_values", "match_columns",
           "parse_rows", "read_numpy", "text_layout"]

LABEL_NAMES = ("label", "target", "class", "y")
"""Header names taken as the label column when none is given (case-insensitive)."""

NOT_A_LABEL = ("", "nan", "+nan", "-nan", "inf", "+inf", "-inf", "infinity", "+infinity",
               "-infinity")
"""Label fields (lower-cased) that mark a missing or non-finite value, never a class."""


@dataclasses.dataclass(frozen=True)
class TextLayout:
    """How to read a delimited text file: found once from its first line."""

    delimiter: str | None
    header: bool
    n_columns: int
    label: int | None  # None: the file has no label column (data to predict)
    names: tuple[str, ...] | None
    features: tuple[int, ...] | None = None  # None: every column but the label, in order
    label_chosen: bool = False  # the label column was not given: chosen by the rule

    def column_name(self, column: int) -> str:
        """``column 'name'`` with a header, else ``column i`` (from 0)."""
        return f"column {self.names[column]!r}" if self.names else f"column {column}"

    @property
    def feature_columns(self) -> list[int]:
        if self.features is not None:
            return list(self.features)
        return [c for c in range(self.n_columns) if c != self.label]


def match_columns(path: str | os.PathLike, layout: TextLayout,
                  names: Sequence[str] | None) -> TextLayout:
    """`layout` with its feature columns found by header name, in the order of `names` (the
    columns a model was trained on), so that a file with its columns in another order is
    read right; a file without a header is read by position.

    The label column is the one `layout` chose if it is not a feature, else the one column
    left over (None if none is).
    """
    if names is None or not layout.header:
        return layout
    missing = [name for name in names if name not in layout.names]
    if missing:
        shown = ", ".join(map(repr, missing[:5])) + (", ..." if len(missing) > 5 else "")
        raise DataFileError(path, f"no column named {shown}, which the model was trained on "
                                  f"(the file has: {_listed(layout.names)})")
    repeated = [name for name in names if layout.names.count(name) > 1]
    if repeated:
        raise DataFileError(path, f"column {repeated[0]!r} appears more than once in the "
                                  "header; rename one of them")
    features = tuple(layout.names.index(name) for name in names)
    rest = [c for c in range(layout.n_columns) if c not in features]
    label = layout.label if layout.label in rest else (rest[0] if len(rest) == 1 else None)
    return dataclasses.replace(layout, label=label, features=features)


def _listed(names: Sequence[str]) -> str:
    return ", ".join(names[:10]) + (", ..." if len(names) > 10 else "")


def text_layout(path: str | os.PathLike, first: bytes, label_column: int | str | None,
                header: bool | None = None, line: int | None = None) -> TextLayout:
    """The delimiter, header and label column of a CSV/TSV file whose first line is `first`
    (line number `line`, for the errors).

    The delimiter comes from the extension (.csv: comma, .tsv/.tab: tab), else from the
    first line (tab, comma, semicolon, else whitespace). The first line is a header if a
    feature field of it is not a number. The label column is `label_column` (a header name
    or an index, negative counting from the end), else a header column named one of
    :data:`LABEL_NAMES`, else the first column.
    """
    text = decoded(path, [first], [line])[0].strip("\r\n")
    delimiter = _delimiter(Path(path), text)
    if (problem := quoting_problem(text, delimiter)) is not None:
        raise DataFileError(path, problem, line=line)
    fields = [f.strip() for f in split_fields(text, delimiter)]
    n = len(fields)
    if header is None:
        header = isinstance(label_column, str) or not all(
            _is_number(f) for i, f in enumerate(fields) if i != _index(label_column, n))
    names = tuple(fields) if header else None
    return TextLayout(delimiter, header, n, label_index(path, label_column, names, n), names,
                      label_chosen=label_column is None)


def split_fields(line: str, delimiter: str | None) -> list[str]:
    """The fields of one line: RFC 4180 quoting where the line has a double quote (a field
    ``"la,bel"`` holds a delimiter; ``""`` inside quotes is one quote), else a plain split
    (whitespace when there is no delimiter)."""
    if delimiter is None:
        return line.split()
    if '"' not in line:
        return line.split(delimiter)
    return next(csv.reader([line], delimiter=delimiter, quotechar='"'), [""])


def quoting_problem(line: str, delimiter: str | None) -> str | None:
    """What breaks RFC 4180's quoting in one line, or None.

    A quoted field must close on its line and be followed by the delimiter or the line's
    end. A quote left open made NumPy's reader join the next line into the field (an
    internal error, or with one line per chunk the label ``x`` of ``1,"x``), and ``"x"y``
    was read as ``xy``: both are refused, naming the line. (A field spanning lines, which
    RFC 4180 allows, is not read: the readers cut the file at line ends.)
    """
    if delimiter is None or '"' not in line:
        return None
    try:
        next(csv.reader([line], delimiter=delimiter, quotechar='"', strict=True), None)
    except csv.Error as exc:
        if "unexpected end of data" in str(exc):
            return ('a quoted field is not closed on its line (a field that spans lines is '
                    'not supported; close the quote, and write a quote inside one as "")')
        return (f"a quoted field is followed by more than the delimiter {delimiter!r} "
                '(write a quote inside a quoted field as "")')
    return None


def _delimiter(path: Path, text: str) -> str | None:
    suffix = path.suffix.lower()
    if suffix == ".csv":
        return ","
    if suffix in (".tsv", ".tab"):
        return "\t"
    return next((d for d in ("\t", ",", ";") if d in text), None)


def _index(label_column, n: int) -> int:
    if label_column is None or isinstance(label_column, str):
        return 0
    return label_column % n if -n <= label_column < n else label_column


def label_index(path, label_column, names, n: int) -> int:
    if isinstance(label_column, str) and not label_column.lstrip("-").isdigit():
        if names is None or label_column not in names:
            known = ", ".join(names) if names else "none: the file has no header"
            raise DataFileError(path, f"no column named {label_column!r} (columns: {known})")
        return names.index(label_column)
    if label_column is None:
        lowered = [name.lower() for name in names] if names else []
        return next((lowered.index(c) for c in LABEL_NAMES if c in lowered), 0)
    index = int(label_column)
    if not -n <= index < n:
        raise DataFileError(path, f"label column {index} does not exist (the file has {n} "
                                  "columns)")
    return index % n


def _is_number(field: str) -> bool:
    try:
        float(field)
    except ValueError:
        return False
    return True


def parse_rows(path, lines: list[bytes], numbers: Sequence[int], layout: TextLayout,
               classes=None, *, text_labels: bool = False) -> tuple[NDArray[np.float64], NDArray]:
    """Parse data lines of `path` (without header, blank or ``#`` lines) into (X, y).

    `numbers` holds the line number of each line, for the errors. With `text_labels` the
    labels stay text even where they are numbers (see :func:`label_values`).
    """
    text = decoded(path, lines, numbers)
    if not _full_width(text, layout):
        raise _locate_text(path, text, numbers, layout, classes, None)
    try:
        quoting = {} if layout.delimiter is None else {"quotechar": '"'}
        X = np.loadtxt(text, delimiter=layout.delimiter, dtype=np.float64, ndmin=2,
                       usecols=layout.feature_columns, comments=None, **quoting)
        raw = None if layout.label is None else np.loadtxt(
            text, delimiter=layout.delimiter, dtype=str, ndmin=1, usecols=[layout.label],
            comments=None, **quoting)
    except (ValueError, IndexError) as exc:
        raise _locate_text(path, text, numbers, layout, classes, exc) from None
    X = X.reshape(len(text), len(layout.feature_columns))
    y = None if raw is None else label_values(np.atleast_1d(raw), classes, text=text_labels)
    if not np.isfinite(X).all() or (raw is not None and y is None):
        raise _locate_text(path, text, numbers, layout, classes, None)
    return X, y


def decoded(path, lines: Sequence[bytes], numbers: Sequence[int | None]) -> list[str]:
    """`lines` as UTF-8 text. A byte that is not UTF-8 is an error naming its line and
    column: replacing it (with U+FFFD) would merge different labels or header names, such
    as Latin-1's é and è, into one, and guessing another encoding could misread them."""
    text = []
    for number, line in zip(numbers, lines, strict=True):
        try:
            text.append(line.decode("utf-8"))
        except UnicodeDecodeError as exc:
            column = len(line[:exc.start].decode("utf-8")) + 1  # valid up to the bad byte
            raise DataFileError(path, f"byte 0x{line[exc.start]:02x} at column {column} is "
                                      "not UTF-8; save the file as UTF-8", line=number) \
                from None
    return text


def _full_width(text: list[str], layout: TextLayout) -> bool:
    """Whether every line has as many fields as the first line. Checked apart from
    :func:`numpy.loadtxt`: given `usecols` it ignores the fields beyond them, and a row
    missing only columns it does not use, so a row with more fields (or one short of a column
    not read) would be cut silently."""
    if layout.delimiter is None:
        return all(len(line.split()) == layout.n_columns for line in text)
    separators = layout.n_columns - 1
    return all(line.count(layout.delimiter) == separators if '"' not in line
               else quoting_problem(line.strip("\r\n"), layout.delimiter) is None
               and len(split_fields(line.strip("\r\n"), layout.delimiter)) == layout.n_columns
               for line in text)


def label_values(raw: NDArray, classes=None, text: bool = False) -> NDArray | None:
    """Labels as float64 when all are numbers (str otherwise, or always with `text`); None
    if one is not allowed."""
    raw = np.char.strip(raw.astype(str))
    kind = None if classes is None else np.asarray(classes).dtype.kind
    try:
        y = raw.astype(np.float64) if not text and kind in (None, "f", "i", "u") else raw
    except ValueError:
        if kind is not None:
            return None
        y = raw
    if y.dtype.kind == "f" and not np.isfinite(y).all():
        return None
    if y.dtype.kind == "U" and np.isin(np.char.lower(y), NOT_A_LABEL).any():
        return None  # a missing value among text labels, not one more class
    if classes is not None and not np.isin(y, np.asarray(classes, dtype=y.dtype)).all():
        return None
    return y


def _locate_text(path, text, numbers, layout, classes, exc) -> DataFileError:
    kind = None if classes is None else np.asarray(classes).dtype.kind
    allowed = None if classes is None else {str(c) for c in np.asarray(classes).tolist()}
    for number, line in zip(numbers, text, strict=True):
        reason = _text_line_problem(line, layout, kind, allowed)
        if reason:
            return DataFileError(path, reason, line=number)
    detail = " ".join(str(exc).split()) if exc is not None else ""
    row = re.search(r"at row (\d+)", detail)
    if row and int(row.group(1)) < len(numbers):  # NumPy's own count, from 0
        return DataFileError(path, detail, line=numbers[int(row.group(1))])
    return DataFileError(path, f"not a valid delimited text file ({detail or 'unknown'})")


def _text_line_problem(line: str, layout: TextLayout, kind, allowed) -> str | None:
    stripped = line.strip("\r\n")
    if (problem := quoting_problem(stripped, layout.delimiter)) is not None:
        return problem
    fields = split_fields(stripped, layout.delimiter)
    if len(fields) != layout.n_columns:
        return f"{len(fields)} fields where the first line has {layout.n_columns}"
    for column in layout.feature_columns:
        problem = _value_problem(fields[column].strip(), column, layout)
        if problem and layout.label_chosen and "is not a number" in problem:
            name = layout.names[column] if layout.names else str(column)
            return (f"{problem} (the label was taken from "
                    f"{layout.column_name(layout.label)}; if {layout.column_name(column)} "
                    f"holds the labels, name it: --label-column {name}, or "
                    f"label_column={name if layout.names else column!r})")
        if problem:
            return problem
    if layout.label is None:
        return None
    return _text_label_problem(fields[layout.label].strip(), kind, allowed)


def _value_problem(field: str, column: int, layout: TextLayout) -> str | None:
    name = layout.column_name(column)
    try:
        # Python's float takes 1_0 and other scripts' digits (Arabic-Indic ١٢), NumPy's
        # parser does not: both are named here rather than by NumPy's 0-based message
        if "_" in field or not field.isascii():
            raise ValueError(field)
        value = float(field)
    except ValueError:
        return f"{name}: {_shorten(field)!r} is not a number"
    if not math.isfinite(value):
        return f"{name}: {field!r}; NaN and infinity are not allowed"
    return None


def _text_label_problem(field: str, kind, allowed) -> str | None:
    if kind in ("f", "i", "u"):
        try:
            value = float(field)
        except ValueError:
            return f"label {_shorten(field)!r} is not a number"
        if not math.isfinite(value):
            return f"label is {field!r}; NaN and infinity are not allowed"
        field = str(value) if kind == "f" else str(int(value))
    if allowed is not None and field not in allowed:
        return f"label {_shorten(field)!r} is not one of the expected labels " \
               f"({', '.join(sorted(allowed))})"
    if kind is None and not field:
        return "the label is missing"
    if kind is None and field.lower() in NOT_A_LABEL:
        return f"label is {field!r}; NaN and infinity are not allowed"
    return None


def _shorten(text: str) -> str:
    return text if len(text) <= 40 else text[:37] + "..."


def _without(names: Sequence[str], index: int) -> list[str]:
    return [n for i, n in enumerate(names) if i != index]


def _plain_labels(y: NDArray, path, what: str, start: int = 0) -> NDArray:
    if y.dtype.kind not in "biuf":
        return y.astype(str)
    labels = y.astype(np.float64)
    _refuse_rounded(path, y, labels, what, start)
    return labels


def _checked_xy(path, X: NDArray, y: NDArray, start: int, columns: Sequence[str] = ()):
    """(X, y), refused at the first row holding NaN or infinity: the feature's column (its
    name from `columns`, else its index among the features) and value, or the label."""
    bad_x = ~np.isfinite(X)
    bad = bad_x.any(axis=1)
    if y is not None and y.dtype.kind == "f":
        bad |= ~np.isfinite(y)
    if y is not None and y.dtype.kind == "U":
        bad |= np.isin(np.char.lower(np.char.strip(y)), NOT_A_LABEL)
    if bad.any():
        row = int(np.argmax(bad))
        if bad_x[row].any():
            j = int(np.argmax(bad_x[row]))
            where = f"column {columns[j]!r}" if columns else f"feature {j}"
            what = f"{where} is {X[row, j]}"
        else:
            what = f"the label is {str(y[row]).strip()!r}"
        raise DataFileError(path, f"row {start + row} holds NaN or infinity ({what})")
    return X, y


def read_numpy(path: str | os.PathLike, label_column: int | None = None,
               mmap: bool = False):
    """(X, y) from ``.npz`` (arrays ``X`` and ``y``) or ``.npy`` (one 2-D array with a label
    column, the first unless `label_column` says otherwise). Never unpickles, and checks
    every array's header against the file before allocating (:mod:`halfspaces.io._npfiles`).

    With `mmap` a ``.npy`` file is returned memory-mapped, as (array, label index), for
    :func:`iter_chunks` to slice.
    """
    source = raw_source(path)
    if _npfiles.is_archive(path, source):
        if mmap:  # the caller slices an .npy array: an archive would be misread
            raise DataFileError(path, "an .npz archive, not an .npy file: name it .npz or "
                                      "give the format npz")
        return _npz_xy(path, _npfiles.load_npz(path, source, ("X", "y")))
    data = _npfiles.load_npy(path, source)
    if data.ndim != 2 or data.shape[1] < 1:
        raise DataFileError(path, f"an .npy data file must hold a 2-D array, not shape "
                                  f"{data.shape}")
    _check_kind(path, data, "its array", _NUMBERS + "US")
    label = label_index(path, label_column, None, data.shape[1])
    if mmap:
        return data, label
    return split_label(path, data, label, 0)


_NUMBERS = "biuf"  # dtype kinds read as float64; complex, dates and records are refused


def _check_kind(path, array: NDArray, what: str, kinds: str) -> None:
    if array.dtype.kind not in kinds:
        raise DataFileError(path, f"{what} holds {array.dtype}, not numbers"
                                  + (" or text labels" if "U" in kinds else ""))


def _npz_xy(path, arrays: dict):
    X, y = arrays["X"], arrays["y"]
    if X.ndim != 2:
        raise DataFileError(path, f"array 'X' has shape {X.shape}, not (samples, features); "
                                  "save X.reshape(-1, 1) for a single feature")
    if y.ndim != 1:
        raise DataFileError(path, f"array 'y' has shape {y.shape}, not one label per sample")
    if len(y) != X.shape[0]:
        raise DataFileError(path, f"array 'y' holds {len(y)} labels for the {X.shape[0]} "
                                  "rows of array 'X'")
    _check_kind(path, X, "array 'X'", _NUMBERS + "US")
    _check_kind(path, y, "array 'y'", _NUMBERS + "US")
    X = _as_numbers(path, X, "array 'X'")
    try:  # bytes labels that are not ASCII
        labels = _plain_labels(y, path, "array 'y'")
    except DataFileError:  # a ValueError too, already naming the file and the array
        raise
    except ValueError as exc:
        raise DataFileError(path, f"array 'y': {exc}") from None
    return _checked_xy(path, X, labels, 0)


def _as_numbers(path, array: NDArray, what: str, start: int = 0) -> NDArray:
    """`array` (2-D, its first row being row `start` of the file) as float64; a text value
    that is not a number, or a number float64 would round, is an error naming `what`, the
    row (from 0) and the value."""
    try:
        converted = np.asarray(array, dtype=np.float64)
    except ValueError:
        pass
    else:
        _refuse_rounded(path, array, converted, what, start)
        return converted
    for row, values in enumerate(array.tolist()):
        bad = next((v for v in values if not _is_number(_text(v))), None)
        if bad is not None:
            raise DataFileError(path, f"{what}, row {start + row}: "
                                      f"{_shorten(_text(bad))!r} is not a number")
    raise DataFileError(path, f"{what}: a value is not a number")  # float() and NumPy differ


def _refuse_rounded(path, array: NDArray, converted: NDArray, what: str, start: int = 0) -> None:
    """Refuse a number of `array` (64-bit ints beyond 2^53, long doubles) that its float64
    conversion `converted` changed: halfspaces computes in float64, and ``certify`` would
    prove its answers about other data (int64 2^53 + 1 and 2^53 are one float64, so two
    points with opposite labels were "exactly" inseparable); two labels would become one
    class. Decimal text is not refused: it is read as the nearest float64, as 0.1 is."""
    if not _may_round_number(array):
        return
    bad = first_rounded(array.ravel(), converted.ravel())
    if bad is None:
        return
    row, column = divmod(bad, array.shape[1]) if array.ndim == 2 else (bad, None)
    where = f"row {start + row}" + ("" if column is None else f", column {column}")
    raise DataFileError(path, f"{what}, {where}: the {array.dtype} value "
                              f"{exact_digits(array.ravel()[bad])} cannot be held exactly in "
                              "float64 (it "
                              f"would be {float(converted.ravel()[bad])!r}); halfspaces "
                              "computes in float64: save the data as float64 if that "
                              "rounding is acceptable, or rescale it")


def _may_round_number(array: NDArray) -> bool:
    """A 64-bit int or a long double (text, Decimals and other objects are read as the
    nearest float64, as decimal text is)."""
    return array.dtype.kind in "iuf" and may_round(array.dtype)


def _text(value) -> str:
    return value.decode("utf-8", "backslashreplace") if isinstance(value, bytes) else value


def split_label(path, block: NDArray, label: int | None, start: int, *,
                text_labels: bool = False):
    """(X, y) from a 2-D block whose column `label` holds the labels (None: no labels);
    with `text_labels`, a text array's labels stay text even where they are numbers."""
    if label is None:
        return _checked_xy(path, _as_numbers(path, block, "features", start), None, start)
    X = _as_numbers(path, np.delete(block, label, axis=1), "features", start)
    y = _block_labels(path, np.asarray(block[:, label]), start, text_labels)
    return _checked_xy(path, X, y, start)


def _block_labels(path, y: NDArray, start: int, text: bool = False) -> NDArray:
    """Labels of an .npy column: numbers as float64, and a text array's labels as float64
    too where all of them are numbers (as a CSV file's) unless `text`, else as text."""
    if y.dtype.kind not in "US" or text:
        return _plain_labels(y, path, "labels", start)
    try:
        return y.astype(np.float64)
    except ValueError:
        return y.astype(str)
