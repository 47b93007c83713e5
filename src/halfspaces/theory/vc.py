"""The VC dimension of halfspaces, executable: exact shattering checks and the lower-bound proof.

A labeling is *realised* when some halfspace puts every point strictly on the side of its
label, y_i(<w, x_i> + b) > 0, the convention of :func:`halfspaces.theory.separability`.

References
----------
.. [1] S. Shalev-Shwartz and S. Ben-David. Understanding Machine Learning, 2014. Theorem 9.2
   (the VC dimension of homogeneous halfspaces in R^d is d, of affine ones d + 1).
"""

from __future__ import annotations

from collections.abc import Iterator
from itertools import product

import numpy as np
import scipy.linalg
from numpy.typing import ArrayLike, NDArray

from halfspaces._exact import (
    column_scales,
    decide_sample,
    exact_dependence,
    exact_fits,
    proved,
    scale_columns,
    signed_rows,
    verified_certificate,
)
from halfspaces._sklearn import IntegerInterval, validate_params
from halfspaces.exceptions import SolverError
from halfspaces.theory._data import check_X

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


def _realisable(points: NDArray, labels: NDArray, fit_intercept: bool) -> bool:
    return decide_sample(points, labels, fit_intercept).separable


def _refuted(points: NDArray, labeling: NDArray, a: NDArray, fit_intercept: bool) -> bool:
    """Whether no halfspace realises the labeling built from the dependence a.

    The LP decides first. Where it cannot in float64 (its duals are too coarse a certificate
    on near-parallel points), a itself is the candidate certificate: with y_i = sign(a_i),
    the weights |a_i| / sum|a| combine the signed rows y_i x'_i to sum_i a_i x'_i / sum|a|,
    zero if a is a dependence, which :func:`~halfspaces._exact.proved` checks exactly.
    """
    try:
        return not _realisable(points, labeling.astype(np.float64), fit_intercept)
    except SolverError:
        Z = signed_rows(points, labeling.astype(np.float64), fit_intercept)
        weights = np.abs(a) / np.abs(a).sum()
        if verified_certificate(Z, weights) is None:
            return False
        try:
            return proved(Z, weights).certificate is not None
        except SolverError:
            return False


