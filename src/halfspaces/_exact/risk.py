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
from halfspaces._validation import column_max_abs
from halfspaces.losses import hinge

__all__ = ["ZeroOneFit", "hinge_lp", "lp_costs", "refuse_subnormal_columns", "scaled_hinge_lp",
           "zero_one_erm"]

# HiGHS's statuses for a MILP stopped by time_limit or mip_max_nodes: the incumbent is kept
_LIMITS = ("Time limit reached", "Iteration limit reached", "Solution limit reached")


def hinge_lp(Z, weights: NDArray | None = None) -> NDArray:
    r"""argmin_w sum_i c_i max(0, 1 - <w, z_i>) by HiGHS (the slacks as variables), checked.

    .. math:: \min_{w, s}\ \sum_i c_i s_i \ \text{s.t.}\ \langle w, z_i\rangle + s_i \ge 1,
              \ s_i \ge 0

    (Bennett and Mangasarian 1992), with c_i = 1 or the row weights. The weighted mean of
    the hinge loss has the same minimisers as its weighted sum, so the costs are the weights
    rescaled to mean 1 (:func:`lp_costs`): unit weights give the unweighted LP exactly, and
    HiGHS's absolute tolerances do not depend on the units of the weights. The weighted hinge
    loss of the returned w is recomputed with :func:`halfspaces.losses.hinge` and must match
    the LP's optimum.

    Parameters
    ----------
    Z : ndarray or csr_matrix of shape (n_rows, n_columns)
        The signed rows z_i = y_i x'_i.
    weights : ndarray of shape (n_rows,) or None, default=None
        Positive row weights (rows of weight zero are the caller's to drop); None for 1.

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
    >>> float(hinge_lp(np.array([[1.0], [-1.0]]), np.array([3.0, 1.0]))[0])  # the heavier wins
    1.0
    """
    n, p = Z.shape
    A = sp.hstack([sp.csr_matrix(Z), sp.identity(n, format="csr")])
    costs = lp_costs(weights, n)
    cost = np.r_[np.zeros(p), costs]
    cols = (np.r_[np.full(p, -INF), np.zeros(n)], np.full(n + p, INF))
    res = solve(A, cost, cols, (np.ones(n), np.full(n, INF)), what="hinge-loss LP")
    w = res.x[:p]
    loss = float(costs @ hinge(scores(Z, w)))
    if loss > res.objective + 1e-6 * max(1.0, res.objective):
        raise SolverError(f"the hinge-loss LP reported {res.objective:.6g} but its w has "
                          f"hinge loss {loss:.6g}; rescale X.")
    return w


def scaled_hinge_lp(Z, weights: NDArray | None = None) -> NDArray:
    """:func:`hinge_lp` on the columns of Z scaled by powers of two to max |z_ij| in [1, 2).

    The hinge loss of w on Z diag(s) is that of diag(s) w on Z, exactly, so the minimiser
    maps back without rounding. HiGHS's tolerances are absolute: on raw columns of 2^-600
    it returned w = 0, hinge loss 40 on 40 rows whose least is 16.3 (and 18.4 with one
    column at 2^-300, which it dropped).
    """
    s = column_scales(Z)
    with np.errstate(over="ignore"):
        w = s * hinge_lp(scale_columns(Z, s), weights)
    if not np.all(np.isfinite(w)):
        j = int(np.argmax(~np.isfinite(w)))
        raise SolverError(f"the hinge-loss minimiser needs a weight beyond float64's range "
                          f"for column {j} of x' (its entries are too small): rescale X.")
    return w


def lp_costs(weights: NDArray | None, n: int) -> NDArray:
    """The costs of the n rows' slacks: 1, or positive `weights` rescaled to mean 1.

    Rescaling keeps every minimiser (the objective is multiplied by a constant) and keeps
    the costs near 1, where HiGHS's absolute tolerances are meant to work.
    """
    if weights is None:
        return np.ones(n)
    weights = np.asarray(weights, dtype=np.float64)
    return weights * (n / weights.sum())


