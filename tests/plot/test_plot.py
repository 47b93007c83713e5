"""halfspaces.plot: the drawn data are checked against the theory, never against pixels.

Every display draws on a bare ``matplotlib.figure.Figure`` (no pyplot state); the lines,
markers and bounds it holds are compared with independent oracles: the line equations,
perpendicular distances computed from the drawn end points, a plain NumPy perceptron, NNLS
for hull membership and the distance between hulls, and the loss formulas.
"""

import json
import os
import re
import struct
import subprocess
import sys
import warnings
from itertools import product
from xml.etree import ElementTree

import numpy as np
import pytest
import scipy.sparse as sp
from _datasets import hidden_separator, noisy, separable
from _naive import naive_mistakes, naive_updates
from _oracles import hull_half_distance
from scipy.optimize import nnls

import halfspaces
from halfspaces import (
    LinearRegression,
    LogisticRegression,
    MulticlassPerceptron,
    Perceptron,
    theory,
)
from halfspaces.exceptions import SolverError
from halfspaces.plot import (  # lazy: importing these does not import Matplotlib
    HyperplaneDisplay,
    LossCurveDisplay,
    LossDisplay,
    MarginDisplay,
    MistakeBoundDisplay,
    RegionsDisplay,
    SampleComplexityDisplay,
    SeparabilityDisplay,
    ShatterDisplay,
    animate_perceptron,
)

pytest.importorskip("matplotlib")

XOR = np.array([[0.0, 0.0], [1.0, 1.0], [0.0, 1.0], [1.0, 0.0]])


@pytest.fixture(autouse=True)
def no_pyplot_figures():
    yield
    if "matplotlib.pyplot" in sys.modules:
        assert sys.modules["matplotlib.pyplot"].get_fignums() == []


def ends(line):
    return np.asarray(line.get_xydata(), dtype=np.float64)


def line_distance(a, b):
    """Perpendicular distance between two drawn parallel segments, from their end points."""
    p, q = ends(a), ends(b)
    d = p[1] - p[0]
    n = np.array([-d[1], d[0]]) / np.linalg.norm(d)
    assert abs((q[1] - q[0]) @ n) <= 1e-9 * np.linalg.norm(q[1] - q[0])  # parallel
    return abs((q[0] - p[0]) @ n)


def assert_on_line_and_box(line, w, b, ax):
    p = ends(line)
    assert p.shape == (2, 2)
    scale = max(1.0, np.abs(p).max()) * np.linalg.norm(w)
    np.testing.assert_allclose(p @ w + b, 0.0, atol=1e-12 * scale)
    (x0, x1), (y0, y1) = ax.get_xlim(), ax.get_ylim()
    for x, y in p:
        assert x0 - 1e-12 <= x <= x1 + 1e-12 and y0 - 1e-12 <= y <= y1 + 1e-12
        on_side = np.isclose([x, x, y, y], [x0, x1, y0, y1], rtol=0, atol=1e-12 * scale)
        assert on_side.any()


def fitted(X, y, **params):
    return Perceptron(max_epochs=1000, **params).fit(X, y)


# -- the package: optional, lazy ------------------------------------------------------------

