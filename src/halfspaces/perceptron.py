"""The perceptron family: Perceptron, AveragedPerceptron, VotedPerceptron, PocketPerceptron.

All four share one epoch loop (:mod:`halfspaces._perceptron.run`) and differ only where the
algorithms differ: a running sum (averaged), the log of updates (voted), the best weights
seen so far (pocket). Two classes give one binary problem with classes_[1] as the positive
class; more give one-vs-rest, one perceptron per class.

References
----------
.. [1] F. Rosenblatt. The perceptron: a probabilistic model for information storage and
   organization in the brain. Psychological Review 65(6), 1958.
.. [2] A. B. J. Novikoff. On convergence proofs on perceptrons. Symposium on the Mathematical
   Theory of Automata, 1962.
.. [3] Y. Freund and R. E. Schapire. Large margin classification using the perceptron
   algorithm. Machine Learning 37(3), 1999.
.. [4] M. Collins. Discriminative training methods for hidden Markov models: theory and
   experiments with perceptron algorithms. EMNLP 2002.
.. [5] S. I. Gallant. Perceptron-based learning algorithms. IEEE Transactions on Neural
   Networks 1(2), 1990.
"""

from __future__ import annotations

import warnings
from typing import ClassVar

import numpy as np
from numpy.typing import ArrayLike, NDArray
from sklearn.base import ClassifierMixin
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted

from halfspaces._perceptron import docs
from halfspaces._perceptron.advice import not_converged_advice
from halfspaces._perceptron.early_stopping import CONSTRAINTS, hold_out, validation_attributes
from halfspaces._perceptron.online import OnlineRun, online_perceptron
from halfspaces._perceptron.run import PerceptronRun, run_perceptron
from halfspaces._perceptron.vote_log import (
    extend_votes,
    log_intercept,
    read_vote_log,
    stack_rows,
    vote_scores,
    vote_sums,
)
from halfspaces._perceptron.weights import refuse_balanced_batches, weight_range
from halfspaces._perceptron.widen import Widening, widened
from halfspaces._sklearn import (
    CLASS_WEIGHT,
    BaseEstimator,
    IntegerInterval,
    LinearClassifierMixin,
    StrOptions,
    fit_context,
)
from halfspaces._utils.contract import fill_doc
from halfspaces._utils.memory import check_dense_vectors
from halfspaces._validation import (
    LOOP_CHECKS_FINITE,
    SparseInputMixin,
    Targets,
    encode_targets,
    partial_fit_classes,
    per_problem,
    row_weights,
    validate_data,
)
from halfspaces.exceptions import ConvergenceWarning

__all__ = [
    "AveragedPerceptron",
    "OnlineRun",
    "Perceptron",
    "PocketPerceptron",
    "VotedPerceptron",
    "online_perceptron",
]


