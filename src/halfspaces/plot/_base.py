"""What every display shares: the lazy Matplotlib import, a fresh Figure, exact line clipping.

Matplotlib is optional (the ``plot`` extra), so no module of :mod:`halfspaces.plot` imports
it at import time; :func:`require_matplotlib` does, when a display draws, and turns a
missing installation into one line that says how to install it.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

__all__ = ["INSTALL_HINT", "box_limits", "clip_line", "estimator_hyperplane", "new_axes",
           "require_matplotlib", "plus_minus_labels", "dense"]

INSTALL_HINT = "halfspaces.plot needs Matplotlib: pip install 'halfspaces[plot]'"


def require_matplotlib() -> Any:
    """Import Matplotlib, or raise ImportError with the install command as its one line."""
    try:
        import matplotlib
        import matplotlib.figure  # noqa: F401  (the Figure class every display draws on)
    except ImportError as exc:
        raise ImportError(INSTALL_HINT) from exc
    return matplotlib


def new_axes(ax=None):
    """`ax` and its figure, or a new Axes on a new ``matplotlib.figure.Figure``.

    A bare Figure (not ``pyplot.figure``) is registered with no pyplot state, so displays
    never leave a figure open in a notebook or a test run.
    """
    require_matplotlib()
    if ax is not None:
        return ax.figure, ax
    from matplotlib.figure import Figure

    figure = Figure()
    return figure, figure.add_subplot()


def dense(X) -> NDArray[np.float64]:
    """X as a dense float64 array (sparse matrices are densified: the data are drawn)."""
    if hasattr(X, "toarray"):
        X = X.toarray()
    return np.asarray(X, dtype=np.float64)


def plus_minus_labels(y, classes=None) -> NDArray[np.float64]:
    """+1 for the larger of two labels (``classes[1]`` when given), -1 for the other."""
    y = np.asarray(y)
    classes = np.unique(y) if classes is None else np.asarray(classes)
    if classes.size != 2:
        raise ValueError(f"y must hold exactly two classes; it holds {classes.size}: "
                         f"{classes!r}.")
    return np.where(y == classes[1], 1.0, -1.0)


def estimator_hyperplane(estimator) -> tuple[NDArray[np.float64], float]:
    """(w, b) of a fitted binary linear classifier, from ``coef_`` and ``intercept_``."""
    if not hasattr(estimator, "coef_"):
        raise ValueError(f"{type(estimator).__name__} has no coef_: pass a fitted linear "
                         "binary classifier (fit it first).")
    coef = np.asarray(estimator.coef_, dtype=np.float64)
    if coef.ndim == 2 and coef.shape[0] != 1:
        raise ValueError(f"{type(estimator).__name__} has {coef.shape[0]} rows of coef_ "
                         "(a multiclass model); these displays draw one hyperplane.")
    intercept = np.ravel(np.asarray(getattr(estimator, "intercept_", 0.0), dtype=np.float64))
    return coef.ravel(), float(intercept[0]) if intercept.size else 0.0


def box_limits(points: NDArray, pad: float = 0.1) -> tuple[tuple[float, float], ...]:
    """Axis limits around 2-D points with a margin of `pad` of the range on each side."""
    lo, hi = points.min(axis=0), points.max(axis=0)
    span = np.where(hi > lo, hi - lo, 1.0)
    lo, hi = lo - pad * span, hi + pad * span
    return (float(lo[0]), float(hi[0])), (float(lo[1]), float(hi[1]))


def clip_line(coef: NDArray, intercept: float, xlim, ylim) -> NDArray[np.float64]:
    """The segment of the line coef . p + intercept = 0 inside the box, as its two ends.

    Exact (no grid): the ends are where the line meets the box's sides, solved for the
    free coordinate; vertical and horizontal lines are the cases where one side equation
    has no solution. Returns an array of shape (2, 2), or (0, 2) when the line misses the
    box or coef is zero (no line at all).
    """
    a1, a2 = float(coef[0]), float(coef[1])
    (x0, x1), (y0, y1) = xlim, ylim
    found = []
    if a2 != 0.0:
        found += [(x, -(a1 * x + intercept) / a2) for x in (x0, x1)]
    if a1 != 0.0:
        found += [(-(a2 * y + intercept) / a1, y) for y in (y0, y1)]
    tol = 1e-12 * max(1.0, abs(x0), abs(x1), abs(y0), abs(y1))
    inside = [(x, y) for x, y in found
              if x0 - tol <= x <= x1 + tol and y0 - tol <= y <= y1 + tol]
    if not inside:
        return np.empty((0, 2))
    pts = np.array(inside, dtype=np.float64)
    # the two ends are the extreme points along the line's direction (-a2, a1)
    t = pts @ np.array([-a2, a1])
    return pts[[int(np.argmin(t)), int(np.argmax(t))]]
