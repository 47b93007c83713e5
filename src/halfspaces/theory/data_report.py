"""What learning theory says about a labelled data set: :func:`data_report`.

Separability with its proof (a separating hyperplane, or Gordan's certificate that none
exists), the maximum margin, the radius R, the perceptron's mistake bound, the VC dimension
and a sample-complexity table, in one frozen :class:`DataReport`. A report on a *fitted
model* is :func:`halfspaces.theory.certify`.

The report is assembled by :func:`assemble_data_report` from a :class:`ReportSteps`, the
primitives bound to one data set: :func:`data_report` binds the serial ones of
:mod:`halfspaces.theory`, :func:`halfspaces.dask.data_report` those that run on a Dask
cluster, so both reports have the same fields, notes and rules.

References
----------
.. [1] A. B. J. Novikoff. On convergence proofs on perceptrons, 1962.
.. [2] Y. Freund and R. E. Schapire. Large margin classification using the perceptron
   algorithm. Machine Learning 37(3), 1999.
.. [3] S. Shalev-Shwartz and S. Ben-David. Understanding Machine Learning, 2014. Theorem
   9.1 (Novikoff), theorem 6.8 (sample complexity) and section 9.1.3 (the VC dimension of
   halfspaces).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Sequence
from fractions import Fraction
from typing import Any, TypeVar

import numpy as np
import scipy.linalg
from numpy.typing import ArrayLike, NDArray

from halfspaces._exact import rational_certificate, signed_rows
from halfspaces.exceptions import SolverError
from halfspaces.theory._checks import labelled_sample
from halfspaces.theory.bounds import (
    best_freund_schapire_bound,
    perceptron_mistake_bound,
    sample_complexity,
)
from halfspaces.theory.margins import radius
from halfspaces.theory.separability import MaxMargin, Separability, max_margin, separability
from halfspaces.theory.vc import vc_dimension

__all__ = ["DELTAS", "EPSILONS", "FREUND_SCHAPIRE", "NOVIKOFF", "DataReport", "ReportSteps",
           "assemble_data_report", "data_report", "optional"]

EPSILONS = (0.1, 0.05, 0.01)
"""The accuracies epsilon of the sample-complexity table."""

DELTAS = (0.05, 0.01)
"""The confidences delta of the sample-complexity table."""

NOVIKOFF = "Novikoff (R'/gamma')^2"
"""``mistake_bound_kind`` of separable data."""

FREUND_SCHAPIRE = "Freund-Schapire ((R + D)/gamma)^2, best found"
"""``mistake_bound_kind`` of data that are not separable, or not known to be."""

_MARGIN_FIELDS = ("margin", "norm_bound")
_CERTIFICATE_FIELDS = ("certificate_support", "certificate_residual", "certificate_exact")
_SEPARATOR_FIELDS = ("coef", "intercept")
_NOT_SHOWN = " not shown: "

T = TypeVar("T")


@dataclasses.dataclass(frozen=True)
class DataReport:
    """What :func:`data_report` found about a two-class data set; field order is the display
    order.

    A field whose solver cannot answer in float64 (a
    :class:`~halfspaces.exceptions.SolverError`) is None and ``notes`` says why; so is a
    float beyond float64 (inf) or undefined in it (nan): the report never aborts for an
    optional field, and :meth:`as_dict` is valid JSON.

    Attributes
    ----------
    n_samples, n_features : int
        The size of the data.
    fit_intercept : bool
        Whether the report is about affine halfspaces (on x' = (1, x)) or homogeneous ones.
    separable : bool or None
        Whether some hyperplane separates the two classes; None when HiGHS's answer fails
        its check both ways (``notes`` says why): the report then gives what holds on any
        data.
    radius : float or None
        R' = max ||x'_i|| on the data the perceptron runs on.
    margin, norm_bound : float or None
        For separable data: the maximum margin on x and B = 1 / gamma' on x' (see
        :class:`~halfspaces.theory.MaxMargin`).
    coef, intercept : tuple of float, float, or None
        For separable data: the separating hyperplane that :func:`separability` found, w
        and b, with y_i(<w, x_i> + b) > 0 for every example in exact arithmetic on the
        floats given (b is 0.0 without ``fit_intercept``): the proof that the data are
        separable, for anyone to check.
    certificate_support : int or None
        For inseparable data: the number of examples with positive Gordan weight.
    certificate_residual : float or None
        ||sum_i a_i y_i x'_i|| in floating point (~0).
    certificate_exact : bool or None
        Whether that sum is proved exactly 0 in rational arithmetic.
    certificate : tuple of Fraction or float, or None
        For inseparable data: Gordan's weights a_i >= 0, one per example, with sum(a) = 1
        and sum_i a_i y_i x'_i = 0: the proof that no hyperplane separates the data. Exact
        fractions when ``certificate_exact`` (recovered from the proof), floats otherwise.
    mistake_bound : float or None
        Novikoff's (R'/gamma')^2 for separable data, otherwise the best Freund-Schapire
        bound found (valid on any data).
    mistake_bound_kind : str
        :data:`NOVIKOFF` or :data:`FREUND_SCHAPIRE`.
    vc_dimension : int
        Of the halfspaces the report is about: n_features (+ 1 with an intercept).
    sample_complexity : tuple of (epsilon, delta, samples)
        :func:`~halfspaces.theory.sample_complexity` for each of :data:`EPSILONS` and
        :data:`DELTAS`: the realizable bound when the data are separable, the agnostic one
        otherwise (it holds on any data).
    notes : tuple of str
        ``"FIELDS not computed: SolverError: ..."`` for each solver that failed, then
        ``"FIELD not shown: inf, beyond float64"`` (or ``nan, undefined in float64``) for
        each float that left float64.
    """

    n_samples: int
    n_features: int
    fit_intercept: bool
    separable: bool | None
    radius: float | None
    margin: float | None = None
    norm_bound: float | None = None
    coef: tuple[float, ...] | None = None
    intercept: float | None = None
    certificate_support: int | None = None
    certificate_residual: float | None = None
    certificate_exact: bool | None = None
    certificate: tuple[Fraction | float, ...] | None = None
    mistake_bound: float | None = None
    mistake_bound_kind: str = FREUND_SCHAPIRE
    vc_dimension: int = 0
    sample_complexity: tuple[tuple[float, float, int], ...] = ()
    notes: tuple[str, ...] = ()

    def as_dict(self) -> dict[str, Any]:
        """The report as plain JSON data, with only the fields that apply to the verdict.

        Returns
        -------
        dict
            The fields in display order, without the certificate fields for separable
            data, the margin fields for inseparable data, or either when separability is
            not decided; ``sample_complexity`` and ``notes`` as lists; ``coef`` as a list
            of floats (JSON's numbers give them back exactly); ``certificate`` as a list
            of strings, exact fractions such as ``"1/3"`` (``"0"`` off its support), each
            read back exactly by :class:`fractions.Fraction`.
        """
        record = dataclasses.asdict(self)
        separable = _MARGIN_FIELDS + _SEPARATOR_FIELDS
        inseparable = (*_CERTIFICATE_FIELDS, "certificate")
        unused = {True: inseparable, False: separable,
                  None: separable + inseparable}[self.separable]
        for key in unused:
            del record[key]
        if "coef" in record and self.coef is not None:
            record["coef"] = list(self.coef)
        if "certificate" in record and self.certificate is not None:
            record["certificate"] = [_exact_text(q) for q in self.certificate]
        record["sample_complexity"] = [list(row) for row in self.sample_complexity]
        record["notes"] = list(self.notes)
        return record


@dataclasses.dataclass(frozen=True)
class ReportSteps:
    """The primitives a :class:`DataReport` is assembled from, bound to one data set.

    Each callable computes one fact of the data wherever they are held (in memory, in
    partitions on a cluster). A :class:`~halfspaces.exceptions.SolverError` from one of
    them leaves its fields empty with a note; any other exception is raised.

    Attributes
    ----------
    n_samples, n_features : int
    fit_intercept : bool
    separability : callable () -> Separability
    radius : callable () -> float
    max_margin : callable () -> MaxMargin
    novikoff : callable (MaxMargin) -> float
        Novikoff's bound; it is given the maximum margin found (which it may ignore).
    residual : callable (ndarray) -> float
        ||sum_i a_i z_i|| of a Gordan certificate a on the signed rows z_i = y_i x'_i.
    freund_schapire : callable () -> float
        The best Freund-Schapire bound found.
    rational_certificate : callable (ndarray) -> list of Fraction or None, default=None
        The exact weights of a proved Gordan certificate given rounded to floats
        (:func:`halfspaces._exact.rational_certificate` on the signed rows); None, or an
        answer of None, reports the floats.
    novikoff_from_margin : bool, default=False
        Whether ``novikoff`` derives the bound from the maximum margin alone, so that both
        share one note when the margin cannot be computed; otherwise it is computed (and
        noted) on its own.
    """

    n_samples: int
    n_features: int
    fit_intercept: bool
    separability: Callable[[], Separability]
    radius: Callable[[], float]
    max_margin: Callable[[], MaxMargin]
    novikoff: Callable[[MaxMargin | None], float]
    residual: Callable[[NDArray], float]
    freund_schapire: Callable[[], float]
    novikoff_from_margin: bool = False
    rational_certificate: Callable[[NDArray], Sequence[Fraction] | None] | None = None


def data_report(X: ArrayLike, y: ArrayLike, fit_intercept: bool = True) -> DataReport:
    """What learning theory says about the two-class data set (X, y).

    Separability decided with a proof either way (:func:`separability`); for separable data
    the maximum margin (:func:`max_margin`) and Novikoff's mistake bound
    (:func:`perceptron_mistake_bound`),

    .. math:: M \\le \\left(\\frac{R'}{\\gamma'}\\right)^2;

    for inseparable data Gordan's certificate (its support, its residual, whether it is
    proved exactly) and the best Freund-Schapire bound (:func:`best_freund_schapire_bound`),
    which holds on any data; always the radius R' (:func:`radius`), the VC dimension
    (:func:`vc_dimension`) and the sample complexity (:func:`sample_complexity`) for
    :data:`EPSILONS` x :data:`DELTAS`.

    Parameters
    ----------
    X : {array-like, sparse matrix} of shape (n_samples, n_features)
        The examples.
    y : array-like of shape (n_samples,)
        Two labels: {-1, +1}, or any two values (the larger one is +1).
    fit_intercept : bool, default=True
        Affine halfspaces (the theorems on x' = (1, x)) rather than homogeneous ones.

    Returns
    -------
    DataReport
        A field whose solver cannot answer in float64 is None, and ``notes`` says why.

    Raises
    ------
    ValueError
        When y does not hold exactly two classes, or X is not a finite numeric matrix.

    See Also
    --------
    halfspaces.dask.data_report : The same report of data on a Dask cluster.
    certify : The report on a fitted model.

    Examples
    --------
    >>> from halfspaces.theory import data_report
    >>> report = data_report([[0.0], [1.0], [3.0], [4.0]], [0, 0, 1, 1])
    >>> report.separable, report.margin, report.vc_dimension
    (True, 1.0, 2)
    >>> data_report([[0, 0], [1, 1], [0, 1], [1, 0]], [1, 1, 0, 0]).certificate_exact
    True
    """
    X, labels = labelled_sample(X, y)
    classes = np.unique(np.asarray(y))
    if classes.size != 2:
        raise ValueError(f"y: data_report needs exactly two classes, found {classes.size}.")
    intercept = bool(fit_intercept)

    def signed() -> Any:
        return signed_rows(X, labels, intercept)

    def residual(a: NDArray) -> float:
        Z = signed()
        # BLAS nrm2 (scipy), not NumPy's sqrt(x.x): residuals of 1e185 (entries 1e200)
        # squared to inf, and the JSON record was refused
        return float(scipy.linalg.norm(np.asarray(Z.T @ a).ravel()))

    return assemble_data_report(ReportSteps(
        n_samples=int(X.shape[0]), n_features=int(X.shape[1]), fit_intercept=intercept,
        separability=lambda: separability(X, y, fit_intercept=intercept),
        radius=lambda: radius(X, fit_intercept=intercept),
        max_margin=lambda: max_margin(X, y, fit_intercept=intercept),
        novikoff=lambda best: perceptron_mistake_bound(X, y, fit_intercept=intercept),
        residual=residual,
        freund_schapire=lambda: best_freund_schapire_bound(
            X, y, fit_intercept=intercept).bound,
        rational_certificate=lambda a: rational_certificate(signed(), a)))


def assemble_data_report(steps: ReportSteps) -> DataReport:
    """The :class:`DataReport` of the data set `steps` is bound to.

    The one assembly of the report: which facts are computed for which verdict, which
    failures become notes, and the fields that leave float64. :func:`data_report` and
    :func:`halfspaces.dask.data_report` differ only in the `steps` they pass.

    Parameters
    ----------
    steps : ReportSteps

    Returns
    -------
    DataReport
    """
    found, notes = optional("separable", steps.separability)
    fields: dict[str, Any] = {
        "separable": None if found is None else bool(found.separable),
        "radius": float(steps.radius())}
    if found is not None and found.separable:
        more, more_notes = _separable(steps)
        more.update(coef=tuple(float(v) for v in np.ravel(found.coef)),
                    intercept=float(found.intercept))
    else:
        more, more_notes = _not_separable(steps, found)
    fields.update(more)
    shown, unshown = _finite(fields)
    realizable = shown["separable"] is True
    d = int(vc_dimension(steps.n_features, fit_intercept=steps.fit_intercept))
    table = tuple((eps, delta, int(sample_complexity(eps, delta, d, realizable=realizable)))
                  for eps in EPSILONS for delta in DELTAS)
    return DataReport(n_samples=steps.n_samples, n_features=steps.n_features,
                      fit_intercept=steps.fit_intercept, vc_dimension=d,
                      sample_complexity=table, notes=(*notes, *more_notes, *unshown),
                      **shown)


def optional(fields: str, compute: Callable[[], T]) -> tuple[T | None, tuple[str, ...]]:
    """``(compute(), ())``, or ``(None, (note,))`` when the solver behind `fields` fails.

    An optional report field never aborts a report: a
    :class:`~halfspaces.exceptions.SolverError` (HiGHS failed, or its answer did not
    survive verification) leaves the fields empty and the note says why; any other
    exception, bad input or a bug, is raised.

    Parameters
    ----------
    fields : str
        The fields `compute` answers, as the note names them (``"margin, norm_bound"``).
    compute : callable () -> T

    Returns
    -------
    (T or None, tuple of str)
    """
    try:
        return compute(), ()
    except SolverError as exc:
        return None, (f"{fields} not computed: {type(exc).__name__}: {exc}",)


def _separable(steps: ReportSteps) -> tuple[dict[str, Any], tuple[str, ...]]:
    """The maximum margin and Novikoff's bound."""
    if steps.novikoff_from_margin:
        best, notes = optional(", ".join((*_MARGIN_FIELDS, "mistake_bound")),
                               steps.max_margin)
        bound = None if best is None else steps.novikoff(best)
    else:
        best, notes = optional(", ".join(_MARGIN_FIELDS), steps.max_margin)
        bound, more = optional("mistake_bound", lambda: steps.novikoff(best))
        notes += more
    return {"margin": None if best is None else float(best.margin),
            "norm_bound": None if best is None else float(best.norm_bound),
            "mistake_bound": None if bound is None else float(bound),
            "mistake_bound_kind": NOVIKOFF}, notes


def _not_separable(steps: ReportSteps,
                   found: Separability | None) -> tuple[dict[str, Any], tuple[str, ...]]:
    """The certificate's fields (none when separability is undecided) and the best
    Freund-Schapire bound, valid on any data."""
    fields: dict[str, Any] = {}
    if found is not None:
        a = np.asarray(found.certificate, dtype=np.float64)
        exact = None
        if found.exact and steps.rational_certificate is not None:
            exact = steps.rational_certificate(a)
        fields = {"certificate_support": int(np.count_nonzero(a > 0)),
                  "certificate_residual": float(steps.residual(a)),
                  "certificate_exact": bool(found.exact),
                  "certificate": tuple(exact) if exact is not None
                  else tuple(float(v) for v in a)}
    bound, notes = optional("mistake_bound", steps.freund_schapire)
    return {**fields, "mistake_bound": None if bound is None else float(bound),
            "mistake_bound_kind": FREUND_SCHAPIRE}, notes


def _exact_text(q: Fraction | float) -> str:
    """A certificate weight as text that :class:`fractions.Fraction` reads back exactly:
    ``"p/q"`` (``"0"``, ``"1"``) for a fraction, the shortest round-trip digits for a float."""
    return str(q) if isinstance(q, Fraction) else repr(float(q))


def _finite(fields: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """The fields with each inf or nan float set to None, and a note for each (JSON has
    neither; ``halfspaces fit`` leaves such a mistake bound empty too)."""
    shown, notes = dict(fields), []
    for key, value in fields.items():
        if isinstance(value, float) and not math.isfinite(value):
            shown[key] = None
            why = "beyond float64" if math.isinf(value) else "undefined in float64"
            notes.append(f"{key}{_NOT_SHOWN}{value!r}, {why}")
    return shown, notes
