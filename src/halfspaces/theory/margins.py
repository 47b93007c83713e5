"""Margins of a hyperplane on a sample, and the radius of the sample.

References
----------
.. [1] S. Shalev-Shwartz and S. Ben-David. Understanding Machine Learning: From Theory to
   Algorithms. Cambridge University Press, 2014. Sections 9.1 and 15.1.
"""

from __future__ import annotations

import numpy as np
import scipy.linalg
import scipy.sparse as sp
from numpy.typing import ArrayLike, NDArray

from halfspaces._utils.scaling import max_row_norm
from halfspaces._validation import plus_minus
from halfspaces.theory._checks import check_X

__all__ = ["functional_margins", "geometric_margins", "margin", "radius"]


def _coef(coef: ArrayLike, n_features: int) -> NDArray:
    w = np.asarray(coef, dtype=np.float64).ravel()
    if w.shape[0] != n_features:
        raise ValueError(
            f"coef has {w.shape[0]} entries but X has {n_features} features; pass one weight "
            "per column of X (the intercept goes in `intercept`)."
        )
    return w


def functional_margins(X: ArrayLike, y: ArrayLike, coef: ArrayLike,
                       intercept: float = 0.0) -> NDArray:
    r"""The functional margins of the hyperplane (w, b) on each example.

    .. math:: \hat\gamma_i = y_i\,(\langle w, x_i\rangle + b)

    Positive exactly where the hyperplane classifies x_i correctly (Shalev-Shwartz and
    Ben-David, Section 15.1).

    Parameters
    ----------
    X : {array-like, sparse matrix} of shape (n_samples, n_features)
        The examples.
    y : array-like of shape (n_samples,)
        Labels in {-1, +1}, or any two values (the larger one is +1).
    coef : array-like of shape (n_features,)
        The weights w (a fitted ``coef_`` of shape (1, n_features) is accepted too).
    intercept : float, default=0.0
        The offset b.

    Returns
    -------
    margins : ndarray of shape (n_samples,)

    Examples
    --------
    >>> from halfspaces.theory import functional_margins
    >>> functional_margins([[1.0, 2.0], [3.0, -1.0]], [1, -1], [1.0, 1.0], -1.0)
    array([ 2., -1.])
    """
    X = check_X(X)
    y_pm = plus_minus(y, X.shape[0])
    w = _coef(coef, X.shape[1])
    with np.errstate(over="ignore"):  # inf where the margin itself is beyond float64
        return y_pm * (_scores(X, w) + float(np.asarray(intercept).ravel()[0]))


def _dot(X, w: NDArray) -> NDArray:
    return X @ w if not sp.issparse(X) else np.asarray(X @ w).ravel()


def _scores(X, w: NDArray) -> NDArray:
    """<w, x_i> for each row, inf only where the score itself is beyond float64.

    X and w are finite, so a non-finite product is an overflow on the way: rows of
    (1.7e308, 1.7e308, -1.7e308) scored inf against w = 1 (the score is 1.7e308), and
    (1e300, -1e300) -inf against w = (1e10, 1e10) (the score is 0). Those rows are scored
    again with X and w scaled by powers of two to largest entries in [1, 2), exactly, and
    the scores scaled back.
    """
    with np.errstate(over="ignore", invalid="ignore"):
        scores = _dot(X, w)
    bad = ~np.isfinite(scores)
    if bad.any():
        e = _exponent(float(abs(X[bad]).max()))
        f = _exponent(float(np.max(np.abs(w), initial=0.0)))
        rows = X[bad]
        if sp.issparse(rows):
            rows.data = np.ldexp(rows.data, -e)
        else:
            rows = np.ldexp(rows, -e)
        with np.errstate(over="ignore"):
            scores[bad] = np.ldexp(_dot(rows, np.ldexp(w, -f)), e + f)
    return scores


def _exponent(top: float) -> int:
    """e with top / 2^e in [1, 2) (0 for top 0)."""
    return int(np.frexp(top)[1]) - 1 if top > 0 else 0


