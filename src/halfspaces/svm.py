"""The soft-margin linear SVM (hinge or squared hinge, L2 penalty), by dual coordinate descent.

The estimator is thin: it validates, and hands each binary problem (one-vs-rest beyond two
classes) to :func:`halfspaces._glm.svm_dual.solve_svm_dual`, which runs the compiled dual
coordinate descent loop (:mod:`halfspaces._fast.svm`) until a certified duality gap is at
most ``tol`` times J.

References
----------
.. [1] C.-J. Hsieh, K.-W. Chang, C.-J. Lin, S. S. Keerthi and S. Sundararajan. A dual
   coordinate descent method for large-scale linear SVM. ICML 2008.
.. [2] S. Shalev-Shwartz and S. Ben-David. Understanding Machine Learning: From Theory to
   Algorithms. Cambridge University Press, 2014. Chapter 15 (support vector machines).
.. [3] J. Nocedal and S. J. Wright. Numerical Optimization, 2nd edition. Springer, 2006.
   Section 17.3 (the method of multipliers).
"""

from __future__ import annotations

import math
import warnings
from typing import ClassVar

import numpy as np
from numpy.typing import ArrayLike
from sklearn.utils import check_random_state

from halfspaces._glm.coordinate_descent import solve_svm_cd
from halfspaces._glm.crammer_singer import CrammerSingerRun, solve_crammer_singer
from halfspaces._glm.cv import (
    CV_ATTRIBUTES,
    CV_PARAMETERS,
    CV_PARAMETERS_DOC,
    GLMCV,
    NOT_CV_PARAMETERS,
    coefs_paths,
    refit_attributes,
)
from halfspaces._glm.svm_dual import (
    SVM_LOSSES,
    PositiveAlpha,
    SvmDualRun,
    kept_rows,
    solve_svm_dual,
)
from halfspaces._glm.svm_newton import pick_svm_solver, solve_svm_newton
from halfspaces._sklearn import (
    CLASS_WEIGHT,
    BaseEstimator,
    FloatInterval,
    IntegerInterval,
    LinearClassifierMixin,
    StrOptions,
    fit_context,
)
from halfspaces._utils.contract import (
    FEATURE_NAMES_IN,
    N_FEATURES_IN,
    PER_PROBLEM_COUNT,
    Array,
    Attribute,
    Bool,
    Choice,
    Classes,
    Fitted,
    Float,
    fill_doc,
)
from halfspaces._utils.memory import check_dense_vectors
from halfspaces._utils.progress import report
from halfspaces._validation import (
    FIT_INPUT,
    SparseInputMixin,
    Targets,
    encode_targets,
    per_problem,
    row_weights,
    validate_data,
)
from halfspaces.exceptions import ConvergenceWarning

__all__ = ["LinearSVM", "LinearSVMCV"]


# one value per binary problem (per_problem's form): inf where rounding certifies nothing
_PER_PROBLEM_FLOAT = Choice(Float(finite=False), Array("float64", ("p",), finite=False))


