"""LogisticRegression: kernels against NumPy/SciPy formulas and finite differences, parity with
scikit-learn's optimum, the solvers' budgets, and the separable-data warning."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from numpy.testing import assert_allclose, assert_array_equal
from scipy.special import expit, logsumexp
from sklearn.datasets import load_digits
from sklearn.linear_model import LogisticRegression as SkLogisticRegression

from _data import FORMATS, SHARED_DATA, in_format, load_a9a, noisy, separable
from halfspaces import ConvergenceWarning, LogisticRegression
from halfspaces._fast import logistic as kl
from halfspaces._objectives import Objective


# -- independent references ------------------------------------------------------------------
def dense(X):
    return np.asarray(X.toarray() if sp.issparse(X) else X, dtype=np.float64)


def reference_value(X, y, w, alpha, loss, k=1):
    """J from the textbook formula in NumPy/SciPy (w flat, as the solvers hold it)."""
    X = dense(X)
    if loss == "softmax":
        W = w.reshape(k, -1)
        Z = X @ W[:, :-1].T + W[:, -1]
        data = np.mean(logsumexp(Z, axis=1) - Z[np.arange(len(y)), y])
        return data + 0.5 * alpha * np.sum(W[:, :-1] ** 2)
    z = X @ w[:-1] + w[-1]
    data = np.mean(np.logaddexp(0.0, -y * z)) if loss == "logistic" else np.mean((z - y) ** 2) / 2
    return data + 0.5 * alpha * w[:-1] @ w[:-1]


def problem(loss, fmt, seed=0, n=120, d=6, k=3):
    X, y = noisy(n, d, seed=seed, sparsity=0.3)
    rng = np.random.default_rng(seed)
    if loss == "softmax":
        y = rng.integers(0, k, n)
    elif loss == "squared":
        y = X @ rng.normal(size=d) + rng.normal(size=n)
    X = in_format(X, fmt)
    size = (d + 1) * (k if loss == "softmax" else 1)
    return X, y, rng.normal(size=size), (k if loss == "softmax" else 1)


LOSSES = ["logistic", "squared", "softmax"]


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("loss", LOSSES)
def test_value_and_gradient_match_formula_and_finite_differences(loss, fmt):
    X, y, w, k = problem(loss, fmt)
    obj = Objective(X, y, 0.3, True, loss, k)
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
    obj = Objective(X, y, 0.1, True, loss, k)
    v = np.random.default_rng(2).normal(size=w.size)
    if loss == "softmax":  # stay off the direction the softmax ignores
        V = v.reshape(k, -1)
        V[:, -1] -= V[:, -1].mean()
    h = 1e-6
    numeric = (obj.value_grad(w + h * v)[1] - obj.value_grad(w - h * v)[1]) / (2 * h)
    product = obj.hess_operator(w)(v)
    assert_allclose(product, numeric, rtol=1e-6, atol=1e-8)
    assert_allclose(obj.hessian(w) @ v, product, rtol=1e-10, atol=1e-12)


# -- the whitening of L-BFGS ------------------------------------------------------------------
def full_hessian(obj, w):
    """The Hessian from Hessian-vector products (checked against finite differences above)."""
    product = obj.hess_operator(w)
    return np.column_stack([product(e) for e in np.eye(w.size)])


@pytest.mark.parametrize("fmt", ["dense64", "csr32"])
@pytest.mark.parametrize("loss", LOSSES)
def test_whitening_blocks_are_the_hessians_diagonal_blocks(loss, fmt):
    X, y, w, k = problem(loss, fmt, seed=14)
    obj = Objective(X, y, 0.05, True, loss, k)
    blocks = obj.feature_curvature(w)
    H = full_hessian(obj, w)
    d1 = X.shape[1] + 1
    penalty = 0.05 * (np.arange(d1) < d1 - 1)
    ridge = 1e-6 * np.mean([np.diag(H)[a * d1:(a + 1) * d1] - penalty for a in range(k)])
    for a in range(k):
        expected = H[a * d1:(a + 1) * d1, a * d1:(a + 1) * d1] + ridge * np.eye(d1)
        assert_allclose(blocks[a], expected, rtol=1e-9, atol=1e-12)
    assert_allclose(obj.feature_curvature(w, diagonal=True),
                    [np.diag(B) for B in blocks], rtol=1e-12)


@pytest.mark.parametrize("at_zero", [False, True])
@pytest.mark.parametrize("diagonal", [False, True])
@pytest.mark.parametrize("loss", ["logistic", "softmax"])
def test_whitening_is_a_change_of_variables_with_the_chain_rule(loss, diagonal, at_zero,
                                                                monkeypatch):
    from halfspaces import _solvers

    monkeypatch.setattr(_solvers, "CHOLESKY_MAX", 1 if diagonal else 2048)
    X, y, w, k = problem(loss, "dense64", seed=15)
    obj = Objective(X, y, 0.05, True, loss, k)
    white = _solvers.Whitening.at(obj, np.zeros_like(w) if at_zero else w)
    assert white.diagonal == diagonal
    # at W = 0 every softmax class has the same block: one factor serves them all
    assert white.inverse.shape[0] == (1 if at_zero or loss == "logistic" else k)
    v = white.to_v(w)
    assert_allclose(white.to_w(v), w, rtol=1e-12, atol=1e-14)
    h = 1e-6  # the gradient of v -> J(w(v)) by central differences
    numeric = [(obj.value(white.to_w(v + h * e)) - obj.value(white.to_w(v - h * e))) / (2 * h)
               for e in np.eye(v.size)]
    assert_allclose(white.grad_v(obj.value_grad(w)[1]), numeric, rtol=1e-6, atol=1e-8)


def test_whitening_blocks_stay_within_their_memory_budget(monkeypatch):
    from halfspaces import _solvers

    X, y, w, k = problem("softmax", "dense64", seed=19)  # 3 classes of 7 slots
    obj = Objective(X, y, 0.05, True, "softmax", k)
    monkeypatch.setattr(_solvers, "WHITEN_MAX", 3 * 7 * 7)
    assert not _solvers.Whitening.at(obj, w).diagonal
    monkeypatch.setattr(_solvers, "WHITEN_MAX", 3 * 7 * 7 - 1)
    assert _solvers.Whitening.at(obj, w).diagonal


@pytest.mark.parametrize("fmt", ["dense64", "csr64"])
@pytest.mark.parametrize("fit_intercept", [True, False])
def test_lbfgs_with_jacobi_whitening_reaches_sklearns_optimum(fmt, fit_intercept, monkeypatch):
    # beyond CHOLESKY_MAX slots L-BFGS whitens by the diagonal alone: force it on small data
    from halfspaces import _solvers

    monkeypatch.setattr(_solvers, "CHOLESKY_MAX", 1)
    X, y = noisy(800, 6, seed=16, flip=0.2, sparsity=0.3)
    X = in_format(X * np.array([1.0, 10.0, 0.1, 3.0, 1.0, 30.0]), fmt)  # badly scaled columns
    ours = LogisticRegression(alpha=1.0 / 800, tol=1e-7, fit_intercept=fit_intercept).fit(X, y)
    assert ours.converged_
    sk = SkLogisticRegression(C=1.0, solver="newton-cholesky", tol=1e-12, max_iter=500,
                              fit_intercept=fit_intercept).fit(dense(X), y)
    assert_same_optimum(ours, sk, dense(X), y, 1.0)


@pytest.mark.parametrize("d,diagonal", [(150, False), (500, True)])
def test_lbfgs_whitening_by_blocks_only_where_they_are_cheap(d, diagonal):
    # dense 1,000 x d: the Gram block costs 1000 (d + 1)^2 / 2 multiply-adds, 100
    # evaluations 100 * 2 * 1000 d; beyond that (d = 500) the diagonal is used
    from halfspaces._solvers import Whitening

    X, y = noisy(1000, d, seed=20, flip=0.1)
    obj = Objective(X, np.where(y > 0, 1.0, -1.0), 1e-3, True, "logistic")
    assert Whitening.at(obj, np.zeros(obj.size)).diagonal == diagonal
    # 1,000 rows in up to 500 dimensions are nearly separable: alpha is the only curvature
    # left, so the coefficients need a tight gradient tolerance (error <= sqrt(d) tol / alpha)
    ours = LogisticRegression(alpha=1e-3, tol=1e-9).fit(X, y)
    assert ours.converged_
    assert_same_optimum(ours, sklearn_optimum(X, y, 1.0), X, y, 1.0)


def test_lbfgs_stops_on_the_gradient_in_the_original_coordinates():
    X, y = noisy(600, 5, seed=17)
    for tol in (1e-3, 1e-5, 1e-7):
        clf = LogisticRegression(alpha=1e-3, tol=tol).fit(X, y)
        obj = Objective(X, np.where(y > 0, 1.0, -1.0), 1e-3, True, "logistic")
        grad = obj.value_grad(np.r_[clf.coef_.ravel(), clf.intercept_])[1]
        assert clf.converged_ and np.max(np.abs(grad)) <= tol


def test_lbfgs_on_rank_deficient_data_without_penalty():
    # a duplicated and a constant column: B is singular but for the whitening's ridge
    X, y = noisy(500, 3, seed=18, flip=0.25)
    X = np.column_stack([X, X[:, 0], np.full(500, 2.0)])
    ours = LogisticRegression(tol=1e-7).fit(X, y)
    # newton-cholesky refuses the singular Hessian; newton-cg solves the same problem
    sk = SkLogisticRegression(C=np.inf, solver="newton-cg", tol=1e-12, max_iter=500).fit(X, y)
    t = np.where(y > 0, 1.0, -1.0)

    def J(est):
        return reference_value(X, t, np.r_[est.coef_.ravel(), est.intercept_], 0.0, "logistic")

    assert ours.converged_
    assert_allclose(J(ours), J(sk), rtol=1e-10)


def test_no_overflow_warnings_at_huge_margins():
    X, y = noisy(200, 4, seed=3)
    with warnings.catch_warnings(), np.errstate(over="raise", invalid="raise", divide="raise"):
        warnings.simplefilter("error", RuntimeWarning)
        for loss in ("logistic", "softmax"):
            labels = (y > 0).astype(np.intp) if loss == "softmax" else y
            obj = Objective(X * 1e6, labels, 0.0, True, loss, 2)
            value, grad = obj.value_grad(np.random.default_rng(0).normal(size=obj.size))
            assert np.isfinite(value) and np.all(np.isfinite(grad)) and value > 1e3
        clf = LogisticRegression(solver="newton", alpha=1e-3).fit(X * 1e6, y)
        proba = clf.predict_proba(X * 1e9)
        assert np.all(np.isfinite(clf.predict_log_proba(X * 1e9)))
    assert_allclose(proba.sum(axis=1), 1.0)


def test_pointwise_loss_is_accurate_in_the_tails():
    for m in (-800.0, -40.0, -1.0, 0.0, 1.0, 40.0, 700.0):
        value, deriv = kl.point_loss_deriv(kl.LOGISTIC, m, 1.0)
        assert_allclose(value, np.logaddexp(0.0, -m), rtol=1e-15, atol=1e-300)
        assert_allclose(deriv, -expit(-m), rtol=1e-15, atol=1e-300)


# -- the stochastic kernels against a plain NumPy twin -----------------------------------------
def naive_sgd_epoch(X, y, w, order, batch, alpha, eta, loss, k=1):
    """Algorithm 3 from the definition: mean gradient of the batch, then the step."""
    X = np.hstack([dense(X), np.ones((X.shape[0], 1))])
    W = w.reshape(k, -1) if loss == "softmax" else w[None, :]
    mask = np.r_[np.ones(X.shape[1] - 1), 0.0]
    iterates = []
    for start in range(0, len(order), batch):
        rows = order[start:start + batch]
        Z = X[rows] @ W.T
        if loss == "softmax":
            R = np.exp(Z - logsumexp(Z, axis=1, keepdims=True))
            R[np.arange(len(rows)), y[rows]] -= 1.0
        else:
            R = (-y[rows] * expit(-y[rows] * Z[:, 0]))[:, None]
        W = W - eta * (R.T @ X[rows] / len(rows) + alpha * W * mask)
        iterates.append(W.ravel())
    return W.ravel(), np.mean(iterates, axis=0)


@pytest.mark.parametrize("fmt", ["dense64", "dense32", "csr64"])
@pytest.mark.parametrize("loss,batch", [("logistic", 1), ("logistic", 7), ("softmax", 5)])
def test_sgd_kernel_matches_the_naive_twin(loss, batch, fmt):
    X, y, w, k = problem(loss, fmt, seed=4, n=50)
    order = np.random.default_rng(5).permutation(50).astype(np.intp)
    expected_w, expected_mean = naive_sgd_epoch(X, y, w.copy(), order, batch, 0.01, 0.05,
                                                 loss, k)
    obj = Objective(X, y, 0.01, True, loss, k)
    from halfspaces._solvers import StepRule, run_epoch

    it, avg = w.copy(), np.zeros_like(w)
    t, n_avg = run_epoch(obj, it, avg, 0, order, batch, StepRule(eta0=0.05), 0)
    assert t == n_avg == -(-50 // batch)
    assert_allclose(it, expected_w, rtol=1e-10, atol=1e-12)
    assert_allclose(avg, expected_mean, rtol=1e-10, atol=1e-12)


# -- parity with scikit-learn's optimum --------------------------------------------------------
def sklearn_optimum(X, y, C):
    """scikit-learn's optimum for C (C = None: no penalty, which it spells C = inf)."""
    sk = SkLogisticRegression(C=np.inf if C is None else C, solver="newton-cholesky",
                              tol=1e-12, max_iter=500)
    return sk.fit(X, y)


