"""``class_weight`` in model files: None, "balanced" and dicts keyed by the labels (ints,
floats, strings, NumPy scalars) come back as they were, key types included, for every
estimator that takes one; damaged or hostile values are refused naming the parameter."""

from __future__ import annotations

import inspect
import io
import json
import zipfile

import numpy as np
import pytest
from sklearn.base import BaseEstimator

import halfspaces
from halfspaces.io.model import ModelFileError

META = "__halfspaces__.npy"


def weighted_classes():
    """Every exported estimator with a class_weight parameter (more gain one over time)."""
    classes = (getattr(halfspaces, name) for name in halfspaces.__all__)
    return [c for c in classes if inspect.isclass(c) and issubclass(c, BaseEstimator)
            and "class_weight" in c().get_params()]


def separable(labels):
    """Two clusters far apart (every estimator fits them quickly), labelled `labels`."""
    rng = np.random.default_rng(0)
    X = np.vstack([rng.normal(-3.0, 0.3, (10, 2)), rng.normal(3.0, 0.3, (10, 2))])
    return X, np.repeat(np.asarray(labels), 10)


CASES = {
    "none": (None, [0, 1]),
    "balanced": ("balanced", [0, 1]),
    "int keys": ({0: 2.0, 1: 0.5}, [0, 1]),
    "int weights": ({0: 3, 1: 1}, [0, 1]),
    "float keys": ({-1.0: 1.5, 1.0: 4.0}, [-1.0, 1.0]),
    "string keys": ({"spam": 0.25}, ["ham", "spam"]),
    "numpy keys": ({np.int64(7): 2.0}, np.array([3, 7])),
}


def key_types(mapping):
    return None if not isinstance(mapping, dict) else {repr(k): type(k) for k in mapping}


def test_some_estimators_take_a_class_weight():
    names = {c.__name__ for c in weighted_classes()}
    assert {"LinearProgramClassifier", "MaxMarginClassifier", "ZeroOneERMClassifier"} <= names


@pytest.mark.parametrize("case", sorted(CASES))
@pytest.mark.parametrize("cls", weighted_classes(), ids=lambda c: c.__name__)
def test_class_weight_round_trips(cls, case, tmp_path):
    class_weight, labels = CASES[case]
    X, y = separable(labels)
    model = cls(class_weight=class_weight).fit(X, y)
    loaded = halfspaces.load(halfspaces.save(model, tmp_path / "m.hs"))
    assert loaded.class_weight == class_weight
    assert key_types(loaded.class_weight) == key_types(class_weight)
    np.testing.assert_array_equal(loaded.predict(X), model.predict(X))
    unfitted = halfspaces.load(halfspaces.save(cls(class_weight=class_weight),
                                               tmp_path / "u.hs"))
    assert unfitted.class_weight == class_weight


def test_a_dict_with_other_keys_is_refused_when_saving(tmp_path):
    model = halfspaces.ZeroOneERMClassifier(class_weight={(0, 1): 1.0})
    with pytest.raises(ModelFileError, match="class_weight.*key of type tuple"):
        halfspaces.save(model, tmp_path / "m.hs")


def rewritten(tmp_path, class_weight_json, fitted=True):
    """A saved ZeroOneERMClassifier whose class_weight JSON is replaced."""
    X, y = separable([0, 1])
    model = halfspaces.ZeroOneERMClassifier()
    path = halfspaces.save(model.fit(X, y) if fitted else model, tmp_path / "m.hs")
    with zipfile.ZipFile(path) as archive:
        members = {name: archive.read(name) for name in archive.namelist()}
    document = json.loads(np.load(io.BytesIO(members[META])).tobytes())
    document["params"]["class_weight"] = class_weight_json
    out = io.BytesIO()
    np.lib.format.write_array(out, np.frombuffer(json.dumps(document).encode(), np.uint8))
    members[META] = out.getvalue()
    with zipfile.ZipFile(path, "w") as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return path


@pytest.mark.parametrize("value, match", [
    ({"$pairs": [[0, -1.0]]}, "'class_weight' gives label 0 the weight -1.0"),
    ({"$pairs": [[0, {"$float": "nan"}]]}, "'class_weight' gives label 0 the weight nan"),
    ({"$pairs": [[1, {"$float": "inf"}]]}, "'class_weight' gives label 1 the weight inf"),
    ({"$pairs": [[0, "heavy"]]}, "'class_weight' gives label 0 the weight 'heavy'"),
    ({"$pairs": [[0, True]]}, None),  # a bool is an int to scikit-learn too: loads
    ({"$pairs": [[5, 1.0]]}, r"'class_weight' names \[5\], which are not among classes_"),
    ({"$dict": {"0": 1.0}}, r"'class_weight' names \['0'\]"),  # "0" is not the label 0
    ({"$pairs": [[{"$list": []}, 1.0]]}, "a \\$pairs key of type list"),
    ({"$pairs": [[0, 1.0], [0, 2.0]]}, "a \\$pairs key 0 given twice"),
    ({"$pairs": [[0]]}, "not a list of \\[key, value\\] pairs"),
    ({"$pairs": {"0": 1.0}}, "not a list of \\[key, value\\] pairs"),
    ("heavy", "class_weight"),
    (3, "class_weight"),
])
def test_hostile_class_weights_are_refused_by_name(tmp_path, value, match):
    path = rewritten(tmp_path, value)
    if match is None:
        assert halfspaces.load(path).class_weight == {0: True}
        return
    with pytest.raises(ModelFileError, match=match) as caught:
        halfspaces.load(path)
    assert str(path) in str(caught.value)


def test_an_unfitted_model_names_any_label(tmp_path):
    # no classes_ to check the labels against: fit will
    path = rewritten(tmp_path, {"$pairs": [[5, 1.0]]}, fitted=False)
    assert halfspaces.load(path).class_weight == {5: 1.0}


def test_files_with_a_class_weight_name_the_format_version_that_added_it(tmp_path):
    # an older halfspaces reads version 2 and calls version 3 "newer", not "corrupt"
    path = halfspaces.save(halfspaces.ZeroOneERMClassifier(), tmp_path / "m.hs")
    with zipfile.ZipFile(path) as archive:
        document = json.loads(np.load(io.BytesIO(archive.read(META))).tobytes())
    assert document["version"] == 3