class _BasePerceptron(Widening, SparseInputMixin, BaseEstimator):
    """Parameters, validation and bookkeeping shared by the perceptron family."""

    _mode: ClassVar[str] = "plain"
    _parameter_constraints: ClassVar[dict] = {
        "fit_intercept": ["boolean"],
        "max_epochs": [IntegerInterval(1, None, closed="left")],
        "selection": [StrOptions({"cyclic", "shuffle", "worst"})],
        "random_state": ["random_state"],
        "warm_start": ["boolean"],
        **CONSTRAINTS,
        "class_weight": CLASS_WEIGHT,
    }

    def __init__(
        self,
        fit_intercept: bool = True,
        max_epochs: int = 1000,
        selection: str = "cyclic",
        random_state: int | np.random.RandomState | None = None,
        warm_start: bool = False,
        early_stopping: bool = False, validation_fraction: float = 0.1, n_iter_no_change: int = 5,
        class_weight: dict | str | None = None,
    ) -> None:
        self.fit_intercept = fit_intercept
        self.max_epochs = max_epochs
        self.selection = selection
        self.random_state = random_state
        self.warm_start = warm_start
        self.early_stopping, self.validation_fraction, self.n_iter_no_change = (
            early_stopping, validation_fraction, n_iter_no_change)
        self.class_weight = class_weight

    @fit_context
    def fit(self, X: ArrayLike, y: ArrayLike, sample_weight: ArrayLike | None = None):
        """Run the perceptron until a pass makes no update, or for ``max_epochs`` passes.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Training data. float32 and float64 are kept as they are; CSR is used directly.
        y : array-like of shape (n_samples,)
            Labels: any two values, or more for one-vs-rest.
        sample_weight : array-like of shape (n_samples,), default=None
            Each row's weight s_i (times its class's weight, ``class_weight``): a mistake
            on row i adds s_i y_i x_i, as scikit-learn's Perceptron scales its step; a row
            of weight 0 never updates. None: every row weighs 1.

        Returns
        -------
        self : object
            The fitted estimator.
        """
        X, y = validate_data(self, X, y, **LOOP_CHECKS_FINITE)
        targets = encode_targets(y)
        weights = row_weights(sample_weight, self.class_weight, targets.classes, y)
        check_dense_vectors(X.shape[1], 2 * len(targets.positives))  # w and aux per problem
        resume = self.warm_start and self._resume_problem(targets.classes, X.shape[1]) is None
        X, targets, weights, held = (
            hold_out(X, y, targets.classes, self, self._mode, resume, weights)
            if self.early_stopping else (X, targets, weights, None))
        runs = self._run(X, targets, resume, self.max_epochs, self.selection,
                         check_random_state(self.random_state), held, weights)
        self._set_fitted(X, targets, runs, resume, weights)
        if not all(run.converged or run.stopped for run in runs):
            warnings.warn(self._not_converged_message(), ConvergenceWarning, stacklevel=2)
        return self

    @fit_context
    def partial_fit(self, X: ArrayLike, y: ArrayLike, classes: ArrayLike | None = None,
                    sample_weight: ArrayLike | None = None):
        """One pass of the online protocol over a batch, continuing from the current state.

        Each example in the given order is predicted, then the weights are updated if
        y_i(<w, x_i> + b) <= 0, exactly as in :func:`online_perceptron`; ``selection`` and
        ``early_stopping`` do not apply. ``n_updates_`` accumulates over calls.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            A batch of training data.
        y : array-like of shape (n_samples,)
            Its labels.
        classes : array-like of shape (n_classes,), default=None
            All the labels the stream can hold. Needed on the first call unless that batch
            already holds two labels or more; checked against ``classes_`` afterwards.
        sample_weight : array-like of shape (n_samples,), default=None
            The batch's row weights, as in :meth:`fit`. ``class_weight="balanced"`` is
            refused here, as scikit-learn's SGDClassifier refuses it: the class counts of
            one batch are not those of the stream; pass a dict.

        Returns
        -------
        self : object
            The updated estimator.
        """
        refuse_balanced_batches(self.class_weight)
        first = not hasattr(self, "classes_")
        X, y = validate_data(self, X, y, reset=first, **LOOP_CHECKS_FINITE)
        classes = partial_fit_classes(y, classes, None if first else self.classes_)
        targets = encode_targets(y, classes)
        weights = row_weights(sample_weight, self.class_weight, targets.classes, y)
        problem = None if first else self._resume_problem(classes, X.shape[1])
        if problem is not None:
            raise ValueError(f"partial_fit: {problem}")
        check_dense_vectors(X.shape[1], 2 * len(targets.positives))
        runs = self._run(X, targets, not first, 1, "cyclic", None, weights=weights)
        self._set_fitted(X, targets, runs, not first, weights)
        return self

    def _resume_problem(self, classes: NDArray, n_features: int) -> str | None:
        """Why the state cannot continue on data of these classes and features, or None.

        It needs one state per binary problem, each of n_features + 1 slots (the compiled
        loop's bounds). A warm start that cannot continue starts afresh; partial_fit
        raises the reason.
        """
        if not hasattr(self, "_states"):
            return "the estimator has no state to continue"
        if not self._state_fits(classes, n_features):
            return (f"the state of this {type(self).__name__} does not fit a batch of "
                    f"{n_features} features (n_features_in_) and classes {classes!r}: its "
                    "fitted attributes were changed after the last fit. Fit it again.")
        return None

    def _state_fits(self, classes: NDArray, n_features: int) -> bool:
        states = self._states
        return ((classes is self.classes_ or np.array_equal(classes, self.classes_))
                and len(states) == (1 if classes.size == 2 else classes.size)
                and all(s.w.shape == s.aux.shape == (n_features + 1,) for s in states))

    def _run(self, X, targets: Targets, resume, max_epochs, selection, rng,
             held=None, weights=None) -> list[PerceptronRun]:
        states = self._states if resume else [None] * len(targets.positives)
        return [
            run_perceptron(
                X, targets.labels, positive=positive, mode=self._mode,
                fit_intercept=self.fit_intercept, max_epochs=max_epochs, selection=selection,
                rng=rng, state=state, record_updates=self._mode == "voted", weights=weights,
                watch_for=None if held is None else held.binary(
                    X, targets.labels, positive, self._mode, self.fit_intercept),
            )
            for positive, state in zip(targets.positives, states, strict=True)
        ]

    @property
    def n_steps_(self):
        """Examples predicted since the weights were last zero (see the class's Attributes)."""
        check_is_fitted(self, "coef_")
        return per_problem(np.array([state.n_steps for state in self._states], dtype=np.int64))

    _fitted_attributes = docs.PERCEPTRON_FITTED

    def _set_fitted(self, X, targets: Targets, runs: list[PerceptronRun], resume: bool,
                    weights=None) -> None:
        self._weight_range = weight_range(
            weights, getattr(self, "_weight_range", None) if resume else None)
        updates = np.array([run.n_updates for run in runs])
        if resume:
            updates += np.atleast_1d(self.n_updates_)
        self.classes_ = targets.classes
        self._states = [run.state for run in runs]
        self.coef_ = np.vstack([run.coef for run in runs])
        self.intercept_ = np.array([run.intercept for run in runs])
        self.n_updates_ = per_problem(updates)
        self.n_epochs_ = max(run.n_epochs for run in runs)
        self.converged_ = all(run.converged for run in runs)
        vars(self).update(validation_attributes(runs))

    def _not_converged_message(self) -> str:
        return not_converged_advice(type(self).__name__, self.max_epochs)


