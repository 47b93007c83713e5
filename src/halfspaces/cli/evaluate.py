"""``halfspaces evaluate``: accuracy, confusion matrix and log-loss of a saved model."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from halfspaces.cli import _output
from halfspaces.cli._options import DataFormat, JsonOutput, LabelColumn

__all__ = ["evaluate", "evaluate_cli"]


def evaluate(model_path: Path, data: Path, *, label_column: int | str | None = None,
             format: str | None = None, chunk_size: int = 10_000) -> dict[str, Any]:
    """Score a model file on a data file, reading it in chunks.

    Returns
    -------
    dict
        ``model``, ``data``, ``n_samples``, ``accuracy``, ``log_loss`` (None without
        ``predict_proba``), ``classes`` and ``confusion`` (rows: true class, columns:
        predicted class).
    """
    from halfspaces.cli._data import label_text, load_model
    from halfspaces.io import evaluate_stream

    model, read = load_model(model_path)
    counts = evaluate_stream(model, data, chunk_size=chunk_size, format=format,
                             label_column=label_column, **read)
    return {
        "model": type(model).__name__, "data": str(data), "n_samples": counts.n_samples,
        "accuracy": counts.accuracy, "log_loss": counts.log_loss,
        "classes": [label_text(c) for c in counts.classes],
        "confusion": counts.confusion.tolist(),
    }


def evaluate_cli(
    model: Annotated[Path, typer.Argument(help="A model file written by `fit --out`.")],
    data: Annotated[Path, typer.Argument(help="Labelled data, in any format fit reads.")],
    label_column: LabelColumn = None,
    format: DataFormat = None,
    json_output: JsonOutput = False,
) -> None:
    """Accuracy, confusion matrix and (where the model has probabilities) log-loss."""
    from halfspaces.cli.fit import _column

    record = evaluate(model, data, label_column=_column(label_column), format=format)
    if json_output:
        _output.render(record, title="", as_json=True)
        return
    summary = {k: v for k, v in record.items() if k not in ("classes", "confusion")}
    _output.render(summary, title="halfspaces evaluate", labels={"n_samples": "samples"})
    rows = [[f"true {c}", *row] for c, row in zip(record["classes"], record["confusion"],
                                                        strict=True)]
    _output.grid(rows, title="confusion matrix",
                 header=["", *(f"pred {c}" for c in record["classes"])])
