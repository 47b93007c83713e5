"""Training and evaluating on files larger than memory, one chunk at a time, with checkpoints.

:func:`fit_stream` feeds a file's chunks to ``partial_fit`` (the online protocol: the
result does not depend on where chunks are cut for the perceptron family, and the cuts are
made at the same places on every run for the others). With a checkpoint file it saves the
model atomically every `checkpoint_every` examples, together with its position in the
stream; ``resume=True`` continues from there, so a run killed at any moment loses at most
`checkpoint_every` examples and finishes with exactly the model an uninterrupted run gives.

A checkpoint is resumed only by the run that wrote it: the same estimator class and
parameters, the same chunking and reading options, and the same data (its size, modification
time and a hash of its first and last 64 KiB are recorded); its progress fields are checked
for type and range. Anything else is a :class:`CheckpointMismatchError` or a
:class:`ModelFileError` (both defined in :mod:`halfspaces.exceptions`) naming the checkpoint
and the difference.

The one-pass training of the perceptron family (widening the model as the file's width
shows) is in :mod:`halfspaces.io._one_pass`; the data file's fingerprint and the checks of
a checkpoint's progress fields are in :mod:`halfspaces.io._checkpoint`.
"""

from __future__ import annotations

import copy
import dataclasses
import itertools
import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
from sklearn.base import is_regressor

from halfspaces.exceptions import CheckpointMismatchError, DataFileError, ModelFileError, shown
from halfspaces.io._checkpoint import (
    beyond_end_check,
    identity,
    progress_plan,
    same_value,
    unreadable,
    whole_file_hash,
)
from halfspaces.io._columns import column_names
from halfspaces.io._files import (
    DEFAULT_CHUNK_SIZE,
    check_count,
    iter_chunks,
    scan,
    svmlight_raw_chunks,
)
from halfspaces.io._one_pass import Plan, Unforeseen, growable, grown, settle
from halfspaces.io._write import check_output
from halfspaces.io.model import load_with_extra, save

# CheckpointMismatchError is defined in halfspaces.exceptions and exported here too, where it
# has always been importable
__all__ = ["CheckpointMismatchError", "StreamFit", "fit_stream"]

_SAME_RUN = ("data", "chunk_size", "checkpoint_every", "format", "label_column")


@dataclasses.dataclass(frozen=True)
class StreamFit:
    """What :func:`fit_stream` did.

    Attributes
    ----------
    model : estimator
        The trained model (the one passed in, or the one loaded from the checkpoint), with
        ``feature_names_in_`` from a CSV/TSV header or a Parquet schema
        (:func:`halfspaces.io.column_names`).
    n_features : int
        The model's feature count: the file's widest index, in its index base (found while
        training in a one-pass run).
    zero_based : bool
        Index base used for an svmlight file.
    n_seen : int
        Examples fed to ``partial_fit`` by this call (not counting those a resumed run skips).
    resumed_at : tuple of int or None
        (epoch, examples into that epoch) the run resumed from; None for a fresh run.
    n_checkpoints : int
        Checkpoints written by this call.
    """

    model: Any
    n_features: int
    zero_based: bool
    n_seen: int
    resumed_at: tuple[int, int] | None
    n_checkpoints: int


