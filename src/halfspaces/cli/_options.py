"""Options that several commands share, declared once so their names and help stay alike."""

from __future__ import annotations

from typing import Annotated

import typer

MAX_ROWS = 2**63 - 1
"""The largest ``--chunk-size`` (and row count option): the compiled line cutter counts rows
in int64, and a larger value once reached it as a Numba typing error. The library's
:data:`halfspaces.io._files.MAX_ROWS`, repeated here so that option parsing imports no NumPy.
Also the largest ``--epochs``, which a streamed fit counts in int64 (it refused more as
``epochs=``, where an in-memory fit took them)."""

MAX_SEED = 2**32 - 1
"""The largest ``--seed``: NumPy's legacy seeding (``RandomState``, what scikit-learn's
``random_state`` becomes) takes 0 to 2**32 - 1, and a larger seed failed deep inside with
NumPy's message, which does not name the option."""

LabelColumn = Annotated[str | None, typer.Option(
    "--label-column",
    help="Tabular data: the label column, by header name or index (default: a column named "
    "label/target/class/y, else the first).", show_default=False)]

DataFormat = Annotated[str | None, typer.Option(
    "--format", help="Data format when the extension does not say: svmlight, csv, tsv, "
    "parquet, npy, npz.", show_default=False)]

JsonOutput = Annotated[bool, typer.Option(
    "--json", help="Print one JSON object instead of tables or lines.")]

DaskOption = Annotated[str | None, typer.Option(
    "--dask", help="Run on a Dask cluster: a scheduler's address (tcp://host:8786), or "
    "local:N for N single-threaded worker processes on this machine. The files are read on "
    "the workers (pip install 'halfspaces[dask]').", show_default=False)]


def parse_label_column(text: str | None) -> int | str | None:
    """The ``--label-column`` value as the readers take it: an index if it is an integer.

    Examples
    --------
    >>> parse_label_column("-1"), parse_label_column("income"), parse_label_column(None)
    (-1, 'income', None)
    """
    if text is None:
        return None
    digits = text.lstrip("-")
    # isdigit alone takes "²", which int() refuses: ASCII digits only are an index
    return int(text) if digits.isascii() and digits.isdigit() else text
