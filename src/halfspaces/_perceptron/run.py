"""The perceptron runs: the binary perceptron's variants and the multiclass perceptron.

Estimators, ``online_perceptron`` and the theory tools call :func:`run_perceptron` on
validated data with ±1 targets, and :class:`~halfspaces.MulticlassPerceptron` calls
:func:`run_multiclass_perceptron` on class indices. Each supplies one pass of its compiled
loop to the epoch driver (:func:`halfspaces._perceptron.epochs.run_epochs`) and returns a
frozen result.
The binary variants (Rosenblatt 1958; averaged and voted, Freund and Schapire 1999; pocket
with ratchet, Gallant 1990) are loop modes, not copies of this loop.

References
----------
.. [1] F. Rosenblatt. The perceptron: a probabilistic model for information storage and
   organization in the brain. Psychological Review 65(6), 1958.
.. [2] Y. Freund and R. E. Schapire. Large margin classification using the perceptron
   algorithm. Machine Learning 37(3), 1999.
.. [3] S. I. Gallant. Perceptron-based learning algorithms. IEEE Transactions on Neural
   Networks 1(2), 1990.
.. [4] M. Collins. Discriminative training methods for hidden Markov models: theory and
   experiments with perceptron algorithms. EMNLP 2002.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial

import numpy as np
from numpy.typing import NDArray

from halfspaces._fast import loop_input
from halfspaces._fast import multiclass as fast_multiclass
from halfspaces._fast import perceptron as fast_perceptron
from halfspaces._perceptron.epochs import CYCLIC, non_finite_row_error, run_epochs
from halfspaces._utils.early_stopping import Watch

__all__ = [
    "MODES", "BlockEpoch", "MulticlassRun", "PerceptronRun", "PerceptronState", "TooManyUpdates",
    "loop_targets", "multiclass_weights", "non_finite_row_error", "perceptron_block_epoch",
    "run_multiclass_perceptron", "run_perceptron", "survival_counts",
]

MODES = {"plain": fast_perceptron.PLAIN, "averaged": fast_perceptron.AVERAGED,
         "voted": fast_perceptron.VOTED, "pocket": fast_perceptron.POCKET}


@dataclass
class PerceptronState:
    """What a run needs to continue exactly where the last one stopped.

    ``w`` and ``aux`` hold d coefficients then the intercept; ``aux`` is the averaging
    sum or the pocket weights; ``counters`` is indexed by the constants of
    :mod:`halfspaces._fast.perceptron` (step count, runs, pocket errors).
    """

    w: NDArray[np.float64]
    aux: NDArray[np.float64]
    counters: NDArray[np.int64] = field(
        default_factory=lambda: np.zeros(fast_perceptron.N_COUNTERS, dtype=np.int64)
    )

    @classmethod
    def zeros(cls, n_features: int) -> PerceptronState:
        return cls(np.zeros(n_features + 1), np.zeros(n_features + 1))

    def copy(self) -> PerceptronState:
        return PerceptronState(self.w.copy(), self.aux.copy(), self.counters.copy())

    @property
    def n_steps(self) -> int:
        return int(self.counters[fast_perceptron.STEP])


@dataclass(frozen=True)
class PerceptronRun:
    """The outcome of one call of :func:`run_perceptron`.

    ``coef`` and ``intercept`` are the variant's hypothesis (the averaged weights, the pocket
    weights, or the last weights). ``update_rows`` and ``update_steps`` list the row and the
    1-based step number of every update, in order, when the run recorded them. With early
    stopping, ``validation_scores`` holds the held-out accuracy after each epoch, the run
    returns to the state of the best one (``n_updates`` counts the updates up to it,
    ``n_epochs`` the epochs made), and ``stopped`` says whether the rule ended the run.
    """

    coef: NDArray[np.float64]
    intercept: float
    n_updates: int
    n_epochs: int
    converged: bool
    state: PerceptronState
    update_rows: NDArray[np.int64] | None = None
    update_steps: NDArray[np.int64] | None = None
    validation_scores: NDArray[np.float64] | None = None
    stopped: bool = False

    @property
    def n_errors(self) -> int:
        """The pocket weights' training errors on the data of this run (pocket mode)."""
        return int(self.state.counters[fast_perceptron.POCKET_ERRORS])


