r"""LP feasibility of y_i <w', x'_i> >= 1, with a separator or a Gordan certificate either way.

Exactly one of the two systems has a solution (Gordan 1873, the theorem of the alternative):

.. math::
    \exists w':\ \langle w', z_i\rangle \ge 1 \ \forall i
    \qquad\text{or}\qquad
    \exists a \ge 0,\ \textstyle\sum_i a_i = 1:\ \sum_i a_i z_i = 0,

on the signed rows z_i = y_i x'_i. The first is the LP of ERM on separable data
(Shalev-Shwartz and Ben-David 2014, Section 9.1.1); the second, the *certificate*, is the
linear dependence behind the VC-dimension proof (their Theorem 9.2).

:func:`decide` solves a box-margin LP on a *working set* of rows: solve on a subset, check
every row in floating point, add the violated rows, repeat. The answer is exact, because a
certificate for a subset is one for the whole sample, and a hyperplane that separates the
whole sample (checked row by row) needs nothing else. On large samples only a few thousand
rows ever reach the solver. The certificate comes from the LP's duals (LP duality, Boyd and
Vandenberghe 2004, Section 5.8), is polished by non-negative least squares on its support
(Lawson and Hanson 1974) and verified before it is returned: in floating point, then in
exact rational arithmetic on its support (:mod:`.rational`) wherever that fits the budget, for
a float check alone cannot tell rows that combine to zero from rows 1e-10 apart.

References
----------
.. [1] P. Gordan. Ueber die Auflösung linearer Gleichungen mit reellen Coefficienten.
   Mathematische Annalen 6, 1873.
.. [2] S. Shalev-Shwartz and S. Ben-David. Understanding Machine Learning, 2014. Section
   9.1.1 (the LP) and Theorem 9.2 (the VC dimension of halfspaces).
.. [3] S. Boyd and L. Vandenberghe. Convex Optimization, 2004. Section 5.8 (theorems of
   alternatives).
.. [4] C. L. Lawson and R. J. Hanson. Solving Least Squares Problems, 1974. Chapter 23 (NNLS).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from numpy.typing import NDArray
from scipy.optimize import nnls

from halfspaces._exact.highs import INF, SolverError, solve
from halfspaces._exact.rational import exact_certificate, exact_separator, residual_certificate
from halfspaces._exact.sheared import DENSE_LIMIT, shear
from halfspaces._exact.signed import SignedRows, Violations, as_signed_rows, signed_rows
from halfspaces._utils.scaling import power_of_two_scales

__all__ = [
    "CERTIFICATE_TOL", "Feasibility", "check_rows", "decide", "decide_sample", "first_rows",
    "grow_working_set",
    "proved", "proved_separator", "score_error_bound", "unit_separator",
    "verified_certificate",
]

# |sum_i a_i z_ij| <= CERTIFICATE_TOL * max_i |z_ij| for every column j: relative to each
# column's own size, the size of the rounding errors in the sum, so that the data's units can
# neither fake a certificate (X * 1e-10 once "proved" separable data inseparable with an
# absolute 1e-9) nor refuse a true one
CERTIFICATE_TOL = 1e-9
_FIRST_ROWS = 2000  # size of the first working set
_LP = {"presolve": "off"}  # HiGHS presolve costs more than it saves on these LPs


@dataclass(frozen=True)
class Feasibility:
    """The answer of :func:`decide`: exactly one of the two fields is set.

    Attributes
    ----------
    separator : ndarray of shape (n_columns,) or None
        w' with min_i <w', z_i> >= 1, checked in floating point.
    certificate : ndarray of shape (n_rows,) or None
        Gordan's a >= 0, sum(a) = 1, |sum_i a_i z_ij| <= 1e-9 max_i |z_ij| for every j.
    exact : bool
        Whether the certificate holds in exact rational arithmetic (rounded to floats here):
        sum_i a_i z_i = 0 exactly, a proof that no halfspace separates the rows. Without it,
        the certificate proves only that none separates them by more than about 1e-9 of
        the columns' scale (see :mod:`halfspaces._exact.rational`).
    """

    separator: NDArray | None
    certificate: NDArray | None
    exact: bool = False

    @property
    def separable(self) -> bool:
        """Whether a separator was found (else the certificate proves there is none)."""
        return self.separator is not None


def first_rows(n: int) -> NDArray:
    """The first working set: every row, or 2000 rows drawn with a fixed seed."""
    if n <= _FIRST_ROWS:
        return np.arange(n)
    return np.sort(np.random.default_rng(0).choice(n, _FIRST_ROWS, replace=False))


def check_rows(Z: SignedRows, w: NDArray, rows: NDArray, threshold: float, *,
               strict: bool = False, least: int = 1000) -> Violations:
    """The check of every row of a working-set round: the rows below ``threshold``.

    Only the max(|rows|, least) most violated rows outside the working set ``rows`` are
    returned, those that :func:`grow_working_set` may add.
    """
    return Z.check(w, threshold, strict=strict, exclude=rows, limit=max(rows.size, least))


def grow_working_set(rows: NDArray, found: Violations) -> NDArray | None:
    """Add the violated rows that :func:`check_rows` found; None when there are none.

    At most max(|rows|, least) rows are added, those of smallest score first, so the
    working set at most doubles per round (beyond ``least`` rows).
    """
    if found.new_rows.size == 0:
        return None
    return np.union1d(rows, found.new_rows)


def verified_certificate(Z, a: NDArray | None) -> NDArray | None:
    """a itself when a >= 0, sum(a) = 1 and every |(Z^T a)_j| <= 1e-9 max_i |z_ij|; else None.

    Z is a matrix of signed rows or a :class:`~halfspaces._exact.signed.SignedRows`.
    """
    if a is None or np.any(a < 0) or abs(a.sum() - 1.0) > 1e-12:
        return None
    Z = as_signed_rows(Z)
    residual = np.abs(Z.transposed_product(a))
    return a if np.all(residual <= CERTIFICATE_TOL * Z.column_max()) else None


def _polish(Z, a: NDArray) -> NDArray | None:
    """Re-solve sum_S a_i z_i = 0, sum a = 1, a >= 0 on the support S of a (NNLS), verify."""
    support = np.flatnonzero(a > 0)
    if support.size == 0:
        return None
    ZS = Z[support]
    ZS = ZS.toarray() if sp.issparse(ZS) else ZS
    system = np.vstack([ZS.T, np.ones((1, support.size))])
    rhs = np.zeros(system.shape[0])
    rhs[-1] = 1.0
    c, _ = nnls(system, rhs)
    if c.sum() <= 0:
        return None
    polished = np.zeros(Z.shape[0])
    polished[support] = c / c.sum()
    return verified_certificate(Z, polished)


def _gordan_lp(Z) -> NDArray | None:
    """Solve the alternative directly: a >= 0, sum(a) = 1, Z^T a = 0 (None if infeasible)."""
    n, p = Z.shape
    A = sp.vstack([sp.csr_matrix(Z).T, sp.csr_matrix(np.ones((1, n)))])
    rhs = np.r_[np.zeros(p), 1.0]
    res = solve(A, np.zeros(n), (np.zeros(n), np.full(n, INF)), (rhs, rhs),
                options=_LP, accept=("Infeasible",), what="Gordan alternative LP")
    return None if res.status == "Infeasible" else np.maximum(res.x, 0.0)


def _certificate(Z, row_dual: NDArray) -> NDArray | None:
    """A verified Gordan certificate for Z from the LP duals, polished; LP fallback."""
    for sign in (-1.0, 1.0):
        a = np.maximum(sign * row_dual, 0.0)
        if a.sum() > 0:
            found = _polish(Z, a / a.sum())
            if found is not None:
                return found
    direct = _gordan_lp(Z)
    return None if direct is None else _polish(Z, direct / direct.sum())


# A working set this small with over four times as many columns as rows is solved in the
# span of its rows (k^2 p for the Gram matrix, then an LP in k variables)
_WIDE_ROWS = 64


def _max_box_margin(ZW) -> tuple[NDArray, float, NDArray]:
    """max t s.t. <w, z_i> >= t, -1 <= w_j <= 1: t > 0 iff the rows are separable.

    Its dual is min ||sum_i a_i z_i||_1 over the simplex, so at t = 0 the row duals are a
    Gordan certificate.
    """
    n, p = ZW.shape
    if n <= _WIDE_ROWS and p > 4 * n:
        return _max_box_margin_in_row_span(ZW)
    A = sp.hstack([sp.csr_matrix(ZW), sp.csr_matrix(-np.ones((n, 1)))])
    cost = np.r_[np.zeros(p), -1.0]
    cols = (np.r_[-np.ones(p), -INF], np.r_[np.ones(p), INF])
    res = solve(A, cost, cols, (np.zeros(n), np.full(n, INF)), options=_LP,
                what="separability LP")
    return res.x[:p], float(res.x[p]), res.row_dual


def _max_box_margin_in_row_span(ZW) -> tuple[NDArray, float, NDArray]:
    """:func:`_max_box_margin` for w = Z_W^T v: max t s.t. (G v)_i >= t, |v_i| <= 1.

    Some w has <w, z_i> >= 1 on these rows iff its projection on their span does, so the
    k x k Gram matrix G = Z_W Z_W^T decides the same question; and G a = 0 iff Z_W^T a = 0,
    so the row duals at t = 0 are a Gordan certificate again. HiGHS took 45 s per LP on the
    two rows of a 100,000-column CSV file (every column alike: a degenerate LP in
    100,001 variables); this one has k + 1. The answer is checked on the rows as before.
    """
    n = ZW.shape[0]
    G = ZW @ ZW.T
    G = G.toarray() if sp.issparse(G) else np.asarray(G)
    scale = math.sqrt(float(np.diag(G).max(initial=0.0))) or 1.0  # G / scale: entries ~ |z|
    A = sp.hstack([sp.csr_matrix(G / scale), sp.csr_matrix(-np.ones((n, 1)))])
    cost = np.r_[np.zeros(n), -1.0]
    cols = (np.r_[-np.ones(n), -INF], np.r_[np.ones(n), INF])
    res = solve(A, cost, cols, (np.zeros(n), np.full(n, INF)), options=_LP,
                what="separability LP")
    w = np.asarray(ZW.T @ (res.x[:n] / scale), dtype=np.float64).ravel()
    return w, float(res.x[n]), res.row_dual


# Margins are accepted at 1 + _SLACK/2 and scaled to 1 + _SLACK: users compute
# y_i(<w, x_i> + b) in another order than <w', z_i> here, which can round an exact 1 to
# 1 - 1 ulp; the slack keeps the promised ">= 1" true whichever way it is computed.
_SLACK = 1e-12
_ROUNDS = 10


def unit_separator(Z, w: NDArray, low: float | None = None) -> NDArray | None:
    """w scaled so that min_i <w, z_i> >= 1 holds in floating point; None if w fails.

    Parameters
    ----------
    Z : ndarray, csr_matrix or SignedRows of shape (n_rows, n_columns)
        The signed rows.
    w : ndarray of shape (n_columns,)
        A candidate separator.
    low : float, default=None
        min_i <w, z_i> when the caller has it already (it saves a pass over the rows).

    Returns
    -------
    w : ndarray or None
        w times a factor >= 1 with every <w, z_i> >= 1 + 5e-13 (usually below 1 + 1e-12,
        higher where the terms of a score cancel), or None when some <w, z_i> <= 0.
    """
    Z = as_signed_rows(Z)
    # Each round aims 16 times higher above 1: where the terms of a score cancel, its
    # rounding error (up to p eps sum_j |w_j z_ij|) can exceed _SLACK, and a scaled score
    # then lands below 1 + _SLACK / 2 about every other time (seen at terms 1e9 times the
    # score); by the tenth round the aim is 7e-2 above 1.
    for round_ in range(_ROUNDS):
        low = Z.min_score(w) if low is None else low
        if not low > 0:
            return None
        if low >= 1.0 + _SLACK / 2:
            return w
        w, low = w * ((1.0 + _SLACK * 16.0**round_) / low), None
    return None


def proved_separator(Z, w: NDArray, low: float | None = None, *,
                     top: NDArray | None = None) -> NDArray | None:
    """:func:`unit_separator`'s w (None if w fails), its scores' rounding error bounded.

    Float scores >= 1 with a rounding error below 1/2 prove <w, z_i> > 1/2 exactly. ``Z``,
    ``w`` and ``low`` are :func:`unit_separator`'s; ``top`` is max_i |z_ij| when the caller
    has it already.

    Returns
    -------
    w : ndarray or None
        As :func:`unit_separator`.

    Raises
    ------
    SolverError
        When the rounding error of the scores may reach 1/2 (:func:`score_error_bound`:
        their terms cancel).
    """
    Z = as_signed_rows(Z)
    found = unit_separator(Z, w, low)
    if found is None:
        return None
    return _rounding_bounded(found, Z.column_max() if top is None else top)


def _rounding_bounded(w: NDArray, top: NDArray) -> NDArray:
    """w, refused (SolverError) where :func:`score_error_bound` may reach 1/2."""
    error = score_error_bound(w, top)
    if not error < 0.5:
        raise SolverError(
            "separability cannot be decided: the separator's scores are >= 1 in floating "
            f"point, but their rounding error may reach {error:.3g} (its terms cancel), so "
            "they do not prove it exactly."
        )
    return w


def score_error_bound(w: NDArray, column_max: NDArray) -> float:
    """A bound on the rounding error of every floating-point score <w, z_i>.

    A dot product of length p, summed in any order (BLAS, blocks, FMA), errs by at most
    gamma_p sum_j |w_j z_ij| with gamma_p = p u / (1 - p u), u = 2^-53 (Higham, Accuracy and
    Stability of Numerical Algorithms, 2nd ed., 2002, eq. (3.5)); sum_j |w_j| max_i |z_ij|
    bounds that sum for every row. Computed with p + 2 for the bound's own rounding. A
    separator whose float scores are >= 1 while this is below 1/2 has exact scores > 1/2.
    """
    u = 2.0**-53
    p = w.shape[0] + 2
    with np.errstate(over="ignore"):
        return p * u / (1.0 - p * u) * float(np.abs(w) @ np.asarray(column_max))


def decide(Z) -> Feasibility:
    """A separator w' with min_i <w', z_i> >= 1, or a verified Gordan certificate.

    Parameters
    ----------
    Z : ndarray, csr_matrix or SignedRows of shape (n_rows, n_columns)
        The signed rows z_i = y_i x'_i (see :func:`signed_rows`); a
        :class:`~halfspaces._exact.signed.SignedRows` may hold them in row blocks elsewhere.

    Returns
    -------
    result : Feasibility
        ``separator`` or ``certificate``, both checked in floating point; the separator's
        scores with a bound on their rounding error (:func:`score_error_bound`), the
        certificate in exact arithmetic where it fits (:func:`proved`).

    Raises
    ------
    SolverError
        When HiGHS fails, or neither answer survives its check.

    Examples
    --------
    >>> import numpy as np
    >>> from halfspaces._exact import decide, signed_rows
    >>> X = np.array([[0.0, 0.0], [1.0, 1.0], [0.0, 1.0], [1.0, 0.0]])
    >>> decide(signed_rows(X, np.array([1.0, 1.0, -1.0, -1.0]), True)).certificate  # XOR
    array([0.25, 0.25, 0.25, 0.25])
    """
    Z = as_signed_rows(Z)
    try:
        return _decide_normalised(Z)
    except SolverError:
        found = _decide_sheared(Z)
        if found is None:
            raise
        return found


def _decide_normalised(Z: SignedRows) -> Feasibility:
    """:func:`decide` on Z's columns scaled by powers of two, the answer proved on Z."""
    top = Z.column_max()
    s = power_of_two_scales(top)
    # one factor stops at 2^1023: a subnormal column (max |z_ij| < 2^-1022) takes a second
    # one, and both products are exact (powers of two, rounding-free from subnormals up)
    rest = power_of_two_scales(top * s)
    Zs = Z.scaled(s).scaled(rest)
    found = _decide(Zs)
    if found.separable:
        w = found.separator
        if Zs is not Z:  # _decide checked its scores on the scaled columns: check them on Z
            w = _unscaled(Z, w, s, rest, top)
            w = unit_separator(Z, w)  # exact: s holds powers of two
            if w is None:  # pragma: no cover - the same products as on the scaled columns
                raise SolverError("separability cannot be decided: the separator found on "
                                  "the normalised columns fails on X in floating point.")
        return Feasibility(_rounding_bounded(w, top), None)
    # Z^T a = 0 holds for the scaled columns iff for the columns; only the float check
    # differs, and on subnormal columns (rest != 1) its products round to multiples of
    # 2^-1074, so there only the exact check of proved() speaks for Z
    normal = np.all(rest == 1.0)
    if Zs is not Z and normal and verified_certificate(Z, found.certificate) is None:
        raise SolverError("separability cannot be decided: the certificate found on the "
                          "normalised columns fails its check on X.")
    return proved(Z, found.certificate)


