"""A hyperplane, its margin band and its errors, drawn exactly in any dimension.

The picture lives on a plane of feature space, x(p) = c + P p with P of orthonormal
columns, and a hyperplane <w, x> + b = 0 restricted to that plane is exactly the line
<P^T w, p> + (<w, c> + b) = 0: no grid of predictions and no contour approximation
(scikit-learn's ``DecisionBoundaryDisplay`` evaluates a grid and refuses more than two
features).

- ``view="features"``: the plane of two features; the other features sit at their means.
- ``view="normal"``: the plane spanned by n = w / ||w|| and the leading principal direction
  of the data orthogonal to n, through the projection of the mean onto the hyperplane. A
  point is drawn at its signed distance (<w, x> + b) / ||w|| and its coordinate along
  that direction, so the hyperplane is exactly the line x = 0, its band the lines
  x = +-1 / ||w||, and no point appears on the wrong side.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

from halfspaces.plot._base import (
    box_limits,
    check_features,
    clip_line,
    colormap,
    column_means,
    column_names,
    dense,
    estimator_hyperplane,
    new_axes,
    plus_minus_labels,
    target_vector,
)

__all__ = ["HyperplaneDisplay"]

VIEWS = ("auto", "features", "normal")
BANDS = ("model", "max-margin", None)


def _normal_plane(X: NDArray, w: NDArray, b: float) -> tuple[NDArray, NDArray]:
    """Origin c and basis P (d, 2) of the plane through the hyperplane's normal."""
    n = w / np.linalg.norm(w)
    mean = column_means(X)
    c = mean - ((mean @ w + b) / np.linalg.norm(w)) * n
    R = (X - mean) - np.outer((X - mean) @ n, n)  # the data with the normal removed
    if not np.all(np.isfinite(c)) or not np.all(np.isfinite(R)):
        raise ValueError("X: its coordinates on the normal view's plane overflow float64; "
                         "rescale X.")
    e = np.zeros_like(n)
    if R.shape[0] > 1 and np.any(R):
        # R / max|R| has the same singular vectors; LAPACK's SVD fails on values near 1e308
        e = np.linalg.svd(R / np.max(np.abs(R)), full_matrices=False)[2][0]
        e -= (e @ n) * n  # remove rounding along n: P must be exactly orthonormal
        e /= np.linalg.norm(e)
    elif n.size > 1:  # no spread beyond n: any unit vector orthogonal to n will do
        k = int(np.argmin(np.abs(n)))
        e = np.eye(n.size)[k] - n[k] * n
        e /= np.linalg.norm(e)
    return c, np.column_stack([n, e])


def _features_plane(X: NDArray, features) -> tuple[NDArray, NDArray]:
    """Origin c (the mean, with the two chosen features at 0) and the two unit vectors."""
    f = list(check_features(features, X.shape[1]))
    c = column_means(X)
    c[f] = 0.0
    return c, np.eye(X.shape[1])[:, f]


def _restrict(w, b, c, P):
    """The hyperplane <w, x> + b = 0 on the plane x = c + P p: (P^T w, <w, c> + b)."""
    if w is None:
        return None, None
    coef, intercept = P.T @ w, float(w @ c + b)
    if not (np.all(np.isfinite(coef)) and np.isfinite(intercept)):
        raise ValueError("X: the hyperplane's equation on the drawn plane overflows float64 "
                         "(<w, x> + b is too large at the data's mean); rescale X.")
    return coef, intercept


def _plane(X: NDArray, view: str, features, w: NDArray, b: float, names: list[str]):
    """Origin, basis and axis names of the view's plane (the normal view is built on (w, b));
    `names` are the columns' names."""
    if view == "features":
        f = check_features(features, X.shape[1])
        return (*_features_plane(X, f), tuple(names[i] for i in f))
    if not np.any(w):
        raise ValueError("coef is all zeros: the hyperplane and its normal view are "
                         "undefined; use view='features'.")
    return (*_normal_plane(X, w, b),
            ("signed distance (<w,x>+b)/||w||", "principal direction orthogonal to w"))


