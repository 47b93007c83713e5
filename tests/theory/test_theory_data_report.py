"""theory.data_report: the data-set report, against oracles that share no code with it.

Separability by SciPy's ``linprog``, Novikoff's bound (R'/gamma')^2 by hand from the
minimum-norm point of the signed rows (NNLS), R' by NumPy, Gordan's certificate by its
definition, the VC dimension and sample complexity by their formulas; and the assembly's
rules (which fields apply, which failures become notes, which floats leave float64) on
primitives written in the test.
"""

from __future__ import annotations

import json
import math
from fractions import Fraction

import numpy as np
import pytest
from _oracles import (
    check_certificate,
    linprog_separable,
    min_norm_point_norm,
    noisy_sample,
    separable_sample,
    signed,
)

from halfspaces.exceptions import SolverError
from halfspaces.theory import DataReport, MaxMargin, Separability, data_report, separability
from halfspaces.theory.data_report import (
    DELTAS,
    EPSILONS,
    FREUND_SCHAPIRE,
    NOVIKOFF,
    ReportSteps,
    assemble_data_report,
)

MARGIN_FIELDS = {"margin", "norm_bound"}
CERTIFICATE_FIELDS = {"certificate_support", "certificate_residual", "certificate_exact"}


def radius_by_numpy(X, fit_intercept):
    X = np.asarray(X, dtype=float)
    rows = np.c_[np.ones(len(X)), X] if fit_intercept else X
    return float(np.linalg.norm(rows, axis=1).max())


def table_by_hand(d, realizable):
    """ceil((d + ln(1/delta)) / epsilon), or / epsilon^2 when agnostic (C = 1)."""
    power = 1 if realizable else 2
    return tuple((eps, delta, math.ceil((d + math.log(1 / delta)) / eps**power - 1e-9))
                 for eps in EPSILONS for delta in DELTAS)


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("fit_intercept", [True, False])
def test_separable_data_get_the_margin_and_novikoffs_bound(seed, fit_intercept):
    rng = np.random.default_rng(seed)
    X, y = separable_sample(rng, 80, 3, gap=0.2, fit_intercept=fit_intercept)
    report = data_report(X, y, fit_intercept=fit_intercept)
    assert report.separable is linprog_separable(X, y, fit_intercept) is True
    R = radius_by_numpy(X, fit_intercept)
    assert report.radius == pytest.approx(R, rel=1e-12)
    gamma = min_norm_point_norm(signed(X, y, fit_intercept))  # gamma' = 1/B by NNLS
    assert report.norm_bound == pytest.approx(1 / gamma, rel=1e-5)
    assert report.mistake_bound == pytest.approx((R / gamma) ** 2, rel=1e-5)
    assert report.mistake_bound_kind == NOVIKOFF
    assert report.margin > 0 and report.certificate_support is None
    d = X.shape[1] + fit_intercept
    assert report.vc_dimension == d
    assert report.sample_complexity == table_by_hand(d, realizable=True)
    assert report.notes == ()
    assert set(report.as_dict()) & CERTIFICATE_FIELDS == set()


@pytest.mark.parametrize("seed", [0, 1])
def test_inseparable_data_get_a_checked_certificate_and_freund_schapire(seed):
    X, y = noisy_sample(np.random.default_rng(seed), 60, 2, flip=0.2)
    report = data_report(X, y)
    assert report.separable is linprog_separable(X, y) is False
    assert report.mistake_bound_kind == FREUND_SCHAPIRE and report.mistake_bound > 0
    assert report.certificate_exact is True and report.certificate_support >= 2
    assert report.certificate_residual <= 1e-9 * np.abs(signed(X, y, True)).max()
    assert report.margin is report.norm_bound is None
    assert report.sample_complexity == table_by_hand(3, realizable=False)
    record = report.as_dict()
    assert set(record) & MARGIN_FIELDS == set() and CERTIFICATE_FIELDS <= set(record)
    json.dumps(record)  # plain data


def test_xor_certificate_is_gordans_by_its_definition():
    X = np.array([[0.0, 0.0], [1.0, 1.0], [0.0, 1.0], [1.0, 0.0]])
    y = np.array([1, 1, 0, 0])
    report = data_report(X, y)
    # the support and residual are those of a vector that satisfies Gordan's alternative
    found = separability(X, y)
    check_certificate(X, np.where(y == 1, 1, -1), found.certificate)
    assert report.certificate_support == np.count_nonzero(found.certificate > 0) == 4
    assert report.certificate_residual == 0.0


def test_two_classes_are_required():
    with pytest.raises(ValueError, match="exactly two classes, found 1"):
        data_report([[0.0], [1.0]], [1, 1])
    with pytest.raises(ValueError, match="3 classes"):
        data_report([[0.0], [1.0], [2.0]], [0, 1, 2])


# ------------------------------------------------------------- the assembly's own rules


