"""``--weight-column`` and ``--class-weight``: weights for ``halfspaces fit``.

A weight column of a CSV/TSV or Parquet file is read as the other columns are (the reader
refuses a value that is not a number, NaN or infinity, naming the file, line and column),
then taken out of the features and given to ``fit(sample_weight=)``; ``--class-weight``
becomes the estimator's ``class_weight``. Whether a model takes them is read from the
estimator itself (its fit's signature, its parameters), so that every model that gains
weights takes them here too.
"""

from __future__ import annotations

import contextlib
import dataclasses
import inspect
import math
from typing import Any

__all__ = ["check_weighted", "parse_class_weight", "reading_weights", "split_weight_column",
           "takes_weights"]

WEIGHT_FORMATS = ("csv", "parquet")


def takes_weights(estimator) -> tuple[bool, bool]:
    """(whether its fit takes ``sample_weight``, whether it has ``class_weight``)."""
    return ("sample_weight" in inspect.signature(estimator.fit).parameters,
            "class_weight" in estimator.get_params())


def check_weighted(estimator, model: str, weight_column: str | None,
                   class_weight: str | None, *, stream: bool, dask: bool) -> None:
    """Refuse, before any data are read, weights this run cannot use, naming the option."""
    given = [name for name, value in (("--weight-column", weight_column),
                                      ("--class-weight", class_weight)) if value is not None]
    if not given:
        return
    if stream or dask:
        raise ValueError(f"{' and '.join(given)} cannot be used with "
                         f"{'--stream' if stream else '--dask'}: train in memory to weigh "
                         "the rows.")
    sample, per_class = takes_weights(estimator)
    if weight_column is not None and not sample:
        raise ValueError(f"--model {model} does not take --weight-column: its fit has no "
                         f"sample_weight (models that do: {_models_taking(0)}).")
    if class_weight is not None and not per_class:
        raise ValueError(f"--model {model} does not take --class-weight: it has no "
                         f"class_weight parameter (models that do: {_models_taking(1)}).")


def _models_taking(which: int) -> str:
    from halfspaces.cli._models import available_models, model_class

    names = [name for name in available_models() if takes_weights(model_class(name)())[which]]
    return ", ".join(names) or "none"


def parse_class_weight(text: str, y) -> str | dict[Any, float]:
    """``balanced``, or ``label=weight,...`` with each label read as y's labels are (a
    number where the labels are numbers, else the text) and named among them.

    Examples
    --------
    >>> import numpy as np
    >>> parse_class_weight("1=5,-1=0.5", np.array([-1.0, 1.0, 1.0]))
    {1.0: 5.0, -1.0: 0.5}
    >>> parse_class_weight("spam=2", np.array(["ham", "spam"]))
    {'spam': 2.0}
    """
    import numpy as np

    if text.strip() == "balanced":
        return "balanced"
    classes = np.unique(y)
    weights: dict[Any, float] = {}
    for pair in text.split(","):
        label_text, sep, weight_text = pair.rpartition("=")
        if not sep or not label_text.strip():
            raise ValueError(f"--class-weight {text!r}: {pair!r} is not label=weight (or "
                             "give 'balanced').")
        label = _label(label_text.strip(), classes, text)
        try:
            weight = float(weight_text)
        except ValueError:
            weight = math.nan
        if not (math.isfinite(weight) and weight >= 0):
            raise ValueError(f"--class-weight {text!r}: the weight of {label_text.strip()!r} "
                             f"is {weight_text.strip()!r}; a weight is a finite number >= 0.")
        if label in weights:
            raise ValueError(f"--class-weight {text!r} gives {label_text.strip()!r} twice.")
        weights[label] = weight
    return weights


def _label(text: str, classes, option: str):
    """`text` as one of `classes` (the labels of the data)."""
    label: str | int | float
    if classes.dtype.kind in "biuf":
        try:
            value = float(text)
        except ValueError:
            value = math.nan
        label = int(value) if classes.dtype.kind in "biu" and value.is_integer() else value
    else:
        label = text
    if not any(label == c for c in classes.tolist()):
        shown = ", ".join(str(c) for c in classes.tolist()[:20])
        raise ValueError(f"--class-weight {option!r} names {text!r}, which is not a label of "
                         f"the training data (its labels: {shown}).")
    return label


@contextlib.contextmanager
def reading_weights(name: str | None):
    """The reader's refusal of a value of the weight column (not a number, NaN, infinity),
    with the option that made it the weights."""
    from halfspaces.io import DataFileError

    try:
        yield
    except DataFileError as exc:
        column = f"column {name!r}"
        if name is None or not exc.reason.startswith(column):
            raise
        raise DataFileError(exc.path, exc.reason.replace(column, f"{column} (--weight-column)",
                                                         1), line=exc.line) from None


def split_weight_column(loaded, data, fmt: str | None, name: str, label_column):
    """`loaded` with column `name` taken out of X (and X_test) as its ``weights``."""
    import numpy as np

    from halfspaces.io import DataFileError, detect_format, feature_column_names, row_line

    if loaded.format is None:  # a bundled data set
        raise ValueError(f"--weight-column {name!r} needs a data file DATA, not a bundled "
                         "data set.")
    fmt = detect_format(data, fmt)
    if fmt not in WEIGHT_FORMATS:
        raise DataFileError(data, f"--weight-column {name!r} needs a CSV/TSV or Parquet file "
                                  f"with named columns, not {fmt}.")
    names = feature_column_names(data, format=fmt, label_column=label_column)
    if names is None or name not in names:
        listed = "no header" if names is None else "feature columns " + ", ".join(
            repr(n) for n in names[:20])
        raise DataFileError(data, f"--weight-column {name!r}: the file has no such feature "
                                  f"column ({listed}).")
    j = names.index(name)
    weights = np.asarray(loaded.X[:, j], dtype=np.float64).ravel()
    negative = np.flatnonzero(weights < 0)
    if negative.size:
        i = int(negative[0])
        line = row_line(data, i, format=fmt)
        where = "" if line is not None else f"row {i}: "
        raise DataFileError(data, f"{where}column {name!r} (--weight-column) holds the "
                                  f"weight {float(weights[i])!r}; weights must be >= 0.", line=line)
    if not weights.any():
        raise DataFileError(data, f"column {name!r} (--weight-column) is zero on every row: "
                                  "there is nothing to fit.")
    keep = [k for k in range(len(names)) if k != j]
    return dataclasses.replace(
        loaded, X=loaded.X[:, keep], weights=weights,
        X_test=None if loaded.X_test is None else loaded.X_test[:, keep],
        feature_names=None if loaded.feature_names is None else
        [n for k, n in enumerate(loaded.feature_names) if k != j])
