"""Labels are classes exactly, whatever their dtypes: never equal after a rounding.

NumPy compares uint64 with int64, and int64 beyond 2**53 with float64, in float64, where
distinct integers can be one number. The oracle is the same batch in the classes' own dtype
(exact by construction) or Python's int/float comparison, which is exact.
"""

from __future__ import annotations

import numpy as np
import pytest
from numpy.testing import assert_array_equal
from numpy.typing import NDArray
from sklearn.base import clone, is_classifier
from sklearn.linear_model import Perceptron as SklearnPerceptron
from sklearn.preprocessing import LabelEncoder
from test_estimator_checks import estimators_with_partial_fit, public_estimators

from halfspaces._validation import encode_targets

X2 = np.array([[1.0, 0.0], [-1.0, 0.0]])
BATCH = np.array([[5.0, 0.0], [-3.0, 1.0], [2.0, -1.0], [0.5, 4.0]])


def ids(estimator):
    return type(estimator).__name__


@pytest.mark.parametrize("estimator", estimators_with_partial_fit(), ids=ids)
@pytest.mark.parametrize("n_classes", [2, 3])
def test_float_labels_train_the_int64_class_they_equal_beyond_2_53(estimator, n_classes):
    # float64 2**53 and 2**53 + 2 are classes exactly; they were compared with class
    # 2**53 + 1 in float64, where it is 2**53, and trained as that class too
    classes = np.array([2**53, 2**53 + 1, 2**53 + 2][:n_classes], dtype=np.int64)
    X = np.array([[1.0, 0.0], [-1.0, 0.0], [0.0, 1.0]])[:n_classes]
    labels = classes[[0, 0, 2, 0] if n_classes == 3 else [0] * 4]
    assert labels.astype(np.float64).astype(np.int64).tolist() == labels.tolist()
    fits = [clone(estimator).partial_fit(X, classes, classes=classes).partial_fit(
        BATCH, labels.astype(dtype)) for dtype in (np.float64, np.int64)]
    assert_array_equal(fits[0].decision_function(BATCH), fits[1].decision_function(BATCH))
    assert_array_equal(fits[0].predict(BATCH), fits[1].predict(BATCH))


@pytest.mark.parametrize("estimator", estimators_with_partial_fit(), ids=ids)
@pytest.mark.parametrize("dtype", [np.float64, np.int64])
def test_labels_that_equal_no_uint64_class_exactly_are_refused(estimator, dtype):
    # float(2**63 + 1) is 2**63: neither class, yet it compared equal to both in float64
    # and trained both problems as positive
    classes = np.array([2**63 + 1, 2**63 + 3], dtype=np.uint64)
    est = clone(estimator).partial_fit(X2, classes, classes=classes)
    near = np.array([2**63 - 1] * 4, dtype=np.int64).astype(dtype)
    with pytest.raises(ValueError, match=r"^y contains labels .* not in classes_"):
        est.partial_fit(BATCH, near)


@pytest.mark.parametrize("estimator", estimators_with_partial_fit(), ids=ids)
def test_classes_that_differ_only_after_rounding_are_refused(estimator):
    classes = np.array([2**53 + 1, 2**53 + 3], dtype=np.int64)
    est = clone(estimator).partial_fit(X2, classes, classes=classes)
    rounded = np.array([2.0**53, 2.0**53 + 4])  # float64(classes) but other numbers
    assert_array_equal(rounded, classes.astype(np.float64))
    with pytest.raises(ValueError, match="differs from the classes"):
        est.partial_fit(X2, classes, classes=rounded)
    est.partial_fit(X2, classes, classes=classes[::-1].tolist())  # the same, reordered


@pytest.mark.filterwarnings("ignore::halfspaces.exceptions.ConvergenceWarning")
@pytest.mark.parametrize("estimator", [e for e in public_estimators() if is_classifier(e)],
                         ids=ids)
@pytest.mark.parametrize("classes", [[2**64 - 3, 2**64 - 1], [2**64 - 5, 2**64 - 3, 2**64 - 1],
                                     [-(2**62), 2**53, 2**53 + 1]])
