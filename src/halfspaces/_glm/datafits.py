r"""Datafits (the data terms of the generalised linear models) and the objectives they make.

.. math::
    J(w, b) = \frac{1}{S}\sum_{i=1}^N s_i\,\ell(y_i, \langle w, x_i\rangle + b)
              + \frac{\alpha}{2}\lVert w\rVert^2, \qquad S = \sum_{i=1}^N s_i

(s_i = 1 without weights, S = N: the mean loss). An objective
(:mod:`halfspaces._glm.objective`) is data + a datafit (:class:`Logistic`, :class:`Softmax` or
:class:`Squared`: the loss ell) + the L2 penalty alpha, the intercept b never penalised. The
solvers of :mod:`halfspaces._glm.solvers` ask it for values, gradients, Hessian-vector
products, curvature blocks and SGD epochs; it asks its datafit, which never branches on a loss
name (the design of skglm's ``datafits``).

Every datafit method takes a block of rows (:class:`Block`) and returns *sums* over it, not
means, so that blocks (or Dask partitions) can be added: :meth:`Datafit.value_grad_block` is
that plain function, arrays in and arrays out. Row weights s_i travel with the block
(:attr:`Block.weights`, None for unit weights, which runs the unweighted loops at no extra
cost): every sum is then weighted, the curvatures h_i included, so that the Hessian-vector
products, Gram matrices and curvature blocks built from them are weighted too. Parameters
travel as one flat float64 vector: (w, b) for one output, the rows (w_k, b_k) of a (k, d + 1)
matrix for the softmax's k. Logistic and squared losses run the fused compiled loops (one pass
over X for the loss and the gradient); the softmax uses BLAS (X @ W.T and R.T @ X), which is
faster for k scores per row.

References
----------
.. [1] C. M. Bishop. Pattern Recognition and Machine Learning. Springer, 2006. Section 4.3
   (logistic and softmax regression, their gradients and Hessians).
.. [2] M. Massias, Q. Bertrand et al. skglm: a modular, fast, scalable package for sparse
   generalized linear models (``datafits/single_task.py``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import scipy.sparse as sp
from numpy.typing import NDArray
from scipy.linalg.blas import dsyrk

from halfspaces._fast import logistic as fast_logistic
from halfspaces._fast import loop_input
from halfspaces._glm import duals
from halfspaces._glm.gaps import weighted_mean_gap

__all__ = ["Block", "Datafit", "Logistic", "Softmax", "Squared", "curvature_blocks", "gram_cost",
           "softmax", "weighted_gram"]

_BLOCK = 1 << 15  # rows per block of the dense weighted Gram matrix
SOFTMAX_BLOCK_ENTRIES = 1 << 22  # entries of a block of the softmax Hessian's A (32 MB)


@dataclass(frozen=True)
class Block:
    """A block of rows as the datafits read it: x'_i = (x_i, c) and the targets y_i."""

    X: Any  # validated dense array or CSR matrix
    loop_X: object  # the compiled loops' view of X (:func:`halfspaces._fast.loop_input`)
    y: NDArray  # ±1 (logistic), values (squared) or class indices (softmax)
    rows: NDArray  # 0, ..., m - 1: the rows the compiled loops visit
    c: float  # the constant feature: 1.0 with an intercept, else 0.0
    weights: NDArray | None = None  # s_i >= 0 per row, float64; None: all 1

    @classmethod
    def of(cls, X, y: NDArray, c: float, weights: NDArray | None = None) -> Block:
        return cls(X, loop_input(X), y, np.arange(X.shape[0], dtype=np.intp), c, weights)

    def total_weight(self) -> float:
        """S = sum_i s_i over the block (its row count without weights)."""
        if self.weights is None:
            return float(self.rows.shape[0])
        return float(np.sum(self.weights))

    def weighted(self, h: NDArray) -> NDArray:
        """h_i s_i over the rows (h itself without weights); h's last axis is the rows."""
        return h if self.weights is None else h * self.weights


