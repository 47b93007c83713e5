import math
import re

import numpy as np
import pytest
import scipy.sparse as sp
from _datasets import float_dependent_columns, hidden_separator, integers_two_apart
from _oracles import (
    check_certificate,
    exact_certificate_holds,
    exact_least_score,
    hull_half_distance,
    linprog_separable,
    min_norm_point_norm,
    noisy_sample,
    perceptron_separates,
    separable_sample,
    signed,
)
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.svm import SVC

import halfspaces._exact.rational as rational_module
from halfspaces import NotSeparableError
from halfspaces.exceptions import SolverError
from halfspaces.theory import (
    functional_margins,
    geometric_margins,
    max_margin,
    perceptron_mistake_bound,
    separability,
    shatters,
)

XOR = np.array([[0.0, 0.0], [1.0, 1.0], [0.0, 1.0], [1.0, 0.0]]), np.array([1, 1, -1, -1])


def check_answer(X, y, fit_intercept):
    result = separability(X, y, fit_intercept)
    assert result.separable == linprog_separable(X, y, fit_intercept)
    if result.separable:
        assert result.certificate is None
        assert functional_margins(X, y, result.coef, result.intercept).min() >= 1.0
        if not fit_intercept:
            assert result.intercept == 0.0
    else:
        assert result.coef is None
        check_certificate(X, y, result.certificate, fit_intercept)
    return result


def test_xor_certificate():
    result = check_answer(*XOR, fit_intercept=True)
    np.testing.assert_allclose(result.certificate, 0.25)


@pytest.mark.parametrize("fit_intercept", [True, False])
@pytest.mark.parametrize("sparse", [False, True])
def test_random_separable_and_noisy(fit_intercept, sparse):
    rng = np.random.default_rng(1)
    for _ in range(3):
        X, y = separable_sample(rng, 200, 5, fit_intercept=fit_intercept)
        assert check_answer(sp.csr_matrix(X) if sparse else X, y, fit_intercept).separable
        X, y = noisy_sample(rng, 200, 5)
        assert not check_answer(sp.csr_matrix(X) if sparse else X, y, fit_intercept).separable


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10**6), st.integers(1, 12), st.integers(1, 4), st.booleans())
def test_agrees_with_linprog_on_small_samples(seed, n, d, fit_intercept):
    rng = np.random.default_rng(seed)
    X = rng.integers(-2, 3, (n, d)).astype(float)  # ties, duplicates and zero rows happen
    check_answer(X, rng.choice([-1, 1], n), fit_intercept)


@pytest.mark.parametrize("fit_intercept", [True, False])
def test_degenerate_inputs(fit_intercept):
    check_answer(np.array([[1.0, 2.0], [1.0, 2.0]]), [1, -1], fit_intercept)  # duplicates
    assert check_answer(np.array([[2.0]]), [1], fit_intercept).separable  # n = 1, d = 1
    zero = check_answer(np.array([[0.0, 0.0], [1.0, 0.0]]), [1, -1], fit_intercept)
    assert zero.separable == fit_intercept  # a zero row needs an intercept


def test_a9a_certificate(a9a):
    X, y = a9a
    result = separability(X, y)
    assert not result.separable
    check_certificate(X, y, result.certificate)


def svc_margin(X, y):
    svc = SVC(kernel="linear", C=1e10, tol=1e-10).fit(X, y)
    return geometric_margins(X, y, svc.coef_, svc.intercept_[0]).min()


@pytest.mark.parametrize("seed", range(4))
def test_max_margin_matches_svc_and_min_norm_point(seed):
    rng = np.random.default_rng(seed)
    X, y = separable_sample(rng, 80, 3, gap=0.2, scale=2.0)
    mm = max_margin(X, y)
    assert mm.margin == pytest.approx(hull_half_distance(X, y), rel=1e-6)
    # libsvm stops at its own tolerance: its hyperplane is within 1e-5 and never better
    assert svc_margin(X, y) <= mm.margin * (1 + 1e-9)
    assert mm.margin == pytest.approx(svc_margin(X, y), rel=1e-5)
    margins = geometric_margins(X, y, mm.coef, mm.intercept)
    assert margins.min() == pytest.approx(mm.margin, rel=1e-12)
    np.testing.assert_allclose(margins[mm.support], mm.margin, rtol=1e-6)
    assert mm.augmented_margin == pytest.approx(min_norm_point_norm(signed(X, y, True)), rel=1e-6)
    assert mm.norm_bound == pytest.approx(1 / mm.augmented_margin, rel=1e-9)
    b_unit = mm.intercept / np.linalg.norm(mm.coef)
    assert mm.augmented_margin >= mm.margin / np.sqrt(1 + b_unit**2) * (1 - 1e-9)
    sparse = max_margin(sp.csr_matrix(X), y)
    assert sparse.margin == pytest.approx(mm.margin, rel=1e-7)


