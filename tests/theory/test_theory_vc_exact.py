"""shatters and unrealizable_labeling against exact oracles that share no code with them.

The oracles: :func:`_oracles.exact_null_vector` (Gauss-Jordan on Python Fractions) gives the
first dependence, that of the first point in the span of those before it; a labeling is
unrealisable iff some circuit (a minimal dependent set, whose dependence is unique up to
scale) has its signs or their negation on its support (Gordan's theorem and the conformal
decomposition of dependences), which enumerating subsets of at most 7 points decides.
"""

from __future__ import annotations

from itertools import combinations, product

import numpy as np
import pytest
from _oracles import exact_null_vector
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import halfspaces.theory.vc as vc_module
from halfspaces.theory import shatters, unrealizable_labeling

EPS = 2.0**-52


def augmented(points, fit_intercept):
    points = np.asarray(points, dtype=float)
    return np.hstack([np.ones((len(points), 1)), points]) if fit_intercept else points


def circuits(Xp):
    """The sign vectors (+-1 on the support, 0 elsewhere) of the dependences of every
    subset whose null space is one-dimensional with full support: every circuit's."""
    m = len(Xp)
    found = []
    for size in range(1, m + 1):
        for S in combinations(range(m), size):
            a = exact_null_vector(Xp[list(S)])
            if a is None or any(x == 0 for x in a):
                continue
            signs = np.zeros(m, dtype=int)
            signs[list(S)] = [1 if x > 0 else -1 for x in a]
            found.append(signs)
    return found


def unrealisable(labels, signed_circuits):
    labels = np.asarray(labels)
    for c in signed_circuits:
        on = c != 0
        if np.all(labels[on] == c[on]) or np.all(labels[on] == -c[on]):
            return True
    return False


def first_unrealisable(Xp):
    signed_circuits = circuits(Xp)
    for labels in product((-1, 1), repeat=len(Xp)):
        if unrealisable(labels, signed_circuits):
            return list(labels)
    return None


def documented_labeling(Xp):
    """The labeling unrealizable_labeling promises: a = (c, -1) for the first point x'_k
    in the span of those before it, x'_k = sum c_i x'_i; +1 at a zero x'_k."""
    a = exact_null_vector(Xp)  # a_k = 1 at the first free k, zero after it
    if a is None:
        return None
    support = [i for i, x in enumerate(a) if x != 0]
    if len(support) == 1:
        return [1] * len(a)
    return [-1 if x > 0 else 1 for x in a]


def check_against_oracles(points, fit_intercept):
    Xp = augmented(points, fit_intercept)
    expected = documented_labeling(Xp)
    first = first_unrealisable(Xp)
    assert (expected is None) == (first is None)  # the oracles agree: Theorem 9.2
    assert shatters(points, fit_intercept) == (first is None)
    ok, labeling = shatters(points, fit_intercept, return_labeling=True)
    assert ok == (first is None)
    assert (labeling is None if first is None else labeling.tolist() == first)
    if expected is None:
        with pytest.raises(ValueError, match="linearly independent"):
            unrealizable_labeling(points, fit_intercept)
    else:
        got = unrealizable_labeling(points, fit_intercept)
        assert got.tolist() == expected
        assert unrealisable(got, circuits(Xp))


def near_duplicates():
    """Dyadic points a few ulps apart: the old LPs refused or misread them (SolverError,
    'independent' for dependent points), and exact arithmetic tells them apart."""
    return [
        ([[1.0], [1.0 + EPS]], True),
        ([[1.0], [1.0 + EPS], [2.0]], True),
        ([[1.0, 0.0], [1.0 + EPS, 0.0], [0.0, 1.0]], True),
        ([[1.0, 0.0], [1.0 + EPS, 0.0], [0.0, 1.0]], False),
        ([[1.0, 1.0], [1.0 + EPS, 1.0], [1.0, 1.0 + EPS]], True),
        ([[1e300, 0.0], [5e-324, 1.0], [1e300, 1.0]], True),
        ([[1e300, 0.0], [5e-324, 1.0], [1e300, 1.0]], False),
        ([[1e300, 5e-324], [1e300, 1e-323], [1e300, 0.0]], True),
        ([[2.0**-1074, 0.0], [0.0, 2.0**1023], [2.0**-1073, 2.0**1023]], False),
        ([[0.0, 0.0], [1.0, 2.0], [3.0, 1.0]], False),
    ]


def test_near_duplicates_and_extreme_scales_agree_with_the_exact_oracles():
    for points, fit_intercept in near_duplicates():
        check_against_oracles(points, fit_intercept)


def test_two_distinct_points_a_few_ulps_apart_are_shattered():
    # 1 and 1 + 2^-52 on the line: w = 2^53, b = -(2^53 + 1/2) separates them; the old
    # shatters raised SolverError (its LP could not tell them apart)
    assert shatters([[1.0], [1.0 + EPS]]) is True
    assert shatters([[1.0], [1.0 + EPS]], return_labeling=True) == (True, None)
    with pytest.raises(ValueError, match="linearly independent"):
        unrealizable_labeling([[1.0], [1.0 + EPS]])