def fit_stream(
    model: Any,
    path: str | os.PathLike,
    *,
    epochs: int = 1,
    chunk_size: int = DEFAULT_CHUNK_SIZE,
    format: str | None = None,
    label_column: int | str | None = None,
    zero_based: bool | str = "auto",
    checkpoint: str | os.PathLike | None = None,
    checkpoint_every: int | None = None,
    resume: bool = False,
    on_progress: Callable[[int], None] | None = None,
    n_features: int | None = None,
    classes: Any = None,
    verify_data: bool = False,
    on_epoch: Callable[[int, int], None] | None = None,
) -> StreamFit:
    """Train `model` with ``partial_fit`` on `path`, `chunk_size` rows at a time.

    Parameters
    ----------
    model : estimator with ``partial_fit``
        A fresh model. When resuming, the checkpoint's model continues instead; it must be of
        the same class with the same parameters (else :class:`CheckpointMismatchError`).
    path : str or os.PathLike
        Training data, any format of :func:`halfspaces.io.iter_chunks`. An svmlight file
        trained by a model with a ``widen`` method (the perceptron family, see
        :meth:`halfspaces.Perceptron.widen`) is read once per epoch: the model is widened
        as larger feature indices appear, and the labels are those of the first chunk,
        completed to {-1, 1} or {0, 1} when it holds one label of such a pair (a lone 1
        means {-1, 1}); ``classes_`` is sorted, so the larger label is the positive class.
        The labels are checked as the run goes and against ``classes_`` at the end of the
        first epoch; a run whose labels break that rule starts again after a first pass.
        Otherwise a first pass (:func:`halfspaces.io.scan`) finds the labels and the
        feature count, unless resuming. Both ways give the same model, bit for bit.
    epochs : int, default=1
        Passes over the file.
    chunk_size : int, default=10000
        Rows per ``partial_fit`` call; memory is bounded by one chunk.
    format, label_column, zero_based
        As for :func:`halfspaces.io.read`.
    checkpoint : path or None, default=None
        Model file to write (atomically) every `checkpoint_every` examples and after each
        epoch; it also records the position in the stream.
    checkpoint_every : int or None, default=None
        Examples between checkpoints (default: `chunk_size`).
    resume : bool, default=False
        Continue from `checkpoint` if it exists (skipping the examples it has consumed). The
        checkpoint must come from a run with the same model, `chunk_size`,
        `checkpoint_every`, `format` and `label_column` on the same, unchanged data file, and
        be at most at epoch `epochs`.
    on_progress : callable or None, default=None
        Called with the number of examples after each ``partial_fit``.
    n_features, classes : default=None
        When both are given (e.g. from an earlier :func:`halfspaces.io.scan`), the first
        pass is skipped; an svmlight file is then 1-based unless `zero_based` is True. A
        regressor (:class:`halfspaces.LinearRegression`) has no classes: `n_features` alone
        skips the first pass, and its ``partial_fit`` is called without them.
    verify_data : bool, default=False
        Record a SHA-256 of the whole data file in the checkpoint, and check it on resume
        (one more read of the file at each start). By default a checkpoint records the
        file's size, modification time and a hash of its first and last 64 KiB: enough to
        notice a replaced or rewritten file, not a byte changed in the middle with its size
        and modification time restored. A checkpoint written with it is checked on resume
        whatever this setting. A regular file only (a pipe cannot be read twice).
    on_epoch : callable or None, default=None
        Called as ``on_epoch(k, epochs)`` when the k-th pass over the file (from 1) begins,
        before the file is opened for it (a resumed run begins with the checkpoint's).

    Returns
    -------
    StreamFit

    Examples
    --------
    >>> import pathlib, tempfile, halfspaces
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "d.svm"
    >>> _ = path.write_text("1 1:2 2:1\\n1 1:1 2:3\\n-1 1:-1 2:-2\\n-1 1:-2 2:-1\\n")
    >>> run = fit_stream(halfspaces.Perceptron(), path, chunk_size=2, epochs=2)
    >>> run.model.predict([[3.0, 3.0]]), run.n_seen
    (array([1.]), 8)
    """
    if not hasattr(model, "partial_fit"):
        raise ValueError(f"{type(model).__name__} cannot learn from a stream: it has no "
                         "partial_fit.")
    every = _check_arguments(path, epochs, chunk_size, checkpoint, checkpoint_every)
    settings = {"data": os.fspath(Path(path).resolve()), "chunk_size": chunk_size,
                "checkpoint_every": every, "epochs": epochs, "format": format,
                "label_column": label_column, **identity(path)}
    if verify_data:
        settings["data_sha256"] = _whole_file_hash(path)
    known = (None if n_features is None or (classes is None and not is_regressor(model))
             else (n_features, classes))
    fresh = copy.deepcopy(model.__dict__)
    try:
        run = _fit(model, path, epochs, chunk_size, every, format, label_column, zero_based,
                   checkpoint, resume, (on_progress, on_epoch), settings, known,
                   one_pass=True)
    except Unforeseen:
        # the one-pass guess about the labels was wrong: start again, after a first pass
        model.__dict__.clear()
        model.__dict__.update(fresh)
        run = _fit(model, path, epochs, chunk_size, every, format, label_column, zero_based,
                   checkpoint, False, (on_progress, on_epoch), settings, known,
                   one_pass=False)
    # the columns' names, as fit on a DataFrame keeps them, so that the saved model checks a
    # DataFrame's columns (one in another order scored silently wrong); set only now: the
    # chunks trained on are arrays without names, which the model would warn about
    names = column_names(path, format=format, label_column=label_column)
    if names is not None:
        run.model.feature_names_in_ = np.asarray(names, dtype=object)
    return run