def _decide_sheared(Z: SignedRows) -> Feasibility | None:
    """:func:`decide` on few rows whose columns are dependent in floating point only, the
    answer proved on Z itself; None when there is no such dependence or no proof.

    The LP runs on Z M (:func:`~halfspaces._exact.sheared.shear`: the rounding errors
    that make the columns exactly independent become columns of their own). Its
    certificate is proved on Z's rows in exact arithmetic; its separator M w' on Z by its
    scores' rounding error, or where they cancel too much for that, by its exact scores.
    """
    n, p = Z.shape
    rows = Z.take(np.arange(n)) if n * p <= DENSE_LIMIT else None
    sheared = None if rows is None else shear(rows)
    if sheared is None:
        return None
    try:
        found = _decide(SignedRows(sheared.rows))
    except SolverError:
        return None
    if not found.separable:
        a = exact_certificate(Z, found.certificate).certificate
        return None if a is None else Feasibility(None, a, exact=True)
    w = sheared.separator(found.separator)
    try:
        proved_w = proved_separator(Z, w)
    except SolverError:
        proved_w = None
    proved_w = exact_separator(rows, w) if proved_w is None else proved_w
    return None if proved_w is None else Feasibility(proved_w, None)


def _unscaled(Z, w: NDArray, s: NDArray, rest: NDArray, top: NDArray) -> NDArray:
    """The separator w of the columns scaled by s * rest, on the columns themselves.

    On a subnormal column the weight can overflow; the separator without those columns
    is tried before giving up (they are often noise next to columns that separate).
    """
    with np.errstate(over="ignore"):
        unscaled = w * s * rest
    beyond = ~np.isfinite(unscaled)
    if not beyond.any():
        return unscaled
    unscaled[beyond] = 0.0
    found = unit_separator(Z, unscaled)
    if found is not None:
        return found
    j = int(np.flatnonzero(beyond)[0])
    exponent = np.log2(abs(w[j])) + np.log2(s[j]) + np.log2(rest[j])
    raise SolverError(
        f"the data are separable, but only by weights beyond float64's range: column {j} "
        f"of the signed rows (the intercept's first where there is one) has max |z_ij| = "
        f"{top[j]:.3g}, subnormal, and scores of 1 need |w_j| near 2^{exponent:.0f}. "
        "Multiply X by a power of two (say 2^600) and ask again."
    )


