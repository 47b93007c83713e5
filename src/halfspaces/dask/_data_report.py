"""The data-set report of data held in partitions on a Dask cluster.

:func:`halfspaces.theory.assemble_data_report` assembles it, as it assembles the serial
report; only the primitives differ: separability, the maximum margin, the radius and the
Freund-Schapire search run on the partitions, and Novikoff's bound (R' B)^2 comes from the
maximum margin's B and R' = max ||z_i|| (one more pass), so the QP is solved once.
"""

from __future__ import annotations

import scipy.linalg
from numpy.typing import NDArray

from halfspaces._exact import rational_certificate
from halfspaces.dask._perceptron import as_partitions
from halfspaces.dask._separability import (
    max_margin,
    radius,
    separability,
    signed_partitions,
)
from halfspaces.theory.bounds import best_freund_schapire_bound_of_rows, mistake_bound
from halfspaces.theory.data_report import DataReport, ReportSteps, assemble_data_report
from halfspaces.theory.separability import MaxMargin

__all__ = ["data_report"]


def data_report(X, y=None, fit_intercept: bool = True) -> DataReport:
    """:func:`halfspaces.theory.data_report` of data in partitions on a Dask cluster.

    The same fields, notes and rules as the serial report, each fact computed on the
    partitions: separability (:func:`separability`), the maximum margin
    (:func:`max_margin`), R' (:func:`radius`), the best Freund-Schapire bound
    (:func:`best_freund_schapire_bound`'s search), the certificate's residual as Z^T a
    summed over the partitions. Novikoff's bound is (R' B)^2 with B the maximum margin's
    norm bound, so a margin that cannot be computed leaves the bound empty under the same
    note.

    Parameters
    ----------
    X : dask array, dask DataFrame or Partitions
        Chunked by rows (dense or CSR chunks); a Partitions (:func:`read_files`) holds the
        labels too.
    y : dask array or Series, default=None
        Two labels (the larger one is +1, or labels in {-1, +1}); None with a Partitions.
    fit_intercept : bool, default=True
        Affine halfspaces (the theorems on x' = (1, x)) rather than homogeneous ones.

    Returns
    -------
    halfspaces.theory.DataReport

    Raises
    ------
    ValueError
        When the labels are not exactly two classes.

    Examples
    --------
    >>> import dask.array as da
    >>> from distributed import Client, LocalCluster
    >>> from halfspaces.dask import data_report
    >>> X = da.from_array([[0.0], [1.0], [3.0], [4.0]], chunks=2)
    >>> with LocalCluster(n_workers=2, processes=False) as cluster, Client(cluster):
    ...     report = data_report(X, da.from_array([0, 0, 1, 1], chunks=2))
    >>> report.separable, report.margin, report.vc_dimension
    (True, 1.0, 2)
    """
    parts = as_partitions(X, y, exact_values=True)  # proofs are about float64 values
    if parts.classes.size != 2:
        raise ValueError(f"y: data_report needs exactly two classes, found "
                         f"{parts.classes.size}.")
    intercept = bool(fit_intercept)
    rows = signed_partitions(parts, fit_intercept=intercept)

    def novikoff(best: MaxMargin) -> float:
        # R' = max ||z_i||, scaled per partition as the serial bound's; (R' B)^2 rounded up
        # past its rounding error as the serial bound is, and inf beyond float64 (a Python
        # float's ** 2 raised OverflowError: entries 1e-200 beside the constant 1 give
        # B = 2e200)
        n, p = rows.shape
        return mistake_bound(rows.max_row_norm() * best.norm_bound, 0.0, 1.0, n, p)

    def residual(a: NDArray) -> float:
        # BLAS nrm2 (scipy), not NumPy's sqrt(x.x): residuals of 1e185 (entries 1e200)
        # squared to inf
        return float(scipy.linalg.norm(rows.transposed_product(a)))

    return assemble_data_report(ReportSteps(
        n_samples=parts.n_samples, n_features=parts.n_features, fit_intercept=intercept,
        separability=lambda: separability(parts, fit_intercept=intercept),
        radius=lambda: radius(parts, fit_intercept=intercept),
        max_margin=lambda: max_margin(parts, fit_intercept=intercept),
        novikoff=novikoff, residual=residual,
        freund_schapire=lambda: best_freund_schapire_bound_of_rows(rows).bound,
        novikoff_from_margin=True,
        # the certificate's support rows only are gathered from the partitions
        rational_certificate=lambda a: rational_certificate(rows, a)))
