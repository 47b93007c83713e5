"""The base of the generalised linear models (LogisticRegression, LinearRegression).

They share twelve parameters (the penalty, the stopping rule, the step rules of the gradient
solvers, seeding, warm starts), their declared constraints and their documentation, the way
the solvers are called and warm-started, and their convergence warnings: all of it lives
here, as in scikit-learn's ``BaseSGD`` and river's GLM base. Each estimator adds its solvers,
its objective (:mod:`halfspaces._glm.datafits`) and what it sets after a fit.
"""

from __future__ import annotations

import warnings
from typing import ClassVar

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy.special import log_softmax
from sklearn.utils.validation import check_is_fitted

from halfspaces._glm.coordinate_descent import solve_cd
from halfspaces._glm.early_stopping import HeldOut
from halfspaces._glm.objective import GLMObjective, Objective
from halfspaces._glm.solvers import SgdState, SolverRun, StepRule, solve
from halfspaces._sklearn import BaseEstimator, FloatInterval, IntegerInterval, StrOptions
from halfspaces._utils.contract import Array, Attribute, Float, OrNone
from halfspaces._utils.early_stopping import validation_split
from halfspaces._validation import SparseInputMixin
from halfspaces.exceptions import ConvergenceWarning
from halfspaces.losses import logistic as logistic_loss

__all__ = ["CD_MAX_ITER", "GAP_DOC", "GLM", "L1_RATIO_DOC", "LogisticProbabilities",
           "SHARED_PARAMETERS_DOC", "SOLVER_PARAMETERS", "STOCHASTIC", "VALIDATION_SCORES",
           "step_rule"]

STOCHASTIC = ("sgd", "minibatch")
CD_MAX_ITER = 100  # outer iterations (gradient checks over all columns) of "cd"

SOLVER_PARAMETERS: dict = {
    "alpha": [FloatInterval(0, None, closed="left")],
    "fit_intercept": ["boolean"],
    "max_iter": [IntegerInterval(1, None, closed="left"), None],
    "tol": [FloatInterval(0, None, closed="left")],
    "learning_rate": [StrOptions({"constant", "invscaling", "optimal"})],
    "eta0": [FloatInterval(0, None, closed="neither"), None],
    "power_t": [FloatInterval(0, None, closed="left")],
    # an int64 for the compiled loops (10**30 became an object array in NumPy)
    "batch_size": [IntegerInterval(1, 2**63 - 1, closed="both")],
    "line_search": ["boolean"],
    "average": ["boolean"],
    "random_state": ["random_state"],
    "warm_start": ["boolean"],
    "l1_ratio": [FloatInterval(0, 1, closed="both")],
    "early_stopping": ["boolean"],
    "validation_fraction": [FloatInterval(0, 1, closed="neither")],
    "n_iter_no_change": [IntegerInterval(1, None, closed="left")],
}
"""The declared constraints of the shared parameters (each estimator adds ``solver``)."""

