"""Proximal coordinate descent over the columns of X for the elastic-net penalised mean loss.

.. math::
    J(w, b) = \\frac{1}{S}\\sum_i s_i \\ell(y_i, z_i) + \\alpha_1 \\lVert w\\rVert_1
              + \\frac{\\alpha_2}{2}\\lVert w\\rVert^2, \\qquad z = X w + c b,

with S = sum_i s_i. Coordinate descent reads X by columns: the loops take ``XT``, the rows
of X^T, either a C-contiguous (d, n) array or the CSR triple of X^T (the CSC arrays of X,
built once by the caller), so that column j of X is row j of ``XT`` and the row helpers of
:mod:`._dense_or_csr` serve both layouts.

The scores z are kept up to date: a step delta on w_j adds delta x_j to z, one pass over
the column. Each step minimises the datafit's quadratic majorant along the coordinate,
``L_j = curvature sum_i s_i x_ij^2 / S`` (the coordinate's Lipschitz constant), plus the
penalty exactly (soft thresholding, then the L2 shrink): the proximal coordinate descent
of Friedman, Hastie and Tibshirani [1]_ and of skglm [3]_, over a working set of columns
(Massias et al. [2]_).

Losses of the score z and a target y, and their second-derivative bounds:

- squared: (z - y)^2 / 2, curvature 1 (each step is then exact);
- logistic: ln(1 + e^{-yz}), curvature 1/4;
- squared hinge: max(0, 1 - yz)^2, curvature 2 (LIBLINEAR's -s 5 loss).

References
----------
.. [1] J. Friedman, T. Hastie and R. Tibshirani. Regularization paths for generalized linear
   models via coordinate descent. Journal of Statistical Software 33(1), 2010.
.. [2] M. Massias, A. Gramfort and J. Salmon. Celer: a fast solver for the Lasso with dual
   extrapolation. ICML 2018.
.. [3] Q. Bertrand, Q. Klopfenstein, P.-A. Bannier, G. Gidel and M. Massias. Beyond L1:
   faster and better sparse models with skglm. NeurIPS 2022.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit
from numba.extending import overload

from halfspaces._fast._dense_or_csr import n_rows, row_axpy
from halfspaces._fast.logistic import expit

SQUARED, LOGISTIC, SQUARED_HINGE = 0, 1, 2
CURVATURE = (1.0, 0.25, 2.0)
"""A bound on each loss's second derivative in z, by its code."""


@njit(cache=True, nogil=True)
def derivative(loss, z, y):
    """d loss / d z at the score z and the target y."""
    if loss == SQUARED:
        return z - y
    if loss == LOGISTIC:
        return -y * expit(-y * z)
    slack = 1.0 - y * z
    return -2.0 * y * slack if slack > 0.0 else 0.0


@njit(cache=True, nogil=True)
def loss_value(loss, z, y):
    """The loss at the score z and the target y (no overflow at large margins)."""
    if loss == SQUARED:
        return 0.5 * (z - y) * (z - y)
    if loss == LOGISTIC:
        m = y * z
        return math.log1p(math.exp(-abs(m))) - min(m, 0.0)
    slack = 1.0 - y * z
    return slack * slack if slack > 0.0 else 0.0


def _grad_dense(XT, j, z, y, s, loss):
    g = 0.0
    for i in range(XT.shape[1]):
        a = XT[j, i]
        if a != 0.0:
            g += s[i] * a * derivative(loss, z[i], y[i])
    return g


def _grad_csr(XT, j, z, y, s, loss):
    data, indices, indptr = XT
    g = 0.0
    for k in range(indptr[j], indptr[j + 1]):
        i = indices[k]
        g += s[i] * data[k] * derivative(loss, z[i], y[i])
    return g


def column_grad(XT, j, z, y, s, loss):
    """sum_i s_i x_ij loss'(z_i, y_i): S times the datafit's partial derivative in w_j."""
    return (_grad_csr if isinstance(XT, tuple) else _grad_dense)(XT, j, z, y, s, loss)


