"""Gram rows computed in blocks (GramRows, the compiled gram_rows): oracles and bookkeeping.

The block path is checked against scikit-learn's pairwise kernels, against itself one row
at a time (the same numbers whatever the block and the threads), and at the level of runs:
blocks change which rows are computed, never the run.
"""

from __future__ import annotations

import re
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from _child import outcomes
from _datasets import FORMATS, in_format, noisy
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.metrics import pairwise

from halfspaces import KernelPerceptron
from halfspaces._fast import dual as fast_dual
from halfspaces._fast import loop_input
from halfspaces._kernel.dual_run import run_kernel_perceptron, training_gram
from halfspaces._kernel.gram import GramRows

KERNELS = {
    "linear": ({}, lambda A, B: pairwise.linear_kernel(A, B)),
    "poly": (dict(degree=3, gamma=0.4, coef0=0.5),
             lambda A, B: pairwise.polynomial_kernel(A, B, degree=3, gamma=0.4, coef0=0.5)),
    "rbf": (dict(gamma=0.3), lambda A, B: pairwise.rbf_kernel(A, B, gamma=0.3)),
    "sigmoid": (dict(gamma=0.1, coef0=0.2),
                lambda A, B: pairwise.sigmoid_kernel(A, B, gamma=0.1, coef0=0.2)),
}


