"""KernelPerceptron against its slow twin, the primal Perceptron, and the kernels' formulas."""

from __future__ import annotations

import re
import warnings

import _naive_kernel as naive
import numpy as np
import pytest
import scipy.sparse as sp
from _datasets import FORMATS, in_format, noisy, separable
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.base import clone
from sklearn.datasets import make_blobs, make_circles

from halfspaces import ConvergenceWarning, KernelPerceptron, Perceptron, VotedKernelPerceptron
from halfspaces.kernel import kernel_matrix

KERNEL_PARAMS = {
    "linear": {},
    "poly": dict(degree=2, gamma=0.5, coef0=1.0),
    "rbf": dict(gamma=0.3),
    "sigmoid": dict(gamma=0.05, coef0=0.2),
}


def quiet_fit(estimator, X, y):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return estimator.fit(X, y)


def integer_data(n=120, d=5, seed=0, flip=0.0):
    """Small integers: every sum is exact, so primal and dual runs agree bit for bit."""
    rng = np.random.default_rng(seed)
    X = rng.integers(-3, 4, size=(n, d)).astype(np.float64)
    y = np.where(X @ rng.normal(size=d) + 0.4 > 0, 1.0, -1.0)
    return X, np.where(rng.random(n) < flip, -y, y)


def signed_alpha(clf, y):
    return clf.alpha_ * np.where(y == clf.classes_[1], 1.0, -1.0)


# ---------------------------------------------------------------- the kernel functions

@pytest.mark.parametrize("name", list(KERNEL_PARAMS))
@pytest.mark.parametrize("fmt", FORMATS)
def test_kernel_matrix_equals_formula(name, fmt):
    rng = np.random.default_rng(1)
    A, B = rng.normal(size=(7, 4)), rng.normal(size=(5, 4))
    B[B < -0.5] = 0.0
    K = kernel_matrix(in_format(A, fmt), in_format(B, fmt), name, **KERNEL_PARAMS[name])
    expected = naive.kernel(in_format(A, fmt), in_format(B, fmt), name, **KERNEL_PARAMS[name])
    assert K.dtype == np.float64
    assert_allclose(K, expected, rtol=1e-6 if "32" in fmt else 1e-12)


def test_gamma_none_means_one_over_n_features():
    X = np.random.default_rng(2).normal(size=(6, 8))
    assert_allclose(kernel_matrix(X, X, "rbf"), naive.kernel(X, X, "rbf", gamma=1 / 8))


@pytest.mark.parametrize("name", ["rbf", "poly", "sigmoid"])
def test_default_gamma_of_the_estimator_is_one_over_n_features(name):
    from sklearn.metrics.pairwise import polynomial_kernel, rbf_kernel, sigmoid_kernel

    sklearn_kernel = {"rbf": rbf_kernel, "poly": polynomial_kernel, "sigmoid": sigmoid_kernel}
    X, y = noisy(60, 5, seed=22)
    X_test = np.random.default_rng(23).normal(size=(40, 5))
    default = quiet_fit(KernelPerceptron(kernel=name, max_epochs=5), X, y)
    explicit = quiet_fit(KernelPerceptron(kernel=name, gamma=1 / 5, max_epochs=5), X, y)
    assert_array_equal(default.alpha_, explicit.alpha_)
    assert_array_equal(default.decision_function(X_test), explicit.decision_function(X_test))
    # scikit-learn's kernels with their own default gamma (also 1 / n_features; degree 3 and
    # coef0 1 as ours): the same run, and the same decision values
    K, K_test = sklearn_kernel[name](X, X), sklearn_kernel[name](X_test, X)
    alpha, n_updates, _, _ = naive.kernel_perceptron(K, y, True, 5)
    assert_array_equal(default.alpha_, alpha)
    assert default.n_updates_ == n_updates
    assert_allclose(default.decision_function(X_test), (K_test + 1.0) @ (alpha * y),
                    rtol=1e-9, atol=1e-9)
    other = quiet_fit(KernelPerceptron(kernel=name, gamma=1.0, max_epochs=5), X, y)
    assert not np.allclose(other.decision_function(X_test), default.decision_function(X_test))


