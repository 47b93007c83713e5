"""The one check of a model file's fitted state, before any of it reaches an estimator.

The compiled loops of :mod:`halfspaces._fast` index their arrays without bounds checks (as
scikit-learn's Cython loops do), trusting the estimator that built them. A model file is not
such an estimator: a crafted or damaged one could hand ``predict`` sparse indices past the
end of a row, or ``partial_fit`` a weight vector shorter than the data, and the process would
read or write outside its memory. So every attribute loaded from a file is checked here
against a declared schema, one per estimator class:

* the names a fitted instance of that class has (any other key, e.g. ``predict`` or
  ``__dict__``, is refused, and a fitted model must have all of them);
* for each value its type, dtype, shape and range, with shapes written in the dimensions
  ``d`` (``n_features_in_``), ``k`` (``len(classes_)``) and ``p`` (the binary problems:
  1 for two classes, else k; always k for :class:`~halfspaces.MulticlassPerceptron`);
  other letters are sizes the file may choose (e.g. the support vectors) but must then use
  consistently; a ``#`` is the index of the list item that holds the value;
* finiteness of every float that a prediction or a further update reads, and the full CSR
  structure (every indptr step and index, by
  :func:`halfspaces._validation.check_sparse_structure`, the check of fit's input).

A violation raises :class:`ValueError` naming the attribute; :mod:`halfspaces.io.model`
turns it into a :class:`~halfspaces.ModelFileError` naming the file.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from halfspaces._glm.solvers import SgdState
from halfspaces._perceptron.run import PerceptronState

__all__ = ["MAX_FEATURES", "check_state"]

MAX_FEATURES = 2**31 - 1
"""Largest ``n_features_in_`` a model file may declare (the int32 index range of CSR data)."""

_INT64_MAX = int(np.iinfo(np.int64).max)
_N_COUNTERS = PerceptronState.zeros(0).counters.size


class _Dims:
    """The dimensions of one model: fixed ones (d, k, p), and free ones bound on first use."""

    def __init__(self, d: int, k: int, p: int) -> None:
        self.values = {"d": d, "k": k, "p": p, "w": p * (d + 1)}
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


class Spec:
    """What one attribute must be; ``check`` raises ValueError naming `where`."""

    def check(self, value: Any, dims: _Dims, where: str, index: int | None = None) -> None:
        raise NotImplementedError


class Int(Spec):
    def __init__(self, low: int = 0, high: int = _INT64_MAX) -> None:
        self.low, self.high = low, high

    def check(self, value, dims, where, index=None):
        if isinstance(value, bool | np.bool_) or not isinstance(value, int | np.integer):
            raise ValueError(f"{where} must be an integer, not {_kind(value)}")
        if not self.low <= int(value) <= self.high:
            raise ValueError(f"{where} = {value} is outside [{self.low}, {self.high}]")


class Bool(Spec):
    def check(self, value, dims, where, index=None):
        if not isinstance(value, bool | np.bool_):
            raise ValueError(f"{where} must be a bool, not {_kind(value)}")


class Float(Spec):
    def __init__(self, finite: bool = True) -> None:
        self.finite = finite

    def check(self, value, dims, where, index=None):
        if isinstance(value, bool | np.bool_) or not isinstance(value, float | np.floating):
            raise ValueError(f"{where} must be a float, not {_kind(value)}")
        if self.finite and not math.isfinite(value):
            raise ValueError(f"{where} = {value} is not finite")


class Array(Spec):
    """An ndarray of one of `dtypes`, of `shape`, optionally finite and within [low, high)."""

    def __init__(self, dtypes: str, shape: tuple, *, finite: bool = True, low=None,
                 high: str | None = None) -> None:
        self.dtypes = tuple(np.dtype(t) for t in dtypes.split())
        self.shape, self.finite, self.low, self.high = shape, finite, low, high

    def check(self, value, dims, where, index=None):
        if not isinstance(value, np.ndarray):
            raise ValueError(f"{where} must be an array, not {_kind(value)}")
        if value.dtype not in self.dtypes:
            raise ValueError(f"{where} has dtype {value.dtype}, not "
                             f"{' or '.join(map(str, self.dtypes))}")
        if value.ndim != len(self.shape):
            raise ValueError(f"{where} has shape {value.shape}: {len(self.shape)} "
                             "dimension(s) required")
        for symbol, actual in zip(self.shape, value.shape, strict=True):
            dims.size(symbol, where, actual, index)
        _check_values(value, where, self.finite, self.low, self._high(dims, index))

    def _high(self, dims: _Dims, index) -> int | None:
        if self.high is None:
            return None
        return dims.values[self.high.replace("#", str(index))]


class SampleMatrix(Spec):
    """Sample rows: a dense or CSR float array of shape (`rows`, d), finite."""

    def __init__(self, rows: str, dtypes: str = "float64") -> None:
        self.dense = Array(dtypes, (rows, "d"))
        self.rows, self.dtypes = rows, self.dense.dtypes

    def check(self, value, dims, where, index=None):
        import scipy.sparse as sp

        from halfspaces._validation import check_sparse_structure

        if not sp.issparse(value):
            return self.dense.check(value, dims, where, index)
        if value.format != "csr" or value.dtype not in self.dtypes:
            raise ValueError(f"{where} is a {value.format} {value.dtype} sparse matrix, not "
                             "a CSR matrix of floats")
        dims.size(self.rows, where, value.shape[0], index)
        dims.size("d", where, value.shape[1], index)
        if value.indices.dtype not in (np.int32, np.int64) or \
                value.indptr.dtype != value.indices.dtype:
            raise ValueError(f"{where} has index arrays of dtype {value.indices.dtype} and "
                             f"{value.indptr.dtype}, not int32 or int64")
        # the advice to build the matrix from consistent arrays does not apply to a file
        check_sparse_structure(value, where, advice="")
        _check_values(value.data, where, True, None, None)


class Choice(Spec):
    """One spec when there is one binary problem, another beyond (scikit-learn's habit of
    scalars for binary problems, arrays per class otherwise)."""

    def __init__(self, one: Spec, many: Spec) -> None:
        self.one, self.many = one, many

    def check(self, value, dims, where, index=None):
        try:
            (self.one if dims.values["p"] == 1 else self.many).check(value, dims, where, index)
        except ValueError as exc:
            origin = dims.origins["p"]
            if origin in str(exc):
                raise
            # the form follows from classes_: say so, since it may be what is wrong
            raise ValueError(f"{exc} ({dims.values['p']} binary problem(s) for "
                             f"{origin})") from None


class AnyOf(Spec):
    """A value that meets the first spec, or failing that the second (e.g. a newer and an
    older form of the same state); the error is the first spec's."""

    def __init__(self, first: Spec, second: Spec) -> None:
        self.first, self.second = first, second

    def check(self, value, dims, where, index=None):
        try:
            self.first.check(value, dims, where, index)
        except ValueError:
            try:
                self.second.check(value, dims, where, index)
            except ValueError:
                pass
            else:
                return
            raise


