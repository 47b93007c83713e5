"""Early stopping of the perceptrons against the slow twins stopped by hand, and scikit-learn.

The oracle: the held-out split rebuilt with scikit-learn's ``train_test_split`` (stratified,
the same ``random_state``), the lecture algorithms of ``_naive`` run for 1, 2, ... epochs on
the training rows, each scored on the held-out rows, and the stopping rule applied by hand
(``_naive.early_stopped``). scikit-learn's own Perceptron(early_stopping=True) makes the same
split and stops by the same rule (it keeps the last weights, where ours keep the best).
"""

from __future__ import annotations

import warnings

import _naive
import _naive_kernel
import numpy as np
import pytest
from _datasets import noisy
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.linear_model import Perceptron as SkPerceptron
from sklearn.model_selection import train_test_split

from halfspaces import (
    AveragedPerceptron,
    MulticlassPerceptron,
    Perceptron,
    PocketPerceptron,
    VotedPerceptron,
)
from halfspaces._perceptron.early_stopping import HeldOut
from halfspaces._perceptron.run import run_perceptron

ALL = [Perceptron, AveragedPerceptron, PocketPerceptron, VotedPerceptron, MulticlassPerceptron]


def quiet(estimator, X, y):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return estimator.fit(X, y)


def split(y, fraction, seed):
    train, held = train_test_split(np.arange(len(y)), test_size=fraction, stratify=y,
                                   random_state=seed)
    return np.sort(train), np.sort(held)


def _linear(w, b):
    return lambda X: X @ w + b


def binary_twin(kind, X, y, e):
    """(decision function, converged) of the twin ``kind`` after at most e epochs."""
    converged = _naive.perceptron(X, y, max_epochs=e)[4]
    if kind is Perceptron:
        w, b = _naive.perceptron(X, y, max_epochs=e)[:2]
    elif kind is AveragedPerceptron:
        w, b = _naive.averaged_perceptron(X, y, max_epochs=e)
    elif kind is PocketPerceptron:
        w, b, _ = _naive.pocket_perceptron(X, y, max_epochs=e)
    else:
        vectors = _naive.voted_perceptron(X, y, max_epochs=e)
        return (lambda Z: _naive.voted_decision(vectors, Z)), converged
    return _linear(w, b), converged


@pytest.mark.parametrize("cls", [Perceptron, AveragedPerceptron, PocketPerceptron,
                                 VotedPerceptron])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_binary_variants_stop_where_the_twin_stops_by_hand(cls, seed):
    X, y = noisy(160, 4, seed=seed, flip=0.2)
    train, held = split(y, 0.25, seed)

    def accuracy(decision):
        return np.mean((decision(X[held]) > 0) == (y[held] > 0))

    best, scores = _naive.early_stopped(
        _naive.epoch_prefixes(lambda e: binary_twin(cls, X[train], y[train], e), 60),
        accuracy, n_iter_no_change=3)
    clf = quiet(cls(early_stopping=True, validation_fraction=0.25, n_iter_no_change=3,
                    max_epochs=60, random_state=seed), X, y)
    assert_allclose(clf.validation_scores_, scores, rtol=0, atol=1e-12)
    assert clf.n_epochs_ == len(scores)
    assert clf.best_validation_score_ == max(scores)
    assert_allclose(clf.decision_function(X), best(X), rtol=1e-9, atol=1e-9)


