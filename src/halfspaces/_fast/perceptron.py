"""Perceptron loops: one epoch loop shared by the plain, averaged, voted and pocket variants.

The variants differ only in what an update or a correct prediction also does (``mode``):

- PLAIN: w += y_i x'_i on y_i <w, x'_i> <= 0.
- AVERAGED: also u += (t - 1) y_i x'_i, where t is the 1-based step number; the average of
  the weights after each of the T steps is then w - u / T (the running-sum trick: O(d) work
  per update, none per correct example).
- VOTED: nothing extra in the loop; the (row, step) log of updates is the whole model.
- POCKET: after a correct prediction the current run grows; when it first exceeds the
  pocket's run the current weights' training errors are counted once, and they replace the
  pocket if they make fewer errors (Gallant's ratchet).

State lives in caller-owned arrays so that fit, warm starts and partial_fit resume exactly:
``w`` and ``aux`` have d + 1 slots (the last is the intercept, scaled by ``c`` in {0, 1});
``counters`` holds the integers below. Labels come as a pair ``Y = (labels, positive)``:
the target of row i is +1 where labels[i] == positive and -1 elsewhere, so no array of
targets is ever built (one-vs-rest reads the same labels with another ``positive``). A
weighted run passes ``Y = (labels, positive, weights, tally)``: row i's update is scaled by
weights[i] (w += s_i y_i x'_i, as scikit-learn's Perceptron scales its step by
sample_weight times class_weight), a row of weight 0 is skipped (no update, no part in the
pocket's run), errors are counted as the sum of their rows' weights, and ``tally[0]`` holds
the pocket's weighted errors. The pair compiles to its own specialisation, in which the
weight is the constant 1.0 and the weighted branches fold away: the unweighted loop is the
loop it was. Steps are counted per row visited whatever its weight (scikit-learn's
averaged SGD counts its steps the same way), so the averaging sum and the vote's survival
counts stay integers. Each
epoch writes the row and step of every update into ``log`` (shape (2, capacity)) when it has
room (shape (2, 0) records nothing).

Status: the loops return the number of updates, or ``-1 - i`` when row i gives a
non-finite decision value (NaN or inf in X, or an overflow); the caller raises.

References: Rosenblatt (1958); Freund and Schapire, Large margin classification using the
perceptron algorithm (1999), for the averaged and voted variants; Gallant, Perceptron-based
learning algorithms (1990), for the pocket with ratchet.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit, prange
from numba.extending import overload

from halfspaces._fast._dense_or_csr import n_rows, row_axpy, row_dot

PLAIN, AVERAGED, VOTED, POCKET = 0, 1, 2, 3

# indices into ``counters``
STEP = 0  # examples processed so far, over all epochs and calls (t)
RUN = 1  # consecutive correct predictions of the current weights
POCKET_RUN = 2  # the pocket weights' run
POCKET_ERRORS = 3  # the pocket weights' training errors
EVALUATED = 4  # 1 when the current weights' errors were already counted
POCKET_IS_CURRENT = 5  # 1 while the current weights are the pocket weights
N_COUNTERS = 6


@njit(cache=True, nogil=True)
def target(Y, i):
    """+1.0 if row i belongs to the positive class, else -1.0."""
    return 1.0 if Y[0][i] == Y[1] else -1.0


def row_weight(Y, i):
    """The weight of row i: Y[2][i] in a weighted run, the constant 1.0 otherwise."""
    return Y[2][i] if len(Y) > 2 else 1.0


def pocket_errors(Y, counters):
    """The pocket weights' (weighted) training errors."""
    return Y[3][0] if len(Y) > 2 else counters[POCKET_ERRORS]


def set_pocket_errors(Y, counters, errors):
    """Store the pocket weights' (weighted) training errors."""
    if len(Y) > 2:
        Y[3][0] = errors
    else:
        counters[POCKET_ERRORS] = errors


def no_errors(Y):
    """The zero of an error count: the int 0, or 0.0 for weighted errors."""
    return 0.0 if len(Y) > 2 else 0


def _int_zero(Y):
    return 0


def _float_zero(Y):
    return 0.0


