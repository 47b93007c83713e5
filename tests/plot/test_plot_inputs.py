"""halfspaces.plot refuses bad input at the public boundary, with the parameter named.

Each case here once drew a silently wrong picture (negative ``features``, labels the model
never saw) or failed deep inside NumPy or Matplotlib with an IndexError, KeyError,
AttributeError, ZeroDivisionError or OverflowError that named nothing.
"""

import json

import numpy as np
import pytest
from sklearn.svm import SVC

from halfspaces import MulticlassPerceptron, Perceptron
from halfspaces.plot import (
    HyperplaneDisplay,
    LossDisplay,
    MarginDisplay,
    MistakeBoundDisplay,
    PerceptronAnimation,
    RegionsDisplay,
    SampleComplexityDisplay,
    SeparabilityDisplay,
    ShatterDisplay,
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


# -- y's shape and length ---------------------------------------------------------------------

@pytest.mark.parametrize("y", [Y[:, None], Y[:3], np.r_[Y, 1]])
def test_y_of_the_wrong_shape_or_length_is_refused_by_every_display(model, y):
    message = r"y has shape \(\d+(, 1)?,?\); it must be 1-D with one label per row of X \(4\)"
    for display in ESTIMATOR_DISPLAYS:
        with pytest.raises(ValueError, match=message):
            display.from_estimator(model, X, y)
    with pytest.raises(ValueError, match=message):
        SeparabilityDisplay.from_data(X, y)
    with pytest.raises(ValueError, match=message):
        MistakeBoundDisplay.from_online(X, y)


# -- style arguments --------------------------------------------------------------------------

@pytest.mark.parametrize("draw", [
    lambda m: HyperplaneDisplay.from_estimator(m, X, Y, cmap="nope"),
    lambda m: RegionsDisplay.from_estimator(m, X, Y, cmap="nope"),
    lambda m: SeparabilityDisplay.from_data(X, Y, cmap="nope"),
    lambda m: ShatterDisplay.from_points(X[:2], cmap="nope"),
])
def test_an_unknown_colormap_is_named(model, draw):
    with pytest.raises(ValueError, match="cmap='nope' is not a Matplotlib colormap"):
        draw(model)


def test_a_colormap_object_is_accepted(model):
    import matplotlib as mpl

    disp = RegionsDisplay.from_estimator(model, X, Y, cmap=mpl.colormaps["Set1"])
    assert len(disp.patches_) == 2


# -- numbers a plot cannot hold ----------------------------------------------------------------

def test_sample_counts_beyond_float64_name_the_epsilons():
    with pytest.raises(ValueError, match=r"epsilons \[1e-300\]: the agnostic sample "
                                         "complexity there exceeds"):
        SampleComplexityDisplay.from_bounds(3, 0.05, [1e-300, 0.1])
    disp = SampleComplexityDisplay.from_bounds(3, 0.05, [1e-12, 0.1])  # > 2^63, still drawn
    assert disp.samples["agnostic"][0] > 2**63


@pytest.mark.parametrize("epsilons", [[], [[0.1]]])
def test_epsilons_must_be_a_non_empty_list(epsilons):
    with pytest.raises(ValueError, match="epsilons=.* must be a non-empty list"):
        SampleComplexityDisplay.from_bounds(3, 0.05, epsilons)


def test_loss_display_refuses_nan_margins():
    with pytest.raises(ValueError, match="finite margins"):
        LossDisplay.from_losses(z=[np.nan, 1.0])


HUGE = np.array([[-1e308, 0.0], [1e308, 0.0], [0.0, 1.0], [1.0, 1.0]])


@pytest.mark.parametrize("draw, name", [
    (lambda: HyperplaneDisplay.from_estimator(FixedLine([0.0, 1.0], -0.5), HUGE, Y), "X"),
    (lambda: HyperplaneDisplay.from_estimator(FixedLine([0.0, 1.0], -0.5), 1.5 * np.abs(HUGE),
                                              Y, view="normal"), "X"),
    (lambda: RegionsDisplay.from_estimator(FixedLine([0.0, 1.0], -0.5), HUGE, Y), "X"),
    (lambda: SeparabilityDisplay.from_data(HUGE[1:3] * [1.5, 1], [0, 1]), "X"),
    (lambda: ShatterDisplay.from_points(HUGE[:3]), "points"),
])
def test_finite_coordinates_matplotlib_cannot_lay_out_are_named(draw, name):
    with pytest.raises(ValueError, match=f"{name} holds coordinates up to .* rescale {name}"):
        draw()


def test_coordinates_near_the_drawable_edge_are_drawn_exactly():
    points = np.array([[-1e305, 0.0], [1e305, 0.0], [0.0, 1.0], [1.0, 1.0]])
    disp = HyperplaneDisplay.from_estimator(FixedLine([0.0, 1.0], -0.5), points, Y)
    (x0, x1), (y0, y1) = disp.ax_.get_xlim(), disp.ax_.get_ylim()
    assert np.isfinite([x0, x1, y0, y1]).all() and x0 < -1e305 and x1 > 1e305
    np.testing.assert_allclose(line_residual(disp.boundary_, [0.0, 1.0], -0.5), 0.0)
    disp.figure_.canvas.draw()


def test_a_hidden_column_whose_mean_overflows_still_gives_the_slice_line():
    # np.mean of column 2 sums to inf; the slice through the means must stay finite
    Xh = np.column_stack([X, [1.5e308, 1.5e308, 1.5e308, 1.5e308]])
    est = FixedLine([1.0, 1.0, 1e-308], -3.0)
    disp = HyperplaneDisplay.from_estimator(est, Xh, Y, view="features")
    np.testing.assert_allclose(line_residual(disp.boundary_, [1.0, 1.0], -3.0 + 1.5), 0.0,
                               atol=1e-12)


# -- through the command line: one line naming the parameter -----------------------------------

def test_cli_features_and_epsilons_errors_are_one_line(capsys, tmp_path, monkeypatch):
    from halfspaces.cli import main

    monkeypatch.chdir(tmp_path)
    data = tmp_path / "d.csv"
    np.savetxt(data, np.column_stack([Y, X]), delimiter=",", header="label,x0,x1",
               comments="")
    for args, message in [
        (["animate", str(data), "--out", "a.gif", "--features=-1,0"], "features=(-1, 0)"),
        (["boundary", str(data), "--out", "b.png", "--view", "features", "--features", "0,0"],
         "features=(0, 0)"),
        (["sample-complexity", "--out", "s.png", "--param", "vc_dim=3",
          "--param", f"epsilons={json.dumps([1e-300])}"], "epsilons [1e-300]"),
    ]:
        with pytest.raises(SystemExit) as exit:
            main(["plot", *args])
        assert exit.value.code == 1
        err = capsys.readouterr().err.strip()
        assert message in err and len(err.splitlines()) == 1, err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["d.csv"]
