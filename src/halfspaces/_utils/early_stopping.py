"""Early stopping on a held-out split: the split, and the rule that watches its score.

scikit-learn's SGDClassifier and SGDRegressor (``early_stopping=True``) set aside a
fraction of the training rows, stratified by class for a classifier, score the model on
them after each epoch (accuracy, or R^2 for a regression), and stop once the score has not
improved on the best one by at least ``tol`` for ``n_iter_no_change`` epochs in a row. They
keep the last weights, which are by then up to ``n_iter_no_change`` epochs past the best
ones; here the rule also keeps a copy of the state at the best score (taken only when the
score improves, one copy of the weights), and the families return to it. Prechelt
(1998) names this the stopping criterion GL with the best model restored, the variant
whose held-out error is never worse than the last one's.

The families plug :class:`Watch` into their epoch loops: the perceptrons' driver
(:mod:`halfspaces._perceptron.early_stopping`) and the GLM's stochastic solvers
(:mod:`halfspaces._glm.early_stopping`).

References
----------
.. [1] L. Prechelt. Early stopping - but when? In Neural Networks: Tricks of the Trade,
   Springer, 1998, 55-69.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.typing import NDArray

__all__ = ["Watch", "validation_split"]


def validation_split(y: NDArray, validation_fraction: float, random_state,
                     stratify: bool) -> tuple[NDArray[np.intp], NDArray[np.intp]]:
    """The training and held-out row indices, as scikit-learn's ``train_test_split`` draws them.

    ``train_test_split(np.arange(n), test_size=validation_fraction, stratify=y if stratify
    else None, random_state=random_state)``, so that a user (and a test) can rebuild the
    split; each set sorted. Refused by name when a set would be empty, or when a class has
    too few rows for a stratified split.
    """
    from sklearn.model_selection import train_test_split

    n = y.shape[0]
    try:
        train, held = train_test_split(np.arange(n), test_size=validation_fraction,
                                       stratify=y if stratify else None,
                                       random_state=random_state)
    except ValueError as error:
        raise ValueError(
            f"early_stopping: {n} rows cannot be split into a training set and a held-out "
            f"set of validation_fraction={validation_fraction}"
            f"{' stratified by class' if stratify else ''} ({error}). Use more rows, a "
            "larger validation_fraction, or early_stopping=False.") from None
    return np.sort(train), np.sort(held)


class Watch:
    """The stopping rule of scikit-learn's SGD on a held-out score, keeping the best state.

    Called after each epoch with that epoch's record; returns True when the run should
    stop. ``score()`` scores the current model on the held-out rows (higher is better) and
    ``snapshot()`` copies what the family needs to return to it.

    Parameters
    ----------
    score : callable
        The held-out score of the model as it is now.
    snapshot : callable
        A copy of the run's state, taken when the score beats every earlier one.
    n_iter_no_change : int
        Epochs in a row without an improvement of more than ``tol`` that stop the run.
    tol : float, default=0.0
        The improvement that counts: score > best + tol, on the score's own scale.
        scikit-learn counts score >= best + tol, which differs only at equality, and there
        only matters for tol = 0: a plateau of equal accuracies (common, as accuracy takes
        few values) would then count as improving and never stop the run.

    Attributes
    ----------
    scores : list of float
        The held-out score after each epoch.
    best_score : float
        The highest of them (-inf before the first).
    best : tuple or None
        (snapshot, record) of the first epoch that reached ``best_score``.
    stopped : bool
        Whether the rule stopped the run.

    Examples
    --------
    >>> scores = iter([0.5, 0.9, 0.8, 0.9])
    >>> watch = Watch(lambda: next(scores), lambda: "weights", n_iter_no_change=2)
    >>> [watch(epoch) for epoch in (1, 2, 3, 4)]
    [False, False, False, True]
    >>> watch.best_score, watch.best
    (0.9, ('weights', 2))
    """

    def __init__(self, score: Callable[[], float], snapshot: Callable[[], Any],
                 n_iter_no_change: int, tol: float = 0.0) -> None:
        self.score, self.snapshot = score, snapshot
        self.n_iter_no_change, self.tol = n_iter_no_change, tol
        self.scores: list[float] = []
        self.best_score = -np.inf
        self.best: tuple[Any, Any] | None = None
        self.stale = 0
        self.stopped = False

    def __call__(self, record: Any = None) -> bool:
        value = float(self.score())
        self.scores.append(value)
        # scikit-learn's order: the count compares with the best before this epoch
        # (a NaN score counts as no improvement)
        self.stale = 0 if value > self.best_score + self.tol else self.stale + 1
        if value > self.best_score:
            self.best_score, self.best = value, (self.snapshot(), record)
        self.stopped = self.stale >= self.n_iter_no_change
        return self.stopped