def shatters(points: ArrayLike, fit_intercept: bool = True, *,
             return_labeling: bool = False) -> bool | tuple[bool, NDArray | None]:
    r"""Whether halfspaces shatter the points: every labeling in {-1, +1}^m is realised.

    .. math:: \forall y \in \{-1, +1\}^m\ \exists (w, b):\ y_i(\langle w, x_i\rangle + b)
              > 0 \ \ \forall i

    Exact: one separability LP (with its verified answer) per labeling, in the order of
    ``itertools.product([-1, 1], repeat=m)``; a labeling and its negation are realised
    together (negate w), so only half are solved. At most 20 points.

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
            f"points has {m} rows; shatters checks all 2^m labelings and refuses m > "
            f"{MAX_SHATTER_POINTS}. For m > vc_dimension(d) the answer is False by Theorem "
            "9.2; unrealizable_labeling gives a witness."
        )
    bad = None
    for labels in product((-1, 1), repeat=m):
        y = np.array(labels)
        if y[0] == 1 and m > 0:  # the negation, starting with -1, was solved already
            continue
        if not _realisable(points, y.astype(np.float64), fit_intercept):
            bad = y
            break
    if bad is not None and return_labeling:
        bad = _first_of_pair(bad)
    return (bad is None, bad) if return_labeling else bad is None


def _first_of_pair(labeling: NDArray) -> NDArray:
    """Of a labeling and its negation, the one that comes first in product order."""
    return labeling if labeling[0] == -1 else -labeling


def _dependences(Xp: NDArray) -> Iterator[NDArray]:
    """Candidate coefficients a != 0 with sum_i a_i x'_i = 0, the first in the points' order.

    The columns are first scaled by powers of two to max |x'_ij| in [1, 2), which leaves every
    dependence as it is and makes the tests below relative to each feature's size (points
    1e-12 apart are then as independent as points 1 apart). The first candidate is
    :func:`_dependence`'s, the one the docstring of :func:`unrealizable_labeling` promises on
    well-conditioned points. Near-parallel points can defeat it in float64, so the next is
    a dependence found in exact rational arithmetic where that fits the budget, else one
    circuit per point outside a well-conditioned basis (:func:`_pivoted_circuits`). Each is
    only a candidate: the caller checks its labeling.
    """
    Xp = scale_columns(Xp, column_scales(Xp))
    first = _dependence(Xp)
    if first is not None:
        yield first
    if exact_fits(*Xp.shape):
        exact = exact_dependence(Xp)
        if exact is not None:
            yield exact
    else:
        yield from _pivoted_circuits(Xp)


def _dependence(Xp: NDArray) -> NDArray | None:
    """Coefficients a != 0 with sum_i a_i x'_i = 0 over a minimal dependent set, or None.

    Adds points one at a time; the first point within 1e-10 * max|x'| of the span of those
    kept gives the dependence x'_k = sum_S c_j x'_j, i.e. a = (c, -1) on S + {k}. Exact on
    well-conditioned points; where two kept points are nearly parallel the kept basis is
    ill-conditioned, later residuals exceed the tolerance and it may find nothing, or a
    wrong sign (hence the candidates after it in :func:`_dependences`).
    """
    kept: list[int] = []
    scale = max(1.0, float(np.abs(Xp).max()))
    for k in range(Xp.shape[0]):
        if kept:
            basis = Xp[kept].T
            c, *_ = np.linalg.lstsq(basis, Xp[k], rcond=None)
            if np.abs(basis @ c - Xp[k]).max() <= 1e-10 * scale:
                a = np.zeros(Xp.shape[0])
                a[kept], a[k] = c, -1.0
                return a
        elif not np.any(Xp[k]):
            a = np.zeros(Xp.shape[0])
            a[k] = 1.0
            return a
        kept.append(k)
    return None


def _numerical_rank(Xp: NDArray) -> int:
    """The number of singular values above 1e-12 (or 8 max(m, d') eps) times the largest.

    A backward-stable SVD errs by a small multiple of max(m, d') eps times the largest
    singular value (Golub and Van Loan, Matrix Computations, 4th ed., 8.6), so a rank of m
    here is a proof that the points are independent; a smaller rank is only a suspicion.
    """
    if Xp.size == 0:
        return 0
    s = np.linalg.svd(Xp, compute_uv=False)
    tol = max(1e-12, 8 * max(Xp.shape) * np.finfo(np.float64).eps) * s[0]
    return int(np.count_nonzero(s > tol))


def _pivoted_circuits(Xp: NDArray) -> Iterator[NDArray]:
    """For each point k outside a basis B of the span, a = (c, -1) with x'_k = sum_B c_j x'_j.

    B is the first rank-many points chosen by QR with column pivoting of X'^T (Golub and Van
    Loan, 5.4.2), which picks far-from-parallel points first, so c is accurate to a modest
    multiple of eps even where the points hold near-duplicates: a wrong sign needs a
    coefficient below that error.
    """
    m = Xp.shape[0]
    rank = _numerical_rank(Xp)
    if rank == m:
        return
    order = scipy.linalg.qr(Xp.T, mode="r", pivoting=True)[1]
    basis = np.sort(order[:rank])
    for k in np.sort(order[rank:]):
        a = np.zeros(m)
        if rank:
            a[basis] = np.linalg.lstsq(Xp[basis].T, Xp[k], rcond=None)[0]
        a[k] = -1.0
        yield a


def unrealizable_labeling(points: ArrayLike, fit_intercept: bool = True) -> NDArray:
    r"""A labeling of the points that no halfspace realises, from a linear dependence.

    Following the proof of Theorem 9.2 (Shalev-Shwartz and Ben-David): m >= d + 1 points
    x'_i in R^(d') (x' = (1, x) with d' = d + 1 when ``fit_intercept``, so m >= d + 2) are
    linearly dependent, sum_i a_i x'_i = 0 with a != 0. Label I = {a_i > 0} with +1 and
    J = {a_i < 0} with -1 (the rest +1). A halfspace w realising it would give

    .. math:: 0 < \sum_{i\in I} a_i\langle w, x'_i\rangle
              = \sum_{j\in J} |a_j|\,\langle w, x'_j\rangle \le 0,

    a contradiction (when J is empty the right side is 0). Any dependent set works, so
    fewer points do too when they happen to be dependent. The dependence is the first point
    in the span of those before it (on well-conditioned points); where near-parallel points
    defeat that search in float64, a dependence found in exact rational arithmetic is tried
    (beyond its budget, circuits on a well-conditioned basis of the points). A labeling is
    returned only once the separability LP has refused it, its certificate proved exactly
    where it fits (:class:`~halfspaces.theory.Separability`).

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
        When the points are linearly independent (proved in exact arithmetic, or beyond its
        budget by their singular values): every labeling is then realised.
    SolverError
        When the LP realises every candidate labeling: the points are too close to
        independent for float64 (never for m > n_features + 1 (+ 1) points in practice).

    Examples
    --------
    >>> from halfspaces.theory import unrealizable_labeling
    >>> unrealizable_labeling([[0.0], [1.0], [2.0]])
    array([-1,  1, -1])
    """
    points = check_X(points, "points")
    Xp = np.asarray(signed_rows(points, np.ones(points.shape[0]), bool(fit_intercept)))
    for a in _dependences(Xp):
        labeling = np.where(a < 0, -1, 1)
        if _refuted(points, labeling, a, fit_intercept):
            return labeling
    if _independent(scale_columns(Xp, column_scales(Xp))):
        raise ValueError(
            f"the {points.shape[0]} points are linearly independent (after x' = (1, x) when "
            "fit_intercept), so halfspaces shatter them and every labeling is realised; "
            f"pass at least {points.shape[1] + 1 + bool(fit_intercept)} points."
        )
    raise SolverError("every labeling built from a linear dependence of the points was "
                      "realised by an LP; the points are too close to independent for "
                      "float64.")


def _independent(Xp: NDArray) -> bool:
    """Whether the rows are proved linearly independent: exactly, or by their singular values."""
    if exact_fits(*Xp.shape):
        return exact_dependence(Xp) is None
    return _numerical_rank(Xp) == Xp.shape[0]
