"""Weights on the exact ERM estimators, against independent oracles: scipy.optimize.linprog
and milp (HiGHS through SciPy, the programs written out in tests/_oracles.py), brute force
over subsets for the weighted 0-1 error, scikit-learn's SVC and compute_class_weight, and
the identities that define a weight (an integer weight k is the row repeated k times, a
weight of 0 removes the row)."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from _oracles import (
    brute_force_weighted_errors,
    milp_weighted_errors,
    noisy_sample,
    separable_sample,
    weighted_hinge_linprog,
)
from sklearn.svm import SVC
from sklearn.utils.class_weight import compute_class_weight

from halfspaces.erm import LinearProgramClassifier, MaxMarginClassifier, ZeroOneERMClassifier
from halfspaces.theory import geometric_margins


def weighted_mean_hinge(clf, X, y, weights):
    """The weighted mean hinge loss of a fitted binary model, from its decision function."""
    y_pm = np.where(y == clf.classes_[1], 1.0, -1.0)
    loss = np.maximum(0.0, 1.0 - y_pm * clf.decision_function(X))
    return float(weights @ loss / weights.sum())


def error_weight(clf, X, y, weights):
    return float(np.asarray(weights)[clf.predict(X) != y].sum())


def both_classes(y):
    if np.unique(y).size < 2:
        y[0] = -y[0]
    return y


# the hinge LP -------------------------------------------------------------------------------

@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("fit_intercept", [True, False])
def test_weighted_hinge_lp_reaches_linprogs_optimum(seed, sparse, fit_intercept):
    rng = np.random.default_rng(seed)
    X, y = noisy_sample(rng, 60, 3, flip=0.2)
    weights = rng.uniform(0.0, 5.0, size=60) ** 2  # a wide spread of weights
    weights[:5] = 0.0
    clf = LinearProgramClassifier(fit_intercept=fit_intercept, on_infeasible="hinge")
    clf.fit(sp.csr_matrix(X) if sparse else X, y, sample_weight=weights)
    assert not clf.separable_
    ours = weighted_mean_hinge(clf, X, y, weights)
    assert ours == pytest.approx(weighted_hinge_linprog(X, y, weights, fit_intercept),
                                 rel=1e-7, abs=1e-9)


@pytest.mark.parametrize("seed", range(3))
def test_integer_weights_are_repeated_rows_for_the_hinge_lp(seed):
    rng = np.random.default_rng(seed)
    X, y = noisy_sample(rng, 40, 2, flip=0.25)
    counts = rng.integers(0, 4, size=40)
    repeated = np.repeat(np.arange(40), counts)
    weighted = LinearProgramClassifier(on_infeasible="hinge").fit(X, y, sample_weight=counts)
    copies = LinearProgramClassifier(on_infeasible="hinge").fit(X[repeated], y[repeated])
    # the LP's minimiser need not be unique: its optimum is, on the same rows either way
    ones = np.ones(repeated.size)
    assert weighted_mean_hinge(weighted, X[repeated], y[repeated], ones) == pytest.approx(
        weighted_mean_hinge(copies, X[repeated], y[repeated], ones), rel=1e-8, abs=1e-10)
    assert weighted_mean_hinge(copies, X, y, counts.astype(float)) == pytest.approx(
        weighted_hinge_linprog(X, y, counts), rel=1e-7)


def test_a_zero_weight_removes_the_row_before_separability_is_decided():
    rng = np.random.default_rng(5)
    X, y = separable_sample(rng, 50, 3, gap=0.2)
    y = y.copy()
    y[:3] = -y[:3]  # three wrong labels make the set inseparable...
    weights = np.r_[np.zeros(3), rng.uniform(0.5, 2.0, size=47)]
    clf = LinearProgramClassifier().fit(X, y, sample_weight=weights)  # ...unless removed
    assert clf.separable_
    kept = LinearProgramClassifier().fit(X[3:], y[3:])
    np.testing.assert_array_equal(clf.coef_, kept.coef_)
    np.testing.assert_array_equal(clf.intercept_, kept.intercept_)
    assert np.all(clf.predict(X[3:]) == y[3:])


def test_weights_change_no_separable_lp():
    X, y = separable_sample(np.random.default_rng(6), 40, 2, gap=0.2)
    weights = np.random.default_rng(7).uniform(0.1, 9.0, size=40)
    plain = LinearProgramClassifier().fit(X, y)
    weighted = LinearProgramClassifier().fit(X, y, sample_weight=weights)
    np.testing.assert_array_equal(plain.coef_, weighted.coef_)


def test_unit_weights_are_no_weights():
    X, y = noisy_sample(np.random.default_rng(8), 50, 3, flip=0.2)
    for make in (lambda: LinearProgramClassifier(on_infeasible="hinge"),
                 lambda: ZeroOneERMClassifier()):
        plain, ones = make().fit(X, y), make().fit(X, y, sample_weight=np.full(50, 3.0))
        np.testing.assert_array_equal(plain.coef_, ones.coef_)


# the 0-1 MILP -------------------------------------------------------------------------------

@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("fit_intercept", [True, False])
def test_weighted_zero_one_erm_equals_brute_force(seed, fit_intercept):
    rng = np.random.default_rng(100 + seed)
    n = 8 + seed % 3
    X, y = noisy_sample(rng, n, 2, flip=0.35)
    y = both_classes(y)
    weights = rng.choice([0.0, 0.3, 1.0, 2.5, 7.0], size=n)
    if not weights.any():
        weights[0] = 1.0
    clf = ZeroOneERMClassifier(fit_intercept=fit_intercept).fit(X, y, sample_weight=weights)
    assert clf.optimal_ and clf.gap_ == 0.0
    best = brute_force_weighted_errors(X, y, weights, fit_intercept)
    assert clf.weighted_errors_ == pytest.approx(best, rel=1e-12, abs=1e-12)
    kept = weights > 0
    assert clf.weighted_errors_ == pytest.approx(error_weight(clf, X, y, weights), rel=1e-12)
    assert clf.n_errors_ == np.sum(clf.predict(X[kept]) != y[kept])


@pytest.mark.parametrize("seed", range(3))
def test_weighted_zero_one_erm_matches_scipys_milp(seed):
    rng = np.random.default_rng(200 + seed)
    X, y = noisy_sample(rng, 40, 3, flip=0.3)
    weights = rng.uniform(0.0, 3.0, size=40)
    clf = ZeroOneERMClassifier().fit(X, y, sample_weight=weights)
    assert clf.optimal_
    assert clf.weighted_errors_ == pytest.approx(milp_weighted_errors(X, y, weights, True),
                                                 rel=1e-6)


@pytest.mark.parametrize("seed", range(3))
def test_integer_weights_are_repeated_rows_for_the_zero_one_erm(seed):
    rng = np.random.default_rng(300 + seed)
    X, y = noisy_sample(rng, 12, 2, flip=0.3)
    y = both_classes(y)
    counts = rng.integers(0, 4, size=12)
    counts[0] = max(counts[0], 1)
    repeated = np.repeat(np.arange(12), counts)
    weighted = ZeroOneERMClassifier().fit(X, y, sample_weight=counts)
    copies = ZeroOneERMClassifier().fit(X[repeated], y[repeated])
    assert weighted.weighted_errors_ == copies.n_errors_ == copies.weighted_errors_
    assert np.sum(weighted.predict(X[repeated]) != y[repeated]) == copies.n_errors_


def test_balanced_class_weight_is_scikit_learns_weights_per_row():
    rng = np.random.default_rng(9)
    X, y = noisy_sample(rng, 30, 2, flip=0.2)
    y[:18] = 1  # imbalanced
    per_class = compute_class_weight("balanced", classes=np.unique(y), y=y)
    explicit = per_class[np.searchsorted(np.unique(y), y)]
    for make in (lambda **k: ZeroOneERMClassifier(**k),
                 lambda **k: LinearProgramClassifier(on_infeasible="hinge", **k)):
        balanced = make(class_weight="balanced").fit(X, y)
        weighted = make().fit(X, y, sample_weight=explicit)
        np.testing.assert_array_equal(balanced.coef_, weighted.coef_)
    zero_one = ZeroOneERMClassifier(class_weight={1: 2.0}).fit(X, y, sample_weight=explicit)
    twice = np.where(y == 1, 2.0, 1.0) * explicit
    assert zero_one.weighted_errors_ == pytest.approx(
        milp_weighted_errors(X, y, twice, True), rel=1e-6)


def test_one_vs_rest_weighs_each_row_by_its_own_class():
    rng = np.random.default_rng(10)
    X = rng.normal(size=(24, 2))
    y = np.repeat(["a", "b", "c"], 8)
    weights = rng.uniform(0.5, 2.0, size=24)
    clf = ZeroOneERMClassifier(class_weight={"b": 3.0}).fit(X, y, sample_weight=weights)
    rows = weights * np.where(y == "b", 3.0, 1.0)
    for k, label in enumerate(clf.classes_):
        y_pm = np.where(y == label, 1, -1)
        assert clf.weighted_errors_[k] == pytest.approx(
            milp_weighted_errors(X, y_pm, rows, True), rel=1e-6)


# the hard margin ----------------------------------------------------------------------------

def test_hard_margin_ignores_positive_weights_and_drops_zero_ones():
    rng = np.random.default_rng(11)
    X, y = separable_sample(rng, 60, 3, gap=0.2)
    weights = rng.uniform(0.1, 10.0, size=60)
    plain = MaxMarginClassifier().fit(X, y)
    weighted = MaxMarginClassifier().fit(X, y, sample_weight=weights)
    np.testing.assert_array_equal(plain.coef_, weighted.coef_)
    weights[plain.support_] = 0.0  # remove the support: the margin grows
    dropped = MaxMarginClassifier().fit(X, y, sample_weight=weights)
    kept = np.flatnonzero(weights > 0)
    svc = SVC(kernel="linear", C=1e10, tol=1e-10).fit(X[kept], y[kept])
    ref = geometric_margins(X[kept], y[kept], svc.coef_, svc.intercept_[0]).min()
    assert dropped.margin_ == pytest.approx(ref, rel=1e-5)
    assert dropped.margin_ > plain.margin_
    assert set(dropped.support_) <= set(kept)  # indices of the rows given to fit
    np.testing.assert_allclose(
        geometric_margins(X[dropped.support_], y[dropped.support_], dropped.coef_,
                          dropped.intercept_[0]), dropped.margin_, rtol=1e-6)


# refusals -----------------------------------------------------------------------------------

@pytest.mark.parametrize("weights, match", [
    (np.r_[-1.0, np.ones(9)], "sample_weight holds a negative weight"),
    (np.r_[np.nan, np.ones(9)], "sample_weight holds NaN"),
    (np.zeros(10), "sample_weight is zero for every row"),
    (np.ones(9), r"sample_weight has shape \(9,\)"),
])
@pytest.mark.parametrize("cls", [LinearProgramClassifier, MaxMarginClassifier,
                                 ZeroOneERMClassifier])
def test_bad_weights_are_refused_by_name(cls, weights, match):
    X, y = separable_sample(np.random.default_rng(12), 10, 2)
    with pytest.raises(ValueError, match=match):
        cls().fit(X, y, sample_weight=weights)


@pytest.mark.parametrize("class_weight, match", [
    ({7: 1.0}, "class_weight names"),
    ({1: -2.0}, r"class_weight\[1\] is -2.0"),
    ("heavy", "class_weight"),
])
def test_bad_class_weights_are_refused_by_name(class_weight, match):
    X, y = separable_sample(np.random.default_rng(13), 10, 2)
    with pytest.raises(ValueError, match=match):
        ZeroOneERMClassifier(class_weight=class_weight).fit(X, y)
