"""``halfspaces certify``: what learning theory says about a labelled data set.

A shell over :func:`halfspaces.theory.data_report` (and :func:`halfspaces.dask.data_report`
with ``--dask``): it reads the data, calls the library and renders its
:class:`~halfspaces.theory.DataReport`. A field whose solver cannot answer in float64 is
left empty and the report's notes say why: an optional report field never aborts the command.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from halfspaces.cli import _output
from halfspaces.cli._options import DaskOption, DataFormat, JsonOutput, LabelColumn

__all__ = ["certify", "certify_cli"]


def certify(data: Path | list[Path], *, fit_intercept: bool = True,
            label_column: int | str | None = None, format: str | None = None,
            dask: str | None = None) -> dict[str, Any]:
    """The data-set report of a two-class data file (or data set name), as a record.

    Reads the data and calls :func:`halfspaces.theory.data_report`; with ``dask`` (a
    scheduler's address or ``local:N``) the files (one or more paths or glob patterns) are
    read on a Dask cluster and reported by :func:`halfspaces.dask.data_report`.

    Returns
    -------
    dict
        ``data`` (the file names), then the fields of
        :meth:`halfspaces.theory.DataReport.as_dict`: those that apply to the verdict,
        None where a solver could not answer or a float left float64, and ``notes``
        saying why.
    """
    if dask is not None:
        from halfspaces.cli._dask import report_on_cluster

        paths = data if isinstance(data, list) else [data]
        report = report_on_cluster(paths, dask=dask, fit_intercept=fit_intercept,
                                   label_column=label_column, format=format)
        return {"data": ", ".join(str(p) for p in paths), **report.as_dict()}
    if isinstance(data, list):
        if len(data) != 1:
            raise ValueError("certify reads one DATA file; give several files with --dask.")
        data = data[0]
    import numpy as np

    from halfspaces.cli._reading import read_data
    from halfspaces.theory import data_report

    X, y = read_data(data, label_column, format)
    if len(np.unique(y)) != 2:
        raise ValueError(f"{data}: certify needs exactly two classes, found "
                         f"{len(np.unique(y))}.")
    return {"data": str(data), **data_report(X, y, fit_intercept=fit_intercept).as_dict()}


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


_NOT_SHOWN = " not shown: "
"""How a note of :class:`~halfspaces.theory.DataReport` names a float beyond float64."""
