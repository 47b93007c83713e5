r"""Warm-started regularisation paths: one estimator refitted along a decreasing grid of alpha.

The path is a loop of the estimators' own fits: a clone with ``warm_start=True`` is fitted at
each alpha in turn, from the largest, so each fit starts from the solution at the alpha
before it (glmnet's and scikit-learn's ``enet_path`` pattern). The estimator is reached
through its public parameters only (``alpha``, ``warm_start``, ``l1_ratio`` where it has
one), so this module imports no estimator.

The grid starts at alpha_max. With an L1 part (``l1_ratio`` > 0), alpha_max is the smallest
alpha whose solution has all coefficients zero. At w = 0 with the intercepts at their own
optimum b_0 (the intercept-only fit), the optimality condition of the objective

.. math::
    J(w, b) = \frac{\sum_i s_i \ell(\langle w, x_i\rangle + b, y_i)}{\sum_i s_i}
              + \alpha\Bigl(\rho\lVert w\rVert_1 + \frac{1-\rho}{2}\lVert w\rVert^2\Bigr)

is 0 in the subdifferential, which holds iff
:math:`\lVert X^T r\rVert_\infty / S \le \alpha\rho` with :math:`r_i = s_i
\partial_z\ell(b_0, y_i)` and :math:`S = \sum_i s_i` (Friedman, Hastie and Tibshirani 2010,
Section 2.5): alpha_max = ||X^T r||_inf / (S rho). A pure L2 penalty (rho = 0) never makes
the coefficients exactly zero, so its start is glmnet's convention: the same formula with
rho = 0.001, where ||w|| is already about 1/1000 of its scale (the coefficients of the
ridge solution are at most ||X^T r|| / (S alpha) at that alpha, by the optimality
condition). The grid is geometric from alpha_max down to eps alpha_max. By default eps =
1e-4 with an L1 part, glmnet's ``lambda.min.ratio`` for n > p (scikit-learn's ``eps`` is
1e-3), and 1e-7 for the pure L2 penalty, whose start is three decades higher: both grids
then end at alpha_min = 1e-4 ||X^T r||_inf / S. With glmnet's 1e-4 the L2 grid would end
where an L1 grid starts: on a9a at alpha = 0.0095, two decades above the alpha of the best
held-out accuracy (about 1e-4, C = 0.36 in scikit-learn's terms).

References
----------
.. [1] J. Friedman, T. Hastie and R. Tibshirani. Regularization paths for generalized linear
   models via coordinate descent. Journal of Statistical Software 33(1), 2010.
"""

from __future__ import annotations

import inspect
import math
from collections.abc import Iterator
from dataclasses import dataclass
from numbers import Integral

import numpy as np
from numpy.typing import ArrayLike, NDArray
from sklearn.base import clone, is_classifier
from sklearn.utils.validation import check_X_y

from halfspaces._validation import FIT_INPUT, encode_targets, sample_weights

__all__ = ["RIDGE_L1_RATIO", "RegularizationPath", "alpha_grid", "alpha_max", "checked_data",
           "default_eps", "fits_along", "null_residuals", "regularization_path",
           "resolved_l1_ratio", "takes_sample_weight"]

RIDGE_L1_RATIO = 1e-3
"""The l1_ratio whose alpha_max starts the grid of a pure L2 penalty (glmnet's convention)."""


@dataclass(frozen=True)
class RegularizationPath:
    """What :func:`regularization_path` returns: one fit per alpha, largest alpha first.

    Attributes
    ----------
    alphas : ndarray of shape (n_alphas,)
        The grid, decreasing.
    l1_ratio : float
        The L1 share of the penalty along the path (0: the L2 penalty).
    coefs : ndarray of shape (n_alphas, ...)
        ``coef_`` of the fit at each alpha (its shape after the first axis).
    intercepts : ndarray of shape (n_alphas, ...)
        ``intercept_`` at each alpha.
    gaps : ndarray of shape (n_alphas, ...)
        ``gap_``, the certified bound on J - J* of each fit (per binary problem where the
        estimator reports one per problem).
    n_iter : ndarray of shape (n_alphas, ...)
        ``n_iter_`` of each fit: the iterations each warm start needed.
    """

    alphas: NDArray
    l1_ratio: float
    coefs: NDArray
    intercepts: NDArray
    gaps: NDArray
    n_iter: NDArray


