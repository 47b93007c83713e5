"""LogisticRegression and LinearRegression over data partitioned on a Dask cluster.

The serial estimators' parameters, solvers and fitted attributes, with the sums over the rows
computed on the workers (:class:`halfspaces.dask._sums.PartitionSums`); the optimiser, the
whitening, the Cholesky factorisations and the conjugate gradients run on the client, on
O(d k) numbers per pass (Spark MLlib's recipe, Meng et al., JMLR 17, 2016).

References
----------
.. [1] J. Demmel, L. Grigori, M. Hoemmen and J. Langou. Communication-optimal parallel and
   sequential QR and LU factorizations. SIAM J. Sci. Comput. 34(1), 2012 (TSQR).
"""

from __future__ import annotations

from functools import partial

import numpy as np
import scipy.sparse as sp
from numpy.typing import NDArray
from sklearn.utils import check_random_state
from sklearn.utils.metaestimators import available_if
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted

from halfspaces._glm.datafits import Block, Logistic, Softmax
from halfspaces._glm.least_squares import (
    normal_equation_scales,
    normal_equation_sums,
    solve_normal_equations,
    target_scale,
)
from halfspaces._glm.objective import GLMObjective
from halfspaces._glm.solvers import SolverRun
from halfspaces._sklearn import fit_context
from halfspaces._utils.memory import check_dense_vectors
from halfspaces._validation import Targets
from halfspaces.dask._partitions import Partitions, add_in_order, map_row_blocks
from halfspaces.dask._score import score
from halfspaces.dask._sums import PartitionSums
from halfspaces.linear_regression import LinearRegression as SerialLinearRegression
from halfspaces.logistic import LogisticRegression as SerialLogisticRegression

__all__ = ["LinearRegression", "LogisticRegression"]

_FULL_BATCH = ("lbfgs", "newton")


class _Distributed:
    """What both distributed estimators add: partitioned input, to_local, blockwise predictions."""

    _serial: type  # the serial class
    _solvers: tuple[str, ...]

    def _refuse_solver(self) -> None:
        if getattr(self, "class_weight", None) is not None:
            raise ValueError(
                f"halfspaces.dask.{type(self).__name__}(class_weight="
                f"{self.class_weight!r}): the distributed fit takes no weights yet; set "
                "class_weight=None, or fit the serial estimator on data in memory.")
        if self.l1_ratio > 0:
            raise ValueError(
                f"halfspaces.dask.{type(self).__name__}(l1_ratio={self.l1_ratio}): the L1 "
                "part needs coordinate descent over columns in memory; fit "
                f"halfspaces.{type(self).__name__}(solver='cd') on data that fit in memory, "
                "or set l1_ratio=0.")
        if self.solver not in self._solvers:
            name = type(self).__name__
            raise ValueError(
                f"halfspaces.dask.{name}(solver={self.solver!r}): a distributed fit runs "
                f"the solvers {list(self._solvers)}, which need one pass over the partitions "
                f"per step; for {self.solver!r} fit halfspaces.{name} on data that fit in "
                "memory (or a sample of them)."
            )

    def _partitions(self, X, y, targets: str) -> Partitions:
        parts = X if isinstance(X, Partitions) else Partitions.from_collections(
            X, y, targets=targets)
        # the client holds the weights, their gradients and a d x d Gram or R factor for
        # least squares: a declared width beyond its memory is refused here, by name
        check_dense_vectors(parts.n_features,
                            parts.n_features + 2 if targets == "continuous" else 3)
        self.n_features_in_ = parts.n_features
        # a DataFrame's columns, or the files' header read_files found
        columns = X.feature_names if isinstance(X, Partitions) else getattr(X, "columns", None)
        if columns is not None and len(columns) and all(isinstance(c, str) for c in columns):
            self.feature_names_in_ = np.asarray(columns, dtype=object)
        elif hasattr(self, "feature_names_in_"):
            del self.feature_names_in_
        return parts

    def to_local(self):
        """The equivalent serial estimator (``halfspaces.save`` writes it; NumPy predicts).

        Returns
        -------
        estimator : halfspaces.LogisticRegression or halfspaces.LinearRegression
            Same parameters and fitted attributes.
        """
        local = self._serial(**self.get_params())
        params = local.get_params()
        local.__dict__.update({k: v for k, v in self.__dict__.items() if k not in params})
        return local

    def score(self, X, y=None):
        """The serial class's score (accuracy, or R^2 for regression): on the partitions for
        dask input, NumPy's for NumPy input.

        Parameters
        ----------
        X : array-like, sparse matrix, dask array, dask DataFrame or Partitions
            The samples, of shape (n_samples, n_features); a Partitions holds the targets.
        y : array-like or dask array of shape (n_samples,), default=None
            The true labels or targets (None with a Partitions).

        Returns
        -------
        score : float
            :func:`halfspaces.dask.score` for data on the cluster: every partition
            predicts its own rows and returns a few sums.
        """
        from dask import is_dask_collection

        check_is_fitted(self)
        if isinstance(X, Partitions) or is_dask_collection(X):
            return score(self, X, y)
        return float(self.to_local().score(X, y))

    def _blockwise(self, X, method: str, columns: int | None, dtype):
        """``method`` of the serial estimator on every row block of X: a dask array, or
        NumPy for NumPy input."""
        from dask import is_dask_collection

        local = self.to_local()
        if not is_dask_collection(X):
            return getattr(local, method)(X)
        local.__dict__.pop("feature_names_in_", None)  # the blocks are plain arrays
        if hasattr(X, "to_dask_array"):
            X = X.to_dask_array()
        return map_row_blocks(X, local, method, columns, dtype)


