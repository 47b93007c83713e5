"""Least squares with a ridge penalty: the direct solvers of :class:`halfspaces.LinearRegression`.

The penalised least-squares problem min_w ||X'w' - y||^2 / (2N) + alpha/2 ||w||^2 has the
closed form of its normal equations, (X'^T X' / N + alpha I_w) w' = X'^T y / N:
:func:`by_normal_equations` solves them by Cholesky (least squares where they are singular),
from sums over row blocks (:func:`normal_equation_sums`, which the Dask twin adds over
partitions before :func:`solve_normal_equations`); :func:`lstsq` solves the centred,
stacked problem by SVD for dense X. Columns and targets far from unit scale enter scaled by
powers of two (:func:`normal_equation_scales`, :func:`target_scale`), which is exact.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray
from scipy.linalg import LinAlgError, cho_factor, cho_solve

from halfspaces._glm.datafits import Block, weighted_gram
from halfspaces._glm.objective import Objective
from halfspaces._utils.scaling import power_of_two_scales, scale_columns

__all__ = ["by_normal_equations", "lstsq", "normal_equation_scales", "normal_equation_sums",
           "solve_normal_equations", "target_scale"]


def lstsq(X: NDArray, y: NDArray, alpha: float, fit_intercept: bool,
          column_max: NDArray, weights: NDArray | None = None) -> NDArray:
    """Centre, stack sqrt(N alpha) I under X for the penalty, solve by SVD, recover b.

    With row weights s_i: centre by the weighted means, multiply row i by sqrt(s_i) and
    stack sqrt(S alpha) I (S = sum_i s_i), the least-squares form of the weighted mean of
    squares; a row of weight 0 becomes a row of zeros.

    Columns outside [2^-100, 2^100] are scaled by powers of two first
    (:func:`normal_equation_scales`): the SVD drops singular values below eps times the
    largest, so columns of 2^665 beside columns of 2^-665 got weights 0 (as in
    scikit-learn); the minimum-norm solution of rank-deficient X is then that of the
    scaled columns.
    """
    s = np.ones(X.shape[0]) if weights is None else weights
    total = float(X.shape[0]) if weights is None else float(np.sum(weights))
    if not fit_intercept:
        x_mean, y_mean = np.zeros(X.shape[1]), 0.0
    elif weights is None:
        x_mean, y_mean = X.mean(axis=0, dtype=np.float64), y.mean()
    else:
        x_mean = (s @ np.asarray(X, dtype=np.float64)) / total
        y_mean = float(s @ y) / total
    A, rhs = np.asarray(X, dtype=np.float64) - x_mean, y - y_mean
    if weights is not None:
        root = np.sqrt(s)
        A, rhs = A * root[:, None], rhs * root
    D = normal_equation_scales(column_max, alpha)  # max_i |x_ij|, as the objective found it
    scaled = not np.all(D == 1.0)
    if scaled:
        A = A * D
    if alpha > 0:  # sqrt(N) sqrt(alpha): N alpha overflowed to inf from alpha = 1e308 on
        ridge = np.sqrt(total) * np.sqrt(alpha) * np.eye(X.shape[1])
        A = np.vstack([A, ridge * D if scaled else ridge])
        rhs = np.concatenate([rhs, np.zeros(X.shape[1])])
    w = np.linalg.lstsq(A, rhs, rcond=None)[0]
    if scaled:
        w = w * D
    return np.append(w, y_mean - x_mean @ w)


def by_normal_equations(X, y: NDArray, obj: Objective) -> NDArray:
    """Solve (X'^T X' / N + alpha I_w) w' = X'^T y / N; least squares if it is singular.

    On X diag(D) and y t, powers of two (:func:`normal_equation_scales`), unscaled after.
    With the objective's row weights s_i the sums are weighted and N is S = sum_i s_i.
    """
    D = normal_equation_scales(obj.rows.column_max_abs, obj.alpha)
    t = target_scale(y)
    Xs = scale_columns(X, D)
    K = obj.data.loop_X if Xs is X else Block.of(Xs, y, obj.c).loop_X
    G, rhs = normal_equation_sums(Xs, K, y * t, obj.c, obj.weights)
    return solve_normal_equations(G, rhs, obj.rows.total_weight, obj.alpha,
                                  obj.fit_intercept, scales=D, target=t)


# Columns and targets whose largest |entry| lies within [2^-100, 2^100] enter the normal
# equations as they are, so ordinary data give the same bits as without scaling: their
# sums of N products neither overflow nor underflow. Outside it, entries of 1e200 made
# X^T X inf and entries of 1e-200 made it 0 (sparse X takes this path for every solver).
_SAFE_EXPONENT = 100


def normal_equation_scales(column_max: NDArray, alpha: float) -> NDArray:
    """Powers of two D_j by which column j of X enters the normal equations.

    1 where the column's size s_j = max(max_i |x_ij|, sqrt(alpha)) lies in
    [2^-100, 2^100] (or is 0), else the power of two with D_j s_j in [1, 2): the scaled
    diagonal (||x_j||^2 / N + alpha) D_j^2 is then at most 8, and a product by a power of
    two is exact, so :func:`solve_normal_equations` recovers w_j = D_j v_j from the
    scaled solution v without error of its own.
    """
    size = np.maximum(np.asarray(column_max, dtype=np.float64), np.sqrt(alpha))
    return np.where(_in_range(size), 1.0, power_of_two_scales(size))


def target_scale(y: NDArray) -> float:
    """The power of two t by which y enters the normal equations (1 when max |y_i| lies in
    [2^-100, 2^100] or is 0; else t max |y_i| in [1, 2))."""
    top = float(np.max(np.abs(y), initial=0.0))
    return 1.0 if _in_range(np.array(top)) else float(power_of_two_scales(np.array(top)))


def _in_range(size: NDArray) -> NDArray:
    exponent = np.frexp(size)[1]
    return (size == 0) | ((exponent > -_SAFE_EXPONENT) & (exponent <= _SAFE_EXPONENT))


def normal_equation_sums(X, K, y: NDArray, c: float,
                         weights: NDArray | None = None) -> tuple[NDArray, NDArray]:
    """X'^T S X' and X'^T S y over the rows of X, x' = (x, c), S = diag(weights) (the
    identity for None): sums, so that blocks add up.

    ``K`` is the compiled loops' view of X (:func:`halfspaces._fast.loop_input`). X and y
    are taken as they are: scale them first (:func:`normal_equation_scales`).
    """
    s = np.ones(X.shape[0]) if weights is None else weights
    G = weighted_gram(X, K, s, c)
    sy = y if weights is None else s * y
    return G, np.append(np.asarray(X.T @ sy).ravel(), c * sy.sum())


def solve_normal_equations(G: NDArray, rhs: NDArray, n: float, alpha: float,
                           fit_intercept: bool, *, scales: NDArray | None = None,
                           target: float = 1.0) -> NDArray:
    """w' from the sums of :func:`normal_equation_sums` over n rows: Cholesky of
    G / n + alpha I_w, least squares if it is singular.

    With the sums of X diag(scales) and y target, the penalty is alpha scales_j^2 and the
    solution is unscaled: w_j = scales_j v_j / target, b = v_b / target.
    """
    d = G.shape[0] - 1
    D = np.ones(d) if scales is None else scales
    G = G / n
    # alpha D_j^2 as (sqrt(alpha) D_j)^2, at most 4 for a scaled column (D_j^2 alone
    # overflowed for alpha = 0 and columns of 1e-300)
    G[np.arange(d), np.arange(d)] += np.where(D == 1.0, alpha, (np.sqrt(alpha) * D) ** 2)
    if not fit_intercept:
        G[-1, -1] = 1.0
    rhs = rhs / n
    try:
        v = cho_solve(cho_factor(G, check_finite=False), rhs, check_finite=False)
    except LinAlgError:
        v = np.linalg.lstsq(G, rhs, rcond=None)[0]
    if scales is None and target == 1.0:
        return v
    return np.append(v[:-1] * D, v[-1]) / target
