"""The one check of a model file's fitted state, before any of it reaches an estimator.

The compiled loops of :mod:`halfspaces._fast` index their arrays without bounds checks (as
scikit-learn's Cython loops do), trusting the estimator that built them. A model file is not
such an estimator: a crafted or damaged one could hand ``predict`` sparse indices past the
end of a row, or ``partial_fit`` a weight vector shorter than the data, and the process would
read or write outside its memory. So every attribute loaded from a file is checked here
against the fitted attributes its estimator class declares (its ``_fitted_attributes``,
written with the specs of :mod:`halfspaces._utils.contract` beside the code that sets them):

* the names a fitted instance of that class has (any other key, e.g. ``predict`` or
  ``__dict__``, is refused, and a fitted model must have all of them but the optional ones);
* for each value its type, dtype, shape and range, with shapes written in the dimensions
  ``d`` (``n_features_in_``), ``k`` (``len(classes_)``), ``p`` (the binary problems) and the
  free sizes the declaration names (see :mod:`halfspaces._utils.contract`);
* finiteness of every float that a prediction or a further update reads, and the full CSR
  structure (every indptr step and index, by
  :func:`halfspaces._validation.check_sparse_structure`, the check of fit's input).

A violation raises :class:`ValueError` naming the attribute; :mod:`halfspaces.io.model`
turns it into a :class:`~halfspaces.ModelFileError` naming the file.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from halfspaces._utils.contract import (
    AnyOf,
    Array,
    Bool,
    Choice,
    Classes,
    FeatureNames,
    Fitted,
    Float,
    Instance,
    Int,
    Items,
    OrNone,
    Precomputed,
    SampleMatrix,
    Spec,
    declared,
)

__all__ = ["check_state"]


class _Dims:
    """The dimensions of one model: fixed ones (d, k, p), and free ones bound on first use."""

    def __init__(self, d: int, k: int, p: int, precomputed: bool) -> None:
        self.values = {"d": d, "k": k, "p": p, "w": p * (d + 1)}
        self.precomputed = precomputed
        # what fixed each dimension, for the error: a crafted classes_ one label too long
        # was reported as a coef_ of the wrong size, without a word about classes_
        labels = f"the {k} labels of classes_"
        self.origins = {"d": "n_features_in_", "k": labels, "p": labels,
                        "w": f"n_features_in_ and {labels}"}

    def size(self, symbol: int | str, where: str, actual: int, index: int | None) -> None:
        """Check (or bind) one dimension: an int, a letter, or ``letter+1``; ``#`` is `index`."""
        origin = "the format"
        if isinstance(symbol, int):
            expected = symbol
        else:
            name, _, plus = symbol.replace("#", str(index)).partition("+")
            if name not in self.values:
                self.values[name] = actual - int(plus or 0)
                self.origins[name] = where
            expected = self.values[name] + int(plus or 0)
            origin = self.origins[name]
        if actual != expected:
            raise ValueError(f"{where} has size {actual} where {expected} is required "
                             f"(dimension {symbol!r}, set by {origin})")


def check(spec: Spec, value: Any, dims: _Dims, where: str, index: int | None = None) -> None:
    """Raise ValueError, naming `where`, unless `value` meets `spec`."""
    _CHECKS[type(spec)](spec, value, dims, where, index)


def _int(spec: Int, value, dims, where, index):
    if isinstance(value, bool | np.bool_) or not isinstance(value, int | np.integer):
        raise ValueError(f"{where} must be an integer, not {_kind(value)}")
    if not spec.low <= int(value) <= spec.high:
        raise ValueError(f"{where} = {value} is outside [{spec.low}, {spec.high}]")


def _bool(spec: Bool, value, dims, where, index):
    if not isinstance(value, bool | np.bool_):
        raise ValueError(f"{where} must be a bool, not {_kind(value)}")


def _float(spec: Float, value, dims, where, index):
    if isinstance(value, bool | np.bool_) or not isinstance(value, float | np.floating):
        raise ValueError(f"{where} must be a float, not {_kind(value)}")
    if spec.finite and not math.isfinite(value):
        raise ValueError(f"{where} = {value} is not finite")


def _array(spec: Array, value, dims, where, index):
    dtypes = _dtypes(spec.dtypes)
    if not isinstance(value, np.ndarray):
        raise ValueError(f"{where} must be an array, not {_kind(value)}")
    if value.dtype not in dtypes:
        raise ValueError(f"{where} has dtype {value.dtype}, not "
                         f"{' or '.join(map(str, dtypes))}")
    if value.ndim != len(spec.shape):
        raise ValueError(f"{where} has shape {value.shape}: {len(spec.shape)} "
                         "dimension(s) required")
    for symbol, actual in zip(spec.shape, value.shape, strict=True):
        dims.size(symbol, where, actual, index)
    high = None if spec.high is None else dims.values[spec.high.replace("#", str(index))]
    _check_values(value, where, spec.finite, spec.low, high)


