r"""The minimum-norm separator (hard-margin SVM) by HiGHS's convex QP, its optimality checked.

.. math::
    \min_{w'}\ \tfrac12 \sum_{j} h_j w_j'^2 \ \text{s.t.}\ \langle w', z_i\rangle \ge 1,
    \qquad h = (0, 1, \dots, 1) \text{ (intercept free) or } (1, \dots, 1),

on the signed rows z_i = y_i x'_i (Shalev-Shwartz and Ben-David 2014, Section 15.1). It is
solved on a working set of rows, as :func:`decide` is, and its answer is accepted only when
the Lagrange dual

.. math:: \max_{a \ge 0}\ \textstyle\sum_i a_i - \tfrac12 \sum_j h_j
          \big(\sum_i a_i z_{ij}\big)^2

(with sum_i a_i z_i0 = 0 when w_0 is free; a from the QP's row duals) closes the duality
gap (Boyd and Vandenberghe 2004, Sections 5.2 and 5.5): the hyperplane is then optimal, not
just feasible.

References
----------
.. [1] S. Shalev-Shwartz and S. Ben-David. Understanding Machine Learning, 2014. Section 15.1.
.. [2] S. Boyd and L. Vandenberghe. Convex Optimization, 2004. Sections 5.2 and 5.5.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from halfspaces._exact.feasibility import (
    decide,
    first_rows,
    grow_working_set,
    verified_certificate,
)
from halfspaces._exact.highs import INF, HighsResult, SolverError, solve
from halfspaces._exact.rows import scores
from halfspaces.exceptions import NotSeparableError

__all__ = ["min_norm_separator"]


def min_norm_separator(Z, free_first: bool) -> NDArray:
    """argmin ||w_reg||^2 s.t. <w, z_i> >= 1 (w_0 unpenalised when free_first), by HiGHS QP.

    Parameters
    ----------
    Z : ndarray or csr_matrix of shape (n_rows, n_columns)
        The signed rows z_i = y_i x'_i.
    free_first : bool
        Leave w_0 (the intercept, when x' = (1, x)) out of the norm.

    Returns
    -------
    w : ndarray of shape (n_columns,)
        The QP's solution; its margins hold to HiGHS's feasibility tolerance (1e-7), so
        pass it through :func:`unit_separator` before promising <w, z_i> >= 1.

    Raises
    ------
    NotSeparableError
        When the rows are not separable; ``.certificate`` is a verified Gordan certificate.
    SolverError
        When HiGHS fails or the duality gap is not closed.

    Examples
    --------
    >>> import numpy as np
    >>> from halfspaces._exact import min_norm_separator
    >>> min_norm_separator(np.array([[2.0], [4.0]]), free_first=False)
    array([0.5])
    """
    n, p = Z.shape
    diagonal = np.ones(p)
    if free_first:
        diagonal[0] = 0.0
    rows = first_rows(n)
    while True:
        res = solve(Z[rows], np.zeros(p), (np.full(p, -INF), np.full(p, INF)),
                    (np.ones(rows.size), np.full(rows.size, INF)), hessian_diagonal=diagonal,
                    accept=("Infeasible",), what="hard-margin QP")
        if res.status == "Infeasible":
            raise _not_separable(Z, rows)
        m = scores(Z, res.x)
        grown = grow_working_set(rows, np.flatnonzero(m < 1.0 - 1e-7), m)
        if grown is None:
            return _check_kkt(Z[rows], res, diagonal)
        rows = grown


def _not_separable(Z, rows: NDArray) -> NotSeparableError:
    """The error for an infeasible QP, with the certificate of its working set."""
    a_rows = decide(Z[rows]).certificate
    if a_rows is None:
        raise SolverError("HiGHS called the max-margin QP infeasible, but its rows are "
                          "separable; rescale X so that its entries are of order 1.")
    a = np.zeros(Z.shape[0])
    a[rows] = a_rows
    return NotSeparableError(
        "The data are not linearly separable, so there is no maximum-margin hyperplane; "
        "`.certificate` holds a >= 0, sum(a) = 1, sum_i a_i y_i x'_i = 0. Use "
        "LinearProgramClassifier(on_infeasible='hinge') or a soft-margin model instead.",
        certificate=verified_certificate(Z, a),
    )


def _check_kkt(ZW, res: HighsResult, diagonal: NDArray) -> NDArray:
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
