"""Logistic and softmax regression by maximum likelihood, with gradient and Newton methods.

The estimator is thin: it validates, builds an :class:`~halfspaces._glm.datafits.Objective`
with the :class:`~halfspaces._glm.datafits.Logistic` or :class:`~halfspaces._glm.datafits.Softmax`
datafit and hands it to a solver of :mod:`halfspaces._glm.solvers` (through the base it shares
with :class:`halfspaces.LinearRegression`, :mod:`halfspaces._glm.base`).

References
----------
.. [1] S. Shalev-Shwartz and S. Ben-David. Understanding Machine Learning: From Theory to
   Algorithms. Cambridge University Press, 2014. Section 9.3 (logistic regression) and
   Chapter 14 (stochastic gradient descent).
.. [2] C. M. Bishop. Pattern Recognition and Machine Learning. Springer, 2006. Section 4.3
   (logistic and softmax regression, iterative reweighted least squares).
.. [3] J. Nocedal and S. J. Wright. Numerical Optimization, 2nd edition. Springer, 2006.
   Chapters 3 (Armijo line search), 7 (Newton-CG, L-BFGS).
"""

from __future__ import annotations

import warnings
from typing import ClassVar

import numpy as np
from numpy.typing import ArrayLike, NDArray
from sklearn.utils import check_random_state
from sklearn.utils.metaestimators import available_if