def decide_sample(X, labels: NDArray, fit_intercept: bool) -> Feasibility:
    """:func:`decide` on the signed rows of (X, labels); dense affine problems it cannot
    decide are decided again on columns centred at their midranges.

    Separability by an affine halfspace does not change when every x_i moves by the same
    vector m (b absorbs <w, m>), but the LP's conditioning does: points 2 and 2.0000002
    with opposite labels are a gap of 1e-7 next to entries of 2, below HiGHS's tolerances,
    and were refused; centred on the columns' midranges they are -1e-7 and 1e-7, a gap as
    wide as the data. The answer found there is mapped back (b = b_c - <w, m>; a certificate
    is one for both) and proved on the original rows. Every answer of :func:`decide` is
    proved (the separator's rounding bounded, the certificate exact within its budget), so
    trying the original rows first gives the same answers as :mod:`halfspaces.dask`, which
    does not centre, wherever they succeed. Sparse X is never centred (it would fill).

    Parameters
    ----------
    X : ndarray or csr_matrix of shape (n_samples, n_features)
        The examples, validated.
    labels : ndarray of shape (n_samples,)
        +-1.
    fit_intercept : bool
        Affine halfspaces (x' = (1, x)).
    """
    Z = signed_rows(X, labels, fit_intercept)
    try:
        return decide(Z)
    except SolverError:
        if not (fit_intercept and not sp.issparse(X) and X.size):
            raise
        found = _decide_centred(X, labels, Z)
        if found is None:
            raise
        return found


