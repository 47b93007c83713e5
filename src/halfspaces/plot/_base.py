"""What every display shares: the lazy Matplotlib import, a fresh Figure, exact line clipping.

Matplotlib is optional (the ``plot`` extra), so no module of :mod:`halfspaces.plot` imports
it at import time; :func:`require_matplotlib` does, when a display draws, and turns a
missing installation into one line that says how to install it.
"""

from __future__ import annotations

import operator
import warnings
from typing import Any

import numpy as np
from numpy.typing import NDArray

__all__ = ["DRAWABLE", "INSTALL_HINT", "box_limits", "check_features", "check_known_labels",
           "class_index", "clip_line", "colormap", "column_means", "column_names", "dense",
           "estimator_hyperplane", "estimator_scores", "label_text", "new_axes", "normalised_line",
           "plus_minus_labels", "require_matplotlib", "row_count", "target_vector",
           "too_many_for_the_qp", "within_the_qp"]

INSTALL_HINT = "halfspaces.plot needs Matplotlib: pip install 'halfspaces[plot]'"

DRAWABLE = 1e306
"""The largest axis limit or axis span drawn. Matplotlib's tick locator multiplies the span
by its steps (up to 10), so limits of +-5e307 already overflow inside it (measured with
Matplotlib 3.11); two decades below that leaves room for the padding and the steps."""


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
        from matplotlib.axes import Axes

        if not isinstance(ax, Axes):
            raise TypeError(f"ax={ax!r} must be a Matplotlib Axes or None.")
        return ax.figure, ax
    from matplotlib.figure import Figure

    figure = Figure()
    return figure, figure.add_subplot()


def dense(X) -> NDArray[np.float64]:
    """X as a dense float64 array (sparse matrices are densified: the data are drawn)."""
    if hasattr(X, "toarray"):
        X = X.toarray()
    return np.asarray(X, dtype=np.float64)


def check_features(features, n_features: int) -> tuple[int, int]:
    """The two drawn columns as non-negative ints, or ValueError naming `features`.

    Negative indices are refused rather than wrapped as NumPy would: the axes are labelled
    with the index, and "feature -1" beside "feature 1" of the same column misleads.
    """
    try:
        f = [operator.index(i) for i in features]
    except TypeError:
        f = []
    if len(f) != 2 or f[0] == f[1] or not all(0 <= i < n_features for i in f):
        raise ValueError(f"features={features!r} must be two different column indices "
                         f"in [0, {n_features}) (negative indices are not accepted).")
    return f[0], f[1]


def column_names(X, n_features: int, feature_names=None, estimator=None) -> list[str]:
    """The name of each column of X, for the axes: `feature_names` when given, else a
    DataFrame's string column names, else the estimator's ``feature_names_in_``, else
    "feature i" (scikit-learn's ``DecisionBoundaryDisplay`` labels its axes from a
    DataFrame's columns the same way).

    Raises ValueError naming `feature_names` unless it holds one string per column.
    """
    if feature_names is None:
        columns = getattr(X, "columns", None)
        if columns is not None and all(isinstance(c, str) for c in columns):
            feature_names = list(columns)
        elif getattr(estimator, "feature_names_in_", None) is not None:
            feature_names = list(estimator.feature_names_in_)
        else:
            return [f"feature {i}" for i in range(n_features)]
    names = list(feature_names) if not isinstance(feature_names, str) else [feature_names]
    if len(names) != n_features or not all(isinstance(n, str) for n in names):
        raise ValueError(f"feature_names={feature_names!r} must hold one string per column "
                         f"of X ({n_features}).")
    return names


def label_text(value: Any) -> str:
    """A class label as its data file writes it, for a legend: labels read from a CSV file
    are floats, and the legend said "class 1.0" of a file that says 1."""
    if isinstance(value, float | np.floating) and float(value).is_integer():
        return str(int(value))
    return str(value)


def column_means(X: NDArray, name: str = "X") -> NDArray[np.float64]:
    """The mean of each column, finite for any finite X.

    np.mean sums first, so three values of 1e308 overflow to inf and the slice through the
    means (and the line drawn on it) would silently vanish; summing X / n cannot overflow.
    The plain mean is kept wherever it is finite, so ordinary pictures are unchanged.
    """
    with np.errstate(over="ignore"):  # an overflowing sum is redone just below
        mean = X.mean(axis=0)
    if not np.all(np.isfinite(mean)):
        mean = (X / X.shape[0]).sum(axis=0)
    if not np.all(np.isfinite(mean)):
        raise ValueError(f"{name} holds non-finite values; a picture needs finite data.")
    return mean


def row_count(X) -> int:
    """The number of rows of X (a list, an array or a sparse matrix) without copying it."""
    return int(X.shape[0]) if hasattr(X, "shape") and len(X.shape) else len(X)


