import math
import re
from fractions import Fraction
from itertools import product

import numpy as np
import pytest
from _oracles import exact_null_vector, linprog_separable

import halfspaces._exact.feasibility as feasibility_module
import halfspaces.theory.vc as vc_module
from halfspaces.theory import shatters, unrealizable_labeling, vc_dimension


def test_vc_dimension():
    assert vc_dimension(5) == 6 and vc_dimension(5, fit_intercept=False) == 5
    with pytest.raises(ValueError, match="n_features"):
        vc_dimension(0)


def test_vc_dimension_of_the_line_and_its_bad_arguments():
    # on the line (d = 1): two points shattered by affine halfspaces, one by homogeneous ones
    assert vc_dimension(1) == 2 and shatters([[0.0], [1.0]])
    assert vc_dimension(1, fit_intercept=False) == 1 and shatters([[1.0]], fit_intercept=False)
    for bad in (2.5, True, False, -1, 0, "3", math.nan):
        # scikit-learn's InvalidParameterError: a ValueError and a TypeError at once
        with pytest.raises(ValueError,
                           match=r"'n_features' parameter .* must be an int in the range \[1, inf\)"
                           ) as error:
            vc_dimension(bad)
        assert isinstance(error.value, TypeError)
    assert vc_dimension(np.int64(2)) == 3 and type(vc_dimension(np.int64(2))) is int


@pytest.mark.parametrize("d", [1, 2, 3, 4])
def test_standard_bases_are_shattered(d):
    assert shatters(np.eye(d), fit_intercept=False)
    assert shatters(np.vstack([np.zeros(d), np.eye(d)]), fit_intercept=True)


@pytest.mark.parametrize("d", [1, 2, 3])
def test_random_points_beyond_the_vc_dimension_are_never_shattered(d):
    rng = np.random.default_rng(d)
    for _ in range(3):
        homogeneous = rng.standard_normal((d + 1, d))
        affine = rng.standard_normal((d + 2, d))
        ok, labeling = shatters(homogeneous, fit_intercept=False, return_labeling=True)
        assert not ok and not linprog_separable(homogeneous, labeling, fit_intercept=False)
        ok, labeling = shatters(affine, return_labeling=True)
        assert not ok and not linprog_separable(affine, labeling)


def test_first_unrealizable_labeling_is_first_in_product_order():
    square = [[0.0, 0.0], [1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]
    assert shatters(square, return_labeling=True)[1].tolist() == [-1, 1, 1, -1]
    assert shatters(np.eye(2), fit_intercept=False, return_labeling=True)[1] is None


@pytest.mark.parametrize("d", [1, 2, 4])
@pytest.mark.parametrize("fit_intercept", [True, False])
def test_unrealizable_labeling_is_lp_infeasible(d, fit_intercept):
    rng = np.random.default_rng(10 + d)
    for extra in range(3):
        points = rng.standard_normal((d + 1 + fit_intercept + extra, d))
        labeling = unrealizable_labeling(points, fit_intercept)
        assert set(labeling.tolist()) <= {-1, 1}
        assert not linprog_separable(points, labeling, fit_intercept)


def test_unrealizable_labeling_refuses_independent_points_and_shatters_refuses_many():
    with pytest.raises(ValueError, match="linearly independent"):
        unrealizable_labeling(np.eye(3), fit_intercept=False)
    with pytest.raises(ValueError, match="refuses m > 20"):
        shatters(np.zeros((21, 2)))


@pytest.mark.parametrize("scale", [1e-12, 1e-6, 1e6, 1e12])
def test_shattering_does_not_depend_on_the_units(scale):
    # 3 points in general position in the plane, however close together or far apart
    triangle = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]]) * scale
    assert shatters(triangle)
    assert not shatters(np.vstack([triangle, [[scale, scale]]]))
    square = np.vstack([triangle, [[scale, scale]]])
    labeling = unrealizable_labeling(square)
    assert not linprog_separable(square / scale, labeling)


@pytest.mark.parametrize("fit_intercept, points, need", [
    (True, [[0.0], [1.0]], 3), (False, [[1.0]], 2), (True, [[0.0, 0.0], [1.0, 0.0]], 4)])
