"""The perceptron and the averaged perceptron on a Dask cluster, by iterative parameter mixing.

Each epoch every partition runs one epoch of the serial loop
(:func:`halfspaces._perceptron.run.perceptron_block_epoch`) on its own rows, starting from
the mixed weights of the previous epoch; the client then mixes the partitions' weights,
w = sum_i mu_i w_i (McDonald, Hall and Mann 2010, Algorithm 2 for the perceptron, with the
mixing weights of their Section 4). With ``mixing="error"`` mu_i is proportional to the
mistakes k_i partition i made in the epoch (uniform over the partitions that hold rows in an
epoch without any, and with ``mixing="uniform"``: an empty partition is no shard); then, on data
separable with margin gamma inside a ball of radius R, the mixed mistake count
sum over epochs of sum_i mu_i k_i is at most (R/gamma)^2 (their Theorem 3), so the number of
epochs with a mistake is too, and the run stops after an epoch with no mistake anywhere.

The averaged perceptron predicts with the mean of every weight vector the partitions held,
over all their steps in all epochs: the serial average (1/T) sum_t w_t when there is one
partition. It is kept in the serial loop's form w - A/T (Freund and Schapire 1999's running
sum): a partition run from (w, A, T) leaves (w_i, A_i, T + n_i) with
(T + n_i) w_i - A_i - (T w - A) the sum of its n_i weight vectors, so the client keeps the
sum of all of them exactly as the serial loop would.

References
----------
.. [1] R. McDonald, K. Hall and G. Mann. Distributed training strategies for the structured
   perceptron. NAACL HLT 2010.
.. [2] Y. Freund and R. E. Schapire. Large margin classification using the perceptron
   algorithm. Machine Learning 37(3), 1999.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import ClassVar

import numpy as np
from dask import is_dask_collection
from numpy.typing import NDArray
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted

from halfspaces._perceptron.advice import not_converged_advice
from halfspaces._perceptron.run import PerceptronState, perceptron_block_epoch
from halfspaces._sklearn import BaseEstimator, IntegerInterval, StrOptions, fit_context
from halfspaces._utils.contract import fill_doc
from halfspaces._utils.memory import check_dense_vectors
from halfspaces._utils.progress import report
from halfspaces._validation import per_problem
from halfspaces.dask._partitions import Partitions, map_row_blocks
from halfspaces.dask._score import score
from halfspaces.exceptions import ConvergenceWarning
from halfspaces.perceptron import AveragedPerceptron as _SerialAveraged
from halfspaces.perceptron import Perceptron as _SerialPerceptron

__all__ = ["AveragedPerceptron", "Perceptron", "as_partitions"]


def as_partitions(X, y=None, *, accept_sparse: bool = True,
                  targets: str | None = None, exact_values: bool = False) -> Partitions:
    """Partitions of (X, y): X itself when it is one (y must then be None)."""
    if isinstance(X, Partitions):
        if y is not None:
            raise ValueError("X is a Partitions, which holds the labels: pass y=None.")
        return X
    if y is None:
        raise ValueError("y is required with dask collections X (or pass a Partitions, as "
                         "halfspaces.dask.read_files returns).")
    return Partitions.from_collections(X, y, accept_sparse=accept_sparse, targets=targets,
                                       exact_values=exact_values)


@dataclass
class _Problem:
    """One binary problem's state on the client: weights, averaging sum, step count, log."""

    positive: object
    w: NDArray
    aux: NDArray
    n_steps: int
    n_updates: int = 0
    n_epochs: int = 0
    converged: bool = False


def _epoch_on_block(X, y, index, W, AUX, steps, positives, mode, fit_intercept, seeds):
    """One serial epoch of every active problem (rows of W and AUX) on partition ``index``."""
    order = (np.random.RandomState(seeds[index]).permutation(X.shape[0]) if seeds is not None
             else np.empty(0, dtype=np.int64))
    out = []
    for w, aux, n_steps, positive in zip(W, AUX, steps, positives, strict=True):
        try:
            step = perceptron_block_epoch(X, y, w, aux, n_steps, positive=positive, mode=mode,
                                          fit_intercept=fit_intercept, order=order)
        except ValueError as err:
            raise ValueError(f"partition {index}: {err}") from err
        out.append((step.w, step.aux, step.n_steps, step.n_updates))
    return out


