"""The one place that imports scikit-learn's private names.

scikit-learn keeps these under underscore modules (``sklearn.base._fit_context``,
``sklearn.utils._param_validation``), which a release may move; a move is then a fix in
this file alone (the pattern of imbalanced-learn's ``utils/_sklearn_compat.py``). Everything
else in halfspaces imports them from here, and the classes built on scikit-learn's
(``BaseEstimator``, ``LinearClassifierMixin``, the intervals) are defined here too.
"""

from __future__ import annotations

import ctypes
import sys
import weakref
from functools import cache, wraps
from numbers import Integral, Real

import numpy as np
import sklearn.base
from sklearn import get_config
from sklearn.base import ClassifierMixin, _fit_context
from sklearn.utils._param_validation import (
    Interval,
    StrOptions,
    make_constraint,
    validate_params,
)
from sklearn.utils.extmath import safe_sparse_dot
from sklearn.utils.validation import check_is_fitted, validate_data

from halfspaces._validation import check_sparse_structure, refuse_dask

__all__ = ["CLASS_WEIGHT", "BaseEstimator", "FloatInterval", "IntegerInterval", "Interval",
           "LinearClassifierMixin", "StrOptions", "check_params", "fit_context",
           "validate_params"]

# The declared constraint of every classifier's ``class_weight`` parameter (the weights
# themselves: halfspaces._validation.row_weights).
CLASS_WEIGHT = [dict, StrOptions({"balanced"}), None]


class BaseEstimator(sklearn.base.BaseEstimator):
    """scikit-learn's ``BaseEstimator``, with each class's parameter names read once.

    scikit-learn reads them from ``inspect.signature(cls.__init__)`` on every
    ``get_params``, and so on every ``fit`` (the parameter check) and ``clone``: 0.08 ms a
    call, 2% of a one-epoch perceptron fit on a9a. A class's ``__init__`` does not change,
    so neither do its names.
    """

    @classmethod
    def _get_param_names(cls) -> list[str]:
        return list(_param_names(cls))


@cache
def _param_names(cls: type) -> tuple[str, ...]:
    return tuple(super(BaseEstimator, cls)._get_param_names())


class LinearClassifierMixin(ClassifierMixin):
    """``predict``, ``decision_function`` and ``score`` from ``coef_``, ``intercept_`` and
    ``classes_``, as scikit-learn's ``LinearClassifierMixin`` gives them for NumPy and
    SciPy input, written with scikit-learn's public validation; sparse input's structure is
    checked before SciPy's unchecked product reads it, and dask collections are refused
    (:func:`halfspaces._validation.refuse_dask`).

    Not scikit-learn's own class (``sklearn.linear_model._base``): importing it imports
    158 more modules (``sklearn.metrics``, ``sklearn.model_selection``, ``sklearn.svm``,
    Rich), and ``import halfspaces.perceptron`` took 2.26 s instead of 2.07 s (medians of
    11 fresh processes); the command line would load what it defers
    (``halfspaces.cli._process.lazy``). The estimators hold NumPy arrays, so scikit-learn's
    array-API dispatch, the rest of its version, has nothing to do here.
    """

    def decision_function(self, X):
        """Signed scores <w, x> + b of each sample (one column per class beyond two).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            The samples; a CSR matrix's structure is checked first, and dask collections
            are refused (:mod:`halfspaces.dask` takes them).

        Returns
        -------
        scores : ndarray of shape (n_samples,) or (n_samples, n_classes)
            A positive score predicts ``classes_[1]`` in the binary case; beyond two
            classes the largest score wins.
        """
        refuse_dask(type(self).__name__, X=X)
        X = check_sparse_structure(X)
        check_is_fitted(self)
        X = validate_data(self, X, accept_sparse="csr", reset=False)
        coef_T = self.coef_.T if self.coef_.ndim == 2 else self.coef_
        scores = safe_sparse_dot(X, coef_T, dense_output=True) + self.intercept_
        return scores.reshape(-1) if scores.ndim > 1 and scores.shape[1] == 1 else scores

    def predict(self, X):
        """The class of each sample: ``classes_[1]`` where the score is positive (two
        classes), the class of the largest score (more).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            The samples.

        Returns
        -------
        y_pred : ndarray of shape (n_samples,)
            The predicted labels, taken from ``classes_``.
        """
        scores = self.decision_function(X)
        indices = (scores > 0).astype(np.intp) if scores.ndim == 1 else scores.argmax(axis=1)
        return np.take(self.classes_, indices, axis=0)


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


