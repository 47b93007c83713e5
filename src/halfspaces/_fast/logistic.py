"""Logistic, softmax and squared-loss loops: fused loss and gradient, curvature, SGD epochs.

Every full-batch loop works on a block of rows (``rows``, an index array) and returns
*sums* over that block, not means: the caller divides by N and adds the penalty, so blocks
(or Dask partitions) can be summed. Weight vectors have d + 1 slots, the last being the
intercept, which multiplies the constant feature ``c`` in {0, 1}.

Losses of the margin m = y z (binary, y in {-1, +1}) and of the scores z (softmax):

- logistic: ln(1 + e^{-m}), derivative -sigma(-m), with sigma(t) = 1 / (1 + e^{-t});
- softmax: logsumexp(z) - z_y, gradient softmax(z) - e_y;
- squared: (z - y)^2 / 2, derivative z - y.

All exponentials are taken of non-positive numbers, so nothing overflows at large margins.
The pointwise losses are those of :mod:`halfspaces.losses`, fused here with their
derivatives; the tests check each loop against a plain NumPy twin.

References
----------
.. [1] C. M. Bishop. Pattern Recognition and Machine Learning. Springer, 2006. Section 4.3
   (the logistic and softmax gradients and Hessians).
.. [2] S. Shalev-Shwartz and S. Ben-David. Understanding Machine Learning: From Theory to
   Algorithms. Cambridge University Press, 2014. Chapter 14 (stochastic gradient descent).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from halfspaces._fast._dense_or_csr import row_axpy, row_dot

LOGISTIC, SQUARED = 0, 1
# learning-rate schedules of the stochastic solvers
CONSTANT, INVSCALING, OPTIMAL = 0, 1, 2


@njit(cache=True, nogil=True)
def expit(t):
    """sigma(t) = 1 / (1 + e^{-t}) without overflow."""
    if t >= 0.0:
        return 1.0 / (1.0 + math.exp(-t))
    e = math.exp(t)
    return e / (1.0 + e)


@njit(cache=True, nogil=True)
def point_loss_deriv(loss, z, y):
    """(loss, d loss / d z) of one example with decision value z and target y."""
    if loss == LOGISTIC:  # one exp and one log1p, both of a non-positive number
        m = y * z
        e = math.exp(-abs(m))
        if m >= 0.0:
            return math.log1p(e), -y * (e / (1.0 + e))
        return math.log1p(e) - m, -y / (1.0 + e)
    r = z - y
    return 0.5 * r * r, r


@njit(cache=True, nogil=True)
def row_weight(s, i):
    """The weight of row i: s[i], or 1.0 when s is None (Numba compiles the unweighted loops
    with this branch pruned away, so they cost what they did before weights existed)."""
    if s is None:
        return 1.0
    return s[i]


@njit(cache=True, nogil=True)
def loss_grad(X, y, w, c, rows, loss, grad, s=None):
    """Sum of the losses over ``rows``, each times its weight s[i] (1 when s is None); adds
    the sum of their weighted gradients to ``grad``."""
    d = w.shape[0] - 1
    total = 0.0
    for r in range(rows.shape[0]):
        i = rows[r]
        value, g = point_loss_deriv(loss, row_dot(X, i, w) + c * w[d], y[i])
        si = row_weight(s, i)
        total += si * value
        g *= si
        row_axpy(X, i, g, grad)
        grad[d] += c * g
    return total


@njit(cache=True, nogil=True)
def curvature(X, y, w, c, rows, loss, h):
    """h[r] = second derivative of the loss of row rows[r] in z: sigma(z)(1 - sigma(z)) or 1."""
    d = w.shape[0] - 1
    for r in range(rows.shape[0]):
        if loss == LOGISTIC:
            p = expit(row_dot(X, rows[r], w) + c * w[d])
            h[r] = p * (1.0 - p)
        else:
            h[r] = 1.0


@njit(cache=True, nogil=True)
def hessp(X, h, v, c, rows, out):
    """out += sum_r h[r] <x'_i, v> x'_i over i = rows[r]: a Hessian-vector product."""
    d = v.shape[0] - 1
    for r in range(rows.shape[0]):
        i = rows[r]
        a = h[r] * (row_dot(X, i, v) + c * v[d])
        row_axpy(X, i, a, out)
        out[d] += c * a


@njit(cache=True, nogil=True)
def csr_weighted_gram(data, indices, indptr, h, c, H):
    """H[:d, :d] += sum_i h_i x_i x_i^T (upper triangle only), column d the intercept's."""
    d = H.shape[0] - 1
    for i in range(indptr.shape[0] - 1):
        hi = h[i]
        for a in range(indptr[i], indptr[i + 1]):
            ja, va = indices[a], hi * data[a]
            H[ja, d] += c * va
            for b in range(a, indptr[i + 1]):
                jb = indices[b]
                if ja <= jb:
                    H[ja, jb] += va * data[b]
                else:
                    H[jb, ja] += va * data[b]
        H[d, d] += c * c * hi


