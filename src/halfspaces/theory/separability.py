"""Linear separability with a checkable answer either way, and the maximum-margin hyperplane.

Both are decided on the signed rows z_i = y_i x'_i (see :mod:`halfspaces.theory._data`) by
HiGHS on a *working set* of rows: solve on a subset, check every row in floating point, add
the violated rows, repeat. The answer is exact, because a certificate of non-separability
for a subset is one for the whole sample, and a hyperplane that separates the whole sample
(checked row by row) needs nothing else. On large samples only a few thousand rows ever
reach the solver.

References
----------
.. [1] P. Gordan. Ueber die Auflösung linearer Gleichungen mit reellen Coefficienten.
   Mathematische Annalen 6, 1873 (the theorem of the alternative).
.. [2] S. Shalev-Shwartz and S. Ben-David. Understanding Machine Learning, 2014. Sections 9.1
   (the LP for ERM on separable data), 9.1.2 (the perceptron) and 15.1 (hard-margin SVM).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from numpy.typing import ArrayLike, NDArray
from scipy.optimize import nnls

from halfspaces.exceptions import NotSeparableError
from halfspaces.theory._data import check_X, plus_minus, signed_rows, tolerance_scale
from halfspaces.theory._highs import INF, SolverError, solve

__all__ = ["MaxMargin", "Separability", "max_margin", "separability"]

CERTIFICATE_TOL = 1e-9  # ||sum_i a_i z_i||_inf <= CERTIFICATE_TOL * max(1, max |z_ij|)
_FIRST_ROWS = 2000  # size of the first working set
_LP = {"presolve": "off"}  # HiGHS presolve costs more than it saves on these LPs


@dataclass(frozen=True)
class Separability:
    """The answer of :func:`separability`, with its proof.

    Attributes
    ----------
    separable : bool
        Whether some hyperplane puts every example strictly on its own side.
    coef : ndarray of shape (n_features,) or None
        When separable, weights w with y_i(<w, x_i> + b) >= 1 for every i.
    intercept : float or None
        When separable, the offset b (0.0 when ``fit_intercept`` is False).
    certificate : ndarray of shape (n_samples,) or None
        When not separable, a >= 0 with sum(a) = 1 and sum_i a_i y_i x'_i = 0.
    fit_intercept : bool
        Whether the question was about affine (True) or homogeneous halfspaces.
    """

    separable: bool
    coef: NDArray | None
    intercept: float | None
    certificate: NDArray | None
    fit_intercept: bool


@dataclass(frozen=True)
class MaxMargin:
    """The maximum-margin hyperplane and the quantities of the margin theorems.

    Attributes
    ----------
    coef : ndarray of shape (n_features,)
        w of the maximum-margin hyperplane, scaled so that min_i y_i(<w, x_i> + b) = 1.
    intercept : float
        Its offset b (0.0 when ``fit_intercept`` is False).
    margin : float
        The margin of the training set measured on x: min_i y_i(<w, x_i> + b) / ||w||, the
        largest over all separating hyperplanes (``inf`` when only one label occurs and b
        alone separates).
    norm_bound : float
        B = min ||w'|| subject to y_i <w', x'_i> >= 1, on the data the perceptron runs on
        (x' = (1, x) when ``fit_intercept``). The margin there is gamma' = 1 / B.
    augmented_margin : float
        gamma' = 1 / B, the margin on x'. For the hyperplane above scaled to ||w|| = 1,
        gamma' >= margin / sqrt(1 + b^2), the bound given in the lecture notes.
    support : ndarray of int
        Indices of the examples at the margin, y_i(<w, x_i> + b) = 1 (to 1e-6).
    fit_intercept : bool
        Whether the hyperplane is affine.
    """

    coef: NDArray
    intercept: float
    margin: float
    norm_bound: float
    augmented_margin: float
    support: NDArray
    fit_intercept: bool


def _first_rows(n: int) -> NDArray:
    if n <= _FIRST_ROWS:
        return np.arange(n)
    return np.sort(np.random.default_rng(0).choice(n, _FIRST_ROWS, replace=False))


def _scores(Z, w: NDArray) -> NDArray:
    return np.asarray(Z @ w, dtype=np.float64).ravel()


def _grow(rows: NDArray, violated: NDArray, m: NDArray) -> NDArray | None:
    """Add the most violated rows not yet in the working set; None when there are none."""
    new = np.setdiff1d(violated, rows, assume_unique=True)
    if new.size == 0:
        return None
    new = new[np.argsort(m[new], kind="stable")[: max(rows.size, 1000)]]
    return np.union1d(rows, new)


def _verified_certificate(Z, a: NDArray) -> NDArray | None:
    """a itself when a >= 0, sum(a) = 1 and ||Z^T a||_inf is within tolerance; else None."""
    if a is None or np.any(a < 0) or abs(a.sum() - 1.0) > 1e-12:
        return None
    residual = np.abs(np.asarray(Z.T @ a).ravel()).max()
    return a if residual <= CERTIFICATE_TOL * tolerance_scale(Z) else None


def _polish(Z, a: NDArray) -> NDArray | None:
    """Re-solve sum_S a_i z_i = 0, sum a = 1, a >= 0 on the support S of a (NNLS), verify."""
    support = np.flatnonzero(a > 0)
    if support.size == 0:
        return None
    ZS = Z[support]
    ZS = ZS.toarray() if sp.issparse(ZS) else ZS
    system = np.vstack([ZS.T, np.ones((1, support.size))])
    rhs = np.zeros(system.shape[0])
    rhs[-1] = 1.0
    c, _ = nnls(system, rhs)
    if c.sum() <= 0:
        return None
    polished = np.zeros(Z.shape[0])
    polished[support] = c / c.sum()
    return _verified_certificate(Z, polished)


def _gordan_lp(Z) -> NDArray | None:
    """Solve the alternative directly: a >= 0, sum(a) = 1, Z^T a = 0 (None if infeasible)."""
    n, p = Z.shape
    A = sp.vstack([sp.csr_matrix(Z).T, sp.csr_matrix(np.ones((1, n)))])
    rhs = np.r_[np.zeros(p), 1.0]
    res = solve(A, np.zeros(n), (np.zeros(n), np.full(n, INF)), (rhs, rhs),
                options=_LP, accept=("Infeasible",), what="Gordan alternative LP")
    return None if res.status == "Infeasible" else np.maximum(res.x, 0.0)


def _certificate(Z, row_dual: NDArray) -> NDArray | None:
    """A verified Gordan certificate for Z from the LP duals, polished; LP fallback."""
    for sign in (-1.0, 1.0):
        a = np.maximum(sign * row_dual, 0.0)
        if a.sum() > 0:
            found = _polish(Z, a / a.sum())
            if found is not None:
                return found
    direct = _gordan_lp(Z)
    return None if direct is None else _polish(Z, direct / direct.sum())


def _max_box_margin(ZW) -> tuple[NDArray, float, NDArray]:
    """max t s.t. <w, z_i> >= t, -1 <= w_j <= 1: t > 0 iff the rows are separable.

    Its dual is min ||sum_i a_i z_i||_1 over the simplex, so at t = 0 the row duals are a
    Gordan certificate.
    """
    n, p = ZW.shape
    A = sp.hstack([sp.csr_matrix(ZW), sp.csr_matrix(-np.ones((n, 1)))])
    cost = np.r_[np.zeros(p), -1.0]
    cols = (np.r_[-np.ones(p), -INF], np.r_[np.ones(p), INF])
    res = solve(A, cost, cols, (np.zeros(n), np.full(n, INF)), options=_LP,
                what="separability LP")
    return res.x[:p], float(res.x[p]), res.row_dual


# Margins are accepted at 1 + _SLACK/2 and scaled to 1 + _SLACK: users compute
# y_i(<w, x_i> + b) in another order than <w', z_i> here, which can round an exact 1 to
# 1 - 1 ulp; the slack keeps the promised ">= 1" true whichever way it is computed.
_SLACK = 1e-12


def _unit_separator(Z, w: NDArray) -> NDArray | None:
    """w scaled so that min_i <w, z_i> >= 1 holds in floating point; None if w fails."""
    for _ in range(3):
        low = _scores(Z, w).min()
        if not low > 0:
            return None
        if low >= 1.0 + _SLACK / 2:
            return w
        w = w * ((1.0 + _SLACK) / low)
    return None


def _decide(Z) -> tuple[NDArray | None, NDArray | None]:
    """(w, None) with min_i <w, z_i> >= 1, or (None, a) a verified certificate."""
    n = Z.shape[0]
    rows = _first_rows(n)
    while True:
        ZW = Z[rows]
        w, t, row_dual = _max_box_margin(ZW)
        if t > 0:
            m = _scores(Z, w)
            violated = np.flatnonzero(m <= 0)
            if violated.size == 0 and (w := _unit_separator(Z, w)) is not None:
                return w, None
            grown = _grow(rows, violated, m)
            if grown is not None:
                rows = grown
                continue
        a_rows = _certificate(ZW, row_dual)
        if a_rows is None:
            raise SolverError(
                "separability could not be decided: the LP's separator fails in floating "
                f"point (box margin t = {t:.3g}) and no certificate passes the 1e-9 check. "
                "Rescale X so that its entries are of order 1."
            )
        a = np.zeros(n)
        a[rows] = a_rows
        if _verified_certificate(Z, a) is None:  # pragma: no cover - same rows, same check
            raise SolverError("the certificate failed its check on the full sample.")
        return None, a


def _split(w: NDArray, fit_intercept: bool) -> tuple[NDArray, float]:
    return (w[1:].copy(), float(w[0])) if fit_intercept else (w.copy(), 0.0)


def _prepare(X: ArrayLike, y: ArrayLike, fit_intercept: bool):
    X = check_X(X)
    return signed_rows(X, plus_minus(y, X.shape[0]), bool(fit_intercept))


def separability(X: ArrayLike, y: ArrayLike, fit_intercept: bool = True) -> Separability:
    r"""Decide linear separability, with a separating hyperplane or a proof that none exists.

    Exactly one of the two systems has a solution (Gordan's theorem of the alternative):

    .. math::
        \exists w':\ y_i \langle w', x'_i\rangle \ge 1 \ \forall i
        \qquad\text{or}\qquad
        \exists a \ge 0,\ \textstyle\sum_i a_i = 1:\ \sum_i a_i y_i x'_i = 0,

    with x' = (1, x) when ``fit_intercept`` (affine halfspaces), x' = x otherwise. The first
    is the LP of ERM on separable data (Shalev-Shwartz and Ben-David, Section 9.1.1); the
    second is the linear dependence behind the VC-dimension proof (Theorem 9.2). Both answers
    are checked in floating point before they are returned: the margins are recomputed, and
    the certificate must satisfy a >= 0, sum(a) = 1 and
    ||sum_i a_i y_i x'_i||_inf <= 1e-9 max(1, max_ij |x'_ij|).

    Parameters
    ----------
    X : {array-like, sparse matrix} of shape (n_samples, n_features)
        The examples (dense or sparse; the constraint matrix is built sparse).
    y : array-like of shape (n_samples,)
        Labels in {-1, +1}, or any two values (the larger one is +1).
    fit_intercept : bool, default=True
        Affine halfspaces sign(<w, x> + b) rather than homogeneous ones sign(<w, x>).

    Returns
    -------
    result : Separability
        ``separable``, then ``coef`` and ``intercept`` or ``certificate``.

    Raises
    ------
    SolverError
        When HiGHS fails, or neither answer survives the floating-point check.

    See Also
    --------
    max_margin : the separating hyperplane of largest margin.

    Examples
    --------
    >>> import numpy as np
    >>> from halfspaces.theory import separability
    >>> X = np.array([[0.0, 0.0], [1.0, 1.0], [0.0, 1.0], [1.0, 0.0]])
    >>> separability(X, [1, 1, 0, 0]).certificate      # XOR: not separable
    array([0.25, 0.25, 0.25, 0.25])
    >>> separability(X, [0, 1, 0, 0]).separable
    True
    """
    Z = _prepare(X, y, fit_intercept)
    w, a = _decide(Z)
    if w is None:
        return Separability(False, None, None, a, bool(fit_intercept))
    coef, intercept = _split(w, fit_intercept)
    return Separability(True, coef, intercept, None, bool(fit_intercept))


def _not_separable(Z, rows: NDArray) -> NotSeparableError:
    _, a_rows = _decide(Z[rows])
    if a_rows is None:
        raise SolverError("HiGHS called the max-margin QP infeasible, but its rows are "
                          "separable; rescale X so that its entries are of order 1.")
    a = np.zeros(Z.shape[0])
    a[rows] = a_rows
    return NotSeparableError(
        "The data are not linearly separable, so there is no maximum-margin hyperplane; "
        "`.certificate` holds a >= 0, sum(a) = 1, sum_i a_i y_i x'_i = 0. Use "
        "LinearProgramClassifier(on_infeasible='hinge') or a soft-margin model instead.",
        certificate=_verified_certificate(Z, a),
    )


def _min_norm(Z, free_first: bool) -> NDArray:
    """argmin ||w_reg||^2 s.t. <w, z_i> >= 1 (w_0 unpenalised when free_first), by HiGHS QP."""
    n, p = Z.shape
    diagonal = np.ones(p)
    if free_first:
        diagonal[0] = 0.0
    rows = _first_rows(n)
    while True:
        res = solve(Z[rows], np.zeros(p), (np.full(p, -INF), np.full(p, INF)),
                    (np.ones(rows.size), np.full(rows.size, INF)), hessian_diagonal=diagonal,
                    accept=("Infeasible",), what="hard-margin QP")
        if res.status == "Infeasible":
            raise _not_separable(Z, rows)
        m = _scores(Z, res.x)
        grown = _grow(rows, np.flatnonzero(m < 1.0 - 1e-7), m)
        if grown is None:
            return _check_kkt(Z[rows], res, diagonal)
        rows = grown


def _check_kkt(ZW, res, diagonal: NDArray) -> NDArray:
    """Raise unless the QP's duality gap is small: the hyperplane is optimal, not just feasible."""
    a = np.maximum(-res.row_dual, 0.0)
    if a.sum() == 0:
        a = np.maximum(res.row_dual, 0.0)
    w = res.x
    primal = 0.5 * float(np.sum(diagonal * w * w))
    grad = np.asarray(ZW.T @ a).ravel()
    dual = a.sum() - 0.5 * float(np.sum(diagonal * grad * grad))
    if primal - dual > 1e-6 * max(1.0, primal):
        raise SolverError(f"the hard-margin QP stopped with duality gap {primal - dual:.3g}; "
                          "rescale X so that its entries are of order 1.")
    return w


def max_margin(X: ArrayLike, y: ArrayLike, fit_intercept: bool = True) -> MaxMargin:
    r"""The maximum-margin (hard-margin SVM) hyperplane, by HiGHS's convex QP.

    .. math::
        \min_{w, b} \tfrac12 \lVert w\rVert^2 \ \text{s.t.}\ y_i(\langle w, x_i\rangle + b)
        \ge 1, \qquad \gamma = \frac{1}{\lVert w^\star\rVert}
        = \max_{\lVert w\rVert = 1,\, b} \min_i y_i(\langle w, x_i\rangle + b)

    (Shalev-Shwartz and Ben-David, Section 15.1). The intercept b is not penalised, so
    ``margin`` is measured on x. Novikoff's theorem is instead stated on the data the
    perceptron runs on, x' = (1, x), where the penalised problem gives

    .. math:: B = \min \lVert w'\rVert \ \text{s.t.}\ y_i\langle w', x'_i\rangle \ge 1,
              \qquad \gamma' = 1/B \ \ge\ \gamma / \sqrt{1 + b^2}

    (b of the optimal hyperplane scaled to ||w|| = 1). Both are returned.

    Parameters
    ----------
    X : {array-like, sparse matrix} of shape (n_samples, n_features)
        Linearly separable examples.
    y : array-like of shape (n_samples,)
        Labels in {-1, +1}, or any two values (the larger one is +1).
    fit_intercept : bool, default=True
        Affine hyperplanes; with False, x' = x and B = 1 / margin.

    Returns
    -------
    result : MaxMargin
        ``coef``, ``intercept``, ``margin``, ``norm_bound``, ``augmented_margin``,
        ``support``.

    Raises
    ------
    NotSeparableError
        On data that are not linearly separable; ``.certificate`` proves it.
    SolverError
        When HiGHS fails or its answer does not pass the checks.

    Examples
    --------
    >>> from halfspaces.theory import max_margin
    >>> mm = max_margin([[0.0], [1.0], [3.0], [4.0]], [-1, -1, 1, 1])
    >>> print(mm.margin, mm.intercept / -mm.coef[0], mm.support)
    1.0 2.0 [1 2]
    """
    Z = _prepare(X, y, fit_intercept)
    w = _unit_separator(Z, _min_norm(Z, free_first=bool(fit_intercept)))
    w_aug = _unit_separator(Z, _min_norm(Z, free_first=False)) if fit_intercept else w
    if w is None or w_aug is None:
        raise SolverError("the hard-margin QP returned a hyperplane that does not separate "
                          "the data in floating point; rescale X.")
    coef, intercept = _split(w, fit_intercept)
    norm = float(np.linalg.norm(coef))
    m = _scores(Z, w)
    margin = float(m.min() / norm) if norm > 0 else np.inf
    B = float(np.linalg.norm(w_aug))
    support = np.flatnonzero(m <= m.min() * (1.0 + 1e-6))
    return MaxMargin(coef, intercept, margin, B, float(_scores(Z, w_aug).min() / B), support,
                     bool(fit_intercept))