def test_max_margin_homogeneous_is_min_norm_point():
    rng = np.random.default_rng(5)
    X, y = separable_sample(rng, 60, 3, gap=0.2, fit_intercept=False)
    mm = max_margin(X, y, fit_intercept=False)
    assert mm.intercept == 0.0
    assert mm.margin == pytest.approx(min_norm_point_norm(signed(X, y, False)), rel=1e-6)
    assert mm.norm_bound == pytest.approx(1 / mm.margin, rel=1e-9)


def test_max_margin_large_sample_working_set():
    rng = np.random.default_rng(6)
    X, y = separable_sample(rng, 5000, 5, gap=0.05)
    mm = max_margin(X, y)
    assert functional_margins(X, y, mm.coef, mm.intercept).min() >= 1.0
    assert mm.margin == pytest.approx(svc_margin(X, y), rel=1e-5)


def test_max_margin_not_separable_raises_with_certificate():
    with pytest.raises(NotSeparableError, match="not linearly separable") as info:
        max_margin(*XOR)
    check_certificate(*XOR, info.value.certificate)


def test_one_label_affine_margin_is_infinite():
    mm = max_margin([[0.0], [1.0]], [1, 1])
    assert mm.margin == np.inf and mm.intercept > 0


@settings(max_examples=20, deadline=None)
@given(st.integers(0, 10**6), st.booleans())
def test_answer_is_invariant_to_scaling_x(seed, separable):
    rng = np.random.default_rng(seed)
    X, y = (separable_sample(rng, 30, 2, gap=0.2) if separable
            else noisy_sample(rng, 30, 2, flip=0.3))
    expected = linprog_separable(X, y)
    for exponent in range(-12, 13, 3):
        Xc = X * 10.0**exponent
        result = separability(Xc, y)
        assert result.separable == expected
        if expected:
            assert functional_margins(Xc, y, result.coef, result.intercept).min() >= 1.0
        else:
            check_certificate(Xc, y, result.certificate)


def test_tiny_data_the_perceptron_separates_are_separable():
    X, y = separable_sample(np.random.default_rng(0), 100, 3, gap=0.1)
    assert perceptron_separates(X, y)  # then (w / 1e-10, b) separates X * 1e-10
    assert check_answer(X, y, True).separable and separability(X * 1e-10, y).separable


@pytest.mark.parametrize("scale", [1e-6, 1.0, 1e6])
def test_max_margin_of_two_points_far_apart(scale):
    # the QP once answered 'Unbounded' on x = 100 (label 1), -1 (label -1)
    X, y = np.array([[100.0], [-1.0]]) * scale, [1, -1]
    mm = max_margin(X, y)
    assert mm.margin == pytest.approx(50.5 * scale, rel=1e-9)
    assert mm.intercept / -mm.coef[0] == pytest.approx(49.5 * scale, rel=1e-9)
    assert mm.augmented_margin == pytest.approx(min_norm_point_norm(signed(X, y, True)),
                                                rel=1e-6)


@pytest.mark.parametrize("fit_intercept", [True, False])
def test_answers_say_which_halfspaces_they_are_about(fit_intercept):
    rng = np.random.default_rng(12)
    X, y = separable_sample(rng, 40, 2, gap=0.2, fit_intercept=fit_intercept)
    assert separability(X, y, fit_intercept).fit_intercept is fit_intercept
    assert max_margin(X, y, fit_intercept).fit_intercept is fit_intercept
    xor = np.array([[0.0, 0.0], [1.0, 1.0], [0.0, 1.0], [1.0, 0.0]])
    found = separability(xor, [1, 1, -1, -1], fit_intercept)
    assert not found.separable and found.fit_intercept is fit_intercept