def _decide_centred(X: NDArray, labels: NDArray, Z) -> Feasibility | None:
    """:func:`decide_sample`'s answer from the centred columns, proved on Z; or None."""
    mid = X.max(axis=0) / 2 + X.min(axis=0) / 2  # halves first: no overflow at 1e308
    if not np.any(mid):
        return None
    try:
        found = decide(signed_rows(X - mid, labels, True))
        if found.separable:
            w = found.separator.copy()
            w[0] -= float(w[1:] @ mid)
            w = proved_separator(Z, w)
            return None if w is None else Feasibility(w, None)
        if verified_certificate(Z, found.certificate) is None:
            return None
        return proved(Z, found.certificate)
    except SolverError:
        return None


def proved(Z, a: NDArray) -> Feasibility:
    """The answer for a certificate a checked in floating point: proved exactly if it fits.

    Within :data:`~halfspaces._exact.rational.MAX_EXACT_WORK` the certificate is replaced by
    one that holds in exact arithmetic (``exact=True``), or refused: a float certificate
    with no exact one on its rows means the rows may be separable by a margin below the
    float check's 1e-9, so there is no proof either way. Beyond the budget the float
    certificate is proved by its exact residual where it can be
    (:func:`~.rational.residual_certificate`), and returned with ``exact`` saying so:
    without it, it proves nothing (:func:`halfspaces.theory.separability` refuses it).
    """
    check = exact_certificate(Z, a)
    if not check.checked:
        found = residual_certificate(as_signed_rows(Z), a)
        return Feasibility(None, a) if found is None else Feasibility(None, found, exact=True)
    if check.certificate is None:
        raise SolverError(
            "separability cannot be decided: the LP's certificate passes its floating-point "
            "check (|sum_i a_i z_ij| <= 1e-9 max_i |z_ij|) but no certificate on its rows "
            "holds in exact arithmetic, so the data may be separable by a margin below "
            "float64's reach. The data are too close to the boundary between separable and "
            "not for float64."
        )
    return Feasibility(None, check.certificate, exact=True)


