"""The signed rows z_i = y_i x'_i every exact problem is stated on, and small helpers on them.

A halfspace sign(<w, x> + b) is the homogeneous halfspace sign(<w', x'>) on x' = (1, x) with
w' = (b, w) (:func:`halfspaces.augment`), and y_i <w', x'_i> = <w', z_i>. So separability,
the hard margin, the hinge LP and the 0-1 MILP all need Z alone, with rows z_i; CSR input
stays CSR so that large sparse samples reach HiGHS without being densified.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from numpy.typing import NDArray

from halfspaces._utils.homogeneous import augment
from halfspaces._utils.scaling import max_row_norm, scale_columns
from halfspaces._validation import column_max_abs

__all__ = [
    "NO_ROWS", "SignedRows", "Violations", "as_signed_rows", "block_violations", "column_max",
    "combine_violations", "dyadic", "nonzero_columns", "scores", "signed_rows", "squared_hinge",
]


def signed_rows(X: NDArray | sp.csr_matrix, y_pm: NDArray, fit_intercept: bool):
    """Z with rows z_i = y_i x'_i (x' = (1, x) when ``fit_intercept``); CSR stays CSR.

    Parameters
    ----------
    X : ndarray or csr_matrix of shape (n_samples, n_features)
        The examples, already validated.
    y_pm : ndarray of shape (n_samples,)
        Labels in {-1, +1}, as floats.
    fit_intercept : bool
        Prepend the constant feature.

    Returns
    -------
    Z : ndarray or csr_matrix of shape (n_samples, n_features + fit_intercept)

    Examples
    --------
    >>> import numpy as np
    >>> from halfspaces._exact import signed_rows
    >>> signed_rows(np.array([[2.0], [3.0]]), np.array([1.0, -1.0]), True)
    array([[ 1.,  2.],
           [-1., -3.]])
    """
    if fit_intercept and not sp.issparse(X):
        # one array written once: augment's copy and the product's doubled the time of
        # the solve on 2,115 x 784 MNIST rows, where the hard margin takes milliseconds
        X = np.asarray(X)
        Z = np.empty((X.shape[0], X.shape[1] + 1), dtype=np.result_type(X.dtype, y_pm.dtype))
        Z[:, 0] = y_pm
        np.multiply(y_pm[:, None], X, out=Z[:, 1:])
        return Z
    Xa = augment(X) if fit_intercept else X
    if sp.issparse(Xa):
        return sp.csr_matrix(sp.diags(y_pm) @ Xa)
    return y_pm[:, None] * Xa


# max_i |z_ij| for each column j: the size every column-wise tolerance is relative to
column_max = column_max_abs


def scores(Z, w: NDArray) -> NDArray:
    """The functional margins <w', z_i> = y_i <w', x'_i> as a flat float64 array."""
    return np.asarray(Z @ w, dtype=np.float64).ravel()


def squared_hinge(Z, v: NDArray) -> tuple[float, NDArray]:
    """(||(1 - Zv)_+||^2, Z^T (1 - Zv)_+): the squared hinge at v summed over the rows, and
    the sum whose -2 multiple is its gradient."""
    slack = np.maximum(0.0, 1.0 - scores(Z, v))
    return float(slack @ slack), np.asarray(Z.T @ slack, dtype=np.float64).ravel()


@dataclass(frozen=True)
class Violations:
    """What one check of every row finds for a candidate w (see :meth:`SignedRows.check`).

    Attributes
    ----------
    n_violated : int
        Rows below the threshold, those in the working set included.
    new_rows : ndarray of int
        The most violated rows outside the working set (at most ``limit``), ordered by
        score, ties by index; row indices count over the whole sample.
    new_scores : ndarray
        Their scores <w, z_i>.
    min_score : float
        min_i <w, z_i> over every row (``inf`` for no rows).
    """

    n_violated: int
    new_rows: NDArray[np.int64]
    new_scores: NDArray[np.float64]
    min_score: float


NO_ROWS = np.empty(0, dtype=np.int64)


def block_violations(Z, w: NDArray, threshold: float, *, strict: bool = False,
                     exclude: NDArray = NO_ROWS, limit: int | None = None,
                     offset: int = 0) -> Violations:
    """:class:`Violations` of the rows of one block of Z, whose first row is row ``offset``.

    A row is violated when <w, z_i> <= threshold (``<`` when ``strict``). ``exclude`` (sorted
    indices over the whole sample) is the working set. The blocks' answers combine into
    the whole sample's by :func:`combine_violations`, so a scan of all rows and a scan of
    row blocks on several machines find the same rows.
    """
    m = scores(Z, w)
    violated = np.flatnonzero(m < threshold if strict else m <= threshold)
    new = np.setdiff1d(violated + offset, exclude, assume_unique=True)
    new = new[np.argsort(m[new - offset], kind="stable")[:limit]]
    return Violations(int(violated.size), new, m[new - offset],
                      float(m.min(initial=np.inf)))