class OrNone(Spec):
    def __init__(self, spec: Spec) -> None:
        self.spec = spec

    def check(self, value, dims, where, index=None):
        if value is not None:
            self.spec.check(value, dims, where, index)


class Items(Spec):
    """A list (or tuple) of `length` items, each checked by `item` (or the item's own spec)."""

    def __init__(self, kind: type, length: int | str, item: Spec | tuple[Spec, ...]) -> None:
        self.kind, self.length, self.item = kind, length, item

    def check(self, value, dims, where, index=None):
        if type(value) is not self.kind:
            raise ValueError(f"{where} must be a {self.kind.__name__}, not {_kind(value)}")
        dims.size(self.length, where, len(value), index)
        for i, item in enumerate(value):
            spec = self.item[i] if isinstance(self.item, tuple) else self.item
            spec.check(item, dims, f"{where}[{i}]", i)


class Instance(Spec):
    """An object of class `cls` whose named fields are checked by their specs."""

    def __init__(self, cls: type, **fields: Spec) -> None:
        self.cls, self.fields = cls, fields

    def check(self, value, dims, where, index=None):
        if type(value) is not self.cls:
            raise ValueError(f"{where} must be a {self.cls.__name__}, not {_kind(value)}")
        for name, spec in self.fields.items():
            spec.check(getattr(value, name), dims, f"{where}.{name}", index)


class Classes(Spec):
    """``classes_``: k >= 2 distinct labels (numbers or strings), sorted as np.unique sorts.

    Not bytes, and no float that is not an integer: fit and partial_fit (its ``classes``
    too) refuse both as labels (scikit-learn's TypeError, and its "Unknown label type:
    continuous"), so a model holding them could predict them but never score or continue.
    -0.0 and 0.0 are one label (they compare equal), so a file may not hold both.
    """

    def check(self, value, dims, where, index=None):
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


