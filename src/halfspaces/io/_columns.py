"""Which columns of a tabular file are which: the feature columns' header names
(:func:`column_names`, by which predict matches a file's columns to a model's; with
Parquet's, :func:`feature_column_names`), the column taken as the label when none is given
(:func:`default_label_column`), and the line a row was read from (:func:`row_line`)."""

from __future__ import annotations

import os

from halfspaces.io import tabular
from halfspaces.io._files import detect_format
from halfspaces.io._source import open_data, raw_source
from halfspaces.io._table_chunks import first_data_line, is_data_line

__all__ = ["column_names", "default_label_column", "feature_column_names", "row_line"]


def column_names(path: str | os.PathLike, *, format: str | None = None,
                 label_column: int | str | None = None) -> list[str] | None:
    """The header names of the feature columns of a CSV/TSV file, in the order :func:`read`
    returns them; None for a file without a header (or with a repeated name) or of another
    format.

    Parameters
    ----------
    path : str or os.PathLike
        The data file.
    format, label_column
        As for :func:`read`.

    Returns
    -------
    list of str or None
        The feature columns' names.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "tiny.csv"
    >>> _ = path.write_text("x1,label,x2\\n0.5,yes,1\\n")
    >>> column_names(path)
    ['x1', 'x2']
    """
    if detect_format(path, format) != "csv":
        return None
    number, first = first_data_line(path)
    if first is None:
        return None
    layout = tabular.text_layout(path, first, label_column, line=number)
    names = layout.names
    if not layout.header or names is None or len(set(names)) < layout.n_columns:
        return None  # without unique names, columns can only be matched by position
    return [names[c] for c in layout.feature_columns]


def default_label_column(path: str | os.PathLike, *, format: str | None = None) -> str | None:
    """Which column :func:`read` takes as the label when none is given, in words (``column
    'income'``, ``column 0``), for a CSV/TSV, Parquet or .npy file; None for other formats
    (svmlight's label is its first token; .npz holds y apart).

    The rule: a header column named one of label, target, class or y (any case), else the
    first column.

    Parameters
    ----------
    path : str or os.PathLike
        The data file.
    format : str or None, default=None
        As for :func:`read`.

    Returns
    -------
    str or None
        ``column 'name'`` (a header's) or ``column i`` (from 0); None where the format has
        no label column to choose.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "tiny.csv"
    >>> _ = path.write_text("age,hours,income01\\n25,40,1\\n")
    >>> default_label_column(path)
    "column 'age'"
    """
    fmt = detect_format(path, format)
    if fmt == "csv":
        number, first = first_data_line(path)
        if first is None:
            return None
        layout = tabular.text_layout(path, first, None, line=number)
        return None if layout.label is None else layout.column_name(layout.label)
    if fmt == "parquet":
        try:
            import pyarrow.parquet as pq

            names = tuple(pq.ParquetFile(raw_source(path)).schema_arrow.names)
        except Exception:  # noqa: BLE001 - the reader names the problem itself
            return None
        return f"column {names[tabular.label_index(path, None, names, len(names))]!r}"
    return "column 0" if fmt == "npy" else None


def feature_column_names(path: str | os.PathLike, *, format: str | None = None,
                         label_column: int | str | None = None) -> list[str] | None:
    """The names of the feature columns of a CSV/TSV file with a header (as
    :func:`column_names`) or of a Parquet file, in the order :func:`read` returns them;
    None for other formats and for text without a header.

    Parameters
    ----------
    path : str or os.PathLike
        The data file.
    format, label_column
        As for :func:`read`.

    Returns
    -------
    list of str or None
        The feature columns' names.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "tiny.csv"
    >>> _ = path.write_text("x1,label,w\\n0.5,yes,2\\n")
    >>> feature_column_names(path)
    ['x1', 'w']
    """
    fmt = detect_format(path, format)
    if fmt != "parquet":
        return column_names(path, format=fmt, label_column=label_column)
    try:
        import pyarrow.parquet as pq

        names = tuple(pq.ParquetFile(raw_source(path)).schema_arrow.names)
    except Exception:  # noqa: BLE001 - the reader names the problem itself
        return None
    label = tabular.label_index(path, label_column, names, len(names))
    return [name for i, name in enumerate(names) if i != label]


def row_line(path: str | os.PathLike, row: int, *, format: str | None = None) -> int | None:
    """The line (1-based, counting every physical line, as :class:`DataFileError` does) of
    data row `row` (0-based, as :func:`read` returns the rows) of a CSV/TSV file; None for
    other formats, or past the last row.

    Parameters
    ----------
    path : str or os.PathLike
        The data file.
    row : int
        The row, from 0, among the rows :func:`read` returns.
    format : str or None, default=None
        As for :func:`read`.

    Returns
    -------
    int or None
        The line number.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "tiny.csv"
    >>> _ = path.write_text("x,label\\n# a comment\\n1,a\\n\\n2,b\\n")
    >>> row_line(path, 1)
    5
    """
    if detect_format(path, format) != "csv":
        return None
    number, first = first_data_line(path)
    if first is None:
        return None
    header = number if tabular.text_layout(path, first, None, line=number).header else 0
    with open_data(path) as handle:
        for n, line in enumerate(handle, 1):
            if not is_data_line(line) or n == header:
                continue
            if row == 0:
                return n
            row -= 1
    return None
