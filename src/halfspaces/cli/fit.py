"""``halfspaces fit``: train a perceptron-family classifier and report how well it does.

:func:`fit` is the importable function (it returns a :class:`FitReport`); :func:`fit_cli` is
the Typer command that parses options, calls it and hands the report to the output sink.
"""

from __future__ import annotations

import dataclasses
import time
import warnings
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from halfspaces.cli import _output

if TYPE_CHECKING:
    import scipy.sparse as sp
    from numpy.typing import NDArray

__all__ = ["DEFAULT_EPOCHS", "FitReport", "ModelName", "Selection", "fit", "fit_cli"]

DEFAULT_EPOCHS = 10
"""Epochs the CLI allows by default. The library's 1000 is a budget for separable data; on
non-separable data such as a9a every epoch is spent, and the perceptron family's test
accuracy has levelled off after a handful of passes, so 10 keeps ``halfspaces fit`` quick."""

BUNDLED = "a9a (bundled)"


class ModelName(str, Enum):
    """The ``--model`` choices: each names a class of :mod:`halfspaces.perceptron`."""

    perceptron = "perceptron"
    averaged = "averaged"
    voted = "voted"
    pocket = "pocket"


_MODEL_CLASSES = {
    "perceptron": "Perceptron",
    "averaged": "AveragedPerceptron",
    "voted": "VotedPerceptron",
    "pocket": "PocketPerceptron",
}


class Selection(str, Enum):
    """The ``--selection`` choices: how each epoch picks the next sample."""

    cyclic = "cyclic"
    shuffle = "shuffle"
    worst = "worst"


@dataclasses.dataclass(frozen=True)
class FitReport:
    """What :func:`fit` found; field order is the display order.

    Attributes
    ----------
    dataset : str
        The training file, or ``"a9a (bundled)"``.
    model : str
        The ``--model`` name, e.g. ``"averaged"``.
    selection, max_epochs, fit_intercept, seed
        The settings the model was trained with.
    n_train, n_test, n_features : int
        Sizes of the data (``n_test`` is 0 without a test set).
    train_accuracy : float
        Accuracy on the training data.
    test_accuracy : float or None
        Accuracy on the test data; None without a test set.
    n_updates : int or list of int
        The model's ``n_updates_`` (a list for more than two classes).
    n_epochs : int
        The model's ``n_epochs_``.
    converged : bool
        The model's ``converged_``.
    fit_time_s : float
        Wall-clock seconds spent in ``model.fit``.
    notes : tuple of str
        Warnings raised during the fit (e.g. the convergence warning), one line each.
    """

    dataset: str
    model: str
    selection: str
    max_epochs: int
    fit_intercept: bool
    seed: int | None
    n_train: int
    n_test: int
    n_features: int
    train_accuracy: float
    test_accuracy: float | None
    n_updates: int | list[int]
    n_epochs: int
    converged: bool
    fit_time_s: float
    notes: tuple[str, ...] = ()

    def as_dict(self) -> dict[str, Any]:
        """The report as plain JSON-serialisable data (``notes`` becomes a list)."""
        record = dataclasses.asdict(self)
        record["notes"] = list(self.notes)
        return record


def fit(
    data: Path | None = None,
    *,
    test: Path | None = None,
    model: str = "perceptron",
    epochs: int = DEFAULT_EPOCHS,
    selection: str = "cyclic",
    seed: int | None = 0,
    fit_intercept: bool = True,
) -> FitReport:
    """Train one perceptron-family model and measure its accuracy.

    Parameters
    ----------
    data : Path or None, default=None
        An svmlight/LIBSVM training file. None trains on the bundled a9a "train" subset and
        tests on its "test" subset.
    test : Path or None, default=None
        An svmlight/LIBSVM test file (only with `data`).
    model : {"perceptron", "averaged", "voted", "pocket"}, default="perceptron"
        Which classifier of :mod:`halfspaces.perceptron` to train.
    epochs : int, default=10
        The model's ``max_epochs``.
    selection : {"cyclic", "shuffle", "worst"}, default="cyclic"
        The model's ``selection``.
    seed : int or None, default=0
        The model's ``random_state``.
    fit_intercept : bool, default=True
        The model's ``fit_intercept``.

    Returns
    -------
    FitReport
        Sizes, accuracies, the model's counters and the fit time.

    Raises
    ------
    ValueError
        If `model` is unknown, `test` is given without `data`, or a file is malformed
        (:class:`~halfspaces.cli._data.DataFileError`, which also covers unreadable files).
    """
    name, X, y, X_test, y_test = _load(data, test)
    estimator = _make_model(model, epochs=epochs, selection=selection, seed=seed,
                            fit_intercept=fit_intercept)
    fit_time, notes = _timed_fit(estimator, X, y)
    return FitReport(
        dataset=name, model=model, selection=selection, max_epochs=epochs,
        fit_intercept=fit_intercept, seed=seed, n_train=X.shape[0],
        n_test=0 if X_test is None else X_test.shape[0], n_features=X.shape[1],
        train_accuracy=float(estimator.score(X, y)),
        test_accuracy=None if X_test is None else float(estimator.score(X_test, y_test)),
        n_updates=_plain(estimator.n_updates_), n_epochs=int(estimator.n_epochs_),
        converged=bool(estimator.converged_), fit_time_s=fit_time, notes=notes,
    )


