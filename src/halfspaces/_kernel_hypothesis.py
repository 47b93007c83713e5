"""What a kernel perceptron computes from its fitted expansion: scores, votes, the runs
that continue it, and the expansion they leave.

A fitted :class:`~halfspaces.KernelPerceptron` or :class:`~halfspaces.VotedKernelPerceptron`
is an expansion f(x) = sum_i a_i k(s_i, x) + b over its support vectors s_i, read and
checked by :func:`halfspaces._kernel_expansion.read_expansion`. This middle-layer module
evaluates it on new rows, a block of the test kernel matrix at a time within
``cache_size`` (:func:`expansion_scores`; :func:`kernel_votes` for the voted form, the
compiled vote of :mod:`halfspaces._fast.perceptron`), or through primal weights for the
linear kernel (:func:`linear_scores`). It starts the binary runs of a fit
(:func:`binary_runner`), which continue the last hypothesis on a warm start or a
``partial_fit``, and appends what they learnt to the expansion (:func:`grown_expansion`).
Like :mod:`halfspaces._kernel_expansion`, which holds the kernel a prediction uses, it
reads a model's parameters by name (the kernel, ``margin`` and ``burn_in`` of a new run,
``fit_intercept`` and ``cache_size``) and imports no estimator; :mod:`halfspaces.kernel`
sets the attributes.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import scipy.sparse as sp
from numpy.typing import NDArray
from sklearn.utils import gen_batches

from halfspaces._dual_run import (
    KernelRun,
    as_float64,
    kernel_block,
    overflow_error,
    run_kernel_perceptron,
    run_linear_perceptron,
    training_gram,
)
from halfspaces._fast import perceptron as kp
from halfspaces._kernel_expansion import Expansion
from halfspaces._progress import report
from halfspaces._validation import Targets
from halfspaces._vote_log import stack_rows

__all__ = ["averaged_weights", "averaging_steps", "binary_runner", "expansion_scores",
           "grown_expansion", "intercept_of", "is_linear", "kernel_votes", "linear_scores",
           "linear_weights"]


def is_linear(kernel) -> bool:
    """Whether ``kernel`` is the named linear kernel (a callable one runs the dual loop)."""
    return isinstance(kernel, str) and kernel == "linear"


def intercept_of(coef, fit_intercept: bool) -> NDArray[np.float64]:
    """b = c sum_i a_i per problem: the constant feature's weight in the expansion."""
    return coef.sum(axis=1) * (1.0 if fit_intercept else 0.0)


def binary_runner(model, X, fitted: Expansion | None, *,
                  record_updates: bool) -> Callable[..., KernelRun]:
    """The binary run of problem k: the primal loop for the linear kernel, else the dual.

    The named linear kernel's dual run at margin 0 is the primal run (the same updates),
    which costs O(nnz of a row) per update where the dual needs a Gram row, O(n nnz); a
    callable kernel, even a linear one, and a margin run the dual loop. A resumed run
    starts from the last hypothesis (``fitted``): its primal weights, or its decision
    values on X. The runs take the model's ``margin`` and ``burn_in``.
    """
    steps = None if fitted is None else fitted.n_steps
    burn_in = int(model.burn_in)
    if is_linear(model.kernel) and model.margin == 0:
        weights = None if fitted is None else _primal_weights(fitted, model.fit_intercept)

        def linear(k, labels, **options):
            if weights is None:
                return run_linear_perceptron(X, labels, fit_intercept=model.fit_intercept,
                                             burn_in=burn_in, **options)
            return run_linear_perceptron(X, labels, fit_intercept=model.fit_intercept,
                                         w0=weights[k], n_steps=int(steps[k]),
                                         burn_in=burn_in, **options)
        return linear
    gram = training_gram(X, model.kernel, degree=model.degree, gamma=model.gamma,
                         coef0=model.coef0, fit_intercept=model.fit_intercept,
                         cache_size=model.cache_size)
    scores = None if fitted is None else expansion_scores(
        model, X, fitted, fitted.last_coef, intercept_of(fitted.last_coef, model.fit_intercept))

    rule = dict(margin=float(model.margin), burn_in=burn_in, record_updates=record_updates)

    def dual(k, labels, **options):
        if scores is None:
            return run_kernel_perceptron(gram, labels, **rule, **options)
        return run_kernel_perceptron(gram, labels, f0=scores[:, k], n_steps=int(steps[k]),
                                     **rule, **options)
    return dual


