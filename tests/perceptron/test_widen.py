"""Perceptron.widen: training on after widening equals training at full width from the start."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from _model_equality import assert_same_model
from sklearn.exceptions import NotFittedError

import halfspaces
from halfspaces import AveragedPerceptron, Perceptron, PocketPerceptron, VotedPerceptron

ALL = [Perceptron, AveragedPerceptron, VotedPerceptron, PocketPerceptron]


def batches(n_classes, seed=0):
    """Two batches over 9 features; the first uses only features 2-5."""
    rng = np.random.default_rng(seed)
    X = np.round(rng.normal(size=(240, 9)) * (rng.random((240, 9)) < 0.6), 2)
    X[:120, :2] = 0.0
    X[:120, 6:] = 0.0
    y = rng.integers(0, n_classes, 240) * 3 - 1  # labels -1, 2, 5
    return (X[:120], y[:120]), (X[120:], y[120:])


@pytest.mark.parametrize("cls", ALL, ids=lambda c: c.__name__)
@pytest.mark.parametrize("layout", ["dense64", "dense32", "csr"])
@pytest.mark.parametrize("n_classes", [2, 3])
def test_widen_then_train_equals_full_width_run(cls, layout, n_classes):
    """Fitted on features 2-5 only, widened to 9 with offset 2, then trained on: the same
    model, bit for bit, as the one trained on all 9 columns from the start."""
    (X1, y1), (X2, y2) = batches(n_classes)

    def form(X):
        if layout == "csr":
            return sp.csr_matrix(X)
        return X.astype(np.float32 if layout == "dense32" else np.float64)

    classes = np.unique(np.concatenate([y1, y2]))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        narrow = cls().partial_fit(form(X1[:, 2:6]), y1, classes=classes)
        narrow.widen(9, offset=2)
        assert narrow.n_features_in_ == 9
        narrow.partial_fit(form(X2), y2)
        full = cls().partial_fit(form(X1), y1, classes=classes).partial_fit(form(X2), y2)
    assert_same_model(full, narrow)


@pytest.mark.parametrize("cls", ALL, ids=lambda c: c.__name__)
def test_widened_weights_and_model_file(cls, tmp_path):
    """Old weights move to their new columns, new columns are zero, and the widened model
    is a valid model file (every attribute passes the loader's checks)."""
    (X1, y1), _ = batches(2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = cls().partial_fit(sp.csr_matrix(X1[:, 2:6]), y1)
    before = model.coef_.copy()
    model.widen(7, offset=1)
    assert model.coef_.shape == (1, 7)
    assert np.array_equal(model.coef_[:, 1:5], before)
    assert not model.coef_[:, [0, 5, 6]].any()
    halfspaces.save(model, tmp_path / "m.hs")
    loaded = halfspaces.load(tmp_path / "m.hs")
    assert_same_model(model, loaded)
    X = np.zeros((3, 7))
    X[:, 1:5] = X1[:3, 2:6]
    assert np.array_equal(loaded.decision_function(X), model.decision_function(X))


def test_widen_refuses_what_it_cannot_do():
    model = Perceptron()
    with pytest.raises(NotFittedError):
        model.widen(3)
    model.partial_fit([[1.0, 0.0], [0.0, 1.0]], [1, -1])
    with pytest.raises(ValueError, match=r"n_features >= 2 \+ offset"):
        model.widen(2, offset=1)
    with pytest.raises(ValueError, match="offset >= 0"):
        model.widen(3, offset=-1)
    named = Perceptron().partial_fit(pd.DataFrame({"a": [1.0, -1.0]}), [1, -1])
    with pytest.raises(ValueError, match="feature names"):
        named.widen(2)
    assert model.n_features_in_ == 2 and named.n_features_in_ == 1


@pytest.mark.parametrize("cls", ALL, ids=lambda c: c.__name__)
def test_a_widen_that_runs_out_of_memory_leaves_the_model_as_it_was(cls, monkeypatch):
    # widen replaced the states' arrays one by one: a MemoryError on the third left two
    # states wider than the third and than n_features_in_, a model that neither predicted
    # nor continued; the oracle is the same sequence without the failed widen
    from halfspaces import perceptron
    from halfspaces._perceptron import widen as widen_module

    rng = np.random.default_rng(4)
    X, y = rng.normal(size=(40, 3)), rng.integers(0, 3, size=40)
    model, twin = cls(random_state=0), cls(random_state=0)
    for m in (model, twin):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            m.partial_fit(X, y, classes=[0, 1, 2])
    calls = []
    real = perceptron.widened

    def failing(*args, **kwargs):
        calls.append(1)
        if len(calls) == 3:
            raise MemoryError("simulated")
        return real(*args, **kwargs)

    monkeypatch.setattr(perceptron, "widened", failing)  # the voted perceptron's rows
    monkeypatch.setattr(widen_module, "widened", failing)  # the states and coef_
    with pytest.raises(MemoryError):
        model.widen(5, offset=1)
    monkeypatch.undo()
    assert model.n_features_in_ == 3
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for m in (model, twin):
            m.partial_fit(X[::-1], y[::-1])
    assert_same_model(model, twin)
    assert np.array_equal(model.widen(5, offset=1).decision_function(np.ones((2, 5))),
                          twin.widen(5, offset=1).decision_function(np.ones((2, 5))))
