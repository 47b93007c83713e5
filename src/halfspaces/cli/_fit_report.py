"""The report of ``halfspaces fit``: :class:`FitReport`, what it holds for each kind of model,
and how it is built from a fitted estimator and its measures (:func:`build_report`)."""

from __future__ import annotations

import dataclasses
from typing import Any

__all__ = ["CERTIFIED_MODELS", "LABELS", "FitReport", "build_report", "labels_for"]


@dataclasses.dataclass(frozen=True)
class FitReport:
    """What :func:`fit` found; field order is the display order.

    Attributes
    ----------
    dataset : str
        The training file, data set name, or ``"a9a (bundled)"``.
    model : str
        The ``--model`` name, e.g. ``"averaged"``.
    selection, max_epochs, fit_intercept, seed
        The settings the model was trained with (max_epochs: passes, or None).
    n_train, n_test, n_features : int
        Sizes of the data (``n_test`` is 0 without a test set).
    train_accuracy : float or None
        A classifier's accuracy on the training data (absent for a regression model).
    test_accuracy : float or None
        Accuracy on the test data; None without a test set.
    n_updates : int or list of int or None
        The model's ``n_updates_`` (a list for one-vs-rest), where it has one.
    n_epochs : int or None
        The model's ``n_epochs_`` (or ``n_iter_``); with ``--stream``, the passes over the
        file.
    converged : bool or None
        The model's ``converged_``.
    mistake_bound : float or None
        Novikoff's (R/gamma)^2 for the perceptron family on small separable binary data
        (A. B. J. Novikoff, "On convergence proofs on perceptrons", 1962; Shalev-Shwartz and
        Ben-David, *Understanding Machine Learning*, 2014, theorem 9.1).
    bound_holds : bool or None
        Whether ``n_updates <= mistake_bound``.
    fit_time_s : float
        Wall-clock seconds spent training, not counting the time in Numba's compiler.
    compile_time_s : float
        Wall-clock seconds the training spent in Numba's compiler: compiling the loops on a
        first run (seconds); on later runs loading them from the on-disk cache and setting
        up Numba (a fraction of a second per process).
    model_file : str or None
        Where the model was saved (``--out``).
    streamed : bool
        Whether the data were streamed in chunks (``--stream``).
    notes : tuple of str
        Warnings raised during the fit (e.g. the convergence warning), one line each.
    train_r2, test_r2, train_rmse, test_rmse, train_mae, test_mae : float or None
        A regression model's R^2 (scikit-learn's ``r2_score``), root mean squared and mean
        absolute residual on the training and test data (present only for ``--model
        linear``, whose accuracy fields are then absent).
    optimal : bool or None
        Whether ``--model zero-one`` proved its 0-1 error minimal (False when stopped by
        ``time_limit`` or ``node_limit``: the best model found, not proved optimal); present
        only for it.
    gap : float or None
        For ``--model zero-one``, its relative MIP gap: 0 when proved optimal, else how far
        the best model found may be from the optimum. For the convex fits (``--model
        logistic``, ``linear``, ``svm``), the model's certified duality gap ``gap_``: an
        upper bound on J(w) - J*, in the units of the objective J, that rounding cannot
        make too small; None when it is not finite (without a penalty no dual point
        exists: the notes say so) or when the data were streamed (each chunk has its own
        J). Absent for the other models.
    """

    dataset: str
    model: str
    selection: str | None
    max_epochs: int | None
    fit_intercept: bool | None
    seed: int | None
    n_train: int
    n_test: int
    n_features: int
    train_accuracy: float | None
    test_accuracy: float | None
    n_updates: int | list[int] | None
    n_epochs: int | None
    converged: bool | None
    mistake_bound: float | None
    bound_holds: bool | None
    fit_time_s: float
    # keyword-only, so positional construction keeps its meaning; listed here for the order
    compile_time_s: float = dataclasses.field(default=0.0, kw_only=True)
    model_file: str | None = None
    streamed: bool = False
    notes: tuple[str, ...] = ()
    train_r2: float | None = dataclasses.field(default=None, kw_only=True)
    test_r2: float | None = dataclasses.field(default=None, kw_only=True)
    train_rmse: float | None = dataclasses.field(default=None, kw_only=True)
    test_rmse: float | None = dataclasses.field(default=None, kw_only=True)
    train_mae: float | None = dataclasses.field(default=None, kw_only=True)
    test_mae: float | None = dataclasses.field(default=None, kw_only=True)
    optimal: bool | None = dataclasses.field(default=None, kw_only=True)
    gap: float | None = dataclasses.field(default=None, kw_only=True)

    def as_dict(self) -> dict[str, Any]:
        """The report as plain JSON-serialisable data (``notes`` becomes a list), without
        the fields that do not apply to its model (R^2 for a classifier, accuracy for a
        regression model, optimality beyond the 0-1 MILP)."""
        record = dataclasses.asdict(self)
        record["notes"] = list(self.notes)
        regression = self.train_r2 is not None
        drop: tuple[str, ...] = _ACCURACY if regression else _RESIDUALS
        if self.optimal is None:
            drop = drop + ("optimal",) + (() if self.model in CERTIFIED_MODELS else ("gap",))
        for key in drop:
            record.pop(key)
        return {**{k: v for k, v in record.items() if k != "notes"}, "notes": record["notes"]}