def geometric_margins(X: ArrayLike, y: ArrayLike, coef: ArrayLike,
                      intercept: float = 0.0) -> NDArray:
    r"""The signed distances of the examples to the hyperplane (w, b).

    .. math:: \gamma_i = \frac{y_i\,(\langle w, x_i\rangle + b)}{\lVert w\rVert_2}

    Invariant to scaling (w, b) by any c > 0 (Shalev-Shwartz and Ben-David, Section 15.1).
    Raises ValueError when w = 0, where the hyperplane is undefined.

    Parameters
    ----------
    X : {array-like, sparse matrix} of shape (n_samples, n_features)
        The examples.
    y : array-like of shape (n_samples,)
        Labels in {-1, +1}, or any two values (the larger one is +1).
    coef : array-like of shape (n_features,)
        The weights w, not all zero.
    intercept : float, default=0.0
        The offset b.

    Returns
    -------
    margins : ndarray of shape (n_samples,)

    Examples
    --------
    >>> from halfspaces.theory import geometric_margins
    >>> geometric_margins([[3.0, 4.0], [0.0, 0.0]], [1, -1], [3.0, 4.0], -5.0)
    array([4., 1.])
    """
    w = np.asarray(coef, dtype=np.float64)
    b = float(np.asarray(intercept, dtype=np.float64).ravel()[0])
    # (w, b) and 2^e (w, b) are one hyperplane: with max |w_j| in [1, 2) the norm keeps all
    # its digits (w of 2^-1070, subnormal, moved a margin from 1.061 to 1.043)
    e = -_exponent(float(np.max(np.abs(w), initial=0.0)))
    with np.errstate(over="ignore"):  # b beyond float64 once w is of size 1: margins of inf
        w, b = np.ldexp(w, e), float(np.ldexp(b, e))
    # BLAS nrm2 scales as it sums: sqrt(w.w) overflowed for |w| ~ 1e155 (margin 0)
    norm = float(scipy.linalg.norm(w))
    if norm == 0.0:
        raise ValueError("coef is all zeros, so the hyperplane and its geometric margins are "
                         "undefined; pass a nonzero coef.")
    # the distances of the unit normal: <w, x_i> overflowed for x_i and w near 1e308 (and
    # w = 1e300 against x = 1e10) where the distance itself is a float
    return functional_margins(X, y, w / norm, b / norm)


def margin(X: ArrayLike, y: ArrayLike, coef: ArrayLike, intercept: float = 0.0) -> float:
    r"""The margin of the hyperplane (w, b) with respect to the sample: the smallest distance.

    .. math:: \gamma(w, b) = \min_i \frac{y_i\,(\langle w, x_i\rangle + b)}{\lVert w\rVert_2}

    Negative when some example is misclassified. The margin *of the sample* is the largest
    such value over all hyperplanes: see :func:`halfspaces.theory.max_margin`.

    Parameters
    ----------
    X : {array-like, sparse matrix} of shape (n_samples, n_features)
        The examples.
    y : array-like of shape (n_samples,)
        Labels in {-1, +1}, or any two values (the larger one is +1).
    coef : array-like of shape (n_features,)
        The weights w, not all zero.
    intercept : float, default=0.0
        The offset b.

    Returns
    -------
    gamma : float

    Examples
    --------
    >>> from halfspaces.theory import margin
    >>> margin([[3.0, 4.0], [0.0, 0.0]], [1, -1], [3.0, 4.0], -5.0)
    1.0
    """
    return float(np.min(geometric_margins(X, y, coef, intercept)))


def radius(X: ArrayLike, fit_intercept: bool = False) -> float:
    r"""The radius of the smallest origin-centred ball holding the sample.

    .. math:: R = \max_i \lVert x_i\rVert_2 \quad\text{or, when fit\_intercept,}\quad
              R' = \max_i \lVert (1, x_i)\rVert_2 = \sqrt{1 + R^2}

    R is the radius in Novikoff's perceptron convergence theorem; R' is the radius on the
    data the perceptron with an intercept runs on.

    Parameters
    ----------
    X : {array-like, sparse matrix} of shape (n_samples, n_features)
        The examples.
    fit_intercept : bool, default=False
        Measure x' = (1, x) instead of x.

    Returns
    -------
    R : float

    Examples
    --------
    >>> from halfspaces.theory import radius
    >>> radius([[3.0, 4.0], [1.0, 0.0]]), round(radius([[3.0, 4.0]], fit_intercept=True) ** 2, 9)
    (5.0, 26.0)
    """
    R = max_row_norm(check_X(X))  # scaled: squares of entries 1e200 do not overflow
    return float(np.hypot(1.0, R)) if fit_intercept else R
