"""The perceptron algorithms written as plainly as possible: slow twins of the compiled loops.

Dense float64 NumPy, one example at a time, straight from the definitions: Rosenblatt (1958),
the averaged and voted perceptrons of Freund and Schapire (1999) (the average as an explicit
mean of all the weight vectors, the vote as the explicit list of Figure 1), Gallant's (1990)
pocket with ratchet. The compiled loops must agree with these on random data.

Weighted twins take ``weights`` s (None: all ones): a mistake on row i adds s_i y_i x'_i, a
row of weight 0 is skipped (it still counts as a step of the average and the vote), and the
pocket counts each error as its row's weight.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp


def _dense(X):
    return np.asarray(X.toarray() if sp.issparse(X) else X, dtype=np.float64)


def _weights(weights, n):
    return np.ones(n) if weights is None else np.asarray(weights, dtype=np.float64)


def _orders(n, max_epochs, selection, rng):
    for _ in range(max_epochs):
        yield rng.permutation(n) if selection == "shuffle" else np.arange(n)


def perceptron(X, y, fit_intercept=True, max_epochs=1000, selection="cyclic", rng=None,
               weights=None):
    """Returns (w, b, n_updates, n_epochs, converged)."""
    if selection == "worst":
        return perceptron_worst(X, y, fit_intercept, max_epochs)
    X = _dense(X)
    s = _weights(weights, len(y))
    w, b, c = np.zeros(X.shape[1]), 0.0, float(fit_intercept)
    n_updates = 0
    for epoch, order in enumerate(_orders(len(y), max_epochs, selection, rng), start=1):
        updates = 0
        for i in order:
            if s[i] > 0 and y[i] * (X[i] @ w + b) <= 0:
                w, b = w + s[i] * y[i] * X[i], b + s[i] * y[i] * c
                updates += 1
        n_updates += updates
        if updates == 0:
            return w, b, n_updates, epoch, True
    return w, b, n_updates, max_epochs, False


def perceptron_worst(X, y, fit_intercept=True, max_epochs=1000):
    """Each step updates on argmin_i y_i(<w, x_i> + b); an epoch is n steps."""
    X = _dense(X)
    w, b, c = np.zeros(X.shape[1]), 0.0, float(fit_intercept)
    n = len(y)
    for step in range(n * max_epochs):
        margins = y * (X @ w + b)
        i = int(np.argmin(margins))
        if margins[i] > 0:
            return w, b, step, step // n + 1, True
        w, b = w + y[i] * X[i], b + y[i] * c
    return w, b, n * max_epochs, max_epochs, False


def perceptron_worst_weights(X, y, fit_intercept=True, max_epochs=1000):
    """Every weight vector (w, b) the worst-example run visits, w = 0 first, in order."""
    X = _dense(X)
    w, b, c = np.zeros(X.shape[1]), 0.0, float(fit_intercept)
    visited = [(w, b)]
    for _ in range(len(y) * max_epochs):
        margins = y * (X @ w + b)
        i = int(np.argmin(margins))
        if margins[i] > 0:
            break
        w, b = w + y[i] * X[i], b + y[i] * c
        visited.append((w, b))
    return visited


def averaged_perceptron(X, y, fit_intercept=True, max_epochs=1000, selection="cyclic", rng=None,
                        weights=None):
    """Returns (mean of the weights after every example, its intercept)."""
    X = _dense(X)
    s = _weights(weights, len(y))
    w, b, c = np.zeros(X.shape[1]), 0.0, float(fit_intercept)
    w_sum, b_sum, steps = np.zeros_like(w), 0.0, 0
    for order in _orders(len(y), max_epochs, selection, rng):
        updates = 0
        for i in order:
            if s[i] > 0 and y[i] * (X[i] @ w + b) <= 0:
                w, b = w + s[i] * y[i] * X[i], b + s[i] * y[i] * c
                updates += 1
            w_sum, b_sum, steps = w_sum + w, b_sum + b, steps + 1
        if updates == 0:
            break
    return w_sum / steps, b_sum / steps


def voted_perceptron(X, y, fit_intercept=True, max_epochs=1000, weights=None):
    """Freund and Schapire (1999), Figure 1: the list of (v_k, b_k, c_k)."""
    X = _dense(X)
    s = _weights(weights, len(y))
    c = float(fit_intercept)
    vectors = [[np.zeros(X.shape[1]), 0.0, 0]]
    for _ in range(max_epochs):
        updates = 0
        for i in range(len(y)):
            v, b, _ = vectors[-1]
            if s[i] > 0 and y[i] * (X[i] @ v + b) <= 0:
                vectors.append([v + s[i] * y[i] * X[i], b + s[i] * y[i] * c, 1])
                updates += 1
            else:
                vectors[-1][2] += 1
        if updates == 0:
            break
    return vectors


def voted_decision(vectors, X):
    X = _dense(X)
    return sum(count * np.where(X @ v + b > 0, 1.0, -1.0) for v, b, count in vectors)


def training_errors(X, y, w, b, weights=None):
    """Rows misclassified by sign(<w, x> + b) (0 predicted negative); with ``weights``,
    the sum of their weights."""
    wrong = (X @ w + b > 0) != (y > 0)
    return int(np.sum(wrong)) if weights is None else float(np.sum(weights[wrong]))


def pocket_perceptron(X, y, fit_intercept=True, max_epochs=1000, weights=None):
    """Gallant's pocket with ratchet, cyclic order, also judging the weights each pass
    ends with (unless already judged). Returns (w, b, errors), errors weighted when
    ``weights`` are given."""
    X = _dense(X)
    s = None if weights is None else _weights(weights, len(y))
    w, b, c = np.zeros(X.shape[1]), 0.0, float(fit_intercept)
    pocket = (w, b, training_errors(X, y, w, b, s))
    run, pocket_run, judged = 0, 0, False
    for _ in range(max_epochs):
        updates = 0
        for i in range(len(y)):
            si = 1.0 if s is None else s[i]
            if si == 0:
                continue
            if y[i] * (X[i] @ w + b) <= 0:
                w, b = w + si * y[i] * X[i], b + si * y[i] * c
                run, judged, updates = 0, False, updates + 1
                continue
            run += 1
            if pocket[0] is w:
                pocket_run = run
            elif run > pocket_run and not judged:
                judged = True
                errors = training_errors(X, y, w, b, s)
                if errors < pocket[2]:
                    pocket, pocket_run = (w, b, errors), run
        if updates == 0:
            if pocket[0] is not w:  # a pass without a mistake: no error, the fewest
                pocket = (w, b, training_errors(X, y, w, b, s))
            break
        if pocket[0] is not w and not judged:  # the end of the pass
            judged = True
            errors = training_errors(X, y, w, b, s)
            if errors < pocket[2]:
                pocket, pocket_run = (w, b, errors), run
    return pocket
