r"""The hard-margin dual by coordinate descent: candidates for :func:`min_norm_separator`.

The hard margin is the separable limit of the linear SVM (C = inf): its dual

.. math:: \max_{a \ge 0}\ \textstyle\sum_i a_i - \tfrac12 \big\lVert \sum_i a_i z_{i,\text{reg}}
          \big\rVert^2 \quad (\text{and } \textstyle\sum_i a_i z_{i0} = 0 \text{ when } w_0
          \text{ is free})

is the SVM's dual with ``upper = inf`` and ``diag = 0``, which the compiled loop of
:mod:`halfspaces._fast.svm` solves one coordinate at a time (Hsieh et al. 2008), the free
intercept's constraint kept by the method of multipliers. Nothing here is trusted: the
point reached is only a *candidate* (w, a), which :func:`min_norm_separator` checks exactly
as it checks the QPs' answers (its support polished from the KKT equations, the duality gap
closed on every row), and the QPs take over wherever the check refuses it.

On rows that are not separable the dual is unbounded: sum(a) grows without end while
w(a) = sum_i a_i z_i,reg stays bounded. The runs stop early there, on the ratio
sum(a) / ||w(a)||^2. On separable rows it is 1 at the optimum (sum_i a_i <w, z_i> =
sum_i a_i at margins 1, and that is ||w_reg||^2 with the constraint), and weak duality
bounds it everywhere else: D(a) = sum(a) - ||w(a)||^2 / 2 <= P* = ||w*||^2 / 2, so a ratio
above K means ||w(a)|| < ||w*|| / sqrt(2K - 1), a point far from the optimum's scale. There
the QPs, which decide separability on their working sets, take over (with the certificate
and the message they always give).

References
----------
.. [1] C.-J. Hsieh, K.-W. Chang, C.-J. Lin, S. S. Keerthi and S. Sundararajan. A dual
   coordinate descent method for large-scale linear SVM. ICML 2008.
.. [2] C. Cortes and V. Vapnik. Support-vector networks. Machine Learning 20, 1995 (the
   hard-margin dual).
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import scipy.sparse as sp
from numpy.typing import NDArray

from halfspaces._fast import loop_input
from halfspaces._fast.svm import dual_coordinate_descent

__all__ = ["MAX_EPOCHS", "TOLERANCES", "coordinate_candidates", "equalising_w0"]

# the loop's tolerances on the projected gradients (margins, scale 1), loosest first, with
# and without a free intercept: a candidate whose support is the optimum's is made exact by
# the polish of min_norm_separator, and the tighter tolerances are for supports the looser
# ones miss. On MNIST 0 vs 1 the candidate at 1e-2 had it with the intercept (100 passes
# instead of 260 to 1e-3: the fit 0.86x SVC's time instead of 0.92x) and not without (the
# refused candidate cost theory.max_margin 1.94x instead of 1.63x); at 1e-3 both had it,
# and on mushrooms (more support rows than columns, no polish) only 1e-7 closes the gap
TOLERANCES = {True: (1e-2, 1e-3, 1e-7), False: (1e-3, 1e-7)}
# passes over the rows at most, all tolerances together; beyond, the QPs take over
MAX_EPOCHS = 1000
# sum(a) / ||w(a)||^2 beyond this: the rows look inseparable (module notes)
_UNBOUNDED_RATIO = 10.0
# the first passes build w(a) from 0, when the ratio is not yet telling
_FIRST_CHECK = 1
# after runs of this many passes, each doubling of the passes must halve a relative duality
# gap above _FAR, or the QPs take over: ill-conditioned rows ((R / gamma)^2 of 10^4,
# random 2,000 x 50) closed it by a third per doubling (0.93, 0.55, 0.46, 0.37 at 128, 256,
# 512 and 1,000 passes), or never separated in 1,000 (5,000 x 20), where MNIST 0 vs 1 and
# mushrooms gain a factor 3 to 10 (0.031, 0.0082, 0.0011 at 32, 64 and 128)
_STALL_CHECK = 64
_FAR = 1e-2
# the multiplier's step, relative to the mean squared row norm: 0.01 took 260 passes on
# MNIST 0 vs 1 to a tolerance of 1e-3 where 0.1 took 290 and 1 took 430
_RHO = 0.01


def coordinate_candidates(Z, free_first: bool, *, tolerances=None,
                          max_epochs: int | None = None,
                          features=None) -> Iterator[tuple[NDArray, NDArray]]:
    """Candidates (w, a) for the hard margin on the signed rows Z, one per tolerance reached.

    Parameters
    ----------
    Z : ndarray or csr_matrix of shape (n_rows, n_columns)
        The signed rows z_i = y_i x'_i, scaled to entries of order 1; with ``free_first``
        every |z_i0| is 1.
    free_first : bool
        w_0 is the intercept, not penalised.
    tolerances : sequence of float or None, default=None
        The loop's tolerances, tried in turn: a later one warm starts from the earlier point;
        None for ``TOLERANCES[free_first]``.
    max_epochs : int or None, default=None
        Passes over the rows at most, all tolerances together; None for :data:`MAX_EPOCHS`.
    features : ndarray or csr_matrix of shape (n_rows, n_columns - 1), default=None
        With ``free_first``, the rows x_i with z_i = z_i0 (1, x_i) where the caller has them:
        the loop reads them instead of a copy of z_i0 z_i,reg.

    Yields
    ------
    w : ndarray of shape (n_columns,)
        The primal point: w_reg = sum_i a_i z_i,reg and, when free, the w_0 that centres the
        two classes' least scores.
    a : ndarray of shape (n_rows,)
        The dual point, a >= 0.

    The generator ends early (yielding nothing more) when the passes run out or the rows look
    inseparable (module notes); a row of zeros without a free w_0 ends it at once (its
    coordinate has no curvature: the rows are not separable).
    """
    max_epochs = MAX_EPOCHS if max_epochs is None else max_epochs
    tolerances = TOLERANCES[bool(free_first)] if tolerances is None else tolerances
    problem = _Problem(Z, free_first, features)
    if not problem.curved:
        return
    done = 0
    for eps in tolerances:
        chunk, gap = 1, np.inf
        while True:
            if done >= max_epochs:
                return
            asked = min(chunk, max_epochs - done)
            passes = problem.passes(asked, eps, seed=done)
            done += passes
            if passes < asked:  # stopped on eps: every projected gradient within it
                break
            if done >= _FIRST_CHECK and problem.looks_unbounded():
                return
            if chunk >= _STALL_CHECK:
                gap, last = problem.relative_gap(), gap
                if gap > _FAR and not gap <= last / 2:
                    return
            chunk *= 2
        yield problem.candidate(), problem.balanced()


class _Problem:
    """The loop's arrays for one hard-margin dual, updated in place from pass to pass."""

    def __init__(self, Z, free_first: bool, features=None) -> None:
        self.Z, self.free_first = Z, free_first
        n = Z.shape[0]
        if free_first:
            # the loop takes rows x_i and labels y_i with w = sum_i a_i y_i x_i: here
            # y_i = z_i0 (+-1) and x_i = z_i0 z_i,reg, so that y_i x_i = z_i,reg
            self.signs = _column(Z, 0)
            rows = _signed_regular(Z, self.signs) if features is None else features
        else:
            self.signs, rows = np.ones(n), Z
        self.rows = rows
        squared = _row_squared_norms(rows)
        self.curved = bool(free_first or np.all(squared > 0))
        self.rho = _RHO * float(np.mean(squared)) if free_first and n else 0.0
        if free_first and not self.rho > 0:
            self.rho = 1.0  # every z_i,reg is 0: only the intercept separates
        self.qdiag = squared + self.rho
        self.upper, self.diag = np.full(n, np.inf), np.zeros(n)
        self.a, self.w, self.multiplier = np.zeros(n), np.zeros(rows.shape[1]), np.zeros(2)
        self.loop_rows = loop_input(rows)

    def passes(self, most: int, eps: float, seed: int) -> int:
        """Run the loop for at most ``most`` passes; the passes made."""
        made, _ = dual_coordinate_descent(self.loop_rows, self.signs, self.qdiag, self.upper,
                                          self.diag, self.a, self.w, self.multiplier,
                                          self.rho, seed, most, eps)
        return int(made)

    def looks_unbounded(self) -> bool:
        """sum(a) / ||w(a)||^2 beyond :data:`_UNBOUNDED_RATIO` (module notes)."""
        total = float(self.a.sum())
        squared = float(self.w @ self.w)
        return total > _UNBOUNDED_RATIO * squared

    def relative_gap(self) -> float:
        """(P - D) / P between w scaled to margins >= 1 and the balanced a, in floating point
        (a progress measure, not a proof: :func:`min_norm_separator` proves its own); inf
        where w does not separate the rows."""
        w, low = self._candidate()
        if not low > 0:
            return np.inf
        w_reg = w[int(self.free_first):]
        primal = 0.5 * float(w_reg @ w_reg) / min(low, 1.0) ** 2
        a = self.balanced()
        dual = float(a.sum()) - 0.5 * float(self.w @ self.w)
        return (primal - dual) / primal if primal > 0 else 0.0

    def balanced(self) -> NDArray:
        """a with sum_i a_i z_i0 = 0 restored where w_0 is free (the multipliers leave a
        residual of the loop's tolerance), by scaling down the larger sign's a_i: a dual
        point of the hard margin, whose value is a lower bound on its optimum."""
        a = self.a.copy()
        if not self.free_first:
            return a
        positive = self.signs > 0
        plus, minus = float(a[positive].sum()), float(a[~positive].sum())
        if plus > minus > 0.0:
            a[positive] *= minus / plus
        elif minus > plus > 0.0:
            a[~positive] *= plus / minus
        return a

    def candidate(self) -> NDArray:
        """w at the current point: w_reg from the loop and, when free, the centring w_0."""
        return self._candidate()[0]

    def _candidate(self) -> tuple[NDArray, float]:
        """(:meth:`candidate`, min_i <w, z_i> in floating point)."""
        w_reg = self.w.copy()
        if not self.free_first:
            return w_reg, float(np.min(np.asarray(self.Z @ w_reg, dtype=np.float64)))
        # <w, z_i> = s_i + w_0 z_i0 with s_i = z_i0 <x_i, w_reg>: the best w_0 for w_reg
        # equalises the least scores of the two signs (as the QPs' w_0 is chosen)
        s = self.signs * np.asarray(self.rows @ w_reg, dtype=np.float64).ravel()
        w0 = equalising_w0(s, self.signs)
        return np.r_[w0, w_reg], float(np.min(s + w0 * self.signs))


