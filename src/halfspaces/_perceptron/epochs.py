"""The epoch driver of every perceptron-like run: the order of each pass, progress, convergence.

The binary perceptron (:mod:`halfspaces._perceptron.run`), the multiclass perceptron and the
dual (kernel) perceptron (:mod:`halfspaces._kernel.dual_run`) differ only in what one pass over the
data does. Each hands :func:`run_epochs` a callable ``one_epoch(order)`` that makes one pass
over the rows in ``order`` (the empty :data:`CYCLIC` order: all rows in turn) and returns its
number of updates, or ``-1 - i`` when row i gave a non-finite decision value. The driver
draws the orders, reports progress, stops after a pass with no update (the stopping rule of
Rosenblatt's perceptron, which Novikoff's theorem says is reached on separable data), and
raises the error for a bad row.

With ``selection="worst"`` an epoch is instead a budget of n updates, each on the most
violated example argmin_i y_i <w, x'_i> (the Batch Perceptron of Shalev-Shwartz and
Ben-David, *Understanding Machine Learning*, 2014, Section 9.1.2, updates on any example with
y_i <w, x'_i> <= 0; this rule picks the worst one). Its loop stops early exactly when no
margin is <= 0, so an epoch with fewer than n updates is the one that converged.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from halfspaces._utils.progress import report

__all__ = ["CYCLIC", "Epochs", "epoch_order", "non_finite_row_error", "run_epochs"]

CYCLIC = np.empty(0, dtype=np.int64)
"""The empty order: the compiled loops then visit the rows in turn, with no index array."""

OneEpoch = Callable[[NDArray[np.int64]], int]


@dataclass(frozen=True)
class Epochs:
    """What :func:`run_epochs` reports: updates over all epochs, epochs made, convergence."""

    n_updates: int
    n_epochs: int
    converged: bool
    stopped: bool = False  # ended by the ``stop`` rule (early stopping on held-out rows)


def epoch_order(selection: str, n: int, rng) -> NDArray[np.int64]:
    """The order of the next pass: a fresh permutation of n rows for "shuffle", else CYCLIC.

    "worst" draws nothing: its loop chooses each row itself.
    """
    return rng.permutation(n) if selection == "shuffle" else CYCLIC


def run_epochs(one_epoch: OneEpoch, n: int, *, max_epochs: int, selection: str = "cyclic",
               rng=None, bad_row: Callable[[int], Exception],
               stop: Callable[[Epochs], bool] | None = None) -> Epochs:
    """Call ``one_epoch(order)`` for up to ``max_epochs`` passes over n rows.

    Parameters
    ----------
    one_epoch : callable
        One pass over the rows in the given order; returns its updates, or ``-1 - i`` when
        row i gave a non-finite decision value.
    n : int
        The number of rows (the length of a permutation; the update budget of a "worst"
        epoch).
    max_epochs : int
        The most passes.
    selection : {"cyclic", "shuffle", "worst"}, default="cyclic"
        How each pass orders the rows (see :func:`epoch_order`); "worst" also changes the
        convergence rule to "fewer than n updates".
    rng : numpy.random.RandomState or Generator, default=None
        Draws the permutations of "shuffle", one per epoch before it runs.
    bad_row : callable
        ``bad_row(i)`` is the exception raised when the pass stops at row i.
    stop : callable or None, default=None
        ``stop(epochs)``, called after every pass with the record so far (the pass that
        converged too), ends the run when it returns True (early stopping:
        :class:`halfspaces._utils.early_stopping.Watch`).

    Returns
    -------
    epochs : Epochs

    Examples
    --------
    >>> passes = iter([3, 1, 0, 2])
    >>> run_epochs(lambda order: next(passes), 5, max_epochs=10, bad_row=IndexError)
    Epochs(n_updates=4, n_epochs=3, converged=True, stopped=False)
    """
    budget = n if selection == "worst" else 1
    n_updates, epoch = 0, 0
    for epoch in range(1, max_epochs + 1):
        k = one_epoch(epoch_order(selection, n, rng))
        if k < 0:
            raise bad_row(-1 - k)
        n_updates += k
        report(epoch, max_epochs)
        if stop is not None and stop(Epochs(n_updates, epoch, k < budget)):
            return Epochs(n_updates, epoch, k < budget, stopped=True)
        if k < budget:
            return Epochs(n_updates, epoch, True)
    return Epochs(n_updates, epoch, False)


def non_finite_row_error(X, row: int) -> ValueError:
    """The error for a row of X whose decision value was NaN or infinite.

    It names the row and tells NaN or infinity in the data from an overflow of finite values.
    """
    values = X[row].toarray().ravel() if hasattr(X, "toarray") else np.asarray(X[row])
    if not np.all(np.isfinite(values)):
        return ValueError(
            f"Input X contains NaN or infinity (row {row}); remove or impute those values."
        )
    return ValueError(
        f"The decision value of row {row} overflowed to infinity (largest |x| in the row: "
        f"{np.max(np.abs(values)):.3g}); rescale X."
    )
