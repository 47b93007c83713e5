"""Thin plumbing to HiGHS (through ``highspy``): LP, convex QP and MILP in one call each.

Nothing here knows about classifiers. :func:`solve` takes the constraint matrix (built
sparse, column-wise, as HiGHS wants it), bounds and costs, runs HiGHS silently and returns a
small :class:`HighsResult`. A status that is neither optimal nor one the caller asked to
accept (``accept``) raises :class:`SolverError`, so a limit or a numerical failure can never
pass for an answer. Callers still verify every answer in floating point before returning it.

References
----------
.. [1] Q. Huangfu and J. A. J. Hall. Parallelizing the dual revised simplex method.
   Mathematical Programming Computation 10, 2018 (the HiGHS LP solver).
"""

from __future__ import annotations

import contextlib
import ctypes
import functools
import os
import sys
from dataclasses import dataclass

import highspy
import numpy as np
import scipy.sparse as sp
from numpy.typing import NDArray

from halfspaces._utils import progress
from halfspaces._utils.descriptors import point_at_null
from halfspaces.exceptions import SolverError

__all__ = ["INF", "INTERRUPTED", "HighsResult", "SolverError", "mip_status",
           "qp_iteration_limit", "solve"]

INF = highspy.kHighsInf  # HiGHS's infinity, for absent bounds

# HiGHS's active-set QP solver has no iteration limit by default, and on nearly parallel
# rows (a cluster of 10 points 1e-3 wide at 6,000 from the origin, augmented) it cycled for
# minutes. Every QP of the test suite took at most 3.5 (n_rows + n_cols)
# iterations (483 on a 364-variable dual); the limit allows 1000 + 20 (n_rows + n_cols),
# counted in iterations, not seconds, so that the answer does not depend on machine load
_QP_ITERATIONS = (1000, 20)


def qp_iteration_limit(n_rows: int, n_cols: int) -> int:
    """The iteration limit :func:`solve` gives HiGHS's QP solver: 1000 + 20 (rows + cols)."""
    base, per = _QP_ITERATIONS
    return base + per * (n_rows + n_cols)


@dataclass(frozen=True)
class HighsResult:
    """What one HiGHS run returned: status name, primal values, row duals, MIP gap, and
    whether Ctrl-C stopped it (a MILP asked to keep its incumbent then)."""

    status: str
    x: NDArray
    row_dual: NDArray
    objective: float
    mip_gap: float
    interrupted: bool = False


INTERRUPTED = "Interrupted by user"
"""HiGHS's status of a solve stopped through its interrupt callback (Ctrl-C)."""


class _QuietHighs(highspy.Highs):
    """A Highs instance that is silent from its construction on.

    highspy 1.16's constructor calls ``enableCallbacks``, which prints HiGHS's banner to
    standard output before ``silent()`` can be called: it would corrupt the CLI's JSON
    output. Going silent first is the fix HiGHS's maintainers advise ("set output_flag
    before calling a HiGHS method").
    """

    def enableCallbacks(self):  # noqa: N802 (highspy's name)
        self.silent()
        return super().enableCallbacks()


def _lp(A: sp.spmatrix, cost: NDArray, col_bounds: tuple, row_bounds: tuple) -> highspy.HighsLp:
    A = sp.csc_matrix(A, dtype=np.float64)
    A.sort_indices()
    lp = highspy.HighsLp()
    lp.num_row_, lp.num_col_ = A.shape
    lp.col_cost_ = np.asarray(cost, dtype=np.float64)
    lp.col_lower_, lp.col_upper_ = (np.asarray(b, dtype=np.float64) for b in col_bounds)
    lp.row_lower_, lp.row_upper_ = (np.asarray(b, dtype=np.float64) for b in row_bounds)
    lp.a_matrix_.format_ = highspy.MatrixFormat.kColwise
    lp.a_matrix_.num_row_, lp.a_matrix_.num_col_ = A.shape
    lp.a_matrix_.start_ = A.indptr.astype(np.int32)
    lp.a_matrix_.index_ = A.indices.astype(np.int32)
    lp.a_matrix_.value_ = A.data
    return lp


