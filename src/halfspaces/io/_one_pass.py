"""One pass over an svmlight file: the model is widened as larger feature indices appear.

The plan of a stream (:class:`Plan`: where it starts and what every chunk must look like),
and what :func:`halfspaces.io.fit_stream` needs to train an estimator with ``widen`` (the
perceptron family) in the same pass that finds the file's width, index base and labels
(:func:`grown`), raising :class:`Unforeseen` where that pass's guess about the labels
proves wrong, so that the run starts again after a first pass.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from typing import Any

import numpy as np

from halfspaces.io import svmlight
from halfspaces.io._files import detect_format

__all__ = ["Plan", "Unforeseen", "growable", "grown", "settle"]


@dataclasses.dataclass
class Plan:
    """Where the stream starts and what every chunk must look like."""

    epoch: int
    position: int
    n_features: int
    zero_based: bool
    classes: Any
    resumed: bool
    growing: bool = False  # one pass: widen the model as indices appear (see grown)
    seen: Any = None  # growing: the labels met so far


class Unforeseen(Exception):
    """A one-pass run met a label outside the classes it assumed (or missed one of them)."""


# One pass (svmlight, an estimator with ``widen``: the perceptron family). The model is
# widened, with zero weights, whenever a chunk holds a larger index than any before; see
# Perceptron.widen for why the result is the full-width run's, bit for bit. The index base
# "auto" (0-based iff some line uses index 0) is taken as LIBSVM's 1-based until a line with
# index 0 turns up; then every feature moves up one column (widen with offset=1), the new
# column 0 having zero weights as no line used it before. The labels are those of the first
# chunk, completed to the pair {-1, 1} or {0, 1} when it holds one label of that pair (a
# lone 1 is taken as LIBSVM's {-1, 1}); classes_ is sorted, so the larger label, classes_[1],
# is the positive class, as in the two-pass run. A first chunk with one label of neither
# pair, a later label outside the classes, or a class never seen by the end of the first
# epoch restarts the run after a first pass over the file, so the result is always the
# two-pass one.
_PAIRS = (np.array([-1.0, 1.0]), np.array([0.0, 1.0]))


def growable(model, path, format, label_column) -> bool:
    return (callable(getattr(model, "widen", None)) and label_column is None
            and detect_format(path, format) == "svmlight")


def grown(chunks, model, plan: Plan, path, zero_based) -> Iterator[tuple[Any, Any]]:
    """Pass `chunks` on at the model's width (widening the model first where a chunk is
    wider, or where index 0 shows an "auto" file to be 0-based), checking their labels."""
    for X, y in chunks:
        _check_labels(plan, y)
        if zero_based == "auto":
            X = _in_assumed_base(X, model, plan)
        width = max(plan.n_features, X.shape[1])
        if width > plan.n_features:
            svmlight.check_width(path, width + (not plan.zero_based))
            if hasattr(model, "coef_"):
                model.widen(width)
            plan.n_features = width
        if X.shape[1] < width:
            X.resize(X.shape[0], width)
        yield X, y


def _check_labels(plan: Plan, y) -> None:
    """Assume the classes from the first chunk, then check each chunk against them (a
    comparison per class, no sort: this runs on every chunk of the stream)."""
    if plan.classes is None:
        labels = np.unique(y)
        pair = next((p for p in _PAIRS if np.isin(labels, p).all()), None)
        plan.classes = labels if pair is None else pair
        if len(plan.classes) < 2:
            raise Unforeseen  # one label, not of a known pair: no guess to make
    elif not np.isin(y, plan.classes).all():
        raise Unforeseen
    if plan.seen is None or len(plan.seen) < len(plan.classes):
        found = [c for c in plan.classes if (y == c).any()]
        plan.seen = np.union1d([] if plan.seen is None else plan.seen, found)


def _in_assumed_base(X, model, plan: Plan):
    """A raw chunk of an "auto" file in the base assumed so far: 1-based until index 0
    appears, 0-based from then on (the model's features then move up one column)."""
    if not plan.zero_based and X.nnz and X.indices.min() == 0:
        plan.zero_based = True
        if hasattr(model, "coef_"):  # else nothing is trained yet, at any width
            model.widen(plan.n_features + 1, offset=1)
            plan.n_features += 1
    if plan.zero_based:
        return X
    X.indices -= 1  # in place: the parser's fresh arrays are ours
    X.resize(X.shape[0], max(X.shape[1] - 1, 0))  # every index is below: nothing is cut
    return X


def settle(plan: Plan) -> None:
    """End of a one-pass first epoch: every assumed class must have been seen."""
    if plan.seen is None or not np.array_equal(plan.seen, plan.classes):
        raise Unforeseen
    plan.growing = False
