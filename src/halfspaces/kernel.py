"""The dual perceptron with kernels: KernelPerceptron, and the kernel functions it uses.

The perceptron's weights are always a sum of training examples, w = sum_i alpha_i y_i x_i,
where alpha_i counts the updates on example i (the dual representation). The algorithm then
needs only inner products, which a kernel k(x, z) = <phi(x), phi(z)> replaces: the
perceptron learns a halfspace in the feature space of phi, a non-linear surface in X.

References
----------
.. [1] M. A. Aizerman, E. M. Braverman and L. I. Rozonoer. Theoretical foundations of the
   potential function method in pattern recognition learning. Automation and Remote
   Control 25, 1964.
.. [2] Y. Freund and R. E. Schapire. Large margin classification using the perceptron
   algorithm. Machine Learning 37(3), 1999.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from numbers import Integral, Real
from typing import ClassVar

import numpy as np
import scipy.sparse as sp
from numpy.typing import ArrayLike, NDArray
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils import check_random_state, gen_batches
from sklearn.utils.validation import check_is_fitted, validate_data

from halfspaces._fast import dual as kd
from halfspaces._fast import loop_input
from halfspaces._progress import report
from halfspaces._sklearn import Interval, StrOptions, fit_context
from halfspaces._validation import FIT_INPUT, SparseInputMixin, Targets, encode_targets
from halfspaces.exceptions import ConvergenceWarning

__all__ = ["KernelPerceptron", "KernelRun", "kernel_matrix", "run_kernel_perceptron"]

KERNELS = ("linear", "poly", "rbf", "sigmoid")
_KIND = {"linear": kd.LINEAR, "poly": kd.POLY, "rbf": kd.RBF, "sigmoid": kd.SIGMOID}


def kernel_matrix(A: ArrayLike, B: ArrayLike, kernel: str | Callable = "linear",
                  degree: int = 3, gamma: float | None = None,
                  coef0: float = 1.0) -> NDArray[np.float64]:
    r"""The matrix k(a_i, b_j) of a named kernel, or of a callable k(A, B).

    .. math::

        \text{linear: } \langle a, b\rangle \quad
        \text{poly: } (\gamma\langle a, b\rangle + c_0)^{p} \quad
        \text{rbf: } e^{-\gamma\|a - b\|^2} \quad
        \text{sigmoid: } \tanh(\gamma\langle a, b\rangle + c_0)

    Parameters
    ----------
    A : {array-like, sparse matrix} of shape (n_a, n_features)
    B : {array-like, sparse matrix} of shape (n_b, n_features)
    kernel : {"linear", "poly", "rbf", "sigmoid"} or callable, default="linear"
        A callable gets (A, B) and returns the (n_a, n_b) matrix.
    degree : int, default=3
        p of the polynomial kernel.
    gamma : float, default=None
        gamma of poly, rbf and sigmoid; None means 1 / n_features.
    coef0 : float, default=1.0
        c_0 of poly and sigmoid.

    Returns
    -------
    K : ndarray of shape (n_a, n_b), float64

    Examples
    --------
    >>> from halfspaces.kernel import kernel_matrix
    >>> kernel_matrix([[1.0, 2.0]], [[3.0, 4.0], [0.0, 0.0]], "poly", degree=2, gamma=1.0)
    array([[144.,   1.]])
    """
    if not sp.issparse(A):
        A = np.asarray(A)
    if not sp.issparse(B):
        B = np.asarray(B)
    if callable(kernel):
        return _callable_matrix(kernel, A, B)
    B = _float64(B)
    sq_norms = _squared_norms(B) if kernel == "rbf" else None
    return named_kernel(_float64(A), B, kernel, degree, gamma, coef0, sq_norms)


def _callable_matrix(kernel: Callable, A, B) -> NDArray[np.float64]:
    K = np.asarray(kernel(A, B), dtype=np.float64)
    expected = (A.shape[0], B.shape[0])
    if K.shape != expected:
        raise ValueError(
            f"The callable kernel returned a matrix of shape {K.shape} for inputs of "
            f"{A.shape[0]} and {B.shape[0]} rows; kernel(A, B) must return shape {expected}."
        )
    return K


def named_kernel(A, B, kernel: str, degree: int, gamma: float | None, coef0: float,
                 sq_norms_B: NDArray | None = None) -> NDArray[np.float64]:
    """:func:`kernel_matrix` of float64 A and B, given ||b_j||^2 for "rbf" (computed once)."""
    gamma = 1.0 / A.shape[1] if gamma is None else gamma
    K = _dots(A, B)
    if kernel == "rbf":
        K *= -2.0
        K += _squared_norms(A)[:, None]
        K += sq_norms_B[None, :]
        np.maximum(K, 0.0, out=K)  # rounding can make a squared distance negative
        K *= -gamma
        return np.exp(K, out=K)
    if kernel != "linear":
        K *= gamma
        K += coef0
    if kernel == "poly":
        return K**degree
    return np.tanh(K, out=K) if kernel == "sigmoid" else K


def _dots(A, B) -> NDArray[np.float64]:
    """The matrix of <a_i, b_j>, dense and C-ordered.

    A sparse operand of at most 2^22 entries is made dense for BLAS; a larger one, or a
    sparse B against a few rows A (one Gram row), stays sparse.
    """
    few = A.shape[0] <= 64
    A, B = _dense_if_small(A), B if few else _dense_if_small(B)
    if sp.issparse(B) and not sp.issparse(A):
        return np.ascontiguousarray(np.asarray(B @ A.T).T)
    product = A @ B.T
    product = product.toarray() if sp.issparse(product) else np.asarray(product)
    return np.ascontiguousarray(product, dtype=np.float64)


def _dense_if_small(A):
    return A.toarray() if sp.issparse(A) and A.shape[0] * A.shape[1] <= 2**22 else A


def _squared_norms(A) -> NDArray[np.float64]:
    """||a_i||^2 of every row, accumulated in float64 (also for float32 A)."""
    if sp.issparse(A):
        A = A.astype(np.float64, copy=False)
        return np.asarray(A.multiply(A).sum(axis=1)).ravel()
    return np.einsum("ij,ij->i", A, A, dtype=np.float64)


def _float64(A):
    if sp.issparse(A):
        return A.astype(np.float64, copy=False)
    return np.asarray(A, dtype=np.float64)


class GramRows:
    """The rows k(x_i, .) + c of a training Gram matrix, computed when an update needs them.

    ``capacity`` rows are kept: all n when the n x n matrix fits in ``cache_size`` MB (the
    Gram matrix cached), fewer otherwise, the least recently used row then making room for
    a new one (as libsvm's kernel cache does). A row is computed when an update first needs
    it, so the rows of examples that never cause an update are never computed. (Computing
    the rows of the next current mistakes in the same pass over X was tried and lost: most
    of them are no longer mistakes when the loop reaches them.)

    The rows come from ``spec`` = (kind, gamma, coef0, degree, c) for a named kernel (a
    Numba kernel over X), from ``kernel_rows(A)`` (the kernel matrix of the rows of A
    against X) for a callable, or from ``gram``, the Gram matrix itself (precomputed).
    """

    def __init__(self, X, cache_size: float, *, spec: tuple, kernel_rows: Callable | None = None,
                 gram=None) -> None:
        n = X.shape[0]
        self.X, self.spec, self.kernel_rows = X, spec, kernel_rows
        self.capacity = max(1, min(n, int(cache_size * 2**20) // (8 * max(n, 1))))
        if gram is not None:
            self.K = np.ascontiguousarray(np.asarray(gram, np.float64) + spec[4])
            self.slot, self.capacity = np.arange(n, dtype=np.int64), n
        else:
            self.K = np.empty((self.capacity, n))
            self.slot = np.full(n, -1, dtype=np.int64)
        self.owner = np.full(self.capacity, -1, dtype=np.int64)
        self.last_use = np.zeros(self.capacity + 1, dtype=np.int64)  # the clock last
        self.used = self.capacity if gram is not None else 0
        self.n_computed = 0
        if gram is None and kernel_rows is None:
            self.Xk, self.sq = loop_input(X), _squared_norms(X)
            self.Z = np.zeros((1, X.shape[1]))

    def fetch(self, row: int) -> None:
        """Compute the row of example ``row``, in a free slot or the least recently used."""
        if self.used < self.capacity:
            s = self.used
            self.used += 1
        else:
            s = int(np.argmin(self.last_use[:-1]))
            self.slot[self.owner[s]] = -1
        self._compute(row, s)
        self.n_computed += 1
        self.slot[row], self.owner[s] = s, row
        self.last_use[s] = self.last_use[-1]

    def _compute(self, row: int, s: int) -> None:
        if self.kernel_rows is None:
            kd.gram_rows(self.Xk, np.array([row]), self.spec, self.sq, self.Z, self.K,
                         np.array([s]))
            return
        # an overflow becomes inf here and is reported by the epoch loop, naming the row
        with np.errstate(over="ignore", invalid="ignore"):
            self.K[s] = self.kernel_rows(self.X[[row]])[0] + self.spec[4]


@dataclass(frozen=True)
class KernelRun:
    """The outcome of :func:`run_kernel_perceptron` on one binary problem.

    ``alpha[i]`` counts the updates on example i; the hypothesis is
    f(x) = sum_i alpha_i y_i (k(x_i, x) + c).
    """

    alpha: NDArray[np.int64]
    n_updates: int
    n_epochs: int
    converged: bool


def run_kernel_perceptron(gram: GramRows, y: NDArray, *, positive=1.0, max_epochs: int = 1,
                          selection: str = "cyclic",
                          rng: np.random.RandomState | None = None) -> KernelRun:
    """The dual perceptron on the targets +1 where ``y == positive``, -1 elsewhere.

    Stops after a pass with no update (converged) or after ``max_epochs`` passes; with
    ``selection="shuffle"`` each pass visits a fresh permutation drawn from ``rng``.
    """
    n = y.shape[0]
    Y = (y, y.dtype.type(positive))
    f, alpha = np.zeros(n), np.zeros(n, dtype=np.int64)
    n_updates, converged, epoch = 0, False, 0
    for epoch in range(1, max_epochs + 1):
        order = rng.permutation(n) if selection == "shuffle" else np.empty(0, dtype=np.int64)
        k = _one_epoch(gram, Y, order, f, alpha)
        n_updates += k
        report(epoch, max_epochs)
        if k == 0:
            converged = True
            break
    return KernelRun(alpha, n_updates, epoch, converged)


def _one_epoch(gram: GramRows, Y, order, f, alpha) -> int:
    n, pos, total = f.shape[0], 0, 0
    while True:
        pos, k = kd.dual_epoch(gram.K, gram.slot, Y, order, pos, f, alpha, gram.last_use)
        total += k
        if pos < 0:
            raise ValueError(
                f"The decision value of row {-1 - pos} overflowed; the kernel values are too "
                "large: rescale X, or lower degree or gamma."
            )
        if pos == n:
            return total
        gram.fetch(int(order[pos]) if order.size else pos)


class KernelPerceptron(SparseInputMixin, ClassifierMixin, BaseEstimator):
    """The kernel perceptron: the perceptron in the dual, f(x) = sum_i alpha_i y_i k(x_i, x).

    Starts at alpha = 0; visits the examples in turn and, when y_i f(x_i) <= 0, sets
    alpha_i += 1; stops after a pass with no update. The intercept is the constant feature
    of the homogeneous reduction, so the kernel used is k(x, z) + 1 when ``fit_intercept``.
    With ``kernel="linear"`` this is exactly :class:`~halfspaces.Perceptron`: the same
    updates, and w = sum_i alpha_i y_i x_i. The decision values of all training examples are
    kept and updated in O(n) per update, so a pass costs O(n) plus O(n) per update. More
    than two classes give one-vs-rest.

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
    Aizerman, Braverman and Rozonoer (1964); Freund and Schapire (1999).

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
        gram = self._gram_rows(X)
        rng = check_random_state(self.random_state)
        runs = [
            run_kernel_perceptron(gram, targets.labels, positive=positive,
                                  max_epochs=self.max_epochs, selection=self.selection, rng=rng)
            for positive in targets.positives
        ]
        self._set_fitted(X, targets, runs)
        if not self.converged_:
            warnings.warn(self._not_converged_message(), ConvergenceWarning, stacklevel=2)
        return self

    def _gram_rows(self, X) -> GramRows:
        c = 1.0 if self.fit_intercept else 0.0
        if self.kernel == "precomputed":
            if X.shape[0] != X.shape[1]:
                raise ValueError(
                    "With kernel='precomputed', X must be the square Gram matrix of the "
                    f"training examples; got shape {X.shape}."
                )
            gram = X.toarray() if sp.issparse(X) else X
            return GramRows(X, self.cache_size, spec=(0, 0.0, 0.0, 0.0, c), gram=gram)
        if callable(self.kernel):
            return GramRows(X, self.cache_size, spec=(0, 0.0, 0.0, 0.0, c),
                            kernel_rows=partial(_callable_matrix, self.kernel, B=X))
        gamma = 1.0 / X.shape[1] if self.gamma is None else float(self.gamma)
        spec = (_KIND[self.kernel], gamma, float(self.coef0), float(self.degree), c)
        return GramRows(X, self.cache_size, spec=spec)

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
        self.support_vectors_ = np.empty((0, 0)) if precomputed else _float64(X[support])
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
        scores = np.empty((X.shape[0], self.dual_coef_.shape[0]))
        n_support = max(1, self.support_.size)
        block = max(1, int(self.cache_size * 2**20) // (8 * n_support))
        for rows in gen_batches(X.shape[0], block):
            scores[rows] = self._test_kernel(X[rows]) @ self.dual_coef_.T + self.intercept_
        return scores[:, 0] if scores.shape[1] == 1 else scores

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
