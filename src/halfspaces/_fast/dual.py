"""The dual (kernel) perceptron's epoch loop, over rows of the Gram matrix.

The dual perceptron keeps alpha_i, the number of updates on example i, and the decision
values f_j = sum_i alpha_i y_i K[i, j] of every training example. Visiting example i costs
O(1) (a look at f_i); an update on i costs O(n): alpha_i += 1 and f += y_i K[i, :]. So an
epoch costs O(n) plus O(n) per update, never O(n^2) for the scan.

``K`` holds kernel rows, the constant feature already added (k(x_i, x_j) + c), and
``slot[i]`` says which row of ``K`` is example i's (-1 when it is not there). With the whole
Gram matrix given (precomputed), ``slot`` is 0..n-1; otherwise the caller computes a row when
the loop stops for a missing one, then resumes the loop at the same position. For the
caller's least-recently-used eviction, ``last_use[s]`` gets a fresh tick of the clock
``last_use[-1]`` whenever row s is used.

The loop also keeps what the averaged and voted perceptrons need (Freund and Schapire 1999):
the step count, and per example the sum of the steps of its updates (see
:func:`dual_epoch`), plus a log of the updates when asked.

A weighted run passes the targets as ``(labels, positive, weights, tally)``
(:mod:`halfspaces._fast.perceptron`): an update on example i adds weights[i] y_i K[i, :]
to f (alpha_i and the sums still count updates and steps, which the caller scales by the
weight), and an example of weight 0 never updates. The pair (labels, positive) compiles to
the unweighted loop.

Its ``rule`` is ``(threshold, burn_in)``: example i causes an update when
y_i f_i <= threshold[i] (all zeros: the perceptron's mistakes; m (k(x_i, x_i) + c): the
perceptron with margin m of Krauth and Mezard 1987), and the steps up to ``burn_in`` add
nothing to the sums, so that the average is over the hypotheses after the later steps.

Status: :func:`dual_epoch` returns ``(position, n_updates)``. ``position == n`` means the
pass is complete; ``0 <= position < n`` means the example at that position needs an update
and its row is not in ``K`` (the caller adds it and calls again from there); a negative
``position`` is ``-1 - i`` for a non-finite decision value at row i.

:func:`gram_rows` computes a block of rows of a named kernel's Gram matrix straight into
``K``: one pass over X for the whole block (the sparse-dense or dense-dense product X Z with
the block's rows as the columns of Z, then the kernel's elementwise map);
:func:`gram_rows_parallel` splits X's rows between threads. Each entry is the same number
whichever rows are computed together and on whichever thread (the run does not depend on
``cache_size`` or the block). :func:`gram_from_dots` is the same map for dot products that
a BLAS product computed (dense X).

References: Freund and Schapire (1999), the perceptron in the dual; Shalev-Shwartz and
Ben-David, Understanding Machine Learning (2014), Chapter 16, kernels.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit, prange

from halfspaces._fast._dense_or_csr import n_rows, row_dots, row_scatter
from halfspaces._fast.perceptron import row_weight, target

LINEAR, POLY, RBF, SIGMOID = 0, 1, 2, 3


@njit(cache=True)
def _add_row(K, s, a, f):
    """f += a * K[s, :]."""
    for j in range(f.shape[0]):
        f[j] += a * K[s, j]


@njit(cache=True)
def dual_epoch(K, slot, Y, order, start, f, state, log, last_use, rule):
    """Continue a pass from position ``start`` over ``order`` (all rows in turn when empty).

    ``state`` is ``(alpha, sums, clock)`` and ``rule`` is ``(threshold, burn_in)``: on
    y_i f_i <= threshold[i] at the 1-based step t (examples visited over all passes and
    calls), alpha_i += 1, sums_i += max(t - 1 - burn_in, 0) and f += y_i K[slot[i], :].
    ``clock[0]`` holds the steps made so far and ``clock[1]`` the updates of this pass
    written to ``log`` (row, then step t), while it has room. The average of the alphas
    after each of the steps burn_in + 1, ..., T is then alpha - sums / (T - burn_in): the
    running-sum trick of the primal averaged perceptron (Freund and Schapire 1999), on the
    dual coefficients, with no work on a correct prediction (an update at step t counts in
    the T - max(t, burn_in + 1) + 1 hypotheses after it). A stop for a missing row leaves
    the step of that row uncounted, so the resumed pass counts it once.
    """
    alpha, sums, clock = state
    threshold, burn_in = rule
    n = f.shape[0]
    cyclic = order.shape[0] == 0
    n_updates = 0
    step, logged = clock[0], clock[1]
    for pos in range(start, n):
        i = pos if cyclic else order[pos]
        if not math.isfinite(f[i]):
            clock[0], clock[1] = step, logged
            return -1 - i, n_updates
        yi = target(Y, i)
        weight = row_weight(Y, i)
        if yi * f[i] <= threshold[i] and weight != 0.0:
            s = slot[i]
            if s < 0:
                clock[0], clock[1] = step, logged
                return pos, n_updates
            alpha[i] += 1
            sums[i] += max(step - burn_in, 0)
            _add_row(K, s, yi * weight, f)
            last_use[-1] += 1
            last_use[s] = last_use[-1]
            if logged < log.shape[1]:
                log[0, logged] = i
                log[1, logged] = step + 1
                logged += 1
            n_updates += 1
        step += 1
    clock[0], clock[1] = step, logged
    return n, n_updates


@njit(cache=True)
def power(base, degree):
    """base ** degree, by repeated squaring when degree is a whole number from 0 to 64.

    The polynomial kernel's degree is a small integer in practice; pow() costs 17 ns an
    entry, more than the BLAS product that gave the dot product (a Gram row of 8,000 MNIST
    rows: 0.14 ms of pow against 0.10 ms of product). Squaring rounds at most log2(degree)
    + popcount(degree) times, pow() once: within a few ulps of each other.
    """
    p = int(degree) if 0.0 <= degree <= 64.0 else -1
    if p < 0 or p != degree:
        return base**degree
    result = 1.0
    while p > 0:
        if p & 1:
            result *= base
        base *= base
        p >>= 1
    return result


@njit(cache=True)
def kernel_value(spec, dot, sq_a, sq_b):
    """k(a, b) from <a, b>, ||a||^2 and ||b||^2; ``spec`` = (kind, gamma, coef0, degree, c)."""
    kind, gamma, coef0, degree, _ = spec
    if kind == RBF:
        return math.exp(-gamma * max(sq_a + sq_b - 2.0 * dot, 0.0))
    if kind == POLY:
        return power(gamma * dot + coef0, degree)
    if kind == SIGMOID:
        return math.tanh(gamma * dot + coef0)
    return dot


@njit(cache=True)
def gram_diagonal(spec, sq, out):
    """out[i] = k(x_i, x_i) + c from ||x_i||^2: the diagonal of the Gram matrix, O(n)."""
    c = spec[4]
    for i in range(sq.shape[0]):
        out[i] = kernel_value(spec, sq[i], sq[i], sq[i]) + c


# rows of X per task of gram_rows_parallel: enough to amortise the task, few enough that two
# threads stay balanced on a few thousand rows
GRAM_CHUNK = 256


@njit(cache=True)
def _gram_chunk(X, rows, spec, sq, Zt, K, slots, start, stop):
    """K[slots[r], j] for the rows j in [start, stop), from x_rows[r] scattered into Zt."""
    c = spec[4]
    m = rows.shape[0]
    dots = np.empty(m)
    for j in range(start, stop):
        row_dots(X, j, Zt, dots)
        for r in range(m):
            K[slots[r], j] = kernel_value(spec, dots[r], sq[rows[r]], sq[j]) + c


@njit(cache=True)
def gram_rows(X, rows, spec, sq, Zt, K, slots):
    """K[slots[r], j] = k(x_rows[r], x_j) + c for every training row j and every r.

    ``sq`` holds ||x_j||^2; ``Zt`` is a zero scratch of shape (d, >= len(rows)), zero again
    on return: the block's rows are scattered into its columns, so that <x_j, z_r> for all
    r is one pass over row j (:func:`halfspaces._fast._dense_or_csr.row_dots`), then subtracted
    back out exactly. Each entry's sum is taken over x_j's entries in increasing feature
    order, whatever the block.
    """
    for r in range(rows.shape[0]):
        row_scatter(X, rows[r], 1.0, Zt, r)
    _gram_chunk(X, rows, spec, sq, Zt, K, slots, 0, n_rows(X))
    for r in range(rows.shape[0]):
        row_scatter(X, rows[r], -1.0, Zt, r)


@njit(cache=True, parallel=True)
def gram_rows_parallel(X, rows, spec, sq, Zt, K, slots):
    """:func:`gram_rows` with chunks of ``GRAM_CHUNK`` rows j in parallel: the same numbers."""
    n = n_rows(X)
    for r in range(rows.shape[0]):
        row_scatter(X, rows[r], 1.0, Zt, r)
    for chunk in prange((n + GRAM_CHUNK - 1) // GRAM_CHUNK):
        start = chunk * GRAM_CHUNK
        _gram_chunk(X, rows, spec, sq, Zt, K, slots, start, min(n, start + GRAM_CHUNK))
    for r in range(rows.shape[0]):
        row_scatter(X, rows[r], -1.0, Zt, r)


@njit(cache=True, nogil=True)
def gram_from_dots(dots, rows, spec, sq, K, slots, start):
    """K[slots[r], start + j] = k(x_rows[r], x_(start + j)) + c from dots[r, j], their <., .>.

    The elementwise map of :func:`gram_rows` for dot products computed elsewhere (a BLAS
    product over dense rows): ``dots`` holds at least ``len(rows)`` rows, the columns
    ``start, start + 1, ...`` of the Gram matrix.
    """
    c = spec[4]
    for r in range(rows.shape[0]):
        s, sq_r = slots[r], sq[rows[r]]
        for j in range(dots.shape[1]):
            K[s, start + j] = kernel_value(spec, dots[r, j], sq_r, sq[start + j]) + c


# rows and columns of a tile of the lower triangle in gram_from_lower_dots: a tile and its
# mirror image (64 x 64 floats each, 32 KB) stay in L1/L2 while both are written
MIRROR_TILE = 64


@njit(cache=True)
def gram_from_lower_dots(K, spec, sq):
    """K = k(x_i, x_j) + c everywhere, from the dot products <x_i, x_j> of K's lower triangle.

    Each entry of the lower triangle is mapped once (:func:`kernel_value`) and written to
    both K[i, j] and K[j, i], tile by tile, so that the mirrored writes stay in cache.
    """
    n, c = K.shape[0], spec[4]
    for i0 in range(0, n, MIRROR_TILE):
        for j0 in range(0, i0 + 1, MIRROR_TILE):
            for i in range(i0, min(n, i0 + MIRROR_TILE)):
                for j in range(j0, min(i + 1, j0 + MIRROR_TILE)):
                    value = kernel_value(spec, K[i, j], sq[i], sq[j]) + c
                    K[i, j] = value
                    K[j, i] = value


@njit(cache=True)
def missing_rows(slot, Y, order, start, f, threshold, out):
    """The examples that would need a row now, from position ``start`` of the pass on.

    Writes into ``out`` the first examples i, in the pass's order, whose row is not in
    ``K`` (slot[i] < 0) and that would update the current hypothesis
    (y_i f_i <= threshold[i], as in :func:`dual_epoch`); returns how many (at most
    len(out)). The example at ``start`` is the first of them when the pass stopped there.
    """
    n = f.shape[0]
    cyclic = order.shape[0] == 0
    count = 0
    for pos in range(start, n):
        i = pos if cyclic else order[pos]
        if slot[i] < 0 and target(Y, i) * f[i] <= threshold[i] and row_weight(Y, i) != 0.0:
            out[count] = i
            count += 1
            if count == out.shape[0]:
                break
    return count
