"""Extreme data scales: every estimator and theory tool gives the answer it gives at scale 1
(scaled exactly, by a power of two) or a named error, never a silently different one.

Data are small multiples of 1/8, so that X * 2^k is exact for every k used here and the
exact-arithmetic runs (fractions) are the oracle where floats and scale-freedom part ways.
"""

from __future__ import annotations

import math
import warnings
from fractions import Fraction

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_array_equal

from halfspaces import (
    AveragedPerceptron,
    ConvergenceWarning,
    KernelPerceptron,
    LogisticRegression,
    MulticlassPerceptron,
    Perceptron,
    PocketPerceptron,
    VotedKernelPerceptron,
    VotedPerceptron,
    ZeroOneERMClassifier,
)
from halfspaces.exceptions import SolverError
from halfspaces.theory import best_freund_schapire_bound, freund_schapire_bound

PERCEPTRONS = [
    Perceptron, AveragedPerceptron, VotedPerceptron, PocketPerceptron, MulticlassPerceptron,
    lambda **kw: KernelPerceptron(kernel="linear", average=True, **kw),
    lambda **kw: VotedKernelPerceptron(kernel="linear", **kw),
]


def eighths(n=30, seed=0):
    """Separable rows of multiples of 1/8 (|x_ij| < 8) and their labels."""
    rng = np.random.default_rng(seed)
    w = np.array([1.0, -2.0, 0.5])
    X = np.round(rng.normal(size=(n, 3)) * 8) / 8
    X = X[np.abs(X @ w) > 0.3]
    return X, np.where(X @ w > 0, 1, -1)


def quiet_fit(estimator, X, y):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return estimator.fit(X, y)


def exact_perceptron(X, y, k, fit_intercept, max_epochs=1000):
    """The plain perceptron on X * 2^k in exact arithmetic: (n_updates, predictions)."""
    rows = [[Fraction(v) * Fraction(2) ** k for v in row] for row in X.tolist()]
    w, b, c, n_updates = [Fraction(0)] * X.shape[1], Fraction(0), int(fit_intercept), 0

    def score(row):
        return sum(a * v for a, v in zip(row, w, strict=True)) + b

    for _ in range(max_epochs):
        updates = 0
        for row, label in zip(rows, y.tolist(), strict=True):
            if label * score(row) <= 0:
                w = [v + label * a for v, a in zip(w, row, strict=True)]
                b, updates = b + label * c, updates + 1
        n_updates += updates
        if not updates:
            break
    return n_updates, np.array([1 if score(row) > 0 else -1 for row in rows])


@pytest.mark.parametrize("make", PERCEPTRONS)
@settings(max_examples=12, deadline=None)
@given(k=st.integers(-560, -490))
def test_homogeneous_perceptrons_are_scale_free_or_refuse_underflowing_scores(make, k):
    # without an intercept a run on X 2^k is the run on X, bit for bit, while no product
    # leaves float64's normal range. At 2^-540 every run converged, but on products that
    # had lost digits as subnormals: 473 updates where the exact run makes 7, and the
    # averaged and voted hypotheses mispredicted 1 and 9 of 23 points
    X, y = eighths()
    base = quiet_fit(make(fit_intercept=False), X, y)
    try:
        scaled = quiet_fit(make(fit_intercept=False), np.ldexp(X, k), y)
    except ValueError as error:
        assert "underflow" in str(error)
        return
    assert_array_equal(scaled.predict(np.ldexp(X, k)), base.predict(X))
    if hasattr(base, "n_updates_"):
        assert scaled.n_updates_ == base.n_updates_


@pytest.mark.parametrize("k", [-540, -600, -1069])
def test_perceptron_with_an_intercept_matches_exact_arithmetic_or_refuses(k):
    # with an intercept the run is not scale-free; its oracle is the exact run on X 2^k.
    # The scores b + <w, x> underflowed where b = 0: 240 updates at 2^-540 (the exact run
    # makes 8), and thousands without convergence below
    X, y = eighths()
    n_updates, predictions = exact_perceptron(X, y, k, fit_intercept=True)
    try:
        model = quiet_fit(Perceptron(), np.ldexp(X, k), y)
    except ValueError as error:
        assert "underflow" in str(error)
        return
    assert model.n_updates_ == n_updates
    assert_array_equal(model.predict(np.ldexp(X, k)), predictions)


