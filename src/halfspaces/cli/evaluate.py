"""``halfspaces evaluate``: how a saved model does on labelled data (a classifier's accuracy,
per-class measures, confusion matrix, log-loss and ROC AUC; a regressor's R^2, RMSE, MAE)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from halfspaces.cli import _output
from halfspaces.cli._options import DataFormat, JsonOutput, LabelColumn, parse_label_column

__all__ = ["evaluate", "evaluate_cli"]


def evaluate(model_path: Path, data: Path, *, label_column: int | str | None = None,
             format: str | None = None, chunk_size: int = 10_000) -> dict[str, Any]:
    """Score a model file on a data file, reading it in chunks.

    Returns
    -------
    dict
        ``model``, ``data``, ``n_samples``, then for a classifier ``accuracy``, ``log_loss``
        (the model's own log-probabilities, unclipped; None without ``predict_proba``),
        ``roc_auc`` (binary, with ``decision_function``; else None), ``classes``,
        ``precision``, ``recall`` and ``f1`` (per class, None where undefined) and
        ``confusion`` (rows: true class, columns: predicted class); for a regressor ``r2``,
        ``rmse`` and ``mae``.
    """
    from halfspaces.cli._reading import label_text, load_model
    from halfspaces.io import StreamResiduals, evaluate_stream

    model, read = load_model(model_path)
    found = evaluate_stream(model, data, chunk_size=chunk_size, format=format,
                            label_column=label_column, **read)
    head = {"model": type(model).__name__, "data": str(data), "n_samples": found.n_samples}
    if isinstance(found, StreamResiduals):
        return {**head, "r2": _number(found.r2), "rmse": found.rmse, "mae": found.mae}
    return {
        **head, "accuracy": found.accuracy, "log_loss": found.log_loss, "roc_auc": found.roc_auc,
        "classes": [label_text(c) for c in found.classes],
        "precision": [_number(v) for v in found.precision],
        "recall": [_number(v) for v in found.recall],
        "f1": [_number(v) for v in found.f1],
        "confusion": found.confusion.tolist(),
    }


def _number(value: float) -> float | None:
    """None for nan (an undefined measure), so that --json prints null."""
    return None if value != value else float(value)


_PER_CLASS = ("classes", "precision", "recall", "f1", "confusion")


def evaluate_cli(
    model: Annotated[Path, typer.Argument(help="A model file written by `fit --out`.")],
    data: Annotated[Path, typer.Argument(help="Labelled data, in any format fit reads.")],
    label_column: LabelColumn = None,
    format: DataFormat = None,
    json_output: JsonOutput = False,
) -> None:
    """Accuracy, per-class precision, recall and F1, the confusion matrix, log-loss and ROC
    AUC where the model has them; R^2, RMSE and MAE for a regression model."""
    record = evaluate(model, data, label_column=parse_label_column(label_column), format=format)
    if json_output:
        _output.render(record, title="", as_json=True)
        return
    summary = {k: v for k, v in record.items() if k not in _PER_CLASS}
    _output.render(summary, title="halfspaces evaluate",
                   labels={"n_samples": "samples", "log_loss": "log-loss (unclipped)",
                           "roc_auc": "ROC AUC", "r2": "R^2", "rmse": "RMSE", "mae": "MAE"})
    if "classes" not in record:
        return
    measures = zip(record["classes"], record["precision"], record["recall"], record["f1"],
                   strict=True)
    _output.grid([list(row) for row in measures], title="per class",
                 header=["class", "precision", "recall", "F1"])
    pairs = zip(record["classes"], record["confusion"], strict=True)
    rows = [[f"true {c}", *row] for c, row in pairs]
    _output.grid(rows, title="confusion matrix",
                 header=["", *(f"pred {c}" for c in record["classes"])])
