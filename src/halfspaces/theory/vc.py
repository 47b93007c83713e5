"""The VC dimension of halfspaces, executable: exact shattering checks and the lower-bound proof.

A labeling is *realised* when some halfspace puts every point strictly on the side of its
label, y_i(<w, x_i> + b) > 0, the convention of :func:`halfspaces.theory.separability`.

Everything here follows from the proof of Theorem 9.2: with x' = (1, x) (x for homogeneous
halfspaces), the points are shattered iff the x'_i are linearly independent (then X' w = y
has a solution for every y), and a labeling is realised by none iff some dependence
sum_i a_i x'_i = 0, a != 0, has y_i a_i >= 0 for every i (Gordan's theorem). Dependences
are found and checked in exact arithmetic (:mod:`halfspaces._exact.independence`), so no
answer rests on a floating-point rank, residual or LP.

References
----------
.. [1] S. Shalev-Shwartz and S. Ben-David. Understanding Machine Learning, 2014. Theorem 9.2
   (the VC dimension of homogeneous halfspaces in R^d is d, of affine ones d + 1).
"""

from __future__ import annotations

from fractions import Fraction
from math import lcm

import numpy as np
from numpy.typing import ArrayLike, NDArray

from halfspaces._exact import (
    conformal_dependence,
    dependence_space,
    first_dependence,
    is_dependence,
    signed_rows,
)
from halfspaces._sklearn import IntegerInterval, validate_params
from halfspaces.exceptions import SolverError
from halfspaces.theory._checks import check_X

__all__ = ["shatters", "unrealizable_labeling", "vc_dimension"]

MAX_SHATTER_POINTS = 20


@validate_params({"n_features": [IntegerInterval(1, None, closed="left")]},
                 prefer_skip_nested_validation=True)
def vc_dimension(n_features: int, fit_intercept: bool = True) -> int:
    r"""The VC dimension of halfspaces in R^d: d + 1 affine, d homogeneous.

    .. math:: \mathrm{VCdim}\{x \mapsto \mathrm{sign}(\langle w, x\rangle + b)\} = d + 1,
              \qquad \mathrm{VCdim}\{x \mapsto \mathrm{sign}\langle w, x\rangle\} = d

    (Shalev-Shwartz and Ben-David, Theorem 9.2.)

    Parameters
    ----------
    n_features : int
        The dimension d >= 1.
    fit_intercept : bool, default=True
        Affine halfspaces.

    Returns
    -------
    vc_dim : int

    Examples
    --------
    >>> from halfspaces.theory import vc_dimension
    >>> vc_dimension(3), vc_dimension(3, fit_intercept=False)
    (4, 3)
    """
    return int(n_features) + (1 if fit_intercept else 0)


def _augmented(points: NDArray, fit_intercept: bool):
    """X' with rows x'_i = (1, x_i), or x_i without intercept (ndarray or CSR)."""
    return signed_rows(points, np.ones(points.shape[0]), bool(fit_intercept))


def shatters(points: ArrayLike, fit_intercept: bool = True, *,
             return_labeling: bool = False) -> bool | tuple[bool, NDArray | None]:
    r"""Whether halfspaces shatter the points: every labeling in {-1, +1}^m is realised.

    .. math:: \forall y \in \{-1, +1\}^m\ \exists (w, b):\ y_i(\langle w, x_i\rangle + b)
              > 0 \ \ \forall i

    Exact, with no LP: the points are shattered iff the x'_i (x' = (1, x) when
    ``fit_intercept``) are linearly independent (Theorem 9.2's proof), which a minor
    nonzero modulo a prime or an exact dependence proves, either way
    (:mod:`halfspaces._exact.independence`).
    The first labeling that no halfspace realises, in the order of
    ``itertools.product([-1, 1], repeat=m)``, is found label by label: y_k = -1 when some
    completion of (y_0, ..., y_(k-1), -1) is unrealisable, i.e. when some exact dependence
    a != 0 has y_i a_i >= 0 for i <= k (decided by the simplex method in exact arithmetic,
    :mod:`halfspaces._exact.conformal`), else +1; m such decisions in all, and the
    dependence conformal to the labeling found is checked on every column of the points.
    At most 20 points.

    Parameters
    ----------
    points : array-like of shape (m, n_features)
        The points, m <= 20.
    fit_intercept : bool, default=True
        Affine halfspaces (else homogeneous).
    return_labeling : bool, default=False
        Also return the first labeling, in the order above, that no halfspace realises
        (None when the points are shattered).

    Returns
    -------
    shattered : bool
    labeling : ndarray of shape (m,) or None
        Only with ``return_labeling=True``.

    Raises
    ------
    SolverError
        Not for m <= 20 points: the exact elimination's budget holds 20 rows on 160,000
        columns, and it starts on at most 2m columns and adds at most m per round, for at
        most m rounds.

    Examples
    --------
    >>> from halfspaces.theory import shatters
    >>> shatters([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]])
    True
    >>> shatters([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0], [1.0, 1.0]], return_labeling=True)
    (False, array([-1,  1,  1, -1]))
    """
    points = check_X(points, "points")
    m = points.shape[0]
    if m > MAX_SHATTER_POINTS:
        raise ValueError(
            f"points has {m} rows; shatters answers for all 2^m labelings and refuses m > "
            f"{MAX_SHATTER_POINTS}. For m > vc_dimension(d) the answer is False by Theorem "
            "9.2; unrealizable_labeling gives a witness."
        )
    Xp = _augmented(points, fit_intercept)
    if not return_labeling:
        return first_dependence(Xp) is None
    space = dependence_space(Xp)
    if space.nullity == 0:
        return True, None
    return False, _first_unrealisable(Xp, space.equations)