@st.composite
def small_points(draw):
    """Up to 6 points of small integers, some rows duplicated, some a combination of
    others, some moved by 2^-40 (a near-duplicate that is exactly distinct)."""
    m = draw(st.integers(1, 6))
    d = draw(st.integers(1, 4))
    X = np.array(draw(st.lists(st.lists(st.integers(-3, 3), min_size=d, max_size=d),
                               min_size=m, max_size=m)), dtype=float)
    for i in range(1, m):
        kind = draw(st.sampled_from(["own", "own", "copy", "sum", "nudge"]))
        j, k = draw(st.integers(0, i - 1)), draw(st.integers(0, i - 1))
        if kind == "copy":
            X[i] = X[j]
        elif kind == "sum":
            X[i] = X[j] + draw(st.integers(-2, 2)) * X[k]
        elif kind == "nudge":
            X[i] = X[j]
            X[i, draw(st.integers(0, d - 1))] += 2.0**-40
    return X, draw(st.booleans())


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(small_points())
def test_small_points_agree_with_the_exact_oracles(case):
    check_against_oracles(*case)


@pytest.mark.parametrize("fit_intercept", [True, False])
def test_a_labeling_deep_in_product_order_is_found_as_a_brute_force_search_finds_it(
        monkeypatch, fit_intercept):
    # 7 points in R^6 (after x' = (1, x)) whose one dependence is x'_6 = 6 x'_0 - x'_1 - ...
    # - x'_5: the first unrealisable labeling is (-1, +1, ..., +1), the last of those that
    # start with -1 (the old search solved an LP for each of the 63 before it; this one
    # makes one exact decision per label)
    rng = np.random.default_rng(3)
    base = rng.integers(-4, 5, size=(6, 6 - fit_intercept)).astype(float)
    Xp = augmented(base, fit_intercept)
    assert exact_null_vector(Xp) is None  # the six are independent
    c = np.array([6.0, -1.0, -1.0, -1.0, -1.0, -1.0])  # sums to 1: an affine combination
    X = np.vstack([base, (c @ Xp)[int(fit_intercept):]])
    assert first_unrealisable(augmented(X, fit_intercept)) == [-1] + [1] * 6
    calls = []
    real = vc_module.conformal_dependence

    def counted(*args):
        calls.append(args)
        return real(*args)

    monkeypatch.setattr(vc_module, "conformal_dependence", counted)
    check_against_oracles(X, fit_intercept)
    assert len(calls) <= 7 + 1  # one exact decision per label and the certificate


P_WIDE = 300_000  # 20 rows on 300,000 columns: 20^2 x 300,000 was 19 times the old budget


def wide_rows(seed, top):
    return np.random.default_rng(seed).integers(-top, top, size=(20, P_WIDE)).astype(float)


def test_wide_independent_points_nearly_dependent_in_float64_are_proved_independent():
    # x_15 is the sum of x_0..x_14 but for 2^-33 at one entry of size 5e4 (a relative
    # 3e-15): exactly independent, so every labeling is realised. The old code, beyond its
    # exact budget, took the LP's floating-point certificate for the labeling of the
    # near-dependence as a proof and returned (+1, ..., -1 at 15, ..., +1): a false proof
    X = wide_rows(6, 2**15)
    X[15] = X[:15].sum(axis=0)
    X[15, 7] += 2.0**-33
    assert exact_null_vector(X[:, :20]) is None  # the oracle: a nonzero 20 x 20 minor
    with pytest.raises(ValueError, match="linearly independent"):
        unrealizable_labeling(X, fit_intercept=False)
    assert shatters(X, fit_intercept=False)
    assert shatters(X, fit_intercept=False, return_labeling=True) == (True, None)


def test_wide_planted_dependence_gives_the_documented_labeling():
    # x_19 = sum_i c_i x_i exactly (integers times 2^-25, no rounding), x_10 within 1e-13
    # of x_0 + x_1 but not on it: the first dependence is x_19's, a = (c, -1). The old code
    # raised SolverError after minutes of LPs (a float candidate, then LP certificates)
    X = wide_rows(5, 2**20)[:19]
    X[10] = X[0] + X[1]
    X[10, 7] += 2.0**-25
    c = np.random.default_rng(5).integers(1, 4, size=19) * np.where(np.arange(19) % 3, 1, -1)
    scaled = (X * 2.0**25).astype(np.int64)  # exact: |entries| < 2^46
    planted = (c @ scaled).astype(float) / 2.0**25  # exact: |c @ scaled| < 2^53
    assert np.array_equal((planted * 2.0**25).astype(np.int64), c @ scaled)
    assert exact_null_vector(X[:, :19]) is None  # x_0..x_18 independent: a is unique
    X = np.vstack([X, planted])
    expected = np.where(np.r_[c, -1] < 0, -1, 1)
    assert unrealizable_labeling(X, fit_intercept=False).tolist() == expected.tolist()
    assert not shatters(X, fit_intercept=False)


def test_wide_sparse_points_are_decided_like_dense_ones():
    import scipy.sparse as sp

    rng = np.random.default_rng(8)
    X = sp.random(12, 200_000, density=1e-3, format="csr", random_state=rng,
                  data_rvs=lambda n: rng.integers(1, 9, size=n).astype(float))
    X = sp.vstack([X, X[0] * 3.0 - X[5]]).tocsr()  # x_12 = 3 x_0 - x_5
    expected = [-1 if i in (5, 12) else 1 for i in range(13)]  # a = (3, .., -1, .., -1)
    for points in (X, X.toarray()):
        assert unrealizable_labeling(points, fit_intercept=False).tolist() == expected
        assert not shatters(points, fit_intercept=False)
