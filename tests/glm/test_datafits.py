"""The datafits and the objectives they make: values against losses.py and textbook
formulas, gradients and Hessian-vector products against finite differences, blocks that add up
to the whole, and curvature blocks that are the Hessian's diagonal blocks."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from _datasets import FORMATS, in_format, noisy
from _glm_reference import (
    LOSSES,
    datafit,
    dense,
    naive_sgd_epoch,
    objective,
    problem,
    reference_value,
)
from numpy.testing import assert_allclose, assert_array_equal
from scipy.special import logsumexp

from halfspaces._fast import logistic as fast_logistic
from halfspaces._fast import loop_input
from halfspaces._glm import datafits as datafits
from halfspaces._glm.datafits import (
    Block,
    Logistic,
    Softmax,
    Squared,
    _weighted_diagonal,
    gram_cost,
)
from halfspaces.losses import get_loss


@pytest.mark.parametrize("c", [1.0, 0.0])
@pytest.mark.parametrize("fmt", ["dense64", "csr32"])
@pytest.mark.parametrize("loss", LOSSES)
def test_block_value_is_the_pointwise_loss_summed(loss, fmt, c):
    X, y, w, k = problem(loss, fmt, seed=21)
    value, grad = datafit(loss, k).value_grad_block(X, y, w, c)
    A = np.hstack([dense(X), np.full((X.shape[0], 1), c)])
    if loss == "softmax":
        Z = A @ w.reshape(k, -1).T
        expected = np.sum(logsumexp(Z, axis=1) - Z[np.arange(len(y)), y])
    elif loss == "logistic":
        expected = get_loss("logistic").value(y * (A @ w)).sum()
        # the gradient is sum_i y_i ell'(y_i z_i) x'_i, ell' from losses.py
        margin = y * (A @ w)
        assert_allclose(grad, A.T @ (y * get_loss("logistic").derivative(margin)),
                        rtol=1e-10, atol=1e-12)
    else:
        expected = 0.5 * np.sum((A @ w - y) ** 2)
    assert_allclose(value, expected, rtol=1e-12)


def test_squared_datafit_on_plus_minus_one_targets_is_the_margin_form_of_losses_py():
    X, y = noisy(80, 4, seed=22)
    w = np.random.default_rng(22).normal(size=5)
    value, grad = Squared().value_grad_block(X, y, w, 1.0)
    A = np.hstack([X, np.ones((80, 1))])
    margin = y * (A @ w)
    squared = get_loss("squared")
    assert_allclose(value, squared.value(margin).sum(), rtol=1e-12)
    assert_allclose(grad, A.T @ (y * squared.derivative(margin)), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("fmt", ["dense64", "csr64"])
@pytest.mark.parametrize("loss", LOSSES)
def test_blocks_add_up_to_the_whole(loss, fmt):
    X, y, w, k = problem(loss, fmt, seed=23, n=101)
    fit = datafit(loss, k)
    whole = fit.value_grad_block(X, y, w, 1.0)
    parts = [fit.value_grad_block(X[a:b], y[a:b], w, 1.0)
             for a, b in ((0, 17), (17, 60), (60, 101))]
    assert_allclose(sum(v for v, _ in parts), whole[0], rtol=1e-12)
    assert_allclose(sum(g for _, g in parts), whole[1], rtol=1e-10, atol=1e-12)
    # and the objective is the sum over N plus the penalty
    obj = objective(X, y, 0.2, True, loss, k)
    pen = obj.penalised() * w
    assert_allclose(obj.value(w), whole[0] / X.shape[0] + 0.1 * pen @ pen, rtol=1e-12)


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("loss", LOSSES)
def test_value_and_gradient_match_formula_and_finite_differences(loss, fmt):
    X, y, w, k = problem(loss, fmt)
    obj = objective(X, y, 0.3, True, loss, k)
    value, grad = obj.value_grad(w)
    assert_allclose(value, reference_value(X, y, w, 0.3, loss, k), rtol=1e-12)
    h = 1e-6
    numeric = [(reference_value(X, y, w + h * e, 0.3, loss, k)
                - reference_value(X, y, w - h * e, 0.3, loss, k)) / (2 * h)
               for e in np.eye(w.size)]
    assert_allclose(grad, numeric, rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("fmt", ["dense64", "csr32"])
@pytest.mark.parametrize("loss", LOSSES)
def test_hessian_products_match_finite_differences_and_the_full_hessian(loss, fmt):
    X, y, w, k = problem(loss, fmt, seed=1)
    obj = objective(X, y, 0.1, True, loss, k)
    v = np.random.default_rng(2).normal(size=w.size)
    if loss == "softmax":  # stay off the direction the softmax ignores
        V = v.reshape(k, -1)
        V[:, -1] -= V[:, -1].mean()
    h = 1e-6
    numeric = (obj.value_grad(w + h * v)[1] - obj.value_grad(w - h * v)[1]) / (2 * h)
    product = obj.hess_operator(w)(v)
    assert_allclose(product, numeric, rtol=1e-6, atol=1e-8)
    assert_allclose(obj.hessian(w) @ v, product, rtol=1e-10, atol=1e-12)


def full_hessian(obj, w):
    """The Hessian from Hessian-vector products (checked against finite differences above)."""
    product = obj.hess_operator(w)
    return np.column_stack([product(e) for e in np.eye(w.size)])


@pytest.mark.parametrize("fmt", ["dense64", "csr32"])
@pytest.mark.parametrize("loss", LOSSES)
def test_whitening_blocks_are_the_hessians_diagonal_blocks(loss, fmt):
    X, y, w, k = problem(loss, fmt, seed=14)
    obj = objective(X, y, 0.05, True, loss, k)
    blocks = obj.feature_curvature(w)
    H = full_hessian(obj, w)
    d1 = X.shape[1] + 1
    penalty = 0.05 * (np.arange(d1) < d1 - 1)
    for a in range(k):
        # plus a ridge of 1e-6 times each slot's own data curvature
        ridge = 1e-6 * (np.diag(H)[a * d1:(a + 1) * d1] - penalty)
        expected = H[a * d1:(a + 1) * d1, a * d1:(a + 1) * d1] + np.diag(ridge)
        assert_allclose(blocks[a], expected, rtol=1e-9, atol=1e-12)
    assert_allclose(obj.feature_curvature(w, diagonal=True),
                    [np.diag(B) for B in blocks], rtol=1e-12)


@pytest.mark.parametrize("loss", LOSSES)
def test_curvature_is_the_second_derivative_of_the_loss(loss):
    X, y, w, k = problem(loss, "dense64", seed=24, n=30)
    fit = datafit(loss, k)
    h = fit.curvature(Block.of(X, y, 1.0), w)
    assert h.shape == (k, 30)
    # along score a of row i alone, d^2/dz^2 of the loss by finite differences
    A = np.hstack([X, np.ones((30, 1))])
    Z = (A @ w.reshape(k, -1).T).T
    step = 1e-4
    for i in range(0, 30, 7):
        for a in range(k):
            def loss_at(shift, i=i, a=a):
                z = Z[:, i].copy()
                z[a] += shift
                if loss == "softmax":
                    return logsumexp(z) - z[y[i]]
                if loss == "logistic":
                    return get_loss("logistic").value(y[i] * z[0])
                return 0.5 * (z[0] - y[i]) ** 2
            numeric = (loss_at(step) - 2 * loss_at(0.0) + loss_at(-step)) / step ** 2
            assert_allclose(h[a, i], numeric, rtol=1e-5, atol=1e-7)


def test_tall_dense_data_average_the_curvature_over_a_fixed_sample():
    # n >= 400 (d + 1): the Hessian and the whitening blocks come from max(100 d', n / 20) rows
    X, y = noisy(2400, 4, seed=25, flip=0.2)
    obj = objective(X, y, 1e-3, True, "logistic")
    sample = obj.curvature_rows()
    assert sample.X.shape == (500, 4) and sample is obj.curvature_rows()
    rows = np.array([np.flatnonzero((X == row).all(axis=1))[0] for row in sample.X])
    assert np.all(np.diff(rows) > 0)
    w = np.random.default_rng(25).normal(size=5) * 0.3
    on_sample = objective(X[rows], y[rows], 1e-3, True, "logistic")
    assert_allclose(obj.hessian(w), on_sample.hessian(w), rtol=1e-12)
    assert_allclose(obj.feature_curvature(w), on_sample.feature_curvature(w), rtol=1e-12)
    # sparse input, and dense with fewer rows, use all of them
    assert objective(in_format(X, "csr64"), y, 1e-3, True, "logistic").curvature_rows().X \
        .shape[0] == 2400
    assert objective(X[:1999], y[:1999], 1e-3, True, "logistic").curvature_rows().X \
        .shape[0] == 1999


def test_datafits_describe_themselves():
    assert Logistic().curvature_bound == 0.25 and Squared().curvature_bound == 1.0
    assert Softmax(4).n_outputs == 4 and Softmax(4).shape(3) == (4, 4)
    assert Logistic().shape(3) == (4,) and not Logistic().shift_invariant
    assert Softmax(3).shift_invariant


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("loss", LOSSES)
def test_gradient_scales_are_the_columns_largest_entries_capped_at_one(loss, fmt):
    X, y, _, k = problem(loss, "dense64", seed=26)
    X = X * np.array([1e-7, 3.0, 0.25, 0.0, 1.0, -2e-3])  # tiny, large, zero and negative
    obj = objective(in_format(X, fmt), y, 0.1, True, loss, k)
    column = np.abs(in_format(X, fmt).toarray() if fmt.startswith("csr") else
                    in_format(X, fmt)).max(axis=0).astype(np.float64)
    per_class = np.r_[np.where(column > 0, np.minimum(column, 1.0), 1.0), 1.0]
    assert_allclose(obj.scales(), np.tile(per_class, k), rtol=0)
    assert obj.max_abs == column.max()
    # the rule |g_j| <= tol s_j: the same verdict on (X D, g D) for every D <= 1
    g = np.random.default_rng(26).normal(size=obj.size) * np.tile(per_class, k)
    assert obj.stationary(g, 3.0 * np.abs(g / obj.scales()).max())
    assert not obj.stationary(g, 0.5 * np.abs(g / obj.scales()).max())


@pytest.mark.parametrize("loss", LOSSES)
def test_whitening_blocks_scale_with_the_features(loss):
    # B(X D) = D' B(X) D' (D' = diag(D, 1)), ridge included: L-BFGS whitened by B sees the
    # same problem at every feature scale (a ridge relative to the mean diagonal did not)
    X, y, w, k = problem(loss, "dense64", seed=27)
    D = np.array([1e-8, 1e-3, 1.0, 1e4, 2.0, 0.5])
    base = objective(X, y, 0.0, True, loss, k).feature_curvature(w)
    W = w.reshape(k, -1) / np.r_[D, 1.0]  # the same scores on X D
    scaled = objective(X * D, y, 0.0, True, loss, k).feature_curvature(W.ravel())
    D1 = np.r_[D, 1.0]
    assert_allclose(scaled, base * D1[:, None] * D1[None, :], rtol=1e-9)


@pytest.mark.parametrize("fmt", ["dense64", "csr32"])
@pytest.mark.parametrize("loss,batch", [("logistic", 3), ("softmax", 1), ("softmax", 4)])
def test_sgd_epoch_of_each_datafit_is_the_plain_loop(loss, batch, fmt):
    # through the datafit's own interface (its scratch, its reshaping of the k x d' block),
    # against mini-batch SGD written from the definition
    X, y, w, k = problem(loss, fmt, seed=31, n=40, d=5)
    order = np.random.default_rng(31).permutation(40).astype(np.intp)
    w, u = w.copy(), np.zeros_like(w)
    expected_w, expected_mean = naive_sgd_epoch(X, y, w.copy(), order, batch, 0.02, 0.1,
                                                loss, k)
    opts = (0.02, float(fast_logistic.CONSTANT), 0.1, 0.5)
    t, n_avg = datafit(loss, k).sgd_epoch(Block.of(X, y, 1.0), w, u, 0, order, batch, opts, 0)
    assert t == n_avg == -(-40 // batch)
    assert_allclose(w, expected_w, rtol=1e-10, atol=1e-12)
    assert_allclose(u, expected_mean, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("c", [1.0, 0.0, 2.5])
@pytest.mark.parametrize("signs", ["nonnegative", "mixed"])
@pytest.mark.parametrize("fmt", FORMATS)
def test_weighted_gram_and_its_diagonal_are_the_definition(fmt, signs, c, monkeypatch):
    # dense rows go in blocks of _BLOCK (7 here: five blocks, the last short), by SYRK when
    # every weight is >= 0 and by GEMM otherwise; CSR by the compiled loop
    monkeypatch.setattr(datafits, "_BLOCK", 7)
    X, _ = noisy(33, 4, seed=32, sparsity=0.4)
    X = in_format(X, fmt)
    rng = np.random.default_rng(32)
    h = rng.random(33) + 0.1
    if signs == "mixed":
        h[::3] *= -1
    K = loop_input(X)
    A = np.hstack([dense(X).astype(np.float64), np.full((33, 1), c)])
    expected = A.T @ (A * h[:, None])
    assert_allclose(datafits.weighted_gram(X, K, h, c), expected, rtol=1e-12, atol=1e-12)
    assert_allclose(datafits._weighted_diagonal(X, K, h, c), np.diag(expected), rtol=1e-12,
                    atol=1e-12)


def test_gram_cost_counts_the_multiply_adds_of_a_weighted_gram():
    # n d'^2 / 2 dense; sum over rows of nnz_i^2 / 2 for CSR (rows of 2, 0 and 3 entries)
    X = np.array([[1.0, 0.0, 2.0], [0.0, 0.0, 0.0], [3.0, 4.0, 5.0]])
    assert datafits.gram_cost(X, loop_input(X)) == 3 * 4**2 / 2
    A = sp.csr_matrix(X)
    assert datafits.gram_cost(A, loop_input(A)) == (4 + 0 + 9) / 2


@pytest.mark.parametrize("c", [1.0, 0.0])
@pytest.mark.parametrize("fmt", ["dense64", "csr32"])
def test_softmax_hessian_over_several_blocks_of_rows_is_the_whole(fmt, c, monkeypatch):
    # 50 entries a block: two rows of A (k d' = 3 x 7 = 21 products each), so 60 blocks;
    # against the datafit's own Hessian-vector products, column by column
    X, y, w, k = problem("softmax", fmt, seed=33)
    rows, softmax = Block.of(X, y, c), Softmax(k)
    product = softmax.hess_operator(rows, w)
    columns = np.column_stack([product(e) for e in np.eye(w.size)])
    whole = softmax.hessian(rows, w)
    monkeypatch.setattr(datafits, "SOFTMAX_BLOCK_ENTRIES", 50)
    blocks = softmax.hessian(rows, w)
    assert_allclose(blocks, columns, rtol=1e-10, atol=1e-12)
    assert_allclose(blocks, whole, rtol=1e-12, atol=1e-13)


# -- edge cases: empty blocks, long CSR rows, float32 squares --------------------------------------
def test_the_softmax_hessian_of_an_empty_block_is_zero():
    # a Dask partition may be empty ("empty blocks ... contribute nothing"): its Hessian
    # sum is the zero matrix of the parameters' size
    k, d = 3, 2
    b = Block.of(np.empty((0, d)), np.empty(0, dtype=np.intp), 1.0)
    w = np.random.default_rng(0).normal(size=k * (d + 1))
    H = Softmax(k).hessian(b, w)
    assert_array_equal(H, np.zeros((k * (d + 1), k * (d + 1))))


def test_gram_cost_of_a_csr_row_longer_than_46341_entries():
    # sum_i nnz_i^2 / 2: with SciPy's int32 indptr, 50,000^2 overflows int32 unless the
    # squares are taken in float64
    X = sp.csr_matrix(np.ones((1, 50_000)))
    assert X.indptr.dtype == np.int32
    assert gram_cost(X, loop_input(X)) == 50_000.0**2 / 2


def test_the_weighted_diagonal_of_float32_csr_sums_float64_squares():
    # float32 entries 1 + 2^-20 and 3 - 2^-21: their squares need 48 bits; the dense
    # branch squares in float64, and so must the CSR one
    a, b = 1.0 + 2.0**-20, 3.0 - 2.0**-21
    D = np.array([[a, 0.0], [b, a], [0.0, b]])
    X = sp.csr_matrix(D.astype(np.float32))
    h = np.array([0.5, 2.0, 1.25])
    expected = np.r_[h @ D**2, 1.0 * h.sum()]  # D holds the float32 values exactly
    assert_allclose(_weighted_diagonal(X, loop_input(X), h, 1.0), expected, rtol=1e-15)


def test_the_weighted_diagonal_of_csr_with_empty_last_columns():
    # columns 2 and 3 hold no entry: their diagonal slots are 0, the intercept's sum h c^2
    D = np.array([[1.0, 2.0, 0.0, 0.0], [0.0, -1.0, 0.0, 0.0]])
    X = sp.csr_matrix(D)
    h = np.array([0.25, 3.0])
    out = _weighted_diagonal(X, loop_input(X), h, 2.0)
    assert_allclose(out, [0.25, 0.25 * 4 + 3.0, 0.0, 0.0, 4.0 * 3.25], rtol=1e-15)