def _sample_matrix(spec: SampleMatrix, value, dims, where, index):
    import scipy.sparse as sp

    from halfspaces._validation import check_sparse_structure

    if not sp.issparse(value):
        return _array(Array(spec.dtypes, (spec.rows, "d")), value, dims, where, index)
    if value.format != "csr" or value.dtype not in _dtypes(spec.dtypes):
        raise ValueError(f"{where} is a {value.format} {value.dtype} sparse matrix, not "
                         "a CSR matrix of floats")
    dims.size(spec.rows, where, value.shape[0], index)
    dims.size("d", where, value.shape[1], index)
    if value.indices.dtype not in (np.int32, np.int64) or \
            value.indptr.dtype != value.indices.dtype:
        raise ValueError(f"{where} has index arrays of dtype {value.indices.dtype} and "
                         f"{value.indptr.dtype}, not int32 or int64")
    # the advice to build the matrix from consistent arrays does not apply to a file
    check_sparse_structure(value, where, advice="")
    _check_values(value.data, where, True, None, None)
    return None


def _choice(spec: Choice, value, dims, where, index):
    try:
        check(spec.one if dims.values["p"] == 1 else spec.many, value, dims, where, index)
    except ValueError as exc:
        origin = dims.origins["p"]
        if origin in str(exc) or "(dimension " in str(exc):
            raise  # it says which dimension is wrong, and what set it
        # the form follows from classes_: say so, since it may be what is wrong
        raise ValueError(f"{exc} ({dims.values['p']} binary problem(s) for "
                         f"{origin})") from None


def _precomputed(spec: Precomputed, value, dims, where, index):
    check(spec.yes if dims.precomputed else spec.no, value, dims, where, index)


def _any_of(spec: AnyOf, value, dims, where, index):
    try:
        check(spec.first, value, dims, where, index)
    except ValueError:
        try:
            check(spec.second, value, dims, where, index)
        except ValueError:
            pass
        else:
            return
        raise


def _or_none(spec: OrNone, value, dims, where, index):
    if value is not None:
        check(spec.spec, value, dims, where, index)


def _items(spec: Items, value, dims, where, index):
    if type(value) is not spec.kind or not isinstance(value, list | tuple):
        raise ValueError(f"{where} must be a {spec.kind.__name__}, not {_kind(value)}")
    dims.size(spec.length, where, len(value), index)
    for i, item in enumerate(value):
        each = spec.item[i] if isinstance(spec.item, tuple) else spec.item
        check(each, item, dims, f"{where}[{i}]", i)


def _instance(spec: Instance, value, dims, where, index):
    if type(value) is not spec.cls:
        raise ValueError(f"{where} must be a {spec.cls.__name__}, not {_kind(value)}")
    for name, field_spec in spec.fields:
        check(field_spec, getattr(value, name), dims, f"{where}.{name}", index)


def _classes(spec: Classes, value, dims, where, index):
    # Not bytes, and no float that is not an integer: fit and partial_fit (its ``classes``
    # too) refuse both as labels (scikit-learn's TypeError, and its "Unknown label type:
    # continuous"), so a model holding them could predict them but never score or continue.
    # -0.0 and 0.0 are one label (they compare equal), so a file may not hold both.
    if not isinstance(value, np.ndarray) or value.dtype.kind not in "biufU" \
            or not value.dtype.isnative or value.ndim != 1:
        raise ValueError(f"{where} must be a one-dimensional array of numbers or strings")
    dims.size("k", where, value.size, index)
    _check_values(value, where, True, None, None)
    if value.size < 2 or not np.all(value[1:] > value[:-1]):
        raise ValueError(f"{where} must hold two labels or more, sorted, without repeats")
    if value.dtype.kind == "f" and np.any(value != np.floor(value)):
        bad = value[value != np.floor(value)][0]
        raise ValueError(f"{where} holds {bad!r}, not an integer: fit refuses such labels")


def _feature_names(spec: FeatureNames, value, dims, where, index):
    # scikit-learn keeps them as objects, which halfspaces.save refuses; a file holds them
    # as a Unicode array
    if not isinstance(value, np.ndarray) or value.dtype.kind != "U" or value.ndim != 1:
        raise ValueError(f"{where} must be a one-dimensional array of strings")
    dims.size("d", where, value.size, index)
    # a repeated name would let a DataFrame with those two columns swapped pass the check
    # by name and score wrongly (scikit-learn's fit refuses such a frame: "Expected unique
    # column names"), and the command line would read one column twice
    names, counts = np.unique(value, return_counts=True)
    if np.any(counts > 1):
        raise ValueError(f"{where} repeats the name {str(names[counts > 1][0])!r}: the "
                         "names of a model's features are distinct")


