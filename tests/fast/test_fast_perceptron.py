"""The compiled perceptron loops (binary, multiclass, dual) against their plain twins.

Each test drives a loop of :mod:`halfspaces._fast` directly, from zero weights, one call per
epoch, and compares it with the definitions in tests/_naive.py and tests/_naive_kernel.py,
on dense float32/float64 rows and CSR rows with int32/int64 indices. CI runs this file once
more with ``NUMBA_DISABLE_JIT=1``, so the data are small.
"""

from __future__ import annotations

import _naive
import _naive_kernel
import numpy as np
import pytest
import scipy.sparse as sp
from _datasets import FORMATS, in_format, noisy
from numpy.testing import assert_allclose, assert_array_equal

from halfspaces._fast import dual as fast_dual
from halfspaces._fast import loop_input
from halfspaces._fast import multiclass as fast_multiclass
from halfspaces._fast import perceptron as fast_perceptron

EMPTY = np.empty(0, dtype=np.int64)
NO_LOG = np.empty((2, 0), dtype=np.int64)
NO_WEIGHTS = np.empty(0, dtype=np.float64)


def binary_run(X, y, mode, fit_intercept=True, max_epochs=4, selection="cyclic", seed=0):
    """Drive the binary loop: zero weights, one call per epoch, stop on convergence.

    Returns (w, aux, counters, update rows, update steps, n_updates, converged).
    """
    n, d = X.shape
    Xk, Y, c = loop_input(X), (y, 1.0), float(fit_intercept)
    w, aux = np.zeros(d + 1), np.zeros(d + 1)
    counters = np.zeros(fast_perceptron.N_COUNTERS, dtype=np.int64)
    counters[fast_perceptron.POCKET_ERRORS] = fast_perceptron.count_errors(Xk, Y, c, aux)
    counters[fast_perceptron.POCKET_IS_CURRENT] = 1
    log = np.empty((2, n), dtype=np.int64)
    rng = np.random.RandomState(seed)
    rows, steps, n_updates = [], [], 0
    for _ in range(max_epochs):
        if selection == "worst":
            k = fast_perceptron.perceptron_worst(Xk, Y, c, mode, w, aux, counters, log, n)
        else:
            order = rng.permutation(n) if selection == "shuffle" else EMPTY
            k = fast_perceptron.perceptron_epoch(Xk, Y, order, c, mode, w, aux, counters, log)
        assert k >= 0
        rows += log[0, :k].tolist()
        steps += log[1, :k].tolist()
        n_updates += k
        if k == 0 or (selection == "worst" and k < n):
            return w, aux, counters, rows, steps, n_updates, True
    return w, aux, counters, rows, steps, n_updates, False


def small_noisy(fmt, n=40, d=4, seed=4):
    X, y = noisy(n, d, seed=seed, flip=0.2, sparsity=0.3)
    return in_format(X, fmt), y


# ---------------------------------------------------------------- binary: every mode