def mixing_weights(mistakes: NDArray, how: str, n_rows: NDArray | None = None) -> NDArray:
    """mu_i of one epoch: proportional to the mistakes k_i ("error"), else uniform over the
    partitions that hold rows (all of them when ``n_rows`` is None).

    Uniform also for "error" in an epoch without a mistake (McDonald et al. 2010, Section 4).
    Their mixture is over the shards of the training data: a partition of 0 rows is no
    shard (it returns the weights it was sent), so it gets mu_i = 0. With 1/P for it, the
    mix of one partition of data and one empty one went only halfway from the weights sent
    to the ones the data gave ("uniform"), and no such cluster ran the serial perceptron.
    """
    holds = np.ones(mistakes.shape[0], dtype=bool) if n_rows is None else n_rows > 0
    total = mistakes.sum()
    if how == "error" and total > 0:
        return mistakes / total
    return np.where(holds, 1.0 / np.count_nonzero(holds), 0.0)


def _mix(problem: _Problem, results: list, mu: NDArray, averaged: bool) -> None:
    """The mixed state from the partitions' states, in partition order (see the module)."""
    T = problem.n_steps
    moved = [r for r in results if r[2] != T]  # the partitions that hold rows
    if len(moved) <= 1:  # one partition's serial epoch (mu = 1): nothing to mix
        problem.w, problem.aux, problem.n_steps = (moved or results)[0][:3]
        return
    w = _mixture([(m, r[0]) for m, r in zip(mu, results, strict=True) if m > 0])
    n_steps = T + sum(r[2] - T for r in moved)
    if not averaged:  # the plain loop leaves its averaging sum alone
        problem.w, problem.n_steps = w, n_steps
        return
    before = T * problem.w - problem.aux
    visited = np.zeros_like(w)
    for w_i, aux_i, steps_i, _ in moved:
        visited += (steps_i * w_i - aux_i) - before
    problem.aux = n_steps * w - before - visited
    problem.w, problem.n_steps = w, n_steps


def _mixture(shares: list) -> NDArray:
    """sum_i mu_i w_i over (mu_i, w_i) with mu_i > 0, left to right.

    Equal w_i give that w exactly: an epoch without a mistake (error mixing falls back to
    uniform) otherwise rounded the weights that had just made no mistake, as w/3 + w/3 + w/3
    differs from w in about a third of its entries.
    """
    first = shares[0][1]
    if all(np.array_equal(v, first) for _, v in shares[1:]):
        return first
    w = shares[0][0] * first
    for m, v in shares[1:]:
        w = w + m * v
    return w


