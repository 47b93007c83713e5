"""The search for the smallest Freund-Schapire mistake bound, on signed rows anywhere.

Freund and Schapire (1999, Theorem 2) bound the perceptron's mistakes on any sequence by
((R + D)/gamma)^2 for every unit u and gamma > 0, where D = ||(gamma - Zu)_+||. With
v = u / gamma its root is a convex function of v alone,

    F(v) = R ||v|| + ||(1 - Zv)_+||,

so the smallest bound is min_v F(v)^2. Unlike the rest of this package the search is not
exact: it follows the trade-off between ||v|| and the hinge term (squared-hinge problems
lam ||v||^2 + ||(1 - Zv)_+||^2 on a grid of lam), adds the hard-margin solution when the
rows are separable (where the bound is Novikoff's), and finishes with a direct descent on F
from the best point. It is sound wherever it stops: every v gives a valid bound.

The rows are read only through :meth:`SignedRows.squared_hinge` (one pass: the squared hinge
and Z^T of the slack) and the separability solvers, so the same search runs on a sample
held in row blocks on a cluster (:mod:`halfspaces.dask`), one pass per evaluation.

References
----------
.. [1] Y. Freund and R. E. Schapire. Large margin classification using the perceptron
   algorithm. Machine Learning 37(3), 1999. Theorem 2.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from halfspaces._exact.feasibility import decide, unit_separator
from halfspaces._exact.min_norm import min_norm_separator
from halfspaces._exact.signed import SignedRows
from halfspaces.exceptions import SolverError

__all__ = ["smallest_root"]


def smallest_root(rows: SignedRows, R: float, hard_margin: bool = True) -> NDArray:
    """The v of the smallest F(v) = R||v|| + ||(1 - Zv)_+|| the search finds (v != 0).

    Parameters
    ----------
    rows : SignedRows
        The signed rows z_i = y_i x'_i.
    R : float
        max_i ||x'_i||, the radius of the sample.
    hard_margin : bool, default=True
        Add the hard-margin solution as a candidate when the rows are separable (an LP and
        a QP). Without it the search is cheaper on many rows and its bound as valid.

    Returns
    -------
    v : ndarray of shape (n_columns,)
        Nonzero; the bound is F(v)^2 at u = v / ||v||, gamma = 1 / ||v||.
    """
    from scipy.optimize import minimize

    candidates, roots = _candidates(rows, R, hard_margin=hard_margin)
    best = candidates[int(np.argmin(roots))]
    polished = minimize(lambda v: _root_and_grad(rows, R, v), best, jac=True,
                        method="L-BFGS-B", options={"maxiter": 200}).x
    if np.linalg.norm(polished) > 0 and _root(rows, R, polished) < min(roots):
        best = polished
    return best


def _root(rows: SignedRows, R: float, v: NDArray) -> float:
    """F(v): the root of the bound at u = v/||v||, gamma = 1/||v||."""
    return _root_and_grad(rows, R, v)[0]


def _root_and_grad(rows: SignedRows, R: float, v: NDArray) -> tuple[float, NDArray]:
    norm = float(np.linalg.norm(v))
    squares, product = rows.squared_hinge(v)
    deficit = float(np.sqrt(squares))
    grad = R * v / norm if norm > 0 else np.zeros_like(v)
    if deficit > 0:
        grad = grad - product / deficit
    return R * norm + deficit, grad


def _squared_hinge_path_point(rows: SignedRows, lam: float, v0: NDArray) -> NDArray:
    """argmin lam ||v||^2 + ||(1 - Zv)_+||^2 (smooth and convex), by L-BFGS."""
    from scipy.optimize import minimize

    def fun(v):
        squares, product = rows.squared_hinge(v)
        return lam * v @ v + squares, 2.0 * lam * v - 2.0 * product

    return minimize(fun, v0, jac=True, method="L-BFGS-B", options={"maxiter": 100}).x


def _candidates(rows: SignedRows, R: float,
                hard_margin: bool = True) -> tuple[list[NDArray], list[float]]:
    """Points v on the trade-off path between ||v|| and the squared hinge, plus B's solution,
    and their roots F(v) (each computed once: on a cluster every one is a pass).

    lam runs down from R^2 1e4 by factors of 10 and stops once the bound got worse twice
    in a row (the bound along the path is unimodal in practice; stopping early only costs
    optimality, never validity).
    """
    found, roots, v, worse = [], [], np.zeros(rows.shape[1]), 0
    for lam in R * R * np.logspace(4, -4, 9):
        v = _squared_hinge_path_point(rows, lam, v)
        root = _root(rows, R, v)
        worse = worse + 1 if found and root >= min(roots) else 0
        found.append(v)
        roots.append(root)
        if worse == 2:
            break
    extra = []
    try:
        if hard_margin and decide(rows).separable:
            extra.append(unit_separator(rows, min_norm_separator(rows, free_first=False)))
    except SolverError:  # a candidate less (features of 1e-160 beside the constant 1 fail
        pass  # this QP; separability undecidable in float64): the bound stays valid, it
        # may only be less tight, as every candidate gives a valid bound
    # the bound tends to n as v -> 0 (not attained): tiny v keep a candidate when the path
    # collapses to v = 0, as on XOR
    tiny = np.zeros(rows.shape[1])
    tiny[0] = 1e-9 / max(R, 1e-300)
    for c in [*extra, tiny, -tiny]:
        if c is not None:
            found.append(c)
            roots.append(_root(rows, R, c))
    kept = [i for i, c in enumerate(found) if np.linalg.norm(c) > 0]
    return [found[i] for i in kept], [roots[i] for i in kept]
