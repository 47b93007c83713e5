"""The online perceptron's cumulative mistakes under Novikoff's (or Freund-Schapire's) bound."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
from numpy.typing import ArrayLike
from sklearn.utils import check_random_state

from halfspaces.exceptions import SolverError
from halfspaces.plot._base import (
    new_axes,
    row_count,
    target_vector,
    too_many_for_the_qp,
    within_the_qp,
)

__all__ = ["MAX_ORDERS", "MAX_SEEN", "MistakeBoundDisplay"]

MAX_ORDERS = 100
"""The most orders one picture draws: each is a curve with its own legend entry (1,000 took
25 s for 40 rows and gave an unreadable legend; 10**8 filled memory with permutations)."""

MAX_SEEN = 10_000_000
"""The most examples one curve follows (passes x rows): its mask holds a byte per example
seen, and its curve a point each."""


class MistakeBoundDisplay:
    r"""Cumulative mistakes of the online perceptron against examples seen, under the bound.

    Novikoff's theorem bounds the mistakes of the perceptron on any order of a separable
    sequence by (R'/\gamma')^2 on x' = (1, x) (Shalev-Shwartz and Ben-David 2014, Theorem
    9.1), however long: over several passes too, where the curve flattens once a pass makes
    no mistake; on data that are not separable the display draws the best Freund-Schapire
    bound found, ((R' + D)/\gamma)^2 (Freund and Schapire 1999, Theorem 2), which holds on
    any data: also where separability cannot be decided in float64, and beyond
    :data:`~halfspaces.plot._base.MAX_QP_ROWS` rows, where Novikoff's margin needs a QP too
    slow to solve (each with a warning). Over
    K passes that theorem is applied to the sample repeated K times: R' is the same and D
    grows to sqrt(K) D, at the (u, gamma) found best for one pass. The curves come from
    :func:`halfspaces.perceptron.online_perceptron`, the bound from
    :mod:`halfspaces.theory`, both on the same x'.

    Parameters
    ----------
    mistakes : list of ndarray of bool
        One mask per order: which example (in the order seen, pass after pass) caused a
        mistake.
    bound : float
        The mistake bound.
    bound_kind : str
        "Novikoff" or "Freund-Schapire".
    orders : list of ndarray of int
        The permutation of the examples behind each mask.
    n_passes : int, default=1
        The passes over the examples each mask follows (its length is n_passes times the
        number of examples).

    Attributes
    ----------
    curves_ : list of Line2D
        Cumulative mistakes per order, one point per example seen.
    markers_ : list of Line2D
        One marker per mistake (per order), on its curve.
    bound_line_ : Line2D
        The horizontal line at the bound.
    pass_lines_ : list of Line2D
        A dotted vertical line where each pass after the first begins.
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

    def __init__(self, mistakes, bound: float, bound_kind: str, orders=None, n_passes=1):
        self.mistakes = [np.asarray(m, dtype=bool) for m in mistakes]
        self.bound = float(bound)
        self.bound_kind = bound_kind
        self.orders = orders
        self.n_passes = n_passes

    @property
    def bound_(self) -> float:
        """The bound drawn (the same number as ``bound``)."""
        return self.bound

    @classmethod
    def from_online(cls, X: ArrayLike, y: ArrayLike, *, n_orders: int = 1, random_state=None,
                    fit_intercept: bool = True, n_passes: int = 1, ax=None, **style):
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
        n_passes : int, default=1
            Passes over each order (the perceptron keeps its weights from one pass to the
            next, and stops early after a pass without a mistake, as
            :class:`halfspaces.Perceptron` does); at most :data:`MAX_SEEN` examples seen.
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
        _check_passes(n_passes, n)
        y = target_vector(y, n)  # before indexing y with permutations of X's rows
        rng = check_random_state(random_state)
        orders = [np.arange(n)] + [rng.permutation(n) for _ in range(n_orders - 1)]
        if n_passes == 1:
            mistakes = [online_perceptron(rows[o], y[o], fit_intercept=fit_intercept).mistakes
                        for o in orders]
        else:
            mistakes = [_passes(rows[o], y[o], fit_intercept, int(n_passes)) for o in orders]
        bound, kind = _mistake_bound(rows, y, fit_intercept, int(n_passes))
        return cls(mistakes, bound, kind, orders, int(n_passes)).plot(ax=ax, **style)

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
        n = self.mistakes[0].size // self.n_passes if self.mistakes else 0
        self.pass_lines_ = [ax.axvline(k * n + 0.5, color="0.6", ls=":", lw=0.8)
                            for k in range(1, self.n_passes)]
        ax.set_xlabel("examples seen" if self.n_passes == 1 else
                      f"examples seen ({self.n_passes} passes of {n})")
        ax.set_ylabel("cumulative mistakes")
        ax.legend(loc="best")
        self.ax_, self.figure_ = ax, figure
        return self


def _check_passes(n_passes, n: int) -> None:
    if isinstance(n_passes, bool | np.bool_) or not isinstance(n_passes, int | np.integer) \
            or n_passes < 1:
        raise ValueError(f"n_passes={n_passes!r} must be a positive int (passes over the "
                         "examples).")
    if n_passes * n > MAX_SEEN:
        raise ValueError(f"n_passes={n_passes!r} over {n:,} examples is {n_passes * n:,} "
                         f"examples seen; a curve follows at most {MAX_SEEN:,} (MAX_SEEN): "
                         "draw fewer passes, or a sample of the rows.")


def _passes(X, y, fit_intercept: bool, n_passes: int) -> np.ndarray:
    """The mistakes of `n_passes` cyclic passes of the perceptron over (X, y), as one mask
    over the examples seen (all False after a pass without a mistake, where it stops)."""
    from sklearn.utils import check_X_y

    from halfspaces._perceptron.run import run_perceptron
    from halfspaces._validation import (
        LOOP_CHECKS_FINITE,
        check_sparse_structure,
        checked_input,
        encode_targets,
    )

    Xc, yc = check_X_y(check_sparse_structure(X), y, **LOOP_CHECKS_FINITE)
    data = checked_input(Xc, X)
    targets = encode_targets(yc)
    run = run_perceptron(data, targets.labels, positive=targets.positives[0],
                         fit_intercept=fit_intercept, max_epochs=n_passes,
                         record_updates=True)
    mistakes = np.zeros(n_passes * data.shape[0], dtype=np.bool_)
    if run.update_steps is not None:
        mistakes[run.update_steps - 1] = True  # steps count the examples seen, from 1
    return mistakes


def _mistake_bound(X, y, fit_intercept: bool, n_passes: int = 1) -> tuple[float, str]:
    """Novikoff's bound on separable data, else the best Freund-Schapire bound: also where
    separability (or the margin) cannot be decided in float64, as ``certify`` does, and
    beyond :data:`~halfspaces.plot._base.MAX_QP_ROWS` rows, where Novikoff's margin needs
    a QP that ran 300 s and then failed on 10^6 rows, since that bound holds on any data
    (its search then leaves out the same QP); a warning says why. Over `n_passes` passes
    Novikoff's is the same, and Freund-Schapire's is that of the sample repeated, at the
    best (u, gamma) found for one pass."""
    import halfspaces.theory as theory

    n_rows = row_count(X)
    try:
        if theory.separability(X, y, fit_intercept=fit_intercept).separable and not \
                too_many_for_the_qp(n_rows, "Novikoff's bound", "The best Freund-Schapire "
                                    "bound is drawn instead: it holds on any data."):
            return theory.perceptron_mistake_bound(X, y, fit_intercept=fit_intercept), "Novikoff"
    except SolverError as error:
        warnings.warn(f"{error} The best Freund-Schapire bound is drawn instead: it holds on "
                      "any data, separable or not.", UserWarning, stacklevel=3)
    best = theory.best_freund_schapire_bound(X, y, fit_intercept=fit_intercept,
                                             hard_margin=within_the_qp(n_rows))
    if n_passes == 1 or not 0.0 < best.gamma < np.inf:
        # K times one pass's bound holds for K passes: R + sqrt(K) D <= sqrt(K) (R + D)
        bound = best.bound if n_passes == 1 else np.nextafter(best.bound * n_passes, np.inf)
        return float(bound), "Freund-Schapire"
    return theory.freund_schapire_bound(X, y, best.u, best.gamma, fit_intercept=fit_intercept,
                                        passes=n_passes), "Freund-Schapire"