@overload(column_grad)
def _overload_column_grad(XT, j, z, y, s, loss):
    from numba import types

    if isinstance(XT, types.Array) and XT.ndim == 2:
        return _grad_dense
    if isinstance(XT, types.BaseTuple) and len(XT) == 3:
        return _grad_csr
    return None


@njit(cache=True, nogil=True)
def prox_step(wj, gj, lj, alpha1, alpha2):
    """argmin_t gj (t - wj) + lj/2 (t - wj)^2 + alpha1 |t| + alpha2/2 t^2 (lj > 0)."""
    u = lj * wj - gj
    shrunk = abs(u) - alpha1
    if shrunk <= 0.0:
        return 0.0
    return math.copysign(shrunk, u) / (lj + alpha2)


@njit(cache=True, nogil=True)
def intercept_step(z, y, s, loss, opts):
    """A step on b from its gradient (exact for the squared loss); returns the step."""
    c, inv_s = opts[2], opts[3]
    if c == 0.0:
        return 0.0
    g = 0.0
    for i in range(z.shape[0]):
        g += s[i] * derivative(loss, z[i], y[i])
    step = -g * inv_s / opts[4]
    for i in range(z.shape[0]):
        z[i] += step
    return step


@njit(cache=True, nogil=True)
def cd_epochs(XT, y, s, w, z, lips, ws, loss, opts, n_epochs):
    """``n_epochs`` passes of proximal coordinate descent over the columns ``ws``.

    w has d + 1 slots (the intercept last), updated in place with the scores z;
    ``opts = (alpha1, alpha2, c, 1/S, curvature)``, ``lips[j]`` the Lipschitz constant of
    column j (> 0 for the columns of ``ws``). Returns the largest |step| times sqrt(L_j) of
    the last pass (a scale-free measure of how far the pass moved).
    """
    alpha1, alpha2, inv_s = opts[0], opts[1], opts[3]
    d = w.shape[0] - 1
    moved = 0.0
    for _ in range(n_epochs):
        moved = 0.0
        for p in range(ws.shape[0]):
            j = ws[p]
            gj = column_grad(XT, j, z, y, s, loss) * inv_s
            new = prox_step(w[j], gj, lips[j], alpha1, alpha2)
            delta = new - w[j]
            if delta != 0.0:
                w[j] = new
                row_axpy(XT, j, delta, z)
                moved = max(moved, abs(delta) * math.sqrt(lips[j]))
        step = intercept_step(z, y, s, loss, opts)
        w[d] += step
        moved = max(moved, abs(step) * math.sqrt(opts[4]))
    return moved


@njit(cache=True, nogil=True)
def all_grads(XT, y, s, z, loss, inv_s, out):
    """out[j] = the datafit's partial derivative in w_j, for every column of X."""
    for j in range(n_rows(XT)):
        out[j] = column_grad(XT, j, z, y, s, loss) * inv_s


@njit(cache=True, nogil=True)
def datafit_value(y, s, z, loss, inv_s):
    """(1/S) sum_i s_i loss(z_i, y_i)."""
    total = 0.0
    for i in range(z.shape[0]):
        total += s[i] * loss_value(loss, z[i], y[i])
    return total * inv_s


def column_lipschitz(XT, s: np.ndarray, curvature: float, inv_s: float) -> np.ndarray:
    """L_j = curvature sum_i s_i x_ij^2 / S for every column (float64)."""
    if isinstance(XT, tuple):
        data, indices, indptr = XT
        rows = np.repeat(np.arange(indptr.shape[0] - 1), np.diff(indptr))
        sums = np.bincount(rows, weights=np.square(data, dtype=np.float64) * s[indices],
                           minlength=indptr.shape[0] - 1)
    else:
        sums = np.square(XT, dtype=np.float64) @ s
    return sums * (curvature * inv_s)


def _softmax_grad_dense(XT, j, P, labels, s, g):
    for a in range(g.shape[0]):
        g[a] = 0.0
    for i in range(XT.shape[1]):
        x = XT[j, i]
        if x != 0.0:
            for a in range(g.shape[0]):
                g[a] += s[i] * x * P[i, a]
            g[labels[i]] -= s[i] * x