def _check_values(value: np.ndarray, where: str, finite: bool, low, high) -> None:
    if value.dtype.kind == "f" and finite and not np.isfinite(value).all():
        raise ValueError(f"{where} holds NaN or infinite values")
    if low is not None and value.size and value.min() < low:
        raise ValueError(f"{where} holds {value.min()}, below {low}")
    if high is not None and value.size and value.max() >= high:
        raise ValueError(f"{where} holds {value.max()}, beyond the last index {high - 1}")


def _kind(value: Any) -> str:
    return type(value).__name__


def _schemas() -> dict[str, tuple[str, dict[str, Spec]]]:
    """Class name -> (how p follows from k, attribute -> spec)."""
    f64, i64 = "float64", "int64"
    per_problem_int = Choice(Int(), Array(i64, ("p",), low=0))
    common = {"n_features_in_": Int(1, MAX_FEATURES),
              "feature_names_in_": OrNone(_Names())}
    linear = {**common, "classes_": Classes(), "coef_": Array(f64, ("p", "d")),
              "intercept_": Array(f64, ("p",))}
    state = Instance(PerceptronState, w=Array(f64, ("d+1",)), aux=Array(f64, ("d+1",)),
                     counters=Array(i64, (_N_COUNTERS,), low=0))
    perceptron = {**linear, "_states": Items(list, "p", state),
                  "n_updates_": per_problem_int, "n_epochs_": Int(), "converged_": Bool()}
    per_list = {"update_support_": Array(i64, ("u#",), low=0, high="s"),
                "update_signs_": Array(f64, ("u#",)), "_update_steps": Array(i64, ("u#",)),
                "vote_counts_": Array(i64, ("u#+1",), low=0)}
    voted = {**perceptron, "support_vectors_": SampleMatrix("s", "float64 float32"),
             **{k: Items(list, "p", spec) for k, spec in per_list.items()},
             "_fit_intercept": Bool()}
    curve = Array(f64, ("c",), finite=False)
    solver = {"n_iter_": Int(), "loss_curve_": curve, "converged_": Bool()}
    logistic = {**linear, "_rng": Instance(np.random.RandomState), "_w": Array(f64, ("w",)),
                "_state": OrNone(AnyOf(
                    Instance(SgdState, iterate=Array(f64, ("w",)), average=Array(f64, ("w",)),
                             n_avg=Int(-1), t=Int()),
                    # model files written before SgdState held the same four as a tuple
                    Items(tuple, 4, (Array(f64, ("w",)), Array(f64, ("w",)), Int(-1), Int())))),
                **solver}
    regression = {**common, "_w": Array(f64, ("d+1",)), "coef_": Array(f64, ("d",)),
                  "intercept_": Float(), **solver}
    kernel = {**common, "classes_": Classes(),
              "alpha_": Choice(Array(i64, ("t",), low=0), Array(i64, ("p", "t"), low=0)),
              "support_": _KernelSupport(),
              "dual_coef_": Array(f64, ("p", "s")), "intercept_": Array(f64, ("p",)),
              "support_vectors_": _KernelVectors(), "n_updates_": per_problem_int,
              "n_epochs_": Int(), "converged_": Bool(),
              # the last hypothesis, the averaging sums and the step counts that a warm
              # start or partial_fit continues from
              "_last_coef": Array(f64, ("p", "s")), "_coef_sums": Array(f64, ("p", "s")),
              "_n_steps": Array(i64, ("p",), low=0),
              # the burn_in the averaging sums and vote counts were kept from
              "_burn_in": Int()}
    voted_kernel = {**kernel, **{k: Items(list, "p", spec) for k, spec in per_list.items()}}
    support = Choice(Array(i64, ("m",), low=0), Items(list, "p", Array(i64, ("m#",), low=0)))
    return {
        "Perceptron": ("ovr", perceptron),
        "AveragedPerceptron": ("ovr", perceptron),
        "PocketPerceptron": ("ovr", {**perceptron, "n_errors_": per_problem_int}),
        "VotedPerceptron": ("ovr", voted),
        "MulticlassPerceptron": ("all", {**linear, "n_updates_": Int(), "n_epochs_": Int(),
                                         "converged_": Bool()}),
        "KernelPerceptron": ("ovr", kernel),
        "VotedKernelPerceptron": ("ovr", voted_kernel),
        "LogisticRegression": ("ovr", logistic),
        "LinearRegression": ("one", regression),
        "LinearProgramClassifier": ("ovr", {**linear, "separable_": Choice(
            Bool(), Array("bool", ("p",)))}),
        "MaxMarginClassifier": ("ovr", {**linear, "support_": support, "margin_": Choice(
            Float(finite=False), Array(f64, ("p",), finite=False))}),
        "ZeroOneERMClassifier": ("ovr", {**linear, "n_errors_": per_problem_int,
                                         "optimal_": Choice(Bool(), Array("bool", ("p",))),
                                         "gap_": Choice(Float(finite=False),
                                                        Array(f64, ("p",), finite=False))}),
    }