class _IPMPerceptron(BaseEstimator):
    """Parameters, the mixing loop and the fitted attributes of the two IPM classes."""

    _mode: ClassVar[str] = "plain"
    _serial: ClassVar[type] = _SerialPerceptron
    _parameter_constraints: ClassVar[dict] = {
        "fit_intercept": ["boolean"],
        "max_epochs": [IntegerInterval(1, None, closed="left")],
        "selection": [StrOptions({"cyclic", "shuffle"})],
        "random_state": ["random_state"],
        "warm_start": ["boolean"],
        "mixing": [StrOptions({"error", "uniform"})],
    }

    def __init__(self, fit_intercept: bool = True, max_epochs: int = 1000,
                 selection: str = "cyclic", random_state=None, warm_start: bool = False,
                 mixing: str = "error") -> None:
        self.fit_intercept = fit_intercept
        self.max_epochs = max_epochs
        self.selection = selection
        self.random_state = random_state
        self.warm_start = warm_start
        self.mixing = mixing

    @fit_context
    def fit(self, X, y=None):
        """Mix one serial epoch per partition until an epoch makes no mistake anywhere.

        Parameters
        ----------
        X : dask array, dask DataFrame or Partitions
            Chunked by rows (dense or CSR chunks); a
            :class:`~halfspaces.dask.Partitions` (from :func:`read_files`) holds y too.
        y : dask array or Series, default=None
            The labels, with X's row partitions (None when X is a Partitions).

        Returns
        -------
        self : object
        """
        parts = as_partitions(X, y)
        classes, names = parts.classes, parts.feature_names
        if classes.size < 2:
            raise ValueError(f"y contains only one class ({classes.tolist()[0]!r}); a "
                             "classifier needs samples of at least 2 classes.")
        parts, positives = _encoded(parts, classes)
        d = parts.n_features
        check_dense_vectors(d, 2 * len(positives))  # w and aux per problem, on the client
        resume = (self.warm_start and hasattr(self, "_states")
                  and np.array_equal(classes, self.classes_) and self.n_features_in_ == d)
        if resume:
            problems = [_Problem(p, s.w.copy(), s.aux.copy(), s.n_steps)
                        for p, s in zip(positives, self._states, strict=True)]
        else:
            problems = [_Problem(p, np.zeros(d + 1), np.zeros(d + 1), 0) for p in positives]
        mistakes, mu = self._run(parts, problems)
        self._set_fitted(parts, classes, problems, mistakes, mu, resume)
        if names is not None:  # the files' header (read_files), as the serial fit keeps them
            self.feature_names_in_ = np.asarray(names, dtype=object)
        else:
            self.__dict__.pop("feature_names_in_", None)
        if not self.converged_:
            warnings.warn(not_converged_advice(type(self).__name__, self.max_epochs),
                          ConvergenceWarning, stacklevel=2)
        return self

    def _run(self, parts: Partitions, problems: list[_Problem]):
        rng = check_random_state(self.random_state)
        P, k = parts.n_partitions, len(problems)
        mistakes = np.zeros((k, P, self.max_epochs), dtype=np.int64)
        mu = np.full((k, P, self.max_epochs), np.nan)
        c = bool(self.fit_intercept)
        for epoch in range(self.max_epochs):
            active = [j for j, p in enumerate(problems) if not p.converged]
            if not active:
                break
            seeds = (rng.randint(np.iinfo(np.int32).max, size=P) if self.selection == "shuffle"
                     else None)
            W = np.array([problems[j].w for j in active])
            AUX = np.array([problems[j].aux for j in active])
            steps = [problems[j].n_steps for j in active]
            positives = [problems[j].positive for j in active]
            results = parts.map_with_index(_epoch_on_block, W, AUX, steps, positives,
                                           self._mode, c, seeds)
            for slot, j in enumerate(active):
                per_block = [r[slot] for r in results]
                k_i = np.array([r[3] for r in per_block], dtype=np.int64)
                mu[j, :, epoch] = mixing_weights(k_i, self.mixing, parts.n_rows)
                mistakes[j, :, epoch] = k_i
                _mix(problems[j], per_block, mu[j, :, epoch], self._mode == "averaged")
                problems[j].n_updates += int(k_i.sum())
                problems[j].n_epochs = epoch + 1
                problems[j].converged = k_i.sum() == 0
            report(epoch + 1, self.max_epochs)
        n_epochs = max(p.n_epochs for p in problems)
        return mistakes[:, :, :n_epochs], mu[:, :, :n_epochs]

    def _set_fitted(self, parts, classes, problems, mistakes, mu, resume) -> None:
        updates = np.array([p.n_updates for p in problems])
        if resume:
            updates += np.atleast_1d(self.n_updates_)
        self._states = [_state(p) for p in problems]
        hypotheses = [_hypothesis(self._mode, p) for p in problems]
        self.classes_ = classes
        self.coef_ = np.vstack([h[0] for h in hypotheses])
        self.intercept_ = np.array([h[1] for h in hypotheses])
        self.n_updates_ = per_problem(updates)
        self.n_epochs_ = max(p.n_epochs for p in problems)
        self.converged_ = all(p.converged for p in problems)
        binary = len(problems) == 1
        self.mistakes_ = mistakes[0] if binary else mistakes
        self.mixing_weights_ = mu[0] if binary else mu
        self.n_features_in_ = parts.n_features

    def to_local(self):
        """The equivalent serial estimator (same parameters, weights and state).

        It predicts, scores and saves (``halfspaces.save``) like any serial fit, and
        ``warm_start`` continues from this fit's state.

        Returns
        -------
        estimator : halfspaces.Perceptron or halfspaces.AveragedPerceptron
            The serial class of the same name.
        """
        check_is_fitted(self)
        local = self._serial(fit_intercept=self.fit_intercept, max_epochs=self.max_epochs,
                             selection=self.selection, random_state=self.random_state,
                             warm_start=self.warm_start)
        for name in ("classes_", "coef_", "intercept_", "n_updates_", "n_epochs_",
                     "converged_", "n_features_in_"):
            setattr(local, name, getattr(self, name))
        local._states = [s.copy() for s in self._states]
        local.validation_scores_ = local.best_validation_score_ = None  # no early stopping
        if hasattr(self, "feature_names_in_"):
            local.feature_names_in_ = self.feature_names_in_
        return local

    def decision_function(self, X):
        """<w, x> + b for each row: NumPy/SciPy input as the serial class, dask arrays lazily.

        Parameters
        ----------
        X : array-like, sparse matrix or dask array of shape (n_samples, n_features)
            The samples.

        Returns
        -------
        scores : ndarray or dask array of shape (n_samples,) or (n_samples, n_classes)
            A dask array (computed block by block) for dask input.
        """
        return self._local_call("decision_function", X)

    def predict(self, X):
        """The predicted class of each row (a lazy dask array for dask input).

        Parameters
        ----------
        X : array-like, sparse matrix or dask array of shape (n_samples, n_features)
            The samples.

        Returns
        -------
        y_pred : ndarray or dask array of shape (n_samples,)
            The predicted classes.
        """
        return self._local_call("predict", X)

    def score(self, X, y=None):
        """Mean accuracy on (X, y): on the partitions for dask input, NumPy's for NumPy input.

        Parameters
        ----------
        X : array-like, sparse matrix, dask array or Partitions
            The samples, of shape (n_samples, n_features); a Partitions holds the labels.
        y : array-like or dask array of shape (n_samples,), default=None
            Their true labels (None with a Partitions).

        Returns
        -------
        score : float
            The fraction of samples predicted correctly (:func:`halfspaces.dask.score`
            for data on the cluster: no prediction leaves its worker).
        """
        check_is_fitted(self)
        if isinstance(X, Partitions) or is_dask_collection(X):
            return score(self, X, y)
        return float(self.to_local().score(X, y))

    def _local_call(self, method: str, X):
        check_is_fitted(self)
        local = self.to_local()
        if hasattr(X, "map_blocks") and hasattr(X, "chunks"):
            local.__dict__.pop("feature_names_in_", None)  # the blocks are plain arrays
            binary = len(self.classes_) == 2 or method == "predict"
            dtype = self.classes_.dtype if method == "predict" else np.float64
            return map_row_blocks(X, local, method, None if binary else self.coef_.shape[0],
                                  dtype)
        return getattr(local, method)(X)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.estimator_type = "classifier"
        return tags


