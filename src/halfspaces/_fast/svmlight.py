"""A compiled svmlight parser for the common case; anything unusual goes to scikit-learn's.

The loop accepts lines of ``label index:value ...`` with optional ``# comments``, where
every number is plain decimal (``[+-]digits[.digits][e[+-]digits]``). Those with a mantissa
below 2**53 and a decimal exponent within 22 are converted by Clinger's fast path (a single
correctly rounded IEEE operation on exact operands, so the result equals Python's ``float``);
the rest (e.g. 17-digit reprs) are left to Python's ``float`` afterwards, token by token.
Whole numbers of at most 15 digits (the labels and most values of count and indicator data,
e.g. every token of a9a) and indices of at most 9 digits take a shorter path first, written
out inside the row loop where it matters: it halves the time of a9a's parse (0.63 -> 0.31 s
for 150 MB on one core).
Indices must be non-negative integers in increasing order. On anything else
(qid, NaN, underscores, too many digits, a bad token, an index out of order) it returns
``FALLBACK`` and the caller hands the whole block to scikit-learn's parser, whose semantics,
and whose errors located by :func:`halfspaces.io.svmlight.line_problem`, stay the reference.
"""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["FALLBACK", "OK", "cut_lines", "parse"]

OK, FALLBACK = 0, 1
EXACT, SLOW, INVALID = 0, 1, 2
_POW10 = np.array([10.0**k for k in range(23)])  # exact in float64 for k <= 22
_MAX_MANTISSA = 2**53


@njit(cache=True)
def _is_space(c):
    return c == 32 or c == 9 or c == 13 or c == 11 or c == 12


@njit(cache=True)
def _ends_token(buf, i, n):
    return i >= n or _is_space(buf[i]) or buf[i] == 10 or buf[i] == 35


@njit(cache=True)
def _number(buf, i, n, pow10):
    """(value, next position, status) for a plain decimal at buf[i:].

    status: EXACT (value computed), SLOW (valid, but only Python's float rounds it right),
    INVALID (not a plain decimal).
    """
    # Digits are widened with int() before any arithmetic: Numba does so itself, but run as
    # plain Python (NUMBA_DISABLE_JIT=1) a uint8 byte would keep the sum in uint8 under
    # NumPy's promotion rules (NEP 50) and wrap around at 256.
    sign = 1.0
    if i < n and (buf[i] == 43 or buf[i] == 45):
        sign = -1.0 if buf[i] == 45 else 1.0
        i += 1
    mantissa, digits, scale, seen = 0, 0, 0, False
    while i < n and 48 <= buf[i] <= 57:
        if mantissa or buf[i] != 48:
            digits += 1
        mantissa = mantissa * 10 + (int(buf[i]) - 48) if digits <= 18 else mantissa
        scale += 1 if digits > 18 else 0
        seen, i = True, i + 1
    if i < n and buf[i] == 46:
        i += 1
        while i < n and 48 <= buf[i] <= 57:
            if mantissa or buf[i] != 48:
                digits += 1
            if digits <= 18:
                mantissa = mantissa * 10 + (int(buf[i]) - 48)
                scale -= 1
            seen, i = True, i + 1
    if not seen:
        return 0.0, i, INVALID
    if i < n and (buf[i] == 101 or buf[i] == 69):
        i += 1
        esign, exponent, eseen = 1, 0, False
        if i < n and (buf[i] == 43 or buf[i] == 45):
            esign = -1 if buf[i] == 45 else 1
            i += 1
        while i < n and 48 <= buf[i] <= 57 and exponent < 10000:
            exponent = exponent * 10 + (int(buf[i]) - 48)
            eseen, i = True, i + 1
        if not eseen:
            return 0.0, i, INVALID
        scale += esign * exponent
    if digits > 18 or exponent_too_big(scale):
        return 0.0, i, SLOW
    if mantissa == 0:
        return sign * 0.0, i, EXACT
    if mantissa >= 9007199254740992:
        return 0.0, i, SLOW
    value = mantissa * pow10[scale] if scale >= 0 else mantissa / pow10[-scale]
    return sign * value, i, EXACT


@njit(cache=True)
def _whole(buf, i, n):
    """(value, next position) for a signed whole number of 1 to 15 digits that ends the
    token at buf[i:] (exact as a float: below 2**53), else (0.0, i): the common case of
    labels and values, without :func:`_number`'s decimal point, exponent and rounding."""
    sign, j = 1.0, i
    if j < n and (buf[j] == 43 or buf[j] == 45):
        sign = -1.0 if buf[j] == 45 else 1.0
        j += 1
    first, whole = j, 0
    while j < n and j - first < 16 and 48 <= buf[j] <= 57:
        whole = whole * 10 + (int(buf[j]) - 48)
        j += 1
    if first < j < first + 16 and _ends_token(buf, j, n):
        return sign * float(whole), j
    return 0.0, i


@njit(cache=True)
def exponent_too_big(scale):
    return scale > 22 or scale < -22


@njit(cache=True)
def _index(buf, i, n):
    """(index, next position, ok): digits then ':'."""
    value, seen = 0, False
    if i < n and buf[i] == 43:
        i += 1
    while i < n and 48 <= buf[i] <= 57 and value < 2147483647:
        value = value * 10 + (int(buf[i]) - 48)
        seen, i = True, i + 1
    ok = seen and i < n and buf[i] == 58 and value <= 2147483647
    return value, i + 1, ok


