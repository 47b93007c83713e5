"""The exact solvers of halfspaces._exact against independent oracles.

LP feasibility: the separator's margins and the certificate's Gordan conditions are checked
with plain NumPy, the answer against scipy.optimize.linprog; the min-norm QP against NNLS on
the convex hulls and scikit-learn's SVC; the hinge LP against linprog on the same LP; the 0-1
MILP against brute force.
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from _oracles import (
    brute_force_errors,
    check_certificate,
    exact_null_vector,
    hull_half_distance,
    linprog_separable,
    min_norm_point,
    noisy_sample,
    one_hot_sample,
    perceptron_separates,
    separable_sample,
    signed,
)
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose, assert_array_equal
from scipy.optimize import linprog
from sklearn.svm import SVC

from halfspaces._exact import (
    INF,
    SignedRows,
    decide,
    feasibility,
    hinge_lp,
    min_norm,
    min_norm_separator,
    risk,
    scores,
    signed_rows,
    solve,
    unit_separator,
    verified_certificate,
    zero_one_erm,
)
from halfspaces._exact.highs import HighsResult
from halfspaces._exact.rational import ExactCheck
from halfspaces._utils.homogeneous import split_intercept
from halfspaces._utils.scaling import column_scales, max_square_norm, scale_columns, tolerance_scale
from halfspaces.exceptions import NotSeparableError, SolverError

XOR = np.array([[0.0, 0.0], [1.0, 1.0], [0.0, 1.0], [1.0, 0.0]]), np.array([1, 1, -1, -1])


def rows(X, y, fit_intercept=True, sparse=False):
    X = np.asarray(X, dtype=float)
    return signed_rows(sp.csr_matrix(X) if sparse else X, np.asarray(y, dtype=float),
                       fit_intercept)


def check_decision(X, y, fit_intercept=True, sparse=False):
    """decide() on (X, y), each answer checked by the oracles; returns it."""
    found = decide(rows(X, y, fit_intercept, sparse))
    assert found.separable == linprog_separable(X, y, fit_intercept)
    assert (found.separator is None) != (found.certificate is None)
    if found.separable:
        assert np.min(signed(X, y, fit_intercept) @ found.separator) >= 1.0
    else:
        check_certificate(X, y, found.certificate, fit_intercept)
    return found


def test_signed_rows_and_split_intercept():
    X, y = np.array([[2.0, 3.0], [4.0, 5.0]]), np.array([1.0, -1.0])
    np.testing.assert_array_equal(rows(X, y), signed(X, y, True))
    np.testing.assert_array_equal(rows(X, y, sparse=True).toarray(), signed(X, y, True))
    np.testing.assert_array_equal(rows(X, y, False), signed(X, y, False))
    coef, b = split_intercept(np.array([7.0, 1.0, 2.0]), True)
    assert coef.tolist() == [1.0, 2.0] and b == 7.0
    assert split_intercept(np.array([1.0, 2.0]), False)[1] == 0.0


@pytest.mark.parametrize("dtype", [np.int64, np.float32])
@pytest.mark.parametrize("sparse", [False, True])
def test_scores_are_flat_float64_margins(dtype, sparse):
    # integer or single-precision rows and weights still give float64 margins <w, z_i>,
    # the precision every tolerance downstream assumes
    Z, w = np.array([[1, -2, 3], [0, 4, -1]], dtype=dtype), np.array([2, 1, 1], dtype=dtype)
    got = scores(sp.csr_matrix(Z) if sparse else Z, w)
    assert got.dtype == np.float64 and got.shape == (2,)
    assert got.tolist() == [sum(float(a) * float(b) for a, b in zip(z, w, strict=True))
                            for z in Z] == [3.0, 3.0]


def test_xor_certificate_is_uniform():
    found = check_decision(*XOR)
    np.testing.assert_allclose(found.certificate, 0.25)


@pytest.mark.parametrize("fit_intercept", [True, False])
@pytest.mark.parametrize("sparse", [False, True])
def test_random_separable_and_noisy(fit_intercept, sparse):
    rng = np.random.default_rng(11)
    for _ in range(3):
        X, y = separable_sample(rng, 150, 4, fit_intercept=fit_intercept)
        assert check_decision(X, y, fit_intercept, sparse).separable
        X, y = noisy_sample(rng, 150, 4)
        assert not check_decision(X, y, fit_intercept, sparse).separable


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 10**6), st.integers(1, 10), st.integers(1, 3), st.booleans())
def test_small_integer_samples_agree_with_linprog(seed, n, d, fit_intercept):
    rng = np.random.default_rng(seed)
    X = rng.integers(-2, 3, (n, d)).astype(float)  # ties, duplicates and zero rows happen
    check_decision(X, rng.choice([-1, 1], n), fit_intercept)


def corners_and_outsiders(n, outsiders):
    """Corners (+-1, +-1) labelled by x_1, except ``outsiders`` (x, label) on rows that the
    first working set of n rows does not hold: there the box-margin LP's unique optimum,
    w = (0, 1, 0), fails them, so the working set must grow."""
    from halfspaces._exact.feasibility import first_rows

    rng = np.random.default_rng(0)
    X = rng.choice([-1.0, 1.0], (n, 2))
    y = X[:, 0].astype(int)
    outside = np.setdiff1d(np.arange(n), first_rows(n))[: len(outsiders)]
    for row, (x, label) in zip(outside, outsiders, strict=True):
        X[row], y[row] = x, label
    return X, y


@pytest.mark.parametrize("separable", [True, False])
def test_working_set_grows_past_the_first_rows(monkeypatch, separable):
    import halfspaces._exact.feasibility as feasibility

    grown = []
    grow = feasibility.grow_working_set
    monkeypatch.setattr(feasibility, "grow_working_set",
                        lambda *args: grown.append(grow(*args)) or grown[-1])
    outsiders = [((0.5, 0.0), -1)] + ([] if separable else [((0.4, 0.0), 1)])
    X, y = corners_and_outsiders(3000, outsiders)  # (0.5, 0) is in conv{(0.4, 0), (1, +-1)}
    assert check_decision(X, y).separable == separable
    assert grown and grown[0] is not None and grown[0].size > 2000


def test_verified_certificate_rejects_what_is_not_one():
    Z = rows(*XOR)
    a = np.full(4, 0.25)
    assert verified_certificate(Z, a) is a
    assert verified_certificate(Z, None) is None
    assert verified_certificate(Z, np.array([0.5, 0.5, 0.25, -0.25])) is None  # a < 0
    assert verified_certificate(Z, np.full(4, 0.3)) is None  # sum(a) != 1
    assert verified_certificate(Z, np.array([0.5, 0.5, 0.0, 0.0])) is None  # Z^T a != 0


def test_unit_separator_scales_to_margin_one():
    Z = rows([[1.0], [3.0], [-2.0]], [1, 1, -1], fit_intercept=False)
    w = unit_separator(Z, np.array([1e-3]))
    assert np.min(Z @ w) >= 1.0 and w[0] == pytest.approx(1.0)
    assert unit_separator(Z, np.array([-1.0])) is None  # misclassifies
    assert unit_separator(Z, np.array([0.0])) is None  # margin 0


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("sparse", [False, True])
def test_min_norm_homogeneous_is_nnls_min_norm_point(seed, sparse):
    # min ||w|| s.t. <w, z_i> >= 1 is w* = p*/||p*||^2, p* the min-norm point of conv{z_i}
    X, y = separable_sample(np.random.default_rng(seed), 60, 3, gap=0.2, fit_intercept=False)
    w = min_norm_separator(rows(X, y, False, sparse), free_first=False)
    p = min_norm_point(signed(X, y, False))
    np.testing.assert_allclose(w, p / (p @ p), rtol=1e-5, atol=1e-8)


@pytest.mark.parametrize("seed", range(3))
def test_min_norm_with_free_intercept_matches_hulls_and_svc(seed):
    X, y = separable_sample(np.random.default_rng(seed), 80, 3, gap=0.2, scale=2.0)
    Z = rows(X, y)
    w = unit_separator(Z, min_norm_separator(Z, free_first=True))
    coef, b = split_intercept(w, True)
    margin = np.min(Z @ w) / np.linalg.norm(coef)
    assert margin == pytest.approx(hull_half_distance(X, y), rel=1e-6)
    svc = SVC(kernel="linear", C=1e10, tol=1e-10).fit(X, y)
    svc_margin = np.min(y * svc.decision_function(X)) / np.linalg.norm(svc.coef_)
    assert svc_margin <= margin * (1 + 1e-9)  # libsvm stops at its tolerance, never better
    assert margin == pytest.approx(svc_margin, rel=1e-5)


def test_min_norm_working_set_on_many_rows():
    X, y = separable_sample(np.random.default_rng(6), 5000, 5, gap=0.05, fit_intercept=False)
    w = min_norm_separator(rows(X, y, False), free_first=False)
    assert np.min(signed(X, y, False) @ w) >= 1.0 - 1e-7
    p = min_norm_point(signed(X, y, False))
    assert np.linalg.norm(w) == pytest.approx(1 / np.linalg.norm(p), rel=1e-5)


def test_min_norm_on_non_separable_rows_raises_with_certificate():
    with pytest.raises(NotSeparableError, match="not linearly separable") as info:
        min_norm_separator(rows(*XOR), free_first=True)
    check_certificate(*XOR, info.value.certificate)


# Signed rows whose columns differ by more than 2^1074, so that the QP's one scale for all
# penalised columns underflows the small ones to 0; the first is separable (w = (0, 1e-250,
# 1) with the intercept free; the third row is 1e200 on the first feature), the others not
SEPARABLE_BEYOND_ONE_SCALE = [
    (np.array([[1.0, 0.0, 1e-200], [-1.0, 0.0, 1e-200], [1.0, 1e200, 0.0]]), True),
    (np.array([[1e300, 1e-300], [-1e300, 1e-300]]), False),
    (np.array([[1e200, 1e-200], [-1e200, 1e-200]]), False),
]


@pytest.mark.parametrize(("Z", "free_first"), SEPARABLE_BEYOND_ONE_SCALE)
@pytest.mark.parametrize("method", ["_primal", "_dual", "_balanced_dual"])
def test_min_norm_refuses_rows_that_separate_only_beyond_its_one_scale(Z, free_first, method):
    # the scaled rows are inseparable once the small column is 0; their certificate
    # ([0.5, 0.5, 0] or None) was raised as NotSeparableError on separable rows
    assert decide(Z).separable
    with pytest.raises(SolverError, match="span a ratio of 2\\^1[0-9]{3}"):
        min_norm_separator(Z, free_first=free_first)
    rows = SignedRows(Z)
    scaled = rows.scaled(min_norm._scales(rows, free_first))
    with pytest.raises(SolverError, match="cannot be solved in float64"):
        getattr(min_norm, method)(rows, scaled, free_first)


@pytest.mark.parametrize("method", ["_primal", "_dual", "_balanced_dual"])
def test_min_norm_proves_its_certificate_on_the_rows_not_their_scaled_twins(method):
    # inseparable: rows 1 and 2 force 1e-200 w_1 <= -2, row 3 forces 1e-200 w_1 >= 1, and
    # (1/3, 1/3, 1/3) is the certificate. Scaled, the 1e-200 column is 0 and the dual's
    # certificate was (1/2, 1/2, 0), which leaves -5e-201 there: raised with None
    Z = np.array([[1e200, 1e-200], [-1e200, -2e-200], [0.0, 1e-200]])
    rows = SignedRows(Z)
    with pytest.raises(NotSeparableError) as info:
        getattr(min_norm, method)(rows, rows.scaled(min_norm._scales(rows, False)), False)
    a = info.value.certificate
    assert a is not None
    assert_array_equal(a, np.full(3, 1 / 3))
    v = exact_null_vector(Z)  # exactly: sum_i v_i z_i = 0 with every v_i > 0
    assert v is not None and all(x > 0 for x in v)


@pytest.mark.parametrize("fit_intercept", [True, False])
@pytest.mark.parametrize("sparse", [False, True])
def test_hinge_lp_matches_linprog(fit_intercept, sparse):
    X, y = noisy_sample(np.random.default_rng(4), 120, 3)
    w = hinge_lp(rows(X, y, fit_intercept, sparse))
    Z = signed(X, y, fit_intercept)
    n, p = Z.shape
    ref = linprog(np.r_[np.zeros(p), np.ones(n)], A_ub=-np.hstack([Z, np.eye(n)]),
                  b_ub=-np.ones(n), bounds=[(None, None)] * p + [(0, None)] * n,
                  method="highs")
    assert ref.status == 0
    ours = np.maximum(0.0, 1.0 - Z @ w).sum()
    assert ours == pytest.approx(ref.fun, rel=1e-7)


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("fit_intercept", [True, False])
def test_zero_one_milp_equals_brute_force(seed, fit_intercept):
    rng = np.random.default_rng(100 + seed)
    n = 7 + seed % 4  # n <= 10: 2^n subsets
    X, y = noisy_sample(rng, n, 2, flip=0.3)
    fit = zero_one_erm(rows(X, y, fit_intercept), 1e-5)
    assert fit.optimal and fit.gap == 0.0
    assert fit.n_errors == brute_force_errors(X, y, fit_intercept)
    assert fit.n_errors == np.sum(signed(X, y, fit_intercept) @ fit.w <= 0)


def test_solve_raises_on_a_status_not_accepted_and_returns_it_when_accepted():
    # x >= 1 and x <= -1: infeasible
    A = sp.csr_matrix(np.array([[1.0], [1.0]]))
    bounds = ((np.array([-INF]), np.array([INF])),
              (np.array([1.0, -INF]), np.array([INF, -1.0])))
    with pytest.raises(SolverError, match="could not solve the toy LP: model status 'Infeasible'"):
        solve(A, np.zeros(1), *bounds, what="toy LP")
    assert solve(A, np.zeros(1), *bounds, accept=("Infeasible",)).status == "Infeasible"


def test_highs_prints_nothing(capfd):
    # HiGHS writes from C++ straight to file descriptor 1; a banner there once broke the
    # CLI's --json output (highspy 1.16 logs it from its constructor)
    Z = rows(np.array([[0.0, 1.0], [1.0, 0.0], [2.0, 2.0], [3.0, 1.0]]), [-1, -1, 1, 1])
    decide(Z)
    min_norm_separator(Z, free_first=True)
    hinge_lp(Z)
    zero_one_erm(Z, 1e-5)
    out, err = capfd.readouterr()
    assert out == "" and err == ""


# -- scale: every tolerance relative to the data's own size -----------------------------------

def test_certificate_check_is_relative_to_each_column():
    # features of size 1e-10 beside the constant feature 1: a residual of 3e-11 in a feature
    # column is a third of that column's size, no proof at all, though far below 1e-9
    Z = rows([[1e-10], [2e-10], [0.0]], [1, -1, 1])
    a = np.array([0.4, 0.5, 0.1])
    assert abs((Z.T @ a)[0]) <= 1e-12 and abs((Z.T @ a)[1]) == pytest.approx(6e-11)
    assert verified_certificate(Z, a) is None
    assert verified_certificate(Z * 1e10, a) is None


@pytest.mark.parametrize("Z, expected", [
    (np.array([[0.5, -0.25], [0.0, 0.125]]), 1.0),      # unit scale: absolute tolerances
    (np.array([[3.0, -7.5], [0.0, 2.0]]), 7.5),         # beyond: the largest |z_ij|, sign and all
    (np.zeros((0, 3)), 1.0),                            # no rows
    (np.zeros((2, 3)), 1.0),
])
def test_tolerance_scale_is_one_or_the_largest_entry(Z, expected):
    assert tolerance_scale(Z) == expected == max(1.0, np.abs(Z).max(initial=0.0))
    assert type(tolerance_scale(Z)) is float
    assert tolerance_scale(sp.csr_matrix(Z)) == expected  # CSR: the stored values alone
    assert tolerance_scale(sp.csr_matrix(Z.shape)) == 1.0  # CSR without stored entries


def test_column_scales_are_powers_of_two_into_one_two():
    Z = np.array([[3e-10, 0.0, -5.0], [-1e-12, 0.0, 1.0]])
    s = column_scales(Z)
    assert np.all(np.frexp(s)[0] == 0.5)  # exact powers of two
    top = np.abs(Z * s).max(axis=0)
    assert np.all((top >= 1) & (top < 2) | (top == 0))
    np.testing.assert_array_equal(scale_columns(sp.csr_matrix(Z), s).toarray(), Z * s)


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 10**6), st.integers(-12, 12), st.booleans(), st.booleans())
def test_decide_is_invariant_to_the_scale_of_x(seed, exponent, separable, fit_intercept):
    rng = np.random.default_rng(seed)
    if separable:
        X, y = separable_sample(rng, 40, 3, gap=0.2, fit_intercept=fit_intercept)
    else:
        X, y = noisy_sample(rng, 40, 3, flip=0.3)
    expected = check_decision(X, y, fit_intercept).separable  # against linprog at scale 1
    Xc = X * 10.0**exponent  # linprog itself fails at some scales: checked by hand here
    found = decide(rows(Xc, y, fit_intercept))
    assert found.separable == expected
    if found.separable:
        assert np.min(signed(Xc, y, fit_intercept) @ found.separator) >= 1.0
    else:
        check_certificate(Xc, y, found.certificate, fit_intercept)


def test_tiny_separable_data_get_a_separator_not_a_false_certificate():
    X, y = separable_sample(np.random.default_rng(3), 100, 3, gap=0.1)
    assert perceptron_separates(X, y)
    for scale in (1e-10, 1e-12, 1e12):
        found = decide(rows(X * scale, y))
        assert found.separable
        assert np.min(signed(X * scale, y, True) @ found.separator) >= 1.0


# -- the hard-margin QP: degenerate, rank-deficient, badly scaled and wide data ---------------

def margin_of(Z, w, fit_intercept=True):
    coef, _ = split_intercept(w, fit_intercept)
    return np.min(Z @ w) / np.linalg.norm(coef)


@pytest.mark.parametrize("scale", [1e-8, 1.0, 1e8])
def test_min_norm_on_two_points_far_apart(scale):
    # x = 100 (label 1), -1 (label -1): the primal QP once answered 'Unbounded' here
    X, y = np.array([[100.0], [-1.0]]) * scale, np.array([1, -1])
    Z = rows(X, y)
    w = unit_separator(Z, min_norm_separator(Z, free_first=True))
    assert margin_of(signed(X, y, True), w) == pytest.approx(50.5 * scale, rel=1e-9)
    w_aug = unit_separator(Z, min_norm_separator(Z, free_first=False))
    p = min_norm_point(signed(X, y, True))  # the homogeneous problem on x' = (1, x)
    assert np.linalg.norm(w_aug) == pytest.approx(1 / np.linalg.norm(p), rel=1e-6)


@pytest.mark.parametrize(("seed", "numeric_scale"), [(0, 1.0), (1, 1.0), (1, 1e4), (3, 1e4)])
def test_min_norm_on_dependent_one_hot_columns(seed, numeric_scale):
    # the primal QP once stopped with 'Solve error' on (1, 1e4): the dual takes over
    X, y = one_hot_sample(np.random.default_rng(seed), 300, numeric_scale=numeric_scale)
    assert np.linalg.matrix_rank(np.hstack([np.ones((len(X), 1)), X])) < X.shape[1] + 1
    Z = rows(X, y)
    w = unit_separator(Z, min_norm_separator(Z, free_first=True))
    margin, hulls = margin_of(signed(X, y, True), w), hull_half_distance(X, y)
    assert margin <= hulls * (1 + 1e-9)  # any two hull points bound the margin from above
    assert margin == pytest.approx(hulls, rel=1e-4)  # NNLS's penalty of 1e4 limits the oracle


@pytest.mark.parametrize("sparse", [False, True])
def test_min_norm_on_wide_data_matches_hulls_and_svc(sparse):
    # more features than _WIDE: the dual on the dense Gram of a working set of rows
    rng = np.random.default_rng(5)
    X, y = separable_sample(rng, 400, 250, gap=0.5)
    X[rng.random(X.shape) < 0.5] = 0.0  # half the entries zero; relabelled below by a
    y = np.where(X @ rng.standard_normal(250) > 0, 1, -1)  # hyperplane: separable
    Z = rows(X, y, sparse=sparse)
    w = unit_separator(Z, min_norm_separator(Z, free_first=True))
    margin = margin_of(signed(X, y, True), w)
    assert margin == pytest.approx(hull_half_distance(X, y), rel=1e-5)
    svc = SVC(kernel="linear", C=1e10, tol=1e-8).fit(X, y)
    assert margin == pytest.approx(
        np.min(y * svc.decision_function(X)) / np.linalg.norm(svc.coef_), rel=1e-4)
    w0 = min_norm_separator(rows(X, y, False, sparse), free_first=False)
    p = min_norm_point(signed(X, y, False))
    np.testing.assert_allclose(w0, p / (p @ p), rtol=1e-5, atol=1e-8)


def test_min_norm_on_wide_non_separable_rows_raises_with_certificate():
    X, y = noisy_sample(np.random.default_rng(8), 600, 250, flip=0.3)
    with pytest.raises(NotSeparableError) as info:
        min_norm_separator(rows(X, y), free_first=True)
    check_certificate(X, y, info.value.certificate)


@pytest.mark.parametrize("exponent", [-12, -6, 0, 6, 12])
def test_min_norm_margin_scales_with_x(exponent):
    X, y = separable_sample(np.random.default_rng(2), 60, 3, gap=0.2)
    Z = rows(X * 10.0**exponent, y)
    w = unit_separator(Z, min_norm_separator(Z, free_first=True))
    margin = margin_of(signed(X * 10.0**exponent, y, True), w)
    assert margin == pytest.approx(hull_half_distance(X, y) * 10.0**exponent, rel=1e-6)


@given(st.integers(0, 10**6), st.integers(0, 40), st.lists(st.integers(0, 40), max_size=4),
       st.booleans(), st.integers(1, 30))
@settings(max_examples=40, deadline=None)
def test_violations_of_row_blocks_combine_into_those_of_the_whole_sample(
        seed, n, cuts, strict, limit):
    from halfspaces._exact import SignedRows, block_violations
    from halfspaces._exact.signed import combine_violations

    rng = np.random.default_rng(seed)
    Z = rng.integers(-2, 3, (n, 3)).astype(float)  # ties in the scores happen
    w = rng.integers(-2, 3, 3).astype(float)
    exclude = np.sort(rng.choice(n, n // 3, replace=False)) if n else np.empty(0, int)
    whole = SignedRows(Z).check(w, 0.0, strict=strict, exclude=exclude, limit=limit)
    m = Z @ w
    violated = np.flatnonzero(m < 0 if strict else m <= 0)
    new = np.setdiff1d(violated, exclude)
    expected = new[np.lexsort((new, m[new]))][:limit]  # by score, then by index
    assert_array_equal(whole.new_rows, expected)
    assert whole.n_violated == violated.size
    bounds = [0, *sorted(min(c, n) for c in cuts), n]
    parts = [block_violations(Z[a:b], w, 0.0, strict=strict, exclude=exclude, limit=limit,
                              offset=a) for a, b in zip(bounds[:-1], bounds[1:], strict=True)]
    combined = combine_violations(parts[::-1], limit)  # any order of the blocks
    assert_array_equal(combined.new_rows, whole.new_rows)
    assert_array_equal(combined.new_scores, m[expected])
    assert combined.n_violated == whole.n_violated
    assert combined.min_score == (m.min() if n else np.inf)


# -- the search for the smallest Freund-Schapire bound (_exact.freund_schapire) ------------

def fs_rows(seed=21, n=50, d=2, flip=0.2):
    X, y = noisy_sample(np.random.default_rng(seed), n, d, flip=flip)
    Z = signed(X, y, True)
    return Z, float(np.sqrt(np.max(np.sum(Z * Z, axis=1))))


def test_each_path_point_minimises_its_squared_hinge_problem():
    from halfspaces._exact import SignedRows
    from halfspaces._exact.freund_schapire import _squared_hinge_path_point

    Z, R = fs_rows()
    for lam in (R * R * 10.0, R * R * 0.1, R * R * 1e-3):
        v = _squared_hinge_path_point(SignedRows(Z), lam, np.zeros(Z.shape[1]))
        slack = np.maximum(0.0, 1.0 - Z @ v)
        gradient = 2.0 * lam * v - 2.0 * Z.T @ slack  # of lam ||v||^2 + ||(1 - Zv)_+||^2
        # L-BFGS-B's own stopping rule, relative to the gradient at v = 0
        assert np.linalg.norm(gradient) <= 1e-3 * np.linalg.norm(2.0 * Z.T @ np.ones(len(Z)))


def test_the_search_minimises_by_l_bfgs_b_with_options_it_knows():
    # SciPy picks BFGS when no method is named and warns of options a method does not know
    # (OptimizeWarning): errors here; the polish starts from the best candidate found
    import warnings

    import scipy.optimize

    from halfspaces._exact import SignedRows, decide
    from halfspaces._exact.freund_schapire import _candidates, smallest_root

    Z, R = fs_rows()
    calls = []
    minimize = scipy.optimize.minimize

    def recording(fun, x0, **kwargs):
        calls.append((kwargs.get("method"), np.array(x0)))
        return minimize(fun, x0, **kwargs)

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(scipy.optimize, "minimize", recording)
            v = smallest_root(SignedRows(Z), R)
    assert [method.lower() for method, _ in calls] == ["l-bfgs-b"] * len(calls)
    found, roots = _candidates(SignedRows(Z), R)
    np.testing.assert_array_equal(calls[-1][1], found[int(np.argmin(roots))])
    path = len(found) - 2 - int(decide(Z).separable)  # the candidates but the hard margin's
    assert len(calls) == path + 1  # and the tiny two: each path point, then the polish
    assert np.linalg.norm(v) > 0


def test_a_polish_that_does_not_improve_on_the_best_candidate_is_dropped():
    import scipy.optimize

    from halfspaces._exact import SignedRows
    from halfspaces._exact.freund_schapire import _candidates, _root, smallest_root

    Z, R = fs_rows()
    rows = SignedRows(Z)
    found, roots = _candidates(rows, R)
    best = found[int(np.argmin(roots))]
    minimize = scipy.optimize.minimize

    def bad_polish(fun, x0, **kwargs):
        result = minimize(fun, x0, **kwargs)
        if kwargs["options"]["maxiter"] == 200:  # the polish, not a path point
            result.x = 50.0 * x0
        return result

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(scipy.optimize, "minimize", bad_polish)
        v = smallest_root(rows, R)
    assert _root(rows, R, 50.0 * best) > min(roots)
    np.testing.assert_array_equal(v, best)


def test_the_root_gradient_is_the_derivative_of_the_root():
    from halfspaces._exact import SignedRows, decide
    from halfspaces._exact.freund_schapire import _root_and_grad

    Z, R = fs_rows()
    rng = np.random.default_rng(3)
    points = [(Z, rng.normal(size=Z.shape[1]) * scale) for scale in (0.05, 1.0, 20.0)]
    Zs, _ = fs_rows(seed=22, flip=0.0)
    w = decide(Zs).separator  # margin >= 1 at w: 0.98 w leaves a hinge norm in (0, 1)
    assert 0.0 < np.linalg.norm(np.maximum(0.0, 1.0 - Zs @ (0.98 * w))) < 1.0
    points.append((Zs, 0.98 * w))
    for Z, v in points:
        rows = SignedRows(Z)
        root, grad = _root_and_grad(rows, R, v)
        assert root == pytest.approx(R * np.linalg.norm(v) + np.linalg.norm(
            np.maximum(0.0, 1.0 - Z @ v)), rel=1e-12)
        step = 1e-6 * max(1.0, np.linalg.norm(v))
        numeric = [(_root_and_grad(rows, R, v + step * e)[0]
                    - _root_and_grad(rows, R, v - step * e)[0]) / (2 * step)
                   for e in np.eye(Z.shape[1])]
        assert np.allclose(grad, numeric, rtol=1e-5, atol=1e-6)
    # at v = 0, where ||v|| has no derivative, the gradient is the hinge term's alone
    root, grad = _root_and_grad(SignedRows(Z), R, np.zeros(Z.shape[1]))
    assert root == pytest.approx(np.sqrt(len(Z)), rel=1e-14)
    assert grad.dtype == np.float64
    np.testing.assert_allclose(grad, -Z.T @ np.ones(len(Z)) / np.sqrt(len(Z)), rtol=1e-12)


def test_the_path_runs_down_from_r2_times_1e4_by_tens_and_stops_after_two_worse_points():
    from halfspaces._exact import SignedRows, decide
    from halfspaces._exact.freund_schapire import _candidates, _root, _squared_hinge_path_point

    small, _ = fs_rows(seed=23, flip=0.0)
    small = small[:, 1:] * 0.01  # homogeneous, inside the unit ball: R < 1
    X, y = separable_sample(np.random.default_rng(1), 60, 4, gap=0.2)
    far = signed(X + 2.0, y, True)  # off the origin: the intercept's penalty moves the QP
    cases = [fs_rows(), (far, float(np.sqrt(np.max(np.sum(far * far, axis=1))))),
             (small, float(np.sqrt(np.max(np.sum(small * small, axis=1)))))]
    assert cases[2][1] < 1.0
    assert not np.allclose(unit_separator(far, min_norm_separator(far, free_first=False)),
                           unit_separator(far, min_norm_separator(far, free_first=True)))
    for Z, R in cases:
        rows = SignedRows(Z)
        expected, v, worse, lowest = [], np.zeros(Z.shape[1]), 0, np.inf
        for k in range(4, -5, -1):  # the documented rule, step by step
            v = _squared_hinge_path_point(rows, R * R * 10.0 ** k, v)
            root = _root(rows, R, v)
            worse = worse + 1 if expected and root >= lowest else 0
            lowest = min(lowest, root)
            expected.append(v)
            if worse == 2:
                break
        found, roots = _candidates(rows, R)
        assert roots == [_root(rows, R, c) for c in found]
        for a, b in zip(found[:len(expected)], expected, strict=True):
            np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-12)
        separable = decide(Z).separable
        assert len(found) == len(expected) + int(separable) + 2
        tiny = np.zeros(Z.shape[1])
        tiny[0] = 1e-9 / R
        np.testing.assert_array_equal(found[-2], tiny)
        np.testing.assert_array_equal(found[-1], -tiny)
        if separable:  # the hard-margin point on x' (the intercept penalised too)
            np.testing.assert_array_equal(found[len(expected)], unit_separator(
                Z, min_norm_separator(Z, free_first=False)))
            assert np.min(Z @ found[len(expected)]) >= 1.0


@pytest.mark.parametrize("fmt", ["dense", "csr"])
def test_gordan_lp_fallback_certifies_when_the_duals_give_no_certificate(fmt):
    # row duals of zeros give no candidate, so _certificate falls back to solving the
    # alternative a >= 0, sum a = 1, Z^T a = 0 directly (an LP of its own)
    def as_fmt(Z):
        return sp.csr_matrix(Z) if fmt == "csr" else Z
    X, y = noisy_sample(np.random.default_rng(40), 30, 3, flip=0.3)
    assert not linprog_separable(X, y)
    Z = as_fmt(signed(X, y, True))
    direct = feasibility._gordan_lp(Z)
    assert direct is not None
    assert np.all(direct >= 0) and direct.sum() == pytest.approx(1.0, abs=1e-9)
    assert np.abs(signed(X, y, True).T @ direct).max() <= 1e-7
    check_certificate(X, y, feasibility._certificate(Z, np.zeros(30)))
    check_certificate(*XOR, feasibility._certificate(as_fmt(signed(*XOR, True)), np.zeros(4)))
    S, labels = separable_sample(np.random.default_rng(41), 30, 3)
    Zs = as_fmt(signed(S, labels, True))
    assert feasibility._gordan_lp(Zs) is None
    assert feasibility._certificate(Zs, np.zeros(30)) is None


@pytest.mark.parametrize("fmt", ["dense", "csr32", "csr64"])
def test_max_square_norm_is_the_largest_squared_row_norm(fmt):
    rng = np.random.default_rng(42)
    Z = rng.normal(size=(25, 4)) * (rng.random((25, 4)) < 0.6)
    Z[7] = [3.0, -4.0, 0.0, 12.0]  # norm 13: the largest
    A = {"dense": Z, "csr32": sp.csr_matrix(Z.astype(np.float32)),
         "csr64": sp.csr_matrix(Z)}[fmt]
    got = max_square_norm(A)
    assert isinstance(got, float) and got == pytest.approx(169.0, rel=1e-6)
    assert SignedRows(A).max_row_norm() == pytest.approx(np.sqrt(got), rel=1e-15)
    assert max_square_norm(A[:0]) == 0.0
    assert max_square_norm(-A) == got  # the signs of the rows do not matter


@pytest.mark.parametrize("budget", [dict(node_limit=1), dict(time_limit=0.0)])
def test_zero_one_erm_within_a_budget_says_it_is_not_optimal(budget):
    # one node or no time at all (both give the same answer at any machine load): HiGHS
    # stops with its first incumbent, which errs at least as often as the optimum; the
    # errors are recounted on the hyperplane returned
    X, y = noisy_sample(np.random.default_rng(0), 60, 2, flip=0.25)
    Z = rows(X, y)
    best = zero_one_erm(Z, 1e-5)
    assert best.optimal and best.gap == 0.0
    stopped = zero_one_erm(Z, 1e-5, **budget)
    assert not stopped.optimal and stopped.gap > 0.0
    assert stopped.n_errors >= best.n_errors
    assert stopped.n_errors == int(np.sum(signed(X, y, True) @ stopped.w <= 0))


def test_duality_gap_of_hard_margin_candidates_in_closed_form():
    # rows z = 2 and z = 4 (no intercept): w* = 1/2, a* = (1/4, 0), P* = D* = 1/8
    Z = np.array([[2.0], [4.0]])
    a_star = np.array([0.25, 0.0])

    def gap(w, a):
        return min_norm._relative_gap(Z, np.array([w]), np.asarray(a), False)
    assert gap(0.5, a_star) == 0.0
    assert gap(1.0, a_star) == pytest.approx(0.75, rel=1e-15)  # P = 1/2
    assert gap(0.25, a_star) == 0.0  # min margin 1/2: scaled to w = 1/2 first
    assert gap(0.5, [0.5, 0.0]) == pytest.approx(1.0, rel=1e-15)  # D = 1/2 - 1/2 = 0
    with pytest.raises(SolverError, match=r"does not separate the working set \(min margin -4\)"):
        gap(-1.0, a_star)
    # with a free intercept column the dual point must balance the labels
    Zf = np.array([[1.0, 2.0], [-1.0, 1.0]])
    with pytest.raises(SolverError, match="violates sum_i a_i y_i = 0 by 0.25"):
        min_norm._relative_gap(Zf, np.array([0.0, 1.0]), np.array([0.25, 0.0]), True)
    # _verified keeps the better of the answer and its polished twin (re-solved on the
    # support of a), also when the answer itself fails; and refuses when neither closes
    rows = SignedRows(Z)
    assert_array_equal(min_norm._verified(rows, Z, np.array([1.0]), a_star, False), [0.5])
    assert_array_equal(min_norm._verified(rows, Z, np.array([-1.0]), a_star, False), [0.5])
    with pytest.raises(SolverError, match="does not separate"):
        min_norm._verified(rows, Z, np.array([-1.0]), np.zeros(2), False)
    with pytest.raises(SolverError, match="relative duality gap 1.5"):
        min_norm._verified(rows, Z, np.array([1.0]), np.array([0.0, 0.25]), False)


@pytest.mark.parametrize("fmt", ["dense", "csr"])
def test_the_separability_lps_own_duals_give_the_certificate(fmt, monkeypatch):
    # at t = 0 the duals of the max-box-margin LP are a Gordan certificate (up to sign and
    # scale): no second LP is needed, so the direct LP here refuses to run
    def no_second_lp(Z):
        raise AssertionError("the Gordan LP was solved")
    monkeypatch.setattr(feasibility, "_gordan_lp", no_second_lp)
    for seed in range(3):
        X, y = noisy_sample(np.random.default_rng(50 + seed), 40, 3, flip=0.3)
        Z = signed(X, y, True)
        Z = sp.csr_matrix(Z) if fmt == "csr" else Z
        _, t, duals = feasibility._max_box_margin(Z)
        assert t == pytest.approx(0.0, abs=1e-9)
        check_certificate(X, y, feasibility._certificate(Z, duals))


def test_decide_refuses_rather_than_answer_without_a_checked_proof(monkeypatch):
    # when neither a separator nor a certificate survives its floating-point check, decide
    # raises; here each check is made to fail in turn
    X, y = noisy_sample(np.random.default_rng(60), 40, 3, flip=0.3)
    S, labels = separable_sample(np.random.default_rng(61), 40, 3)
    refused = (r"^separability cannot be decided: the LP's separator fails in floating point "
               r"\(box margin t = {} on columns scaled to max \|z_ij\| in \[1, 2\)\) and no "
               r"certificate passes its check \(\|sum_i a_i z_ij\| <= 1e-9 max_i \|z_ij\|\)\. "
               r"The data are too close to the boundary between separable and not for "
               r"float64\.$")
    with monkeypatch.context() as patch:
        patch.setattr(feasibility, "_certificate", lambda Z, row_dual: None)
        # without the duals' certificate, least squares on the working set finds one, proved
        found = decide(rows(X, y))
        assert found.exact
        check_certificate(X, y, found.certificate)
        patch.setattr(feasibility, "exact_certificate",
                      lambda Z, a: ExactCheck(None, True))
        with pytest.raises(SolverError, match=refused.format("0")):
            decide(rows(X, y))
    with monkeypatch.context() as patch:
        patch.setattr(feasibility, "unit_separator", lambda Z, w, low=None: None)
        with pytest.raises(SolverError, match=refused.format(r"0\.\d+")):
            decide(rows(S, labels))
    # the working-set loop checks a certificate on the working set, then on every row
    full = SignedRows(rows(X, y))
    real_verified = feasibility.verified_certificate
    with monkeypatch.context() as patch:
        patch.setattr(feasibility, "verified_certificate", lambda Z, a: None
                      if Z is full else real_verified(Z, a))
        with pytest.raises(SolverError, match=r"^the certificate failed its check on the full "
                                              r"sample\.$"):
            feasibility._decide(full)
    assert decide(rows(S, labels)).separable  # unpatched: both answers stand
    check_certificate(X, y, decide(rows(X, y)).certificate)


def test_decide_refuses_when_the_answer_on_normalised_columns_fails_on_x(monkeypatch):
    # decide solves on columns scaled by powers of two and checks the answer again on X
    # itself; were that check to fail (it cannot: the products are the same), it refuses
    X, y = noisy_sample(np.random.default_rng(60), 40, 3, flip=0.3)
    S, labels = separable_sample(np.random.default_rng(61), 40, 3)
    X, S = 3.0 * X, 3.0 * S  # columns beyond [1, 2): scaled
    inseparable, separable = SignedRows(rows(X, y)), SignedRows(rows(S, labels))
    real_unit, real_verified = feasibility.unit_separator, feasibility.verified_certificate
    with monkeypatch.context() as patch:
        patch.setattr(feasibility, "unit_separator", lambda Z, w, low=None: None
                      if Z is separable else real_unit(Z, w, low))
        with pytest.raises(SolverError, match=r"^separability cannot be decided: the "
                                              r"separator found on the normalised columns "
                                              r"fails on X in floating point\.$"):
            decide(separable)
    with monkeypatch.context() as patch:
        patch.setattr(feasibility, "verified_certificate", lambda Z, a: None
                      if Z is inseparable else real_verified(Z, a))
        with pytest.raises(SolverError, match=r"^separability cannot be decided: the "
                                              r"certificate found on the normalised columns "
                                              r"fails its check on X\.$"):
            decide(inseparable)
    assert decide(separable).separable and not decide(inseparable).separable


@pytest.mark.parametrize("route", ["_primal", "_dual"])
@pytest.mark.parametrize("free_first", [True, False])
def test_each_hard_margin_formulation_alone_reaches_the_maximum_margin_or_refuses(route,
                                                                                  free_first):
    # min_norm_separator tries the primal QP first on narrow data and the dual only if it
    # fails; each is run alone here, against the hull distance (free intercept) or NNLS's
    # minimum-norm point (homogeneous). On these narrow rows (G = Z Z^T of rank 3 or 4 for
    # 80 rows) the dual QP is less accurate: with the intercept its margins fall 3e-6 short
    # of 1 (callers rescale by unit_separator), without it the gap stays near 1e-5 and only
    # the polish (re-solved on the support, its norm no larger than the QP's w scaled to
    # margins 1) closes it
    X, y = separable_sample(np.random.default_rng(70), 80, 3, gap=0.2, scale=2.0,
                            fit_intercept=free_first)
    Z = SignedRows(signed(X, y, free_first))
    s = min_norm._scales(Z, free_first)
    w = s * getattr(min_norm, route)(Z, Z.scaled(s), free_first)
    Zd = signed(X, y, free_first)
    assert np.min(Zd @ w) >= 1.0 - (1e-7 if route == "_primal" else 1e-5)
    w = unit_separator(rows(X, y, free_first), w)
    penalised = w[1:] if free_first else w
    expected = (hull_half_distance(X, y) if free_first
                else np.linalg.norm(min_norm_point(Zd)))
    assert np.min(Zd @ w) / np.linalg.norm(penalised) == pytest.approx(expected, rel=1e-6)


def test_polish_solves_the_kkt_system_on_the_support():
    # z = 2 and z = 4 (no intercept): HiGHS-like answers off by 1e-7 are polished to the
    # exact w* = 1/2, a* = (1/4, 0); the polished norm is compared with the answer's scaled
    # to margins >= 1 (w = 0.4 has margin 0.8: scaled, 1/2), not with the infeasible answer
    # itself, whose norm is below the optimum's (a coordinate descent candidate's margins
    # are 1 - eps)
    Z = np.array([[2.0], [4.0]])
    rows = SignedRows(Z)
    w, a = min_norm._polish(rows, Z, np.array([0.5 + 1e-7]), np.array([0.25 - 1e-7, 1e-12]),
                            False)
    assert_array_equal(w, [0.5])
    assert_array_equal(a, [0.25, 0.0])
    w, a = min_norm._polish(rows, Z, np.array([0.4]), np.array([0.25, 0.0]), False)
    assert_array_equal(w, [0.5])
    assert min_norm._polish(rows, Z, np.array([0.5]), np.zeros(2), False) is None
    # with the free intercept column first: rows (1, 1) and (-1, 1), i.e. x = 1 labelled +1
    # and x = -1 labelled -1: w* = (0, 1), a* = (1/2, 1/2)
    Zf = np.array([[1.0, 1.0], [-1.0, 1.0]])
    w, a = min_norm._polish(SignedRows(Zf), Zf, np.array([1e-8, 1.0 + 1e-8]),
                            np.array([0.5, 0.5 + 1e-8]), True)
    assert_allclose(w, [0.0, 1.0], atol=1e-15)
    assert_allclose(a, [0.5, 0.5], atol=1e-15)


# -- HiGHS: Ctrl-C stops a MILP ------------------------------------------------------------------
def knapsack(n=12):
    """max sum v_j x_j s.t. sum w_j x_j <= half the weight, x binary (as a minimisation)."""
    rng = np.random.default_rng(3)
    weights, values = rng.integers(5, 40, n).astype(float), rng.integers(5, 40, n).astype(float)
    A = sp.csc_matrix(weights[None, :])
    return (A, -values, (np.zeros(n), np.ones(n)), (np.array([-INF]), [weights.sum() / 2]),
            weights, values)


def brute_force_knapsack(weights, values):
    picks = np.array(np.meshgrid(*[[0, 1]] * weights.size)).reshape(weights.size, -1).T
    fits = picks @ weights <= weights.sum() / 2
    return (picks[fits] @ values).max()


def test_a_milp_runs_in_a_worker_thread_that_ctrl_c_stops(monkeypatch):
    """HiGHS holds the main thread in C++ until it returns, so a MILP runs in highspy's worker
    thread: a KeyboardInterrupt while the main thread waits asks HiGHS to stop, waits for it
    and is re-raised. An LP runs in the calling thread."""
    from halfspaces._exact import highs

    A, cost, cols, rows, weights, values = knapsack()
    events = []
    for name in ("run", "startSolve", "cancelSolve"):
        real = getattr(highs._QuietHighs, name)
        monkeypatch.setattr(highs._QuietHighs, name,
                            lambda self, real=real, name=name: events.append(name) or real(self))
    lp = highs.solve(A, cost, cols, rows)
    relaxed = linprog(cost, A_ub=weights[None, :], b_ub=[weights.sum() / 2], bounds=(0, 1))
    assert events == ["run"] and lp.objective == pytest.approx(relaxed.fun, rel=1e-9)
    events.clear()
    milp = highs.solve(A, cost, cols, rows, integrality=np.ones(cost.size))
    assert events == ["startSolve"]
    assert milp.objective == pytest.approx(-brute_force_knapsack(weights, values), abs=1e-9)
    events.clear()
    real_wait = highs._QuietHighs.wait

    def interrupted_once(self, timeout):
        if "interrupt" not in events:
            events.append("interrupt")
            raise KeyboardInterrupt
        done = real_wait(self, timeout)
        events.append(self.modelStatusToString(self.getModelStatus()) if done[0] else "wait")
        return done

    monkeypatch.setattr(highs._QuietHighs, "wait", interrupted_once)
    # a MILP that takes HiGHS about a second (60 items, 8 knapsack constraints)
    rng = np.random.default_rng(3)
    W, v = rng.integers(5, 100, (8, 60)).astype(float), rng.integers(5, 100, 60).astype(float)
    with pytest.raises(KeyboardInterrupt):
        highs.solve(sp.csc_matrix(W), -v, (np.zeros(60), np.ones(60)),
                    (np.full(8, -INF), W.sum(axis=1) / 2), integrality=np.ones(60))
    # asked to stop, HiGHS stopped, and it was waited for: no solver thread is left running
    assert events[:3] == ["startSolve", "interrupt", "cancelSolve"]
    assert events[-1] == "Interrupted by user" and set(events[3:-1]) <= {"wait"}


@pytest.mark.parametrize("route", ["_primal", "_dual"])
@pytest.mark.parametrize("free_first", [True, False])
def test_each_hard_margin_formulation_alone_refuses_inseparable_rows_with_a_proof(route,
                                                                                 free_first):
    # the primal QP is infeasible and the dual unbounded exactly when the rows are not
    # separable: each route alone raises NotSeparableError with a checked Gordan certificate
    X, y = noisy_sample(np.random.default_rng(71), 60, 3, flip=0.3)
    Z = SignedRows(signed(X, y, free_first))
    s = min_norm._scales(Z, free_first)
    with pytest.raises(NotSeparableError) as refused:
        getattr(min_norm, route)(Z, Z.scaled(s), free_first)
    assert str(refused.value) == min_norm._NOT_SEPARABLE
    check_certificate(X, y, refused.value.certificate, free_first)
    # the dual QP by itself is unbounded on these rows, but HiGHS does not always see it: here
    # it reports an "optimal" a of size 1e5 to 1e7, which is why _dual decides first
    a = min_norm._dual_qp(Z.scaled(s).take(np.arange(60)), free_first)
    assert a is None or a.sum() > 1e4


def test_a_highs_failure_names_the_problem_it_could_not_solve(monkeypatch):
    # HiGHS made to report a failed solve: each exact problem's error names the problem
    from halfspaces._exact import highs, risk

    monkeypatch.setattr(highs._QuietHighs, "modelStatusToString",
                        lambda self, status: "Solve error")
    X, y = noisy_sample(np.random.default_rng(72), 30, 2, flip=0.3)
    Z = signed(X, y, True)
    held = SignedRows(Z)
    # the MILP's start
    monkeypatch.setattr(risk, "hinge_lp", lambda Z, weights=None: np.ones(Z.shape[1]))
    for name, call in [("separability LP", lambda: decide(Z)),
                       ("Gordan alternative LP", lambda: feasibility._gordan_lp(Z)),
                       ("hinge-loss LP", lambda: hinge_lp(Z)),
                       ("0-1 ERM MILP", lambda: risk._zero_one_milp(Z, 1e-6, None, None)),
                       ("hard-margin QP", lambda: min_norm._primal(held, held, True)),
                       ("hard-margin dual QP", lambda: min_norm._dual_qp(Z, True))]:
        with pytest.raises(SolverError, match=(
                rf"^HiGHS could not solve the {name}: model status 'Solve error'\. The data "
                r"may be too badly scaled; rescale the features, or raise the time limit if "
                r"one was set\.$")):
            call()


# -- the signed rows' helpers, at their edges ----------------------------------------------------
def test_row_helpers_at_their_edges():
    from halfspaces._exact import signed as r
    from halfspaces._utils import scaling

    # a zero column keeps scale 1; subnormal and huge sizes are scaled as far as 2^+-1023 go
    tops = np.array([0.0, 3.0, 0.5, 1.0, 1e-320, 2.0**1023 * 1.5])
    assert list(scaling.power_of_two_scales(tops)) == [1.0, 0.5, 2.0, 1.0, 2.0**1023, 2.0**-1023]
    assert scaling.power_of_two_scales([5e-324])[0] == 2.0**1023
    # Z itself when nothing is scaled, else Z diag(s) (CSR staying CSR)
    Z = np.array([[1.0, -2.0], [3.0, 0.5]])
    assert scaling.scale_columns(Z, np.ones(2)) is Z
    assert_array_equal(scaling.scale_columns(Z, np.full(2, 2.0)), 2.0 * Z)
    S = sp.csr_matrix(Z)
    assert scaling.scale_columns(S, np.ones(2)) is S
    assert_array_equal(scaling.scale_columns(S, np.array([2.0, 0.5])).toarray(), Z * [2.0, 0.5])
    held = SignedRows(Z)
    assert held.scaled(np.ones(2)) is held
    assert_array_equal(held.scaled(np.array([0.5, 4.0])).Z, Z * [0.5, 4.0])
    # tolerances: max(1, max |z_ij|), 1 for no entries at all
    assert scaling.tolerance_scale(np.zeros((0, 3))) == 1.0
    assert scaling.tolerance_scale(sp.csr_matrix((2, 3))) == 1.0
    assert scaling.tolerance_scale(np.array([[0.5, -7.0]])) == 7.0
    assert scaling.tolerance_scale(sp.csr_matrix([[0.0, -7.0]])) == 7.0
    # a row exactly at the threshold is violated unless the check is strict
    w = np.array([1.0, 0.0])  # scores 1 and 3
    assert held.check(w, 1.0).n_violated == 1 and held.check(w, 1.0, strict=True).n_violated == 0
    assert r.block_violations(Z, w, 1.0).n_violated == 1
    none = r.combine_violations([])
    assert (none.n_violated, none.new_rows.size, none.min_score) == (0, 0, np.inf)


def test_the_milps_correct_points_are_separated_again_exactly():
    # the MILP's w is only as exact as its tolerances: the points it calls correct are
    # separated again by the verified LP, and the w with fewer errors is kept (ties: the LP's)
    from halfspaces._exact import risk

    X, y = noisy_sample(np.random.default_rng(73), 40, 2, flip=0.2)
    Z = signed(X, y, True)
    errors = lambda w: int(np.sum(Z @ w <= 0))  # noqa: E731
    hinge_w = hinge_lp(Z)
    correct = Z @ hinge_w > 0  # separable, as the MILP's correct points are
    w_lp = decide(Z[correct]).separator
    assert errors(w_lp) <= errors(hinge_w) < 40
    # a useless w (all zero: every point an error) gives way to the LP's separator
    w = risk._refit_on_correct(Z, np.zeros(3), correct)
    assert_array_equal(w, w_lp)
    assert np.min(Z[correct] @ w) >= 1.0 - 1e-9
    # a w with as many errors gives way too; one with fewer is kept
    assert_array_equal(risk._refit_on_correct(Z, 2.0 * w_lp, correct), w_lp)
    few = np.zeros(40, dtype=bool)
    few[np.flatnonzero(correct)[:2]] = True  # two points: their separator errs more
    assert errors(decide(Z[few]).separator) > errors(hinge_w)
    assert risk._refit_on_correct(Z, hinge_w, few) is hinge_w
    # no point called correct: nothing to separate
    assert risk._refit_on_correct(Z, hinge_w, np.zeros(40, dtype=bool)) is hinge_w


@pytest.mark.parametrize("separable", [False, True])
def test_hinge_lp_refuses_an_optimum_its_w_does_not_reach(separable, monkeypatch):
    # the check is relative to max(1, loss): a loss far above 1, and one of 0 (separable)
    from dataclasses import replace

    from halfspaces._exact import risk

    sample = separable_sample if separable else noisy_sample
    X, y = sample(np.random.default_rng(74), 40, 2)
    Z = signed(X, y, True)
    loss = float(np.maximum(0.0, 1.0 - Z @ hinge_lp(Z)).sum())
    assert (loss < 1e-9) if separable else (loss > 10.0)
    scale = max(1.0, loss)
    real = risk.solve

    def understating(by):
        def solve(*args, **kwargs):
            found = real(*args, **kwargs)
            return replace(found, objective=found.objective - by)
        return solve

    for understated, refused in [(0.5e-6, False), (1.5e-6, True), (2e-6, True), (1.0, True)]:
        monkeypatch.setattr(risk, "solve", understating(understated * scale))
        if refused:
            with pytest.raises(SolverError, match=(r"^the hinge-loss LP reported \S+ but its "
                                                    r"w has hinge loss \S+; rescale X\.$")):
                hinge_lp(Z)
        else:
            hinge_lp(Z)


@pytest.mark.parametrize("fit_intercept", [False, True])
def test_max_margin_refuses_rather_than_answer_when_the_gap_overflows(fit_intercept):
    # (1, 0)+, (-1, 0)-, (1, 1e100)+: w = (1, 0) has margin 1 on every row, the maximum. The
    # features share one scale in the QP, so the second column's 1e100 shrinks the first to
    # 1e-100 and HiGHS's w has ||w||^2 ~ 1e187, whose square overflows: the duality gap was
    # (inf - D) / inf = NaN, which passed the check, and max_margin answered 1.9e-94
    # before. The answer is now a refusal, or, without the intercept, the maximum itself,
    # which the coordinate descent of the dual reaches on the same scaled rows (its rows'
    # squared norms, 1e-200, are still normal numbers) and the checks accept; no false margin
    from halfspaces.theory import max_margin

    X, y = np.array([[1.0, 0.0], [-1.0, 0.0], [1.0, 1e100]]), np.array([1, -1, 1])
    if fit_intercept:
        with pytest.raises(SolverError, match="duality gap"):
            max_margin(X, y, fit_intercept=fit_intercept)
    else:
        found = max_margin(X, y, fit_intercept=fit_intercept)
        assert found.margin == 1.0 and found.coef[1] == 0.0
    with pytest.raises(SolverError, match="duality gap is not finite"):
        min_norm._relative_gap(np.array([[1.0, 1e-200]]), np.array([1.0, 1e200]),
                               np.array([1.0]), False)


def test_unit_separator_settles_where_the_terms_of_a_score_cancel():
    # terms of 1e5 to 1e6 cancel to a score of 1e-3: once w is scaled by 1e3 the score's
    # rounding error (up to 1e-8) dwarfs the 1e-12 slack, and three rescalings to exactly
    # 1 + 1e-12 all landed below 1 + 5e-13: None for a separator
    Z = np.array([[-110010.76471125099, -445828.1530112322, 775323.8220475741,
                   220861.60482262535]])
    w = np.array([0.1936328483771538, -1.6308492324351012, -1.1951630801031998, 1.0])
    assert 0 < (Z @ w)[0] < 1e-2
    scaled = unit_separator(Z, w)
    assert scaled is not None
    assert (Z @ scaled)[0] >= 1.0 + 5e-13
    ratio = scaled / w
    assert np.all(ratio >= 1.0) and np.ptp(ratio) <= 1e-12 * ratio[0]  # w times one factor


# -- risk: the hinge LP, the 0-1 MILP and its refit ------------------------------------------------

def test_hinge_lp_accepts_a_loss_exactly_at_its_tolerance(monkeypatch):
    # the check refuses only a loss *above* objective + 1e-6 max(1, objective): a solver
    # reporting -1e-6 for a w of hinge loss exactly 0 sits on the boundary and is accepted,
    # one ulp lower it is refused
    Z = np.array([[1.0], [2.0]])  # w = 1: scores 1 and 2, hinge loss exactly 0

    def reporting(objective):
        def solve(*args, **kwargs):
            return HighsResult("Optimal", np.array([1.0, 0.0, 0.0]), np.zeros(2), objective, 0.0)
        return solve

    assert -1e-6 + 1e-6 * max(1.0, -1e-6) == 0.0  # the boundary, exactly
    monkeypatch.setattr(risk, "solve", reporting(-1e-6))
    assert_array_equal(hinge_lp(Z), [1.0])
    monkeypatch.setattr(risk, "solve", reporting(np.nextafter(-1e-6, -1.0)))
    with pytest.raises(SolverError, match="hinge-loss LP reported"):
        hinge_lp(Z)


def test_zero_one_erm_counts_a_zero_row_as_an_error():
    # without an intercept the point x = 0 has score 0 under every w: always an error
    X = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0], [-1.0, -1.0]])
    y = np.array([1, 1, 1, -1])
    fit = zero_one_erm(signed(X, y, False), 1e-5)
    assert brute_force_errors(X, y, False) == 1
    assert fit.optimal and fit.n_errors == 1


def test_zero_one_erm_on_no_rows_is_optimal_with_no_gap():
    # no rows: no binaries, HiGHS solves an LP (its MIP gap is then inf); the fit is optimal,
    # errs nowhere, and its gap is the documented 0.0
    fit = zero_one_erm(np.zeros((0, 2)), 1e-5)
    assert fit.optimal and fit.n_errors == 0 and fit.gap == 0.0


@pytest.mark.parametrize("Z, tau", [
    # hinge loss by hand: f(w) = (1 - 1.5w)_+ + (1 - 0.75w)_+ + (1 + w) is least at w = 2/3
    # (slope -1.25 before, +0.25 after); scaled into the box, w0 = 1; scores 1.5, 0.75, -1
    (np.array([[1.5], [0.75], [-1.0]]), 0.6),
    # f(w) = (1 - w)_+ + (1 - w/2)_+ + (1 + w) is least at w = 1: scores 1, 0.5 (= tau: not
    # below it, so no error) and -1
    (np.array([[1.0], [0.5], [-1.0]]), 0.5),
])
def test_the_first_incumbent_is_the_hinge_hyperplane_scaled_into_the_box(Z, tau):
    # with no time at all HiGHS keeps its first incumbent: w0 = hinge w / max|w| and e_i = 1
    # exactly for the rows with <w0, z_i> < tau (only the last row here)
    res = risk._zero_one_milp(Z, tau, 0.0, None)
    assert_allclose(res.x, [1.0, 0.0, 0.0, 1.0], atol=1e-9)
    assert res.objective == pytest.approx(1.0)


def test_a_stopped_milp_keeps_the_refit_of_its_start():
    # with no time, the answer is the hinge hyperplane's correct points separated again
    # exactly (decide): on this sample that refit errs less than the hinge hyperplane itself
    X, y = noisy_sample(np.random.default_rng(3), 60, 2, flip=0.25)
    Z = signed(X, y, True)
    errors = lambda w: int(np.sum(Z @ w <= 0))  # noqa: E731
    hinge_w = hinge_lp(Z)
    w_lp = decide(Z[Z @ hinge_w > 0]).separator
    assert errors(w_lp) < errors(hinge_w) < 60
    fit = zero_one_erm(Z, 1e-5, time_limit=0.0)
    assert not fit.optimal
    assert fit.n_errors == errors(fit.w)  # recounted with <= 0
    assert fit.n_errors <= errors(w_lp)


def test_the_refit_counts_zero_scores_as_errors_and_prefers_the_lp_on_ties():
    # a zero row (score 0 under every w) is an error for both candidates
    Z = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0], [1.0, -3.0]])
    w_milp = np.array([1.0, 0.1])  # scores 0, 1, 0.1, 0.7: one error, the zero row
    correct = np.array([False, True, True, False])
    # their separator is (1, 1) up to scale: row 4 at -2, so two errors: w_milp is kept
    assert risk._refit_on_correct(Z, w_milp, correct) is w_milp
    # a tie (no error either way) goes to the LP's separator, though a row scores 1/2 < 1
    Z = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, -0.5]])
    w_milp = np.array([2.0, 1.0])
    w = risk._refit_on_correct(Z, w_milp, np.array([True, True, False]))
    assert w is not w_milp
    assert_allclose(w, [1.0, 1.0], rtol=1e-9)
    assert np.all(Z @ w > 0)


# -- freund_schapire: the polish and the path ------------------------------------------------------

def _polish_returning(monkeypatch, v, found, roots):
    # smallest_root's one minimisation after _candidates (whose real answer is kept) is the
    # polish: make it return v
    import types

    import scipy.optimize

    from halfspaces._exact import freund_schapire as fs

    monkeypatch.setattr(fs, "_candidates", lambda rows, R, hard_margin=True: (found, roots))
    monkeypatch.setattr(scipy.optimize, "minimize",
                        lambda *args, **kwargs: types.SimpleNamespace(x=np.array(v)))


def test_a_polish_at_v_zero_is_dropped_though_f_is_lowest_there(monkeypatch):
    # on XOR the path collapses to v = 0 and only the tiny candidates +-1e-9/R e_0 are left,
    # both with F just above sqrt(4) = 2 = F(0); v = 0 gives no bound (gamma = 1/||v||)
    from halfspaces._exact import freund_schapire as fs

    Z = signed(*XOR, True)
    R = float(np.sqrt(np.max(np.sum(Z * Z, axis=1))))
    rows = SignedRows(Z)
    found, roots = fs._candidates(rows, R)
    assert fs._root(rows, R, np.zeros(3)) == 2.0 < min(roots)
    _polish_returning(monkeypatch, np.zeros(3), found, roots)
    v = fs.smallest_root(rows, R)
    assert np.linalg.norm(v) > 0
    assert_array_equal(v, found[int(np.argmin(roots))])


def test_a_polish_that_only_ties_the_best_candidate_is_dropped(monkeypatch):
    # Z = [[1]], R = 1: F(v) = |v| + (1 - v)_+ is 1 on all of [0, 1]; the search's best
    # candidate has F = 1 and a polish to v = 1/2 (F = 1/2 + 1/2 = 1, exactly) does not improve
    from halfspaces._exact import freund_schapire as fs

    rows = SignedRows(np.array([[1.0]]))
    found, roots = fs._candidates(rows, 1.0)
    best = found[int(np.argmin(roots))]
    assert min(roots) == 1.0 == fs._root(rows, 1.0, np.array([0.5]))
    assert best[0] != 0.5
    _polish_returning(monkeypatch, [0.5], found, roots)
    assert_array_equal(fs.smallest_root(rows, 1.0), best)


def test_the_path_stops_after_two_points_that_do_not_improve_on_a_flat_bound():
    # Z = [[1]], R = 1: F = 1 exactly at every v in [0, 1], so the first path points (lam =
    # 1e4, 1e3, 1e2: v = 1/(1 + lam) < 1) tie; a tie is no improvement, and the path stops
    # after the third point. Then the hard-margin point v = 1 (+ slack) and the tiny two
    from halfspaces._exact import freund_schapire as fs

    rows = SignedRows(np.array([[1.0]]))
    found, roots = fs._candidates(rows, 1.0)
    assert len(found) == 3 + 1 + 2
    assert_allclose([v[0] for v in found[:3]], 1.0 / (1.0 + np.array([1e4, 1e3, 1e2])),
                    rtol=1e-4)
    assert roots[:3] == [1.0, 1.0, 1.0]
    assert found[3][0] == pytest.approx(1.0, rel=1e-9)


# -- feasibility: working sets, certificates, unit separators --------------------------------------

def test_the_first_working_set_is_a_fixed_sorted_sample():
    from halfspaces._exact.feasibility import first_rows

    assert_array_equal(first_rows(2000), np.arange(2000))
    a, b = first_rows(5000), first_rows(5000)
    assert_array_equal(a, b)  # a fixed seed: the same rows on every call
    assert a.size == 2000 and np.all(np.diff(a) > 0) and 0 <= a[0] and a[-1] < 5000


def test_check_rows_counts_rows_at_the_threshold_unless_strict_and_caps_the_new_rows():
    from halfspaces._exact.feasibility import check_rows
    from halfspaces._exact.signed import SignedRows

    Z = SignedRows(np.array([[1.0], [0.0], [-1.0], [2.0], [-3.0]]))
    w, rows = np.array([1.0]), np.array([0])  # scores 1, 0, -1, 2, -3
    found = check_rows(Z, w, rows, 0.0)  # <= 0: rows 1, 2, 4, most violated first
    assert found.n_violated == 3
    assert_array_equal(found.new_rows, [4, 2, 1])
    strict = check_rows(Z, w, rows, 0.0, strict=True)  # < 0: row 1 (score 0) is not
    assert strict.n_violated == 2
    assert_array_equal(strict.new_rows, [4, 2])
    # at most max(|rows|, least) new rows: here max(1, 1) = 1, the most violated
    assert_array_equal(check_rows(Z, w, rows, 0.0, least=1).new_rows, [4])


def test_check_rows_returns_at_most_1000_new_rows_by_default():
    from halfspaces._exact.feasibility import check_rows
    from halfspaces._exact.signed import SignedRows

    Z = SignedRows(-np.ones((1001, 1)))  # every row violated, none in the working set
    found = check_rows(Z, np.array([1.0]), np.empty(0, dtype=np.int64), 0.0)
    assert found.n_violated == 1001 and found.new_rows.size == 1000


def test_a_certificate_with_a_negative_weight_is_refused():
    from halfspaces._exact.feasibility import verified_certificate

    Z = np.array([[1.0], [2.0]])
    a = np.array([2.0, -1.0])  # sums to 1 and Z^T a = 0, but a < 0 somewhere
    assert a.sum() == 1.0 and Z.T @ a == 0.0
    assert verified_certificate(Z, a) is None
    Z = np.array([[1.0], [-2.0]])
    a = np.array([2.0, 1.0]) / 3.0  # a true certificate is kept
    assert verified_certificate(Z, a) is a


def test_the_polish_stays_on_the_support_it_is_given():
    # rows 1 and 2 (z = -1 and z = 0) hold the certificate e_2; rows 0 and 1 hold another,
    # (1/2, 1/2, 0), which the polish may not use: row 0 is outside the duals' support.
    # _certificate reads the duals' support the same way
    Z = np.array([[1.0], [-1.0], [0.0]])
    duals = np.array([0.0, 0.5, 0.5])
    for found in (feasibility._polish(Z, duals), feasibility._certificate(Z, duals)):
        assert found is not None and found[0] == 0.0
        assert np.all(found >= 0) and abs(found.sum() - 1.0) <= 1e-12
        assert abs(Z.T @ found) <= 1e-9


def test_the_polish_finds_a_certificate_nnls_reaches_on_the_whole_support():
    # 2/3 (-1, 0) + 1/3 (2, 0) = 0: the certificate (2/3, 0, 0, 0, 1/3), from the uniform a
    Z = np.array([[-1.0, 0.0], [-1.0, 2.0], [0.0, -2.0], [0.0, -1.0], [2.0, 0.0]])
    found = feasibility._polish(Z, np.full(5, 0.2))
    assert found is not None
    assert np.all(found >= 0) and abs(found.sum() - 1.0) <= 1e-12
    assert np.all(np.abs(Z.T @ found) <= 1e-9 * np.abs(Z).max(axis=0))


def test_the_polish_normalises_the_nnls_weights_to_sum_one():
    # no exact certificate: the hull of the rows is 1e-6 from the origin, well inside the
    # tolerance of column 0 (1e-9 * 1e4). NNLS trades the residual against the sum row, so
    # its weights sum to 1/(1 + 1e-12): the polish divides by that sum
    Z = np.array([[1e-6, 1.0], [1e-6, -1.0], [1e4, 0.0]])
    found = feasibility._polish(Z, np.array([0.5, 0.5, 0.0]))
    assert found is not None
    assert_allclose(found, [0.5, 0.5, 0.0], rtol=1e-12)
    assert abs(found.sum() - 1.0) <= 1e-15


def test_unit_separator_keeps_a_separator_at_its_threshold_and_lifts_one_below():
    # accepted as is when min_i <w, z_i> >= 1 + 5e-13, else scaled to 1 + 1e-12
    from halfspaces._exact.feasibility import unit_separator

    Z = np.array([[1.0]])
    at = np.array([1.0 + 1e-12 / 2])
    assert_array_equal(unit_separator(Z, at), at)
    below = np.array([1.0 + 4e-13])
    lifted = unit_separator(Z, below)
    assert lifted[0] >= 1.0 + 5e-13
    assert lifted[0] == pytest.approx(1.0 + 1e-12, abs=1e-15)


def test_an_inseparable_first_working_set_is_certified_at_once():
    # 2500 rows, 30% of the labels flipped: the first 2000 rows are already inseparable
    # (box margin t = 0), and their certificate is one for the whole sample, so no row is
    # added: the certificate lies on the first working set
    from halfspaces._exact.feasibility import first_rows

    X, y = noisy_sample(np.random.default_rng(2), 2500, 4, flip=0.3)
    Z = signed(X, y, True)
    a = decide(Z).certificate
    assert a is not None
    assert set(np.flatnonzero(a)) <= set(first_rows(2500))
    assert np.all(np.abs(Z.T @ a) <= 1e-9 * np.abs(Z).max(axis=0))


# -- min_norm: the dual start, the intercept, the failures of both routes --------------------------

class FirstWorkingSet(Exception):
    """Raised by :class:`RecordingRows` once it has the first working set."""


class RecordingRows:
    """SignedRows that stop a working-set loop at its first ``take``, keeping the rows."""

    def __init__(self, rows):
        self.rows, self.taken = rows, None

    def take(self, rows):
        self.taken = np.array(rows)
        raise FirstWorkingSet

    def __getattr__(self, name):
        return getattr(self.rows, name)


@pytest.mark.parametrize("free_first", [False, True])
def test_the_dual_starts_from_256_distinct_rows_of_a_larger_sample(free_first):
    # "the dual's first working set, and the least rows it adds per round": 256 rows drawn
    # without replacement (a repeated row only adds a duplicate column to the QP), sorted;
    # a sample of at most 256 rows is taken whole
    for n, size in ((600, 256), (257, 256), (256, 256), (100, 100)):
        X, y = separable_sample(np.random.default_rng(4), n, 3, fit_intercept=free_first)
        Z = SignedRows(signed(X, y, free_first))
        Zs = RecordingRows(Z.scaled(min_norm._scales(Z, free_first)))
        with pytest.raises(FirstWorkingSet):
            min_norm._dual(Z, Zs, free_first)
        first = Zs.taken
        assert first.size == size and np.unique(first).size == size
        assert np.all(np.diff(first) > 0) and 0 <= first[0] and first[-1] < n


@pytest.mark.parametrize("route", ["_primal", "_dual"])
def test_a_qp_that_fails_on_separable_rows_is_a_solver_error_not_a_false_proof(route,
                                                                               monkeypatch):
    # HiGHS calling the hard-margin QP infeasible (primal) or giving no optimal dual point
    # (dual) on rows that the separability LP separates: no certificate can be made, so the
    # answer is a SolverError that says so, not a NotSeparableError
    X, y = separable_sample(np.random.default_rng(5), 40, 2)
    Z = SignedRows(signed(X, y, True))
    if route == "_primal":
        monkeypatch.setattr(min_norm, "solve", lambda *args, **kwargs: HighsResult(
            "Infeasible", np.zeros(3), np.zeros(40), 0.0, 0.0))
    else:
        monkeypatch.setattr(min_norm, "_dual_qp", lambda ZW, free_first, balanced=False: None)
    with pytest.raises(SolverError) as refused:
        getattr(min_norm, route)(Z, Z, True)
    assert str(refused.value) == ("HiGHS called the max-margin QP infeasible, but its rows "
                                  "are separable.")


@pytest.mark.parametrize("labels", [[1, 1, -1, -1, -1], [1, -1, -1, -1], [1, 1, 1, -1],
                                    [1, 1, 1], [-1, -1]])
def test_the_intercept_from_the_dual_equalises_the_two_sides_smallest_margins(labels):
    # _primal_from_dual's docstring: for w_reg = sum_i a_i z_i,reg the best w_0 makes
    # min_+ s_i + w_0 = min_- s_i - w_0 (s = <w_reg, z_i,reg>, z_i0 = y_i); with one side
    # absent from the working set, that side's smallest margin is 1. One-row sides included
    rng = np.random.default_rng(len(labels))
    c = np.array(labels, dtype=float)
    ZW = np.column_stack([c, rng.normal(size=(c.size, 2))])
    a = rng.uniform(0.1, 1.0, c.size)
    w = min_norm._primal_from_dual(ZW, a, True)
    w_reg = ZW[:, 1:].T @ a
    assert_allclose(w[1:], w_reg, rtol=1e-15)
    margins = ZW @ w  # <w, z_i> = s_i + w_0 c_i
    pos, neg = margins[c > 0], margins[c < 0]
    if pos.size and neg.size:
        assert pos.min() == pytest.approx(neg.min(), rel=1e-12, abs=1e-12)
    else:
        assert (pos if pos.size else neg).min() == pytest.approx(1.0, rel=1e-12)


def test_a_polish_whose_kkt_multipliers_are_negative_is_refused():
    # rows z1 = (1, 0) and z2 = (2, 1), no intercept: the optimum is w* = (1, 0) with z1 alone
    # active. On the support {1, 2} the KKT system gives a = (3, -1) and w = (1, -1): feasible
    # and no longer than the candidate (1, 1), but a negative multiplier proves nothing
    Z = np.array([[1.0, 0.0], [2.0, 1.0]])
    G = Z @ Z.T
    assert_allclose(np.linalg.solve(G, np.ones(2)), [3.0, -1.0], rtol=1e-12)
    assert min_norm._polish(SignedRows(Z), Z, np.array([1.0, 1.0]), np.array([0.5, 0.5]),
                            False) is None


def test_min_norm_separator_of_no_rows_is_zero_and_of_one_row_its_scaled_copy():
    # no constraint: w = 0; one row z: w = z / ||z||^2 (the closest point of <w, z> >= 1)
    assert_array_equal(min_norm_separator(np.zeros((0, 3)), free_first=False), np.zeros(3))
    assert_allclose(min_norm_separator(np.array([[2.0, 0.0]]), free_first=False), [0.5, 0.0],
                    rtol=1e-9)
    # one class, no feature: the free intercept alone separates, w = (1, 0)
    assert_allclose(min_norm_separator(np.array([[1.0, 0.0], [1.0, 0.0]]), free_first=True),
                    [1.0, 0.0], atol=1e-9)


@pytest.mark.parametrize("first", [[0.0, 0.0], [1.0, -2.0]])
def test_a_free_first_column_that_is_not_a_signed_constant_is_refused(first):
    Z = np.column_stack([first, [1.0, 1.0]])
    with pytest.raises(ValueError) as refused:
        min_norm_separator(Z, free_first=True)
    assert str(refused.value) == ("free_first needs the signed constant feature in column 0 "
                                  "(every |z_i0| equal and nonzero).")


def test_when_both_hard_margin_routes_fail_the_error_names_each(monkeypatch):
    def _primal(Z, Zs, free_first):
        raise SolverError("gap 1e-3.")

    def _dual(Z, Zs, free_first, balanced=False):
        raise SolverError("no optimal dual point" + (" with balanced rows." if balanced else "."))

    def _coordinate(Z, Zs, free_first):
        raise SolverError("it stopped before any tolerance was reached.")

    monkeypatch.setattr(min_norm, "_coordinate", _coordinate)
    monkeypatch.setattr(min_norm, "_primal", _primal)
    monkeypatch.setattr(min_norm, "_dual", _dual)
    with pytest.raises(SolverError) as refused:
        min_norm.min_norm_separator(np.array([[1.0, 2.0], [-1.0, 1.0]]), free_first=True)
    assert str(refused.value) == ("the hard-margin QP cannot be solved to a closed duality "
                                  "gap; coordinate: it stopped before any tolerance was "
                                  "reached. primal: gap 1e-3. dual: no optimal dual point. "
                                  "balanced_dual: no optimal dual point with balanced rows.")


def test_the_duality_gap_refuses_a_zero_margin_and_a_dual_point_off_its_constraint():
    # a hyperplane through a row (min margin exactly 0) cannot be scaled to margin 1; and
    # sum_i a_i y_i = 0 must hold to 1e-6 of sum(a) however small sum(a) is
    with pytest.raises(SolverError, match=r"does not separate the working set \(min margin 0\)"):
        min_norm._relative_gap(np.array([[1.0], [0.0]]), np.array([1.0]), np.array([0.5, 0.5]),
                               False)
    Zf = np.array([[1.0, 1.0], [-1.0, 1.0]])
    a = np.array([0.005 + 5e-8, 0.005 - 5e-8])  # sum 0.01, sum a_i y_i = 1e-7 > 1e-6 * 0.01
    with pytest.raises(SolverError, match="violates sum_i a_i y_i = 0"):
        min_norm._relative_gap(Zf, np.array([0.0, 1.0]), a, True)