def _encoded(parts: Partitions, classes: NDArray):
    """Labels as the compiled loop compares them: numeric labels as they are (the serial
    classes' rule), others replaced by their index in ``classes`` on the workers."""
    problems = [1] if classes.size == 2 else range(classes.size)
    if classes.dtype.kind in "iuf":
        return parts, [classes[k] for k in problems]
    return parts.map_targets(_Searchsorted(classes)), list(problems)


class _Searchsorted:
    """y -> the index of each label in ``classes`` (a picklable callable)."""

    def __init__(self, classes: NDArray) -> None:
        self.classes = classes

    def __call__(self, y: NDArray) -> NDArray:
        return np.searchsorted(self.classes, y)


def _state(problem: _Problem) -> PerceptronState:
    state = PerceptronState(problem.w.copy(), problem.aux.copy())
    state.counters[0] = problem.n_steps  # STEP: see halfspaces._fast.perceptron
    return state


def _hypothesis(mode: str, p: _Problem) -> tuple[NDArray, float]:
    """The serial classes' hypothesis: the last weights, or w - A/T for the average."""
    weights = p.w - p.aux / p.n_steps if mode == "averaged" and p.n_steps > 0 else p.w
    return weights[:-1].copy(), float(weights[-1])


_DOC = """
    Parameters
    ----------
    fit_intercept : bool, default=True
        Learn sign(<w, x> + b), on x' = (1, x).
    max_epochs : int, default=1000
        The most epochs; an epoch with no mistake in any partition stops the run earlier.
    selection : {"cyclic", "shuffle"}, default="cyclic"
        Each partition's order: its rows in turn, or a fresh permutation each epoch from a
        seed drawn from ``random_state`` for every partition (the serial "worst" selection
        needs every row for every step; use the serial class).
    random_state : int, RandomState instance or None, default=None
        Seeds the permutations of "shuffle".
    warm_start : bool, default=False
        Continue from the previous fit's state (same classes and features).
    mixing : {"error", "uniform"}, default="error"
        The mixing weights mu_i of each epoch: proportional to partition i's mistakes in
        the epoch (uniform in an epoch without any), or uniform: 1 / (the number of
        partitions that hold rows), and 0 for an empty partition, which takes no part.

    Attributes
    ----------
    coef_, intercept_, classes_, n_updates_, n_epochs_, converged_, n_features_in_
        As in the serial class: ``n_updates_`` counts the mistakes of every partition in
        every epoch.
    mistakes_ : ndarray of shape (n_partitions, ``n_epochs_``)
        k_i per partition and epoch (shape (n_classes, n_partitions, ``n_epochs_``) for
        one-vs-rest beyond two classes; zero after a problem converged).
    mixing_weights_ : ndarray of the shape of ``mistakes_``
        mu_i per partition and epoch (NaN after a problem converged).
"""


