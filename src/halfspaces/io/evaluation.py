"""How a fitted model does on a labelled file, read in chunks: :func:`evaluate_stream`.

A classifier gets its confusion matrix and what follows from it (accuracy, per-class
precision, recall and F1), its log-loss and, for two classes, its ROC AUC
(:class:`StreamCounts`); a regressor its R^2, RMSE and MAE (:class:`StreamResiduals`).
Memory is bounded by a chunk (ROC AUC also keeps one score per row).
"""

from __future__ import annotations

import copy
import dataclasses
import os
from collections.abc import Callable
from functools import partial
from typing import Any

import numpy as np
from numpy.typing import NDArray

from halfspaces.exceptions import DataFileError
from halfspaces.io._files import DEFAULT_CHUNK_SIZE, check_count, detect_format, iter_chunks

__all__ = ["StreamCounts", "StreamResiduals", "evaluate_stream"]

_EPS = float(np.finfo(np.float64).eps)  # scikit-learn's log_loss clips probabilities here


@dataclasses.dataclass(frozen=True)
class StreamCounts:
    """Counts from :func:`evaluate_stream` of a classifier.

    Attributes
    ----------
    classes : ndarray
        The model's classes, in the order of the confusion matrix's rows and columns.
    confusion : ndarray of shape (n_classes, n_classes)
        ``confusion[i, j]``: examples of class i predicted as class j.
    log_loss : float or None
        Mean negative log-likelihood of the true classes, where the model has
        ``predict_proba``: from the model's own ``predict_log_proba``, unclipped (a point
        predicted confidently wrong costs its whole -log p; scikit-learn's ``log_loss``
        clips p at 2.2e-16, so it never costs more than 36.04).
    predictions : list or None
        The predictions, when asked for.
    roc_auc : float or None
        The area under the ROC curve of a binary classifier's ``decision_function`` (None
        beyond two classes, without one, or when one class is absent from the data).
    """

    classes: Any
    confusion: Any
    log_loss: float | None
    predictions: list | None = None
    roc_auc: float | None = None

    @property
    def n_samples(self) -> int:
        """The number of examples counted."""
        return int(self.confusion.sum())

    @property
    def accuracy(self) -> float:
        """The fraction of examples predicted correctly (0.0 when there were none)."""
        return float(np.trace(self.confusion) / max(1, self.n_samples))

    @property
    def precision(self) -> NDArray[np.float64]:
        """Per class: the fraction of the examples predicted as it that are of it (nan where
        none was predicted as it)."""
        return _ratio(np.diag(self.confusion), self.confusion.sum(axis=0))

    @property
    def recall(self) -> NDArray[np.float64]:
        """Per class: the fraction of its examples predicted as it (nan where it has none)."""
        return _ratio(np.diag(self.confusion), self.confusion.sum(axis=1))

    @property
    def f1(self) -> NDArray[np.float64]:
        """Per class: 2 TP / (2 TP + FP + FN), the harmonic mean of precision and recall
        (nan where the class was neither present nor predicted)."""
        C = self.confusion
        return _ratio(2 * np.diag(C), C.sum(axis=0) + C.sum(axis=1))


@dataclasses.dataclass(frozen=True)
class StreamResiduals:
    """What :func:`evaluate_stream` measures of a regressor: the residuals y - f(x).

    Attributes
    ----------
    n_samples : int
        The examples.
    r2 : float
        1 - (sum of squared residuals) / (sum of squares of y about its mean), scikit-learn's
        ``r2_score`` (nan when y is constant).
    rmse : float
        The root mean squared residual.
    mae : float
        The mean absolute residual.
    """

    n_samples: int
    r2: float
    rmse: float
    mae: float


def _ratio(top: NDArray, bottom: NDArray) -> NDArray[np.float64]:
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(bottom > 0, top / np.maximum(bottom, 1), np.nan)