def test_the_underflow_check_leaves_normal_scales_and_warm_weights_alone():
    # the check costs a pass over X only for runs whose weights are below 2^-400; a model
    # whose weights are of size 1 scores rows of 2^-600 without underflow and continues
    X, y = eighths()
    exact = exact_perceptron(X, y, -490, fit_intercept=False)
    model = quiet_fit(Perceptron(fit_intercept=False), np.ldexp(X, -490), y)
    assert model.n_updates_ == exact[0]
    warm = Perceptron(fit_intercept=False).fit(X, y)
    warm.partial_fit(np.ldexp(X, -600), y)
    assert_array_equal(warm.predict(X), y)


def noisy_eighths(n=40, seed=0, n_classes=2):
    """Rows of multiples of 1/8 with noisy labels (not separable): a unique logistic fit."""
    rng = np.random.default_rng(seed)
    X = np.round(rng.normal(size=(n, 3)) * 8) / 8
    noisy = X @ np.array([1.0, -2.0, 0.5]) + rng.normal(size=n)
    return X, np.digitize(noisy, [0.0] if n_classes == 2 else [-1.0, 1.0])


@pytest.mark.parametrize("solver", ["lbfgs", "newton"])
@pytest.mark.parametrize("multiclass", [False, True])
@pytest.mark.parametrize("k", [-540, -1069])
@pytest.mark.parametrize("whole", [True, False])
def test_logistic_is_scale_free_or_refuses_underflowing_squares(solver, multiclass, k, whole):
    # without a penalty, the fit on X with column 0 (or all of X) times 2^k predicts as the
    # fit on X. Below 2^-511 the squares the solvers sum underflowed: every solver stopped
    # with a ConvergenceWarning and mispredicted 9 (of 40) points, and at 2^-1069 the
    # separability check divided X by its subnormal largest entry (1 / max = inf) and
    # raised "Input X contains NaN"
    X, y = noisy_eighths(n_classes=3 if multiclass else 2)
    base = LogisticRegression(solver=solver).fit(X, y)
    scaled = X.copy()
    scaled[:, slice(None) if whole else 0] *= 2.0**k
    try:
        model = quiet_fit(LogisticRegression(solver=solver), scaled, y)
    except ValueError as error:
        assert "column 0" in str(error) and "underflow" in str(error)
        return
    assert_array_equal(model.predict(scaled), base.predict(X))


def test_a_penalty_outweighs_a_column_whose_squares_underflow():
    # with alpha > 0 a column of 2^-600 has a negligible weight: nothing to refuse
    X, y = noisy_eighths()
    X = np.column_stack([X, np.ldexp(X[:, 0], -600)])
    base = LogisticRegression(alpha=1e-3).fit(X[:, :3], y)
    assert_array_equal(LogisticRegression(alpha=1e-3).fit(X, y).predict(X), base.predict(X[:, :3]))


@pytest.mark.parametrize("k", [-1000, 1000])
def test_zero_one_erm_is_scale_free(k):
    X, y = eighths()
    base = ZeroOneERMClassifier(fit_intercept=False).fit(X, y)
    scaled = ZeroOneERMClassifier(fit_intercept=False).fit(np.ldexp(X, k), y)
    assert scaled.n_errors_ == base.n_errors_ == 0 and scaled.optimal_
    assert_array_equal(scaled.predict(np.ldexp(X, k)), y)


@pytest.mark.parametrize("k", [-1060, -1070])
def test_zero_one_erm_refuses_subnormal_columns_instead_of_a_false_optimum(k):
    # the MILP's column scaling stops at 2^1023: on separable data at 2^-1060 HiGHS proved
    # "optimal" a hyperplane with 16 errors of 24 (coef -2^1023 in every column)
    X, y = eighths()
    with pytest.raises(SolverError, match="column 0 .* subnormal"):
        ZeroOneERMClassifier(fit_intercept=False).fit(np.ldexp(X, k), y)


