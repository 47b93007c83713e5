"""Row and class weights of the kernel perceptrons against the weighted slow twin, the
primal perceptrons and the fit on the rows left after removing those of weight 0."""

from __future__ import annotations

import warnings

import _naive_kernel as naive
import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal

from halfspaces import (
    AveragedPerceptron,
    ConvergenceWarning,
    KernelPerceptron,
    Perceptron,
    VotedKernelPerceptron,
)

KERNELS = {"linear": {}, "rbf": dict(gamma=0.3), "poly": dict(degree=2, gamma=1.0, coef0=1.0)}


def quiet(estimator, X, y, **fit_params):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return estimator.fit(X, y, **fit_params)


def data(n=60, d=3, seed=0, flip=0.15):
    rng = np.random.default_rng(seed)
    X = rng.integers(-3, 4, size=(n, d)).astype(np.float64)
    y = np.where(X @ rng.normal(size=d) + 0.4 > 0, 1.0, -1.0)
    s = rng.uniform(0.2, 3.0, n)
    s[rng.random(n) < 0.2] = 0.0
    return X, np.where(rng.random(n) < flip, -y, y), s


def dense_coef(clf, n):
    coef = np.zeros((clf.dual_coef_.shape[0], n))
    coef[:, clf.support_] = clf.dual_coef_
    return coef


@pytest.mark.parametrize("name", KERNELS)
@pytest.mark.parametrize("average", [False, True])
@pytest.mark.parametrize("selection", ["cyclic", "shuffle"])
def test_weighted_kernel_perceptron_equals_its_slow_twin(name, average, selection):
    X, y, s = data(seed=1)
    clf = quiet(KernelPerceptron(kernel=name, average=average, max_epochs=4,
                                 selection=selection, random_state=3, **KERNELS[name]),
                X, y, sample_weight=s)
    K = naive.kernel(X, X, name, **KERNELS[name])
    visited, _ = naive.kernel_perceptron_history(K, y, True, 4, selection,
                                                 np.random.RandomState(3), weights=s)
    expected = (naive.averaged_coefficients(visited, y * s) if average
                else visited[-1] * y * s)
    assert_allclose(dense_coef(clf, len(y))[0], expected, rtol=1e-12, atol=1e-12)
    assert_allclose(clf.intercept_[0], expected.sum(), rtol=1e-12, atol=1e-12)
    assert_array_equal(clf.alpha_, visited[-1])


@pytest.mark.parametrize("name", KERNELS)
def test_weighted_voted_kernel_perceptron_equals_its_slow_twin(name):
    X, y, s = data(seed=2)
    X_test = np.random.default_rng(9).integers(-3, 4, size=(40, 3)).astype(np.float64)
    clf = quiet(VotedKernelPerceptron(kernel=name, max_epochs=4, **KERNELS[name]), X, y,
                sample_weight=s)
    K = naive.kernel(X, X, name, **KERNELS[name])
    _, hypotheses = naive.kernel_perceptron_history(K, y, True, 4, weights=s)
    expected = naive.vote(hypotheses, y * s, naive.kernel(X_test, X, name, **KERNELS[name]))
    assert_array_equal(clf.decision_function(X_test), expected)


def test_the_linear_kernel_is_the_weighted_primal_perceptron():
    X, y, s = data(seed=4)
    dual = quiet(KernelPerceptron(max_epochs=5, average=True), X, y, sample_weight=s)
    primal = quiet(AveragedPerceptron(max_epochs=5), X, y, sample_weight=s)
    assert_allclose(dual.dual_coef_ @ dual.support_vectors_, primal.coef_, rtol=1e-12,
                    atol=1e-12)
    last = quiet(KernelPerceptron(max_epochs=5), X, y, sample_weight=s)
    plain = quiet(Perceptron(max_epochs=5), X, y, sample_weight=s)
    assert_allclose(last.dual_coef_ @ last.support_vectors_, plain.coef_, rtol=1e-12,
                    atol=1e-12)


@pytest.mark.parametrize("name", ["rbf", "poly"])
def test_a_row_of_weight_zero_is_a_row_removed(name):
    X, y, _ = data(seed=5)
    s = np.ones(len(y))
    s[::3] = 0.0
    X_test = np.random.default_rng(1).normal(size=(30, 3))
    weighted = quiet(KernelPerceptron(kernel=name, max_epochs=6, **KERNELS[name]), X, y,
                     sample_weight=s)
    kept = quiet(KernelPerceptron(kernel=name, max_epochs=6, **KERNELS[name]), X[s > 0],
                 y[s > 0])
    assert_allclose(weighted.decision_function(X_test), kept.decision_function(X_test),
                    rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("cls", [KernelPerceptron, VotedKernelPerceptron])
def test_balanced_partial_fit_and_refusals(cls):
    X, y, s = data(seed=6)
    y[:40] = 1.0  # imbalanced
    counts = {c: np.sum(y == c) for c in np.unique(y)}
    explicit = np.array([len(y) / (2 * counts[c]) for c in y])
    balanced = quiet(cls(kernel="rbf", gamma=0.3, max_epochs=3, class_weight="balanced"),
                     X, y)
    by_rows = quiet(cls(kernel="rbf", gamma=0.3, max_epochs=3), X, y, sample_weight=explicit)
    assert_array_equal(balanced.dual_coef_, by_rows.dual_coef_)
    batch = cls(kernel="rbf", gamma=0.3).partial_fit(X, y, sample_weight=s)
    one_pass = quiet(cls(kernel="rbf", gamma=0.3, max_epochs=1), X, y, sample_weight=s)
    assert_array_equal(batch.dual_coef_, one_pass.dual_coef_)
    with pytest.raises(ValueError, match="class_weight='balanced' is not supported by "
                                         "partial_fit"):
        cls(class_weight="balanced").partial_fit(X, y)
    with pytest.raises(ValueError, match="sample_weight.*negative"):
        cls().fit(X, y, sample_weight=-s)