class LogisticRegression(_Distributed, SerialLogisticRegression):
    """:class:`halfspaces.LogisticRegression` on row partitions of a Dask cluster.

    Same parameters and fitted attributes; ``fit`` takes dask arrays (dense or CSR chunks,
    chunked by rows), dask DataFrames and Series, or :class:`Partitions`, and runs on the
    current ``distributed`` client. Solvers "lbfgs" and "newton" (whitened L-BFGS, Newton
    with Cholesky or preconditioned CG), each evaluation one task per partition whose
    results the client adds in partition order: one partition gives the serial fit bit
    for bit, and the result does not depend on the number of workers. ``predict``,
    ``predict_proba``, ``predict_log_proba`` and ``decision_function`` return dask arrays
    for dask input (computed block by block) and NumPy for NumPy input.

    As the serial class, an unpenalised fit (alpha=0) on separable data warns that the
    maximum-likelihood weights do not exist: one more pass checks whether the fitted
    weights separate the partitions, and a binary fit that did not converge asks
    :func:`halfspaces.dask.separability`.

    Parameters
    ----------
    solver, alpha, fit_intercept, max_iter, tol
        As in :class:`halfspaces.LogisticRegression`; ``solver`` is "lbfgs" or "newton"
        (the others are refused by name when fitting).
    learning_rate, eta0, power_t, batch_size, line_search, average, random_state, warm_start
        As in :class:`halfspaces.LogisticRegression`.
    early_stopping, validation_fraction, n_iter_no_change
        As in :class:`halfspaces.LogisticRegression`; early stopping needs a stochastic
        solver, so a distributed fit refuses ``early_stopping=True`` by name.
    l1_ratio : float, default=0.0
        Must be 0 here: the L1 part needs coordinate descent over columns in memory, and
        a distributed fit refuses l1_ratio > 0 by name.
    class_weight : None, default=None
        Kept for the serial class's signature: a distributed fit takes no weights yet, and
        a value other than None is refused when fitting.

    Examples
    --------
    >>> import dask.array as da, numpy as np
    >>> from distributed import Client, LocalCluster
    >>> from halfspaces.dask import LogisticRegression
    >>> with LocalCluster(n_workers=1, processes=False) as cluster, Client(cluster):
    ...     X = da.from_array(np.array([[0.0], [1.0], [2.0], [3.0]]), chunks=2)
    ...     y = da.from_array(np.array([0, 0, 1, 1]), chunks=2)
    ...     clf = LogisticRegression(solver="newton", alpha=0.1).fit(X, y)
    ...     clf.predict(np.array([[0.5], [2.5]]))
    array([0, 1])
    """

    _serial = SerialLogisticRegression
    _solvers = _FULL_BATCH

    @fit_context
    def fit(self, X, y=None):
        """Minimise J over the partitioned training data.

        Parameters
        ----------
        X : dask array, dask DataFrame or Partitions
            Training data, chunked by rows.
        y : dask array or Series, optional
            Labels with X's row partitions (None when X is a Partitions).

        Returns
        -------
        self : object
            The fitted estimator.
        """
        self._refuse_solver()
        parts = self._partitions(X, y, "classes")
        classes = parts.classes
        check_classification_targets(classes)
        if classes.size < 2:
            raise ValueError(f"y contains only one class ({classes.tolist()[0]!r}); a "
                             "classifier needs samples of at least 2 classes.")
        obj = self._distributed_objective(parts, classes)
        self._rng = check_random_state(self.random_state)
        run = self._solve(obj, self._rng)
        self._set_fitted(obj, Targets(classes, classes[:0], ()), run)
        if self.alpha == 0 and _separable_on_cluster(self, parts, classes):
            self._warn_separable(stacklevel=3)
        else:
            self._warn_unfinished(run)
        return self

    def _distributed_objective(self, parts: Partitions, classes: NDArray) -> GLMObjective:
        if classes.size == 2:
            datafit, encode = Logistic(), partial(_plus_minus, classes[1])
        else:
            datafit, encode = Softmax(classes.size), partial(_class_index, classes)
        c = 1.0 if self.fit_intercept else 0.0
        rows = PartitionSums(parts.map_targets(encode), datafit, c)
        return GLMObjective(rows, datafit, self.alpha, self.fit_intercept)

    @available_if(lambda est: False)
    def partial_fit(self, X, y, classes=None):  # pragma: no cover - never available
        raise AttributeError("partial_fit")

    def decision_function(self, X):
        """The scores of each row, one column per class beyond two.

        Parameters
        ----------
        X : array-like, sparse matrix, dask array or dask DataFrame
            The samples, of shape (n_samples, n_features).

        Returns
        -------
        scores : ndarray or dask array of shape (n_samples,) or (n_samples, n_classes)
            As the serial class's; a dask array, computed block by block, for dask input.
        """
        k = self.coef_.shape[0]
        return self._blockwise(X, "decision_function", None if k == 1 else k, np.float64)

    def predict(self, X):
        """The predicted class of each row.

        Parameters
        ----------
        X : array-like, sparse matrix, dask array or dask DataFrame
            The samples, of shape (n_samples, n_features).

        Returns
        -------
        y_pred : ndarray or dask array of shape (n_samples,)
            The classes; a dask array, computed block by block, for dask input.
        """
        return self._blockwise(X, "predict", None, self.classes_.dtype)

    def predict_proba(self, X):
        """Class probabilities, columns in ``classes_`` order.

        Parameters
        ----------
        X : array-like, sparse matrix, dask array or dask DataFrame
            The samples, of shape (n_samples, n_features).

        Returns
        -------
        proba : ndarray or dask array of shape (n_samples, n_classes)
            As the serial class's; a dask array, computed block by block, for dask input.
        """
        return self._blockwise(X, "predict_proba", self.classes_.size, np.float64)

    def predict_log_proba(self, X):
        """Logarithms of :meth:`predict_proba`.

        Parameters
        ----------
        X : array-like, sparse matrix, dask array or dask DataFrame
            The samples, of shape (n_samples, n_features).

        Returns
        -------
        log_proba : ndarray or dask array of shape (n_samples, n_classes)
            As the serial class's; a dask array, computed block by block, for dask input.
        """
        return self._blockwise(X, "predict_log_proba", self.classes_.size, np.float64)


