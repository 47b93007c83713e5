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
            dask: str | None = None, positive_class: str | None = None) -> dict[str, Any]:
    """The data-set report of a two-class data file (or data set name), as a record.

    Reads the data and calls :func:`halfspaces.theory.data_report`; with ``dask`` (a
    scheduler's address or ``local:N``) the files (one or more paths or glob patterns) are
    read on a Dask cluster and reported by :func:`halfspaces.dask.data_report`. With
    `positive_class` (a label, as written in the file) the report is about that class
    against all the others: how a file with more than two classes is certified.

    Returns
    -------
    dict
        ``data`` (the file names), ``positive_class`` and ``negative_classes`` (the labels
        behind y = +1 and y = -1: the larger label is +1 without `positive_class`), then
        the fields of :meth:`halfspaces.theory.DataReport.as_dict`: those that apply to
        the verdict, with the separating hyperplane (``coef``, ``intercept``) or Gordan's
        certificate (``certificate``, exact fractions as strings), None where a solver
        could not answer or a float left float64, and ``notes`` saying why.
    """
    if dask is not None:
        if positive_class is not None:
            raise ValueError("--positive-class is not available with --dask: certify one "
                             "class against the rest on one file without --dask.")
        from halfspaces.cli._dask import report_on_cluster

        paths = data if isinstance(data, list) else [data]
        classes, report = report_on_cluster(paths, dask=dask, fit_intercept=fit_intercept,
                                            label_column=label_column, format=format)
        return {"data": ", ".join(str(p) for p in paths),
                "positive_class": _label(classes[1].item()),
                "negative_classes": [_label(classes[0].item())], **report.as_dict()}
    if isinstance(data, list):
        if len(data) != 1:
            raise ValueError("certify reads one DATA file; give several files with --dask.")
        data = data[0]
    import numpy as np

    from halfspaces.cli._reading import read_data
    from halfspaces.theory import data_report

    X, y = read_data(data, label_column, format)
    classes = np.unique(y)
    if positive_class is None:
        if classes.size != 2:
            raise ValueError(
                f"{data}: certify needs exactly two classes, found {classes.size}"
                + (f" ({_labels(classes)}): certify one class against the rest with "
                   "--positive-class LABEL." if classes.size > 2 else "."))
        positive = classes[1]  # the larger label is +1, as in every estimator
    else:
        positive = _class_named(data, classes, positive_class)
    signs = np.where(y == positive, 1, -1)
    if np.all(signs == 1):
        raise ValueError(f"{data}: certify needs two classes; every example is labelled "
                         f"{_label(positive)}.")
    rest = [c for c in classes.tolist() if c != positive]
    return {"data": str(data), "positive_class": _label(positive),
            "negative_classes": [_label(c) for c in rest],
            **data_report(X, signs, fit_intercept=fit_intercept).as_dict()}


def _class_named(data: Path, classes: Any, text: str) -> Any:
    """The label of `classes` that ``--positive-class`` `text` names: as written, or the
    same number (``1`` names the label 1.0 of a numeric column)."""
    for label in classes.tolist():
        if _label(label) == text or str(label) == text:
            return label
    try:
        number = float(text)
    except ValueError:
        number = None
    for label in classes.tolist():
        if number is not None and isinstance(label, float | int) and label == number:
            return label
    raise ValueError(f"--positive-class {text!r}: {data} has no such label; its labels are "
                     f"{_labels(classes)}.")


def _label(label: Any) -> str:
    """A label as the file writes it: 1.0 of a numeric column is ``1``."""
    if isinstance(label, float) and label.is_integer():
        return str(int(label))
    return str(label)


def _labels(classes: Any) -> str:
    return ", ".join(_label(c) for c in classes.tolist())


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
    positive_class: Annotated[str | None, typer.Option(
        "--positive-class", help="Data with more than two classes: certify this label "
        "(as written in the file) against all the others.", show_default=False)] = None,
) -> None:
    """Separability with its proof, margin, R, mistake bounds, VC dimension, samples.

    The proof is printed: the separating hyperplane w, b found (every y_i(<w, x_i> + b) > 0),
    or Gordan's certificate that none exists (weights a_i >= 0 summing to 1 with
    sum_i a_i y_i (1, x_i) = 0, exact fractions); long vectors are shortened in the table,
    whole with --json. A field the solver cannot compute in float64 is left empty (null
    with --json) and a note says why; data whose separability cannot be decided get the
    bounds that hold on any data. The exit status is 0 whenever the report is printed.
    """
    from halfspaces.cli._options import parse_label_column as _column

    if len(data) > 1 and dask is None:
        raise typer.BadParameter("several DATA files need --dask.", param_hint="DATA")
    record = certify(data if dask else data[0], fit_intercept=intercept,
                     label_column=_column(label_column), format=format, dask=dask,
                     positive_class=positive_class)
    if json_output:
        _output.render(record, title="", as_json=True)
        return
    table, notes = record.pop("sample_complexity"), record.pop("notes")
    _output.render({key: _shown(key, value, notes) for key, value in record.items()},
                   title="halfspaces certify", labels=_LABELS)
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
    if key in ("coef", "certificate") and value is not None:
        return _vector(value) if key == "coef" else _weights(value)
    if key == "intercept" and value is not None:
        return repr(float(value))  # every digit: the table's four decimals cannot check it
    if value is not None:
        return value
    if key == "separable":
        return "not decided"
    for note in notes:
        if note.startswith(key + _NOT_SHOWN):
            return note[len(key + _NOT_SHOWN):]
    return "not computed"


_LABELS = {"coef": "hyperplane w", "intercept": "hyperplane b",
           "certificate": "certificate a"}

_SHOWN = 8
"""The most entries of a vector the table prints (--json prints all)."""


def _vector(values: list[float]) -> str:
    """w in the floats' shortest round-trip digits (exact), shortened past :data:`_SHOWN`."""
    shown = [repr(float(v)) for v in values]
    if len(shown) <= _SHOWN:
        return "(" + ", ".join(shown) + ")"
    return ("(" + ", ".join(shown[:_SHOWN - 2]) + ", ..., " + ", ".join(shown[-2:])
            + f") [{len(shown)} entries; --json prints all]")


def _weights(values: list[str]) -> str:
    """The certificate's nonzero weights by example (rows counted from 0), shortened past
    :data:`_SHOWN`: most of a large sample's weights are 0."""
    from fractions import Fraction

    nonzero = [(i, q) for i, q in enumerate(values) if Fraction(q) != 0]
    rounded = any(len(q) > _DIGITS for _, q in nonzero[:_SHOWN])
    text = ", ".join(f"a[{i}] = {q if len(q) <= _DIGITS else f'~{float(Fraction(q)):.6g}'}"
                     for i, q in nonzero[:_SHOWN])
    if len(nonzero) > _SHOWN:
        text += f", ... [{len(nonzero) - _SHOWN} more nonzero]"
    text += f"; a[i] = 0 for the other {len(values) - len(nonzero)} of {len(values)}"
    if rounded:
        text += " [~: rounded here; --json prints the exact fractions]"
    return text


_DIGITS = 15
"""The longest weight the table prints as it is (``"1/6"``); longer fractions (iris's have
50-digit numerators) are rounded to six digits there, and exact in --json."""


_NOT_SHOWN = " not shown: "
"""How a note of :class:`~halfspaces.theory.DataReport` names a float beyond float64."""