def _column(Z, j: int) -> NDArray:
    c = Z[:, j]
    return np.asarray(c.toarray() if sp.issparse(c) else c, dtype=np.float64).ravel()


def _signed_regular(Z, signs: NDArray):
    """The rows z_i0 z_i,reg (columns 1 on), in one pass: CSR stays CSR."""
    if not sp.issparse(Z):
        return signs[:, None] * Z[:, 1:]
    reg = sp.csr_matrix(Z)[:, 1:]
    reg.data = reg.data * np.repeat(signs, np.diff(reg.indptr))
    return reg


def _row_squared_norms(X) -> NDArray:
    if sp.issparse(X):
        X = sp.csr_matrix(X)
        rows = np.repeat(np.arange(X.shape[0]), np.diff(X.indptr))
        return np.bincount(rows, weights=np.square(X.data, dtype=np.float64),
                           minlength=X.shape[0])
    return np.einsum("ij,ij->i", X, X, dtype=np.float64)


def equalising_w0(s: NDArray, signs: NDArray) -> float:
    """The w_0 that makes the least scores s_i + w_0 signs_i of the two signs equal (or 1
    where only one sign is present): the best intercept weight for fixed other weights."""
    pos, neg = s[signs > 0], s[signs < 0]
    if neg.size == 0:
        return float(1.0 - pos.min())
    if pos.size == 0:
        return float(neg.min() - 1.0)
    return float(0.5 * (neg.min() - pos.min()))
