"""Shattering drawn as a proof: every labeling with its exact separator or its certificate."""

from __future__ import annotations

from itertools import product

import numpy as np
from numpy.typing import ArrayLike, NDArray

from halfspaces.exceptions import SolverError
from halfspaces.plot._base import (
    box_limits,
    clip_line,
    colormap,
    require_matplotlib,
    undecided,
)
from halfspaces.plot._hulls import hull_polygon, witness

__all__ = ["ShatterDisplay"]

MAX_POINTS = 5


class ShatterDisplay:
    r"""One panel per labeling of m points in the plane: its LP separator, or why none exists.

    Each of the 2^m labelings (in the order of ``itertools.product([-1, 1], repeat=m)``)
    is decided exactly by :func:`halfspaces.theory.separability`; a realisable labeling is
    drawn with the separator it returns, an unrealisable one with the two hulls its Gordan
    certificate names and their common point. Three points in general position give 8
    separators (the VC dimension of halfspaces in the plane is 3); for XOR the certificate
    is the crossing diagonals (Shalev-Shwartz and Ben-David 2014, Theorem 9.2). This is a
    proof, where the usual demonstration with ``SVC(C=1e10)`` is a heuristic.

    Parameters
    ----------
    points : ndarray of shape (m, 2)
    labelings : ndarray of shape (2^m, m)
        Values in {-1, +1}.
    separators : list of (coef, intercept) or None
        Per labeling, a hyperplane with y_i(<w, x_i> + b) >= 1, or None.
    certificates : list of ndarray or None
        Per labeling, Gordan's weights when it is not realisable, else None.

    Attributes
    ----------
    axes_ : ndarray of Axes
        The 2^m panels, in the order of `labelings`.
    lines_ : list of Line2D or None
        Per panel, the separator clipped to the panel's box (None when unrealisable).
    witnesses_ : list of PathCollection or None
        Per panel, the point both hulls share (None when realisable).
    ax_ : ndarray of Axes
        The same as ``axes_``.
    figure_ : Figure

    Examples
    --------
    >>> from halfspaces.plot import ShatterDisplay
    >>> disp = ShatterDisplay.from_points([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]])
    >>> len(disp.axes_), disp.shattered
    (8, True)
    """

    def __init__(self, points, labelings, separators, certificates):
        self.points = np.asarray(points, dtype=np.float64)
        self.labelings = np.asarray(labelings)
        self.separators = list(separators)
        self.certificates = list(certificates)

    @property
    def shattered(self) -> bool:
        """Whether every labeling is realised."""
        return all(s is not None for s in self.separators)

    @classmethod
    def from_points(cls, points: ArrayLike, *, ax=None, **style):
        """Decide every labeling of the points (affine halfspaces) and draw the grid.

        Parameters
        ----------
        points : array-like of shape (m, 2)
            At most 5 points in the plane.
        ax : sequence of 2^m Axes or None, default=None
        **style
            Passed to :meth:`plot`.

        Returns
        -------
        display : ShatterDisplay
        """
        from halfspaces.theory import separability

        points = np.asarray(points, dtype=np.float64)
        if points.ndim != 2 or points.shape[1] != 2 or not 1 <= points.shape[0] <= MAX_POINTS:
            raise ValueError(f"points has shape {points.shape}; ShatterDisplay draws 1 to "
                             f"{MAX_POINTS} points in the plane (shape (m, 2)). For more "
                             "points or dimensions use halfspaces.theory.shatters.")
        bad = np.argwhere(~np.isfinite(points))
        if bad.size:  # named before box_limits, which takes any non-finite value for overflow
            i, j = bad[0]
            raise ValueError(f"points holds {points[i, j]} at row {i}, column {j}; every "
                             "coordinate must be a finite number.")
        box_limits(points, pad=0.3, name="points")  # before the 2^m separability LPs
        labelings = np.array(list(product((-1, 1), repeat=points.shape[0])))
        separators: list[tuple[NDArray | None, float | None] | None] = []
        certificates: list[NDArray | None] = []
        for labels in labelings:
            if np.all(labels == labels[0]):  # one class: separability needs two labels
                separators.append((np.zeros(2), float(labels[0])))
                certificates.append(None)
                continue
            try:
                found = separability(points, labels)
            except SolverError as error:
                raise undecided(error, "points") from error
            separators.append((found.coef, found.intercept) if found.separable else None)
            certificates.append(found.certificate)
        return cls(points, labelings, separators, certificates).plot(ax=ax, **style)

    def plot(self, ax=None, *, cmap: str = "coolwarm"):
        """Draw one panel per labeling; return the display.

        Parameters
        ----------
        ax : sequence of Axes or None, default=None
            As many Axes as labelings; None makes a grid on a new Figure.
        cmap : str or Colormap, default="coolwarm"

        Returns
        -------
        display : ShatterDisplay
        """
        require_matplotlib()
        cmap = colormap(cmap)
        xlim, ylim = box_limits(self.points, pad=0.3, name="points")
        n = len(self.labelings)
        if ax is None:
            from matplotlib.figure import Figure

            cols = min(n, 4)
            rows = -(-n // cols)
            figure = Figure(figsize=(2.5 * cols, 2.5 * rows))
            axes = np.ravel(figure.subplots(rows, cols, squeeze=False))
            for extra in axes[n:]:
                extra.set_visible(False)
            axes = axes[:n]
        else:
            axes = np.ravel(np.asarray(ax, dtype=object))
            if axes.size != n:
                raise ValueError(f"ax holds {axes.size} Axes; this grid has {n} panels.")
            from matplotlib.axes import Axes

            if not all(isinstance(a, Axes) for a in axes):
                raise TypeError("ax must be a sequence of Matplotlib Axes or None.")
            figure = axes[0].figure
        self.lines_: list = []  # Line2D or None per panel
        self.witnesses_: list = []  # PathCollection or None per panel
        for panel, labels, sep, cert in zip(axes, self.labelings, self.separators,
                                            self.certificates, strict=True):
            self._panel(panel, labels, sep, cert, xlim, ylim, cmap)
        self.axes_ = self.ax_ = axes
        self.figure_ = figure
        return self

    def _panel(self, ax, labels, sep, cert, xlim, ylim, cmap):
        ax.set_xlim(xlim)
        ax.set_ylim(ylim)
        ax.set_xticks([])
        ax.set_yticks([])
        ax.scatter(self.points[:, 0], self.points[:, 1], c=labels, cmap=cmap, vmin=-1, vmax=1,
                   edgecolors="k", zorder=3)
        line = mark = None
        if sep is not None:
            ends = clip_line(sep[0], sep[1], xlim, ylim)
            (line,) = ax.plot(ends[:, 0], ends[:, 1], color="k")
        else:
            for sign, colour in ((1, "tab:red"), (-1, "tab:blue")):
                used = (labels == sign) & (cert > 0)
                hull = hull_polygon(self.points[used])
                ax.plot(*np.vstack([hull, hull[:1]]).T, color=colour, lw=2)
            at = witness(self.points, labels, cert)
            mark = ax.scatter([at[0]], [at[1]], marker="*", s=150, color="gold",
                              edgecolors="k", zorder=4)
            ax.set_title("not realisable", fontsize=8)
        self.lines_.append(line)
        self.witnesses_.append(mark)