class Datafit:
    """The loss part of J, summed over a block of rows. Subclasses fill in the methods."""

    # a bound on the loss's second derivative in z, for gd's first step (1/L)
    curvature_bound = 1.0
    shift_invariant = False  # the loss ignores a shift common to all k scores
    # the loss's name for coordinate descent (:mod:`halfspaces._glm.coordinate_descent`);
    # None where it has no elastic-net fit
    sparse_loss: str | None = None

    @property
    def n_outputs(self) -> int:
        """Scores per row: k for the softmax."""
        return 1

    def shape(self, n_features: int) -> tuple[int, ...]:
        """The shape of the parameters: (d + 1,), or (k, d + 1)."""
        return (n_features + 1,)

    def value_grad_block(self, X, y: NDArray, w: NDArray, c: float,
                         weights: NDArray | None = None) -> tuple[float, NDArray]:
        """The loss summed over the rows of X and its gradient in w (flat), in one pass.

        The function a worker runs on its partition: X a validated dense array or CSR
        matrix, y its targets, w the flat parameters, c = 1.0 with an intercept, else 0.0,
        and the rows' weights (None: all 1). Sums over blocks add up to the whole.
        """
        return self.value_grad(Block.of(X, y, c, weights), w)

    def value_grad(self, b: Block, w: NDArray) -> tuple[float, NDArray]:
        raise NotImplementedError

    def curvature(self, b: Block, w: NDArray) -> NDArray:
        """s_i h_ia, the loss's second derivative in score a of row i times the row's
        weight, shape (k, m)."""
        raise NotImplementedError

    def hess_operator(self, b: Block, w: NDArray):
        """v -> sum_i of the Hessian-vector products at w, as a function."""
        raise NotImplementedError

    def hessian(self, b: Block, w: NDArray) -> NDArray:
        """The Hessian summed over the block, dense (size x size)."""
        raise NotImplementedError

    def sgd_epoch(self, b: Block, w: NDArray, u: NDArray, n_avg: int, order: NDArray,
                  batch: int, opts: tuple, t: int) -> tuple[int, int]:
        """One pass of (mini-batch) SGD over ``order``, updating w (and the mean u) in place.

        ``opts = (alpha, schedule, eta0, power_t)``; returns (steps taken, iterates averaged).
        """
        raise NotImplementedError

    def duality_gap(self, X, y: NDArray, w: NDArray, alpha: float, fit_intercept: bool,
                    weights: NDArray | None = None) -> tuple[float, float]:
        """(J(w) bounded above, a certified upper bound on J(w) - J*) over all of X
        (:mod:`halfspaces._glm.duals`); w flat, as the solvers hold it; ``weights`` the
        rows' s_i (None: all 1)."""
        raise NotImplementedError


class _Pointwise(Datafit):
    """A loss of one score z per row, computed by the fused compiled loops."""

    code = fast_logistic.LOGISTIC  # the loops' loss constant

    def value_grad(self, b: Block, w: NDArray) -> tuple[float, NDArray]:
        grad = np.zeros(w.shape[0])
        value = fast_logistic.loss_grad(b.loop_X, b.y, w, b.c, b.rows, self.code, grad,
                                        b.weights)
        return value, grad

    def curvature(self, b: Block, w: NDArray) -> NDArray:
        h = np.empty((1, b.rows.shape[0]))
        fast_logistic.curvature(b.loop_X, b.y, w, b.c, b.rows, self.code, h[0])
        return b.weighted(h)

    def hess_operator(self, b: Block, w: NDArray):
        h = self.curvature(b, w)[0]

        def product(v: NDArray) -> NDArray:
            out = np.zeros(v.shape[0])
            fast_logistic.hessp(b.loop_X, h, v, b.c, b.rows, out)
            return out
        return product

    def hessian(self, b: Block, w: NDArray) -> NDArray:
        return weighted_gram(b.X, b.loop_X, self.curvature(b, w)[0], b.c)

    def sgd_epoch(self, b, w, u, n_avg, order, batch, opts, t):
        g = np.empty(w.shape[0])
        return fast_logistic.sgd_epoch(b.loop_X, b.y, w, b.c, order, batch, self.code, opts, t, g,
                                       u, n_avg, b.weights)


@dataclass(frozen=True)
class Logistic(_Pointwise):
    r"""The logistic loss :math:`\ln(1 + e^{-y z})` of ±1 targets: curvature at most 1/4.

    :func:`halfspaces.losses.logistic` of the margin y z; its second derivative in z is
    sigma(z)(1 - sigma(z)) (Bishop 2006, 4.3.2).
    """

    code = fast_logistic.LOGISTIC
    curvature_bound = 0.25
    sparse_loss = "logistic"

    def duality_gap(self, X, y, w, alpha, fit_intercept, weights=None):
        return weighted_mean_gap(duals.logistic_gap, X, y, w[:-1], float(w[-1]),
                                       alpha=alpha, fit_intercept=fit_intercept,
                                       weights=weights)