def test_fit_predicts_labels_beyond_float64_precision_exactly(estimator, classes):
    # every family, fitted on labels that float64 cannot tell apart: predict gives back
    # the very training labels on data it separates
    rng = np.random.default_rng(0)
    centres = np.eye(len(classes)) * 10.0
    which = np.tile(np.arange(len(classes)), 8)
    X = centres[which] + rng.normal(scale=0.5, size=(which.size, len(classes)))
    y = np.array(classes)[which]
    pred = clone(estimator).fit(X, y).predict(X)
    assert pred.dtype == y.dtype or pred.tolist() == y.tolist()
    assert pred.tolist() == y.tolist()


@pytest.mark.parametrize("y, classes", [
    (np.array([2.0**53, 2.0**53 + 2]), np.array([2**53, 2**53 + 1, 2**53 + 2])),
    (np.array([2**63 + 3, 2**63 + 1], dtype=np.uint64), np.array([2**63 + 1, 2**63 + 3])),
    (np.array([1, 2**24], dtype=np.float32), np.array([1, 2**24, 2**24 + 1])),
    (np.array([255, 1, 1], dtype=np.uint8), np.array([-1, 1, 255])),
])
def test_encode_targets_compares_like_python(y, classes):
    # Python's int == float cannot round: the oracle for every (label, class) pair
    t = encode_targets(y, classes)
    for k, positive in enumerate(t.positives):
        expect = [1.0 if v == positive.item() else -1.0 for v in y.tolist()]
        assert t.plus_minus(k).tolist() == expect


def test_encode_targets_names_the_label_that_only_rounds_to_a_class():
    with pytest.raises(ValueError, match=r"labels \[9007199254740993\] that are not"):
        encode_targets(np.array([-1, 2**53 + 1]), np.array([-1.0, 2.0**53]))


CLASSIFIERS = [e for e in public_estimators() if is_classifier(e)]
LABELS = {f"{np.dtype(t).name}-{k}": np.array([0, 9, 200][:k]).astype(t)
          for t in (np.float32, np.float16, np.uint8, np.int16, np.uint64, np.bool_)
          for k in (2, 3) if k == 2 or t is not np.bool_}


def centred_clusters(labels: NDArray) -> tuple[NDArray, NDArray]:
    """Points near one corner per label, 8 per label: every estimator separates them."""
    rng = np.random.default_rng(0)
    which = np.tile(np.arange(labels.size), 8)
    X = np.eye(labels.size)[which] * 10.0 + rng.normal(scale=0.5, size=(which.size, labels.size))
    return X, labels[which]


@pytest.mark.filterwarnings("ignore::halfspaces.exceptions.ConvergenceWarning")
@pytest.mark.parametrize("estimator", CLASSIFIERS, ids=ids)
@pytest.mark.parametrize("labels", LABELS.values(), ids=LABELS.keys())
def test_classes_keep_the_dtype_of_y_as_in_scikit_learn(estimator, labels):
    # with two classes, float32 or float16 labels gave float64 classes_ and predictions,
    # uint8 ones int64; with three, float16 gave float32. The oracle is scikit-learn's
    # LabelEncoder (np.unique) and its Perceptron
    X, y = centred_clusters(labels)
    oracle = LabelEncoder().fit(y).classes_
    assert oracle.dtype == SklearnPerceptron().fit(X, y).classes_.dtype
    model = clone(estimator).fit(X, y)
    assert model.classes_.dtype == oracle.dtype
    assert model.classes_.tolist() == oracle.tolist()
    pred = model.predict(X)
    assert pred.dtype == y.dtype and pred.tolist() == y.tolist()


@pytest.mark.parametrize("estimator", estimators_with_partial_fit(), ids=ids)
@pytest.mark.parametrize("classes", [np.array([9.0, 0.0, 200.0], dtype=np.float16),
                                     np.array([0, 9], dtype=np.uint8), [0, 9, 200]],
                         ids=["float16", "uint8", "list"])
def test_partial_fit_classes_keep_the_dtype_of_the_classes_given(estimator, classes):
    # float16 classes were widened to float32 classes_; scikit-learn keeps np.unique(classes)
    X, y = centred_clusters(np.asarray(classes))
    oracle = SklearnPerceptron().partial_fit(X, y, classes=classes).classes_
    model = clone(estimator).partial_fit(X, y, classes=classes)
    assert model.classes_.dtype == oracle.dtype == np.unique(classes).dtype
    assert model.predict(X).dtype == oracle.dtype
