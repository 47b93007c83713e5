"""halfspaces.plot refuses bad input at the public boundary, with the parameter named.

Each case here once drew a silently wrong picture (negative ``features``, labels the model
never saw) or failed deep inside NumPy or Matplotlib with an IndexError, KeyError,
AttributeError, ZeroDivisionError or OverflowError that named nothing.
"""


import numpy as np
import pytest
from sklearn.svm import SVC

from halfspaces import MulticlassPerceptron, Perceptron
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


# -- labels: only the estimator's classes -----------------------------------------------------

@pytest.mark.parametrize("display", ESTIMATOR_DISPLAYS)
@pytest.mark.parametrize("y, named", [(np.array(["0", "0", "1", "1"]), "'0', '1'"),
                                      (np.array([0, 0, 7, 1]), "7")])
def test_labels_the_estimator_does_not_know_are_refused_by_name(model, display, y, named):
    with pytest.raises(ValueError, match=f"labels {named} that are not among the "
                                         r"estimator's classes_ \[0, 1\]"):
        display.from_estimator(model, X, y)


def test_regions_refuse_an_unknown_class_of_a_multiclass_model():
    X3 = np.array([[0.0, 0.0], [4.0, 0.0], [0.0, 4.0]])
    model = MulticlassPerceptron().fit(X3, [0, 1, 2])
    with pytest.raises(ValueError, match="labels 9 "):
        RegionsDisplay.from_estimator(model, X3, [0, 1, 9])


def test_regions_colour_points_by_class_in_any_order_of_classes():
    disp = RegionsDisplay.from_estimator(FixedLine([1.0, 0.0], -2.0, classes=(5, 3)), X,
                                         [5, 5, 3, 3])
    colours = disp.scatter_.get_facecolors()
    patches = [p.get_facecolor()[:3] for p in disp.patches_]
    np.testing.assert_allclose(colours[0][:3], patches[0])
    np.testing.assert_allclose(colours[3][:3], patches[1])


# -- the estimator: fitted, linear, finite -----------------------------------------------------

def infinite_model():
    model = Perceptron().fit(X, Y)
    model.coef_ = np.array([[np.inf, 1.0]])
    return model


@pytest.mark.parametrize("display", ESTIMATOR_DISPLAYS)
@pytest.mark.parametrize("estimator, message", [
    (lambda: Perceptron(), "Perceptron has no coef_"),
    (lambda: SVC().fit(X, Y), "SVC has no coef_"),
    (infinite_model, r"Perceptron.coef_ holds non-finite values"),
])
def test_unfitted_kernel_and_infinite_models_are_refused(display, estimator, message):
    with pytest.raises(ValueError, match=message):
        display.from_estimator(estimator(), X, Y)


@pytest.mark.parametrize("display", ESTIMATOR_DISPLAYS)
def test_ax_that_is_not_an_axes_is_named(model, display):
    with pytest.raises(TypeError, match="ax='x' must be a Matplotlib Axes"):
        display.from_estimator(model, X, Y, ax="x")