@fill_doc()
class LinearSVM(SparseInputMixin, LinearClassifierMixin, BaseEstimator):
    r"""The soft-margin linear SVM: hinge or squared hinge loss with an L2 penalty.

    Minimises, the intercept b not penalised,

    .. math::
        J(w, b) = \frac{1}{S}\sum_{i=1}^n s_i\,\ell\bigl(y_i(\langle w, x_i\rangle + b)\bigr)
                  + \frac{\alpha}{2}\lVert w\rVert^2, \qquad S = \sum_{i=1}^n s_i,

    with y_i in {-1, +1} (classes_[1] is +1), the sample weights s_i (1 by default, so the
    first term is the mean loss) and :math:`\ell(m) = \max(0, 1 - m)` (hinge) or
    :math:`\max(0, 1 - m)^2` (squared hinge). Beyond two classes, one such problem per
    class (one-vs-rest); the prediction is the class of the largest score.

    J is alpha times LIBLINEAR's primal :math:`\tfrac12\lVert w\rVert^2 + \sum_i C_i
    \ell_i` with :math:`C_i = s_i / (\alpha S)`: with unit weights alpha = 1 / (C n) gives
    LIBLINEAR's ``-c C`` and scikit-learn's ``LinearSVC(C=C)``. Those two penalise the
    intercept, though (it is a weight on a constant feature, ``intercept_scaling``;
    scikit-learn issue #11715), so with ``fit_intercept=True`` they solve another problem;
    with ``fit_intercept=False`` the problems are the same. With the same alpha this is
    also the objective of scikit-learn's ``SGDClassifier(loss="hinge", alpha=alpha)``.

    The solver is dual coordinate descent with shrinking (Hsieh et al. 2008, LIBLINEAR's
    ``-s 3`` and ``-s 1``) over the dual of that primal, in a random order each pass. The
    unpenalised intercept adds the dual constraint :math:`\sum_i y_i a_i = 0`, which is kept
    exactly by the method of multipliers (Nocedal and Wright, Section 17.3): the loop
    minimises the augmented Lagrangian, whose multiplier converges to b. Every run ends
    with a duality gap computed so that rounding cannot make it too small: ``gap_`` is a
    certified upper bound on J(``coef_``, ``intercept_``) - J*, however the run ended.

    Parameters
    ----------
    alpha : float, default=1e-4
        The L2 penalty, > 0 (alpha = 0 is the unregularised hinge loss minimised by
        ``LinearProgramClassifier(on_infeasible="hinge")``; its separable limit is
        ``MaxMarginClassifier``). The default is ``SGDClassifier``'s, and equals
        ``LinearSVC``'s default C = 1 at n = 10,000 examples. The dual's conditioning is
        C max_i ||x_i||^2: a smaller alpha (or larger features) takes more passes.
    loss : {"squared_hinge", "hinge"}, default="squared_hinge"
        The loss, squared hinge by default as in ``LinearSVC``.
    fit_intercept : bool, default=True
        Learn the intercepts b (never penalised).
    tol : float, default=1e-4
        Stop when the certified duality gap is at most tol * J, a relative bound on the
        suboptimality: J(``coef_``, ``intercept_``) <= (1 + tol) J*.
    max_iter : int, default=1000
        The most passes over the data (Newton steps for "newton") per binary problem; a
        run that ends before its gap reaches tol * J warns
        (:class:`~halfspaces.ConvergenceWarning`).
    solver : {"auto", "dual", "newton"}, default="auto"
        "dual": dual coordinate descent (above). "newton": a primal Newton method for the
        squared hinge (Mangasarian's finite Newton method with an exact line search,
        the Hessian formed and factored: for up to 1,000 features), certified by the same
        gap. "auto": Newton for the squared hinge with at most 1,000 features (where it
        needs a few steps when the dual needs thousands of passes), the dual otherwise.
        Crammer and Singer's problem always runs its own dual method.
    multi_class : {"ovr", "crammer_singer"}, default="ovr"
        Beyond two classes: one binary problem per class, that class against the rest
        ("ovr"), or one joint problem, Crammer and Singer's multiclass hinge loss
        :math:`\max(0, 1 + \max_{m \ne y_i} z_{im} - z_{iy_i})` with :math:`z_{im} =
        \langle w_m, x_i\rangle + b_m` and the penalty :math:`\tfrac{\alpha}{2}\sum_m
        \lVert w_m\rVert^2`, the intercepts free ("crammer_singer": LIBLINEAR's ``-s 4``
        by the sequential dual method of Keerthi et al. 2008, scikit-learn's
        ``LinearSVC(multi_class="crammer_singer")`` with ``fit_intercept=False``). It
        ignores ``loss``. With two classes it is exactly the binary hinge problem at
        alpha / 2 (w_1 = -w_0 at the optimum), which is what is solved; ``warm_start``
        applies to "ovr" only.
    random_state : int, RandomState instance or None, default=None
        Seeds the order in which each pass visits the examples.
    warm_start : bool, default=False
        Start from the previous fit's dual point ``dual_coef_`` when it fits the data (the
        same number of rows and the same classes); otherwise from zero. The dual variables
        are scale-free, so a refit at a new alpha (a regularisation path) starts from the
        same ``dual_coef_`` (clipped into the hinge's box [0, 1] if needed).
    l1_ratio : float in [0, 1], default=0.0
        The share rho of the L1 part of the elastic-net penalty: alpha (rho ||w||_1 +
        (1 - rho)/2 ||w||^2) replaces alpha/2 ||w||^2 (the convention of scikit-learn's
        ``SGDClassifier``). rho > 0 needs the squared hinge: with rho = 1 it is
        LIBLINEAR's ``-s 5`` (L1-regularised L2-loss SVM) with an unpenalised intercept,
        fitted by proximal coordinate descent over working sets of columns (Massias et al.
        2018) until the certified gap of the elastic-net problem is at most tol J;
        ``max_iter`` then bounds its outer iterations, ``dual_coef_`` holds
        2 max(0, 1 - m_i) and a warm start begins from the previous ``coef_`` and
        ``intercept_``. The hinge with an L1 part is refused, as LIBLINEAR does not offer
        it.
    class_weight : dict, "balanced" or None, default=None
        Weights of the classes: row i weighs s_i = ``sample_weight[i]`` times the weight of
        its own label, in every one-vs-rest problem and in Crammer and Singer's (LIBLINEAR's
        ``-wi`` multiplies C_i the same way). A dict {label: weight} (classes it does not
        name weigh 1; naming a label that is not a class of y is refused), "balanced" for
        n / (n_classes * count of the class) (scikit-learn's rule), or None for 1.

    Attributes
    ----------
    [fitted_attributes]

    See Also
    --------
    halfspaces.MaxMarginClassifier : the hard margin (the limit alpha -> 0 on separable data).
    halfspaces.LinearProgramClassifier : ``on_infeasible="hinge"`` minimises the hinge loss
        without the penalty.
    halfspaces.LogisticRegression : the logistic loss with the same alpha convention.

    References
    ----------
    Hsieh, Chang, Lin, Keerthi and Sundararajan (2008); Shalev-Shwartz and Ben-David
    (2014), Chapter 15; Nocedal and Wright (2006), Section 17.3.

    Examples
    --------
    >>> import numpy as np
    >>> from halfspaces import LinearSVM
    >>> X = np.array([[0.0], [1.0], [2.0], [3.0]])
    >>> clf = LinearSVM(loss="hinge", alpha=0.1, random_state=0).fit(X, [0, 0, 1, 1])
    >>> clf.predict([[0.5], [2.5]])
    array([0, 1])
    >>> bool(clf.gap_ <= clf.tol * clf.objective_)
    True
    """

    _parameter_constraints: ClassVar[dict] = {
        "alpha": [PositiveAlpha()],
        "loss": [StrOptions(set(SVM_LOSSES))],
        "fit_intercept": ["boolean"],
        "tol": [FloatInterval(0, None, closed="left")],
        "max_iter": [IntegerInterval(1, 2**62, closed="both")],
        "solver": [StrOptions({"auto", "dual", "newton"})],
        "multi_class": [StrOptions({"ovr", "crammer_singer"})],
        "random_state": ["random_state"],
        "warm_start": ["boolean"],
        "l1_ratio": [FloatInterval(0, 1, closed="both")],
        "class_weight": CLASS_WEIGHT,
    }

    def __init__(self, alpha: float = 1e-4, loss: str = "squared_hinge",
                 fit_intercept: bool = True, tol: float = 1e-4, max_iter: int = 1000,
                 solver: str = "auto", multi_class: str = "ovr", random_state=None,
                 warm_start: bool = False, l1_ratio: float = 0.0,
                 class_weight=None) -> None:
        self.alpha = alpha
        self.loss = loss
        self.fit_intercept = fit_intercept
        self.tol = tol
        self.max_iter = max_iter
        self.solver = solver
        self.multi_class = multi_class
        self.random_state = random_state
        self.warm_start = warm_start
        self.l1_ratio = l1_ratio
        self.class_weight = class_weight

    @fit_context
    def fit(self, X: ArrayLike, y: ArrayLike, sample_weight: ArrayLike | None = None):
        """Minimise J over the training data, one binary problem per class beyond two.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Training data; float32 is kept, CSR is used as it is.
        y : array-like of shape (n_samples,)
            Labels: two values, or more for one-vs-rest.
        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative weights: example i counts as s_i examples (C_i = s_i /
            (alpha S)), s_i this weight times its class's (``class_weight``); zero-weight
            rows are left out. None: all 1.

        Returns
        -------
        self : object
            The fitted estimator.
        """
        data, labels = validate_data(self, X, y, **FIT_INPUT)
        if self.solver == "newton" and (self.loss != "squared_hinge"
                                        or self.multi_class == "crammer_singer"):
            raise ValueError("solver='newton' needs loss='squared_hinge' and "
                             "multi_class='ovr' (the hinge has no Hessian): use "
                             "solver='dual' or 'auto'.")
        self._refuse_l1()
        targets = encode_targets(labels)
        n_samples, n_features = data.shape
        # coef_, each problem's w and its checked copy, and the absolute row sums of the gap
        check_dense_vectors(n_features, len(targets.positives) + 3)
        weights = row_weights(sample_weight, self.class_weight, targets.classes,
                              np.asarray(labels))
        rows, X_kept, scaled = kept_rows(data, weights)
        if self.multi_class == "crammer_singer" and len(targets.positives) > 1:
            return self._fit_crammer_singer(targets, X_kept, rows, scaled, n_samples)
        starts = self._warm_starts(targets, n_samples, rows)
        seed = int(check_random_state(self.random_state).randint(2**31 - 1))
        joint = self.multi_class == "crammer_singer"  # two classes: the hinge at alpha / 2
        loss, alpha = ("hinge", self.alpha / 2.0) if joint else (self.loss, self.alpha)
        solver = self.solver if self.solver != "auto" else pick_svm_solver(X_kept, loss)
        solve = solve_svm_newton if solver == "newton" else solve_svm_dual
        runs = []
        for k, start in enumerate(starts):
            y_k = targets.plus_minus(k, rows)
            if self.l1_ratio > 0:
                runs.append(solve_svm_cd(
                    X_kept, y_k, alpha=float(alpha), l1_ratio=float(self.l1_ratio),
                    fit_intercept=self.fit_intercept, tol=float(self.tol),
                    max_iter=int(self.max_iter), weights=scaled,
                    start=None if start is None else np.append(start.coef, start.intercept)))
            else:
                runs.append(solve(
                    X_kept, y_k, loss=loss, alpha=float(alpha),
                    fit_intercept=self.fit_intercept, tol=float(self.tol),
                    max_iter=int(self.max_iter), seed=seed, weights=scaled, start=start))
            report(k + 1, len(starts))  # problems solved, for a progress bar
        self._set_fitted(targets, runs, n_samples, rows)
        self._warn_unfinished(targets, runs)
        return self

    def _refuse_l1(self) -> None:
        """l1_ratio > 0 needs the squared hinge, one-vs-rest and coordinate descent."""
        if self.l1_ratio == 0:
            return
        if self.loss != "squared_hinge" or self.multi_class != "ovr" or self.solver != "auto":
            raise ValueError(
                f"LinearSVM(l1_ratio={self.l1_ratio}) fits the squared hinge with the "
                "elastic net by coordinate descent (LIBLINEAR's -s 5): it needs "
                "loss='squared_hinge', multi_class='ovr' and solver='auto' (got "
                f"loss={self.loss!r}, multi_class={self.multi_class!r}, solver="
                f"{self.solver!r}); the hinge with an L1 penalty is not offered, as "
                "LIBLINEAR does not offer it.")

    def _fit_crammer_singer(self, targets: Targets, X, rows, weights, n_samples: int):
        """One joint problem over k > 2 classes: Crammer and Singer's."""
        y_index = np.searchsorted(np.asarray(targets.positives), targets.labels[rows])
        seed = int(check_random_state(self.random_state).randint(2**31 - 1))
        run: CrammerSingerRun = solve_crammer_singer(
            X, y_index, len(targets.positives), alpha=float(self.alpha),
            fit_intercept=self.fit_intercept, tol=float(self.tol), max_iter=int(self.max_iter),
            seed=seed, weights=weights)
        report(1, 1)
        self.classes_ = targets.classes
        self.coef_ = np.asarray(run.coef, dtype=np.float64)
        self.intercept_ = np.asarray(run.intercept, dtype=np.float64)
        dual = np.zeros((len(targets.positives), n_samples))
        dual[:, rows] = run.dual.T
        self.dual_coef_ = dual
        # one joint problem, its values repeated per class: the attributes' shapes are the
        # same for both multi_class options, as model files and callers expect
        k = len(targets.positives)
        self.n_iter_ = np.full(k, run.n_iter, dtype=np.int64)
        self.gap_ = np.full(k, float(run.gap))
        self.objective_ = np.full(k, float(run.objective))
        self.converged_ = bool(run.converged)
        if not run.converged:
            warnings.warn(
                f"LinearSVM (crammer_singer) stopped after {run.n_iter} passes "
                f"(max_iter={self.max_iter}) with a certified duality gap of {run.gap:.3g} "
                f"({run.gap / run.objective:.3g} of J = {run.objective:.6g}), above tol * J "
                f"(tol={self.tol}): J is within the gap of its optimum (gap_). Raise max_iter "
                "(or tol).", ConvergenceWarning, stacklevel=6)
        return self

    def _warm_starts(self, targets: Targets, n_samples: int, rows) -> list[SvmDualRun | None]:
        """The previous fit's dual point per problem, when warm_start and it fits the data."""
        n_problems = len(targets.positives)
        if not (self.warm_start and hasattr(self, "dual_coef_") and self.multi_class == "ovr"
                and np.all(self.dual_coef_ >= 0.0)
                and self.dual_coef_.shape == (n_problems, n_samples)
                and np.array_equal(self.classes_, targets.classes)):
            return [None] * n_problems
        previous = self.dual_coef_
        top = 1.0 if self.loss == "hinge" else np.inf  # the hinge's box is [0, 1]
        return [SvmDualRun(coef=self.coef_[k], intercept=float(self.intercept_[k]),
                           dual=np.clip(previous[k][rows], 0.0, top),
                           multiplier=np.array([float(self.intercept_[k]), 0.0]), n_iter=0,
                           objective=math.nan, gap=math.nan, converged=False)
                for k in range(n_problems)]

    # dual_coef_ holds the rows of the training data: its length is the last fit's n_samples
    _fitted_attributes = Fitted("ovr", (
        Attribute("coef_", Array("float64", ("p", "d")),
                  "ndarray of shape (1, n_features) or (n_classes, n_features)",
                  "The weights w of each binary problem (one-vs-rest beyond two classes)."),
        Attribute("intercept_", Array("float64", ("p",)), "ndarray of shape (1,) or (n_classes,)",
                  "The intercepts b (0 with ``fit_intercept=False``)."),
        Attribute("classes_", Classes(), "ndarray of shape (n_classes,)",
                  "The labels, sorted; classes_[1] is the positive class of a binary problem."),
        # >= -1: Crammer and Singer's duals of the other classes lie in [-1, 0]
        Attribute("dual_coef_", Array("float64", ("p", "n"), low=-1),
                  "ndarray of shape (1, n_samples) or (n_classes, n_samples)", r"""
            The dual variables beta_i = a_i / C_i of each problem's training rows, scale-free:
            w = (1 / (alpha S)) sum_i beta_i s_i y_i x_i. For the hinge beta_i lies in the
            box [0, 1] (1 where the margin y_i(<w, x_i> + b) < 1, 0 where it is > 1); for
            the squared hinge beta_i = 2 max(0, 1 - margin) >= 0. With an intercept,
            sum_i s_i y_i beta_i = 0. Rows of zero weight hold 0. With
            ``multi_class="crammer_singer"`` and k > 2 classes, column i holds example i's k
            dual variables over C_i: the label's in [0, 1], the others' in [-1, 0], summing
            to 0, and w_m = (1 / (alpha S)) sum_i s_i beta_im x_i."""),
        Attribute("n_iter_", PER_PROBLEM_COUNT, "int or ndarray of shape (n_classes,)",
                  "Passes over the data of each binary problem, or its Newton steps (with "
                  "``multi_class=\"crammer_singer\"``, the joint problem's passes, in every "
                  "entry)."),
        Attribute("gap_", _PER_PROBLEM_FLOAT, "float or ndarray of shape (n_classes,)", """
            A certified upper bound on J(``coef_``, ``intercept_``) - J* of each binary
            problem, from a feasible dual point, evaluated so that rounding cannot make it too
            small (with ``multi_class="crammer_singer"``, the joint problem's, in every
            entry)."""),
        Attribute("objective_", _PER_PROBLEM_FLOAT, "float or ndarray of shape (n_classes,)",
                  "J(``coef_``, ``intercept_``) of each binary problem, rounded up (the joint "
                  "problem's in every entry with ``multi_class=\"crammer_singer\"``)."),
        Attribute("converged_", Bool(), "bool",
                  "Whether every problem's ``gap_`` reached tol * ``objective_``."),
        N_FEATURES_IN,
        FEATURE_NAMES_IN,
    ))

    def _set_fitted(self, targets: Targets, runs: list[SvmDualRun], n_samples: int,
                    rows) -> None:
        self.classes_ = targets.classes
        self.coef_ = np.vstack([run.coef for run in runs])
        self.intercept_ = np.array([run.intercept for run in runs], dtype=np.float64)
        dual = np.zeros((len(runs), n_samples))
        for k, run in enumerate(runs):
            dual[k, rows] = run.dual
        self.dual_coef_ = dual
        self.n_iter_ = per_problem(np.array([run.n_iter for run in runs], dtype=np.int64))
        self.gap_ = per_problem([run.gap for run in runs])
        self.objective_ = per_problem([run.objective for run in runs])
        self.converged_ = all(run.converged for run in runs)

    def _warn_unfinished(self, targets: Targets, runs: list[SvmDualRun]) -> None:
        """One ConvergenceWarning for the problems whose gap stayed above tol * J."""
        late = [(k, run) for k, run in enumerate(runs) if not run.converged]
        if not late:
            return
        k, run = max(late, key=lambda item: item[1].gap / max(item[1].objective, 1e-300))
        label = targets.classes[k].tolist()
        which = "" if len(runs) == 1 else f" (class {label!r}, the worst of {len(late)} problems)"
        if run.n_iter >= self.max_iter:
            advice = "Raise max_iter (or tol)."
        else:  # the loop's own tolerance reached its float64 floor
            advice = ("The loop cannot reduce it further in float64; a larger tol stops "
                      "sooner.")
        warnings.warn(
            f"LinearSVM stopped after {run.n_iter} passes (max_iter={self.max_iter}) with a "
            f"certified duality gap of {run.gap:.3g} ({run.gap / run.objective:.3g} of J = "
            f"{run.objective:.6g}){which}, above tol * J (tol={self.tol}): J is within the "
            f"gap of its optimum (gap_). {advice}", ConvergenceWarning,
            stacklevel=5)  # the caller of fit, through fit_context's two wrappers


