"""The data named on the command line: a file in any format of :mod:`halfspaces.io`, or the
name of a bundled data set (``halfspaces datasets``).

Imported only when a command runs (it pulls in NumPy and scikit-learn).
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import numpy as np

from halfspaces.cli._process import collector
from halfspaces.io import (
    DataFileError,
    column_names,
    default_label_column,
    detect_format,
    read,
)
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
    notes: tuple[str, ...] = ()  # what the reader chose for the user (the label column)
    weights: Any = None  # the training rows' weights (--weight-column)


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
    collector.resume()  # the command's start-up is over: its data are in memory
    return X, y


def read_points(data: Path, format) -> Any:
    """The points of ``plot shatter``: every column of a CSV/TSV, Parquet or .npy file (it
    holds points, not labelled data: the first column was taken as a label), or the
    features of an svmlight file, its labels ignored; as a dense float array."""
    from halfspaces.io import iter_chunks, scan

    fmt = detect_format(data, format)
    if fmt in ("svmlight", "npz"):
        X, _ = read_data(data, None, fmt)
    else:  # as many feature columns as the file has columns: no label column
        info = scan(data, format=fmt)
        blocks = [X for X, _ in iter_chunks(data, None, info.n_features + 1, format=fmt)]
        X = blocks[0] if len(blocks) == 1 else np.vstack(blocks)
    collector.resume()
    return X.toarray() if hasattr(X, "toarray") else np.asarray(X)


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
                  feature_names=column_names(data, format=fmt, label_column=label_column),
                  notes=label_note(data, fmt, label_column))


def label_note(data: Path, fmt: str, label_column) -> tuple[str, ...]:
    """A note saying which column is the label, where the user did not say (a CSV whose
    first column is not the label trained a 63-class model of ages without a word)."""
    if label_column is not None:
        return ()
    chosen = default_label_column(data, format=fmt)
    if chosen is None:
        return ()
    return (f"the label is {chosen} (no --label-column given: a column named label, target, "
            "class or y, else the first); name another with --label-column",)


# A label column of integers with more distinct values than this, and than MANY_CLASSES_SHARE
# of the rows, is taken for a quantity (an age, a count), not classes, when nobody named it
MANY_CLASSES = 20
MANY_CLASSES_SHARE = 0.05


def check_classes(y, model: str, label_column, regression: bool, name: str = "DATA") -> None:
    """Refuse labels a classifier cannot mean, naming --label-column and --model linear:
    non-integer numbers (scikit-learn's "Unknown label type: continuous" gave no hint), or,
    when the label column was chosen by the rule, more distinct integers than classes."""
    if regression or y is None:
        return
    values = np.unique(np.asarray(y))
    if values.size < 2:  # the estimator's own message did not name the file
        raise ValueError(f"{name}: its labels hold one class ({values.tolist()[:1]}); a "
                         "classifier needs examples of two classes or more (is --label-column "
                         "the right column?).")
    if values.dtype.kind not in "iuf":
        return
    fix = ("give the label column with --label-column, or for a numeric target use "
           "--model linear")
    if values.dtype.kind == "f" and not np.all(values == np.round(values)):
        example = values[values != np.round(values)][0]
        raise ValueError(f"the labels are numbers that are not classes (e.g. {example!r}); "
                         f"--model {model} is a classifier: {fix}.")
    many = values.size > max(MANY_CLASSES, MANY_CLASSES_SHARE * len(y))
    if label_column is None and many:
        raise ValueError(f"the label column holds {values.size} distinct numbers in "
                         f"{len(y)} rows, more than a classifier's classes: {fix}.")


def split_fraction(loaded: Loaded, fraction: float, seed: int | None) -> Loaded:
    """Hold out a random `fraction` of the training rows as the test set."""
    n = loaded.X.shape[0]
    n_test = int(round(fraction * n))
    if not 0 < n_test < n:
        raise ValueError(f"--test-fraction {fraction} leaves no test or no training rows "
                         f"out of {n}.")
    order = np.random.default_rng(seed).permutation(n)
    test, train = np.sort(order[:n_test]), np.sort(order[n_test:])
    weights = None if loaded.weights is None else loaded.weights[train]
    return dataclasses.replace(loaded, X=loaded.X[train], y=loaded.y[train],
                               X_test=loaded.X[test], y_test=loaded.y[test], weights=weights)


def load_model(path: Path) -> tuple[Any, dict]:
    """A model file and how its training data were read (for reading new data alike)."""
    from halfspaces.io.model import load_with_extra

    model, extra = load_with_extra(path)
    if not hasattr(model, "n_features_in_"):
        raise ValueError(f"{path} holds an unfitted {type(model).__name__}; train it first.")
    collector.resume()  # the command's start-up is over: what follows reads data
    key, info = _reading(path, extra)
    names = _feature_names(path, key, info, model.n_features_in_)
    fitted_names = model.__dict__.pop("feature_names_in_", None)
    if fitted_names is not None:
        # the command line matches a file's columns by these names itself, then hands the
        # model plain arrays, which a model that knows names would warn about
        if names is not None and names != list(fitted_names):
            raise _damaged(path, f"{key}.feature_names", names,
                           f"the model's feature_names_in_ {list(fitted_names)!r}")
        names = list(fitted_names)
    return model, {"zero_based": _zero_based(path, key, info), "feature_names": names}


# The file's metadata are checked as its fitted state is (io._state): a damaged value is a
# ModelFileError naming the file and the field, not a crash of the reader, nor (repeated
# feature names) a column read twice and another ignored, which predicts wrongly.


def _reading(path: Path, extra: dict) -> tuple[str, dict]:
    """(key, fields) of how the training data were read: ``fit --out`` records "data", a
    streaming checkpoint its "checkpoint" progress; an empty dict where neither is."""
    for key in ("data", "checkpoint"):
        if key in extra and not isinstance(extra[key], dict | None):
            raise _damaged(path, key, extra[key], "an object of reading options")
    key = "data" if extra.get("data") or not extra.get("checkpoint") else "checkpoint"
    return key, extra.get(key) or {}


def _zero_based(path: Path, key: str, info: dict) -> bool | str:
    value = info.get("zero_based")
    if value is not None and not isinstance(value, bool):
        raise _damaged(path, f"{key}.zero_based", value, "true, false or null")
    return "auto" if value is None else value


def _feature_names(path: Path, key: str, info: dict, n_features: int) -> list[str] | None:
    """The CSV/TSV header names the model was trained on, if its file records them: as
    many as its features, and distinct (``column_names`` records no others)."""
    names = info.get("feature_names")
    if names is None:
        return None
    where = f"{key}.feature_names"
    if not (isinstance(names, list) and all(isinstance(name, str) for name in names)):
        raise _damaged(path, where, names, "a list of column names")
    if len(names) != n_features:
        raise _damaged(path, where, names, f"{n_features} column names (the model's "
                                           "n_features_in_)")
    if len(set(names)) != len(names):
        repeated = next(name for name in names if names.count(name) > 1)
        raise _damaged(path, where, names, f"distinct column names ({repeated!r} repeats)")
    return names


def _damaged(path: Path, where: str, value: Any, rule: str) -> Exception:
    from halfspaces.io.model import ModelFileError

    shown = repr(value)
    shown = shown if len(shown) <= 80 else shown[:77] + "..."
    return ModelFileError(f"{path}: damaged model file: its {where} is {shown}, not {rule}")


def label_value(value: Any) -> int | float | str:
    """A label as a JSON value: -1.0 -> -1, 0.5 -> 0.5, "yes" -> "yes"."""
    if isinstance(value, (bool, np.bool_)):
        return str(value)
    if isinstance(value, (int, np.integer)):
        return int(value)
    if isinstance(value, (float, np.floating)):
        return int(value) if float(value).is_integer() else float(value)
    return str(value)


def label_text(value: Any) -> str:
    """A label as written in data files: -1.0 -> "-1", 0.5 -> "0.5", "yes" -> "yes"."""
    if isinstance(value, (float, np.floating)):
        return str(int(value)) if float(value).is_integer() else repr(float(value))
    return str(value)
