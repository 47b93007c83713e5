"""Empirical risk minimisation for halfspaces by exact solvers: LP, hard-margin QP and MILP.

Three thin scikit-learn classifiers over the exact solvers of :mod:`halfspaces._exact`: each
solves one problem per binary task (one-vs-rest beyond two classes) with HiGHS and checks the
answer in floating point before keeping it.

References
----------
.. [1] S. Shalev-Shwartz and S. Ben-David. Understanding Machine Learning, 2014. Sections
   9.1.1 (ERM by linear programming) and 15.1 (hard-margin SVM).
.. [2] K. P. Bennett and O. L. Mangasarian. Robust linear programming discrimination of two
   linearly inseparable sets. Optimization Methods and Software 1, 1992 (the hinge LP).
.. [3] V. Feldman, V. Guruswami, P. Raghavendra and Y. Wu. Agnostic learning of monomials by
   halfspaces is hard. FOCS 2009 (why exact 0-1 ERM needs integer programming).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import ClassVar

import numpy as np
import scipy.linalg
from numpy.typing import ArrayLike, NDArray
from sklearn.utils.multiclass import check_classification_targets

from halfspaces._exact import (
    SignedRows,
    decide,
    min_norm_separator,
    proved_separator,
    refuse_subnormal_columns,
    scaled_hinge_lp,
    scores,
    signed_rows,
    unproved_certificate_error,
    zero_one_erm,
)
from halfspaces._sklearn import (
    CLASS_WEIGHT,
    BaseEstimator,
    FloatInterval,
    IntegerInterval,
    LinearClassifierMixin,
    StrOptions,
    fit_context,
)
from halfspaces._utils.blas import one_blas_thread
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
    Items,
    fill_doc,
)
from halfspaces._utils.homogeneous import split_intercept
from halfspaces._utils.memory import check_dense_vectors
from halfspaces._validation import SparseInputMixin, per_problem, row_weights, validate_data
from halfspaces.exceptions import NotSeparableError, SolverError

__all__ = ["LinearProgramClassifier", "MaxMarginClassifier", "ZeroOneERMClassifier"]


@dataclass(frozen=True)
class ERMFit:
    """One binary problem solved: w' = (b, w) (or w) on x', plus solver facts."""

    w: NDArray
    separable: bool | None = None
    margin: float | None = None
    support: NDArray | None = None
    n_errors: int | None = None
    optimal: bool = True
    gap: float = 0.0
    interrupted: bool = False
    error_weight: float | None = None


def _fitted(*extra: Attribute) -> Fitted:
    """The attributes of ``_ERMClassifier.fit`` with a class's `extra` ones (``_set_extra``)."""
    return Fitted("ovr", (
        Attribute("coef_", Array("float64", ("p", "d")),
                  "ndarray of shape (1, n_features) or (n_classes, n_features)",
                  "The weights w of each binary problem (one-vs-rest beyond two classes)."),
        Attribute("intercept_", Array("float64", ("p",)), "ndarray of shape (1,) or (n_classes,)",
                  "The intercepts b."),
        Attribute("classes_", Classes(), "ndarray of shape (n_classes,)",
                  "The labels, sorted; classes_[1] is the positive class of a binary problem."),
        *extra, N_FEATURES_IN, FEATURE_NAMES_IN))


# one flag or number per binary problem (``per_problem``'s form)
_PER_PROBLEM_BOOL = Choice(Bool(), Array("bool", ("p",)))
_PER_PROBLEM_FLOAT = Choice(Float(finite=False), Array("float64", ("p",), finite=False))


