"""What a checkpoint records of the data file, and its progress fields read back checked.

:func:`identity` fingerprints the data file (size, modification time, a hash of its first
and last 64 KiB) so that a resumed run notices a replaced file without reading it all;
:func:`whole_file_hash` hashes every byte, for runs that ask to verify the data;
:func:`progress_plan` reads a checkpoint's progress fields back into the stream's
:class:`~halfspaces.io._one_pass.Plan`, each checked for type and range;
:func:`beyond_end_check` refuses a position past the end of the file.
The checks that name the setting a resumed run differs in stay in
:mod:`halfspaces.io.streaming`, which raises
:class:`~halfspaces.exceptions.CheckpointMismatchError`.
"""

from __future__ import annotations

import hashlib
import os
import stat

import numpy as np

from halfspaces._validation import unknown_labels
from halfspaces.exceptions import ModelFileError, shown
from halfspaces.io._one_pass import Plan

__all__ = ["FINGERPRINT_BYTES", "beyond_end_check", "identity", "progress_plan", "same_value",
           "unreadable", "whole_file_hash"]

FINGERPRINT_BYTES = 2**16


def identity(path) -> dict:
    """Size, modification time and a hash of the first and last 64 KiB of the data file,
    enough to notice that it was replaced or rewritten without reading it all.

    Only for a regular file: a FIFO, a pipe or a device is never opened here, since opening
    a FIFO again waits for a writer that may never come (the reader buffers its content
    once, see :mod:`halfspaces.io._source`), and reading a pipe would take data from it.
    """
    try:
        found = os.stat(path)
        if not stat.S_ISREG(found.st_mode):
            return {}
        digest = hashlib.sha256(str(found.st_size).encode())
        with open(path, "rb") as handle:
            digest.update(handle.read(FINGERPRINT_BYTES))
            if found.st_size > FINGERPRINT_BYTES:
                handle.seek(max(FINGERPRINT_BYTES, found.st_size - FINGERPRINT_BYTES))
                digest.update(handle.read(FINGERPRINT_BYTES))
    except OSError:  # the reader names the file and the problem
        return {}
    return {"data_size": found.st_size, "data_mtime_ns": found.st_mtime_ns,
            "data_hash": digest.hexdigest()[:32]}


def whole_file_hash(path) -> str:
    """The SHA-256 of every byte of the regular file `path`, read once in 1 MiB pieces."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        while piece := handle.read(1 << 20):
            digest.update(piece)
    return digest.hexdigest()


def unreadable(path) -> str | None:
    """Why `path` cannot be opened (missing, no permission...), or None if it can."""
    try:
        os.close(os.open(path, os.O_RDONLY | os.O_NONBLOCK))  # a FIFO must not block here
    except OSError as exc:
        return exc.strerror or str(exc)
    return None


def same_value(a, b) -> bool:
    if isinstance(a, np.random.RandomState) and isinstance(b, np.random.RandomState):
        return all(np.array_equal(u, v) for u, v in zip(a.get_state(), b.get_state(),
                                                         strict=True))
    if type(a) is not type(b) and not (isinstance(a, int | float) and isinstance(b, int | float)):
        return False
    try:
        return bool(np.all(a == b))
    except (TypeError, ValueError):
        return False


def progress_plan(checkpoint, progress: dict, saved, epochs: int) -> Plan:
    """The plan a checkpoint's progress fields describe, each checked for type and range."""

    def field(key, kind, ok, rule):
        value = progress.get(key)
        if type(value) is not kind or not ok(value):
            raise ModelFileError(f"{shown(checkpoint)}: damaged checkpoint: {key} is "
                                 f"{value!r}, not {rule}")
        return value

    if not hasattr(saved, "n_features_in_"):
        raise ModelFileError(f"{shown(checkpoint)}: damaged checkpoint: its model is not fitted")
    epoch = field("epoch", int, lambda e: 0 <= e <= epochs,
                  f"an epoch in [0, {epochs}] (the run's epochs)")
    # within int64: the compiled line cutter got 10**30 and raised OverflowError
    position = field("position", int, lambda p: 0 <= p < 2**63, "a row number in [0, 2**63)")
    n_features = field("n_features", int, lambda n: n == saved.n_features_in_,
                       f"the model's n_features_in_ = {saved.n_features_in_}")
    zero_based = field("zero_based", bool, lambda z: True, "true or false")
    if hasattr(saved, "classes_"):
        classes = np.asarray(field("classes", list, lambda c: _same_classes(c, saved),
                                   "the model's classes_"))
    else:  # a regressor: its targets are not recorded
        classes = field("classes", type(None), lambda c: True, "null (a regression)")
    growing = progress.get("growing", False)  # absent from checkpoints of two-pass runs
    if type(growing) is not bool or (growing and epoch != 0):
        raise ModelFileError(f"{shown(checkpoint)}: damaged checkpoint: growing is "
                             f"{growing!r}, not false, or true in the first epoch")
    plan = Plan(epoch, position, n_features, zero_based, classes, True, growing)
    if growing:
        plan.seen = np.asarray(field("seen", list, lambda c: _some_classes(c, saved),
                                     "some of the model's classes_"))
    return plan


def _some_classes(labels: list, saved) -> bool:
    """Labels that are all classes of the model, compared exactly (np.isin compared an
    int64 class beyond 2**53 with a float label in float64, where they could be equal)."""
    return (len(labels) > 0 and all(isinstance(c, int | float) and not isinstance(c, bool)
                                    for c in labels)
            and not unknown_labels(labels, saved.classes_))


def _same_classes(classes: list, saved) -> bool:
    """The model's classes, compared exactly, in any order: a run's ``classes`` may be
    given unsorted, and its checkpoint was then refused as damaged."""
    ours = getattr(saved, "classes_", None)
    if ours is None:
        return True
    if not all(isinstance(c, int | float | str) and not isinstance(c, bool) for c in classes):
        return False
    return (len(set(classes)) == len(classes) == len(ours)
            and not unknown_labels(classes, ours))


def beyond_end_check(chunks, read, path, checkpoint, position: int):
    """Pass `chunks` on; if there are none, the file must still hold `position` rows (else the
    checkpoint points past its end, and the rest of the epoch would be skipped silently).
    ``read(skip, rows)`` reads the file as the run does."""
    empty = True
    for chunk in chunks:
        empty = False
        yield chunk
    if empty and next(iter(read(position - 1, 1)), None) is None:
        raise ModelFileError(f"{shown(checkpoint)}: damaged checkpoint: position {position} is "
                             f"beyond the end of {shown(path)}")
