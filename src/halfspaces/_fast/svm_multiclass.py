"""The sequential dual method for Crammer and Singer's multiclass SVM (LIBLINEAR's ``-s 4``).

The loop minimises the dual of Keerthi, Sundararajan, Chang, Hsieh and Lin [1]_
(LIBLINEAR's ``Solver_MCSVM_CS``), one example at a time,

    f(A) = 1/2 sum_m ||w_m||^2 + sum_i sum_{m != y_i} A_im,    w_m = sum_i A_im x_i,
    sum_m A_im = 0 for each i,   A_{i y_i} <= C_i,   A_im <= 0 (m != y_i),

the dual of 1/2 ||W||_F^2 + sum_i C_i max(0, 1 + max_{m != y_i} z_im - z_{i y_i}). The k
variables of example i move together: with the others fixed, f restricted to them is
sum_m (Q_ii/2 d_m^2 + G_m d_m) under the same constraints, G_m = <w_m, x_i> + [m != y_i],
whose minimiser is alpha_m = min(bound_m, (beta - B_m) / Q_ii), B_m = G_m - Q_ii A_im, with
beta the root of a piecewise linear equation found by sorting the B_m ([1]_, Section 3.2:
the subproblem solved exactly, in O(k log k)). Shrinking as in [1]_ and LIBLINEAR: a class of
example i at its bound whose gradient is below every free one's leaves the example's active
classes, and an example with one active class left leaves the pass, until the active
problem looks solved, when every example and class is checked again.

The intercepts b_m are not penalised, so the dual gains k constraints, sum_i A_im = 0 for
each class m, which per-example steps cannot keep (they keep sum_m A_im = 0 only). As in
:mod:`halfspaces._fast.svm`, the loop keeps them by the method of multipliers (Hestenes
1969, Powell 1969; [2]_ Chapter 17.3): it minimises the augmented Lagrangian

    f(A) + sum_m mu_m s_m + rho/2 sum_m s_m^2,   s_m = sum_i A_im,

whose per-example restriction is the same subproblem with the curvature Q_ii + rho and the
gradients G_m + b_m, b_m = mu_m + rho s_m (each s_m depends on A_im with coefficient one,
so the added curvature is rho times the identity: the sort still solves it exactly), and
after each pass moves the multipliers, mu <- mu + rho s. At the solution s = 0 and mu is an
optimal intercept vector b*. Since every step keeps sum_m A_im = 0, sum_m s_m stays 0 and
sum_m mu_m stays where it started: the intercepts are found with their sum fixed (the
problem is invariant to adding a constant to every b_m). With ``rho = 0`` and ``mu = 0`` it
is LIBLINEAR's loop (no intercept).

``W`` is stored feature-major, (d, k), as LIBLINEAR stores it: the k scores of a row are one
pass over its entries (:func:`row_dots`), and so are the changes of the classes that moved
(:func:`row_scatter_some`): the same sums, bit for bit, for dense and CSR rows.

References
----------
.. [1] S. S. Keerthi, S. Sundararajan, K.-W. Chang, C.-J. Hsieh and C.-J. Lin. A sequential
   dual method for large scale multi-class linear SVMs. KDD 2008.
.. [2] J. Nocedal and S. J. Wright. Numerical Optimization, 2nd edition. Springer, 2006.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from halfspaces._fast._dense_or_csr import (
    n_rows,
    row_dots,
    row_scatter_some,
    row_squared_norm,
)
from halfspaces._fast.svm import _MODULUS, _MULTIPLIER, _NEGLIGIBLE

# below this many classes an insertion sort beats np.sort's call (about 1.8 us for 8 classes)
_INSERTION_MAX = 16


@njit(cache=True, nogil=True)
def _insertion_sort(D):
    """Sorts a short array in place, ascending."""
    for p in range(1, D.shape[0]):
        value = D[p]
        q = p - 1
        while q >= 0 and D[q] > value:
            D[q + 1] = D[q]
            q -= 1
        D[q + 1] = value


@njit(cache=True, nogil=True)
def solve_subproblem(curvature, B, n_active, y_pos, upper, sorted_buffer, out):
    """The minimiser of sum_p (curvature/2 a_p^2 + B_p a_p) over the first ``n_active``
    entries, with sum_p a_p = -(the shrunk variables' sum), a_p <= 0 except at ``y_pos``
    (a_y <= upper); the example's label is shrunk (at ``upper``) when y_pos >= n_active.

    Writes a_p into ``out[:n_active]`` ([1]_, Section 3.2, and LIBLINEAR's
    ``solve_sub_problem``): with D_p = B_p + curvature * upper [p = y], sorted down, beta is
    (sum of the r largest D_p - curvature * upper) / r for the first r where the next D is
    not above it, and a_p = min(bound_p, (beta - B_p) / curvature) (the label's a_y also
    kept at or above zero, where rounding could take it an ulp below).
    """
    for p in range(n_active):
        sorted_buffer[p] = B[p]
    if y_pos < n_active:
        sorted_buffer[y_pos] += curvature * upper
    D = sorted_buffer[:n_active]
    if n_active <= _INSERTION_MAX:
        _insertion_sort(D)
    else:
        D.sort()  # ascending: read from the end
    beta = D[n_active - 1] - curvature * upper
    r = 1
    while r < n_active and beta < r * D[n_active - 1 - r]:
        beta += D[n_active - 1 - r]
        r += 1
    beta /= r
    for p in range(n_active):
        if p == y_pos:
            # in theory never below zero (the others are not above it and the row sums to
            # zero); in floating point it can be by an ulp, which the box does not allow
            out[p] = max(0.0, min(upper, (beta - B[p]) / curvature))
        else:
            out[p] = min(0.0, (beta - B[p]) / curvature)


@njit(cache=True, nogil=True)
def _shrinkable(p, y_pos, a, upper, G, min_g):
    """A class at its bound whose gradient is below every free class's: it stays there."""
    bound = upper if p == y_pos else 0.0
    return a == bound and G[p] < min_g


@njit(cache=True, nogil=True)
def crammer_singer_descent(X, labels, qdiag, upper, A, Wt, lagrange, rho, seed, max_epochs,
                           eps):
    """Passes of the sequential dual method until every example's violation is at most eps.

    ``labels`` the class indices (int); ``qdiag[i] = <x_i, x_i>``; ``upper[i] = C_i``; ``A``
    (n, k) the dual point and ``Wt`` (d, k) = sum_i x_i A_i^T, both updated in place;
    ``lagrange`` (2, k) = (mu, s), updated in place; ``seed`` (an int) seeds the order.

    Returns (passes made, the last pass's largest violation max G - min G over free classes).
    The loop stops after a pass that started with everything active and found every
    violation at most ``eps`` and the multipliers' move rho max |s_m| (the change of every
    gradient it makes) at most ``eps``, or after ``max_epochs`` passes. The shrunk examples
    and classes come back when the active problem is solved to a tolerance that starts at
    max(10 eps, 1) and halves at each return, down to eps (LIBLINEAR's schedule).
    """
    n = n_rows(X)
    k = A.shape[1]
    state = seed % (_MODULUS - 1) + 1  # in [1, 2^31 - 2]: never the generator's fixed point 0
    order = np.arange(n)
    classes = np.empty((n, k), dtype=np.int64)  # each example's classes, the active ones first
    for i in range(n):
        for c in range(k):
            classes[i, c] = c
    n_active = np.full(n, k)
    y_pos = labels.astype(np.int64).copy()  # where the label sits in classes[i]
    scores = np.empty(k)
    G = np.empty(k)
    B = np.empty(k)
    buffer = np.empty(k)
    new = np.empty(k)
    steps = np.empty(k)
    columns = np.empty(k, dtype=np.int64)
    active = n
    full = True  # the pass checks every example and every class
    # the tolerance at which the active problem counts as solved and everything is checked
    # again: LIBLINEAR's max(10 eps, 1), halved at each check down to eps
    eps_shrink = max(10.0 * eps, 1.0)
    violation = np.inf
    epoch = 0
    while epoch < max_epochs:
        for t in range(active - 1, 0, -1):  # Fisher-Yates over the active examples
            state = (state * _MULTIPLIER) % _MODULUS
            j = state % (t + 1)
            order[t], order[j] = order[j], order[t]
        violation = 0.0
        t = 0
        while t < active:
            i = order[t]
            curvature = qdiag[i] + rho
            if curvature == 0.0:  # x_i = 0, no intercept: the subproblem is linear
                _zero_row(A[i], labels[i], upper[i])
                t += 1
                continue
            row_dots(X, i, Wt, scores)
            cls = classes[i]
            m_active = n_active[i]
            for p in range(m_active):
                c = cls[p]
                G[p] = scores[c] + (0.0 if p == y_pos[i] else 1.0) + lagrange[0, c] \
                    + rho * lagrange[1, c]
            min_g, max_g = np.inf, -np.inf
            for p in range(m_active):
                bound = upper[i] if p == y_pos[i] else 0.0
                if A[i, cls[p]] < bound:
                    min_g = min(min_g, G[p])
                max_g = max(max_g, G[p])
            m_active = _shrink_classes(i, cls, m_active, y_pos, A[i], upper[i], G, min_g)
            n_active[i] = m_active
            if m_active <= 1:  # one class left: its value is fixed by the sum
                active -= 1
                order[t], order[active] = order[active], order[t]
                continue
            t += 1
            if max_g - min_g <= _NEGLIGIBLE:
                continue
            violation = max(violation, max_g - min_g)
            for p in range(m_active):
                B[p] = G[p] - curvature * A[i, cls[p]]
            solve_subproblem(curvature, B, m_active, y_pos[i], upper[i], buffer, new)
            changed = 0
            for p in range(m_active):
                c = cls[p]
                step = new[p] - A[i, c]
                if step != 0.0:
                    A[i, c] = new[p]
                    steps[changed] = step
                    columns[changed] = c
                    changed += 1
                    if rho != 0.0:
                        lagrange[1, c] += step
            row_scatter_some(X, i, steps, columns, changed, Wt)
        epoch += 1
        residual = 0.0  # the intercepts' move, in the gradients' units
        for c in range(k):
            residual = max(residual, rho * abs(lagrange[1, c]))
            lagrange[0, c] += rho * lagrange[1, c]
        worst = max(violation, residual)
        if worst <= eps_shrink:
            if worst <= eps and full:
                break
            # the active problem looks solved to eps_shrink: check every example and class
            # again, and ask the next active problem for more (LIBLINEAR's schedule)
            active = n
            n_active[:] = k
            full = True
            eps_shrink = max(eps_shrink / 2.0, eps)
        else:
            full = False
    return epoch, violation


@njit(cache=True, nogil=True)
def _shrink_classes(i, cls, m_active, y_pos, a, upper, G, min_g):
    """Moves the shrinkable classes of example i behind its active ones (LIBLINEAR's swap
    loop); returns the new number of active classes."""
    p = 0
    while p < m_active:
        if _shrinkable(p, y_pos[i], a[cls[p]], upper, G, min_g):
            m_active -= 1
            while m_active > p:  # find a class from the end that stays, and swap it in
                if not _shrinkable(m_active, y_pos[i], a[cls[m_active]], upper, G, min_g):
                    cls[p], cls[m_active] = cls[m_active], cls[p]
                    G[p], G[m_active] = G[m_active], G[p]
                    if y_pos[i] == m_active:
                        y_pos[i] = p
                    elif y_pos[i] == p:
                        y_pos[i] = m_active
                    break
                m_active -= 1
        p += 1
    return m_active


@njit(cache=True, nogil=True)
def _zero_row(a, label, upper):
    """The solution for a zero row without intercept: its gradients are the constants
    [m != y], so the whole weight goes to the label and to one other class (the first)."""
    other = 1 if label == 0 else 0
    a[:] = 0.0
    a[label] = upper
    a[other] = -upper


@njit(cache=True, nogil=True)
def squared_norms(X):
    """||x_i||^2 of every row, in float64: the same bits for dense rows and their CSR twin (so
    that the loop's curvatures, and hence its iterates, do not depend on the layout)."""
    n = n_rows(X)
    out = np.empty(n)
    for i in range(n):
        out[i] = row_squared_norm(X, i)
    return out