def run_perceptron(
    X,
    y: NDArray,
    *,
    positive=1.0,
    mode: str = "plain",
    fit_intercept: bool = True,
    max_epochs: int = 1,
    selection: str = "cyclic",
    rng: np.random.Generator | np.random.RandomState | None = None,
    state: PerceptronState | None = None,
    record_updates: bool = False,
    max_recorded: int | None = None,
    watch_for: Callable[[PerceptronState, list], Watch] | None = None,
    weights: NDArray[np.float64] | None = None,
) -> PerceptronRun:
    """Run the perceptron variant ``mode`` for up to ``max_epochs`` passes over (X, y).

    X is validated (C-contiguous float array or CSR); the targets are +1 where
    ``y == positive`` and -1 elsewhere (so ±1 labels need no ``positive``). Stops after a pass
    with no update (converged); for selection="worst" an epoch is n updates on the most
    violated example, and the run stops when no margin is <= 0. ``state`` is not modified:
    the run works on a copy and returns the new state. Without ``fit_intercept`` the
    hypothesis has b = 0: a state from a run with an intercept continues without it.
    With ``record_updates``, ``max_recorded`` stops the run by :class:`TooManyUpdates` as
    soon as the log holds more updates than that, so its memory stays bounded (an animation
    of 10^4 passes over 10^6 rows logged 312 million updates, 10 GB, before it refused).
    ``watch_for(state, logs)`` makes the early-stopping rule of the run from its state and
    its list of per-epoch update logs (:mod:`halfspaces._perceptron.early_stopping`); the
    run then ends on the rule and returns to the state (and log) of the best epoch.

    ``weights`` (validated: finite, >= 0, one per row; :func:`halfspaces._validation.
    row_weights`) scale each row's update, w += s_i y_i x'_i; the pocket then keeps the
    weights of the smallest weighted training error (``n_errors`` still counts its errors).
    The pocket judges, besides Gallant's ratchet, the weights at the end of every pass
    (and so at the end of the run): its training error is never above theirs.
    """
    _check_run_sizes(X, y, state)
    if weights is not None and weights.shape != y.shape:
        raise ValueError(f"weights has shape {weights.shape} for the {y.shape[0]} rows of X.")
    state = PerceptronState.zeros(X.shape[1]) if state is None else state.copy()
    if not fit_intercept:
        _drop_intercept(state)
    Xk, Y, mode_code = loop_input(X), loop_targets(y, positive, weights), MODES[mode]
    c = 1.0 if fit_intercept else 0.0
    n = X.shape[0]
    if mode_code == fast_perceptron.POCKET:
        _recount_pocket_errors(Xk, Y, c, state)
    log = np.empty((2, n if record_updates else 0), dtype=np.int64)
    logs: list[NDArray] = []
    recorded = [0]

    def one_epoch(order: NDArray[np.int64]) -> int:
        if selection == "worst":
            k = fast_perceptron.perceptron_worst(Xk, Y, c, mode_code, state.w, state.aux,
                                                 state.counters,
                                    log, n)
        else:
            k = fast_perceptron.perceptron_epoch(Xk, Y, order, c, mode_code, state.w, state.aux,
                                    state.counters, log)
            if mode_code == fast_perceptron.POCKET and k > 0:
                _judge_pass_end(Xk, Y, c, state)
        if mode_code == fast_perceptron.POCKET and 0 <= k < (n if selection == "worst" else 1):
            _pocket_the_separator(state)  # the pass converged: before a held-out score
        if record_updates and k >= 0:
            logs.append(log[:, :k].copy())
            recorded[0] += k
            if max_recorded is not None and recorded[0] > max_recorded:
                raise TooManyUpdates(recorded[0], len(logs))
        return k

    watch = None if watch_for is None else watch_for(state, logs)
    epochs = run_epochs(one_epoch, n, max_epochs=max_epochs, selection=selection, rng=rng,
                        bad_row=partial(non_finite_row_error, X), stop=watch)
    _refuse_underflowing_scores(X, state.w[:-1], fit_intercept)
    made, scores = epochs.n_epochs, None
    if watch is not None and watch.best is not None:
        (best, n_logs), epochs = watch.best
        state.w, state.aux, state.counters = best.w, best.aux, best.counters
        del logs[n_logs:]
        scores = np.array(watch.scores)
    if mode_code == fast_perceptron.POCKET and len(Y) > 2:  # n_errors counts, unweighted
        state.counters[fast_perceptron.POCKET_ERRORS] = fast_perceptron.count_errors(
            Xk, Y[:2], c, state.aux)
    coef, intercept = _hypothesis(mode_code, state)
    rows, steps = np.concatenate(logs, axis=1) if logs else (None, None)
    return PerceptronRun(coef, intercept, epochs.n_updates, made, epochs.converged,
                         state, rows, steps, scores, watch is not None and watch.stopped)