class _ERMClassifier(SparseInputMixin, LinearClassifierMixin, BaseEstimator):
    """fit = validate, one exact solve per binary problem, store coef_ and intercept_."""

    _parameter_constraints: ClassVar[dict] = {"fit_intercept": ["boolean"],
                                              "class_weight": CLASS_WEIGHT}

    @fit_context
    def fit(self, X: ArrayLike, y: ArrayLike, sample_weight: ArrayLike | None = None):
        """Solve the ERM problem on (X, y).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Training data.
        y : array-like of shape (n_samples,)
            Labels: any two values (classes_[1] is positive), or more for one-vs-rest.
        sample_weight : array-like of shape (n_samples,) or None, default=None
            Row weights, >= 0, multiplied by ``class_weight``'s (each row has its own
            class's weight in every one-vs-rest problem). A row of weight 0 is removed;
            what the other weights mean is said in the class's description.

        Returns
        -------
        self : object
            The fitted estimator.
        """
        X, y = validate_data(self, X, y, accept_sparse="csr", dtype=np.float64)
        # the program's cost, its two bounds and its solution over the d + 1 weights
        check_dense_vectors(X.shape[1], 4)
        check_classification_targets(y)
        self.classes_, index = np.unique(y, return_inverse=True)
        if self.classes_.size < 2:
            raise ValueError(f"y holds one class {self.classes_!r}; a classifier needs two.")
        rows, weights = _kept(row_weights(sample_weight, self.class_weight, self.classes_, y))
        if rows is not None:
            X, index = X[rows], index[rows]
        positives = [1] if self.classes_.size == 2 else range(self.classes_.size)
        fits = [self._solve(X, np.where(index == k, 1.0, -1.0), weights) for k in positives]
        splits = [split_intercept(f.w, self.fit_intercept) for f in fits]
        self.coef_ = np.vstack([coef for coef, _ in splits])
        self.intercept_ = np.array([b for _, b in splits])
        self._set_extra(fits, rows)
        return self

    def _signed(self, X, y_pm: NDArray):
        return signed_rows(X, y_pm, self.fit_intercept)

    def _set_extra(self, fits: list[ERMFit], rows: NDArray | None) -> None:
        """Estimator-specific fitted attributes (`rows`: the rows kept, None for all)."""


def _kept(weights: NDArray | None) -> tuple[NDArray | None, NDArray | None]:
    """(the rows of positive weight, None where that is every row; their weights)."""
    if weights is None:
        return None, None
    rows = np.flatnonzero(weights > 0)
    return (None if rows.size == weights.size else rows), weights[rows]


def _varying(weights: NDArray | None) -> NDArray | None:
    """The weights a solver needs: None where they are all one value, which changes no
    minimiser (the weighted mean is then the mean), so that unit weights give the
    unweighted program exactly."""
    return None if weights is None or np.all(weights == weights[0]) else weights



# These checks fit random data that are not linearly separable, where a hard-margin or
# separable-only ERM has no answer and raises NotSeparableError by design. With
# on_infeasible="hinge", LinearProgramClassifier passes every check.
_NOT_SEPARABLE_CHECKS: dict = {
    name: "default on_infeasible='raise' refuses the non-separable data of this check"
    for name in (
        "check_fit_score_takes_y",
        "check_dont_overwrite_parameters",
        "check_n_features_in_after_fitting",
        "check_positive_only_tag_during_fit",
        "check_estimators_dtypes",
        "check_dtype_object",
        "check_estimators_nan_inf",
        "check_estimator_sparse_tag",
        "check_estimator_sparse_array",
        "check_estimator_sparse_matrix",
        "check_f_contiguous_array_estimator",
        "check_classifier_data_not_an_array",
        "check_classifiers_train",
        "check_supervised_y_2d",
        "check_methods_sample_order_invariance",
        "check_methods_subset_invariance",
        "check_dict_unchanged",
        "check_fit_idempotent",
        "check_fit_check_is_fitted",
        "check_n_features_in",
        "check_fit2d_predict1d",
        "check_sample_weights_pandas_series",
        "check_sample_weights_not_an_array",
        "check_sample_weights_list",
        "check_class_weight_classifiers",
    )
}


