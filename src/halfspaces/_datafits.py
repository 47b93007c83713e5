r"""Datafits (the data terms of the generalised linear models) and the objectives they make.

.. math::
    J(w, b) = \frac{1}{N}\sum_{i=1}^N \ell(y_i, \langle w, x_i\rangle + b)
              + \frac{\alpha}{2}\lVert w\rVert^2

An :class:`Objective` is data + a datafit (:class:`Logistic`, :class:`Softmax` or
:class:`Squared`: the loss ell) + the L2 penalty alpha, the intercept b never penalised. The
solvers of :mod:`halfspaces._solvers` ask it for values, gradients, Hessian-vector products,
curvature blocks and SGD epochs; it asks its datafit, which never branches on a loss name
(the design of skglm's ``datafits``).

Every datafit method takes a block of rows (:class:`Rows`) and returns *sums* over it, not
means, so that blocks (or Dask partitions) can be added: :meth:`Datafit.value_grad_block` is
that plain function, arrays in and arrays out. Parameters travel as one flat float64 vector:
(w, b) for one output, the rows (w_k, b_k) of a (k, d + 1) matrix for the softmax's k.
Logistic and squared losses run the fused compiled loops (one pass over X for the loss and
the gradient); the softmax uses BLAS (X @ W.T and R.T @ X), which is faster for k scores per
row.

References
----------
.. [1] C. M. Bishop. Pattern Recognition and Machine Learning. Springer, 2006. Section 4.3
   (logistic and softmax regression, their gradients and Hessians).
.. [2] M. Massias, Q. Bertrand et al. skglm: a modular, fast, scalable package for sparse
   generalized linear models (``datafits/single_task.py``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp
from numpy.typing import NDArray
from scipy.linalg import cho_factor, cho_solve
from scipy.linalg.blas import dsyrk

from halfspaces._blas import one_blas_thread
from halfspaces._fast import logistic as kl
from halfspaces._fast import loop_input
from halfspaces._validation import column_max_abs

__all__ = ["Datafit", "Logistic", "Objective", "Rows", "Softmax", "Squared", "softmax",
           "weighted_gram"]

_BLOCK = 1 << 15  # rows per block of the dense weighted Gram matrix


@dataclass(frozen=True)
class Rows:
    """A block of rows as the datafits read it: x'_i = (x_i, c) and the targets y_i."""

    X: object  # validated dense array or CSR matrix
    K: object  # the compiled loops' view of X (:func:`halfspaces._fast.loop_input`)
    y: NDArray  # ±1 (logistic), values (squared) or class indices (softmax)
    rows: NDArray  # 0, ..., m - 1: the rows the compiled loops visit
    c: float  # the constant feature: 1.0 with an intercept, else 0.0

    @classmethod
    def of(cls, X, y: NDArray, c: float) -> Rows:
        return cls(X, loop_input(X), y, np.arange(X.shape[0], dtype=np.intp), c)


class Datafit:
    """The loss part of J, summed over a block of rows. Subclasses fill in the methods."""

    n_outputs = 1  # scores per row: k for the softmax
    # a bound on the loss's second derivative in z, for gd's first step (1/L)
    curvature_bound = 1.0
    shift_invariant = False  # the loss ignores a shift common to all k scores

    def shape(self, n_features: int) -> tuple[int, ...]:
        """The shape of the parameters: (d + 1,), or (k, d + 1)."""
        return (n_features + 1,)

    def value_grad_block(self, X, y: NDArray, w: NDArray, c: float) -> tuple[float, NDArray]:
        """The loss summed over the rows of X and its gradient in w (flat), in one pass.

        The function a worker runs on its partition: X a validated dense array or CSR
        matrix, y its targets, w the flat parameters, c = 1.0 with an intercept, else 0.0.
        Sums over blocks add up to the whole.
        """
        return self.value_grad(Rows.of(X, y, c), w)

    def value_grad(self, b: Rows, w: NDArray) -> tuple[float, NDArray]:
        raise NotImplementedError

    def curvature(self, b: Rows, w: NDArray) -> NDArray:
        """h_ia, the loss's second derivative in score a of row i, shape (k, m)."""
        raise NotImplementedError

    def hess_operator(self, b: Rows, w: NDArray):
        """v -> sum_i of the Hessian-vector products at w, as a function."""
        raise NotImplementedError

    def hessian(self, b: Rows, w: NDArray) -> NDArray:
        """The Hessian summed over the block, dense (size x size)."""
        raise NotImplementedError

    def sgd_epoch(self, b: Rows, w: NDArray, u: NDArray, n_avg: int, order: NDArray,
                  batch: int, opts: tuple, t: int) -> tuple[int, int]:
        """One pass of (mini-batch) SGD over ``order``, updating w (and the mean u) in place.

        ``opts = (alpha, schedule, eta0, power_t)``; returns (steps taken, iterates averaged).
        """
        raise NotImplementedError


