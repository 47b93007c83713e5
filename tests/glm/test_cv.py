"""LogisticRegressionCV, LinearRegressionCV and LinearSVMCV: the alpha they choose against
hand-written scikit-learn loops over the same folds (cold fits of our estimator per alpha,
scored by scikit-learn) and against scikit-learn's own LogisticRegressionCV and RidgeCV where
the objectives match; their attributes' shapes, refit=False, threads and weights."""

from __future__ import annotations

import importlib
import inspect

import numpy as np
import pytest
from _glm_reference import sklearn_optimum
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.linear_model import LogisticRegressionCV as SkLogisticRegressionCV
from sklearn.linear_model import Ridge, RidgeCV
from sklearn.model_selection import KFold, StratifiedKFold, cross_val_score

from halfspaces import (
    LinearRegression,
    LinearRegressionCV,
    LinearSVM,
    LinearSVMCV,
    LogisticRegression,
    LogisticRegressionCV,
)

ALPHAS = np.geomspace(1.0, 1e-4, 7)


def balanced(n=200, d=5, seed=0, flip=0.25):
    """Labels 0/1, n/2 each, so that every stratified training fold has the same size."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    order = np.argsort(X[:, 0] + X[:, 1] * 0.5 + flip * 4 * rng.normal(size=n))
    y = np.empty(n, dtype=int)
    y[order[: n // 2]], y[order[n // 2:]] = 0, 1
    return X, y


def three_classes(n=150, d=4, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    return X, np.argmax(X[:, :3] + rng.normal(size=(n, 3)), axis=1)


def hand_loop(make, X, y, alphas, cv, scoring=None):
    """Mean held-out score per alpha: cold fits of our estimator, scikit-learn's loop."""
    return np.array([cross_val_score(make(alpha), X, y, cv=cv, scoring=scoring)
                     for alpha in alphas])  # (n_alphas, n_folds)


CLASSIFIERS = {
    "logistic": (LogisticRegressionCV, lambda a: LogisticRegression(alpha=a, tol=1e-9),
                 {"tol": 1e-9}, balanced),
    "softmax": (LogisticRegressionCV, lambda a: LogisticRegression(alpha=a, tol=1e-9),
                {"tol": 1e-9}, three_classes),
    "squared hinge": (LinearSVMCV, lambda a: LinearSVM(alpha=a, tol=1e-9, random_state=0),
                      {"tol": 1e-9, "random_state": 0}, balanced),
}


@pytest.mark.parametrize("case", sorted(CLASSIFIERS))
@pytest.mark.parametrize("scoring", [None, "neg_log_loss", "balanced_accuracy"])
def test_the_classifiers_choose_the_alpha_of_a_hand_written_loop(case, scoring):
    cls, make, params, data = CLASSIFIERS[case]
    if scoring == "neg_log_loss" and cls is LinearSVMCV:
        pytest.skip("the SVM has no probabilities")
    X, y = data()
    folds = StratifiedKFold(5)
    cv = cls(alphas=ALPHAS, cv=folds, scoring=scoring, **params).fit(X, y)
    expected = hand_loop(make, X, y, ALPHAS, folds, scoring)
    assert cv.scores_.shape == (5, 1, 7)
    assert_allclose(cv.scores_[:, 0, :], expected.T, rtol=1e-6, atol=1e-9)
    assert cv.alpha_ == ALPHAS[int(np.argmax(expected.mean(axis=1)))]
    assert cv.l1_ratio_ == 0.0
    refit = make(cv.alpha_).fit(X, y)
    assert_allclose(cv.coef_, refit.coef_, rtol=1e-6, atol=1e-8)
    assert_allclose(cv.intercept_, refit.intercept_, rtol=1e-6, atol=1e-8)
    assert_array_equal(cv.classes_, np.unique(y))
    assert_array_equal(cv.predict(X), refit.predict(X))


def test_logistic_cv_chooses_scikit_learns_c():
    # equal training folds (100 + 100 rows, five stratified folds): C = 1 / (alpha * 160)
    # is the same objective in every fold; scikit-learn's lbfgs to a tight tolerance
    X, y = balanced(seed=1)
    folds = StratifiedKFold(5)
    ours = LogisticRegressionCV(alphas=ALPHAS, cv=folds, tol=1e-9).fit(X, y)
    theirs = SkLogisticRegressionCV(Cs=1.0 / (ALPHAS * 160), cv=folds, l1_ratios=(0.0,),
                                    scoring="accuracy", tol=1e-10, max_iter=10_000,
                                    use_legacy_attributes=False).fit(X, y)
    assert_allclose(ours.scores_, theirs.scores_, atol=1e-12)
    assert np.isclose(1.0 / (ours.alpha_ * 160), theirs.C_)
    # the refit keeps alpha (the mean loss's penalty), where scikit-learn keeps C: on all
    # 200 rows ours is scikit-learn's C = 1 / (alpha_ * 200)
    sk = sklearn_optimum(X, y, 1.0 / (ours.alpha_ * 200))
    assert_allclose(ours.coef_, sk.coef_, rtol=1e-5, atol=1e-7)