def steps(**overrides):
    """Primitives of a separable two-sample set, each replaceable."""
    separable = Separability(True, np.array([1.0]), 0.0, None, True)
    best = MaxMargin(np.array([1.0]), 0.0, 1.0, 2.0, 0.5, np.array([0, 1]), True)
    fields = dict(n_samples=2, n_features=1, fit_intercept=True,
                  separability=lambda: separable, radius=lambda: 3.0,
                  max_margin=lambda: best, novikoff=lambda best: 36.0,
                  residual=lambda a: 0.0, freund_schapire=lambda: 40.0)
    return ReportSteps(**{**fields, **overrides})


def fails(*args):
    raise SolverError("HiGHS cannot answer")


def test_each_failing_solver_leaves_its_fields_empty_with_a_note():
    report = assemble_data_report(steps(max_margin=fails))
    assert report.separable is True and report.margin is report.norm_bound is None
    assert report.mistake_bound == 36.0  # computed on its own
    assert report.notes == ("margin, norm_bound not computed: SolverError: HiGHS cannot "
                            "answer",)
    report = assemble_data_report(steps(novikoff=fails))
    assert report.margin == 1.0 and report.mistake_bound is None
    assert report.notes == ("mistake_bound not computed: SolverError: HiGHS cannot answer",)
    # a bound derived from the margin shares its note, and is not asked without it
    report = assemble_data_report(steps(max_margin=fails, novikoff=None,
                                        novikoff_from_margin=True))
    assert report.margin is report.mistake_bound is None
    assert report.notes == ("margin, norm_bound, mistake_bound not computed: SolverError: "
                            "HiGHS cannot answer",)


def test_undecided_separability_gives_what_holds_on_any_data():
    report = assemble_data_report(steps(separability=fails))
    assert report.separable is None and report.mistake_bound == 40.0
    assert report.mistake_bound_kind == FREUND_SCHAPIRE
    assert report.sample_complexity == table_by_hand(2, realizable=False)
    assert report.notes == ("separable not computed: SolverError: HiGHS cannot answer",)
    assert set(report.as_dict()) & (MARGIN_FIELDS | CERTIFICATE_FIELDS) == set()


def test_floats_beyond_float64_are_empty_with_a_note_and_bugs_are_raised():
    report = assemble_data_report(steps(radius=lambda: math.inf,
                                        novikoff=lambda best: math.nan))
    assert report.radius is report.mistake_bound is None
    assert report.notes == ("radius not shown: inf, beyond float64",
                            "mistake_bound not shown: nan, undefined in float64")
    json.dumps(report.as_dict(), allow_nan=False)

    def bug(*args):
        raise TypeError("a bug")

    for name in ("separability", "max_margin", "novikoff", "radius"):
        with pytest.raises(TypeError, match="a bug"):
            assemble_data_report(steps(**{name: bug}))


def test_the_report_is_frozen_and_its_dict_keeps_the_display_order():
    report = assemble_data_report(steps())
    assert isinstance(report, DataReport)
    with pytest.raises(AttributeError):
        report.separable = False
    assert list(report.as_dict()) == [
        "n_samples", "n_features", "fit_intercept", "separable", "radius", "margin",
        "norm_bound", "coef", "intercept", "mistake_bound", "mistake_bound_kind",
        "vc_dimension", "sample_complexity", "notes"]


def test_the_report_holds_its_separator_checked_exactly_on_the_data():
    X, y = separable_sample(np.random.default_rng(5), 40, 3)
    report = data_report(X, y)
    assert report.separable is True and len(report.coef) == 3
    w = [Fraction(v) for v in report.coef]
    b = Fraction(report.intercept)
    for row, label in zip(X.tolist(), y.tolist(), strict=True):
        sign = 1 if label == max(y) else -1
        assert sign * (sum(Fraction(v) * wj for v, wj in zip(row, w, strict=True)) + b) > 0
    assert json.loads(json.dumps(report.as_dict()))["coef"] == list(report.coef)


def test_the_report_holds_gordans_weights_as_exact_fractions():
    # a point of one class at the centroid of three of the other: weights 1/2 and 1/6 each
    X = np.array([[0.0, 0.0], [6.0, 0.0], [0.0, 6.0], [2.0, 2.0]])
    y = np.array([0, 0, 0, 1])
    report = data_report(X, y)
    assert report.separable is False
    a = report.certificate
    assert all(isinstance(q, Fraction) for q in a) and sum(a) == 1 and min(a) >= 0
    Z = [[Fraction(s)] + [Fraction(s) * Fraction(v) for v in row]
         for row, s in zip(X.tolist(), np.where(y == 1, 1, -1).tolist(), strict=True)]
    assert [sum(q * z[j] for q, z in zip(a, Z, strict=True)) for j in range(3)] == [0] * 3
    assert list(a) == [Fraction(1, 6)] * 3 + [Fraction(1, 2)]
    assert json.loads(json.dumps(report.as_dict()))["certificate"] == ["1/6"] * 3 + ["1/2"]


def test_a_certificate_whose_fractions_cannot_be_recovered_is_reported_in_floats():
    certificate = np.array([0.5, 0.5])
    found = Separability(False, None, None, certificate, True, exact=True)
    report = assemble_data_report(steps(separability=lambda: found,
                                        rational_certificate=lambda a: None))
    assert report.certificate == (0.5, 0.5)
    assert report.as_dict()["certificate"] == ["0.5", "0.5"]