@fill_doc(cv_parameters=CV_PARAMETERS_DOC)
class LinearSVMCV(LinearClassifierMixin, GLMCV):
    r"""The soft-margin linear SVM with alpha chosen by cross-validation over a path.

    Each fold fits :class:`LinearSVM` along one decreasing grid of alpha, each fit starting
    from the dual point of the one before (its ``warm_start``), and scores it on the fold's
    held-out rows; ``alpha_`` has the best mean score (accuracy by default), and the model
    is then refitted at it on all the rows. The objective is :class:`LinearSVM`'s:
    scikit-learn's ``LinearSVC(C=1 / (alpha n_train))``.

    Parameters
    ----------
    [cv_parameters]
    loss : {"hinge", "squared_hinge"}, default="squared_hinge"
        The loss of every fit, as in :class:`LinearSVM`.
    fit_intercept : bool, default=True
        Learn the intercepts b (never penalised).
    tol : float, default=1e-4
        Each fit stops when its certified duality gap is at most tol J.
    max_iter : int, default=1000
        Passes over the data (or Newton steps) of each fit.
    solver : {"auto", "dual", "newton"}, default="auto"
        The solver of every fit, as in :class:`LinearSVM`.
    multi_class : {"ovr", "crammer_singer"}, default="ovr"
        Beyond two classes, as in :class:`LinearSVM` (warm starts for "ovr" only).
    random_state : int, RandomState instance or None, default=None
        Seeds the order in which each pass visits the examples.
    class_weight : dict, "balanced" or None, default=None
        As in :class:`LinearSVM`; "balanced" counts the classes of each training fold.

    Attributes
    ----------
    [fitted_attributes]

    See Also
    --------
    halfspaces.LinearSVM : the estimator fitted along the path.
    halfspaces.regularization_path : one path on all the rows.

    References
    ----------
    Hsieh, Chang, Lin, Keerthi and Sundararajan (2008), Section 3.4 (warm starts at a new
    C); J. Friedman, T. Hastie and R. Tibshirani, Regularization paths for generalized
    linear models via coordinate descent, Journal of Statistical Software 33(1), 2010.

    Examples
    --------
    >>> import numpy as np
    >>> from halfspaces import LinearSVMCV
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(60, 2))
    >>> y = (X[:, 0] + 0.5 * rng.normal(size=60) > 0).astype(int)
    >>> clf = LinearSVMCV(alphas=4, cv=3, random_state=0).fit(X, y)
    >>> clf.scores_.shape, clf.coef_.shape
    ((3, 1, 4), (1, 2))
    """

    _parameter_constraints: ClassVar[dict] = {
        **CV_PARAMETERS,
        **{k: v for k, v in LinearSVM._parameter_constraints.items()
           if k not in NOT_CV_PARAMETERS},
    }

    def __init__(self, alphas=10, l1_ratios=None, eps: float | None = None, cv=5, scoring=None,
                 n_jobs: int | None = None, refit: bool = True, loss: str = "squared_hinge",
                 fit_intercept: bool = True, tol: float = 1e-4, max_iter: int = 1000,
                 solver: str = "auto", multi_class: str = "ovr", random_state=None,
                 class_weight=None) -> None:
        self.alphas = alphas
        self.l1_ratios = l1_ratios
        self.eps = eps
        self.cv = cv
        self.scoring = scoring
        self.n_jobs = n_jobs
        self.refit = refit
        self.loss = loss
        self.fit_intercept = fit_intercept
        self.tol = tol
        self.max_iter = max_iter
        self.solver = solver
        self.multi_class = multi_class
        self.random_state = random_state
        self.class_weight = class_weight

    _fitted_attributes = Fitted("ovr", (
        *CV_ATTRIBUTES,
        coefs_paths(("p", "d+1"), "ndarray of shape (n_folds, n_l1_ratios, n_alphas, "
                                  "n_problems, n_features + 1)"),
        *refit_attributes(LinearSVM._fitted_attributes),
        N_FEATURES_IN,
        FEATURE_NAMES_IN,
    ))

    def _estimator(self) -> LinearSVM:
        return LinearSVM()

    @fit_context
    def fit(self, X: ArrayLike, y: ArrayLike, sample_weight: ArrayLike | None = None):
        """Choose alpha by cross-validation, then refit on all the rows (``refit``).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Training data.
        y : array-like of shape (n_samples,)
            Labels: two values, or more.
        sample_weight : array-like of shape (n_samples,) or None, default=None
            Passed to every fit of :class:`LinearSVM` and to alpha_max's weighted mean;
            the held-out scores are unweighted.

        Returns
        -------
        self : object
            The fitted estimator.
        """
        return self._fit_cv(X, y, sample_weight)
