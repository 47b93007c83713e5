r"""The elastic-net penalty of the sparse fits: its value, proximal step, optimality
conditions, conjugate and the smallest alpha with all-zero weights.

.. math::
    h(w) = \alpha_1 \lVert w\rVert_1 + \frac{\alpha_2}{2}\lVert w\rVert^2, \qquad
    \alpha_1 = \alpha\,\rho, \quad \alpha_2 = \alpha (1 - \rho),

rho the ``l1_ratio`` (the convention of scikit-learn's ``ElasticNet`` and ``SGDClassifier``
and of glum): rho = 0 is the L2 penalty alpha/2 ||w||^2 of the other solvers, rho = 1 the
lasso. alpha_1 and alpha_2 are the float64 products, and they define the problem that the
certified gaps speak of.

References
----------
.. [1] H. Zou and T. Hastie. Regularization and variable selection via the elastic net.
   JRSS B 67(2), 2005.
.. [2] J. Friedman, T. Hastie and R. Tibshirani. Regularization paths for generalized linear
   models via coordinate descent. Journal of Statistical Software 33(1), 2010 (alpha_max,
   Section 2.5).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from halfspaces._glm.gaps import squared_norm_upper, up, upper_sum

__all__ = ["ElasticNet"]


@dataclass(frozen=True)
class ElasticNet:
    """alpha_1 ||w||_1 + alpha_2/2 ||w||^2 with alpha_1 = alpha rho, alpha_2 = alpha (1 - rho)."""

    alpha: float
    l1_ratio: float

    @property
    def alpha1(self) -> float:
        return float(self.alpha) * float(self.l1_ratio)

    @property
    def alpha2(self) -> float:
        return float(self.alpha) * (1.0 - float(self.l1_ratio))

    def value(self, w: NDArray) -> float:
        w = np.ravel(w)
        return self.alpha1 * float(np.abs(w).sum()) + 0.5 * self.alpha2 * float(w @ w)

    def upper(self, w: NDArray) -> float:
        """h(w) bounded above against rounding."""
        w = np.ravel(np.asarray(w, dtype=np.float64))
        l1 = up(self.alpha1 * upper_sum(np.abs(w)), 2) if self.alpha1 > 0 else 0.0
        l2 = up(0.5 * self.alpha2 * squared_norm_upper(w), 2) if self.alpha2 > 0 else 0.0
        return up(l1 + l2)

    def violations(self, w: NDArray, g: NDArray) -> NDArray:
        """The distance of -g to the subdifferential of h at w, per coordinate: 0 exactly at
        the coordinates where the optimality condition 0 in g + dh(w) holds (g the
        datafit's gradient)."""
        with_l2 = g + self.alpha2 * w
        moving = np.abs(with_l2 + self.alpha1 * np.sign(w))
        resting = np.maximum(np.abs(with_l2) - self.alpha1, 0.0)
        return np.where(w != 0, moving, resting)

    def conjugate_upper(self, u: NDArray) -> float:
        """An upper bound on h*(v) for any v with |v_j| <= u_j (u >= 0, upper bounds):
        sum_j (|v_j| - alpha_1)_+^2 / (2 alpha_2), or, with alpha_2 = 0, 0 inside the box
        ||v||_inf <= alpha_1 and inf outside it."""
        excess = np.where(u > self.alpha1, np.nextafter(u - self.alpha1, np.inf), 0.0)
        if self.alpha2 == 0.0:
            return 0.0 if not np.any(excess > 0.0) else math.inf
        return up(up(squared_norm_upper(excess) / 2.0) / self.alpha2)

    def norm_bound(self, value: float) -> float:
        """An upper bound on ||w||_2 for every w with h(w) <= ``value``."""
        bounds = []
        if self.alpha1 > 0:  # ||w||_2 <= ||w||_1 <= value / alpha_1
            bounds.append(up(value / self.alpha1, 2))
        if self.alpha2 > 0:
            bounds.append(up(math.sqrt(up(up(2.0 * value) / self.alpha2, 2)), 2))
        return min(bounds, default=math.inf)