@njit(cache=True, nogil=True)
def _count(buf, byte):
    total = 0
    for c in buf:
        if c == byte:
            total += 1
    return total


@njit(cache=True, nogil=True)
def _parse(buf, labels, indptr, indices, data, slow, pow10):
    """Fill the arrays; return (status, rows, nnz, width, n_slow).

    Values only Python converts exactly are left for the caller: slow[j] = (target,
    start, end), target k >= 0 for data[k], -1 - r for labels[r].
    """
    n, i, row, k, width, n_slow = len(buf), 0, 0, 0, 0, 0
    while i < n:
        while i < n and _is_space(buf[i]):
            i += 1
        if i >= n:
            break
        if buf[i] == 10 or buf[i] == 35:
            while i < n and buf[i] != 10:
                i += 1
            i += 1
            continue
        start = i
        label, j = _whole(buf, i, n)
        if j > i:
            i = j
        else:
            label, i, status = _number(buf, i, n, pow10)
            if status == INVALID or not _ends_token(buf, i, n):
                return FALLBACK, row, k, width, n_slow
            if status == SLOW:
                slow[n_slow, 0], slow[n_slow, 1], slow[n_slow, 2] = -1 - row, start, i
                n_slow += 1
        previous = -1
        while True:
            while i < n and _is_space(buf[i]):
                i += 1
            if i >= n or buf[i] == 10 or buf[i] == 35:
                break
            index, j = 0, i  # at most 9 digits: below 2**31 without a check
            while j < n and 48 <= buf[j] <= 57 and j - i < 10:
                index = index * 10 + (int(buf[j]) - 48)
                j += 1
            if i < j < i + 10 and j < n and buf[j] == 58:
                i = j + 1
            else:
                index, i, ok = _index(buf, i, n)
                if not ok:
                    return FALLBACK, row, k, width, n_slow
            if index <= previous:
                return FALLBACK, row, k, width, n_slow
            start = i
            # the common value, a whole number of at most 15 digits (exact as a float),
            # written out here: as a call (like _whole) the loop ran a third slower
            whole, j = 0, i
            while j < n and j - i < 16 and 48 <= buf[j] <= 57:
                whole = whole * 10 + (int(buf[j]) - 48)
                j += 1
            if i < j < i + 16 and _ends_token(buf, j, n):
                value, i = float(whole), j
            else:
                value, i, status = _number(buf, i, n, pow10)
                if status == INVALID or not _ends_token(buf, i, n):
                    return FALLBACK, row, k, width, n_slow
                if status == SLOW:
                    slow[n_slow, 0], slow[n_slow, 1], slow[n_slow, 2] = k, start, i
                    n_slow += 1
            indices[k], data[k], previous, k = index, value, index, k + 1
            width = max(width, index + 1)
        while i < n and buf[i] != 10:
            i += 1
        i += 1
        labels[row], row = label, row + 1
        indptr[row] = k
    return OK, row, k, width, n_slow


@njit(cache=True, nogil=True)
def cut_lines(buf, start, want):
    """Find the next `want` data lines of `buf` from offset `start`.

    A data line has something other than whitespace before its end and does not start
    (after whitespace) with ``#``; blank and comment lines before the first data line are
    passed over, those between data lines belong to the block. Every line of `buf` is
    complete (the caller cuts it after a newline, or at the end of the file).
    Returns (first, end, found, newlines before first, newlines up to end): the block is
    ``buf[first:end]`` and holds `found` <= `want` data lines.
    """
    n, i, found, first, newlines, before = len(buf), start, 0, -1, 0, 0
    while i < n and found < want:
        j = i
        while j < n and _is_space(buf[j]):
            j += 1
        data = j < n and buf[j] != 10 and buf[j] != 35
        while j < n and buf[j] != 10:
            j += 1
        if data:
            if first < 0:
                first, before = i, newlines
            found += 1
        if j < n:
            newlines += 1
        i = j + 1
    if first < 0:
        first, before = min(i, n), newlines
    return first, min(i, n), found, before, newlines


def parse(buf):
    """(status, labels, indptr, indices, data, width) for a block of svmlight text.

    `buf` is bytes or a uint8 array; indices are raw (as written); `width` is the largest
    index plus one. The compiled loops release the GIL, so a reader thread can parse one
    block while the caller trains on the last.
    """
    array = np.frombuffer(buf, dtype=np.uint8) if isinstance(buf, bytes) else buf
    rows = _count(array, 10) + 1
    nnz = _count(array, 58)
    labels, indptr = np.empty(rows), np.zeros(rows + 1, dtype=np.int64)
    indices, data = np.empty(nnz, dtype=np.int32), np.empty(nnz)
    slow = np.empty((rows + nnz, 3), dtype=np.int64)
    status, rows, nnz, width, n_slow = _parse(array, labels, indptr, indices, data, slow,
                                              _POW10)
    for target, start, end in slow[:n_slow].tolist():  # Python's float: correctly rounded
        value = float(bytes(array[start:end]))
        if target >= 0:
            data[target] = value
        else:
            labels[-1 - target] = value
    return status, labels[:rows], indptr[:rows + 1], indices[:nnz], data[:nnz], width
