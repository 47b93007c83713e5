"""Property tests of the displays' inputs: points with NaN, infinity, huge and tiny values,
one class, one point, duplicate points.

Every outcome is a display whose drawn data are finite (and which Matplotlib renders), or
a ValueError that names the input it refuses (X, y, points, z): never another exception
(an OverflowError, Matplotlib's "Singular matrix", a solver's error naming no input).
"""

from __future__ import annotations

import re
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

pytest.importorskip("matplotlib")

from halfspaces.plot import (  # noqa: E402 - after the skip
    HyperplaneDisplay,
    LossDisplay,
    MarginDisplay,
    MistakeBoundDisplay,
    RegionsDisplay,
    SeparabilityDisplay,
    ShatterDisplay,
    animate_perceptron,
)

SPECIAL = [np.nan, np.inf, -np.inf, 1e308, -1e308, 1e-308, 5e-324, 1e154, -1e154, 1e-160,
           0.0, -0.0]
coordinates = st.one_of(st.floats(-5, 5), st.sampled_from(SPECIAL))


class FixedLine:
    """A fitted binary linear classifier with given weights."""

    def __init__(self, coef, intercept=0.0):
        self.coef_ = np.array([coef], dtype=np.float64)
        self.intercept_ = np.array([intercept], dtype=np.float64)
        self.classes_ = np.array([0, 1])

    def predict(self, X):
        return self.classes_[(np.asarray(X) @ self.coef_[0] + self.intercept_[0] > 0) * 1]


LINE = FixedLine([1.0, -1.0], 0.5)
ENTRIES = {
    "HyperplaneDisplay": lambda X, y: HyperplaneDisplay.from_estimator(LINE, X, y),
    "MarginDisplay": lambda X, y: MarginDisplay.from_estimator(LINE, X, y),
    "RegionsDisplay": lambda X, y: RegionsDisplay.from_estimator(LINE, X, y),
    "SeparabilityDisplay": lambda X, y: SeparabilityDisplay.from_data(X, y),
    "ShatterDisplay": lambda X, y: ShatterDisplay.from_points(X[:4]),
    "MistakeBoundDisplay": lambda X, y: MistakeBoundDisplay.from_online(X, y),
    "animate_perceptron": lambda X, y: animate_perceptron(X, y),
    "LossDisplay": lambda X, y: LossDisplay.from_losses(z=X[:, 0]),
}


@st.composite
def point_sets(draw):
    """(X, y): 1 to 6 points drawn from a pool of at most 4 (so duplicates come often),
    labels 0/1, one class now and then."""
    pool = draw(st.lists(st.tuples(coordinates, coordinates), min_size=1, max_size=4))
    n = draw(st.integers(1, 6))
    X = np.array([pool[draw(st.integers(0, len(pool) - 1))] for _ in range(n)])
    y = np.array(draw(st.lists(st.sampled_from([0, 1]), min_size=n, max_size=n)))
    return X, y


def _drawn_arrays(display):
    """The coordinates of every line and collection the display drew (on each of its axes:
    ShatterDisplay draws a grid of them)."""
    for ax in np.ravel(display.ax_):
        for artist in ax.get_lines():
            yield np.asarray(artist.get_xydata(), dtype=np.float64)
        for collection in ax.collections:
            offsets = np.asarray(collection.get_offsets(), dtype=np.float64)
            if offsets.size:
                yield offsets


@pytest.mark.parametrize("entry", list(ENTRIES))
@settings(max_examples=40, deadline=None)
@given(data=point_sets())
def test_a_display_draws_finite_data_or_names_its_input(entry, data):
    X, y = data
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a warning (no max-margin line, ...) is a clean end
        try:
            display = ENTRIES[entry](X, y)
        except ValueError as error:
            assert type(error) is not np.linalg.LinAlgError, error
            assert re.search(r"\b(X|y|points|z)\b", str(error)), str(error)
            return
    if hasattr(display, "ax_"):  # the animation holds its frames instead
        for drawn in _drawn_arrays(display):
            assert np.isfinite(drawn).all(), (entry, drawn)
        display.figure_.canvas.draw()


