"""The compiled CSR structure check against SciPy's own full check."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from halfspaces._fast.csr import csr_is_canonical, csr_is_valid


def scipy_says_valid(indices, indptr, n_columns) -> bool:
    X = sp.csr_matrix((indptr.shape[0] - 1, n_columns))
    # set the arrays exactly as given: the constructor would refuse some of them itself
    X.data, X.indices, X.indptr = np.ones(indices.shape[0]), indices, indptr
    try:
        X.check_format(full_check=True)
    except ValueError:
        return False
    return True


@pytest.mark.parametrize("dtype", [np.int32, np.int64])
@pytest.mark.parametrize("seed", range(40))
def test_compiled_check_agrees_with_scipy(seed, dtype):
    rng = np.random.default_rng(seed)
    X = sp.random(6, 5, density=0.4, format="csr", random_state=seed)
    indices, indptr = X.indices.astype(dtype), X.indptr.astype(dtype)
    damage = seed % 5
    if damage == 1 and indices.size:
        indices[rng.integers(indices.size)] = rng.choice([-1, 5, 2**30])
    elif damage == 2:
        indptr[rng.integers(1, indptr.size)] += 3
    elif damage == 3:
        indptr[0] = 1
    elif damage == 4 and indptr.size > 2:
        indptr[1], indptr[2] = indptr[2] + 1, indptr[1]
    assert csr_is_valid(indices, indptr, 5) == scipy_says_valid(indices, indptr, 5)


@settings(max_examples=200, deadline=None)
@given(st.integers(1, 6), st.integers(1, 6), st.integers(0, 10**6))
def test_csr_is_canonical_matches_the_rows_differences(n_rows, n_columns, seed):
    # the oracle: every row's indices have positive differences (NumPy, row by row)
    rng = np.random.default_rng(seed)
    counts = rng.integers(0, n_columns + 2, n_rows)
    indptr = np.concatenate([[0], np.cumsum(counts)]).astype(np.int32)
    indices = rng.integers(0, n_columns, indptr[-1]).astype(np.int32)
    if rng.random() < 0.5:  # sorted rows, with or without repeats
        for r in range(n_rows):
            indices[indptr[r]:indptr[r + 1]].sort()
    X = sp.csr_matrix((np.ones(indices.shape[0]), indices, indptr), shape=(n_rows, n_columns))
    canonical = all(np.all(np.diff(X.indices[X.indptr[r]:X.indptr[r + 1]]) > 0)
                    for r in range(n_rows))
    assert csr_is_canonical(indices, indptr) == canonical