@pytest.mark.parametrize("which", [0, 1])  # the QP with the intercept free, then the one on x'
def test_a_qp_answer_that_does_not_separate_is_an_error_not_a_margin(monkeypatch, which):
    import importlib

    from halfspaces.exceptions import SolverError

    # the module, not the function of the same name that halfspaces.theory exports
    module = importlib.import_module("halfspaces.theory.separability")

    X, y = separable_sample(np.random.default_rng(13), 30, 2, gap=0.2)
    calls = []
    real = module.proved_separator

    def failing(Z, w, *args, **kwargs):
        calls.append(1)
        return None if len(calls) == which + 1 else real(Z, w, *args, **kwargs)

    monkeypatch.setattr(module, "proved_separator", failing)
    with pytest.raises(SolverError) as err:
        max_margin(X, y, fit_intercept=True)
    assert str(err.value) == ("the hard-margin QP returned a hyperplane that does not separate "
                              "the data in floating point; rescale X.")


@pytest.mark.parametrize("seed", range(4))
def test_augmented_bound_of_small_features_from_the_free_intercept_qp(seed, monkeypatch):
    # features of norm R next to the constant 1: |b| <= ||w|| R bounds B between ||w|| and
    # ||(b, w)|| of the free-intercept QP. At 1e-5 the augmented QP solves and is the
    # oracle: its B is the smallest; the stand-in's is over by R^2 / 2 at most.
    import sys

    module = sys.modules["halfspaces.theory.separability"]
    X, y = separable_sample(np.random.default_rng(seed), 30, 3, gap=0.2)
    X = X / np.abs(X).max() * 1e-5
    R = np.linalg.norm(X, axis=1).max()
    qp = max_margin(X, y)
    solve = module.min_norm_separator

    def fail_augmented(Z, free_first):
        if not free_first:
            raise SolverError("HiGHS called the max-margin QP infeasible")
        return solve(Z, free_first=free_first)

    monkeypatch.setattr(module, "min_norm_separator", fail_augmented)
    stand_in = max_margin(X, y)
    assert qp.norm_bound * (1 - 1e-12) <= stand_in.norm_bound
    assert stand_in.norm_bound <= qp.norm_bound * (1 + R**2 / 2 + 1e-12)
    assert stand_in.augmented_margin <= qp.augmented_margin * (1 + 1e-12)
    assert stand_in.margin == pytest.approx(qp.margin, rel=1e-12)  # the free QP's own
    # beyond R = 2^-13 a failing augmented QP is an error, not a stand-in
    with pytest.raises(SolverError, match="infeasible"):
        max_margin(X * 1e3, y)
    monkeypatch.undo()
    # where the augmented QP itself failed (features of 1e-8 and below), the answer is
    # the one at 1e-5 scaled: the margin by c, B by 1 / c, to the stand-in's R^2 / 2
    for c in (1e-3, 1e-186):
        small = max_margin(X * c, y)
        assert small.margin == pytest.approx(qp.margin * c, rel=1e-9)
        assert small.norm_bound == pytest.approx(qp.norm_bound / c, rel=1e-9)


@pytest.mark.parametrize("p", [20_000, 100_000])
def test_two_rows_of_many_alike_columns_in_closed_form(p):
    # x = (1, ..., 1) labelled +1 and x = 0 labelled -1, p features: on x' = (1, x) the rows
    # z_1 = (1, 1...1), z_2 = (-1, 0...0) have G = [[p + 1, -1], [-1, 1]], a = G^-1 1 =
    # (2, p + 2) / p, B^2 = a^T G a = (p + 4) / p and R'^2 = p + 1; the margin on x is
    # ||(1...1)|| / 2 = sqrt(p) / 2. HiGHS's separability LP took 45 s on this (p = 1e5,
    # 100,001 alike columns) and its dual QP dropped a_1 = 2e-5: fit's bound was an error
    X = np.vstack([np.ones(p), np.zeros(p)])
    y = np.array([1, -1])
    assert separability(X, y).separable
    found = max_margin(X, y)
    assert found.margin == pytest.approx(np.sqrt(p) / 2, rel=1e-9)
    assert found.norm_bound == pytest.approx(np.sqrt((p + 4) / p), rel=1e-6)  # the QP gap
    exact = (p + 1) * (p + 4) / p
    bound = perceptron_mistake_bound(X, y)
    assert exact <= bound <= exact * (1 + 1e-6)