def dense64(X):
    return np.asarray(X.toarray() if sp.issparse(X) else X, dtype=np.float64)


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("name", list(KERNELS))
def test_a_block_of_rows_equals_sklearns_pairwise_kernel(fmt, name):
    X, _ = noisy(90, 7, seed=3, sparsity=0.4)
    X = in_format(X, fmt)
    params, oracle = KERNELS[name]
    gram = training_gram(X, name, fit_intercept=True, **params)
    rows = np.array([4, 70, 0, 33, 89, 12], dtype=np.int64)
    gram.fetch_block(rows)
    expected = oracle(dense64(X)[rows], dense64(X)) + 1.0
    assert gram.n_blocks == 1 and gram.n_computed == rows.size
    assert_allclose(gram.K[gram.slot[rows]], expected, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("fmt", FORMATS)
def test_entries_do_not_depend_on_the_block_or_the_threads(fmt):
    X, _ = noisy(300, 6, seed=5, sparsity=0.5)
    Xk = loop_input(in_format(X, fmt))
    sq = np.einsum("ij,ij->i", X, X)
    spec = (fast_dual.RBF, 0.2, 1.0, 3.0, 1.0)
    rows = np.array([7, 250, 3, 99, 180], dtype=np.int64)
    one = np.empty((5, 300))
    for r in range(rows.size):  # one row at a time
        fast_dual.gram_rows(Xk, rows[r:r + 1], spec, sq, np.zeros((6, 1)), one, np.array([r]))
    block, parallel = np.empty((5, 300)), np.empty((5, 300))
    fast_dual.gram_rows(Xk, rows, spec, sq, np.zeros((6, 5)), block, np.arange(5))
    fast_dual.gram_rows_parallel(Xk, rows, spec, sq, np.zeros((6, 5)), parallel, np.arange(5))
    assert_array_equal(block, one)
    assert_array_equal(parallel, one)


@pytest.mark.parametrize("fmt", ["dense64", "dense32"])
def test_dense_rows_from_blas_do_not_depend_on_the_block(fmt):
    # real-valued data, so the sums' order shows: one row at a time (padded to a product of
    # two rows, never gemv), a block of five, and the one-row compiled loop for scale. Equal
    # to rounding, not bit for bit: OpenBLAS 0.3.31 on an AMD EPYC sums some entries of a
    # one-row and a five-row product in different orders (earlier builds did not)
    X, _ = noisy(300, 9, seed=6, sparsity=0.3)
    X = in_format(X, fmt)
    rows = np.array([7, 250, 3, 99, 180], dtype=np.int64)
    alone = training_gram(X, "rbf", gamma=0.2, cache_size=200.0)
    for r in rows:
        alone.fetch_block(np.array([r], dtype=np.int64))
    block = training_gram(X, "rbf", gamma=0.2, cache_size=200.0)
    block.fetch_block(rows)
    assert block.dense and block.n_blocks == 1
    assert_same_to_rounding(block.K[block.slot[rows]], alone.K[alone.slot[rows]])
    loop = np.empty((5, 300))
    fast_dual.gram_rows(loop_input(X), rows, (fast_dual.RBF, 0.2, 1.0, 3.0, 1.0),
                 np.einsum("ij,ij->i", dense64(X), dense64(X)), np.zeros((9, 5)), loop,
                 np.arange(5))
    assert_allclose(block.K[block.slot[rows]], loop, rtol=1e-13)


def assert_same_to_rounding(actual, desired):
    """Equal but for the order of a dot product's sum: 1e-13 of the matrix's largest entry
    (a wrong row, slot or triangle differs by far more)."""
    assert_allclose(actual, desired, rtol=0.0, atol=1e-13 * np.abs(desired).max())


def rows_by_blocks(X, kernel, **params):
    """The whole Gram matrix of dense X, block by block, as a cache too small to hold it."""
    gram = training_gram(X, kernel, **params)
    gram.whole = False
    n = X.shape[0]
    for start in range(0, n, 7):
        gram.fetch_block(np.arange(start, min(n, start + 7), dtype=np.int64))
    return gram.K[gram.slot]


@pytest.mark.parametrize("fmt", ["dense64", "dense32"])
@pytest.mark.parametrize("name", list(KERNELS))
def test_a_whole_matrix_cache_is_filled_at_once_with_the_rows_bits(fmt, name):
    # real-valued data: the symmetric product and its mirrored map give the entries the
    # rows' products give (to rounding: syrk and gemm may sum in different orders)
    X, y = noisy(150, 9, seed=12, sparsity=0.3)
    X = in_format(X, fmt)
    params, oracle = KERNELS[name]
    gram = training_gram(X, name, **params)
    assert gram.whole
    gram.fetch_ahead((y, 1.0), np.zeros(150), np.empty(0, dtype=np.int64), 0, np.zeros(150))
    assert gram.n_blocks == 1 and gram.n_computed == gram.used == 150
    assert_array_equal(gram.slot, np.arange(150))
    assert_same_to_rounding(gram.K[gram.slot], rows_by_blocks(X, name, **params))
    assert_allclose(gram.K, oracle(dense64(X), dense64(X)) + 1.0, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize(("fmt", "cache_size"), [
    ("csr64", 200.0),  # the compiled loop's rows: no symmetric product
    ("dense64", 99 * 100 * 8 / 2**20),  # one row short of the whole matrix
])
def test_only_a_dense_whole_matrix_cache_is_filled_at_once(fmt, cache_size):
    X, y = noisy(100, 4, seed=13)
    gram = training_gram(in_format(X, fmt), "rbf", gamma=0.5, cache_size=cache_size)
    assert not gram.whole
    gram.fetch_ahead((y, 1.0), np.zeros(100), np.empty(0, dtype=np.int64), 0, np.zeros(100))
    assert gram.n_computed == gram.block


@pytest.mark.parametrize("name", ["poly", "rbf"])
def test_the_fill_changes_no_run(name, monkeypatch):
    X, y = noisy(300, 6, seed=14, flip=0.1)
    params = KERNELS[name][0]
    runs = {}
    for whole in (True, False):
        init = GramRows.__init__

        def init_whole(self, *args, whole=whole, init=init, **kwargs):
            init(self, *args, **kwargs)
            self.whole = self.whole and whole
        monkeypatch.setattr(GramRows, "__init__", init_whole)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            runs[whole] = KernelPerceptron(kernel=name, max_epochs=4, average=True,
                                           selection="shuffle", random_state=0,
                                           **params).fit(X, y)
    assert runs[True].n_updates_ > 100
    assert_array_equal(runs[True].alpha_, runs[False].alpha_)
    assert_array_equal(runs[True].dual_coef_, runs[False].dual_coef_)


@pytest.mark.parametrize("fmt", ["csr64", "csr32"])
def test_csr_entries_are_the_plain_sparse_dot_products(fmt):
    # each <x_j, x_i> summed over x_j's stored entries in order from 0.0, as the one-row
    # loop before blocks did: a Python twin of that sum, bit for bit
    X, _ = noisy(40, 5, seed=8, sparsity=0.5)
    X = in_format(X, fmt)
    gram = training_gram(X, "linear", fit_intercept=False)
    gram.fetch_block(np.array([2, 31, 17], dtype=np.int64))
    A = sp.csr_matrix(X, dtype=np.float64)
    for i in (2, 31, 17):
        x = A[i].toarray().ravel()
        for j in range(40):
            s = 0.0
            for p in range(A.indptr[j], A.indptr[j + 1]):
                s += float(A.data[p]) * float(x[A.indices[p]])
            assert gram.K[gram.slot[i], j] == s


@pytest.mark.parametrize("margin", [0.0, 0.5])
def test_missing_rows_are_the_next_uncached_updates_in_order(margin):
    rng = np.random.default_rng(11)
    n = 50
    y = rng.choice([-1.0, 1.0], n)
    f = rng.normal(size=n)
    threshold = margin * rng.random(n)
    slot = np.where(rng.random(n) < 0.3, 0, -1).astype(np.int64)
    order = rng.permutation(n)
    for start, limit in [(0, 4), (17, 8), (45, 16)]:
        out = np.empty(limit, dtype=np.int64)
        count = fast_dual.missing_rows(slot, (y, 1.0), order, start, f, threshold, out)
        twin = [i for i in order[start:] if slot[i] < 0 and y[i] * f[i] <= threshold[i]]
        assert_array_equal(out[:count], twin[:limit])
    out = np.empty(3, dtype=np.int64)
    count = fast_dual.missing_rows(slot, (y, 1.0), np.empty(0, dtype=np.int64), 0, f, threshold,
                                   out)
    assert_array_equal(out[:count], [i for i in range(n)
                                     if slot[i] < 0 and y[i] * f[i] <= threshold[i]][:3])


def test_rows_ahead_fill_only_free_slots_and_leave_first():
    X, y = noisy(12, 3, seed=2)
    linear = (fast_dual.LINEAR, 0.0, 0.0, 0.0, 1.0)
    gram = GramRows(X, cache_size=5 * 12 * 8 / 2**20, spec=linear, block=4)  # five rows
    Y, f, none = (y, 1.0), np.zeros(12), np.empty(0, dtype=np.int64)  # every one a mistake
    gram.last_use[-1] = 3
    gram.fetch_ahead(Y, f, none, 0, np.zeros(12))
    assert_array_equal(np.flatnonzero(gram.slot >= 0), [0, 1, 2, 3])
    assert gram.last_use[gram.slot[0]] == gram.last_use[-1]  # asked for
    assert (gram.last_use[gram.slot[[1, 2, 3]]] == 0).all()  # ahead: the oldest
    gram.last_use[-1] += 5
    gram.fetch_ahead(Y, f, none, 4, np.zeros(12))  # one slot free: one row
    assert gram.used == 5 and gram.n_computed == 5
    gram.last_use[gram.slot[4]] = gram.last_use[-1] = 9  # row 4 used since
    gram.fetch_ahead(Y, f, none, 5, np.zeros(12))  # full: row 5 alone
    assert gram.slot[5] >= 0 and gram.slot[4] >= 0 and gram.slot[0] >= 0
    assert (gram.slot >= 0).sum() == 5 and gram.n_computed == 6
    assert_allclose(gram.K[gram.slot[5]], X[5] @ X.T + 1.0, rtol=1e-12)


@pytest.mark.parametrize("cache_size", [0.3, 200.0])  # rows evicted / all rows kept
@pytest.mark.parametrize("fmt", ["dense64", "csr64"])
def test_blocks_change_no_run(fmt, cache_size, monkeypatch):
    X, y = noisy(400, 6, seed=9, flip=0.1)
    X = in_format(X, fmt)
    runs = {}
    for block in (1, 16):
        monkeypatch.setitem(GramRows.__init__.__kwdefaults__, "block", block)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            runs[block] = KernelPerceptron(kernel="rbf", gamma=0.5, max_epochs=4,
                                           selection="shuffle", random_state=0,
                                           cache_size=cache_size).fit(X, y)
    assert runs[1].n_updates_ > 100
    assert_array_equal(runs[16].alpha_, runs[1].alpha_)
    assert runs[16].n_updates_ == runs[1].n_updates_


@settings(max_examples=25, deadline=None)
@given(data=st.data())
def test_runs_with_blocks_equal_runs_one_row_at_a_time_on_integer_data(data):
    # integer features: every dot product is exact, so dense and CSR, blocks and single
    # rows give the same Gram entries and therefore the same run, bit for bit
    n = data.draw(st.integers(2, 40))
    d = data.draw(st.integers(1, 5))
    X = np.array(data.draw(st.lists(st.lists(st.integers(-3, 3), min_size=d, max_size=d),
                                    min_size=n, max_size=n)), dtype=np.float64)
    y = np.array(data.draw(st.lists(st.sampled_from([-1.0, 1.0]), min_size=n, max_size=n)))
    block = data.draw(st.integers(2, 16))
    cache_size = data.draw(st.sampled_from([3 * 8 * n / 2**20, 200.0]))  # 3 rows, or all
    runs = []
    for A, b in [(X, 1), (X, block), (sp.csr_matrix(X), block)]:
        gram = GramRows(A, cache_size, spec=(fast_dual.POLY, 1.0, 1.0, 2.0, 1.0), block=b)
        runs.append(run_kernel_perceptron(gram, y, max_epochs=3))
    for run in runs[1:]:
        assert_array_equal(run.alpha, runs[0].alpha)
        assert run.n_updates == runs[0].n_updates


def test_the_fill_is_right_where_blas_returns_a_new_matrix(monkeypatch):
    # SciPy's wrapper writes into K only where it can; where it copies, the copy is used
    import halfspaces._kernel.gram as gram_rows

    syrk = gram_rows.dsyrk
    monkeypatch.setattr(gram_rows, "dsyrk",
                        lambda *args, **kwargs: syrk(*args, **{**kwargs, "overwrite_c": 0}))
    X, y = noisy(40, 5, seed=15)
    gram = training_gram(X, "poly", degree=2, gamma=0.5)
    gram.fill()
    assert_allclose(gram.K, pairwise.polynomial_kernel(X, X, degree=2, gamma=0.5, coef0=1.0)
                    + 1.0, rtol=1e-13)


RUN_SETUP = """
import numpy as np
from halfspaces._kernel.dual_run import run_kernel_perceptron, training_gram
from halfspaces._kernel.gram import GramRows
X = np.random.default_rng(0).standard_normal((10, 3))
named, precomputed = training_gram(X, "rbf"), GramRows(X, 200.0, spec=(0, 0., 0., 0., 1.),
                                                       gram=X @ X.T)
"""


def test_run_kernel_perceptron_refuses_lengths_that_disagree_with_the_gram():
    # a y longer than the Gram matrix and an f0 longer than y ran the compiled loop past
    # their ends: segmentation faults
    cases = {
        "run_kernel_perceptron(named, np.tile([1.0, -1.0], 500_000))": "y must be .* 10 labels",
        "run_kernel_perceptron(precomputed, np.tile([1.0, -1.0], 500_000))": "y must be",
        "run_kernel_perceptron(named, np.tile([1.0, -1.0], 5), f0=np.zeros(10**7))":
            r"f0 must be .* shape \(10,\)",
        "run_kernel_perceptron(precomputed, np.ones(10), f0=np.zeros(3))": "f0 must be",
        "GramRows(X, 200.0, spec=(0, 0., 0., 0., 1.), gram=np.eye(4))":
            "gram must be the square",
    }
    for found, match in zip(outcomes(RUN_SETUP, *cases), cases.values(), strict=True):
        assert re.match(f"ValueError: {match}", found), found


@pytest.mark.parametrize("arguments, match", [
    (dict(y=np.r_[np.ones(9), np.nan]), "y holds NaN"),
    (dict(y=np.ones((10, 1))), "y must be a one-dimensional"),
    (dict(y=np.array(["a"] * 10)), "y must be a one-dimensional numeric"),
    (dict(f0=np.r_[np.zeros(9), np.inf]), "f0 holds NaN"),
    (dict(f0=np.zeros(10) + 0j), "f0 must be a numeric"),
    (dict(positive=[1.0]), "positive must be one numeric label"),
    # int8(257) is 1: the run trained on the labels 1 as if they were 257
    (dict(y=np.r_[np.ones(5), np.zeros(5)].astype(np.int8), positive=257),
     "positive=257 is not a value of y's dtype int8"),
    (dict(max_epochs=0), "max_epochs must be"),
    (dict(selection="worst"), "selection must be"),
    (dict(selection="shuffle"), "rng"),
    (dict(n_steps=-1), "n_steps must be"),
    (dict(gram="K"), "gram must be a GramRows"),
])
def test_run_kernel_perceptron_names_the_argument_it_refuses(arguments, match):
    X, y = noisy(10, 3, seed=1)
    arguments = {"gram": training_gram(X, "rbf"), "y": y, **arguments}
    with pytest.raises((ValueError, TypeError), match=match):
        run_kernel_perceptron(**arguments)