def assert_same_optimum(ours, sk, X, y, C, coef_tol=1e-5):
    targets = np.asarray(y)
    n = X.shape[0]
    alpha = 0.0 if C is None else 1.0 / (C * n)
    classes = ours.classes_
    if classes.size == 2:
        t = np.where(targets == classes[1], 1.0, -1.0)
        obj, k = ("logistic", t), 1
    else:
        obj, k = ("softmax", np.searchsorted(classes, targets)), classes.size
    def J(est):
        w = np.c_[est.coef_, est.intercept_].ravel()
        return reference_value(X, obj[1], w, alpha, obj[0], k)
    assert_allclose(J(ours), J(sk), rtol=1e-8)
    assert_allclose(ours.coef_, sk.coef_, atol=coef_tol, rtol=coef_tol)
    assert_allclose(ours.intercept_, sk.intercept_, atol=coef_tol, rtol=coef_tol)


@pytest.fixture(scope="module")
def a9a():
    return load_a9a()


@pytest.fixture(scope="module")
def a9a_reference(a9a):
    X, y = a9a
    return sklearn_optimum(X, y, 1.0)


@pytest.mark.parametrize("solver", ["newton", "lbfgs"])
def test_a9a_matches_sklearn(a9a, a9a_reference, solver):
    X, y = a9a
    ours = LogisticRegression(solver=solver, alpha=1.0 / X.shape[0], tol=1e-9,
                              max_iter=3000)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)  # lbfgs may stop on J's change
        ours.fit(X, y)
    # a9a with alpha = 1/N is ill conditioned (smallest curvature ~ alpha = 2e-5); L-BFGS
    # reaches the coefficients to 1e-5 only thanks to its whitening (unwhitened it stalled
    # with errors near 1e-4)
    assert_same_optimum(ours, a9a_reference, X, y, 1.0)


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("C", [1.0, None])
@pytest.mark.parametrize("solver", ["newton", "lbfgs"])
def test_dense_and_sparse_binary_match_sklearn(fmt, C, solver):
    X, y = noisy(1500, 8, seed=6, flip=0.2)
    X = in_format(X * 3.0, fmt)
    alpha = 0.0 if C is None else 1.0 / (C * X.shape[0])
    ours = LogisticRegression(solver=solver, alpha=alpha, tol=1e-10)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)  # may stall at 1e-10: rounding
        ours.fit(X, y)
    assert_same_optimum(ours, sklearn_optimum(in_format(dense(X), "dense64"), y, C),
                        dense(X), y, C)


