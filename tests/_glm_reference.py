"""Independent references for the GLM tests: J from its textbook formula, random problems,
scikit-learn's optimum and the comparison with it."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from _datasets import in_format, noisy
from numpy.testing import assert_allclose
from scipy.special import expit, logsumexp
from sklearn.linear_model import LogisticRegression as SkLogisticRegression

from halfspaces._glm.datafits import Logistic, Softmax, Squared
from halfspaces._glm.objective import Objective

LOSSES = ["logistic", "squared", "softmax"]


def dense(X):
    return np.asarray(X.toarray() if sp.issparse(X) else X, dtype=np.float64)


def datafit(loss, k=1):
    if loss == "softmax":
        return Softmax(k)
    return Logistic() if loss == "logistic" else Squared()


def objective(X, y, alpha, fit_intercept, loss, k=1):
    return Objective(X, y, datafit(loss, k), alpha, fit_intercept)


def reference_value(X, y, w, alpha, loss, k=1, s=None):
    """J from the textbook formula in NumPy/SciPy (w flat, as the solvers hold it): the
    mean loss, or with row weights s the weighted mean sum_i s_i loss_i / sum_i s_i."""
    X = dense(X)
    mean = (lambda v: np.mean(v)) if s is None else (lambda v: np.sum(s * v) / np.sum(s))
    if loss == "softmax":
        W = w.reshape(k, -1)
        Z = X @ W[:, :-1].T + W[:, -1]
        data = mean(logsumexp(Z, axis=1) - Z[np.arange(len(y)), y])
        return data + 0.5 * alpha * np.sum(W[:, :-1] ** 2)
    z = X @ w[:-1] + w[-1]
    data = mean(np.logaddexp(0.0, -y * z)) if loss == "logistic" else mean((z - y) ** 2) / 2
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


def naive_sgd_epoch(X, y, w, order, batch, alpha, eta, loss, k=1, s=None):
    """Mini-batch SGD from the definition: mean gradient of the batch, then the step; with
    row weights s each row's gradient is multiplied by its weight (the mean still over the
    batch's rows, the penalty's step unweighted: scikit-learn's SGD convention)."""
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
        elif loss == "squared":
            R = (Z[:, 0] - y[rows])[:, None]
        else:
            R = (-y[rows] * expit(-y[rows] * Z[:, 0]))[:, None]
        if s is not None:
            R = R * s[rows][:, None]
        W = W - eta * (R.T @ X[rows] / len(rows) + alpha * W * mask)
        iterates.append(W.ravel())
    return W.ravel(), np.mean(iterates, axis=0)


def elastic_net_value(X, y, coef, intercept, alpha, l1_ratio, loss, weights=None):
    """The elastic-net J from its formula: the weighted mean loss (squared (z - y)^2 / 2,
    logistic, squared hinge max(0, 1 - y z)^2) + alpha (rho ||w||_1 + (1 - rho)/2 ||w||^2)."""
    X = dense(X)
    z = X @ np.ravel(coef) + intercept
    if loss == "squared":
        losses = 0.5 * (z - y) ** 2
    elif loss == "logistic":
        losses = np.logaddexp(0.0, -y * z)
    else:
        losses = np.maximum(0.0, 1.0 - y * z) ** 2
    s = np.ones(len(y)) if weights is None else np.asarray(weights, dtype=np.float64)
    w = np.ravel(coef)
    return (s @ losses / s.sum() + alpha * l1_ratio * np.abs(w).sum()
            + 0.5 * alpha * (1.0 - l1_ratio) * w @ w)


def elastic_net_gradient(X, y, coef, intercept, loss, weights=None):
    """(the datafit's gradient in w, in b) from the loss derivatives, in NumPy."""
    X = dense(X)
    z = X @ np.ravel(coef) + intercept
    if loss == "squared":
        r = z - y
    elif loss == "logistic":
        r = -y * expit(-y * z)
    else:
        r = -2.0 * y * np.maximum(0.0, 1.0 - y * z)
    s = np.ones(len(y)) if weights is None else np.asarray(weights, dtype=np.float64)
    r = s * r / s.sum()
    return X.T @ r, r.sum()