def _softmax_grad_csr(XT, j, P, labels, s, g):
    data, indices, indptr = XT
    for a in range(g.shape[0]):
        g[a] = 0.0
    for q in range(indptr[j], indptr[j + 1]):
        i, x = indices[q], data[q]
        for a in range(g.shape[0]):
            g[a] += s[i] * x * P[i, a]
        g[labels[i]] -= s[i] * x


def softmax_column_grad(XT, j, P, labels, s, g):
    """g[a] = sum_i s_i x_ij (p_ia - [y_i = a]): S times the softmax's dF/dw_aj."""
    (_softmax_grad_csr if isinstance(XT, tuple) else _softmax_grad_dense)(XT, j, P, labels,
                                                                          s, g)


@overload(softmax_column_grad)
def _overload_softmax_column_grad(XT, j, P, labels, s, g):
    from numba import types

    if isinstance(XT, types.Array) and XT.ndim == 2:
        return _softmax_grad_dense
    if isinstance(XT, types.BaseTuple) and len(XT) == 3:
        return _softmax_grad_csr
    return None


@njit(cache=True, nogil=True)
def _softmax_row(Z, P, i):
    """P[i] = softmax(Z[i]), the exponentials of non-positive numbers."""
    top = Z[i, 0]
    for a in range(Z.shape[1]):
        top = max(top, Z[i, a])
    total = 0.0
    for a in range(Z.shape[1]):
        P[i, a] = math.exp(Z[i, a] - top)
        total += P[i, a]
    for a in range(Z.shape[1]):
        P[i, a] /= total


def _softmax_update_dense(XT, j, delta, Z, P):
    for i in range(XT.shape[1]):
        x = XT[j, i]
        if x != 0.0:
            for a in range(delta.shape[0]):
                Z[i, a] += x * delta[a]
            _softmax_row(Z, P, i)


def _softmax_update_csr(XT, j, delta, Z, P):
    data, indices, indptr = XT
    for q in range(indptr[j], indptr[j + 1]):
        i, x = indices[q], data[q]
        for a in range(delta.shape[0]):
            Z[i, a] += x * delta[a]
        _softmax_row(Z, P, i)


def softmax_column_update(XT, j, delta, Z, P):
    """Z[i] += x_ij delta and P[i] = softmax(Z[i]) for the rows of column j."""
    (_softmax_update_csr if isinstance(XT, tuple) else _softmax_update_dense)(XT, j, delta, Z, P)


@overload(softmax_column_update)
def _overload_softmax_column_update(XT, j, delta, Z, P):
    from numba import types

    if isinstance(XT, types.Array) and XT.ndim == 2:
        return _softmax_update_dense
    if isinstance(XT, types.BaseTuple) and len(XT) == 3:
        return _softmax_update_csr
    return None


@njit(cache=True, nogil=True)
def softmax_cd_epochs(XT, labels, s, W, Z, P, lips, ws, opts, n_epochs):
    """:func:`cd_epochs` for the softmax: W of shape (k, d + 1), a step on the k weights of
    one feature at a time (a block step, ``lips[j]`` bounding that block's curvature), then
    on the k intercepts; Z (n, k) the scores and P their softmax, kept in step."""
    alpha1, alpha2, c, inv_s, curvature = opts
    k, d = W.shape[0], W.shape[1] - 1
    g, delta = np.empty(k), np.empty(k)
    n = Z.shape[0]
    moved = 0.0
    for _ in range(n_epochs):
        moved = 0.0
        for p in range(ws.shape[0]):
            j = ws[p]
            softmax_column_grad(XT, j, P, labels, s, g)
            changed = False
            for a in range(k):
                new = prox_step(W[a, j], g[a] * inv_s, lips[j], alpha1, alpha2)
                delta[a] = new - W[a, j]
                if delta[a] != 0.0:
                    changed = True
                    W[a, j] = new
                    moved = max(moved, abs(delta[a]) * math.sqrt(lips[j]))
            if changed:
                softmax_column_update(XT, j, delta, Z, P)
        if c != 0.0:
            for a in range(k):
                g[a] = 0.0
            for i in range(n):
                for a in range(k):
                    g[a] += s[i] * P[i, a]
                g[labels[i]] -= s[i]
            for a in range(k):
                delta[a] = -g[a] * inv_s / curvature
                W[a, d] += delta[a]
                moved = max(moved, abs(delta[a]) * math.sqrt(curvature))
            for i in range(n):
                for a in range(k):
                    Z[i, a] += delta[a]
                _softmax_row(Z, P, i)
    return moved


