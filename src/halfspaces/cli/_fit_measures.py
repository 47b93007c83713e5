"""What ``halfspaces fit`` measures beside the model: its fit time outside and inside Numba's
compiler, its accuracy, and Novikoff's mistake bound where that is cheap.

:mod:`halfspaces.cli.fit` and ``--dask``'s :func:`halfspaces.cli._dask.fit_on_cluster` call
them through this module (``_fit_measures.timed(...)``), so that a caller replacing one here
(a test, a profiler) reaches every fit.
"""

from __future__ import annotations

import dataclasses
import time

from halfspaces.cli import _output
from halfspaces.cli._models import PERCEPTRON_FAMILY

__all__ = ["BOUND_CELLS", "Measures", "accuracy", "measures", "mistake_bound",
           "optimality_notes", "timed"]

BOUND_CELLS = 200_000
"""The Novikoff bound (a QP) is reported only for data up to this many matrix cells."""


def timed(work) -> tuple[float, float, tuple[str, ...]]:
    """Run `work`: (seconds outside Numba's compiler, seconds inside it, warnings as notes).

    Numba's event API times its compiler: ``numba:compiler_lock`` spans every compilation
    and every load from the cache, nested calls counted once. A first run spends seconds
    compiling loops that then run in milliseconds (10 averaged-perceptron epochs on a9a
    take 20 ms), so a fit time that includes the compiler says nothing about the algorithm.
    """
    from numba.core.event import TimingListener, install_listener

    compiling = TimingListener()
    # a ConvergenceWarning is the expected outcome on non-separable data such as a9a:
    # it belongs in the report, not in a Python warning dump
    with _output.caught_warnings() as notes, \
            install_listener("numba:compiler_lock", compiling):
        start = time.perf_counter()
        work()
        seconds = time.perf_counter() - start
    compile_seconds = compiling.duration if compiling.done else 0.0
    return max(seconds - compile_seconds, 0.0), compile_seconds, tuple(notes)


@dataclasses.dataclass(frozen=True)
class Measures:
    """How a model does on one data set: a classifier's accuracy, or a regression model's
    R^2, root mean squared and mean absolute residual."""

    accuracy: float | None = None
    r2: float | None = None
    rmse: float | None = None
    mae: float | None = None

    @classmethod
    def of_score(cls, score: float, *, regression: bool) -> Measures:
        """From an estimator's ``score``: R^2 for a regression model, else accuracy."""
        return cls(r2=score) if regression else cls(accuracy=score)

    @classmethod
    def of_stream(cls, found) -> Measures:
        """From :func:`halfspaces.io.evaluate_stream`'s counts or residuals."""
        if hasattr(found, "r2"):
            return cls(r2=found.r2, rmse=found.rmse, mae=found.mae)
        return cls(accuracy=found.accuracy)


def measures(estimator, X, y, *, regression: bool) -> Measures:
    """:class:`Measures` of `estimator` on (X, y)."""
    if not regression:
        return Measures(accuracy=accuracy(estimator, X, y))
    import numpy as np

    residuals = np.asarray(y, dtype=np.float64) - estimator.predict(X)
    return Measures(r2=float(estimator.score(X, y)),
                    rmse=float(np.sqrt(np.mean(residuals ** 2))),
                    mae=float(np.mean(np.abs(residuals))))


def optimality_notes(estimator, notes=()) -> tuple[str, ...]:
    """A note for a 0-1 MILP stopped before it proved its model optimal (it looked exactly
    like an optimal one in fit's table and --json), or for a convex fit whose certified
    duality gap is inf. None where Ctrl-C stopped the MILP: the fit's own note (among
    `notes`) says so, with the gap."""
    import numpy as np

    optimal = getattr(estimator, "optimal_", None)
    if optimal is None:
        return _gap_notes(estimator)
    if np.all(optimal) or any(n.startswith("interrupted:") for n in notes):
        return ()
    gap = float(np.max(estimator.gap_))
    return (f"{type(estimator).__name__} stopped before proving its 0-1 error minimal "
            f"(time_limit or node_limit): the best model found, within a relative gap of "
            f"{gap:.3g} of the optimum; raise --param time_limit=... to prove it",)


def _gap_notes(estimator) -> tuple[str, ...]:
    """A note for a convex fit whose certified duality gap is inf (alpha = 0): its gap
    field is empty, and this says why and what gives one."""
    import math

    gap = getattr(estimator, "gap_", None)
    if gap is None or not math.isinf(gap):
        return ()
    return (f"{type(estimator).__name__}'s duality gap is inf: without a penalty (alpha = 0) "
            "no dual point certifies the fit (nor, for least squares, when X is rank "
            "deficient); give --param alpha=... for a certified bound on J - J*",)


def accuracy(estimator, X, y) -> float:
    """``estimator.score(X, y)``, without importing ``sklearn.metrics`` for labels in one column.

    ``score`` is scikit-learn's ``accuracy_score``, whose module imports ``scipy.stats``
    (0.55 s, which the command line otherwise defers). For one column of class labels it is
    the mean of ``y == predict(X)``, after the checks repeated here: both sides binary or
    multiclass, not strings mixed with numbers. The mean of zeros and ones is a whole
    number divided by n, so both ways give the same float. Anything else goes to ``score``.
    """
    import numpy as np
    from sklearn.utils.multiclass import type_of_target, unique_labels

    predicted, y = estimator.predict(X), np.asarray(y)
    types = {type_of_target(y, input_name="y_true"), type_of_target(predicted)}
    if y.ndim != 1 or y.shape != predicted.shape or not types <= {"binary", "multiclass"}:
        return float(estimator.score(X, y))
    unique_labels(y, predicted)  # refuses strings mixed with numbers, as accuracy_score does
    return float(np.mean(y == predicted))


def mistake_bound(model: str, estimator, X, y) -> tuple[float | None, tuple[str, ...]]:
    """Novikoff's bound when it is cheap (perceptron family, two classes, small data), and
    a note when it could not be computed for another reason than non-separable data.

    An optional field never aborts a fit: a failure of the LP behind it (or anything else)
    leaves the field empty and says why in the report's notes.
    """
    import numpy as np

    if model not in PERCEPTRON_FAMILY or len(estimator.classes_) != 2:
        return None, ()
    if X.shape[0] * X.shape[1] > BOUND_CELLS:
        return None, ()
    from halfspaces.exceptions import NotSeparableError
    from halfspaces.theory import perceptron_mistake_bound

    try:
        bound = perceptron_mistake_bound(X, y, fit_intercept=estimator.fit_intercept)
    except NotSeparableError:  # no finite bound exists: the field's documented None
        return None, ()
    except Exception as exc:  # noqa: BLE001 (reported, not hidden)
        return None, (f"mistake_bound not computed: {type(exc).__name__}: {exc}",)
    return (float(bound), ()) if np.isfinite(bound) else (None, ())