def test_independent_points_are_counted_and_the_number_needed_is_d_plus_two(
        fit_intercept, points, need):
    # Theorem 9.2: any d + 1 + fit_intercept points are dependent after x' = (1, x)
    message = (f"the {len(points)} points are linearly independent (after x' = (1, x) when "
               "fit_intercept), so halfspaces shatter them and every labeling is realised; "
               f"pass at least {need} points.")
    with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
        unrealizable_labeling(points, fit_intercept)
    assert shatters(points, fit_intercept)


def test_a_zero_point_is_a_dependence_of_its_own_without_intercept():
    # 0 = 1 * x_0: no homogeneous halfspace puts the origin strictly on the + side
    points = np.array([[0.0, 0.0], [1.0, 2.0], [3.0, 1.0]])
    labeling = unrealizable_labeling(points, fit_intercept=False)
    assert labeling.shape == (3,) and labeling[0] == 1
    assert not linprog_separable(points, labeling, fit_intercept=False)


def test_bad_points_are_named():
    with pytest.raises(ValueError, match="Input points contains NaN"):
        unrealizable_labeling([[np.nan], [1.0], [2.0]])
    with pytest.raises(ValueError, match="Input points contains NaN"):
        shatters([[np.nan], [1.0]])


def first_unrealisable(points, fit_intercept=True):
    """The first labeling in itertools.product order that linprog cannot separate."""
    for labels in product((-1, 1), repeat=len(points)):
        if not linprog_separable(points, np.array(labels), fit_intercept):
            return list(labels)
    return None


@pytest.mark.parametrize("points, fit_intercept", [
    (np.arange(4.0)[:, None], True),     # many unrealisable pairs on a line
    (np.arange(5.0)[:, None], True),
    ([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]], False),
    ([[0.0, 0.0], [2.0, 0.0], [0.0, 2.0], [1.0, 1.0]], True),  # a point on a segment
])
def test_first_unrealisable_labeling_matches_a_brute_force_search(points, fit_intercept):
    # shatters solves only the labelings that start with -1 (a labeling and its negation
    # are realised together); its answer must still be the first in product order
    ok, labeling = shatters(points, fit_intercept, return_labeling=True)
    assert not ok and labeling.tolist() == first_unrealisable(points, fit_intercept)


def test_shatters_takes_twenty_points_and_refuses_twenty_one():
    # 20 points on a line: the third labeling in product order, (-1, ..., -1, 1, -1),
    # needs two thresholds, so the search stops there
    line = np.arange(20.0)[:, None]
    ok, labeling = shatters(line, return_labeling=True)
    assert not ok and labeling.tolist() == [-1] * 18 + [1, -1]
    with pytest.raises(ValueError, match=r"refuses m > 20\. For m > vc_dimension\(d\) the "
                       r"answer is False by Theorem 9\.2; unrealizable_labeling gives a "
                       r"witness\.$"):
        shatters(np.vstack([line, [[20.0]]]))


def test_points_outside_the_dependence_are_labelled_plus_one():
    # on x' = (1, x): x'_2 = -x'_0 + 2 x'_1 for x = 0, 1, 2, so a = (-1, 2, -1) and the proof's
    # labeling is (-1, +1, -1); the points after the dependence have a_i = 0: "the rest +1"
    labeling = unrealizable_labeling([[0.0], [1.0], [2.0], [5.0], [7.0]])
    assert labeling.tolist() == [-1, 1, -1, 1, 1]


@pytest.mark.parametrize("fit_intercept", [True, False])
def test_the_first_dependence_is_exact_and_is_the_oracles(fit_intercept):
    # a != 0 with sum_i a_i x'_i = 0 in exact arithmetic, on the first point in the span of
    # those before it: the Fraction oracle's vector up to a positive factor times -1
    from halfspaces._exact import first_dependence

    rng = np.random.default_rng(7)
    for points in (rng.integers(-5, 6, size=(4, 2)).astype(float),
                   np.array([[1.0, 2.0], [2.0, 4.0], [0.5, 3.0]]),
                   np.array([[1.0, 0.0], [1.0, 2.0**-52], [2.0, 2.0**-52]]),
                   rng.standard_normal((5, 3))):
        Xp = np.hstack([np.ones((len(points), 1)), points]) if fit_intercept else points
        a, oracle = first_dependence(Xp), exact_null_vector(Xp)
        if oracle is None:
            assert a is None
            continue
        ratio = {Fraction(x) / y for x, y in zip(a, oracle, strict=True) if y != 0}
        assert len(ratio) == 1 and ratio.pop() < 0
        assert all(x == 0 for x, y in zip(a, oracle, strict=True) if y == 0)


