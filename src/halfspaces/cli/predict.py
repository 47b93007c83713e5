"""``halfspaces predict``: one prediction per line for every sample of a data file.

:func:`predict` yields the output lines chunk by chunk (memory bounded by a chunk);
:func:`predict_cli` writes them to stdout, or to ``--out`` through
:func:`halfspaces.io.safe_write`.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Annotated, Any

import typer

from halfspaces.cli import _output
from halfspaces.cli._options import DataFormat, JsonOutput, LabelColumn, parse_label_column

__all__ = ["predict", "predict_cli"]


def predict(model_path: Path, data: Path, *, proba: bool = False,
            label_column: int | str | None = None, format: str | None = None,
            chunk_size: int = 10_000, as_json: bool = False) -> Iterator[Any]:
    """The prediction lines for `data`: labels in their original values, or with `proba`
    the class probabilities in the order of ``classes_``, comma-separated. With `as_json`
    the values themselves: a number for a numeric label (1, -1, 0.5), a string for a text
    label, a list of floats for the probabilities.

    Raises
    ------
    ValueError
        For a bad model file or data file, or `proba` for a model without
        ``predict_proba``.
    """
    import numpy as np

    from halfspaces.cli._reading import label_text, label_value, load_model
    from halfspaces.io import DataFileError, iter_chunks

    model, read = load_model(model_path)
    if proba and not hasattr(model, "predict_proba"):
        raise ValueError(f"{type(model).__name__} gives no probabilities; drop --proba.")
    n_samples = 0
    for X, _ in iter_chunks(data, chunk_size, model.n_features_in_, format=format,
                            label_column=label_column, **read):
        n_samples += X.shape[0]
        if proba and as_json:
            yield from (row.tolist() for row in np.asarray(model.predict_proba(X), float))
        elif proba:
            yield from (",".join(repr(float(p)) for p in row) for row in model.predict_proba(X))
        else:
            yield from ((label_value if as_json else label_text)(v) for v in model.predict(X))
    if n_samples == 0:  # e.g. a pipe already read: an empty answer would look like success
        raise DataFileError(data, "the file holds no samples")


def predict_cli(
    model: Annotated[Path, typer.Argument(help="A model file written by `fit --out`.")],
    data: Annotated[Path, typer.Argument(
        help="Data to predict, in any format fit reads. CSV/TSV and .npy files may hold "
        "the features only; a label column, if present, is ignored.")],
    out: Annotated[Path | None, typer.Option(
        help="Write the predictions here instead of to stdout (a regular file is replaced "
        "atomically; a FIFO or device is written directly; - is stdout).",
        show_default=False)] = None,
    proba: Annotated[bool, typer.Option(
        "--proba", help="Print class probabilities (comma-separated, in classes_ order).")]
        = False,
    label_column: LabelColumn = None,
    format: DataFormat = None,
    json_output: JsonOutput = False,
) -> None:
    """Predict a label (or class probabilities) for every sample, one per line."""
    if out is not None and str(out) == "-":
        out = None
    if out is not None:
        from halfspaces.io import check_output

        check_output(out, (model, data))  # before any work: never replace an input
    lines = predict(model, data, proba=proba, label_column=parse_label_column(label_column),
                    format=format)
    if out is not None:
        n = _write_lines(out, lines, (model, data))
        if json_output:
            _output.render({"n_samples": n, "out": str(out)}, title="", as_json=True)
        return
    if json_output:  # the values, not their text: numbers stay numbers
        values = predict(model, data, proba=proba, label_column=parse_label_column(label_column),
                         format=format, as_json=True)
        _output.render({"predictions": list(values)}, title="", as_json=True)
        return
    _print_lines(lines)


def _print_lines(lines: Iterator[str]) -> None:
    """The predictions on stdout as UTF-8, whatever the locale: they are data, written as
    ``--out`` writes them (an ASCII locale failed on the first label such as "été")."""
    buffer = getattr(sys.stdout, "buffer", None)
    if buffer is None:  # a text-only stream (a caller's StringIO): its own encoding
        for line in lines:
            print(line)
        return
    sys.stdout.flush()  # what was printed before goes first
    for line in lines:
        buffer.write(line.encode() + b"\n")


def _write_lines(path: Path, lines: Iterator[str], inputs) -> int:
    from halfspaces.io import safe_write

    count = 0

    def write(handle) -> None:
        nonlocal count
        for line in lines:
            handle.write(line.encode() + b"\n")
            count += 1

    safe_write(path, write, inputs=inputs)
    return count