class _Pointwise(Datafit):
    """A loss of one score z per row, computed by the fused compiled loops."""

    code = kl.LOGISTIC  # the loops' loss constant

    def value_grad(self, b: Rows, w: NDArray) -> tuple[float, NDArray]:
        grad = np.zeros(w.shape[0])
        return kl.loss_grad(b.K, b.y, w, b.c, b.rows, self.code, grad), grad

    def curvature(self, b: Rows, w: NDArray) -> NDArray:
        h = np.empty((1, b.rows.shape[0]))
        kl.curvature(b.K, b.y, w, b.c, b.rows, self.code, h[0])
        return h

    def hess_operator(self, b: Rows, w: NDArray):
        h = self.curvature(b, w)[0]

        def product(v: NDArray) -> NDArray:
            out = np.zeros(v.shape[0])
            kl.hessp(b.K, h, v, b.c, b.rows, out)
            return out
        return product

    def hessian(self, b: Rows, w: NDArray) -> NDArray:
        return weighted_gram(b.X, b.K, self.curvature(b, w)[0], b.c)

    def sgd_epoch(self, b, w, u, n_avg, order, batch, opts, t):
        g = np.empty(w.shape[0])
        return kl.sgd_epoch(b.K, b.y, w, b.c, order, batch, self.code, opts, t, g, u, n_avg)


@dataclass(frozen=True)
class Logistic(_Pointwise):
    r"""The logistic loss :math:`\ln(1 + e^{-y z})` of ±1 targets: curvature at most 1/4.

    :func:`halfspaces.losses.logistic` of the margin y z; its second derivative in z is
    sigma(z)(1 - sigma(z)) (Bishop 2006, 4.3.2).
    """

    code = kl.LOGISTIC
    curvature_bound = 0.25