@pytest.mark.parametrize("A, B, kernel, match", [
    # each of these returned a silent answer or a bare NumPy error
    (np.ones((2, 3)), np.ones((2, 3)), "bogus",
     r"'kernel' parameter .* among .*'rbf'.* Got 'bogus'"),  # was gamma <a, b> + coef0
    (np.ones((2, 2, 2)), np.ones((2, 2)), "linear", "dim 3"),  # was a 3-D "matrix"
    (np.ones((2, 2)) * 1j, np.ones((2, 2)), "linear", "Complex"),  # was the real parts' K
    (np.ones(3), np.ones(3), "linear", "Expected 2D array"),  # was an IndexError
    (np.ones((2, 0)), np.ones((2, 0)), "rbf", "gamma=None .* 0 features"),  # ZeroDivisionError
    (np.ones((2, 3)), np.ones((4, 5)), "rbf", "A has 3 features and B has 5"),  # matmul's
    (np.ones((2, 3)), sp.csr_matrix(np.ones((4, 5))), "poly", "A has 3 features"),
    (np.array([[1.0, np.nan]]), np.ones((2, 2)), "rbf", "A contains NaN"),
])
def test_kernel_matrix_refuses_what_it_cannot_compute(A, B, kernel, match):
    with pytest.raises(ValueError, match=match):
        kernel_matrix(A, B, kernel)


@pytest.mark.parametrize("params, name", [(dict(gamma=-1.0), "gamma"), (dict(degree=-1), "degree"),
                                          (dict(coef0=np.inf), "coef0")])
def test_kernel_matrix_parameters_are_checked_by_name(params, name):
    with pytest.raises(ValueError, match=f"'{name}' parameter of kernel_matrix"):
        kernel_matrix(np.ones((2, 3)), np.ones((2, 3)), "poly", **params)


def test_kernel_matrix_of_zero_features_with_an_explicit_gamma_is_the_constant_kernel():
    A, B = np.ones((2, 0)), np.ones((3, 0))
    assert_array_equal(kernel_matrix(A, B, "rbf", gamma=0.5), np.ones((2, 3)))
    assert_array_equal(kernel_matrix(A, B), np.zeros((2, 3)))
    assert_array_equal(kernel_matrix(A, B, "poly", gamma=1.0, coef0=2.0, degree=2),
                       np.full((2, 3), 4.0))


# ---------------------------------------------------------------- the slow twin

@pytest.mark.parametrize("name", list(KERNEL_PARAMS))
@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("fit_intercept", [True, False])
def test_equals_twin(name, fmt, fit_intercept):
    X, y = noisy(60, 4, seed=5, sparsity=0.3)
    Xf = in_format(X, fmt)
    params = KERNEL_PARAMS[name]
    clf = quiet_fit(KernelPerceptron(kernel=name, fit_intercept=fit_intercept, max_epochs=6,
                                     **params), Xf, y)
    K = naive.kernel(Xf, Xf, name, **params)
    alpha, n_updates, n_epochs, converged = naive.kernel_perceptron(K, y, fit_intercept, 6)
    assert_array_equal(clf.alpha_, alpha)
    assert (clf.n_updates_, clf.n_epochs_, clf.converged_) == (n_updates, n_epochs, converged)
    X_test = in_format(np.random.default_rng(6).normal(size=(40, 4)), fmt)
    K_test = naive.kernel(X_test, Xf, name, **params) + float(fit_intercept)
    assert_allclose(clf.decision_function(X_test),
                    K_test @ (alpha * y), rtol=1e-9, atol=1e-9)


def test_shuffle_equals_twin_with_the_same_permutations():
    X, y = noisy(80, 3, seed=8)
    clf = quiet_fit(KernelPerceptron(kernel="rbf", gamma=0.5, selection="shuffle",
                                     random_state=3, max_epochs=5), X, y)
    K = naive.kernel(X, X, "rbf", gamma=0.5)
    alpha, n_updates, _, _ = naive.kernel_perceptron(K, y, True, 5, "shuffle",
                                                     np.random.RandomState(3))
    assert_array_equal(clf.alpha_, alpha)
    assert clf.n_updates_ == n_updates


