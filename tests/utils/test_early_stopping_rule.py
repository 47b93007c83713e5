"""The stopping rule and the held-out split, against the rule by hand and scikit-learn."""

from __future__ import annotations

import _naive
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_array_equal
from sklearn.model_selection import train_test_split

from halfspaces._perceptron.epochs import Epochs, run_epochs
from halfspaces._utils.early_stopping import Watch, validation_split


def scripted(scores, n_iter_no_change, tol=0.0):
    """A Watch over a list of scores, each epoch's snapshot its index."""
    epoch = iter(range(len(scores)))
    current = [None]

    def score():
        current[0] = next(epoch)
        return scores[current[0]]

    return Watch(score, lambda: current[0], n_iter_no_change, tol)


def test_stops_after_the_patience_and_keeps_the_first_best():
    # 0.9 at epoch 3 is matched, not beaten, at epoch 6: the third epoch without an
    # improvement, so the run stops there and keeps epoch 3
    scores = [0.5, 0.7, 0.9, 0.8, 0.85, 0.9, 0.95]
    watch = scripted(scores, 3)
    passes = iter([2] * 10)
    epochs = run_epochs(lambda order: next(passes), 4, max_epochs=10, bad_row=IndexError,
                        stop=watch)
    assert epochs == Epochs(12, 6, False, stopped=True)
    assert watch.scores == scores[:6] and watch.best_score == 0.9
    assert watch.best == (2, Epochs(6, 3, False))


def test_a_converged_pass_is_scored_and_ends_the_run():
    watch = scripted([0.5, 0.6], 5)
    passes = iter([3, 0])
    epochs = run_epochs(lambda order: next(passes), 4, max_epochs=10, bad_row=IndexError,
                        stop=watch)
    assert epochs == Epochs(3, 2, True) and watch.best == (1, Epochs(3, 2, True))


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from([0.0, 0.25, 0.5, 0.75, 1.0]), min_size=1, max_size=30),
       st.integers(1, 6), st.sampled_from([0.0, 0.1, 0.3]))
def test_agrees_with_the_rule_by_hand(scores, patience, tol):
    watch = scripted(scores, patience, tol)
    made = next((i + 1 for i in range(len(scores)) if watch()), len(scores))
    best, by_hand = _naive.early_stopped(range(len(scores)), lambda i: scores[i], patience,
                                         tol)
    assert watch.scores == by_hand and made == len(by_hand)
    assert watch.best[0] == best


@pytest.mark.parametrize("stratify", [True, False])
@pytest.mark.parametrize("seed", [0, 7])
def test_the_split_is_train_test_splits(stratify, seed):
    y = np.random.default_rng(seed).integers(0, 3, size=97)
    train, held = validation_split(y, 0.2, seed, stratify)
    theirs = train_test_split(np.arange(97), test_size=0.2, stratify=y if stratify else None,
                              random_state=seed)
    assert_array_equal(train, np.sort(theirs[0]))
    assert_array_equal(held, np.sort(theirs[1]))


@pytest.mark.parametrize("y, fraction", [([0, 1, 0, 1], 0.1), ([0, 0, 0, 1], 0.5),
                                         ([0.5], 0.5)])
def test_a_split_that_cannot_be_made_is_refused_by_name(y, fraction):
    with pytest.raises(ValueError, match=f"validation_fraction={fraction}"):
        validation_split(np.array(y), fraction, 0, stratify=len(y) > 1)