def _check_arguments(path, epochs, chunk_size, checkpoint, checkpoint_every) -> int:
    """Refuse bad settings by name before any work; the rows between checkpoints."""
    check_count(epochs, "epochs", "a positive number of passes over the file")
    check_count(chunk_size, "chunk_size")
    if checkpoint_every is not None:
        check_count(checkpoint_every, "checkpoint_every",
                    "a positive number of examples, or None for chunk_size")
    if checkpoint is not None:
        # the checkpoint is replaced again and again: it must not be the data (another
        # spelling, a symbolic or a hard link included), which it would destroy
        check_output(checkpoint, [path])
    return chunk_size if checkpoint_every is None else checkpoint_every


def _fit(model, path, epochs, chunk_size, every, format, label_column, zero_based, checkpoint,
         resume, listeners, settings, known, one_pass) -> StreamFit:
    on_progress, on_epoch = listeners
    model, plan = _start(model, path, settings, checkpoint if resume else None, format,
                         label_column, zero_based, chunk_size, known, one_pass)
    # names from an earlier fit: its partial_fit would warn at every chunk (arrays have none)
    model.__dict__.pop("feature_names_in_", None)

    def read(skip, rows=chunk_size):
        if plan.growing:
            return svmlight_raw_chunks(path, rows, shift=1 if zero_based is False else 0,
                                       skip=skip)
        return iter_chunks(path, rows, plan.n_features, format=format,
                           label_column=label_column, zero_based=plan.zero_based,
                           classes=plan.classes, skip=skip)

    n_seen, n_checkpoints, regression = 0, 0, is_regressor(model)
    for epoch in range(plan.epoch, epochs):
        position = plan.position if epoch == plan.epoch else 0
        if on_epoch is not None:
            on_epoch(epoch + 1, epochs)
        chunks = _aligned(read, position, chunk_size)
        if plan.resumed and epoch == plan.epoch and position:
            chunks = beyond_end_check(chunks, read, path, checkpoint, position)
        if plan.growing:
            chunks = grown(chunks, model, plan, path, zero_based)
        for X, y in _pieces(chunks, position, chunk_size, every):
            if regression:  # its partial_fit takes no classes
                model.partial_fit(X, y)
            else:  # (a one-pass run finds them in its first chunk)
                model.partial_fit(X, y, classes=plan.classes)
            position += len(y)
            n_seen += len(y)
            if checkpoint is not None and position % every == 0:
                _write_checkpoint(model, checkpoint, settings, plan, epoch, position,
                                  zero_based)
                n_checkpoints += 1
            if on_progress is not None:
                on_progress(len(y))
        if plan.growing:
            settle(plan)
        if checkpoint is not None:
            _write_checkpoint(model, checkpoint, settings, plan, epoch + 1, 0)
            n_checkpoints += 1
    if n_seen == 0 and not plan.resumed:
        raise DataFileError(path, "the file holds no samples")
    resumed_at = (plan.epoch, plan.position) if plan.resumed else None
    return StreamFit(model, plan.n_features, plan.zero_based, n_seen, resumed_at, n_checkpoints)