def _hessian(diagonal: NDArray) -> highspy.HighsHessian:
    """A diagonal Hessian in HiGHS's lower-triangular CSC form (zero columns omitted)."""
    diagonal = np.asarray(diagonal, dtype=np.float64)
    cols = np.flatnonzero(diagonal)
    start = np.zeros(diagonal.size + 1, dtype=np.int32)
    start[1:] = np.cumsum(diagonal != 0)
    hessian = highspy.HighsHessian()
    hessian.dim_ = diagonal.size
    hessian.format_ = highspy.HessianFormat.kTriangular
    hessian.start_ = start
    hessian.index_ = cols.astype(np.int32)
    hessian.value_ = diagonal[cols]
    return hessian


def _dense_hessian(matrix: NDArray) -> highspy.HighsHessian:
    """A dense symmetric Hessian in HiGHS's lower-triangular CSC form."""
    matrix = np.asarray(matrix, dtype=np.float64)
    n = matrix.shape[0]
    cols, rows = np.triu_indices(n)  # (j, i) with i >= j, column by column
    hessian = highspy.HighsHessian()
    hessian.dim_ = n
    hessian.format_ = highspy.HessianFormat.kTriangular
    hessian.start_ = np.r_[0, np.cumsum(np.arange(n, 0, -1))].astype(np.int32)
    hessian.index_ = rows.astype(np.int32)
    hessian.value_ = matrix[rows, cols]
    return hessian


@contextlib.contextmanager
def _c_stdout_to_stderr():
    """Point file descriptor 1 at standard error while HiGHS runs.

    HiGHS's QP solver writes "error" lines with C's printf even with ``output_flag`` off
    (highspy 1.15.1, on nearly parallel rows): on standard output they would corrupt the
    CLI's JSON. C's stdout buffer is flushed before the descriptor is restored, so nothing
    written during the solve comes out on it later. Where descriptor 1 is not open there
    is nothing to protect; where descriptor 2 is not (``2>&-``), the lines go to the null
    device. A process started without those descriptors has ``sys.stdout`` (or
    ``sys.stderr``) None, which every solve used to fail on.
    """
    if sys.stdout is not None:
        sys.stdout.flush()
    try:
        saved = os.dup(1)
    except OSError:
        yield
        return
    try:
        _point_at_stderr(1)
        yield
    finally:
        _flush_c_stdio()
        os.dup2(saved, 1)
        os.close(saved)


def _point_at_stderr(descriptor: int) -> None:
    """Make `descriptor` write where standard error does, or to the null device where
    descriptor 2 is not open."""
    try:
        os.dup2(2, descriptor)
    except OSError:
        point_at_null(descriptor)


def _flush_c_stdio() -> None:
    try:
        _c_library().fflush(None)  # every C stream, as fflush(NULL) does
    except (OSError, AttributeError, TypeError):  # pragma: no cover - no C library by name
        pass


@functools.cache
def _c_library():
    """The process's C library (loaded once: a CDLL per solve cost 20 us of a 25 us guard)."""
    return ctypes.CDLL(None)


def _run(h: highspy.Highs, interruptible: bool, keep: bool = False,
         stop_at_once: bool = False, counts: str = "") -> bool:
    """h.run(), in a worker thread when ``interruptible``, so that Ctrl-C stops it; C-level
    output goes to standard error (:func:`_c_stdout_to_stderr`). Returns whether it was
    interrupted.

    HiGHS holds the main thread in C++ until it returns, and Python only handles SIGINT
    between bytecodes: a MILP with no time limit could ignore Ctrl-C for hours. The solve
    runs in highspy's worker thread instead; the main thread waits in short slices, and on
    KeyboardInterrupt asks HiGHS to stop through its interrupt callbacks (checked between
    simplex iterations and MIP nodes), waits for it and re-raises. highspy's own
    ``joinSolve`` would print to standard output and swallow the interrupt. With ``keep``
    the interrupt is not re-raised: HiGHS stops and keeps its incumbent, which the caller
    reads (a second Ctrl-C while it stops is raised). ``stop_at_once`` asks HiGHS to stop
    as soon as it starts (the problems left after an interrupted one). While a MILP runs,
    its incumbent, bound and gap are reported to :func:`halfspaces._utils.progress.status`
    (its objective named `counts`).
    """
    with _c_stdout_to_stderr():
        return _run_in_place(h, interruptible, keep, stop_at_once, counts)