@fill_doc()
class LinearProgramClassifier(_ERMClassifier):
    r"""ERM for separable data by the LP y_i(<w, x_i> + b) >= 1; hinge-loss LP otherwise.

    On separable data any feasible point of the LP is an empirical risk minimiser with zero
    training error (Shalev-Shwartz and Ben-David, Section 9.1.1). On data that are not
    separable the LP is infeasible: the default raises :class:`NotSeparableError` with a
    Gordan certificate (see :func:`halfspaces.theory.separability`); with
    ``on_infeasible="hinge"`` it solves instead

    .. math:: \min_{w, b, s}\ \sum_i s_i \ \text{s.t.}\
              y_i(\langle w, x_i\rangle + b) \ge 1 - s_i,\ s_i \ge 0,

    hinge-loss ERM (Bennett and Mangasarian 1992), on the columns scaled by powers of two to
    ``max |x'_ij|`` in [1, 2) (exact), so that HiGHS's tolerances do not depend on the units of X.

    Weights (``sample_weight`` times ``class_weight``): a row of weight 0 is removed, before
    separability is decided. On separable data the other weights change nothing (every
    feasible point has zero training error, whatever the errors weigh). With
    ``on_infeasible="hinge"`` on data that are not separable they weigh the slacks: the LP
    minimises :math:`\sum_i c_i s_i / \sum_i c_i`, the weighted mean hinge loss, so an
    integer weight k is the row repeated k times.

    Parameters
    ----------
    fit_intercept : bool, default=True
        Learn an affine halfspace.
    on_infeasible : {"raise", "hinge"}, default="raise"
        What to do on data that are not linearly separable.
    class_weight : dict, "balanced" or None, default=None
        Each class's weight (a dict from label to weight; labels it does not name weigh 1),
        multiplying ``sample_weight``; "balanced" is n / (n_classes * count), as in
        scikit-learn.

    Attributes
    ----------
    [fitted_attributes]

    See Also
    --------
    MaxMarginClassifier : the separating hyperplane of largest margin.
    halfspaces.theory.separability : the same LP with its certificate.

    References
    ----------
    Shalev-Shwartz and Ben-David (2014), Section 9.1.1; Bennett and Mangasarian (1992).

    Examples
    --------
    >>> from halfspaces import LinearProgramClassifier
    >>> clf = LinearProgramClassifier().fit([[0.0], [1.0], [3.0], [4.0]], ["a", "a", "b", "b"])
    >>> clf.predict([[0.5], [3.5]]).tolist()
    ['a', 'b']
    """

    _parameter_constraints: ClassVar[dict] = {
        **_ERMClassifier._parameter_constraints,
        "on_infeasible": [StrOptions({"raise", "hinge"})],
    }
    @property
    def _expected_failed_checks(self) -> dict:
        """Checks that fit non-separable data fail by design unless on_infeasible='hinge'."""
        return {} if self.on_infeasible == "hinge" else _NOT_SEPARABLE_CHECKS

    def __init__(self, fit_intercept: bool = True, on_infeasible: str = "raise",
                 class_weight: dict | str | None = None) -> None:
        self.fit_intercept = fit_intercept
        self.on_infeasible = on_infeasible
        self.class_weight = class_weight

    def _solve(self, X, y_pm: NDArray, weights: NDArray | None) -> ERMFit:
        Z = self._signed(X, y_pm)
        found = decide(Z)
        if found.separable:
            return ERMFit(found.separator, separable=True)
        if self.on_infeasible == "raise":
            if not found.exact:
                raise unproved_certificate_error(found.certificate)
            raise NotSeparableError(
                "The data are not linearly separable, so the LP has no solution; "
                "`.certificate` proves it. Pass on_infeasible='hinge' to minimise the hinge "
                "loss instead.", certificate=found.certificate)
        refuse_subnormal_columns(X, "LP")
        return ERMFit(scaled_hinge_lp(Z, _varying(weights)), separable=False)

    _fitted_attributes = _fitted(
        Attribute("separable_", _PER_PROBLEM_BOOL, "bool or ndarray of bool",
                  "Whether each binary problem was separable."))

    def _set_extra(self, fits: list[ERMFit], rows: NDArray | None) -> None:
        self.separable_ = per_problem([f.separable for f in fits])