class FloatInterval(Interval):
    """scikit-learn's ``Interval(Real, left, right, closed=...)`` for a parameter that the
    numeric code reads as a float64: a number that float64 cannot hold is refused.

    A Python int is Real at any size, so scikit-learn's interval accepts ``10**400``, which
    the first ``float()`` or NumPy operation on it then fails on, deep inside a fit or a
    prediction (an OverflowError, or NumPy's object-dtype "no callable sqrt"); refused
    here, it fails with the parameter's name. Ints within range are read with ``float()``
    where the value reaches NumPy or a compiled loop.
    """

    def __init__(self, left, right, *, closed):
        super().__init__(Real, left, right, closed=closed)

    def is_satisfied_by(self, val):
        if not super().is_satisfied_by(val):
            return False
        try:
            float(val)
        except OverflowError:  # an int (or Fraction) beyond 1.8e308
            return False
        return True

    def __str__(self):
        return f"{super().__str__()} that a float64 can hold"


def fit_context(method):
    """Validate the estimator's declared parameters before ``method`` runs, and leave the
    estimator as it was when ``method`` raises.

    scikit-learn's ``_fit_context``: the parameters are checked against
    ``_parameter_constraints`` before every ``fit`` and ``partial_fit``. (scikit-learn
    checks only a fitted estimator's first ``partial_fit``: values set with ``set_params``
    later reached the loops, and batch_size=0 failed as "range() arg 3 must not be zero",
    eta0=-1 climbed the loss silently.) Nested estimators are not re-validated.

    A call that raises (a refused input, a memory refusal, KeyboardInterrupt) gets back the
    attributes the estimator had before it: scikit-learn's validation sets
    ``n_features_in_`` before the labels or the memory are checked, and a model whose
    ``n_features_in_`` no longer matched its weights let the next ``partial_fit`` run the
    compiled loops beyond them (a segfault). The attributes are taken back as objects
    (a shallow copy of ``vars``), so this relies on the fits replacing their fitted arrays
    rather than writing into them, as they all do (the perceptron runs work on a copy of
    their state, the SGD epochs on copies of the iterates). The random generators are the
    exception, advanced in place by every draw: LogisticRegression's ``_rng`` (sgd,
    minibatch), and a RandomState given as ``random_state``, which the shuffling fits draw
    from. Their states are taken back too, so that a call that failed after a draw (a
    divergence, a NaN row met in the first epoch, KeyboardInterrupt) leaves no trace: the
    next call is the one it would have been without it.
    """
    checked = _fit_context(prefer_skip_nested_validation=True)(method)
    continues = method.__name__ == "partial_fit"

    @wraps(method)
    def wrapper(estimator, *args, **kwargs):
        if continues and not get_config()["skip_parameter_validation"]:
            check_params(estimator)
        before = dict(vars(estimator))
        draws = _generator_states(before.values())
        try:
            return checked(estimator, *args, **kwargs)
        except BaseException:
            _restore(estimator, before, draws)
            raise

    return wrapper


def _generator_states(values) -> list[tuple]:
    """(generator, a copy of its state) for each NumPy random generator among `values`."""
    states = []
    shared = np.random.random.__self__  # NumPy's global RandomState (random_state=None)
    for value in values:
        if value is shared:
            # not ours to rewind: other code (other threads) draws from it too, and a run
            # with random_state=None is not meant to be repeatable
            continue
        if isinstance(value, np.random.RandomState):
            states.append((value, _mt_bytes(value) or value.get_state(legacy=False)))
        elif isinstance(value, np.random.Generator):
            states.append((value.bit_generator, value.bit_generator.state))
    return states


