"""halfspaces.losses against inline definitions, finite differences and the ordering theorem."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from numpy.testing import assert_allclose

from halfspaces.losses import LOSSES, get_loss

MARGINS = np.array([-800.0, -30.0, -1.0, -1e-3, 0.0, 1e-3, 0.5, 1.0, 2.0, 30.0, 800.0])

# Inline references, one example at a time, straight from the definitions.
REFERENCE = {
    "zero_one": lambda z: 1.0 if z <= 0 else 0.0,
    "logistic": lambda z: math.log1p(math.exp(-z)) if z > -700 else -z,
    "hinge": lambda z: max(0.0, 1.0 - z),
    "perceptron": lambda z: max(0.0, -z),
    "squared": lambda z: (1.0 - z) ** 2 / 2,
}


@pytest.mark.parametrize("name", sorted(LOSSES))
def test_value_matches_the_definition(name):
    expected = [REFERENCE[name](z) for z in MARGINS]
    assert_allclose(get_loss(name).value(MARGINS), expected, rtol=1e-12, atol=1e-300)


@pytest.mark.parametrize("name", sorted(LOSSES))
def test_derivative_matches_finite_differences_away_from_kinks(name):
    z = np.array([-3.0, -0.7, 0.3, 0.6, 1.7, 4.0])
    h = 1e-6
    loss = get_loss(name)
    numeric = (loss.value(z + h) - loss.value(z - h)) / (2 * h)
    assert_allclose(loss.derivative(z), numeric, atol=1e-7)


def test_no_overflow_warnings_at_huge_margins():
    with np.errstate(over="raise", invalid="raise", divide="raise"):
        for loss in LOSSES.values():
            # the squared loss grows as z^2: finite up to |z| ~ 1e154, like its true value
            top = 1e150 if loss.name == "squared" else 1e300
            assert np.all(np.isfinite(loss.value(MARGINS * top / 800)))
            assert np.all(np.isfinite(loss.derivative(MARGINS * top / 800)))


def test_subgradients_at_the_kinks_are_the_ones_the_algorithms_use():
    assert get_loss("perceptron").derivative(np.array([0.0]))[0] == -1.0  # updates on z = 0
    assert get_loss("hinge").derivative(np.array([1.0]))[0] == -1.0
    assert get_loss("logistic").derivative(np.array([0.0]))[0] == -0.5


@given(st.floats(-50, 50))
def test_surrogates_bound_the_zero_one_loss(z):
    # hinge >= zero-one everywhere; logistic / ln 2 >= zero-one (the surrogate view)
    zero_one = get_loss("zero_one").value(np.array([z]))[0]
    assert get_loss("hinge").value(np.array([z]))[0] >= zero_one
    assert get_loss("logistic").value(np.array([z]))[0] / math.log(2) >= zero_one - 1e-12
    assert get_loss("perceptron").value(np.array([z]))[0] <= get_loss("hinge").value(
        np.array([z]))[0]


def test_squared_loss_of_the_margin_is_the_squared_error_of_plus_minus_one_targets():
    f = np.array([-2.5, -1.0, 0.0, 0.3, 1.0, 4.0])
    squared = get_loss("squared")
    for y in (-1.0, 1.0):
        assert_allclose(squared.value(y * f), (y - f) ** 2 / 2, rtol=1e-15)
        # d/df of (y - f)^2 / 2 is f - y = y * loss'(y f)
        assert_allclose(y * squared.derivative(y * f), f - y, rtol=1e-15)
    assert squared.convex and squared.smooth


def test_unknown_loss_names_the_choices():
    with pytest.raises(ValueError, match="hinge"):
        get_loss("squared_hinge")


@pytest.mark.parametrize("name", sorted(LOSSES))
@pytest.mark.parametrize("dtype", [np.float32, np.int64])
def test_values_and_derivatives_are_float64_whatever_the_margins_type(name, dtype):
    # Margins of another type (float32 scores, integer counts) are read as float64, so the
    # result is the float64 one exactly: a loss computed in float32 rounds differently.
    z = np.array([-3, -1, 0, 1, 2, 7]) if dtype is np.int64 else \
        np.array([-2.3, -0.7, 0.0, 0.1, 0.9, 1.7, 3.3], dtype=np.float32)
    loss = get_loss(name)
    z64 = z.astype(np.float64)
    for got, expected in ((loss.value(z), loss.value(z64)),
                          (loss.derivative(z), loss.derivative(z64))):
        assert got.dtype == np.float64 and got.shape == z.shape
        np.testing.assert_array_equal(got, expected)
    expected = [REFERENCE[name](float(v)) for v in z64]
    assert_allclose(loss.value(z), expected, rtol=1e-12)
