"""Early stopping of the stochastic GLM solvers ("sgd", "minibatch") on held-out rows.

The estimators hold out ``validation_fraction`` of the rows (stratified by class for
:class:`~halfspaces.LogisticRegression`, :func:`halfspaces._utils.early_stopping.validation_split`)
and hand :func:`halfspaces._glm.solvers.stochastic` a :class:`HeldOut`. After each epoch the
solver scores the model (the averaged iterate once averaging has started, else the last
one) on those rows: accuracy for a classifier, R^2 for a regression, as scikit-learn's
SGDClassifier and SGDRegressor do. That rule replaces the one on the training objective
(J changing by at most tol): the run stops once the score has not improved by more than
``tol`` for ``n_iter_no_change`` epochs, and returns to the solver state of the best epoch.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from halfspaces._utils.early_stopping import Watch

__all__ = ["HeldOut", "encoded_held_out"]


@dataclass(frozen=True)
class HeldOut:
    """The held-out rows, their targets as the objective encodes them, and the rule.

    ``task`` is "binary" (``y`` the ±1 targets, classes_[1] as +1), "multiclass" (``y``
    the class indices) or "regression" (``y`` the targets).
    """

    X: Any
    y: NDArray
    task: str
    n_iter_no_change: int
    tol: float

    def score(self, w: NDArray) -> float:
        """The held-out accuracy (R^2 for a regression) of the flat parameters ``w``."""
        W = w.reshape(-1, self.X.shape[1] + 1)
        z = np.asarray(self.X @ W[:, :-1].T) + W[:, -1]
        if self.task == "regression":
            from sklearn.metrics import r2_score

            return float(r2_score(self.y, z[:, 0]))
        if self.task == "binary":
            return float(np.mean((z[:, 0] > 0) == (self.y > 0)))
        return float(np.mean(z.argmax(axis=1) == self.y))

    def watch(self, model: Callable[[], NDArray], snapshot: Callable[[], Any]) -> Watch:
        """The rule over the scores of ``model()``, keeping ``snapshot()`` at the best."""
        return Watch(lambda: self.score(model()), snapshot, self.n_iter_no_change, self.tol)


def encoded_held_out(y: NDArray | None, classes: NDArray) -> tuple[NDArray | None, str]:
    """Held-out labels as the objective encodes them (±1, or class indices), and the task."""
    if y is None:
        return None, "binary"
    labels = np.searchsorted(classes, y)
    if classes.size == 2:
        return np.where(labels == 1, 1.0, -1.0), "binary"
    return labels, "multiclass"
