"""The dual (kernel) perceptron's run and the Gram rows it reads.

The perceptron's weights are always a sum of training examples, w = sum_i alpha_i y_i x_i,
where alpha_i counts the updates on example i; replacing <x_i, x> by a Mercer kernel
k(x_i, x) gives the kernel perceptron (Aizerman, Braverman and Rozonoer 1964; Freund and
Schapire 1999; Shalev-Shwartz and Ben-David, *Understanding Machine Learning*, 2014,
Section 16.2). :func:`run_kernel_perceptron` supplies one pass of the compiled dual loop
(:mod:`halfspaces._fast.dual`) to the epoch driver; :class:`GramRows`
(:mod:`halfspaces._kernel.gram`) computes the rows of the Gram matrix an
update needs (with the rows of the next likely updates, in one pass over X), and keeps as
many as ``cache_size`` allows. The run updates on the perceptron's mistakes, or within a
margin (:func:`update_threshold`), and its sums can leave out a burn-in. With the linear
kernel the dual run is the primal run, so :func:`run_linear_perceptron` runs the primal loop
(O(nnz) per update instead of an O(n nnz) Gram row) and reads alpha off its update log.
Both runs also return what the averaged and voted forms of Freund and Schapire (1999) need:
the step count, the sums of the steps of each example's updates (the average of the
hypotheses is alpha - sums / (T - burn_in)) and, when asked, the log of the updates; and
both continue an earlier hypothesis (its decision values, or its primal weights) for warm starts and
``partial_fit``. The kernel matrices themselves are computed in
:mod:`halfspaces._kernel.gram`.

References
----------
.. [1] M. A. Aizerman, E. M. Braverman and L. I. Rozonoer. Theoretical foundations of the
   potential function method in pattern recognition learning. Automation and Remote
   Control 25, 1964.
.. [2] Y. Freund and R. E. Schapire. Large margin classification using the perceptron
   algorithm. Machine Learning 37(3), 1999.
.. [3] S. Shalev-Shwartz and S. Ben-David. Understanding Machine Learning: From Theory to
   Algorithms. Cambridge University Press, 2014 (Chapter 16: kernel methods).
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial

import numpy as np
import scipy.sparse as sp
from numpy.typing import NDArray

from halfspaces._fast import dual as fast_dual
from halfspaces._fast import perceptron as fast_perceptron
from halfspaces._kernel.gram import (
    GramRows,
    callable_matrix,
    check_kernel_scale,
    log2_largest_square_norm,
)
from halfspaces._perceptron.epochs import run_epochs
from halfspaces._perceptron.run import PerceptronState, loop_targets, run_perceptron

__all__ = ["KernelRun", "overflow_error", "run_kernel_perceptron", "run_linear_perceptron",
           "training_gram", "update_threshold"]

_KIND = {"linear": fast_dual.LINEAR, "poly": fast_dual.POLY, "rbf": fast_dual.RBF,
         "sigmoid": fast_dual.SIGMOID}


@dataclass(frozen=True)
class KernelRun:
    """The outcome of :func:`run_kernel_perceptron` on one binary problem.

    ``alpha[i]`` counts the updates on example i; the hypothesis is
    f(x) = sum_i alpha_i y_i (k(x_i, x) + c), added to the starting hypothesis of a resumed
    run. ``sums[i]`` is the sum of max(t - 1 - burn_in, 0) over the 1-based steps t of
    those updates, and ``n_steps`` the step count T at the end (including the steps of
    earlier runs): the average of the coefficients after the steps burn_in + 1, ..., T is
    alpha - sums / (T - burn_in) (Freund and Schapire 1999; burn_in = 0 averages them
    all). ``update_rows`` and ``update_steps`` list the row and step of every update, in
    order, when the run recorded them (the voted perceptron's hypotheses).

    Attributes
    ----------
    alpha : ndarray of int64 of shape (n_samples,)
        Updates per example in this run.
    n_updates, n_epochs : int
        Updates and passes made by this run.
    converged : bool
        Whether the last pass made no update.
    sums : ndarray of int64 of shape (n_samples,)
        Per example, the sum of max(t - 1 - burn_in, 0) over the steps t of its updates.
    n_steps : int
        The step count T at the end, earlier runs' steps included.
    update_rows, update_steps : ndarray of int64 or None
        Row and step of every update, in order (None unless recorded).
    """

    alpha: NDArray[np.int64]
    n_updates: int
    n_epochs: int
    converged: bool
    sums: NDArray[np.int64]
    n_steps: int = 0
    update_rows: NDArray[np.int64] | None = None
    update_steps: NDArray[np.int64] | None = None


def run_kernel_perceptron(gram: GramRows, y: NDArray, *, positive=1.0, max_epochs: int = 1,
                          selection: str = "cyclic",
                          rng: np.random.RandomState | None = None,
                          f0: NDArray | None = None, n_steps: int = 0,
                          record_updates: bool = False, margin: float = 0.0,
                          burn_in: int = 0, weights: NDArray | None = None) -> KernelRun:
    """The dual perceptron on the targets +1 where ``y == positive``, -1 elsewhere.

    Example i causes an update when y_i f(x_i) <= margin (k(x_i, x_i) + c): at margin 0
    the perceptron's mistakes, above it the perceptron with margin (Krauth and Mezard 1987),
    whose test does not change when the kernel is multiplied by a constant. Stops after a
    pass with no update (converged) or after ``max_epochs`` passes; with
    ``selection="shuffle"`` each pass visits a fresh permutation drawn from ``rng``. A run
    that continues an earlier hypothesis h (warm start, partial_fit) starts from its
    decision values ``f0`` = h(x_j) on these rows and from its step count ``n_steps``;
    alpha then counts the new updates only. ``sums`` leave out the first ``burn_in`` steps
    of all runs (:func:`halfspaces._fast.dual.dual_epoch`). Arguments of the wrong length,
    shape or type (y not one label per row of ``gram``, f0 not one finite value per label)
    raise ValueError naming them.

    Parameters
    ----------
    gram : GramRows
        The rows k(x_i, .) + c of the training Gram matrix, computed as updates need them.
    y : ndarray of shape (n_samples,)
        The labels.
    positive : object, default=1.0
        The label that is +1.
    max_epochs : int, default=1
        The most passes.
    selection : {"cyclic", "shuffle"}, default="cyclic"
        The order of each pass.
    rng : numpy.random.RandomState or None, default=None
        Draws the permutations of ``selection="shuffle"`` (which needs it).
    f0 : ndarray of shape (n_samples,) or None, default=None
        The decision values of the hypothesis a resumed run continues (None: 0).
    n_steps : int, default=0
        The steps made before this run.
    record_updates : bool, default=False
        Record the row and step of every update (the voted perceptron).
    margin : float, default=0.0
        Update when y_i f(x_i) <= margin (k(x_i, x_i) + c) (:func:`update_threshold`).
    burn_in : int, default=0
        The steps, counted over all runs, that take no part in ``sums``.
    weights : ndarray of shape (n_samples,) or None, default=None
        Validated row weights (:func:`halfspaces._validation.row_weights`): an update on
        example i adds weights[i] y_i (k(x_i, .) + c); an example of weight 0 never
        updates. ``alpha`` and ``sums`` still count updates and steps: the hypothesis's
        coefficient of example i is weights[i] y_i alpha_i.

    Returns
    -------
    KernelRun
        The dual coefficients and the run's counts.
    """
    y, f0 = _run_arguments(gram, y, f0, positive, max_epochs, selection, n_steps)
    if selection == "shuffle" and rng is None:
        raise ValueError("selection='shuffle' draws its permutations from rng: pass one.")
    n = y.shape[0]
    if weights is not None and weights.shape != (n,):
        raise ValueError(f"weights has shape {weights.shape} for the {n} rows of y.")
    rule = (update_threshold(gram, margin), _checked_burn_in(burn_in))
    Y = loop_targets(y, positive, weights)
    f = np.zeros(n) if f0 is None else np.array(f0, dtype=np.float64)
    alpha, sums = np.zeros(n, dtype=np.int64), np.zeros(n, dtype=np.int64)
    clock = np.array([n_steps, 0], dtype=np.int64)
    log = np.empty((2, n if record_updates else 0), dtype=np.int64)
    logs = []

    def one_epoch(order: NDArray[np.int64]) -> int:
        clock[1] = 0
        k = _one_epoch(gram, Y, f, (alpha, sums, clock), log, order, rule)
        if record_updates and k >= 0:
            logs.append(log[:, : clock[1]].copy())
        return k

    epochs = run_epochs(one_epoch, n, max_epochs=max_epochs, selection=selection, rng=rng,
                        bad_row=overflow_error)
    rows, steps = np.concatenate(logs, axis=1) if record_updates else (None, None)
    return KernelRun(alpha, epochs.n_updates, epochs.n_epochs, epochs.converged, sums,
                     int(clock[0]), rows, steps)


def _run_arguments(gram, y, f0, positive, max_epochs, selection, n_steps):
    """y and f0 as arrays, once every argument of :func:`run_kernel_perceptron` is checked.

    The compiled loop reads y[i], f[i], slot[i] and K[slot[i], j] for i, j < len(y) without
    bounds checks: a y longer than the Gram matrix, or an f0 longer than y, read and wrote
    past their ends (a segmentation fault), so the lengths are checked here, by name.
    """
    if not isinstance(gram, GramRows):
        raise TypeError(f"gram must be a GramRows (see training_gram); got {type(gram).__name__}.")
    n = gram.slot.shape[0]
    _check_gram_rows(gram, n)
    y = np.asarray(y)
    if y.ndim != 1 or y.dtype.kind not in "biuf" or y.shape[0] != n:
        raise ValueError(f"y must be a one-dimensional numeric array of {n} labels, one per "
                         f"row of the Gram matrix; got a {y.dtype} array of shape {y.shape}.")
    if y.dtype.kind == "f" and not np.isfinite(y).all():
        raise ValueError("y holds NaN or infinite labels.")
    if np.ndim(positive) != 0 or np.asarray(positive).dtype.kind not in "biuf":
        raise ValueError(f"positive must be one numeric label; got {positive!r}.")
    if f0 is not None:
        f0 = np.asarray(f0)
        if f0.shape != (n,) or f0.dtype.kind not in "biuf":
            raise ValueError(f"f0 must be a numeric array of shape ({n},), a decision value "
                             f"per row of y; got a {f0.dtype} array of shape {f0.shape}.")
        if not np.isfinite(f0).all():
            raise ValueError("f0 holds NaN or infinite decision values.")
    if not _is_int(max_epochs) or max_epochs < 1:
        raise ValueError(f"max_epochs must be an integer of at least 1; got {max_epochs!r}.")
    if selection not in ("cyclic", "shuffle"):
        raise ValueError(f"selection must be 'cyclic' or 'shuffle'; got {selection!r}.")
    if not _is_int(n_steps) or not 0 <= n_steps <= np.iinfo(np.int64).max:
        raise ValueError(f"n_steps must be a non-negative int64 step count; got {n_steps!r}.")
    return y, f0


def update_threshold(gram: GramRows, margin: float) -> NDArray[np.float64]:
    """margin max(k(x_i, x_i) + c, 0) for each training row: the dual loop's update test.

    Zeros at margin 0 (no kernel value computed). A kernel that is not positive
    semi-definite (sigmoid, a polynomial with negative coef0, a callable or precomputed
    matrix) can give k(x_i, x_i) + c < 0, where a negative threshold would not even update
    on a mistake (no update at f = 0: an empty model that "converged"), so such rows update
    on mistakes only. A diagonal entry that is not finite, or a margin that overflows it,
    would update on every visit (inf) or never (NaN), so it is refused, naming the row.
    """
    n = gram.slot.shape[0]
    if not (isinstance(margin, numbers.Real) and math.isfinite(margin) and margin >= 0):
        raise ValueError(f"margin must be a finite number >= 0; got {margin!r}.")
    if margin == 0:
        return np.zeros(n)
    with np.errstate(over="ignore", invalid="ignore"):
        threshold = float(margin) * np.maximum(gram.diagonal(), 0.0)
    bad = np.flatnonzero(~np.isfinite(threshold))
    if bad.size:
        raise ValueError(
            f"margin={margin!r} times k(x_i, x_i) + c is not finite for row {bad[0]}: the "
            "kernel value overflowed, or the margin is too large for it; rescale X, or "
            "lower degree, gamma or the margin.")
    return threshold


def _checked_burn_in(burn_in) -> int:
    if not _is_int(burn_in) or not 0 <= burn_in <= np.iinfo(np.int64).max:
        raise ValueError(f"burn_in must be a non-negative int64 step count; got {burn_in!r}.")
    return int(burn_in)


def _is_int(value) -> bool:
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


def _check_gram_rows(gram: GramRows, n: int) -> None:
    """Refuse a GramRows whose arrays disagree (the loop indexes K with slot, last_use with
    K's rows): only a GramRows changed after it was built can, so this is cheap insurance."""
    K, slot = gram.K, gram.slot
    if (
        K.ndim != 2
        or K.shape[1] != n
        or slot.shape != (n,)
        or gram.last_use.shape != (K.shape[0] + 1,)
        or (n and not -1 <= slot.min() <= slot.max() < K.shape[0])
    ):
        raise ValueError(
            "gram's rows, slots and clock disagree: build it again with training_gram or GramRows."
        )


def run_linear_perceptron(X, y: NDArray, *, positive=1.0, fit_intercept: bool = True,
                          max_epochs: int = 1, selection: str = "cyclic",
                          rng: np.random.RandomState | None = None,
                          w0: NDArray | None = None, n_steps: int = 0,
                          burn_in: int = 0, weights: NDArray | None = None) -> KernelRun:
    """:func:`run_kernel_perceptron` with the linear kernel at margin 0, run in the primal.

    The dual loop visits the examples in the same order and updates on the same sign test
    as the primal loop, whose weights are w = sum_i alpha_i y_i x'_i: the same updates, so
    alpha_i is the number of times example i appears in the primal run's update log. The
    decision values are the same sums taken in another order: on data whose products are
    exact (integers, a9a's 0/1 features) they are the same numbers and the runs agree bit
    for bit; on real-valued data they differ by rounding, which changes a run only where a
    decision value is within rounding of zero. ``rng`` draws the same permutations as
    there (the same epoch driver). A resumed run starts from the primal weights ``w0``
    (d coefficients, then the intercept) of the earlier hypothesis and its step count.
    ``weights`` scale the updates as in :func:`run_kernel_perceptron`.

    The log of updates holds the row and the step of each, which is all the averaged and
    voted forms need (the sums of :class:`KernelRun`), so the primal loop runs in its
    plain mode: the same updates as its averaged mode, without the running sum over d
    coordinates, which the dual coefficients do not use.
    """
    state = None
    if w0 is not None or n_steps:
        state = PerceptronState.zeros(X.shape[1])
        if w0 is not None:
            state.w[:] = w0
        state.counters[fast_perceptron.STEP] = n_steps
    run = run_perceptron(X, y, positive=positive, fit_intercept=fit_intercept,
                         max_epochs=max_epochs, selection=selection, rng=rng, state=state,
                         record_updates=True, weights=weights)
    n = X.shape[0]
    empty = np.empty(0, dtype=np.int64)
    rows = run.update_rows if run.update_rows is not None else empty
    steps = run.update_steps if run.update_steps is not None else empty
    alpha = np.bincount(rows, minlength=n).astype(np.int64, copy=False)
    sums = np.zeros(n, dtype=np.int64)
    np.add.at(sums, rows, np.maximum(steps - 1 - _checked_burn_in(burn_in), 0))
    return KernelRun(alpha, run.n_updates, run.n_epochs, run.converged, sums,
                     run.state.n_steps, rows, steps)


def _one_epoch(gram: GramRows, Y, f, state, log, order, rule) -> int:
    """One pass of the dual loop, computing missing Gram rows (a block) where the pass stops."""
    n, pos, total = f.shape[0], 0, 0
    while True:
        pos, k = fast_dual.dual_epoch(gram.K, gram.slot, Y, order, pos, f, state, log,
                               gram.last_use, rule)
        total += k
        if pos < 0:
            return pos  # -1 - i for row i: the driver raises
        if pos == n:
            return total
        gram.fetch_ahead(Y, f, order, pos, rule[0])


def overflow_error(row: int) -> ValueError:
    # The data passed the finiteness check (at fit, or at predict), so a non-finite decision
    # value is an overflow of the kernel values (or of a precomputed or callable kernel's
    # entries).
    return ValueError(
        f"The decision value of row {row} overflowed; the kernel values are too large: "
        "rescale X, or lower degree or gamma."
    )


def training_gram(X, kernel: str | Callable, *, degree: int = 3, gamma: float | None = None,
                  coef0: float = 1.0, fit_intercept: bool = True,
                  cache_size: float = 200.0) -> GramRows:
    """The :class:`GramRows` of validated training data X for the dual run.

    ``kernel`` is a name of :data:`KERNELS` (rows computed by the compiled loop), a callable
    k(A, B), or "precomputed" (X is the square Gram matrix itself). ``gamma=None`` means
    1 / n_features, as in :func:`kernel_matrix`. The constant feature of the homogeneous
    reduction adds 1 to every entry when ``fit_intercept``.
    """
    c = 1.0 if fit_intercept else 0.0
    if kernel == "precomputed":
        gram = X.toarray() if sp.issparse(X) else X
        return GramRows(X, cache_size, spec=(0, 0.0, 0.0, 0.0, c), gram=gram)
    if callable(kernel):
        return GramRows(X, cache_size, spec=(0, 0.0, 0.0, 0.0, c),
                        kernel_rows=partial(callable_matrix, kernel, B=X))
    gamma = 1.0 / X.shape[1] if gamma is None else float(gamma)
    spec = (_KIND[kernel], gamma, float(coef0), float(degree), c)
    gram = GramRows(X, cache_size, spec=spec)
    if kernel != "linear":  # the squared norms the cache computed for its kernel map
        check_kernel_scale(log2_largest_square_norm(X, gram.sq), kernel, degree, gamma,
                           coef0)
    return gram