def _run_in_place(h: highspy.Highs, interruptible: bool, keep: bool = False,
                  stop_at_once: bool = False, counts: str = "") -> bool:
    if not interruptible:
        h.run()
        return False
    watch = _MipWatch(h, counts) if progress.hears_status() else None
    h.HandleUserInterrupt = True
    h.startSolve()
    if stop_at_once:
        h.cancelSolve()
    try:
        while not h.wait(0.1)[0]:
            if watch is not None:
                watch.report()
    except KeyboardInterrupt:
        h.cancelSolve()
        while not h.wait(0.1)[0]:
            pass
        if not keep:
            raise
        return True
    if watch is not None:
        watch.report()  # the last figures, also of a MILP done within a slice
    return stop_at_once


class _MipWatch:
    """The latest incumbent, bound and gap HiGHS reports to its MIP callbacks (in its own
    thread), passed on from the main thread (where the listener lives) when they change."""

    def __init__(self, h: highspy.Highs, counts: str) -> None:
        self._counts = counts
        self._latest: tuple[float, float, float] | None = None
        self._shown: tuple[float, float, float] | None = None
        h.cbMipImprovingSolution.subscribe(self._heard)
        h.cbMipInterrupt.subscribe(self._heard)

    def _heard(self, event) -> None:
        out = event.data_out
        self._latest = (out.mip_primal_bound, out.mip_dual_bound, out.mip_gap)

    def report(self) -> None:
        latest = self._latest
        if latest is not None and latest != self._shown:
            self._shown = latest
            progress.status(mip_status(*latest, counts=self._counts))


def mip_status(incumbent: float, bound: float, gap: float, counts: str = "") -> str:
    """A MILP's figures in words: its incumbent's objective (named `counts`: the 0-1
    MILP's errors), the best bound and the relative gap, as HiGHS reports them; "-" for
    a figure HiGHS does not have yet (the bound before the root LP is -inf).

    Examples
    --------
    >>> mip_status(77.00000095, 12.5, 0.8377, counts="errors")
    'incumbent 77 errors, bound 12.5, gap 83.8%'
    """
    unit = f" {counts}" if counts else ""
    best = f"incumbent {incumbent:,.6g}{unit}" if abs(incumbent) < INF else "no incumbent yet"
    low = f"{bound:,.6g}" if abs(bound) < INF else "-"
    gap_text = f"{gap:.1%}" if 0 <= gap < INF else "-"
    return f"{best}, bound {low}, gap {gap_text}"


def _failure(what: str, status: str, options: dict) -> str:
    """The message for a status :func:`solve` does not accept."""
    if status == "Iteration limit reached" and "qp_iteration_limit" in options:
        return (f"HiGHS could not solve the {what}: its QP solver reached its iteration limit "
                f"({options['qp_iteration_limit']}) without converging, as it does where "
                "rows are nearly parallel (a small cluster far from the origin); centre "
                "or rescale the features.")
    return (f"HiGHS could not solve the {what}: model status {status!r}. The data may be too "
            "badly scaled; rescale the features, or raise the time limit if one was set.")


