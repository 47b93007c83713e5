"""``halfspaces certify``: what learning theory says about a labelled data set.

Separability with its certificate (a separating hyperplane, or Gordan weights proving none
exists), the maximum margin, the radius R, the perceptron's mistake bounds, the VC dimension
and a sample-complexity table. A field whose solver cannot answer in float64 is left empty
and the report's notes say why: an optional report field never aborts the command.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any, TypeVar

import typer

from halfspaces.cli import _output
from halfspaces.cli._options import DaskOption, DataFormat, JsonOutput, LabelColumn

__all__ = ["EPSILONS", "DELTAS", "certify", "certify_cli", "optional"]

EPSILONS = (0.1, 0.05, 0.01)
DELTAS = (0.05, 0.01)
NOVIKOFF = "Novikoff (R'/gamma')^2"
FREUND_SCHAPIRE = "Freund-Schapire ((R + D)/gamma)^2, best found"

T = TypeVar("T")


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
        ``vc_dimension``, ``sample_complexity`` (rows of epsilon, delta, samples) and
        ``notes``.

        A field whose solver raises :class:`~halfspaces.exceptions.SolverError` (HiGHS
        cannot answer in float64) is None, and ``notes`` holds one line per failed solver,
        ``"FIELDS not computed: SolverError: ..."``. When separability itself cannot be
        decided, ``separable`` is None, there are no margin or certificate fields,
        ``mistake_bound`` is the best Freund-Schapire bound (valid on any data) and the
        sample complexity is the agnostic one. Other errors (bad input, bugs) are raised.

        A float field beyond float64 (inf: Novikoff's bound of entries 1e-200 beside the
        constant 1 is 4e400; R of rows of norm 2e308) or undefined in it (nan) is None
        too, as ``fit`` leaves such a mistake bound empty, with the note ``"FIELD not
        shown: inf, beyond float64"`` (or ``"nan"``): JSON has no inf or nan. The table
        of :func:`certify_cli` shows the note's words there ("inf, beyond float64"), and
        "not computed" only where a solver failed.
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
    found, notes = optional("separable", lambda: theory.separability(
        X, y, fit_intercept=fit_intercept))
    record: dict[str, Any] = {"data": str(data), "n_samples": int(X.shape[0]),
                              "n_features": int(X.shape[1]), "fit_intercept": fit_intercept,
                              "separable": None if found is None else bool(found.separable),
                              "radius": float(theory.radius(X, fit_intercept=fit_intercept))}
    if found is None:  # undecided: what holds on any data
        fields, more = _freund_schapire(X, y, fit_intercept)
    elif found.separable:
        fields, more = _separable(X, y, fit_intercept)
    else:
        fields, more = _not_separable(X, y, found, fit_intercept)
    record.update(fields, notes=[*notes, *more])
    return _with_complexity(record, fit_intercept)


def optional(fields: str, compute: Callable[[], T]) -> tuple[T | None, tuple[str, ...]]:
    """``(compute(), ())``, or ``(None, (note,))`` when the solver behind `fields` fails.

    An optional report field never aborts a command: a
    :class:`~halfspaces.exceptions.SolverError` (HiGHS failed, or its answer did not
    survive verification) leaves the fields empty and the note says why; any other
    exception, bad input or a bug, is raised.
    """
    from halfspaces.exceptions import SolverError

    try:
        return compute(), ()
    except SolverError as exc:
        return None, (f"{fields} not computed: {type(exc).__name__}: {exc}",)


def _with_complexity(record: dict[str, Any], fit_intercept: bool) -> dict[str, Any]:
    """The record with the VC dimension and the sample-complexity table added (the
    realizable bound for separable data only; the agnostic one holds on any data), its
    notes last."""
    import halfspaces.theory as theory

    realizable = record["separable"] is True
    notes = [*record.pop("notes"), *_non_finite_as_none(record)]
    d = theory.vc_dimension(record["n_features"], fit_intercept=fit_intercept)
    record["vc_dimension"] = int(d)
    record["sample_complexity"] = [
        [eps, delta, int(theory.sample_complexity(eps, delta, d, realizable=realizable))]
        for eps in EPSILONS for delta in DELTAS]
    record["notes"] = notes
    return record


def _non_finite_as_none(record: dict[str, Any]) -> list[str]:
    """Float fields that are inf or nan set to None in place, and a note for each."""
    import math

    notes = []
    for key, value in record.items():
        if isinstance(value, float) and not math.isfinite(value):
            record[key] = None
            why = "beyond float64" if math.isinf(value) else "undefined in float64"
            notes.append(f"{key}{_NOT_SHOWN}{value!r}, {why}")
    return notes


_NOT_SHOWN = " not shown: "


def _separable(X, y, fit_intercept: bool) -> tuple[dict[str, Any], tuple[str, ...]]:
    import halfspaces.theory as theory

    best, notes = optional("margin, norm_bound", lambda: theory.max_margin(
        X, y, fit_intercept=fit_intercept))
    bound, more = optional("mistake_bound", lambda: float(theory.perceptron_mistake_bound(
        X, y, fit_intercept=fit_intercept)))
    return {"margin": None if best is None else float(best.margin),
            "norm_bound": None if best is None else float(best.norm_bound),
            "mistake_bound": bound, "mistake_bound_kind": NOVIKOFF}, notes + more


def _not_separable(X, y, found, fit_intercept: bool) -> tuple[dict[str, Any], tuple[str, ...]]:
    import numpy as np
    import scipy.linalg

    from halfspaces._exact import signed_rows
    from halfspaces._validation import plus_minus

    a = np.asarray(found.certificate, dtype=np.float64)
    Z = signed_rows(X, plus_minus(y, X.shape[0]), fit_intercept)
    # BLAS nrm2 (scipy), not NumPy's sqrt(x.x): residuals of 1e185 (entries 1e200) squared
    # to inf, and --json refused the record
    residual = float(scipy.linalg.norm(np.asarray(Z.T @ a).ravel()))
    bound, notes = _freund_schapire(X, y, fit_intercept)
    return {"certificate_support": int(np.count_nonzero(a > 0)),
            "certificate_residual": residual, "certificate_exact": bool(found.exact),
            **bound}, notes


def _freund_schapire(X, y, fit_intercept: bool) -> tuple[dict[str, Any], tuple[str, ...]]:
    """The best Freund-Schapire bound found: valid on any data, separable or not."""
    import halfspaces.theory as theory

    bound, notes = optional("mistake_bound", lambda: float(theory.best_freund_schapire_bound(
        X, y, fit_intercept=fit_intercept).bound))
    return {"mistake_bound": bound, "mistake_bound_kind": FREUND_SCHAPIRE}, notes


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
    """Separability with its certificate, margin, R, mistake bounds, VC dimension, samples.

    A field the solver cannot compute in float64 is left empty (null with --json) and a
    note says why; data whose separability cannot be decided get the bounds that hold on
    any data. The exit status is 0 whenever the report is printed.
    """
    from halfspaces.cli._options import parse_label_column as _column

    if len(data) > 1 and dask is None:
        raise typer.BadParameter("several DATA files need --dask.", param_hint="DATA")
    record = certify(data if dask else data[0], fit_intercept=intercept,
                     label_column=_column(label_column), format=format, dask=dask)
    if json_output:
        _output.render(record, title="", as_json=True)
        return
    table, notes = record.pop("sample_complexity"), record.pop("notes")
    _output.render({key: _shown(key, value, notes) for key, value in record.items()},
                   title="halfspaces certify")
    kind = {True: "realizable", False: "agnostic",
            None: "agnostic: separability not decided"}[record["separable"]]
    _output.grid(table, title=f"sample complexity ({kind}, constant C = 1)",
                 header=["epsilon", "delta", "samples"])
    _output.note(notes)


def _shown(key: str, value: Any, notes: list[str]) -> Any:
    """A field for people: an empty one in words, those of its note.

    A value beyond float64 was computed, so the table says what it was ("inf, beyond
    float64", as the note); it said "not computed", the words of a failed solver.
    """
    if value is not None:
        return value
    if key == "separable":
        return "not decided"
    for note in notes:
        if note.startswith(key + _NOT_SHOWN):
            return note[len(key + _NOT_SHOWN):]
    return "not computed"