def test_margins_of_points_near_the_largest_float_are_refused_naming_x():
    # their scores overflow; Matplotlib failed with LinAlgError("Singular matrix")
    X = np.array([[-1e308, 1e308], [-1e308, 1e308]])
    with pytest.raises(ValueError, match=r"the geometric margins of X reach .* rescale X"):
        MarginDisplay.from_estimator(LINE, X, np.array([1, 0]))


@pytest.mark.parametrize("draw, name", [
    (lambda: ShatterDisplay.from_points([[1e-160, -4.9], [3.0, 1e154], [-2.9, -1.6],
                                         [-3.5, -4.4]]), "points"),
    (lambda: SeparabilityDisplay.from_data([[1e154, -2.8], [-2.4, 0.09], [-3.4, -4.4]],
                                           [0, 1, 1]), "X"),
])
def test_data_the_theory_cannot_decide_are_refused_naming_the_input(draw, name):
    # coordinates spanning 300 decades: the solvers' SolverError named no input
    with pytest.raises(ValueError, match=rf"^{name}: .* rescale {name}"):
        draw()


# -- many points: no hang, no memory beyond the points' own, checked by the causes ----------

def _separable(n, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 2))
    y = (X[:, 0] + 0.5 * X[:, 1] > 0).astype(int)
    X[:, 0] += np.where(y == 1, 0.5, -0.5)
    return X, y


@pytest.mark.parametrize("draw", [
    lambda X, y: MarginDisplay.from_estimator(LINE, X, y),
    lambda X, y: SeparabilityDisplay.from_data(X, y),
])
def test_beyond_the_qps_rows_the_displays_leave_out_what_needs_it(monkeypatch, draw):
    # the max-margin QP ran 300 s on 10^6 points and then failed; the LP is kept
    import halfspaces.theory

    def refused(*args, **kwargs):
        raise AssertionError("the max-margin QP was solved")

    monkeypatch.setattr("halfspaces.plot._base.MAX_QP_ROWS", 30)
    monkeypatch.setattr(halfspaces.theory, "max_margin", refused)
    X, y = _separable(31)
    with pytest.warns(UserWarning, match=r"is not drawn for 31 rows: the maximum-margin QP "
                                         r"is solved up to 30 rows"):
        display = draw(X, y)
    assert getattr(display, "gamma_line_", None) is None
    assert getattr(display, "margin_lines_", []) == []
    if hasattr(display, "separator_"):  # the LP's separator is drawn, and separates
        coef, intercept = display.separator
        assert np.all((2 * y - 1) * (X @ coef + intercept) > 0)


def test_regions_colour_all_the_points_in_one_call_of_the_colormap():
    # a call per point: 285 s for the scatter of 10^6 points
    from matplotlib.colors import ListedColormap

    class Counting(ListedColormap):
        calls = 0

        def __call__(self, *args, **kwargs):
            Counting.calls += 1
            return super().__call__(*args, **kwargs)

    X, y = _separable(2000)
    display = RegionsDisplay.from_estimator(LINE, X, y, cmap=Counting(["red", "blue"]))
    assert Counting.calls <= 3  # the two regions' fills and the scatter
    colours = display.scatter_.get_facecolors()
    np.testing.assert_array_equal(colours[y == 0], [[1.0, 0.0, 0.0, 1.0]] * int((y == 0).sum()))


def test_margins_whose_losses_overflow_are_refused_naming_z():
    # the squared loss at z = 1e308 is inf, and Matplotlib drew an inf line
    with pytest.raises(ValueError, match=r"z holds the margin 1e\+308"):
        LossDisplay.from_losses(z=[1e308, 0.0])
