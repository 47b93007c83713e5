"""The data named on the command line: a file in any format of :mod:`halfspaces.io`, or the
name of a bundled data set (``halfspaces datasets``).

Imported only when a command runs (it pulls in NumPy and scikit-learn).
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import numpy as np

from halfspaces.cli import _collector
from halfspaces.io import DataFileError, column_names, detect_format, read
from halfspaces.io.svmlight import read_svmlight_base, read_svmlight_files

__all__ = ["BUNDLED", "DataFileError", "Loaded", "load_fit_data", "load_model", "read_data",
           "read_svmlight_files", "split_fraction"]

BUNDLED = "a9a (bundled)"


@dataclasses.dataclass
class Loaded:
    """Training (and optional test) data, with how the file was read."""

    name: str
    X: Any
    y: Any
    X_test: Any = None
    y_test: Any = None
    format: str | None = None
    zero_based: bool | None = None
    feature_names: list[str] | None = None  # a CSV/TSV header's feature columns


def is_dataset_name(data: Path | None) -> bool:
    """Whether DATA names a bundled data set rather than an existing file."""
    from halfspaces.datasets import DATASETS

    return data is not None and not data.exists() and str(data) in DATASETS


def read_data(data: Path, label_column, format) -> tuple[Any, Any]:
    """(X, y) of one file or bundled data set, for the commands that read it whole."""
    if is_dataset_name(data):
        from halfspaces.datasets import load

        X, y = load(str(data))
    else:
        X, y = read(data, format=format, label_column=label_column)
    _collector.resume()  # the command's start-up is over: its data are in memory
    return X, y


def load_fit_data(data: Path | None, test: Path | None, *, label_column=None,
                  format: str | None = None) -> Loaded:
    """Training and test data for ``fit``: files, a data set name, or the bundled a9a."""
    if data is None:
        if test is not None:
            raise ValueError("--test needs a training file DATA as well.")
        from halfspaces.datasets import load_a9a

        return Loaded(BUNDLED, *load_a9a("train"), *load_a9a("test"))
    if is_dataset_name(data):
        from halfspaces.datasets import load

        loaded = Loaded(str(data), *load(str(data)))
    else:
        loaded = _read_file(data, test, label_column, format)
    if test is not None and loaded.X_test is None:
        loaded.X_test, loaded.y_test = read(test, format=format, label_column=label_column,
                                            n_features=loaded.X.shape[1],
                                            feature_names=loaded.feature_names)
    return loaded


def _read_file(data: Path, test: Path | None, label_column, format) -> Loaded:
    fmt = detect_format(data, format)
    if fmt == "svmlight" and test is not None and detect_format(test, format) == "svmlight":
        ((X, y), (X_test, y_test)), zero = read_svmlight_base([data, test])
        return Loaded(str(data), X, y, X_test, y_test, fmt, zero)
    if fmt == "svmlight":
        ((X, y),), zero = read_svmlight_base([data])
        return Loaded(str(data), X, y, format=fmt, zero_based=zero)
    X, y = read(data, format=fmt, label_column=label_column)
    return Loaded(str(data), X, y, format=fmt,
                  feature_names=column_names(data, format=fmt, label_column=label_column))


def split_fraction(loaded: Loaded, fraction: float, seed: int | None) -> Loaded:
    """Hold out a random `fraction` of the training rows as the test set."""
    n = loaded.X.shape[0]
    n_test = int(round(fraction * n))
    if not 0 < n_test < n:
        raise ValueError(f"--test-fraction {fraction} leaves no test or no training rows "
                         f"out of {n}.")
    order = np.random.default_rng(seed).permutation(n)
    test, train = np.sort(order[:n_test]), np.sort(order[n_test:])
    return dataclasses.replace(loaded, X=loaded.X[train], y=loaded.y[train],
                               X_test=loaded.X[test], y_test=loaded.y[test])


def load_model(path: Path) -> tuple[Any, dict]:
    """A model file and how its training data were read (for reading new data alike)."""
    from halfspaces.io.model import load_with_extra

    model, extra = load_with_extra(path)
    if not hasattr(model, "n_features_in_"):
        raise ValueError(f"{path} holds an unfitted {type(model).__name__}; train it first.")
    _collector.resume()  # the command's start-up is over: what follows reads data
    info = extra.get("data") or extra.get("checkpoint") or {}
    zero_based = info.get("zero_based")
    return model, {"zero_based": "auto" if zero_based is None else zero_based,
                   "feature_names": _feature_names(path, info, model.n_features_in_)}


def _feature_names(path: Path, info: dict, n_features: int) -> list[str] | None:
    """The CSV/TSV header names the model was trained on, if its file records them."""
    names = info.get("feature_names")
    if names is None:
        return None
    if not (isinstance(names, list) and len(names) == n_features
            and all(isinstance(name, str) for name in names)):
        raise ValueError(f"{path}: its feature_names are not {n_features} column names; "
                         "the file is damaged")
    return names


def label_text(value: Any) -> str:
    """A label as written in data files: -1.0 -> "-1", 0.5 -> "0.5", "yes" -> "yes"."""
    if isinstance(value, (float, np.floating)):
        return str(int(value)) if float(value).is_integer() else repr(float(value))
    return str(value)
