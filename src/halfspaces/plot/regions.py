"""The exact decision regions of a multiclass linear rule argmax_k <w_k, x> + b_k, in the plane."""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

from halfspaces.plot._base import (
    box_limits,
    check_known_labels,
    class_index,
    colormap,
    column_names,
    dense,
    estimator_scores,
    label_text,
    new_axes,
    normalised_line,
    target_vector,
)

__all__ = ["RegionsDisplay", "argmax_regions"]


def _clip(polygon: NDArray, a: NDArray, c: float) -> NDArray:
    """The part of a convex polygon where a . p + c >= 0 (one Sutherland-Hodgman step)."""
    a, c = normalised_line(a, c)
    if polygon.shape[0] == 0 or not np.isfinite(c):  # the line is beyond any box
        return polygon if c > 0 else polygon[:0]
    value = polygon @ a + c
    kept = []
    for i in range(polygon.shape[0]):
        p, q, fp, fq = polygon[i], polygon[(i + 1) % len(polygon)], value[i], value[
            (i + 1) % len(polygon)]
        if fp >= 0:
            kept.append(p)
        if (fp >= 0) != (fq >= 0):  # the edge crosses the line: add the crossing point
            kept.append(p + (fp / (fp - fq)) * (q - p))
    return np.array(kept).reshape(-1, 2)


def argmax_regions(coef: NDArray, intercept: NDArray, xlim, ylim) -> list[NDArray]:
    """For each k, the convex polygon of the box where class k has the largest score.

    Region k is the box intersected with the half-planes (w_k - w_j) . x + (b_k - b_j) >= 0
    for every j != k: exact, no grid (ties lie on shared edges).
    """
    (x0, x1), (y0, y1) = xlim, ylim
    box = np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], dtype=np.float64)
    regions = []
    for k in range(coef.shape[0]):
        polygon = box
        for j in range(coef.shape[0]):
            if j != k:
                polygon = _clip(polygon, coef[k] - coef[j], float(intercept[k] - intercept[j]))
        regions.append(polygon)
    return regions


def _estimator_classes(estimator, n_rows: int) -> NDArray:
    """``classes_``, checked against the rows of ``coef_`` (one row per class, or one for two)."""
    if not hasattr(estimator, "classes_"):
        raise ValueError(f"{type(estimator).__name__} has no classes_: pass a fitted "
                         "linear classifier.")
    classes = np.asarray(estimator.classes_)
    if classes.ndim != 1 or classes.size != (2 if n_rows == 1 else n_rows):
        raise ValueError(f"{type(estimator).__name__} has {classes.size} classes_ for "
                         f"{n_rows} rows of coef_: not an argmax linear classifier.")
    return classes


