"""The dual loop's kernel map (power, kernel_value, gram_from_dots) against plain twins.

These run a second time without the JIT in CI (every test in tests/fast/), so each line
of the compiled functions is also exercised as Python.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose, assert_array_equal

from halfspaces._fast import dual as fast_dual


@settings(max_examples=200, deadline=None)
@given(base=st.floats(-1e3, 1e3, allow_nan=False),
       degree=st.integers(0, 12))
def test_power_by_squaring_is_pow_within_a_few_ulps(base, degree):
    got, want = fast_dual.power(base, float(degree)), math.pow(base, degree)
    # each of the at most 2 log2(12) + 1 = 8 products rounds once
    assert got == pytest.approx(want, rel=8 * 2.0**-52, abs=0.0)


def test_power_is_exact_on_small_integers_and_the_edge_degrees():
    for base in (-3.0, -1.0, 0.0, 1.0, 2.0, 7.0):
        for degree in range(0, 9):
            assert fast_dual.power(base, float(degree)) == base**degree
    assert fast_dual.power(0.0, 0.0) == 1.0  # as pow()
    assert fast_dual.power(2.0, 64.0) == 2.0**64


@pytest.mark.parametrize("degree", [2.5, -1.0, -2.0, 65.0, 0.5])
def test_power_of_other_degrees_is_pow(degree):
    for base in (0.5, 1.5, 3.0):
        assert fast_dual.power(base, degree) == base**degree


def twin_kernel(kind, dot, sq_a, sq_b, gamma, coef0, degree):
    if kind == fast_dual.RBF:
        return math.exp(-gamma * max(sq_a + sq_b - 2.0 * dot, 0.0))
    if kind == fast_dual.POLY:
        return (gamma * dot + coef0) ** degree
    if kind == fast_dual.SIGMOID:
        return math.tanh(gamma * dot + coef0)
    return dot


@pytest.mark.parametrize("kind", [fast_dual.LINEAR, fast_dual.POLY, fast_dual.RBF,
                                  fast_dual.SIGMOID])
def test_gram_from_dots_writes_each_rows_kernel_values_into_its_slot(kind):
    rng = np.random.default_rng(kind)
    X = rng.normal(size=(11, 4))
    sq = np.einsum("ij,ij->i", X, X)
    rows = np.array([9, 2, 5], dtype=np.int64)
    slots = np.array([3, 0, 1], dtype=np.int64)
    start = 4  # the columns 4..10
    dots = X[rows] @ X[start:].T
    spec = (kind, 0.3, 0.7, 3.0, 1.0)
    K = np.full((4, 11), -7.0)
    fast_dual.gram_from_dots(dots, rows, spec, sq, K, slots, start)
    for r, (i, s) in enumerate(zip(rows, slots, strict=True)):
        want = [twin_kernel(kind, dots[r, j], sq[i], sq[start + j], 0.3, 0.7, 3.0) + 1.0
                for j in range(7)]
        assert_allclose(K[s, start:], want, rtol=1e-13)
        assert_array_equal(K[s, :start], -7.0)  # other columns untouched
    assert_array_equal(K[2], -7.0)  # a slot of no row untouched