@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("fit_intercept", [True, False])
@pytest.mark.parametrize("selection", ["cyclic", "shuffle", "worst"])
def test_plain_epoch_equals_twin(fmt, fit_intercept, selection):
    X, y = small_noisy(fmt)
    w, _, counters, rows, _, n_updates, converged = binary_run(
        X, y, fast_perceptron.PLAIN, fit_intercept, 5, selection, seed=3)
    tw, tb, t_updates, _, t_converged = _naive.perceptron(
        X, y, fit_intercept, 5, selection, np.random.RandomState(3))
    assert_array_equal(w[:-1], tw)
    assert w[-1] == tb
    assert (n_updates, converged) == (t_updates, t_converged) and len(rows) == n_updates


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("selection", ["cyclic", "shuffle"])
def test_averaged_epoch_equals_the_mean_of_all_weights(fmt, selection):
    X, y = small_noisy(fmt)
    w, aux, counters, *_ = binary_run(X, y, fast_perceptron.AVERAGED, True, 3, selection, seed=1)
    mean = w - aux / counters[fast_perceptron.STEP]
    tw, tb = _naive.averaged_perceptron(X, y, True, 3, selection, np.random.RandomState(1))
    assert_allclose(mean[:-1], tw, rtol=1e-10, atol=1e-12)
    assert_allclose(mean[-1], tb, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("fit_intercept", [True, False])
def test_voted_log_rebuilds_freund_schapire_figure_1(fmt, fit_intercept):
    X, y = small_noisy(fmt)
    _, _, counters, rows, steps, _, _ = binary_run(X, y, fast_perceptron.VOTED, fit_intercept, 3)
    vectors = _naive.voted_perceptron(X, y, fit_intercept, 3)
    # w_k adds y x' of the k-th logged row; it survives from its step to the next update's
    counts = np.diff(np.concatenate([[1], steps, [counters[fast_perceptron.STEP] + 1]]))
    assert_array_equal(counts, [count for _, _, count in vectors])
    Xd = _naive_kernel.dense(X)
    w, b = np.zeros(X.shape[1]), 0.0
    for row, (tv, tb, _) in zip(rows, vectors[1:], strict=True):
        w, b = w + y[row] * Xd[row], b + y[row] * float(fit_intercept)
        assert_array_equal(w, tv)
        assert b == tb


@pytest.mark.parametrize("fit_intercept", [True, False])
def test_voted_scores_equal_the_explicit_vote_with_ties(fit_intercept):
    # integer points: many decision values of the stored vectors are exactly 0, which the
    # vote must count as -1, as predict does
    rng = np.random.default_rng(5)
    X = rng.integers(-2, 3, size=(30, 3)).astype(np.float64)
    y = np.where(rng.random(30) < 0.5, 1.0, -1.0)
    _, _, counters, rows, steps, _, _ = binary_run(X, y, fast_perceptron.VOTED, fit_intercept, 3)
    vectors = _naive.voted_perceptron(X, y, fit_intercept, 3)
    X_test = rng.integers(-2, 3, size=(60, 3)).astype(np.float64)
    assert any(np.any(X_test @ v + b == 0) for v, b, _ in vectors[1:])
    support = np.unique(rows)
    G = np.ascontiguousarray(X_test @ X[support].T)
    last = counters[fast_perceptron.STEP] + 1
    counts = np.diff(np.concatenate([[1], steps, [last]])).astype(np.int64)
    out = np.empty(len(X_test))
    fast_perceptron.voted_scores(G, np.searchsorted(support, rows), y[rows], counts,
                                 float(fit_intercept),
                    out)
    assert_array_equal(out, _naive.voted_decision(vectors, X_test))


def plain_votes(G, rows, signs, counts, c):
    """The vote as one running sum per row, the way it was first written."""
    out = np.empty(G.shape[0])
    for r in range(G.shape[0]):
        s, vote = 0.0, -counts[0]
        for k in range(rows.shape[0]):
            s += signs[k] * (np.float64(G[r, rows[k]]) + c)
            vote += counts[k + 1] if s > 0.0 else -counts[k + 1]
        out[r] = vote
    return out


def vote_log(seed, n_support=12, n_updates=60):
    rng = np.random.default_rng(seed)
    rows = rng.integers(0, n_support, n_updates)
    signs = rng.choice([-1.0, 1.0], n_updates)
    counts = rng.integers(0, 9, n_updates + 1)
    return rows, signs, counts


LANES = fast_perceptron.VOTE_LANES


@pytest.mark.parametrize("n_rows", [1, LANES - 1, LANES, 2 * LANES + 5])  # blocks of lanes
@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("c", [0.0, 1.0])
def test_voted_scores_equal_the_plain_running_sums(n_rows, fmt, c):
    # G as SciPy's sparse product sums it, in the data's dtype (rounded: 0.37 and 0.71)
    rng = np.random.default_rng(n_rows)
    dtype = np.float32 if fmt == "dense32" else np.float64
    X = rng.integers(-2, 3, size=(n_rows, 4)) * rng.choice([1.0, 0.37], (n_rows, 4))
    S = rng.integers(-2, 3, size=(12, 4)) * 0.71
    X, S = in_format(X, fmt), sp.csr_matrix(S, dtype=dtype)
    if fmt == "csr64":
        S.indices, S.indptr = S.indices.astype(np.int64), S.indptr.astype(np.int64)
    G = np.ascontiguousarray((sp.csr_matrix(X) @ S.T).toarray())
    assert G.dtype == dtype
    rows, signs, counts = vote_log(n_rows)
    expected = plain_votes(G, rows, signs, counts, c)
    assert n_rows == 1 or np.unique(expected).size > 1  # lanes with different votes
    out = np.full(n_rows, np.nan)
    fast_perceptron.voted_scores(G.astype(np.float64), rows, signs, counts, c, out)
    assert_array_equal(out, expected)
    out[:] = np.nan
    fast_perceptron.voted_scores_csr(loop_input(sp.csr_matrix(X)), (S.data, S.indices, S.indptr),
                                     rows,
                        signs, counts, c, np.empty((0, 4), dtype=dtype), out)
    assert_array_equal(out, expected)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # the overflow itself
def test_voted_scores_of_an_overflowing_sum_are_the_plain_vote():
    rows, signs, counts = vote_log(3, n_support=3, n_updates=40)
    # an overflowed dot product is inf; +inf and -inf terms make the sum NaN for good
    G = np.array([[np.inf, 1.0, 2.0], [1.0, -1.0, 0.0], [-1e308, 1e308, 1e308]] * 3)
    expected = plain_votes(G, rows, signs, counts, 1.0)
    sums = np.cumsum(signs * (G[:, rows] + 1.0), axis=1)
    assert np.isnan(sums[:, -1]).any() and not np.isnan(sums[:, -1]).all()
    out = np.empty(G.shape[0])
    fast_perceptron.voted_scores(G, rows, signs, counts, 1.0, out)
    assert_array_equal(out, expected)


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("seed", [0, 1])
def test_pocket_epoch_equals_ratchet_twin(fmt, seed):
    X, y = small_noisy(fmt, n=50, d=3, seed=seed)
    _, aux, counters, *_ = binary_run(X, y, fast_perceptron.POCKET, True, 6)
    tw, tb, errors = _naive.pocket_perceptron(X, y, True, 6)
    assert_array_equal(aux[:-1], tw)
    assert aux[-1] == tb
    assert counters[fast_perceptron.POCKET_ERRORS] == errors


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("max_epochs", [1, 2, 3])
def test_pocket_worst_keeps_the_fewest_errors_of_every_visited_vector(fmt, max_epochs):
    X, y = small_noisy(fmt, n=30, d=2, seed=15)
    _, aux, counters, *_ = binary_run(X, y, fast_perceptron.POCKET, True, max_epochs, "worst")
    Xd = _naive_kernel.dense(X)
    visited = _naive.perceptron_worst_weights(X, y, True, max_epochs)
    errors = [_naive.training_errors(Xd, y, w, b) for w, b in visited]
    best_w, best_b = visited[int(np.argmin(errors))]  # the first of the best: a ratchet
    assert counters[fast_perceptron.POCKET_ERRORS] == min(errors)
    assert_array_equal(aux[:-1], best_w)
    assert aux[-1] == best_b


@pytest.mark.parametrize("fmt", FORMATS)
def test_count_errors_counts_as_predict(fmt):
    X, y = small_noisy(fmt)
    w = np.random.default_rng(0).normal(size=X.shape[1] + 1)
    for c in (0.0, 1.0):
        expected = _naive.training_errors(_naive_kernel.dense(X), y, w[:-1], c * w[-1])
        assert fast_perceptron.count_errors(loop_input(X), (y, 1.0), c, w) == expected


# ---------------------------------------------------------------- status codes


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # inf * 0 as plain Python
@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("bad", [np.nan, np.inf, 1e308])
def test_loops_return_the_bad_row(fmt, bad):
    # small rows and weights near 2: the finite rows' updates cannot bring <w, x_7> back
    # below the overflow threshold
    X, y = noisy(12, 2, seed=0)
    X *= 0.01
    X[7] = [bad, bad]
    Xk, Y, w = loop_input(in_format(X, fmt)), (y, 1.0), np.full(3, 2.0)
    args = (np.zeros(3), np.zeros(fast_perceptron.N_COUNTERS, dtype=np.int64), np.empty((2, 0),
                                                                                        np.int64))
    assert fast_perceptron.perceptron_epoch(Xk, Y, EMPTY, 1.0, fast_perceptron.PLAIN, w.copy(),
                                            *args) == -1 - 7
    assert fast_perceptron.perceptron_worst(Xk, Y, 1.0, fast_perceptron.PLAIN, w.copy(), *args,
                                            12) == -1 - 7
    labels = (y > 0).astype(np.int64)
    W, U = np.full((2, 3), 2.0), np.zeros((2, 3))
    counters = np.zeros(fast_multiclass.N_COUNTERS, dtype=np.int64)
    assert fast_multiclass.multiclass_epoch(Xk, labels, EMPTY, 1.0, False, W, U, counters,
                                           NO_WEIGHTS) == -1 - 7


# ---------------------------------------------------------------- multiclass


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("fit_intercept", [True, False])
@pytest.mark.parametrize("average, selection", [(False, "cyclic"), (True, "shuffle")])
def test_multiclass_epoch_equals_twin(fmt, fit_intercept, average, selection):
    X, y = noisy(45, 4, seed=2)
    labels = np.digitize(X[:, 0] + 0.5 * X[:, 1], [-0.5, 0.5]).astype(np.int64)
    labels[::7] = (labels[::7] + 1) % 3  # not separable
    X = in_format(X, fmt)
    Xk, c = loop_input(X), float(fit_intercept)
    W, U = np.zeros((3, 5)), np.zeros((3, 5))
    counters = np.zeros(fast_multiclass.N_COUNTERS, dtype=np.int64)
    rng, n_updates = np.random.RandomState(7), 0
    for _ in range(4):
        order = rng.permutation(45) if selection == "shuffle" else EMPTY
        k = fast_multiclass.multiclass_epoch(Xk, labels, order, c, average, W, U, counters,
                                                NO_WEIGHTS)
        n_updates += k
        if k == 0:
            break
    tW, t_updates, _, _ = _naive_kernel.multiclass_perceptron(
        X, labels, 3, fit_intercept, 4, selection, np.random.RandomState(7), average)
    weights = W - U / counters[fast_multiclass.STEP] if average else W
    assert_allclose(weights, tW, rtol=1e-10, atol=1e-10)
    assert n_updates == t_updates


# ---------------------------------------------------------------- dual epoch and Gram rows


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("name, params", [("linear", {}), ("poly", dict(degree=2, gamma=0.5)),
                                          ("rbf", dict(gamma=0.3)),
                                          ("sigmoid", dict(gamma=0.1, coef0=0.2))])
def test_gram_rows_equal_the_kernel_formulas(fmt, name, params):
    X, _ = noisy(20, 4, seed=1, sparsity=0.3)
    X = in_format(X, fmt)
    kind = {"linear": fast_dual.LINEAR, "poly": fast_dual.POLY, "rbf": fast_dual.RBF,
            "sigmoid": fast_dual.SIGMOID}[name]
    spec = (kind, params.get("gamma", 0.0), params.get("coef0", 1.0),
            float(params.get("degree", 3)), 1.0)
    Xd = _naive_kernel.dense(X)
    sq = np.einsum("ij,ij->i", Xd, Xd)
    rows, slots = np.array([5, 0, 17]), np.array([2, 0, 1])
    expected = _naive_kernel.kernel(X[rows], X, name, **params) + 1.0
    for gram_rows in (fast_dual.gram_rows, fast_dual.gram_rows_parallel):
        K, Zt = np.full((3, 20), np.nan), np.zeros((4, 3))
        gram_rows(loop_input(X), rows, spec, sq, Zt, K, slots)
        assert_allclose(K[slots], expected, rtol=1e-6 if "32" in fmt else 1e-12, atol=1e-12)
        assert not Zt.any()  # the scratch is zero again


def dual_run(K, y, fit_intercept, max_epochs, present, selection="cyclic", seed=0):
    """Drive the dual loop, computing a missing row (from K) wherever the pass stops."""
    n = len(y)
    G = K + float(fit_intercept)
    rows = np.zeros((n, n))
    slot = np.full(n, -1, dtype=np.int64)
    for i in present:
        rows[i], slot[i] = G[i], i
    f, alpha = np.zeros(n), np.zeros(n, dtype=np.int64)
    state = (alpha, np.zeros(n, dtype=np.int64), np.zeros(2, dtype=np.int64))
    last_use = np.zeros(n + 1, dtype=np.int64)
    rng, n_updates, stops = np.random.RandomState(seed), 0, 0
    for epoch in range(1, max_epochs + 1):
        order, pos, k = rng.permutation(n) if selection == "shuffle" else EMPTY, 0, 0
        while pos < n:
            pos, done = fast_dual.dual_epoch(rows, slot, (y, 1.0), order, pos, f, state, NO_LOG,
                                      last_use, (np.zeros(n), 0))
            assert pos >= 0
            k += done
            if pos < n:
                i = order[pos] if order.size else pos
                assert slot[i] < 0 and y[i] * f[i] <= 0  # stopped for a needed, missing row
                rows[i], slot[i], stops = G[i], i, stops + 1
        n_updates += k
        if k == 0:
            return alpha, n_updates, epoch, True, stops, state[2][0]
    return alpha, n_updates, max_epochs, False, stops, state[2][0]


@pytest.mark.parametrize("fit_intercept", [True, False])
@pytest.mark.parametrize("selection", ["cyclic", "shuffle"])
@pytest.mark.parametrize("present", ["all", "none"])
def test_dual_epoch_equals_twin(fit_intercept, selection, present):
    X, y = noisy(30, 3, seed=8)
    K = _naive_kernel.kernel(X, X, "rbf", gamma=0.5)
    alpha, n_updates, n_epochs, converged, stops, n_steps = dual_run(
        K, y, fit_intercept, 6, range(30) if present == "all" else [], selection, seed=2)
    expected = _naive_kernel.kernel_perceptron(K, y, fit_intercept, 6, selection,
                                               np.random.RandomState(2))
    assert_array_equal(alpha, expected[0])
    assert (n_updates, n_epochs, converged) == expected[1:]
    assert stops == (0 if present == "all" else np.count_nonzero(alpha))
    assert n_steps == 30 * n_epochs  # a stop for a missing row does not count its step twice


def test_dual_epoch_returns_the_row_of_a_non_finite_value():
    K = np.array([[1.0, np.inf, 0.5], [np.inf, 1.0, 0.5], [0.5, 0.5, 1.0]])
    y = np.array([1.0, -1.0, 1.0])
    f, alpha = np.zeros(3), np.zeros(3, dtype=np.int64)
    state = (alpha, np.zeros(3, dtype=np.int64), np.zeros(2, dtype=np.int64))
    pos, k = fast_dual.dual_epoch(K, np.arange(3), (y, 1.0), EMPTY, 0, f, state, NO_LOG,
                           np.zeros(4, np.int64), (np.zeros(3), 0))
    assert (pos, k) == (-1 - 1, 1)  # the update on row 0 made f_1 infinite


def test_the_perceptron_loops_release_the_gil():
    # threaded Dask workers run these loops side by side only when they drop the GIL
    from numba import config
    from numba.core.registry import CPUDispatcher

    if config.DISABLE_JIT:
        pytest.skip("the loops are plain Python under NUMBA_DISABLE_JIT")

    loops = [f for f in vars(fast_perceptron).values() if isinstance(f, CPUDispatcher)]
    assert {"perceptron_epoch", "perceptron_worst", "count_errors"} <= {f.__name__ for f in loops}
    assert all(f.targetoptions.get("nogil") for f in loops)