def target_vector(y, n_samples: int) -> NDArray:
    """y as a 1-D array of `n_samples` labels, or ValueError naming its shape."""
    y = np.asarray(y)
    if y.ndim != 1 or y.shape[0] != n_samples:
        raise ValueError(f"y has shape {y.shape}; it must be 1-D with one label per row of "
                         f"X ({n_samples}).")
    return y


def check_known_labels(y: NDArray, classes: NDArray) -> None:
    """ValueError naming the labels of y that are not among the estimator's `classes`.

    The displays map labels to the estimator's classes; an unknown label (a string for a
    model fitted on ints, a class it never saw) would otherwise be drawn as some class.
    """
    # dict.fromkeys, not np.unique: unknown labels of mixed types cannot be sorted
    unknown = list(dict.fromkeys(y[~np.isin(y, classes)].tolist()))
    if unknown:
        shown = ", ".join(repr(v) for v in unknown[:5]) + (", ..." if len(unknown) > 5 else "")
        raise ValueError(f"y holds labels {shown} that are not among the estimator's "
                         f"classes_ {np.asarray(classes).tolist()!r}.")


def class_index(y: NDArray, classes: NDArray) -> NDArray[np.intp]:
    """The position of each label of y in `classes` (any order), after checking membership."""
    check_known_labels(y, classes)
    return np.argmax(y[:, None] == np.asarray(classes)[None, :], axis=1)


def plus_minus_labels(y, classes=None) -> NDArray[np.float64]:
    """+1 for the larger of two labels (``classes[1]`` when given), -1 for the other.

    With `classes` (an estimator's ``classes_``), every label of y must be one of them.
    """
    y = np.asarray(y)
    classes = np.unique(y) if classes is None else np.asarray(classes)
    if classes.size != 2:
        raise ValueError(f"y must hold exactly two classes; it holds {classes.size}: "
                         f"{classes!r}.")
    check_known_labels(y, classes)
    return np.where(y == classes[1], 1.0, -1.0)


def _fitted_array(estimator, name: str) -> NDArray[np.float64]:
    """A fitted linear model's ``coef_`` or ``intercept_`` as finite float64 values."""
    value = np.asarray(dense(getattr(estimator, name)), dtype=np.float64)
    if not np.all(np.isfinite(value)):
        raise ValueError(f"{type(estimator).__name__}.{name} holds non-finite values: there "
                         "is no hyperplane to draw (refit, e.g. with more regularisation).")
    return value


def estimator_hyperplane(estimator) -> tuple[NDArray[np.float64], float]:
    """(w, b) of a fitted binary linear classifier, from ``coef_`` and ``intercept_``."""
    coef, intercept = estimator_scores(estimator)
    if coef.shape[0] != 1:
        raise ValueError(f"{type(estimator).__name__} has {coef.shape[0]} rows of coef_ "
                         "(a multiclass model); these displays draw one hyperplane.")
    return coef[0], float(intercept[0])


def estimator_scores(estimator) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """coef_ as (n_rows, n_features) and intercept_ as (n_rows,) of a fitted linear model.

    ``hasattr`` is the test because an unfitted model, and a kernel model such as an rbf
    ``SVC``, raise AttributeError for ``coef_``.
    """
    if not hasattr(estimator, "coef_"):
        raise ValueError(f"{type(estimator).__name__} has no coef_: pass a fitted linear "
                         "classifier (fit it first; kernel models have no hyperplane).")
    coef = _fitted_array(estimator, "coef_")
    coef = coef.reshape(1, -1) if coef.ndim <= 1 else coef
    intercept = (_fitted_array(estimator, "intercept_").ravel()
                 if hasattr(estimator, "intercept_") else np.zeros(0))
    intercept = np.zeros(1) if intercept.size == 0 else intercept  # no intercept: b = 0
    if coef.ndim != 2 or intercept.size not in (1, coef.shape[0]):
        raise ValueError(f"{type(estimator).__name__} has coef_ of shape {coef.shape} and "
                         f"intercept_ of shape {intercept.shape}: not a linear classifier.")
    return coef, np.broadcast_to(intercept, coef.shape[:1]).copy()


def colormap(cmap):
    """The Matplotlib colormap named (or given) by `cmap`, or ValueError naming it."""
    mpl = require_matplotlib()
    try:
        return mpl.colormaps.get_cmap(cmap)
    except (KeyError, ValueError, TypeError):
        raise ValueError(f"cmap={cmap!r} is not a Matplotlib colormap: pass a name such as "
                         "'coolwarm' or a Colormap.") from None