@pytest.fixture(scope="module")
def digits_reference():
    X, y = load_digits(return_X_y=True)
    return X / 16.0, y, sklearn_optimum(X / 16.0, y, 1.0)


@pytest.mark.parametrize("solver", ["newton", "lbfgs"])
def test_digits_multinomial_matches_sklearn(digits_reference, solver):
    X, y, reference = digits_reference
    ours = LogisticRegression(solver=solver, alpha=1.0 / X.shape[0], tol=1e-8,
                              max_iter=5000).fit(X, y)
    assert_same_optimum(ours, reference, X, y, 1.0)


def load_mnist_test(n):
    images = SHARED_DATA / "mnist-t10k-images-idx3-ubyte"
    labels = SHARED_DATA / "mnist-t10k-labels-idx1-ubyte"
    if not images.exists() or not labels.exists():
        pytest.skip("MNIST t10k is not available")
    X = np.frombuffer(images.read_bytes(), dtype=np.uint8, offset=16).reshape(-1, 784)
    y = np.frombuffer(labels.read_bytes(), dtype=np.uint8, offset=8)
    return X[:n] / 255.0, y[:n].astype(np.int64)


@pytest.fixture(scope="module")
def mnist_reference():
    X, y = load_mnist_test(1000)
    # scikit-learn's lbfgs stalls above 1e-5 here: its newton-cg is the oracle
    sk = SkLogisticRegression(C=1.0, solver="newton-cg", tol=1e-10, max_iter=1000).fit(X, y)
    return X, y, sk