def combine_violations(parts, limit: int | None = None) -> Violations:
    """The :class:`Violations` of a sample from those of its blocks (in any order)."""
    parts = list(parts)
    new_rows = np.concatenate([p.new_rows for p in parts] + [NO_ROWS])
    new_scores = np.concatenate([p.new_scores for p in parts] + [np.empty(0)])
    keep = np.lexsort((new_rows, new_scores))[:limit]
    return Violations(sum(p.n_violated for p in parts), new_rows[keep], new_scores[keep],
                      min((p.min_score for p in parts), default=np.inf))


class SignedRows:
    """The signed rows z_i of a sample as the working-set solvers read them.

    The working-set loops of :func:`~halfspaces._exact.decide` and
    :func:`~halfspaces._exact.min_norm_separator` touch the whole sample only through these
    methods: a few rows (:meth:`take`), one check of every row against a candidate
    (:meth:`check`), the column sizes and Z^T a (to verify a certificate). This class holds
    Z in one matrix; a subclass may hold it in row blocks on other machines (see
    :mod:`halfspaces.dask`) and answer each method by asking every block.
    """

    # the examples x_i themselves, where z_i = y_i (1, x_i) and the caller has them (the
    # coordinate descent of the hard margin reads its rows x_i from them, not from a copy
    # of z_i0 z_i,reg)
    features = None

    def __init__(self, Z, features=None) -> None:
        self.Z, self.features = Z, features

    @property
    def shape(self) -> tuple[int, int]:
        """(n_rows, n_columns)."""
        return self.Z.shape

    def matrix(self):
        """Z itself (an ndarray or a CSR matrix), or None where the rows are held elsewhere
        (a subclass's row blocks), for the solvers that need every row in this process."""
        return self.Z

    def take(self, rows: NDArray):
        """Z[rows] (an ndarray or a CSR matrix), rows sorted."""
        return self.Z[rows]

    def column_max(self) -> NDArray:
        """The largest magnitude of each column j, ``max_i |z_ij|`` (computed once: a pass
        over every row, asked for by the scaling, the proofs and the margin alike)."""
        top = self.__dict__.get("_column_max")
        if top is None:
            top = self._column_max = column_max(self.Z)
        return top.copy()

    def column_range(self, j: int) -> tuple[float, float]:
        """The least and largest magnitudes of one column, ``(min_i |z_ij|, max_i |z_ij|)``."""
        c = np.abs(np.asarray(self.Z[:, j].toarray() if sp.issparse(self.Z)
                              else self.Z[:, j]).ravel())
        return float(c.min()), float(c.max())

    def scaled(self, s: NDArray) -> SignedRows:
        """The rows of Z diag(s); self when every s_j is 1."""
        Zs = scale_columns(self.Z, s)
        return self if Zs is self.Z else type(self)(Zs)

    def check(self, w: NDArray, threshold: float, *, strict: bool = False,
              exclude: NDArray = NO_ROWS, limit: int | None = None) -> Violations:
        """The rows with <w, z_i> <= threshold (``<`` when strict), and min_i <w, z_i>."""
        return block_violations(self.Z, w, threshold, strict=strict, exclude=exclude,
                                limit=limit)

    def min_score(self, w: NDArray) -> float:
        """min_i <w, z_i>."""
        return float(scores(self.Z, w).min())

    def transposed_product(self, a: NDArray) -> NDArray:
        """Z^T a as a flat array."""
        return np.asarray(self.Z.T @ a).ravel()

    def squared_hinge(self, v: NDArray) -> tuple[float, NDArray]:
        """(||(1 - Zv)_+||^2, Z^T (1 - Zv)_+) (see :func:`squared_hinge`)."""
        return squared_hinge(self.Z, v)

    def max_row_norm(self) -> float:
        """max_i ||z_i||, scaled by a power of two first (see :func:`max_row_norm`)."""
        return max_row_norm(self.Z)


def as_signed_rows(Z) -> SignedRows:
    """Z itself when it is already a :class:`SignedRows`, else Z held in one."""
    return Z if isinstance(Z, SignedRows) else SignedRows(Z)


def dyadic(x: NDArray) -> tuple[NDArray, NDArray]:
    """(M, E) with x = M 2^E exactly, M integers of at most 53 bits (subnormals included:
    frexp normalises their mantissa too)."""
    mantissa, exponent = np.frexp(x)
    return np.ldexp(mantissa, 53).astype(np.int64), exponent.astype(np.int64) - 53


def nonzero_columns(rows) -> NDArray:
    """The rows (ndarray or CSR) as a dense float64 array of their columns with a nonzero
    entry (a stored zero of CSR does not count)."""
    if sp.issparse(rows):
        rows = sp.csr_matrix(rows)
        used = np.zeros(rows.shape[1], dtype=bool)
        used[rows.indices[rows.data != 0]] = True
        return rows[:, np.flatnonzero(used)].toarray()
    rows = np.asarray(rows, dtype=np.float64)
    used = np.any(rows != 0, axis=0)
    return rows if used.all() else rows[:, used]