def test_plot_is_a_submodule_and_matplotlib_is_not_imported_until_drawing():
    code = ("import sys, halfspaces\n"
            "halfspaces.plot.HyperplaneDisplay\n"
            "print('matplotlib' in sys.modules)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "False"
    assert halfspaces.plot.LossDisplay is LossDisplay


def test_drawing_never_touches_pyplot():
    # pyplot keeps global figures that a library must not leave open; the displays draw on
    # bare Figures, the animation on an Agg canvas of its own
    code = ("import sys\n"
            "from halfspaces import Perceptron\n"
            "from halfspaces.plot import HyperplaneDisplay, ShatterDisplay, animate_perceptron\n"
            "X, y = [[0.0, 0.0], [1.0, 0.0], [3.0, 1.0], [4.0, 1.0]], [0, 0, 1, 1]\n"
            "HyperplaneDisplay.from_estimator(Perceptron().fit(X, y), X, y)\n"
            "ShatterDisplay.from_points(X[:3])\n"
            "animate_perceptron(X, y, passes=3).to_jshtml()\n"
            "print('matplotlib' in sys.modules, 'matplotlib.pyplot' in sys.modules)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=300)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["True", "False"]


def test_missing_matplotlib_is_one_line_with_the_install_command():
    code = ("import sys\n"
            "sys.modules['matplotlib'] = None\n"
            "from halfspaces.plot import LossDisplay\n"
            "try:\n"
            "    LossDisplay.from_losses()\n"
            "except ImportError as exc:\n"
            "    print(str(exc))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip().splitlines() == [
        "halfspaces.plot needs Matplotlib: pip install 'halfspaces[plot]'"]


def test_the_command_without_matplotlib_says_how_to_install_it(tmp_path):
    code = ("import sys\n"
            "sys.modules['matplotlib'] = None\n"
            "from halfspaces.cli import main\n"
            f"main(['plot', 'losses', '--out', {str(tmp_path / 'l.png')!r}])\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120, env={**os.environ, "NO_COLOR": "1"})
    assert out.returncode == 1
    assert out.stderr.strip() == ("error: halfspaces.plot needs Matplotlib: pip install "
                                  "'halfspaces[plot]'")
    assert not (tmp_path / "l.png").exists()


# -- HyperplaneDisplay ----------------------------------------------------------------------

def test_boundary_and_model_band_in_two_features():
    X, y, _, _ = separable(60, 2, seed=1)
    model = fitted(X, y)
    disp = HyperplaneDisplay.from_estimator(model, X, y)
    w, b = model.coef_.ravel(), model.intercept_[0]
    assert disp.view == "features" and disp.figure_ is disp.ax_.figure
    assert_on_line_and_box(disp.boundary_, w, b, disp.ax_)
    upper, lower = disp.margin_lines_
    assert_on_line_and_box(upper, w, b - 1.0, disp.ax_)
    assert_on_line_and_box(lower, w, b + 1.0, disp.ax_)
    np.testing.assert_allclose(line_distance(upper, lower), 2.0 / np.linalg.norm(w), rtol=1e-9)
    np.testing.assert_array_equal(disp.scatter_.get_offsets(), X)
    assert disp.errors_ is None and disp.support_ is None


@pytest.mark.parametrize("coef, intercept", [([1.0, 0.0], -0.25), ([0.0, 2.0], 0.5),
                                             ([3.0, -1.0], 0.1)])
def test_vertical_horizontal_and_oblique_lines_are_exact(coef, intercept):
    X, y, _, _ = separable(30, 2, seed=2)
    model = fitted(X, y)
    model.coef_, model.intercept_ = np.array([coef]), np.array([intercept])
    disp = HyperplaneDisplay.from_estimator(model, X, y)
    assert_on_line_and_box(disp.boundary_, np.array(coef), intercept, disp.ax_)


def test_zero_weights_draw_no_line_and_refuse_the_normal_view():
    X, y, _, _ = separable(30, 2, seed=2)
    model = fitted(X, y)
    model.coef_ = np.zeros((1, 2))
    assert HyperplaneDisplay.from_estimator(model, X, y).boundary_.get_xydata().size == 0
    with pytest.raises(ValueError, match="view='features'"):
        HyperplaneDisplay.from_estimator(model, X, y, view="normal")


def test_max_margin_band_is_twice_the_certified_margin_with_support_points_at_one():
    X, y, _, _ = separable(50, 2, seed=3, gap=0.3)
    model = fitted(X, y)
    disp = HyperplaneDisplay.from_estimator(model, X, y, band="max-margin")
    best = theory.max_margin(X, y)
    width = line_distance(*disp.margin_lines_)
    np.testing.assert_allclose(width, 2.0 * best.margin, rtol=1e-9)
    np.testing.assert_allclose(width, 2.0 * hull_half_distance(X, y), rtol=1e-4)
    support = np.asarray(disp.support_.get_offsets())
    np.testing.assert_array_equal(support, X[best.support])
    np.testing.assert_allclose(np.abs(support @ best.coef + best.intercept), 1.0, atol=1e-6)
    assert_on_line_and_box(disp.boundary_, model.coef_.ravel(), model.intercept_[0], disp.ax_)


@pytest.mark.parametrize("sparse", [False, True])
def test_normal_view_draws_signed_distances_with_the_hyperplane_at_zero(sparse):
    X, y, _, _ = separable(80, 6, seed=4)
    model = fitted(X, y)
    Xin = sp.csr_matrix(X) if sparse else X
    disp = HyperplaneDisplay.from_estimator(model, Xin, y)
    w, b = model.coef_.ravel(), model.intercept_[0]
    distance = (X @ w + b) / np.linalg.norm(w)
    drawn = np.asarray(disp.scatter_.get_offsets())
    assert disp.view == "normal"
    np.testing.assert_allclose(drawn[:, 0], distance, atol=1e-12 * np.abs(distance).max())
    np.testing.assert_array_equal(np.sign(drawn[:, 0]), np.where(model.predict(X) > 0, 1, -1))
    np.testing.assert_allclose(ends(disp.boundary_)[:, 0], 0.0, atol=1e-12)
    gaps = sorted(ends(line)[0, 0] for line in disp.margin_lines_)
    np.testing.assert_allclose(gaps, np.array([-1, 1]) / np.linalg.norm(w), rtol=1e-12)
    # the vertical axis is a direction orthogonal to w: the points keep their distances
    centred = X - X.mean(axis=0)
    v = drawn[:, 1]
    assert np.linalg.norm(v) <= np.linalg.norm(centred) + 1e-9


def test_normal_view_of_the_max_margin_band_puts_support_points_at_gamma():
    X, y, _, _ = separable(80, 5, seed=5, gap=0.3)
    model = fitted(X, y)
    disp = HyperplaneDisplay.from_estimator(model, X, y, band="max-margin")
    gamma = theory.max_margin(X, y).margin
    gaps = sorted(ends(line)[0, 0] for line in disp.margin_lines_)
    np.testing.assert_allclose(gaps, [-gamma, gamma], rtol=1e-9)
    np.testing.assert_allclose(np.abs(disp.support_.get_offsets()[:, 0]), gamma, rtol=1e-6)
    assert np.all(np.abs(disp.scatter_.get_offsets()[:, 0]) >= gamma * (1 - 1e-6))


def test_features_view_slices_at_the_mean_and_errors_are_ringed():
    X, y = noisy(120, 4, seed=6)
    model = LogisticRegression().fit(X, y)
    disp = HyperplaneDisplay.from_estimator(model, X, y, view="features", features=(2, 0))
    w, b = model.coef_.ravel(), model.intercept_[0]
    rest = [1, 3]
    assert_on_line_and_box(disp.boundary_, w[[2, 0]], b + X.mean(axis=0)[rest] @ w[rest],
                           disp.ax_)
    np.testing.assert_array_equal(disp.scatter_.get_offsets(), X[:, [2, 0]])
    wrong = model.predict(X) != y
    assert wrong.any()
    np.testing.assert_array_equal(disp.errors_.get_offsets(), X[:, [2, 0]][wrong])


def test_hyperplane_display_draws_on_a_given_axes_and_checks_its_arguments():
    from matplotlib.figure import Figure

    X, y, _, _ = separable(30, 2, seed=7)
    model = fitted(X, y)
    ax = Figure().add_subplot()
    disp = HyperplaneDisplay.from_estimator(model, X, y, ax=ax)
    assert disp.ax_ is ax and disp.boundary_ in ax.lines
    with pytest.raises(ValueError, match="view="):
        HyperplaneDisplay.from_estimator(model, X, y, view="side")
    with pytest.raises(ValueError, match="band="):
        HyperplaneDisplay.from_estimator(model, X, y, band="wide")
    with pytest.raises(ValueError, match="features="):
        HyperplaneDisplay.from_estimator(model, X, y, view="features", features=(0, 0))


# -- MarginDisplay ----------------------------------------------------------------------------

@pytest.mark.parametrize("sparse", [False, True])
def test_margin_distributions_and_lines_equal_the_theory(sparse):
    X, y, _, _ = separable(90, 5, seed=8, gap=0.2)
    y = np.where(y > 0, "yes", "no")
    model = fitted(X, y)
    disp = MarginDisplay.from_estimator(model, sp.csr_matrix(X) if sparse else X, y)
    w, b = model.coef_.ravel(), model.intercept_[0]
    s = np.where(y == "yes", 1.0, -1.0)
    m = s * (X @ w + b) / np.linalg.norm(w)
    for label in ("no", "yes"):
        line = disp.lines_[label]
        np.testing.assert_allclose(line.get_xdata(), np.sort(m[y == label]), rtol=1e-12)
        np.testing.assert_allclose(line.get_ydata()[-1], 1.0)
    assert disp.margin_line_.get_xdata()[0] == pytest.approx(m.min(), rel=1e-12)
    assert disp.gamma_line_.get_xdata()[0] == pytest.approx(hull_half_distance(X, s), rel=1e-4)
    assert disp.zero_line_.get_xdata()[0] == 0.0
    assert disp.model_margin <= disp.gamma


def test_margin_display_has_no_gamma_line_on_data_that_are_not_separable():
    X, y = noisy(80, 3, seed=9)
    disp = MarginDisplay.from_estimator(LogisticRegression().fit(X, y), X, y)
    assert disp.gamma is None and disp.gamma_line_ is None
    assert disp.margin_line_.get_xdata()[0] < 0


# -- MistakeBoundDisplay ------------------------------------------------------------------------

def test_mistake_curves_and_markers_match_a_plain_perceptron_under_novikoff():
    X, y, _, _ = separable(60, 3, seed=10, gap=0.2)
    disp = MistakeBoundDisplay.from_online(X, y, n_orders=4, random_state=0)
    assert len(disp.curves_) == len(disp.markers_) == 4
    np.testing.assert_array_equal(disp.orders[0], np.arange(60))
    for order, curve, marks in zip(disp.orders, disp.curves_, disp.markers_, strict=True):
        expected = naive_mistakes(X[order], y[order])
        np.testing.assert_array_equal(curve.get_ydata(), np.cumsum(expected))
        np.testing.assert_array_equal(curve.get_xdata(), np.arange(1, 61))
        assert len(marks.get_xdata()) == expected.sum()
        np.testing.assert_array_equal(marks.get_xdata(), np.flatnonzero(expected) + 1)
        assert expected.sum() <= disp.bound_
    bound = theory.perceptron_mistake_bound(X, y)
    assert disp.bound_kind == "Novikoff" and disp.bound_ == bound
    np.testing.assert_array_equal(disp.bound_line_.get_ydata(), [bound, bound])


def test_mistake_bound_is_freund_schapire_on_data_that_are_not_separable():
    X, y = noisy(50, 3, seed=11)
    disp = MistakeBoundDisplay.from_online(X, y)
    assert disp.bound_kind == "Freund-Schapire"
    assert disp.bound_ == theory.best_freund_schapire_bound(X, y).bound
    assert disp.mistakes[0].sum() == naive_mistakes(X, y).sum() <= disp.bound_
    with pytest.raises(ValueError, match="n_orders"):
        MistakeBoundDisplay.from_online(X, y, n_orders=0)


def test_n_orders_is_a_count_of_at_most_max_orders():
    # 2.5, True and "3" were taken as int() of them; 10**8 filled memory with permutations
    X, y = noisy(12, 2, seed=11)
    for bad in (2.5, True, "3", 101, 10**30, -1):
        with pytest.raises(ValueError, match=rf"n_orders={re.escape(repr(bad))} must be an "
                                             r"int from 1 to 100 \(one curve"):
            MistakeBoundDisplay.from_online(X, y, n_orders=bad)
    assert len(MistakeBoundDisplay.from_online(X, y, n_orders=np.int64(2)).orders) == 2
    from halfspaces.cli.plot import MAX_ORDERS as CLI_MAX_ORDERS
    from halfspaces.plot.mistakes import MAX_ORDERS

    assert CLI_MAX_ORDERS == MAX_ORDERS == 100  # the CLI's copy, kept to parse without NumPy


def test_animations_hold_at_most_max_frames_and_passes_are_counts():
    # passes=2.5 and True were taken as int() of them; 1,000 passes on a9a made about ten
    # million updates, a weight vector each, before anything was drawn
    from halfspaces.cli.plot import MAX_FRAMES as CLI_MAX_FRAMES
    from halfspaces.plot.animation import MAX_FRAMES, animate_perceptron

    X, y = noisy(12, 2, seed=11)
    for bad in (2.5, True, "3", 0, MAX_FRAMES + 1, 10**30):
        with pytest.raises(ValueError, match=rf"passes={re.escape(repr(bad))} must be an "
                                             r"integer from 1 to 10,000"):
            animate_perceptron(X, y, passes=bad)
    assert animate_perceptron(X, y, passes=np.int64(2)).frames
    X, y = noisy(MAX_FRAMES, 2, seed=3)  # a tenth flipped: over MAX_FRAMES updates in 10,000
    with pytest.raises(ValueError, match=r"made [\d,]+ updates in its first \d+ of 10000 "
                                         r"pass\(es\)") as caught:
        animate_perceptron(X, y, passes=MAX_FRAMES)
    # the run stops at the pass that crosses the limit, its log bounded by one pass more
    # (10^4 passes over 10^6 rows logged 312 million updates, 10 GB, before refusing)
    found = re.search(r"made ([\d,]+) updates in its first (\d+)", str(caught.value))
    count, passes = int(found.group(1).replace(",", "")), int(found.group(2))
    assert MAX_FRAMES < count <= MAX_FRAMES + len(y) and passes < 20
    assert CLI_MAX_FRAMES == MAX_FRAMES  # the CLI's copy, kept to parse without NumPy


# -- LossDisplay ------------------------------------------------------------------------------

def test_loss_curves_equal_the_formulas_and_only_hinge_bounds_zero_one():
    disp = LossDisplay.from_losses()
    z = disp.lines_["zero_one"].get_xdata()
    assert 0.0 in z
    formulas = {"zero_one": (z <= 0).astype(float), "hinge": np.maximum(0, 1 - z),
                "logistic": np.log1p(np.exp(-z)), "perceptron": np.maximum(0, -z),
                "squared": (1 - z) ** 2 / 2}
    assert set(disp.lines_) == set(formulas)
    for name, value in formulas.items():
        np.testing.assert_allclose(disp.lines_[name].get_ydata(), value, rtol=1e-12,
                                   atol=1e-15)
    assert disp.upper_bounds == {"hinge": True, "logistic": False, "perceptron": False,
                                 "squared": False}


def test_loss_display_takes_names_and_a_grid():
    disp = LossDisplay.from_losses(["logistic"], z=[-1.0, 1.0])
    np.testing.assert_array_equal(disp.lines_["logistic"].get_xdata(), [-1.0, 0.0, 1.0])
    assert set(disp.lines_) == {"zero_one", "logistic"}
    with pytest.raises(ValueError):
        LossDisplay.from_losses(["cubic"])


# -- ShatterDisplay ---------------------------------------------------------------------------

def assert_panels_realise(disp):
    m = disp.points.shape[0]
    assert len(disp.axes_) == 2 ** m
    assert [tuple(t) for t in disp.labelings] == list(product((-1, 1), repeat=m))
    for ax, labels, sep, line in zip(disp.axes_, disp.labelings, disp.separators, disp.lines_,
                                     strict=True):
        if sep is None:
            assert line is None
            continue
        w, b = sep
        assert np.all(labels * (disp.points @ w + b) > 0)
        if np.any(w):
            assert_on_line_and_box(line, w, b, ax)


def test_three_points_in_the_plane_have_eight_separators():
    disp = ShatterDisplay.from_points([[0.0, 0.0], [2.0, 0.5], [0.5, 1.5]])
    assert disp.shattered and theory.shatters(disp.points)
    assert_panels_realise(disp)
    assert all(w is None for w in disp.witnesses_)


def test_xor_shows_its_two_unrealisable_labelings_with_the_crossing_point():
    disp = ShatterDisplay.from_points(XOR)
    assert_panels_realise(disp)
    bad = [tuple(t) for t, s in zip(disp.labelings, disp.separators, strict=True) if s is None]
    assert bad == [(-1, -1, 1, 1), (1, 1, -1, -1)]
    assert tuple(theory.unrealizable_labeling(XOR)) in bad + [tuple(-np.array(bad[0]))]
    for mark in disp.witnesses_:
        if mark is not None:
            np.testing.assert_allclose(mark.get_offsets(), [[0.5, 0.5]], atol=1e-9)
    assert disp.shattered is False and disp.figure_ is disp.axes_[0].figure


def test_shatter_display_refuses_too_many_points_or_dimensions():
    with pytest.raises(ValueError, match="theory.shatters"):
        ShatterDisplay.from_points(np.zeros((6, 2)))
    with pytest.raises(ValueError, match="shape"):
        ShatterDisplay.from_points(np.zeros((3, 3)))


@pytest.mark.parametrize("bad", [np.nan, np.inf])
def test_shatter_display_names_a_nan_or_infinite_point(bad):
    # a NaN was called an overflow ("values too large to draw; rescale it")
    with pytest.raises(ValueError, match=rf"points holds {bad} at row 0, column 1"):
        ShatterDisplay.from_points([[0.0, bad], [0.0, 0.0]])


# -- SeparabilityDisplay ----------------------------------------------------------------------

def in_hull(points, p):
    """Whether p is a convex combination of the points (NNLS with a heavy sum-to-one row)."""
    A = np.vstack([points.T, 1e3 * np.ones(len(points))])
    _, residual = nnls(A, np.append(p, 1e3))
    return residual <= 1e-8


def test_the_separability_witness_lies_in_both_hulls():
    X, y = noisy(40, 2, seed=12, flip=0.2)
    disp = SeparabilityDisplay.from_data(X, y)
    assert disp.separator_ is None and disp.margin_lines_ == []
    for sign in (1, -1):
        assert in_hull(X[y == sign], disp.witness)
    np.testing.assert_allclose(disp.witness_.get_offsets(), [disp.witness])
    assert set(disp.hulls_) == {1.0, -1.0}
    assert len(disp.weights_.get_offsets()) == np.count_nonzero(disp.certificate)


def test_separable_data_show_the_lp_separator_and_the_max_margin_band():
    X, y, _, _ = separable(40, 2, seed=13, gap=0.3)
    disp = SeparabilityDisplay.from_data(X, y)
    w, b = disp.separator
    assert np.all(y * (X @ w + b) >= 1 - 1e-9)
    assert_on_line_and_box(disp.separator_, w, b, disp.ax_)
    width = line_distance(*disp.margin_lines_)
    np.testing.assert_allclose(width, 2 * hull_half_distance(X, y), rtol=1e-4)
    assert disp.witness is None and disp.witness_ is None


def test_separability_display_needs_two_features():
    with pytest.raises(ValueError, match="view='normal'"):
        SeparabilityDisplay.from_data(np.zeros((4, 3)), [0, 1, 0, 1])


# -- RegionsDisplay, LossCurveDisplay, SampleComplexityDisplay -------------------------------

def polygon_area(p):
    x, y = p[:, 0], p[:, 1]
    return 0.5 * abs(x @ np.roll(y, -1) - y @ np.roll(x, -1))


@pytest.mark.parametrize("model", [MulticlassPerceptron(average=True, max_epochs=20),
                                   LogisticRegression(alpha=0.01), Perceptron()])
def test_regions_are_the_exact_argmax_polygons(model):
    rng = np.random.default_rng(19)
    centres = np.array([[0.0, 0.0], [4.0, 0.0], [0.0, 4.0], [4.0, 4.0]])
    k = 2 if isinstance(model, Perceptron) else 4
    y = np.repeat(np.arange(k), 15)
    X = centres[y] + rng.normal(size=(15 * k, 2))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model.fit(X, y)
    disp = RegionsDisplay.from_estimator(model, X, y)
    (x0, x1), (y0, y1) = disp.ax_.get_xlim(), disp.ax_.get_ylim()
    areas = [polygon_area(r) if len(r) >= 3 else 0.0 for r in disp.regions]
    assert sum(areas) == pytest.approx((x1 - x0) * (y1 - y0), rel=1e-9)
    for k_, region in enumerate(disp.regions):
        if len(region) < 3:
            continue
        centroid = region.mean(axis=0)  # inside: the region is convex
        assert model.predict([centroid])[0] == model.classes_[k_]
        np.testing.assert_array_equal(disp.patches_[k_].get_xy()[:-1], region)
    # a dense sample of the box: each point is predicted as the class whose polygon holds it
    grid = np.column_stack([rng.uniform(x0, x1, 500), rng.uniform(y0, y1, 500)])
    from matplotlib.path import Path as MplPath

    for k_, region in enumerate(disp.regions):
        if len(region) >= 3:
            inside = MplPath(region).contains_points(grid)
            assert np.all(model.predict(grid[inside]) == model.classes_[k_])


def test_loss_curves_are_the_models_own():
    X, y = noisy(100, 3, seed=20)
    fits = [LogisticRegression(solver=s, alpha=0.01).fit(X, y) for s in ("lbfgs", "newton")]
    fits.append(LinearRegression().fit(X, y))
    disp = LossCurveDisplay.from_estimator(fits)
    assert list(disp.lines_)[:2] == ["lbfgs", "newton"] and len(disp.lines_) == 3
    for model, line in zip(fits, disp.lines_.values(), strict=True):
        np.testing.assert_array_equal(line.get_ydata(), model.loss_curve_)
        np.testing.assert_array_equal(line.get_xdata(), np.arange(1, model.loss_curve_.size + 1))
    Xs, ys, _, _ = separable(30, 2, seed=20)
    with pytest.raises(ValueError, match="loss_curve_"):
        LossCurveDisplay.from_estimator(Perceptron().fit(Xs, ys))


def test_sample_complexity_curves_equal_the_theorem():
    eps = np.array([0.2, 0.05, 0.01])
    disp = SampleComplexityDisplay.from_bounds(4, 0.01, eps)
    base = 4 + np.log(1 / 0.01)
    np.testing.assert_array_equal(disp.lines_["realizable"].get_ydata(), np.ceil(base / eps))
    np.testing.assert_array_equal(disp.lines_["agnostic"].get_ydata(),
                                  np.ceil(base / eps ** 2))
    assert disp.ax_.get_xscale() == disp.ax_.get_yscale() == "log"


# -- the animation ----------------------------------------------------------------------------

@pytest.mark.parametrize("sparse", [False, True])
def test_animation_has_one_frame_per_update_ending_at_the_fitted_weights(sparse):
    X, y, _, _ = separable(40, 3, seed=17, gap=0.1)
    anim = animate_perceptron(sp.csr_matrix(X) if sparse else X, y, passes=30,
                              features=(2, 0))
    expected = naive_updates(X, y, 30, record="weights")
    assert len(anim.frames) == len(expected) > 1
    for frame, (step, row, w, b) in zip(anim.frames, expected, strict=True):
        assert (frame.step, frame.row) == (step, row)
        np.testing.assert_allclose(frame.coef, w, rtol=1e-12, atol=1e-12)
        assert frame.intercept == pytest.approx(b)
    model = Perceptron(max_epochs=30).fit(X, y)
    assert len(anim.frames) == model.n_updates_
    np.testing.assert_allclose(anim.frames[-1].coef, model.coef_.ravel(), rtol=1e-12)
    assert anim.frames[-1].intercept == pytest.approx(model.intercept_[0])
    anim.draw_frame(len(anim.frames))
    last = anim.frames[-1]
    offset = last.intercept + X[:, 1].mean() * last.coef[1]
    assert_on_line_and_box(anim.line_, last.coef[[2, 0]], offset, anim.ax_)
    np.testing.assert_array_equal(anim.ring_.get_xydata(), [X[last.row, [2, 0]]])


def test_animation_saves_a_gif_with_one_distinct_frame_per_update_and_html(tmp_path):
    from PIL import Image

    X, y, _, _ = separable(20, 2, seed=18, gap=0.2)
    anim = animate_perceptron(X, y, passes=10)
    anim.save(tmp_path / "a.gif", interval=100)
    with Image.open(tmp_path / "a.gif") as gif:
        assert gif.n_frames == len(anim.frames) + 1
    html = anim.save(tmp_path / "a.html").read_text()
    assert "<script" in html and html.count("data:image/png;base64") == len(anim.frames) + 1
    with pytest.raises(ValueError, match=".gif or .html"):
        anim.save(tmp_path / "a.mp4")


# -- the command line -------------------------------------------------------------------------

def run_plot(capsys, *args):
    """``halfspaces plot ... --json`` in process; the JSON record it prints."""
    from halfspaces.cli import main

    with pytest.raises(SystemExit) as exit:
        main(["plot", *args, "--json"])
    assert exit.value.code in (0, None)
    return json.loads(capsys.readouterr().out)


def png_size(path):
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and data[12:16] == b"IHDR"
    return struct.unpack(">II", data[16:24])


@pytest.fixture
def csv_files(tmp_path):
    X, y, _, _ = separable(40, 2, seed=14, gap=0.3)
    X5, y5, _, _ = separable(50, 5, seed=15, gap=0.3)
    Xn, yn = noisy(40, 2, seed=16, flip=0.2)
    files = {}
    for name, (A, b) in {"sep": (X, y), "sep5": (X5, y5), "noisy": (Xn, yn)}.items():
        files[name] = tmp_path / f"{name}.csv"
        header = "label," + ",".join(f"x{j}" for j in range(A.shape[1]))
        np.savetxt(files[name], np.column_stack([b, A]), delimiter=",", header=header,
                   comments="")
    return files, {"sep": (X, y), "sep5": (X5, y5), "noisy": (Xn, yn)}


def test_cli_boundary_writes_a_png_of_the_figure_size(capsys, tmp_path, csv_files):
    files, data = csv_files
    out = tmp_path / "b.png"
    record = run_plot(capsys, "boundary", str(files["sep"]), "--out", str(out))
    X, y = data["sep"]
    model = Perceptron().fit(X, y)
    assert record["kind"] == "boundary" and record["path"] == str(out)
    np.testing.assert_allclose(record["coef"], model.coef_.ravel())
    assert record["errors"] == 0 and record["view"] == "features"
    from matplotlib import rcParams

    dpi = rcParams["savefig.dpi"]
    dpi = rcParams["figure.dpi"] if dpi == "figure" else dpi
    width, height = rcParams["figure.figsize"]
    assert png_size(out) == (round(width * dpi), round(height * dpi))


def test_cli_max_margin_normal_view_as_svg_reports_gamma(capsys, tmp_path, csv_files):
    files, data = csv_files
    out = tmp_path / "b.svg"
    record = run_plot(capsys, "boundary", str(files["sep5"]), "--out", str(out), "--max-margin",
                      "--view", "normal", "--model", "logistic", "--param", "alpha=0.01")
    X, y = data["sep5"]
    best = theory.max_margin(X, y)
    assert record["gamma"] == pytest.approx(best.margin, rel=1e-12)
    assert record["support"] == best.support.tolist()
    root = ElementTree.parse(out).getroot()
    assert root.tag == "{http://www.w3.org/2000/svg}svg"


def test_cli_mistakes_margins_separability_numbers_and_pdf(capsys, tmp_path, csv_files):
    files, data = csv_files
    X, y = data["noisy"]
    record = run_plot(capsys, "mistakes", str(files["noisy"]), "--out",
                      str(tmp_path / "k.pdf"), "--orders", "2")
    assert (tmp_path / "k.pdf").read_bytes()[:5] == b"%PDF-"
    assert record["mistakes"][0] == naive_mistakes(X, y).sum()
    assert record["bound"] == theory.best_freund_schapire_bound(X, y).bound
    assert record["bound_kind"] == "Freund-Schapire" and len(record["mistakes"]) == 2
    record = run_plot(capsys, "separability", str(files["noisy"]), "--out",
                      str(tmp_path / "s.png"))
    assert record["separable"] is False
    assert all(in_hull(X[y == s], np.array(record["witness"])) for s in (1, -1))
    Xs, ys = data["sep"]
    record = run_plot(capsys, "margins", str(files["sep"]), "--out", str(tmp_path / "m.png"))
    assert record["gamma"] == pytest.approx(hull_half_distance(Xs, ys), rel=1e-4)


def test_cli_animate_writes_a_gif_and_prints_the_frames(capsys, tmp_path, csv_files):
    from PIL import Image

    files, data = csv_files
    X, y = data["sep"]
    out = tmp_path / "a.gif"
    record = run_plot(capsys, "animate", str(files["sep"]), "--out", str(out), "--passes", "5")
    expected = naive_updates(X, y, 5, record="weights")
    assert [(f["step"], f["row"]) for f in record["frames"]] == [e[:2] for e in expected]
    np.testing.assert_allclose(record["coef"], expected[-1][2], rtol=1e-12)
    with Image.open(out) as gif:
        assert gif.n_frames == len(expected) + 1


def test_cli_shatter_and_losses_need_no_data(capsys, tmp_path):
    record = run_plot(capsys, "shatter", "--out", str(tmp_path / "x.png"))
    assert record["panels"] == 16 and record["shattered"] is False
    assert record["unrealisable"] == [[-1, -1, 1, 1], [1, 1, -1, -1]]
    record = run_plot(capsys, "losses", "--out", str(tmp_path / "l.svg"))
    assert record["upper_bounds"]["hinge"] is True


def test_cli_loss_curve_regions_and_sample_complexity(capsys, tmp_path, csv_files):
    files, data = csv_files
    X, y = data["sep5"]
    record = run_plot(capsys, "loss-curve", str(files["sep5"]), "--out", str(tmp_path / "c.png"),
                      "--model", "logistic", "--param", "alpha=0.01")
    model = LogisticRegression(alpha=0.01).fit(X, y)
    np.testing.assert_allclose(record["loss_curve"], model.loss_curve_, rtol=1e-12)
    X2, y2 = data["sep"]
    record = run_plot(capsys, "regions", str(files["sep"]), "--out", str(tmp_path / "r.svg"),
                      "--model", "logistic", "--param", "alpha=0.01")
    model = LogisticRegression(alpha=0.01).fit(X2, y2)
    for label, region in zip(record["classes"], record["regions"], strict=True):
        centroid = np.mean(region, axis=0)
        assert model.predict([centroid])[0] == label
    record = run_plot(capsys, "sample-complexity", str(files["sep5"]), "--out",
                      str(tmp_path / "s.pdf"), "--param", "epsilons=[0.1, 0.01]")
    assert record["vc_dim"] == 6
    assert record["realizable"] == [theory.sample_complexity(e, 0.05, 6) for e in (0.1, 0.01)]


@pytest.mark.parametrize("kind, args", [
    ("boundary", []), ("margins", []), ("regions", ["--model", "pocket"]),
    ("loss-curve", ["--model", "logistic", "--param", "max_iter=2"]),
])
def test_cli_plot_notes_a_convergence_warning_once(capsys, tmp_path, csv_files, kind, args):
    # the model fitted on non-separable data warns: it was Python's warning dump on stderr
    # (sklearn/base.py:1403: ConvergenceWarning ..., then a source line), now one note
    from halfspaces.cli import main

    files, _ = csv_files
    command = ["plot", kind, str(files["noisy"]), "--out", str(tmp_path / "p.png"), *args]
    with warnings.catch_warnings(record=True) as escaped, pytest.raises(SystemExit) as exit:
        warnings.simplefilter("always")
        main(command)
    assert exit.value.code in (0, None) and [str(w.message) for w in escaped] == []
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and err[0].startswith("note: ") and "max_" in err[0]
    record = run_plot(capsys, *command[1:])
    assert record["notes"] == [err[0].removeprefix("note: ")]
    record = run_plot(capsys, "boundary", str(files["sep"]), "--out", str(tmp_path / "q.png"))
    assert record["notes"] == []


def test_cli_orders_beyond_max_orders_are_a_usage_error(capsys, tmp_path, csv_files):
    # --orders 10**30 built permutations until memory ran out; 101 drew 101 legend entries
    from halfspaces.cli import main

    files, _ = csv_files
    for orders in (101, 10**30):
        with pytest.raises(SystemExit) as exit:
            main(["plot", "mistakes", str(files["noisy"]), "--out", str(tmp_path / "k.png"),
                  "--orders", str(orders)])
        err = " ".join(capsys.readouterr().err.replace("│", " ").split())
        assert exit.value.code == 2 and "Invalid value for '--orders'" in err, err
        assert "less than or equal to 100" in err and not (tmp_path / "k.png").exists()


@pytest.mark.parametrize("args, message", [
    (["losses", "--out", "l.gif"], "suffix"),
    (["boundary", "--out", "b.png"], "needs DATA"),
    (["sample-complexity", "--out", "s.png"], "vc_dim"),
])
def test_cli_plot_errors_are_one_line(capsys, tmp_path, monkeypatch, args, message):
    from halfspaces.cli import main

    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as exit:
        main(["plot", *args])
    assert exit.value.code == 1
    err = capsys.readouterr().err.strip()
    assert message in err and len(err.splitlines()) == 1
    assert list(tmp_path.iterdir()) == []


# -- where separability cannot be decided ----------------------------------------------------

def test_mistakes_fall_back_to_freund_schapire_where_separability_is_undecided():
    # separable by e_1 with scores 1e-11, but its float certificate has no exact twin:
    # undecided; the Freund-Schapire bound holds on any data, as certify reports it
    X, y = hidden_separator(50)
    with pytest.raises(SolverError, match="cannot be decided"):
        theory.separability(X, y, fit_intercept=False)
    with pytest.warns(UserWarning, match="cannot be decided.*Freund-Schapire bound is drawn"):
        disp = MistakeBoundDisplay.from_online(X, y, fit_intercept=False)
    assert disp.bound_kind == "Freund-Schapire"
    assert disp.bound_ == theory.best_freund_schapire_bound(X, y, fit_intercept=False).bound
    # the bound holds: the plain perceptron (homogeneous) on the same order
    w, mistakes = np.zeros(X.shape[1]), 0
    for x, t in zip(X, y, strict=True):
        if t * (x @ w) <= 0:
            w, mistakes = w + t * x, mistakes + 1
    assert disp.mistakes[0].sum() == mistakes <= disp.bound_


def test_margins_draw_no_gamma_line_where_separability_is_undecided():
    X, y = hidden_separator(50)
    model = Perceptron(fit_intercept=False).fit(X, y)
    with pytest.warns(UserWarning, match="cannot be decided.*No max-margin line"):
        disp = MarginDisplay.from_estimator(model, X, y)
    assert disp.gamma is None and disp.gamma_line_ is None
    w = model.coef_.ravel()
    m = np.where(y == model.classes_[1], 1, -1) * (X @ w) / np.linalg.norm(w)
    assert disp.margin_line_.get_xdata()[0] == pytest.approx(m.min(), rel=1e-9)


def test_cli_mistakes_and_margins_fall_back_where_separability_is_undecided(
        capsys, tmp_path, csv_files, monkeypatch):
    # the guard itself: any SolverError of separability gives the bound that holds anyway
    def undecided(*args, **kwargs):
        raise SolverError("separability cannot be decided: (planted).")

    monkeypatch.setattr(theory, "separability", undecided)
    files, data = csv_files
    X, y = data["sep"]
    record = run_plot(capsys, "mistakes", str(files["sep"]), "--out", str(tmp_path / "k.png"))
    assert record["bound_kind"] == "Freund-Schapire"
    assert record["bound"] == theory.best_freund_schapire_bound(X, y).bound
    assert record["mistakes"][0] == naive_mistakes(X, y).sum()
    assert any("cannot be decided" in note for note in record["notes"])
    record = run_plot(capsys, "margins", str(files["sep"]), "--out", str(tmp_path / "m.png"))
    assert record["gamma"] is None
    assert any("No max-margin line" in note for note in record["notes"])
