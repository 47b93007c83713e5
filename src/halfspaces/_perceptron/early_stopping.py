"""Early stopping of the perceptrons: the held-out accuracy judges each epoch.

The estimators split off ``validation_fraction`` of the rows, stratified by class
(:func:`halfspaces._utils.early_stopping.validation_split`), run on the rest, and hand the
run a factory (``watch_for``) that scores the variant's own hypothesis on the held-out rows
after each epoch: the last weights (plain), their running mean (averaged), the pocket
(pocket), the vote of every weight vector of the call (voted), or the argmax of the k
discriminants (multiclass). A binary problem of one-vs-rest is scored on its own ±1
targets, as scikit-learn's SGDClassifier scores each of its binary problems. The run stops
once the accuracy has not beaten its best for ``n_iter_no_change`` epochs, and returns to
the state of the best epoch (the first to reach the best accuracy), which a warm start or
``partial_fit`` then continues.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from halfspaces._perceptron.run import (
    MODES,
    PerceptronState,
    _hypothesis,
    multiclass_weights,
    survival_counts,
)
from halfspaces._perceptron.vote_log import _vote_scorer
from halfspaces._sklearn import FloatInterval, IntegerInterval
from halfspaces._utils.early_stopping import Watch, validation_split
from halfspaces._validation import Targets, encode_targets, per_problem

__all__ = ["CONSTRAINTS", "HeldOut", "hold_out", "split_rows", "validation_attributes"]

CONSTRAINTS: dict = {
    "early_stopping": ["boolean"],
    "validation_fraction": [FloatInterval(0, 1, closed="neither")],
    "n_iter_no_change": [IntegerInterval(1, None, closed="left")],
}
"""The declared constraints of the three early-stopping parameters."""


def split_rows(X, y: NDArray, validation_fraction: float, random_state,
               weights: NDArray | None = None):
    """(X_train, y_train, weights_train, X_held, y_held): a stratified held-out split of
    validated rows, the training rows keeping their weights (the held-out score is
    unweighted)."""
    train, held = validation_split(y, validation_fraction, random_state, stratify=True)
    kept = None if weights is None else weights[train]
    return X[train], y[train], kept, X[held], y[held]


def hold_out(X, y: NDArray, classes: NDArray, est, mode: str, resume: bool,
             weights: NDArray | None = None) -> tuple[Any, Targets, NDArray | None, HeldOut]:
    """The rows a binary perceptron trains on, their targets and weights, and its
    :class:`HeldOut`.

    ``est`` gives ``validation_fraction``, ``random_state`` and ``n_iter_no_change``. The
    voted perceptron refuses a warm start: its held-out vote is of the weight vectors of
    one run from w = 0 (:func:`_vote`).
    """
    if mode == "voted" and resume:
        raise ValueError(
            "VotedPerceptron(early_stopping=True, warm_start=True): the held-out vote "
            "judges the weight vectors of one run from w = 0, and a warm start continues "
            "an earlier one. Set warm_start=False, or early_stopping=False.")
    X, y, weights, X_held, y_held = split_rows(X, y, est.validation_fraction,
                                               est.random_state, weights)
    held = HeldOut(X_held, encode_targets(y_held, classes).labels, est.n_iter_no_change)
    return X, encode_targets(y, classes), weights, held


def validation_attributes(runs: list) -> dict:
    """``validation_scores_`` and ``best_validation_score_`` of the runs of a fit (one per
    binary problem): an array and a float for one, a list and an array beyond, or None."""
    scores = [run.validation_scores for run in runs]
    if scores[0] is None:
        return {"validation_scores_": None, "best_validation_score_": None}
    return {"validation_scores_": scores[0] if len(scores) == 1 else scores,
            "best_validation_score_": per_problem(np.array([s.max() for s in scores]))}


@dataclass(frozen=True)
class HeldOut:
    """The held-out rows and their labels, and the rule's patience.

    ``labels`` are y's values for the binary perceptrons and class indices for the
    multiclass one.
    """

    X: Any
    labels: NDArray
    n_iter_no_change: int

    def binary(self, X_train, y_train: NDArray, positive, mode: str,
               fit_intercept: bool) -> Callable[[PerceptronState, list], Watch]:
        """The ``watch_for`` of :func:`~halfspaces._perceptron.run.run_perceptron`: the
        accuracy of the problem's hypothesis on ``labels == positive``."""
        truth = self.labels == positive
        code = MODES[mode]

        def watch_for(state: PerceptronState, logs: list) -> Watch:
            if mode == "voted":
                def decision() -> NDArray:
                    return _vote(self.X, X_train, y_train == positive, state, logs,
                                 fit_intercept)
            else:
                def decision() -> NDArray:
                    coef, intercept = _hypothesis(code, state)
                    return np.asarray(self.X @ coef).ravel() + intercept

            return Watch(lambda: np.mean((decision() > 0) == truth),
                         lambda: (state.copy(), len(logs)), self.n_iter_no_change)

        return watch_for

    def multiclass(self, average: bool) -> Callable[..., Watch]:
        """The ``watch_for`` of :func:`~halfspaces._perceptron.run.run_multiclass_perceptron`:
        the accuracy of the argmax rule (the lowest class on a tie, as predict breaks it)."""

        def watch_for(W: NDArray, U: NDArray, counters: NDArray) -> Watch:
            def score() -> float:
                weights = multiclass_weights(W, U, counters, average)
                z = np.asarray(self.X @ weights[:, :-1].T) + weights[:, -1]
                return float(np.mean(z.argmax(axis=1) == self.labels))

            return Watch(score, lambda: (W.copy(), U.copy(), counters.copy()),
                         self.n_iter_no_change)

        return watch_for


def _vote(X, X_train, positive: NDArray, state: PerceptronState, logs: list,
          fit_intercept: bool) -> NDArray:
    """The voted perceptron's vote on X with the weight vectors of this run's log.

    The vectors are sums of the logged updates from w_0 = 0 (the run started afresh: the
    estimator refuses a warm start with early stopping), with their survival counts up to
    the run's step count, as :func:`halfspaces._perceptron.vote_log.extend_votes` counts
    them for the fitted model.
    """
    rows, steps = (np.concatenate(logs, axis=1) if logs
                   else (np.empty(0, np.int64), np.empty(0, np.int64)))
    support = np.unique(rows)
    signs = np.where(positive[rows], 1.0, -1.0)
    counts = survival_counts(steps, state.n_steps)
    at = np.searchsorted(support, rows)
    scores = _vote_scorer(X_train[support], 1.0 if fit_intercept else 0.0)
    votes = np.empty(X.shape[0])
    # G = X S^T a block of rows at a time, as VotedPerceptron scores (without its progress
    # reports, which would interleave with the epochs')
    block = max(1, _SCORING_BLOCK // max(1, support.size))
    for start in range(0, X.shape[0], block):
        stop = min(X.shape[0], start + block)
        scores(X[start:stop], at, signs, counts, votes[start:stop])
    return votes


_SCORING_BLOCK = 4_000_000  # entries of G per block (32 MB dense)