@dataclass(frozen=True)
class Squared(_Pointwise):
    r"""The squared loss :math:`(z - y)^2 / 2` of real targets: curvature 1.

    For y in {-1, +1} it is :func:`halfspaces.losses.squared` of the margin y z."""

    code = fast_logistic.SQUARED
    curvature_bound = 1.0
    sparse_loss = "squared"

    def duality_gap(self, X, y, w, alpha, fit_intercept, weights=None):
        if alpha == 0:
            return weighted_mean_gap(_unpenalised_least_squares_gap, X, y, w[:-1],
                                           float(w[-1]), alpha=0.0,
                                           fit_intercept=fit_intercept, weights=weights)
        return weighted_mean_gap(duals.ridge_gap, X, y, w[:-1], float(w[-1]),
                                       alpha=alpha, fit_intercept=fit_intercept,
                                       weights=weights)


def _unpenalised_least_squares_gap(X, y, w, b, *, alpha, fit_intercept, weights=None):
    """:func:`halfspaces._glm.duals.least_squares_gap` in the signature of the other gap
    functions (alpha is 0)."""
    return duals.least_squares_gap(X, y, w, b, fit_intercept=fit_intercept, weights=weights)


@dataclass(frozen=True)
class Softmax(Datafit):
    r"""The softmax loss :math:`\ln\sum_a e^{z_a} - z_y` of k scores and a class index y.

    Its Hessian in the scores is diag(p) - p p^T (Bishop 2006, 4.3.4), which ignores a shift
    common to all k scores.
    """

    n_classes: int
    # 1/4 as for the binary loss: gd's first step; its line search halves a step too long
    # for the softmax's own bound of 1/2
    curvature_bound = 0.25
    shift_invariant = True
    sparse_loss = "softmax"

    @property
    def n_outputs(self) -> int:
        return self.n_classes

    def shape(self, n_features: int) -> tuple[int, ...]:
        return (self.n_classes, n_features + 1)

    def scores(self, b: Block, W: NDArray) -> NDArray:
        """Z = X W[:, :d]^T + c W[:, d], shape (m, k)."""
        Z = np.asarray(b.X @ W[:, :-1].T)
        return Z + b.c * W[:, -1]

    def probabilities(self, b: Block, W: NDArray) -> NDArray:
        return softmax(self.scores(b, W))[0]

    def value_grad(self, b: Block, w: NDArray) -> tuple[float, NDArray]:
        Z = self.scores(b, w.reshape(self.n_classes, -1))
        own = Z[b.rows, b.y]
        R, lse = softmax(Z)
        R[b.rows, b.y] -= 1.0
        if b.weights is None:
            return lse.sum() - own.sum(), self._back(b, R).ravel()
        R *= b.weights[:, None]
        return b.weights @ (lse - own), self._back(b, R).ravel()

    def _back(self, b: Block, R: NDArray) -> NDArray:
        """Sum over rows of R_ia x'_i, shape (k, d + 1)."""
        G = np.empty((self.n_classes, b.X.shape[1] + 1))
        G[:, :-1] = np.asarray(b.X.T @ R).T
        G[:, -1] = b.c * R.sum(axis=0)
        return G

    def curvature(self, b: Block, w: NDArray) -> NDArray:
        P = self.probabilities(b, w.reshape(self.n_classes, -1))
        return b.weighted(np.ascontiguousarray((P * (1.0 - P)).T))

    def hess_operator(self, b: Block, w: NDArray):
        P = self.probabilities(b, w.reshape(self.n_classes, -1))
        sP = P if b.weights is None else P * b.weights[:, None]

        def product(v: NDArray) -> NDArray:
            S = self.scores(b, v.reshape(self.n_classes, -1))
            R = sP * (S - (P * S).sum(axis=1, keepdims=True))
            return self._back(b, R).ravel()

        return product

    def hessian(self, b: Block, w: NDArray) -> NDArray:
        """sum_i s_i (diag(p_i) - p_i p_i^T) (x) x'_i x'_i^T: k diagonal blocks minus A^T A.

        Row i of A is sqrt(s_i) p_i (x) x'_i (its k d' products), so A^T A is the p p^T
        part; both terms are SYRK updates over blocks of rows.
        """
        P = self.probabilities(b, w.reshape(self.n_classes, -1))
        k, d1 = self.n_classes, b.X.shape[1] + 1
        H = np.zeros((k * d1, k * d1))
        sP = b.weighted(P.T)
        for a in range(k):
            H[a * d1:(a + 1) * d1, a * d1:(a + 1) * d1] = weighted_gram(b.X, b.loop_X, sP[a], b.c)
        if b.weights is not None:
            P = P * np.sqrt(b.weights)[:, None]
        outer = np.zeros((k * d1, k * d1))
        step = max(1, SOFTMAX_BLOCK_ENTRIES // (k * d1))
        for start in range(0, b.X.shape[0], step):
            B = b.X[start : start + step]
            Xb = np.empty((B.shape[0], d1))
            Xb[:, :-1] = B.toarray() if sp.issparse(B) else B
            Xb[:, -1] = b.c
            A = (P[start : start + step, :, None] * Xb[:, None, :]).reshape(B.shape[0], -1)
            outer = dsyrk(1.0, A.T, beta=1.0, c=outer, overwrite_c=1)
        outer = np.triu(outer)
        return H - outer - np.triu(outer, 1).T

    def duality_gap(self, X, y, w, alpha, fit_intercept, weights=None):
        W = w.reshape(self.n_classes, -1)
        return weighted_mean_gap(duals.softmax_gap, X, y, W[:, :-1], W[:, -1],
                                       alpha=alpha, fit_intercept=fit_intercept,
                                       weights=weights)

    def sgd_epoch(self, b, w, u, n_avg, order, batch, opts, t):
        shape = (self.n_classes, b.X.shape[1] + 1)
        G, z = np.empty(shape), np.empty(self.n_classes)
        return fast_logistic.softmax_sgd_epoch(b.loop_X, b.y, w.reshape(shape), b.c, order, batch,
                                               opts, t, G, z, u.reshape(shape), n_avg,
                                               b.weights)


def softmax(Z: NDArray) -> tuple[NDArray, NDArray]:
    """The rows' softmax and logsumexp, overwriting Z; one exp per entry, none overflowing.

    Plain NumPy: scipy.special.logsumexp costs three times as much on small blocks (its
    array-API dispatch), which was most of an L-BFGS iteration on digits.
    """
    top = Z.max(axis=1)
    np.subtract(Z, top[:, None], out=Z)
    np.exp(Z, out=Z)
    total = Z.sum(axis=1)
    Z /= total[:, None]
    return Z, top + np.log(total)


def curvature_blocks(b: Block, weights: NDArray, diagonal: bool) -> NDArray:
    """sum_i h_ia x'_i x'_i^T over the block for each row h_a of ``weights``, shape
    (len(weights), d + 1, d + 1); with ``diagonal`` only their diagonals, (len(weights), d + 1)."""
    one = _weighted_diagonal if diagonal else weighted_gram
    return np.stack([one(b.X, b.loop_X, h, b.c) for h in weights])


def gram_cost(X, K) -> float:
    """Multiply-adds of one :func:`weighted_gram`: n d'^2 / 2 dense, sum_i nnz_i^2 / 2 CSR."""
    if sp.issparse(X):
        return float(np.square(np.diff(K[2]), dtype=np.float64).sum()) / 2
    return X.shape[0] * (X.shape[1] + 1) ** 2 / 2


def _weighted_diagonal(X, K, h: NDArray, c: float) -> NDArray:
    """The diagonal of :func:`weighted_gram`: sum_i h_i x'_ij^2 for each slot j."""
    d = X.shape[1]
    out = np.empty(d + 1)
    if sp.issparse(X):
        data, indices, indptr = K
        per_entry = np.repeat(h, np.diff(indptr)) * np.asarray(data, dtype=np.float64) ** 2
        out[:d] = np.bincount(indices, weights=per_entry, minlength=d)
    else:
        out[:d] = sum(hb @ np.square(B, dtype=np.float64) for B, hb in
                      ((X[s:s + _BLOCK], h[s:s + _BLOCK]) for s in range(0, X.shape[0], _BLOCK)))
    out[d] = c * c * h.sum()
    return out


def weighted_gram(X, K, h: NDArray, c: float) -> NDArray:
    """sum_i h_i x'_i x'_i^T with x' = (x, c), as a dense (d + 1) x (d + 1) array.

    ``K`` is the compiled loops' view of X (:func:`halfspaces._fast.loop_input`).
    """
    d = X.shape[1]
    if sp.issparse(X):
        H = np.zeros((d + 1, d + 1))
        fast_logistic.csr_weighted_gram(K[0], K[1], K[2], h, c, H)
        upper = np.triu(H)
        return upper + np.triu(H, 1).T
    H = np.zeros((d + 1, d + 1))
    nonnegative = bool(np.all(h >= 0))
    for start in range(0, X.shape[0], _BLOCK):
        B, hb = X[start : start + _BLOCK], h[start : start + _BLOCK]
        if nonnegative:  # (sqrt(h) B)^T (sqrt(h) B) by SYRK: half the flops of GEMM
            S = B * np.sqrt(hb)[:, None]
            H[:d, :d] = dsyrk(1.0, S.T, beta=1.0, c=H[:d, :d], overwrite_c=0)
        else:
            H[:d, :d] += np.triu(B.T @ (B * hb[:, None]))
    H[:d, :d] += np.triu(H[:d, :d], 1).T
    col = c * (h @ X)
    H[:d, d] = col
    H[d, :d] = col
    H[d, d] = c * c * h.sum()
    return H
