"""Logistic and softmax regression by maximum likelihood, with the lecture's gradient methods.

The estimator is thin: it validates, builds an :class:`~halfspaces._objectives.Objective`
and hands it to a solver of :mod:`halfspaces._solvers`.

References
----------
.. [1] S. Shalev-Shwartz and S. Ben-David. Understanding Machine Learning: From Theory to
   Algorithms. Cambridge University Press, 2014. Section 9.3 (logistic regression) and
   Chapter 14 (stochastic gradient descent).
.. [2] J. Nocedal and S. J. Wright. Numerical Optimization, 2nd edition. Springer, 2006.
   Chapters 3 (Armijo line search), 7 (Newton-CG, L-BFGS).
"""

from __future__ import annotations

import warnings
from numbers import Integral, Real
from typing import ClassVar

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy.special import log_expit, log_softmax
from sklearn.base import BaseEstimator
from sklearn.utils import check_random_state
from sklearn.utils.metaestimators import available_if
from sklearn.utils.validation import check_is_fitted, validate_data

from halfspaces._objectives import Objective
from halfspaces._sklearn import Interval, LinearClassifierMixin, StrOptions, fit_context
from halfspaces._solvers import SolverRun, StepRule, solve
from halfspaces._validation import (
    FIT_INPUT,
    SparseInputMixin,
    Targets,
    encode_targets,
    partial_fit_classes,
)
from halfspaces.exceptions import ConvergenceWarning

__all__ = ["LogisticRegression"]

STOCHASTIC = ("sgd", "minibatch")

SOLVER_PARAMETERS: dict = {
    "alpha": [Interval(Real, 0, None, closed="left")],
    "fit_intercept": ["boolean"],
    "max_iter": [Interval(Integral, 1, None, closed="left"), None],
    "tol": [Interval(Real, 0, None, closed="left")],
    "learning_rate": [StrOptions({"constant", "invscaling", "optimal"})],
    "eta0": [Interval(Real, 0, None, closed="neither"), None],
    "power_t": [Interval(Real, 0, None, closed="left")],
    "batch_size": [Interval(Integral, 1, None, closed="left")],
    "line_search": ["boolean"],
    "average": ["boolean"],
    "random_state": ["random_state"],
    "warm_start": ["boolean"],
}


def step_rule(est) -> StepRule:
    """The StepRule of an estimator's parameters; 'optimal' needs alpha > 0."""
    if est.learning_rate == "optimal" and est.alpha == 0:
        raise ValueError(
            "learning_rate='optimal' uses the step 1/(alpha t) and needs alpha > 0; set "
            "alpha > 0 or use learning_rate='invscaling'."
        )
    return StepRule(est.eta0, est.learning_rate, est.power_t, est.batch_size, est.line_search,
                    est.average)