def box_limits(points: NDArray, pad: float = 0.1, *,
               name: str = "X") -> tuple[tuple[float, float], ...]:
    """Axis limits around 2-D points with a margin of `pad` of the range on each side.

    Computed on halves, (hi - lo) / 2 = hi / 2 - lo / 2, which cannot overflow where hi - lo
    does (finite points near +-1e308). Limits Matplotlib cannot lay out (beyond
    :data:`DRAWABLE`) raise ValueError naming `name`, the input the points come from.
    """
    if not np.all(np.isfinite(points)):
        raise ValueError(f"{name}: the drawn coordinates overflow float64 (values too "
                         "large to draw); rescale it.")
    lo, hi = points.min(axis=0), points.max(axis=0)
    mid, half = lo / 2 + hi / 2, hi / 2 - lo / 2
    half = np.where(half > 0, (1 + 2 * pad) * half, pad)  # one point: +-pad around it
    with np.errstate(over="ignore"):  # judged just below: inf is refused like any too-large box
        lo, hi = mid - half, mid + half
        too_large = not np.all(np.abs([lo, hi]) <= DRAWABLE) or np.any(half > DRAWABLE / 2)
    if too_large:
        big = float(np.max(np.abs(points)))
        raise ValueError(f"{name} holds coordinates up to {big:.3g} in magnitude; Matplotlib "
                         f"lays out axes only within about +-{DRAWABLE:.0e}: rescale {name} "
                         "(e.g. divide by a power of 10).")
    return (float(lo[0]), float(hi[0])), (float(lo[1]), float(hi[1]))


MAX_QP_ROWS = 50_000
"""Rows beyond which a display leaves out what needs the max-margin QP (gamma*, the band),
with a warning: HiGHS's QP time grows about as n^1.8 on two features (0.3 s at 10^4 rows,
18 s at 10^5), and at 10^6 it ran 300 s and then failed. The LP that decides separability
takes 1.4 s at 10^6 and is kept."""


def within_the_qp(n_rows: int) -> bool:
    """Whether the maximum-margin QP is solved for `n_rows` (at most :data:`MAX_QP_ROWS`)."""
    return n_rows <= MAX_QP_ROWS


def too_many_for_the_qp(n_rows: int, what: str, instead: str = "") -> bool:
    """Whether `n_rows` exceed :data:`MAX_QP_ROWS`; if so, warn that `what` is not drawn
    (and what is drawn `instead`, a sentence, when given)."""
    if within_the_qp(n_rows):
        return False
    warnings.warn(f"{what} is not drawn for {n_rows:,} rows: the maximum-margin QP is solved "
                  f"up to {MAX_QP_ROWS:,} rows (its time grows about as n^1.8); pass a sample "
                  f"of the rows to see it.{' ' + instead if instead else ''}", UserWarning,
                  stacklevel=4)
    return True


def undecided(error: Exception, name: str) -> ValueError:
    """The ValueError a display raises, naming its input `name`, when the theory cannot decide
    its data in float64 (a :class:`~halfspaces.exceptions.SolverError`: coordinates spread
    over hundreds of decades, 1e-160 beside 1e154), instead of the solver's own error."""
    return ValueError(f"{name}: {error} The picture needs that answer: rescale {name} (its "
                      "coordinates span too many decades for float64), or drop the outlying "
                      "points.")


def clip_line(coef: NDArray, intercept: float, xlim, ylim) -> NDArray[np.float64]:
    """The segment of the line coef . p + intercept = 0 inside the box, as its two ends.

    Exact (no grid): the ends are where the line meets the box's sides, solved for the
    free coordinate; vertical and horizontal lines are the cases where one side equation
    has no solution. Returns an array of shape (2, 2), or (0, 2) when the line misses the
    box or coef is zero (no line at all).
    """
    a, intercept = normalised_line(coef[:2], intercept)
    if not np.isfinite(intercept):  # the line is beyond float64's range, so beyond the box
        return np.empty((0, 2))
    a1, a2 = float(a[0]), float(a[1])
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


def normalised_line(a: NDArray, c: float) -> tuple[NDArray[np.float64], float]:
    """The same line a . p + c = 0 with max_j |a_j| in [1, 2), by a power of two (exact).

    On a box's sides (up to 1e306) a . p then neither overflows nor underflows: coef
    (1e4, 1e10) with intercept -1.7e308 crosses a box of +-1.2e305, and coef 2^1023 (1, 1)
    the box +-2, but a1 x overflowed to inf at every side and the boundary was silently not
    drawn; the regions of that line had NaN corners, and at coef 2^-1070 (1, 1) subnormal
    products moved a corner from 2.6 to 2.63. c becomes inf where the line lies beyond
    float64's range from the origin (beyond any box).
    """
    a = np.asarray(a, dtype=np.float64)
    top = float(np.max(np.abs(a), initial=0.0))
    if top == 0.0:
        return a, float(c)
    e = -(int(np.frexp(top)[1]) - 1)
    with np.errstate(over="ignore"):
        return np.ldexp(a, e), float(np.ldexp(c, e))
