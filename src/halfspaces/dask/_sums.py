"""The sums of a datafit over the partitions of a cluster: the distributed DataSums.

:class:`PartitionSums` is what :class:`halfspaces._glm.objective.GLMObjective` asks for its sums
(the loss and gradient, Hessian-vector products, the Hessian and its class blocks),
computed by one task per partition (the same datafit methods a local fit calls, on each
partition's rows) and added in partition order on the client. Each task returns O(size)
numbers (O(size^2) for the Hessian).

The curvature rows of tall dense data are a sample, as in a local fit: of max(100 d', N / 20)
rows in all, partition i draws its share, m N_i / N rows, with a generator seeded by i. One
partition therefore samples exactly the rows a local fit samples, and a fit on one
partition is the local fit, bit for bit.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from halfspaces._glm.datafits import Block, Datafit, curvature_blocks, gram_cost
from halfspaces._glm.objective import DataSums, curvature_sample_size, sample_rows
from halfspaces.dask._partitions import Partitions

__all__ = ["PartitionSums"]


class PartitionSums(DataSums):
    """The sums of ``datafit`` over partitions whose y blocks hold its encoded targets."""

    def __init__(self, parts: Partitions, datafit: Datafit, c: float) -> None:
        self.parts, self.datafit, self.c = parts, datafit, c
        self.n_samples, self.n_features = parts.n_samples, parts.n_features
        self.nnz = int(parts.nnz.sum())
        self.column_max_abs = parts.column_max_abs
        self._sample: Partitions | None = None
        self._gram_cost: float | None = None

    def value_grad(self, w):
        return self.parts.sum(_value_grad, self.datafit, w, self.c)

    def hess_product(self, w):
        return lambda v: self.parts.sum(_hess_product, self.datafit, w, v, self.c)

    def sample(self) -> Partitions:
        """The curvature rows: all partitions, or each one's share of the sample."""
        n, d1 = self.n_samples, self.n_features + 1
        m = curvature_sample_size(n, d1, self.parts.sparse)
        if m is None:
            return self.parts
        if self._sample is None:
            self._sample = self.parts.map_blocks(_sample_block, m, n, targets="encoded")
        return self._sample

    def curvature_count(self):
        return int(self.sample().n_rows.sum())

    def hessian(self, w):
        return self.sample().sum(_hessian, self.datafit, w, self.c)

    def curvature_uniform(self, w):
        return all(self.sample().map(_uniform, self.datafit, w, self.c))

    def gram_cost(self):
        if self._gram_cost is None:
            self._gram_cost = float(sum(self.sample().map(_gram_cost)))
        return self._gram_cost

    def curvature_blocks(self, w, n_blocks, diagonal):
        return self.sample().sum(_blocks, self.datafit, w, self.c, n_blocks, diagonal)


# -- on the workers: one partition's sums ------------------------------------------------------
def _value_grad(X, y, datafit: Datafit, w: NDArray, c: float):
    return datafit.value_grad(Block.of(X, y, c), w)


def _hess_product(X, y, datafit: Datafit, w: NDArray, v: NDArray, c: float) -> NDArray:
    return datafit.hess_operator(Block.of(X, y, c), w)(v)


def _hessian(X, y, datafit: Datafit, w: NDArray, c: float) -> NDArray:
    return datafit.hessian(Block.of(X, y, c), w)


def _uniform(X, y, datafit: Datafit, w: NDArray, c: float) -> bool:
    weights = datafit.curvature(Block.of(X, y, c), w)
    return bool(np.all(weights == weights[0]))


def _gram_cost(X, y) -> float:
    return gram_cost(X, Block.of(X, y, 0.0).loop_X)


def _blocks(X, y, datafit: Datafit, w: NDArray, c: float, n_blocks: int,
            diagonal: bool) -> NDArray:
    b = Block.of(X, y, c)
    return curvature_blocks(b, datafit.curvature(b, w)[:n_blocks], diagonal)


def _sample_block(X, y, index: int, m: int, n: int):
    """Partition ``index``'s share of an m-row sample of n rows: m n_i / n of its n_i rows."""
    n_i = X.shape[0]
    m_i = min(n_i, (m * n_i + n // 2) // n)
    rows = sample_rows(n_i, m_i, index)
    return np.ascontiguousarray(X[rows]), y[rows]