def _start(model, path, settings, checkpoint, format, label_column, zero_based, chunk_size,
           known, one_pass=False):
    """(model, plan): from the checkpoint when there is one to resume, else from `known`
    (n_features, classes), else one pass where the model can grow, else from a scan."""
    if checkpoint is not None and Path(checkpoint).exists():
        saved, extra = load_with_extra(checkpoint)
        progress = extra.get("checkpoint")
        if not isinstance(progress, dict):
            raise ModelFileError(f"{shown(checkpoint)} is a model file, not a checkpoint")
        _check_same_run(checkpoint, progress, settings)
        _check_same_model(checkpoint, saved, model)
        _check_epochs_left(checkpoint, progress, settings["epochs"])
        plan = progress_plan(checkpoint, progress, saved, settings["epochs"])
        if plan.growing and progress.get("zero_based_setting") != zero_based:
            raise CheckpointMismatchError(
                f"{shown(checkpoint)} was written by a run with zero_based="
                f"{progress.get('zero_based_setting')!r}, not {zero_based!r}: resume with the "
                "same data and settings, or delete it.", "zero_based")
        if isinstance(zero_based, bool) and not plan.growing and plan.zero_based != zero_based:
            raise CheckpointMismatchError(
                f"{shown(checkpoint)} was written by a run with zero_based={plan.zero_based}, not "
                f"{zero_based}: resume with the same data and settings, or delete it.",
                "zero_based")
        return saved, plan
    regression = is_regressor(model)
    if known is not None:
        classes = None if regression else np.asarray(known[1])
        return model, Plan(0, 0, known[0], zero_based is True, classes, False)
    if one_pass and growable(model, path, format, label_column):
        return model, Plan(0, 0, 0, zero_based is True, None, False, growing=True)
    # a regression's targets are not classes: as many distinct values as rows, which the
    # scan would hold in memory and every checkpoint would record
    info = scan(path, format=format, label_column=label_column, zero_based=zero_based,
                chunk_size=chunk_size, classes=not regression)
    if info.n_samples == 0:
        raise DataFileError(path, "the file holds no samples")
    return model, Plan(0, 0, info.n_features, info.zero_based, info.classes, False)


def _check_same_run(checkpoint, progress: dict, settings: dict) -> None:
    for key in _SAME_RUN:
        if progress.get(key) != settings[key]:
            raise CheckpointMismatchError(
                f"{shown(checkpoint)} was written by a run with {key}={progress.get(key)!r}, not "
                f"{settings[key]!r}: resume with the same data and settings, or delete it.",
                key)
    missing = "data_size" in progress and "data_size" not in settings
    if missing and (reason := unreadable(settings["data"])) is not None:
        raise DataFileError(settings["data"], f"cannot read it to resume from {shown(checkpoint)} "
                                              f"({reason})")
    if "data_sha256" in progress and "data_sha256" not in settings:  # it asked to be checked
        settings["data_sha256"] = _whole_file_hash(settings["data"])
    # checkpoints from before these were recorded lack them; the others must match
    changed = [k for k in ("data_size", "data_hash", "data_mtime_ns", "data_sha256")
               if k in progress and progress[k] != settings.get(k)]
    if changed:
        what = {"data_size": "its size", "data_hash": "its content",
                "data_mtime_ns": "its modification time",
                "data_sha256": "the SHA-256 of its bytes"}[changed[0]]
        raise CheckpointMismatchError(
            f"{shown(checkpoint)}: the data file {shown(settings['data'])} changed since the "
            f"checkpoint was written ({what} differs): resume on the same data, or delete it.",
            "data")


