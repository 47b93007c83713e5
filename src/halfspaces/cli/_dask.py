"""``--dask``: ``halfspaces fit`` and ``halfspaces certify`` on a Dask cluster.

``--dask ADDRESS`` connects to a running scheduler (``tcp://host:8786``); ``--dask local:N``
starts a :class:`distributed.LocalCluster` of N single-threaded worker processes for the
command's duration. The files are read on the workers (:func:`halfspaces.dask.read_files`),
so they must be visible there at the same paths. What runs on the cluster is the library's:
the :mod:`halfspaces.dask` estimators (their ``fit`` and ``score``) and
:func:`halfspaces.dask.data_report`.
"""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from halfspaces.cli import _fit_measures, _output
from halfspaces.cli._models import configure
from halfspaces.cli._process import collector

__all__ = ["DASK_MODELS", "ClusterFit", "dask_client", "dask_estimator", "fit_on_cluster",
           "report_on_cluster"]

DASK_MODELS = {"perceptron": "Perceptron", "averaged": "AveragedPerceptron",
               "logistic": "LogisticRegression", "linear": "LinearRegression"}
"""``--model`` names that train on a cluster -> class name in :mod:`halfspaces.dask`."""


@contextlib.contextmanager
def dask_client(spec: str) -> Iterator[Any]:
    """A distributed Client for ``--dask``: ``local:N`` or a scheduler's address."""
    from distributed import Client, LocalCluster

    collector.resume()  # a client and a cluster make cyclic garbage all along: collect it
    if spec.startswith("local:"):
        count = spec.removeprefix("local:")
        if not (count.isascii() and count.isdigit()) or int(count) < 1:
            raise ValueError(f"--dask {spec!r}: write local:N with N >= 1 worker processes.")
        with LocalCluster(n_workers=int(count), threads_per_worker=1, processes=True,
                          dashboard_address=":0") as cluster, Client(cluster) as client:
            yield client
        return
    with Client(spec, timeout="20s") as client:
        yield client


def dask_estimator(model: str, params: dict[str, Any], defaults: dict[str, Any]):
    """The :mod:`halfspaces.dask` estimator of a ``--model`` name, configured as ``fit``'s."""
    import halfspaces.dask as hd

    if model not in DASK_MODELS:
        raise ValueError(f"--model {model} does not train on a cluster; with --dask use one "
                         f"of {', '.join(DASK_MODELS)}.")
    return configure(getattr(hd, DASK_MODELS[model]), params, defaults)


@dataclasses.dataclass(frozen=True)
class ClusterFit:
    """What :func:`fit_on_cluster` measured; ``halfspaces fit`` turns it into its report."""

    shape: tuple[int, int]
    fit_time: float
    compile_time: float
    notes: tuple[str, ...]
    train: float
    test: tuple[int, float] | None
    zero_based: bool | None


def fit_on_cluster(estimator, paths: Sequence[Path], *, dask: str,
                   test: Sequence[Path] | None = None, label_column=None,
                   format: str | None = None, show_progress: bool = False,
                   model: str | None = None) -> ClusterFit:
    """Fit a :mod:`halfspaces.dask` `estimator` on files read on the cluster, and score it.

    The files (and the `test` files) are read on the workers
    (:func:`halfspaces.dask.read_files`); the scores are the estimator's ``score`` on the
    partitions (accuracy, or R^2 for regression), timed as a serial fit is timed. `model`
    names the estimator in the progress bar (its ``--model`` name).
    """
    from halfspaces.dask import read_files

    with dask_client(dask):
        read = {"format": format, "label_column": label_column}
        parts = read_files([str(p) for p in paths], **read)
        name = model or type(estimator).__name__
        with _output.progress(f"fitting {name} on {dask}", None, show_progress):
            fit_time, compile_time, notes = _fit_measures.timed(lambda: estimator.fit(parts))
        train = estimator.score(parts)
        tested = None
        if test:
            # the training files' index base, not the test files' own guess
            base = "auto" if parts.zero_based is None else parts.zero_based
            test_parts = read_files([str(p) for p in test], n_features=parts.n_features,
                                    zero_based=base, **read)
            tested = (test_parts.n_samples, estimator.score(test_parts))
    return ClusterFit(parts.shape, fit_time, compile_time, notes, train, tested,
                      parts.zero_based)


def report_on_cluster(paths: Sequence[Path], *, dask: str, fit_intercept: bool,
                      label_column, format: str | None):
    """:func:`halfspaces.dask.data_report` of files read on the cluster."""
    import halfspaces.dask as hd

    with dask_client(dask):
        parts = hd.read_files([str(p) for p in paths], format=format,
                              label_column=label_column)
        if parts.classes.size != 2:
            raise ValueError(f"certify needs exactly two classes, found {parts.classes.size}.")
        return hd.data_report(parts, fit_intercept=fit_intercept)