@pytest.mark.parametrize("sparse", [False, True])
@settings(max_examples=25, deadline=None)
@given(k=st.integers(-1071, 1019))
def test_freund_schapire_bound_is_scale_free(sparse, k):
    # the bound for (u, gamma) on X is the bound for (u, 2^k gamma) on 2^k X. On data of
    # 2^-1069 the scores underflowed to subnormals, far beyond the rounding rounded_up
    # allows for, and the bound came out 36.50 where it is 36.54: a false bound
    X, y = noisy_eighths()
    u = np.array([0.6, -0.64, 0.48])
    base = freund_schapire_bound(X, y, u, 3.0, fit_intercept=False)
    scaled = np.ldexp(X, k)
    found = freund_schapire_bound(sp.csr_matrix(scaled) if sparse else scaled, y, u,
                                  math.ldexp(3.0, k), fit_intercept=False)
    assert found == base


@pytest.mark.parametrize("k", [-1060, -1069, -1071])
def test_best_freund_schapire_bound_is_scale_free_on_subnormal_data(k):
    # the search scaled the rows by at most 2^1023: at 2^-1069 they stayed at 2^-46, where
    # it ended on 40.0 (u = e_1) instead of the 36.54 it finds at every other scale; its
    # bound is recomputed at the (u, gamma) it returns, so it must be a bound for them
    X, y = noisy_eighths()
    base = best_freund_schapire_bound(X, y, fit_intercept=False)
    found = best_freund_schapire_bound(np.ldexp(X, k), y, fit_intercept=False)
    # gamma of 2^-1066 keeps 8 bits as a subnormal: the bound at it is a little looser
    assert found.bound == pytest.approx(base.bound, rel=1e-4)
    at_scale_one = freund_schapire_bound(X, y, found.u, math.ldexp(found.gamma, -k),
                                         fit_intercept=False)
    assert found.bound >= at_scale_one * (1 - 1e-15)


def exact_scores(X, w):
    """<w, x_i> in exact arithmetic, rounded once (inf beyond float64)."""
    out = []
    for row in X.tolist():
        value = sum(Fraction(a) * Fraction(b) for a, b in zip(row, w, strict=True))
        try:
            out.append(float(value))
        except OverflowError:
            out.append(math.inf if value > 0 else -math.inf)
    return np.array(out)


@pytest.mark.parametrize("sparse", [False, True])
@settings(max_examples=30, deadline=None)
@given(k=st.integers(900, 1019), j=st.integers(-60, 60))
def test_functional_margins_are_inf_only_where_the_margin_is(sparse, k, j):
    # X and w finite, their products beyond float64 on the way: rows (1.7e308, 1.7e308,
    # -1.7e308) had the margin inf against w = 1 (it is 1.7e308) and (1e300, -1e300) had
    # -inf against w = (1e10, 1e10) (it is 0), so margin() reported -inf for a point at a
    # finite distance
    from halfspaces.theory import functional_margins, margin

    X = np.ldexp(np.array([[1.5, 1.5, -1.5], [1.0, -1.0, 0.0], [0.75, 0.25, 0.5]]), k)
    w = np.ldexp(np.array([1.0, 1.0, 0.5]), j)
    y = np.array([1, -1, 1])
    found = functional_margins(sp.csr_matrix(X) if sparse else X, y, w)
    assert_array_equal(found, y * exact_scores(X, w))
    if k + j < 1020:
        assert math.isfinite(margin(X, -y, w))


@pytest.mark.parametrize("k", [-1070, -1000, 1000, 1022])
def test_geometric_margins_are_those_of_the_same_hyperplane_at_any_scale_of_w(k):
    # (w, b) and 2^k (w, b) are one hyperplane; w of 2^-1070 is subnormal, and its norm
    # (three digits) moved the smallest margin from 1.061 to 1.043
    from halfspaces.theory import geometric_margins

    X, y = eighths()
    w, b = np.array([1.0, -2.0, 0.5]), -0.25
    base = geometric_margins(X, y, w, b)
    found = geometric_margins(X, y, np.ldexp(w, k), math.ldexp(b, k))
    np.testing.assert_allclose(found, base, rtol=4 * np.finfo(float).eps)


class FixedLine:
    """A fitted binary linear classifier with given weights."""

    def __init__(self, coef, intercept):
        self.coef_ = np.array([coef], dtype=np.float64)
        self.intercept_ = np.array([intercept], dtype=np.float64)
        self.classes_ = np.array([0, 1])