def _plus_minus(positive, y: NDArray) -> NDArray:
    return np.where(y == positive, 1.0, -1.0)


def _class_index(classes: NDArray, y: NDArray) -> NDArray:
    return np.searchsorted(classes, y).astype(np.intp)



def _separable_on_cluster(est: LogisticRegression, parts: Partitions, classes) -> bool:
    """The serial ``_separable`` on partitions: the fitted weights separate every row
    strictly, or (binary, not converged) :func:`halfspaces.dask.separability` says so."""
    if parts.sum(_not_separated, est.coef_, est.intercept_, classes) == 0:
        return True
    if classes.size > 2 or est.converged_:
        return False
    from halfspaces.dask._separability import separability

    return bool(separability(parts, fit_intercept=est.fit_intercept).separable)


def _not_separated(X, y, coef: NDArray, intercept: NDArray, classes: NDArray) -> int:
    """The rows of one partition that the weights do not put strictly on their class's side."""
    scores = np.asarray(X @ coef.T) + intercept
    if coef.shape[0] == 1:
        signs = np.where(y == classes[1], 1.0, -1.0)
        return int(np.count_nonzero(signs * scores.ravel() <= 0))
    rows, own = np.arange(scores.shape[0]), np.searchsorted(classes, y)
    mine = scores[rows, own]
    scores[rows, own] = -np.inf
    return int(np.count_nonzero(mine <= scores.max(axis=1, initial=-np.inf)))


