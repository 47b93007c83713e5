"""The dual perceptron with kernels: KernelPerceptron (last or averaged hypothesis),
VotedKernelPerceptron, and the kernel functions they use.

The perceptron's weights are always a sum of training examples, w = sum_i alpha_i y_i x_i,
where alpha_i counts the updates on example i (the dual representation). The algorithm then
needs only inner products, which a kernel k(x, z) = <phi(x), phi(z)> replaces: the
perceptron learns a halfspace in the feature space of phi, a non-linear surface in X.
The run itself and the kernel matrices are in the algorithm layer
(:mod:`halfspaces._dual_run`); :func:`kernel_matrix`, :func:`run_kernel_perceptron` and
:class:`KernelRun` are importable from here. On data that no hypothesis of the feature
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
import scipy.sparse as sp
from numpy.typing import ArrayLike, NDArray
from sklearn.base import ClassifierMixin
from sklearn.utils import check_random_state, gen_batches
from sklearn.utils.metaestimators import available_if
from sklearn.utils.validation import check_is_fitted

from halfspaces._dual_run import (
    KERNELS,
    GramRows,  # noqa: F401 (re-exported)
    KernelRun,
    as_float64,
    kernel_block,
    kernel_matrix,
    named_kernel,  # noqa: F401 (re-exported)
    overflow_error,
    run_kernel_perceptron,
    run_linear_perceptron,
    training_gram,
)
from halfspaces._fast import perceptron as kp
from halfspaces._kernel_expansion import Expansion, fitted_precomputed, read_expansion
from halfspaces._memory import check_dense_vectors
from halfspaces._perceptron_run import survival_counts
from halfspaces._progress import report
from halfspaces._sklearn import (
    BaseEstimator,
    FloatInterval,
    IntegerInterval,
    StrOptions,
    fit_context,
)
from halfspaces._validation import (
    FIT_INPUT,
    SparseInputMixin,
    Targets,
    encode_targets,
    partial_fit_classes,
    per_problem,
    validate_data,
)
from halfspaces.exceptions import ConvergenceWarning

__all__ = ["KernelPerceptron", "KernelRun", "VotedKernelPerceptron", "kernel_matrix",
           "run_kernel_perceptron"]

MAX_CACHE_SIZE = 2.0**40
"""The largest ``cache_size`` (MB): more memory than any machine has, and small enough that
the cache's size in bytes is an int64 (at 1e308 MB it was inf, and the rows it holds an
OverflowError in fit and at predict)."""



_PARAMETERS_DOC = """
    Parameters
    ----------
    kernel : {"linear", "poly", "rbf", "sigmoid", "precomputed"} or callable, \
default="linear"
        See :func:`kernel_matrix`. "precomputed": X is the Gram matrix (n_train, n_train)
        at fit and the test-by-train matrix at predict. A callable k(A, B) returns the
        kernel matrix of the rows of A and B.
    degree : int, default=3
        Degree of the polynomial kernel.
    gamma : float, default=None
        gamma of poly, rbf and sigmoid; None means 1 / n_features.
    coef0 : float, default=1.0
        The constant c_0 of poly and sigmoid.
    fit_intercept : bool, default=True
        Add the constant feature: learn f(x) + b with b = sum_i alpha_i y_i.
    max_epochs : int, default=1000
        The most passes over the data.
    selection : {"cyclic", "shuffle"}, default="cyclic"
        Visit the examples in the given order each pass, or in a fresh permutation drawn
        from ``random_state`` (the permutations :class:`~halfspaces.Perceptron` draws).
        "cyclic" is the textbook order. On data that are not separable, "shuffle" with
        averaging or voting can predict better: on MNIST (8,000 rows, 10 passes,
        one-vs-rest, averaged) it gave 0.6 point more test accuracy with the cubic kernel
        and 0.65 with RBF (``benchmarks/RESULTS.md``, session 9).
    random_state : int, RandomState instance or None, default=None
        Seeds the permutations of ``selection="shuffle"``.
    cache_size : float, default=200
        Megabytes for rows of the Gram matrix (8 n bytes each), at most 2**40. On dense X,
        when the n x n matrix fits, it is computed whole at the first update: one symmetric
        product, cheaper than the rows one by one once a run needs 40% of them (one-vs-rest
        and multi-epoch fits need nearly all). Otherwise a row is computed when an update first
        needs it, and kept: when the matrix fits (sparse X), every row is computed at most
        once; when it does not, the least recently used row makes room for a new one, and
        rows of examples that never cause an update are never computed.
    warm_start : bool, default=False
        Continue from the hypothesis of the previous fit (same classes and features): the
        run starts from its decision values and step count, and the rows that cause
        updates join its support vectors (a row already among them is added again). Not
        with a precomputed kernel, whose support vectors are not kept.
