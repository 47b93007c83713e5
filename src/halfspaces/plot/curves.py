"""Curves of numbers the library computes: solver loss curves and sample complexity."""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from halfspaces.plot._base import DRAWABLE, new_axes

__all__ = ["LossCurveDisplay", "SampleComplexityDisplay"]


class LossCurveDisplay:
    """The training loss per iteration (``loss_curve_``) of one or several fitted models.

    Parameters
    ----------
    curves : dict of str to ndarray
        Each model's ``loss_curve_``, by label (its solver).

    Attributes
    ----------
    lines_ : dict of str to Line2D
        One curve per model: x the iteration (1, 2, ...), y its loss.
    ax_, figure_ : the Axes and Figure drawn on.

    Examples
    --------
    >>> from halfspaces import LogisticRegression
    >>> from halfspaces.plot import LossCurveDisplay
    >>> X, y = [[0.0], [1.0], [2.0], [3.0]], [0, 1, 0, 1]
    >>> fits = [LogisticRegression(solver=s).fit(X, y) for s in ("lbfgs", "newton")]
    >>> sorted(LossCurveDisplay.from_estimator(fits).lines_)
    ['lbfgs', 'newton']
    """

    def __init__(self, curves):
        self.curves = {k: np.asarray(v, dtype=np.float64) for k, v in curves.items()}

    @classmethod
    def from_estimator(cls, estimator, *, ax=None, **style):
        """Read ``loss_curve_`` from a fitted model (or a list of them) and draw it.

        Parameters
        ----------
        estimator : fitted estimator with ``loss_curve_``, or a list of them
            Each is labelled by its ``solver`` parameter (with its position when two share
            a solver).
        ax : matplotlib Axes or None, default=None
        **style
            Passed to :meth:`plot`.

        Returns
        -------
        display : LossCurveDisplay
        """
        models = estimator if isinstance(estimator, (list, tuple)) else [estimator]
        curves = {}
        for i, model in enumerate(models):
            if not hasattr(model, "loss_curve_"):
                raise ValueError(f"{type(model).__name__} has no loss_curve_: pass fitted "
                                 "LogisticRegression or LinearRegression models.")
            label = str(getattr(model, "solver", type(model).__name__))
            curves[label if label not in curves else f"{label} ({i})"] = model.loss_curve_
        return cls(curves).plot(ax=ax, **style)

    def plot(self, ax=None, *, log: bool = False):
        """Draw the curves; return the display.

        Parameters
        ----------
        ax : matplotlib Axes or None, default=None
        log : bool, default=False
            A logarithmic loss axis.

        Returns
        -------
        display : LossCurveDisplay
        """
        figure, ax = new_axes(ax)
        self.lines_ = {}
        for label, curve in self.curves.items():
            (self.lines_[label],) = ax.plot(np.arange(1, curve.size + 1), curve, label=label)
        if log:
            ax.set_yscale("log")
        ax.set_xlabel("iteration")
        ax.set_ylabel("training loss")
        ax.legend(loc="best")
        self.ax_, self.figure_ = ax, figure
        return self


def _check_drawable(epsilons, samples) -> None:
    """ValueError naming the epsilons whose exact sample counts no plot can draw.

    sample_complexity returns exact integers: at epsilon = 1e-300 the agnostic rate has about
    600 digits, which Matplotlib cannot convert to a float (OverflowError deep inside it).
    """
    for kind, counts in samples.items():
        too_big = [float(e) for e, m in zip(epsilons, counts, strict=True) if m > DRAWABLE]
        if too_big:
            raise ValueError(f"epsilons {too_big[:5]}: the {kind} sample complexity there "
                             f"exceeds {DRAWABLE:.0e}, beyond what a plot can draw; use "
                             "larger epsilons or a smaller vc_dim (the exact number is "
                             "halfspaces.theory.sample_complexity's).")


class SampleComplexityDisplay:
    r"""Samples that suffice to PAC-learn, against the accuracy epsilon, both rates.

    The numbers are :func:`halfspaces.theory.sample_complexity`,
    m = ceil(C (d + ln(1/delta)) / epsilon) when realizable and / epsilon^2 when agnostic
    (Shalev-Shwartz and Ben-David 2014, Theorem 6.8), drawn on log-log axes where the two
    rates are lines of slope -1 and -2.

    Parameters
    ----------
    epsilons : ndarray
    samples : dict of {"realizable", "agnostic"} to ndarray of int
    vc_dim : int
    delta : float

    Attributes
    ----------
    lines_ : dict of str to Line2D
    ax_, figure_ : the Axes and Figure drawn on.

    Examples
    --------
    >>> from halfspaces.plot import SampleComplexityDisplay
    >>> disp = SampleComplexityDisplay.from_bounds(3, 0.05, [0.1, 0.01])
    >>> disp.samples["realizable"].tolist(), disp.samples["agnostic"].tolist()
    ([60, 600], [600, 59958])
    """

    def __init__(self, epsilons, samples, vc_dim: int, delta: float):
        self.epsilons = np.asarray(epsilons, dtype=np.float64)
        self.samples = {k: np.asarray(v) for k, v in samples.items()}
        self.vc_dim, self.delta = int(vc_dim), float(delta)

    @classmethod
    def from_bounds(cls, vc_dim: int, delta: float, epsilons: ArrayLike | None = None, *,
                    C: float = 1.0, ax=None, **style):
        """Compute both rates at each epsilon and draw them.

        Parameters
        ----------
        vc_dim : int
            The VC dimension d (n_features + 1 for affine halfspaces).
        delta : float
            Confidence parameter in (0, 1).
        epsilons : array-like or None, default=None
            Accuracies in (0, 1); 30 points from 0.005 to 0.5 when None.
        C : float, default=1.0
            The universal constant.
        ax : matplotlib Axes or None, default=None
        **style
            Passed to :meth:`plot`.

        Returns
        -------
        display : SampleComplexityDisplay
        """
        from halfspaces.theory import sample_complexity

        eps = (np.geomspace(0.005, 0.5, 30) if epsilons is None
               else np.asarray(epsilons, dtype=np.float64))
        if eps.ndim != 1 or eps.size == 0:
            raise ValueError(f"epsilons={epsilons!r} must be a non-empty list of accuracies "
                             "in (0, 1).")
        samples = {kind: np.array([sample_complexity(float(e), delta, vc_dim,
                                                     realizable=kind == "realizable", C=C)
                                   for e in eps])
                   for kind in ("realizable", "agnostic")}
        _check_drawable(eps, samples)
        return cls(eps, samples, vc_dim, delta).plot(ax=ax, **style)

    def plot(self, ax=None):
        """Draw both rates on log-log axes; return the display.

        Parameters
        ----------
        ax : matplotlib Axes or None, default=None

        Returns
        -------
        display : SampleComplexityDisplay
        """
        figure, ax = new_axes(ax)
        self.lines_ = {kind: ax.plot(self.epsilons, m, marker=".", label=kind)[0]
                       for kind, m in self.samples.items()}
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("accuracy epsilon")
        ax.set_ylabel("samples m")
        ax.set_title(f"VC dimension {self.vc_dim}, delta = {self.delta:g}")
        ax.legend(loc="best")
        self.ax_, self.figure_ = ax, figure
        return self
