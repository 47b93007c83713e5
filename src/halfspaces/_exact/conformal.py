r"""Which labelings no halfspace realises, decided exactly from the points' dependences.

A labeling y of points x'_i is realised by no homogeneous halfspace iff some dependence
a != 0, sum_i a_i x'_i = 0, is *conformal* to y: y_i a_i >= 0 for every i (Gordan's theorem
on the signed rows y_i x'_i, with weights |a_i|; the proof of Theorem 9.2 in Shalev-Shwartz
and Ben-David is the case of one such a). With the dependences as {a : E a = 0} for an
integer matrix E of r <= m rows (:func:`~halfspaces._exact.independence.dependence_space`),
whether a partial labeling y_0, ..., y_(k-1) has an unrealisable completion is a question
about m numbers, not about the points' columns:

.. math:: \exists a \ne 0:\ E a = 0,\ y_i a_i \ge 0 \ (i < k),

which :func:`conformal_dependence` decides by the simplex method in exact integer
arithmetic (Bland's rule, which cannot cycle; integer pivoting, whose divisions are exact by
Sylvester's identity: Edmonds 1967, Azulay and Pique 1998). The answer is a rational vector
that the caller can check, or a proof that there is none: the simplex method's own, in exact
arithmetic.

References
----------
.. [1] J. Edmonds. Systems of distinct representatives and linear algebra. J. Res. NBS 71B,
   1967 (integer-preserving elimination).
.. [2] R. G. Bland. New finite pivoting rules for the simplex method. Math. Oper. Res. 2,
   1977.
"""

from __future__ import annotations

from fractions import Fraction

__all__ = ["conformal_dependence", "feasible_point"]


def conformal_dependence(equations: list[list[int]], m: int,
                         signs: list[int]) -> list[Fraction] | None:
    """A vector a != 0 with E a = 0 and signs_i a_i >= 0 for i < len(signs); else None.

    Parameters
    ----------
    equations : list of list of int
        The rows of E (each of length m), linearly independent.
    m : int
        The number of coordinates.
    signs : list of int
        +-1 for the first k coordinates; the others are free.

    Returns
    -------
    a : list of Fraction or None
        Exact; None when no such vector exists.
    """
    k = len(signs)
    free = _kernel_vector([row[k:] for row in equations], m - k)
    if free is not None:  # a dependence of the free coordinates alone: zeros on the prefix
        return [Fraction(0)] * k + free
    # a != 0 is now a_prefix != 0: sum_(i<k) signs_i a_i = 1 with b_i = signs_i a_i >= 0,
    # and each free a_i = u_i - v_i, u, v >= 0
    A = [[row[i] * signs[i] for i in range(k)] + row[k:] + [-x for x in row[k:]]
         for row in equations]
    A.append([1] * k + [0] * (2 * (m - k)))
    x = feasible_point(A, [0] * len(equations) + [1])
    if x is None:
        return None
    return [x[i] * signs[i] for i in range(k)] + [x[k + j] - x[m + j] for j in range(m - k)]


def _kernel_vector(rows: list[list[int]], n: int) -> list[Fraction] | None:
    """A nonzero exact solution of rows @ a = 0 in n unknowns, or None."""
    import flint

    if n == 0:
        return None
    M = flint.fmpz_mat(rows) if rows else flint.fmpz_mat(0, n)
    if M.nrows() and M.rank() == n:
        return None
    if not M.nrows():
        return [Fraction(int(i == 0)) for i in range(n)]
    N, _ = M.nullspace()
    return [Fraction(int(N[i, 0])) for i in range(n)]


def feasible_point(A: list[list[int]], b: list[int]) -> list[Fraction] | None:
    """x >= 0 with A x = b exactly (integers, b >= 0), or None when there is none.

    Phase one of the simplex method: minimise the sum of one artificial variable per row,
    starting from the basis of artificials. The tableau is T / d with integer T and d (the
    last pivot), the entering column the first that lowers the sum (Bland), the leaving row
    the least ratio, ties to the least basic variable (Bland).
    """
    rows, n = len(A), len(A[0]) if A else 0
    T = [A[r] + [int(r == s) for s in range(rows)] + [b[r]] for r in range(rows)]
    T.append([sum(A[r][j] for r in range(rows)) for j in range(n)] + [0] * rows + [sum(b)])
    basis = list(range(n, n + rows))
    d = 1
    while True:
        enter = next((j for j in range(n + rows) if T[rows][j] > 0), None)
        if enter is None:
            break
        leave = None
        for r in range(rows):
            if T[r][enter] > 0 and (leave is None or _before(T, r, leave, enter, basis)):
                leave = r
        # phase one is bounded below by 0, so some row limits the entering variable
        T, d = _pivot(T, d, leave, enter), T[leave][enter]
        basis[leave] = enter
    if T[rows][-1] != 0:
        return None
    x = [Fraction(0)] * n
    for r, j in enumerate(basis):
        if j < n:
            x[j] = Fraction(T[r][-1], d)
    return x


def _before(T: list[list[int]], r: int, s: int, enter: int, basis: list[int]) -> bool:
    """Whether row r's ratio b_r / t_r is less than row s's, or equal with a smaller basic
    variable (both pivots positive: cross-multiply)."""
    left, right = T[r][-1] * T[s][enter], T[s][-1] * T[r][enter]
    return left < right or (left == right and basis[r] < basis[s])


def _pivot(T: list[list[int]], d: int, r: int, c: int) -> list[list[int]]:
    """The integer tableau after pivoting on (r, c): row r unchanged, every other row
    (t_ij p - t_ic t_rj) / d, an exact division."""
    p, pivot_row = T[r][c], T[r]
    out = []
    for i, row in enumerate(T):
        if i == r:
            out.append(row)
            continue
        f = row[c]
        out.append([(x * p - f * y) // d for x, y in zip(row, pivot_row, strict=True)])
    return out