@fill_doc(perceptron_parameters=docs.PERCEPTRON_PARAMETERS_DOC)
class Perceptron(LinearClassifierMixin, _BasePerceptron):
    """The perceptron (Rosenblatt 1958): while some y_i(<w, x_i> + b) <= 0, add y_i x_i.

    Starts at w = 0, b = 0. On linearly separable data with margin gamma inside a ball of
    radius R it makes at most (R/gamma)^2 updates (Novikoff 1962), then stops.

    Parameters
    ----------
    [perceptron_parameters: fit_intercept ... class_weight]

    Attributes
    ----------
    [fitted_attributes]

    See Also
    --------
    AveragedPerceptron, VotedPerceptron, PocketPerceptron : variants for non-separable data.
    online_perceptron : one pass of the online mistake-bound protocol.

    References
    ----------
    Rosenblatt (1958); Novikoff (1962).

    Examples
    --------
    >>> import numpy as np
    >>> from halfspaces import Perceptron
    >>> X = np.array([[2.0, 1.0], [1.0, 3.0], [-1.0, -2.0], [-2.0, -1.0]])
    >>> clf = Perceptron().fit(X, [1, 1, 0, 0])
    >>> clf.predict([[3.0, 3.0], [-3.0, -1.0]]), clf.converged_
    (array([1, 0]), True)
    """


@fill_doc(perceptron_parameters=docs.PERCEPTRON_PARAMETERS_DOC)
class AveragedPerceptron(LinearClassifierMixin, _BasePerceptron):
    """The averaged perceptron: predicts with the mean of the weights after every step.

    Runs the perceptron and returns (1/T) sum_t w_t over all T examples processed (Freund
    and Schapire 1999; Collins 2002), kept with a running sum so an update costs O(d) and a
    correct prediction nothing. More stable than the last weights on non-separable data.

    Parameters
    ----------
    [perceptron_parameters: fit_intercept ... class_weight]

    Attributes
    ----------
    [fitted_attributes]

    See Also
    --------
    Perceptron, VotedPerceptron

    References
    ----------
    Freund and Schapire (1999); Collins (2002).

    Examples
    --------
    >>> from halfspaces import AveragedPerceptron
    >>> from halfspaces.datasets import load_a9a
    >>> X, y = load_a9a("train")
    >>> clf = AveragedPerceptron(max_epochs=3).fit(X, y)  # doctest: +SKIP
    """

    _mode = "averaged"