SHARED_PARAMETERS_DOC = """\
    learning_rate : {"constant", "invscaling", "optimal"}, default="constant"
        Schedule of the stochastic solvers at step t: eta0, eta0 / t^power_t, or
        1 / (alpha (t + t0)) with t0 = 1 / (alpha eta0) (needs alpha > 0).
    eta0 : float or None, default=None
        The step of "constant" and the first step of the other schedules; for gd with the
        line search, the first step tried. None: 1 / L for gd, with L = c mean_i ||x'_i||^2
        + alpha a bound on the smoothness of J (c = 1/4 logistic, 1 squared), and
        sqrt(B) / (2 max_i ||x'_i||^2) for sgd (B = 1) and minibatch (B =
        min(batch_size, n_samples), the rows of a step; Bach and Moulines, 2013). A step
        so large that the weights overflow to inf or NaN raises FloatingPointError, and
        the estimator keeps its last model.
    power_t : float, default=0.5
        Exponent of the "invscaling" schedule.
    batch_size : int, default=256
        Examples per step of "minibatch" (all of them when there are fewer; the last
        step of an epoch takes the mean gradient of the rows left).
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
        The iterative solvers start from the previous solution, when it has the same shape
        (same features, and for a classifier the same classes). With
        ``fit_intercept=False`` they start from its weights with the intercepts at 0, as
        scikit-learn's LogisticRegression does; so does a ``partial_fit`` after
        ``set_params(fit_intercept=False)``.
    early_stopping : bool, default=False
        sgd and minibatch (refused by name with the other solvers, which minimise J on all
        the rows): hold out ``validation_fraction`` of the rows (drawn with
        ``random_state`` as scikit-learn's ``train_test_split`` draws them, stratified by
        class for a classifier), train on the rest, and score the model on them after each
        epoch (accuracy, or R^2 for a regression), as scikit-learn's SGDClassifier and
        SGDRegressor do. The run stops once the score has not improved by more than
        ``tol`` for ``n_iter_no_change`` epochs in a row (this replaces the rule on J), and
        keeps the state of the best epoch (the first to reach the best score), not the last
        one as scikit-learn does: its held-out score is at least as good, for one copy of
        the weights per improvement, and ``partial_fit`` continues from it. ``partial_fit``
        itself trains on every row it is given.
    validation_fraction : float, default=0.1
        The share of the rows held out, in (0, 1).
    n_iter_no_change : int, default=5
        Epochs in a row without an improvement of the held-out score that stop the run.
"""
"""The numpydoc entries of the parameters from ``learning_rate`` to ``n_iter_no_change``,
which each estimator's docstring takes at its marker line ``[glm_parameters]``
(:func:`halfspaces._utils.contract.fill_doc`)."""
L1_RATIO_DOC = """\
    l1_ratio : float in [0, 1], default=0.0
        The share rho of the L1 part of the elastic-net penalty alpha (rho ||w||_1 +
        (1 - rho)/2 ||w||^2), the intercepts never penalised (the convention of
        scikit-learn's ``ElasticNet`` and ``SGDClassifier`` and of glum): 0 the L2 penalty
        alpha/2 ||w||^2, 1 the lasso. rho > 0 is fitted by coordinate descent
        (``solver="cd"``, which ``"auto"`` picks); the other solvers refuse it. A warm
        start at a new alpha (a regularisation path) begins from the previous support and
        the columns the sequential strong rule keeps (Tibshirani et al. 2012).
"""
"""The numpydoc entry of ``l1_ratio``, shared by the GLM estimators."""


GAP_DOC = """
    A certified upper bound on J(``coef_``, ``intercept_``) - J*, J* the minimum of J over the
    training data (over the last batch after partial_fit): the duality gap at a dual point
    built from the fitted one, every term bounded so that float64 rounding cannot make it
    too small. inf where no dual point exists (alpha = 0, except least squares with X of
    full column rank, where it is ||grad J||^2 / (2 lambda_min) of the normal equations'
    matrix); nan for the Dask twins, whose rows are not in memory. Absent from model
    files written before it existed."""
"""The numpydoc description of ``gap_``, shared by the GLM estimators."""


VALIDATION_SCORES = (
    Attribute("validation_scores_", OrNone(Array("float64", ("e",))), "ndarray or None",
              "With ``early_stopping``, the held-out score after each epoch of the last fit; "
              "None without.", optional=True),
    Attribute("best_validation_score_", OrNone(Float()), "float or None",
              "The best of them, the score of the weights kept; None without.", optional=True),
)
"""The early-stopping scores of the GLM estimators (absent from older model files)."""


def step_rule(est) -> StepRule:
    """The StepRule of an estimator's parameters; 'optimal' needs alpha > 0."""
    if est.learning_rate == "optimal" and est.alpha == 0:
        raise ValueError(
            "learning_rate='optimal' uses the step 1/(alpha t) and needs alpha > 0; set "
            "alpha > 0 or use learning_rate='invscaling'."
        )
    # floats, as the compiled loops are typed: an int eta0 or power_t of 10**30 was a Numba
    # typing error (beyond int64), a smaller one a second compilation of the loop
    eta0 = None if est.eta0 is None else float(est.eta0)
    return StepRule(eta0, est.learning_rate, float(est.power_t), est.batch_size,
                    est.line_search, est.average)


