"""Least-squares linear regression: the member of the family with phi(z) = z.

The direct solvers (an SVD least-squares solve, the normal equations) live here; the
iterative ones are those of :class:`halfspaces.LogisticRegression`, over the
:class:`~halfspaces._glm.datafits.Squared` datafit, through their shared base
:mod:`halfspaces._glm.base`.

References
----------
.. [1] S. Shalev-Shwartz and S. Ben-David. Understanding Machine Learning: From Theory to
   Algorithms. Cambridge University Press, 2014. Section 9.2 (linear regression) and
   Section 13.1 (ridge regression).
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np
import scipy.sparse as sp
from numpy.typing import ArrayLike, NDArray
from sklearn.base import RegressorMixin
from sklearn.utils import check_random_state
from sklearn.utils.metaestimators import available_if
from sklearn.utils.validation import check_is_fitted

from halfspaces._glm.base import (
    GAP_DOC,
    GLM,
    L1_RATIO_DOC,
    SHARED_PARAMETERS_DOC,
    SOLVER_PARAMETERS,
    STOCHASTIC,
    VALIDATION_SCORES,
)
from halfspaces._glm.cv import (
    CV_ATTRIBUTES,
    CV_PARAMETERS,
    CV_PARAMETERS_DOC,
    CV_SHARED_DOC,
    GLMCV,
    NOT_CV_PARAMETERS,
    coefs_paths,
    refit_attributes,
)
from halfspaces._glm.datafits import Squared
from halfspaces._glm.least_squares import by_normal_equations, lstsq, target_scale
from halfspaces._glm.objective import Objective
from halfspaces._glm.solvers import SgdState, SolverRun
from halfspaces._sklearn import StrOptions, fit_context
from halfspaces._utils.contract import (
    FEATURE_NAMES_IN,
    N_FEATURES_IN,
    Array,
    Attribute,
    Bool,
    Fitted,
    Float,
    Instance,
    Int,
    OrNone,
    fill_doc,
)
from halfspaces._utils.memory import check_dense_vectors
from halfspaces._validation import LOOP_CHECKS_FINITE, sample_weights, validate_data

__all__ = ["LinearRegression", "LinearRegressionCV"]


class _LinearPrediction:
    """``predict`` of a fitted linear regression, plain or cross-validated."""

    def predict(self, X: ArrayLike) -> NDArray:
        """<w, x> + b for each row of X.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            The samples.

        Returns
        -------
        y_pred : ndarray of shape (n_samples,)
            The predictions.
        """
        check_is_fitted(self)
        X = validate_data(self, X, accept_sparse="csr", reset=False)
        return np.asarray(X @ self.coef_).ravel() + self.intercept_


@fill_doc(glm_parameters=SHARED_PARAMETERS_DOC + L1_RATIO_DOC)
class LinearRegression(_LinearPrediction, RegressorMixin, GLM):
    r"""Linear least squares, optionally ridge-penalised, by a direct solve or gradient methods.

    Minimises

    .. math::
        J(w, b) = \frac{1}{2N}\sum_{i=1}^N (\langle w, x_i\rangle + b - y_i)^2
                  + \frac{\alpha}{2}\lVert w\rVert^2,

    the intercept not penalised. alpha = 0 is scikit-learn's ``LinearRegression``; alpha > 0
    is ``Ridge(alpha=N * alpha)`` (scikit-learn's ridge objective is 2N times ours).

    With sample weights s_i (``sample_weight``) J is the weighted mean of squares,
    :math:`\frac{1}{2S}\sum_i s_i (\langle w, x_i\rangle + b - y_i)^2 +
    \frac{\alpha}{2}\lVert w\rVert^2` with :math:`S = \sum_i s_i`: an integer weight k is
    the row repeated k times, a weight 0 the row removed, and ``Ridge(alpha=S * alpha)``
    with the same ``sample_weight`` is the same problem. The stochastic solvers scale each
    example's gradient step by its weight (as scikit-learn's ``SGDRegressor`` does; the
    penalty's step is not scaled), and their epochs' J and stopping rule are the weighted
    mean's.

    Parameters
    ----------
    solver : {"lstsq", "cholesky", "gd", "sgd", "minibatch", "cd", "auto"}, default="lstsq"
        "lstsq": an SVD-based least-squares solve of the centred problem (the minimum-norm
        solution when X is rank deficient; on sparse X the normal equations as for
        "cholesky"). "cholesky": the normal equations (X'^T X' / N + alpha I) w' = X'^T y / N.
        "gd", "sgd", "minibatch": as in :class:`halfspaces.LogisticRegression`. "cd":
        coordinate descent over working sets, the only solver of ``l1_ratio > 0`` (the
        lasso and the elastic net). "auto": "cd" when ``l1_ratio > 0``, "lstsq" otherwise.
    fit_intercept : bool, default=True
        Learn the intercept b (never penalised).
    alpha : float, default=0.0
        L2 penalty strength.
    max_iter : int or None, default=None
        Iterations (epochs) of the iterative solvers; None: 2000 for gd, 30 for sgd, 200 for
        minibatch, 100 for cd (its gradient checks over all columns).
    tol : float, default=1e-6
        gd stops when every partial derivative is small on the scale of its feature,
        ``|dJ/dw_j| <= tol min(1, max_i |x_ij|)`` (tol for the intercept) and, then, the
        certified duality gap ``gap_`` is at most tol J (the gradient rule is tightened
        tenfold while it is not, as in :class:`halfspaces.LogisticRegression`); sgd and
        minibatch when J changes by at most tol (relative) between epochs (with
        ``early_stopping``, when the held-out R^2 has not improved by more than tol),
        reporting ``gap_`` without stopping on it. The direct solvers report ``gap_`` too.
        cd stops as gd does, on the elastic-net problem's certified gap.
    [glm_parameters: learning_rate ... l1_ratio]

    Attributes
    ----------
    [fitted_attributes]

    See Also
    --------
    halfspaces.LogisticRegression : the classification member of the family.

    References
    ----------
    Shalev-Shwartz and Ben-David (2014), Sections 9.2 and 13.1.

    Examples
    --------
    >>> import numpy as np
    >>> from halfspaces import LinearRegression
    >>> X = np.array([[0.0], [1.0], [2.0], [3.0]])
    >>> reg = LinearRegression().fit(X, [1.0, 3.0, 5.0, 7.0])
    >>> float(reg.coef_[0]), float(reg.intercept_)
    (2.0, 1.0)
    """

    _parameter_constraints: ClassVar[dict] = {
        "solver": [StrOptions({"lstsq", "cholesky", "gd", "sgd", "minibatch", "cd", "auto"})],
        **SOLVER_PARAMETERS,
    }
    _instead = "lstsq"
    _auto = "lstsq"

    def __init__(self, solver: str = "lstsq", fit_intercept: bool = True, alpha: float = 0.0,
                 max_iter: int | None = None, tol: float = 1e-6,
                 learning_rate: str = "constant", eta0: float | None = None,
                 power_t: float = 0.5,
                 batch_size: int = 256, line_search: bool = True, average: bool = True,
                 random_state=None, warm_start: bool = False, early_stopping: bool = False,
                 validation_fraction: float = 0.1, n_iter_no_change: int = 5,
                 l1_ratio: float = 0.0) -> None:
        super().__init__(
            solver=solver, alpha=alpha, fit_intercept=fit_intercept, max_iter=max_iter,
            tol=tol, learning_rate=learning_rate, eta0=eta0, power_t=power_t,
            batch_size=batch_size, line_search=line_search, average=average,
            random_state=random_state, warm_start=warm_start, l1_ratio=l1_ratio,
            early_stopping=early_stopping, validation_fraction=validation_fraction,
            n_iter_no_change=n_iter_no_change)

    # what fit sets; w' = (w, b), which a warm start continues; the solver's random state and
    # the SGD state that partial_fit continues (None after a direct or full-batch fit), which
    # model files written before partial_fit existed do not hold
    _fitted_attributes = Fitted("one", (
        Attribute("coef_", Array("float64", ("d",)), "ndarray of shape (n_features,)",
                  "The weights w."),
        Attribute("intercept_", Float(), "float", "The intercept b."),
        Attribute("n_iter_", Int(), "int",
                  "Iterations (epochs) of the last fit; 1 for the direct solvers."),
        Attribute("loss_curve_", Array("float64", ("c",), finite=False), "ndarray",
                  "J after each iteration of the iterative solvers (empty for the direct ones)."),
        Attribute("converged_", Bool(), "bool", "Whether the stopping rule was met."),
        Attribute("gap_", Float(finite=False), "float", GAP_DOC, optional=True),
        *VALIDATION_SCORES,
        N_FEATURES_IN,
        FEATURE_NAMES_IN,
        Attribute("_w", Array("float64", ("d+1",))),
        Attribute("_rng", Instance(np.random.RandomState), optional=True),
        Attribute("_state", OrNone(Instance(
            SgdState, iterate=Array("float64", ("d+1",)), average=Array("float64", ("d+1",)),
            n_avg=Int(-1), t=Int())), optional=True),
    ))

    @fit_context
    def fit(self, X: ArrayLike, y: ArrayLike, sample_weight: ArrayLike | None = None):
        """Minimise J over the training data.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Training data; float32 is kept, CSR is used as it is.
        y : array-like of shape (n_samples,)
            Targets.
        sample_weight : array-like of shape (n_samples,) or float, default=None
            Non-negative weights s_i: J is the weighted mean of squares, so that an integer
            weight k counts the row k times and 0 drops it. None: 1.

        Returns
        -------
        self : object
            The fitted estimator.
        """
        X, y = validate_data(self, X, y, y_numeric=True, **LOOP_CHECKS_FINITE)
        y = np.asarray(y, dtype=np.float64)
        weights = sample_weights(sample_weight, X.shape[0])
        check_dense_vectors(X.shape[1], 3)  # the column scales, the weights, a gradient
        X, y, weights, X_held, y_held = self._hold_out(X, y, stratify=False,
                                                       weights=weights)
        obj = Objective(X, y, Squared(), self.alpha, self.fit_intercept, weights)
        self._rng = check_random_state(self.random_state)
        if self._solver() in ("lstsq", "cholesky"):
            run = SolverRun(self._direct(X, y, obj), 1, True, ())
        else:
            run = self._solve(obj, self._rng, self._held_out(X_held, y_held, "regression"))
        self._set_fitted(run, obj)
        self._warn_unfinished(run)
        return self

    @available_if(lambda est: est.solver in STOCHASTIC)
    @fit_context
    def partial_fit(self, X: ArrayLike, y: ArrayLike, sample_weight: ArrayLike | None = None):
        """One epoch of "sgd" or "minibatch" over a batch, continuing from the current state.

        scikit-learn's ``SGDRegressor.partial_fit`` with the squared loss and an L2 penalty:
        with ``learning_rate="constant"`` or ``"invscaling"``, the rows taken in the same
        order and ``average=False``, the same steps. Available only with those two solvers.
        The rows of each batch are visited in a random order (``random_state``), the step
        counter t of the schedule carries over from call to call, and with ``average`` the
        mean of the iterates starts with the second call. After a fit by another solver
        (``set_params(solver="sgd")`` then ``partial_fit``) the epoch starts from that
        fit's weights, with t = 0.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            A batch of training data.
        y : array-like of shape (n_samples,)
            Its targets.
        sample_weight : array-like of shape (n_samples,) or float, default=None
            Non-negative weights of the batch's rows: each scales its row's gradient step
            (as in ``SGDRegressor.partial_fit``). None: 1.

        Returns
        -------
        self : object
            The updated estimator.
        """
        first = not hasattr(self, "_w")
        X, y = validate_data(self, X, y, reset=first, y_numeric=True, **LOOP_CHECKS_FINITE)
        y = np.asarray(y, dtype=np.float64)
        if not first:
            self._check_state_fits(X.shape[1])
        weights = sample_weights(sample_weight, X.shape[0])
        check_dense_vectors(X.shape[1], 3)  # the column scales, the weights, a gradient
        obj = Objective(X, y, Squared(), self.alpha, self.fit_intercept, weights)
        if first or getattr(self, "_rng", None) is None:  # a model file from before it
            self._rng = check_random_state(self.random_state)
        state = None if first else getattr(self, "_state", None)
        # after a direct or full-batch fit there is no SGD state: go on from its weights
        run = self._continue(obj, self._rng, state, None if first else self._w)
        self._set_fitted(run, obj)
        return self

    def _check_state_fits(self, n_features: int) -> None:
        """Refuse a batch that the saved weights and SGD state do not fit (their width
        edited in a model file), before the batch's objective is built."""
        state = getattr(self, "_state", None)
        saved = [self._w] if state is None else [self._w, state.iterate, state.average]
        if any(np.shape(a) != (n_features + 1,) for a in saved):
            raise ValueError(
                f"partial_fit: the saved parameters of this LinearRegression do not fit a "
                f"batch of {n_features} features (n_features_in_): its fitted attributes "
                "were changed after the last fit. Fit it again.")

    def _set_fitted(self, run: SolverRun, obj: Objective) -> None:
        w = self._w = run.w
        self._state = run.state
        self.coef_, self.intercept_ = w[:-1].copy(), float(w[-1])
        self.n_iter_, self.loss_curve_ = run.n_iter, np.asarray(run.loss_curve)
        self.converged_ = run.converged
        self.gap_ = self._gap_at(obj, run, w)  # of the last batch, after partial_fit
        self._set_validation_scores(run)

    def _direct(self, X, y: NDArray, obj: Objective) -> NDArray:
        if self._solver() == "lstsq" and not sp.issparse(X):
            return lstsq(X, y, obj.alpha, self.fit_intercept, obj.rows.column_max_abs,
                         obj.weights)
        return by_normal_equations(X, y, obj)


    def score(self, X: ArrayLike, y: ArrayLike, sample_weight: ArrayLike | None = None) -> float:
        """R^2 of the predictions, scikit-learn's ``r2_score``, at any scale of y.

        R^2 does not change when y and the predictions are multiplied by one number, so
        both are multiplied by a power of two (exact) that brings the largest into [1, 2)
        first: scikit-learn's sums of squares gave nan for targets of 1e200 (inf / inf)
        and 1.0 for targets of 1e-200 (0 / 0, taken as a perfect fit).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            The samples.
        y : array-like of shape (n_samples,)
            The true targets.
        sample_weight : array-like of shape (n_samples,), default=None
            Weights of the samples.

        Returns
        -------
        score : float
            1 - (weighted) residual sum of squares / (weighted) total sum of squares.
        """
        from sklearn.metrics import r2_score

        predicted = self.predict(X)
        y = np.asarray(y, dtype=np.float64)
        # the normal equations' target scale of both: 1 where no sum of squares can overflow
        # or underflow, and for NaN or inf, which r2_score names itself
        t = target_scale(np.array([np.max(np.abs(y), initial=0.0),
                                   np.max(np.abs(predicted), initial=0.0)]))
        if t == 1.0:
            return float(r2_score(y, predicted, sample_weight=sample_weight))
        return float(r2_score(y * t, predicted * t, sample_weight=sample_weight))


@fill_doc(cv_parameters=CV_PARAMETERS_DOC, glm_parameters=CV_SHARED_DOC)
class LinearRegressionCV(_LinearPrediction, RegressorMixin, GLMCV):
    r"""Ridge (least squares) regression with alpha chosen by cross-validation over a path.

    Each fold fits :class:`LinearRegression` along one decreasing grid of alpha (warm
    started for the iterative solvers; the direct ones need no start) and scores it on
    the fold's held-out rows; ``alpha_`` has the best mean score (R^2 by default), and the
    model is then refitted at it on all the rows. The objective is
    :class:`LinearRegression`'s: scikit-learn's ``Ridge(alpha=n_train * alpha)``.

    Parameters
    ----------
    [cv_parameters]
    solver : {"auto", "lstsq", "cholesky", "gd", "sgd", "minibatch", "cd"}, default="auto"
        The solver of every fit, as in :class:`LinearRegression`: "auto" is "lstsq" for
        the L2 penalty and "cd" (coordinate descent) where ``l1_ratios`` has an L1 part.
    fit_intercept : bool, default=True
        Learn the intercept b (never penalised).
    max_iter : int or None, default=None
        Iterations of each fit of the iterative solvers.
    tol : float, default=1e-6
        The stopping rule of each fit, as in :class:`LinearRegression`.
    [glm_parameters: learning_rate ... random_state]

    Attributes
    ----------
    [fitted_attributes]

    See Also
    --------
    halfspaces.LinearRegression : the estimator fitted along the path.
    halfspaces.regularization_path : one path on all the rows.

    References
    ----------
    J. Friedman, T. Hastie and R. Tibshirani. Regularization paths for generalized linear
    models via coordinate descent. Journal of Statistical Software 33(1), 2010.

    Examples
    --------
    >>> import numpy as np
    >>> from halfspaces import LinearRegressionCV
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(40, 3))
    >>> y = X @ np.array([1.0, 0.0, -2.0]) + 0.1 * rng.normal(size=40)
    >>> reg = LinearRegressionCV(alphas=[1.0, 0.1, 0.001], cv=4).fit(X, y)
    >>> reg.alpha_, reg.scores_.shape
    (0.001, (4, 1, 3))
    """

    _parameter_constraints: ClassVar[dict] = {
        **CV_PARAMETERS,
        **{k: v for k, v in LinearRegression._parameter_constraints.items()
           if k not in NOT_CV_PARAMETERS},
    }

    def __init__(self, alphas=10, l1_ratios=None, eps: float | None = None, cv=5, scoring=None,
                 n_jobs: int | None = None, refit: bool = True, solver: str = "auto",
                 fit_intercept: bool = True, max_iter: int | None = None, tol: float = 1e-6,
                 learning_rate: str = "constant", eta0: float | None = None,
                 power_t: float = 0.5, batch_size: int = 256, line_search: bool = True,
                 average: bool = True, random_state=None) -> None:
        self.alphas = alphas
        self.l1_ratios = l1_ratios
        self.eps = eps
        self.cv = cv
        self.scoring = scoring
        self.n_jobs = n_jobs
        self.refit = refit
        self.solver = solver
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

    _fitted_attributes = Fitted("one", (
        *CV_ATTRIBUTES,
        coefs_paths(("d+1",), "ndarray of shape (n_folds, n_l1_ratios, n_alphas, "
                              "n_features + 1)"),
        *refit_attributes(LinearRegression._fitted_attributes),
        N_FEATURES_IN,
        FEATURE_NAMES_IN,
    ))

    def _estimator(self) -> LinearRegression:
        return LinearRegression()

    @fit_context
    def fit(self, X: ArrayLike, y: ArrayLike, sample_weight: ArrayLike | None = None):
        """Choose alpha by cross-validation, then refit on all the rows (``refit``).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Training data.
        y : array-like of shape (n_samples,)
            Targets.
        sample_weight : array-like of shape (n_samples,) or None, default=None
            Passed to every fit of :class:`LinearRegression` (which must take it) and to
            alpha_max's weighted mean; the held-out scores are unweighted.

        Returns
        -------
        self : object
            The fitted estimator.
        """
        return self._fit_cv(X, y, sample_weight)

