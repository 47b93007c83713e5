"""The perceptron's epoch loop: selection rules, convergence, resumable state.

Estimators, ``online_perceptron`` and the theory tools all call :func:`run_perceptron` on
validated data with ±1 targets; it calls the compiled loops and returns a frozen
:class:`PerceptronRun`. The variants are loop modes, not copies of this loop.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from numpy.typing import NDArray

from halfspaces._fast import loop_input
from halfspaces._fast import perceptron as kp
from halfspaces._progress import report

MODES = {"plain": kp.PLAIN, "averaged": kp.AVERAGED, "voted": kp.VOTED, "pocket": kp.POCKET}
_CYCLIC = np.empty(0, dtype=np.int64)  # an empty order: visit the rows in turn


@dataclass
class PerceptronState:
    """What a run needs to continue exactly where the last one stopped.

    ``w`` and ``aux`` hold d coefficients then the intercept; ``aux`` is the averaging
    sum or the pocket weights; ``counters`` is indexed by the constants of
    :mod:`halfspaces._fast.perceptron` (step count, runs, pocket errors).
    """

    w: NDArray[np.float64]
    aux: NDArray[np.float64]
    counters: NDArray[np.int64] = field(
        default_factory=lambda: np.zeros(kp.N_COUNTERS, dtype=np.int64)
    )

    @classmethod
    def zeros(cls, n_features: int) -> PerceptronState:
        return cls(np.zeros(n_features + 1), np.zeros(n_features + 1))

    def copy(self) -> PerceptronState:
        return PerceptronState(self.w.copy(), self.aux.copy(), self.counters.copy())

    @property
    def n_steps(self) -> int:
        return int(self.counters[kp.STEP])


@dataclass(frozen=True)
class PerceptronRun:
    """The outcome of one call of :func:`run_perceptron`.

    ``coef`` and ``intercept`` are the variant's hypothesis (the averaged weights, the pocket
    weights, or the last weights). ``update_rows`` and ``update_steps`` list the row and the
    1-based step number of every update, in order, when the run recorded them.
    """

    coef: NDArray[np.float64]
    intercept: float
    n_updates: int
    n_epochs: int
    converged: bool
    state: PerceptronState
    update_rows: NDArray[np.int64] | None = None
    update_steps: NDArray[np.int64] | None = None

    @property
    def n_errors(self) -> int:
        """The pocket weights' training errors on the data of this run (pocket mode)."""
        return int(self.state.counters[kp.POCKET_ERRORS])


def run_perceptron(
    X,
    y: NDArray,
    *,
    positive=1.0,
    mode: str = "plain",
    fit_intercept: bool = True,
    max_epochs: int = 1,
    selection: str = "cyclic",
    rng: np.random.Generator | np.random.RandomState | None = None,
    state: PerceptronState | None = None,
    record_updates: bool = False,
) -> PerceptronRun:
    """Run the perceptron variant ``mode`` for up to ``max_epochs`` passes over (X, y).

    X is validated (C-contiguous float array or CSR); the targets are +1 where
    ``y == positive`` and -1 elsewhere (so ±1 labels need no ``positive``). Stops after a pass
    with no update (converged); for selection="worst" an epoch is n updates on the most
    violated example, and the run stops when no margin is <= 0. ``state`` is not modified:
    the run works on a copy and returns the new state.
    """
    state = PerceptronState.zeros(X.shape[1]) if state is None else state.copy()
    Xk, Y, mode_code = loop_input(X), (y, y.dtype.type(positive)), MODES[mode]
    c = 1.0 if fit_intercept else 0.0
    n = X.shape[0]
    if mode_code == kp.POCKET:
        _recount_pocket_errors(Xk, Y, c, state)
    log = np.empty((2, n if record_updates else 0), dtype=np.int64)
    logs, n_updates, converged, epoch = [], 0, False, 0
    for epoch in range(1, max_epochs + 1):
        k = _one_epoch(Xk, Y, c, mode_code, state, log, selection, rng)
        if k < 0:
            raise non_finite_row_error(X, -1 - k)
        if record_updates:
            logs.append(log[:, :k].copy())
        n_updates += k
        report(epoch, max_epochs)
        if k == 0 or (selection == "worst" and k < n):
            converged = True
            break
    coef, intercept = _hypothesis(mode_code, state)
    rows, steps = np.concatenate(logs, axis=1) if logs else (None, None)
    return PerceptronRun(coef, intercept, n_updates, epoch, converged, state, rows, steps)


def _one_epoch(Xk, Y, c, mode_code, state, log, selection, rng) -> int:
    n = Y[0].shape[0]
    if selection == "worst":
        return kp.perceptron_worst(Xk, Y, c, mode_code, state.w, state.aux, state.counters, log, n)
    order = rng.permutation(n) if selection == "shuffle" else _CYCLIC
    return kp.perceptron_epoch(Xk, Y, order, c, mode_code, state.w, state.aux, state.counters, log)


def _recount_pocket_errors(Xk, Y, c, state: PerceptronState) -> None:
    # The pocket is judged on the data of the current call: a fresh fit, a warm start on new
    # data, or a partial_fit batch all compare candidates on the same examples.
    state.counters[kp.POCKET_ERRORS] = kp.count_errors(Xk, Y, c, state.aux)
    state.counters[kp.EVALUATED] = 0
    state.counters[kp.POCKET_IS_CURRENT] = int(np.array_equal(state.w, state.aux))


def _hypothesis(mode_code: int, state: PerceptronState) -> tuple[NDArray, float]:
    if mode_code == kp.AVERAGED and state.n_steps > 0:
        weights = state.w - state.aux / state.n_steps
    elif mode_code == kp.POCKET:
        weights = state.aux
    else:
        weights = state.w
    return weights[:-1].copy(), float(weights[-1])


def non_finite_row_error(X, row: int) -> ValueError:
    """The error for a row whose decision value was NaN or infinite."""
    values = X[row].toarray().ravel() if hasattr(X, "toarray") else np.asarray(X[row])
    if not np.all(np.isfinite(values)):
        return ValueError(
            f"Input X contains NaN or infinity (row {row}); remove or impute those values."
        )
    return ValueError(
        f"The decision value of row {row} overflowed to infinity (largest |x| in the row: "
        f"{np.max(np.abs(values)):.3g}); rescale X."
    )

