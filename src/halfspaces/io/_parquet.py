"""Parquet files as (X, y), whole or in batches, through pyarrow (the ``parquet`` extra).

Every column but the label must be numeric and without nulls; 64-bit integers and decimals
that float64 would round are refused by name, as the other binary readers refuse them.
"""

from __future__ import annotations

import os

import numpy as np
from numpy.typing import NDArray

from halfspaces.exceptions import DataFileError
from halfspaces.io._source import raw_source
from halfspaces.io.tabular import (
    _checked_xy,
    _may_round_number,
    _plain_labels,
    _refuse_rounded,
    _without,
    label_index,
)

__all__ = ["read_parquet"]


def read_parquet(path: str | os.PathLike, label_column: int | str | None = None,
                 batch_size: int | None = None):
    """(X, y) from a Parquet file, or an iterator of them with `batch_size` rows each.

    Needs pyarrow (``pip install 'halfspaces[parquet]'``). Every column other than the
    label must be numeric and without nulls.
    """
    try:
        import pyarrow.parquet as pq
    except ImportError:
        raise DataFileError(path, "reading Parquet needs pyarrow: pip install "
                                  "'halfspaces[parquet]'") from None
    try:
        handle = pq.ParquetFile(raw_source(path))
    except Exception as exc:  # pyarrow raises its own ArrowInvalid, OSError, ...
        raise DataFileError(path, f"not a readable Parquet file ({exc})") from None
    names = handle.schema_arrow.names
    label = label_index(path, label_column, tuple(names), len(names))
    if batch_size is None:
        return _arrow_to_xy(path, handle.read(), label, 0)
    return _parquet_batches(path, handle, label, batch_size)


def _parquet_batches(path, handle, label: int, batch_size: int):
    start = 0
    for batch in handle.iter_batches(batch_size=batch_size):
        yield _arrow_to_xy(path, batch, label, start)
        start += batch.num_rows


def _arrow_to_xy(path, table, label: int, start: int):
    columns = []
    for i, name in enumerate(table.schema.names):
        column = table.column(i)
        if column.null_count:
            raise DataFileError(path, f"column {name!r} has missing values (row "
                                      f"{start + _first_null(column)})")
        columns.append(column.to_numpy(zero_copy_only=False))
    names = table.schema.names
    for i, name in enumerate(names):
        if i != label and _is_decimal(table.schema.field(i).type):
            _refuse_rounded_decimals(path, columns[i], f"column {name!r}", start)
    y = columns.pop(label)
    for j, name in enumerate(_without(names, label)):
        if _may_round_number(columns[j]):  # column_stack of int64 and float64 columns
            # makes float64, rounding, before any check: each is converted and checked here
            converted = columns[j].astype(np.float64)
            _refuse_rounded(path, columns[j], converted, f"column {name!r}", start)
            columns[j] = converted
    try:
        X = np.column_stack(columns).astype(np.float64) if columns else \
            np.empty((len(y), 0))
    except (ValueError, TypeError):
        bad = next(n for n, c in zip(_without(table.schema.names, label), columns, strict=True)
                   if c.dtype.kind not in "biuf")
        raise DataFileError(path, f"column {bad!r} is not numeric") from None
    return _checked_xy(path, X, _plain_labels(y, path, f"column {names[label]!r}", start),
                       start, _without(names, label))


def _is_decimal(arrow_type) -> bool:
    import pyarrow as pa

    return bool(pa.types.is_decimal(arrow_type))


def _refuse_rounded_decimals(path, values: NDArray, what: str, start: int) -> None:
    """Refuse a Parquet decimal that is not the shortest decimal of its float64.

    Such a column is exact binary data, as int64 is: decimal128(20, 0) 9007199254740993
    became the float64 of 9007199254740992, and a threshold between them, a separator of
    the given data, was "proved" not to exist. A decimal that is the shortest decimal of
    its float64 (0.1, 19.99: the digits Python prints for that float) is read as that
    float64, as decimal text is; two such decimals never share a float64, whereas
    0.10000000000000000001 and 0.1 do, and are refused.
    """
    from decimal import Decimal

    for row, value in enumerate(values):
        nearest = float(value)
        if not (value.is_finite() and Decimal(repr(nearest)) == value):
            raise DataFileError(path, f"{what}, row {start + row}: the decimal {value} cannot "
                                      f"be held in float64 (it would be {nearest!r}); "
                                      "halfspaces computes in float64: cast the column to "
                                      "float64 if that rounding is acceptable, or rescale it")


def _first_null(column) -> int:
    mask = np.asarray(column.is_null())
    return int(np.argmax(mask))
