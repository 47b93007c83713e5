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
import logging
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from halfspaces.cli import _fit_measures, _output
from halfspaces.cli._models import configure
from halfspaces.cli._process import collector, signals

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
    _quiet_unretrieved_exits()
    with contextlib.ExitStack() as stack:
        # entered first, so that it still holds while the client and the cluster close
        quiet = stack.enter_context(_Quieted("distributed"))
        if spec.startswith("local:"):
            # silence_logs: the cluster's own warnings are timestamped multi-line log
            # records (a task cancelled, a worker killed after 4 s as it shuts down), not
            # the command's one-line notes; its errors still show
            cluster = stack.enter_context(LocalCluster(
                n_workers=int(count), threads_per_worker=1, processes=True,
                dashboard_address=":0", silence_logs=logging.ERROR,
                preload=[_WORKER_PRELOAD]))
            client = stack.enter_context(Client(cluster))
        else:
            client = stack.enter_context(Client(spec, timeout="20s"))
        try:
            yield client
        except (KeyboardInterrupt, signals.Signalled):
            # Ctrl-C ends the command as the serial fit's does (exit 130, from the caller),
            # with one line; the shutdown that follows (tasks cancelled, workers stopped
            # mid-task, timeouts on a loaded machine) is expected, and says nothing
            _output.note([f"interrupted; the work on the Dask cluster ({spec}) was stopped "
                          "and nothing was saved"])
            quiet.now()
            raise


class _Quieted(contextlib.AbstractContextManager):
    """Once :meth:`now` is called, the logger `name` says nothing until the block ends (the
    cluster's shutdown after Ctrl-C); its level is restored then."""

    def __init__(self, name: str) -> None:
        self._logger = logging.getLogger(name)
        self._level: int | None = None

    def now(self) -> None:
        self._level = self._logger.level
        self._logger.setLevel(logging.CRITICAL + 1)

    def __exit__(self, *exc_info) -> None:
        if self._level is not None:
            self._logger.setLevel(self._level)


_WORKER_PRELOAD = "halfspaces.cli._process.worker_signals"
"""Imported by each local worker as it starts: the workers ignore Ctrl-C, which the command
handles (a terminal's Ctrl-C reaches them too, and each printed its own traceback)."""


class _UnretrievedExit(logging.Filter):
    """Drops asyncio's "Task exception was never retrieved" record for distributed's
    ``AllExit``: the client's gather raises it in a task of its own when the command is
    interrupted, nobody awaits that task, and asyncio printed its traceback at exit."""

    def filter(self, record: logging.LogRecord) -> bool:
        error = record.exc_info[1] if record.exc_info else None
        return type(error).__name__ != "AllExit"


_FILTER = _UnretrievedExit()


def _quiet_unretrieved_exits() -> None:
    logger = logging.getLogger("asyncio")
    if _FILTER not in logger.filters:
        logger.addFilter(_FILTER)


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
    """:func:`halfspaces.dask.data_report` of files read on the cluster, and their two
    labels (sorted: the second is +1)."""
    import halfspaces.dask as hd

    with dask_client(dask):
        parts = hd.read_files([str(p) for p in paths], format=format,
                              label_column=label_column)
        if parts.classes.size != 2:
            raise ValueError(f"certify needs exactly two classes, found {parts.classes.size}.")
        return parts.classes, hd.data_report(parts, fit_intercept=fit_intercept)