@pytest.mark.parametrize("cache_size", [0.0005, 0.004, 0.02])
def test_row_blocks_give_the_cached_run(cache_size):
    # 0.0005 MB holds one row of 300 examples: every fetch empties the cache
    X, y = noisy(300, 4, seed=9)
    cached = quiet_fit(KernelPerceptron(kernel="rbf", gamma=1.0, max_epochs=8), X, y)
    blocks = quiet_fit(KernelPerceptron(kernel="rbf", gamma=1.0, max_epochs=8,
                                        cache_size=cache_size), X, y)
    assert_array_equal(blocks.alpha_, cached.alpha_)
    assert blocks.n_updates_ == cached.n_updates_
    X_test = np.random.default_rng(1).normal(size=(50, 4))
    assert_allclose(blocks.decision_function(X_test), cached.decision_function(X_test))


# ---------------------------------------------------------------- the primal perceptron

@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("fit_intercept", [True, False])
@pytest.mark.parametrize("selection", ["cyclic", "shuffle"])
@pytest.mark.parametrize("flip", [0.0, 0.1])
def test_linear_kernel_is_the_perceptron_exactly(fmt, fit_intercept, selection, flip):
    X, y = integer_data(seed=11, flip=flip)
    X = in_format(X, fmt)
    common = dict(fit_intercept=fit_intercept, max_epochs=30, selection=selection,
                  random_state=4)
    dual = quiet_fit(KernelPerceptron(**common), X, y)
    primal = quiet_fit(Perceptron(**common), X, y)
    assert (dual.n_updates_, dual.n_epochs_, dual.converged_) == (
        primal.n_updates_, primal.n_epochs_, primal.converged_)
    assert_array_equal(signed_alpha(dual, y) @ naive.dense(X), primal.coef_.ravel())
    assert_array_equal(dual.intercept_, primal.intercept_)
    X_test = in_format(np.random.default_rng(12).integers(-4, 5, size=(200, 5)), fmt)
    assert_array_equal(dual.predict(X_test), primal.predict(X_test))
    assert_array_equal(dual.decision_function(X_test), primal.decision_function(X_test))


def test_linear_kernel_on_real_valued_data_matches_perceptron():
    X, y, _, _ = separable(200, 6, seed=13)
    dual, primal = KernelPerceptron().fit(X, y), Perceptron().fit(X, y)
    assert dual.n_updates_ == primal.n_updates_ and dual.converged_
    assert_allclose(signed_alpha(dual, y) @ X, primal.coef_.ravel(), rtol=1e-12, atol=1e-12)
    assert dual.intercept_[0] == primal.intercept_[0]
    X_test = np.random.default_rng(14).normal(size=(300, 6))
    assert_array_equal(dual.predict(X_test), primal.predict(X_test))


def test_one_vs_rest_is_perceptrons_one_vs_rest():
    X, y = integer_data(150, 4, seed=15)
    y = np.digitize(X @ np.array([1.0, -0.5, 0.3, 0.2]), [-1.5, 1.5])  # three classes
    dual = quiet_fit(KernelPerceptron(max_epochs=20), X, y)
    primal = quiet_fit(Perceptron(max_epochs=20), X, y)
    assert_array_equal(dual.n_updates_, primal.n_updates_)
    for k, label in enumerate(dual.classes_):
        signs = np.where(y == label, 1.0, -1.0)
        assert_array_equal((dual.alpha_[k] * signs) @ X, primal.coef_[k])
    assert_array_equal(dual.intercept_, primal.intercept_)
    assert_array_equal(dual.predict(X), primal.predict(X))


# ---------------------------------------------------- the linear kernel runs in the primal

FITTED = ("classes_", "alpha_", "support_", "dual_coef_", "intercept_", "support_vectors_",
          "n_updates_", "n_epochs_", "converged_", "n_features_in_")


def linear_callable(A, B):
    return kernel_matrix(A, B, "linear")  # a callable keeps the dual loop


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("fit_intercept", [True, False])
@pytest.mark.parametrize("selection", ["cyclic", "shuffle"])
@pytest.mark.parametrize("classes", [2, 3])
def test_linear_kernel_fast_path_equals_the_dual_loop(fmt, fit_intercept, selection, classes):
    X, y = integer_data(150, 5, seed=31, flip=0.1)
    if classes == 3:
        y = np.digitize(X @ np.array([1.0, -0.5, 0.3, 0.2, 0.0]), [-1.5, 1.5])
    X = in_format(X, fmt)
    common = dict(fit_intercept=fit_intercept, max_epochs=8, selection=selection,
                  random_state=7)
    fast = quiet_fit(KernelPerceptron(**common), X, y)
    dual = quiet_fit(KernelPerceptron(kernel=linear_callable, **common), X, y)
    assert not fast.converged_ and fast.n_epochs_ == 8  # updates in every pass
    for name in FITTED:
        fast_value, dual_value = getattr(fast, name), getattr(dual, name)
        if sp.issparse(fast_value):
            assert sp.issparse(dual_value)
            fast_value, dual_value = fast_value.toarray(), dual_value.toarray()
        assert_array_equal(fast_value, dual_value, err_msg=name)
    X_test = in_format(np.random.default_rng(32).integers(-4, 5, size=(200, 5)), fmt)
    assert_array_equal(fast.decision_function(X_test), dual.decision_function(X_test))
    assert_array_equal(fast.predict(X_test), dual.predict(X_test))


