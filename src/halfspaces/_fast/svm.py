"""Dual coordinate descent for the L2-regularised linear SVM (hinge and squared hinge).

The loop minimises the SVM dual of Hsieh et al. [1]_ (LIBLINEAR's ``-s 3`` and ``-s 1``)

    f(a) = 1/2 a^T (Q + D) a - sum_i a_i,   0 <= a_i <= upper_i,   Q_ij = y_i y_j <x_i, x_j>,

keeping w = sum_i a_i y_i x_i up to date, one coordinate at a time in a random order, with
the shrinking of [1]_ (Section 3.2): a coordinate at a bound whose projected gradient points
out of the box by more than the last pass's largest violation leaves the active set until
the active set looks optimal, when every coordinate is checked again.

That check differs from LIBLINEAR's in one respect: LIBLINEAR resets the thresholds to
infinity for it, so the check shrinks nothing and the pass after it is a second pass over
every coordinate; here the check keeps the last pass's thresholds and shrinks as it goes.
Counted on ijcnn1 (C = 1, eps = 1e-4, four seeds), two thirds of LIBLINEAR's coordinate
visits were in those pairs of whole passes (69 whole passes of 14,987 in one run, 1.03 of
1.52 million visits); keeping the thresholds took the visits to 0.34-0.93 million for the
same number of updates. The loop still stops only after a pass that started with every
coordinate, so each coordinate's projected gradient has been seen within ``eps``: one
shrunk in that pass is at its bound with its gradient pointing out of the box, a projected
gradient of 0, which the pass counts as LIBLINEAR's does.

The hinge has ``diag = 0`` and ``upper = C``; the squared hinge ``diag = 1 / (2 C)`` and
``upper = inf``; the hard margin ``diag = 0`` and ``upper = inf`` (C = inf). Per-example
values of ``upper`` and ``diag`` are example weights (C_i = C s_i).

The intercept is not penalised, so the dual gains the constraint sum_i y_i a_i = 0, which
single-coordinate steps cannot keep. The loop keeps it by the method of multipliers
(Hestenes 1969, Powell 1969; [2]_ Chapter 17.3): it minimises the augmented Lagrangian

    f(a) + mu s + rho/2 s^2,   s = sum_i y_i a_i,

whose coordinate gradient is the SVM's with the intercept b = mu + rho s, and after each
pass moves the multiplier, mu <- mu + rho s. At the solution s = 0 and mu is the intercept
b*. With ``rho = 0`` and ``mu = 0`` it is LIBLINEAR's loop exactly (no intercept, or one
fixed at mu). ``lagrange`` holds (mu, s) and is updated in place, so a later call warm
starts from the same point.

References
----------
.. [1] C.-J. Hsieh, K.-W. Chang, C.-J. Lin, S. S. Keerthi and S. Sundararajan. A dual
   coordinate descent method for large-scale linear SVM. ICML 2008.
.. [2] J. Nocedal and S. J. Wright. Numerical Optimization, 2nd edition. Springer, 2006.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from halfspaces._fast._dense_or_csr import n_rows, row_axpy, row_dot

# below this a projected gradient is zero: the step would change nothing (LIBLINEAR's 1e-12)
_NEGLIGIBLE = 1e-12
# the order's generator: Park and Miller's minimal standard (Lehmer, multiplier 48271), one
# multiplication and one remainder per draw in int64 (48271 * 2^31 < 2^63), the same numbers
# compiled or not, and no global state touched (NumPy's, under NUMBA_DISABLE_JIT)
_MODULUS = 2147483647
_MULTIPLIER = 48271


@njit(cache=True, nogil=True)
def dual_coordinate_descent(X, y, qdiag, upper, diag, a, w, lagrange, rho, seed,
                            max_epochs, eps):
    """Passes of dual coordinate descent until the projected gradients agree within eps.

    Parameters (all updated in place where noted): ``y`` in {-1, +1} (float64); ``qdiag[i]``
    = <x_i, x_i> + diag[i] + rho; ``a`` the dual point, ``w`` (length d) = sum a_i y_i x_i,
    both updated; ``lagrange`` = (mu, s), updated; ``seed`` (an int) seeds the order.

    Returns (passes made, the last pass's spread max PG - min PG). The loop stops when a
    pass over every coordinate finds the spread at most ``eps`` and the multiplier's move
    rho |s| (the change of every gradient it makes) at most ``eps``, or after max_epochs.
    """
    n = n_rows(X)
    state = seed % (_MODULUS - 1) + 1  # in [1, 2^31 - 2]: never the generator's fixed point 0
    order = np.arange(n)
    active = n
    # the largest violations of the last pass, which decide what is shrunk in this one
    pg_max_old, pg_min_old = np.inf, -np.inf
    spread = np.inf
    epoch = 0
    while epoch < max_epochs:
        whole = active == n  # this pass sees every coordinate: it may end the loop
        for k in range(active - 1, 0, -1):  # Fisher-Yates over the active coordinates
            state = (state * _MULTIPLIER) % _MODULUS
            # j = floor(state (k + 1) / 2^31) in [0, k] (Lemire's multiply-shift): no integer
            # division, which cost 7% of a pass on a9a; the bias is below (k + 1) / 2^31
            j = (state * (k + 1)) >> 31
            order[k], order[j] = order[j], order[k]
        pg_max, pg_min = -np.inf, np.inf
        b = lagrange[0] + rho * lagrange[1]
        k = 0
        while k < active:
            i = order[k]
            yi = y[i]
            ai = a[i]
            g = yi * (row_dot(X, i, w) + b) - 1.0 + diag[i] * ai
            pg = 0.0
            if ai == 0.0:
                if g > pg_max_old:  # far inside its bound: shrink
                    pg_max, pg_min = max(pg_max, 0.0), min(pg_min, 0.0)  # its PG is 0
                    active -= 1
                    order[k], order[active] = order[active], order[k]
                    continue
                if g < 0.0:
                    pg = g
            elif ai == upper[i]:
                if g < pg_min_old:
                    pg_max, pg_min = max(pg_max, 0.0), min(pg_min, 0.0)  # its PG is 0
                    active -= 1
                    order[k], order[active] = order[active], order[k]
                    continue
                if g > 0.0:
                    pg = g
            else:
                pg = g
            pg_max = max(pg_max, pg)
            pg_min = min(pg_min, pg)
            if abs(pg) > _NEGLIGIBLE:
                new = min(max(ai - g / qdiag[i], 0.0), upper[i])
                step = new - ai
                if step != 0.0:
                    a[i] = new
                    row_axpy(X, i, step * yi, w)
                    if rho != 0.0:
                        lagrange[1] += step * yi
                        b = lagrange[0] + rho * lagrange[1]
            k += 1
        epoch += 1
        residual = rho * abs(lagrange[1])  # the intercept's move, in the gradient's units
        if rho != 0.0:
            lagrange[0] += rho * lagrange[1]
        spread = pg_max - pg_min if pg_max >= pg_min else 0.0
        pg_max_old = pg_max if pg_max > 0.0 else np.inf
        pg_min_old = pg_min if pg_min < 0.0 else -np.inf
        if spread <= eps and residual <= eps:
            if whole:
                break
            # the active set looks optimal: check every coordinate again, with this pass's
            # thresholds (LIBLINEAR's infinite ones shrink nothing and cost a second pass)
            active = n
    return epoch, spread