@pytest.mark.parametrize("k", [-1070, 1022])
def test_decision_regions_are_those_of_the_same_line_at_any_scale_of_its_equation(k):
    # the corners of the regions are the crossings of the line with the box: at 2^1022
    # the line's values at the corners overflowed (NaN corners), at 2^-1070 they were
    # subnormal (a corner at 2.632 for 2.6)
    pytest.importorskip("matplotlib")
    from halfspaces.plot import RegionsDisplay

    X, y = np.array([[0.0, 0.0], [1.0, 0.0], [3.0, 1.0], [4.0, 1.0]]), np.array([0, 0, 1, 1])
    base = RegionsDisplay.from_estimator(FixedLine([1.0, 1.0], -2.5), X, y)
    found = RegionsDisplay.from_estimator(
        FixedLine(np.ldexp([1.0, 1.0], k), math.ldexp(-2.5, k)), X, y)
    for ours, theirs in zip(found.patches_, base.patches_, strict=True):
        np.testing.assert_allclose(ours.get_xy(), theirs.get_xy(), rtol=1e-15)


@pytest.mark.parametrize("coef, intercept, box", [
    ([1e4, 1e10], -1.7e308, ((-1.2e305, 1.2e305), (-1.2e305, 1.2e305))),
    ([2.0**1023, 2.0**1023], -(2.0**1023), ((-2.0, 2.0), (-2.0, 2.0))),
])
def test_a_boundary_whose_equation_overflows_on_the_box_is_still_drawn(coef, intercept, box):
    # a1 x overflowed to inf at every side of the box, and the line was silently left out
    from halfspaces.plot._base import clip_line

    ends = clip_line(np.array(coef), intercept, *box)
    assert ends.shape == (2, 2)
    for end in ends.tolist():  # on the line, to the rounding of its terms (in exact sums)
        terms = [Fraction(c) * Fraction(p) for c, p in zip(coef, end, strict=True)]
        residual = sum(terms) + Fraction(intercept)
        size = sum(map(abs, terms)) + Fraction(abs(intercept))
        assert abs(residual) <= Fraction(1, 10**12) * size


KERNELS = [dict(kernel="poly", degree=3, coef0=0.0), dict(kernel="sigmoid", coef0=0.5),
           dict(kernel="rbf")]


@pytest.mark.parametrize("params", KERNELS, ids=lambda p: p["kernel"])
@settings(max_examples=15, deadline=None)
@given(k=st.sampled_from([-511, -509, -505, -200, 200, 505, 509, 510, 511]))
def test_kernel_perceptrons_are_scale_free_or_refuse_kernel_values_out_of_range(params, k):
    # k(2^k x, 2^k x') at gamma 2^-2k is k(x, x') at gamma. At 2^511 the sigmoid's <a, b>
    # overflowed (tanh(inf) = 1): 7 of 23 predictions changed with only the warning the fit
    # at scale 1 gives; the rbf kernel's ||a - b||^2 overflowed to exp(-inf) = 0 where it
    # is exp(-64); at 2^-509 the inner products were subnormal, of a few bits
    X, y = eighths()
    base = quiet_fit(KernelPerceptron(fit_intercept=False, gamma=0.25, max_epochs=30,
                                      **params), X, y)
    model = KernelPerceptron(fit_intercept=False, gamma=math.ldexp(0.25, -2 * k),
                             max_epochs=30, **params)
    try:
        quiet_fit(model, np.ldexp(X, k), y)
    except ValueError as error:
        assert "kernel's values" in str(error) or "overflowed" in str(error)
        assert abs(k) >= 505  # never a refusal of data at ordinary scales
        return
    assert_array_equal(model.predict(np.ldexp(X, k)), base.predict(X))


def test_homogeneous_poly_kernel_values_that_underflow_are_refused():
    # (gamma <x, x'>)^3 of rows of 2^-200 is 2^-1200 = 0: the perceptron erred on every row
    # for ever and predicted 14 of 23 points, where the scale-free exact run converges
    X, y = eighths()
    params = dict(kernel="poly", degree=3, coef0=0.0, gamma=1.0, fit_intercept=False)
    assert_array_equal(KernelPerceptron(**params).fit(X, y).predict(X), y)
    with pytest.raises(ValueError, match="poly kernel's values .* underflow"):
        KernelPerceptron(**params).fit(np.ldexp(X, -200), y)