def values_float64_rounds():
    from fractions import Fraction

    big = np.array([[2**53], [2**53 + 1]], dtype=np.int64)
    tiny_step = np.array([[1.0], [1.0]], dtype=np.longdouble)
    tiny_step[1, 0] += np.longdouble(2.0) ** -60
    return [
        pytest.param(big, "9007199254740993 (row 1, column 0)", id="int64-2**53+1"),
        pytest.param(big.tolist(), "9007199254740993 (row 1, column 0)", id="python-ints"),
        pytest.param(sp.csr_matrix(big), "9007199254740993 (row 1, column 0)", id="csr-int64"),
        pytest.param(big.astype(np.uint64), "9007199254740993 (row 1", id="uint64"),
        pytest.param(tiny_step, "1.0000000000000000009 (row 1, column 0)", id="longdouble"),
        pytest.param(np.array([[Fraction(1, 3)], [Fraction(1)]], dtype=object), "1/3 (row 0",
                     id="fraction"),
        pytest.param(np.array([[1.0], tiny_step[1]], dtype=object),
                     "1.0000000000000000009 (row 1, column 0)",
                     id="object-longdouble"),
        *values_float64_rounds_before_any_check(),
    ]


def values_float64_rounds_before_any_check():
    """Inputs whose int entries NumPy or SciPy rounds before a check of the array sees
    them: each was once proved "exactly" inseparable (or not shattered) as one point."""
    import pandas as pd

    big = np.array([[2**53], [2**53 + 1]], dtype=np.int64)
    # int64 duplicates 2^53 and 1 at one place are the entry 2^53 + 1, summed in float64
    # to 2^53, which each duplicate alone did not show
    summed = sp.csr_matrix((np.array([2**53, 2**53, 1], dtype=np.int64),
                            np.array([0, 0, 0]), np.array([0, 1, 3])), shape=(2, 1))
    return [
        pytest.param([[2**53, 0.5], [2**53 + 1, 0.5]], "9007199254740993 (row 1, column 0)",
                     id="list-of-ints-and-floats"),
        pytest.param(pd.DataFrame({"a": [2**53, 2**53 + 1], "b": [0.5, 0.5]}),
                     "9007199254740993 (row 1, column 0)", id="dataframe-int-and-float"),
        pytest.param(sp.lil_matrix(big), "9007199254740993 (row 1, column 0)", id="lil-int64"),
        pytest.param(sp.dok_matrix(big), "9007199254740993 (row 1, column 0)", id="dok-int64"),
        pytest.param(summed, "9007199254740993 (row 1, column 0)", id="csr-int64-duplicates"),
        pytest.param(sp.csc_matrix(np.hstack([big, big[::-1]])),
                     "9007199254740993 (row 0, column 1)", id="csc-int64"),
    ]


@pytest.mark.parametrize("X, where", values_float64_rounds())
def test_values_that_float64_rounds_are_refused_not_proved_about(X, where):
    # 2**53 and 2**53 + 1 with opposite labels are separable (w = 2, b = -(2**54 + 1));
    # rounded to float64 they were one point, and separability "proved" exactly that no
    # halfspace separates them, and shatters() said two distinct points are not shattered
    y = [-1, 1]
    if not sp.issparse(X):
        from fractions import Fraction

        rows = [Fraction(*v.as_integer_ratio()) if isinstance(v, np.floating) else Fraction(v)
                for v in np.asarray(X).ravel()]
        assert rows[0] != rows[1]  # exactly, the points differ
    for call in (lambda: separability(X, y), lambda: max_margin(X, y),
                 lambda: shatters(X)):
        with pytest.raises(ValueError, match=re.escape(f"holds {where}")):
            call()


def test_values_float64_holds_exactly_are_accepted_whatever_their_type():
    from fractions import Fraction

    exact = [np.array([[2**53], [2**54 + 4]], dtype=np.int64),
             np.array([[0.5], [1.0]], dtype=np.longdouble),
             np.array([[Fraction(1, 2)], [Fraction(1)]], dtype=object),
             np.array([[-(2**62)], [2**62]], dtype=np.int64)]
    for X in exact:
        assert separability(X, [-1, 1]).separable