@njit(cache=True, nogil=True)
def step_size(schedule, eta0, power, alpha, t):
    """The learning rate of step t (1-based)."""
    if schedule == INVSCALING:
        return eta0 / t**power
    if schedule == OPTIMAL:
        return 1.0 / (alpha * (t + 1.0 / (alpha * eta0)))
    return eta0


@njit(cache=True, nogil=True)
def sgd_epoch(X, y, w, c, order, batch, loss, opts, t, g, u, n_avg, s=None):
    """One pass of mini-batch SGD over ``order`` (batch = 1: plain SGD; Shalev-Shwartz and
    Ben-David 2014, 14.3).

    Each step takes the mean gradient of the next ``batch`` rows plus alpha w (the intercept
    unpenalised), with the step of schedule ``opts = (alpha, schedule, eta0, power_t)``.
    ``t`` counts the steps taken before. With n_avg >= 0, ``u`` is the running mean of the
    iterates after each step (n_avg of them so far). Returns (new t, new n_avg). With row
    weights ``s`` each row's gradient is scaled by its weight (the penalty's step is not),
    as in scikit-learn's ``SGDClassifier``; the step still divides by the rows of the batch.
    """
    d = w.shape[0] - 1
    alpha = opts[0]
    n = order.shape[0]
    for start in range(0, n, batch):
        stop = min(start + batch, n)
        g[:] = 0.0
        loss_grad(X, y, w, c, order[start:stop], loss, g, s)
        t += 1
        eta = step_size(int(opts[1]), opts[2], opts[3], alpha, t)
        scale = eta / (stop - start)
        for j in range(d):
            w[j] -= scale * g[j] + eta * alpha * w[j]
        w[d] -= scale * g[d]
        n_avg = running_mean(u, w, n_avg)
    return t, n_avg


@njit(cache=True, nogil=True)
def running_mean(u, w, n_avg):
    """u <- u + (w - u) / (n_avg + 1) when n_avg >= 0 (averaging on); returns the new count."""
    if n_avg < 0:
        return n_avg
    n_avg += 1
    uf, wf = u.reshape(-1), w.reshape(-1)
    inv = 1.0 / n_avg
    for j in range(uf.shape[0]):
        uf[j] += (wf[j] - uf[j]) * inv
    return n_avg


@njit(cache=True, nogil=True)
def softmax_scores(X, W, c, i, z):
    """z[k] = <W[k], x'_i>; returns logsumexp(z)."""
    d = W.shape[1] - 1
    top = -np.inf
    for k in range(W.shape[0]):
        z[k] = row_dot(X, i, W[k]) + c * W[k, d]
        top = max(top, z[k])
    s = 0.0
    for k in range(W.shape[0]):
        s += math.exp(z[k] - top)
    return top + math.log(s)


@njit(cache=True, nogil=True)
def softmax_loss_grad(X, labels, W, c, rows, G, z, s=None):
    """Sum over ``rows`` of s_i (logsumexp(z_i) - z_{i, y_i}); adds the weighted gradient
    sum to G (k, d+1).

    ``labels`` holds class indices 0..k-1; ``z`` is scratch of length k; s the row weights
    (1 when None).
    """
    d = W.shape[1] - 1
    total = 0.0
    for r in range(rows.shape[0]):
        i = rows[r]
        lse = softmax_scores(X, W, c, i, z)
        si = row_weight(s, i)
        total += si * (lse - z[labels[i]])
        for k in range(W.shape[0]):
            # np.float64: as plain Python (NUMBA_DISABLE_JIT) a Python float times a
            # float32 entry would round to float32
            g = np.float64(si * (math.exp(z[k] - lse) - (1.0 if k == labels[i] else 0.0)))
            row_axpy(X, i, g, G[k])
            G[k, d] += c * g
    return total


@njit(cache=True, nogil=True)
def softmax_sgd_epoch(X, labels, W, c, order, batch, opts, t, G, z, U, n_avg, s=None):
    """:func:`sgd_epoch` for the softmax loss; W, G and U have shape (k, d + 1)."""
    d = W.shape[1] - 1
    alpha = opts[0]
    n = order.shape[0]
    for start in range(0, n, batch):
        stop = min(start + batch, n)
        G[:] = 0.0
        softmax_loss_grad(X, labels, W, c, order[start:stop], G, z, s)
        t += 1
        eta = step_size(int(opts[1]), opts[2], opts[3], alpha, t)
        scale = eta / (stop - start)
        for k in range(W.shape[0]):
            for j in range(d):
                W[k, j] -= scale * G[k, j] + eta * alpha * W[k, j]
            W[k, d] -= scale * G[k, d]
        n_avg = running_mean(U, W, n_avg)
    return t, n_avg