class TooManyUpdates(Exception):
    """A recording run passed its ``max_recorded`` updates (``count`` in ``passes``)."""

    def __init__(self, count: int, passes: int) -> None:
        super().__init__(f"{count} updates in {passes} passes")
        self.count, self.passes = count, passes


def _check_run_sizes(X, y: NDArray, state: PerceptronState | None) -> None:
    """Refuse labels or a state whose sizes do not fit X, before a compiled loop sees them.

    The loops index y by row and w, aux by feature without bounds checks: a state of
    another width (a model whose fitted attributes were edited, or any caller's mistake)
    was read and written beyond its end, a segfault or silently wrong weights.
    """
    n, d = X.shape
    if y.shape != (n,):
        raise ValueError(
            f"y has shape {y.shape} for the {n} rows of X; one label per row is required."
        )
    if state is None:
        return
    if not state.w.shape == state.aux.shape == (d + 1,):
        raise ValueError(
            f"the perceptron state holds {state.w.shape} weights and {state.aux.shape} "
            f"sums for X of {d} features, which need {d + 1} each (the intercept last): "
            "it belongs to a model of another width; fit again, or widen the model.")
    if state.counters.shape != (fast_perceptron.N_COUNTERS,):
        raise ValueError(f"the perceptron state holds {state.counters.shape} counters, not "
                         f"({fast_perceptron.N_COUNTERS},).")


def _drop_intercept(state: PerceptronState) -> None:
    """Set the intercept slots of ``w`` and ``aux`` (the averaging sum, the pocket) to 0.

    A loop with c = 0 neither reads nor moves them, so an intercept left there by an
    earlier run with c = 1 (a warm start or partial_fit after set_params(fit_intercept=
    False)) was reported as the model's b, and predict added it to a model trained
    without it (accuracy 0.5 on data a fresh fit separates). scikit-learn's
    LogisticRegression drops the intercept of a warm start the same way.
    """
    state.w[-1] = 0.0
    state.aux[-1] = 0.0


def loop_targets(y: NDArray, positive, weights: NDArray | None = None) -> tuple:
    """The loops' view of the targets: the labels and the positive class in their dtype.

    With ``weights``, also the rows' weights and a one-slot tally of the pocket's weighted
    errors (:mod:`halfspaces._fast.perceptron`); without, the pair compiles to the
    unweighted loop.

    Refused when that dtype cannot hold the class: int8(257) is 1, so a batch of int8
    labels trained the wrong class (the estimators widen the labels first,
    :func:`halfspaces._validation.encode_targets`).
    """
    try:
        target = y.dtype.type(positive)
    except OverflowError:  # a Python int beyond the dtype
        target = None
    if target is None or target != positive:
        raise ValueError(f"positive={positive!r} is not a value of y's dtype {y.dtype}; "
                         "pass y in a dtype that holds it.")
    if weights is None:
        return y, target
    return y, target, np.ascontiguousarray(weights, dtype=np.float64), np.zeros(1)


def survival_counts(steps: NDArray, n_steps: int, burn_in: int = 0) -> NDArray[np.int64]:
    """c_0..c_K from the 1-based steps s_1..s_K of the updates and the total step count T.

    w_0 saw s_1 - 1 examples; w_k (created at s_k, counting that example) saw
    s_{k+1} - s_k; the last one saw T - s_K + 1. With a ``burn_in``, only the steps after it
    count; while T <= burn_in the last vector gets the one vote (as the averaged form then
    predicts with the last hypothesis).
    """
    bounds = np.concatenate([[1], steps, [n_steps + 1]])
    # bounds - 1 against burn_in, not bounds against burn_in + 1: a burn_in of 2^63 - 1
    counts = np.diff(np.maximum(bounds - 1, burn_in)).astype(np.int64)
    if burn_in and n_steps <= burn_in:
        counts[-1] = 1
    return counts


