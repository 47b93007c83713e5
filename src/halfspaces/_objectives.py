"""The penalised empirical risks the solvers minimise: value, gradient and curvature.

.. math::
    J(w, b) = \\frac{1}{N}\\sum_{i=1}^N \\ell(y_i, \\langle w, x_i\\rangle + b)
              + \\frac{\\alpha}{2}\\lVert w\\rVert^2

with the logistic, squared or softmax loss; the intercept b is not penalised. Parameters
travel as one flat float64 vector: (w, b) for the binary and regression losses, the rows
(w_k, b_k) of a (k, d + 1) matrix for the softmax loss. Binary and squared losses use the
fused compiled loops (one pass over X for the loss and the gradient); the softmax loss uses
BLAS (X @ W.T and R.T @ X), which is faster for k scores per row.
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

_BLOCK = 1 << 15  # rows per block of the dense weighted Gram matrix


@dataclass
class Objective:
    """J for data (X, y): y holds ±1 targets (logistic), values (squared) or class indices."""

    X: object  # validated dense array or CSR matrix
    y: NDArray
    alpha: float
    fit_intercept: bool
    loss: str  # "logistic", "squared" or "softmax"
    n_classes: int = 1
    _rows: NDArray = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self._K = loop_input(self.X)
        self._rows = np.arange(self.X.shape[0], dtype=np.intp)
        self._code = kl.SQUARED if self.loss == "squared" else kl.LOGISTIC

    @property
    def c(self) -> float:
        return 1.0 if self.fit_intercept else 0.0

    @property
    def shape(self) -> tuple[int, ...]:
        d1 = self.X.shape[1] + 1
        return (self.n_classes, d1) if self.loss == "softmax" else (d1,)

    @property
    def size(self) -> int:
        return int(np.prod(self.shape))

    def penalised(self) -> NDArray:
        """1.0 on the coefficient slots, 0.0 on the intercept slots (flat)."""
        mask = np.ones(self.shape)
        mask[..., -1] = 0.0
        return mask.ravel()

    def value_grad(self, w: NDArray) -> tuple[float, NDArray]:
        """J(w) and its gradient, in one pass over X."""
        n = self.X.shape[0]
        if self.loss == "softmax":
            value, grad = self._softmax_value_grad(w.reshape(self.shape))
        else:
            grad = np.zeros(self.size)
            value = kl.loss_grad(self._K, self.y, w, self.c, self._rows, self._code, grad)
        pen = self.penalised() * w
        return value / n + 0.5 * self.alpha * pen @ pen, grad.ravel() / n + self.alpha * pen

    def value(self, w: NDArray) -> float:
        return self.value_grad(w)[0]

    # -- softmax, in BLAS ------------------------------------------------------------------
    def scores(self, W: NDArray) -> NDArray:
        """Z = X W[:, :d]^T + c W[:, d], shape (n, k)."""
        Z = np.asarray(self.X @ W[:, :-1].T)
        return Z + self.c * W[:, -1]

    def _softmax_value_grad(self, W: NDArray) -> tuple[float, NDArray]:
        Z = self.scores(W)
        value = -Z[self._rows, self.y].sum()
        R, lse = softmax(Z)
        value += lse.sum()
        R[self._rows, self.y] -= 1.0
        return value, self._back(R)

    def _back(self, R: NDArray) -> NDArray:
        """Sum over rows of R_ik x'_i, shape (k, d + 1)."""
        G = np.empty(self.shape)
        G[:, :-1] = np.asarray(self.X.T @ R).T
        G[:, -1] = self.c * R.sum(axis=0)
        return G

    def _probabilities(self, W: NDArray) -> NDArray:
        return softmax(self.scores(W))[0]

    # -- curvature -------------------------------------------------------------------------
    def hess_operator(self, w: NDArray):
        """v -> H(w) v, the Hessian of J at w as a function (two passes over X per product)."""
        n = self.X.shape[0]
        ridge = self.alpha * self.penalised()
        if self.loss == "softmax":
            P = self._probabilities(w.reshape(self.shape))

            def product(v: NDArray) -> NDArray:
                S = self.scores(v.reshape(self.shape))
                R = P * (S - (P * S).sum(axis=1, keepdims=True))
                return self._back(R).ravel() / n + ridge * v
            return product

        h = np.empty(n)
        kl.curvature(self._K, self.y, w, self.c, self._rows, self._code, h)

        def product(v: NDArray) -> NDArray:
            out = np.zeros(self.size)
            kl.hessp(self._K, h, v, self.c, self._rows, out)
            return out / n + ridge * v
        return product

    def hessian(self, w: NDArray) -> NDArray:
        """The full Hessian (size x size), made positive definite along its null directions.

        Directions that J ignores (the intercept's slot without an intercept; for the
        softmax, adding one vector to every class's unpenalised slots) get curvature 1; the
        gradient is orthogonal to them, so the Newton step is unchanged.
        """
        n = self.X.shape[0]
        if self.loss == "softmax":
            H = self._softmax_hessian(w.reshape(self.shape)) / n
        else:
            X, K, y, rows = self._curvature_sample()
            h = np.empty(rows.shape[0])
            kl.curvature(K, y, w, self.c, rows, self._code, h)
            H = weighted_gram(X, K, h, self.c) / rows.shape[0]
        H[np.diag_indices_from(H)] += self.alpha * self.penalised()
        self._fill_null_directions(H)
        return H

    def feature_curvature(self, w: NDArray, diagonal: bool = False,
                          max_cost: float = np.inf) -> NDArray:
        """The Hessian's diagonal blocks at w, one per class: the matrices L-BFGS whitens by.

        .. math:: B_a = \\frac{1}{m}\\sum_i h_{ia}\\, x'_i x_i'^T + \\alpha P + \\delta I

        with h_ia = p_ia (1 - p_ia) (softmax), sigma(z_i)(1 - sigma(z_i)) (logistic) or 1
        (squared), P the penalised slots, and a ridge delta = 1e-6 mean(diag) that keeps
        B_a positive definite on rank-deficient data (the slot of an absent intercept gets
        1). For one class B_1 is the Hessian itself. The rows are those of the Hessian
        (all of them, or for tall dense X its fixed sample). Shape (k, d + 1, d + 1), or
        with ``diagonal`` (or when the blocks would cost more than ``max_cost``
        multiply-adds) only the diagonals, shape (k, d + 1); k = 1 when every class has
        the same block (the softmax at W = 0).
        """
        X, K, y, rows = self._curvature_sample()
        weights = self._curvature_weights(w, X, K, y, rows)
        if np.all(weights == weights[0]):  # e.g. the softmax at W = 0: one block serves all
            weights = weights[:1]
        diagonal = diagonal or len(weights) * _gram_cost(X, K) > max_cost
        one = _weighted_diagonal if diagonal else weighted_gram
        blocks = np.stack([one(X, K, h, self.c) for h in weights]) / rows.shape[0]
        slots = np.arange(self.shape[-1])
        diagonals = blocks if diagonal else blocks[:, slots, slots]  # a copy when not diagonal
        extra = self.alpha * (slots < slots[-1]) + 1e-6 * max(float(diagonals.mean()), 1e-300)
        if not self.fit_intercept:
            extra[-1] = 1.0  # that slot's row and column are zero: any positive value does
        if diagonal:
            blocks += extra
        else:
            blocks[:, slots, slots] += extra
        return blocks

    def _curvature_weights(self, w: NDArray, X, K, y, rows) -> NDArray:
        """h_ia of :meth:`feature_curvature`, shape (k, m)."""
        if self.loss == "softmax":
            W = w.reshape(self.shape)
            Z = np.asarray(X @ W[:, :-1].T) + self.c * W[:, -1]
            P = softmax(Z)[0]
            return np.ascontiguousarray((P * (1.0 - P)).T)
        h = np.empty((1, rows.shape[0]))
        kl.curvature(K, y, w, self.c, rows, self._code, h[0])
        return h

    def _curvature_sample(self):
        """The rows the curvature is averaged over (the binary Hessian, the whitening of
        L-BFGS): all of them, or for tall dense X (n >= 400 (d + 1)) a fixed random sample
        of max(100 (d + 1), n / 20) rows.

        The sampled Hessian differs from the full one by O(sqrt(d / m)) relatively, so
        Newton's method with it converges linearly at about that rate per step
        (sub-sampled Newton, Byrd et al. 2011), at a twentieth of the cost per step.
        """
        n = self.X.shape[0]
        if sp.issparse(self.X) or n < 400 * self.shape[-1]:
            return self.X, self._K, self.y, self._rows
        if getattr(self, "_sample", None) is None:
            m = max(100 * self.shape[-1], n // 20)
            rows = np.sort(np.random.default_rng(0).choice(n, m, replace=False))
            Xs = np.ascontiguousarray(self.X[rows])
            self._sample = (Xs, Xs, self.y[rows], np.arange(m, dtype=np.intp))
        return self._sample

    def _softmax_hessian(self, W: NDArray) -> NDArray:
        """sum_i (diag(p_i) - p_i p_i^T) (x) x'_i x'_i^T: k diagonal blocks minus A^T A.

        Row i of A is p_i (x) x'_i (its k d' products), so A^T A is the p p^T part; both
        terms are SYRK updates over blocks of rows.
        """
        P = self._probabilities(W)
        k, d1 = self.shape
        H = np.zeros((k * d1, k * d1))
        for a in range(k):
            H[a * d1:(a + 1) * d1, a * d1:(a + 1) * d1] = weighted_gram(
                self.X, self._K, P[:, a], self.c)
        outer = np.zeros((k * d1, k * d1))
        step = max(1, (1 << 22) // (k * d1))
        for start in range(0, self.X.shape[0], step):
            B = self.X[start:start + step]
            Xb = np.empty((B.shape[0], d1))
            Xb[:, :-1] = B.toarray() if sp.issparse(B) else B
            Xb[:, -1] = self.c
            A = (P[start:start + step, :, None] * Xb[:, None, :]).reshape(B.shape[0], -1)
            outer = dsyrk(1.0, A.T, beta=1.0, c=outer, overwrite_c=1)
        outer = np.triu(outer)
        return H - outer - np.triu(outer, 1).T

    def _fill_null_directions(self, H: NDArray) -> None:
        k, d1 = (self.shape if self.loss == "softmax" else (1, self.shape[0]))
        free = [d1 - 1] if self.alpha > 0 else list(range(d1))
        if not self.fit_intercept:
            free = [j for j in free if j != d1 - 1]
            H[np.arange(k) * d1 + d1 - 1, np.arange(k) * d1 + d1 - 1] = 1.0
        if self.loss != "softmax":
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


def evaluation_cost(obj: Objective) -> float:
    """Multiply-adds of one value-and-gradient evaluation: 2 k nnz(X)."""
    nnz = obj.X.nnz if sp.issparse(obj.X) else obj.X.size
    return 2.0 * nnz * (obj.n_classes if obj.loss == "softmax" else 1)


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
    """sum_i h_i x'_i x'_i^T with x' = (x, c), as a dense (d + 1) x (d + 1) array."""
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