def segment_distance(z1, z2) -> float:
    """Distance from 0 to the segment [z1, z2] (the homogeneous max margin of two signed
    rows), from exact rationals: the closest point is exact, only its norm is rounded."""
    from fractions import Fraction

    a = [Fraction(float(v)) for v in z1]
    d = [Fraction(float(v)) - p for v, p in zip(z2, a, strict=True)]
    t = -sum(p * q for p, q in zip(a, d, strict=True)) / sum(q * q for q in d)
    t = min(Fraction(1), max(Fraction(0), t))
    return math.sqrt(sum((p + t * q) ** 2 for p, q in zip(a, d, strict=True)))


def test_max_margin_is_never_above_the_maximum_where_scores_cancel():
    # two points 3e-11 from the best hyperplane through 0, entries near 1: the float min
    # score errs by ~1e-5 of itself, and the margin read from it was 7e-8 above the maximum
    X = np.array([[-0.08277891657670387, -0.7489471465952328],
                  [-0.09666422087314008, -0.8745752582662896]])
    found = max_margin(X, [1, -1], fit_intercept=False)
    true = segment_distance(X[0], -X[1])
    assert found.margin <= true * (1 + 2**-52)  # the oracle's own sqrt rounds once
    assert found.margin == pytest.approx(true, rel=1e-6)


@settings(max_examples=60, deadline=None, derandomize=True)
@given(seed=st.integers(0, 2**32 - 1), gap=st.floats(1e-14, 1e-3))
def test_max_margin_of_two_nearly_parallel_rows_is_at_most_the_exact_one(seed, gap):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(3)
    # z_2 = -x_2 ~ -z_1: the segment between them passes about gap from 0, and the
    # scores of the best hyperplane cancel
    X = np.vstack([x, x + gap * rng.standard_normal(3)])
    try:
        found = max_margin(X, [1, -1], fit_intercept=False)
    except (SolverError, NotSeparableError):
        return
    assert found.margin <= segment_distance(X[0], -X[1]) * (1 + 2**-52)


def test_a_max_margin_that_is_exactly_one_is_reported_as_one():
    # the margin is exact then rounded down: an exact 1 must not become 0.9999999999999964
    assert max_margin([[0.0], [1.0], [3.0], [4.0]], [-1, -1, 1, 1]).margin == 1.0
    assert max_margin([[1.0, 0.0], [-1.0, 0.0]], [1, -1], fit_intercept=False).margin == 1.0


# Separable data whose features differ by more than float64's 2^1074 (w = (1e-250, 1),
# b = 0 separates the first with exact margins 1e-200, 1e-200, 1e-50): one power of two
# for every penalised column underflows the small one to 0, and the scaled rows were
# "proved" inseparable: NotSeparableError with certificate None or [0.5, 0.5, 0], which
# leaves 1e-200 in the second feature. Now a refusal, never a false proof
BEYOND_ONE_SCALE = [
    ([[0.0, 1e-200], [0.0, -1e-200], [1e200, 0.0]], [1, -1, 1], True),
    ([[1e300, 1e-300], [-1e300, 1e-300]], [1, 1], False),
    ([[1e200, 1e-200], [-1e200, 1e-200]], [1, 1], False),
]


@pytest.mark.parametrize(("X", "y", "fit_intercept"), BEYOND_ONE_SCALE)
@pytest.mark.parametrize("tool", [max_margin, perceptron_mistake_bound])
@pytest.mark.parametrize("sparse", [False, True])
def test_separable_data_beyond_one_scale_are_refused_not_called_inseparable(
        X, y, fit_intercept, tool, sparse):
    X = sp.csr_matrix(X) if sparse else np.array(X)
    assert separability(X, y, fit_intercept).separable
    with pytest.raises(SolverError, match="cannot be (solved|computed) in float64"):
        tool(X, y, fit_intercept=fit_intercept)


