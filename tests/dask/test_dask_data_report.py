"""halfspaces.dask.data_report against the serial report on the same data, and
halfspaces.dask.score (the estimators' ``score`` on partitions) against scikit-learn's."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("distributed")

from _datasets import dask_chunked, noisy, separable  # noqa: E402
from sklearn.metrics import accuracy_score, r2_score  # noqa: E402

import halfspaces  # noqa: E402
from halfspaces import dask as hd  # noqa: E402
from halfspaces import theory  # noqa: E402

LAYOUTS = ([60, 0, 90], [150], [1, 49, 100])


def same_report(ours, theirs):
    assert type(ours) is type(theirs) is theory.DataReport
    assert (ours.n_samples, ours.n_features, ours.fit_intercept, ours.separable) == (
        theirs.n_samples, theirs.n_features, theirs.fit_intercept, theirs.separable)
    assert ours.radius == theirs.radius  # the same scaled norms, the same maximum
    for field in ("margin", "norm_bound", "certificate_support"):
        if getattr(theirs, field) is None:
            assert getattr(ours, field) is None, field
        else:
            assert getattr(ours, field) == pytest.approx(getattr(theirs, field), rel=1e-9)
    assert ours.mistake_bound_kind == theirs.mistake_bound_kind
    # Novikoff's: one QP solved on the working set; Freund-Schapire's: the same search
    assert ours.mistake_bound == pytest.approx(theirs.mistake_bound,
                                               rel=1e-9 if theirs.separable else 1e-6)
    assert (ours.vc_dimension, ours.sample_complexity, ours.notes) == (
        theirs.vc_dimension, theirs.sample_complexity, theirs.notes)


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("fit_intercept", [True, False])
def test_the_report_on_a_cluster_is_the_serial_one(client, layout, fit_intercept):
    for X, y in (separable(150, 3, seed=2, intercept=fit_intercept)[:2], noisy(150, 3)):
        ours = hd.data_report(*dask_chunked(X, y, layout), fit_intercept=fit_intercept)
        theirs = theory.data_report(X, y, fit_intercept=fit_intercept)
        same_report(ours, theirs)
        if theirs.separable is False:
            assert ours.certificate_exact is theirs.certificate_exact is True
            assert ours.certificate_residual <= 1e-9 * np.abs(X).max()
        assert ours.as_dict().keys() == theirs.as_dict().keys()


def test_the_report_takes_partitions_and_refuses_other_than_two_classes(client):
    X, y = noisy(40, 2, seed=3)
    parts = hd.Partitions.from_collections(*dask_chunked(X, y, [20, 20]))
    same_report(hd.data_report(parts), theory.data_report(X, y))
    with pytest.raises(ValueError, match="exactly two classes, found 3"):
        hd.data_report(*dask_chunked(X, np.arange(40) % 3, [20, 20]))


@pytest.mark.filterwarnings("ignore::halfspaces.exceptions.ConvergenceWarning")
@pytest.mark.parametrize("model", [hd.Perceptron(max_epochs=3),
                                   hd.AveragedPerceptron(max_epochs=3),
                                   hd.LogisticRegression(alpha=1e-2)])
def test_a_classifiers_score_on_partitions_is_its_accuracy(client, model):
    X, y = noisy(200, 3, seed=5)
    dX, dy = dask_chunked(X, y, [80, 0, 120])
    model.fit(dX, dy)
    want = accuracy_score(y, model.to_local().predict(X))
    parts = hd.Partitions.from_collections(dX, dy)
    assert model.score(dX, dy) == model.score(parts) == hd.score(model, parts) == want
    assert model.score(X, y) == want  # NumPy input: the serial model's score


@pytest.mark.parametrize(("shift", "scale"), [(0.0, 1.0), (1e8, 1.0), (0.0, 2.0**700),
                                             (3.0, 2.0**-700), (1e8, 2.0**600)])
def test_a_regressions_score_on_a_cluster_is_r2_score_at_any_scale(client, shift, scale):
    # sum(y^2) - sum(y)^2 / n cancelled for y = 1e8 + noise, and its squares overflowed
    # past 1e154 and vanished below 1e-154; R^2 does not change when y and the
    # predictions are divided by the same power of two, exactly, so r2_score of the
    # divided values is the oracle (its own squares are inf or 0 at 2^700 and 2^-700)
    X, _ = noisy(300, 3, seed=4)
    rng = np.random.default_rng(4)
    y = (shift + X @ np.array([1.0, -2.0, 0.5]) + rng.normal(size=300)) * scale
    local = halfspaces.LinearRegression().fit(X, y)
    parts = hd.Partitions.from_collections(*dask_chunked(X, y, [120, 0, 180]),
                                           targets="continuous")
    want = r2_score(y / scale, local.predict(X) / scale)
    assert 0.5 < want < 1.0
    got = hd.score(local, parts)
    # y - mean carries the rounding of y itself, eps max|y| against a spread std(y): the
    # problem's condition, 5e7 for the shift 1e8 (the old sums were 2% off there)
    condition = np.max(np.abs(y / scale)) / np.std(y / scale)
    assert abs(got - want) <= (1e-13 + 16 * np.finfo(float).eps * condition) * (1 - want)


def test_a_distributed_regressions_score_is_r2_of_its_serial_twin(client):
    X, _ = noisy(200, 3, seed=6)
    y = X @ np.array([0.5, 1.0, -1.0]) + np.random.default_rng(6).normal(size=200)
    dX, dy = dask_chunked(X, y, [100, 100])
    model = hd.LinearRegression().fit(dX, dy)
    want = r2_score(y, model.to_local().predict(X))
    assert model.score(dX, dy) == pytest.approx(want, rel=1e-12)
    assert model.score(X, y) == pytest.approx(want, rel=1e-15)
    # constant targets predicted exactly: M2 = SSE = 0 is 1.0, as r2_score says
    flat = np.full(200, 2.0)
    local = halfspaces.LinearRegression().fit(X, flat)
    parts = hd.Partitions.from_collections(*dask_chunked(X, flat, [100, 100]),
                                           targets="continuous")
    assert hd.score(local, parts) == r2_score(flat, local.predict(X))
