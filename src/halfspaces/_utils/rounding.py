"""Whether float64 holds the given values exactly: the check before anything is proved.

Every answer of :mod:`halfspaces.theory` (and its Dask twin, and ``halfspaces certify`` on a
file) is proved about float64 values. Where the given values differ from their float64
conversion (integers beyond 2^53, long doubles, Fractions), a proof would be about other
data, so they are refused by name, with the position of the first one.

A middle-layer module of its own, not part of :mod:`halfspaces._exact`: the data readers
check every 64-bit column with it, and importing ``_exact`` loads HiGHS.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from numpy.typing import NDArray

__all__ = ["exact_digits", "first_rounded", "may_round", "refuse_rounded_values"]


def refuse_rounded_values(given, found, name: str = "X") -> None:
    """Refuse values that the conversion to float64 changed.

    Every answer here is proved about float64 values: where the given ones differ (integers
    beyond 2^53, long doubles, Fractions), the proof would be about other data, and it can
    be false about the data given (2^53 and 2^53 + 1 with opposite labels are separable;
    as floats they are one point, "exactly" not separable). Decimal text is not checked
    here: a reader has already made it the nearest float64 (0.1 is not one), and the
    answers are about the values read.

    The values are compared where they are the matrix's entries: a sparse matrix's once its
    duplicates are summed (int64 entries 2^53 - 1 and 2 at one place are 2^53 + 1, their
    float64 sum 2^53), a DataFrame's column by column in the column's own dtype, and a
    list's as the Python numbers it holds (NumPy makes [2^53 + 1, 0.5] float64 before any
    check could see the int).
    """
    for original, converted, where in _value_pairs(given, found):
        bad = first_rounded(original, converted)
        if bad is None:
            continue
        raise ValueError(
            f"{name} holds {exact_digits(original[bad])}{where(bad)}, which float64 cannot "
            f"represent exactly (it becomes {float(converted[bad])!r}); halfspaces.theory "
            "proves its answers about float64 values, so the proof would be about other "
            f"data. Round it yourself (np.asarray({name}, dtype=float)) to certify the "
            "rounded data, or rescale it so that float64 holds it.")


def _value_pairs(given, found):
    """(original values, their float64 values, position of a flat index) to compare, as
    flat arrays of one length: one pair, or one per DataFrame column."""
    if sp.issparse(given):
        if may_round(given.dtype):
            yield _sparse_pair(given, found)
        return
    columns = getattr(given, "iloc", None)
    if columns is not None and hasattr(given, "dtypes"):  # pandas: no common dtype first
        for j in range(found.shape[1]):
            column = np.asarray(columns[:, j])
            if may_round(column.dtype):
                yield (column.ravel(), _dense_column(found, j),
                       lambda i, j=j: f" (row {i}, column {j})")
        return
    original = given if isinstance(given, np.ndarray) else np.asarray(given)
    if isinstance(given, list | tuple) and original.dtype.kind in "fiub":
        # NumPy's common dtype of Python ints and floats is float64, rounding the ints
        original = np.asarray(given, dtype=object)
    if may_round(original.dtype):
        yield original.ravel(), found.ravel(), lambda i: _position(original, i)


def _dense_column(found, j: int) -> NDArray:
    """Column j of the float64 matrix (CSR for a DataFrame of sparse columns), dense."""
    column = found[:, [j]].toarray() if sp.issparse(found) else found[:, j]
    return np.asarray(column).ravel()


def may_round(dtype: np.dtype) -> bool:
    """Whether float64 may change a value of this dtype (see :func:`first_rounded`)."""
    return (dtype.kind in "iu" and dtype.itemsize >= 8 or dtype.kind == "f"
            and dtype.itemsize > 8 or dtype.kind == "O")


def _sparse_pair(given, found):
    """A sparse matrix's entries, its duplicates summed in its own dtype, beside the float64
    matrix's entries at the same places (any format: LIL's data holds lists, DIA's holds
    padding, CSC's is in another order)."""
    original = sp.csr_matrix(given, copy=True)
    original.sum_duplicates()
    converted = sp.csr_matrix(found, copy=True)
    converted.sum_duplicates()
    rows = np.repeat(np.arange(original.shape[0]), np.diff(original.indptr))
    values = np.asarray(converted[rows, original.indices]).ravel()
    return (original.data, values,
            lambda i: f" (row {rows[i]}, column {original.indices[i]})")


def first_rounded(original: NDArray, converted: NDArray) -> int | None:
    """The first flat index where float64 changed a value, or None.

    bool, ints of 32 bits or less and float16/32/64 always survive; a 64-bit int can only
    change from 2^53 up; a long double wherever it differs; an object, as its number.
    """
    kind = original.dtype.kind
    suspects: NDArray[np.intp]
    if kind in "iu" and original.dtype.itemsize >= 8:
        suspects = np.flatnonzero(np.abs(converted) >= 2.0**53)
        changed = (int(original[i]) != int(converted[i]) for i in suspects)
    elif kind == "f" and original.dtype.itemsize > 8:
        # a NaN stays NaN (unequal to itself); the readers name it as a NaN afterwards
        suspects = np.flatnonzero((original != converted) & ~np.isnan(original))
        changed = (True for _ in suspects)
    elif kind == "O":
        suspects = np.array([i for i, value in enumerate(original) if type(value) is not float],
                            dtype=np.intp)
        changed = (not _same_number(original[i], converted[i]) for i in suspects)
    else:
        return None
    return next((int(i) for i, c in zip(suspects, changed, strict=True) if c), None)


def _same_number(value, converted: float) -> bool:
    """Whether a number held as a Python object is the float64 it became; text and numbers
    without an exact ratio (as_integer_ratio: int, Fraction, Decimal, NumPy floats) pass."""
    from fractions import Fraction

    if isinstance(value, np.integer):  # no as_integer_ratio: compared as a Python int
        value = int(value)
    ratio = getattr(value, "as_integer_ratio", None)
    if isinstance(value, str) or ratio is None:
        return True  # text: made the nearest float64, as a reader does
    try:
        return Fraction(*ratio()) == Fraction(converted)
    except (TypeError, ValueError, OverflowError):  # inf, nan: check_array refused them
        return True


def exact_digits(value) -> str:
    """A value as its digits (a long double's str() rounds it to a float64's, so a message
    showed the refused value and its float64 as the same number)."""
    return np.format_float_positional(value) if isinstance(value, np.floating) else str(value)


def _position(original: NDArray, flat: int) -> str:
    if original.ndim != 2:
        return ""
    row, column = divmod(flat, original.shape[1])
    return f" (row {row}, column {column})"