"""

_ATTRIBUTES_DOC = """
    Attributes
    ----------
    alpha_ : ndarray of shape (n_samples,) or (n_classes, n_samples)
        Updates on each example of the data of the last call (per class beyond two
        classes); the last hypothesis's coefficient of a support vector is ±(its updates).
    support_ : ndarray of shape (n_new,)
        Indices of the examples of the last call with alpha > 0 (in some problem), which
        that call added to ``support_vectors_`` (all of them, after a fit from scratch).
    support_vectors_ : ndarray or csr_matrix of shape (n_support, n_features)
        The rows of the expansion (float64), earlier calls' first; empty for a precomputed
        kernel (``support_`` then indexes the columns of X).
    dual_coef_ : ndarray of shape (n_problems, n_support)
        The coefficient of each support vector in each binary problem's hypothesis.
    intercept_ : ndarray of shape (n_problems,)
        b = the sum of the coefficients (zero without ``fit_intercept``).
    classes_ : ndarray of shape (n_classes,)
        The labels, sorted; classes_[1] is the positive class of a binary problem.
    n_updates_ : int or ndarray of shape (n_classes,)
        Updates (= mistakes), per class beyond two classes, over all calls that continued
        one another.
    n_steps_ : int or ndarray of shape (n_classes,)
        Examples predicted over the same calls (the step count T of the averaged and voted
        forms), per class beyond two classes: E passes over n examples make E n steps.
    n_epochs_ : int
        Passes made by the last call (the most over the binary problems).
    converged_ : bool
        Whether the last pass made no update, in every binary problem.
    n_features_in_ : int
        Number of features seen during fit (n_train for a precomputed kernel).
