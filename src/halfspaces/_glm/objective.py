r"""The objective J of the generalised linear models, split at its sums over the rows.

.. math::
    J(w, b) = \frac{1}{S}\sum_{i=1}^N s_i\,\ell(y_i, \langle w, x_i\rangle + b)
              + \frac{\alpha}{2}\lVert w\rVert^2, \qquad S = \sum_{i=1}^N s_i

(the mean loss without row weights, s_i = 1). What the solvers of
:mod:`halfspaces._glm.solvers` ask of J is of two kinds. Sums of a datafit method over the rows
(the loss and its gradient, Hessian-vector products, the Hessian and its class blocks over the
curvature rows) come from a :class:`DataSums`: :class:`LocalSums` computes them over one in-
memory X, ``halfspaces.dask`` adds them up over the partitions of a cluster (Spark MLlib's
recipe: the optimiser on the driver, the sums on the workers). Everything else, the means, the
penalty and its mask, the gradient scales of the stopping rule, the ridge that keeps the
curvature blocks positive definite, the Hessian's null directions and the Newton step, is
:class:`GLMObjective`'s alone, so that a local fit and a distributed one differ only in where
the sums are computed.

References
----------
.. [1] C. M. Bishop. Pattern Recognition and Machine Learning. Springer, 2006. Section 4.3.
.. [2] X. Meng et al. MLlib: Machine Learning in Apache Spark. JMLR 17(34), 2016.
.. [3] R. H. Byrd, G. M. Chin, W. Neveitt and J. Nocedal. On the use of stochastic Hessian
   information in optimization methods for machine learning. SIAM J. Optim. 21(3), 2011.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import scipy.sparse as sp
from numpy.typing import NDArray
from scipy.linalg import cho_factor, cho_solve

from halfspaces._glm.datafits import Block, Datafit, curvature_blocks, gram_cost
from halfspaces._utils.blas import one_blas_thread
from halfspaces._validation import column_max_abs

__all__ = ["GLMObjective", "LocalSums", "Objective", "DataSums", "curvature_sample_size",
           "sample_rows"]


def curvature_sample_size(n: int, d1: int, sparse: bool) -> int | None:
    """Rows of the curvature sample for n rows of d1 slots: None (use all) for sparse or not
    tall data (n < 400 d1), else max(100 d1, n / 20)."""
    if sparse or n < 400 * d1:
        return None
    return max(100 * d1, n // 20)


def sample_rows(n: int, m: int, seed: int) -> NDArray:
    """m of the n rows, sorted, drawn without replacement by a generator seeded with seed."""
    return np.sort(np.random.default_rng(seed).choice(n, m, replace=False))


class DataSums:
    """Sums of one datafit's methods over every row of a data set, and the data's counts.

    The seam between :class:`GLMObjective` and where the rows live. Sums, not means: the
    objective divides, by :attr:`total_weight` (S = sum_i s_i, ``n_samples`` without row
    weights). The curvature methods sum over the curvature rows (of total weight
    :meth:`curvature_count`), the others over all ``n_samples``.
    """

    n_samples: int
    n_features: int
    nnz: int  # stored entries of X (n d when dense): an evaluation's cost
    column_max_abs: NDArray  # max_i |x_ij| per column, float64

    @property
    def total_weight(self) -> float:
        """S = sum_i s_i, what the sums are divided by: ``n_samples`` without weights."""
        return float(self.n_samples)

    def value_grad(self, w: NDArray) -> tuple[float, NDArray]:
        raise NotImplementedError

    def hess_product(self, w: NDArray) -> Callable[[NDArray], NDArray]:
        """v -> sum_i of the Hessian-vector products at w."""
        raise NotImplementedError

    def curvature_count(self) -> float:
        """The total weight of the curvature rows (their number without weights)."""
        raise NotImplementedError

    def hessian(self, w: NDArray) -> NDArray:
        raise NotImplementedError

    def curvature_uniform(self, w: NDArray) -> bool:
        """Whether every class has the same curvature weights h_ia on the curvature rows."""
        raise NotImplementedError

    def gram_cost(self) -> float:
        """Multiply-adds of one weighted Gram matrix over the curvature rows."""
        raise NotImplementedError

    def curvature_blocks(self, w: NDArray, n_blocks: int, diagonal: bool) -> NDArray:
        """sum_i h_ia x'_i x'_i^T over the curvature rows for the first ``n_blocks`` classes
        (:func:`halfspaces._glm.datafits.curvature_blocks`)."""
        raise NotImplementedError


class LocalSums(DataSums):
    """The sums over one in-memory X (a validated dense array or CSR matrix), each row
    weighted by ``weights`` (None: all 1)."""

    def __init__(self, X, y: NDArray, datafit: Datafit, c: float,
                 weights: NDArray | None = None) -> None:
        self.X, self.y, self.datafit = X, y, datafit
        self.data = Block.of(X, y, c, weights)
        self._total = self.data.total_weight()
        self.n_samples, self.n_features = X.shape
        self.nnz = X.nnz if sp.issparse(X) else X.size
        self.column_max_abs = column_max_abs(X)
        self._sample: Block | None = None
        self._weights: tuple[NDArray, NDArray] | None = None  # (w, h) of the last curvature

    @property
    def total_weight(self) -> float:
        return self._total

    def value_grad(self, w):
        return self.datafit.value_grad(self.data, w)

    def hess_product(self, w):
        return self.datafit.hess_operator(self.data, w)

    def sample(self) -> Block:
        """The curvature rows: all of them, or the fixed sample of tall dense X."""
        m = curvature_sample_size(self.n_samples, self.n_features + 1, sp.issparse(self.X))
        if m is None:
            return self.data
        if self._sample is None:
            rows = sample_rows(self.n_samples, m, 0)
            weights = self.data.weights
            sample = Block.of(np.ascontiguousarray(self.X[rows]), self.y[rows], self.data.c,
                              None if weights is None else weights[rows])
            # a sample of weight 0 (all its rows weigh nothing) has no curvature: all rows
            self._sample = sample if sample.total_weight() > 0 else self.data
        return self._sample

    def curvature_count(self):
        return self.sample().total_weight()

    def hessian(self, w):
        return self.datafit.hessian(self.sample(), w)

    def curvature_uniform(self, w):
        weights = self.datafit.curvature(self.sample(), w)
        self._weights = (w.copy(), weights)
        return bool(np.all(weights == weights[0]))

    def gram_cost(self):
        sample = self.sample()
        return gram_cost(sample.X, sample.loop_X)

    def curvature_blocks(self, w, n_blocks, diagonal):
        sample = self.sample()
        if self._weights is not None and np.array_equal(self._weights[0], w):
            weights = self._weights[1]  # curvature_uniform's, just computed: no second pass
        else:
            weights = self.datafit.curvature(sample, w)
        self._weights = None
        return curvature_blocks(sample, weights[:n_blocks], diagonal)


class GLMObjective:
    """J for a :class:`DataSums`, its datafit and the L2 penalty alpha (intercepts free)."""

    def __init__(self, rows: DataSums, datafit: Datafit, alpha: float,
                 fit_intercept: bool) -> None:
        self.rows, self.datafit = rows, datafit
        # a float: an int alpha reached NumPy as int64 (10**30 overflowed it) and the
        # compiled loops as an integer type
        self.alpha, self.fit_intercept = float(alpha), fit_intercept
        self.shape = datafit.shape(rows.n_features)
        mask = np.ones(self.shape)
        mask[..., -1] = 0.0
        self._mask = mask.ravel()
        self._mask.flags.writeable = False
        column_max = rows.column_max_abs
        self.max_abs = float(column_max.max(initial=0.0))  # max_ij |x_ij|
        # s_j = min(1, max_i |x_ij|); 1 for the intercept and for an all-zero column, whose
        # gradient is the penalty's alone and has no data scale
        scales = np.ones(self.shape)
        scales[..., :-1] = np.where(column_max > 0, np.minimum(column_max, 1.0), 1.0)
        self._scales = scales.ravel()
        self._scales.flags.writeable = False

    @property
    def c(self) -> float:
        """The constant feature: 1.0 with an intercept, else 0.0."""
        return 1.0 if self.fit_intercept else 0.0

    @property
    def n_samples(self) -> int:
        return self.rows.n_samples

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
        n = self.rows.total_weight
        value, grad = self.rows.value_grad(w)
        pen = self._mask * w
        return value / n + 0.5 * self.alpha * pen @ pen, grad / n + self.alpha * pen

    def value(self, w: NDArray) -> float:
        return self.value_grad(w)[0]

    def duality_gap(self, w: NDArray) -> tuple[float, float] | None:
        """(J(w) bounded above, a certified upper bound on J(w) - J*), or None where the
        rows are not in memory (the sums of a cluster's partitions): the bound needs a pass
        over X of its own (:mod:`halfspaces._glm.duals`)."""
        return None

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
        n, d1 = self.rows.n_samples, self.shape[-1]
        return float(np.sqrt(np.finfo(np.float64).max / max(n * d1, 1)))

    def scales(self) -> NDArray:
        """The slots' gradient scales s_j of :meth:`stationary` (flat, read-only)."""
        return self._scales

    def evaluation_cost(self) -> float:
        """Multiply-adds of one value-and-gradient evaluation: 2 k nnz(X)."""
        return 2.0 * self.rows.nnz * self.n_outputs

    # -- curvature -------------------------------------------------------------------------
    def hess_operator(self, w: NDArray):
        """v -> H(w) v, the Hessian of J at w as a function (two passes over X per product)."""
        n = self.rows.total_weight
        ridge = self.alpha * self._mask
        data_product = self.rows.hess_product(w)
        return lambda v: data_product(v) / n + ridge * v

    def hessian(self, w: NDArray) -> NDArray:
        """The full Hessian (size x size), made positive definite along its null directions.

        Averaged over the curvature rows (:meth:`LocalSums.sample`: for tall dense X a fixed
        sample, whose Hessian differs from the full one by O(sqrt(d / m)) relatively, so
        Newton's method with it converges linearly at about that rate per step, Byrd et
        al. 2011, at a twentieth of the cost per step). Directions that J ignores (the
        intercept's slot without an intercept; for the softmax, adding one vector to every
        class's unpenalised slots) get curvature 1; the gradient is orthogonal to them, so
        the Newton step is unchanged.
        """
        H = self.rows.hessian(w) / self.rows.curvature_count()
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
        (:meth:`hessian`). Shape (k, d + 1, d + 1), or with ``diagonal`` (or when the blocks
        would cost more than ``max_cost`` multiply-adds) only the diagonals, shape
        (k, d + 1); k = 1 when every class has the same block (the softmax at W = 0).
        """
        # e.g. the softmax at W = 0: one block serves all classes
        k = 1 if self.n_outputs == 1 or self.rows.curvature_uniform(w) else self.n_outputs
        diagonal = diagonal or k * self.rows.gram_cost() > max_cost
        blocks = self.rows.curvature_blocks(w, k, diagonal) / self.rows.curvature_count()
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


class Objective(GLMObjective):
    """J for in-memory data (X, y), a datafit and the L2 penalty alpha.

    X is a validated dense array or CSR matrix; y its targets as the datafit reads them;
    ``weights`` the rows' weights s_i >= 0 (validated, not all 0), taken once here: J is
    then the weighted mean loss plus the penalty. None: the mean, by the unweighted loops.
    """

    rows: LocalSums

    def __init__(self, X, y: NDArray, datafit: Datafit, alpha: float,
                 fit_intercept: bool, weights: NDArray | None = None) -> None:
        super().__init__(LocalSums(X, y, datafit, 1.0 if fit_intercept else 0.0, weights),
                         datafit, alpha, fit_intercept)
        self.X, self.y = X, y

    @property
    def weights(self) -> NDArray | None:
        """The rows' weights s_i, or None for unit weights."""
        return self.rows.data.weights

    @property
    def data(self) -> Block:
        return self.rows.data

    def duality_gap(self, w: NDArray) -> tuple[float, float]:
        return self.datafit.duality_gap(self.X, self.y, w, self.alpha, self.fit_intercept,
                                        self.weights)

    def curvature_rows(self) -> Block:
        """The rows the curvature is averaged over: all of them, or for tall dense X
        (n >= 400 (d + 1)) a fixed random sample of max(100 (d + 1), n / 20) rows."""
        return self.rows.sample()

    def sgd_epoch(self, w: NDArray, u: NDArray, n_avg: int, order: NDArray, batch: int,
                  opts: tuple, t: int) -> tuple[int, int]:
        """:meth:`Datafit.sgd_epoch` over the objective's data."""
        return self.datafit.sgd_epoch(self.data, w, u, n_avg, order, batch, opts, t)
