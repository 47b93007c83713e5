"""What ``halfspaces fit`` refuses before any work: options that do not go together, a
model that cannot stream, and outputs that would destroy an input or cannot be written;
and the option that a checkpoint's refused setting is called (:data:`RESUME_OPTIONS`).

Private to :mod:`halfspaces.cli.fit`: usage errors are :class:`typer.BadParameter` naming
the option; an output that cannot be written is an :class:`~halfspaces.io.OutputFileError`.
"""

from __future__ import annotations

import os

import typer

__all__ = ["RESUME_OPTIONS", "check_outputs", "check_streamable", "check_usage",
           "one_file_unless_dask"]

RESUME_OPTIONS = {
    "model": "--model", "fit_intercept": "--intercept/--no-intercept", "random_state": "--seed",
    "selection": "--selection", "max_epochs": "--epochs", "max_iter": "--epochs",
    "data": "DATA", "chunk_size": "--chunk-size", "checkpoint_every": "--checkpoint-every",
    "format": "--format", "label_column": "--label-column", "epochs": "--epochs",
}
"""What a setting of a checkpoint that ``--resume`` refuses is called on the command line."""


def check_outputs(inputs, out, checkpoint) -> None:
    """Refuse, before any training, outputs that would destroy an input or cannot be written.

    `inputs` are the files the command reads (None entries are skipped).
    """
    from halfspaces.io import OutputFileError, check_output

    for name, path in (("--out", out), ("--checkpoint", checkpoint)):
        if path is not None and str(path) == "-":
            raise OutputFileError(path, "a model file cannot go to standard output, which "
                                        f"carries the report; give a file name to {name}")
    if out is not None:
        check_output(out, (*inputs, checkpoint))
    if checkpoint is not None:
        check_output(checkpoint, inputs)
    if out is not None and checkpoint is not None and \
            os.path.realpath(out) == os.path.realpath(checkpoint):
        raise OutputFileError(out, "it is also the --checkpoint, which the model would "
                                   "replace; give them different names")


def one_file_unless_dask(data, dask, stream, test_fraction):
    """DATA as fit takes it: the list of files with --dask, else the one file (or None)."""
    if dask is not None:
        if not data:
            raise typer.BadParameter("--dask needs DATA files.", param_hint="DATA")
        if stream or test_fraction is not None:
            raise typer.BadParameter("--dask trains on the whole data; drop --stream and "
                                     "--test-fraction.", param_hint="--dask")
        return list(data)
    if data and len(data) > 1:
        raise typer.BadParameter("several DATA files need --dask.", param_hint="DATA")
    return data[0] if data else None


def check_usage(data, test, test_fraction, stream, checkpoint, every, resume) -> None:
    if test is not None and test_fraction is not None:
        raise typer.BadParameter("give --test or --test-fraction, not both.",
                                 param_hint="--test-fraction")
    if not stream and (checkpoint or every or resume):
        raise typer.BadParameter("checkpoints need --stream.", param_hint="--checkpoint")
    if stream and data is None:
        raise typer.BadParameter("--stream needs a training file DATA.", param_hint="--stream")
    if stream and test_fraction is not None:
        raise typer.BadParameter("--stream cannot hold out a fraction; give --test.",
                                 param_hint="--test-fraction")
    if resume and checkpoint is None:
        raise typer.BadParameter("--resume needs --checkpoint PATH.", param_hint="--resume")


def check_streamable(model: str, params: dict | None = None) -> None:
    """Refuse --stream for a model that, with these --param settings, has no partial_fit
    (LogisticRegression has one with solver=sgd or minibatch only)."""
    from halfspaces.cli._models import configure, model_class

    try:
        estimator = configure(model_class(model), params or {}, {})
    except KeyError:  # an unknown --param: fit names it
        return
    if hasattr(estimator, "partial_fit"):
        return
    hint = (" (with --param solver=sgd or solver=minibatch it can)"
            if "solver" in estimator.get_params() and _streams_with_sgd(estimator) else "")
    raise typer.BadParameter(f"--model {model} cannot learn from a stream (it has no "
                             f"partial_fit){hint}; drop --stream.", param_hint="--stream")


def _streams_with_sgd(estimator) -> bool:
    try:
        return hasattr(estimator.set_params(solver="sgd"), "partial_fit")
    except ValueError:  # no such solver
        return False
