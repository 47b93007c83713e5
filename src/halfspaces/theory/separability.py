"""Linear separability with a checkable answer either way, and the maximum-margin hyperplane.

Both are decided on the signed rows z_i = y_i x'_i by the exact solvers of
:mod:`halfspaces._exact` (HiGHS on a *working set* of rows: solve on a subset, check every
row in floating point, add the violated rows, repeat). The answer is exact, because a
certificate of non-separability for a subset is one for the whole sample, and a hyperplane
that separates the whole sample (checked row by row) needs nothing else. On large samples
only a few thousand rows ever reach the solver.

References
----------
.. [1] P. Gordan. Ueber die Auflösung linearer Gleichungen mit reellen Coefficienten.
   Mathematische Annalen 6, 1873 (the theorem of the alternative).
.. [2] S. Shalev-Shwartz and S. Ben-David. Understanding Machine Learning, 2014. Sections 9.1
   (the LP for ERM on separable data), 9.1.2 (the perceptron) and 15.1 (hard-margin SVM).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import scipy.linalg
from numpy.typing import ArrayLike, NDArray

from halfspaces._exact import (
    Feasibility,
    SignedRows,
    decide,
    decide_sample,
    exact_margin,
    min_norm_separator,
    proved_separator,
    score_error_bound,
    unproved_certificate_error,
)
from halfspaces._utils.blas import one_blas_thread
from halfspaces._utils.homogeneous import split_intercept
from halfspaces.exceptions import SolverError
from halfspaces.theory._checks import labelled_sample, signed_sample

# rows near the least score whose scores are computed exactly for the margin (rationals:
# a few ms for 100 rows of 100 columns); beyond, the float margin is rounded down
_EXACT_MARGIN_ROWS = 256

__all__ = [
    "MaxMargin", "Separability", "max_margin", "max_margin_of_rows", "separability",
    "separability_of_rows",
]


@dataclass(frozen=True)
class Separability:
    """The answer of :func:`separability`, with its proof.

    Attributes
    ----------
    separable : bool
        Whether some hyperplane puts every example strictly on its own side.
    coef : ndarray of shape (n_features,) or None
        When separable, weights w with y_i(<w, x_i> + b) >= 1 for every i as computed in
        floating point; their rounding error is bounded below 1/2, so the exact values are
        > 1/2 (:func:`halfspaces._exact.feasibility.score_error_bound`). On few rows whose
        scores cancel too much for that bound (points 2^53, 2^53 - 2, 2^53 - 4), the exact
        values are >= 1 instead, computed in rational arithmetic; a float evaluation may
        then miss 1 by its rounding error.
    intercept : float or None
        When separable, the offset b (0.0 when ``fit_intercept`` is False).
    certificate : ndarray of shape (n_samples,) or None
        When not separable, a >= 0 with sum(a) = 1 and sum_i a_i y_i x'_i = 0.
    fit_intercept : bool
        Whether the question was about affine (True) or homogeneous halfspaces.
    exact : bool
        Whether the certificate was proved in exact rational arithmetic: sum_i a_i y_i x'_i
        is then exactly 0 (``certificate`` holds it rounded to floats). Always True when
        not separable: a certificate of up to a few hundred examples with positive weight
        is proved by exact elimination (see :data:`halfspaces._exact.rational.MAX_EXACT_WORK`),
        a larger one by its exact residual, and one that neither proves is no answer
        (SolverError: its float check shows only that no halfspace separates the data by
        more than about 1e-9 of each feature's scale). False when separable.
    """

    separable: bool
    coef: NDArray | None
    intercept: float | None
    certificate: NDArray | None
    fit_intercept: bool
    exact: bool = False


@dataclass(frozen=True)
class MaxMargin:
    """The maximum-margin hyperplane and the quantities of the margin theorems.

    Attributes
    ----------
    coef : ndarray of shape (n_features,)
        w of the maximum-margin hyperplane, scaled so that min_i y_i(<w, x_i> + b) = 1.
    intercept : float
        Its offset b (0.0 when ``fit_intercept`` is False).
    margin : float
        The margin of the training set measured on x: min_i y_i(<w, x_i> + b) / ||w||, the
        largest over all separating hyperplanes (``inf`` when only one label occurs and b
        alone separates). It is the margin of ``coef`` and ``intercept`` computed in exact
        arithmetic and rounded down, so it never exceeds the maximum; it falls short of it
        by the QP's tolerance at most.
    norm_bound : float
        B = min ||w'|| subject to y_i <w', x'_i> >= 1, on the data the perceptron runs on
        (x' = (1, x) when ``fit_intercept``). The margin there is gamma' = 1 / B. For
        features of norm R <= 2^-13 the free-intercept hyperplane's ||(b, w)|| stands in
        where the augmented QP fails (its one scale leaves them next to the constant 1):
        over B by a relative R^2 / 2 at most, so still an upper bound.
    augmented_margin : float
        gamma' = 1 / B, the margin on x' (of the separator behind B, exact and rounded
        down as ``margin``). For the hyperplane above scaled to ||w|| = 1,
        gamma' >= margin / sqrt(1 + b^2), since (b, w) / sqrt(1 + b^2) is a unit vector
        with margin margin / sqrt(1 + b^2) on x'.
    support : ndarray of int
        Indices of the examples at the margin, y_i(<w, x_i> + b) = 1 (to 1e-6).
    fit_intercept : bool
        Whether the hyperplane is affine.
    """

    coef: NDArray
    intercept: float
    margin: float
    norm_bound: float
    augmented_margin: float
    support: NDArray
    fit_intercept: bool


def separability(X: ArrayLike, y: ArrayLike, fit_intercept: bool = True) -> Separability:
    r"""Decide linear separability, with a separating hyperplane or a proof that none exists.

    Exactly one of the two systems has a solution (Gordan's theorem of the alternative):

    .. math::
        \exists w':\ y_i \langle w', x'_i\rangle \ge 1 \ \forall i
        \qquad\text{or}\qquad
        \exists a \ge 0,\ \textstyle\sum_i a_i = 1:\ \sum_i a_i y_i x'_i = 0,

    with x' = (1, x) when ``fit_intercept`` (affine halfspaces), x' = x otherwise. The first
    is the LP of ERM on separable data (Shalev-Shwartz and Ben-David, Section 9.1.1); the
    second is the linear dependence behind the VC-dimension proof (Theorem 9.2). Both answers
    are checked in floating point before they are returned: the margins are recomputed, and
    the certificate must satisfy a >= 0, sum(a) = 1 and, for every column j,
    ``|sum_i a_i y_i x'_ij| <= 1e-9 max_i |x'_ij|``: relative to each feature's own size, so the
    answer does not depend on the units of X. That check alone would pass two points 1e-10
    apart with opposite labels, which are separable, so the certificate is then proved in
    exact rational arithmetic on its support (``exact``; up to a few hundred examples with
    positive weight; a larger one must hold exactly as it is). Columns that are dependent
    in floating point only (a column 0.3 x_0 + 0.7 x_1, whose rounding errors make it
    exactly independent) are decided on few rows by solving on the columns sheared apart
    (:mod:`halfspaces._exact.sheared`), the answer proved on X. With ``fit_intercept`` on
    dense X that the LP cannot decide, it runs again on the columns centred at their
    midranges (the same question: b absorbs the shift), which it solves far more
    accurately on data such as timestamps (1.7e9, a second apart), and the answer is
    proved on X itself. When neither answer passes, SolverError
    says that separability cannot be decided (never a false proof).

    Parameters
    ----------
    X : {array-like, sparse matrix} of shape (n_samples, n_features)
        The examples (dense or sparse; the constraint matrix is built sparse).
    y : array-like of shape (n_samples,)
        Labels in {-1, +1}, or any two values (the larger one is +1).
    fit_intercept : bool, default=True
        Affine halfspaces sign(<w, x> + b) rather than homogeneous ones sign(<w, x>).

    Returns
    -------
    result : Separability
        ``separable``, then ``coef`` and ``intercept`` or ``certificate``.

    Raises
    ------
    SolverError
        When HiGHS fails, or neither answer survives the floating-point check.

    See Also
    --------
    max_margin : the separating hyperplane of largest margin.

    Examples
    --------
    >>> import numpy as np
    >>> from halfspaces.theory import separability
    >>> X = np.array([[0.0, 0.0], [1.0, 1.0], [0.0, 1.0], [1.0, 0.0]])
    >>> separability(X, [1, 1, 0, 0]).certificate      # XOR: not separable
    array([0.25, 0.25, 0.25, 0.25])
    >>> separability(X, [0, 1, 0, 0]).separable
    True
    """
    X, labels = labelled_sample(X, y)
    return _answer(decide_sample(X, labels, bool(fit_intercept)), fit_intercept)


def separability_of_rows(Z: SignedRows, fit_intercept: bool) -> Separability:
    """:func:`separability` of the signed rows z_i = y_i x'_i, wherever they are held.

    ``Z`` may hold the rows in one matrix or in row blocks on other machines
    (:func:`halfspaces.dask.separability`); the working-set LP reads every row only
    through it, so the answer and its checks are those of :func:`separability`.
    """
    return _answer(decide(Z), fit_intercept)


def _answer(found: Feasibility, fit_intercept: bool) -> Separability:
    if not found.separable:
        if not found.exact:
            raise unproved_certificate_error(found.certificate)
        return Separability(False, None, None, found.certificate, bool(fit_intercept), True)
    coef, intercept = split_intercept(found.separator, fit_intercept)
    return Separability(True, coef, intercept, None, bool(fit_intercept))


def max_margin(X: ArrayLike, y: ArrayLike, fit_intercept: bool = True) -> MaxMargin:
    r"""The maximum-margin (hard-margin SVM) hyperplane, by its dual or HiGHS's convex QP.

    .. math::
        \min_{w, b} \tfrac12 \lVert w\rVert^2 \ \text{s.t.}\ y_i(\langle w, x_i\rangle + b)
        \ge 1, \qquad \gamma = \frac{1}{\lVert w^\star\rVert}
        = \max_{\lVert w\rVert = 1,\, b} \min_i y_i(\langle w, x_i\rangle + b)

    (Shalev-Shwartz and Ben-David, Section 15.1). The intercept b is not penalised, so
    ``margin`` is measured on x. Novikoff's theorem is instead stated on the data the
    perceptron runs on, x' = (1, x), where the penalised problem gives

    .. math:: B = \min \lVert w'\rVert \ \text{s.t.}\ y_i\langle w', x'_i\rangle \ge 1,
              \qquad \gamma' = 1/B \ \ge\ \gamma / \sqrt{1 + b^2}

    (b of the optimal hyperplane scaled to ||w|| = 1). Both are returned.

    Each problem is solved first by dual coordinate descent (Hsieh et al. 2008, the linear
    SVM's loop with C = inf), whose answer is kept only after the checks every answer
    passes (its support re-solved exactly, the duality gap closed on every row, the
    separation proved in floating point, the margin computed exactly); where it cannot be
    checked, or the rows look inseparable, HiGHS's QP on a working set of rows answers.

    Parameters
    ----------
    X : {array-like, sparse matrix} of shape (n_samples, n_features)
        Linearly separable examples.
    y : array-like of shape (n_samples,)
        Labels in {-1, +1}, or any two values (the larger one is +1).
    fit_intercept : bool, default=True
        Affine hyperplanes; with False, x' = x and B = 1 / margin.

    Returns
    -------
    result : MaxMargin
        ``coef``, ``intercept``, ``margin``, ``norm_bound``, ``augmented_margin``,
        ``support``.

    Raises
    ------
    NotSeparableError
        On data that are not linearly separable; ``.certificate`` proves it.
    SolverError
        When neither route gives an answer that passes the checks.

    Examples
    --------
    >>> from halfspaces.theory import max_margin
    >>> mm = max_margin([[0.0], [1.0], [3.0], [4.0]], [-1, -1, 1, 1])
    >>> print(mm.margin, mm.intercept / -mm.coef[0], mm.support)
    1.0 2.0 [1 2]
    """
    X, Z = signed_sample(X, y, fit_intercept)
    return max_margin_of_rows(SignedRows(Z, features=X if fit_intercept else None),
                              fit_intercept)


def augmented_separator(Z: SignedRows, top: NDArray,
                        free_separator: Callable[[], NDArray | None]) -> NDArray | None:
    """The separator of min ||(b, w_x)|| on x' = (1, x), proved; or where the QP cannot be
    solved on small features, the free-intercept separator ``free_separator()`` in its place.

    With both labels present, -b lies between two scores <w_x, x_i>, so |b| <= ||w_x|| R
    (R >= every ||x_i||, here the norm of the column maxima ``top[1:]``), and the
    free-intercept separator (b, w_x) bounds the augmented QP's B from both sides:
    ||w_x|| <= B <= ||(b, w_x)|| <= ||w_x|| sqrt(1 + R^2). Where R^2 is below half an ulp
    (R <= 2^-27) it is that separator in float64, and the QP is not solved. The QP fails
    sooner: its one scale for all penalised columns leaves features of 1e-7 next to the
    constant 1, and HiGHS calls it infeasible. There, up to R = 2^-13, the free separator
    stands in, with B over by a relative R^2 / 2 <= 1.5e-8 at most: an upper bound on B, a
    lower one on gamma' = 1 / B, so the mistake bounds built on them stay bounds. With one
    label (w_x = 0) b alone separates and is not bounded: the QP answers or fails alone.
    """
    R = float(scipy.linalg.norm(top[1:]))
    if R <= 2.0**-27 and _has_features(w := free_separator()):
        return w
    try:
        return proved_separator(Z, min_norm_separator(Z, free_first=False), top=top)
    except SolverError:
        if R > 2.0**-13 or not _has_features(w := free_separator()):
            raise
        return w


def _has_features(w: NDArray | None) -> bool:
    return w is not None and bool(np.any(w[1:]))


def max_margin_of_rows(Z: SignedRows, fit_intercept: bool) -> MaxMargin:
    """:func:`max_margin` of the signed rows z_i = y_i x'_i, wherever they are held.

    As :func:`separability_of_rows`: ``Z`` may hold the rows in row blocks elsewhere
    (:func:`halfspaces.dask.max_margin`).
    """
    # products of the rows with one vector: on two busy cores BLAS's second thread made
    # each 30 times slower (MNIST 0 vs 1), and its spinning slowed the compiled loops
    with one_blas_thread():
        return _max_margin_of_rows(Z, fit_intercept)


def _max_margin_of_rows(Z: SignedRows, fit_intercept: bool) -> MaxMargin:
    top = Z.column_max()
    w = proved_separator(Z, min_norm_separator(Z, free_first=bool(fit_intercept)), top=top)
    w_aug = augmented_separator(Z, top, lambda: w) if fit_intercept else w
    if w is None or w_aug is None:
        raise SolverError("the hard-margin QP returned a hyperplane that does not separate "
                          "the data in floating point; rescale X.")
    coef, intercept = split_intercept(w, fit_intercept)
    norm = float(scipy.linalg.norm(coef))  # BLAS nrm2: w.w overflowed at |w| ~ 1e155
    low = Z.min_score(w)
    margin = _margin(Z, w, top, low, norm, int(bool(fit_intercept)))
    B = float(scipy.linalg.norm(w_aug))
    support = np.sort(Z.check(w, low * (1.0 + 1e-6)).new_rows)
    return MaxMargin(coef, intercept, margin, B, _margin(Z, w_aug, top, Z.min_score(w_aug), B, 0),
                     support, bool(fit_intercept))


def _margin(Z: SignedRows, w: NDArray, top: NDArray, low: float, norm: float,
            n_unpenalised: int) -> float:
    """min_i <w, z_i> / ||w[n_unpenalised:]|| (the float min score is `low`), never above
    the exact margin of w, so never above the maximum.

    Where the scores cancel (points 3e-11 from the hyperplane, entries near 1) the float min
    score errs by up to :func:`score_error_bound`, far beyond an ulp: read straight from it,
    the margin was 7e-8 (relative) above the true maximum on two such points. Only rows
    whose float score is within twice that bound of `low` can hold the exact least score,
    and on them (the support, usually) it is computed exactly (:func:`exact_margin`). Where
    too many rows are that close, the float margin is rounded down past every error
    instead: the score bound, nrm2's (p + 2) u (Higham, 2002, eq. (3.5)) and the division's.
    """
    if norm == 0:
        return np.inf
    err = score_error_bound(w, top)
    near = Z.check(w, low + 2.0 * err, limit=_EXACT_MARGIN_ROWS)
    if near.n_violated <= _EXACT_MARGIN_ROWS:
        return exact_margin(Z.take(np.sort(near.new_rows)), w, n_unpenalised)
    u = 2.0**-53
    scores = max(low - err, 0.0)
    return float(scores / (norm * (1.0 + (w.shape[0] + 4) * u)) * (1.0 - 2.0 * u))