@pytest.mark.parametrize("selection", ["cyclic", "shuffle"])
def test_run_linear_perceptron_equals_the_compiled_dual_loop_on_a9a(selection):
    from halfspaces._kernel.dual_run import (
        run_kernel_perceptron,
        run_linear_perceptron,
        training_gram,
    )
    from halfspaces.datasets import load_a9a

    X, y = load_a9a()
    X, y = X[:1500], y[:1500]
    gram = training_gram(X, "linear", cache_size=1)  # 87 of 1500 rows: rows evicted
    dual = run_kernel_perceptron(gram, y, positive=1.0, max_epochs=3, selection=selection,
                                 rng=np.random.RandomState(3))
    primal = run_linear_perceptron(X, y, positive=1.0, max_epochs=3, selection=selection,
                                   rng=np.random.RandomState(3))
    assert gram.n_computed > gram.capacity
    assert_array_equal(primal.alpha, dual.alpha)
    assert (primal.n_updates, primal.n_epochs, primal.converged) == (
        dual.n_updates, dual.n_epochs, dual.converged)
    assert primal.n_updates == primal.alpha.sum() > 100


# ---------------------------------------------------------------- precomputed and callable

@pytest.mark.parametrize("name", ["rbf", "poly"])
def test_precomputed_gram_gives_the_same_run(name):
    X, y = noisy(90, 3, seed=16)
    X_test = np.random.default_rng(17).normal(size=(30, 3))
    params = KERNEL_PARAMS[name]
    direct = quiet_fit(KernelPerceptron(kernel=name, max_epochs=10, **params), X, y)
    pre = quiet_fit(KernelPerceptron(kernel="precomputed", max_epochs=10),
                    kernel_matrix(X, X, name, **params), y)
    assert_array_equal(pre.alpha_, direct.alpha_)
    assert (pre.n_updates_, pre.n_epochs_) == (direct.n_updates_, direct.n_epochs_)
    assert_array_equal(pre.support_, direct.support_)
    K_test = kernel_matrix(X_test, X, name, **params)
    assert_allclose(pre.decision_function(K_test), direct.decision_function(X_test))
    assert pre.support_vectors_.size == 0


def test_callable_kernel_gives_the_named_kernels_run():
    X, y = noisy(70, 3, seed=18)
    named = quiet_fit(KernelPerceptron(kernel="rbf", gamma=0.7, max_epochs=5), X, y)
    own = quiet_fit(KernelPerceptron(kernel=lambda A, B: naive.kernel(A, B, "rbf", gamma=0.7),
                                     max_epochs=5), X, y)
    assert_array_equal(own.alpha_, named.alpha_)


# ---------------------------------------------------------------- non-linear surfaces

XOR_X = np.array([[0.0, 0.0], [1.0, 1.0], [0.0, 1.0], [1.0, 0.0]])
XOR_Y = np.array([0, 0, 1, 1])


@pytest.mark.parametrize("params", [dict(kernel="rbf", gamma=1.0),
                                    dict(kernel="poly", degree=2, gamma=1.0)])
def test_xor_is_learned(params):
    X = np.vstack([XOR_X + 0.05 * np.random.default_rng(k).normal(size=(4, 2))
                   for k in range(10)])
    y = np.tile(XOR_Y, 10)
    clf = KernelPerceptron(**params).fit(X, y)
    assert clf.converged_
    assert (clf.predict(X) == y).all()
    assert not quiet_fit(Perceptron(max_epochs=50), X, y).converged_  # not linearly separable


@pytest.mark.parametrize("params", [dict(kernel="rbf", gamma=2.0),
                                    dict(kernel="poly", degree=2, gamma=1.0)])