def grown_expansion(X, targets: Targets, runs: list[KernelRun], fitted: Expansion | None, *,
                    precomputed: bool) -> tuple:
    """The expansion after the runs on X: that of ``fitted`` (if any), then the new support.

    Returns
    -------
    alpha : ndarray of shape (n_problems, n_samples)
        The runs' updates on each row of X.
    support : ndarray
        The rows of X with an update in some problem, which join the support vectors.
    vectors : ndarray or csr_matrix
        All the support vectors, ``fitted``'s first (none for a precomputed kernel).
    last, sums : ndarray of shape (n_problems, n_support)
        The last hypothesis's coefficients and the signed sums of the averaged one.
    """
    alpha = np.vstack([run.alpha for run in runs])
    support = np.flatnonzero(alpha.any(axis=0))
    signs = np.vstack([targets.plus_minus(k, support) for k in range(len(runs))])
    last = alpha[:, support] * signs
    sums = np.vstack([run.sums for run in runs])[:, support] * signs
    vectors = np.empty((0, 0)) if precomputed else as_float64(X[support])
    if fitted is not None:
        vectors = stack_rows(fitted.vectors, vectors)
        last = np.hstack([fitted.last_coef, last])
        sums = np.hstack([fitted.coef_sums, sums])
    return alpha, support, vectors, last, sums


def _primal_weights(fitted: Expansion, fit_intercept: bool) -> NDArray[np.float64]:
    """w and its intercept c sum_i a_i of the last hypothesis, per problem: (p, d + 1)."""
    coef = fitted.last_coef
    W = linear_weights(fitted.vectors, coef).T.reshape(coef.shape[0], -1)
    return np.hstack([W, intercept_of(coef, fit_intercept)[:, None]])


def expansion_scores(model, X, fitted: Expansion, coef, intercept) -> NDArray[np.float64]:
    """sum_i coef_i k(x_i, x) + intercept for each row of X: (n_rows, n_problems), over
    the support of ``fitted``."""
    if fitted.kernel == "linear":
        return linear_scores(X, linear_weights(fitted.vectors, coef).T, intercept)
    scores = np.empty((X.shape[0], coef.shape[0]))
    for rows in gen_batches(X.shape[0], _block(model.cache_size, fitted.size)):
        K = _test_kernel(fitted, X[rows], rows.start)
        with np.errstate(over="ignore", invalid="ignore"):  # refused below, by row
            scores[rows] = K @ coef.T + intercept
    return _finite_rows(scores, 0)  # the sums can overflow where no kernel value did


def linear_scores(X, W, intercept) -> NDArray[np.float64]:
    """<w, x> + b of the (n_problems, d) weights W, with w = sum_i a_i x_i.

    One product with the weights instead of an n_rows x n_support kernel matrix (a
    minute on a9a's 48,842 rows). The same sums in another order: equal on data whose
    products are exact, within rounding otherwise.
    """
    scores = np.asarray(as_float64(X) @ W.T, dtype=np.float64).reshape(X.shape[0], -1)
    return scores + intercept


def linear_weights(vectors, coef) -> NDArray[np.float64]:
    """w = sum_i a_i x_i per problem, as the columns of a (d, n_problems) array."""
    return np.asarray(vectors.T @ coef.T, dtype=np.float64)