@dataclass(frozen=True)
class BlockEpoch:
    """One pass of :func:`perceptron_block_epoch` over a block of rows.

    ``w`` and ``aux`` (d coefficients then the intercept) are the weights and the averaging
    sum after the pass, ``n_steps`` the step count after it (the count it started from plus
    the block's rows), ``n_updates`` the block's mistakes.
    """

    w: NDArray[np.float64]
    aux: NDArray[np.float64]
    n_steps: int
    n_updates: int


def perceptron_block_epoch(X, y: NDArray, w: NDArray, aux: NDArray | None = None,
                           n_steps: int = 0, *, positive=1.0, mode: str = "plain",
                           fit_intercept: bool = True,
                           order: NDArray[np.int64] = CYCLIC) -> BlockEpoch:
    """One epoch of the serial perceptron loop on a block of rows, from given weights.

    The step of iterative parameter mixing (McDonald, Hall and Mann, NAACL 2010): a worker
    runs one pass of the serial loop over its block, starting from the mixed weights ``w``
    (and, for ``mode="averaged"``, the averaging sum ``aux`` and the step count ``n_steps``
    reached so far), and returns the new state. On the whole data it is the serial epoch
    bit for bit: it calls the same compiled loop on the same state. The arguments are not
    modified. Raises the serial fit's ValueError for a row with a non-finite decision value
    (its index within the block), and for scores that underflow (rows below 2^-500).

    Examples
    --------
    >>> import numpy as np
    >>> from halfspaces._perceptron.run import perceptron_block_epoch
    >>> X, y = np.array([[1.0], [-2.0]]), np.array([1.0, -1.0])
    >>> out = perceptron_block_epoch(X, y, np.zeros(2))
    >>> out.w, out.n_updates, out.n_steps
    (array([1., 1.]), 1, 2)
    """
    if mode not in ("plain", "averaged"):
        raise ValueError(f"mode={mode!r}: a block epoch runs the 'plain' or 'averaged' loop.")
    state = PerceptronState(np.array(w, dtype=np.float64),
                            np.zeros_like(w, dtype=np.float64) if aux is None
                            else np.array(aux, dtype=np.float64))
    _check_run_sizes(X, y, state)
    if not fit_intercept:
        _drop_intercept(state)
    if order.size and not (order.ndim == 1 and 0 <= order.min() and order.max() < X.shape[0]):
        raise ValueError(f"order must hold row indices in [0, {X.shape[0]}).")
    state.counters[fast_perceptron.STEP] = n_steps
    log = np.empty((2, 0), dtype=np.int64)
    k = fast_perceptron.perceptron_epoch(loop_input(X), loop_targets(y, positive), order,
                            1.0 if fit_intercept else 0.0, MODES[mode], state.w, state.aux,
                            state.counters, log)
    if k < 0:
        raise non_finite_row_error(X, -1 - k)
    _refuse_underflowing_scores(X, state.w[:-1], fit_intercept)
    return BlockEpoch(state.w, state.aux, state.n_steps, int(k))


# |<w, x>| of rows and weights below this underflows: w is a sum of rows, so both are
# below it when the largest |x_ij| is (2^-500 squared is 2^-1000, a few hundred products
# from the subnormals)
_TINY = 2.0**-500
# a sum of rows below _TINY stays below this for any count of updates (< 2^63): only runs
# whose weights are this small pay the pass over X that the check needs
_TINY_SUM = 2.0**-400


def _refuse_underflowing_scores(X, w: NDArray, fit_intercept: bool) -> None:
    """Refuse a run whose scores <w, x_i> underflowed (to 0, a mistake each, or to subnormals).

    The homogeneous perceptron is scale-free (c X gives c w and the same mistakes), but
    floats are not: on X at 1e-170 every score is 1e-340 -> 0, counted as a mistake, and a
    run made 100 updates on two separable points whose Novikoff bound is 1. A run that
    converges is no proof: at 2^-540 the products are subnormal, and a run made 844 updates
    where the exact one makes 11, and the averaged and voted hypotheses mispredicted. With an
    intercept, a score b + <w, x> is right while b != 0 and underflows where b = 0. ``w`` is
    the weights without the intercept, final or per class.
    """
    largest = float(np.max(np.abs(w), initial=0.0))
    if not 0.0 < largest < _TINY_SUM:
        return
    from halfspaces._fast.columns import column_stats

    top = float(np.max(column_stats(loop_input(X), X.shape[1])[0], initial=0.0))
    if 0.0 < top < _TINY:
        scale_free = ("The perceptron without an intercept is the same on c X for any c > 0"
                      if not fit_intercept else "With an intercept, rescaling X changes "
                      "the model (b is counted in units of 1, not of X)")
        raise ValueError(
            f"the largest |x_ij| of X is {top:.3g}: the perceptron's scores <w, x>, products "
            "of two numbers that small, underflow float64 (to 0 or to subnormals that keep "
            f"few digits) and miscount mistakes. {scale_free}: multiply X by a power of two "
            "(say 2^600) and fit again."
        )


