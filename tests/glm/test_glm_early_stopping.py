"""Early stopping of "sgd" and "minibatch" against the stopping rule applied by hand.

The oracle: the held-out split rebuilt with scikit-learn's ``train_test_split`` (stratified
for the classifier, the same ``random_state``), the solver run for 1, 2, ... epochs on the
training rows without early stopping (with tol=0 and a fixed seed, the first e epochs of
any longer run), each scored on the held-out rows by scikit-learn's ``accuracy_score`` or
``r2_score``, and the rule applied by hand (``_naive.early_stopped``).
"""

from __future__ import annotations

import warnings

import _naive
import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.metrics import accuracy_score, r2_score
from sklearn.model_selection import train_test_split

from halfspaces import LinearRegression, LogisticRegression


def quiet(estimator, X, y):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return estimator.fit(X, y)


def split(y, fraction, seed, stratify=True):
    train, held = train_test_split(np.arange(len(y)), test_size=fraction,
                                   stratify=y if stratify else None, random_state=seed)
    return np.sort(train), np.sort(held)


def classification(n_classes, seed, n=240):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 4))
    scores = X @ rng.normal(size=(4, n_classes)) + 1.5 * rng.normal(size=(n, n_classes))
    return X, np.array(["a", "b", "c", "d"])[np.argmax(scores, axis=1)]


@pytest.mark.parametrize("solver", ["sgd", "minibatch"])
@pytest.mark.parametrize("n_classes", [2, 3])
@pytest.mark.parametrize("seed", [0, 1])
def test_logistic_stops_where_the_rule_by_hand_stops(solver, n_classes, seed):
    X, y = classification(n_classes, seed)
    train, held = split(y, 0.2, seed)
    params = dict(solver=solver, alpha=1e-3, batch_size=16, tol=0.0, random_state=seed)

    def run(e):
        return quiet(LogisticRegression(max_iter=e, **params), X[train], y[train]), False

    best, scores = _naive.early_stopped(
        _naive.epoch_prefixes(run, 80), lambda m: accuracy_score(y[held], m.predict(X[held])),
        n_iter_no_change=3)
    clf = quiet(LogisticRegression(early_stopping=True, validation_fraction=0.2,
                                   n_iter_no_change=3, max_iter=80, **params), X, y)
    assert clf.n_iter_ == len(scores)
    assert_allclose(clf.validation_scores_, scores, rtol=0, atol=1e-12)
    assert clf.best_validation_score_ == max(scores)
    assert_allclose(clf.coef_, best.coef_, rtol=1e-12, atol=1e-12)
    assert_allclose(clf.intercept_, best.intercept_, rtol=1e-12, atol=1e-12)
    assert clf.converged_ == (len(scores) < 80)


@pytest.mark.parametrize("solver", ["sgd", "minibatch"])
@pytest.mark.parametrize("seed", [0, 1])
def test_linear_regression_stops_on_held_out_r2(solver, seed):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(300, 5))
    y = X @ rng.normal(size=5) + 2.0 * rng.normal(size=300)
    train, held = split(y, 0.15, seed, stratify=False)
    params = dict(solver=solver, batch_size=8, tol=0.0, average=False, random_state=seed,
                  eta0=0.01)

    def run(e):
        return quiet(LinearRegression(max_iter=e, **params), X[train], y[train]), False

    best, scores = _naive.early_stopped(
        _naive.epoch_prefixes(run, 60), lambda m: r2_score(y[held], m.predict(X[held])), 2)
    reg = quiet(LinearRegression(early_stopping=True, validation_fraction=0.15,
                                 n_iter_no_change=2, max_iter=60, **params), X, y)
    assert reg.n_iter_ == len(scores)
    assert_allclose(reg.validation_scores_, scores, rtol=1e-12, atol=1e-12)
    assert_allclose(reg.coef_, best.coef_, rtol=1e-12, atol=1e-12)


def test_tol_is_the_improvement_that_counts():
    X, y = classification(2, 4)
    common = dict(solver="sgd", early_stopping=True, n_iter_no_change=2, max_iter=200,
                  random_state=0)
    strict = quiet(LogisticRegression(tol=0.0, **common), X, y)
    # no accuracy can beat another by more than 1: only the first epoch improves (on no
    # score at all), and the run stops after n_iter_no_change more, keeping the best of them
    lax = quiet(LogisticRegression(tol=1.0, **common), X, y)
    assert lax.n_iter_ == 3 and lax.best_validation_score_ == max(lax.validation_scores_)
    assert strict.n_iter_ >= lax.n_iter_


def test_partial_fit_continues_from_the_best_epoch():
    X, y = classification(2, 5)
    clf = quiet(LogisticRegression(solver="sgd", early_stopping=True, max_iter=50,
                                   random_state=0), X, y)
    kept = clf._state
    assert_array_equal(kept.average if kept.n_avg > 0 else kept.iterate, clf._w)
    clf.partial_fit(X, y)
    assert clf.validation_scores_ is None and clf.best_validation_score_ is None


@pytest.mark.parametrize("est", [LogisticRegression(solver="lbfgs"),
                                 LogisticRegression(solver="newton"),
                                 LogisticRegression(solver="gd"),
                                 LinearRegression(solver="lstsq"),
                                 LinearRegression(solver="cholesky"),
                                 LinearRegression(solver="gd")])
def test_full_batch_solvers_refuse_early_stopping_by_name(est):
    X, y = classification(2, 0, n=40)
    if isinstance(est, LinearRegression):
        y = X[:, 0]
    with pytest.raises(ValueError, match="early_stopping=True .*solver="):
        est.set_params(early_stopping=True).fit(X, y)


@pytest.mark.parametrize("cls", [LogisticRegression, LinearRegression])
@pytest.mark.parametrize("bad", [dict(validation_fraction=0.0), dict(validation_fraction=1.0),
                                 dict(validation_fraction=2), dict(n_iter_no_change=0)])
def test_bad_parameters_are_refused_by_name(cls, bad):
    X, y = classification(2, 0, n=40)
    if cls is LinearRegression:
        y = X[:, 0]
    with pytest.raises(ValueError, match=next(iter(bad))):
        cls(solver="sgd", early_stopping=True, **bad).fit(X, y)


def test_too_few_rows_for_a_split_are_refused_by_name():
    X = np.arange(10.0).reshape(5, 2)
    with pytest.raises(ValueError, match="validation_fraction=0.1"):
        LogisticRegression(solver="sgd", early_stopping=True).fit(X, [0, 0, 0, 1, 1])
    with pytest.raises(ValueError, match="validation_fraction=0.1"):
        LinearRegression(solver="sgd", early_stopping=True).fit(X[:1], [1.0])


def test_a_run_that_overflows_is_not_rescued_by_its_best_epoch():
    # a step too long makes J overflow after some epochs: the run ends there as it does
    # without early stopping, rather than returning the best epoch before the overflow
    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 4))
    y = X @ [1.0, 2.0, 3.0, 4.0] + rng.normal(size=200)
    train, _ = split(y, 0.1, 0, stratify=False)
    params = dict(solver="sgd", eta0=0.5, average=False, tol=0.0, max_iter=1000,
                  random_state=0)
    with np.errstate(all="ignore"):
        stopped = quiet(LinearRegression(early_stopping=True, n_iter_no_change=1000, **params),
                        X, y)
        plain = quiet(LinearRegression(**params), X[train], y[train])
    assert 1 < stopped.n_iter_ == plain.n_iter_ < 1000
    assert_array_equal(stopped.coef_, plain.coef_)
