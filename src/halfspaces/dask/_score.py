"""A fitted model's score on data in partitions: each partition sums its own rows.

Accuracy adds (correct, rows) over the partitions; R^2 merges per-partition moments
pairwise in partition order (Chan, Golub and LeVeque 1979), so the score does not depend
on the number of workers and only O(1) numbers per partition reach the client.
"""

from __future__ import annotations

import copy
import functools

import numpy as np
from numpy.typing import NDArray
from sklearn.base import is_regressor

from halfspaces._utils.scaling import power_of_two_scale
from halfspaces.dask._partitions import Partitions

__all__ = ["score"]


def score(model, X, y=None) -> float:
    """The score of a fitted serial `model` on data in partitions, as ``model.score`` gives it.

    Accuracy for a classifier; for a regressor R^2 = 1 - SSE / M2, as scikit-learn's
    ``r2_score`` gives it (1.0 for M2 = SSE = 0, 0.0 for M2 = 0 < SSE). Every partition
    predicts its own rows and returns a few sums; no prediction leaves its worker.

    Parameters
    ----------
    model : fitted estimator
        A serial model (``to_local()`` of a :mod:`halfspaces.dask` one), or a
        :mod:`halfspaces.dask` model itself.
    X : dask array, dask DataFrame or Partitions
        The samples, chunked by rows; a Partitions holds the targets too.
    y : dask array or Series, default=None
        The true labels (or targets); None with a Partitions.

    Returns
    -------
    score : float

    Examples
    --------
    >>> import dask.array as da
    >>> from distributed import Client, LocalCluster
    >>> from halfspaces import LinearRegression
    >>> from halfspaces.dask import score
    >>> X, y = [[0.0], [1.0], [2.0], [3.0]], [1.0, 3.0, 5.0, 7.0]
    >>> model = LinearRegression().fit(X, y)
    >>> with LocalCluster(n_workers=2, processes=False) as cluster, Client(cluster):
    ...     r2 = score(model, da.from_array(X, chunks=2), da.from_array(y, chunks=2))
    >>> round(r2, 12)
    1.0
    """
    local = copy.copy(model.to_local() if hasattr(model, "to_local") else model)
    local.__dict__.pop("feature_names_in_", None)  # the partitions hold plain arrays
    regression = is_regressor(local)
    if isinstance(X, Partitions):
        if y is not None:
            raise ValueError("X is a Partitions, which holds the targets: pass y=None.")
        parts = X
    else:
        parts = Partitions.from_collections(X, y, targets="continuous" if regression
                                            else None)
    blocks = parts.map(_block_score, local, regression)
    if not regression:
        rows = sum(b[1] for b in blocks)
        return sum(b[0] for b in blocks) / rows if rows else float("nan")
    _, _, m2, sse, _ = functools.reduce(_merged, blocks)
    if m2 == 0:
        return 1.0 if sse == 0 else 0.0
    return 1.0 - sse / m2


def _block_score(X, y, local, regression: bool):
    """(correct predictions, rows) or, for regression, :func:`_moments` of the block."""
    if X.shape[0] == 0:
        return (0, 0.0, 0.0, 0.0, 1.0) if regression else (0, 0)
    predicted = local.predict(X)
    if regression:
        return _moments(np.asarray(y, dtype=np.float64), predicted)
    return int(np.sum(predicted == y)), len(y)


def _moments(y: NDArray, predicted: NDArray) -> tuple[int, float, float, float, float]:
    """(n, mean, M2, SSE, c) of one block, the last three of y and predictions times c.

    c is a power of two that brings the largest |y_i| or finite |prediction| into [1, 2),
    exactly, so the squares neither overflow (|y| past 1e154) nor underflow (1e-200);
    M2 = sum (y_i - mean)^2 by two passes over the block.
    """
    c = power_of_two_scale(np.r_[y, predicted[np.isfinite(predicted)]])
    ys = y * c
    mean = float(ys.mean())
    return (len(ys), mean, float(np.sum((ys - mean) ** 2)),
            float(np.sum((ys - predicted * c) ** 2)), c)


def _merged(first: tuple, second: tuple) -> tuple:
    """The :func:`_moments` of two blocks together (Chan, Golub and LeVeque 1979).

    Both are brought to the smaller of their scales (a power-of-two ratio, exact bar
    underflow of what is negligible beside the larger block), then
    M2 = M2_a + M2_b + delta^2 n_a n_b / n with delta the difference of the means: no
    sum(y^2) - sum(y)^2 / n, which cancelled catastrophically for y = 1e8 + noise.
    """
    if second[0] == 0:
        return first
    if first[0] == 0:
        return second
    c = min(first[4], second[4])
    (na, ma, qa, sa), (nb, mb, qb, sb) = (_rescaled(m, c / m[4]) for m in (first, second))
    n = na + nb
    delta = mb - ma
    return (n, ma + delta * (nb / n), qa + qb + delta * delta * (na * nb / n), sa + sb, c)


def _rescaled(moments: tuple, r: float) -> tuple[int, float, float, float]:
    n, mean, m2, sse, _ = moments
    return n, mean * r, m2 * (r * r), sse * (r * r)