def _recount_pocket_errors(Xk, Y, c, state: PerceptronState) -> None:
    # The pocket is judged on the data of the current call: a fresh fit, a warm start on new
    # data, or a partial_fit batch all compare candidates on the same examples. The runs
    # were counted on the earlier data, so the ratchet starts again from 0: a pocket run of
    # 20 left from an earlier call kept every later weight vector from being judged
    # (a stale pocket with 4 errors of 4 beside weights that separate).
    errors = fast_perceptron.count_errors(Xk, Y, c, state.aux)
    if len(Y) > 2:
        Y[3][0] = errors
    else:
        state.counters[fast_perceptron.POCKET_ERRORS] = errors
    state.counters[fast_perceptron.EVALUATED] = 0
    state.counters[fast_perceptron.POCKET_IS_CURRENT] = int(np.array_equal(state.w, state.aux))
    state.counters[fast_perceptron.RUN] = 0
    state.counters[fast_perceptron.POCKET_RUN] = 0


def _judge_pass_end(Xk, Y, c, state: PerceptronState) -> None:
    # Gallant's ratchet judges the current weights only once their run of correct
    # predictions outlasts the pocket's, so the weights a pass ends with could be better
    # than the pocket and never be looked at (a noisy 2,000 x 4 Gaussian set: pocket 0.707
    # training accuracy beside 0.717 for the last weights of the same run). One count per
    # pass, the cost of the pass itself, judges them; weights already judged are not
    # counted again (the same count would give the same answer).
    counters = state.counters
    if not (counters[fast_perceptron.POCKET_IS_CURRENT] or counters[fast_perceptron.EVALUATED]):
        fast_perceptron.judge_current(Xk, Y, c, state.w, state.aux, counters)


def _pocket_the_separator(state: PerceptronState) -> None:
    # A pass without a mistake proves the current weights make no training error, the
    # fewest possible; the ratchet judges them only once their run exceeds the pocket's,
    # which a pocket run spanning two shuffled passes (up to 2n - 2) can outlast.
    if state.counters[fast_perceptron.POCKET_IS_CURRENT] == 1:
        return
    state.aux[:] = state.w
    state.counters[fast_perceptron.POCKET_ERRORS] = 0
    state.counters[fast_perceptron.EVALUATED] = 1
    state.counters[fast_perceptron.POCKET_IS_CURRENT] = 1
    state.counters[fast_perceptron.POCKET_RUN] = state.counters[fast_perceptron.RUN]


def _hypothesis(mode_code: int, state: PerceptronState) -> tuple[NDArray, float]:
    if mode_code == fast_perceptron.AVERAGED and state.n_steps > 0:
        weights = state.w - state.aux / state.n_steps
    elif mode_code == fast_perceptron.POCKET:
        weights = state.aux
    else:
        weights = state.w
    return weights[:-1].copy(), float(weights[-1])


_NO_WEIGHTS = np.empty(0, dtype=np.float64)  # the multiclass loop's unweighted run


@dataclass(frozen=True)
class MulticlassRun:
    """The outcome of :func:`run_multiclass_perceptron`.

    ``coef`` (k, d) and ``intercept`` (k,) are the discriminants (averaged when asked).

    Attributes
    ----------
    coef : ndarray of shape (n_classes, n_features)
        The weights of each class's discriminant.
    intercept : ndarray of shape (n_classes,)
        Their intercepts.
    n_updates, n_epochs : int
        Mistakes (up to the epoch returned) and passes made.
    converged : bool
        Whether the pass that gave the weights made no mistake.
    validation_scores : ndarray or None
        With early stopping, the held-out accuracy after each epoch.
    stopped : bool
        Whether the early-stopping rule ended the run.
    """

    coef: NDArray[np.float64]
    intercept: NDArray[np.float64]
    n_updates: int
    n_epochs: int
    converged: bool
    validation_scores: NDArray[np.float64] | None = None
    stopped: bool = False