def evaluate_stream(model: Any, path: str | os.PathLike, *, chunk_size: int = DEFAULT_CHUNK_SIZE,
                    format: str | None = None, label_column: int | str | None = None,
                    zero_based: bool | str = "auto", feature_names: Any = None,
                    on_progress: Callable[[int], None] | None = None,
                    ) -> StreamCounts | StreamResiduals:
    """Measure a fitted model on a labelled file, reading it in chunks.

    A classifier gets its confusion matrix, accuracy, per-class precision, recall and F1,
    log-loss (with ``predict_proba``) and, for two classes, ROC AUC (with
    ``decision_function``); a regressor its R^2, RMSE and MAE. A label the classifier has
    never seen is an error naming its line, and a file without samples is an error.
    `feature_names` matches CSV/TSV columns by header name (see
    :func:`halfspaces.io.iter_chunks`); a model that knows its features' names
    (``feature_names_in_``, from a DataFrame or a CSV header) is matched by them by default.

    Parameters
    ----------
    model : fitted classifier or regressor
        Any fitted halfspaces estimator.
    path : str or os.PathLike
        A labelled data file in any format of :func:`halfspaces.io.read`.
    chunk_size : int, default=10000
        Rows per chunk: the memory bound (ROC AUC also keeps one score per row).
    format, label_column, zero_based
        As for :func:`halfspaces.io.read`.
    feature_names : sequence of str or None, default=None
        The model's training columns, for a CSV/TSV file with a header; None: the model's
        ``feature_names_in_`` where it has them.
    on_progress : callable or None, default=None
        Called with the number of examples after each chunk.

    Returns
    -------
    StreamCounts or StreamResiduals
        The classifier's counts, or the regressor's residual measures.
    """
    check_count(chunk_size, "chunk_size")
    fmt = detect_format(path, format)
    if getattr(model, "feature_names_in_", None) is not None:
        if feature_names is None:
            feature_names = list(model.feature_names_in_)
        # the columns are matched by name here, and the chunks are arrays without names,
        # which the model itself would warn about at every chunk
        model = copy.copy(model)
        del model.feature_names_in_
    chunks = partial(iter_chunks, path, chunk_size, model.n_features_in_, format=fmt,
                     label_column=label_column, zero_based=zero_based,
                     feature_names=feature_names)
    if not hasattr(model, "classes_"):
        return _residuals(model, path, _labelled(path, model, chunks(), on_progress))
    return _counts(model, path, _labelled(path, model, chunks(
        classes=_as_label_type(model.classes_, fmt)), on_progress))


def _labelled(path, model, chunks, on_progress):
    """The chunks, each refused without labels, and counted once measured."""
    for X, y in chunks:
        if y is None:
            raise DataFileError(path, f"no label column: it has only the model's "
                                      f"{model.n_features_in_} feature columns")
        yield X, y
        if on_progress is not None:
            on_progress(len(y))


def _counts(model, path, chunks) -> StreamCounts:
    classes = model.classes_
    k = len(classes)
    confusion = np.zeros((k, k), dtype=np.int64)
    loss, has_proba = 0.0, hasattr(model, "predict_proba")
    scored = k == 2 and hasattr(model, "decision_function")
    scores, truths = [], []
    for X, y in chunks:
        truth = np.searchsorted(classes, y.astype(classes.dtype))
        guess = np.searchsorted(classes, model.predict(X))
        confusion += np.bincount(truth * k + guess, minlength=k * k).reshape(k, k)
        if has_proba:
            loss -= float(_true_log_proba(model, X, truth).sum())
        if scored:
            scores.append(np.asarray(model.decision_function(X), dtype=np.float64).ravel())
            truths.append(truth)
    n = int(confusion.sum())
    if n == 0:
        raise DataFileError(path, "the file holds no samples")
    auc = None
    if scored and 0 < confusion[1].sum() < n:
        from sklearn.metrics import roc_auc_score

        auc = float(roc_auc_score(np.concatenate(truths), np.concatenate(scores)))
    return StreamCounts(classes, confusion, loss / n if has_proba else None, roc_auc=auc)


def _true_log_proba(model, X, truth: NDArray) -> NDArray:
    """log p(true class | x): the model's own log-probabilities where it has them (exact far
    into the tails), else the log of its probabilities clipped at eps, as scikit-learn's."""
    rows = np.arange(len(truth))
    if hasattr(model, "predict_log_proba"):
        return np.asarray(model.predict_log_proba(X))[rows, truth]
    return np.log(np.clip(model.predict_proba(X)[rows, truth], _EPS, 1.0))


def _residuals(model, path, chunks) -> StreamResiduals:
    """R^2, RMSE and MAE in one pass: the mean and spread of y by Chan's pairwise update
    (Chan, Golub and LeVeque 1983), so that the sum of squares about the mean is not the
    difference of two large sums."""
    n, mean, spread, squared, absolute = 0, 0.0, 0.0, 0.0, 0.0
    for X, y in chunks:
        y = np.asarray(y, dtype=np.float64)
        if y.size == 0:
            continue
        residual = y - model.predict(X)
        squared += float(residual @ residual)
        absolute += float(np.abs(residual).sum())
        m, chunk_mean = y.size, float(y.mean())
        chunk_spread = float(((y - chunk_mean) ** 2).sum())
        delta = chunk_mean - mean
        spread += chunk_spread + delta * delta * n * m / (n + m)
        mean += delta * m / (n + m)
        n += m
    if n == 0:
        raise DataFileError(path, "the file holds no samples")
    r2 = 1.0 - squared / spread if spread > 0 else float("nan")
    return StreamResiduals(n, r2, float(np.sqrt(squared / n)), absolute / n)


def _as_label_type(classes, fmt: str):
    return classes.astype(np.float64) if classes.dtype.kind in "iuf" else classes