CERTIFIED_MODELS = ("logistic", "linear", "svm")
"""The ``--model`` names whose fits report a certified duality gap (``gap_``)."""

_ACCURACY = ("train_accuracy", "test_accuracy")
_RESIDUALS = ("train_r2", "test_r2", "train_rmse", "test_rmse", "train_mae", "test_mae")


def build_report(name, model, estimator, shape, fit_time, notes, bound, *, train, test, out,
            passes=None, compile_time=0.0) -> FitReport:
    params = estimator.get_params()
    streamed = passes is not None
    updates = _plain(getattr(estimator, "n_updates_", None))
    # a stream's partial_fit calls each count one epoch; the passes over the file are the epochs
    epochs = passes if streamed else getattr(estimator, "n_epochs_",
                                             getattr(estimator, "n_iter_", None))
    tested = None if test is None else test[1]
    return FitReport(
        dataset=name, model=model, selection=params.get("selection"),
        max_epochs=passes or params.get("max_epochs", params.get("max_iter")),
        fit_intercept=params.get("fit_intercept"), seed=params.get("random_state"),
        n_train=int(shape[0]), n_test=0 if test is None else test[0], n_features=int(shape[1]),
        train_accuracy=train.accuracy, test_accuracy=None if tested is None else tested.accuracy,
        n_updates=updates, n_epochs=_largest_count(epochs),
        converged=_bool(getattr(estimator, "converged_", None)), mistake_bound=bound,
        bound_holds=None if bound is None or updates is None else bool(updates <= bound),
        fit_time_s=fit_time, compile_time_s=compile_time,
        model_file=None if out is None else str(out), streamed=streamed,
        notes=notes, train_r2=train.r2, test_r2=None if tested is None else tested.r2,
        train_rmse=train.rmse, test_rmse=None if tested is None else tested.rmse,
        train_mae=train.mae, test_mae=None if tested is None else tested.mae,
        optimal=_all(getattr(estimator, "optimal_", None)),
        gap=None if streamed else _largest(getattr(estimator, "gap_", None)),
    )


def labels_for(report: FitReport) -> dict[str, str]:
    """The table's labels for ``report``: its gap is a MIP gap or a duality gap."""
    if report.optimal is None and report.model in CERTIFIED_MODELS:
        return {**LABELS, "gap": "duality gap"}
    return LABELS


def _all(value) -> bool | None:
    """One verdict for a value per binary problem (the 0-1 MILP's optimal_)."""
    import numpy as np

    return None if value is None else bool(np.all(value))


def _largest(value) -> float | None:
    """The largest of a value per problem; None for none, or for inf or NaN (which JSON
    cannot hold: an infinite gap certifies nothing, and the notes say why)."""
    import numpy as np

    if value is None:
        return None
    largest = float(np.max(value))
    return largest if np.isfinite(largest) else None


def _largest_count(value) -> int | None:
    """A count, or the largest of per-class counts (LinearSVM's passes per problem)."""
    import numpy as np

    return None if value is None else int(np.max(value))


def _bool(value) -> bool | None:
    return None if value is None else bool(value)


def _plain(value: Any) -> int | list[int] | None:
    """An int, or a list of ints for per-class counters (JSON cannot hold NumPy types)."""
    import numpy as np

    if value is None:
        return None
    value = np.asarray(value)
    return int(value) if value.ndim == 0 else [int(v) for v in value.ravel()]


LABELS = {
    "n_train": "train samples",
    "n_test": "test samples",
    "n_features": "features",
    "n_updates": "updates",
    "n_epochs": "epochs",
    "fit_time_s": "fit time (s)",
    "compile_time_s": "compile time (s)",
    "train_r2": "train R^2",
    "test_r2": "test R^2",
    "train_rmse": "train RMSE",
    "test_rmse": "test RMSE",
    "train_mae": "train MAE",
    "test_mae": "test MAE",
    "optimal": "proved optimal",
    "gap": "optimality gap",
}
