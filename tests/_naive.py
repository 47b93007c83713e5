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


def coordinate_descent_pass(X, y, w, b, alpha1, alpha2, loss, fit_intercept):
    """One pass of proximal coordinate descent on the elastic-net mean loss, from the
    definitions: for each column j in order, the step 1 / L_j on the partial derivative,
    L_j = c ||x_j||^2 / n (c = 1, 1/4, 2 for the squared, logistic and squared hinge
    losses), soft thresholding at alpha1 / L_j, the L2 shrink 1 / (1 + alpha2 / L_j); then
    the intercept's step 1 / c. Returns (w, b)."""
    from scipy.special import expit

    X = _dense(X)
    w = np.array(w, dtype=np.float64)
    n = X.shape[0]
    c = {"squared": 1.0, "logistic": 0.25, "squared_hinge": 2.0}[loss]

    def derivative(z):
        if loss == "squared":
            return z - y
        if loss == "logistic":
            return -y * expit(-y * z)
        return -2.0 * y * np.maximum(0.0, 1.0 - y * z)

    for j in range(X.shape[1]):
        L = c * X[:, j] @ X[:, j] / n
        if L == 0:
            continue
        g = X[:, j] @ derivative(X @ w + b) / n
        u = w[j] - g / L
        w[j] = np.sign(u) * max(abs(u) - alpha1 / L, 0.0) / (1.0 + alpha2 / L)
    if fit_intercept:
        b = b - np.mean(derivative(X @ w + b)) / c
    return w, b


def early_stopped(hypotheses, score, n_iter_no_change, tol=0.0):
    """Early stopping by hand over the hypotheses after epochs 1, 2, ... (an iterable).

    An epoch improves when its held-out score beats the best before it by more than tol;
    the run stops after n_iter_no_change epochs in a row that do not. Returns (the best
    hypothesis, the first to reach the best score; the scores of the epochs made).
    """
    scores, best, kept, stale = [], -np.inf, None, 0
    for hypothesis in hypotheses:
        scores.append(score(hypothesis))
        stale = 0 if scores[-1] > best + tol else stale + 1
        if scores[-1] > best:
            best, kept = scores[-1], hypothesis
        if stale >= n_iter_no_change:
            break
    return kept, scores


def epoch_prefixes(run, max_epochs):
    """The hypotheses after epochs 1, 2, ...: ``run(e)`` is a run of at most e epochs from
    the start (for a fixed order or seed, the first e epochs of any longer run), which
    returns (hypothesis, converged); the last is the one that converged."""
    for e in range(1, max_epochs + 1):
        hypothesis, converged = run(e)
        yield hypothesis
        if converged:
            return


def naive_updates(X, y, passes, record="steps"):
    """A plain cyclic perceptron on x' = (1, x) over labels y in {-1, +1}, stopped after a
    pass without a mistake (or after `passes`): one entry per update, in order.

    `record` says what an entry holds: "steps", (step, row), the example seen (from 1, pass
    after pass) and its row; "weights", (step, row, w, b) with the weights after the update.
    """
    if record not in ("steps", "weights"):
        raise ValueError(f"record={record!r}: 'steps' or 'weights'")
    X = _dense(X)
    w, b, step, out = np.zeros(X.shape[1]), 0.0, 0, []
    for _ in range(passes):
        before = len(out)
        for i in range(len(y)):
            step += 1
            if y[i] * (X[i] @ w + b) <= 0:
                w, b = w + y[i] * X[i], b + y[i]
                out.append((step, i) if record == "steps" else (step, i, w.copy(), b))
        if len(out) == before:
            break
    return out


def naive_mistakes(X, y, passes=1):
    """:func:`naive_updates` as a mask over the `passes` x n examples seen: which caused a
    mistake (all False after the pass without one, where the perceptron stops)."""
    mask = np.zeros(passes * len(y), dtype=bool)
    mask[[step - 1 for step, _ in naive_updates(X, y, passes)]] = True
    return mask
