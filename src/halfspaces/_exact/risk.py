r"""Empirical risk minimisation on non-separable data: the hinge LP and the 0-1 MILP.

Both are stated on the signed rows z_i = y_i x'_i, solved by HiGHS and checked in floating
point: the hinge LP's loss is recomputed, and the 0-1 MILP's choice of correct points is
re-solved exactly by the separability LP of :func:`decide`, its errors recounted.

References
----------
.. [1] K. P. Bennett and O. L. Mangasarian. Robust linear programming discrimination of two
   linearly inseparable sets. Optimization Methods and Software 1, 1992 (the hinge LP).
.. [2] V. Feldman, V. Guruswami, P. Raghavendra and Y. Wu. Agnostic learning of monomials by
   halfspaces is hard. FOCS 2009 (why exact 0-1 ERM needs integer programming).
.. [3] S. Shalev-Shwartz and S. Ben-David. Understanding Machine Learning, 2014. Sections
   9.1.1 (ERM by linear programming) and 15.2 (the hinge loss).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from numpy.typing import NDArray

from halfspaces._exact.feasibility import decide
from halfspaces._exact.highs import INF, HighsResult, SolverError, solve
from halfspaces._exact.signed import scores
from halfspaces._utils.scaling import column_scales, scale_columns
from halfspaces.losses import hinge

__all__ = ["ZeroOneFit", "hinge_lp", "zero_one_erm"]

# HiGHS's statuses for a MILP stopped by time_limit or mip_max_nodes: the incumbent is kept
_LIMITS = ("Time limit reached", "Iteration limit reached", "Solution limit reached")


def hinge_lp(Z) -> NDArray:
    r"""argmin_w sum_i max(0, 1 - <w, z_i>) by HiGHS (the slacks as variables), checked.

    .. math:: \min_{w, s}\ \sum_i s_i \ \text{s.t.}\ \langle w, z_i\rangle + s_i \ge 1,
              \ s_i \ge 0

    (Bennett and Mangasarian 1992). The hinge loss of the returned w is recomputed with
    :func:`halfspaces.losses.hinge` and must match the LP's optimum.

    Parameters
    ----------
    Z : ndarray or csr_matrix of shape (n_rows, n_columns)
        The signed rows z_i = y_i x'_i.

    Returns
    -------
    w : ndarray of shape (n_columns,)

    Raises
    ------
    SolverError
        When HiGHS fails or its w does not reach the reported loss.

    Examples
    --------
    >>> import numpy as np
    >>> from halfspaces._exact import hinge_lp
    >>> hinge_lp(np.array([[1.0], [-1.0]])).shape  # x = 1 labelled both ways: loss 2
    (1,)
    """
    n, p = Z.shape
    A = sp.hstack([sp.csr_matrix(Z), sp.identity(n, format="csr")])
    cost = np.r_[np.zeros(p), np.ones(n)]
    cols = (np.r_[np.full(p, -INF), np.zeros(n)], np.full(n + p, INF))
    res = solve(A, cost, cols, (np.ones(n), np.full(n, INF)), what="hinge-loss LP")
    w = res.x[:p]
    loss = float(hinge(scores(Z, w)).sum())
    if loss > res.objective + 1e-6 * max(1.0, res.objective):
        raise SolverError(f"the hinge-loss LP reported {res.objective:.6g} but its w has "
                          f"hinge loss {loss:.6g}; rescale X.")
    return w


@dataclass(frozen=True)
class ZeroOneFit:
    """The answer of :func:`zero_one_erm`.

    Attributes
    ----------
    w : ndarray of shape (n_columns,)
        The hyperplane w' kept.
    n_errors : int
        Its errors <w', z_i> <= 0, recounted in floating point.
    optimal : bool
        Whether HiGHS proved the optimum (False when stopped at the time or node limit).
    gap : float
        HiGHS's relative MIP gap at the end (0.0 when optimal).
    interrupted : bool
        Whether Ctrl-C (or ``stop_at_once``) stopped HiGHS: ``w`` is then the best
        hyperplane found so far, not proved optimal.
    """

    w: NDArray
    n_errors: int
    optimal: bool
    gap: float
    interrupted: bool = False


def zero_one_erm(Z, margin_tol: float, time_limit: float | None = None,
                 node_limit: int | None = None, *, stop_at_once: bool = False) -> ZeroOneFit:
    r"""Fewest errors over all halfspaces, by HiGHS's MILP with one binary per row.

    With w' normalised to ||w'||_inf <= 1 and one binary e_i per row:

    .. math:: \min \sum_i e_i \ \text{s.t.}\ \langle w', z_i\rangle \ge \tau - M_i e_i,
              \quad M_i = \tau + \lVert z_i\rVert_1,\quad -1 \le w'_j \le 1,

    where e_i = 0 forces row i to the right side with margin tau = ``margin_tol`` and M_i
    is big enough to switch the constraint off. The MILP is stated on the columns scaled by
    powers of two to max |z_ij| in [1, 2) (:func:`column_scales`; w' is mapped back exactly),
    so tau and the box mean the same whatever the units of X: on raw columns, data of scale
    1e-6 could not reach tau inside the box and were counted as errors. The hinge-LP
    hyperplane, scaled into the box, is the first incumbent. The rows the MILP calls correct
    are then separated exactly by :func:`decide`, and that hyperplane is kept when it errs no
    more often.

    Parameters
    ----------
    Z : ndarray or csr_matrix of shape (n_rows, n_columns)
        The signed rows z_i = y_i x'_i.
    margin_tol : float
        tau, in (0, 1), on the scaled columns.
    time_limit : float or None, default=None
        Seconds for HiGHS; the best hyperplane found so far is kept.
    node_limit : int or None, default=None
        Branch-and-bound nodes for HiGHS (``mip_max_nodes``): a budget that, unlike the
        time limit, gives the same answer on a loaded machine.
    stop_at_once : bool, default=False
        Stop HiGHS as soon as it starts, as Ctrl-C does (the problems left after an
        interrupted one): the first incumbent is kept.

    On Ctrl-C HiGHS stops and its incumbent is kept, as at the time limit: ``optimal``
    False, ``gap`` HiGHS's, and ``interrupted`` True (a second Ctrl-C while it stops is
    raised).

    Returns
    -------
    result : ZeroOneFit

    Examples
    --------
    >>> import numpy as np
    >>> from halfspaces._exact import signed_rows, zero_one_erm
    >>> X = np.array([[0.0], [1.0], [2.0], [3.0]])
    >>> fit = zero_one_erm(signed_rows(X, np.array([-1.0, 1.0, -1.0, 1.0]), True), 1e-5)
    >>> fit.n_errors, fit.optimal
    (1, True)
    """
    p = Z.shape[1]
    s = column_scales(Z)
    res = _zero_one_milp(scale_columns(Z, s), float(margin_tol), time_limit, node_limit,
                         stop_at_once)
    w = _refit_on_correct(Z, s * res.x[:p], res.x[p:] < 0.5)  # exact: powers of two
    optimal = res.status == "Optimal"
    return ZeroOneFit(w, int(np.sum(scores(Z, w) <= 0)), optimal,
                      0.0 if optimal else float(res.mip_gap), res.interrupted)


def _zero_one_milp(Z, tau: float, time_limit: float | None,
                   node_limit: int | None, stop_at_once: bool = False) -> HighsResult:
    n, p = Z.shape
    l1 = (np.asarray(abs(Z).sum(axis=1)).ravel())
    A = sp.hstack([sp.csr_matrix(Z), sp.diags(tau + l1)], format="csr")
    options = {} if time_limit is None else {"time_limit": float(time_limit)}
    if node_limit is not None:
        options["mip_max_nodes"] = int(node_limit)
    w0 = hinge_lp(Z)  # a good first incumbent: the hinge-loss hyperplane, in the box
    w0 = w0 / max(np.abs(w0).max(), 1e-300)
    z0 = (scores(Z, w0) < tau).astype(np.float64)
    return solve(A, np.r_[np.zeros(p), np.ones(n)],
                 (np.r_[-np.ones(p), np.zeros(n)], np.r_[np.ones(p), np.ones(n)]),
                 (np.full(n, tau), np.full(n, INF)),
                 integrality=np.r_[np.zeros(p), np.ones(n)], options=options,
                 start=np.r_[w0, z0],
                 accept=_LIMITS, what="0-1 ERM MILP", keep_on_interrupt=True,
                 stop_at_once=stop_at_once, counts="errors")


def _refit_on_correct(Z, w_milp: NDArray, correct: NDArray) -> NDArray:
    """Separate the points the MILP called correct exactly (LP, verified); keep the better w."""
    best = w_milp
    if correct.any():
        w = decide(Z[np.flatnonzero(correct)]).separator
        if w is not None and np.sum(scores(Z, w) <= 0) <= np.sum(scores(Z, best) <= 0):
            best = w
    return best
