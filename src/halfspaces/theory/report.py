"""What theory guarantees about a fitted linear classifier on its data: :func:`certify`.

The report (:class:`CertifyReport`) holds, among other facts, the *certificate* of
non-separability when there is one: Gordan's vector a, the only thing called a certificate
in this library.

References
----------
.. [1] A. B. J. Novikoff. On convergence proofs on perceptrons, 1962.
.. [2] Y. Freund and R. E. Schapire. Large margin classification using the perceptron
   algorithm. Machine Learning 37(3), 1999.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
import scipy.linalg
from numpy.typing import ArrayLike, NDArray
from sklearn.base import is_regressor
from sklearn.utils.validation import check_is_fitted

from halfspaces._exact import SignedRows, signed_rows
from halfspaces.theory._checks import check_X
from halfspaces.theory.bounds import (
    best_freund_schapire_bound,
    hinge_deficit,
    mistake_bound,
    perceptron_mistake_bound,
)
from halfspaces.theory.data_report import optional
from halfspaces.theory.margins import radius
from halfspaces.theory.separability import separability_of_rows

__all__ = ["CertifyReport", "certify"]


@dataclass(frozen=True)
class CertifyReport:
    """What holds for a fitted linear classifier on (X, y); see :func:`certify`.

    Attributes
    ----------
    estimator : str
        The classifier's class name.
    n_samples, n_features : int
    fit_intercept : bool
    training_error : float
        Fraction of (X, y) the classifier gets wrong.
    model_margin : float
        min_i y_i(<w, x_i> + b) / ||w|| of the classifier's hyperplane (negative when it errs;
        nan when w = 0).
    radius : float
        R = max ||x'_i|| on the data the perceptron runs on.
    separable : bool or None
        None when separability cannot be decided in float64 (HiGHS's answer fails its
        check both ways; ``notes`` says why): the report then gives the Freund-Schapire
        bound, which holds on any data.
    gamma : float or None
        When separable, the margin gamma' = 1/B on x' (see :func:`max_margin`); nan when
        the hard-margin QP behind it cannot be solved.
    bound_name : str
        "Novikoff" when separable, else "Freund-Schapire".
    mistake_bound : float
        (R/gamma')^2, or the best Freund-Schapire bound found; nan when the solver behind
        it cannot answer (``notes`` says why).
    n_updates : int or None
        The perceptron family's updates (mistakes) in its last fit.
    within_bound : bool or None
        Whether n_updates respects the bound (None when it does not apply).
    certificate : ndarray or None
        When not separable, Gordan's a >= 0, sum(a) = 1, sum_i a_i y_i x'_i = 0.
    certificate_exact : bool
        Whether that certificate was proved in exact rational arithmetic (see
        :class:`~halfspaces.theory.Separability`); False when separable.
    notes : tuple of str
        One line per fact the report could not compute: ``"FIELD not computed:
        SolverError: ..."`` (a :class:`~halfspaces.exceptions.SolverError` of the solver
        behind that field; the field is None or nan).
    """

    estimator: str
    n_samples: int
    n_features: int
    fit_intercept: bool
    training_error: float
    model_margin: float
    radius: float
    separable: bool | None
    gamma: float | None
    bound_name: str
    mistake_bound: float
    n_updates: int | None
    within_bound: bool | None
    certificate: NDArray | None
    certificate_exact: bool = False
    notes: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        """Plain Python values (the certificate and ``notes`` as lists), ready for JSON.

        Returns
        -------
        dict
            Every field by name.
        """
        out = asdict(self)
        if self.certificate is not None:
            out["certificate"] = self.certificate.tolist()
        out["notes"] = list(self.notes)
        return out

    def _rows(self) -> list[tuple[str, str]]:
        rows = [("estimator", self.estimator), ("samples x features",
                f"{self.n_samples} x {self.n_features}"),
                ("training error", f"{self.training_error:.4%}"),
                ("model margin", _number(self.model_margin, "undefined (w = 0)")),
                ("radius R", _number(self.radius)),
                ("separable", self._separable_text())]
        if self.gamma is not None:
            rows.append(("margin gamma' (on x')", _number(self.gamma, self._nan_word)))
        rows.append((f"{self.bound_name} mistake bound",
                     _number(self.mistake_bound, self._nan_word)))
        if self.n_updates is not None:
            verdict = {True: "within bound", False: "EXCEEDS bound", None: "bound n/a"}
            rows.append(("perceptron updates", f"{self.n_updates} ({verdict[self.within_bound]})"))
        return rows + [("note", note) for note in self.notes]

    def _separable_text(self) -> str:
        if self.separable is None:
            return "not decided (see the notes)"
        if self.separable:
            return "yes"
        return "no (Gordan certificate " + ("proved exactly)" if self.certificate_exact
                                            else "checked in floating point)")

    @property
    def _nan_word(self) -> str:
        # a bound is nan only when its solver failed, which the notes then say
        return "not computed (see the notes)" if self.notes else "undefined"

    def __str__(self) -> str:
        width = max(len(k) for k, _ in self._rows())
        return "\n".join(f"{k:<{width}}  {v}" for k, v in self._rows())

    def __rich__(self):
        from rich.table import Table

        table = Table(title="halfspaces certify", show_header=False)
        table.add_column(style="bold")
        table.add_column()
        for key, value in self._rows():
            table.add_row(key, value)
        return table


def _number(value: float, undefined: str = "undefined") -> str:
    """value to 6 significant digits for people: a word for nan, and 0 rather than -0."""
    if math.isnan(value):
        return undefined
    return f"{value + 0.0:.6g}"  # -0.0 + 0.0 is +0.0


def _binary_signs(estimator, y: ArrayLike) -> NDArray:
    classes = estimator.classes_
    if len(classes) != 2:
        raise ValueError(f"certify handles binary classifiers; {type(estimator).__name__} has "
                         f"{len(classes)} classes. Certify each one-vs-rest problem instead.")
    y = np.asarray(y).ravel()
    unknown = ~np.isin(y, classes)
    if unknown.any():
        raise ValueError(f"y holds labels {np.unique(y[unknown]).tolist()} not in classes_ "
                         f"{np.asarray(classes).tolist()}.")
    return np.where(y == classes[1], 1.0, -1.0)


def _model_margin(X, y_pm: NDArray, estimator) -> float:
    w = np.asarray(estimator.coef_, dtype=np.float64).ravel()
    norm = float(scipy.linalg.norm(w))  # BLAS nrm2: no overflow of w.w
    if norm == 0:
        return math.nan
    scores = np.asarray(estimator.decision_function(X), dtype=np.float64).ravel()
    return float(np.min(y_pm * scores) / norm)


def certify(estimator, X: ArrayLike, y: ArrayLike) -> CertifyReport:
    r"""Certify a fitted binary linear classifier of the library on (X, y).

    Reports the training error and the classifier's own margin, R, and either
    separability with the optimal margin gamma' on x' and Novikoff's bound

    .. math:: M \le (R / \gamma')^2

    or a checked Gordan certificate of non-separability with the best Freund-Schapire bound
    found. For the perceptron family (estimators with ``n_updates_``) it says whether the
    number of updates respects the bound: Novikoff's holds for every order and number of
    passes; for non-separable data, E full passes in cyclic or shuffled order are one
    sequence with hinge deficit sqrt(E) D, so the bound ((R + sqrt(E) D)/gamma)^2 applies
    (with selection="worst" or a warm start there is no such bound). A perceptron fitted
    with weights (``sample_weight``, ``class_weight``) updates by s_i y_i x'_i: its
    updates are compared with the weighted form of Novikoff's bound, (s_max / s_min) times
    it (:func:`~halfspaces.theory.perceptron_mistake_bound`), and Freund and Schapire's
    bound, a theorem about unit steps, is reported as not applying to the run.

    A fact whose solver cannot answer in float64 (a
    :class:`~halfspaces.exceptions.SolverError` of HiGHS's LP or QP, e.g. on columns whose
    scales span more than float64 holds) does not end the report: the bound (and gamma') is
    nan, ``within_bound`` None and ``notes`` says why. When separability itself cannot be
    decided, ``separable`` is None and the bound is Freund-Schapire's, valid on any data.
    Other errors (bad input, bugs) are raised.

    Parameters
    ----------
    estimator : fitted classifier
        A binary linear classifier with ``coef_``, ``intercept_``, ``classes_``: any of the
        library's but :class:`~halfspaces.LinearRegression` (a regressor: no classes, so
        no mistakes or margins) and the kernel perceptrons (their hyperplane lives in the
        kernel's feature space, which they never build), or one from elsewhere.
    X : {array-like, sparse matrix} of shape (n_samples, n_features)
        The data, usually the training data.
    y : array-like of shape (n_samples,)
        Its labels, among ``estimator.classes_``.

    Returns
    -------
    report : CertifyReport
        With a readable ``str()``, a Rich table (``rich.print(report)``) and ``to_dict()``;
        ``report.certificate`` is the Gordan certificate when the data are not separable.

    Raises
    ------
    TypeError
        For a regressor or a kernel classifier without ``coef_`` (the message says what
        applies instead).
    sklearn.exceptions.NotFittedError
        For an unfitted linear classifier.
    ValueError
        For more than two classes, or labels not in ``classes_``.

    Examples
    --------
    >>> from halfspaces import Perceptron
    >>> from halfspaces.theory import certify
    >>> X, y = [[0.0], [1.0], [3.0], [4.0]], [0, 0, 1, 1]
    >>> report = certify(Perceptron().fit(X, y), X, y)
    >>> report.separable, report.within_bound, report.training_error
    (True, True, 0.0)
    """
    _check_supported(estimator)
    check_is_fitted(estimator, ["coef_", "classes_"])
    X = check_X(X)
    y_pm = _binary_signs(estimator, y)
    fit_intercept = bool(getattr(estimator, "fit_intercept", True))
    R = radius(X, fit_intercept)
    # theory's answer, not the LP's: a float certificate it cannot prove is no answer
    found, notes = optional("separable", lambda: separability_of_rows(
        SignedRows(signed_rows(X, y_pm, fit_intercept)), fit_intercept))
    n_updates = getattr(estimator, "n_updates_", None)
    n_updates = int(n_updates) if n_updates is not None and np.isscalar(n_updates) else None
    separable = found is not None and found.separable
    bound, applies, name, more = _bound(X, y_pm, fit_intercept, R, estimator, separable)
    gamma = R / math.sqrt(bound) if separable else None
    within = n_updates <= bound if applies and n_updates is not None else None
    pred = np.asarray(estimator.predict(X))
    return CertifyReport(
        type(estimator).__name__, X.shape[0], X.shape[1], fit_intercept,
        float(np.mean(np.where(pred == estimator.classes_[1], 1.0, -1.0) != y_pm)),
        _model_margin(X, y_pm, estimator), R, None if found is None else found.separable,
        gamma, name, bound, n_updates, within, None if found is None else found.certificate,
        found is not None and found.exact, notes + more,
    )


def _check_supported(estimator) -> None:
    """Refuse, saying what applies instead, the estimators certify has nothing to say about
    (they were told "not fitted yet", fitted as they were)."""
    name = type(estimator).__name__
    if hasattr(estimator, "__sklearn_tags__") and is_regressor(estimator):
        raise TypeError(
            f"certify reports on a binary classifier (its training mistakes, its margin and a "
            f"mistake bound); {name} is a regressor: it has no classes, so no mistakes or "
            "margins to certify. Measure it with its score (R^2); for what theory says about "
            "the data, label them with two classes and call halfspaces.theory.data_report.")
    kernel = estimator.get_params().get("kernel") if hasattr(estimator, "get_params") else None
    if kernel is not None and not hasattr(estimator, "coef_"):
        raise TypeError(
            f"certify reports on a hyperplane in the space of X (coef_ and intercept_): its "
            f"margin, and the separability and mistake bound of x' = (1, x). A {name}'s "
            f"hyperplane lives in the feature space of its kernel ({kernel!r}), which it "
            "never builds, so there is none to certify. What applies: "
            "halfspaces.theory.data_report(X, y) for the data as they are, or certify a "
            "linear classifier (Perceptron, say) fitted on X or on explicit features (e.g. "
            "scikit-learn's PolynomialFeatures for a polynomial kernel).")


def _bound(X, y_pm, fit_intercept, R, estimator, separable: bool):
    """(bound, whether it applies to the run, its name, notes): Novikoff's on separable
    data, else (inseparable or undecided) the best Freund-Schapire bound, valid on any data;
    nan with a note when its solver cannot answer."""
    ratio = _weight_ratio(estimator)
    if separable:
        novikoff, notes = optional("gamma, mistake_bound",
                                    lambda: perceptron_mistake_bound(X, y_pm, fit_intercept))
        run = None if novikoff is None else (novikoff, True, "Novikoff")
        if run is not None and ratio != 1.0:  # the weighted form (perceptron_mistake_bound)
            run = (math.nextafter(math.nextafter(novikoff * ratio, math.inf), math.inf), True,
                   f"Novikoff (weighted: s_max/s_min = {ratio:.6g})")
    elif ratio != 1.0:  # Freund and Schapire's theorem is for unit steps
        run, notes = optional("mistake_bound", lambda: (
            best_freund_schapire_bound(X, y_pm, fit_intercept).bound, False,
            "Freund-Schapire (unweighted; n/a to this weighted run)"))
    else:
        run, notes = optional("mistake_bound",
                               lambda: _fs_for_run(X, y_pm, fit_intercept, R, estimator))
    return (*(run or (math.nan, False, "Novikoff" if separable else "Freund-Schapire")),
            notes)


def _weight_ratio(estimator) -> float:
    """s_max / s_min of the positive row weights the estimator's runs used (1 unweighted).

    Novikoff's bound on the weighted perceptron's updates s_i y_i x'_i is that many times
    the unweighted one (:func:`~halfspaces.theory.perceptron_mistake_bound`); over all
    rows, R' is no smaller and gamma' no larger than over the rows of positive weight, so
    the bound on all rows still holds.
    """
    low, high = getattr(estimator, "_weight_range", (1.0, 1.0))
    return float(high) / float(low)


def _passes(estimator, n_samples: int) -> int | None:
    """The passes over the n samples that ``n_updates_`` counts the mistakes of.

    ``n_updates_`` adds up over ``partial_fit`` calls and warm starts, ``n_epochs_`` counts
    the last call's passes only (30 one-pass ``partial_fit`` calls made 119 mistakes against
    a one-pass bound of 4, where the 30-pass bound is 120); ``n_steps_`` counts the examples
    predicted over the same calls, ceil(n_steps_ / n) whole passes over X.
    """
    steps = getattr(estimator, "n_steps_", None)
    if steps is not None:
        return max(1, math.ceil(int(np.max(steps)) / n_samples))
    epochs = getattr(estimator, "n_epochs_", None)
    return None if epochs is None else int(epochs)


def _fs_for_run(X, y_pm, fit_intercept, R, estimator) -> tuple[float, bool, str]:
    """The best Freund-Schapire bound, stretched to the estimator's passes over the data."""
    bound, u, gamma = best_freund_schapire_bound(X, y_pm, fit_intercept)
    epochs = _passes(estimator, X.shape[0])
    if epochs is None or getattr(estimator, "n_updates_", None) is None:
        return bound, False, "Freund-Schapire"
    if getattr(estimator, "selection", "cyclic") == "worst" or (
            getattr(estimator, "warm_start", False)
            and getattr(estimator, "n_steps_", None) is None):
        return bound, False, "Freund-Schapire (one pass; n/a to this run)"
    Z = signed_rows(X, y_pm, fit_intercept)
    D = hinge_deficit(Z, u, gamma)
    return (mistake_bound(R, math.sqrt(epochs) * D, gamma, *Z.shape), True,
            f"Freund-Schapire ({epochs} passes)")