def regularization_path(estimator, X: ArrayLike, y: ArrayLike, alphas: int | ArrayLike = 100,
                        *, l1_ratio: float | None = None, eps: float | None = None,
                        sample_weight: ArrayLike | None = None) -> RegularizationPath:
    r"""Fit `estimator` along a decreasing grid of alpha, each fit warm-started from the last.

    Parameters
    ----------
    estimator : LogisticRegression, LinearRegression or LinearSVM
        The model to refit; it is cloned (left unfitted) and refitted with
        ``warm_start=True`` at each alpha, its other parameters as given.
    X : {array-like, sparse matrix} of shape (n_samples, n_features)
        Training data.
    y : array-like of shape (n_samples,)
        Labels or targets.
    alphas : int or array-like, default=100
        The number of alphas of a geometric grid from alpha_max down to eps alpha_max, or
        the alphas themselves (fitted from the largest down).
    l1_ratio : float or None, default=None
        The L1 share rho of the penalty alpha (rho ||w||_1 + (1 - rho)/2 ||w||^2). None:
        the estimator's own ``l1_ratio``, or 0 (the L2 penalty) where it has none. A value
        > 0 needs an estimator with an ``l1_ratio`` parameter.
    eps : float or None, default=None
        The ratio alpha_min / alpha_max of a generated grid. None: 1e-4 with an L1 part,
        1e-7 for the L2 penalty (whose alpha_max is 1000 times the L1's: the same
        alpha_min).
    sample_weight : array-like of shape (n_samples,) or None, default=None
        Passed to each fit (the estimator's ``fit`` must take it); the weights also enter
        alpha_max's weighted-mean gradient.

    Returns
    -------
    path : RegularizationPath
        The grid and each fit's coefficients, intercepts, gaps and iteration counts.

    See Also
    --------
    halfspaces.LogisticRegressionCV : the path on each fold of a cross-validation.

    References
    ----------
    Friedman, Hastie and Tibshirani (2010), Sections 2.5 (alpha_max) and 2.6 (warm starts
    along the path).

    Examples
    --------
    >>> import numpy as np
    >>> from halfspaces import LinearRegression, regularization_path
    >>> X = np.array([[0.0], [1.0], [2.0], [3.0]])
    >>> path = regularization_path(LinearRegression(), X, [1.0, 3.0, 5.0, 7.0], alphas=5)
    >>> path.coefs.shape
    (5, 1)
    >>> bool(abs(path.coefs[0, 0]) < 0.01 < abs(path.coefs[-1, 0]))
    True
    """
    rho = resolved_l1_ratio(estimator, l1_ratio)
    X, y = checked_data(estimator, X, y)
    grid = alpha_grid(estimator, X, y, alphas, rho, eps, sample_weight)
    coefs, intercepts, gaps, n_iter = [], [], [], []
    for fitted in fits_along(estimator, X, y, grid, rho, sample_weight):
        coefs.append(np.array(fitted.coef_, dtype=np.float64))
        intercepts.append(np.array(fitted.intercept_, dtype=np.float64))
        gaps.append(np.array(getattr(fitted, "gap_", math.nan), dtype=np.float64))
        n_iter.append(np.array(fitted.n_iter_))
    return RegularizationPath(grid, rho, np.stack(coefs), np.stack(intercepts),
                              np.stack(gaps), np.stack(n_iter))


def checked_data(estimator, X, y):
    """X and y validated once for the grid and the folds (each fit checks its own again)."""
    return check_X_y(X, y, y_numeric=not is_classifier(estimator), **FIT_INPUT)


def resolved_l1_ratio(estimator, l1_ratio: float | None) -> float:
    """The path's l1_ratio: the one given, else the estimator's, else 0; refused by name
    when > 0 for an estimator without the parameter or outside [0, 1]."""
    own = estimator.get_params().get("l1_ratio")
    rho = (0.0 if own is None else float(own)) if l1_ratio is None else float(l1_ratio)
    if not 0.0 <= rho <= 1.0:
        raise ValueError(f"l1_ratio={l1_ratio!r} is outside [0, 1]: 0 is the L2 penalty, 1 "
                         "the L1 penalty, values between them the elastic net.")
    if rho > 0 and "l1_ratio" not in estimator.get_params():
        raise ValueError(f"l1_ratio={rho!r}: {type(estimator).__name__} has no L1 penalty "
                         "(no l1_ratio parameter); use l1_ratio=0.")
    return rho


def takes_sample_weight(estimator) -> bool:
    """Whether the estimator's ``fit`` has a ``sample_weight`` parameter."""
    return "sample_weight" in inspect.signature(estimator.fit).parameters


def fits_along(estimator, X, y, alphas: NDArray, l1_ratio: float,
               sample_weight: ArrayLike | None = None) -> Iterator:
    """One clone of `estimator`, refitted at each alpha of `alphas` in order with
    ``warm_start=True``: yields it after each fit (the same object, fitted anew)."""
    model = clone(estimator).set_params(warm_start=True)
    if "l1_ratio" in model.get_params():
        model.set_params(l1_ratio=l1_ratio)
    weighted = {}
    if sample_weight is not None:
        if not takes_sample_weight(model):
            raise ValueError(f"sample_weight: {type(model).__name__}.fit takes no "
                             "sample_weight; pass sample_weight=None.")
        weighted = {"sample_weight": sample_weight}
    for alpha in alphas:
        yield model.set_params(alpha=float(alpha)).fit(X, y, **weighted)


