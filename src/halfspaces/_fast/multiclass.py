"""The multiclass perceptron's epoch loop: k discriminants, argmax, a two-row update.

``W`` (k, d + 1) holds one weight vector per class, its last slot the bias (times ``c`` in
{0, 1}, the implicit constant feature). Row i is predicted as argmax_j <W[j], x'_i>, the
first (lowest) index on a tie; on a mistake p != y_i, W[y_i] += x'_i and W[p] -= x'_i.
With ``average`` set, ``U`` collects (t - 1) times every change at 1-based step t, so the
mean of the weights after each of the T steps is W - U / T (the running-sum trick of the
averaged binary perceptron). ``labels`` are class indices 0..k-1; ``counters[0]`` is the
step count t over all epochs. ``weights`` is empty for an unweighted run; otherwise the two
rows move by weights[i] x'_i, and a row of weight 0 never updates (it still counts as a
step, as in the binary loop).

Status: the epoch returns the number of updates, or ``-1 - i`` when a score of row i is not
finite (NaN or inf in X, or an overflow); the caller raises.

References: Collins, Discriminative training methods for hidden Markov models (EMNLP 2002),
the multiclass perceptron and its average; Duda and Hart (1973), Kesler's construction.
"""

from __future__ import annotations

import math

from numba import njit

from halfspaces._fast._dense_or_csr import n_rows, row_axpy, row_dot

STEP = 0
N_COUNTERS = 1


@njit(cache=True)
def predict_row(X, i, c, W):
    """argmax_j <W[j], x'_i> (lowest index on ties), or -1 for a non-finite score."""
    d = W.shape[1] - 1
    best, best_score = 0, -math.inf
    for j in range(W.shape[0]):
        s = row_dot(X, i, W[j]) + c * W[j, d]
        if not math.isfinite(s):
            return -1
        if s > best_score:
            best, best_score = j, s
    return best


@njit(cache=True)
def _move(X, i, c, a, w):
    """w += a * x'_i."""
    row_axpy(X, i, a, w)
    w[w.shape[0] - 1] += a * c


@njit(cache=True)
def multiclass_epoch(X, labels, order, c, average, W, U, counters, weights):
    """One pass over the rows in ``order`` (all rows in turn when it is empty).

    Returns the number of updates, or -1 - i when row i gives a non-finite score.
    """
    n_updates = 0
    cyclic = order.shape[0] == 0
    step = counters[STEP]
    weighted = weights.shape[0] > 0
    for pos in range(n_rows(X)):
        i = pos if cyclic else order[pos]
        p = predict_row(X, i, c, W)
        if p < 0:
            counters[STEP] = step
            return -1 - i
        step += 1
        y = labels[i]
        if p != y:
            s = weights[i] if weighted else 1.0
            if s == 0.0:
                continue
            _move(X, i, c, s, W[y])
            _move(X, i, c, -s, W[p])
            if average:
                _move(X, i, c, s * (step - 1.0), U[y])
                _move(X, i, c, -s * (step - 1.0), U[p])
            n_updates += 1
    counters[STEP] = step
    return n_updates
