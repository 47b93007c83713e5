"""LinearSVM(class_weight=...): row i weighs its sample weight times its own label's weight,
in every one-vs-rest problem and in Crammer and Singer's.

Oracles: HiGHS's convex QP of the primal with the explicit per-row weights, scikit-learn's
LinearSVC with the same class_weight (LIBLINEAR multiplies C_i by it; without an
intercept the problems are the same), and scikit-learn's "balanced" rule.
"""

from __future__ import annotations

import numpy as np
import pytest
from _oracles import qp_svm, svm_objective
from numpy.testing import assert_allclose
from sklearn.svm import LinearSVC
from sklearn.utils.class_weight import compute_class_weight

from halfspaces import LinearSVM

TIGHT = dict(tol=1e-12, max_iter=100_000, random_state=0)


def problem(n_classes, seed=0, n=60, d=4):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    if n_classes == 2:
        y = (X @ rng.normal(size=d) + 0.3 * rng.normal(size=n) > 0.4).astype(int)
    else:
        y = np.argmax(X[:, :n_classes] + 0.5 * rng.normal(size=(n, n_classes)), axis=1)
    return X, y


def explicit(y, class_weight, sample_weight=None):
    classes = np.unique(y)
    per_class = compute_class_weight(class_weight, classes=classes, y=y)
    rows = per_class[np.searchsorted(classes, y)]
    return rows if sample_weight is None else rows * sample_weight


@pytest.mark.parametrize("multi_class", ["ovr", "crammer_singer"])
@pytest.mark.parametrize("n_classes", [2, 3])
@pytest.mark.parametrize("class_weight", ["balanced", {0: 3.0, 1: 0.5}])
def test_class_weights_are_the_explicit_row_weights(class_weight, n_classes, multi_class):
    X, y = problem(n_classes, seed=1)
    s = np.random.default_rng(1).uniform(0.0, 2.0, len(y))
    ours = LinearSVM(alpha=0.01, class_weight=class_weight, multi_class=multi_class,
                     **TIGHT).fit(X, y, sample_weight=s)
    rows = LinearSVM(alpha=0.01, multi_class=multi_class, **TIGHT).fit(
        X, y, sample_weight=explicit(y, class_weight, s))
    assert_allclose(ours.coef_, rows.coef_, rtol=1e-7, atol=1e-9)
    assert_allclose(ours.intercept_, rows.intercept_, rtol=1e-7, atol=1e-9)


@pytest.mark.parametrize("loss", ["hinge", "squared_hinge"])
@pytest.mark.parametrize("fit_intercept", [True, False])
def test_each_one_vs_rest_problem_is_the_weighted_qp(loss, fit_intercept):
    X, y = problem(3, seed=2)
    class_weight = {0: 2.0, 2: 0.25}
    weights = explicit(y, class_weight)
    alpha = 0.02
    est = LinearSVM(alpha=alpha, loss=loss, fit_intercept=fit_intercept,
                    class_weight=class_weight, **TIGHT).fit(X, y)
    for k in range(3):
        t = np.where(y == k, 1.0, -1.0)
        _, _, J_qp = qp_svm(X, t, alpha, loss, fit_intercept, weights)
        J = svm_objective(X, t, est.coef_[k], float(est.intercept_[k]), alpha, loss, weights)
        assert abs(J - J_qp) <= 1e-8 * J_qp
        assert J - J_qp <= est.gap_[k] + 1e-12 * J_qp


def test_class_weights_are_liblinears_without_an_intercept():
    X, y = problem(2, seed=3)
    class_weight = {0: 4.0}
    weights = explicit(y, class_weight)
    alpha = 0.05
    ours = LinearSVM(alpha=alpha, loss="squared_hinge", fit_intercept=False,
                     class_weight=class_weight, **TIGHT).fit(X, y)
    sk = LinearSVC(C=1.0 / (alpha * weights.sum()), class_weight=class_weight,
                   fit_intercept=False, tol=1e-12, max_iter=1_000_000).fit(X, y)
    t = np.where(y == 1, 1.0, -1.0)
    J = svm_objective(X, t, ours.coef_[0], 0.0, alpha, "squared_hinge", weights)
    J_sk = svm_objective(X, t, sk.coef_[0], 0.0, alpha, "squared_hinge", weights)
    assert J <= J_sk * (1 + 1e-8)
    assert_allclose(ours.coef_, sk.coef_, rtol=1e-4, atol=1e-6)


def test_class_weights_are_refused_by_name():
    X, y = problem(2)
    with pytest.raises(ValueError, match=r"class_weight names \[5\]"):
        LinearSVM(class_weight={5: 1.0}).fit(X, y)
    with pytest.raises(ValueError, match=r"class_weight\[0\] is nan"):
        LinearSVM(class_weight={0: float("nan")}).fit(X, y)
    with pytest.raises(ValueError, match="zero for every row"):
        LinearSVM(class_weight={0: 0.0}).fit(X, y, sample_weight=np.where(y == 0, 1.0, 0.0))