def _quad_dense(XT, j, r, h, dz):
    g, L = 0.0, 0.0
    for i in range(XT.shape[1]):
        x = XT[j, i]
        if x != 0.0:
            g += x * (r[i] + h[i] * dz[i])
            L += h[i] * x * x
    return g, L


def _quad_csr(XT, j, r, h, dz):
    data, indices, indptr = XT
    g, L = 0.0, 0.0
    for q in range(indptr[j], indptr[j + 1]):
        i, x = indices[q], data[q]
        g += x * (r[i] + h[i] * dz[i])
        L += h[i] * x * x
    return g, L


def column_quadratic(XT, j, r, h, dz):
    """(sum_i x_ij (r_i + h_i dz_i), sum_i h_i x_ij^2): the quadratic model's derivative in
    w_j at the step whose score change is dz, and its curvature along w_j."""
    return (_quad_csr if isinstance(XT, tuple) else _quad_dense)(XT, j, r, h, dz)


@overload(column_quadratic)
def _overload_column_quadratic(XT, j, r, h, dz):
    from numba import types

    if isinstance(XT, types.Array) and XT.ndim == 2:
        return _quad_dense
    if isinstance(XT, types.BaseTuple) and len(XT) == 3:
        return _quad_csr
    return None


@njit(cache=True, nogil=True)
def newton_passes(XT, ws, wn, dz, r, h, opts, n_passes):
    """Coordinate descent on the proximal Newton model (glmnet's, Friedman et al. 2010):
    minimise sum_i r_i (dz_i) + 1/2 sum_i h_i dz_i^2 + the penalty at wn over the columns
    ``ws`` and the intercept, with r_i = s_i loss'(z_i) / S and h_i = s_i loss''(z_i) / S at
    the current scores. ``wn`` (d + 1 slots) starts at the current weights and ends at the
    model's minimiser; dz = X (wn - w) + c (bn - b) is kept in step. Each step is exact
    (the model is quadratic along a coordinate). Returns the largest |step| sqrt(L_j) of
    the last pass."""
    alpha1, alpha2, c = opts[0], opts[1], opts[2]
    d = wn.shape[0] - 1
    moved = first = 0.0
    for count in range(n_passes):
        # the model need not be solved far beyond the outer step's accuracy: stop once a
        # pass moves a tenth of the first (skglm's ProxNewton stops its inner passes alike)
        if count > 0 and moved <= 0.1 * first:
            break
        moved = 0.0
        for p in range(ws.shape[0]):
            j = ws[p]
            g, L = column_quadratic(XT, j, r, h, dz)
            if L <= 0.0:
                continue
            new = prox_step(wn[j], g, L, alpha1, alpha2)
            delta = new - wn[j]
            if delta != 0.0:
                wn[j] = new
                row_axpy(XT, j, delta, dz)
                moved = max(moved, abs(delta) * math.sqrt(L))
        if c != 0.0:
            g, L = 0.0, 0.0
            for i in range(dz.shape[0]):
                g += r[i] + h[i] * dz[i]
                L += h[i]
            if L > 0.0:
                delta = -g / L
                wn[d] += delta
                for i in range(dz.shape[0]):
                    dz[i] += delta
                moved = max(moved, abs(delta) * math.sqrt(L))
        if count == 0:
            first = moved
    return first