@pytest.mark.parametrize("tool", [max_margin, perceptron_mistake_bound])
def test_inseparable_data_beyond_one_scale_get_the_certificate_of_the_data(tool):
    # (1e200, 1e-200)+, (1e200, 2e-200)-, (0, 1e-200)+ homogeneous: inseparable, with the
    # certificate (1/3, 1/3, 1/3); one scale leaves (1/2, 1/2, 0), which fails on X
    X, y = np.array([[1e200, 1e-200], [1e200, 2e-200], [0.0, 1e-200]]), [1, -1, 1]
    with pytest.raises(NotSeparableError) as info:
        tool(X, y, fit_intercept=False)
    found = separability(X, y, fit_intercept=False)
    assert not found.separable and found.exact
    np.testing.assert_array_equal(info.value.certificate, found.certificate)
    check_certificate(X, np.array(y), info.value.certificate, fit_intercept=False)


@pytest.mark.parametrize("case", ["redundant", "derived"])
def test_columns_dependent_only_in_floating_point_are_decided(case):
    # the LP read them as rank-deficient, and its certificate on too few rows held only in
    # float: "cannot be decided" where HiGHS (linprog) calls the LP infeasible at once
    X, y = float_dependent_columns(case)
    assert not linprog_separable(X, np.where(y == 1, 1, -1))
    found = separability(X, y)
    assert not found.separable and found.exact
    assert exact_certificate_holds(X, y, found.certificate)


def test_a_float_certificate_beyond_the_exact_budget_is_no_proof(monkeypatch):
    # separable by e_1 (exact scores 1e-11 and 1), yet a certificate on d rows passes the
    # float check; beyond the exact budget it was returned as "not separable"
    X, y = hidden_separator(50)
    assert exact_least_score(X, y, np.eye(50)[0], 0.0, fit_intercept=False) > 0
    monkeypatch.setattr(rational_module, "MAX_EXACT_WORK", 2_000)
    with pytest.raises(SolverError, match=r"^separability cannot be decided: .* beyond the "
                       r"budget of the exact proof"):
        separability(X, y, fit_intercept=False)


@pytest.mark.parametrize("s", [1e14, 1e15, 2.0**53])
def test_integers_two_apart_far_from_zero_are_decided(s):
    X, y = integers_two_apart(s)
    assert exact_least_score(X, y, [1.0], -(s - 3)) == 1  # the explicit separator
    found = separability(X, y)
    assert found.separable
    assert exact_least_score(X, y, found.coef, found.intercept) >= 1


@pytest.mark.parametrize("call", ["max_margin", "perceptron_mistake_bound", "LP"])
def test_no_tool_raises_not_separable_on_a_float_certificate_beyond_the_budget(
        monkeypatch, call):
    # NotSeparableError says that `.certificate` proves it: on data e_1 separates it did,
    # with the float certificate of the budget's test above
    from halfspaces.erm import LinearProgramClassifier

    X, y = hidden_separator(50)
    run = {"max_margin": lambda: max_margin(X, y, fit_intercept=False),
           "perceptron_mistake_bound": lambda: perceptron_mistake_bound(
               X, y, fit_intercept=False),
           "LP": lambda: LinearProgramClassifier(fit_intercept=False).fit(X, y)}[call]
    monkeypatch.setattr(rational_module, "MAX_EXACT_WORK", 2_000)
    with pytest.raises(SolverError, match="separability cannot be decided: .* beyond the "
                       "budget of the exact proof"):
        run()


@pytest.mark.parametrize("seed", range(12))
def test_with_derived_columns_every_answer_is_proved_exactly(seed):
    # one or two columns computed from the others (rounded), integers or not: whatever is
    # answered is checked in rational arithmetic; "cannot be decided" only where honest
    rng = np.random.default_rng(seed)
    n, d = int(rng.choice([8, 20, 40, 100])), int(rng.integers(2, 6))
    X = rng.normal(size=(n, d))
    X = np.c_[X, X @ rng.normal(size=(d, int(rng.integers(1, 3))))]
    X = np.round(4 * X) if seed % 3 == 0 else X
    y = np.where(X @ rng.normal(size=X.shape[1]) + 3.0 * (seed % 2) * rng.normal(size=n) > 0,
                 1, -1)
    fit_intercept = bool(seed % 4)
    try:
        found = separability(X, y, fit_intercept)
    except SolverError as error:
        assert str(error).startswith("separability cannot be decided")
        return
    if found.separable:
        assert exact_least_score(X, y, found.coef, found.intercept, fit_intercept) > 0
    else:
        assert found.exact and exact_certificate_holds(X, y, found.certificate, fit_intercept)
        assert not linprog_separable(X, y, fit_intercept)
