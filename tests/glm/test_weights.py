"""Row weights in the convex GLMs: J is the weighted mean loss plus the penalty.

The identities checked: an integer weight k is the row repeated k times and a weight 0 the
row removed (the same J and the same solution, for every full-batch solver);
class_weight is the per-row product with the sample weights; against scikit-learn's
LogisticRegression (C = 1 / (alpha S), S the total weight), Ridge (alpha S) and
LinearRegression with the same ``sample_weight``; the certified gap stays above
J(w) - J* with weights; the stochastic solvers take the steps of scikit-learn's
SGDClassifier and SGDRegressor with the same weights, and the mini-batch epoch those of a
NumPy epoch written from the definition.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import scipy.sparse as sp
from _datasets import FORMATS, in_format, noisy
from _glm_reference import datafit, dense, naive_sgd_epoch, problem, reference_value
from _oracles import sgd_classifier_twin, sgd_regressor_twin
from numpy.testing import assert_allclose
from sklearn.linear_model import LinearRegression as SkLinearRegression
from sklearn.linear_model import LogisticRegression as SkLogisticRegression
from sklearn.linear_model import Ridge
from sklearn.utils.class_weight import compute_class_weight

from halfspaces import LinearRegression, LogisticRegression
from halfspaces._glm.datafits import Block

EPS = np.finfo(np.float64).eps
CLASSIFIER_SOLVERS = ["lbfgs", "newton", "gd"]
REGRESSION_SOLVERS = ["lstsq", "cholesky", "gd"]


def counts(n, seed=0, high=4):
    """Integer weights in 0..high-1, at least one row of each weight."""
    k = np.random.default_rng(seed).integers(0, high, n)
    k[:high] = np.arange(high)
    return k


def classification(n_classes, n=90, d=5, seed=0):
    X, y = noisy(n, d, seed=seed)
    if n_classes > 2:
        y = np.random.default_rng(seed).integers(0, n_classes, n)
    return X, (y > 0).astype(int) if n_classes == 2 else y


def regression(n=90, d=5, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)) * (rng.random((n, d)) >= 0.3)
    return X, X @ rng.normal(size=d) + 1.5 + 0.5 * rng.normal(size=n)


def parameters(est):
    return np.c_[np.atleast_2d(est.coef_), np.atleast_1d(est.intercept_)]


def J(est, X, y, alpha, s=None):
    """The weighted-mean objective of a fitted estimator, from its formula (reference_value)."""
    w = parameters(est).ravel()
    if not hasattr(est, "classes_"):  # ours or scikit-learn's regressors
        return reference_value(X, y, w, alpha, "squared", s=s)
    classes = est.classes_
    if classes.size == 2:
        return reference_value(X, np.where(y == classes[1], 1.0, -1.0), w, alpha, "logistic",
                               s=s)
    return reference_value(X, np.searchsorted(classes, y), w, alpha, "softmax", classes.size,
                           s=s)


def close(a, b, rtol=1e-8):
    """a equals b to rtol relative to the size of the parameters."""
    assert_allclose(a, b, rtol=rtol, atol=rtol * max(1.0, float(np.abs(b).max())))


# -- the datafits: weighted sums are sums over repeated rows --------------------------------
@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("loss", ["logistic", "squared", "softmax"])
def test_weighted_sums_are_the_sums_over_repeated_rows(loss, fmt):
    X, y, w, k = problem(loss, fmt, seed=1)
    s = counts(X.shape[0], seed=1).astype(float)
    repeat = np.repeat(np.arange(X.shape[0]), s.astype(int))
    fit = datafit(loss, k)
    value, grad = fit.value_grad_block(X, y, w, 1.0, s)
    value_r, grad_r = fit.value_grad_block(X[repeat], y[repeat], w, 1.0)
    rtol = 1e-5 if fmt == "dense32" else 1e-12
    assert value == pytest.approx(value_r, rel=rtol)
    close(grad, grad_r, rtol)
    # the value is the textbook weighted mean times S
    assert value / s.sum() == pytest.approx(reference_value(X, y, w, 0.0, loss, k, s=s),
                                            rel=1e-5 if fmt == "dense32" else 1e-12)
    weighted, repeated = Block.of(X, y, 1.0, s), Block.of(X[repeat], y[repeat], 1.0)
    close(fit.hessian(weighted, w), fit.hessian(repeated, w), rtol)
    v = np.random.default_rng(2).normal(size=w.shape[0])
    close(fit.hess_operator(weighted, w)(v), fit.hess_operator(repeated, w)(v), rtol)


@pytest.mark.parametrize("batch", [1, 7])
@pytest.mark.parametrize("loss", ["logistic", "squared", "softmax"])
def test_a_weighted_sgd_epoch_scales_each_rows_gradient(loss, batch):
    X, y, w, k = problem(loss, "dense64", seed=3)
    s = np.random.default_rng(3).uniform(0.0, 3.0, X.shape[0])
    order = np.random.default_rng(4).permutation(X.shape[0]).astype(np.intp)
    expected_w, expected_mean = naive_sgd_epoch(X, y, w.copy(), order, batch, 0.02, 0.1, loss,
                                                k, s=s)
    u = w.copy()
    opts = (0.02, 0.0, 0.1, 0.5)
    datafit(loss, k).sgd_epoch(Block.of(X, y, 1.0, s), w, u, 0, order, batch, opts, 0)
    close(w, expected_w, 1e-12)
    close(u, expected_mean, 1e-12)


# -- the estimators: integer weights, zero weights ------------------------------------------
@pytest.mark.parametrize("fmt", ["dense64", "csr64"])
@pytest.mark.parametrize("n_classes", [2, 3])
@pytest.mark.parametrize("solver", CLASSIFIER_SOLVERS)
def test_integer_weights_are_repeated_rows_for_logistic_regression(solver, n_classes, fmt):
    X, y = classification(n_classes)
    k = counts(len(y))
    repeat = np.repeat(np.arange(len(y)), k)
    params = dict(solver=solver, alpha=0.01, tol=1e-10, max_iter=20000)
    weighted = LogisticRegression(**params).fit(in_format(X, fmt), y, sample_weight=k)
    repeated = LogisticRegression(**params).fit(in_format(X[repeat], fmt), y[repeat])
    assert J(weighted, X, y, 0.01, k) == pytest.approx(J(repeated, X[repeat], y[repeat], 0.01),
                                                       rel=1e-8)
    close(parameters(weighted), parameters(repeated), 1e-6)
    kept = k > 0
    removed = LogisticRegression(**params).fit(in_format(X[kept], fmt), y[kept],
                                               sample_weight=k[kept])
    close(parameters(weighted), parameters(removed), 1e-6)


@pytest.mark.parametrize("fmt", ["dense64", "csr64"])
@pytest.mark.parametrize("alpha", [0.0, 0.05])
@pytest.mark.parametrize("solver", REGRESSION_SOLVERS)
def test_integer_weights_are_repeated_rows_for_linear_regression(solver, alpha, fmt):
    X, y = regression()
    k = counts(len(y), seed=2)
    repeat = np.repeat(np.arange(len(y)), k)
    params = dict(solver=solver, alpha=alpha, tol=1e-10, max_iter=50000)
    weighted = LinearRegression(**params).fit(in_format(X, fmt), y, sample_weight=k)
    repeated = LinearRegression(**params).fit(in_format(X[repeat], fmt), y[repeat])
    assert J(weighted, X, y, alpha, k) == pytest.approx(
        J(repeated, X[repeat], y[repeat], alpha), rel=1e-8)
    close(parameters(weighted), parameters(repeated), 1e-6)
    kept = k > 0
    removed = LinearRegression(**params).fit(in_format(X[kept], fmt), y[kept],
                                             sample_weight=k[kept])
    close(parameters(weighted), parameters(removed), 1e-6)


# -- against scikit-learn, and the certified gap --------------------------------------------
@pytest.mark.parametrize("fit_intercept", [True, False])
@pytest.mark.parametrize("n_classes", [2, 3])
@pytest.mark.parametrize("solver", CLASSIFIER_SOLVERS)
def test_weighted_logistic_regression_is_sklearns_and_its_gap_is_honest(solver, n_classes,
                                                                         fit_intercept):
    X, y = classification(n_classes, seed=5)
    s = np.random.default_rng(5).uniform(0.0, 4.0, len(y))
    alpha = 0.02
    sk = SkLogisticRegression(C=1.0 / (alpha * s.sum()), solver="newton-cholesky", tol=1e-12,
                              max_iter=1000, fit_intercept=fit_intercept)
    sk.fit(X, y, sample_weight=s)
    ours = LogisticRegression(solver=solver, alpha=alpha, tol=1e-10, max_iter=20000,
                              fit_intercept=fit_intercept).fit(X, y, sample_weight=s)
    J_ref = J(sk, X, y, alpha, s)
    assert J(ours, X, y, alpha, s) == pytest.approx(J_ref, rel=1e-8)
    close(parameters(ours), parameters(sk), 1e-5)
    assert J(ours, X, y, alpha, s) - J_ref <= ours.gap_ + 16 * EPS * J_ref
    # stopped early the gap still bounds the suboptimality
    early = LogisticRegression(solver=solver, alpha=alpha, max_iter=2,
                               fit_intercept=fit_intercept)
    with pytest.warns(Warning):
        early.fit(X, y, sample_weight=s)
    assert J(early, X, y, alpha, s) - J_ref <= early.gap_ + 16 * EPS * J_ref


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("solver", REGRESSION_SOLVERS)
def test_weighted_least_squares_are_sklearns_ridge_and_linear_regression(solver, fmt):
    X, y = regression(seed=6)
    s = np.random.default_rng(6).uniform(0.0, 3.0, len(y))
    rtol = 1e-4 if fmt == "dense32" else 1e-7
    for alpha in (0.0, 0.03):
        sk = (SkLinearRegression() if alpha == 0 else Ridge(alpha=alpha * s.sum(), tol=1e-14))
        sk.fit(X, y, sample_weight=s)
        data = in_format(X, fmt)
        ours = LinearRegression(solver=solver, alpha=alpha, tol=1e-12, max_iter=50000).fit(
            data, y, sample_weight=s)
        close(parameters(ours), parameters(sk), rtol)
        X_seen = dense(data)  # float32 X: the problem is the rounded X's
        J_ref = J(sk, X_seen, y, alpha, s)
        if fmt != "dense32":
            assert J(ours, X_seen, y, alpha, s) - J_ref <= ours.gap_ + 16 * EPS * J_ref
        assert math.isfinite(ours.gap_)


def test_float32_is_kept_with_weights():
    X, y = classification(3, seed=7)
    s = np.random.default_rng(7).uniform(0.5, 2.0, len(y))
    a = LogisticRegression(alpha=0.01, tol=1e-10).fit(X.astype(np.float32), y, sample_weight=s)
    b = LogisticRegression(alpha=0.01, tol=1e-10).fit(dense(X.astype(np.float32)), y,
                                                      sample_weight=s)
    close(parameters(a), parameters(b), 1e-6)


# -- class weights --------------------------------------------------------------------------
@pytest.mark.parametrize("n_classes", [2, 3])
def test_class_weights_multiply_the_sample_weights(n_classes):
    X, y = classification(n_classes, seed=8)
    s = np.random.default_rng(8).uniform(0.5, 2.0, len(y))
    classes = np.unique(y)
    balanced = compute_class_weight("balanced", classes=classes, y=y)
    explicit = s * balanced[np.searchsorted(classes, y)]
    params = dict(alpha=0.01, tol=1e-10)
    a = LogisticRegression(class_weight="balanced", **params).fit(X, y, sample_weight=s)
    b = LogisticRegression(**params).fit(X, y, sample_weight=explicit)
    close(parameters(a), parameters(b), 1e-7)
    weights = {classes[0]: 3.0, classes[-1]: 0.5}
    c = LogisticRegression(class_weight=weights, **params).fit(X, y)
    sk = SkLogisticRegression(C=1.0 / (0.01 * sum(weights.get(v, 1.0) for v in y)),
                              class_weight=weights, solver="newton-cholesky", tol=1e-12,
                              max_iter=1000).fit(X, y)
    close(parameters(c), parameters(sk), 1e-5)


def test_string_labels_take_class_weights_by_label():
    X, y = classification(2, seed=9)
    labels = np.array(["no", "yes"])[y]
    a = LogisticRegression(alpha=0.01, class_weight={"yes": 4.0}).fit(X, labels)
    b = LogisticRegression(alpha=0.01).fit(X, labels, sample_weight=np.where(y == 1, 4.0, 1.0))
    close(parameters(a), parameters(b), 1e-7)


# -- the stochastic solvers -----------------------------------------------------------------
@pytest.mark.parametrize("average", [False, True])
def test_weighted_sgd_takes_sgd_regressors_steps(average):
    X, y = regression(200, 4, seed=10)
    s = np.random.default_rng(10).uniform(0.0, 3.0, len(y))
    chunks = np.array_split(np.arange(len(y)), [60, 61, 140])
    params = {"alpha": 1e-3, "learning_rate": "constant", "eta0": 0.01}
    ours = LinearRegression(solver="sgd", average=average, random_state=3, **params)
    for _ in range(2):
        for rows in chunks:
            ours.partial_fit(X[rows], y[rows], sample_weight=s[rows])
    sk = sgd_regressor_twin(X, y, chunks + chunks, 3, sample_weight=s, average=average,
                            **params)
    assert_allclose(ours.coef_, sk.coef_, rtol=1e-9, atol=1e-12)
    assert_allclose(ours.intercept_, sk.intercept_[0], rtol=1e-9, atol=1e-12)


# the last iterate only: SGDClassifier's averaged partial_fit drifts from ours (and from
# SGDRegressor's) from its third call on, with unit weights too
@pytest.mark.parametrize("class_weight", [None, {0: 2.5}])
def test_weighted_sgd_takes_sgd_classifiers_steps(class_weight):
    average = False
    X, y = classification(2, n=200, seed=11)
    s = np.random.default_rng(11).uniform(0.0, 3.0, len(y))
    chunks = np.array_split(np.arange(len(y)), [60, 61, 140])
    params = {"alpha": 1e-3, "learning_rate": "invscaling", "eta0": 0.05, "power_t": 0.3}
    ours = LogisticRegression(solver="sgd", average=average, random_state=4,
                              class_weight=class_weight, **params)
    for _ in range(2):
        for rows in chunks:
            ours.partial_fit(X[rows], y[rows], classes=[0, 1], sample_weight=s[rows])
    sk = sgd_classifier_twin(X, y, chunks + chunks, 4, sample_weight=s, average=average,
                             class_weight=class_weight, **params)
    assert_allclose(ours.coef_, sk.coef_, rtol=1e-9, atol=1e-12)
    assert_allclose(ours.intercept_, sk.intercept_, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("solver", ["sgd", "minibatch"])
def test_stochastic_epochs_record_the_weighted_mean(solver):
    X, y = classification(3, seed=12)
    s = np.random.default_rng(12).uniform(0.0, 3.0, len(y))
    est = LogisticRegression(solver=solver, alpha=0.01, max_iter=3, tol=0.0, batch_size=16,
                             random_state=0)
    with pytest.warns(Warning):
        est.fit(X, y, sample_weight=s)
    assert est.loss_curve_[-1] == pytest.approx(J(est, X, y, 0.01, s), rel=1e-12)


# -- refusals -------------------------------------------------------------------------------
@pytest.mark.parametrize("est", [LogisticRegression(), LinearRegression(),
                                 LogisticRegression(solver="sgd"),
                                 LinearRegression(solver="sgd")])
@pytest.mark.parametrize(("weights", "message"), [
    (-1.0, r"sample_weight holds a negative weight \(-1.0 at row 3\)"),
    (np.nan, r"sample_weight holds NaN or infinity \(first at row 3\)"),
    (np.inf, r"sample_weight holds NaN or infinity \(first at row 3\)"),
])
def test_bad_weights_are_refused_by_name(est, weights, message):
    X, y = classification(2)
    s = np.ones(len(y))
    s[3] = weights
    for method in ("fit", "partial_fit"):
        if hasattr(est, method):
            with pytest.raises(ValueError, match=message):
                getattr(est, method)(X, y, sample_weight=s)
    with pytest.raises(ValueError, match=r"sample_weight has shape \(89,\)"):
        est.fit(X, y, sample_weight=np.ones(len(y) - 1))
    with pytest.raises(ValueError, match="sample_weight is zero for every row"):
        est.fit(X, y, sample_weight=np.zeros(len(y)))


def test_class_weights_are_checked_by_name():
    X, y = classification(2)
    with pytest.raises(ValueError, match=r"class_weight names \[7\]"):
        LogisticRegression(class_weight={7: 1.0}).fit(X, y)
    with pytest.raises(ValueError, match=r"class_weight\[1\] is -2.0"):
        LogisticRegression(class_weight={1: -2.0}).fit(X, y)
    with pytest.raises(ValueError, match="class_weight"):
        LogisticRegression(class_weight="even").fit(X, y)
    with pytest.raises(ValueError, match="zero for every row"):
        LogisticRegression(class_weight={0: 0.0, 1: 0.0}).fit(X, y)
    with pytest.raises(ValueError, match="partial_fit cannot use class_weight='balanced'"):
        LogisticRegression(solver="sgd", class_weight="balanced").partial_fit(X, y)
    # a dict is fine for partial_fit
    LogisticRegression(solver="sgd", class_weight={1: 2.0}).partial_fit(X, y)


def test_unweighted_fits_are_unchanged_by_unit_weights():
    X, y = classification(3, seed=13)
    for data in (X, sp.csr_matrix(X)):
        a = LogisticRegression(alpha=0.01).fit(data, y)
        b = LogisticRegression(alpha=0.01).fit(data, y, sample_weight=np.ones(len(y)))
        close(parameters(a), parameters(b), 1e-9)


def test_rows_of_weight_zero_do_not_hide_separable_data():
    # the last row alone makes the data inseparable; without it, no maximiser exists
    X = np.array([[0.0], [1.0], [2.0], [3.0], [2.5]])
    y = np.array([0, 0, 1, 1, 0])
    LogisticRegression().fit(X, y)  # no warning: a finite maximiser exists
    with pytest.warns(Warning, match="linearly separable"):
        LogisticRegression().fit(X, y, sample_weight=[1, 1, 1, 1, 0])


@pytest.mark.parametrize("fmt", ["dense64", "csr64"])
@pytest.mark.parametrize("alpha", [0.0, 0.03])
@pytest.mark.parametrize("max_iter", [1, 3, 10])
def test_the_weighted_least_squares_gap_bounds_an_unfinished_fit(max_iter, alpha, fmt):
    X, y = regression(seed=14)
    s = np.random.default_rng(14).uniform(0.0, 3.0, len(y))
    s[:5] = 0.0
    sk = SkLinearRegression() if alpha == 0 else Ridge(alpha=alpha * s.sum(), tol=1e-14)
    J_ref = J(sk.fit(X, y, sample_weight=s), X, y, alpha, s)
    ours = LinearRegression(solver="gd", alpha=alpha, max_iter=max_iter)
    with pytest.warns(Warning):
        ours.fit(in_format(X, fmt), y, sample_weight=s)
    suboptimality = J(ours, X, y, alpha, s) - J_ref
    assert suboptimality > 0
    assert suboptimality <= ours.gap_ + 16 * EPS * J_ref
    assert ours.gap_ < np.inf