class _Names(Spec):
    """``feature_names_in_``: one string per feature (scikit-learn keeps them as objects,
    which :func:`halfspaces.save` refuses; a file may hold them as a Unicode array)."""

    def check(self, value, dims, where, index=None):
        if not isinstance(value, np.ndarray) or value.dtype.kind != "U" or value.ndim != 1:
            raise ValueError(f"{where} must be a one-dimensional array of strings")
        dims.size("d", where, value.size, index)


class _KernelVectors(Spec):
    """KernelPerceptron's ``support_vectors_``: the support rows, or (0, 0) for a precomputed
    kernel, whose ``support_`` then indexes the columns of X (so t = d)."""

    def check(self, value, dims, where, index=None):
        if dims.values.get("precomputed"):
            Array("float64", (0, 0)).check(value, dims, where)
            dims.size("t", "n_features_in_ of a precomputed kernel", dims.values["d"], None)
        else:
            SampleMatrix("s").check(value, dims, where, index)


class _KernelSupport(Spec):
    """The kernel perceptrons' ``support_``: indices into the last call's rows (t of them),
    of the support vectors it added (m); for a precomputed kernel (no warm start) they are
    all the support vectors (s), and index the columns of X at predict."""

    def check(self, value, dims, where, index=None):
        rows = "s" if dims.values.get("precomputed") else "m"
        Array("int64", (rows,), low=0, high="t").check(value, dims, where, index)


_SCHEMAS: dict[str, tuple[str, dict[str, Spec]]] = {}
# absent from older files: VotedPerceptron's _fit_intercept then reads its parameter, and
# a kernel perceptron's _burn_in is 0 (every file before it was averaged from the start)
_OPTIONAL = {"feature_names_in_", "_fit_intercept", "_burn_in"}


def check_state(cls: type, params: dict[str, Any], state: dict[str, Any]) -> None:
    """Raise ValueError unless `state` is a fitted state an instance of `cls` can hold.

    An empty `state` (an unfitted model) passes. Checks run in the schema's order, so that
    ``n_features_in_`` and ``classes_`` fix d, k and p before the arrays are measured.
    """
    if not _SCHEMAS:
        _SCHEMAS.update(_schemas())
    if cls.__name__ not in _SCHEMAS:  # a new estimator: its attributes must be declared
        raise ValueError(f"no state schema for {cls.__name__}: declare its fitted "
                         "attributes in halfspaces.io._state")
    problems, schema = _SCHEMAS[cls.__name__]
    unknown = sorted(set(state) - set(schema))
    if unknown:
        raise ValueError(f"{', '.join(map(repr, unknown))} is not a fitted attribute of "
                         f"{cls.__name__}")
    if not state:
        return
    missing = [k for k in schema if k not in state and k not in _OPTIONAL]
    if missing:
        raise ValueError(f"fitted attribute {missing[0]!r} of {cls.__name__} is missing")
    dims = _make_dims(problems, state, schema)
    dims.values["precomputed"] = params.get("kernel") == "precomputed"
    for key, spec in schema.items():
        if key in state:
            spec.check(state[key], dims, key)


def _make_dims(problems: str, state: dict, schema: dict) -> _Dims:
    schema["n_features_in_"].check(state["n_features_in_"], None, "n_features_in_")
    d = int(state["n_features_in_"])
    if problems == "one":
        return _Dims(d, 1, 1)
    classes = state["classes_"]
    k = len(classes) if isinstance(classes, np.ndarray) and classes.ndim == 1 else 0
    return _Dims(d, k, k if problems == "all" or k > 2 else 1)

