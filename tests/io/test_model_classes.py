"""classes_ in model files: what a loaded model predicts is, bit for bit, what the saved one
predicted; a crafted classes_ is a ModelFileError that names it.

The oracle of the round trips is the model before saving (its predictions' bytes and dtype,
so -0.0 stays -0.0 and float32 stays float32). The crafted files change only classes_ of a
real saved model, one way each.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from sklearn.base import is_classifier
from test_hostile_model import FAST, clusters, estimator_classes, refused, rewrite_array

import halfspaces

CLASSIFIERS = [c for c in estimator_classes() if is_classifier(c())]


def fit_quietly(model, X, y):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return model.fit(X, y)


def numeric_clusters(n_classes, labels):
    X, names = clusters(n_classes)
    return X, np.asarray(labels)[np.searchsorted(["ant", "bee", "cat"], names)]


LABELS = {
    "float64 with -0.0": np.array([-0.0, 2.0, 7.0]),
    "float32": np.array([-3.0, 0.0, 2.0**30], dtype=np.float32),
    "float16": np.array([-2.0, -0.0, 2048.0], dtype=np.float16),
    "uint64 beyond 2**63": np.array([2**64 - 5, 2**64 - 3, 2**64 - 1], dtype=np.uint64),
    "int64 beyond 2**53": np.array([-(2**62), 2**53, 2**53 + 1]),
    "bool": np.array([False, True]),
    "str": np.array(["", "b", "ü"]),
}


CASES = {f"{name}-{k}": labels[:k] for name, labels in LABELS.items() for k in (2, 3)
         if k <= np.unique(labels).size}


@pytest.mark.parametrize("labels", CASES.values(), ids=CASES.keys())
@pytest.mark.parametrize("cls", CLASSIFIERS, ids=lambda c: c.__name__)
def test_a_loaded_model_predicts_the_same_labels_bit_for_bit(cls, labels, tmp_path):
    X, y = numeric_clusters(labels.size, labels)
    model = fit_quietly(cls(**FAST.get(cls.__name__, {})), X, y)
    loaded = halfspaces.load(halfspaces.save(model, tmp_path / "m"))
    # y's own dtype, as scikit-learn keeps it (np.unique); binary models held float64 or
    # int64, so a model file could not give back y's dtype
    assert model.classes_.dtype == np.unique(y).dtype
    assert loaded.classes_.dtype == model.classes_.dtype
    assert loaded.classes_.tobytes() == model.classes_.tobytes()
    before, after = model.predict(X), loaded.predict(X)
    assert after.dtype == before.dtype and after.tobytes() == before.tobytes()
    assert set(after.tolist()) <= set(y.tolist())


def with_first(value):
    def change(a):
        a = a.copy()
        a[0] = value
        return a
    return change


CRAFTED = {
    "nan": with_first(np.nan),
    "inf": lambda a: np.append(a[:-1], np.inf),
    "a repeat": lambda a: np.append(a[:-1], a[-2]),
    "unsorted": lambda a: a[::-1].copy(),
    "-0.0 and 0.0": lambda a: np.concatenate([[-0.0, 0.0], a[2:] + 1]),
    "not integers": lambda a: a + 0.5,
    "one more": lambda a: np.append(a, a[-1] + 1),
    "one fewer": lambda a: a[:-1],
}


@pytest.fixture(scope="module")
def saved_numeric(tmp_path_factory):
    folder = tmp_path_factory.mktemp("numeric")
    files = {}
    for cls in CLASSIFIERS:
        for k in (2, 3):
            X, y = numeric_clusters(k, [1.0, 4.0, 9.0][:k])
            model = fit_quietly(cls(**FAST.get(cls.__name__, {})), X, y)
            files[cls.__name__, k] = halfspaces.save(model, folder / f"{cls.__name__}-{k}")
    return files


@pytest.mark.parametrize("change", CRAFTED.values(), ids=CRAFTED.keys())
@pytest.mark.parametrize("n_classes", [2, 3])
@pytest.mark.parametrize("cls", CLASSIFIERS, ids=lambda c: c.__name__)
def test_a_crafted_classes_is_a_model_file_error_naming_it(saved_numeric, cls, n_classes,
                                                           change, tmp_path):
    # non-integral classes loaded and predicted labels no fit can make; a classes_ one
    # label longer or shorter than the weights was reported as a coef_ (or alpha_) of the
    # wrong size, without naming classes_
    path = tmp_path / "m.hs"
    rewrite_array(saved_numeric[cls.__name__, n_classes].read_bytes(), path,
                  ("state", "classes_", "$array"), change)
    message = refused(path)
    assert "classes_" in message.replace(str(path), "")  # the path names the test


@pytest.mark.parametrize("cls", CLASSIFIERS, ids=lambda c: c.__name__)
def test_a_file_with_the_widened_classes_of_older_versions_still_loads(cls, tmp_path):
    # before classes_ kept y's dtype, uint8 labels of a binary model were saved as int64
    # classes: such a file loads, and predicts the same labels in that dtype
    X, y = numeric_clusters(2, np.array([3, 200], dtype=np.uint8))
    model = fit_quietly(cls(**FAST.get(cls.__name__, {})), X, y)
    path = tmp_path / "old.hs"
    rewrite_array(halfspaces.save(model, tmp_path / "m").read_bytes(), path,
                  ("state", "classes_", "$array"), lambda a: a.astype(np.int64))
    loaded = halfspaces.load(path)
    assert loaded.classes_.dtype == np.int64
    assert loaded.predict(X).tolist() == model.predict(X).tolist()