def _decide(Z: SignedRows) -> Feasibility:
    """:func:`decide` on columns of order 1: the working-set LP loop."""
    n = Z.shape[0]
    rows = first_rows(n)
    while True:
        ZW = Z.take(rows)
        w, t, row_dual = _max_box_margin(ZW)
        if t > 0:
            found = check_rows(Z, w, rows, 0.0)
            if found.n_violated == 0 and (w := unit_separator(Z, w, found.min_score)) is not None:
                return Feasibility(w, None)
            grown = grow_working_set(rows, found)
            if grown is not None:
                rows = grown
                continue
        a_rows = _certificate(ZW, row_dual)
        if a_rows is None:
            # HiGHS's duals miss weights below its tolerances (1 against 1e-18 for the points
            # 1 and 1e18 with opposite labels, homogeneous): least squares over the working
            # set, completed exactly, finds them where the exact budget allows
            a_rows = exact_certificate(ZW, np.zeros(rows.size)).certificate
        if a_rows is None:
            raise SolverError(
                "separability cannot be decided: the LP's separator fails in floating point "
                f"(box margin t = {t + 0.0:.3g} on columns scaled to max |z_ij| in [1, 2)) and "
                "no certificate passes its check (|sum_i a_i z_ij| <= 1e-9 max_i |z_ij|). The "
                "data are too close to the boundary between separable and not for float64."
            )
        a = np.zeros(n)
        a[rows] = a_rows
        if verified_certificate(Z, a) is None:  # pragma: no cover - same rows, same check
            raise SolverError("the certificate failed its check on the full sample.")
        return Feasibility(None, a)