@fill_doc(ipm_sections=_DOC)
class Perceptron(_IPMPerceptron):
    """The perceptron on a Dask cluster by iterative parameter mixing.

    Every epoch each partition runs one serial perceptron epoch from the mixed weights,
    and the client mixes the results (McDonald, Hall and Mann 2010). With one partition it
    is :class:`halfspaces.Perceptron` bit for bit (cyclic order). On separable data with
    ``mixing="error"`` it makes at most (R/gamma)^2 mixed mistakes and stops with no
    training error.

    [ipm_sections]

    See Also
    --------
    halfspaces.Perceptron : the serial class (``to_local()`` returns one).

    References
    ----------
    McDonald, Hall and Mann, NAACL 2010.

    Examples
    --------
    >>> import dask.array as da
    >>> from distributed import Client, LocalCluster
    >>> from halfspaces.dask import Perceptron
    >>> with LocalCluster(n_workers=2, processes=False) as cluster, Client(cluster):
    ...     X = da.from_array([[2.0, 1.0], [1.0, 3.0], [-1.0, -2.0], [-2.0, -1.0]], chunks=2)
    ...     y = da.from_array([1, 1, 0, 0], chunks=2)
    ...     clf = Perceptron().fit(X, y)
    >>> clf.predict([[3.0, 3.0], [-3.0, -1.0]]), clf.converged_
    (array([1, 0]), True)
    """


@fill_doc(ipm_sections=_DOC)
class AveragedPerceptron(_IPMPerceptron):
    """The averaged perceptron on a Dask cluster by iterative parameter mixing.

    Predicts with the mean of every weight vector the partitions held, over all their
    steps and epochs (see the module); with one partition it is
    :class:`halfspaces.AveragedPerceptron` bit for bit (cyclic order).

    [ipm_sections]

    See Also
    --------
    halfspaces.AveragedPerceptron : the serial class (``to_local()`` returns one).

    References
    ----------
    McDonald, Hall and Mann, NAACL 2010; Freund and Schapire (1999).
    """

    _mode = "averaged"
    _serial = _SerialAveraged
