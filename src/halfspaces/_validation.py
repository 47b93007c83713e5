"""Input checks shared by every estimator: arrays, CSR structure, labels and one-vs-rest targets.

The compiled loops apply the homogeneous reduction x' = (1, x) implicitly (a bias slot in the
weight vector, scaled by ``fit_intercept``), so X is never copied;
:func:`halfspaces._utils.homogeneous.augment` builds x' explicitly for users and for the
theory tools.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from numpy.typing import ArrayLike, NDArray
from sklearn.utils.class_weight import compute_class_weight
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import validate_data as _sklearn_validate_data

from halfspaces._fast import loop_input

__all__ = [
    "FIT_INPUT", "LOOP_CHECKS_FINITE", "SparseInputMixin", "Targets",
    "canonical_csr", "check_sparse_structure", "checked_input",
    "class_weights", "column_max_abs", "encode_targets", "partial_fit_classes",
    "per_problem", "plus_minus", "refuse_dask", "row_weights", "sample_weights",
    "unknown_labels", "validate_data",
]

# What fit accepts: float32 stays float32, C-contiguous or CSR input is used as it is, never
# copied (but for a CSR matrix that stores a column twice in a row: see canonical_csr);
# 64-bit sparse indices are read as they are.
FIT_INPUT = dict(accept_sparse="csr", dtype=(np.float64, np.float32), order="C",
                 accept_large_sparse=True)
# The same, for estimators that find NaN and inf themselves during a pass they make anyway
# (the perceptrons' first epoch, naming the row; the datafits' column_max_abs, naming the
# column), saving scikit-learn's full extra read of X.
LOOP_CHECKS_FINITE = dict(FIT_INPUT, ensure_all_finite=False)


def check_sparse_structure(X, name: str = "X", *, advice: str | None = None):
    """Refuse a sparse matrix whose index arrays point outside it; return X.

    The compiled loops (and SciPy's own sparse products and conversions) index ``data``
    through ``indices`` and ``indptr`` without bounds checks, so a matrix built by hand from
    inconsistent arrays would make them read or write outside its memory: SciPy's
    ``tocsr()`` of a CSC or COO matrix with an index out of range is a segmentation fault,
    so this runs on the matrix as given, before any conversion. A CSR or CSC matrix is
    checked by the shapes of its arrays and one compiled pass over them
    (:func:`halfspaces._fast.csr.csr_is_valid`, ~0.1 ms on a9a), not by SciPy's
    ``check_format(full_check=True)``, which skips its checks when ``indptr[-1] <= 0`` (an
    indptr of [0, 2, 4, 6, 0] over no entries passed it, and sparsetools then crashed); COO
    by the bounds of its coordinates; BSR by SciPy's ``check_format(full_check=True)``. DIA,
    LIL and DOK are converted by SciPy in Python, and their CSR form is checked where it is
    used.

    Parameters
    ----------
    X : object
        Checked if it is a SciPy sparse matrix or array, else returned as it is.
    name : str, default="X"
        What the error calls X (e.g. a model file's attribute).
    advice : str or None, default=None
        The sentence that ends the error, after the reason. None advises building the
        matrix from consistent arrays, the fix for a matrix built by hand; a caller whose
        matrix came from elsewhere says what applies there ("" for nothing more).

    Raises
    ------
    ValueError
        "<name> is not a valid <FORMAT> matrix: <reason>. <advice>"
    """
    if not sp.issparse(X):
        return X
    reason = _structure_problem(X)
    if reason is None:
        return X
    if advice is None:
        build = ("coo_matrix((data, (row, col)), shape=...)" if X.format == "coo" else
                 f"{X.format}_matrix((data, indices, indptr), shape=...)")
        advice = f"Build it with scipy.sparse.{build} from consistent arrays."
    raise ValueError(f"{name} is not a valid {X.format.upper()} matrix: {reason}."
                     f"{' ' + advice if advice else ''}")


def _structure_problem(X) -> str | None:
    """Why the index arrays of sparse X do not fit its shape, or None where they do (or
    where SciPy converts X in Python: DIA, LIL, DOK)."""
    if X.format == "coo":
        return _coordinates_problem(X)
    if X.format in ("csr", "csc"):
        return _compressed_problem(X)
    check = getattr(X, "check_format", None)
    if check is None:
        return None
    try:
        check(full_check=True)
    except ValueError as err:
        return str(err).rstrip(".")
    return None


def _compressed_problem(X) -> str | None:
    """Why a CSR (CSC) matrix's arrays are not one, checked in the order that keeps the
    compiled pass safe: shapes and dtypes first, then every indptr step and index."""
    from halfspaces._fast.csr import csr_is_valid

    rows, minor = ("rows", "column") if X.format == "csr" else ("columns", "row")
    n_major, n_minor = X.shape if X.format == "csr" else X.shape[::-1]
    indices, indptr, data = X.indices, X.indptr, X.data
    if indptr.ndim != 1 or indptr.shape[0] != n_major + 1:
        return (f"it has an indptr of shape {indptr.shape} for {n_major} {rows}: "
                f"{n_major + 1} entries are required")
    if indices.ndim != 1 or data.shape != indices.shape:
        return (f"it has {data.shape} values for {indices.shape} indices: one index per "
                "value is required")
    if indices.dtype.kind not in "iu" or indptr.dtype.kind not in "iu":
        return (f"its index arrays have dtype {indices.dtype} and {indptr.dtype}, not "
                "integers")
    if not csr_is_valid(indices, indptr, n_minor):
        return (f"its indptr must start at 0, never decrease and end at its "
                f"{indices.shape[0]} entries, and its {minor} indices must lie in [0, {n_minor})")
    return None


def _coordinates_problem(X) -> str | None:
    """Why a COO matrix's row and column arrays are not one integer per entry inside its
    shape, or None."""
    for axis, (index, size) in enumerate(zip((X.row, X.col), X.shape, strict=True)):
        what = ("row", "column")[axis]
        if index.ndim != 1 or index.shape[0] != X.data.shape[0] or index.dtype.kind not in "iu":
            return f"its {what} array does not hold one integer per entry"
        if index.size and (index.min() < 0 or index.max() >= size):
            return f"a {what} index is outside [0, {size})"
    return None


def canonical_csr(X):
    """X itself, or where a row stores a column twice (or out of order), a copy with the
    duplicates summed and the indices sorted: the matrix SciPy means by the same arrays.

    The check is one compiled pass (:func:`halfspaces._fast.csr.csr_is_canonical`) and
    ignores SciPy's ``has_canonical_format`` flag, which anyone may set. Loops that read an
    entry at a time would otherwise see a column stored twice as two features: a Gram
    diagonal a^2 + b^2 instead of (a + b)^2, a dense row with the last entry only.
    X must have passed :func:`check_sparse_structure`.
    """
    if not (sp.issparse(X) and X.format == "csr"):
        return X
    from halfspaces._fast.csr import csr_is_canonical

    if csr_is_canonical(X.indices, X.indptr):
        return X
    X = X.copy()
    X.has_sorted_indices = False  # unset both flags: sum_duplicates trusts them
    X.has_canonical_format = False
    X.sum_duplicates()
    return X


def column_max_abs(X, name: str = "X") -> NDArray:
    """max_i |x_ij| for each column j, as float64: the scale every column-wise tolerance of
    the solvers is relative to.

    One compiled pass over the stored entries (:func:`halfspaces._fast.columns.column_stats`),
    which also finds NaN and infinities: estimators whose objective calls this can skip
    scikit-learn's own finiteness check (``LOOP_CHECKS_FINITE``), so X is read once for both
    instead of three times (two column reductions and a sum).

    Raises
    ------
    ValueError
        If X holds NaN or an infinity (naming the first such column), or, sparse, indices
        that point outside it.
    """
    from halfspaces._fast.columns import column_stats

    if sp.issparse(X):
        X = checked_input(check_sparse_structure(X, name).tocsr(), X, name)
    top, bad = column_stats(loop_input(X), X.shape[1])
    if bad.any():
        raise ValueError(f"Input {name} contains NaN or infinity (first in column "
                         f"{int(np.argmax(bad))}).")
    return top


def refuse_dask(owner: str, **values) -> None:
    """Refuse dask collections among ``values`` (name -> value) with a TypeError naming
    :mod:`halfspaces.dask`.

    NumPy's conversion would otherwise compute the whole collection into this process's
    memory, which is what a dask collection exists to avoid. dask is looked up only when
    something has imported it already, so this check never imports it.
    """
    dask = sys.modules.get("dask")
    if dask is None:
        return
    for name, value in values.items():
        if not isinstance(value, str) and dask.is_dask_collection(value):
            raise TypeError(
                f"{name} is a dask collection ({type(value).__name__}); {owner} works on "
                "data in memory and would compute all of it here. Use the estimators and "
                "tools of halfspaces.dask, which keep the partitions on the workers (pip "
                f"install 'halfspaces[dask]'), or pass {name}.compute() if it fits in memory."
            )


def validate_data(estimator, X="no_validation", y="no_validation", **kwargs):
    """scikit-learn's ``validate_data`` between :func:`check_sparse_structure` on X as given
    (SciPy's conversions read its arrays unchecked) and on X converted, which is then made
    :func:`canonical_csr`.

    Dask collections are refused (:func:`refuse_dask`)."""
    refuse_dask(type(estimator).__name__, X=X, y=y)
    check_sparse_structure(X)
    out = _sklearn_validate_data(estimator, X, y, **kwargs)
    found = checked_input(out[0] if isinstance(out, tuple) else out, X)
    return (found, *out[1:]) if isinstance(out, tuple) else found


def checked_input(X, given, name: str = "X"):
    """X as scikit-learn's validation converted it from ``given`` (which passed
    :func:`check_sparse_structure`), made :func:`canonical_csr`; its structure is checked
    again only where the conversion made a new matrix."""
    return canonical_csr(X if X is given else check_sparse_structure(X, name))


class SparseInputMixin:
    """Declares to scikit-learn that the estimator takes sparse (CSR) input."""

    def __sklearn_tags__(self):
        # a mixin: the estimator class it is mixed into (before BaseEstimator) defines it
        tags = super().__sklearn_tags__()  # type: ignore[misc]
        tags.input_tags.sparse = True
        return tags


def per_problem(values: ArrayLike):
    """A plain scalar for a binary problem, an array with one entry per class otherwise."""
    values = np.asarray(values)
    return values[0].item() if values.size == 1 else values


@dataclass(frozen=True)
class Targets:
    """The labels as the compiled loops read them: no per-sample array is allocated.

    Binary problem k has targets +1 where ``labels == positives[k]`` and -1 elsewhere.
    Numeric labels are used as given; other labels become their index in ``classes``.
    """

    classes: NDArray
    labels: NDArray
    positives: tuple

    def values(self) -> NDArray:
        """The labels as values of ``classes`` (numeric labels are kept, others indexed)."""
        if self.classes.dtype.kind in "iuf" and self.labels.dtype.kind in "iuf":
            return self.labels
        return self.classes[self.labels]

    def plus_minus(self, k: int, rows: NDArray | slice = slice(None)) -> NDArray:
        """The ±1 targets of problem k (at ``rows``), as a float array."""
        return np.where(self.labels[rows] == self.positives[k], 1.0, -1.0)


def encode_targets(y: ArrayLike, classes: NDArray | None = None) -> Targets:
    """Classes (sorted; classes[1] is the positive class of a binary problem) and targets.

    With ``classes`` given (partial_fit), every label must be one of them.
    """
    given = np.asarray(y)
    labels = _numeric_labels(given)
    found = _distinct_numeric(labels)
    if found is None:
        check_classification_targets(labels)
        found = np.unique(labels)
    if labels is not given:
        # classes_ keeps y's dtype, as np.unique (scikit-learn) does: the loops never see
        # it, they compare the labels with a class cast to the labels' dtype
        found = found.astype(given.dtype)
    if classes is None:
        classes = found
        if classes.size < 2:
            raise ValueError(
                f"y contains only one class ({classes.tolist()[0]!r}); a classifier needs "
                "samples of at least 2 classes."
            )
    problems = [1] if classes.size == 2 else range(classes.size)
    if labels.dtype.kind in "iuf" and classes.dtype.kind in "iuf":
        _refuse_unknown(found.tolist(), classes)
        # the loops compare y with the class cast to y's dtype, which wraps a class that
        # dtype cannot hold: a batch of int8 labels 1 trained class 257 (int8(257) is 1).
        labels = labels.astype(_label_dtype(labels.dtype, classes), copy=False)
        return Targets(classes, labels, tuple(classes[k] for k in problems))
    unknown = np.setdiff1d(found, classes)
    if unknown.size:
        raise ValueError(f"y contains labels {unknown!r} that are not in classes_ {classes!r}.")
    return Targets(classes, np.searchsorted(classes, labels), tuple(problems))


def unknown_labels(labels: list, classes: NDArray) -> list:
    """The labels of `labels` (Python values) that equal no class exactly.

    Compared as Python numbers, which compare ints and floats exactly: NumPy compares
    uint64 with int64, or int64 beyond 2**53 with float64, in float64, which rounds, so
    labels 2**63 (float) passed as class 2**63 + 1 (uint64), and trained it.
    """
    known = set(classes.tolist())
    return [label for label in labels if label not in known]


def _refuse_unknown(found: list, classes: NDArray) -> None:
    """Refuse the labels of `found` (Python numbers) that equal no class exactly."""
    unknown = unknown_labels(found, classes)
    if unknown:
        raise ValueError(f"y contains labels {unknown!r} that are not in classes_ "
                         f"{classes!r} (compared exactly, whatever their dtypes).")


def _label_dtype(y_dtype: np.dtype, classes: NDArray) -> np.dtype:
    """A dtype that holds every class exactly, for labels that are all classes.

    NumPy's common dtype where it holds the classes (no copy of y when it is y's own),
    else the classes' dtype: uint64 and int64 have float64 as their common dtype, in which
    classes 2**63 + 1 and 2**63 + 3 are one number, and both problems had all labels
    positive. Labels equal to a class exactly convert to its dtype exactly.
    """
    common = np.result_type(y_dtype, classes)
    return common if classes.astype(common).tolist() == classes.tolist() else classes.dtype


def _distinct_numeric(y: NDArray) -> NDArray | None:
    """Sorted distinct values of numeric y with at most 32 of them, in one pass; else None."""
    if y.dtype.kind not in "iuf" or y.ndim != 1:
        return None
    from halfspaces._fast.labels import distinct_few, two_or_fewer

    if y.size == 0:
        return None
    a, b, at_most_two = two_or_fewer(y)
    values, count = (np.array([a, b], y.dtype), 2) if at_most_two else distinct_few(y, 32)
    if count < 0:
        return None
    if y.dtype.kind == "f" and np.any(values != np.floor(values)):
        check_classification_targets(y)  # raises scikit-learn's "Unknown label type" error
    return np.unique(values)


def partial_fit_classes(y: ArrayLike, classes: ArrayLike | None, known: NDArray | None) -> NDArray:
    """The classes of a partial_fit call: given, known from earlier calls, or found in y.

    ``classes`` may be omitted on the first call when that batch holds at least two labels.
    """
    if known is not None:
        # compared as Python numbers, exactly (see _refuse_unknown)
        if classes is not None and np.unique(classes).tolist() != known.tolist():
            raise ValueError(
                f"classes={np.unique(classes)!r} differs from the classes of the earlier "
                f"partial_fit calls, {known!r}."
            )
        return known
    if classes is None:
        classes = np.unique(y)
        if classes.size < 2:
            raise ValueError(
                "classes must be passed on the first call to partial_fit when the first "
                "batch holds fewer than 2 labels."
            )
        return classes
    classes = np.asarray(classes)
    # the labels fit would refuse (NaN, 0.5) are refused as classes too: NaN was accepted,
    # and the pocket perceptron then predicted it
    if classes.dtype.kind == "f" and not np.all(np.isfinite(classes)):
        raise ValueError(f"classes={classes!r} contains NaN or infinity; a class is a label "
                         "that y can hold.")
    check_classification_targets(classes)
    classes = np.unique(classes)
    if classes.size < 2:
        raise ValueError(f"classes={classes!r} names fewer than 2 classes.")
    return classes


def _numeric_labels(y: NDArray) -> NDArray:
    """y, with half-precision floats widened (exactly): the compiled loops have no float16."""
    return y.astype(np.float32) if y.dtype == np.float16 else y


def plus_minus(y: ArrayLike, n_samples: int) -> NDArray:
    """Labels as ±1: values in {-1, +1} are kept, any two other values map as in the estimators.

    For two values the positive class is the larger one (``classes_[1]``), exactly as the
    estimators map them; ±1 labels therefore keep their sign.

    Parameters
    ----------
    y : array-like of shape (n_samples,)
        Binary labels.
    n_samples : int
        The number of rows of X, which y must match.

    Returns
    -------
    y_pm : ndarray of shape (n_samples,)
        -1.0 and +1.0.

    Examples
    --------
    >>> from halfspaces._validation import plus_minus
    >>> plus_minus(["no", "yes", "no"], 3)
    array([-1.,  1., -1.])
    """
    y = np.asarray(y).ravel()
    if y.shape[0] != n_samples:
        raise ValueError(f"y has {y.shape[0]} labels but X has {n_samples} rows; "
                         "pass one label per row.")
    if y.dtype.kind in "iufb" and np.all((y == 1) | (y == -1)):
        return y.astype(np.float64)
    check_classification_targets(y)
    classes, index = np.unique(y, return_inverse=True)
    if classes.size != 2:
        raise ValueError(
            f"y holds {classes.size} classes {classes!r}; the theory tools are binary: pass "
            "labels in {-1, +1} or exactly two distinct values (one-vs-rest for more)."
        )
    return np.where(index.ravel() == 1, 1.0, -1.0)


def sample_weights(sample_weight: ArrayLike | None, n_samples: int,
                   name: str = "sample_weight") -> NDArray | None:
    """``sample_weight`` as float64 of shape (n_samples,), or None for None.

    A scalar is one weight for every row. Refused by name: another shape, NaN or infinity,
    a negative weight, and weights that are zero on every row (nothing to fit).
    """
    if sample_weight is None:
        return None
    weights = np.asarray(sample_weight, dtype=np.float64)
    if weights.ndim == 0:
        weights = np.full(n_samples, float(weights))
    if weights.shape != (n_samples,):
        raise ValueError(f"{name} has shape {weights.shape}; one weight per row of X, "
                         f"shape ({n_samples},), is required.")
    bad = ~np.isfinite(weights)
    if bad.any():
        raise ValueError(f"{name} holds NaN or infinity (first at row "
                         f"{int(np.argmax(bad))}); weights must be finite.")
    if (weights < 0).any():
        i = int(np.argmax(weights < 0))
        raise ValueError(f"{name} holds a negative weight ({float(weights[i])!r} at row "
                         f"{i}); weights must be >= 0.")
    if not weights.any():
        raise ValueError(f"{name} is zero for every row: there is nothing to fit.")
    return weights


def class_weights(class_weight, classes: NDArray, labels: NDArray) -> NDArray | None:
    """One weight per class of ``classes`` (sorted, as ``classes_``), or None for None.

    ``"balanced"`` is scikit-learn's rule, n / (n_classes * count), over ``labels`` (the
    labels of the rows fitted, each one of ``classes``); a dict maps a class to its weight
    (classes it does not name weigh 1) and must name only classes of the data, with finite
    non-negative weights.
    """
    if class_weight is None:
        return None
    if isinstance(class_weight, dict):
        for label, weight in class_weight.items():
            if not (isinstance(weight, (int, float, np.integer, np.floating))
                    and np.isfinite(weight) and weight >= 0):
                raise ValueError(f"class_weight[{label!r}] is {weight!r}; a class weight "
                                 "must be a finite number >= 0.")
        unknown = [label for label in class_weight if not np.isin(label, classes).item()]
        if unknown:
            raise ValueError(f"class_weight names {unknown!r}, which are not classes of y "
                             f"(classes_ {classes.tolist()!r}).")
    return compute_class_weight(class_weight, classes=classes, y=labels).astype(np.float64)


def row_weights(sample_weight: ArrayLike | None, class_weight, classes: NDArray,
                labels: NDArray) -> NDArray | None:
    """Each row's weight: its ``sample_weight`` times its class's weight (scikit-learn's
    convention), validated as :func:`sample_weights`; None when both are None.

    ``labels`` are y's values (each one of ``classes``, sorted).
    """
    n_samples = np.shape(labels)[0]
    weights = sample_weights(sample_weight, n_samples)
    per_class = class_weights(class_weight, classes, labels)
    if per_class is None:
        return weights
    by_row = per_class[np.searchsorted(classes, labels)]
    combined = by_row if weights is None else weights * by_row
    if not combined.any():
        raise ValueError("sample_weight times class_weight is zero for every row: there is "
                         "nothing to fit.")
    return combined