def _unit_weight(Y, i):
    return 1.0


def _given_weight(Y, i):
    return Y[2][i]


def _counted_errors(Y, counters):
    return counters[POCKET_ERRORS]


def _tallied_errors(Y, counters):
    return Y[3][0]


def _set_counted_errors(Y, counters, errors):
    counters[POCKET_ERRORS] = errors


def _set_tallied_errors(Y, counters, errors):
    Y[3][0] = errors


# the pair (labels, positive) and the weighted quadruple compile apart, so that the
# unweighted loop reads no weight at all
@overload(row_weight)
def _overload_row_weight(Y, i):
    return _given_weight if len(Y) > 2 else _unit_weight


@overload(no_errors)
def _overload_no_errors(Y):
    return _float_zero if len(Y) > 2 else _int_zero


@overload(pocket_errors)
def _overload_pocket_errors(Y, counters):
    return _tallied_errors if len(Y) > 2 else _counted_errors


@overload(set_pocket_errors)
def _overload_set_pocket_errors(Y, counters, errors):
    return _set_tallied_errors if len(Y) > 2 else _set_counted_errors


@njit(cache=True, nogil=True)
def decision(X, i, c, w):
    """<w, x'_i> = <w[:d], x_i> + c w[d]."""
    return row_dot(X, i, w) + c * w[w.shape[0] - 1]


@njit(cache=True, nogil=True)
def count_errors(X, Y, c, w):
    """Training errors of w as predict counts them: predicted positive iff <w, x'> > 0.

    Each error counts its row's weight (1 in an unweighted run, where the count is an int).
    """
    errors = no_errors(Y)
    for i in range(n_rows(X)):
        if (decision(X, i, c, w) > 0.0) != (target(Y, i) > 0.0):
            errors += row_weight(Y, i)
    return errors


@njit(cache=True, nogil=True)
def copy_into(src, dst):
    """dst[:] = src for 1-D arrays of one length.

    Written as a loop because Numba compiles a slice assignment through its general
    broadcasting setitem: with ``aux[:] = w`` the pocket step took 2.6 s to compile, most
    of the 4.3 s a first perceptron fit spent compiling; with this loop, 0.4 s (Numba 0.68).
    """
    for j in range(src.shape[0]):
        dst[j] = src[j]


@njit(cache=True, nogil=True)
def _pocket_after_correct(X, Y, c, w, aux, counters):
    counters[RUN] += 1
    if counters[POCKET_IS_CURRENT] == 1:
        counters[POCKET_RUN] = counters[RUN]
    elif counters[RUN] > counters[POCKET_RUN] and counters[EVALUATED] == 0:
        judge_current(X, Y, c, w, aux, counters)


@njit(cache=True, nogil=True)
def judge_current(X, Y, c, w, aux, counters):
    """Count the current weights' errors and pocket them if they make fewer (one pass).

    Returns the errors counted.
    """
    counters[EVALUATED] = 1
    errors = count_errors(X, Y, c, w)
    if errors < pocket_errors(Y, counters):
        copy_into(w, aux)
        set_pocket_errors(Y, counters, errors)
        counters[POCKET_RUN] = counters[RUN]
        counters[POCKET_IS_CURRENT] = 1
    return errors


