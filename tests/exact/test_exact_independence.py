"""The exact linear algebra under the VC tools (halfspaces._exact.independence, .conformal)
against oracles in Python Fractions and SciPy's LP, on inputs built to defeat floats."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from _oracles import exact_null_vector
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scipy.optimize import linprog

from halfspaces.exceptions import SolverError
from halfspaces.theory import unrealizable_labeling


@st.composite
def wild_columns(draw):
    """(P, a): columns of small integers times one power of two each, from subnormal to
    huge, and integers a (some huge) with sum_i a_i P_ij = 0 exactly on some columns."""
    s = draw(st.integers(2, 6))
    p = draw(st.integers(1, 8))
    a = [draw(st.one_of(st.integers(-3, 3), st.integers(-2**200, 2**200))) for _ in range(s)]
    a[-1] = draw(st.sampled_from([-1, 1]))
    P = np.empty((s, p))
    for j in range(p):
        e = draw(st.sampled_from([-1074, -1060, -600, -30, 0, 12, 400, 900]))
        ints = [draw(st.integers(-2**20, 2**20)) for _ in range(s)]
        if draw(st.booleans()):  # make this column sum to zero: solve for the last entry
            ints[-1] = -a[-1] * sum(x * y for x, y in zip(a[:-1], ints[:-1], strict=True))
        if max(abs(x) for x in ints).bit_length() + e > 1020:  # a solved entry of 2^220
            e = 0  # would overflow float64 at the large powers
        P[:, j] = [float(Fraction(x) * Fraction(2) ** e) for x in ints]
    return P, a


def exact_sums(P, a):
    return [sum(Fraction(float(x)) * y for x, y in zip(P[:, j], a, strict=True))
            for j in range(P.shape[1])]


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(wild_columns())
def test_the_residue_check_is_exact(case):
    from halfspaces._exact.independence import IntegerColumns, nonzero_sums

    P, a = case
    P = P[:, np.any(P != 0, axis=0)]  # the check runs on nonzero columns
    if P.shape[1] == 0:
        return
    found = nonzero_sums(IntegerColumns.of(P), a)
    assert found.tolist() == [x != 0 for x in exact_sums(P, a)]


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(1, 4).flatmap(lambda r: st.tuples(
    st.lists(st.lists(st.integers(-3, 3), min_size=5, max_size=5), min_size=r, max_size=r),
    st.lists(st.integers(0, 3), min_size=r, max_size=r))))
def test_the_exact_simplex_agrees_with_highs(case):
    from halfspaces._exact.conformal import feasible_point

    A, b = case
    x = feasible_point(A, b)
    res = linprog(np.zeros(5), A_eq=np.array(A, float), b_eq=np.array(b, float),
                  bounds=(0, None), method="highs")
    assert (x is not None) == (res.status == 0)
    if x is not None:
        assert all(v >= 0 for v in x)
        assert [sum(r * v for r, v in zip(row, x, strict=True)) for row in A] == b


def test_many_rows_are_eliminated_in_prefixes():
    # 400 points in R^300, x_200 = 2 x_3 - x_50 + x_199 the first dependence: the rank
    # profile modulo a prime finds row 200, and the exact elimination runs on 201 rows
    from halfspaces._exact import first_dependence

    rng = np.random.default_rng(4)
    X = rng.integers(-50, 51, size=(400, 300)).astype(float)
    X[200] = 2 * X[3] - X[50] + X[199]
    a = first_dependence(X)
    expected = np.zeros(400, dtype=int)
    expected[[3, 50, 199, 200]] = [2, -1, 1, -1]
    assert a == expected.tolist()
    assert first_dependence(X[:200]) is None  # the first 200 are independent, proved


def test_independence_of_many_rows_is_proved_by_one_modular_minor():
    from halfspaces._exact import first_dependence

    X = np.random.default_rng(9).integers(-2**20, 2**20, size=(300, 300)).astype(float)
    assert first_dependence(X) is None
    assert exact_null_vector(X[:40, :40]) is None  # the oracle, on a corner


def test_many_points_in_few_dimensions_give_the_first_dependence():
    # 20,000 points in the plane: the first dependence is among the first 4 (x' in R^3),
    # here 2^-40 apart: x'_3 = -x'_0 / 2 - x'_1 / 2 + 2 x'_2. The old float search took x_1
    # for a copy of x_0 (within its tolerance) and returned another labeling
    rng = np.random.default_rng(12)
    X = rng.integers(-9, 10, size=(20_000, 2)).astype(float)
    X[:4] = [[1.0, 1.0], [1.0 + 2.0**-40, 1.0], [1.0, 1.0 + 2.0**-40],
             [1.0 - 2.0**-41, 1.0 + 2.0**-39]]
    labeling = unrealizable_labeling(X)
    Xp = np.hstack([np.ones((4, 1)), X[:4]])
    a = exact_null_vector(Xp)
    support = [i for i, x in enumerate(a) if x != 0]
    expected = [-1 if x > 0 else 1 for x in a] if len(support) > 1 else [1] * 4
    assert expected == [-1, -1, 1, -1]
    assert labeling.tolist() == expected + [1] * (20_000 - 4)


def test_an_elimination_beyond_the_budget_is_refused_by_name(monkeypatch):
    import halfspaces._exact.independence as independence

    monkeypatch.setattr(independence, "MAX_ELIMINATION_WORK", 1000)
    X = np.random.default_rng(2).integers(-9, 10, size=(20, 20)).astype(float)
    X[19] = X[0] + X[1]
    with pytest.raises(SolverError, match=r"^the linear dependence of 20 points on 20 "
                       r"columns needs an exact elimination beyond its budget \(20\^2 x 20 "
                       r"> 1,000 multiply-adds\); pass fewer points\.$"):
        unrealizable_labeling(X, fit_intercept=False)


def test_the_moduli_are_distinct_primes_above_two_to_the_thirty_from_any_thread(monkeypatch):
    # the residue check is a proof only if its moduli are distinct primes (their product
    # bounds the sums): grown from 8 threads at once, none may be counted twice
    from concurrent.futures import ThreadPoolExecutor

    import halfspaces._exact.independence as independence

    monkeypatch.setattr(independence, "_PRIMES", [])
    with ThreadPoolExecutor(8) as pool:
        lists = list(pool.map(independence._primes, [60] * 8))
    assert all(found == lists[0] for found in lists)
    primes = np.array(lists[0])
    assert len(set(lists[0])) == 60 and np.all((primes > 2**30) & (primes < 2**31))
    divisors = np.arange(2, 46_341)  # 46,341^2 > 2^31: trial division decides primality
    assert not np.any(primes[:, None] % divisors[None, :] == 0)


def test_a9a_gives_the_first_dependence_among_its_first_rows(a9a):
    # 48,842 sparse rows of 123 binary columns: the first dependence lies within the first
    # 125 rows of x' = (1, x), which alone are densified (the old code could not read CSR)
    X, _ = a9a
    labeling = unrealizable_labeling(X)
    head = np.hstack([np.ones((125, 1)), X[:125].toarray()])
    a = exact_null_vector(head)
    support = [i for i, x in enumerate(a) if x != 0]
    expected = [-1 if x > 0 else 1 for x in a] if len(support) > 1 else [1] * 125
    assert labeling.tolist() == expected + [1] * (X.shape[0] - 125)
