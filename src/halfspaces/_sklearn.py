"""The one place that imports scikit-learn's private names.

scikit-learn keeps these under underscore modules (``sklearn.base._fit_context``,
``sklearn.utils._param_validation``, ``sklearn.linear_model._base``), which a release may
move; a move is then a fix in this file alone (the pattern of imbalanced-learn's
``utils/_sklearn_compat.py``). Everything else in halfspaces imports them from here.
"""

from __future__ import annotations

from numbers import Integral

from sklearn.base import _fit_context
from sklearn.linear_model._base import LinearClassifierMixin as _LinearClassifierMixin
from sklearn.utils._param_validation import Interval, StrOptions, validate_params

from halfspaces._validation import check_sparse_structure

__all__ = ["IntegerInterval", "Interval", "LinearClassifierMixin", "StrOptions", "check_params",
           "fit_context", "validate_params"]


class LinearClassifierMixin(_LinearClassifierMixin):
    """scikit-learn's mixin (predict, decision_function, score from ``coef_``/``intercept_``),
    with sparse input's structure checked before SciPy's unchecked product reads it."""

    def decision_function(self, X):
        return super().decision_function(check_sparse_structure(X))


class IntegerInterval(Interval):
    """scikit-learn's ``Interval(Integral, left, right, closed=...)`` that refuses bools.

    Python counts ``True`` as the Integral 1, so scikit-learn's interval accepts it; where a
    count or a dimension is asked for, ``True`` is a slip (a flag passed in the wrong place)
    and fails with the parameter's name instead.
    """

    def __init__(self, left, right, *, closed):
        super().__init__(Integral, left, right, closed=closed)

    def is_satisfied_by(self, val):
        return not isinstance(val, bool) and super().is_satisfied_by(val)


def fit_context(method):
    """Validate the estimator's declared parameters before ``method`` runs.

    scikit-learn's ``_fit_context``: the parameters are checked against
    ``_parameter_constraints`` on every ``fit``, and on the first ``partial_fit`` only (a
    fitted estimator's later ``partial_fit`` calls skip the check, as scikit-learn's own do).
    Nested estimators are not re-validated.
    """
    return _fit_context(prefer_skip_nested_validation=True)(method)


def check_params(estimator) -> None:
    """Check `estimator`'s parameters against its ``_parameter_constraints``.

    scikit-learn's ``BaseEstimator._validate_params`` (what :func:`fit_context` runs before
    ``fit``), for callers that build an estimator from stored parameters, e.g.
    :func:`halfspaces.load`; raises scikit-learn's InvalidParameterError (a ValueError).
    """
    estimator._validate_params()