def run_multiclass_perceptron(X, labels: NDArray[np.int64], n_classes: int, *,
                              fit_intercept: bool = True, max_epochs: int = 1,
                              selection: str = "cyclic", average: bool = False,
                              rng: np.random.RandomState | None = None,
                              watch_for: Callable[..., Watch] | None = None,
                              weights: NDArray[np.float64] | None = None) -> MulticlassRun:
    """Run the multiclass perceptron on validated X and class indices 0..n_classes-1.

    The argmax rule with the two-row update on a mistake (Collins 2002; Kesler's
    construction makes it the binary perceptron on k(d + 1) coordinates). Stops after a pass
    with no mistake (converged) or after ``max_epochs`` passes; ``average`` returns the mean
    of the weights after every step, kept as a running sum.

    Parameters
    ----------
    X : ndarray or scipy.sparse.csr_matrix of shape (n_samples, n_features)
        Validated training data (float32 or float64).
    labels : ndarray of int64 of shape (n_samples,)
        The class index of each row.
    n_classes : int
        The number of classes k.
    fit_intercept : bool, default=True
        Learn an intercept per class.
    max_epochs : int, default=1
        The most passes.
    selection : {"cyclic", "shuffle"}, default="cyclic"
        The order of each pass: as given, or a fresh permutation drawn from `rng`.
    average : bool, default=False
        Return the mean of the weights after every step.
    rng : numpy.random.RandomState or None, default=None
        Draws the permutations of ``selection="shuffle"``.
    watch_for : callable or None, default=None
        ``watch_for(W, U, counters)`` makes the early-stopping rule from the run's weights,
        running sums and counters (:mod:`halfspaces._perceptron.early_stopping`); the run
        then ends on it and returns the weights of its best epoch.
    weights : ndarray of shape (n_samples,) or None, default=None
        Validated row weights (:func:`halfspaces._validation.row_weights`): a mistake on
        row i moves the two rows by weights[i] x'_i; a row of weight 0 never updates.

    Returns
    -------
    MulticlassRun
        The discriminants and the run's counts.
    """
    # the loop indexes W's rows by label without bounds checks
    if labels.shape != (X.shape[0],) or labels.size and not (
            0 <= labels.min() and labels.max() < n_classes):
        raise ValueError(f"labels must be one class index in [0, {n_classes}) per row of X.")
    if weights is not None and weights.shape != labels.shape:
        raise ValueError(f"weights has shape {weights.shape} for the {labels.shape[0]} rows of X.")
    Xk = loop_input(X)
    row_weights = _NO_WEIGHTS if weights is None else np.ascontiguousarray(weights, np.float64)
    W, U = np.zeros((n_classes, X.shape[1] + 1)), np.zeros((n_classes, X.shape[1] + 1))
    counters = np.zeros(fast_multiclass.N_COUNTERS, dtype=np.int64)
    c = 1.0 if fit_intercept else 0.0

    def one_epoch(order: NDArray[np.int64]) -> int:
        return fast_multiclass.multiclass_epoch(Xk, labels, order, c, average, W, U, counters,
                                                row_weights)

    watch = None if watch_for is None else watch_for(W, U, counters)
    epochs = run_epochs(one_epoch, X.shape[0], max_epochs=max_epochs, selection=selection,
                        rng=rng, bad_row=partial(non_finite_row_error, X), stop=watch)
    _refuse_underflowing_scores(X, W[:, :-1], fit_intercept)
    made, scores = epochs.n_epochs, None
    if watch is not None and watch.best is not None:
        (W, U, counters), epochs = watch.best
        scores = np.array(watch.scores)
    found = multiclass_weights(W, U, counters, average)
    return MulticlassRun(found[:, :-1].copy(), found[:, -1].copy(), epochs.n_updates,
                         made, epochs.converged, scores, watch is not None and watch.stopped)


def multiclass_weights(W: NDArray, U: NDArray, counters: NDArray, average: bool) -> NDArray:
    """The discriminants (k, d + 1) of a multiclass run: W, or its mean over the steps."""
    steps = counters[fast_multiclass.STEP]
    return W - U / steps if average and steps > 0 else W