_CHECKS: dict[type, Callable[..., None]] = {
    Int: _int, Bool: _bool, Float: _float, Array: _array, SampleMatrix: _sample_matrix,
    Choice: _choice, Precomputed: _precomputed, AnyOf: _any_of, OrNone: _or_none,
    Items: _items, Instance: _instance, Classes: _classes, FeatureNames: _feature_names,
}
"""The check of each kind of spec."""


def _dtypes(names: str) -> tuple[np.dtype, ...]:
    return tuple(np.dtype(t) for t in names.split())


def _check_values(value: np.ndarray, where: str, finite: bool, low, high) -> None:
    if value.dtype.kind == "f" and finite and not np.isfinite(value).all():
        raise ValueError(f"{where} holds NaN or infinite values")
    if low is not None and value.size and value.min() < low:
        raise ValueError(f"{where} holds {value.min()}, below {low}")
    if high is not None and value.size and value.max() >= high:
        raise ValueError(f"{where} holds {value.max()}, beyond the last index {high - 1}")


def _kind(value: Any) -> str:
    return type(value).__name__


# the attributes that fix d, k and p, checked before any array is measured
_DIMENSIONS = ("n_features_in_", "classes_")


def check_state(cls: type, params: dict[str, Any], state: dict[str, Any]) -> None:
    """Raise ValueError unless `state` is a fitted state an instance of `cls` can hold.

    An empty `state` (an unfitted model) passes. ``n_features_in_`` and ``classes_`` are
    checked first, since they fix d, k and p; then the other attributes in the order `cls`
    declares them, the order in which they bind the free dimensions.
    """
    _check_class_weight(params.get("class_weight"), state.get("classes_"))
    fitted = declared(cls)
    if fitted is None:  # a new estimator: its attributes must be declared
        raise ValueError(f"no state schema for {cls.__name__}: declare its fitted "
                         "attributes (_fitted_attributes, see halfspaces._utils.contract)")
    schema = fitted.schema
    unknown = sorted(set(state) - set(schema))
    if unknown:
        raise ValueError(f"{', '.join(map(repr, unknown))} is not a fitted attribute of "
                         f"{cls.__name__}")
    if not state:
        return
    order = [k for k in _DIMENSIONS if k in schema] + [k for k in schema if k not in _DIMENSIONS]
    missing = [k for k in order if k not in state and k not in fitted.optional]
    if missing:
        raise ValueError(f"fitted attribute {missing[0]!r} of {cls.__name__} is missing")
    dims = _make_dims(fitted, state, params.get("kernel") == "precomputed")
    for key in order:
        if key in state:
            check(schema[key], state[key], dims, key)


def _make_dims(fitted: Fitted, state: dict, precomputed: bool) -> _Dims:
    # its spec, an integer's, reads no dimension yet
    check(fitted.schema["n_features_in_"], state["n_features_in_"], _Dims(0, 0, 0, False),
          "n_features_in_")
    d = int(state["n_features_in_"])
    if fitted.problems == "one":
        return _Dims(d, 1, 1, precomputed)
    classes = state["classes_"]
    k = len(classes) if isinstance(classes, np.ndarray) and classes.ndim == 1 else 0
    return _Dims(d, k, k if fitted.problems == "all" or k > 2 else 1, precomputed)


# the types a label read from a file may have, as a class_weight key
_LABEL_TYPES = (str, int, float, np.str_, np.integer, np.floating, np.bool_)


def _check_class_weight(class_weight: Any, classes: Any) -> None:
    """A ``class_weight`` dict (the parameter's type is checked with the others) maps labels
    to finite weights >= 0, and names only classes of a fitted model: a file could hold
    another one, and fit would refuse it only at the next fit."""
    if not isinstance(class_weight, dict):
        return
    for label, weight in class_weight.items():
        if not isinstance(label, _LABEL_TYPES):
            raise ValueError(f"parameter 'class_weight' has a key of type "
                             f"{type(label).__name__}; labels are strings or numbers")
        number = isinstance(weight, (int, float, np.integer, np.floating))
        if not (number and math.isfinite(weight) and weight >= 0):
            raise ValueError(f"parameter 'class_weight' gives label {label!r} the weight "
                             f"{weight!r}; a class weight is a finite number >= 0")
    if isinstance(classes, np.ndarray) and classes.ndim == 1:
        known = set(classes.tolist())
        unknown = [label for label in class_weight if _plain(label) not in known]
        if unknown:
            raise ValueError(f"parameter 'class_weight' names {unknown!r}, which are not "
                             f"among classes_ {sorted(known, key=repr)!r}")


def _plain(label: Any) -> Any:
    """A NumPy scalar as the Python value that ``classes_.tolist()`` holds."""
    return label.item() if isinstance(label, np.generic) else label