"""


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
    }

    def __init__(self, kernel: str | Callable = "linear", degree: int = 3,
                 gamma: float | None = None, coef0: float = 1.0, fit_intercept: bool = True,
                 max_epochs: int = 1000, selection: str = "cyclic",
                 random_state: int | np.random.RandomState | None = None,
                 cache_size: float = 200.0, warm_start: bool = False) -> None:
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

    @fit_context
    def fit(self, X: ArrayLike, y: ArrayLike):
        """Run the kernel perceptron until a pass makes no update, or ``max_epochs`` passes.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Training data, or the (n_samples, n_samples) Gram matrix when
            ``kernel="precomputed"``.
        y : array-like of shape (n_samples,)
            Labels: any two values, or more for one-vs-rest.

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
                       check_random_state(self.random_state))
        if not self.converged_:
            warnings.warn(self._not_converged_message(), ConvergenceWarning, stacklevel=2)
        return self

    @available_if(lambda self: self.kernel != "precomputed")
    @fit_context
    def partial_fit(self, X: ArrayLike, y: ArrayLike, classes: ArrayLike | None = None):
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

        Returns
        -------
        self : object
            The updated estimator.
        """
        first = not hasattr(self, "classes_")  # fit_context checked the parameters
        X, y = validate_data(self, X, y, reset=first, **FIT_INPUT)
        classes = partial_fit_classes(y, classes, None if first else self.classes_)
        targets = encode_targets(y, classes)
        self._fit_runs(X, targets, not first, 1, "cyclic", None)
        return self

    def _check_resumable(self, what: str) -> None:
        if self.kernel == "precomputed":
            raise ValueError(
                f"{what} continues from the support vectors, which kernel='precomputed' "
                "does not keep: fit on the whole Gram matrix instead."
            )

    def _fit_runs(self, X, targets: Targets, resume: bool, max_epochs: int, selection: str,
                  rng) -> None:
        if self._is_linear():  # the primal loop keeps weights over X's columns
            check_dense_vectors(X.shape[1], 2)
        fitted = read_expansion(self, X.shape[1]) if resume else None
        run = self._runner(X, fitted)
        runs = [run(k, targets.labels, positive=positive, max_epochs=max_epochs,
                    selection=selection, rng=rng)
                for k, positive in enumerate(targets.positives)]
        self._set_fitted(X, targets, runs, fitted)

    def _runner(self, X, fitted: Expansion | None) -> Callable[..., KernelRun]:
        """The binary run of problem k: the primal loop for the linear kernel, else the dual.

        The named linear kernel's dual run is the primal run (the same updates), which costs
        O(nnz of a row) per update where the dual needs a Gram row, O(n nnz); a callable
        kernel, even a linear one, runs the dual loop. A resumed run starts from the last
        hypothesis (``fitted``): its primal weights, or its decision values on X.
        """
        steps = None if fitted is None else fitted.n_steps
        if self._is_linear():
            weights = None if fitted is None else self._primal_weights(fitted)

            def linear(k, labels, **options):
                if weights is None:
                    return run_linear_perceptron(X, labels, fit_intercept=self.fit_intercept,
                                                 **options)
                return run_linear_perceptron(X, labels, fit_intercept=self.fit_intercept,
                                             w0=weights[k], n_steps=int(steps[k]), **options)
            return linear
        gram = training_gram(X, self.kernel, degree=self.degree, gamma=self.gamma,
                             coef0=self.coef0, fit_intercept=self.fit_intercept,
                             cache_size=self.cache_size)
        scores = None if fitted is None else self._scores(
            X, fitted, fitted.last_coef, self._intercept_of(fitted.last_coef))

        def dual(k, labels, **options):
            if scores is None:
                return run_kernel_perceptron(gram, labels, record_updates=self._voted,
                                             **options)
            return run_kernel_perceptron(gram, labels, f0=scores[:, k], n_steps=int(steps[k]),
                                         record_updates=self._voted, **options)
        return dual

    def _is_linear(self) -> bool:
        return isinstance(self.kernel, str) and self.kernel == "linear"

    def _primal_weights(self, fitted: Expansion) -> NDArray[np.float64]:
        """w and its intercept c sum_i a_i of the last hypothesis, per problem: (p, d + 1)."""
        coef = fitted.last_coef
        W = _linear_weights(fitted.vectors, coef).T.reshape(coef.shape[0], -1)
        return np.hstack([W, self._intercept_of(coef)[:, None]])

    def _intercept_of(self, coef) -> NDArray[np.float64]:
        return coef.sum(axis=1) * (1.0 if self.fit_intercept else 0.0)

    @property
    def n_steps_(self):
        """Examples predicted over every call since the start (see the class's Attributes)."""
        check_is_fitted(self, "dual_coef_")
        return per_problem(self._n_steps)

    def _set_fitted(self, X, targets: Targets, runs: list[KernelRun],
                    fitted: Expansion | None) -> None:
        alpha = np.vstack([run.alpha for run in runs])
        support = np.flatnonzero(alpha.any(axis=0))
        signs = np.vstack([targets.plus_minus(k, support) for k in range(len(runs))])
        last = alpha[:, support] * signs
        sums = np.vstack([run.sums for run in runs])[:, support] * signs
        precomputed = self.kernel == "precomputed"
        vectors = np.empty((0, 0)) if precomputed else as_float64(X[support])
        resume = fitted is not None
        offset = fitted.size if resume else 0
        if resume:
            vectors = _stack_rows(fitted.vectors, vectors)
            last = np.hstack([fitted.last_coef, last])
            sums = np.hstack([fitted.coef_sums, sums])
        updates = np.array([run.n_updates for run in runs])
        if resume:
            updates += np.atleast_1d(self.n_updates_)
        self.classes_ = targets.classes
        self.alpha_ = alpha[0] if len(runs) == 1 else alpha
        self.support_ = support
        self.support_vectors_ = vectors
        self._last_coef, self._coef_sums = last, sums
        self._n_steps = np.array([run.n_steps for run in runs], dtype=np.int64)
        self.n_updates_ = per_problem(updates)
        self.n_epochs_ = max(run.n_epochs for run in runs)
        self.converged_ = all(run.converged for run in runs)
        self._set_hypothesis()
        if self._voted:
            self._set_votes(targets, runs, support, offset, fitted)

    def _set_hypothesis(self) -> None:
        self.dual_coef_ = self._last_coef.copy()
        self.intercept_ = self._intercept_of(self._last_coef)

    def _set_votes(self, targets, runs, support, offset, fitted) -> None:
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

    def _scores(self, X, fitted: Expansion, coef, intercept) -> NDArray[np.float64]:
        """sum_i coef_i k(x_i, x) + intercept for each row of X: (n_rows, n_problems), over
        the support of ``fitted``."""
        if fitted.kernel == "linear":
            return self._linear_scores(X, _linear_weights(fitted.vectors, coef).T, intercept)
        scores = np.empty((X.shape[0], coef.shape[0]))
        for rows in gen_batches(X.shape[0], self._block(fitted.size)):
            K = self._test_kernel(fitted, X[rows], rows.start)
            with np.errstate(over="ignore", invalid="ignore"):  # refused below, by row
                scores[rows] = K @ coef.T + intercept
        return _finite_rows(scores, 0)  # the sums can overflow where no kernel value did

    @staticmethod
    def _linear_scores(X, W, intercept) -> NDArray[np.float64]:
        """<w, x> + b of the (n_problems, d) weights W, with w = sum_i a_i x_i.

        One product with the weights instead of an n_rows x n_support kernel matrix (a
        minute on a9a's 48,842 rows). The same sums in another order: equal on data whose
        products are exact, within rounding otherwise.
        """
        scores = np.asarray(as_float64(X) @ W.T, dtype=np.float64).reshape(X.shape[0], -1)
        return scores + intercept

    def _block(self, n_support: int) -> int:
        """Rows per block of the test kernel matrix: ``cache_size`` MB of it."""
        return max(1, int(self.cache_size * 2**20) // (8 * max(1, n_support)))

    def _test_kernel(self, fitted: Expansion, X, start: int) -> NDArray[np.float64]:
        """k(x, s_j) for the rows of X (rows start, start + 1, ... of the caller's X) and
        the support vectors s_j of ``fitted``: a (rows, fitted.size) matrix."""
        if fitted.precomputed:
            K = X[:, fitted.columns]
            return np.asarray(K.toarray() if sp.issparse(K) else K, dtype=np.float64)
        if fitted.size == 0:
            return np.zeros((X.shape[0], 0))
        with np.errstate(over="ignore", invalid="ignore"):  # refused below, by row, as at fit
            K = kernel_block(X, fitted.vectors, fitted.kernel, self.degree, self.gamma,
                             self.coef0)
        return _finite_rows(K, start)

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


def _finite_rows(values: NDArray, start: int) -> NDArray:
    """`values` (a row per sample, the first being row `start`), refused as fit refuses
    them where a row holds inf or NaN: a kernel value that overflowed (the polynomial
    kernel of large rows) made a NaN score, which predict sent silently to classes_[0], and
    an infinite one a vote with no meaning."""
    finite = np.isfinite(values)
    if finite.all():
        return values
    raise overflow_error(start + int(np.flatnonzero(~finite.all(axis=1))[0]))


def _stack_rows(A, B):
    if sp.issparse(A) or sp.issparse(B):
        return sp.vstack([sp.csr_matrix(A), sp.csr_matrix(B)], format="csr")
    return np.vstack([A, B])


def _linear_weights(vectors, coef) -> NDArray[np.float64]:
    """w = sum_i a_i x_i per problem, as the columns of a (d, n_problems) array."""
    return np.asarray(vectors.T @ coef.T, dtype=np.float64)


class KernelPerceptron(_BaseKernelPerceptron):
    __doc__ = f"""The kernel perceptron: the perceptron in the dual, f(x) = sum_i a_i y_i k(x_i, x).

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
    feature space the average is far more accurate than the last hypothesis.
    {_PARAMETERS_DOC}    average : bool, default=False
        Predict with the average of the hypotheses over all steps instead of the last one.
    {_ATTRIBUTES_DOC}
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
                 average: bool = False) -> None:
        super().__init__(kernel=kernel, degree=degree, gamma=gamma, coef0=coef0,
                         fit_intercept=fit_intercept, max_epochs=max_epochs,
                         selection=selection, random_state=random_state,
                         cache_size=cache_size, warm_start=warm_start)
        self.average = average

    def _set_hypothesis(self) -> None:
        if not self.average:
            return super()._set_hypothesis()
        # the intercept as the primal averaged perceptron forms it, w_d - aux_d / T: both
        # sums are exact integers, so the two agree bit for bit
        T = np.maximum(self._n_steps, 1).astype(np.float64)
        self.dual_coef_ = self._last_coef - self._coef_sums / T[:, None]
        self.intercept_ = self._intercept_of(self._last_coef) - \
            self._intercept_of(self._coef_sums) / T
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
            scores = self._linear_scores(X, self._averaged_weights(fitted), fitted.intercept)
        else:
            scores = self._scores(X, fitted, fitted.dual_coef, fitted.intercept)
        return scores[:, 0] if scores.shape[1] == 1 else scores

    @staticmethod
    def _averaged_weights(fitted: Expansion) -> NDArray[np.float64]:
        """The averaged primal weights as AveragedPerceptron forms them, w - aux / T.

        w = sum_i alpha_i y_i x_i and aux = sum_i sums_i y_i x_i are exact on data whose
        products are (integers, a9a's 0/1 features), so there the weights are the primal
        ones bit for bit, where sum_i dual_coef_i x_i would round each term.
        """
        T = np.maximum(fitted.n_steps, 1).astype(np.float64)
        W = _linear_weights(fitted.vectors, fitted.last_coef) - \
            _linear_weights(fitted.vectors, fitted.coef_sums) / T
        return np.ascontiguousarray(W.T)


class VotedKernelPerceptron(_BaseKernelPerceptron):
    __doc__ = f"""The voted perceptron in the dual (Freund and Schapire 1999): all hypotheses vote.

    Runs the kernel perceptron (see :class:`KernelPerceptron`) and keeps each hypothesis
    f_k of the run with its survival count c_k, the examples it saw (counting the one that
    created it) before its first mistake; the prediction is sign(sum_k c_k sign(f_k(x))),
    with sign(0) = -1 as ``predict`` sends a zero score to classes_[0]. The hypotheses are
    stored as the sequence of updates (which support vector, which sign), and
    f_k(x) = f_(k-1)(x) + y_(i_k) (k(x_(i_k), x) + c) is a running sum over it: scoring a
    row costs its kernel values with the support vectors plus O(1) per update, the
    computation of :class:`~halfspaces.VotedPerceptron` with kernel values in place of
    inner products. With the linear kernel it is :class:`~halfspaces.VotedPerceptron`.
    {_PARAMETERS_DOC}{_ATTRIBUTES_DOC}    update_support_ : list of ndarray
        Per binary problem, the row of ``support_vectors_`` (the entry of ``support_`` for
        a precomputed kernel) added at each update.
    update_signs_ : list of ndarray
        Per binary problem, the sign (±1) of each update.
    vote_counts_ : list of ndarray
        Per binary problem, the survival counts c_0, ..., c_K of f_0 = 0, ..., f_K.

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

    def _set_votes(self, targets, runs, support, offset, fitted) -> None:
        rows, signs, steps = [], [], []
        for k, run in enumerate(runs):
            new_rows = offset + np.searchsorted(support, run.update_rows)
            new_signs = targets.plus_minus(k, run.update_rows)
            old = fitted.votes[k] if fitted is not None else (None, None, None, None)
            rows.append(_extend(old[0], new_rows))
            signs.append(_extend(old[1], new_signs))
            steps.append(_extend(old[3], run.update_steps))
        self.update_support_, self.update_signs_, self._update_steps = rows, signs, steps
        self.vote_counts_ = [survival_counts(s, T)
                             for s, T in zip(steps, self._n_steps, strict=True)]

    def decision_function(self, X: ArrayLike) -> NDArray[np.float64]:
        """The weighted vote sum_k c_k sign(f_k(x)) of each sample (per class).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Samples; for a precomputed kernel the (n_samples, n_train) kernel matrix.

        Returns
        -------
        votes : ndarray of shape (n_samples,) or (n_samples, n_classes)
            Positive votes favour classes_[1] (binary) or the class of that column.
        """
        check_is_fitted(self)
        X = validate_data(self, X, reset=False, **FIT_INPUT)
        fitted = read_expansion(self, X.shape[1])
        c = 1.0 if self.fit_intercept else 0.0
        n_problems, n = len(fitted.votes), X.shape[0]
        votes = np.empty((n_problems, n))
        for rows in gen_batches(n, self._block(fitted.size)):
            G = np.ascontiguousarray(self._test_kernel(fitted, X[rows], rows.start),
                                     dtype=np.float64)
            # the compiled vote reads G[r, update_support_[k]] unchecked
            if G.shape != (rows.stop - rows.start, fitted.size) or fitted.size < fitted.top:
                raise ValueError(f"The test kernel matrix has shape {G.shape} where "
                                 f"{rows.stop - rows.start} rows and {fitted.top} support "
                                 "vectors were expected.")
            for k, (update_rows, signs, counts, _) in enumerate(fitted.votes):
                kp.voted_scores(G, update_rows, signs, counts, c, votes[k, rows])
            report(rows.stop, n)
        return votes[0] if n_problems == 1 else votes.T


def _extend(old: NDArray | None, new: NDArray) -> NDArray:
    return new.copy() if old is None else np.concatenate([old, new])
