"""Training on a Dask cluster: the data stay in row partitions on the workers.

The optimiser runs on the client; every evaluation sends the weights to the workers once,
each partition returns its sums over its own rows, and the client adds them in partition
order, so a fit gives the same bits on one worker or many. The theory tools and the data-set
report (:func:`data_report`) work the same way, as does :func:`score`. Needs the ``dask`` extra:
``pip install 'halfspaces[dask]'``.
"""

from __future__ import annotations

try:
    import dask  # noqa: F401
    import distributed  # noqa: F401
except ImportError as err:  # pragma: no cover - the test extra installs dask
    raise ImportError(
        "halfspaces.dask needs dask and distributed: pip install 'halfspaces[dask]'"
    ) from err

from halfspaces.dask._data_report import data_report  # noqa: E402
from halfspaces.dask._files import read_files  # noqa: E402
from halfspaces.dask._glm import LinearRegression, LogisticRegression  # noqa: E402
from halfspaces.dask._partitions import Partitions  # noqa: E402
from halfspaces.dask._perceptron import AveragedPerceptron, Perceptron  # noqa: E402
from halfspaces.dask._score import score  # noqa: E402
from halfspaces.dask._separability import (  # noqa: E402
    PartitionedRows,
    best_freund_schapire_bound,
    max_margin,
    radius,
    separability,
    signed_partitions,
)

__all__ = [
    "AveragedPerceptron",
    "LinearRegression",
    "LogisticRegression",
    "PartitionedRows",
    "Partitions",
    "Perceptron",
    "best_freund_schapire_bound",
    "data_report",
    "max_margin",
    "radius",
    "read_files",
    "score",
    "separability",
    "signed_partitions",
]