class GLM(SparseInputMixin, BaseEstimator):
    """Shared parameters, solver calls, warm starts and convergence warnings.

    Subclasses declare ``solver`` in ``_parameter_constraints`` and keep their own
    ``__init__`` signature (its defaults and order are theirs), passing every argument on.
    """

    _parameter_constraints: ClassVar[dict] = dict(SOLVER_PARAMETERS)
    _instead = "lbfgs"  # the solver the max_iter warning suggests

    def __init__(self, *, solver, alpha, fit_intercept, max_iter, tol, learning_rate, eta0,
                 power_t, batch_size, line_search, average, random_state, warm_start,
                 early_stopping=False, validation_fraction=0.1, n_iter_no_change=5,
                 l1_ratio=0.0) -> None:
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
        self.early_stopping = early_stopping
        self.validation_fraction = validation_fraction
        self.n_iter_no_change = n_iter_no_change
        self.l1_ratio = l1_ratio

    def _start(self, obj: GLMObjective) -> np.ndarray:
        """The first iterate: with warm_start the last solution when its shape fits, else 0."""
        resume = self.warm_start and getattr(self, "_w", np.empty(0)).shape == (obj.size,)
        return self._w if resume else np.zeros(obj.size)

    _auto = "lbfgs"  # what solver="auto" means without an L1 part

    def _solver(self) -> str:
        """The solver that runs: "auto" resolved; an L1 part refused by the smooth solvers."""
        if self.solver == "auto":
            return "cd" if self.l1_ratio > 0 else self._auto
        if self.l1_ratio > 0 and self.solver != "cd":
            raise ValueError(
                f"{type(self).__name__}(solver={self.solver!r}) cannot fit l1_ratio="
                f"{self.l1_ratio} > 0: the L1 penalty is not differentiable at 0, where a "
                "sparse solution sits. Use solver='cd' (coordinate descent) or 'auto'.")
        return self.solver

    def _solve(self, obj: GLMObjective, rng, held_out: HeldOut | None = None) -> SolverRun:
        """Minimise ``obj`` with the estimator's solver and step rule (stopping early on
        ``held_out``)."""
        self._refuse_early_stopping()
        solver = self._solver()
        if solver == "cd":
            return self._finite(self._coordinate_descent(obj))
        return self._finite(solve(obj, solver, self._start(obj), float(self.tol),
                                  self.max_iter, step_rule(self), rng, held_out=held_out))

    def _refuse_early_stopping(self) -> None:
        if self.early_stopping and self.solver not in STOCHASTIC:
            raise ValueError(
                f"early_stopping=True stops the epochs of solver='sgd' or 'minibatch' on a "
                f"held-out score; solver={self.solver!r} minimises J on all the rows. Use "
                "solver='sgd' or 'minibatch', or early_stopping=False.")

    def _hold_out(self, X, y: NDArray, stratify: bool, weights: NDArray | None = None):
        """(X, y, weights, X_held, y_held): the rows trained on (with their weights) and
        those held out, or (X, y, weights, None, None) without early stopping. The held-out
        score is unweighted."""
        if not self.early_stopping:
            return X, y, weights, None, None
        self._refuse_early_stopping()
        train, held = validation_split(y, self.validation_fraction, self.random_state,
                                       stratify)
        kept = None if weights is None else weights[train]
        return X[train], y[train], kept, X[held], y[held]

    def _held_out(self, X_held, y: NDArray, task: str) -> HeldOut | None:
        """The solver's :class:`HeldOut`, or None without early stopping."""
        if X_held is None:
            return None
        return HeldOut(X_held, y, task, self.n_iter_no_change, float(self.tol))

    def _set_validation_scores(self, run: SolverRun) -> None:
        scores = run.validation_scores
        self.validation_scores_ = None if scores is None else np.array(scores)
        self.best_validation_score_ = None if scores is None else float(max(scores))

    def _coordinate_descent(self, obj: GLMObjective) -> SolverRun:
        """The elastic-net fit of ``obj``'s data by :func:`~halfspaces._glm.coordinate_descent.
        solve_cd`, as a SolverRun with its certified gap."""
        loss = obj.datafit.sparse_loss
        if loss is None or not isinstance(obj, Objective):
            raise ValueError(
                f"{type(self).__name__}: solver='cd' (and l1_ratio > 0) fits data in "
                "memory; use solver='lbfgs' with l1_ratio=0.")
        max_iter = CD_MAX_ITER if self.max_iter is None else int(self.max_iter)
        # a start at zero is a cold start: the solver then begins at the intercept-only fit,
        # where w = 0 is exactly optimal for alpha >= alpha_max (0 as intercept moved w)
        start = self._start(obj)
        run = solve_cd(obj.X, obj.y, loss=loss, alpha=obj.alpha, l1_ratio=float(self.l1_ratio),
                       fit_intercept=obj.fit_intercept, tol=float(self.tol), max_iter=max_iter,
                       weights=obj.weights, start=start if start.any() else None,
                       n_classes=obj.n_outputs)
        return SolverRun(run.w, run.n_iter, run.converged, run.loss_curve, stalled=run.stalled,
                         objective=run.objective, gap=run.gap)

    @staticmethod
    def _gap_at(obj: GLMObjective, run: SolverRun, w: NDArray) -> float:
        """The run's certified gap, recomputed at ``w`` when the stored parameters are not
        the run's bit for bit (the softmax's centring rounds them)."""
        if np.array_equal(w, run.w) and not np.isnan(run.gap):
            return float(run.gap)
        found = obj.duality_gap(w)
        return float("nan") if found is None else float(found[1])

    def _continue(self, obj: GLMObjective, rng, state: SgdState | tuple | None,
                  start: NDArray | None = None) -> SolverRun:
        """One epoch of the stochastic solver over ``obj`` (partial_fit), from ``state``, or
        without one from the parameters ``start`` (a full-batch fit's; zeros if None)."""
        self._solver()  # an L1 part is refused by name
        if isinstance(state, tuple):  # older model files: (iterate, average, n_avg, t)
            state = SgdState(*state)
        w0 = np.zeros(obj.size) if start is None else start
        return self._finite(solve(obj, self.solver, w0, 0.0, 1, step_rule(self), rng, state))

    def _finite(self, run: SolverRun) -> SolverRun:
        """``run``, refused when its weights overflowed to inf or NaN (a step too large).

        Raised before any fitted attribute is set, so that the estimator keeps its last
        model: a NaN model saved or warm-started from would predict one class everywhere,
        and a full-batch solver started there stops at once and calls it optimal.
        """
        if np.all(np.isfinite(run.w)):
            return run
        steps = (f"eta0={self.eta0}, learning_rate={self.learning_rate!r}"
                 if self.solver in STOCHASTIC or not self.line_search else "")
        raise FloatingPointError(
            f"{type(self).__name__}(solver={self.solver!r}) diverged: its weights overflowed "
            f"to inf or NaN within {run.n_iter} iterations{f' ({steps})' if steps else ''}. "
            "Use a smaller eta0, learning_rate='optimal', a full-batch solver such as "
            "'lbfgs', or scale X (e.g. StandardScaler).")

    def _warn_unfinished(self, run: SolverRun) -> None:
        """Warn when the solver stalled in floating point or ran out of iterations."""
        name = type(self).__name__
        if run.stalled:
            warnings.warn(
                f"{name}(solver={self.solver!r}) stopped after {run.n_iter} "
                "iterations: J no longer decreases in floating point, yet the gradient "
                f"or the certified duality gap (gap_={getattr(self, 'gap_', float('nan')):.3g})"
                f" exceeds its stopping rule (tol={self.tol}). The weights are optimal to "
                "machine precision; a larger tol would have stopped earlier.",
                ConvergenceWarning, stacklevel=3)
        elif not run.converged:
            warnings.warn(
                f"{name}(solver={self.solver!r}) stopped after {run.n_iter} "
                f"iterations (max_iter={self.max_iter}) before its stopping rule (tol="
                f"{self.tol}) was met; raise max_iter or tol, or use "
                f"solver={self._instead!r}.", ConvergenceWarning, stacklevel=3)


class LogisticProbabilities:
    """``predict_proba`` and ``predict_log_proba`` from ``decision_function``: the logistic
    model's sigma(z) for two classes, softmax(z) beyond (LogisticRegression and its CV)."""

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
        z = self.decision_function(X)  # type: ignore[attr-defined]
        if z.ndim == 1:  # log sigma(z) = -logistic(z): the logistic loss of the margin z
            return np.column_stack([-logistic_loss(-z), -logistic_loss(z)])
        return log_softmax(z, axis=1)
