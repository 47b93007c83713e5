"""Certificates and dependences in exact rational arithmetic (halfspaces._exact.rational).

The oracle is test-local rational Gauss-Jordan elimination on Python Fractions
(:func:`_oracles.exact_null_vector`), never FLINT. On m = d' + 1 points in general position
the dependence is unique up to scale, and a labeling is unrealisable exactly when it agrees
with the dependence's signs (or their negation) on its support: Gordan's theorem, both ways.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from _oracles import exact_null_vector
from hypothesis import given, settings
from hypothesis import strategies as st

import halfspaces._exact.feasibility as feasibility_module
import halfspaces._exact.rational as rational_module
from halfspaces._exact import decide, signed_rows, verified_certificate
from halfspaces._exact.feasibility import score_error_bound
from halfspaces._exact.rational import exact_certificate
from halfspaces.exceptions import SolverError
from halfspaces.theory import separability, unrealizable_labeling

XOR = (np.array([[0.0, 0.0], [1.0, 1.0], [0.0, 1.0], [1.0, 0.0]]),
       np.array([1.0, 1.0, -1.0, -1.0]))


def nearly_parallel(rng, fit_intercept):
    """m = d' + 1 random points (d' = d + fit_intercept), one a copy of another moved by
    1e-15 to 1e-6 of its size: dependent, with a dependence that float64 barely sees."""
    d = int(rng.integers(1, 5))
    m = d + 1 + fit_intercept
    X = rng.standard_normal((m, d)) * 10.0 ** rng.integers(-3, 3, size=(1, d))
    k = int(rng.integers(1, m))
    X[k] = X[k - 1] + 10.0 ** rng.uniform(-15, -6) * rng.standard_normal(d)
    return X


def exact_signs(X, fit_intercept):
    Xp = np.hstack([np.ones((len(X), 1)), X]) if fit_intercept else X
    a = exact_null_vector(Xp)
    assert a is not None  # m > d': dependent
    return np.array([(x > 0) - (x < 0) for x in a])


def unrealisable(labels, signs):
    on = signs != 0
    return bool(np.all(labels[on] == signs[on]) or np.all(labels[on] == -signs[on]))


@pytest.mark.parametrize("fit_intercept", [True, False])
def test_nearly_parallel_points_get_an_exactly_unrealisable_labeling(fit_intercept):
    # before the exact step: 28% of such inputs were called "linearly independent" (false:
    # m > d'), and 12% of the labelings returned were realisable in exact arithmetic
    rng = np.random.default_rng(11 + fit_intercept)
    for _ in range(150):
        X = nearly_parallel(rng, fit_intercept)
        labeling = unrealizable_labeling(X, fit_intercept=fit_intercept)
        assert unrealisable(labeling, exact_signs(X, fit_intercept)), X


@pytest.mark.parametrize("fit_intercept", [True, False])
def test_separability_of_nearly_parallel_points_agrees_with_exact_arithmetic(fit_intercept):
    # every labeling of such points: a "not separable" answer must be exactly true (and
    # proved exactly), a "separable" one comes with a separator; SolverError says neither
    rng = np.random.default_rng(21 + fit_intercept)
    answered = 0
    for _ in range(60):
        X = nearly_parallel(rng, fit_intercept)
        signs = exact_signs(X, fit_intercept)
        for y in (np.where(rng.random(len(X)) < 0.5, -1.0, 1.0), signs.astype(float)):
            y = np.where(y == 0, 1.0, y)
            try:
                found = separability(X, y, fit_intercept=fit_intercept)
            except SolverError:
                continue
            answered += 1
            assert found.separable is not unrealisable(y, signs), (X, y)
            assert found.exact is not found.separable
    assert answered >= 100  # of 120: the check above is not vacuous


def test_a_certificate_that_holds_only_in_floating_point_is_refused():
    # two points 1e-10 apart with opposite labels: (1/2, 1/2) passes the float check
    # (|sum| = 5e-11 <= 1e-9 max|z|), but the points are exactly independent, so separable
    X = np.array([[1.0, 0.3], [1.0, 0.3 + 1e-10]])
    y = np.array([1.0, -1.0])
    Z = signed_rows(X, y, False)
    half = np.array([0.5, 0.5])
    assert verified_certificate(Z, half) is not None
    assert exact_certificate(Z, half) == (None, True)
    found = separability(X, y, fit_intercept=False)
    assert found.separable and not found.exact
    w = [Fraction(float(v)) for v in found.coef]
    for x, label in zip(X, y, strict=True):  # the separator, checked in exact arithmetic
        assert label * sum(Fraction(float(v)) * c for v, c in zip(x, w, strict=True)) > 0


def test_a_weight_below_the_lp_tolerance_is_restored():
    # x_1 - x_0 = 1e-10 x_2: the exact certificate weighs x_2 by 5e-11, below HiGHS's
    # tolerance; least squares over every row restores it before the exact check
    X = np.array([[1.0, 0.0], [1.0, 1e-10], [0.0, 1.0]])
    y = np.array([1.0, -1.0, 1.0])
    found = separability(X, y, fit_intercept=False)
    assert not found.separable and found.exact
    assert np.all(found.certificate > 0)
    assert found.certificate[2] == pytest.approx(5e-11, rel=1e-6)
    signs = exact_signs(X, False)
    assert unrealisable(y, signs)


def test_exact_certificates_of_xor_and_of_a_duplicate_with_both_labels():
    found = decide(signed_rows(*XOR, True))
    assert found.exact and found.certificate.tolist() == [0.25] * 4
    X = np.array([[0.1, 0.7], [0.1, 0.7], [3.0, -1.0]])
    found = separability(X, [1, -1, 1])
    assert found.exact and found.certificate.tolist() == [0.5, 0.5, 0.0]


def test_beyond_the_budget_a_certificate_is_proved_by_its_exact_residual(monkeypatch):
    # no elimination fits: the LP's weights (1/4 up to its rounding) are proved by
    # sum_i a_i z_i = 0 computed exactly, here re-checked with Fractions
    monkeypatch.setattr(rational_module, "MAX_EXACT_WORK", 0)
    found = separability(*XOR)
    assert not found.separable and found.exact
    Z = signed_rows(*XOR, True)
    a = [Fraction(float(v)) for v in found.certificate]
    assert min(a) >= 0 and sum(a) > 0
    assert all(sum(ai * Fraction(float(z)) for ai, z in zip(a, column, strict=True)) == 0
               for column in Z.T)


def test_a_float_certificate_without_an_exact_one_is_no_answer(monkeypatch):
    monkeypatch.setattr(feasibility_module, "exact_certificate",
                        lambda Z, a: rational_module.ExactCheck(None, True))
    with pytest.raises(SolverError, match=r"^separability cannot be decided: the LP's "
                       r"certificate passes its floating-point check .* but no certificate "
                       r"on its rows holds in exact arithmetic"):
        separability(*XOR)


@settings(max_examples=200, deadline=None, derandomize=True)
@given(st.integers(1, 40), st.integers(0, 2**32 - 1))
def test_the_score_error_bound_holds_in_exact_arithmetic(p, seed):
    # Higham's (3.5) for BLAS's sums: scores of terms up to 1e12 apart that cancel
    rng = np.random.default_rng(seed)
    Z = rng.standard_normal((6, p)) * 10.0 ** rng.integers(-6, 7, size=(1, p))
    w = rng.standard_normal(p) * 10.0 ** rng.integers(-6, 7, size=p)
    Z[0] -= (Z[0] @ w) / w[0] * (np.arange(p) == 0)  # row 0 sums to about 0
    bound = score_error_bound(w, np.abs(Z).max(axis=0))
    for row, score in zip(Z, Z @ w, strict=True):
        exact = sum(Fraction(float(x)) * Fraction(float(v)) for x, v in zip(row, w, strict=True))
        assert abs(Fraction(float(score)) - exact) <= Fraction(bound)


def test_a_separator_whose_rounding_error_may_reach_its_scores_is_refused(monkeypatch):
    X, y = XOR
    y = np.array([1.0, 1.0, 1.0, -1.0])
    assert decide(signed_rows(X, y, True)).separable
    monkeypatch.setattr(feasibility_module, "score_error_bound", lambda w, top: 0.5)
    with pytest.raises(SolverError, match=r"^separability cannot be decided: the separator's "
                       r"scores are >= 1 in floating point, but their rounding error may "
                       r"reach 0\.5 \(its terms cancel\)"):
        decide(signed_rows(X, y, True))


@pytest.mark.parametrize("fit_intercept", [True, False])
def test_beyond_the_exact_budget_dependent_points_are_not_called_independent(
        monkeypatch, fit_intercept):
    # the float path (pivoted circuits, singular values) on the nearly parallel points: never
    # the false claim "linearly independent" for m > d' points (28% of them before)
    monkeypatch.setattr(rational_module, "MAX_EXACT_WORK", 0)
    rng = np.random.default_rng(31 + fit_intercept)
    answered = 0
    for _ in range(100):
        X = nearly_parallel(rng, fit_intercept)
        try:
            unrealizable_labeling(X, fit_intercept=fit_intercept)
            answered += 1
        except SolverError:
            continue
    assert answered >= 90


@pytest.mark.parametrize("call", ["max_margin", "perceptron_mistake_bound", "MaxMargin"])
def test_every_hard_margin_answer_bounds_its_rounding(monkeypatch, call):
    # max_margin, Novikoff's bound and the max-margin classifier promise a separator too:
    # each refuses one whose scores' rounding error may reach them
    import halfspaces.theory as theory
    from halfspaces.erm import MaxMarginClassifier

    X, y = np.array([[0.0, 0.0], [1.0, 1.0], [0.0, 1.0], [1.0, 0.0]]), np.array([1, 1, 1, 0])
    run = {"max_margin": lambda: theory.max_margin(X, y),
           "perceptron_mistake_bound": lambda: theory.perceptron_mistake_bound(X, y),
           "MaxMargin": lambda: MaxMarginClassifier().fit(X, y)}[call]
    run()
    monkeypatch.setattr(feasibility_module, "score_error_bound", lambda w, top: 0.75)
    with pytest.raises(SolverError, match=r"rounding error may reach 0\.75"):
        run()


def exactly_separates(X, y, coef, intercept):
    for x, label in zip(np.asarray(X, float), y, strict=True):
        score = sum(Fraction(float(a)) * Fraction(float(w)) for a, w in zip(x, coef,
                                                                           strict=True))
        if not (1 if label > 0 else -1) * (score + Fraction(float(intercept))) > 0:
            return False
    return True


@pytest.mark.parametrize("gap", [1.0, 1e-3])
def test_timestamps_are_decided_on_centred_columns(gap):
    # epoch seconds (1.7e9) a second or a millisecond apart: the commit before this test
    # answered "not separable" for a threshold labeling, a false proof; the LP now runs on the
    # columns centred at their midrange, and the answer is proved on the original data
    t = (1.7e9 + gap * np.arange(6.0))[:, None]
    threshold = np.array([-1, -1, -1, 1, 1, 1])
    found = separability(t, threshold)
    assert found.separable
    assert exactly_separates(t, threshold, found.coef, found.intercept)
    alternating = np.array([-1, 1, -1, 1, 1, 1])
    found = separability(t, alternating)
    assert not found.separable and found.exact
    # the oracle: t_0, t_1, t_2 are equally spaced, x'_0 - 2 x'_1 + x'_2 = 0 exactly
    assert unrealisable(alternating[:3], exact_signs(t[:3], True))


def test_points_a_ten_millionth_apart_are_decided():
    X = np.array([[2.0], [2.0000002]])
    for y in ([-1, 1], [1, -1]):
        found = separability(X, y)
        assert found.separable and exactly_separates(X, y, found.coef, found.intercept)
    from halfspaces.theory import shatters

    assert shatters(X)
    X = np.array([[-2.0, 2.0], [1.0, -2.0], [1.0, -2.0], [1.0000001, -2.0000002]])
    found = separability(X, [-1, 1, -1, 1])  # rows 1 and 2: the same point, both labels
    assert not found.separable and found.exact
    assert found.certificate.tolist() == [0.0, 0.5, 0.5, 0.0]


@pytest.mark.parametrize("far", [1e18, 2.0**60, 1e300])
def test_a_certificate_with_weights_far_apart_is_found(far):
    # x = 1 (+1) and x = far (-1) without an intercept: the certificate weighs them 1 and
    # 1/far, which HiGHS's duals and plain least squares lose; they were refused
    found = separability([[1.0], [far]], [1, -1], fit_intercept=False)
    assert not found.separable and found.exact
    assert found.certificate[1] == pytest.approx(1.0 / far, rel=1e-12)


def test_a_certificate_the_lps_duals_miss_is_found_by_least_squares_on_the_working_set():
    # 5 points in general position after x' = (1, x), two 3e-8 apart with opposite labels:
    # HiGHS's duals give no certificate that passes, least squares over the working set
    # does, and it is proved exactly (it was a SolverError)
    X = np.array([[-0.0005900893871187699, 0.0009497699794368944, 0.01950542996339892],
                  [0.0007309340331778123, 9.723401287929019e-05, -0.008022183266853654],
                  [0.0004356390292607814, 0.0019222667448598571, -0.020168801677078404],
                  [0.0009772894218302323, 0.0001477918740539763, 0.015133566780882351],
                  [0.0009772893997204712, 0.00014779195091973332, 0.015133566476004915]])
    y = np.array([-1, 1, -1, -1, 1])
    assert unrealisable(y, exact_signs(X, True))
    found = separability(X, y)
    assert not found.separable and found.exact


def rounds_an_exact_certificate(X, y, a, fit_intercept):
    """a is the rounding of a rational Gordan certificate: on its support the signed rows'
    exact dependence (the Fraction oracle; unique up to scale here) has a's signs and, scaled
    to sum 1, a's values to float64's precision."""
    Xp = np.hstack([np.ones((len(X), 1)), X]) if fit_intercept else X
    support = np.flatnonzero(a)
    v = exact_null_vector(y[support, None] * Xp[support])
    assert v is not None
    total = sum(v)
    assert total != 0 and all(x / total > 0 for x in v)
    assert np.allclose(a[support], [float(x / total) for x in v], rtol=1e-15, atol=0)


@pytest.mark.parametrize("fit_intercept", [False, True])
def test_subnormal_columns_get_an_exact_certificate(fit_intercept):
    # one power-of-two factor stops at 2^1023, which left a column of 5e-324 at 4e-16:
    # scaled twice (exactly), it reaches [1, 2) like any other column
    X = np.array([[5e-324, 1e-320], [1e-321, 5e-324], [5e-322, 5e-322], [5e-324, 5e-324]])
    y = np.array([1.0, 1.0, -1.0, -1.0])
    if fit_intercept:
        X, y = X[[0, 1, 2]], y[[0, 1, 2]]
        X = np.vstack([X, X[2]])
        y = np.array([1.0, 1.0, -1.0, 1.0])  # the last two points coincide, labels differ
    found = separability(X, y, fit_intercept=fit_intercept)
    assert not found.separable and found.exact
    rounds_an_exact_certificate(X, y, found.certificate, fit_intercept)


def test_separable_only_beyond_float64_is_refused_by_name():
    # y_i x_i0 = 5e-324 on both rows and y_i x_i1 = +-1: only w_0 separates, and scores
    # of 1 need w_0 = 2^1074 > float64's largest. Refused (it used to blame the LP's
    # separator at "box margin 0"); the same points scaled by 2^600 are separated.
    X = np.array([[5e-324, 1.0], [-5e-324, 1.0]])
    y = np.array([1.0, -1.0])
    with pytest.raises(SolverError, match=r"separable, but only by weights beyond float64.*"
                                          r"column 0.*4\.94e-324"):
        decide(signed_rows(X, y, False))
    scaled = np.ldexp(X, 600)
    found = separability(scaled, y, fit_intercept=False)
    assert found.separable and exactly_separates(scaled, y, found.coef, 0.0)


def test_a_subnormal_column_the_lp_weighs_is_dropped_where_the_others_separate():
    # the LP on scaled columns gives column 0 a weight that overflows once unscaled; the
    # feature x_1 separates alone, and the separator without column 0 is returned
    X = np.array([[5e-324, 1.0], [-5e-324, -1.0], [0.0, 2.0]])
    y = np.array([1.0, -1.0, 1.0])
    found = separability(X, y, fit_intercept=True)
    assert found.separable and found.coef[0] == 0.0
    assert exactly_separates(X, y, found.coef, found.intercept)


def test_a_false_certificate_on_one_column_is_refused():
    # rows (1) and (2) are separable (w = 1); (1/2, 1/2) is no certificate of them, and
    # with a single nonzero column the integer matrix has one row, which the exact check
    # must eliminate like any other (not take as "every row zero")
    Z = np.array([[1.0], [2.0]])
    assert exact_certificate(Z, np.array([0.5, 0.5])) == (None, True)
    assert exact_certificate(np.array([[1.0], [-2.0]]), np.array([0.5, 0.5])).certificate \
        .tolist() == [2 / 3, 1 / 3]


def test_a_pivot_row_whose_exact_weight_is_zero_keeps_the_certificate():
    # on rows (1), (-1), (2) the free rows' values 0.6 and 0.3 force the pivot row's weight
    # to 0.6 - 2 * 0.3 = 0 exactly: a certificate with a zero weight on its support is still
    # one (a >= 0, not a > 0), and it keeps a's values on the free rows
    Z = np.array([[1.0], [-1.0], [2.0]])
    found = exact_certificate(Z, np.array([0.1, 0.6, 0.3]))
    assert found.checked
    assert found.certificate.tolist() == [0.0, 2 / 3, 1 / 3]


def test_beyond_the_budget_there_is_no_verdict(monkeypatch):
    # checked is the bool False (no support was in budget), not merely something falsy
    monkeypatch.setattr(rational_module, "MAX_EXACT_WORK", 0)
    Z = signed_rows(*XOR, True)
    found = exact_certificate(Z, np.full(4, 0.25))
    assert found.certificate is None and found.checked is False


@settings(max_examples=200, deadline=None, derandomize=True)
@given(seed=st.integers(0, 2**32 - 1), exponent=st.integers(-300, 300),
       sparse=st.booleans(), n_unpenalised=st.integers(0, 1))
def test_exact_margin_is_the_rational_margin_rounded_down(seed, exponent, sparse,
                                                          n_unpenalised):
    import scipy.sparse as sp

    from halfspaces._exact import exact_margin

    rng = np.random.default_rng(seed)
    rows = rng.standard_normal((3, 4)) * 10.0**exponent
    rows[rng.random(rows.shape) < 0.3] = 0.0
    w = rng.standard_normal(4)
    exact = lambda v: Fraction(*float(v).as_integer_ratio())  # noqa: E731
    least = min(sum(exact(a) * exact(b) for a, b in zip(row, w, strict=True)) for row in rows)
    square_norm = sum(exact(v) ** 2 for v in w[n_unpenalised:])
    found = exact_margin(sp.csr_matrix(rows) if sparse else rows, w, n_unpenalised)
    if least <= 0:
        assert found == 0.0
        return
    q = least * least / square_norm  # the squared margin, exactly
    assert Fraction(found) ** 2 <= q  # never above
    above = math.nextafter(math.nextafter(found, math.inf), math.inf)
    assert found == 0.0 and q < Fraction(5e-324) ** 2 or Fraction(above) ** 2 > q  # tight


def test_exact_margin_edge_cases():
    from halfspaces._exact import exact_margin

    assert exact_margin(np.array([[3.0, 4.0]]), np.array([3.0, 4.0]), 0) == 5.0
    assert exact_margin(np.array([[1.0, 1.0]]), np.array([1.0, 0.0]), 1) == np.inf  # no norm
    assert exact_margin(np.empty((0, 2)), np.array([1.0, 1.0]), 0) == np.inf  # no rows
    assert exact_margin(np.array([[5e-324, 0.0]]), np.array([1.0, 0.0]), 0) == 5e-324
    assert exact_margin(np.array([[3e-320, 1e-300]]), np.array([2.0, 0.0]), 0) == 3e-320
    assert exact_margin(np.array([[1e300, 1e300]]), np.array([1e300, 1e300]), 0) == \
        pytest.approx(math.sqrt(2) * 1e300, rel=1e-15)  # 2e600 / (sqrt(2) 1e300): no overflow
    assert exact_margin(np.full((1, 4), 1e308), np.ones(4), 0) == \
        np.finfo(np.float64).max  # 2e308, beyond float64: the largest float, still below


def test_a_support_beyond_the_budget_tries_the_support_without_its_noise(monkeypatch):
    # XOR's four rows weigh 1/4 each; six copies of them weigh 1e-12, float noise: the whole
    # support (10 rows) is beyond the budget, the strong one (4 rows) within it, and it
    # holds the exact certificate (the search must go on past a support it cannot afford)
    Z = signed_rows(*XOR, True)
    rows = np.vstack([Z, Z[:3], Z[:3]])
    a = np.concatenate([np.full(4, 0.25), np.full(6, 1e-12)])
    a /= a.sum()
    monkeypatch.setattr(rational_module, "MAX_EXACT_WORK", 4 * 4 * 3)
    found = exact_certificate(rows, a)
    assert found.checked and found.certificate is not None
    assert found.certificate[:4].tolist() == [0.25] * 4 and not found.certificate[4:].any()


# Rows separable by w = (1, 2^11): the second scores -1e-320 + 2^11 * 5e-324 > 0. The float
# check passes (0.5, 0.5, 0) (a residual of 2.5e-324 in a column of max 1), no exact
# dependence exists, and the least-squares candidate weighs the second row by 1 / 1e-320:
# inf, then nan. Its empty support was "proved" a certificate: the zero vector, exact=True.
SUBNORMAL_SEPARABLE = np.array([[1.0, 0.0], [-1e-320, 5e-324], [0.0, 1.0]])


def exact_score(z, w) -> Fraction:
    return sum(Fraction(float(a)) * Fraction(float(b)) for a, b in zip(z, w, strict=True))


def test_rows_with_subnormal_sizes_get_no_empty_certificate():
    Z = SUBNORMAL_SEPARABLE
    assert all(exact_score(z, [1.0, 2.0**11]) > 0 for z in Z)  # separable, exactly
    check = exact_certificate(Z, np.zeros(3))
    assert check.certificate is None
    with pytest.raises(SolverError, match="cannot be decided"):
        decide(Z)


@pytest.mark.parametrize("Z", [np.array([[1e175], [-3e-147]]),
                               np.array([[-2e-63], [3e-136], [1e175]])],
                         ids=["two-rows", "three-rows"])
def test_the_least_squares_certificate_survives_row_sizes_beyond_float64(Z):
    # 1e175 beside 3e-147 in one column: their sizes, scaled to the column's max, are
    # subnormal, and c / size overflowed (a RuntimeWarning, then nan weights and the zero
    # "certificate"); rows of both signs in one column are never separable
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        found = decide(Z)
    a = found.certificate
    assert found.exact and np.all(a >= 0) and a.sum() == pytest.approx(1.0)
    support = Z[a > 0, 0]
    assert support.min() < 0 < support.max()  # Gordan's combination exists on these rows


def test_a_row_off_the_support_with_a_subnormal_size_keeps_the_certificate():
    # x and -x (one point with both labels) beside a row of size 1e-320 that the
    # least-squares candidate gives no weight: 0 * (least size / 1e-320) = 0 * inf = nan
    # lost the candidate, and the proof became a SolverError (found by review)
    import warnings

    from halfspaces import theory

    X = np.array([[1.0, 0.0], [1.0, 0.0], [1e-320, 0.0]])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        found = theory.separability(X, [1, -1, 1], fit_intercept=False)
    assert not found.separable and found.exact
    a = found.certificate
    assert np.all(a >= 0) and a[:2].sum() > 0
    # Gordan's combination, in exact arithmetic: sum_i a_i y_i x_i = 0
    signed = [[Fraction(float(v)) * s for v in row]
              for row, s in zip(X, [1, -1, 1], strict=True)]
    total = [sum(Fraction(float(ai)) * row[j] for ai, row in zip(a, signed, strict=True))
             for j in range(2)]
    assert total == [0, 0]


def test_the_sheared_columns_product_is_accurate_where_float_is_noise():
    # P v with terms of order 1 cancelling to about 1e-16: Dot2 is within u |P v| + a
    # term of order u^2 of the exact value (Fractions); plain P @ v is often off by 100%
    from halfspaces._exact.sheared import accurate_product

    rng = np.random.default_rng(7)
    P = rng.normal(size=(200, 3))
    P[:, 2] = 0.3 * P[:, 0] + 0.7 * P[:, 1]  # rounded: exactly independent
    v = np.array([0.3, 0.7, -1.0])
    got = accurate_product(P, v)
    for row, value in zip(P, got, strict=True):
        exact = sum(Fraction(float(x)) * Fraction(float(c)) for x, c in zip(row, v,
                                                                           strict=True))
        size = sum(abs(Fraction(float(x)) * Fraction(float(c))) for x, c in zip(row, v,
                                                                                strict=True))
        assert abs(Fraction(float(value)) - exact) <= 2.0**-52 * abs(exact) + 2.0**-100 * size