@njit(cache=True, nogil=True)
def perceptron_epoch(X, Y, order, c, mode, w, aux, counters, log):
    """One pass over the rows in ``order`` (all rows in turn when it is empty).

    Returns the number of updates, or -1 - i when row i is bad. The update is written out
    here rather than in a helper: a call per update that LLVM does not inline costs a third
    of a sparse epoch (measured on a9a), mostly reference counting of its array arguments.
    """
    n_updates = 0
    cyclic = order.shape[0] == 0
    d = w.shape[0] - 1
    # the step count lives in a register: a store to counters[] every row would be reloaded
    # after every write to w, which LLVM cannot prove is a different array
    step = counters[STEP]
    for pos in range(n_rows(X) if cyclic else order.shape[0]):
        i = pos if cyclic else order[pos]
        f = decision(X, i, c, w)
        if not math.isfinite(f):
            counters[STEP] = step
            return -1 - i
        step += 1
        s = row_weight(Y, i)
        if s == 0.0:  # a row of weight 0 takes no part (never in an unweighted run)
            continue
        yi = target(Y, i)
        if yi * f > 0.0:
            if mode == POCKET:
                _pocket_after_correct(X, Y, c, w, aux, counters)
            continue
        a = yi * s  # yi itself in an unweighted run (s is the constant 1.0)
        row_axpy(X, i, a, w)
        w[d] += a * c
        if mode == AVERAGED:
            weight = a * (step - 1)
            row_axpy(X, i, weight, aux)
            aux[d] += weight * c
        elif mode == POCKET:
            counters[RUN] = 0
            counters[EVALUATED] = 0
            counters[POCKET_IS_CURRENT] = 0
        if n_updates < log.shape[1]:
            log[0, n_updates] = i
            log[1, n_updates] = step
        n_updates += 1
    counters[STEP] = step
    return n_updates


@njit(cache=True, nogil=True)
def perceptron_worst(X, Y, c, mode, w, aux, counters, log, max_updates):
    """Update on the most violated example, argmin_i y_i <w, x'_i>, up to ``max_updates`` times.

    Returns the number of updates: fewer than ``max_updates`` means every margin is now
    positive (rows of weight 0 take no part). Each scan also counts the current weights'
    errors, which is all the pocket needs; in POCKET mode the weights left by the last
    update get a scan of their own, so every weight vector of the run is judged. The update
    itself is a one-row epoch, so every variant updates exactly as there.
    """
    n = n_rows(X)
    row = np.empty(1, dtype=np.int64)
    no_log = np.empty((2, 0), dtype=np.int64)
    for n_updates in range(max_updates + 1):
        if n_updates == max_updates and mode != POCKET:
            break  # only the pocket needs to see the last weights before the next epoch
        worst, worst_margin, errors = -1, np.inf, no_errors(Y)
        for i in range(n):
            f = decision(X, i, c, w)
            if not math.isfinite(f):
                return -1 - i
            s = row_weight(Y, i)
            if s == 0.0:
                continue
            yi = target(Y, i)
            if yi * f < worst_margin:
                worst, worst_margin = i, yi * f
            if (f > 0.0) != (yi > 0.0):
                errors += s
        if mode == POCKET and errors < pocket_errors(Y, counters):
            copy_into(w, aux)
            set_pocket_errors(Y, counters, errors)
        if worst_margin > 0.0 or n_updates == max_updates:
            return n_updates
        row[0] = worst
        perceptron_epoch(X, Y, row, c, mode, w, aux, counters, no_log)
        if n_updates < log.shape[1]:
            log[0, n_updates] = worst
            log[1, n_updates] = counters[STEP]
    return max_updates


# rows voted together: their decision values after update k sit side by side in a row of
# the lane block (n_support x VOTE_LANES), so one update is one short vector operation over
# independent sums, where one row alone is a chain of dependent additions
VOTE_LANES = 16