@dataclass(frozen=True)
class ZeroOneFit:
    """The answer of :func:`zero_one_erm`.

    Attributes
    ----------
    w : ndarray of shape (n_columns,)
        The hyperplane w' kept.
    n_errors : int
        Its errors <w', z_i> <= 0, recounted in floating point.
    error_weight : float
        The sum of the weights of those errors (``n_errors`` without weights): the
        weighted 0-1 error that the MILP minimises.
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
    error_weight: float = 0.0


def zero_one_erm(Z, margin_tol: float, time_limit: float | None = None,
                 node_limit: int | None = None, *, weights: NDArray | None = None,
                 stop_at_once: bool = False) -> ZeroOneFit:
    r"""Fewest (or lightest) errors over all halfspaces, by HiGHS's MILP with one binary per row.

    With w' normalised to ||w'||_inf <= 1 and one binary e_i per row:

    .. math:: \min \sum_i c_i e_i \ \text{s.t.}\ \langle w', z_i\rangle \ge \tau - M_i e_i,
              \quad M_i = \tau + \lVert z_i\rVert_1,\quad -1 \le w'_j \le 1,

    where e_i = 0 forces row i to the right side with margin tau = ``margin_tol`` and M_i
    is big enough to switch the constraint off; c_i = 1, or the row's weight (the weighted
    0-1 error). The MILP is stated on the columns scaled by
    powers of two to max |z_ij| in [1, 2) (:func:`column_scales`; w' is mapped back exactly),
    so tau and the box mean the same whatever the units of X: on raw columns, data of scale
    1e-6 could not reach tau inside the box and were counted as errors. The hinge-LP
    hyperplane, scaled into the box, is the first incumbent. The rows the MILP calls correct
    are then separated exactly by :func:`decide`, and that hyperplane is kept when its
    errors weigh no more.

    With weights the MILP is still solved to optimality: integer weights are its costs as
    they are (HiGHS then knows the objective is an integer, as without weights); others are
    rescaled to mean 1 and HiGHS's relative gap tolerance (1e-4 by default, which an integer
    objective below 10,000 closes anyway) is set to 0, so only its absolute one, 1e-6 of the
    mean weight, is left.

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
    weights : ndarray of shape (n_rows,) or None, default=None
        Positive row weights (rows of weight zero are the caller's to drop); None for 1.
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
    costs = _milp_costs(weights, Z.shape[0])
    res = _zero_one_milp(scale_columns(Z, s), float(margin_tol), time_limit, node_limit,
                         stop_at_once, costs)
    w = _refit_on_correct(Z, s * res.x[:p], res.x[p:] < 0.5, costs)  # exact: powers of two
    optimal = res.status == "Optimal"
    wrong = scores(Z, w) <= 0
    weight = float(wrong.sum() if weights is None else np.asarray(weights)[wrong].sum())
    return ZeroOneFit(w, int(np.sum(wrong)), optimal,
                      0.0 if optimal else float(res.mip_gap), res.interrupted, weight)


def _milp_costs(weights: NDArray | None, n: int) -> NDArray | None:
    """The MILP's costs: None for unit costs, integer weights as they are, others
    rescaled to mean 1 (:func:`lp_costs`)."""
    if weights is None:
        return None
    weights = np.asarray(weights, dtype=np.float64)
    integral = bool(np.all(weights == np.round(weights))) and weights.sum() < 2.0**52
    return weights if integral else lp_costs(weights, n)


def _zero_one_milp(Z, tau: float, time_limit: float | None,
                   node_limit: int | None, stop_at_once: bool = False,
                   costs: NDArray | None = None) -> HighsResult:
    n, p = Z.shape
    l1 = (np.asarray(abs(Z).sum(axis=1)).ravel())
    A = sp.hstack([sp.csr_matrix(Z), sp.diags(tau + l1)], format="csr")
    options: dict = {} if time_limit is None else {"time_limit": float(time_limit)}
    if node_limit is not None:
        options["mip_max_nodes"] = int(node_limit)
    if costs is not None:
        options["mip_rel_gap"] = 0.0  # exact for any weights, not within 0.01%
    w0 = hinge_lp(Z, costs)  # a good first incumbent: the hinge-loss hyperplane, in the box
    w0 = w0 / max(np.abs(w0).max(), 1e-300)
    z0 = (scores(Z, w0) < tau).astype(np.float64)
    return solve(A, np.r_[np.zeros(p), np.ones(n) if costs is None else costs],
                 (np.r_[-np.ones(p), np.zeros(n)], np.r_[np.ones(p), np.ones(n)]),
                 (np.full(n, tau), np.full(n, INF)),
                 integrality=np.r_[np.zeros(p), np.ones(n)], options=options,
                 start=np.r_[w0, z0],
                 accept=_LIMITS, what="0-1 ERM MILP", keep_on_interrupt=True,
                 stop_at_once=stop_at_once,
                 counts="errors" if costs is None else "weighted errors")


def _refit_on_correct(Z, w_milp: NDArray, correct: NDArray,
                      costs: NDArray | None = None) -> NDArray:
    """Separate the points the MILP called correct exactly (LP, verified); keep the better w
    (by the weight of its errors)."""
    costs = np.ones(Z.shape[0]) if costs is None else costs
    best = w_milp
    if correct.any():
        w = decide(Z[np.flatnonzero(correct)]).separator
        if w is not None and costs[scores(Z, w) <= 0].sum() <= costs[scores(Z, best) <= 0].sum():
            best = w
    return best


def refuse_subnormal_columns(X, program: str) -> None:
    """Refuse a column whose largest |x_ij| is subnormal (below 2^-1022), before the solve.

    The program's columns are scaled by powers of two to a largest entry in [1, 2); 2^1023
    is the largest there is, so a column of 2^-1060 stayed at 2^-37, below the solver's
    tolerances: the MILP proved "optimal" 16 errors on 24 points that a hyperplane
    separates (its weight for that column, of about 2^1060, is beyond float64's range).
    """
    top = column_max_abs(X)
    tiny = (top > 0) & (top < np.finfo(np.float64).tiny)
    if tiny.any():
        j = int(np.argmax(tiny))
        raise SolverError(
            f"column {j} of X has largest entry {top[j]:.3g} in absolute value, subnormal: "
            "a hyperplane that uses it needs a weight beyond float64's range, and the "
            f"{program} cannot scale it to its tolerances. Rescale X (multiply it by a power "
            "of two, such as 2^600).")
