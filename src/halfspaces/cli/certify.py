"""``halfspaces certify``: what learning theory says about a labelled data set.

Separability with its certificate (a separating hyperplane, or Gordan weights proving none
exists), the maximum margin, the radius R, the perceptron's mistake bounds, the VC dimension
and a sample-complexity table.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from halfspaces.cli import _output
from halfspaces.cli._options import DaskOption, DataFormat, JsonOutput, LabelColumn

__all__ = ["EPSILONS", "DELTAS", "certify", "certify_cli"]

EPSILONS = (0.1, 0.05, 0.01)
DELTAS = (0.05, 0.01)


def certify(data: Path | list[Path], *, fit_intercept: bool = True,
            label_column: int | str | None = None, format: str | None = None,
            dask: str | None = None) -> dict[str, Any]:
    """Certify a two-class data file (or data set name) with :mod:`halfspaces.theory`.

    With ``dask`` (a scheduler's address or ``local:N``) the files (one or more paths or
    glob patterns) are read and certified on a Dask cluster
    (:func:`halfspaces.cli._dask.certify_on_cluster`).

    Returns
    -------
    dict
        ``separable``; for separable data ``margin`` (the maximum margin), ``norm_bound``
        and ``mistake_bound`` (Novikoff); otherwise ``certificate_support`` (examples with
        positive Gordan weight), ``certificate_residual`` (||sum_i a_i y_i x'_i|| in floating
        point, ~0), ``certificate_exact`` (whether the sum is proved exactly 0 in rational
        arithmetic) and
        ``mistake_bound`` (the best Freund-Schapire bound); always ``radius``,
        ``vc_dimension`` and ``sample_complexity`` (rows of epsilon, delta, samples).
    """
    import numpy as np

    import halfspaces.theory as theory

    if dask is not None:
        from halfspaces.cli._dask import certify_on_cluster

        paths = data if isinstance(data, list) else [data]
        record = certify_on_cluster(paths, dask=dask, fit_intercept=fit_intercept,
                                    label_column=label_column, format=format)
        return _with_complexity(record, fit_intercept)
    if isinstance(data, list):
        if len(data) != 1:
            raise ValueError("certify reads one DATA file; give several files with --dask.")
        data = data[0]
    from halfspaces.cli._data import read_data

    X, y = read_data(data, label_column, format)
    if len(np.unique(y)) != 2:
        raise ValueError(f"{data}: certify needs exactly two classes, found "
                         f"{len(np.unique(y))}.")
    found = theory.separability(X, y, fit_intercept=fit_intercept)
    record: dict[str, Any] = {"data": str(data), "n_samples": int(X.shape[0]),
                              "n_features": int(X.shape[1]), "fit_intercept": fit_intercept,
                              "separable": bool(found.separable),
                              "radius": float(theory.radius(X, fit_intercept=fit_intercept))}
    record.update(_separable(X, y, fit_intercept) if found.separable else
                  _not_separable(X, y, found, fit_intercept))
    return _with_complexity(record, fit_intercept)


def _with_complexity(record: dict[str, Any], fit_intercept: bool) -> dict[str, Any]:
    """The record with the VC dimension and the sample-complexity table added."""
    import halfspaces.theory as theory

    found_separable = record["separable"]
    d = theory.vc_dimension(record["n_features"], fit_intercept=fit_intercept)
    record["vc_dimension"] = int(d)
    record["sample_complexity"] = [
        [eps, delta, int(theory.sample_complexity(eps, delta, d, realizable=found_separable))]
        for eps in EPSILONS for delta in DELTAS]
    return record


def _separable(X, y, fit_intercept: bool) -> dict[str, Any]:
    import halfspaces.theory as theory

    best = theory.max_margin(X, y, fit_intercept=fit_intercept)
    return {"margin": float(best.margin), "norm_bound": float(best.norm_bound),
            "mistake_bound": float(theory.perceptron_mistake_bound(
                X, y, fit_intercept=fit_intercept)),
            "mistake_bound_kind": "Novikoff (R'/gamma')^2"}


def _not_separable(X, y, found, fit_intercept: bool) -> dict[str, Any]:
    import numpy as np

    import halfspaces.theory as theory
    from halfspaces._exact import signed_rows
    from halfspaces._validation import plus_minus

    a = np.asarray(found.certificate, dtype=np.float64)
    Z = signed_rows(X, plus_minus(y, X.shape[0]), fit_intercept)
    residual = float(np.linalg.norm(np.asarray(Z.T @ a).ravel()))
    bound = theory.best_freund_schapire_bound(X, y, fit_intercept=fit_intercept)
    return {"certificate_support": int(np.count_nonzero(a > 0)),
            "certificate_residual": residual, "certificate_exact": bool(found.exact),
            "mistake_bound": float(bound.bound),
            "mistake_bound_kind": "Freund-Schapire ((R + D)/gamma)^2, best found"}


def certify_cli(
    data: Annotated[list[Path], typer.Argument(
        help="Two-class data: a file in any format fit reads, or a data set name; with "
        "--dask, one or more files or glob patterns read on the cluster.")],
    intercept: Annotated[bool, typer.Option(
        "--intercept/--no-intercept", help="Affine (with bias) or homogeneous halfspaces.")]
        = True,
    label_column: LabelColumn = None,
    format: DataFormat = None,
    json_output: JsonOutput = False,
    dask: DaskOption = None,
) -> None:
    """Separability with its certificate, margin, R, mistake bounds, VC dimension, samples."""
    from halfspaces.cli._options import parse_label_column as _column

    if len(data) > 1 and dask is None:
        raise typer.BadParameter("several DATA files need --dask.", param_hint="DATA")
    record = certify(data if dask else data[0], fit_intercept=intercept,
                     label_column=_column(label_column), format=format, dask=dask)
    if json_output:
        _output.render(record, title="", as_json=True)
        return
    table = record.pop("sample_complexity")
    _output.render(record, title="halfspaces certify")
    kind = "realizable" if record["separable"] else "agnostic"
    _output.grid(table, title=f"sample complexity ({kind}, constant C = 1)",
                 header=["epsilon", "delta", "samples"])