from halfspaces._glm.base import (
    GAP_DOC,
    GLM,
    L1_RATIO_DOC,
    SHARED_PARAMETERS_DOC,
    SOLVER_PARAMETERS,
    STOCHASTIC,
    VALIDATION_SCORES,
    LogisticProbabilities,
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
from halfspaces._glm.datafits import Logistic, Softmax
from halfspaces._glm.early_stopping import encoded_held_out
from halfspaces._glm.objective import Objective
from halfspaces._glm.solvers import SgdState, SolverRun, refuse_underflowing_squares
from halfspaces._sklearn import CLASS_WEIGHT, LinearClassifierMixin, StrOptions, fit_context
from halfspaces._utils.contract import (
    FEATURE_NAMES_IN,
    N_FEATURES_IN,
    AnyOf,
    Array,
    Attribute,
    Bool,
    Classes,
    Fitted,
    Float,
    Instance,
    Int,
    Items,
    OrNone,
    fill_doc,
)
from halfspaces._utils.memory import check_dense_vectors
from halfspaces._validation import (
    LOOP_CHECKS_FINITE,
    Targets,
    encode_targets,
    partial_fit_classes,
    row_weights,
    validate_data,
)
from halfspaces.exceptions import ConvergenceWarning

__all__ = ["LogisticRegression", "LogisticRegressionCV"]


@fill_doc(glm_parameters=SHARED_PARAMETERS_DOC + L1_RATIO_DOC)
class LogisticRegression(LogisticProbabilities, LinearClassifierMixin, GLM):
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

    With sample weights s_i (``fit``'s ``sample_weight`` times the weight of the row's class,
    ``class_weight``) J is the weighted mean loss,
    :math:`\frac{1}{S}\sum_i s_i \ell_i + \frac{\alpha}{2}\lVert w\rVert^2` with
    :math:`S = \sum_i s_i`: an integer weight k is the row repeated k times, a weight 0 the
    row removed, and alpha = 1 / (C S) gives scikit-learn's ``LogisticRegression(C=C)``
    fitted with the same ``sample_weight`` and ``class_weight``. The stochastic solvers
    scale each example's gradient step by its weight (as scikit-learn's ``SGDClassifier``
    does; the penalty's step is not scaled), and their epochs' J and stopping rule are the
    weighted mean's.

    Parameters
    ----------
    solver : {"lbfgs", "newton", "gd", "sgd", "minibatch", "cd", "auto"}, default="lbfgs"
        "lbfgs": L-BFGS (SciPy) over one fused pass per loss-and-gradient evaluation, in
        coordinates whitened by the Hessian's class blocks at the start point (their
        diagonals beyond 2048 features), so that ill-conditioned data (alpha = 1/N on
        a9a) take tens of iterations instead of hundreds.
        "newton": Newton's method with an Armijo line search; the step is a Cholesky solve
        up to 2048 parameters (for the softmax, conjugate gradients preconditioned by the
        Hessian's class blocks), conjugate gradients on Hessian-vector products beyond.
        "gd": steepest descent w <- w - eta grad J (Nocedal and Wright, Chapter 3).
        "sgd": stochastic gradient descent, one example at a time, a fresh random order
        each epoch (Shalev-Shwartz and Ben-David, Chapter 14).
        "minibatch": the same with ``batch_size`` examples per step.
        "cd": proximal coordinate descent over working sets of columns (Massias et al.
        2018, skglm's working sets), the only solver of ``l1_ratio > 0``; beyond two
        classes the L1 part is elementwise on the k x d weights (no group penalty), and
        each step moves one feature's k weights.
        "auto": "cd" when ``l1_ratio > 0``, "lbfgs" otherwise.
    alpha : float, default=0.0
        L2 penalty strength. With alpha = 0 on linearly separable data no maximiser of
        the likelihood exists; fit then warns and says so.
    fit_intercept : bool, default=True
        Learn the intercepts b (never penalised).
    max_iter : int or None, default=None
        Iterations (epochs for "sgd" and "minibatch", gradient checks over all columns
        for "cd"). None: 1000 for lbfgs, 100 for newton and cd, 2000 for gd, 30 for sgd,
        200 for minibatch.
    tol : float, default=1e-6
        Stopping rule. lbfgs, newton and gd stop when every partial derivative is small
        on the scale of its feature, :math:`|\partial J / \partial w_j| \le` tol
        :math:`\min(1, \max_i |x_{ij}|)` (tol for the intercepts), so that rescaling a
        feature below unit scale does not change when they stop; or (with a warning) when
        a step no longer decreases J in floating point. Then, with alpha > 0, they check
        the certified duality gap (``gap_``, an upper bound on J - J*) and stop only once
        it is at most tol J: while it is larger they go on with the gradient rule
        tightened tenfold at a time (down to 1e-8 tol; beyond, rounding holds the gap up
        and the fit warns that it stalled). With alpha = 0 the gap is inf and the gradient
        rule alone decides. sgd and minibatch stop when J changes by at most tol
        (relative) between epochs (with ``early_stopping``, when the held-out accuracy has
        not improved by more than tol); they report ``gap_`` but do not stop on it (it
        costs a pass over X and exact sums of n terms). cd stops when every coordinate's
        optimality condition holds within tol and then its certified gap (of the
        elastic-net problem) is at most tol J, tightening the first rule as the others do.
    [glm_parameters: learning_rate ... l1_ratio]
    class_weight : dict, "balanced" or None, default=None
        Weights of the classes, which multiply the sample weights of their rows: a dict
        {label: weight} (classes it does not name weigh 1; naming a label that is not a
        class of y is refused), "balanced" for n / (n_classes * count of the class) over
        the y of ``fit`` (scikit-learn's rule; ``partial_fit`` refuses it, as the counts
        need all of y), or None for 1.

    Attributes
    ----------
    [fitted_attributes]

    See Also
    --------
    halfspaces.LinearRegression : the regression member of the family (phi(z) = z).
    halfspaces.losses : the logistic loss and its derivative as functions of the margin.

    References
    ----------
    Shalev-Shwartz and Ben-David (2014), Section 9.3 and Chapter 14; Bishop (2006),
    Section 4.3; Nocedal and Wright (2006), Chapters 3 and 7.

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
        "solver": [StrOptions({"lbfgs", "newton", "gd", "sgd", "minibatch", "cd", "auto"})],
        **SOLVER_PARAMETERS,
        "class_weight": CLASS_WEIGHT,
    }
    _instead = "newton"
    _auto = "lbfgs"

    def __init__(self, solver: str = "lbfgs", alpha: float = 0.0, fit_intercept: bool = True,
                 max_iter: int | None = None, tol: float = 1e-6,
                 learning_rate: str = "constant", eta0: float | None = None,
                 power_t: float = 0.5,
                 batch_size: int = 256, line_search: bool = True, average: bool = True,
                 random_state=None, warm_start: bool = False, early_stopping: bool = False,
                 validation_fraction: float = 0.1, n_iter_no_change: int = 5,
                 l1_ratio: float = 0.0, class_weight=None) -> None:
        super().__init__(
            solver=solver, alpha=alpha, fit_intercept=fit_intercept, max_iter=max_iter,
            tol=tol, learning_rate=learning_rate, eta0=eta0, power_t=power_t,
            batch_size=batch_size, line_search=line_search, average=average,
            random_state=random_state, warm_start=warm_start, l1_ratio=l1_ratio,
            early_stopping=early_stopping, validation_fraction=validation_fraction,
            n_iter_no_change=n_iter_no_change)
        self.class_weight = class_weight

    @fit_context
    def fit(self, X: ArrayLike, y: ArrayLike, sample_weight: ArrayLike | None = None):
        """Minimise J over the training data.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Training data; float32 is kept, CSR is used as it is.
        y : array-like of shape (n_samples,)
            Labels: two values for logistic regression, more for softmax regression.
        sample_weight : array-like of shape (n_samples,) or float, default=None
            Non-negative weights s_i (times ``class_weight``): J is the weighted mean loss,
            so that an integer weight k counts the row k times and 0 drops it. None: 1.

        Returns
        -------
        self : object
            The fitted estimator.
        """
        X, y = validate_data(self, X, y, **LOOP_CHECKS_FINITE)
        targets = encode_targets(y)
        weights = row_weights(sample_weight, self.class_weight, targets.classes, np.asarray(y))
        X, y, weights, X_held, y_held = self._hold_out(X, y, stratify=True, weights=weights)
        if X_held is not None:
            targets = encode_targets(y, targets.classes)
        obj = self._objective(X, targets, weights)
        held_out = self._held_out(X_held, *encoded_held_out(y_held, targets.classes))
        self._rng = check_random_state(self.random_state)
        run = self._solve(obj, self._rng, held_out)
        self._set_fitted(obj, targets, run)
        if not self._warn_if_separable(X, targets, obj.max_abs, weights):
            self._warn_unfinished(run)
        return self

    @available_if(lambda est: est.solver in STOCHASTIC)
    @fit_context
    def partial_fit(self, X: ArrayLike, y: ArrayLike, classes: ArrayLike | None = None,
                    sample_weight: ArrayLike | None = None):
        """One epoch of "sgd" or "minibatch" over a batch, continuing from the current state.

        Available only with those two solvers. The step counter t of the schedule carries
        over from call to call. After a fit by another solver (``set_params(solver="sgd")``
        then ``partial_fit``) the epoch starts from that fit's weights, with t = 0.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            A batch of training data.
        y : array-like of shape (n_samples,)
            Its labels.
        classes : array-like of shape (n_classes,), default=None
            All the labels the stream can hold; needed on the first call unless that batch
            holds two labels or more.
        sample_weight : array-like of shape (n_samples,) or float, default=None
            Non-negative weights of the batch's rows (times ``class_weight``, which must be
            a dict or None here): each scales its row's gradient step. None: 1.

        Returns
        -------
        self : object
            The updated estimator.
        """
        if isinstance(self.class_weight, str):
            raise ValueError(
                "partial_fit cannot use class_weight='balanced': its weights need the "
                "counts of all of y, which a stream does not give. Pass a dict of class "
                "weights (e.g. from sklearn.utils.class_weight.compute_class_weight on "
                "the labels you expect), or sample_weight.")
        first = not hasattr(self, "_w")
        X, y = validate_data(self, X, y, reset=first, **LOOP_CHECKS_FINITE)
        classes = partial_fit_classes(y, classes, None if first else self.classes_)
        if not first:
            self._check_state_fits(X.shape[1], classes)
        weights = row_weights(sample_weight, self.class_weight, classes, np.asarray(y))
        obj = self._objective(X, encode_targets(y, classes), weights)
        if first:
            self._rng, self._state = check_random_state(self.random_state), None
        # after a full-batch fit there is no SGD state: the stream goes on from its weights
        # (it started from zero and silently dropped the fitted model)
        run = self._continue(obj, self._rng, self._state, None if first else self._w)
        self._set_fitted(obj, Targets(classes, y, ()), run)
        return self

    def _check_state_fits(self, n_features: int, classes: NDArray) -> None:
        """Refuse a batch that the saved parameters and SGD state do not fit.

        Checked before the batch's objective is built: with ``n_features_in_`` edited to
        10**8, the objective's arrays of 10**8 entries were built (80 s) before the solver
        refused the state, and before that check the compiled epoch ran beyond it.
        """
        size = (n_features + 1) * (1 if classes.size == 2 else classes.size)
        state = self._state
        saved = [self._w] if state is None else [
            self._w, *(state[:2] if isinstance(state, tuple) else (state.iterate, state.average))]
        if any(np.shape(a) != (size,) for a in saved):
            raise ValueError(
                f"partial_fit: the saved parameters of this LogisticRegression do not fit a "
                f"batch of {n_features} features (n_features_in_) and classes {classes!r}: "
                "its fitted attributes were changed after the last fit. Fit it again.")

    def _objective(self, X, targets: Targets, weights: NDArray | None = None) -> Objective:
        # the column scales, then weights and a gradient per problem (at least)
        check_dense_vectors(X.shape[1], 1 + 2 * len(targets.positives))
        k = targets.classes.size
        if k == 2:
            obj = Objective(X, targets.plus_minus(0), Logistic(), self.alpha,
                            self.fit_intercept, weights)
        else:
            labels = targets.labels
            if targets.classes.dtype.kind in "iuf" and labels.dtype.kind in "iuf":
                labels = np.searchsorted(targets.classes, labels)
            obj = Objective(X, labels.astype(np.intp), Softmax(k), self.alpha,
                            self.fit_intercept, weights)
        refuse_underflowing_squares(obj)
        return obj

    # w' of every problem (the intercept last), the solver's random state, and the SGD state
    # that partial_fit continues (None after a full-batch fit)
    _fitted_attributes = Fitted("ovr", (
        Attribute("coef_", Array("float64", ("p", "d")),
                  "ndarray of shape (1, n_features) or (n_classes, n_features)",
                  "The weights; one row per class beyond two classes (centred over the classes)."),
        Attribute("intercept_", Array("float64", ("p",)), "ndarray of shape (1,) or (n_classes,)",
                  "The intercepts."),
        Attribute("classes_", Classes(), "ndarray of shape (n_classes,)", "The sorted labels."),
        Attribute("n_iter_", Int(), "int", "Iterations (epochs) of the last fit."),
        Attribute("loss_curve_", Array("float64", ("c",), finite=False), "ndarray", """
            J after each iteration (epoch), starting with its value at the initial weights."""),
        Attribute("converged_", Bool(), "bool",
                  "Whether the stopping rule was met within max_iter."),
        Attribute("gap_", Float(finite=False), "float", GAP_DOC, optional=True),
        *VALIDATION_SCORES,
        N_FEATURES_IN,
        FEATURE_NAMES_IN,
        Attribute("_w", Array("float64", ("w",))),
        Attribute("_rng", Instance(np.random.RandomState)),
        Attribute("_state", OrNone(AnyOf(
            Instance(SgdState, iterate=Array("float64", ("w",)),
                     average=Array("float64", ("w",)), n_avg=Int(-1), t=Int()),
            # model files written before SgdState held the same four as a tuple
            Items(tuple, 4, (Array("float64", ("w",)), Array("float64", ("w",)), Int(-1),
                             Int()))))),
    ))

    def _set_fitted(self, obj: Objective, targets: Targets, run: SolverRun) -> None:
        W = run.w.reshape(-1, obj.shape[-1]).copy()
        # the softmax ignores a shift common to all classes; cd centres its intercepts
        # itself, before its gap (the L1 part is not shift-invariant in the weights)
        if obj.datafit.shift_invariant and self._solver() != "cd":
            free = slice(-1, None) if self.alpha > 0 else slice(None)
            W[:, free] -= W[:, free].mean(axis=0)
        self._w, self._state = W.ravel(), run.state
        self.classes_ = targets.classes
        self.coef_ = W[:, :-1]
        self.intercept_ = W[:, -1].copy()
        self.n_iter_ = run.n_iter
        self.loss_curve_ = np.asarray(run.loss_curve)
        self.converged_ = run.converged
        self.gap_ = self._gap_at(obj, run, W.ravel())
        self._set_validation_scores(run)

    def _warn_if_separable(self, X, targets: Targets, max_abs: float,
                           weights: NDArray | None = None) -> bool:
        """Without a penalty, warn (and return True) when the data are separable: the rows
        of positive weight, as rows of weight 0 do not enter J."""
        if self.alpha != 0:
            return False
        if weights is not None and not weights.all():
            kept = np.flatnonzero(weights)
            X, targets = X[kept], Targets(targets.classes, targets.labels[kept],
                                          targets.positives)
        if _separable(self, X, targets, self.converged_, max_abs):
            self._warn_separable(stacklevel=4)
            return True
        return False

    @staticmethod
    def _warn_separable(stacklevel: int) -> None:
        warnings.warn(
            "The training data are linearly separable, so the maximum-likelihood "
            "weights do not exist: the likelihood keeps growing as ||w|| grows along a "
            "separating direction. Set alpha > 0 (e.g. alpha = 1 / n_samples) for a "
            "unique, finite solution.", ConvergenceWarning, stacklevel=stacklevel)


def _separable(est: LogisticRegression, X, targets: Targets, converged: bool,
               max_abs: float) -> bool:
    """Whether the fitted weights separate the data strictly, or separability() says so.

    X is the validated array: its scores are computed here, not by decision_function, which
    would check it again and warn that an array has no feature names after a DataFrame fit.
    separability() gets X / max |x_ij|, entries of order 1 (separability is invariant under
    positive scaling, and the LP's tolerances are absolute).
    """
    pred = np.asarray(X @ est.coef_.T) + est.intercept_
    if pred.shape[1] == 1:
        pred = pred.ravel()
        y = targets.plus_minus(0)
        if np.all(y * pred > 0):
            return True
        if converged:
            return False
        from halfspaces.theory import separability

        unit = X if max_abs in (0.0, 1.0) else X * (1.0 / max_abs)
        return bool(separability(unit, y, fit_intercept=est.fit_intercept).separable)
    true = np.searchsorted(est.classes_, targets.values())
    rows = np.arange(pred.shape[0])
    own = pred[rows, true]
    pred[rows, true] = -np.inf
    return bool(np.all(own > pred.max(axis=1)))


@fill_doc(cv_parameters=CV_PARAMETERS_DOC, glm_parameters=CV_SHARED_DOC)
class LogisticRegressionCV(LogisticProbabilities, LinearClassifierMixin, GLMCV):
    r"""Logistic regression with alpha chosen by cross-validation over a warm-started path.

    Each fold fits :class:`LogisticRegression` along one decreasing grid of alpha, each fit
    starting from the one before (:func:`halfspaces.regularization_path`), and scores it
    on the fold's held-out rows; ``alpha_`` has the best mean score, and the model is then
    refitted at it on all the rows. The objective is :class:`LogisticRegression`'s:
    scikit-learn's ``LogisticRegressionCV(Cs=...)`` fits C = 1 / (alpha n_train).

    Parameters
    ----------
    [cv_parameters]
    solver : {"auto", "lbfgs", "newton", "gd", "sgd", "minibatch", "cd"}, default="auto"
        The solver of every fit, as in :class:`LogisticRegression`: "auto" is "lbfgs" for
        the L2 penalty and "cd" (coordinate descent) where ``l1_ratios`` has an L1 part.
    fit_intercept : bool, default=True
        Learn the intercepts b (never penalised).
    max_iter : int or None, default=None
        Iterations of each fit, as in :class:`LogisticRegression`.
    tol : float, default=1e-6
        The stopping rule of each fit, as in :class:`LogisticRegression` (a certified
        duality gap of at most tol J for the full-batch solvers).
    [glm_parameters: learning_rate ... random_state]
    class_weight : dict, "balanced" or None, default=None
        As in :class:`LogisticRegression`; "balanced" counts the classes of each training
        fold.

    Attributes
    ----------
    [fitted_attributes]

    See Also
    --------
    halfspaces.LogisticRegression : the estimator fitted along the path.
    halfspaces.regularization_path : one path on all the rows.

    References
    ----------
    J. Friedman, T. Hastie and R. Tibshirani. Regularization paths for generalized linear
    models via coordinate descent. Journal of Statistical Software 33(1), 2010.

    Examples
    --------
    >>> import numpy as np
    >>> from halfspaces import LogisticRegressionCV
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(60, 2))
    >>> y = (X[:, 0] + 0.5 * rng.normal(size=60) > 0).astype(int)
    >>> clf = LogisticRegressionCV(alphas=5, cv=3).fit(X, y)
    >>> clf.scores_.shape
    (3, 1, 5)
    >>> bool(clf.alpha_ in clf.alphas_[0])
    True
    """

    _parameter_constraints: ClassVar[dict] = {
        **CV_PARAMETERS,
        **{k: v for k, v in LogisticRegression._parameter_constraints.items()
           if k not in NOT_CV_PARAMETERS},
    }

    def __init__(self, alphas=10, l1_ratios=None, eps: float | None = None, cv=5, scoring=None,
                 n_jobs: int | None = None, refit: bool = True, solver: str = "auto",
                 fit_intercept: bool = True, max_iter: int | None = None, tol: float = 1e-6,
                 learning_rate: str = "constant", eta0: float | None = None,
                 power_t: float = 0.5, batch_size: int = 256, line_search: bool = True,
                 average: bool = True, random_state=None, class_weight=None) -> None:
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
        self.class_weight = class_weight

    _fitted_attributes = Fitted("ovr", (
        *CV_ATTRIBUTES,
        coefs_paths(("p", "d+1"), "ndarray of shape (n_folds, n_l1_ratios, n_alphas, "
                                  "n_problems, n_features + 1)"),
        *refit_attributes(LogisticRegression._fitted_attributes),
        N_FEATURES_IN,
        FEATURE_NAMES_IN,
    ))

    def _estimator(self) -> LogisticRegression:
        return LogisticRegression()

    @fit_context
    def fit(self, X: ArrayLike, y: ArrayLike, sample_weight: ArrayLike | None = None):
        """Choose alpha by cross-validation, then refit on all the rows (``refit``).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Training data.
        y : array-like of shape (n_samples,)
            Labels: two values, or more for softmax regression.
        sample_weight : array-like of shape (n_samples,) or None, default=None
            Passed to every fit of :class:`LogisticRegression` (which must take it) and
            to alpha_max's weighted mean; the held-out scores are unweighted.

        Returns
        -------
        self : object
            The fitted estimator.
        """
        return self._fit_cv(X, y, sample_weight)