@fill_doc()
class MaxMarginClassifier(_ERMClassifier):
    r"""The maximum-margin (hard-margin SVM) hyperplane, by its dual or HiGHS's convex QP.

    .. math:: \min_{w, b}\ \tfrac12\lVert w\rVert^2 \ \text{s.t.}\
              y_i(\langle w, x_i\rangle + b) \ge 1

    The intercept is not penalised (Shalev-Shwartz and Ben-David, Section 15.1). On data
    that are not separable it raises :class:`NotSeparableError` with a certificate.

    The dual is solved first by coordinate descent (Hsieh et al. 2008: the linear SVM's
    loop with C = inf, the intercept's constraint kept by the method of multipliers); its
    answer is kept only after the same checks as the QP's (the support re-solved exactly,
    the duality gap closed on every row, the separation proved in floating point). Where
    it cannot be checked, or the rows look inseparable, HiGHS's QP answers.

    Weights (``sample_weight`` times ``class_weight``): a row of weight 0 is removed; other
    weights change nothing, since a hard margin's constraints hold for every row whatever
    it weighs (a soft margin, :class:`halfspaces.LinearSVM`, is where weights act).
    ``support_`` indexes the rows given to ``fit``, removed ones included.

    Parameters
    ----------
    fit_intercept : bool, default=True
        Learn an affine halfspace.
    class_weight : dict, "balanced" or None, default=None
        Each class's weight, multiplying ``sample_weight``: only a weight of 0 matters
        (that class's rows are removed).

    Attributes
    ----------
    [fitted_attributes]

    See Also
    --------
    halfspaces.theory.max_margin : the same QP with the margin on x' as well.

    References
    ----------
    Shalev-Shwartz and Ben-David (2014), Section 15.1.

    Examples
    --------
    >>> from halfspaces import MaxMarginClassifier
    >>> clf = MaxMarginClassifier().fit([[0.0], [1.0], [3.0], [4.0]], [0, 0, 1, 1])
    >>> float(clf.margin_), clf.support_.tolist()
    (1.0, [1, 2])
    """

    _expected_failed_checks: ClassVar[dict] = {
        k: v.replace("default on_infeasible='raise'", "a hard margin")
        for k, v in _NOT_SEPARABLE_CHECKS.items()
    }

    def __init__(self, fit_intercept: bool = True,
                 class_weight: dict | str | None = None) -> None:
        self.fit_intercept = fit_intercept
        self.class_weight = class_weight

    def _solve(self, X, y_pm: NDArray, weights: NDArray | None) -> ERMFit:
        Z = self._signed(X, y_pm)
        Z = SignedRows(Z, features=X if self.fit_intercept else None)
        # products of the rows with one vector: on two busy cores BLAS's second thread
        # made each 30 times slower (MNIST 0 vs 1), and its spinning slowed the loops
        with one_blas_thread():
            return self._max_margin(Z)

    def _max_margin(self, Z) -> ERMFit:
        w = proved_separator(Z, min_norm_separator(Z, free_first=self.fit_intercept))
        if w is None:
            raise SolverError("the hard-margin QP's hyperplane does not separate the data in "
                              "floating point; rescale X.")
        coef, _ = split_intercept(w, self.fit_intercept)
        m = scores(Z.Z, w)
        norm = float(scipy.linalg.norm(coef))  # BLAS nrm2: w.w overflowed at |w| ~ 1e155
        return ERMFit(w, margin=float(m.min() / norm) if norm > 0 else np.inf,
                      support=np.flatnonzero(m <= m.min() * (1.0 + 1e-6)))

    _fitted_attributes = _fitted(
        Attribute("margin_", _PER_PROBLEM_FLOAT, "float or ndarray",
                  "The geometric margin min_i y_i(<w, x_i> + b) / ||w|| of each binary problem."),
        Attribute("support_", Choice(Array("int64", ("m",), low=0),
                                     Items(list, "p", Array("int64", ("m#",), low=0))),
                  "ndarray of int, or list of them",
                  "Indices of the training examples at the margin."),
    ).replacing(Attribute("coef_", Array("float64", ("p", "d")),
                          "ndarray of shape (1, n_features) or (n_classes, n_features)",
                          "Scaled so that min_i y_i(<w, x_i> + b) = 1."))

    def _set_extra(self, fits: list[ERMFit], rows: NDArray | None) -> None:
        self.margin_ = per_problem([f.margin for f in fits])
        support = [f.support if rows is None else rows[f.support] for f in fits]
        self.support_ = support[0] if len(fits) == 1 else support