class LogisticRegression(SparseInputMixin, LinearClassifierMixin, BaseEstimator):
    r"""Logistic regression (softmax regression beyond two classes) by maximum likelihood.

    Minimises the mean negative log-likelihood plus an optional L2 penalty, the intercept
    not penalised:

    .. math::
        J(w, b) = \frac{1}{N}\sum_{i=1}^N \ln\bigl(1 + e^{-y_i(\langle w, x_i\rangle + b)}\bigr)
                  + \frac{\alpha}{2}\lVert w\rVert^2,

    with y_i in {-1, +1} (classes_[1] is +1). With k > 2 classes the loss is the softmax
    negative log-likelihood :math:`\ln\sum_j e^{z_{ij}} - z_{i y_i}` of the k discriminant
    functions :math:`z_{ij} = \langle w_j, x_i\rangle + b_j`, and the prediction is their
    argmax. alpha = 1 / (C N) gives scikit-learn's ``LogisticRegression(C=C)``.

    Parameters
    ----------
    solver : {"lbfgs", "newton", "gd", "sgd", "minibatch"}, default="lbfgs"
        "lbfgs": L-BFGS (SciPy) over one fused pass per loss-and-gradient evaluation, in
        coordinates whitened by the Hessian's class blocks at the start point (their
        diagonals beyond 2048 features), so that ill-conditioned data (alpha = 1/N on
        a9a) take tens of iterations instead of hundreds.
        "newton": Newton's method with an Armijo line search; the step is a Cholesky solve
        up to 2048 parameters (for the softmax, conjugate gradients preconditioned by the
        Hessian's class blocks), conjugate gradients on Hessian-vector products beyond.
        "gd": steepest descent w <- w - eta grad J (Algorithm 1 of the lecture notes).
        "sgd": one example at a time, a fresh random order each epoch (Algorithm 2).
        "minibatch": ``batch_size`` examples per step (Algorithm 3).
    alpha : float, default=0.0
        L2 penalty strength. With alpha = 0 on linearly separable data no maximiser of
        the likelihood exists; fit then warns and says so.
    fit_intercept : bool, default=True
        Learn the intercepts b (never penalised).
    max_iter : int or None, default=None
        Iterations (epochs for "sgd" and "minibatch"). None: 1000 for lbfgs, 100 for
        newton, 2000 for gd, 30 for sgd, 200 for minibatch.
    tol : float, default=1e-6
        Stopping rule. lbfgs, newton and gd stop when :math:`\lVert\nabla J\rVert_\infty
        \le` tol, or (with a warning) when a step no longer decreases J in floating point;
        sgd and minibatch when J changes by at most tol (relative) between epochs.
    learning_rate : {"constant", "invscaling", "optimal"}, default="constant"
        Schedule of the stochastic solvers at step t: eta0, eta0 / t^power_t, or
        1 / (alpha (t + t0)) with t0 = 1 / (alpha eta0) (needs alpha > 0).
    eta0 : float or None, default=None
        The step of "constant" and the first step of the other schedules; for gd with the
        line search, the first step tried. None: 1 / L for gd, with L = c mean_i ||x'_i||^2
        + alpha a bound on the smoothness of J (c = 1/4 logistic, 1 squared), and
        sqrt(batch) / (2 max_i ||x'_i||^2) for sgd (batch 1) and minibatch (Bach and
        Moulines, 2013).
    power_t : float, default=0.5
        Exponent of the "invscaling" schedule.
    batch_size : int, default=256
        Examples per step of "minibatch".
    line_search : bool, default=True
        gd only: backtrack (halve eta) until the Armijo condition
        J(w - eta g) <= J(w) - 1e-4 eta ||g||^2 holds, starting each iteration from twice
        the last accepted step; without it gd takes the fixed step eta0 and may diverge.
    average : bool, default=True
        sgd and minibatch: the model is the mean of the iterates from the second epoch on
        (Polyak-Ruppert averaging, the output of SGD in Shalev-Shwartz and Ben-David,
        Section 14.3); False: the last iterate.
    random_state : int, RandomState instance or None, default=None
        Seeds the epoch orders of the stochastic solvers.
    warm_start : bool, default=False
        Start from the previous solution (same classes and features).

    Attributes
    ----------
    coef_ : ndarray of shape (1, n_features) or (n_classes, n_features)
        The weights; one row per class beyond two classes (centred over the classes).
    intercept_ : ndarray of shape (1,) or (n_classes,)
        The intercepts.
    classes_ : ndarray of shape (n_classes,)
        The sorted labels.
    n_iter_ : int
        Iterations (epochs) of the last fit.
    loss_curve_ : ndarray
        J after each iteration (epoch), starting with its value at the initial weights.
    converged_ : bool
        Whether the stopping rule was met within max_iter.
    n_features_in_ : int
        Number of features seen during fit.
    feature_names_in_ : ndarray of shape (n_features_in_,)
        Feature names, when X had string column names.

    See Also
    --------
    halfspaces.LinearRegression : the regression member of the family (phi(z) = z).
    halfspaces.losses : the logistic loss and its derivative as functions of the margin.

    References
    ----------
    Shalev-Shwartz and Ben-David (2014), Section 9.3 and Chapter 14; Nocedal and Wright
    (2006), Chapters 3 and 7.

    Examples
    --------
    >>> import numpy as np
    >>> from halfspaces import LogisticRegression
    >>> X = np.array([[0.0], [1.0], [2.0], [3.0]])
    >>> clf = LogisticRegression(solver="newton", alpha=0.1).fit(X, [0, 0, 1, 1])
    >>> clf.predict([[0.5], [2.5]])
    array([0, 1])
    >>> clf.predict_proba([[1.5]]).round(3)
    array([[0.5, 0.5]])
    """

    _parameter_constraints: ClassVar[dict] = {
        "solver": [StrOptions({"lbfgs", "newton", "gd", "sgd", "minibatch"})],
        **SOLVER_PARAMETERS,
    }

    def __init__(self, solver: str = "lbfgs", alpha: float = 0.0, fit_intercept: bool = True,
                 max_iter: int | None = None, tol: float = 1e-6,
                 learning_rate: str = "constant", eta0: float | None = None,
                 power_t: float = 0.5,
                 batch_size: int = 256, line_search: bool = True, average: bool = True,
                 random_state=None, warm_start: bool = False) -> None:
        self.solver = solver
        self.alpha = alpha
        self.fit_intercept = fit_intercept
        self.max_iter = max_iter
        self.tol = tol
        self.learning_rate = learning_rate
        self.eta0 = eta0
        self.power_t = power_t
        self.batch_size = batch_size
        self.line_search = line_search
        self.average = average
        self.random_state = random_state
        self.warm_start = warm_start

    @fit_context
    def fit(self, X: ArrayLike, y: ArrayLike):
        """Minimise J over the training data.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Training data; float32 is kept, CSR is used as it is.
        y : array-like of shape (n_samples,)
            Labels: two values for logistic regression, more for softmax regression.

        Returns
        -------
        self : object
            The fitted estimator.
        """
        X, y = validate_data(self, X, y, **FIT_INPUT)
        targets = encode_targets(y)
        obj = self._objective(X, targets)
        resume = self.warm_start and getattr(self, "_w", np.empty(0)).shape == (obj.size,)
        w0 = self._w if resume else np.zeros(obj.size)
        self._rng = check_random_state(self.random_state)
        run = solve(obj, self.solver, w0, self.tol, self.max_iter, step_rule(self), self._rng)
        self._set_fitted(obj, targets, run)
        self._warn_if_unfinished(X, targets, run)
        return self

    @available_if(lambda est: est.solver in STOCHASTIC)
    @fit_context
    def partial_fit(self, X: ArrayLike, y: ArrayLike, classes: ArrayLike | None = None):
        """One epoch of "sgd" or "minibatch" over a batch, continuing from the current state.

        Available only with those two solvers. The step counter t of the schedule carries
        over from call to call.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            A batch of training data.
        y : array-like of shape (n_samples,)
            Its labels.
        classes : array-like of shape (n_classes,), default=None
            All the labels the stream can hold; needed on the first call unless that batch
            holds two labels or more.

        Returns
        -------
        self : object
            The updated estimator.
        """
        first = not hasattr(self, "_w")
        X, y = validate_data(self, X, y, reset=first, **FIT_INPUT)
        classes = partial_fit_classes(y, classes, None if first else self.classes_)
        obj = self._objective(X, encode_targets(y, classes))
        if first:
            self._rng, self._state = check_random_state(self.random_state), None
        run = solve(obj, self.solver, np.zeros(obj.size), 0.0, 1, step_rule(self), self._rng,
                    self._state)
        self._set_fitted(obj, Targets(classes, y, ()), run)
        return self

    def _objective(self, X, targets: Targets) -> Objective:
        k = targets.classes.size
        if k == 2:
            return Objective(X, targets.plus_minus(0), self.alpha, self.fit_intercept,
                             "logistic")
        labels = targets.labels
        if targets.classes.dtype.kind in "iuf" and labels.dtype.kind in "iuf":
            labels = np.searchsorted(targets.classes, labels)
        return Objective(X, labels.astype(np.intp), self.alpha, self.fit_intercept,
                         "softmax", k)

    def _set_fitted(self, obj: Objective, targets: Targets, run: SolverRun) -> None:
        W = run.w.reshape(-1, obj.shape[-1]).copy()
        if obj.loss == "softmax":  # the softmax ignores a shift common to all classes
            free = slice(-1, None) if self.alpha > 0 else slice(None)
            W[:, free] -= W[:, free].mean(axis=0)
        self._w, self._state = W.ravel(), run.state
        self.classes_ = targets.classes
        self.coef_ = W[:, :-1]
        self.intercept_ = W[:, -1].copy()
        self.n_iter_ = run.n_iter
        self.loss_curve_ = np.asarray(run.loss_curve)
        self.converged_ = run.converged

    def _warn_if_unfinished(self, X, targets: Targets, run: SolverRun) -> None:
        if self.alpha == 0 and _separable(self, X, targets, self.converged_):
            warnings.warn(
                "The training data are linearly separable, so the maximum-likelihood "
                "weights do not exist: the likelihood keeps growing as ||w|| grows along a "
                "separating direction. Set alpha > 0 (e.g. alpha = 1 / n_samples) for a "
                "unique, finite solution.", ConvergenceWarning, stacklevel=3)
        elif run.stalled:
            warnings.warn(
                f"LogisticRegression(solver={self.solver!r}) stopped after {self.n_iter_} "
                "iterations: J no longer decreases in floating point, yet ||grad J||_inf > "
                f"tol={self.tol}. The weights are optimal to machine precision; a larger "
                "tol would have stopped earlier.", ConvergenceWarning, stacklevel=3)
        elif not self.converged_:
            warnings.warn(
                f"LogisticRegression(solver={self.solver!r}) stopped after {self.n_iter_} "
                f"iterations (max_iter={self.max_iter}) before its stopping rule (tol="
                f"{self.tol}) was met; raise max_iter or tol, or use solver='newton'.",
                ConvergenceWarning, stacklevel=3)

    def predict_proba(self, X: ArrayLike) -> NDArray:
        """Class probabilities, columns in ``classes_`` order, rows summing to 1.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            The samples.

        Returns
        -------
        proba : ndarray of shape (n_samples, n_classes)
            sigma(z) for the positive class (softmax(z) beyond two classes).
        """
        return np.exp(self.predict_log_proba(X))

    def predict_log_proba(self, X: ArrayLike) -> NDArray:
        """Logarithms of :meth:`predict_proba`, computed without overflow.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            The samples.

        Returns
        -------
        log_proba : ndarray of shape (n_samples, n_classes)
            log sigma(-z), log sigma(z) for two classes; log softmax(z) beyond.
        """
        check_is_fitted(self)
        z = self.decision_function(X)
        if z.ndim == 1:
            return np.column_stack([log_expit(-z), log_expit(z)])
        return log_softmax(z, axis=1)


def _separable(est: LogisticRegression, X, targets: Targets, converged: bool) -> bool:
    """Whether the fitted weights separate the data strictly, or separability() says so."""
    pred = est.decision_function(X)
    if pred.ndim == 1:
        y = targets.plus_minus(0)
        if np.all(y * pred > 0):
            return True
        if converged:
            return False
        from halfspaces.theory import separability

        return bool(separability(X, y, fit_intercept=est.fit_intercept).separable)
    true = np.searchsorted(est.classes_, _labels_of(targets, est.classes_))
    rows = np.arange(pred.shape[0])
    own = pred[rows, true]
    pred[rows, true] = -np.inf
    return bool(np.all(own > pred.max(axis=1)))


def _labels_of(targets: Targets, classes: NDArray) -> NDArray:
    """The labels as values of ``classes`` (encode_targets keeps numbers, indexes others)."""
    labels = targets.labels
    if classes.dtype.kind in "iuf" and labels.dtype.kind in "iuf":
        return labels
    return classes[labels]