def _first_unrealisable(Xp, equations: list[list[int]]) -> NDArray:
    """The first labeling in product order with a conformal dependence, checked exactly."""
    m = Xp.shape[0]
    labels: list[int] = []
    a = None
    for _ in range(m):
        # the labels so far have an unrealisable completion: with -1 next, or else with +1
        a = conformal_dependence(equations, m, [*labels, -1])
        labels.append(-1 if a is not None else 1)
    if labels[-1] == 1:
        a = conformal_dependence(equations, m, labels)
    # the Gordan certificate of the labeling, checked on the points themselves: weights
    # y_i a_i >= 0, not all zero, combining the signed rows y_i x'_i to zero exactly
    if (a is None or not any(a) or any(y * x < 0 for y, x in zip(labels, a, strict=True))
            or not is_dependence(Xp, _integers(a))):
        raise SolverError("the dependence found for the first unrealisable labeling fails "
                          "its exact check on the points.")
    return np.array(labels)


def _integers(a: list[Fraction]) -> list[int]:
    """a times the least common multiple of its denominators."""
    scale = lcm(*(x.denominator for x in a))
    return [int(x * scale) for x in a]


def unrealizable_labeling(points: ArrayLike, fit_intercept: bool = True) -> NDArray:
    r"""A labeling of the points that no halfspace realises, from a linear dependence.

    Following the proof of Theorem 9.2 (Shalev-Shwartz and Ben-David): m >= d + 1 points
    x'_i in R^(d') (x' = (1, x) with d' = d + 1 when ``fit_intercept``, so m >= d + 2) are
    linearly dependent, sum_i a_i x'_i = 0 with a != 0. Label I = {a_i > 0} with +1 and
    J = {a_i < 0} with -1 (the rest +1). A halfspace w realising it would give

    .. math:: 0 < \sum_{i\in I} a_i\langle w, x'_i\rangle
              = \sum_{j\in J} |a_j|\,\langle w, x'_j\rangle \le 0,

    a contradiction (when J is empty the right side is 0). Any dependent set works, so
    fewer points do too when they happen to be dependent. The dependence is that of the
    first point x'_k in the span of those before it, x'_k = sum_(i<k) c_i x'_i, so
    a = (c, -1, 0, ...) and x_k is labelled -1 (a zero x'_k, a dependence of its own, is
    labelled +1). It is found and checked on every column in exact arithmetic
    (:func:`halfspaces._exact.independence.first_dependence`): the labeling is proved
    unrealisable by a itself, with no LP, however close to parallel the points are.

    Parameters
    ----------
    points : array-like of shape (m, n_features)
        Points that are linearly dependent after the reduction x' = (1, x); in particular
        any m >= n_features + 1 (+ 1 with ``fit_intercept``).
    fit_intercept : bool, default=True
        Affine halfspaces (else homogeneous).

    Returns
    -------
    labeling : ndarray of shape (m,) with values in {-1, +1}

    Raises
    ------
    ValueError
        When the points are linearly independent, proved in exact arithmetic: every
        labeling is then realised.
    SolverError
        Only when the exact elimination would exceed its budget: the first dependence lies
        beyond hundreds of points that are independent on hundreds of columns (rows are
        taken 64, 128, ... at a time, up to n_features + 2 of them).

    Examples
    --------
    >>> from halfspaces.theory import unrealizable_labeling
    >>> unrealizable_labeling([[0.0], [1.0], [2.0]])
    array([-1,  1, -1])
    """
    points = check_X(points, "points")
    a = first_dependence(_augmented(points, fit_intercept))
    if a is None:
        raise ValueError(
            f"the {points.shape[0]} points are linearly independent (after x' = (1, x) when "
            "fit_intercept), so halfspaces shatter them and every labeling is realised; "
            f"pass at least {points.shape[1] + 1 + bool(fit_intercept)} points."
        )
    return np.where(np.array(a) < 0, -1, 1)
