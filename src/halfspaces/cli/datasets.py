"""``halfspaces datasets``: the data sets that ``fit`` and ``certify`` accept by name."""

from __future__ import annotations

import dataclasses
from typing import Any

from halfspaces.cli import _output
from halfspaces.cli._options import JsonOutput

__all__ = ["datasets", "datasets_cli"]


def datasets() -> list[dict[str, Any]]:
    """One record per data set of :func:`halfspaces.datasets.list_datasets`."""
    from halfspaces.datasets import list_datasets

    return [dataclasses.asdict(info) for info in list_datasets()]


def datasets_cli(
    json_output: JsonOutput = False,
) -> None:
    """List the bundled data sets (use a name as DATA for fit and certify)."""
    records = datasets()
    if json_output:
        _output.render({"datasets": records}, title="", as_json=True)
        return
    header = ["name", "n_samples", "n_features", "n_classes", "sparse", "description"]
    _output.grid([[r[k] for k in header] for r in records], title="halfspaces data sets",
                 header=[h.replace("n_", "") for h in header])
