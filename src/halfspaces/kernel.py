"""The dual perceptron with kernels: KernelPerceptron (last or averaged hypothesis),
VotedKernelPerceptron, and the kernel functions they use.

The perceptron's weights are always a sum of training examples, w = sum_i alpha_i y_i x_i,
where alpha_i counts the updates on example i (the dual representation). The algorithm then
needs only inner products, which a kernel k(x, z) = <phi(x), phi(z)> replaces: the
perceptron learns a halfspace in the feature space of phi, a non-linear surface in X.
The run itself and the kernel matrices are in the algorithm layer
(:mod:`halfspaces._kernel.dual_run`), the scores and votes of a fitted expansion beside them
(:mod:`halfspaces._kernel.expansion`); :func:`kernel_matrix`, :func:`run_kernel_perceptron`
and :class:`KernelRun` are importable from here. On data that no hypothesis of the feature
space separates, the last hypothesis of the run is a poor classifier; Freund and Schapire
(1999) vote or average all the hypotheses of the run instead, which the averaged
(``KernelPerceptron(average=True)``) and voted (:class:`VotedKernelPerceptron`) forms do,
at no extra cost per example of the run.

Kernels at scale
----------------
The dual pays O(n) per update and O(n nnz) for each Gram row it computes (16 rows in one
pass over X, kept in ``cache_size`` MB), so a fit grows as n^2 on data that are not
separable: seconds on 10,000 a9a rows, minutes on a few hundred thousand, and the n x n
Gram matrix stops fitting in memory long before. Past that, learn the same kind of model in
the primal, on an approximate feature map z(x) with <z(x), z(x')> ~ k(x, x'): scikit-learn's
``Nystroem`` (m landmarks drawn from X, any kernel; Williams and Seeger 2001) or
``RBFSampler`` (random Fourier features of the RBF kernel; Rahimi and Recht 2007), in a
pipeline with :class:`~halfspaces.AveragedPerceptron`. An epoch then costs O(n m) and
predicting O(m) per example, whatever the number of support vectors, and the averaged
primal hypothesis is the averaged dual one on the kernel k~(x, x') = <z(x), z(x')> (the
primal and dual runs of a linear kernel are the same run). The price is the approximation:
m of a few hundred to a few thousand comes within a point or two of the exact kernel's
accuracy; benchmarks/bench_kernel.py measures where each wins on a9a.

>>> from sklearn.datasets import make_circles
>>> from sklearn.kernel_approximation import Nystroem
>>> from sklearn.pipeline import make_pipeline
>>> from halfspaces import AveragedPerceptron
>>> X, y = make_circles(400, factor=0.5, noise=0.05, random_state=0)
>>> model = make_pipeline(Nystroem(gamma=2.0, n_components=50, random_state=0),
...                       AveragedPerceptron(max_epochs=20))
>>> bool(model.fit(X, y).score(X, y) > 0.95)
True

References
----------
.. [1] M. A. Aizerman, E. M. Braverman and L. I. Rozonoer. Theoretical foundations of the
   potential function method in pattern recognition learning. Automation and Remote
   Control 25, 1964.
.. [2] Y. Freund and R. E. Schapire. Large margin classification using the perceptron
   algorithm. Machine Learning 37(3), 1999.
.. [3] S. Shalev-Shwartz and S. Ben-David. Understanding Machine Learning: From Theory to
   Algorithms. Cambridge University Press, 2014 (Chapter 16: kernel methods).
.. [4] C. K. I. Williams and M. Seeger. Using the Nystroem method to speed up kernel
   machines. NIPS 13, 2001.
.. [5] A. Rahimi and B. Recht. Random features for large-scale kernel machines. NIPS 20,
   2007.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import ClassVar

import numpy as np
from numpy.typing import ArrayLike, NDArray
from sklearn.base import ClassifierMixin
from sklearn.utils import check_random_state
from sklearn.utils.metaestimators import available_if
from sklearn.utils.validation import check_is_fitted

from halfspaces._kernel import docs
from halfspaces._kernel.dual_run import KernelRun, run_kernel_perceptron
from halfspaces._kernel.expansion import (
    Expansion,
    averaged_weights,
    averaging_steps,
    binary_runner,
    expansion_scores,
    fitted_burn_in,
    fitted_precomputed,
    grown_expansion,
    intercept_of,
    is_linear,
    kernel_votes,
    linear_scores,
    read_expansion,
)
from halfspaces._kernel.gram import KERNELS, MAX_CACHE_SIZE, kernel_matrix
from halfspaces._perceptron.vote_log import extend_votes, vote_scores
from halfspaces._perceptron.weights import refuse_balanced_batches
from halfspaces._sklearn import (
    CLASS_WEIGHT,
    BaseEstimator,
    FloatInterval,
    IntegerInterval,
    StrOptions,
    fit_context,
)
from halfspaces._utils.contract import fill_doc
from halfspaces._utils.memory import check_dense_vectors
from halfspaces._validation import (
    FIT_INPUT,
    SparseInputMixin,
    Targets,
    encode_targets,
    partial_fit_classes,
    per_problem,
    row_weights,
    validate_data,
)
from halfspaces.exceptions import ConvergenceWarning

__all__ = ["KernelPerceptron", "KernelRun", "VotedKernelPerceptron", "kernel_matrix",
           "run_kernel_perceptron"]

class _BaseKernelPerceptron(SparseInputMixin, ClassifierMixin, BaseEstimator):
    """The dual run, its warm starts and batches, and the kernel expansion's bookkeeping.

    Every variant keeps the last hypothesis (``_last_coef``), the running sums of the
    averaged one (``_coef_sums``, the signed sums of t - 1 over the steps t of each
    support vector's updates) and the step counts T (``_n_steps``): a later call
    continues from them exactly.
    """

    _voted: ClassVar[bool] = False
    _parameter_constraints: ClassVar[dict] = {
        "kernel": [StrOptions({*KERNELS, "precomputed"}), callable],
        "degree": [IntegerInterval(0, None, closed="left")],
        "gamma": [FloatInterval(0, None, closed="neither"), None],
        "coef0": [FloatInterval(None, None, closed="neither")],
        "fit_intercept": ["boolean"],
        "max_epochs": [IntegerInterval(1, None, closed="left")],
        "selection": [StrOptions({"cyclic", "shuffle"})],
        "random_state": ["random_state"],
        "cache_size": [FloatInterval(0, MAX_CACHE_SIZE, closed="right")],
        "warm_start": ["boolean"],
        "margin": [FloatInterval(0, None, closed="left")],
        "burn_in": [IntegerInterval(0, np.iinfo(np.int64).max, closed="both")],
        "class_weight": CLASS_WEIGHT,
    }

    def __init__(self, kernel: str | Callable = "linear", degree: int = 3,
                 gamma: float | None = None, coef0: float = 1.0, fit_intercept: bool = True,
                 max_epochs: int = 1000, selection: str = "cyclic",
                 random_state: int | np.random.RandomState | None = None,
                 cache_size: float = 200.0, warm_start: bool = False, margin: float = 0.0,
                 burn_in: int = 0, class_weight: dict | str | None = None) -> None:
        self.kernel = kernel
        self.degree = degree
        self.gamma = gamma
        self.coef0 = coef0
        self.fit_intercept = fit_intercept
        self.max_epochs = max_epochs
        self.selection = selection
        self.random_state = random_state
        self.cache_size = cache_size
        self.warm_start = warm_start
        self.margin = margin
        self.burn_in = burn_in
        self.class_weight = class_weight

    @fit_context
    def fit(self, X: ArrayLike, y: ArrayLike, sample_weight: ArrayLike | None = None):
        """Run the kernel perceptron until a pass makes no update, or ``max_epochs`` passes.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Training data, or the (n_samples, n_samples) Gram matrix when
            ``kernel="precomputed"``.
        y : array-like of shape (n_samples,)
            Labels: any two values, or more for one-vs-rest.
        sample_weight : array-like of shape (n_samples,), default=None
            Each row's weight, times its class's weight (see ``class_weight``).

        Returns
        -------
        self : object
            The fitted estimator.
        """
        # the features the kept hypothesis reads: its support vectors' (none for a
        # precomputed kernel, which _check_resumable refuses to continue); a model of the
        # other kind (kernel switched to or from "precomputed") is not continued
        fitted_features = None
        precomputed = self.kernel == "precomputed"
        if hasattr(self, "_last_coef") and fitted_precomputed(self) == precomputed:
            fitted_features = self.n_features_in_ if precomputed \
                else self.support_vectors_.shape[1]
        X, y = validate_data(self, X, y, **FIT_INPUT)
        targets = encode_targets(y)
        weights = row_weights(sample_weight, self.class_weight, targets.classes, y)
        if self.kernel == "precomputed" and X.shape[0] != X.shape[1]:
            raise ValueError(
                "With kernel='precomputed', X must be the square Gram matrix of the "
                f"training examples; got shape {X.shape}."
            )
        resume = (self.warm_start and fitted_features == X.shape[1]
                  and np.array_equal(targets.classes, self.classes_))
        if resume:
            self._check_resumable("warm_start=True")
        self._fit_runs(X, targets, resume, self.max_epochs, self.selection,
                       check_random_state(self.random_state), weights)
        if not self.converged_:
            warnings.warn(self._not_converged_message(), ConvergenceWarning, stacklevel=2)
        return self

    @available_if(lambda self: self.kernel != "precomputed")
    @fit_context
    def partial_fit(self, X: ArrayLike, y: ArrayLike, classes: ArrayLike | None = None,
                    sample_weight: ArrayLike | None = None):
        """One pass over a batch in the given order, continuing from the current hypothesis.

        Each example is predicted by the current hypothesis, which is updated if
        y_i f(x_i) <= 0; the batch's rows that cause updates join the support vectors.
        ``selection`` does not apply; ``n_updates_`` accumulates over calls. Not available
        with a precomputed kernel, whose support vectors are not kept.

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
            The batch's row weights, as in :meth:`fit` (``class_weight="balanced"`` is
            refused here: a batch's class counts are not the stream's; pass a dict).

        Returns
        -------
        self : object
            The updated estimator.
        """
        refuse_balanced_batches(self.class_weight)
        first = not hasattr(self, "classes_")  # fit_context checked the parameters
        X, y = validate_data(self, X, y, reset=first, **FIT_INPUT)
        classes = partial_fit_classes(y, classes, None if first else self.classes_)
        targets = encode_targets(y, classes)
        weights = row_weights(sample_weight, self.class_weight, targets.classes, y)
        self._fit_runs(X, targets, not first, 1, "cyclic", None, weights)
        return self

    def _check_resumable(self, what: str) -> None:
        if self.kernel == "precomputed":
            raise ValueError(
                f"{what} continues from the support vectors, which kernel='precomputed' "
                "does not keep: fit on the whole Gram matrix instead."
            )

    def _fit_runs(self, X, targets: Targets, resume: bool, max_epochs: int, selection: str,
                  rng, weights=None) -> None:
        if is_linear(self.kernel):  # the primal loop keeps weights over X's columns
            check_dense_vectors(X.shape[1], 2)
        fitted = read_expansion(self, X.shape[1]) if resume else None
        if fitted is not None:
            self._check_burn_in(fitted.n_steps)
        run = binary_runner(self, X, fitted, record_updates=self._voted)
        runs = [run(k, targets.labels, positive=positive, max_epochs=max_epochs,
                    selection=selection, rng=rng, weights=weights)
                for k, positive in enumerate(targets.positives)]
        self._set_fitted(X, targets, runs, fitted, weights)

    def _check_burn_in(self, n_steps) -> None:
        """Refuse to continue averaging sums kept from another step than ``burn_in``."""
        kept = fitted_burn_in(self)
        if self._voted or kept == self.burn_in or max(n_steps) <= min(kept, self.burn_in):
            return  # the votes are counted afresh from the log; equal sums otherwise
        raise ValueError(
            f"burn_in={self.burn_in} cannot continue a run averaged from step {kept + 1} "
            f"that has made {max(n_steps)} steps: its averaging sums leave out other steps. "
            f"Keep burn_in={kept}, or fit from scratch (warm_start=False).")

    @property
    def n_steps_(self):
        """Examples predicted over every call since the start (see the class's Attributes)."""
        check_is_fitted(self, "dual_coef_")
        return per_problem(self._n_steps)

    _fitted_attributes = docs.KERNEL_FITTED

    def _set_fitted(self, X, targets: Targets, runs: list[KernelRun],
                    fitted: Expansion | None, weights=None) -> None:
        alpha, support, vectors, last, sums = grown_expansion(
            X, targets, runs, fitted, precomputed=self.kernel == "precomputed",
            weights=weights)
        resume = fitted is not None
        offset = fitted.size if resume else 0
        updates = np.array([run.n_updates for run in runs])
        if resume:
            updates += np.atleast_1d(self.n_updates_)
        self.classes_ = targets.classes
        self.alpha_ = alpha[0] if len(runs) == 1 else alpha
        self.support_ = support
        self.support_vectors_ = vectors
        self._last_coef, self._coef_sums = last, sums
        self._n_steps = np.array([run.n_steps for run in runs], dtype=np.int64)
        self._burn_in = int(self.burn_in)
        self.n_updates_ = per_problem(updates)
        self.n_epochs_ = max(run.n_epochs for run in runs)
        self.converged_ = all(run.converged for run in runs)
        self._set_hypothesis()
        if self._voted:
            self._set_votes(targets, runs, support, offset, fitted, weights)

    def _set_hypothesis(self) -> None:
        self.dual_coef_ = self._last_coef.copy()
        self.intercept_ = intercept_of(self._last_coef, self.fit_intercept)

    def _set_votes(self, targets, runs, support, offset, fitted, weights) -> None:
        raise NotImplementedError

    def _not_converged_message(self) -> str:
        last_only = not (self._voted or getattr(self, "average", False))
        return (
            f"{type(self).__name__} made updates in each of its max_epochs={self.max_epochs} "
            "passes: the data may not be separable in the kernel's feature space. Try "
            "another kernel or gamma, or raise max_epochs"
            + (", or predict with the average or the vote of the hypotheses (average=True, "
               "VotedKernelPerceptron)." if last_only else ".")
        )

    def predict(self, X: ArrayLike) -> NDArray:
        """The class of each sample: classes_[1] where f(x) > 0 (binary), else the argmax.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Samples; for a precomputed kernel the (n_samples, n_train) kernel matrix.

        Returns
        -------
        y_pred : ndarray of shape (n_samples,)
        """
        scores = self.decision_function(X)
        index = (scores > 0).astype(int) if scores.ndim == 1 else scores.argmax(axis=1)
        return self.classes_[index]

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.pairwise = self.kernel == "precomputed"
        return tags


@fill_doc(kernel_parameters=docs.KERNEL_PARAMETERS_DOC, kernel_rule=docs.KERNEL_RULE_DOC)
class KernelPerceptron(_BaseKernelPerceptron):
    """The kernel perceptron: the perceptron in the dual, f(x) = sum_i a_i y_i k(x_i, x).

    Starts at alpha = 0; visits the examples in turn and, when y_i f(x_i) <= 0, sets
    alpha_i += 1; stops after a pass with no update. The intercept is the constant feature
    of the homogeneous reduction, so the kernel used is k(x, z) + 1 when ``fit_intercept``.
    With ``kernel="linear"`` this is exactly :class:`~halfspaces.Perceptron`: the same
    updates, and w = sum_i alpha_i y_i x_i. The decision values of all training examples are
    kept and updated in O(n) per update, so a pass costs O(n) plus O(n) per update (and a
    Gram row of O(n nnz) the first time an example causes one). The linear kernel runs the
    primal loop instead, O(nnz of the row) per update, and reads alpha off its updates:
    the same updates, in milliseconds on a9a. More than two classes give one-vs-rest.

    With ``average=True`` it predicts with the average of the hypotheses after each of the
    T steps of the run (every example visited, over all passes and calls): the
    coefficients (1/T) sum_t alpha^(t) y, kept as alpha - sums / T with
    sums_i = sum of t - 1 over the steps t of the updates on example i, so an update costs
    O(1) more and a correct prediction nothing (Freund and Schapire 1999, the averaged
    form of their voted perceptron). With the linear kernel it is
    :class:`~halfspaces.AveragedPerceptron`. On data that are not separable in the
    feature space the average is far more accurate than the last hypothesis. With a
    ``margin`` it also updates on examples correct by less than margin (k(x, x) + c), and
    with a ``burn_in`` it averages only the later hypotheses: on MNIST (8,000 rows, RBF,
    one-vs-rest) ``margin=2`` and 30 shuffled passes averaged over the last 15 came within
    0.25-0.45 point of one-vs-one SVC, where plain averaging is 0.65 behind (a
    configuration chosen among about ten tried on that test split).

    Parameters
    ----------
    [kernel_parameters: kernel ... warm_start]
    average : bool, default=False
        Predict with the average of the hypotheses over all steps (after ``burn_in``)
        instead of the last one.
    [kernel_rule: margin, burn_in, class_weight]

    Attributes
    ----------
    [fitted_attributes]

    Notes
    -----
    With ``average=True``, ``dual_coef_`` and ``intercept_`` are those of the averaged
    hypothesis (``alpha_`` still counts the updates of the last call).

    See Also
    --------
    VotedKernelPerceptron : every hypothesis of the run votes.
    halfspaces.Perceptron, halfspaces.AveragedPerceptron : the primal forms (kernel="linear").
    sklearn.svm.SVC : the maximum-margin classifier with the same kernels.

    References
    ----------
    Aizerman, Braverman and Rozonoer (1964); Y. Freund and R. E. Schapire, Large margin
    classification using the perceptron algorithm, Machine Learning 37(3), 1999;
    Shalev-Shwartz and Ben-David (2014), Chapter 16.

    Examples
    --------
    >>> import numpy as np
    >>> from halfspaces import KernelPerceptron
    >>> X = np.array([[0.0, 0.0], [1.0, 1.0], [0.0, 1.0], [1.0, 0.0]])
    >>> y = [0, 0, 1, 1]  # XOR: no halfspace in the plane separates it
    >>> clf = KernelPerceptron(kernel="rbf", gamma=2.0).fit(X, y)
    >>> clf.predict(X), clf.converged_
    (array([0, 0, 1, 1]), True)
    >>> KernelPerceptron(kernel="rbf", gamma=2.0, average=True).fit(X, y).predict(X)
    array([0, 0, 1, 1])
    """

    _parameter_constraints: ClassVar[dict] = {
        **_BaseKernelPerceptron._parameter_constraints,
        "average": ["boolean"],
    }

    def __init__(self, kernel: str | Callable = "linear", degree: int = 3,
                 gamma: float | None = None, coef0: float = 1.0, fit_intercept: bool = True,
                 max_epochs: int = 1000, selection: str = "cyclic",
                 random_state: int | np.random.RandomState | None = None,
                 cache_size: float = 200.0, warm_start: bool = False,
                 average: bool = False, margin: float = 0.0, burn_in: int = 0,
                 class_weight: dict | str | None = None) -> None:
        super().__init__(kernel=kernel, degree=degree, gamma=gamma, coef0=coef0,
                         fit_intercept=fit_intercept, max_epochs=max_epochs,
                         selection=selection, random_state=random_state,
                         cache_size=cache_size, warm_start=warm_start, margin=margin,
                         burn_in=burn_in, class_weight=class_weight)
        self.average = average

    def _set_hypothesis(self) -> None:
        if not self.average:
            return super()._set_hypothesis()
        # the intercept as the primal averaged perceptron forms it, w_d - aux_d / T: both
        # sums are exact integers, so the two agree bit for bit
        T = averaging_steps(self._n_steps, fitted_burn_in(self))
        self.dual_coef_ = self._last_coef - self._coef_sums / T[:, None]
        self.intercept_ = intercept_of(self._last_coef, self.fit_intercept) - \
            intercept_of(self._coef_sums, self.fit_intercept) / T
        return None

    def decision_function(self, X: ArrayLike) -> NDArray[np.float64]:
        """f(x) = sum_i a_i k(x_i, x) + b for each sample (per class), a = ``dual_coef_``.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Samples; for a precomputed kernel the (n_samples, n_train) kernel matrix.

        Returns
        -------
        scores : ndarray of shape (n_samples,) or (n_samples, n_classes)
            Positive scores favour classes_[1] (binary) or the class of that column.
        """
        check_is_fitted(self)
        X = validate_data(self, X, reset=False, **FIT_INPUT)
        fitted = read_expansion(self, X.shape[1])
        if self.average and fitted.kernel == "linear":
            scores = linear_scores(X, averaged_weights(fitted, fitted_burn_in(self)),
                                   fitted.intercept)
        else:
            scores = expansion_scores(self, X, fitted, fitted.dual_coef, fitted.intercept)
        return scores[:, 0] if scores.shape[1] == 1 else scores

@fill_doc(kernel_parameters=docs.KERNEL_PARAMETERS_DOC, kernel_rule=docs.KERNEL_RULE_DOC)
class VotedKernelPerceptron(_BaseKernelPerceptron):
    """The voted perceptron in the dual (Freund and Schapire 1999): all hypotheses vote.

    Runs the kernel perceptron (see :class:`KernelPerceptron`) and keeps each hypothesis
    f_k of the run with its survival count c_k, the examples it saw (counting the one that
    created it) before its first mistake; the prediction is sign(sum_k c_k sign(f_k(x))),
    with sign(0) = -1 as ``predict`` sends a zero score to classes_[0]. The hypotheses are
    stored as the sequence of updates (which support vector, which sign), and
    f_k(x) = f_(k-1)(x) + y_(i_k) (k(x_(i_k), x) + c) is a running sum over it: scoring a
    row costs its kernel values with the support vectors plus O(1) per update, the
    computation of :class:`~halfspaces.VotedPerceptron` with kernel values in place of
    inner products. With the linear kernel it is :class:`~halfspaces.VotedPerceptron`.

    Parameters
    ----------
    [kernel_parameters: kernel ... warm_start]
    [kernel_rule: margin, burn_in, class_weight]

    Attributes
    ----------
    [fitted_attributes]

    Notes
    -----
    ``dual_coef_`` and ``intercept_`` are the last hypothesis f_K; the prediction uses all
    of them. ``decision_function`` returns the weighted vote sum.

    See Also
    --------
    KernelPerceptron : the last or the averaged hypothesis (a single expansion, faster to
        evaluate).
    halfspaces.VotedPerceptron : the primal form (kernel="linear").

    References
    ----------
    Y. Freund and R. E. Schapire. Large margin classification using the perceptron
    algorithm. Machine Learning 37(3), 1999.

    Examples
    --------
    >>> import numpy as np
    >>> from halfspaces import VotedKernelPerceptron
    >>> X = np.array([[0.0, 0.0], [1.0, 1.0], [0.0, 1.0], [1.0, 0.0]])
    >>> clf = VotedKernelPerceptron(kernel="rbf", gamma=2.0).fit(X, [0, 0, 1, 1])
    >>> clf.predict(X)
    array([0, 0, 1, 1])
    """

    _voted = True
    _fitted_attributes = docs.VOTED_KERNEL_FITTED

    def _set_votes(self, targets, runs, support, offset, fitted, weights) -> None:
        old = None if fitted is None else [(r, s, t) for r, s, _, t in fitted.votes]
        rows, signs, steps, counts = extend_votes(old, runs, targets, support, offset,
                                                  self._n_steps, self._burn_in, weights)
        self.update_support_, self.update_signs_, self._update_steps = rows, signs, steps
        self.vote_counts_ = counts

    def decision_function(self, X: ArrayLike) -> NDArray[np.float64]:
        """The weighted vote sum_k c_k sign(f_k(x)) of each sample (per class).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Samples; for a precomputed kernel the (n_samples, n_train) kernel matrix.

        Returns
        -------
        votes : ndarray of shape (n_samples,) or (n_samples, n_classes)
            Positive votes favour classes_[1] (binary) or the class of that column. Beyond
            two classes, each class's vote divided by its number of votes sum_k c_k (a
            fraction in [-1, 1]), so that classes whose runs stopped after different
            numbers of steps compare.
        """
        check_is_fitted(self)
        X = validate_data(self, X, reset=False, **FIT_INPUT)
        fitted = read_expansion(self, X.shape[1])
        votes = kernel_votes(self, X, fitted)
        return vote_scores(votes, [counts for _, _, counts, _ in fitted.votes])
