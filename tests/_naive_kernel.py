"""Slow twins of the kernel and multiclass perceptrons, straight from the definitions.

Dense float64 NumPy, one example at a time. The kernels are written out from their formulas
(no scikit-learn); the dual perceptron recomputes f(x_i) = sum_j alpha_j y_j K[j, i] from
scratch at every visit; the averaged multiclass perceptron averages an explicit list of all
its weight matrices.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp


def dense(X):
    return np.asarray(X.toarray() if sp.issparse(X) else X, dtype=np.float64)


def kernel(A, B, name, degree=3, gamma=None, coef0=1.0):
    """k(a_i, b_j) element by element from the textbook formulas."""
    A, B = dense(A), dense(B)
    gamma = 1.0 / A.shape[1] if gamma is None else gamma
    K = np.empty((A.shape[0], B.shape[0]))
    for i, a in enumerate(A):
        for j, b in enumerate(B):
            dot = float(np.sum(a * b))
            if name == "linear":
                K[i, j] = dot
            elif name == "poly":
                K[i, j] = (gamma * dot + coef0) ** degree
            elif name == "rbf":
                K[i, j] = np.exp(-gamma * float(np.sum((a - b) ** 2)))
            else:
                K[i, j] = np.tanh(gamma * dot + coef0)
    return K


def kernel_perceptron(K, y, fit_intercept=True, max_epochs=1000, selection="cyclic", rng=None):
    """The dual perceptron on the Gram matrix K and ±1 targets y.

    Returns (alpha, n_updates, n_epochs, converged).
    """
    G = K + float(fit_intercept)
    n = len(y)
    alpha = np.zeros(n, dtype=np.int64)
    n_updates = 0
    for epoch in range(1, max_epochs + 1):
        order = rng.permutation(n) if selection == "shuffle" else np.arange(n)
        updates = 0
        for i in order:
            f = sum(alpha[j] * y[j] * G[j, i] for j in range(n) if alpha[j])
            if y[i] * f <= 0:
                alpha[i] += 1
                updates += 1
        n_updates += updates
        if updates == 0:
            return alpha, n_updates, epoch, True
    return alpha, n_updates, max_epochs, False


def multiclass_perceptron(X, labels, n_classes, fit_intercept=True, max_epochs=1000,
                          selection="cyclic", rng=None, average=False, weights=None):
    """The argmax rule with W[y] += x', W[p] -= x' on a mistake (x' = (x, c)).

    Returns (W (k, d + 1) with the biases last, n_updates, n_epochs, converged); with
    ``average`` W is the mean of the weight matrices after every example. With ``weights``
    s, a mistake moves the two rows by s_i x'_i and a row of weight 0 never updates.
    """
    s = np.ones(len(labels)) if weights is None else np.asarray(weights, dtype=np.float64)
    X = dense(X)
    Xp = np.hstack([X, np.full((len(X), 1), float(fit_intercept))])
    W = np.zeros((n_classes, Xp.shape[1]))
    history, n_updates, epoch, converged = [], 0, 0, False
    while epoch < max_epochs:
        epoch += 1
        order = rng.permutation(len(X)) if selection == "shuffle" else range(len(X))
        updates = 0
        for i in order:
            scores = [float(np.sum(W[j] * Xp[i])) for j in range(n_classes)]
            p = scores.index(max(scores))  # the first maximum: the lowest class index
            if p != labels[i] and s[i] > 0:
                W[labels[i]] += s[i] * Xp[i]
                W[p] -= s[i] * Xp[i]
                updates += 1
            history.append(W.copy())
        n_updates += updates
        if updates == 0:
            converged = True
            break
    if average:
        W = np.mean(history, axis=0)
    return W, n_updates, epoch, converged


def kernel_perceptron_history(K, y, fit_intercept=True, max_epochs=1000, selection="cyclic",
                              rng=None, margin=0.0, weights=None):
    """:func:`kernel_perceptron`, keeping every hypothesis it visits.

    Returns ``(visited, hypotheses)``: ``visited`` holds alpha after each step (every
    example visited), ``hypotheses`` each distinct alpha of the run with its survival count
    (the examples it saw, counting the one whose mistake created it, before its first
    mistake), the voted perceptron of Freund and Schapire (1999) as the paper states it.
    With a ``margin`` m, example i updates when y_i f(x_i) <= m (K[i, i] + c) (Krauth and
    Mezard 1987). With ``weights`` s, an update on example i adds s_i y_i (k(x_i, .) + c)
    (alpha still counts updates: the coefficients are alpha * y * s), and an example of
    weight 0 never updates (it still counts as a step).
    """
    G = K + float(fit_intercept)
    n = len(y)
    s = np.ones(n) if weights is None else np.asarray(weights, dtype=np.float64)
    alpha = np.zeros(n, dtype=np.int64)
    visited, hypotheses, count = [], [], 0
    for _ in range(max_epochs):
        order = rng.permutation(n) if selection == "shuffle" else np.arange(n)
        updates = 0
        for i in order:
            f = sum(alpha[j] * y[j] * s[j] * G[j, i] for j in range(n) if alpha[j])
            if s[i] > 0 and y[i] * f <= margin * G[i, i]:
                hypotheses.append((alpha.copy(), count))
                alpha[i] += 1
                updates, count = updates + 1, 1
            else:
                count += 1
            visited.append(alpha.copy())
        if updates == 0:
            break
    hypotheses.append((alpha.copy(), count))
    return visited, hypotheses


def averaged_coefficients(visited, y):
    """The mean of the visited alphas, signed: the averaged hypothesis's coefficients."""
    return np.mean(np.array(visited, dtype=np.float64), axis=0) * y


def vote(hypotheses, y, K_test, fit_intercept=True):
    """sum_k c_k sign(f_k(x)) for each test row; K_test[r, j] = k(x_r, x_j); sign(0) = -1."""
    G = K_test + float(fit_intercept)
    votes = np.zeros(G.shape[0])
    for alpha, count in hypotheses:
        for r in range(G.shape[0]):
            f = sum(alpha[j] * y[j] * G[r, j] for j in range(len(y)) if alpha[j])
            votes[r] += count if f > 0 else -count
    return votes


def vote_after(visited, y, K_test, burn_in, fit_intercept=True):
    """sum over the steps t > burn_in of sign(f_t(x)), f_t the hypothesis after step t (the
    last one alone while the run has no step past burn_in); sign(0) = -1."""
    G = K_test + float(fit_intercept)
    kept = visited[burn_in:] or visited[-1:]
    votes = np.zeros(G.shape[0])
    for alpha in kept:
        f = G @ (alpha * y)
        votes += np.where(f > 0, 1.0, -1.0)
    return votes
