"""Options that several commands share, declared once so their names and help stay alike."""

from __future__ import annotations

from typing import Annotated

import typer

LabelColumn = Annotated[str | None, typer.Option(
    "--label-column",
    help="Tabular data: the label column, by header name or index (default: a column named "
    "label/target/class/y, else the first).", show_default=False)]

DataFormat = Annotated[str | None, typer.Option(
    "--format", help="Data format when the extension does not say: svmlight, csv, tsv, "
    "parquet, npy, npz.", show_default=False)]

JsonOutput = Annotated[bool, typer.Option(
    "--json", help="Print one JSON object instead of tables or lines.")]
