"""LinearSVM with an L1 part (``l1_ratio > 0``): the squared hinge with the elastic net,
against LIBLINEAR's -s 5 (through scikit-learn's ``LinearSVC(penalty="l1", dual=False)``,
and the liblinear-official package), without an intercept where the problems are the same;
the honest gap, the subgradient conditions, and the refusals.

J is recomputed from coef_ and intercept_ (``_glm_reference.elastic_net_value``).
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from _glm_reference import elastic_net_gradient, elastic_net_value
from sklearn.svm import LinearSVC

from halfspaces import LinearSVM


def problem(seed, n=80, d=10):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)) * rng.uniform(0.5, 2.0, size=d)
    y = np.where(X @ np.where(rng.random(d) < 0.5, rng.normal(size=d), 0.0) + 0.3 > 0, 1, -1)
    y[rng.random(n) < 0.1] *= -1
    return X, y


def split_lbfgs(X, y, alpha, l1_ratio, fit_intercept):
    """The same problem by SciPy's L-BFGS-B over the split w = u - v, u, v >= 0 (smooth:
    the squared hinge is C^1 and ||w||_1 = sum(u + v) at the optimum)."""
    from scipy.optimize import minimize

    n, d = X.shape
    a1, a2 = alpha * l1_ratio, alpha * (1 - l1_ratio)

    def value_grad(p):
        u, v, b = p[:d], p[d:2 * d], (p[-1] if fit_intercept else 0.0)
        w = u - v
        slack = np.maximum(0.0, 1.0 - y * (X @ w + b))
        r = -2.0 * y * slack / n
        gw = X.T @ r + a2 * w
        grad = np.concatenate([gw + a1, -gw + a1, [r.sum()] if fit_intercept else []])
        return slack @ slack / n + a1 * (u.sum() + v.sum()) + 0.5 * a2 * w @ w, grad

    size = 2 * d + int(fit_intercept)
    bounds = [(0, None)] * (2 * d) + [(None, None)] * int(fit_intercept)
    found = minimize(value_grad, np.zeros(size), jac=True, method="L-BFGS-B", bounds=bounds,
                     options=dict(ftol=1e-16, gtol=1e-13, maxiter=100_000, maxcor=30))
    p = found.x
    return p[:d] - p[d:2 * d], (p[-1] if fit_intercept else 0.0)


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("fit_intercept", [False, True])
def test_the_objective_is_scipys_over_the_split_weights(seed, sparse, fit_intercept):
    X, y = problem(seed)
    alpha = 0.02
    data = sp.csr_matrix(X) if sparse else X
    ours = LinearSVM(alpha=alpha, l1_ratio=1.0, fit_intercept=fit_intercept, tol=1e-12,
                     max_iter=10_000).fit(data, y)
    w, b = split_lbfgs(X, y, alpha, 1.0, fit_intercept)
    J = elastic_net_value(X, y, ours.coef_, ours.intercept_[0], alpha, 1.0, "squared_hinge")
    J_ref = elastic_net_value(X, y, w, b, alpha, 1.0, "squared_hinge")
    assert abs(J - J_ref) <= 1e-8 * J_ref
    assert J - min(J, J_ref) <= ours.gap_


def test_scikit_learns_linear_svc_does_no_better():
    # LinearSVC(penalty="l1", dual=False) is LIBLINEAR's -s 5; here it stops (warning
    # that it did not converge) above our J, which is within gap_ of the optimum
    X, y = problem(1)
    n, alpha = X.shape[0], 0.02
    ours = LinearSVM(alpha=alpha, l1_ratio=1.0, fit_intercept=False, tol=1e-12).fit(X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sk = LinearSVC(penalty="l1", loss="squared_hinge", dual=False, C=1.0 / (alpha * n),
                       fit_intercept=False, tol=1e-14, max_iter=100_000).fit(X, y)
    J = elastic_net_value(X, y, ours.coef_, 0.0, alpha, 1.0, "squared_hinge")
    J_sk = elastic_net_value(X, y, sk.coef_, 0.0, alpha, 1.0, "squared_hinge")
    assert J <= J_sk * (1 + 1e-12)


def test_liblinear_official_agrees():
    liblinear = pytest.importorskip("liblinear.liblinearutil")
    X, y = problem(3)
    n, alpha = X.shape[0], 0.02
    model = liblinear.train(y.astype(float), X, f"-s 5 -c {1.0 / (alpha * n)} -e 1e-10 -B -1 -q")
    w = np.array(model.get_decfun()[0])
    if model.get_labels()[0] != 1:  # LIBLINEAR's first label is its positive class
        w = -w
    ours = LinearSVM(alpha=alpha, l1_ratio=1.0, fit_intercept=False, tol=1e-12).fit(X, y)
    J = elastic_net_value(X, y, ours.coef_, 0.0, alpha, 1.0, "squared_hinge")
    J_lib = elastic_net_value(X, y, w, 0.0, alpha, 1.0, "squared_hinge")
    assert J <= J_lib * (1 + 1e-8)
    assert J - min(J, J_lib) <= ours.gap_


@pytest.mark.parametrize("l1_ratio", [1.0, 0.5])
def test_with_an_intercept_the_subgradient_conditions_hold(l1_ratio):
    X, y = problem(4)
    alpha = 0.02
    svm = LinearSVM(alpha=alpha, l1_ratio=l1_ratio, tol=1e-12, max_iter=10_000).fit(X, y)
    w, b = svm.coef_[0], svm.intercept_[0]
    g, g_b = elastic_net_gradient(X, y, w, b, "squared_hinge")
    a1, a2 = alpha * l1_ratio, alpha * (1 - l1_ratio)
    on = w != 0
    assert np.all(np.abs(g[on] + a1 * np.sign(w[on]) + a2 * w[on]) <= 1e-6)
    assert np.all(np.abs(g[~on]) <= a1 + 1e-6)
    assert abs(g_b) <= 1e-6
    J = elastic_net_value(X, y, w, b, alpha, l1_ratio, "squared_hinge")
    assert J <= svm.objective_ and svm.gap_ <= 1e-12 * svm.objective_ * 10


@pytest.mark.parametrize("max_iter", [1, 2, 3])
def test_early_stops_keep_an_honest_gap(max_iter):
    X, y = problem(5)
    alpha = 0.005
    best = LinearSVM(alpha=alpha, l1_ratio=1.0, tol=1e-13, max_iter=10_000).fit(X, y)
    J_best = elastic_net_value(X, y, best.coef_[0], best.intercept_[0], alpha, 1.0,
                               "squared_hinge")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        early = LinearSVM(alpha=alpha, l1_ratio=1.0, tol=1e-13, max_iter=max_iter).fit(X, y)
    J = elastic_net_value(X, y, early.coef_[0], early.intercept_[0], alpha, 1.0,
                          "squared_hinge")
    assert J - J_best <= early.gap_


def test_one_vs_rest_has_one_sparse_problem_per_class():
    X, y = problem(6, n=120)
    labels = np.where(X[:, 0] > 0.5, 2, np.where(y > 0, 1, 0))
    svm = LinearSVM(alpha=0.05, l1_ratio=1.0, tol=1e-8).fit(X, labels)
    assert svm.coef_.shape == (3, X.shape[1])
    assert np.all(svm.gap_ <= 1e-8 * svm.objective_)
    assert np.count_nonzero(svm.coef_) < svm.coef_.size


@pytest.mark.parametrize("params", [dict(loss="hinge"), dict(multi_class="crammer_singer"),
                                    dict(solver="dual"), dict(solver="newton")])
def test_what_cannot_fit_an_l1_part_is_refused_by_name(params):
    X, y = problem(7)
    with pytest.raises(ValueError, match=r"l1_ratio=0.5.*squared_hinge"):
        LinearSVM(l1_ratio=0.5, **params).fit(X, y)
