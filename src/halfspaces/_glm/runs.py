"""What a solver run returns (:class:`SolverRun`), the certified duality
gap every run carries, and the full-batch solvers' stop on it.

A solver's own rule (every |dJ/dw_j| <= tol s_j) is cheap: it reuses the gradient the
solver has computed anyway. The duality gap (:mod:`halfspaces._glm.duals`) bounds J(w) - J*
itself, whatever the data's conditioning, but costs a pass over X and exact sums of n
terms: it is checked when the gradient rule is met, and the solver goes on with a tighter
gradient rule while the gap exceeds tol J.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from numpy.typing import NDArray

from halfspaces._glm.objective import GLMObjective

__all__ = ["SolverRun", "until_certified", "with_gap"]


@dataclass(frozen=True)
class SolverRun:
    """What a solver returns: the flat parameters and how it got there."""

    w: NDArray
    n_iter: int
    converged: bool
    loss_curve: tuple[float, ...]
    # the stochastic solvers' state to continue from: a halfspaces._glm.solvers.SgdState
    # (typed Any: that module imports this one)
    state: Any = None
    stalled: bool = False  # stopped because J no longer decreased in floating point
    # J(w) bounded above and a certified bound on J(w) - J* (:mod:`halfspaces._glm.duals`);
    # nan where the objective's rows are not in memory
    objective: float = math.nan
    gap: float = math.nan
    # the held-out score after each epoch, with early stopping (sgd and minibatch)
    validation_scores: tuple[float, ...] | None = None


# while the gap exceeds tol J, the gradient rule is tightened tenfold at a time, at most
# this far below tol; beyond it the gap is held up by rounding (of the intercept's
# constraint, of the dual's sums), not by the iterate
_GRADIENT_FLOOR = 1e-8


def with_gap(obj: GLMObjective, run: SolverRun) -> SolverRun:
    """``run`` with J and its certified gap at ``run.w`` (unchanged where the objective
    cannot bound them: rows not in memory)."""
    found = obj.duality_gap(run.w)
    if found is None:
        return run
    return replace(run, objective=found[0], gap=found[1])


def until_certified(obj: GLMObjective, run: SolverRun, tol: float, max_iter: int,
                    again: Callable[[NDArray, float, int], SolverRun]) -> SolverRun:
    """Continue a full-batch run until its certified gap is at most tol J.

    The gradient rule is cheap (no pass over X beyond the solver's own) and stops first;
    the gap, a pass over X and exact sums, is then checked, and while it exceeds tol
    times J the solver goes on from where it stopped with a gradient tolerance ten times
    smaller (``again(w, gradient_tol, iterations_left)``), as LIBLINEAR's solvers tighten
    their inner tolerance. Where the gap is inf (no dual point: alpha = 0) the gradient
    rule alone decides. A run that reaches the floor of the gradient rule with the gap
    still too large is reported as stalled (rounding holds the gap up).
    """
    run = with_gap(obj, run)
    gradient_tol = tol
    while (run.converged and tol > 0 and math.isfinite(run.gap)
           and run.gap > tol * run.objective):
        gradient_tol *= 0.1
        budget = max_iter - run.n_iter
        if budget <= 0 or gradient_tol < tol * _GRADIENT_FLOOR:
            return replace(run, converged=False, stalled=budget > 0)
        more = with_gap(obj, again(run.w, gradient_tol, budget))
        run = replace(more, n_iter=run.n_iter + more.n_iter,
                      loss_curve=run.loss_curve + more.loss_curve[1:])
    return run