@fill_doc()
class ZeroOneERMClassifier(_ERMClassifier):
    r"""Exact minimisation of the number of training errors, by mixed-integer programming.

    With w' = (b, w) normalised to ||w'||_inf <= 1 and one binary z_i per example:

    .. math:: \min \sum_i z_i \ \text{s.t.}\ y_i\langle w', x'_i\rangle \ge \tau - M_i z_i,
              \quad M_i = \tau + \lVert x'_i\rVert_1,\quad -1 \le w'_j \le 1,

    where z_i = 0 forces example i to the right side with margin tau = ``margin_tol`` (in the
    inf-norm normalisation) and M_i is big enough to switch the constraint off. A point counts
    as correct only with that margin, so a separation whose normalised margin is below
    ``margin_tol`` is not seen. The solver's choice of correct points is then re-solved
    exactly by the separability LP, and ``n_errors_`` is recounted on the final hyperplane.
    0-1 ERM for halfspaces is NP-hard in general (Feldman et al. 2009): the time grows
    exponentially with the sample in the worst case, hence ``time_limit`` and ``node_limit``.
    The MILP is solved on the columns of x' scaled by powers of two to ``max |x'_ij|`` in [1, 2),
    so its margin and box do not depend on the units of X.

    Weights (``sample_weight`` times ``class_weight``) make the objective the weighted 0-1
    error :math:`\sum_i c_i z_i`, still solved exactly (to HiGHS's absolute gap of 1e-6 of
    the mean weight; integer weights exactly): an integer weight k is the row repeated k
    times, a weight of 0 removes the row. ``weighted_errors_`` reports the weight of the
    errors; ``n_errors_`` counts them (over the rows of positive weight).

    Parameters
    ----------
    fit_intercept : bool, default=True
        Learn an affine halfspace.
    time_limit : float or None, default=None
        Seconds for HiGHS per binary problem; the best hyperplane found so far is kept and
        ``optimal_`` says whether optimality was proved.
    margin_tol : float, default=1e-5
        The margin tau a correctly classified point must have when ||w'||_inf = 1, on the
        scaled columns.
    node_limit : int or None, default=None
        Branch-and-bound nodes for HiGHS per binary problem (its ``mip_max_nodes``): a
        budget that, unlike ``time_limit``, gives the same answer on any machine and under
        any load. ``optimal_`` says whether optimality was proved within it.
    class_weight : dict, "balanced" or None, default=None
        Each class's weight (a dict from label to weight; labels it does not name weigh 1),
        multiplying ``sample_weight``; "balanced" is n / (n_classes * count), as in
        scikit-learn.

    Attributes
    ----------
    [fitted_attributes]

    References
    ----------
    Feldman, Guruswami, Raghavendra and Wu (2009).

    Examples
    --------
    >>> import numpy as np
    >>> from halfspaces.erm import ZeroOneERMClassifier
    >>> X = np.array([[0.0], [1.0], [2.0], [3.0], [1.5]])
    >>> clf = ZeroOneERMClassifier().fit(X, [0, 0, 1, 1, 0])
    >>> int(clf.n_errors_), bool(clf.optimal_)
    (0, True)
    """

    _expected_failed_checks: ClassVar[dict] = {
        "check_class_weight_classifiers": "one-vs-rest picks the largest score, and a 0-1 "
        "minimiser's score carries no confidence: heavy class 0 need not win the argmax"}

    _parameter_constraints: ClassVar[dict] = {
        **_ERMClassifier._parameter_constraints,
        "time_limit": [FloatInterval(0, None, closed="neither"), None],
        "margin_tol": [FloatInterval(0, 1, closed="neither")],
        "node_limit": [IntegerInterval(1, None, closed="left"), None],
    }

    def __init__(self, fit_intercept: bool = True, time_limit: float | None = None,
                 margin_tol: float = 1e-5, node_limit: int | None = None,
                 class_weight: dict | str | None = None) -> None:
        self.fit_intercept = fit_intercept
        self.time_limit = time_limit
        self.margin_tol = margin_tol
        self.node_limit = node_limit
        self.class_weight = class_weight

    def fit(self, X: ArrayLike, y: ArrayLike, sample_weight: ArrayLike | None = None):
        """Minimise the training errors on (X, y) (one MILP per binary problem).

        On Ctrl-C HiGHS stops and the best hyperplane found so far is kept, as at
        ``time_limit``: ``optimal_`` False, ``gap_`` HiGHS's, and a warning says so; the
        binary problems left (one-vs-rest) keep their first incumbent without a search.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
        sample_weight : array-like of shape (n_samples,) or None, default=None
            Row weights, >= 0 (times ``class_weight``'s): the weight of each error.

        Returns
        -------
        self : ZeroOneERMClassifier
        """
        # the state of this fit only: a fitted model (and its file) holds none of it
        self._interrupted = False
        try:
            super().fit(X, y, sample_weight)
            interrupted = self._interrupted
        finally:
            del self._interrupted
        if interrupted:
            warnings.warn(
                "interrupted: HiGHS was stopped and the best hyperplane found so far is "
                f"kept, with {np.asarray(self.n_errors_).tolist()} training errors; it is not "
                f"proved optimal (MIP gap {_gap_text(self.gap_)}).", UserWarning,
                stacklevel=2)
        return self

    def _solve(self, X, y_pm: NDArray, weights: NDArray | None) -> ERMFit:
        refuse_subnormal_columns(X, "MILP")
        fit = zero_one_erm(self._signed(X, y_pm), self.margin_tol, self.time_limit,
                           self.node_limit, weights=_varying(weights),
                           stop_at_once=getattr(self, "_interrupted", False))
        if fit.interrupted:
            self._interrupted = True
        # one weight for every row (or none): the errors weigh that much each
        weight = (fit.error_weight if _varying(weights) is not None
                  else fit.n_errors * (1.0 if weights is None else float(weights[0])))
        return ERMFit(fit.w, n_errors=fit.n_errors, optimal=fit.optimal, gap=fit.gap,
                      interrupted=fit.interrupted, error_weight=weight)

    _fitted_attributes = _fitted(
        Attribute("n_errors_", PER_PROBLEM_COUNT, "int or ndarray",
                  "Training errors y_i(<w, x_i> + b) <= 0 of the returned hyperplane, recounted "
                  "(on the rows of positive weight)."),
        Attribute("optimal_", _PER_PROBLEM_BOOL, "bool or ndarray of bool", """
            Whether HiGHS proved the optimum (False when stopped at ``time_limit`` or
            ``node_limit``)."""),
        Attribute("gap_", _PER_PROBLEM_FLOAT, "float or ndarray",
                  "HiGHS's relative MIP gap at the end (0 when optimal)."),
        Attribute("weighted_errors_", _PER_PROBLEM_FLOAT, "float or ndarray", """
            The weight of those errors (sample_weight times class_weight), the objective
            minimised; ``n_errors_`` without weights.""", optional=True))

    def _set_extra(self, fits: list[ERMFit], rows: NDArray | None) -> None:
        self.n_errors_ = per_problem([f.n_errors for f in fits])
        self.weighted_errors_ = per_problem([f.error_weight for f in fits])
        self.optimal_ = per_problem([f.optimal for f in fits])
        self.gap_ = per_problem([f.gap for f in fits])


def _gap_text(gap) -> str:
    """The largest gap of the binary problems, in words."""
    largest = float(np.max(gap))
    return f"{largest:.1%}" if np.isfinite(largest) else "unknown"
