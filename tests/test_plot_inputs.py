"""halfspaces.plot refuses bad input at the public boundary, with the parameter named.

Each case here once drew a silently wrong picture (negative ``features``, labels the model
never saw) or failed deep inside NumPy or Matplotlib with an IndexError, KeyError,
AttributeError, ZeroDivisionError or OverflowError that named nothing.
"""


import numpy as np
import pytest

from halfspaces import Perceptron
from halfspaces.plot import (
    HyperplaneDisplay,
    MarginDisplay,
    PerceptronAnimation,
    RegionsDisplay,
    animate_perceptron,
)

pytest.importorskip("matplotlib")

X = np.array([[0.0, 0.0], [1.0, 0.0], [3.0, 1.0], [4.0, 1.0]])
Y = np.array([0, 0, 1, 1])
ESTIMATOR_DISPLAYS = [HyperplaneDisplay, MarginDisplay, RegionsDisplay]


class FixedLine:
    """A fitted binary linear classifier with given weights (no fit that could overflow)."""

    def __init__(self, coef, intercept=0.0, classes=(0, 1)):
        self.coef_ = np.array([coef], dtype=np.float64)
        self.intercept_ = np.array([intercept], dtype=np.float64)
        self.classes_ = np.array(classes)

    def predict(self, X):
        return self.classes_[(np.asarray(X) @ self.coef_[0] + self.intercept_[0] > 0) * 1]


@pytest.fixture(scope="module")
def model():
    return Perceptron().fit(X, Y)


def line_residual(line, coef, intercept):
    p = np.asarray(line.get_xydata(), dtype=np.float64)
    assert p.shape == (2, 2)
    return p @ np.asarray(coef) + intercept


# -- the animation: features in [0, n_features) never wrapped, a positive interval -------

@pytest.mark.parametrize("features", [(-1, 0), (0, -2), (0, 5), (0, 0), (0,), (0, 1, 1),
                                      (0, 1.5), "01", 3])
def test_animation_refuses_features_before_the_run(features):
    with pytest.raises(ValueError, match=r"features=.*column indices in \[0, 2\)"):
        animate_perceptron(X, Y, features=features)


@pytest.mark.parametrize("features", [(-1, 0), (0, 2), (1, 1)])
def test_every_plot_function_taking_features_refuses_the_same_values(model, features):
    with pytest.raises(ValueError, match=r"features=.*\[0, 2\)"):
        HyperplaneDisplay.from_estimator(model, X, Y, view="features", features=features)
    with pytest.raises(ValueError, match=r"features=.*\[0, 2\)"):
        PerceptronAnimation(X, np.where(Y == 1, 1.0, -1.0), [], features)


def test_swapped_features_draw_the_swapped_line():
    rng = np.random.RandomState(1)
    Xr = rng.randn(10, 2)
    yr = (Xr[:, 0] - Xr[:, 1] > 0).astype(int)
    anim = animate_perceptron(Xr, yr, features=(np.int64(1), 0))
    anim.draw_frame(len(anim.frames))
    last = anim.frames[-1]
    np.testing.assert_allclose(line_residual(anim.line_, last.coef[[1, 0]], last.intercept),
                               0.0, atol=1e-12)


@pytest.mark.parametrize("interval", [0, -1, float("nan"), float("inf"), "fast", True])
def test_animation_interval_must_be_positive_milliseconds(tmp_path, interval):
    anim = animate_perceptron(X, Y)
    with pytest.raises(ValueError, match="interval=.* must be a finite number of milli"):
        anim.save(tmp_path / "a.html", interval=interval)
    with pytest.raises(ValueError, match="interval="):
        anim.to_jshtml(interval)
    assert list(tmp_path.iterdir()) == []


def test_a_fractional_interval_is_accepted(tmp_path):
    html = animate_perceptron(X, Y).save(tmp_path / "a.html", interval=12.5).read_text()
    assert "<script" in html