class LinearRegression(_Distributed, SerialLinearRegression):
    """:class:`halfspaces.LinearRegression` on row partitions of a Dask cluster.

    Same parameters and fitted attributes. Solvers:

    - "lstsq" (default): TSQR (Demmel et al. 2012). Each partition returns the R factor of
      its centred rows [X_i - mean(X), y_i - mean(y)]; the client stacks them, factorises
      the stack (with sqrt(N alpha) I under it for the penalty) and solves R w = Q^T y by
      SVD, the minimum-norm solution when X is rank deficient. Its error grows with
      cond(X), not cond(X)^2: the solver for ill-conditioned data. Sparse X takes the
      normal equations, as in the serial class.
    - "cholesky": the normal equations, X'^T X' and X'^T y summed over the partitions and
      factorised on the client; one partition gives the serial solve bit for bit.

    Parameters
    ----------
    solver, fit_intercept, alpha, max_iter, tol
        As in :class:`halfspaces.LinearRegression`; ``solver`` is "lstsq" or "cholesky"
        (the others are refused by name when fitting).
    learning_rate, eta0, power_t, batch_size, line_search, average, random_state, warm_start
        As in :class:`halfspaces.LinearRegression`.
    early_stopping, validation_fraction, n_iter_no_change
        As in :class:`halfspaces.LinearRegression`; early stopping needs a stochastic
        solver, so a distributed fit refuses ``early_stopping=True`` by name.
    l1_ratio : float, default=0.0
        Must be 0 here: the L1 part needs coordinate descent over columns in memory, and
        a distributed fit refuses l1_ratio > 0 by name.

    Examples
    --------
    >>> import dask.array as da, numpy as np
    >>> from distributed import Client, LocalCluster
    >>> from halfspaces.dask import LinearRegression
    >>> with LocalCluster(n_workers=1, processes=False) as cluster, Client(cluster):
    ...     X = da.from_array(np.array([[0.0], [1.0], [2.0], [3.0]]), chunks=2)
    ...     y = da.from_array(np.array([1.0, 3.0, 5.0, 7.0]), chunks=2)
    ...     reg = LinearRegression().fit(X, y)
    ...     print(round(float(reg.coef_[0]), 6), round(float(reg.intercept_), 6))
    2.0 1.0
    """

    _serial = SerialLinearRegression
    _solvers = ("lstsq", "cholesky")

    @fit_context
    def fit(self, X, y=None):
        """Minimise J over the partitioned training data.

        Parameters
        ----------
        X : dask array, dask DataFrame or Partitions
            Training data, chunked by rows.
        y : dask array or Series, optional
            Targets with X's row partitions (None when X is a Partitions).

        Returns
        -------
        self : object
            The fitted estimator.
        """
        self._refuse_solver()
        parts = self._partitions(X, y, "continuous")
        if self.solver == "lstsq" and not parts.sparse:
            w = _tsqr(parts, self.alpha, self.fit_intercept)
        else:
            w = _normal_equations(parts, self.alpha, self.fit_intercept)
        run = SolverRun(w, 1, True, ())
        self._w = run.w
        self.coef_, self.intercept_ = w[:-1].copy(), float(w[-1])
        self.n_iter_, self.loss_curve_ = run.n_iter, np.asarray(run.loss_curve)
        self.converged_ = run.converged
        self.gap_ = float("nan")  # the rows are not in memory: no certified gap
        return self

    def predict(self, X):
        """The predicted target of each row, <w, x> + b.

        Parameters
        ----------
        X : array-like, sparse matrix, dask array or dask DataFrame
            The samples, of shape (n_samples, n_features).

        Returns
        -------
        y_pred : ndarray or dask array of shape (n_samples,)
            The predictions; a dask array, computed block by block, for dask input.
        """
        return self._blockwise(X, "predict", None, np.float64)


