"""The Dask entry points on hostile partitions: an empty partition, partitions of one class
each, and a NaN in one partition. Each ends in a clean answer checked against an independent
oracle (the same data without the empty partition, SciPy's LP, the data's own labels) or in
an error that names the partition; none crashes, hangs or answers silently wrong."""

from __future__ import annotations

import numpy as np
import pytest
from _oracles import linprog_separable

da = pytest.importorskip("dask.array")
pytest.importorskip("distributed")

import halfspaces.dask as hd  # noqa: E402

ESTIMATORS = ["Perceptron", "AveragedPerceptron", "LogisticRegression"]


def sample(seed=0, n=100):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    return X, np.where(X[:, 0] + 0.2 * X[:, 1] > 0, 1, -1)


def with_an_empty_partition(X, y):
    half = len(y) // 2
    parts_X = [da.from_array(X[:half], chunks=X[:half].shape), da.zeros((0, X.shape[1])),
               da.from_array(X[half:], chunks=X[half:].shape)]
    parts_y = [da.from_array(y[:half], chunks=half), da.zeros((0,), dtype=y.dtype),
               da.from_array(y[half:], chunks=len(y) - half)]
    return da.concatenate(parts_X), da.concatenate(parts_y)


def in_halves(X, y):
    half = len(y) // 2
    return da.from_array(X, chunks=(half, X.shape[1])), da.from_array(y, chunks=half)


@pytest.mark.parametrize("name", ESTIMATORS)
def test_an_empty_partition_changes_nothing(client, name):
    X, y = sample()
    cls = getattr(hd, name)
    with_empty = cls().fit(*with_an_empty_partition(X, y))
    without = cls().fit(*in_halves(X, y))
    np.testing.assert_array_equal(with_empty.coef_, without.coef_)
    np.testing.assert_array_equal(with_empty.intercept_, without.intercept_)


@pytest.mark.parametrize("name", ESTIMATORS)
def test_partitions_of_one_class_each_train_on_both(client, name):
    X, y = sample(1)
    order = np.argsort(y, kind="stable")  # the first partition all -1, the second all +1
    model = getattr(hd, name)().fit(*in_halves(X[order], y[order]))
    assert list(model.classes_) == [-1, 1]
    assert np.mean(model.predict(X) == y) >= 0.9  # the labels are a halfspace's


@pytest.mark.parametrize("fit_intercept", [True, False])
def test_separability_and_the_data_report_on_hostile_partitions_are_scipys(client,
                                                                          fit_intercept):
    X, y = sample(2)
    order = np.argsort(y, kind="stable")
    found = hd.separability(*in_halves(X[order], y[order]), fit_intercept=fit_intercept)
    assert found.separable == linprog_separable(X, y, fit_intercept)
    report = hd.data_report(*with_an_empty_partition(X, y))
    assert report.separable == linprog_separable(X, y)


@pytest.mark.parametrize("entry", [*ESTIMATORS, "separability", "data_report"])
def test_a_nan_in_one_partition_is_refused_naming_it(client, entry):
    X, y = sample(3)
    X[75, 1] = np.nan  # in the second partition (index 1)
    call = (getattr(hd, entry)().fit if entry in ESTIMATORS else getattr(hd, entry))
    with pytest.raises(ValueError, match=r"partition 1: .*NaN"):
        call(*in_halves(X, y))