@pytest.mark.parametrize("average", [False, True])
@pytest.mark.parametrize("seed", [0, 3])
def test_multiclass_stops_where_the_twin_stops_by_hand(average, seed):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(180, 3))
    labels = np.argmax(X @ rng.normal(size=(3, 3)) + 0.8 * rng.normal(size=(180, 3)), axis=1)
    train, held = split(labels, 0.2, seed)

    def run(e):
        W, _, _, converged = _naive_kernel.multiclass_perceptron(
            X[train], labels[train], 3, True, e, "cyclic", None, average)
        return W, converged

    def accuracy(W):
        return np.mean(np.argmax(X[held] @ W[:, :-1].T + W[:, -1], axis=1) == labels[held])

    best, scores = _naive.early_stopped(_naive.epoch_prefixes(run, 60), accuracy, 4)
    clf = quiet(MulticlassPerceptron(average=average, early_stopping=True,
                                     validation_fraction=0.2, n_iter_no_change=4,
                                     max_epochs=60, random_state=seed), X, labels)
    assert_allclose(clf.validation_scores_, scores, rtol=0, atol=1e-12)
    assert clf.n_epochs_ == len(scores)
    assert_allclose(clf.coef_, best[:, :-1], rtol=1e-10, atol=1e-10)
    assert_allclose(clf.intercept_, best[:, -1], rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("seed", range(4))
def test_stops_at_scikit_learns_epoch_on_its_own_split(seed):
    # integer features: every sum is exact, so both libraries make the same mistakes; no
    # pass is free of mistakes (scikit-learn does not stop on one), and tol=1e-12 is its
    # rule "improved by more than 0" for accuracies
    rng = np.random.default_rng(seed)
    X = rng.integers(-4, 5, size=(150, 3)).astype(float)
    y = np.where(X @ [1.0, -1.0, 0.5] + rng.normal(scale=2.0, size=150) > 0, 1, -1)
    sk = SkPerceptron(early_stopping=True, validation_fraction=0.2, n_iter_no_change=3,
                      tol=1e-12, shuffle=False, max_iter=200, random_state=seed).fit(X, y)
    ours = quiet(Perceptron(early_stopping=True, validation_fraction=0.2,
                            n_iter_no_change=3, max_epochs=200, random_state=seed), X, y)
    assert ours.n_epochs_ == sk.n_iter_
    # scikit-learn keeps the last weights: those of our run on its training rows
    train, _ = split(y, 0.2, seed)
    last = quiet(Perceptron(max_epochs=sk.n_iter_), X[train], y[train])
    assert_array_equal(last.coef_, sk.coef_)
    assert_array_equal(last.intercept_, sk.intercept_)


def test_stops_at_the_constructed_peak_and_keeps_its_weights():
    # the held-out rows are labelled by the hypothesis after epoch 2, so its accuracy is 1
    # and every other epoch's is lower: the run must stop after epochs 3, 4, 5 (patience 3)
    # and return the weights of epoch 2
    X, y = noisy(80, 2, seed=5, flip=0.25)
    hypotheses = [_naive.perceptron(X, y, max_epochs=e)[:2] for e in range(1, 9)]
    probe = np.random.default_rng(1).normal(size=(400, 2))
    w2, b2 = hypotheses[1]
    labels = np.where(probe @ w2 + b2 > 0, 1.0, -1.0)
    accuracies = [np.mean(np.where(probe @ w + b > 0, 1.0, -1.0) == labels)
                  for w, b in hypotheses]
    assert accuracies[1] == 1.0 and max(accuracies[:1] + accuracies[2:5]) < 1.0
    held = HeldOut(probe, labels, n_iter_no_change=3)
    run = run_perceptron(X, y, max_epochs=100,
                         watch_for=held.binary(X, y, 1.0, "plain", fit_intercept=True))
    assert run.n_epochs == 5 and run.stopped and not run.converged
    assert_allclose(run.validation_scores, accuracies[:5])
    assert_array_equal(run.coef, w2)
    assert run.intercept == b2
    assert run.n_updates == _naive.perceptron(X, y, max_epochs=2)[2]


@pytest.mark.parametrize("cls", ALL)
def test_the_kept_weights_score_the_best_held_out_accuracy(cls):
    X, y = noisy(200, 5, seed=7, flip=0.2)
    clf = quiet(cls(early_stopping=True, random_state=0, max_epochs=100), X, y)
    _, held = split(y, 0.1, 0)
    assert clf.score(X[held], y[held]) == clf.best_validation_score_
    assert not clf.converged_ or clf.n_epochs_ < 100


@pytest.mark.parametrize("cls", ALL)
@pytest.mark.parametrize("fraction", [0.0, 1.0, -0.5, 1.5])
def test_validation_fraction_outside_zero_one_is_refused_by_name(cls, fraction):
    X, y = noisy(40, 2, seed=0)
    with pytest.raises(ValueError, match="validation_fraction"):
        cls(early_stopping=True, validation_fraction=fraction).fit(X, y)


@pytest.mark.parametrize("cls", ALL)
def test_n_iter_no_change_below_one_is_refused_by_name(cls):
    X, y = noisy(40, 2, seed=0)
    with pytest.raises(ValueError, match="n_iter_no_change"):
        cls(early_stopping=True, n_iter_no_change=0).fit(X, y)


@pytest.mark.parametrize("cls", ALL)
@pytest.mark.parametrize("n, fraction", [(6, 0.1), (6, 0.9), (3, 0.5)])
def test_too_few_rows_for_a_split_are_refused_by_name(cls, n, fraction):
    X = np.arange(2.0 * n).reshape(n, 2)
    y = np.array([1, -1] * n)[:n]
    with pytest.raises(ValueError, match="validation_fraction"):
        cls(early_stopping=True, validation_fraction=fraction).fit(X, y)


def test_voted_refuses_a_warm_start_with_early_stopping():
    X, y = noisy(60, 2, seed=0)
    clf = quiet(VotedPerceptron(max_epochs=3), X, y)
    clf.set_params(warm_start=True, early_stopping=True)
    with pytest.raises(ValueError, match="warm_start"):
        clf.fit(X, y)


@pytest.mark.parametrize("cls", [Perceptron, AveragedPerceptron, PocketPerceptron,
                                 VotedPerceptron])
def test_partial_fit_trains_on_every_row(cls):
    X, y = noisy(60, 3, seed=1)
    online = cls(early_stopping=True).partial_fit(X, y)
    plain = cls().partial_fit(X, y)
    assert_array_equal(online.coef_, plain.coef_)
    assert online.validation_scores_ is None and online.best_validation_score_ is None


def test_one_vs_rest_scores_each_binary_problem():
    rng = np.random.default_rng(2)
    X = rng.normal(size=(150, 3))
    y = np.argmax(X @ rng.normal(size=(3, 3)) + 0.5 * rng.normal(size=(150, 3)), axis=1)
    clf = quiet(Perceptron(early_stopping=True, random_state=0, max_epochs=50), X, y)
    assert len(clf.validation_scores_) == 3
    train, held = split(y, 0.1, 0)
    for k, scores in enumerate(clf.validation_scores_):
        assert clf.best_validation_score_[k] == scores.max()
        right = (clf.decision_function(X[held])[:, k] > 0) == (y[held] == k)
        assert np.mean(right) == scores.max()


@pytest.mark.parametrize("seed", [0, 1])
def test_the_training_rows_keep_their_weights_when_some_are_held_out(seed):
    # the weights are split with the rows: the twin trains on the training rows with
    # their own weights (a weight left at its old position would train other rows)
    X, y = noisy(160, 4, seed=seed, flip=0.2)
    weights = np.random.default_rng(seed).integers(0, 4, size=len(y)).astype(float)
    train, held = split(y, 0.25, seed)

    def run(e):
        w, b, _, _, converged = _naive.perceptron(X[train], y[train], max_epochs=e,
                                                  weights=weights[train])
        return _linear(w, b), converged

    def accuracy(decision):
        return np.mean((decision(X[held]) > 0) == (y[held] > 0))

    best, scores = _naive.early_stopped(_naive.epoch_prefixes(run, 60), accuracy,
                                        n_iter_no_change=3)
    clf = Perceptron(early_stopping=True, validation_fraction=0.25, n_iter_no_change=3,
                     max_epochs=60, random_state=seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        clf.fit(X, y, sample_weight=weights)
    assert_allclose(clf.validation_scores_, scores, rtol=0, atol=1e-12)
    assert_allclose(clf.decision_function(X), best(X), rtol=1e-9, atol=1e-9)
