"""The compiled label loops (:mod:`halfspaces._fast.labels`) against plain Python twins.

``two_or_fewer`` and ``distinct_few`` find the distinct labels of y in one pass; the twins
below say the same in a line each, and ``np.unique`` is the independent oracle for the
values. Small enough to run as plain Python too (``NUMBA_DISABLE_JIT=1``, as in ``.ci/run``).
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from halfspaces._fast.labels import TOO_MANY, distinct_few, two_or_fewer

DTYPES = [np.float64, np.float32, np.int64, np.int32]
POOL = [0.0, -0.0, 1.0, -1.0, 2.0, 7.0, 0.5, -3.25, 1e30, -np.inf, np.inf, 40.0, 255.0, 256.0]


@st.composite
def labels(draw):
    """y over a few distinct values (as a classifier's labels are), in any dtype."""
    dtype = np.dtype(draw(st.sampled_from(DTYPES)))
    pool = [v for v in POOL if dtype.kind == "f" or (abs(v) < 2**31 and v == int(v))]
    values = draw(st.lists(st.sampled_from(pool), min_size=1, max_size=8))
    picks = draw(st.lists(st.integers(0, len(values) - 1), min_size=1, max_size=60))
    return np.array([values[k] for k in picks], dtype=dtype)


def first_seen(y) -> list:
    """The distinct values of y in order of first appearance (0.0 and -0.0 are one value)."""
    seen = []
    for v in y.tolist():
        if v not in seen:
            seen.append(v)
    return seen


def assert_bits_equal(a, b):
    assert a.dtype == b.dtype and np.array_equal(a, b)
    assert np.array_equal(np.signbit(a), np.signbit(b))


@settings(max_examples=200, deadline=None)
@given(y=labels())
def test_two_or_fewer_equals_its_twin(y):
    a, b, at_most_two = two_or_fewer(y)
    seen = first_seen(y)
    expected_b = seen[1] if len(seen) > 1 else seen[0]
    assert_bits_equal(np.array([a, b], dtype=y.dtype), np.array([seen[0], expected_b], y.dtype))
    assert bool(at_most_two) == (len(seen) <= 2) == (np.unique(y).size <= 2)


@settings(max_examples=200, deadline=None)
@given(y=labels(), max_classes=st.integers(1, 9))
def test_distinct_few_equals_its_twin(y, max_classes):
    values, count = distinct_few(y, max_classes)
    seen = first_seen(y)
    if len(seen) > max_classes:
        assert count == TOO_MANY and values.size == 0 and values.dtype == y.dtype
    else:
        assert count == len(seen) == np.unique(y).size
        assert_bits_equal(values, np.array(seen, dtype=y.dtype))
        assert np.array_equal(np.sort(values), np.unique(y))


@pytest.mark.parametrize("dtype", DTYPES)
def test_labels_of_one_class_and_of_many(dtype):
    y = np.full(5, 3, dtype=dtype)
    a, b, at_most_two = two_or_fewer(y)
    assert a == b == 3 and at_most_two
    values, count = distinct_few(y, 1)
    assert count == 1 and values.tolist() == [3]
    many = np.arange(40, dtype=dtype)[::-1].copy()
    assert not two_or_fewer(many)[2]
    assert distinct_few(many, 32)[1] == TOO_MANY
    values, count = distinct_few(many, 40)
    assert count == 40 and np.array_equal(values, many)
