"""The distribution of geometric margins of a linear classifier, per class, in any dimension."""

from __future__ import annotations

import warnings

import numpy as np
from numpy.typing import ArrayLike

from halfspaces.exceptions import SolverError
from halfspaces.plot._base import (
    estimator_hyperplane,
    label_text,
    new_axes,
    plus_minus_labels,
    row_count,
    target_vector,
)

__all__ = ["MarginDisplay"]


class MarginDisplay:
    r"""Empirical distribution functions of the geometric margins y_i(<w, x_i> + b)/||w||.

    One curve per class, with vertical lines at 0 (left of it: the errors), at the model's
    margin min_i (its smallest geometric margin, :func:`halfspaces.theory.margin`) and, on
    separable data, at the certified maximum margin gamma* of
    :func:`halfspaces.theory.max_margin`, which no hyperplane exceeds: the model's line is
    never right of it. Where separability cannot be decided in float64 there is no gamma*
    line, and a warning says why.

    Parameters
    ----------
    margins : dict of label to ndarray
        The sorted geometric margins of each class.
    model_margin : float
        The smallest geometric margin of the model.
    gamma : float or None
        The maximum margin, or None when the data are not separable.

    Attributes
    ----------
    lines_ : dict of label to Line2D
        The distribution functions: x the sorted margins, y = k / n_class.
    zero_line_, margin_line_ : Line2D
        The vertical lines at 0 and at the model's margin.
    gamma_line_ : Line2D or None
        The vertical line at gamma* (None when the data are not separable).
    ax_, figure_ : the Axes and Figure drawn on.

    Examples
    --------
    >>> import numpy as np
    >>> from halfspaces import Perceptron
    >>> from halfspaces.plot import MarginDisplay
    >>> X = np.array([[0.0, 0.0], [1.0, 0.0], [3.0, 1.0], [4.0, 1.0]])
    >>> y = np.array([0, 0, 1, 1])
    >>> disp = MarginDisplay.from_estimator(Perceptron().fit(X, y), X, y)
    >>> bool(disp.model_margin <= disp.gamma)
    True
    """

    def __init__(self, margins, model_margin: float, gamma: float | None):
        self.margins = {k: np.sort(np.asarray(v, dtype=np.float64)) for k, v in margins.items()}
        self.model_margin = float(model_margin)
        self.gamma = None if gamma is None else float(gamma)

    @classmethod
    def from_estimator(cls, estimator, X: ArrayLike, y: ArrayLike, *, ax=None, **style):
        """Compute the geometric margins of a fitted binary linear classifier and draw them.

        Parameters
        ----------
        estimator : fitted binary linear classifier
            With ``coef_``, ``intercept_`` and ``classes_``.
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Dense or sparse; any dimension.
        y : array-like of shape (n_samples,)
        ax : matplotlib Axes or None, default=None
        **style
            Passed to :meth:`plot`.

        Returns
        -------
        display : MarginDisplay
        """
        from halfspaces.theory import geometric_margins

        w, b = estimator_hyperplane(estimator)
        y = target_vector(y, row_count(X))
        labels = plus_minus_labels(y, getattr(estimator, "classes_", None))
        m = geometric_margins(X, labels, w, b)
        fit_intercept = getattr(estimator, "fit_intercept", True)
        gamma = _max_margin(X, labels, fit_intercept)
        by_class = {c: m[y == c] for c in np.unique(y)}
        return cls(by_class, float(m.min()), gamma).plot(ax=ax, **style)

    def plot(self, ax=None):
        """Draw the distribution functions and the three vertical lines; return the display.

        Parameters
        ----------
        ax : matplotlib Axes or None, default=None

        Returns
        -------
        display : MarginDisplay
        """
        figure, ax = new_axes(ax)
        self.lines_ = {}
        for label, m in self.margins.items():
            share = np.arange(1, m.size + 1) / m.size
            (self.lines_[label],) = ax.step(m, share, where="post",
                                            label=f"class {label_text(label)}")
        self.zero_line_ = ax.axvline(0.0, color="k", lw=1)
        self.margin_line_ = ax.axvline(self.model_margin, color="tab:red", ls="--",
                                       label=f"model margin {self.model_margin:.4g}")
        self.gamma_line_ = None
        if self.gamma is not None and np.isfinite(self.gamma):
            self.gamma_line_ = ax.axvline(self.gamma, color="tab:green", ls="--",
                                          label=f"max margin gamma* {self.gamma:.4g}")
        ax.set_xlabel("geometric margin y(<w,x>+b)/||w||")
        ax.set_ylabel("fraction of the class")
        ax.legend(loc="best")
        self.ax_, self.figure_ = ax, figure
        return self


def _max_margin(X, labels, fit_intercept: bool) -> float | None:
    """gamma* on separable data; None on data that are not, or where separability (or the
    margin) cannot be decided in float64: the display then draws no gamma* line, and a
    warning says why (as ``certify`` reports it)."""
    import halfspaces.theory as theory

    try:
        if theory.separability(X, labels, fit_intercept=fit_intercept).separable:
            return theory.max_margin(X, labels, fit_intercept=fit_intercept).margin
    except SolverError as error:
        warnings.warn(f"{error} No max-margin line is drawn.", UserWarning, stacklevel=3)
    return None