def _load(
    data: Path | None, test: Path | None
) -> tuple[str, sp.csr_matrix, NDArray, sp.csr_matrix | None, NDArray | None]:
    """(name, X, y, X_test, y_test) from the files, or the bundled a9a train/test split."""
    if data is None:
        if test is not None:
            raise ValueError("--test needs a training file DATA as well.")
        from halfspaces.datasets import load_a9a

        return (BUNDLED, *load_a9a("train"), *load_a9a("test"))
    from halfspaces.cli._data import read_svmlight_files

    if test is None:
        ((X, y),) = read_svmlight_files([data])
        return str(data), X, y, None, None
    (X, y), (X_test, y_test) = read_svmlight_files([data, test])
    return str(data), X, y, X_test, y_test


def _make_model(model: str, **settings: Any) -> Any:
    """A fresh estimator of the class named by `model`."""
    import halfspaces.perceptron

    if model not in _MODEL_CLASSES:
        raise ValueError(f"model={model!r} is not one of {', '.join(_MODEL_CLASSES)}.")
    cls = getattr(halfspaces.perceptron, _MODEL_CLASSES[model])
    return cls(
        fit_intercept=settings["fit_intercept"], max_epochs=settings["epochs"],
        selection=settings["selection"], random_state=settings["seed"],
    )


def _timed_fit(estimator: Any, X: Any, y: Any) -> tuple[float, tuple[str, ...]]:
    """Fit, returning the seconds taken and the fit's warnings as one-line notes."""
    with warnings.catch_warnings(record=True) as caught:
        # a ConvergenceWarning is the expected outcome on non-separable data such as a9a:
        # it belongs in the report, not in a Python warning dump
        warnings.simplefilter("always")
        start = time.perf_counter()
        estimator.fit(X, y)
        seconds = time.perf_counter() - start
    return seconds, tuple(dict.fromkeys(str(w.message) for w in caught))


def _plain(value: Any) -> int | list[int]:
    """An int, or a list of ints for per-class counters (JSON cannot hold NumPy types)."""
    import numpy as np

    value = np.asarray(value)
    return int(value) if value.ndim == 0 else [int(v) for v in value.ravel()]


_LABELS = {
    "n_train": "train samples",
    "n_test": "test samples",
    "n_features": "features",
    "n_updates": "updates",
    "n_epochs": "epochs",
    "fit_time_s": "fit time (s)",
}


def fit_cli(
    data: Annotated[
        Path | None,
        typer.Argument(
            help="Training data, an svmlight/LIBSVM file. Omit it to train on the bundled "
            "Adult (a9a) train split and test on its test split.",
            show_default=False,
        ),
    ] = None,
    test: Annotated[
        Path | None,
        typer.Option(help="Test data, an svmlight/LIBSVM file (needs DATA).", show_default=False),
    ] = None,
    model: Annotated[ModelName, typer.Option(help="Which perceptron.")] = ModelName.perceptron,
    epochs: Annotated[
        int,
        typer.Option(min=1, help="Maximum passes over the data (the model's max_epochs)."),
    ] = DEFAULT_EPOCHS,
    selection: Annotated[
        Selection, typer.Option(help="Order of the samples within an epoch.")
    ] = Selection.cyclic,
    seed: Annotated[
        int, typer.Option(min=0, help="Random seed (used by --selection shuffle).")
    ] = 0,
    intercept: Annotated[
        bool, typer.Option("--intercept/--no-intercept", help="Learn a bias term.")
    ] = True,
    json_output: Annotated[
        bool, typer.Option("--json", help="Print one JSON object instead of a table.")
    ] = False,
    quiet: Annotated[
        bool, typer.Option("--quiet", "-q", help="Print the results only, without notes.")
    ] = False,
) -> None:
    """Train a perceptron-family classifier; print its train and test accuracy."""
    report = fit(
        data, test=test, model=model.value, epochs=epochs, selection=selection.value,
        seed=seed, fit_intercept=intercept,
    )
    record = report.as_dict()
    notes = record.pop("notes") if not json_output else []
    _output.render(record, title=f"halfspaces fit: {report.model}", as_json=json_output,
                   labels=_LABELS)
    if not quiet:
        _output.note(notes)