class HyperplaneDisplay:
    """The hyperplane <w, x> + b = 0 of a linear classifier, with its band and errors.

    Build it with :meth:`from_estimator`; ``__init__`` only stores what is drawn, all of it
    in the coordinates p of the display's plane (see the module docstring).

    Parameters
    ----------
    points : ndarray of shape (n_samples, 2)
        Where each example is drawn.
    labels : ndarray of shape (n_samples,)
        +1 or -1 (the estimator's ``classes_[1]`` is +1).
    coef, intercept : ndarray of shape (2,), float
        The model's hyperplane restricted to the plane: the line coef . p + intercept = 0.
    band_coef, band_intercept : ndarray of shape (2,) and float, or None
        The hyperplane whose lines coef . p + intercept = +-1 form the band (the model's,
        or the maximum-margin one), or None for no band.
    support : ndarray of int
        Indices of the support points of the maximum-margin band (empty for the model's).
    errors : ndarray of bool
        The examples the model misclassifies (ringed).
    gamma : float or None
        The certified maximum margin (``band="max-margin"``), else None.
    view : {"features", "normal"}
    xlabel, ylabel : str

    Attributes
    ----------
    boundary_ : matplotlib Line2D
        The model's line clipped exactly to the axes box.
    margin_lines_ : list of two Line2D
        The band lines f = +1 and f = -1 (empty without a band).
    band_boundary_ : Line2D or None
        The centre of the maximum-margin band (only for ``band="max-margin"``).
    scatter_ : PathCollection
        The examples, coloured by label.
    support_ : PathCollection or None
        The support points of the maximum-margin band.
    errors_ : PathCollection or None
        Rings around the misclassified examples.
    ax_, figure_ : the Axes and Figure drawn on.

    Examples
    --------
    >>> import numpy as np
    >>> from halfspaces import Perceptron
    >>> from halfspaces.plot import HyperplaneDisplay
    >>> X = np.array([[0.0, 0.0], [1.0, 0.0], [3.0, 1.0], [4.0, 1.0]])
    >>> y = np.array([0, 0, 1, 1])
    >>> disp = HyperplaneDisplay.from_estimator(Perceptron().fit(X, y), X, y)
    >>> disp.boundary_.get_xydata().shape
    (2, 2)
    """

    def __init__(self, points, labels, coef, intercept, *, band_coef=None, band_intercept=None,
                 support=(), errors=None, gamma=None, view="features", xlabel="",
                 ylabel=""):
        self.points = np.asarray(points, dtype=np.float64)
        self.labels = np.asarray(labels, dtype=np.float64)
        self.coef = np.asarray(coef, dtype=np.float64)
        self.intercept = float(intercept)
        self.band_coef = None if band_coef is None else np.asarray(band_coef, np.float64)
        self.band_intercept = None if band_intercept is None else float(band_intercept)
        self.support = np.asarray(support, dtype=np.intp)
        self.errors = (np.zeros(self.points.shape[0], bool) if errors is None
                       else np.asarray(errors, dtype=bool))
        self.gamma = None if gamma is None else float(gamma)
        self.view = view
        self.xlabel, self.ylabel = xlabel, ylabel

    @classmethod
    def from_estimator(cls, estimator, X: ArrayLike, y: ArrayLike, *, view: str = "auto",
                       features=(0, 1), band: str | None = "model", feature_names=None,
                       ax=None, **style):
        """Compute the picture of a fitted binary linear classifier on (X, y) and draw it.

        Parameters
        ----------
        estimator : fitted binary linear classifier
            Anything with ``coef_``, ``intercept_``, ``classes_`` and ``predict``.
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
            Labels among the estimator's ``classes_`` (others raise ValueError).
        view : {"auto", "features", "normal"}, default="auto"
            "auto" is "features" for two features and "normal" otherwise.
        features : pair of int, default=(0, 1)
            The two columns of ``view="features"``: different indices in
            [0, n_features); negative indices are refused (the axes name the index).
        band : {"model", "max-margin"} or None, default="model"
            "model": the lines <w, x> + b = +-1 of the estimator. "max-margin": the band of
            the certified maximum-margin hyperplane (:func:`halfspaces.theory.max_margin`),
            of width twice the margin, with its support points; ``view="normal"`` is then
            built on that hyperplane, so the band and the support points are exact in any
            dimension and the model's line is its exact trace on that plane.
        feature_names : sequence of str or None, default=None
            The names of X's columns, for the axes of ``view="features"``; None: a
            DataFrame's column names, else the estimator's ``feature_names_in_``, else
            "feature i".
        ax : matplotlib Axes or None, default=None
        **style
            Passed to :meth:`plot`.

        Returns
        -------
        display : HyperplaneDisplay
        """
        if view not in VIEWS:
            raise ValueError(f"view={view!r} must be one of {VIEWS}.")
        if band not in BANDS:
            raise ValueError(f"band={band!r} must be one of {BANDS}.")
        Xd = dense(X)
        w, b = estimator_hyperplane(estimator)
        if Xd.ndim != 2 or Xd.shape[1] != w.size:
            raise ValueError(f"X has shape {Xd.shape}; the estimator has {w.size} features.")
        y = target_vector(y, Xd.shape[0])
        labels = plus_minus_labels(y, getattr(estimator, "classes_", None))
        view = ("features" if w.size == 2 else "normal") if view == "auto" else view
        band_w, band_b, support, gamma = None, None, (), None
        if band == "model":
            band_w, band_b = w, b
        elif band == "max-margin":
            from halfspaces.theory import max_margin

            best = max_margin(X, labels, fit_intercept=getattr(estimator, "fit_intercept", True))
            band_w, band_b, support, gamma = best.coef, best.intercept, best.support, best.margin
        columns = column_names(X, Xd.shape[1], feature_names, estimator)
        c, P, names = _plane(Xd, view, features,
                             *((w, b) if band_w is None else (band_w, band_b)), columns)
        coef2, intercept2 = _restrict(w, b, c, P)
        band2 = _restrict(band_w, band_b, c, P)
        errors = np.asarray(estimator.predict(X)) != y
        display = cls((Xd - c) @ P, labels, coef2, intercept2, band_coef=band2[0],
                      band_intercept=band2[1], support=support, errors=errors, gamma=gamma,
                      view=view, xlabel=names[0], ylabel=names[1])
        return display.plot(ax=ax, **style)

    def _line(self, ax, coef, intercept, xlim, ylim, **kw):
        ends = clip_line(coef, intercept, xlim, ylim)
        (line,) = ax.plot(ends[:, 0], ends[:, 1], **kw)
        return line

    def plot(self, ax=None, *, cmap: str = "coolwarm", boundary_kw=None, scatter_kw=None):
        """Draw on `ax` (a new Figure when None) and return the display.

        Parameters
        ----------
        ax : matplotlib Axes or None, default=None
        cmap : str or Colormap, default="coolwarm"
            The colours of the two classes.
        boundary_kw, scatter_kw : dict or None
            Extra keywords for the boundary line and the scatter.

        Returns
        -------
        display : HyperplaneDisplay
        """
        cmap = colormap(cmap)
        xlim, ylim = box_limits(self.points, name="X")
        figure, ax = new_axes(ax)
        ax.set_xlim(xlim)
        ax.set_ylim(ylim)
        self.scatter_ = ax.scatter(self.points[:, 0], self.points[:, 1], c=self.labels,
                                   cmap=cmap, vmin=-1, vmax=1, edgecolors="k",
                                   **(scatter_kw or {}))
        self.boundary_ = self._line(ax, self.coef, self.intercept, xlim, ylim,
                                    **{"color": "k", "lw": 2, **(boundary_kw or {})})
        self.margin_lines_, self.band_boundary_ = [], None
        if self.band_coef is not None:
            self.margin_lines_ = [
                self._line(ax, self.band_coef, self.band_intercept - s, xlim, ylim,
                           color="k", ls="--", lw=1) for s in (1.0, -1.0)]
            if self.support.size:
                self.band_boundary_ = self._line(ax, self.band_coef, self.band_intercept,
                                                 xlim, ylim, color="0.4", ls=":", lw=1)
        self.support_ = self.errors_ = None
        if self.support.size:
            s = self.points[self.support]
            self.support_ = ax.scatter(s[:, 0], s[:, 1], s=160, facecolors="none",
                                       edgecolors="k", linewidths=1.5, label="support")
        if self.errors.any():
            e = self.points[self.errors]
            self.errors_ = ax.scatter(e[:, 0], e[:, 1], s=220, facecolors="none",
                                      edgecolors="red", linewidths=2, label="error")
        ax.set_xlabel(self.xlabel)
        ax.set_ylabel(self.ylabel)
        self.ax_, self.figure_ = ax, figure
        return self