def least_hinge_loss(X, y, fit_intercept):
    """min_w sum_i (1 - y_i <w, x'_i>)_+ by scipy's linprog, on data of scale 1."""
    from scipy.optimize import linprog

    Z = y[:, None] * (np.column_stack([np.ones(len(y)), X]) if fit_intercept else X)
    n, p = Z.shape
    res = linprog(np.r_[np.zeros(p), np.ones(n)], A_ub=-np.hstack([Z, np.eye(n)]),
                  b_ub=-np.ones(n), bounds=[(None, None)] * p + [(0, None)] * n)
    assert res.status == 0
    return res.fun


@pytest.mark.parametrize("fit_intercept", [False, True])
@pytest.mark.parametrize("k, whole", [(-1000, True), (-600, True), (600, True),
                                      (-300, False), (300, False)])
def test_hinge_lp_classifier_minimises_the_hinge_loss_at_any_column_scale(fit_intercept, k,
                                                                         whole):
    # the hinge loss is scale-free (w / c on c x); HiGHS's tolerances are not: on columns
    # of 2^-600 it returned w = 0 with loss 40 where the least is 16.3, and on columns of
    # 2^600 it failed ("model status 'Not Set'")
    from halfspaces import LinearProgramClassifier

    X, y = noisy_eighths()
    y_pm = np.where(y == 1, 1.0, -1.0)
    scaled = X.copy()
    scaled[:, slice(None) if whole else 0] *= 2.0**k
    model = LinearProgramClassifier(fit_intercept=fit_intercept, on_infeasible="hinge")
    model.fit(scaled, y)
    scores = y_pm * (scaled @ model.coef_[0] + model.intercept_[0])
    least = least_hinge_loss(X, y_pm, fit_intercept)
    assert np.maximum(0.0, 1.0 - scores).sum() == pytest.approx(least, rel=1e-9)


def test_hinge_lp_classifier_refuses_subnormal_columns():
    from halfspaces import LinearProgramClassifier

    X, y = noisy_eighths()
    with pytest.raises(SolverError, match="column 0 .* subnormal"):
        LinearProgramClassifier(on_infeasible="hinge").fit(np.ldexp(X, -1070), y)


def test_block_epochs_refuse_underflowing_scores_as_the_serial_run_does():
    # the step of halfspaces.dask's perceptron: at 2^-540 its passes over the whole data
    # made 473 updates before a pass without one, where the serial run (and the exact
    # one) make 7
    from halfspaces._perceptron.run import perceptron_block_epoch

    X, y = eighths()
    base = Perceptron(fit_intercept=False).fit(X, y)
    w, total, scaled = np.zeros(4), 0, np.ldexp(X, -540)
    try:
        for _ in range(1000):
            out = perceptron_block_epoch(scaled, y, w, fit_intercept=False)
            w, total = out.w, total + out.n_updates
            if out.n_updates == 0:
                break
    except ValueError as error:
        assert "underflow" in str(error)
        return
    assert total == base.n_updates_


def test_rbf_distances_that_overflow_are_refused_not_taken_as_zero_kernel_values():
    # x = +-2^511 at gamma 2^-1024 is x = +-1 at gamma 1/4: k(x1, x2) = e^-1 and the
    # decision values +-(1 - e^-1). ||x1 - x2||^2 = 2^1024 overflowed, exp(-inf) = 0 was
    # taken for e^-1, and the decision values came out +-1
    y = np.array([1, -1])
    base = KernelPerceptron(kernel="rbf", gamma=0.25, fit_intercept=False).fit([[1.0], [-1.0]], y)
    np.testing.assert_allclose(base.decision_function([[1.0], [-1.0]]),
                               [1 - math.exp(-1), math.exp(-1) - 1])
    with pytest.raises(ValueError, match="rbf kernel's values .* overflow"):
        KernelPerceptron(kernel="rbf", gamma=2.0**-1024, fit_intercept=False).fit(
            [[2.0**511], [-(2.0**511)]], y)