@pytest.mark.parametrize("call", [
    lambda: unrealizable_labeling([[0.0], [1.0], [2.0]]),
    lambda: shatters([[0.0], [1.0], [2.0]], return_labeling=True),
    lambda: shatters([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]], return_labeling=True),
    lambda: shatters([[1.0], [1.0 + 2.0**-52]]),
])
def test_no_lp_is_solved(monkeypatch, call):
    # the answers follow from exact dependences alone: no LP, whose floating-point
    # certificates were once taken as proofs beyond the exact budget
    def no_lp(*args, **kwargs):
        raise AssertionError("an LP was solved")

    monkeypatch.setattr(feasibility_module, "solve", no_lp)
    call()


@pytest.mark.parametrize("points, shattered", [
    ([[0.5]], True), ([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]], True),
    (np.arange(20.0)[:, None], False), (np.arange(5.0)[:, None] ** 2, False)])
def test_shatters_decides_one_label_at_a_time(monkeypatch, points, shattered):
    # of the 2^m labelings, the first unrealisable one is found with at most m + 1 exact
    # decisions (one per label and the final certificate), none on shattered points
    calls = []
    real = vc_module.conformal_dependence

    def counted(*args):
        calls.append(args[2])
        return real(*args)

    monkeypatch.setattr(vc_module, "conformal_dependence", counted)
    ok, _ = shatters(points, return_labeling=True)
    m = len(points)
    assert ok == shattered and len(calls) <= (0 if ok else m + 1)


@pytest.mark.parametrize("fault", ["not a dependence", "wrong signs", "none"])
def test_a_certificate_that_fails_its_exact_check_is_refused(monkeypatch, fault):
    # the labeling's certificate is checked on the points whatever the simplex said: a
    # vector that is not a dependence, or not conformal to the labeling, is never returned
    real = vc_module.conformal_dependence
    if fault == "not a dependence":
        monkeypatch.setattr(vc_module, "is_dependence", lambda Xp, a: False)
    else:
        def faulty(equations, m, signs):
            a = real(equations, m, signs)
            if len(signs) < m or a is None:
                return a
            return None if fault == "none" else [-x for x in a]
        monkeypatch.setattr(vc_module, "conformal_dependence", faulty)
    with pytest.raises(vc_module.SolverError, match="^the dependence found for the first "
                       "unrealisable labeling fails its exact check on the points\\.$"):
        shatters([[0.0], [1.0], [2.0]], return_labeling=True)


def test_a_point_within_float_noise_of_the_span_is_not_in_it():
    # once x__dependence__mutmut_27 and _28 of a float search with a tolerance of 1e-10
    # max|x|, which took x_1 = x_0 + (0, 1e-10) for a multiple of x_0: a = (1, -1, 0), not a
    # dependence. Exactly, x_0 and x_1 are independent and x_2 = (top / gap)(x_1 - x_0), so
    # a = (-top/gap, top/gap, -1) and the labeling is (-1, +1, -1)
    for top, gap in ((1.0, 1e-10), (1.5, 1e-10)):
        points = np.array([[top, 0.0], [top, gap], [0.0, top]])
        labeling = unrealizable_labeling(points, fit_intercept=False)
        assert labeling.tolist() == [-1, 1, -1]
        assert not linprog_separable(points, labeling, fit_intercept=False)


def test_a_point_beyond_the_relative_tolerance_is_independent():
    # x__dependence__mutmut_13 (tolerance floor 2e-10): x_2 is 1.5e-10 from the span of x_1
    # (the largest scaled entry is 1), so it is kept; x_3 = 2 x_1 then gives the dependence,
    # and x_1, x_3 get opposite labels
    points = np.array([[1.0, 0.0], [1.0, 1.5e-10], [2.0, 0.0], [0.0, 1.0]])
    labeling = unrealizable_labeling(points, fit_intercept=False)
    assert labeling[0] == 1 and labeling[2] == -1 and labeling[3] == 1
    assert not linprog_separable(points, labeling, fit_intercept=False)