@pytest.mark.parametrize("fmt", FORMATS)
def test_concentric_circles_are_learned(params, fmt):
    X, y = make_circles(300, factor=0.4, noise=0.05, random_state=0)
    clf = KernelPerceptron(**params).fit(in_format(X, fmt), y)
    assert clf.converged_
    assert (clf.predict(in_format(X, fmt)) == y).all()


# ---------------------------------------------------------------- formats and attributes

def test_every_format_gives_the_same_run():
    X, y = noisy(100, 5, seed=19, sparsity=0.4)
    X = X.astype(np.float32).astype(np.float64)  # representable in float32 exactly
    runs = [quiet_fit(KernelPerceptron(kernel="rbf", gamma=0.4, max_epochs=6),
                      in_format(X, fmt), y) for fmt in FORMATS]
    for run in runs[1:]:
        assert_array_equal(run.alpha_, runs[0].alpha_)
        assert_allclose(run.decision_function(X), runs[0].decision_function(X), rtol=1e-6)


def test_fitted_attributes_describe_the_dual_expansion():
    X, y = make_blobs(120, centers=3, random_state=2)
    clf = quiet_fit(KernelPerceptron(kernel="rbf", gamma=0.5), X, y)
    assert clf.alpha_.shape == (3, 120)
    assert_array_equal(clf.support_, np.flatnonzero(clf.alpha_.sum(axis=0)))
    assert_array_equal(clf.support_vectors_, X[clf.support_])
    signs = np.where(y[clf.support_] == clf.classes_[:, None], 1.0, -1.0)
    assert_array_equal(clf.dual_coef_, clf.alpha_[:, clf.support_] * signs)
    assert_array_equal(clf.intercept_, clf.dual_coef_.sum(axis=1))
    assert_array_equal(clf.n_updates_, clf.alpha_.sum(axis=1))
    assert clf.decision_function(X).shape == (120, 3)
    assert (clf.predict(X) == y).mean() == 1.0


def test_string_labels():
    clf = KernelPerceptron(kernel="rbf", gamma=1.0).fit(XOR_X, np.array(["a", "a", "b", "b"]))
    assert_array_equal(clf.predict(XOR_X), ["a", "a", "b", "b"])


# ---------------------------------------------------------------- errors and warnings

@pytest.mark.parametrize("params, name", [
    (dict(kernel="gaussian"), "kernel"),
    (dict(gamma=-1.0), "gamma"),
    (dict(degree=-2), "degree"),
    (dict(cache_size=0), "cache_size"),
    (dict(max_epochs=0), "max_epochs"),
    (dict(selection="worst"), "selection"),
])
def test_bad_parameters_name_themselves(params, name):
    with pytest.raises(ValueError, match=f"'{name}' parameter"):
        KernelPerceptron(**params).fit(XOR_X, XOR_Y)


@pytest.mark.parametrize("cls", [KernelPerceptron, VotedKernelPerceptron])
@pytest.mark.parametrize("params, name", [
    (dict(kernel="bogus"), "kernel"),  # was a KeyError
    (dict(cache_size=np.nan), "cache_size"),  # was "cannot convert float NaN to integer"
    (dict(degree=-3), "degree"),  # was accepted
    (dict(gamma="x"), "gamma"),
])
def test_parameters_set_between_partial_fit_calls_name_themselves(cls, params, name):
    clf = cls(kernel="poly").partial_fit(XOR_X, XOR_Y)
    with pytest.raises(ValueError, match=f"'{name}' parameter of {cls.__name__}"):
        clf.set_params(**params).partial_fit(XOR_X, XOR_Y)


def test_precomputed_needs_a_square_gram_matrix():
    with pytest.raises(ValueError, match="square Gram matrix"):
        KernelPerceptron(kernel="precomputed").fit(np.ones((4, 3)), XOR_Y)


