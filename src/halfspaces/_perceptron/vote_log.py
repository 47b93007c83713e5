"""The update log of the voted perceptrons: extended by each run, read once, checked, scored.

The voted perceptron (Freund and Schapire 1999) predicts with every weight vector of its run,
so :class:`~halfspaces.VotedPerceptron` and :class:`~halfspaces.VotedKernelPerceptron` keep
the run as a log: the training rows that caused updates (``support_vectors_``), and per
binary problem the row and sign of each update, its step, and the survival count of each
weight vector. :func:`extend_votes` appends a run's updates to that log, one definition for
both estimators (a warm start or ``partial_fit`` continues it). :func:`read_vote_log` reads a
fitted VotedPerceptron's log once and checks it before the compiled vote indexes it
unchecked, and :func:`vote_sums` scores rows with it, block by block. Like
:mod:`halfspaces._kernel.expansion`, this middle-layer module reads a model's fitted
attributes by name and imports no estimator.

References
----------
.. [1] Y. Freund and R. E. Schapire. Large margin classification using the perceptron
   algorithm. Machine Learning 37(3), 1999.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
from numpy.typing import NDArray

from halfspaces._fast import loop_input
from halfspaces._fast import perceptron as fast_perceptron
from halfspaces._perceptron.run import survival_counts
from halfspaces._utils.progress import report
from halfspaces._validation import Targets, check_sparse_structure

__all__ = ["extend", "extend_votes", "log_intercept", "read_vote_log", "stack_rows",
           "vote_scores", "vote_sums"]


def extend(old: NDArray | None, new: NDArray) -> NDArray:
    """``old`` followed by ``new``; a copy of ``new`` when there is no old log."""
    return new.copy() if old is None else np.concatenate([old, new])


def stack_rows(A, B):
    """The rows of A, then those of B: CSR if either is sparse, else a dense array."""
    import scipy.sparse as sp

    if sp.issparse(A) or sp.issparse(B):
        return sp.vstack([sp.csr_matrix(A), sp.csr_matrix(B)], format="csr")
    return np.vstack([A, B])


def extend_votes(old: Sequence | None, runs: Sequence, targets: Targets, rows: NDArray,
                 offset: int, n_steps: Sequence,
                 burn_in: int = 0,
                 weights: NDArray | None = None) -> tuple[list, list, list, list]:
    """Each problem's log after its run: (update rows, signs, steps, survival counts).

    Parameters
    ----------
    old : sequence of (rows, signs, steps) per problem, or None
        The log so far (None: the runs started afresh).
    runs : sequence of run results
        One per binary problem, each with ``update_rows`` and ``update_steps`` recorded.
    targets : Targets
        The labels of the runs' data, which give each update's sign.
    rows : ndarray
        The sorted rows of the runs' data that joined the support vectors; row
        ``rows[j]`` is support vector ``offset + j``.
    offset : int
        The support vectors kept before these runs.
    n_steps : sequence of int
        Each problem's step count T after its run (the last vector survives to it).
    burn_in : int, default=0
        The first steps, whose weight vectors get no votes (:func:`survival_counts`).
    weights : ndarray of shape (n_samples,) or None, default=None
        The rows' weights of a weighted run: an update on row i added weights[i] y_i x'_i,
        so its "sign" is that signed weight.

    Returns
    -------
    support, signs, steps, counts : lists of ndarray
        Per problem: the support vector and sign of every update, their 1-based steps, and
        the survival counts c_0, ..., c_K of the K + 1 weight vectors.
    """
    support, signs, steps = [], [], []
    for k, run in enumerate(runs):
        before = old[k] if old is not None else (None, None, None)
        support.append(extend(before[0], offset + np.searchsorted(rows, run.update_rows)))
        sign = targets.plus_minus(k, run.update_rows)
        if weights is not None:
            sign *= weights[run.update_rows]
        signs.append(extend(before[1], sign))
        steps.append(extend(before[2], run.update_steps))
    counts = [survival_counts(s, T, burn_in) for s, T in zip(steps, n_steps, strict=True)]
    return support, signs, steps, counts


def vote_scores(votes: NDArray, counts: Sequence) -> NDArray[np.float64]:
    """What ``decision_function`` returns from each problem's votes (problems, rows).

    A binary vote is returned as it is, sum_k c_k sign(f_k(x)). Beyond two classes each
    class's vote is divided by its number of votes, sum_k c_k, so that the argmax compares
    fractions in [-1, 1]: the one-vs-rest problems stop after different numbers of steps
    (each when it converges) and have different burn-ins left, so their raw sums are on
    different scales. Raw sums sent MNIST (RBF, margin 1, burn_in 15 of 30 passes) to the
    classes that ran longest: 0.953 test accuracy where the fractions give 0.971.
    """
    if votes.shape[0] == 1:
        return votes[0]
    totals = np.array([max(int(c.sum()), 1) for c in counts], dtype=np.float64)
    return (votes / totals[:, None]).T


def log_intercept(model) -> bool:
    """Whether the logged weight vectors have an intercept: the fit_intercept of the fit
    that logged them (set_params changes the next fit, not this model's votes). Model
    files written before it was kept hold the fit's parameters."""
    return getattr(model, "_fit_intercept", bool(model.fit_intercept))


def read_vote_log(model, n_features: int) -> tuple:
    """``support_vectors_`` and each problem's (update rows, signs, counts), each attribute
    read once and checked against the others before the compiled vote indexes them.

    Read once: a ``partial_fit`` in another thread replaces them one by one, and scoring
    that read the log again per block of rows took update rows beyond the support vectors
    it had read (a segfault). Checked: the vote reads the ``rows[k]``-th support vector,
    the k-th sign and the (k + 1)-th count without bounds checks, so hand-edited attributes
    (truncated support vectors or counts, indices out of range) were read beyond their end.
    The check costs one pass over the log, beside the vote's pass per row.
    """
    import scipy.sparse as sp

    S, support, signs, counts = (model.support_vectors_, model.update_support_,
                                 model.update_signs_, model.vote_counts_)
    n_problems = 1 if model.classes_.size == 2 else model.classes_.size
    problem: str | None
    if S.ndim != 2 or S.shape[1] != n_features:
        problem = f"support_vectors_ has shape {S.shape} for {n_features} features"
    elif not len(support) == len(signs) == len(counts) == n_problems:
        problem = (f"update_support_, update_signs_ and vote_counts_ hold {len(support)}, "
                   f"{len(signs)} and {len(counts)} entries for {n_problems} binary problems")
    else:
        logs = list(zip(support, signs, counts, strict=True))
        problem = next(filter(None, (_log_problem(k, *log, S.shape[0])
                                     for k, log in enumerate(logs))), None)
    if problem is not None:
        raise ValueError(
            f"this VotedPerceptron's fitted attributes disagree: {problem}. They were "
            "changed after the last fit, or replaced by a partial_fit running in another "
            "thread while it scored; fit it again, and score after partial_fit returns.")
    if sp.issparse(S):
        check_sparse_structure(S, "support_vectors_")
    return S, logs


def _log_problem(k: int, rows, signs, counts, n_support: int) -> str | None:
    """What is wrong with problem k's log of updates, or None."""
    if not (rows.ndim == 1 and rows.dtype.kind in "iu" and signs.shape == rows.shape
            and counts.shape == (rows.shape[0] + 1,)):
        return (f"problem {k} logs {rows.shape} update rows, {signs.shape} signs and "
                f"{counts.shape} counts (integer rows, one more count than updates)")
    if rows.size and not 0 <= rows.min() <= rows.max() < n_support:
        return f"problem {k} names update rows outside the {n_support} support_vectors_"
    return None


def vote_sums(X, S, logs: list, c: float, block: int) -> NDArray[np.float64]:
    """Each problem's vote sum_k c_k sign(<w_k, x> + b_k) of each row of X: (problems, rows).

    ``S`` and ``logs`` are what :func:`read_vote_log` returned, ``c`` is 1.0 where the
    weight vectors have an intercept (:func:`log_intercept`) and 0.0 where not. The rows
    are scored ``block`` at a time, and the rows done are reported as progress after each
    block (:mod:`halfspaces._utils.progress`).
    """
    n = X.shape[0]
    votes = np.empty((len(logs), n))
    scores = _vote_scorer(S, c)
    for start in range(0, n, block):
        stop = min(n, start + block)
        for k, (rows, signs, counts) in enumerate(logs):
            scores(X[start:stop], rows, signs, counts, votes[k, start:stop])
        report(stop, n)
    return votes


def _vote_scorer(S, c: float) -> Callable[..., None]:
    """The function that writes the votes of a block of rows X, given one problem's log.

    Dense X and dense S: G = X S^T by BLAS, as before, then the compiled vote. When either
    is sparse, the compiled loop computes G itself, lane block by lane block, with the sums
    SciPy's sparse product takes (in its dtype), never holding more of G than that.
    """
    import scipy.sparse as sp

    by_rows = sp.csr_matrix(S)
    by_rows.sort_indices()
    by_rows = (by_rows.data, by_rows.indices, by_rows.indptr)

    def scores(X, rows, signs, counts, out):
        if not (sp.issparse(X) or sp.issparse(S)):
            G = np.ascontiguousarray(X @ S.T, dtype=np.float64)
            fast_perceptron.voted_scores(G, rows, signs, counts, c, out)
            return
        X = sp.csr_matrix(X)
        scratch = np.empty((0, S.shape[1]), dtype=np.result_type(X.dtype, S.dtype))
        fast_perceptron.voted_scores_csr(loop_input(X), by_rows, rows, signs, counts, c, scratch,
                                         out)

    return scores
