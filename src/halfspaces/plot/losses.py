"""The losses of :mod:`halfspaces.losses` as curves of the margin z = y f."""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from halfspaces.plot._base import new_axes

__all__ = ["LossDisplay"]


class LossDisplay:
    r"""The surrogate losses against the margin z, with the 0-1 loss they stand in for.

    The curves are :data:`halfspaces.losses.LOSSES` evaluated on a grid of z (no loss is
    written again here). A loss *upper-bounds* the 0-1 loss when l(z) >= [z <= 0] at every
    z of the grid, which always holds z = 0: the hinge loss does; the natural-log logistic
    loss (ln 2 < 1 at z = 0), the perceptron loss and the halved squared loss do not
    (Shalev-Shwartz and Ben-David 2014, 12.3).

    Parameters
    ----------
    z : ndarray of shape (n_points,)
        The margins.
    values : dict of str to ndarray
        Each loss's value at `z`, by name.
    upper_bounds : dict of str to bool
        Whether each loss is >= the 0-1 loss on `z`.

    Attributes
    ----------
    lines_ : dict of str to Line2D
        One curve per loss (the 0-1 loss as a step).
    ax_, figure_ : the Axes and Figure drawn on.

    Examples
    --------
    >>> from halfspaces.plot import LossDisplay
    >>> disp = LossDisplay.from_losses(["hinge", "logistic"])
    >>> sorted(disp.lines_), disp.upper_bounds
    (['hinge', 'logistic', 'zero_one'], {'hinge': True, 'logistic': False})
    """

    def __init__(self, z, values, upper_bounds):
        self.z = np.asarray(z, dtype=np.float64)
        self.values = dict(values)
        self.upper_bounds = dict(upper_bounds)

    @classmethod
    def from_losses(cls, names=None, *, z: ArrayLike | None = None, ax=None, **style):
        """Evaluate the named losses (all of them when None) and draw them.

        Parameters
        ----------
        names : list of str or None, default=None
            Names in :data:`halfspaces.losses.LOSSES`; the 0-1 loss is always drawn.
        z : array-like or None, default=None
            The margins; 601 points on [-3, 3] (z = 0 always included).
        ax : matplotlib Axes or None, default=None
        **style
            Passed to :meth:`plot`.

        Returns
        -------
        display : LossDisplay
        """
        from halfspaces.losses import LOSSES, get_loss

        names = [n for n in (LOSSES if names is None else names) if n != "zero_one"]
        z = np.linspace(-3.0, 3.0, 601) if z is None else np.asarray(z, dtype=np.float64)
        if z.ndim != 1 or not np.all(np.isfinite(z)):
            # a nan margin compares False everywhere and would deny hinge its upper bound
            raise ValueError("z must be a 1-D array of finite margins.")
        z = np.union1d(z, [0.0])
        zero_one = get_loss("zero_one").value(z)
        values = {"zero_one": zero_one}
        with np.errstate(over="ignore"):
            values.update({n: get_loss(n).value(z) for n in names})
        for name, value in values.items():
            if not np.all(np.isfinite(value)):
                # an inf loss cannot be drawn (Matplotlib's limits become NaN)
                where = float(z[np.argmax(~np.isfinite(value))])
                raise ValueError(f"z holds the margin {where!r}, where the {name} loss "
                                 "overflows float64; give margins of a smaller size.")
        upper = {n: bool(np.all(values[n] >= zero_one)) for n in names}
        return cls(z, values, upper).plot(ax=ax, **style)

    def plot(self, ax=None, *, ylim=(-0.1, 4.0)):
        """Draw every loss against z; return the display.

        Parameters
        ----------
        ax : matplotlib Axes or None, default=None
        ylim : pair of float, default=(-0.1, 4.0)

        Returns
        -------
        display : LossDisplay
        """
        figure, ax = new_axes(ax)
        self.lines_ = {}
        for name, value in self.values.items():
            if name == "zero_one":
                (line,) = ax.step(self.z, value, where="pre", color="k", lw=2, label="0-1")
            else:
                mark = " (>= 0-1)" if self.upper_bounds.get(name) else ""
                (line,) = ax.plot(self.z, value, label=name + mark)
            self.lines_[name] = line
        ax.set_ylim(ylim)
        ax.set_xlabel("margin z = y f(x)")
        ax.set_ylabel("loss")
        ax.legend(loc="upper right")
        self.ax_, self.figure_ = ax, figure
        return self