class RegionsDisplay:
    """The argmax regions of a linear multiclass classifier on two features, drawn exactly.

    For softmax regression (:class:`halfspaces.LogisticRegression` with k > 2 classes) and
    the multiclass perceptron the prediction is argmax_k <w_k, x> + b_k, so each class's
    region is a convex polygon (an intersection of half-planes); a binary classifier has the
    two half-planes of its hyperplane.

    Parameters
    ----------
    X : ndarray of shape (n_samples, 2)
    y : ndarray of shape (n_samples,)
    classes : ndarray of shape (n_classes,)
    regions : list of ndarray of shape (n_vertices, 2)
        Per class, the vertices of its region within the box, in order.
    xlim, ylim : pair of float
        The box.
    xlabel, ylabel : str, default="feature 0", "feature 1"
        The axes' names.

    Attributes
    ----------
    patches_ : list of Polygon or None
        Per class, the filled region (None when the class wins nowhere in the box).
    scatter_ : PathCollection
    ax_, figure_ : the Axes and Figure drawn on.

    Examples
    --------
    >>> import numpy as np
    >>> from halfspaces import MulticlassPerceptron
    >>> from halfspaces.plot import RegionsDisplay
    >>> X = np.array([[0.0, 0.0], [4.0, 0.0], [0.0, 4.0]])
    >>> disp = RegionsDisplay.from_estimator(MulticlassPerceptron().fit(X, [0, 1, 2]), X,
    ...                                      [0, 1, 2])
    >>> len(disp.patches_)
    3
    """

    def __init__(self, X, y, classes, regions, xlim, ylim, *, xlabel="feature 0",
                 ylabel="feature 1"):
        self.X = np.asarray(X, dtype=np.float64)
        self.y = np.asarray(y)
        self.classes = np.asarray(classes)
        self.regions = [np.asarray(r, dtype=np.float64) for r in regions]
        self.xlim, self.ylim = tuple(xlim), tuple(ylim)
        self.xlabel, self.ylabel = xlabel, ylabel

    @classmethod
    def from_estimator(cls, estimator, X: ArrayLike, y: ArrayLike, *, feature_names=None,
                       ax=None, **style):
        """Compute the argmax regions of a fitted linear classifier on two features; draw.

        Parameters
        ----------
        estimator : fitted linear classifier
            ``coef_`` of shape (n_classes, 2) (or (1, 2) for a binary one), ``intercept_``
            and ``classes_``; its prediction must be the argmax of the scores.
        X : {array-like, sparse matrix} of shape (n_samples, 2)
        y : array-like of shape (n_samples,)
            Labels among the estimator's ``classes_`` (others raise ValueError).
        feature_names : pair of str or None, default=None
            The names of X's two columns, for the axes; None: a DataFrame's column names,
            else the estimator's ``feature_names_in_``, else "feature 0" and "feature 1".
        ax : matplotlib Axes or None, default=None
        **style
            Passed to :meth:`plot`.

        Returns
        -------
        display : RegionsDisplay
        """
        Xd = dense(X)
        coef, intercept = estimator_scores(estimator)
        if Xd.ndim != 2 or Xd.shape[1] != 2 or coef.shape[1] != 2:
            raise ValueError(f"X has shape {Xd.shape}; RegionsDisplay draws two features "
                             "exactly. Fit on two columns, or use HyperplaneDisplay.")
        names = column_names(X, 2, feature_names, estimator)
        classes = _estimator_classes(estimator, coef.shape[0])
        y = target_vector(y, Xd.shape[0])
        check_known_labels(y, classes)
        if coef.shape[0] == 1:  # binary: classes_[1] where <w, x> + b > 0
            coef = np.vstack([np.zeros(2), coef[0]])
            intercept = np.array([0.0, intercept[0]])
        xlim, ylim = box_limits(Xd, name="X")
        regions = argmax_regions(coef, intercept, xlim, ylim)
        return cls(Xd, y, classes, regions, xlim, ylim, xlabel=names[0],
                   ylabel=names[1]).plot(ax=ax, **style)

    def plot(self, ax=None, *, cmap: str = "tab10", alpha: float = 0.25):
        """Fill each class's region and scatter the data; return the display.

        Parameters
        ----------
        ax : matplotlib Axes or None, default=None
        cmap : str or Colormap, default="tab10"
        alpha : float, default=0.25
            Opacity of the regions.

        Returns
        -------
        display : RegionsDisplay
        """
        colours = colormap(cmap)
        index = class_index(self.y, self.classes)
        figure, ax = new_axes(ax)
        ax.set_xlim(self.xlim)
        ax.set_ylim(self.ylim)
        self.patches_ = []
        for k, polygon in enumerate(self.regions):
            patch = None
            if polygon.shape[0] >= 3:
                (patch,) = ax.fill(polygon[:, 0], polygon[:, 1], color=colours(k % colours.N),
                                   alpha=alpha, label=f"class {label_text(self.classes[k])}")
            self.patches_.append(patch)
        self.scatter_ = ax.scatter(self.X[:, 0], self.X[:, 1], c=[colours(i % colours.N)
                                                                  for i in index],
                                   edgecolors="k")
        ax.set_xlabel(self.xlabel)
        ax.set_ylabel(self.ylabel)
        ax.legend(loc="best")
        self.ax_, self.figure_ = ax, figure
        return self
