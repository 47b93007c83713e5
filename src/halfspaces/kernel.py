"""The dual perceptron with kernels: KernelPerceptron, and the kernel functions it uses.

The perceptron's weights are always a sum of training examples, w = sum_i alpha_i y_i x_i,
where alpha_i counts the updates on example i (the dual representation). The algorithm then
needs only inner products, which a kernel k(x, z) = <phi(x), phi(z)> replaces: the
perceptron learns a halfspace in the feature space of phi, a non-linear surface in X.
The run itself and the kernel matrices are in the algorithm layer
(:mod:`halfspaces._dual_run`); :func:`kernel_matrix`, :func:`run_kernel_perceptron` and
:class:`KernelRun` are importable from here.

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
from functools import partial
from numbers import Integral, Real
from typing import ClassVar

import numpy as np
import scipy.sparse as sp
from numpy.typing import ArrayLike, NDArray
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils import check_random_state, gen_batches
from sklearn.utils.validation import check_is_fitted

from halfspaces._dual_run import (
    KERNELS,
    GramRows,  # noqa: F401 (re-exported)
    KernelRun,
    as_float64,
    kernel_matrix,
    named_kernel,  # noqa: F401 (re-exported)
    run_kernel_perceptron,
    run_linear_perceptron,
    training_gram,
)
from halfspaces._sklearn import Interval, StrOptions, fit_context
from halfspaces._validation import (
    FIT_INPUT,
    SparseInputMixin,
    Targets,
    encode_targets,
    validate_data,
)
from halfspaces.exceptions import ConvergenceWarning

__all__ = ["KernelPerceptron", "KernelRun", "kernel_matrix", "run_kernel_perceptron"]


class KernelPerceptron(SparseInputMixin, ClassifierMixin, BaseEstimator):
    """The kernel perceptron: the perceptron in the dual, f(x) = sum_i alpha_i y_i k(x_i, x).

    Starts at alpha = 0; visits the examples in turn and, when y_i f(x_i) <= 0, sets
    alpha_i += 1; stops after a pass with no update. The intercept is the constant feature
    of the homogeneous reduction, so the kernel used is k(x, z) + 1 when ``fit_intercept``.
    With ``kernel="linear"`` this is exactly :class:`~halfspaces.Perceptron`: the same
    updates, and w = sum_i alpha_i y_i x_i. The decision values of all training examples are
    kept and updated in O(n) per update, so a pass costs O(n) plus O(n) per update (and a
    Gram row of O(n nnz) the first time an example causes one). The linear kernel runs the
    primal loop instead, O(nnz of the row) per update, and reads alpha off its updates:
    the same updates, in milliseconds on a9a. More than two classes give one-vs-rest.

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
    random_state : int, RandomState instance or None, default=None
        Seeds the permutations of ``selection="shuffle"``.
    cache_size : float, default=200
        Megabytes for rows of the Gram matrix (8 n bytes each). A row is computed when an
        update first needs it, and kept: when the n x n matrix fits, every row is computed
        at most once; otherwise the least recently used row makes room for a new one. Rows
        of examples that never cause an update are never computed.

    Attributes
    ----------
    alpha_ : ndarray of shape (n_samples,) or (n_classes, n_samples)
        Updates on each training example (per class beyond two classes).
    support_ : ndarray of shape (n_support,)
        Indices of the examples with alpha > 0 (in some problem).
    support_vectors_ : ndarray or csr_matrix of shape (n_support, n_features)
        Those examples (float64); empty for a precomputed kernel.
    dual_coef_ : ndarray of shape (n_problems, n_support)
        alpha_i y_i of each support vector, one row per binary problem.
    intercept_ : ndarray of shape (n_problems,)
        b = sum_i alpha_i y_i (zero without ``fit_intercept``).
    classes_ : ndarray of shape (n_classes,)
        The labels, sorted; classes_[1] is the positive class of a binary problem.
    n_updates_ : int or ndarray of shape (n_classes,)
        Updates (= mistakes), per class beyond two classes.
    n_epochs_ : int
        Passes made (the most over the binary problems).
    converged_ : bool
        Whether the last pass made no update, in every binary problem.
    n_features_in_ : int
        Number of features seen during fit (n_train for a precomputed kernel).

    See Also
    --------
    halfspaces.Perceptron : the primal form (kernel="linear").
    sklearn.svm.SVC : the maximum-margin classifier with the same kernels.

    References
    ----------
    Aizerman, Braverman and Rozonoer (1964); Freund and Schapire (1999);
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
    """

    _parameter_constraints: ClassVar[dict] = {
        "kernel": [StrOptions({*KERNELS, "precomputed"}), callable],
        "degree": [Interval(Integral, 0, None, closed="left")],
        "gamma": [Interval(Real, 0, None, closed="neither"), None],
        "coef0": [Interval(Real, None, None, closed="neither")],
        "fit_intercept": ["boolean"],
        "max_epochs": [Interval(Integral, 1, None, closed="left")],
        "selection": [StrOptions({"cyclic", "shuffle"})],
        "random_state": ["random_state"],
        "cache_size": [Interval(Real, 0, None, closed="neither")],
    }

    def __init__(self, kernel: str | Callable = "linear", degree: int = 3,
                 gamma: float | None = None, coef0: float = 1.0, fit_intercept: bool = True,
                 max_epochs: int = 1000, selection: str = "cyclic",
                 random_state: int | np.random.RandomState | None = None,
                 cache_size: float = 200.0) -> None:
        self.kernel = kernel
        self.degree = degree
        self.gamma = gamma
        self.coef0 = coef0
        self.fit_intercept = fit_intercept
        self.max_epochs = max_epochs
        self.selection = selection
        self.random_state = random_state
        self.cache_size = cache_size

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
        X, y = validate_data(self, X, y, **FIT_INPUT)
        targets = encode_targets(y)
        if self.kernel == "precomputed" and X.shape[0] != X.shape[1]:
            raise ValueError(
                "With kernel='precomputed', X must be the square Gram matrix of the "
                f"training examples; got shape {X.shape}."
            )
        rng = check_random_state(self.random_state)
        run = self._runner(X)
        runs = [run(targets.labels, positive=positive, max_epochs=self.max_epochs,
                    selection=self.selection, rng=rng)
                for positive in targets.positives]
        self._set_fitted(X, targets, runs)
        if not self.converged_:
            warnings.warn(self._not_converged_message(), ConvergenceWarning, stacklevel=2)
        return self

    def _runner(self, X) -> Callable[..., KernelRun]:
        """The binary run: the primal loop for the linear kernel, the dual loop otherwise.

        The named linear kernel's dual run is the primal run (the same updates), which costs
        O(nnz of a row) per update where the dual needs a Gram row, O(n nnz); a callable
        kernel, even a linear one, runs the dual loop.
        """
        if isinstance(self.kernel, str) and self.kernel == "linear":
            return partial(run_linear_perceptron, X, fit_intercept=self.fit_intercept)
        gram = training_gram(X, self.kernel, degree=self.degree, gamma=self.gamma,
                             coef0=self.coef0, fit_intercept=self.fit_intercept,
                             cache_size=self.cache_size)
        return partial(run_kernel_perceptron, gram)

    def _kernel(self, A, B) -> NDArray[np.float64]:
        return kernel_matrix(A, B, self.kernel, self.degree, self.gamma, self.coef0)

    def _set_fitted(self, X, targets: Targets, runs: list[KernelRun]) -> None:
        alpha = np.vstack([run.alpha for run in runs])
        support = np.flatnonzero(alpha.any(axis=0))
        signs = np.vstack([targets.plus_minus(k, support) for k in range(len(runs))])
        self.classes_ = targets.classes
        self.alpha_ = alpha[0] if len(runs) == 1 else alpha
        self.support_ = support
        self.dual_coef_ = alpha[:, support] * signs
        self.intercept_ = self.dual_coef_.sum(axis=1) * (1.0 if self.fit_intercept else 0.0)
        precomputed = self.kernel == "precomputed"
        self.support_vectors_ = np.empty((0, 0)) if precomputed else as_float64(X[support])
        updates = np.array([run.n_updates for run in runs])
        self.n_updates_ = updates[0].item() if updates.size == 1 else updates
        self.n_epochs_ = max(run.n_epochs for run in runs)
        self.converged_ = all(run.converged for run in runs)

    def _not_converged_message(self) -> str:
        return (
            f"KernelPerceptron made updates in each of its max_epochs={self.max_epochs} "
            "passes: the data may not be separable in the kernel's feature space. Try "
            "another kernel or gamma, or raise max_epochs."
        )

    def decision_function(self, X: ArrayLike) -> NDArray[np.float64]:
        """f(x) = sum_i alpha_i y_i k(x_i, x) + b for each sample (per class).

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
        if isinstance(self.kernel, str) and self.kernel == "linear":
            scores = self._linear_scores(X)
            return scores[:, 0] if scores.shape[1] == 1 else scores
        scores = np.empty((X.shape[0], self.dual_coef_.shape[0]))
        n_support = max(1, self.support_.size)
        block = max(1, int(self.cache_size * 2**20) // (8 * n_support))
        for rows in gen_batches(X.shape[0], block):
            scores[rows] = self._test_kernel(X[rows]) @ self.dual_coef_.T + self.intercept_
        return scores[:, 0] if scores.shape[1] == 1 else scores

    def _linear_scores(self, X) -> NDArray[np.float64]:
        """sum_i a_i <x_i, x> + b as <w, x> + b, with w = sum_i a_i x_i (the primal weights).

        One product with the (n_problems, d) weights instead of an n_rows x n_support kernel
        matrix (a minute on a9a's 48,842 rows). The same sums in another order: equal on
        data whose products are exact, within rounding otherwise.
        """
        W = np.asarray(self.support_vectors_.T @ self.dual_coef_.T, dtype=np.float64).T
        scores = np.asarray(as_float64(X) @ W.T, dtype=np.float64).reshape(X.shape[0], -1)
        return scores + self.intercept_

    def _test_kernel(self, X) -> NDArray[np.float64]:
        if self.kernel == "precomputed":
            K = X[:, self.support_]
            return np.asarray(K.toarray() if sp.issparse(K) else K, dtype=np.float64)
        if self.support_.size == 0:
            return np.zeros((X.shape[0], 0))
        return self._kernel(X, self.support_vectors_)

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