def test_linear_regression_cv_chooses_ridge_cvs_alpha():
    # scikit-learn's Ridge objective is 2 n_train times ours at alpha_sk = n_train alpha
    rng = np.random.default_rng(0)
    X = rng.normal(size=(100, 8))
    y = X @ rng.normal(size=8) + 2.0 * rng.normal(size=100)
    alphas = np.geomspace(10.0, 1e-4, 9)
    folds = KFold(5)
    ours = LinearRegressionCV(alphas=alphas, cv=folds).fit(X, y)
    theirs = RidgeCV(alphas=alphas * 80, cv=folds).fit(X, y)
    assert np.isclose(ours.alpha_ * 80, theirs.alpha_)
    expected = hand_loop(lambda a: LinearRegression(alpha=a), X, y, alphas, folds)
    assert_allclose(ours.scores_[:, 0, :], expected.T, rtol=1e-10)
    # the refit keeps alpha, where scikit-learn keeps its alpha_sk: Ridge on all 100 rows
    assert_allclose(ours.coef_, Ridge(alpha=ours.alpha_ * 100).fit(X, y).coef_, rtol=1e-8)


def test_an_int_cv_is_stratified_for_classifiers_and_plain_for_regressors():
    X, y = balanced(seed=2)
    cv = LogisticRegressionCV(alphas=ALPHAS[:3], cv=4, tol=1e-9).fit(X, y)
    expected = hand_loop(lambda a: LogisticRegression(alpha=a, tol=1e-9), X, y, ALPHAS[:3],
                         StratifiedKFold(4))
    assert_allclose(cv.scores_[:, 0, :], expected.T, atol=1e-9)
    t = X @ np.ones(5)
    reg = LinearRegressionCV(alphas=ALPHAS[:3], cv=4).fit(X, t)
    plain = hand_loop(lambda a: LinearRegression(alpha=a), X, t, ALPHAS[:3], KFold(4))
    assert_allclose(reg.scores_[:, 0, :], plain.T, rtol=1e-10)


@pytest.mark.parametrize("cls, data", [(LogisticRegressionCV, balanced),
                                       (LogisticRegressionCV, three_classes),
                                       (LinearSVMCV, three_classes)])
def test_the_paths_attributes_have_scikit_learns_shapes(cls, data):
    X, y = data()
    cv = cls(alphas=4, cv=3).fit(X, y)
    p = 1 if np.unique(y).size == 2 else 3
    assert cv.alphas_.shape == (1, 4) and np.all(np.diff(cv.alphas_[0]) < 0)
    assert cv.scores_.shape == (3, 1, 4)
    assert cv.coefs_paths_.shape == (3, 1, 4, p, X.shape[1] + 1)
    assert cv.coef_.shape == (p, X.shape[1]) and cv.intercept_.shape == (p,)
    assert cv.alpha_ in cv.alphas_[0]


def test_a_generated_grid_is_the_paths_grid_on_all_the_rows():
    from halfspaces import regularization_path

    X, y = balanced(seed=3)
    cv = LogisticRegressionCV(alphas=5, eps=1e-3, cv=3).fit(X, y)
    assert_allclose(cv.alphas_[0], regularization_path(LogisticRegression(), X, y, 5,
                                                       eps=1e-3).alphas, rtol=1e-15)


@pytest.mark.parametrize("cls, data", [(LogisticRegressionCV, balanced),
                                       (LinearSVMCV, three_classes)])
def test_refit_false_averages_the_folds_fits_at_the_chosen_alpha(cls, data):
    X, y = data()
    cv = cls(alphas=ALPHAS, cv=4, refit=False).fit(X, y)
    j = list(ALPHAS).index(cv.alpha_)
    at_best = cv.coefs_paths_[:, 0, j]
    assert_allclose(cv.coef_, at_best[..., :-1].mean(axis=0), rtol=1e-15)
    assert_allclose(cv.intercept_, at_best[..., -1].mean(axis=0), rtol=1e-15)
    assert not hasattr(cv, "n_iter_")
    refit = cls(alphas=ALPHAS, cv=4).fit(X, y)
    assert refit.alpha_ == cv.alpha_ and hasattr(refit, "n_iter_")
    assert_array_equal(refit.scores_, cv.scores_)


def test_refit_false_for_a_regressor_keeps_a_float_intercept():
    X, y = balanced(seed=4)
    t = X @ np.arange(5.0)
    cv = LinearRegressionCV(alphas=ALPHAS, cv=3, refit=False).fit(X, t)
    assert isinstance(cv.intercept_, float) and cv.coef_.shape == (5,)
    assert_allclose(cv.predict(X), X @ cv.coef_ + cv.intercept_)


