"""A fit or partial_fit that raises leaves no trace: what follows it is, bit for bit, what
would have followed without it.

fit_context gives back the attributes; the random generators, advanced in place by every
draw, get their states back too. For every estimator class of the registry, in a
configuration that continues (warm_start, partial_fit) and draws (a RandomState shared by
the calls, selection="shuffle", SGD), the oracle is the same sequence of calls without the
failed one, on a twin built from the same seed.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from _model_equality import assert_same_model
from sklearn.base import is_regressor

import halfspaces
from halfspaces._registry import ESTIMATORS
from halfspaces._utils.progress import listen

SHUFFLED = {"selection": "shuffle", "max_epochs": 3, "warm_start": True}
CONFIGS = {
    "Perceptron": SHUFFLED, "AveragedPerceptron": SHUFFLED, "VotedPerceptron": SHUFFLED,
    "PocketPerceptron": SHUFFLED,
    "KernelPerceptron": {**SHUFFLED, "kernel": "rbf"},
    "VotedKernelPerceptron": {**SHUFFLED, "kernel": "rbf"},
    "MulticlassPerceptron": {"selection": "shuffle", "max_epochs": 3},
    "LogisticRegression": {"solver": "sgd", "max_iter": 3, "warm_start": True,
                           "learning_rate": "invscaling"},
    "LinearRegression": {"solver": "sgd", "max_iter": 3, "warm_start": True},
    "LinearProgramClassifier": {}, "MaxMarginClassifier": {},
    "ZeroOneERMClassifier": {"node_limit": 1},
    "LinearSVM": {"max_iter": 3, "warm_start": True},
}
# the estimators whose loops report progress, so that a listener can interrupt them midway
REPORTING = {name for name in CONFIGS if not name.endswith("Classifier")}


def make(name):
    """The estimator, with a RandomState of its own where it takes one (the calls share it)."""
    cls = getattr(halfspaces, name)
    params = dict(CONFIGS[name])
    if "random_state" in cls().get_params():
        params["random_state"] = np.random.RandomState(7)
    return cls(**params)


def batches(name):
    """Two batches of separable blobs (labels 0, 1; a linear target for a regressor)."""
    rng = np.random.default_rng(0)
    X = np.vstack([rng.normal(-3.0, 1.0, (40, 3)), rng.normal(3.0, 1.0, (40, 3))])
    y = np.repeat([0, 1], 40)
    if is_regressor(getattr(halfspaces, name)()):
        y = X @ np.array([1.0, -0.5, 0.25])
    order = rng.permutation(80)
    X, y = X[order], y[order]
    return (X[:40], y[:40]), (X[40:], y[40:])


def interrupted(call):
    def stop(done, total):
        raise KeyboardInterrupt
    with listen(stop):
        call()


def nan_in_last_row(X):
    X = X.copy()
    X[-1, 0] = np.nan
    return X


FAILURES = {  # name -> (how the call fails, whether a regressor can fail so)
    "X of another width": (lambda call, X, y: call(np.hstack([X, X]), y), True),
    "one class": (lambda call, X, y: call(X, np.zeros_like(y), classes=[0]), False),
    "a label not in classes_": (lambda call, X, y: call(X, np.where(y == 1, 5, y)), False),
    "NaN in the last row": (lambda call, X, y: call(nan_in_last_row(X), y), True),
    "interrupted midway": (lambda call, X, y: interrupted(lambda: call(X, y)), True),
}


def cases(method):
    found = []
    for name in ESTIMATORS:
        est = make(name)
        if method == "partial_fit" and not hasattr(est, "partial_fit"):
            continue
        for failure, (_, regressor_too) in FAILURES.items():
            if (failure == "interrupted midway" and name not in REPORTING
                    or is_regressor(est) and not regressor_too
                    # fit starts afresh on any width and labels
                    or method == "fit" and failure in ("X of another width",
                                                       "a label not in classes_")):
                continue
            found.append(pytest.param(name, failure, id=f"{name}-{failure}"))
    return found


def call_with(est, method):
    def call(X, y, classes=None):
        if method == "fit":
            return est.fit(X, y)
        return est.partial_fit(X, y, classes=classes)
    return call


def run(name, method, failure=None):
    """The estimator after method(batch 1), [a failed call,] method(batch 2)."""
    (X1, y1), (X2, y2) = batches(name)
    est = make(name)
    call = call_with(est, method)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        call(X1, y1, classes=None if is_regressor(est) or method == "fit" else [0, 1])
        if failure is not None:
            fail, _ = FAILURES[failure]
            with pytest.raises((ValueError, KeyboardInterrupt)), np.errstate(all="ignore"):
                fail(call, X2, y2)
        call(X2, y2)
    return est


def test_every_estimator_of_the_registry_is_configured():
    assert set(CONFIGS) == set(ESTIMATORS)


@pytest.mark.parametrize("name, failure", cases("fit"))
def test_a_failed_fit_leaves_no_trace(name, failure):
    # a NaN row met in the first (shuffled) epoch, or an interrupt, came after a draw from
    # the RandomState given as random_state: the next fit drew other permutations
    assert_same_model(run(name, "fit", failure), run(name, "fit"))


@pytest.mark.parametrize("name, failure", cases("partial_fit"))
def test_a_failed_partial_fit_leaves_no_trace(name, failure):
    # LogisticRegression's _rng was advanced by a partial_fit interrupted after its draw
    assert_same_model(run(name, "partial_fit", failure), run(name, "partial_fit"))


@pytest.mark.parametrize("solver", ["sgd", "minibatch"])
def test_a_partial_fit_that_diverged_leaves_no_trace(solver):
    # refused after the epoch ran (FloatingPointError): the generator had drawn its order
    (X1, y1), (X2, y2) = batches("LogisticRegression")
    models = []
    for fail in (True, False):
        est = halfspaces.LogisticRegression(solver=solver, random_state=0,
                                            learning_rate="invscaling")
        est.partial_fit(X1, y1)
        if fail:
            params = est.get_params()
            est.set_params(eta0=1e308, learning_rate="constant", alpha=1.0)
            with pytest.raises(FloatingPointError, match="diverged"), \
                    np.errstate(all="ignore"):
                est.partial_fit(X2, 1 - y2)  # every row misclassified: full steps
            est.set_params(**params)
        models.append(est.partial_fit(X2, y2))
    assert_same_model(*models)


@pytest.mark.parametrize("layout_known", [True, False], ids=["state bytes", "get_state"])
@pytest.mark.parametrize("make_generator", [
    lambda: np.random.RandomState(3), lambda: np.random.default_rng(3),
    lambda: np.random.Generator(np.random.MT19937(3))], ids=["RandomState", "PCG64", "MT19937"])
def test_a_generator_gets_its_state_back_exactly(make_generator, layout_known, monkeypatch):
    # the oracle is NumPy's own state, Gaussian cache included; the draws in between are
    # permutations, the only draws of the fits
    from halfspaces import _sklearn

    monkeypatch.setattr(_sklearn, "_mt_layout_is_known", lambda: layout_known)
    rng = make_generator()
    rng.normal()  # a RandomState caches the second Gaussian of the pair
    state = (rng.get_state(legacy=False) if isinstance(rng, np.random.RandomState)
             else rng.bit_generator.state)
    saved = _sklearn._generator_states([rng, 3, "x"])
    assert [g for g, _ in saved] == [rng if isinstance(rng, np.random.RandomState)
                                     else rng.bit_generator]
    first = rng.permutation(50)
    rng.permutation(1000)
    holder = type("Holder", (), {})()
    _sklearn._restore(holder, {}, saved)
    now = (rng.get_state(legacy=False) if isinstance(rng, np.random.RandomState)
           else rng.bit_generator.state)
    assert_same_state(now, state)
    assert np.array_equal(rng.permutation(50), first)


def assert_same_state(a, b):
    assert type(a) is type(b)
    if isinstance(a, dict):
        assert a.keys() == b.keys()
        for key in a:
            assert_same_state(a[key], b[key])
    elif isinstance(a, np.ndarray):
        assert a.dtype == b.dtype and np.array_equal(a, b)
    else:
        assert a == b


def test_the_global_generator_is_not_rewound():
    # random_state=None draws from NumPy's global RandomState, which other code and other
    # threads draw from too: a failed call must not write its old state back over theirs
    # (the snapshot was restored by a raw memory copy, without the generator's lock)
    from halfspaces import _sklearn

    est = halfspaces.LogisticRegression(solver="sgd", random_state=None)
    est.partial_fit(*batches("LogisticRegression")[0])
    assert est._rng is np.random.random.__self__
    assert _sklearn._generator_states(vars(est).values()) == []
    mine = np.random.RandomState(1)
    assert [g for g, _ in _sklearn._generator_states([mine, est._rng])] == [mine]