@njit(cache=True, nogil=True, parallel=True)
def voted_scores(G, rows, signs, counts, c, out):
    """Weighted votes sum_k counts[k] sign(<w_k, x'>) for each row of G.

    G[r, j] = <x_r, s_j> for the stored update rows s_j; the k-th update added
    signs[k] * (s_rows[k], c) to the weights, so <w_k, x'_r> is a running sum over G's row.
    ``counts[0]`` belongs to the starting weights (zero, so their decision value is 0).
    sign(0) is -1, as predict sends a zero decision value to the negative class. Blocks of
    ``VOTE_LANES`` rows run in parallel; each row's sum is taken in the order of the
    updates, so the votes do not depend on the blocks or the threads.
    """
    n, n_support = G.shape
    for block in prange((n + VOTE_LANES - 1) // VOTE_LANES):
        start = block * VOTE_LANES
        stop = min(n, start + VOTE_LANES)
        lanes = np.zeros((n_support, VOTE_LANES), dtype=G.dtype)
        for lane in range(stop - start):
            for j in range(n_support):
                lanes[j, lane] = G[start + lane, j]
        _vote_lanes(lanes, rows, signs, counts, c, start, stop, out)


@njit(cache=True, nogil=True, parallel=True)
def voted_scores_csr(X, S, rows, signs, counts, c, scratch, out):
    """:func:`voted_scores` of CSR rows X, with G = X S^T computed block by block.

    ``S`` holds the stored update rows s_j (CSR arrays, sorted indices) and ``scratch`` is
    an empty (0, d) array of the product's dtype. Each entry of G is the sum of the
    products x_rf s_jf over the features both have, in increasing f, in that dtype: the
    sums SciPy's sparse product takes (the terms where x_rf = 0 add zeros, which change no
    sum), without its sparse n_rows x n_support result or any G beyond one lane block per
    thread.
    """
    data, indices, indptr = X
    s_data, s_indices, s_indptr = S
    n, n_support = indptr.shape[0] - 1, s_indptr.shape[0] - 1
    for block in prange((n + VOTE_LANES - 1) // VOTE_LANES):
        start = block * VOTE_LANES
        stop = min(n, start + VOTE_LANES)
        dense = np.zeros((scratch.shape[1], VOTE_LANES), dtype=scratch.dtype)
        for lane in range(stop - start):
            for p in range(indptr[start + lane], indptr[start + lane + 1]):
                dense[indices[p], lane] = data[p]
        lanes = np.empty((n_support, VOTE_LANES), dtype=scratch.dtype)
        for j in range(n_support):
            for lane in range(VOTE_LANES):
                lanes[j, lane] = 0.0
            for q in range(s_indptr[j], s_indptr[j + 1]):
                f, v = s_indices[q], s_data[q]
                for lane in range(VOTE_LANES):
                    lanes[j, lane] += dense[f, lane] * v
        _vote_lanes(lanes, rows, signs, counts, c, start, stop, out)


@njit(cache=True, nogil=True)
def _vote_lanes(lanes, rows, signs, counts, c, start, stop, out):
    """out[start:stop] from lanes[j, lane] = <x_(start + lane), s_j>.

    Every lane is computed (a short block's extra lanes hold zeros) so that the loop over
    lanes has a fixed length. The vote is 2 (the counts of the weights with <w_k, x'> > 0)
    minus all counts. Which side of zero a row is on changes from update to update, and
    LLVM compiles any integer form of the test s > 0 to a jump that is then mispredicted
    (three times slower on a9a). Clamping to [0, 1] and scaling twice by 2^550 (clamped
    again each time, so nothing overflows) gives the same 0/1 in float min/max
    instructions, without a jump: the smallest positive float, 2^-1074, becomes 2^26
    before the last clamp, and +-0 and negative s give 0. A NaN (only an overflow makes
    one, and it stays NaN) is voted again the plain way.
    """
    s = np.zeros(VOTE_LANES)
    up = np.zeros(VOTE_LANES)
    total = counts[0]
    for k in range(rows.shape[0]):
        j, a, count = rows[k], signs[k], counts[k + 1]
        total += count
        for lane in range(VOTE_LANES):
            s[lane] += a * (np.float64(lanes[j, lane]) + c)
            positive = min(min(min(max(s[lane], 0.0), 1.0) * _HUGE, 1.0) * _HUGE, 1.0)
            up[lane] += count * positive
    for lane in range(stop - start):
        if math.isnan(s[lane]):
            out[start + lane] = _vote_one_lane(lanes, lane, rows, signs, counts, c)
        else:
            out[start + lane] = 2.0 * up[lane] - total


_HUGE = 2.0**550  # twice: lifts the smallest positive float (2^-1074) above 1


@njit(cache=True, nogil=True)
def _vote_one_lane(lanes, lane, rows, signs, counts, c):
    """The vote of one lane, as a plain running sum (for a sum that overflowed)."""
    s = 0.0
    vote = -counts[0]
    for k in range(rows.shape[0]):
        s += signs[k] * (np.float64(lanes[rows[k], lane]) + c)
        vote += counts[k + 1] if s > 0.0 else -counts[k + 1]
    return vote