def test_callable_with_the_wrong_shape_is_reported():
    # (a block of rows against the 4 training rows: how many rows depends on the block)
    with pytest.raises(ValueError, match=r"kernel\(A, B\) must return shape \(\d, 4\)"):
        KernelPerceptron(kernel=lambda A, B: np.ones((2, 2))).fit(XOR_X, XOR_Y)


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_a_callable_kernel_returning_nan_or_inf_is_named(bad):
    # a NaN from the kernel was reported as "the kernel values are too large: rescale X"
    def kernel(A, B):
        K = A @ B.T
        K[K.shape[0] - 1, 2] = bad
        return K

    with pytest.raises(ValueError, match=rf"returned {bad} for rows \d+ and 2 of its inputs"):
        KernelPerceptron(kernel=kernel).fit(XOR_X, XOR_Y)
    fitted = quiet_fit(KernelPerceptron(kernel=lambda A, B: A @ B.T, max_epochs=2), XOR_X, XOR_Y)
    fitted.set_params(kernel=kernel)
    with pytest.raises(ValueError, match=rf"returned {bad} for rows"):
        fitted.decision_function(XOR_X)


@pytest.mark.parametrize("bad", [np.nan, np.inf])
def test_non_finite_input_is_rejected(bad):
    X = XOR_X.copy()
    X[2, 1] = bad
    with pytest.raises(ValueError, match="NaN|infinity"):
        KernelPerceptron().fit(X, XOR_Y)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # NumPy scalars, NUMBA_DISABLE_JIT=1
def test_overflowing_kernel_values_are_reported():
    X = np.array([[1e200, 0.0], [-1e200, 1.0]])
    with pytest.raises(ValueError, match="overflowed"):
        KernelPerceptron().fit(X, [0, 1])


def test_warns_when_not_converged():
    X, y = noisy(60, 3, seed=20)
    with pytest.warns(ConvergenceWarning, match="max_epochs=3"):
        clf = KernelPerceptron(max_epochs=3).fit(X, y)
    assert not clf.converged_ and clf.n_epochs_ == 3


def test_sparse_precomputed_matrix_is_accepted():
    X, y = noisy(40, 3, seed=21)
    K = kernel_matrix(X, X, "rbf", gamma=0.5)
    dense = quiet_fit(KernelPerceptron(kernel="precomputed", max_epochs=4), K, y)
    sparse = quiet_fit(KernelPerceptron(kernel="precomputed", max_epochs=4), sp.csr_matrix(K), y)
    assert_array_equal(sparse.alpha_, dense.alpha_)


def test_row_cache_evicts_the_least_recently_used_row():
    from halfspaces._kernel.gram import GramRows

    X = np.arange(15.0).reshape(5, 3)
    linear = (0, 0.0, 0.0, 0.0, 1.0)  # (kind, gamma, coef0, degree, c)
    gram = GramRows(X, cache_size=2 * 5 * 8 / 2**20, spec=linear)  # room for two rows
    assert gram.capacity == 2 and (gram.slot == -1).all()
    gram.fetch(3)
    gram.fetch(0)
    assert_array_equal(gram.slot, [1, -1, -1, 0, -1])
    gram.last_use[:] = [9, 3, 9]  # slot 1 (row 0) was used longest ago; the clock is last
    gram.fetch(2)
    assert_array_equal(gram.slot, [-1, -1, 1, 0, -1])
    assert_array_equal(gram.K[1], X[2] @ X.T + 1.0)
    assert gram.n_computed == 3


def test_linear_kernel_is_the_perceptron_on_a9a():
    from halfspaces.datasets import load_a9a

    X, y = load_a9a()
    X, y = X[:1500], y[:1500]
    dual = quiet_fit(KernelPerceptron(max_epochs=3, cache_size=1), X, y)  # rows evicted
    primal = quiet_fit(Perceptron(max_epochs=3), X, y)
    assert dual.n_updates_ == primal.n_updates_
    assert_array_equal(signed_alpha(dual, y) @ X.toarray(), primal.coef_.ravel())
    assert_array_equal(dual.intercept_, primal.intercept_)


# ---------------------------------------------------------------- theorems and properties

@pytest.mark.parametrize("params", [dict(kernel="rbf", gamma=2.0),
                                    dict(kernel="poly", degree=2, gamma=1.0)])
