"""LinearSVM(multi_class="crammer_singer") against scikit-learn's LinearSVC under the same
objective, its two-class reduction, predictions, model files and warm starts."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.svm import LinearSVC

import halfspaces
from halfspaces import LinearSVM


def blobs(seed, n=150, d=4, k=4):
    rng = np.random.default_rng(seed)
    centres = rng.normal(scale=2.0, size=(k, d))
    y = rng.integers(0, k, size=n)
    return centres[y] + rng.normal(size=(n, d)), y


def crammer_singer_objective(X, y, W, b, alpha):
    """J(W, b) = mean of max(0, 1 + max_{m != y_i} z_im - z_iy_i) + alpha/2 ||W||_F^2."""
    Z = X @ W.T + b
    rows = np.arange(len(y))
    label = Z[rows, y]
    Z[rows, y] = -np.inf
    return np.maximum(0.0, 1.0 + Z.max(axis=1) - label).mean() + alpha / 2 * np.sum(W * W)


@pytest.mark.parametrize("seed", [0, 1])
def test_the_joint_problem_is_linearsvcs_without_intercepts(seed):
    X, y = blobs(seed)
    alpha = 0.05
    ours = LinearSVM(multi_class="crammer_singer", alpha=alpha, fit_intercept=False,
                     tol=1e-9, max_iter=100_000, random_state=0).fit(X, y)
    theirs = LinearSVC(multi_class="crammer_singer", C=1 / (alpha * len(y)),
                       fit_intercept=False, tol=1e-10, max_iter=1_000_000).fit(X, y)
    J = crammer_singer_objective(X, y, ours.coef_, ours.intercept_, alpha)
    J_ref = crammer_singer_objective(X, y, theirs.coef_, 0.0, alpha)
    assert ours.coef_.shape == (4, X.shape[1]) and ours.converged_
    assert J == pytest.approx(J_ref, rel=1e-6)
    assert J - J_ref <= ours.gap_[0] + 1e-12 * J_ref  # the certified gap bounds the difference
    assert np.array_equal(ours.predict(X), ours.classes_[np.argmax(ours.decision_function(X),
                                                                     axis=1)])


def test_free_intercepts_do_no_worse_than_none_and_the_duals_balance():
    X, y = blobs(2)
    X = X + 5.0  # off-centre: the intercepts matter
    alpha = 0.05
    free = LinearSVM(multi_class="crammer_singer", alpha=alpha, tol=1e-9, max_iter=100_000,
                     random_state=0).fit(X, y)
    none = LinearSVM(multi_class="crammer_singer", alpha=alpha, fit_intercept=False,
                     tol=1e-9, max_iter=100_000, random_state=0).fit(X, y)
    J_free = crammer_singer_objective(X, y, free.coef_, free.intercept_, alpha)
    J_none = crammer_singer_objective(X, y, none.coef_, 0.0, alpha)
    assert J_free <= J_none + free.gap_[0]
    dual = free.dual_coef_
    assert np.allclose(dual.sum(axis=0), 0.0, atol=1e-9)  # each example's k duals sum to 0
    assert np.allclose(dual.sum(axis=1), 0.0, atol=1e-6)  # each class's, with an intercept
    assert np.all(dual >= -1.0) and np.all(dual <= 1.0)


def test_two_classes_are_the_hinge_at_half_alpha_as_linearsvc_reports_them():
    X, y = blobs(3, k=2)
    alpha = 0.02
    ours = LinearSVM(multi_class="crammer_singer", alpha=alpha, fit_intercept=False,
                     tol=1e-10, max_iter=100_000, random_state=0).fit(X, y)
    theirs = LinearSVC(multi_class="crammer_singer", C=1 / (alpha * len(y)),
                       fit_intercept=False, tol=1e-12, max_iter=1_000_000).fit(X, y)
    assert ours.coef_.shape == theirs.coef_.shape == (1, X.shape[1])
    np.testing.assert_allclose(ours.coef_, theirs.coef_, rtol=1e-6, atol=1e-8)


def test_a_saved_joint_model_predicts_bit_for_bit(tmp_path):
    X, y = blobs(4)
    est = LinearSVM(multi_class="crammer_singer", alpha=0.05, random_state=0).fit(X, y)
    loaded = halfspaces.load(halfspaces.save(est, tmp_path / "cs.hs"))
    assert loaded.get_params() == est.get_params()
    assert loaded.decision_function(X).tobytes() == est.decision_function(X).tobytes()
    assert np.array_equal(loaded.dual_coef_, est.dual_coef_)
