r"""The minimum-norm separator (hard-margin SVM) by HiGHS's convex QP, its optimality checked.

.. math::
    \min_{w'}\ \tfrac12 \sum_{j} h_j w_j'^2 \ \text{s.t.}\ \langle w', z_i\rangle \ge 1,
    \qquad h = (0, 1, \dots, 1) \text{ (intercept free) or } (1, \dots, 1),

on the signed rows z_i = y_i x'_i (Shalev-Shwartz and Ben-David 2014, Section 15.1). It is
solved on a working set of rows, as :func:`decide` is, and its answer is accepted only when
the Lagrange dual

.. math:: \max_{a \ge 0}\ \textstyle\sum_i a_i - \tfrac12 \sum_j h_j
          \big(\sum_i a_i z_{ij}\big)^2

(with sum_i a_i z_i0 = 0 when w_0 is free) closes the duality gap (Boyd and Vandenberghe
2004, Sections 5.2 and 5.5): the hyperplane is then optimal, not just feasible.

First, on rows held in this process, the dual by coordinate descent on every row
(:mod:`.coordinate`): its candidates (w, a) are checked as the QPs' answers are, and the
QPs take over where none passes. Then two formulations, each on a working set of rows
(only violated rows are added):

- the primal QP in w (p variables), the fast one when p is small, its a from the row duals;
- the dual QP in a on the working set W, with the dense Gram matrix Z_W Z_W^T (Cortes and
  Vapnik 1995), the fast one when p is large (hundreds of features): it only needs as
  many variables as the working set has rows, and w = Z_W^T a, with the intercept read off
  the support rows of the two classes.

Each is tried in turn and its answer accepted only after the checks above; the features
are first scaled by one power of two (exact) so that HiGHS sees entries of order 1. The
primal fails where the free intercept and dependent columns (one-hot columns summing to the
constant feature) make it degenerate; the dual has neither difficulty.

References
----------
.. [1] S. Shalev-Shwartz and S. Ben-David. Understanding Machine Learning, 2014. Section 15.1.
.. [2] S. Boyd and L. Vandenberghe. Convex Optimization, 2004. Sections 5.2 and 5.5.
.. [3] C. Cortes and V. Vapnik. Support-vector networks. Machine Learning 20, 1995 (the dual).
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from numpy.typing import NDArray

from halfspaces._exact.coordinate import coordinate_candidates, equalising_w0
from halfspaces._exact.feasibility import (
    check_rows,
    decide,
    first_rows,
    grow_working_set,
)
from halfspaces._exact.highs import INF, SolverError, solve
from halfspaces._exact.rational import unproved_certificate_error
from halfspaces._exact.signed import SignedRows, scores
from halfspaces._utils.blas import one_blas_thread
from halfspaces._utils.scaling import power_of_two_scales
from halfspaces.exceptions import NotSeparableError

__all__ = ["min_norm_separator"]

_WIDE = 200  # more columns than this: the dual QP first (its size does not grow with p)
_DUAL_FIRST = 256  # the dual's first working set, and the least rows it adds per round
_GAP = 1e-6  # accepted relative duality gap
_VIOLATION = 1e-7  # rows with <w, z_i> < 1 - _VIOLATION join the working set
_NOT_SEPARABLE = (
    "The data are not linearly separable, so there is no maximum-margin hyperplane; "
    "`.certificate` holds a >= 0, sum(a) = 1, sum_i a_i y_i x'_i = 0. Use "
    "LinearProgramClassifier(on_infeasible='hinge') or a soft-margin model instead."
)


def min_norm_separator(Z, free_first: bool) -> NDArray:
    """argmin ||w_reg||^2 s.t. <w, z_i> >= 1 (w_0 unpenalised when free_first), by HiGHS QP.

    Parameters
    ----------
    Z : ndarray, csr_matrix or SignedRows of shape (n_rows, n_columns)
        The signed rows z_i = y_i x'_i (a :class:`~halfspaces._exact.signed.SignedRows` may
        hold them in row blocks elsewhere).
    free_first : bool
        Leave w_0 (the intercept, when x' = (1, x)) out of the norm. The first column must
        then be the signed constant feature: every |z_i0| equal and nonzero.

    Returns
    -------
    w : ndarray of shape (n_columns,)
        The QP's solution, its duality gap checked; its margins hold to HiGHS's
        feasibility tolerance (1e-7) by the primal QP and to a few 1e-6 by the dual QP on
        rank-deficient rows (measured on 80 rows of 3 features), so pass it through
        :func:`unit_separator` before promising <w, z_i> >= 1.

    Raises
    ------
    NotSeparableError
        When the rows are not separable; ``.certificate`` is the Gordan certificate of
        :func:`decide` on Z itself (not on the scaled rows the QP sees), proved exactly
        where it fits the budget.
    SolverError
        When neither formulation gives a hyperplane whose duality gap is closed, or the
        QP calls separable rows inseparable (as when the penalised columns' scales span
        more than float64 holds under the one scale they share).

    Examples
    --------
    >>> import numpy as np
    >>> from halfspaces._exact import min_norm_separator
    >>> min_norm_separator(np.array([[2.0], [4.0]]), free_first=False)
    array([0.5])
    """
    if not isinstance(Z, SignedRows):
        Z = SignedRows(Z.tocsr() if sp.issparse(Z) else np.asarray(Z, dtype=np.float64))
    if Z.shape[0] == 0:
        return np.zeros(Z.shape[1])
    s = _scales(Z, free_first)
    Zs = Z.scaled(s)
    methods = ((_coordinate, _dual, _balanced_dual, _primal) if Z.shape[1] > _WIDE
               else (_coordinate, _primal, _dual, _balanced_dual))
    failures = []
    for method in methods:
        try:
            return s * method(Z, Zs, free_first)  # exact: s holds powers of two
        except _LostColumns as err:
            raise SolverError(str(err)) from None  # every method sees the same rows Zs
        except SolverError as err:
            failures.append(f"{method.__name__.strip('_')}: {err}")
    raise SolverError("the hard-margin QP cannot be solved to a closed duality gap; "
                      + " ".join(failures))


def _scales(Z: SignedRows, free_first: bool) -> NDArray:
    """One power of two for the penalised columns (the norm must keep its shape), one for w_0.

    A single factor for all penalised columns changes the QP only by that factor; the free
    w_0 is not in the norm, so its column may be scaled alone, to entries +-1.
    """
    top = Z.column_max()
    s = np.ones(Z.shape[1])
    if free_first:
        low, high = Z.column_range(0)
        if not (low > 0 and low == high):
            raise ValueError("free_first needs the signed constant feature in column 0 "
                             "(every |z_i0| equal and nonzero).")
        s[0] = 1.0 / low
    rest = top[int(free_first):].max(initial=0.0)
    if rest > 0:
        s[int(free_first):] = power_of_two_scales(rest)
    return s


def _coordinate(Z: SignedRows, Zs: SignedRows, free_first: bool) -> NDArray:
    """The dual by coordinate descent on every row (:mod:`.coordinate`), each candidate
    checked by :func:`_verified` as the QPs' answers are: the fast path, which the QPs
    back up where it stops early (rows that look inseparable, passes run out), where
    every candidate is refused, and on rows held in blocks elsewhere."""
    rows = Zs.matrix()
    if rows is None:
        raise SolverError("its rows are held in blocks elsewhere.")
    # x_i = z_i0 z_i,reg are the caller's examples where the rows were not rescaled
    features = Z.features if free_first and Zs is Z else None
    refusal = "it stopped before any tolerance was reached."
    # matrix-vector products only: BLAS threads add contention, and idle ones spin on the
    # cores the compiled loop needs
    with one_blas_thread():
        for w, a in coordinate_candidates(rows, free_first, features=features):
            # more support rows than columns: the KKT system of the polish is singular, its
            # least-squares a was refused on mushrooms (621 rows of 113 columns) after 2 s
            polish = np.count_nonzero(a) <= rows.shape[1]
            try:
                return _verified(Zs, rows, w, a, free_first, polish=polish)
            except SolverError as err:
                refusal = str(err)
    raise SolverError(refusal)


def _primal(Z: SignedRows, Zs: SignedRows, free_first: bool) -> NDArray:
    """The primal QP in w on a working set of rows; a from its row duals."""
    n, p = Zs.shape
    diagonal = np.ones(p)
    if free_first:
        diagonal[0] = 0.0
    rows = first_rows(n)
    while True:
        ZW = Zs.take(rows)
        res = solve(ZW, np.zeros(p), (np.full(p, -INF), np.full(p, INF)),
                    (np.ones(rows.size), np.full(rows.size, INF)), hessian_diagonal=diagonal,
                    accept=("Infeasible",), what="hard-margin QP")
        if res.status == "Infeasible":
            raise _not_separable(Z, Zs, rows, free_first)
        found = check_rows(Zs, res.x, rows, 1.0 - _VIOLATION, strict=True)
        grown = grow_working_set(rows, found)
        if grown is None:
            a = np.maximum(-res.row_dual, 0.0)
            if a.sum() == 0:
                a = np.maximum(res.row_dual, 0.0)
            return _verified(Zs, ZW, res.x, a, free_first)
        rows = grown


def _balanced_dual(Z: SignedRows, Zs: SignedRows, free_first: bool) -> NDArray:
    """:func:`_dual` with rows of every norm weighed alike (see :func:`_dual_qp`): a
    fallback, as its gaps on ordinary rows are wider (1.6e-6 against the 1e-6 accepted, on
    400 x 250 random rows)."""
    return _dual(Z, Zs, free_first, balanced=True)


def _dual(Z: SignedRows, Zs: SignedRows, free_first: bool, balanced: bool = False) -> NDArray:
    """The dual QP in a on a working set W with the dense Gram Z_W Z_W^T; w = Z_W^T a.

    The working set's separability is decided first in each round (one LP on its rows, a
    tenth of the QP's time): on rows that are not separable the dual is unbounded, and
    HiGHS's QP solver was seen to take a minute on 1,000 such rows of a9a and then report
    'Optimal'. A certificate for the working set is one for the whole sample.
    """
    n = Zs.shape[0]
    rows = np.arange(n) if n <= _DUAL_FIRST else np.sort(
        np.random.default_rng(0).choice(n, _DUAL_FIRST, replace=False))
    while True:
        ZW = Zs.take(rows)
        if not decide(ZW).separable:  # on the scaled rows: proved again on Z's own
            raise _not_separable(Z, Zs, rows, free_first)
        a = _dual_qp(ZW, free_first, balanced)
        if a is None:
            raise _not_separable(Z, Zs, rows, free_first)
        w = _primal_from_dual(ZW, a, free_first)
        grown = grow_working_set(rows, check_rows(Zs, w, rows, 1.0 - _VIOLATION, strict=True,
                                                  least=_DUAL_FIRST))
        if grown is None:
            return _verified(Zs, ZW, w, a, free_first)
        rows = grown


def _dual_qp(ZW, free_first: bool, balanced: bool = False) -> NDArray | None:
    r"""argmax sum(a) - 1/2 a^T G a, a >= 0 (sum_i a_i z_i0 = 0 when free_first); None if unbounded.

    G = Z_reg Z_reg^T. The dual is unbounded exactly when the rows are not separable, but
    HiGHS does not always say so: on 60 inseparable rows of 3 features it returned an
    "optimal" a of size 1e5 to 1e7, so :func:`_dual` decides the rows' separability first.
    """
    k = ZW.shape[0]
    reg = ZW[:, 1:] if free_first else ZW
    G = reg @ reg.T
    G = np.asarray(G.toarray() if sp.issparse(G) else G)
    # balanced: in b = a / d with d_i = 1 / ||z_i,reg||, D G D has a unit diagonal, and
    # HiGHS's absolute tolerances weigh every row alike. Unbalanced, a row of norm 1 beside
    # one of norm 316 (the two rows of a 100,000-column file) got a_i = 0 where 2e-5 was
    # optimal, and the hyperplane missed it
    diagonal = np.diag(G).copy()
    d = 1.0 / np.sqrt(np.where(diagonal > 0, diagonal, 1.0)) if balanced else np.ones(k)
    Gd = d[:, None] * G * d[None, :]
    if free_first:
        first = np.asarray(ZW[:, [0]].toarray() if sp.issparse(ZW) else ZW[:, [0]]).ravel()
        A = sp.csr_matrix((first * d)[None, :])
        row_bounds = (np.zeros(1), np.zeros(1))
    else:
        A = sp.csr_matrix((0, k))
        row_bounds = (np.zeros(0), np.zeros(0))
    # HiGHS can call the dual unbounded on separable rows when G is rank-deficient (more
    # rows than columns: rounding leaves eigenvalues of -1e-14; seen on 347 rows x 250
    # columns, where a ridge of 1e-10 max G_ii was not enough and 1e-8 was). The ridged dual
    # point is still a valid lower bound on the true problem; it is polished and checked later
    top = float(np.diag(Gd).max(initial=0.0))
    for ridge in (0.0, 1e-8 * top, 1e-6 * top):
        res = solve(A, -d, (np.zeros(k), np.full(k, INF)), row_bounds,
                    hessian=Gd + ridge * np.eye(k) if ridge else Gd,
                    accept=("Unbounded", "Unbounded or infeasible"),
                    what="hard-margin dual QP")
        if res.status == "Optimal":
            return np.maximum(res.x, 0.0) * d
    return None


def _primal_from_dual(ZW, a: NDArray, free_first: bool) -> NDArray:
    """w_reg = sum_i a_i z_i,reg and, when free, the w_0 that centres the two classes.

    With z_i0 = +-1 (the scaled constant feature) the best w_0 for a given w_reg equalises
    the smallest margins of the two sides: min_+ s_i + w_0 = min_- s_i - w_0.
    """
    reg = ZW[:, 1:] if free_first else ZW
    w_reg = np.asarray(reg.T @ a).ravel()
    if not free_first:
        return w_reg
    s = scores(reg, w_reg)
    c = np.asarray(ZW[:, 0].toarray() if sp.issparse(ZW) else ZW[:, 0]).ravel()
    return np.r_[equalising_w0(s, c), w_reg]


def _verified(Zs: SignedRows, ZW, w: NDArray, a: NDArray, free_first: bool,
              polish: bool = True) -> NDArray:
    """Of (w, a) and its polished twin (unless not ``polish``), the w with the smaller
    duality gap, if that is small."""
    candidates = [(w, a)]
    polished = _polish(Zs, ZW, w, a, free_first) if polish else None
    if polished is not None:
        candidates.append(polished)
    best, error = None, None
    for w_k, a_k in candidates:
        try:
            gap = _relative_gap(ZW, w_k, a_k, free_first)
        except SolverError as err:
            error = err
            continue
        if best is None or gap < best[0]:
            best = (gap, w_k)
    if best is None:
        raise error
    if not best[0] <= _GAP:  # a NaN gap proves nothing
        raise SolverError(f"it stopped with relative duality gap {best[0]:.3g}.")
    return best[1]


def _polish(Zs: SignedRows, ZW, w: NDArray, a: NDArray,
            free_first: bool) -> tuple[NDArray, NDArray] | None:
    """(w, a) re-solved from the KKT equations on the support of a, or None.

    HiGHS stops at its tolerances (1e-7), which leaves margins of 1 - 1e-7 and a relative
    error of about 1e-4 in w on wide data. On the support S = {a_i > 0} the optimum solves
    <w, z_i> = 1 (i in S) with w_reg = sum_S a_i z_i,reg (and sum_S a_i z_i0 = 0 when w_0 is
    free), a linear system solved here by least squares. The result is kept only when a >= 0,
    every row of Zs has margin >= 1 - 1e-12 and the objective is not larger than that of w
    scaled to margins >= 1 on ZW (w itself where it has them, as the QPs' answers have to
    1e-7, or where it separates nothing; a coordinate descent candidate's margins are
    1 - eps, and its own norm bounds nothing); it is then checked like any other answer.
    """
    support = np.flatnonzero(a > 1e-9 * a.max(initial=0.0))
    if support.size == 0:
        return None
    ZS = ZW[support]
    ZS = ZS.toarray() if sp.issparse(ZS) else ZS
    start = int(free_first)
    G = ZS[:, start:] @ ZS[:, start:].T
    k = support.size
    if free_first:
        K = np.block([[G, ZS[:, :1]], [ZS[:, :1].T, np.zeros((1, 1))]])
        rhs = np.r_[np.ones(k), 0.0]
    else:
        K, rhs = G, np.ones(k)
    sol = np.linalg.lstsq(K, rhs, rcond=None)[0]
    if np.any(sol[:k] < 0):
        return None
    a_new = np.zeros_like(a)
    a_new[support] = sol[:k]
    w_new = np.asarray(ZS[:, start:].T @ sol[:k]).ravel()
    if free_first:
        w_new = np.r_[sol[k], w_new]  # <w, z_i> = (G a)_i + w_0 z_i0 = 1 on S
    low = scores(ZW, w).min()
    w_feasible = w[start:] / min(low, 1.0) if low > 0 else w[start:]
    if (Zs.min_score(w_new) >= 1.0 - 1e-12
            and w_new[start:] @ w_new[start:] <= w_feasible @ w_feasible * (1.0 + 1e-9)):
        return w_new, a_new
    return None


class _LostColumns(SolverError):
    """The scaled rows lost columns the data need: every formulation sees the same rows."""


def _not_separable(Z: SignedRows, Zs: SignedRows, rows: NDArray, free_first: bool) -> Exception:
    """The error for working-set rows found inseparable on the scaled rows Zs.

    Separability is decided again by :func:`decide` on the same rows of Z itself, which
    scales each column alone: Zs shares one power of two among the penalised columns, so
    columns 2^1074 times smaller than the largest underflow there, and their
    certificate (rows (0, 1e-200) and (0, -1e-200) beside (1e200, 0)) proved nothing
    about Z. The error is NotSeparableError only with the certificate proved on Z; on
    rows Z separates, it is SolverError, naming the scales where they are the cause.
    """
    found = decide(Z.take(rows))
    if found.separable:
        lost = _lost_columns(Z, Zs, free_first)
        if lost is not None:
            return _LostColumns(lost)
        return SolverError("HiGHS called the max-margin QP infeasible, but its rows are "
                           "separable.")
    if not found.exact:
        return unproved_certificate_error(found.certificate)
    a = np.zeros(Z.shape[0])
    a[rows] = found.certificate  # a certificate for some rows is one for all
    return NotSeparableError(_NOT_SEPARABLE, certificate=a)


def _lost_columns(Z: SignedRows, Zs: SignedRows, free_first: bool) -> str | None:
    """Why the one scale of the penalised columns lost some of them, or None if none was.

    A column whose scaled entries fall below 2^-1022 (subnormal) has lost bits to the
    scale it shares with the largest column, or underflowed to 0.
    """
    top, scaled = Z.column_max()[int(free_first):], Zs.column_max()[int(free_first):]
    lost = (top > 0) & (scaled < np.finfo(np.float64).tiny)
    if not lost.any():
        return None
    ratio = np.log2(top.max()) - np.log2(top[lost].min())
    return ("the data are separable, but their max-margin QP cannot be solved in float64: "
            "its norm needs one scale for all penalised columns, and their sizes "
            f"(max_i |z_ij|) span a ratio of 2^{ratio:.0f}, beyond the 2^1022 that float64 "
            "holds in full precision, so the smallest underflow. Rescale the features "
            f"(columns {(np.flatnonzero(lost) + int(free_first)).tolist()} of the signed "
            "rows, the intercept's first where there is one, are the small ones).")


def _relative_gap(ZW, w: NDArray, a: NDArray, free_first: bool) -> float:
    """(P(w) - D(a)) / P(w): the duality gap between w (scaled feasible on W) and a.

    Weak duality: for a >= 0 (with sum_i a_i z_i0 = 0 when w_0 is free) the dual value is
    a lower bound on the optimum, and w scaled to min_i <w, z_i> = 1 on W is feasible there,
    so a small gap proves w optimal on W (and on every row, none of which it violates).
    """
    m = scores(ZW, w).min()
    if not m > 0:
        raise SolverError(f"its hyperplane does not separate the working set (min margin {m:.3g}).")
    w_feasible = w / min(m, 1.0)
    start = int(free_first)
    reg = ZW[:, start:]
    grad = np.asarray(reg.T @ a).ravel()
    with np.errstate(over="ignore", invalid="ignore"):  # an overflow is refused below
        primal = 0.5 * float(w_feasible[start:] @ w_feasible[start:])
        dual = float(a.sum()) - 0.5 * float(grad @ grad)
    if free_first:
        c = np.asarray(ZW[:, 0].toarray() if sp.issparse(ZW) else ZW[:, 0]).ravel()
        if abs(float(c @ a)) > _GAP * max(float(a.sum()), 1e-300):
            raise SolverError(f"its dual point violates sum_i a_i y_i = 0 by {float(c @ a):.3g}.")
    gap = (primal - dual) / max(primal, 1e-300)
    if not np.isfinite(gap):
        # ||w||^2 overflowed: columns whose scales differ by 1e100 share one scale, so the
        # QP's w is huge and its gap (inf - D) / inf is NaN, which would pass `gap > _GAP`
        raise SolverError(f"its duality gap is not finite (||w||^2 / 2 = {primal:.3g}, dual "
                          f"{dual:.3g}): the columns' scales are too far apart.")
    return gap