def _restore(estimator, before: dict, draws: list[tuple]) -> None:
    """Give `estimator` back the attributes `before` (a copy of its ``vars``), and its
    generators the states `draws`."""
    now = vars(estimator)
    for key in now.keys() - before.keys():
        del now[key]
    now.update(before)
    for generator, state in draws:
        if isinstance(state, bytes):
            ctypes.memmove(generator._bit_generator.ctypes.state_address, state, len(state))
        elif isinstance(generator, np.random.RandomState):
            generator.set_state(state)
        else:
            generator.state = state


# A RandomState's Mersenne Twister state, 624 uint32 keys then an int position, as bytes.
_MT_SIZE = 624 * 4 + 4


def _mt_bytes(rng: np.random.RandomState) -> bytes | None:
    """The bytes of `rng`'s Mersenne Twister state, or None where they cannot be read.

    NumPy's public ``get_state`` copies the 624 keys one Python step at a time, paid on
    every call: 43-64 us more a ``partial_fit`` on 100 x 10 rows than these bytes (6-11%
    of a LogisticRegression(solver="sgd") or a shuffling Perceptron with a RandomState, CPU
    time, medians of 15 interleaved rounds), more than the 5% a refactoring may cost; the
    state's bytes, read through the bit generator's public ctypes interface, take 1.5 us.
    The one private step is ``RandomState._bit_generator`` (read with ``getattr``, so its
    absence falls back to ``get_state``). The fits draw only permutations, which leave
    RandomState's cached Gaussian (outside these bytes) alone. Used only where the layout
    is checked against ``get_state``.
    """
    bit_generator = getattr(rng, "_bit_generator", None)
    if type(bit_generator) is not np.random.MT19937 or not _mt_layout_is_known():
        return None
    return ctypes.string_at(bit_generator.ctypes.state_address, _MT_SIZE)


@cache
def _mt_layout_is_known() -> bool:
    """Whether a RandomState's state bytes hold its ``get_state`` keys and position."""
    rng = np.random.RandomState(12345)
    rng.permutation(7)
    bit_generator = getattr(rng, "_bit_generator", None)
    if type(bit_generator) is not np.random.MT19937:
        return False
    raw = ctypes.string_at(bit_generator.ctypes.state_address, _MT_SIZE)
    _, keys, pos, *_ = rng.get_state(legacy=True)
    return (raw[:-4] == keys.astype("=u4").tobytes()
            and int.from_bytes(raw[-4:], sys.byteorder, signed=True) == pos)


def check_params(estimator) -> None:
    """Check `estimator`'s parameters against its ``_parameter_constraints``.

    What scikit-learn's ``BaseEstimator._validate_params`` checks (and on a failure, its
    InvalidParameterError, a ValueError naming the parameter), for :func:`fit_context`
    and for callers that build an estimator from stored parameters
    (:func:`halfspaces.load`). ``partial_fit`` runs it on every call: scikit-learn's check
    costs 70 us (it makes its constraint objects each time), 10% of a LogisticRegression
    partial_fit on 100 rows; with the objects made once per class 35 us, and an estimator
    whose parameters are the very objects that passed last time skips it (2 us).
    """
    names = estimator._get_param_names()
    values = [getattr(estimator, name) for name in names]
    passed = _PASSED.get(estimator)
    if passed is not None and len(passed) == len(values) \
            and all(a is b for a, b in zip(passed, values, strict=True)):
        return
    constraints = _constraints(type(estimator))
    for name, value in zip(names, values, strict=True):
        options = constraints.get(name, ())
        if options and not any(option.is_satisfied_by(value) for option in options):
            estimator._validate_params()  # raises scikit-learn's message
    _PASSED[estimator] = values


# estimator -> the parameter values (the objects) that last passed check_params
_PASSED: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


@cache
def _constraints(cls: type) -> dict[str, tuple]:
    """The constraint objects of `cls`'s parameters (none for "no_validation")."""
    return {name: tuple(map(make_constraint, options))
            for name, options in cls._parameter_constraints.items()
            if options != "no_validation"}