@pytest.mark.parametrize("solver", ["newton", "lbfgs"])
def test_mnist_multinomial_matches_sklearn(mnist_reference, solver):
    # 7,850 parameters: Newton-CG on Hessian-vector products (no Cholesky); L-BFGS whitened
    # by ten 785 x 785 class blocks
    X, y, sk = mnist_reference
    ours = LogisticRegression(solver=solver, alpha=1.0 / X.shape[0], tol=1e-9,
                              max_iter=3000).fit(X, y)
    assert_same_optimum(ours, sk, X, y, 1.0)


def test_dense_and_sparse_give_the_same_model():
    X, y = noisy(400, 6, seed=7, sparsity=0.5)
    models = [LogisticRegression(solver="newton", alpha=0.01).fit(in_format(X, f), y)
              for f in ("dense64", "csr64")]
    assert_allclose(models[0].coef_, models[1].coef_, rtol=1e-10)


# -- the solvers' budgets and behaviour ---------------------------------------------------------
@pytest.mark.parametrize("solver,rtol", [("newton", 1e-8), ("sgd", 1e-3), ("minibatch", 1e-3),
                                         ("gd", 1e-3)])
def test_default_budgets_reach_the_optimum_on_a9a(a9a, a9a_reference, solver, rtol):
    X, y = a9a
    alpha = 1.0 / X.shape[0]
    ours = LogisticRegression(solver=solver, alpha=alpha, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        ours.fit(X, y)
    t = np.where(y > 0, 1.0, -1.0)
    best = reference_value(X, t, np.r_[a9a_reference.coef_.ravel(), a9a_reference.intercept_],
                           alpha, "logistic")
    assert ours.loss_curve_[-1] <= best * (1 + rtol)
    assert_allclose(ours.loss_curve_[-1], reference_value(
        X, t, np.r_[ours.coef_.ravel(), ours.intercept_], alpha, "logistic"), rtol=1e-12)


@pytest.mark.parametrize("solver", ["gd", "newton", "lbfgs"])
def test_full_batch_solvers_decrease_the_objective_monotonically(solver):
    X, y = noisy(500, 5, seed=8)
    clf = LogisticRegression(solver=solver, alpha=1e-3, max_iter=200).fit(X, y)
    assert np.all(np.diff(clf.loss_curve_) <= 1e-15)
    assert clf.converged_ and clf.n_iter_ == len(clf.loss_curve_) - 1 or solver == "lbfgs"


def test_gd_without_line_search_is_the_plain_algorithm():
    X, y = noisy(100, 3, seed=9)
    clf = LogisticRegression(solver="gd", line_search=False, eta0=0.5, alpha=0.1,
                             max_iter=3, tol=0.0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        clf.fit(X, y)
    obj = Objective(X, y, 0.1, True, "logistic")
    w = np.zeros(4)
    for _ in range(3):
        w = w - 0.5 * obj.value_grad(w)[1]
    assert_allclose(np.r_[clf.coef_.ravel(), clf.intercept_], w, rtol=1e-12)


def test_partial_fit_epochs_equal_fit_epochs():
    X, y = noisy(300, 4, seed=10)
    fitted = LogisticRegression(solver="minibatch", batch_size=16, alpha=1e-3, max_iter=3,
                                tol=0.0, random_state=1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        fitted.fit(X, y)
    online = LogisticRegression(solver="minibatch", batch_size=16, alpha=1e-3, random_state=1)
    for _ in range(3):
        online.partial_fit(X, y, classes=[-1.0, 1.0])
    assert_allclose(online.coef_, fitted.coef_, rtol=1e-12)
    assert not hasattr(LogisticRegression(solver="lbfgs"), "partial_fit")


def test_warm_start_resumes_at_the_optimum():
    X, y = noisy(300, 4, seed=11)
    clf = LogisticRegression(solver="newton", alpha=1e-2, warm_start=True).fit(X, y)
    assert clf.fit(X, y).n_iter_ == 0


# -- predictions, labels, warnings -------------------------------------------------------------
def test_probabilities_follow_classes_order_with_string_labels():
    X, y = load_digits(n_class=3, return_X_y=True)
    names = np.array(["zero", "one", "two"])[y]
    clf = LogisticRegression(solver="newton", alpha=1e-2).fit(X / 16, names)
    assert_array_equal(clf.classes_, ["one", "two", "zero"])
    proba = clf.predict_proba(X / 16)
    assert_allclose(proba.sum(axis=1), 1.0)
    assert_array_equal(clf.classes_[proba.argmax(axis=1)], clf.predict(X / 16))
    assert_allclose(np.exp(clf.predict_log_proba(X / 16)), proba)
    assert clf.score(X / 16, names) > 0.95


def test_binary_probabilities_are_the_sigmoid_of_the_decision_function():
    X, y = noisy(200, 3, seed=12)
    clf = LogisticRegression(solver="newton", alpha=1e-2).fit(X, np.where(y > 0, "b", "a"))
    assert_allclose(clf.predict_proba(X)[:, 1], expit(clf.decision_function(X)))


def test_separable_data_warn_that_alpha_is_needed():
    X, y, _, _ = separable(100, 3, seed=13)
    for solver in ("newton", "lbfgs"):
        with pytest.warns(ConvergenceWarning, match="linearly separable"):
            LogisticRegression(solver=solver).fit(X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        LogisticRegression(solver="newton", alpha=1e-2).fit(X, y)


def test_optimal_schedule_needs_alpha():
    with pytest.raises(ValueError, match="alpha > 0"):
        LogisticRegression(solver="sgd", learning_rate="optimal").fit(*noisy(50, 2))


@pytest.mark.parametrize("params", [{"solver": "newton", "alpha": 1e-2},
                                    {"solver": "minibatch", "batch_size": 8, "max_iter": 3}])
def test_sklearn_checks_pass_for_other_solvers(params):
    from sklearn.utils.estimator_checks import check_estimator

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        check_estimator(LogisticRegression(**params))