@fill_doc(perceptron_parameters=docs.PERCEPTRON_PARAMETERS_DOC)
class PocketPerceptron(LinearClassifierMixin, _BasePerceptron):
    """The pocket perceptron with ratchet (Gallant 1990), for non-separable data.

    Runs the perceptron and keeps in its "pocket" the weights with the fewest training
    errors among those it judged. It judges (counts the training errors of, one pass over
    the data, and pockets if they make fewer errors than the pocket):

    - the current weights when their run of consecutive correct predictions first exceeds
      the pocket's run (Gallant's ratchet);
    - the weights at the end of every pass, and so at the end of the run, unless already
      judged: the pocket's training error is then never above that of the weights any pass
      ended with (at most one more pass over the data per pass);
    - with ``selection="worst"``, every weight vector of the run (each step scans all
      margins anyway).

    ``partial_fit`` judges the pocket, and the weights its pass ends with, on each batch.
    With weights (``sample_weight``, ``class_weight``) the errors are weighted: each
    misclassified row counts its weight, and ``n_errors_`` still counts the rows.

    Parameters
    ----------
    [perceptron_parameters: fit_intercept ... class_weight]

    Attributes
    ----------
    [fitted_attributes]

    See Also
    --------
    Perceptron, AveragedPerceptron

    References
    ----------
    Gallant (1990).

    Examples
    --------
    >>> import numpy as np
    >>> from halfspaces import PocketPerceptron
    >>> X = np.array([[0.0], [1.0], [2.0], [3.0], [1.5]])
    >>> clf = PocketPerceptron(max_epochs=20).fit(X, [0, 0, 1, 1, 0])
    >>> int(clf.n_errors_) == int((clf.predict(X) != [0, 0, 1, 1, 0]).sum())
    True
    """

    _mode = "pocket"
    _fitted_attributes = docs.POCKET_FITTED

    def _set_fitted(self, X, targets, runs, resume, weights=None) -> None:
        super()._set_fitted(X, targets, runs, resume, weights)
        self.n_errors_ = per_problem(np.array([run.n_errors for run in runs]))