def alpha_grid(estimator, X, y, alphas: int | ArrayLike, l1_ratio: float,
               eps: float | None, sample_weight: ArrayLike | None = None) -> NDArray:
    """The path's alphas, decreasing: `alphas` sorted, or a geometric grid of that many
    from :func:`alpha_max` down to eps times it (eps None: :func:`default_eps`)."""
    if isinstance(alphas, Integral) and not isinstance(alphas, bool):
        eps = default_eps(l1_ratio) if eps is None else eps
        if alphas < 1:
            raise ValueError(f"alphas={alphas!r}: a grid needs at least one alpha.")
        if not 0.0 < eps <= 1.0:
            raise ValueError(f"eps={eps!r}: the ratio alpha_min / alpha_max must lie in "
                             "(0, 1].")
        top = alpha_max(estimator, X, y, l1_ratio, sample_weight)
        if l1_ratio > 0:  # at alpha_max itself the solver's own rounding of the gradient
            top *= 1.0 + 1e-9  # may move a coefficient by 1e-12: start just above it
        return np.geomspace(top, top * eps, int(alphas)) if alphas > 1 else np.array([top])
    grid = np.asarray(alphas, dtype=np.float64).ravel()
    if grid.size == 0 or not np.all(np.isfinite(grid)) or np.any(grid <= 0):
        raise ValueError(f"alphas={alphas!r}: give a number of alphas, or alphas that are "
                         "finite and > 0.")
    return np.sort(grid)[::-1].copy()


def default_eps(l1_ratio: float) -> float:
    """1e-4 with an L1 part; 1e-7 for the L2 penalty, whose grid starts 1000 times higher."""
    return 1e-4 if l1_ratio > 0 else 1e-4 * RIDGE_L1_RATIO


def alpha_max(estimator, X, y, l1_ratio: float,
              sample_weight: ArrayLike | None = None) -> float:
    r"""||X^T r||_inf / (S max(l1_ratio, 0.001)): the smallest alpha with all coefficients
    zero when l1_ratio > 0, glmnet's start of a ridge path otherwise (module docstring).

    r_i = s_i times the derivative of the loss with respect to the score at the
    intercept-only fit; the max runs over the features and the classes (binary problems).
    Where r is 0 (a constant y, or weights that leave one class), w = 0 is optimal at
    every alpha, so any grid fits the same models: it then starts at 1.
    """
    n = X.shape[0]
    s = sample_weights(sample_weight, n)
    s = np.ones(n) if s is None else s
    R = null_residuals(estimator, y, s) * s[:, None]
    top = np.max(np.abs(np.asarray(X.T @ R)), initial=0.0) / math.fsum(s.tolist())
    top = float(top) / max(l1_ratio, RIDGE_L1_RATIO)
    return top if top > 0 else 1.0


def null_residuals(estimator, y, s: NDArray) -> NDArray:
    """d loss / d score at the intercept-only fit, one column per score (binary problem or
    class), for the loss of `estimator`: squared (a regressor), the hinges (an estimator with
    a ``loss`` parameter, one-vs-rest), logistic or softmax (other classifiers)."""
    intercept = bool(estimator.get_params().get("fit_intercept", True))
    S = math.fsum(s.tolist())
    if not is_classifier(estimator):
        y = np.asarray(y, dtype=np.float64)
        b = math.fsum((s * y).tolist()) / S if intercept else 0.0
        return (b - y)[:, None]
    targets = encode_targets(y)
    loss = estimator.get_params().get("loss")
    if loss is None and targets.classes.size > 2:  # softmax: p_j - [y = j]
        T = np.asarray(targets.labels)[:, None] == np.asarray(targets.positives)[None, :]
        p = (s @ T) / S if intercept else np.full(T.shape[1], 1.0 / T.shape[1])
        return p[None, :] - T
    columns = []
    for k in range(len(targets.positives)):
        t = targets.plus_minus(k)
        share = math.fsum(s[t > 0].tolist()) / S
        if loss is None:  # logistic: sigma(b) - [y = +1], sigma(b) the weighted share
            columns.append((share if intercept else 0.5) - (t > 0))
            continue
        b = (2.0 * share - 1.0) if intercept else 0.0  # the squared hinge's optimum b
        if loss == "hinge":  # its optimum: sign of the majority; a subgradient there
            b = float(np.sign(b))
        slack = np.maximum(0.0, 1.0 - t * b)
        columns.append(-t * (2.0 * slack if loss == "squared_hinge" else (slack > 0)))
    return np.column_stack(columns)