def test_mistakes_within_novikoff_bound_in_feature_space(params):
    """Novikoff's bound (R/gamma)^2 in the feature space of k + 1 (the constant feature).

    Any separator u there bounds the mistakes; SVC's, u = sum_j a_j phi(x_j) with bias b,
    serves: ||(u, b)||^2 = a^T K a + b^2, margins y_i(sum_j a_j K_ij + b), R^2 = max K_ii + 1.
    """
    from sklearn.svm import SVC

    X, y = make_circles(200, factor=0.4, noise=0.05, random_state=1)
    K = naive.kernel(X, X, params["kernel"], **{k: v for k, v in params.items() if k != "kernel"})
    svc = SVC(kernel="precomputed", C=1e6).fit(K, y)
    a = np.zeros(len(y))
    a[svc.support_] = svc.dual_coef_.ravel()
    b = svc.intercept_[0]
    margins = np.where(y == 1, 1.0, -1.0) * (K @ a + b)
    assert margins.min() > 0  # a separator in feature space
    gamma = margins.min() / np.sqrt(a @ K @ a + b**2)
    R2 = np.max(np.diag(K)) + 1.0
    clf = KernelPerceptron(**params).fit(X, y)
    assert clf.converged_
    assert clf.n_updates_ <= R2 / gamma**2


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 10_000), n=st.integers(2, 30), d=st.integers(1, 4),
       fit_intercept=st.booleans())
def test_linear_kernel_is_the_perceptron_property(seed, n, d, fit_intercept):
    rng = np.random.default_rng(seed)
    X = rng.integers(-3, 4, size=(n, d)).astype(np.float64)
    y = rng.choice([-1.0, 1.0], size=n)
    assume(np.unique(y).size == 2)
    dual = quiet_fit(KernelPerceptron(fit_intercept=fit_intercept, max_epochs=5), X, y)
    primal = quiet_fit(Perceptron(fit_intercept=fit_intercept, max_epochs=5), X, y)
    assert (dual.n_updates_, dual.n_epochs_) == (primal.n_updates_, primal.n_epochs_)
    assert_array_equal(signed_alpha(dual, y) @ X, primal.coef_.ravel())
    assert_array_equal(dual.intercept_, primal.intercept_)


@pytest.mark.parametrize("name, value", [
    ("cache_size", 1e308), ("cache_size", 10**400), ("gamma", 10**400), ("coef0", -(10**400)),
], ids=["cache_size=1e308", "cache_size=10**400", "gamma", "coef0"])
def test_parameters_beyond_their_range_are_refused_by_name(name, value):
    # cache_size = 1e308 was inf bytes (an OverflowError in fit, and at predict for a model
    # file holding it); ints beyond float64 an OverflowError converting them
    X, y, *_ = separable(40, 3, seed=0)
    with pytest.raises(ValueError, match=f"'{name}' parameter of KernelPerceptron"):
        KernelPerceptron(kernel="poly", **{name: value}).fit(X, y)


def test_cache_size_is_at_most_2_to_the_40_megabytes():
    X, y = noisy(60, 3, seed=4)
    default = quiet_fit(KernelPerceptron(kernel="rbf", max_epochs=3), X, y)
    largest = quiet_fit(KernelPerceptron(kernel="rbf", max_epochs=3, cache_size=2**40), X, y)
    assert_array_equal(largest.decision_function(X), default.decision_function(X))
    with pytest.raises(ValueError, match="'cache_size' parameter of KernelPerceptron"):
        KernelPerceptron(kernel="rbf", cache_size=2.0**41).fit(X, y)


@pytest.mark.parametrize("cache_size", [200.0, 1e-6])  # one block, or a block per row
@pytest.mark.parametrize("estimator", [
    KernelPerceptron(kernel="poly"), KernelPerceptron(kernel="poly", average=True),
    VotedKernelPerceptron(kernel="poly"),
], ids=["last", "averaged", "voted"])
def test_kernel_values_that_overflow_at_predict_are_refused_as_at_fit(estimator, cache_size):
    # (<x, s> / 3 + 1)^3 of rows of 1e120 is inf: the scores were NaN and predict gave
    # classes_[0] for them; the votes were finite and meant nothing
    X, y = noisy(40, 3, seed=5)
    with pytest.raises(ValueError, match="kernel values are too large") as at_fit:
        quiet_fit(clone(estimator), X * 1e120, y)
    model = quiet_fit(clone(estimator).set_params(cache_size=cache_size), X, y)
    wanted = model.decision_function(X[:6])
    huge = np.vstack([X[:5], X[5:6] * 1e120])
    message = re.sub(r"row \d+", "row 5", str(at_fit.value))  # fit's message, for row 5
    for method in (model.decision_function, model.predict):
        with pytest.raises(ValueError, match=re.escape(message)):
            method(huge)
    assert_array_equal(model.decision_function(X[:6]), wanted)  # nothing was changed
