"""The online perceptron's cumulative mistakes under Novikoff's (or Freund-Schapire's) bound."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
from numpy.typing import ArrayLike
from sklearn.utils import check_random_state

from halfspaces.exceptions import SolverError
from halfspaces.plot._base import new_axes, target_vector

__all__ = ["MAX_ORDERS", "MistakeBoundDisplay"]

MAX_ORDERS = 100
"""The most orders one picture draws: each is a curve with its own legend entry (1,000 took
25 s for 40 rows and gave an unreadable legend; 10**8 filled memory with permutations)."""


class MistakeBoundDisplay:
    r"""Cumulative mistakes of the online perceptron against examples seen, under the bound.

    Novikoff's theorem bounds the mistakes of the perceptron on any order of a separable
    sequence by (R'/\gamma')^2 on x' = (1, x) (Shalev-Shwartz and Ben-David 2014, Theorem
    9.1); on data that are not separable the display draws the best Freund-Schapire bound
    found, ((R' + D)/\gamma)^2 (Freund and Schapire 1999, Theorem 2), which holds on any
    data: also where separability cannot be decided in float64 (with a warning). The
    curves come from
    :func:`halfspaces.perceptron.online_perceptron`, the bound from
    :mod:`halfspaces.theory`, both on the same x'.

    Parameters
    ----------
    mistakes : list of ndarray of bool
        One mask per order: which example (in the order seen) caused a mistake.
    bound : float
        The mistake bound.
    bound_kind : str
        "Novikoff" or "Freund-Schapire".
    orders : list of ndarray of int
        The permutation of the examples behind each mask.

    Attributes
    ----------
    curves_ : list of Line2D
        Cumulative mistakes per order, one point per example seen.
    markers_ : list of Line2D
        One marker per mistake (per order), on its curve.
    bound_line_ : Line2D
        The horizontal line at the bound.
    bound_ : float
        The bound drawn.
    ax_, figure_ : the Axes and Figure drawn on.

    References
    ----------
    .. [1] A. B. J. Novikoff. On convergence proofs for perceptrons. 1962.
    .. [2] Y. Freund and R. E. Schapire. Large margin classification using the perceptron
       algorithm. Machine Learning 37, 1999.

    Examples
    --------
    >>> from halfspaces.plot import MistakeBoundDisplay
    >>> X = [[0.0, 0.0], [1.0, 0.0], [3.0, 1.0], [4.0, 1.0]]
    >>> disp = MistakeBoundDisplay.from_online(X, [0, 0, 1, 1], n_orders=3, random_state=0)
    >>> len(disp.curves_), bool(disp.bound_ >= max(m.sum() for m in disp.mistakes))
    (3, True)
    """

    def __init__(self, mistakes, bound: float, bound_kind: str, orders=None):
        self.mistakes = [np.asarray(m, dtype=bool) for m in mistakes]
        self.bound = float(bound)
        self.bound_kind = bound_kind
        self.orders = orders

    @property
    def bound_(self) -> float:
        """The bound drawn (the same number as ``bound``)."""
        return self.bound

    @classmethod
    def from_online(cls, X: ArrayLike, y: ArrayLike, *, n_orders: int = 1, random_state=None,
                    fit_intercept: bool = True, ax=None, **style):
        """Run the online perceptron on `n_orders` orders of (X, y) and draw the mistakes.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
            Two labels.
        n_orders : int, default=1
            The first order is the given one; the others are random permutations. At most
            :data:`MAX_ORDERS`.
        random_state : int, RandomState or None, default=None
            Seeds the permutations.
        fit_intercept : bool, default=True
            Run and bound on x' = (1, x).
        ax : matplotlib Axes or None, default=None
        **style
            Passed to :meth:`plot`.

        Returns
        -------
        display : MistakeBoundDisplay
        """
        from halfspaces.perceptron import online_perceptron

        if isinstance(n_orders, bool | np.bool_) or not isinstance(n_orders, int | np.integer) \
                or not 1 <= n_orders <= MAX_ORDERS:  # 2.5 and "3" were taken as int() of them
            raise ValueError(f"n_orders={n_orders!r} must be an int from 1 to {MAX_ORDERS} "
                             "(one curve and legend entry per order).")
        rows: Any = X if hasattr(X, "tocsr") else np.asarray(X)  # sparse as given, or an array
        n = rows.shape[0]
        y = target_vector(y, n)  # before indexing y with permutations of X's rows
        rng = check_random_state(random_state)
        orders = [np.arange(n)] + [rng.permutation(n) for _ in range(n_orders - 1)]
        mistakes = [online_perceptron(rows[o], y[o], fit_intercept=fit_intercept).mistakes
                    for o in orders]
        bound, kind = _mistake_bound(rows, y, fit_intercept)
        return cls(mistakes, bound, kind, orders).plot(ax=ax, **style)

    def plot(self, ax=None, *, show_markers: bool = True):
        """Draw the curves, the mistake markers and the bound; return the display.

        Parameters
        ----------
        ax : matplotlib Axes or None, default=None
        show_markers : bool, default=True
            Mark each mistake on its curve.

        Returns
        -------
        display : MistakeBoundDisplay
        """
        figure, ax = new_axes(ax)
        self.curves_, self.markers_ = [], []
        for k, m in enumerate(self.mistakes):
            seen = np.arange(1, m.size + 1)
            total = np.cumsum(m)
            (curve,) = ax.step(seen, total, where="post", label=f"order {k + 1}" if k else
                               "given order")
            self.curves_.append(curve)
            if show_markers:
                (mark,) = ax.plot(seen[m], total[m], ls="none", marker="o", ms=4,
                                  color=curve.get_color())
                self.markers_.append(mark)
        self.bound_line_ = ax.axhline(self.bound, color="k", ls="--",
                                      label=f"{self.bound_kind} bound {self.bound:.4g}")
        ax.set_xlabel("examples seen")
        ax.set_ylabel("cumulative mistakes")
        ax.legend(loc="best")
        self.ax_, self.figure_ = ax, figure
        return self


def _mistake_bound(X, y, fit_intercept: bool) -> tuple[float, str]:
    """Novikoff's bound on separable data, else the best Freund-Schapire bound: also where
    separability (or the margin) cannot be decided in float64, as ``certify`` does, since
    that bound holds on any data; a warning says why."""
    import halfspaces.theory as theory

    try:
        if theory.separability(X, y, fit_intercept=fit_intercept).separable:
            return theory.perceptron_mistake_bound(X, y, fit_intercept=fit_intercept), "Novikoff"
    except SolverError as error:
        warnings.warn(f"{error} The best Freund-Schapire bound is drawn instead: it holds on "
                      "any data, separable or not.", UserWarning, stacklevel=3)
    return theory.best_freund_schapire_bound(X, y, fit_intercept=fit_intercept).bound, \
        "Freund-Schapire"