def _whole_file_hash(path) -> str:
    import stat

    try:
        regular = stat.S_ISREG(os.stat(path).st_mode)
    except OSError as exc:
        raise DataFileError(path, f"cannot read it ({exc.strerror or exc})") from None
    if not regular:
        raise DataFileError(path, "verify_data needs a regular file: a pipe or a device "
                                  "cannot be read twice")
    return whole_file_hash(path)


def _check_epochs_left(checkpoint, progress: dict, epochs: int) -> None:
    """A checkpoint further on than this run's `epochs` is sound: the run asks for fewer
    passes than it has made, which the user fixes with `epochs` (not by deleting it)."""
    done = progress.get("epoch")
    if type(done) is int and done > epochs:
        raise CheckpointMismatchError(
            f"{shown(checkpoint)} was written after {done} passes over the data, more than "
            f"this run's epochs={epochs}: resume with epochs of at least {done}, or delete it.",
            "epochs")


def _check_same_model(checkpoint, saved, model) -> None:
    """The checkpoint's estimator must be the one this run asked for, parameter by parameter."""
    if type(saved) is not type(model):
        raise CheckpointMismatchError(
            f"{shown(checkpoint)} holds a {type(saved).__name__}, not the {type(model).__name__} "
            "this run trains: resume with the same model, or delete it.", "model")
    theirs, ours = saved.get_params(deep=False), model.get_params(deep=False)
    for key, value in ours.items():
        if not same_value(theirs.get(key), value):
            raise CheckpointMismatchError(
                f"{shown(checkpoint)} was written by a run with {key}={theirs.get(key)!r}, not "
                f"{value!r}: resume with the same model parameters, or delete it.", key)


def _write_checkpoint(model, checkpoint, settings, plan: Plan, epoch: int, position: int,
                      zero_based: bool | str = "auto"):
    progress = {**settings, "epoch": epoch, "position": position,
                "n_features": plan.n_features, "zero_based": plan.zero_based,
                "classes": None if plan.classes is None else np.asarray(plan.classes).tolist()}
    if plan.growing:
        progress.update(growing=True, seen=np.asarray(plan.seen).tolist(),
                        zero_based_setting=zero_based)
    save(model, checkpoint, extra={"checkpoint": progress})


def _aligned(read, position: int, chunk_size: int) -> Iterator[tuple[Any, Any]]:
    """The chunks from row `position` of the epoch, cut where a run from its start cuts them:
    the rest of the chunk `position` falls in first, then whole chunks.

    A run resumed inside a chunk (checkpoint_every not a multiple of chunk_size) read whole
    chunks from `position`, and :func:`_pieces` then fed partial_fit other batches than the
    uninterrupted run did: the same model for the perceptrons, whose updates are per row,
    another one for SGD, whose epoch over a batch visits it in a random order.
    """
    head = -position % chunk_size
    if head:
        first = read(position, head)
        try:
            piece = next(first, None)
        finally:
            getattr(first, "close", lambda: None)()  # its file and reading threads
        if piece is None:
            return
        yield piece
        if len(piece[1]) < head:  # the file ends inside that chunk
            return
        position += head
    yield from read(position)


def _pieces(chunks, position: int, chunk_size: int, every: int) -> Iterator[tuple[Any, Any]]:
    """Cut chunks at every multiple of `chunk_size` and of `every` (counted from the start
    of the epoch), so that a resumed run makes exactly the cuts of an uninterrupted one."""
    for X, y in chunks:
        start, end = position, position + len(y)
        cuts = sorted({p for step in (chunk_size, every)
                       for p in range((start // step + 1) * step, end, step)})
        if not cuts:  # the whole chunk: no slice, which would copy it
            yield X, y
            position = end
            continue
        bounds = [start, *cuts, end]
        for a, b in itertools.pairwise(bounds):
            yield X[a - start:b - start], y[a - start:b - start]
        position = end


