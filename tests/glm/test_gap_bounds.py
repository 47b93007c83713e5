"""The rounding bounds the certified duality gaps are built on, against exact rational
arithmetic: each bound must hold for the exact value of the floats given."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from halfspaces._glm.gaps import (
    UNIT_ROUNDOFF,
    dot_errors,
    gamma,
    lower_sum,
    squared_norm_upper,
    up,
    upper_sum,
)

finite = st.floats(-1e12, 1e12, allow_nan=False, allow_infinity=False, allow_subnormal=False)
vectors = arrays(np.float64, st.integers(1, 40), elements=finite)


@settings(max_examples=200, deadline=None, derandomize=True)
@given(vectors)
def test_the_sum_bounds_enclose_the_exact_sum(terms):
    exact = sum(Fraction(float(t)) for t in terms)
    assert Fraction(lower_sum(terms)) <= exact <= Fraction(upper_sum(terms))


def test_the_sum_bounds_hold_where_plain_summation_loses_everything():
    terms = np.array([1e16, 1.0, -1e16, 1.0])  # np.sum gives 0.0 or 2.0 by order
    assert lower_sum(terms) <= 2.0 <= upper_sum(terms)
    assert upper_sum(terms) - lower_sum(terms) <= 4 * 2.0 * UNIT_ROUNDOFF * 2


@settings(max_examples=100, deadline=None, derandomize=True)
@given(st.integers(1, 12), st.integers(1, 8), st.integers(0, 2**32 - 1),
       st.sampled_from([1e-8, 1.0, 1e8]), st.booleans())
def test_dot_errors_bound_every_rows_rounding(n, d, seed, scale, sparse):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)) * scale * 10.0 ** rng.integers(-3, 4, size=(n, d))
    X[rng.random((n, d)) < 0.3] = 0.0
    w = rng.normal(size=d) * 10.0 ** rng.integers(-3, 4, size=d)
    matrix = sp.csr_matrix(X) if sparse else X
    computed = np.asarray(matrix @ w).ravel()
    bounds = dot_errors(matrix, w)
    for i in range(n):
        exact = sum(Fraction(float(X[i, j])) * Fraction(float(w[j])) for j in range(d))
        assert abs(exact - Fraction(float(computed[i]))) <= Fraction(float(bounds[i]))


@settings(max_examples=100, deadline=None, derandomize=True)
@given(vectors)
def test_the_squared_norm_bound_is_above_the_exact_norm(v):
    exact = sum(Fraction(float(t)) ** 2 for t in v)
    assert exact <= Fraction(squared_norm_upper(v))


def test_gamma_is_the_textbook_bound_rounded_up_and_refuses_beyond_its_range():
    for k in (1, 10, 10**6, 10**12):
        ku = Fraction(k) * Fraction(UNIT_ROUNDOFF)
        assert Fraction(gamma(k)) >= ku / (1 - ku)
    assert gamma(2**52) == math.inf


def test_up_moves_one_ulp_per_operation():
    assert up(1.0) == math.nextafter(1.0, 2.0)
    assert up(1.0, 2) == math.nextafter(math.nextafter(1.0, 2.0), 2.0)
    assert up(-0.0) > 0.0
