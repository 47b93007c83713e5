"""The structure check of a CSR matrix, in one compiled pass.

SciPy's ``check_format(full_check=True)`` makes four vectorised passes (min and max of the
indices, a diff of indptr and its min). This loop reads each array once and has no branch in
its inner loops (a flag or-ed over indptr, a running min and max over the indices), so they
vectorise: 0.033 ms on a9a, against 0.069 ms for the same pass testing each index against
both bounds, 0.34 ms for SciPy's check and 0.7 ms for a loop returning at the first bad
entry.
"""

from __future__ import annotations

from numba import njit


@njit(cache=True, nogil=True)
def csr_is_valid(indices, indptr, n_columns):
    """Whether indptr starts at 0, never decreases, ends at len(indices), and every index is
    in [0, n_columns)."""
    if indptr.shape[0] == 0 or indptr[0] != 0 or indptr[indptr.shape[0] - 1] != indices.shape[0]:
        return False
    bad = False
    for r in range(indptr.shape[0] - 1):
        bad |= indptr[r + 1] < indptr[r]
    low = high = indices.dtype.type(0)
    for k in range(indices.shape[0]):
        low = min(low, indices[k])
        high = max(high, indices[k])
    return not bad and low >= 0 and (indices.shape[0] == 0 or high < n_columns)


@njit(cache=True, nogil=True)
def csr_is_canonical(indices, indptr):
    """Whether every row's indices strictly increase: sorted, and no column stored twice.

    SciPy reads a column stored twice in a row as the sum of its entries; the loops that
    scatter or square entries one at a time (a Gram diagonal, a dense row) would not.
    ``indptr`` must have passed :func:`csr_is_valid`. The descents are counted over all the
    indices in one branch-free pass (it vectorises), then those where a nonempty row starts
    are taken back: a loop per row ran 0.46 ms on a9a (14 entries a row), this 0.05 ms.
    """
    descents = 0
    for k in range(1, indices.shape[0]):
        descents += indices[k] <= indices[k - 1]
    for r in range(indptr.shape[0] - 1):
        start = indptr[r]
        if 0 < start < indptr[r + 1]:
            descents -= indices[start] <= indices[start - 1]
    return descents == 0
