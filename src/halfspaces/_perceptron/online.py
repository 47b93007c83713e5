"""The online mistake-bound protocol: one pass of the perceptron, and where it erred.

The estimators of :mod:`halfspaces.perceptron` learn a classifier; :func:`online_perceptron`
plays the online game of learning theory instead (predict x_t, receive y_t, update on a
mistake, once over the sequence) and reports the mistakes, which Novikoff's bound
(R/gamma)^2 and the bounds of :mod:`halfspaces.theory.bounds` count (and
:mod:`halfspaces.plot.mistakes` draws). It is one recorded pass of
:func:`halfspaces._perceptron.run.run_perceptron` behind the checks of a public function;
its public home, and that of :class:`OnlineRun`, is :mod:`halfspaces.perceptron`.

References
----------
.. [1] A. B. J. Novikoff. On convergence proofs on perceptrons. Symposium on the Mathematical
   Theory of Automata, 1962.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray
from sklearn.utils import check_X_y

from halfspaces._perceptron.run import run_perceptron
from halfspaces._utils.memory import check_dense_vectors
from halfspaces._validation import (
    LOOP_CHECKS_FINITE,
    check_sparse_structure,
    checked_input,
    encode_targets,
)

__all__ = ["OnlineRun", "online_perceptron"]


@dataclass(frozen=True)
class OnlineRun:
    """One pass of the online protocol: the final weights and where the mistakes were.

    Attributes
    ----------
    coef : ndarray of shape (n_features,)
        The weights w after the pass.
    intercept : float
        The intercept b after the pass.
    mistakes : ndarray of bool of shape (n_samples,)
        Whether the prediction of example t was a mistake.
    classes : ndarray of shape (2,)
        The labels; classes[1] is +1.
    """

    coef: NDArray[np.float64]
    intercept: float
    mistakes: NDArray[np.bool_]
    classes: NDArray

    @property
    def n_mistakes(self) -> int:
        """The number of mistakes of the pass."""
        return int(self.mistakes.sum())


# its public home, where it was defined until perceptron.py was split: a pickled run names
# halfspaces.perceptron.OnlineRun, so runs pickled before or after the split load in both
OnlineRun.__module__ = "halfspaces.perceptron"


def online_perceptron(X: ArrayLike, y: ArrayLike, fit_intercept: bool = True) -> OnlineRun:
    """The online mistake-bound protocol: one pass, predict, receive y_t, update on a mistake.

    For t = 1..n in the given order: predict sign(<w, x_t> + b); on receiving y_t, if
    y_t(<w, x_t> + b) <= 0 count a mistake and set w += y_t x_t, b += y_t. Starting from
    w = 0, b = 0, the number of mistakes on a sequence separable with margin gamma inside a
    ball of radius R is at most (R/gamma)^2, on x' = (1, x) when ``fit_intercept``
    (Novikoff 1962), whatever the order.

    Parameters
    ----------
    X : {array-like, sparse matrix} of shape (n_samples, n_features)
        The sequence of examples.
    y : array-like of shape (n_samples,)
        Two labels; the larger one is +1 (as classes_[1] in the estimators).
    fit_intercept : bool, default=True
        Learn b too, i.e. run on x' = (1, x).

    Returns
    -------
    run : OnlineRun
        ``coef`` (n_features,), ``intercept``, ``mistakes`` (bool per example, in order),
        ``classes`` and ``n_mistakes``.

    Examples
    --------
    >>> from halfspaces.perceptron import online_perceptron
    >>> run = online_perceptron([[1.0], [2.0], [-1.0]], [1, 1, -1])
    >>> run.mistakes.tolist(), run.n_mistakes
    ([True, False, True], 2)
    """
    Xc, y = check_X_y(check_sparse_structure(X), y, **LOOP_CHECKS_FINITE)
    data = checked_input(Xc, X)
    targets = encode_targets(y)
    if targets.classes.size != 2:
        raise ValueError(
            f"online_perceptron takes two labels; y has {targets.classes.size}: "
            f"{targets.classes!r}."
        )
    check_dense_vectors(data.shape[1], 2)
    run = run_perceptron(data, targets.labels, positive=targets.positives[0],
                         fit_intercept=fit_intercept, max_epochs=1, record_updates=True)
    mistakes = np.zeros(data.shape[0], dtype=np.bool_)
    mistakes[run.update_rows] = True
    return OnlineRun(run.coef, run.intercept, mistakes, targets.classes)