@dataclass(frozen=True)
class Squared(_Pointwise):
    r"""The squared loss :math:`(z - y)^2 / 2` of real targets: curvature 1.

    For y in {-1, +1} it is :func:`halfspaces.losses.squared` of the margin y z."""

    code = kl.SQUARED
    curvature_bound = 1.0


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

    @property
    def n_outputs(self) -> int:
        return self.n_classes

    def shape(self, n_features: int) -> tuple[int, ...]:
        return (self.n_classes, n_features + 1)

    def scores(self, b: Rows, W: NDArray) -> NDArray:
        """Z = X W[:, :d]^T + c W[:, d], shape (m, k)."""
        Z = np.asarray(b.X @ W[:, :-1].T)
        return Z + b.c * W[:, -1]

    def probabilities(self, b: Rows, W: NDArray) -> NDArray:
        return softmax(self.scores(b, W))[0]

    def value_grad(self, b: Rows, w: NDArray) -> tuple[float, NDArray]:
        Z = self.scores(b, w.reshape(self.n_classes, -1))
        value = -Z[b.rows, b.y].sum()
        R, lse = softmax(Z)
        value += lse.sum()
        R[b.rows, b.y] -= 1.0
        return value, self._back(b, R).ravel()

    def _back(self, b: Rows, R: NDArray) -> NDArray:
        """Sum over rows of R_ia x'_i, shape (k, d + 1)."""
        G = np.empty((self.n_classes, b.X.shape[1] + 1))
        G[:, :-1] = np.asarray(b.X.T @ R).T
        G[:, -1] = b.c * R.sum(axis=0)
        return G

    def curvature(self, b: Rows, w: NDArray) -> NDArray:
        P = self.probabilities(b, w.reshape(self.n_classes, -1))
        return np.ascontiguousarray((P * (1.0 - P)).T)

    def hess_operator(self, b: Rows, w: NDArray):
        P = self.probabilities(b, w.reshape(self.n_classes, -1))

        def product(v: NDArray) -> NDArray:
            S = self.scores(b, v.reshape(self.n_classes, -1))
            R = P * (S - (P * S).sum(axis=1, keepdims=True))
            return self._back(b, R).ravel()
        return product

    def hessian(self, b: Rows, w: NDArray) -> NDArray:
        """sum_i (diag(p_i) - p_i p_i^T) (x) x'_i x'_i^T: k diagonal blocks minus A^T A.

        Row i of A is p_i (x) x'_i (its k d' products), so A^T A is the p p^T part; both
        terms are SYRK updates over blocks of rows.
        """
        P = self.probabilities(b, w.reshape(self.n_classes, -1))
        k, d1 = self.n_classes, b.X.shape[1] + 1
        H = np.zeros((k * d1, k * d1))
        for a in range(k):
            H[a * d1:(a + 1) * d1, a * d1:(a + 1) * d1] = weighted_gram(b.X, b.K, P[:, a], b.c)
        outer = np.zeros((k * d1, k * d1))
        step = max(1, (1 << 22) // (k * d1))
        for start in range(0, b.X.shape[0], step):
            B = b.X[start:start + step]
            Xb = np.empty((B.shape[0], d1))
            Xb[:, :-1] = B.toarray() if sp.issparse(B) else B
            Xb[:, -1] = b.c
            A = (P[start:start + step, :, None] * Xb[:, None, :]).reshape(B.shape[0], -1)
            outer = dsyrk(1.0, A.T, beta=1.0, c=outer, overwrite_c=1)
        outer = np.triu(outer)
        return H - outer - np.triu(outer, 1).T

    def sgd_epoch(self, b, w, u, n_avg, order, batch, opts, t):
        shape = (self.n_classes, b.X.shape[1] + 1)
        G, z = np.empty(shape), np.empty(self.n_classes)
        return kl.softmax_sgd_epoch(b.K, b.y, w.reshape(shape), b.c, order, batch, opts, t, G,
                                    z, u.reshape(shape), n_avg)


@dataclass(eq=False)
class Objective:
    """J for data (X, y), a datafit and the L2 penalty alpha (the intercepts unpenalised)."""

    X: object  # validated dense array or CSR matrix
    y: NDArray
    datafit: Datafit
    alpha: float
    fit_intercept: bool
    data: Rows = field(init=False, repr=False)
    shape: tuple[int, ...] = field(init=False, repr=False)
    max_abs: float = field(init=False, repr=False)  # max_ij |x_ij|
    _mask: NDArray = field(init=False, repr=False)
    _scales: NDArray = field(init=False, repr=False)
    _sample: Rows | None = field(init=False, repr=False, default=None)

    def __post_init__(self) -> None:
        self.data = Rows.of(self.X, self.y, 1.0 if self.fit_intercept else 0.0)
        self.shape = self.datafit.shape(self.X.shape[1])
        mask = np.ones(self.shape)
        mask[..., -1] = 0.0
        self._mask = mask.ravel()
        self._mask.flags.writeable = False
        column_max = column_max_abs(self.X)
        self.max_abs = float(column_max.max(initial=0.0))
        # s_j = min(1, max_i |x_ij|); 1 for the intercept and for an all-zero column, whose
        # gradient is the penalty's alone and has no data scale
        scales = np.ones(self.shape)
        scales[..., :-1] = np.where(column_max > 0, np.minimum(column_max, 1.0), 1.0)
        self._scales = scales.ravel()
        self._scales.flags.writeable = False

    @property
    def c(self) -> float:
        return self.data.c

    @property
    def size(self) -> int:
        return self._mask.shape[0]

    @property
    def n_outputs(self) -> int:
        return self.datafit.n_outputs

    def penalised(self) -> NDArray:
        """1.0 on the coefficient slots, 0.0 on the intercept slots (flat, read-only)."""
        return self._mask

    def value_grad(self, w: NDArray) -> tuple[float, NDArray]:
        """J(w) and its gradient, in one pass over X."""
        n = self.X.shape[0]
        value, grad = self.datafit.value_grad(self.data, w)
        pen = self._mask * w
        return value / n + 0.5 * self.alpha * pen @ pen, grad / n + self.alpha * pen

    def value(self, w: NDArray) -> float:
        return self.value_grad(w)[0]

    def stationary(self, g: NDArray, tol: float) -> bool:
        r"""The full-batch solvers' stopping rule: :math:`|g_j| \le` tol :math:`s_j` for every slot.

        :math:`s_j = \min(1, \max_i |x_{ij}|)` (1 for the intercepts and all-zero columns),
        computed once from X. Multiplying a feature by c multiplies its gradient by c and
        divides its optimal weight by c, so an absolute test :math:`\lVert g\rVert_\infty
        \le` tol stops at w = 0 on a tiny feature that the data call for (X 1e-6 gives
        gradients about 1e-7); scaled, the rule is the same for every c <= 1, and on
        features of unit scale or larger it is the absolute test (Nocedal and Wright 2006,
        Section 2.2 on scaling). It costs O(size) per test, no pass over X.
        """
        return bool(np.all(np.abs(g) <= tol * self._scales))

    def largest_safe_entry(self) -> float:
        """The largest max_ij |x_ij| for which the solvers' sums of squares stay finite.

        The curvature blocks, the Hessian and the step sizes sum x'_ij^2 over N rows and
        d + 1 slots; beyond sqrt(max float / (N (d + 1))) those sums overflow to inf (about
        1e150 for a thousand rows) and the linear algebra on them fails.
        """
        n, d1 = self.X.shape[0], self.shape[-1]
        return float(np.sqrt(np.finfo(np.float64).max / max(n * d1, 1)))

    def scales(self) -> NDArray:
        """The slots' gradient scales s_j of :meth:`stationary` (flat, read-only)."""
        return self._scales

    def evaluation_cost(self) -> float:
        """Multiply-adds of one value-and-gradient evaluation: 2 k nnz(X)."""
        nnz = self.X.nnz if sp.issparse(self.X) else self.X.size
        return 2.0 * nnz * self.n_outputs

    def sgd_epoch(self, w: NDArray, u: NDArray, n_avg: int, order: NDArray, batch: int,
                  opts: tuple, t: int) -> tuple[int, int]:
        """:meth:`Datafit.sgd_epoch` over the objective's data."""
        return self.datafit.sgd_epoch(self.data, w, u, n_avg, order, batch, opts, t)

    # -- curvature -------------------------------------------------------------------------
    def hess_operator(self, w: NDArray):
        """v -> H(w) v, the Hessian of J at w as a function (two passes over X per product)."""
        n = self.X.shape[0]
        ridge = self.alpha * self._mask
        data_product = self.datafit.hess_operator(self.data, w)
        return lambda v: data_product(v) / n + ridge * v

    def hessian(self, w: NDArray) -> NDArray:
        """The full Hessian (size x size), made positive definite along its null directions.

        Averaged over the curvature rows (:meth:`curvature_rows`). Directions that J ignores
        (the intercept's slot without an intercept; for the softmax, adding one vector to
        every class's unpenalised slots) get curvature 1; the gradient is orthogonal to
        them, so the Newton step is unchanged.
        """
        sample = self.curvature_rows()
        H = self.datafit.hessian(sample, w) / sample.rows.shape[0]
        H[np.diag_indices_from(H)] += self.alpha * self._mask
        self._fill_null_directions(H)
        return H

    def feature_curvature(self, w: NDArray, diagonal: bool = False,
                          max_cost: float = np.inf) -> NDArray:
        """The Hessian's diagonal blocks at w, one per class: the matrices L-BFGS whitens by.

        .. math:: B_a = \\frac{1}{m}\\sum_i h_{ia}\\, x'_i x_i'^T + \\alpha P + \\Delta

        with h_ia = p_ia (1 - p_ia) (softmax), sigma(z_i)(1 - sigma(z_i)) (logistic) or 1
        (squared), P the penalised slots, and a diagonal ridge :math:`\\Delta` of 1e-6
        times each slot's own curvature (so that B_a scales with the features) that keeps
        B_a positive definite on rank-deficient data; a slot without curvature (an
        all-zero column, the slot of an absent intercept) gets alpha, or 1 without a
        penalty. For one class B_1 is the Hessian itself. The rows are those of the Hessian
        (:meth:`curvature_rows`). Shape (k, d + 1, d + 1), or with ``diagonal`` (or when
        the blocks would cost more than ``max_cost`` multiply-adds) only the diagonals,
        shape (k, d + 1); k = 1 when every class has the same block (the softmax at W = 0).
        """
        sample = self.curvature_rows()
        X, K = sample.X, sample.K
        weights = self.datafit.curvature(sample, w)
        if np.all(weights == weights[0]):  # e.g. the softmax at W = 0: one block serves all
            weights = weights[:1]
        diagonal = diagonal or len(weights) * _gram_cost(X, K) > max_cost
        one = _weighted_diagonal if diagonal else weighted_gram
        blocks = np.stack([one(X, K, h, self.c) for h in weights]) / sample.rows.shape[0]
        slots = np.arange(self.shape[-1])
        diagonals = blocks if diagonal else blocks[:, slots, slots]  # a copy when not diagonal
        # relative to each slot's own curvature, so that B_a scales with its features (a
        # ridge relative to the mean drowned the curvature of features 1e-8 in size); a slot
        # without curvature (an all-zero column, an absent intercept) has a zero row and
        # column: alpha, or without a penalty any positive value, does
        penalised = slots < slots[-1]
        empty = 1.0 - (self.alpha > 0) * penalised
        extra = self.alpha * penalised + np.where(diagonals > 0, 1e-6 * diagonals, empty)
        if not self.fit_intercept:
            extra[:, -1] = 1.0
        if diagonal:
            blocks += extra
        else:
            blocks[:, slots, slots] += extra
        return blocks

    def curvature_rows(self) -> Rows:
        """The rows the curvature is averaged over (the Hessian, the whitening of L-BFGS):
        all of them, or for tall dense X (n >= 400 (d + 1)) a fixed random sample of
        max(100 (d + 1), n / 20) rows.

        The sampled Hessian differs from the full one by O(sqrt(d / m)) relatively, so
        Newton's method with it converges linearly at about that rate per step
        (sub-sampled Newton, Byrd et al. 2011), at a twentieth of the cost per step.
        """
        n = self.X.shape[0]
        if sp.issparse(self.X) or n < 400 * self.shape[-1]:
            return self.data
        if self._sample is None:
            m = max(100 * self.shape[-1], n // 20)
            rows = np.sort(np.random.default_rng(0).choice(n, m, replace=False))
            self._sample = Rows.of(np.ascontiguousarray(self.X[rows]), self.y[rows], self.c)
        return self._sample

    def _fill_null_directions(self, H: NDArray) -> None:
        k, d1 = self.n_outputs, self.shape[-1]
        free = [d1 - 1] if self.alpha > 0 else list(range(d1))
        if not self.fit_intercept:
            free = [j for j in free if j != d1 - 1]
            H[np.arange(k) * d1 + d1 - 1, np.arange(k) * d1 + d1 - 1] = 1.0
        if not self.datafit.shift_invariant:
            return
        for j in free:
            idx = np.arange(k) * d1 + j
            H[np.ix_(idx, idx)] += 1.0 / k

    def newton_direction(self, w: NDArray, g: NDArray) -> NDArray:
        """Solve H(w) s = g by Cholesky (a least-squares solve if H is singular)."""
        with one_blas_thread():  # at most 2048 x 2048: threads only add contention
            H = self.hessian(w)
            try:
                return cho_solve(cho_factor(H, check_finite=False), g, check_finite=False)
            except np.linalg.LinAlgError:
                return np.linalg.lstsq(H, g, rcond=None)[0]


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


def _gram_cost(X, K) -> float:
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
    out[d] = c * h.sum()
    return out


def weighted_gram(X, K, h: NDArray, c: float) -> NDArray:
    """sum_i h_i x'_i x'_i^T with x' = (x, c), as a dense (d + 1) x (d + 1) array.

    ``K`` is the compiled loops' view of X (:func:`halfspaces._fast.loop_input`).
    """
    d = X.shape[1]
    if sp.issparse(X):
        H = np.zeros((d + 1, d + 1))
        kl.csr_weighted_gram(K[0], K[1], K[2], h, c, H)
        upper = np.triu(H)
        return upper + np.triu(H, 1).T
    H = np.zeros((d + 1, d + 1))
    nonnegative = bool(np.all(h >= 0))
    for start in range(0, X.shape[0], _BLOCK):
        B, hb = X[start:start + _BLOCK], h[start:start + _BLOCK]
        if nonnegative:  # (sqrt(h) B)^T (sqrt(h) B) by SYRK: half the flops of GEMM
            S = B * np.sqrt(hb)[:, None]
            H[:d, :d] = dsyrk(1.0, S.T, beta=1.0, c=H[:d, :d], overwrite_c=0)
        else:
            H[:d, :d] += np.triu(B.T @ (B * hb[:, None]))
    H[:d, :d] += np.triu(H[:d, :d], 1).T
    col = c * (h @ X)
    H[:d, d] = col
    H[d, :d] = col
    H[d, d] = c * h.sum()
    return H