def _normal_equations(parts: Partitions, alpha: float, fit_intercept: bool) -> NDArray:
    """The serial normal equations, their sums added over the partitions in order.

    The columns are scaled by the serial powers of two D (from the partitions' column
    maxima), y by each partition's own power of two t_i; the client brings every X^T y t_i
    to the smallest t_i, the serial t (a power-of-two ratio: exact, bar the underflow of
    terms negligible beside the largest), so one partition is the serial solve bit for bit.
    """
    c = 1.0 if fit_intercept else 0.0
    D = normal_equation_scales(parts.column_max_abs, alpha)
    sums = parts.map(_normal_sums, c, D)
    t = min(s[2] for s in sums)
    t = 1.0 if t == np.inf else t  # y = 0 everywhere
    G = add_in_order([s[0] for s in sums])
    rhs = add_in_order([s[1] if s[2] == t else s[1] * (t / s[2]) for s in sums])
    return solve_normal_equations(G, rhs, parts.n_samples, alpha, fit_intercept,
                                  scales=D, target=t)


def _normal_sums(X, y: NDArray, c: float, D: NDArray):
    """(X'^T X', X'^T y t, t) of one partition, X scaled by D and y by its own t (inf for
    y = 0, which any scale suits)."""
    from halfspaces._utils.scaling import scale_columns

    t = target_scale(y) if np.any(y) else np.inf
    Xs = scale_columns(X, D)
    G, rhs = normal_equation_sums(Xs, Block.of(Xs, y, c).loop_X, y * (1.0 if t == np.inf else t), c)
    return G, rhs, t


def _tsqr(parts: Partitions, alpha: float, fit_intercept: bool) -> NDArray:
    """Least squares by the R factors of the partitions' centred rows (two passes)."""
    n, d = parts.n_samples, parts.n_features
    x_mean, y_mean = np.zeros(d), 0.0
    if fit_intercept:
        x_sum, y_sum = parts.sum(_column_sums)
        x_mean, y_mean = x_sum / n, y_sum / n
    R = np.vstack(parts.map(_centred_r, x_mean, y_mean))
    if alpha > 0:
        R = np.vstack([R, np.hstack([np.sqrt(n * alpha) * np.eye(d), np.zeros((d, 1))])])
    R = np.linalg.qr(R, mode="r")
    # the serial powers of two: R D is the R factor of the scaled columns, exactly, and the
    # SVD's cut-off then ignores no column 2^1330 below another (the serial
    # halfspaces._glm.least_squares.lstsq)
    D = normal_equation_scales(parts.column_max_abs, alpha)
    scaled = not np.all(D == 1.0)
    w = np.linalg.lstsq(R[:, :d] * D if scaled else R[:, :d], R[:, d], rcond=None)[0]
    if scaled:
        w = w * D
    return np.append(w, y_mean - x_mean @ w)


def _column_sums(X, y: NDArray) -> tuple[NDArray, float]:
    return np.asarray(X.sum(axis=0, dtype=np.float64)).ravel(), float(y.sum())


def _centred_r(X, y: NDArray, x_mean: NDArray, y_mean: float) -> NDArray:
    """R of the QR factorisation of [X - x_mean, y - y_mean], at most d + 1 rows."""
    if X.shape[0] == 0:
        return np.zeros((0, X.shape[1] + 1))
    A = np.empty((X.shape[0], X.shape[1] + 1))
    A[:, :-1] = X.toarray() if sp.issparse(X) else X
    A[:, :-1] -= x_mean
    A[:, -1] = y - y_mean
    return np.linalg.qr(A, mode="r")