@pytest.mark.parametrize("cls", [LogisticRegressionCV, LinearSVMCV])
def test_threads_give_the_same_fits_as_one_thread(cls):
    X, y = three_classes(seed=5)
    one = cls(alphas=5, cv=4, n_jobs=1, random_state=0).fit(X, y)
    many = cls(alphas=5, cv=4, n_jobs=3, random_state=0).fit(X, y)
    assert_array_equal(one.scores_, many.scores_)
    assert_array_equal(one.coefs_paths_, many.coefs_paths_)
    assert_array_equal(one.coef_, many.coef_)


def test_the_folds_blas_limit_is_given_back():
    # the solvers enter and leave threadpoolctl's process-wide limits: threads interleaving
    # those must not leave BLAS on one thread after the fit
    from threadpoolctl import threadpool_info

    before = [lib["num_threads"] for lib in threadpool_info() if lib["user_api"] == "blas"]
    X, y = three_classes(seed=6)
    LogisticRegressionCV(alphas=5, cv=4, n_jobs=4).fit(X, y)
    after = [lib["num_threads"] for lib in threadpool_info() if lib["user_api"] == "blas"]
    assert after == before


@pytest.mark.parametrize("module", ["logistic", "svm", "svm_multiclass", "columns", "csr"])
def test_the_glm_loops_release_the_gil(module):
    # the folds run in threads: every compiled loop the GLM solvers call is declared nogil
    # (Numba then releases the GIL for the whole call), so the threads overlap in them
    import numba

    loops = importlib.import_module(f"halfspaces._fast.{module}")
    dispatchers = [f for _, f in inspect.getmembers(loops)
                   if isinstance(f, numba.core.registry.CPUDispatcher)
                   and f.__module__ == loops.__name__]
    assert dispatchers
    assert all(f.targetoptions.get("nogil") for f in dispatchers), [
        f.__name__ for f in dispatchers if not f.targetoptions.get("nogil")]


def test_weights_reach_every_fit_of_the_svm_cv():
    X, y = balanced(seed=7)
    s = np.random.default_rng(0).uniform(0.2, 3.0, X.shape[0])
    folds = list(StratifiedKFold(4).split(X, y))
    cv = LinearSVMCV(alphas=ALPHAS[:4], cv=folds, tol=1e-9, random_state=0).fit(
        X, y, sample_weight=s)
    for f, (train, test) in enumerate(folds):
        for j, alpha in enumerate(ALPHAS[:4]):
            fit = LinearSVM(alpha=alpha, tol=1e-9, random_state=0).fit(
                X[train], y[train], sample_weight=s[train])
            assert cv.scores_[f, 0, j] == fit.score(X[test], y[test])
    refit = LinearSVM(alpha=cv.alpha_, tol=1e-9, random_state=0).fit(X, y, sample_weight=s)
    assert_allclose(cv.coef_, refit.coef_, rtol=1e-6, atol=1e-8)


def test_an_l1_ratio_is_refused_by_name_where_the_loss_has_no_l1_fit():
    X, y = balanced()
    with pytest.raises(ValueError, match=r"LinearSVM\(l1_ratio=0.5\)"):
        LinearSVMCV(loss="hinge", l1_ratios=[0.0, 0.5], cv=3).fit(X, y)


def test_l1_ratios_each_walk_a_path_and_the_best_pair_wins():
    X, y = balanced(seed=8)
    folds = StratifiedKFold(4)
    ratios = [0.0, 0.5, 1.0]
    cv = LogisticRegressionCV(alphas=ALPHAS, l1_ratios=ratios, cv=folds, tol=1e-9).fit(X, y)
    assert cv.scores_.shape == (4, 3, 7) and cv.alphas_.shape == (3, 7)
    for i, r in enumerate(ratios):
        expected = hand_loop(lambda a, r=r: LogisticRegression(solver="auto", alpha=a,
                                                              l1_ratio=r, tol=1e-9),
                             X, y, ALPHAS, folds)
        assert_allclose(cv.scores_[:, i, :], expected.T, atol=1e-9)
    mean = cv.scores_.mean(axis=0)
    i, j = np.unravel_index(np.argmax(mean), mean.shape)
    assert (cv.l1_ratio_, cv.alpha_) == (ratios[i], ALPHAS[j])


def test_a_fold_without_a_class_is_refused_by_name():
    X, y = three_classes(seed=9)
    y[:3] = 3  # three rows of a fourth class, all in the first fold's held-out rows
    with pytest.raises(ValueError, match=r"fold 0 hold no example of class\(es\) \[3\]"):
        LogisticRegressionCV(cv=KFold(5)).fit(X, y)


def test_refit_false_after_a_refit_drops_its_n_iter():
    X, y = balanced(seed=10)
    cv = LogisticRegressionCV(alphas=ALPHAS[:3], cv=3).fit(X, y)
    assert hasattr(cv, "n_iter_")
    assert not hasattr(cv.set_params(refit=False).fit(X, y), "n_iter_")