def averaged_weights(fitted: Expansion, burn_in: int = 0) -> NDArray[np.float64]:
    """The averaged primal weights as AveragedPerceptron forms them, w - aux / T.

    w = sum_i alpha_i y_i x_i and aux = sum_i sums_i y_i x_i are exact on data whose
    products are (integers, a9a's 0/1 features), so there the weights are the primal
    ones bit for bit, where sum_i dual_coef_i x_i would round each term. After a
    ``burn_in``, T is the number of steps averaged, T - burn_in (:func:`averaging_steps`).
    """
    T = averaging_steps(fitted.n_steps, burn_in)
    W = linear_weights(fitted.vectors, fitted.last_coef) - \
        linear_weights(fitted.vectors, fitted.coef_sums) / T
    return np.ascontiguousarray(W.T)


def averaging_steps(n_steps: NDArray, burn_in: int) -> NDArray[np.float64]:
    """The hypotheses in each problem's average: T - burn_in, at least 1 (while T <= burn_in
    the sums are zero and the average is the last hypothesis)."""
    return np.maximum(np.asarray(n_steps, dtype=np.int64) - burn_in, 1).astype(np.float64)


def kernel_votes(model, X, fitted: Expansion) -> NDArray[np.float64]:
    """The weighted vote sum_k c_k sign(f_k(x)) of each row of X: (n_problems, n_rows).

    The compiled vote of :class:`~halfspaces.VotedPerceptron` on the test kernel matrix G
    in place of inner products, a block of rows at a time; the rows done are reported as
    progress after each block (:mod:`halfspaces._progress`).
    """
    c = 1.0 if model.fit_intercept else 0.0
    n_problems, n = len(fitted.votes), X.shape[0]
    votes = np.empty((n_problems, n))
    for rows in gen_batches(n, _block(model.cache_size, fitted.size)):
        G = np.ascontiguousarray(_test_kernel(fitted, X[rows], rows.start),
                                 dtype=np.float64)
        # the compiled vote reads G[r, update_support_[k]] unchecked
        if G.shape != (rows.stop - rows.start, fitted.size) or fitted.size < fitted.top:
            raise ValueError(f"The test kernel matrix has shape {G.shape} where "
                             f"{rows.stop - rows.start} rows and {fitted.top} support "
                             "vectors were expected.")
        for k, (update_rows, signs, counts, _) in enumerate(fitted.votes):
            kp.voted_scores(G, update_rows, signs, counts, c, votes[k, rows])
        report(rows.stop, n)
    return votes


def _block(cache_size: float, n_support: int) -> int:
    """Rows per block of the test kernel matrix: ``cache_size`` MB of it."""
    return max(1, int(cache_size * 2**20) // (8 * max(1, n_support)))


def _test_kernel(fitted: Expansion, X, start: int) -> NDArray[np.float64]:
    """k(x, s_j) for the rows of X (rows start, start + 1, ... of the caller's X) and
    the support vectors s_j of ``fitted``: a (rows, fitted.size) matrix."""
    if fitted.precomputed:
        K = X[:, fitted.columns]
        return np.asarray(K.toarray() if sp.issparse(K) else K, dtype=np.float64)
    if fitted.size == 0:
        return np.zeros((X.shape[0], 0))
    with np.errstate(over="ignore", invalid="ignore"):  # refused below, by row, as at fit
        K = kernel_block(X, fitted.vectors, fitted.kernel, fitted.degree, fitted.gamma,
                         fitted.coef0)
    return _finite_rows(K, start)


def _finite_rows(values: NDArray, start: int) -> NDArray:
    """`values` (a row per sample, the first being row `start`), refused as fit refuses
    them where a row holds inf or NaN: a kernel value that overflowed (the polynomial
    kernel of large rows) made a NaN score, which predict sent silently to classes_[0], and
    an infinite one a vote with no meaning."""
    finite = np.isfinite(values)
    if finite.all():
        return values
    raise overflow_error(start + int(np.flatnonzero(~finite.all(axis=1))[0]))
