"""A fitted kernel perceptron's expansion: read and checked once, then scored, voted and grown.

A fitted :class:`~halfspaces.KernelPerceptron` or :class:`~halfspaces.VotedKernelPerceptron`
is an expansion f(x) = sum_i a_i k(s_i, x) + b over its support vectors s_i. A prediction,
or a run that continues it, reads a dozen fitted arrays that the compiled vote and run
index without bounds checks: support vectors (or Gram-matrix columns), coefficients per
problem, and the voted form's update lists. :func:`read_expansion` reads them once, into
one immutable :class:`Expansion`, and checks them against one another, so that an edited
attribute, a kernel switched across "precomputed", or a partial_fit in another thread
replacing the attributes between two reads is a ValueError naming them, never a read
beyond an array.

The rest of the module computes from an :class:`Expansion`: scores on new rows, a block of
the test kernel matrix at a time within ``cache_size`` (:func:`expansion_scores`;
:func:`kernel_votes` for the voted form, the compiled vote of
:mod:`halfspaces._fast.perceptron`), or through primal weights for the linear kernel
(:func:`linear_scores`); the binary runs of a fit (:func:`binary_runner`), which continue
the last hypothesis on a warm start or a ``partial_fit``; and the expansion they leave
(:func:`grown_expansion`). It reads a model's fitted attributes and parameters by name, as
scikit-learn's ``check_is_fitted`` does, and imports no estimator: :mod:`halfspaces.kernel`
sets the attributes.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import scipy.sparse as sp
from numpy.typing import NDArray
from sklearn.utils import gen_batches

from halfspaces._fast import perceptron as fast_perceptron
from halfspaces._kernel.dual_run import (
    KernelRun,
    overflow_error,
    run_kernel_perceptron,
    run_linear_perceptron,
    training_gram,
)
from halfspaces._kernel.gram import as_float64, kernel_block
from halfspaces._perceptron.vote_log import stack_rows
from halfspaces._utils.progress import report
from halfspaces._validation import Targets

__all__ = ["Expansion", "averaged_weights", "averaging_steps", "binary_runner", "expansion_scores",
           "fitted_burn_in", "fitted_precomputed", "grown_expansion", "intercept_of", "is_linear",
           "kernel_votes", "linear_scores", "linear_weights", "read_expansion"]


def fitted_precomputed(model) -> bool:
    """Whether ``model`` was fitted with kernel="precomputed", whatever ``kernel`` says now.

    A model fitted on features keeps its support vectors, n_features_in_ >= 1 columns wide;
    one fitted on a Gram matrix keeps none, an array of shape (0, 0). Model files hold the
    same arrays, so the kind is read from them rather than kept in an attribute of its own.
    """
    return model.support_vectors_.shape[1] == 0


@dataclass(frozen=True)
class Expansion:
    """A fitted model's expansion, read from its attributes once and checked as a whole.

    A prediction or a resumed run reads the fitted attributes here, once, and then only
    these arrays: a partial_fit in another thread replaces the attributes one by one, and
    VotedKernelPerceptron.decision_function, which read them again for every block of
    rows, mixed two models (update indices beyond the test kernel matrix's columns, which
    the compiled vote reads without bounds checks: a segmentation fault). ``kernel``,
    ``degree``, ``gamma`` and ``coef0`` are the kernel of this call, read with the arrays so
    that every block of rows has the same one; ``columns`` the columns of X a precomputed
    kernel reads; ``size``
    the support vectors (the columns of every test kernel matrix); ``votes`` the voted
    model's (update rows, signs, vote counts, update steps) per problem, whose largest row
    is below ``top``.
    """

    kernel: str | Callable
    degree: float
    gamma: float | None
    coef0: float
    precomputed: bool
    vectors: Any
    columns: NDArray
    size: int
    dual_coef: NDArray
    intercept: NDArray
    last_coef: NDArray
    coef_sums: NDArray
    n_steps: NDArray
    votes: tuple = ()
    top: int = 0


def read_expansion(model, width: int) -> Expansion:
    """The fitted expansion of ``model`` for rows of ``width`` columns, or ValueError where
    its kernel was switched across "precomputed" or its attributes disagree (edited, or
    replaced by another thread during the reading)."""
    kernel, vectors, columns = model.kernel, model.support_vectors_, model.support_
    arrays = {"dual_coef_": model.dual_coef_, "intercept_": model.intercept_,
              "_last_coef": model._last_coef, "_coef_sums": model._coef_sums,
              "_n_steps": model._n_steps}
    vote_lists = [model.update_support_, model.update_signs_, model.vote_counts_,
                  model._update_steps] if model._voted else []
    n_classes = len(model.classes_)
    precomputed = fitted_precomputed(model)
    _check_kind(kernel, precomputed, vectors.shape)
    size = _support_size(precomputed, vectors, columns, width)
    p = 1 if n_classes == 2 else n_classes
    for name, value in arrays.items():
        expected = (p,) if name in ("intercept_", "_n_steps") else (p, size)
        if np.shape(value) != expected:
            raise _disagree(f"{name} has shape {np.shape(value)} where the {size} support "
                            f"vectors of {p} binary problem(s) call for {expected}")
    votes, top = _checked_votes(vote_lists, p, size)
    dual_coef, intercept, last_coef, coef_sums, n_steps = arrays.values()
    return Expansion(kernel, model.degree, model.gamma, model.coef0, precomputed, vectors,
                     columns, size, dual_coef, intercept, last_coef, coef_sums, n_steps,
                     votes=votes, top=top)


def _check_kind(kernel, precomputed: bool, shape: tuple) -> None:
    if precomputed and kernel != "precomputed":
        raise ValueError(
            f"This model was fitted with kernel='precomputed': it keeps no support vectors, "
            f"only the columns support_ of the Gram matrix, so it cannot predict or continue "
            f"with kernel={kernel!r}. Set kernel='precomputed' again, or fit anew."
        )
    if not precomputed and kernel == "precomputed":
        raise ValueError(
            f"This model was fitted with a kernel of the features (it keeps {shape[0]} "
            f"support vectors of {shape[1]} features), so it cannot predict or continue with "
            "kernel='precomputed'. Set kernel to the one it was fitted with, or fit anew."
        )


def _support_size(precomputed: bool, vectors, columns, width: int) -> int:
    """The support vectors of a model that reads rows of ``width`` columns."""
    if not precomputed:
        if vectors.shape[1] != width:
            raise _disagree(f"support_vectors_ has {vectors.shape[1]} features where X has "
                            f"{width}")
        return vectors.shape[0]
    columns = np.asarray(columns)
    if columns.ndim != 1 or columns.dtype.kind not in "iu" or (
            columns.size and not 0 <= columns.min() <= columns.max() < width):
        raise _disagree(f"support_ must be indices of the {width} columns of the kernel "
                        "matrix X")
    return columns.shape[0]


def _checked_votes(votes: list, p: int, size: int) -> tuple[tuple, int]:
    """The voted model's lists as (rows, signs, counts, steps) per problem, checked for the
    compiled vote, which reads support column rows[k], signs[k] and counts[k + 1] for every
    update k unchecked; and one more than the largest row."""
    if not votes:  # KernelPerceptron
        return (), 0
    names = ("update_support_", "update_signs_", "vote_counts_", "_update_steps")
    for name, value in zip(names, votes, strict=True):
        if len(value) != p:
            raise _disagree(f"{name} holds {len(value)} arrays for {p} binary problem(s)")
    problems, top = [], 0
    for k, arrays in enumerate(zip(*votes, strict=True)):
        rows, signs, counts, steps = (np.asarray(a) for a in arrays)
        m = rows.shape[0] if rows.ndim == 1 else -1
        shapes = [a.shape for a in (rows, signs, counts, steps)]
        if m < 0 or shapes != [(m,), (m,), (m + 1,), (m,)] or not (
                rows.dtype.kind in "iu" and signs.dtype.kind in "iuf"
                and counts.dtype.kind in "iuf"):
            raise _disagree(f"update_support_[{k}], update_signs_[{k}], vote_counts_[{k}] "
                            f"and _update_steps[{k}] have shapes {shapes}")
        if m and not 0 <= rows.min() <= rows.max() < size:
            raise _disagree(f"update_support_[{k}] holds rows {rows.min()} to {rows.max()} "
                            f"of {size} support vectors")
        top = max(top, int(rows.max()) + 1 if m else 0)
        problems.append((rows, signs, counts, steps))
    return tuple(problems), top


def _disagree(what: str) -> ValueError:
    return ValueError(f"{what}: the fitted attributes disagree (edited, or replaced by a fit "
                      "or partial_fit in another thread while this call read them). Fit the "
                      "model again.")


def fitted_burn_in(model) -> int:
    """The burn_in of the fit that made the averaging sums (0 in model files from before
    it was kept, which were all averaged from the first step)."""
    return int(getattr(model, "_burn_in", 0))


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
            assert steps is not None  # weights come from a fitted expansion, as steps do
            return run_linear_perceptron(X, labels, fit_intercept=model.fit_intercept,
                                         w0=weights[k], n_steps=int(steps[k]),
                                         burn_in=burn_in, **options)
        return linear
    gram = training_gram(X, model.kernel, degree=model.degree, gamma=model.gamma,
                         coef0=model.coef0, fit_intercept=model.fit_intercept,
                         cache_size=model.cache_size)
    scores = None if fitted is None else expansion_scores(
        model, X, fitted, fitted.last_coef, intercept_of(fitted.last_coef, model.fit_intercept))

    rule: dict[str, Any] = dict(margin=float(model.margin), burn_in=burn_in,
                                record_updates=record_updates)

    def dual(k, labels, **options):
        if scores is None:
            return run_kernel_perceptron(gram, labels, **rule, **options)
        assert steps is not None  # scores come from a fitted expansion, as steps do
        return run_kernel_perceptron(gram, labels, f0=scores[:, k], n_steps=int(steps[k]),
                                     **rule, **options)
    return dual


def grown_expansion(X, targets: Targets, runs: list[KernelRun], fitted: Expansion | None, *,
                    precomputed: bool, weights: NDArray | None = None) -> tuple:
    """The expansion after the runs on X: that of ``fitted`` (if any), then the new support.

    With row ``weights``, each update on row i added weights[i] y_i k(x_i, .), so the
    coefficients and sums of row i are its signed counts times its weight.

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
    if weights is not None:
        signs = signs * weights[support]
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
    progress after each block (:mod:`halfspaces._utils.progress`).
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
            fast_perceptron.voted_scores(G, update_rows, signs, counts, c, votes[k, rows])
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
