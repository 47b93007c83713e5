"""Separable or not, with the proof drawn: a separator and its band, or the shared point."""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from halfspaces.plot._base import (
    box_limits,
    clip_line,
    colormap,
    column_names,
    dense,
    new_axes,
    plus_minus_labels,
    target_vector,
)
from halfspaces.plot._hulls import hull_polygon, witness

__all__ = ["SeparabilityDisplay"]


class SeparabilityDisplay:
    r"""Two-feature data with the answer of :func:`halfspaces.theory.separability` drawn.

    Separable data: the LP separator (y_i(<w, x_i> + b) >= 1) and the band of the
    maximum-margin hyperplane (:func:`halfspaces.theory.max_margin`). Data that are not
    separable: the convex hulls of the two classes and Gordan's certificate drawn as the
    point both hulls contain, with each example's marker sized by its certificate weight
    (Gordan 1873; Shalev-Shwartz and Ben-David 2014, 9.1).

    Parameters
    ----------
    X : ndarray of shape (n_samples, 2)
    labels : ndarray of shape (n_samples,)
        +1 or -1.
    separator : tuple (coef, intercept) or None
        The LP separator (separable data).
    max_margin : tuple (coef, intercept) or None
        The maximum-margin hyperplane scaled so that min_i y_i f(x_i) = 1.
    certificate : ndarray of shape (n_samples,) or None
        Gordan's weights (data that are not separable).
    xlabel, ylabel : str, default="feature 0", "feature 1"
        The axes' names.

    Attributes
    ----------
    scatter_ : PathCollection
    separator_ : Line2D or None
    margin_lines_ : list of Line2D
        The maximum-margin band f = +-1 (empty when not separable).
    hulls_ : dict of {+1, -1} to Polygon or Line2D
        The two convex hulls (not separable).
    witness_ : PathCollection or None
        The shared point (not separable); its position is ``witness``.
    weights_ : PathCollection or None
        Rings sized by the certificate weights.
    ax_, figure_ : the Axes and Figure drawn on.

    Examples
    --------
    >>> from halfspaces.plot import SeparabilityDisplay
    >>> X = [[0.0, 0.0], [1.0, 1.0], [0.0, 1.0], [1.0, 0.0]]
    >>> SeparabilityDisplay.from_data(X, [1, 1, 0, 0]).witness
    array([0.5, 0.5])
    """

    def __init__(self, X, labels, *, separator=None, max_margin=None, certificate=None,
                 xlabel="feature 0", ylabel="feature 1"):
        self.X = np.asarray(X, dtype=np.float64)
        self.labels = np.asarray(labels, dtype=np.float64)
        self.separator = separator
        self.max_margin = max_margin
        self.certificate = None if certificate is None else np.asarray(certificate, float)
        self.witness = (None if self.certificate is None
                        else witness(self.X, self.labels, self.certificate))
        self.xlabel, self.ylabel = xlabel, ylabel

    @classmethod
    def from_data(cls, X: ArrayLike, y: ArrayLike, *, feature_names=None, ax=None, **style):
        """Decide the separability of two-feature data (with an intercept) and draw it.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, 2)
        y : array-like of shape (n_samples,)
            Two labels; the larger is +1.
        feature_names : pair of str or None, default=None
            The names of X's two columns, for the axes; None: a DataFrame's column names,
            else "feature 0" and "feature 1".
        ax : matplotlib Axes or None, default=None
        **style
            Passed to :meth:`plot`.

        Returns
        -------
        display : SeparabilityDisplay
        """
        from halfspaces.theory import max_margin, separability

        Xd = dense(X)
        if Xd.ndim != 2 or Xd.shape[1] != 2:
            raise ValueError(f"X has shape {Xd.shape}; SeparabilityDisplay draws two features. "
                             "For more, use HyperplaneDisplay with view='normal'.")
        labels = plus_minus_labels(target_vector(y, Xd.shape[0]))
        names = dict(zip(("xlabel", "ylabel"), column_names(X, 2, feature_names), strict=True))
        box_limits(Xd, name="X")  # refuse a picture Matplotlib cannot draw before solving
        found = separability(Xd, labels)
        if not found.separable:
            return cls(Xd, labels, certificate=found.certificate, **names).plot(ax=ax, **style)
        best = max_margin(Xd, labels)
        return cls(Xd, labels, separator=(found.coef, found.intercept),
                   max_margin=(best.coef, best.intercept), **names).plot(ax=ax, **style)

    def plot(self, ax=None, *, cmap: str = "coolwarm"):
        """Draw the data and the proof; return the display.

        Parameters
        ----------
        ax : matplotlib Axes or None, default=None
        cmap : str or Colormap, default="coolwarm"

        Returns
        -------
        display : SeparabilityDisplay
        """
        cmap = colormap(cmap)
        xlim, ylim = box_limits(self.X, name="X")
        figure, ax = new_axes(ax)
        ax.set_xlim(xlim)
        ax.set_ylim(ylim)
        self.scatter_ = ax.scatter(self.X[:, 0], self.X[:, 1], c=self.labels, cmap=cmap,
                                   vmin=-1, vmax=1, edgecolors="k", zorder=3)
        self.separator_, self.margin_lines_, self.hulls_ = None, [], {}
        self.witness_ = self.weights_ = None
        if self.separator is not None:
            coef, intercept = self.separator
            ends = clip_line(coef, intercept, xlim, ylim)
            (self.separator_,) = ax.plot(ends[:, 0], ends[:, 1], color="k", lw=2,
                                         label="LP separator")
            for s in (1.0, -1.0):
                ends = clip_line(self.max_margin[0], self.max_margin[1] - s, xlim, ylim)
                self.margin_lines_.append(ax.plot(ends[:, 0], ends[:, 1], color="k", ls="--",
                                                  lw=1)[0])
            self.margin_lines_[0].set_label("maximum-margin band")
        if self.certificate is not None:
            colours = {1.0: "tab:red", -1.0: "tab:blue"}
            for sign, colour in colours.items():
                hull = hull_polygon(self.X[self.labels == sign])
                self.hulls_[sign] = (ax.fill(hull[:, 0], hull[:, 1], color=colour, alpha=0.2)[0]
                                     if hull.shape[0] >= 3 else
                                     ax.plot(hull[:, 0], hull[:, 1], color=colour, lw=3,
                                             alpha=0.5)[0])
            a = self.certificate
            assert self.witness is not None  # __init__ finds it with the certificate
            self.weights_ = ax.scatter(self.X[a > 0, 0], self.X[a > 0, 1],
                                       s=50 + 600 * a[a > 0] / a.max(), facecolors="none",
                                       edgecolors="k", label="certificate weight", zorder=4)
            self.witness_ = ax.scatter([self.witness[0]], [self.witness[1]], marker="*",
                                       s=250, color="gold", edgecolors="k", zorder=5,
                                       label="point in both hulls")
        ax.set_xlabel(self.xlabel)
        ax.set_ylabel(self.ylabel)
        ax.legend(loc="best")
        self.ax_, self.figure_ = ax, figure
        return self