def solve(
    A: sp.spmatrix,
    cost: NDArray,
    col_bounds: tuple,
    row_bounds: tuple,
    *,
    hessian_diagonal: NDArray | None = None,
    hessian: NDArray | None = None,
    integrality: NDArray | None = None,
    options: dict | None = None,
    accept: tuple[str, ...] = (),
    start: NDArray | None = None,
    what: str = "problem",
    keep_on_interrupt: bool = False,
    stop_at_once: bool = False,
    counts: str = "",
) -> HighsResult:
    r"""Solve one LP, diagonal convex QP or MILP with HiGHS; raise unless the status is accepted.

    .. math:: \min_x\ c^\top x + \tfrac12 x^\top \operatorname{diag}(h)\, x
              \ \text{s.t.}\ r_l \le A x \le r_u,\ x_l \le x \le x_u,
              \ x_j \in \mathbb{Z}\ (j \text{ integral})

    Parameters
    ----------
    A : sparse matrix of shape (n_rows, n_cols)
        The constraint matrix.
    cost : ndarray of shape (n_cols,)
        The linear cost c.
    col_bounds, row_bounds : tuple of two ndarrays
        Lower and upper bounds of x and of A x (``INF`` where absent).
    hessian_diagonal : ndarray of shape (n_cols,) or None, default=None
        h, for a QP (zero entries leave a variable unpenalised).
    hessian : ndarray of shape (n_cols, n_cols) or None, default=None
        A dense symmetric positive semidefinite H in place of diag(h), for a QP.
    integrality : ndarray of shape (n_cols,) or None, default=None
        1 for an integer variable, 0 for a continuous one (a MILP).
    options : dict or None, default=None
        HiGHS options, e.g. ``{"time_limit": 5.0}``. A QP gets ``qp_iteration_limit`` =
        :func:`qp_iteration_limit` unless they set it.
    accept : tuple of str, default=()
        HiGHS model statuses besides ``"Optimal"`` that the caller handles itself (e.g.
        ``"Infeasible"``, ``"Time limit reached"``).
    start : ndarray of shape (n_cols,) or None, default=None
        A starting point (a MILP's first incumbent).
    what : str, default="problem"
        The problem's name in the error message.
    keep_on_interrupt : bool, default=False
        A MILP stopped by Ctrl-C returns its incumbent (``interrupted`` True, status
        :data:`INTERRUPTED`) instead of raising KeyboardInterrupt; without one it raises.
    stop_at_once : bool, default=False
        A MILP is stopped as soon as it starts, as if interrupted (its incumbent is the
        `start` point, or what HiGHS's presolve found).
    counts : str, default=""
        What a MILP's objective counts ("errors"), for its progress
        (:func:`halfspaces._utils.progress.status`).

    Returns
    -------
    result : HighsResult

    Raises
    ------
    SolverError
        On any status other than ``"Optimal"`` and those in ``accept``.
    """
    lp = _lp(A, cost, col_bounds, row_bounds)
    if integrality is not None:
        lp.integrality_ = [highspy.HighsVarType(int(v)) for v in integrality]
    h = _QuietHighs()
    h.silent()  # highspy versions whose constructor does not call enableCallbacks
    options = dict(options or {})
    if hessian_diagonal is not None or hessian is not None:
        options.setdefault("qp_iteration_limit", qp_iteration_limit(*A.shape))
    for key, value in options.items():
        h.setOptionValue(key, value)
    if hessian_diagonal is None and hessian is None:
        h.passModel(lp)
    else:
        model = highspy.HighsModel()
        model.lp_ = lp
        model.hessian_ = (_hessian(hessian_diagonal) if hessian is None
                          else _dense_hessian(hessian))
        h.passModel(model)
    if start is not None:
        solution = highspy.HighsSolution()
        solution.col_value = np.asarray(start, dtype=np.float64)
        h.setSolution(solution)
    interrupted = _run(h, interruptible=integrality is not None, keep=keep_on_interrupt,
                       stop_at_once=stop_at_once, counts=counts)
    status = h.modelStatusToString(h.getModelStatus())
    solution = h.getSolution()
    if interrupted and status == INTERRUPTED and not solution.value_valid:
        raise KeyboardInterrupt  # stopped before any incumbent: nothing to keep
    if status != "Optimal" and status not in accept and not (interrupted and
                                                               status == INTERRUPTED):
        raise SolverError(_failure(what, status, options))
    info = h.getInfo()
    return HighsResult(
        status=status,
        x=np.array(solution.col_value, dtype=np.float64),
        row_dual=np.array(solution.row_dual, dtype=np.float64),
        objective=float(info.objective_function_value),
        mip_gap=float(info.mip_gap),
        interrupted=interrupted and status == INTERRUPTED,
    )