@fill_doc(perceptron_parameters=docs.PERCEPTRON_PARAMETERS_DOC)
class VotedPerceptron(ClassifierMixin, _BasePerceptron):
    """The voted perceptron (Freund and Schapire 1999): every weight vector votes.

    Each weight vector w_k of the run is kept with its survival count c_k (the examples it
    saw, counting the one that created it, before its first mistake); the prediction is
    sign(sum_k c_k sign(<w_k, x> + b_k)). The vectors are stored as the sequence of updates
    (the rows that caused them, in ``support_vectors_``), so memory grows with the number of
    distinct update rows and updates, not with updates times features.

    Parameters
    ----------
    [perceptron_parameters: fit_intercept ... class_weight]

    Attributes
    ----------
    [fitted_attributes]

    Notes
    -----
    ``coef_`` and ``intercept_`` are the last weight vector w_K, b_K; the prediction uses
    all of them. ``decision_function`` returns the weighted vote sum.

    Scoring costs O(n_rows x (nnz per row x n_support + n_updates)) per binary problem:
    the products <x, s_j> with the stored rows, then a running sum over the updates for
    every row (the voted vote has no shortcut through a single weight vector, which is
    what :class:`AveragedPerceptron` buys). The sums run in compiled code, several rows at
    a time and blocks of rows in parallel; the products are taken block by block, never
    for all rows at once, and the rows done are reported as progress after each block
    (:mod:`halfspaces._utils.progress`). On a9a, 10 passes store 69,624 updates on 11,686 rows,
    so scoring its 48,842 rows is 3.4e9 steps of the running sum.

    See Also
    --------
    AveragedPerceptron : the averaged weights, a linear approximation of the vote.

    References
    ----------
    Freund and Schapire (1999).

    Examples
    --------
    >>> import numpy as np
    >>> from halfspaces import VotedPerceptron
    >>> X = np.array([[2.0, 1.0], [1.0, 3.0], [-1.0, -2.0], [-2.0, -1.0]])
    >>> VotedPerceptron().fit(X, [1, 1, 0, 0]).predict([[3.0, 3.0]])
    array([1])
    """

    _mode = "voted"
    _fitted_attributes = docs.VOTED_FITTED

    def _set_fitted(self, X, targets, runs, resume, weights=None) -> None:
        # the new log is built before any attribute is replaced, then assigned in a row; a
        # reader in another thread may still see them change one by one, which
        # decision_function detects (read_vote_log)
        rows = np.unique(np.concatenate([run.update_rows for run in runs]))
        offset = self.support_vectors_.shape[0] if resume else 0
        new_vectors = X[rows]
        if resume:
            new_vectors = stack_rows(self.support_vectors_, new_vectors)
        old = [(self.update_support_[k], self.update_signs_[k], self._update_steps[k])
               for k in range(len(runs))] if resume else None
        support, signs, steps, counts = extend_votes(
            old, runs, targets, rows, offset, [run.state.n_steps for run in runs],
            weights=weights)
        super()._set_fitted(X, targets, runs, resume, weights)
        self.support_vectors_ = new_vectors
        self.update_support_, self.update_signs_, self._update_steps = support, signs, steps
        self.vote_counts_ = counts
        self._fit_intercept = bool(self.fit_intercept)

    def _widened_rows(self, n_features: int, offset: int) -> dict:
        return {"support_vectors_": widened(self.support_vectors_, n_features, offset)}

    def _state_fits(self, classes: NDArray, n_features: int) -> bool:
        # the log of updates is extended too: its rows, and one list entry per problem
        return (super()._state_fits(classes, n_features)
                and self.support_vectors_.shape[1] == n_features
                and all(len(log) == len(self._states) for log in (
                    self.update_support_, self.update_signs_, self._update_steps)))

    def _resume_problem(self, classes: NDArray, n_features: int) -> str | None:
        problem = super()._resume_problem(classes, n_features)
        if problem is None and log_intercept(self) != bool(self.fit_intercept):
            problem = (
                f"the weight vectors of this VotedPerceptron were logged with fit_intercept="
                f"{log_intercept(self)}, and one vote cannot mix vectors with and without "
                f"an intercept: set fit_intercept={log_intercept(self)} to continue, or fit "
                "again (a warm start then starts afresh).")
        return problem

    def decision_function(self, X: ArrayLike) -> NDArray[np.float64]:
        """The weighted vote sum_k c_k sign(<w_k, x> + b_k) of each sample (per class).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Samples.

        Returns
        -------
        votes : ndarray of shape (n_samples,) or (n_samples, n_classes)
            Positive votes favour classes_[1] (binary) or the class of that column. Beyond
            two classes, each class's vote divided by its number of votes sum_k c_k (a
            fraction in [-1, 1]), so that classes whose runs stopped after different
            numbers of steps compare.
        """
        check_is_fitted(self)
        X = validate_data(self, X, accept_sparse="csr", reset=False)
        c = 1.0 if log_intercept(self) else 0.0
        S, logs = read_vote_log(self, X.shape[1])
        votes = vote_sums(X, S, logs, c, max(1, _SCORING_BLOCK // max(1, S.shape[0])))
        return vote_scores(votes, [counts for _, _, counts in logs])

    def predict(self, X: ArrayLike) -> NDArray:
        """The class with the winning vote (classes_[0] on a tie of a binary vote).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            The samples.

        Returns
        -------
        y_pred : ndarray of shape (n_samples,)
            The predicted class of each sample.
        """
        votes = self.decision_function(X)
        index = (votes > 0).astype(int) if votes.ndim == 1 else votes.argmax(axis=1)
        return self.classes_[index]


# entries of G = X S^T per block of rows scored (32 MB for dense data); a report of
# progress after each block
_SCORING_BLOCK = 4_000_000
