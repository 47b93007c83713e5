"""What the pictures and the command line's tables say in words: the axes carry the columns'
names (a CSV header's, a DataFrame's, a fitted model's, or given), the tables of ``halfspaces
plot`` have a column per field, and the HTML animation needs nothing from the network.

The names are checked on the drawn Axes (a bare Figure, Agg); the tables against the
numbers of ``--json`` and a plain NumPy perceptron; the HTML by reading its tags.
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest
from _cli import run_cli, run_cli_text
from _datasets import noisy, separable
from _naive import naive_updates

from halfspaces import LogisticRegression, MulticlassPerceptron, Perceptron
from halfspaces.plot import (
    HyperplaneDisplay,
    RegionsDisplay,
    SeparabilityDisplay,
    animate_perceptron,
)

pytest.importorskip("matplotlib")

NAMES = ["height", "weight"]


def labels_of(ax) -> tuple[str, str]:
    return ax.get_xlabel(), ax.get_ylabel()


@pytest.fixture
def data():
    X, y, _, _ = separable(30, 2, seed=21, gap=0.3)
    return X, y


def drawings(data, X, estimator=None, **names):
    """The four displays of two features, drawn from `X` (an array or a DataFrame)."""
    _, y = data
    fitted = estimator if estimator is not None else Perceptron().fit(X, y)
    yield HyperplaneDisplay.from_estimator(fitted, X, y, **names).ax_
    yield RegionsDisplay.from_estimator(fitted, X, y, **names).ax_
    if estimator is None:  # the data alone: no model to take names from
        yield SeparabilityDisplay.from_data(X, y, **names).ax_
        anim = animate_perceptron(X, y, passes=3, **names)
        anim.draw_frame(0)
        yield anim.ax_


def test_the_axes_say_feature_i_without_names(data):
    for ax in drawings(data, data[0]):
        assert labels_of(ax) == ("feature 0", "feature 1")


def test_the_axes_carry_a_dataframes_column_names(data):
    # scikit-learn's DecisionBoundaryDisplay labels its axes from a DataFrame's columns
    frame = pd.DataFrame(data[0], columns=NAMES)
    for ax in drawings(data, frame):
        assert labels_of(ax) == tuple(NAMES)


def test_given_names_win(data):
    frame = pd.DataFrame(data[0], columns=["a", "b"])
    for ax in drawings(data, frame, feature_names=NAMES):
        assert labels_of(ax) == tuple(NAMES)


def test_a_model_fitted_on_a_dataframe_names_the_axes_of_plain_arrays(data):
    X, y = data
    model = Perceptron().fit(pd.DataFrame(X, columns=NAMES), y)
    with pytest.warns(UserWarning, match="feature names"):  # scikit-learn's, for arrays
        axes = list(drawings(data, X, estimator=model))
    for ax in axes:
        assert labels_of(ax) == tuple(NAMES)


def test_the_features_view_of_more_columns_names_the_two_drawn(data):
    X, y, _, _ = separable(30, 4, seed=22, gap=0.3)
    names = ["a", "b", "c", "d"]
    disp = HyperplaneDisplay.from_estimator(Perceptron().fit(X, y), X, y, view="features",
                                            features=(3, 1), feature_names=names)
    assert labels_of(disp.ax_) == ("d", "b")


@pytest.mark.parametrize("names", [["height"], ["a", "b", "c"], ["a", 1], "ab"])
def test_names_that_are_not_one_string_per_column_are_refused(data, names):
    X, y = data
    model = Perceptron().fit(X, y)
    for draw in (lambda: HyperplaneDisplay.from_estimator(model, X, y, feature_names=names),
                 lambda: RegionsDisplay.from_estimator(model, X, y, feature_names=names),
                 lambda: SeparabilityDisplay.from_data(X, y, feature_names=names),
                 lambda: animate_perceptron(X, y, feature_names=names)):
        with pytest.raises(ValueError, match="feature_names=.* one string per column of X"):
            draw()


def test_legends_write_labels_as_the_file_does():
    # labels read from a CSV file are floats: the legend said "class 1.0"
    X = np.array([[0.0, 0.0], [4.0, 0.0], [0.0, 4.0]])
    disp = RegionsDisplay.from_estimator(MulticlassPerceptron().fit(X, [0.0, 1.0, 2.0]), X,
                                         [0.0, 1.0, 2.0])
    assert [t.get_text() for t in disp.ax_.get_legend().get_texts()] == \
        ["class 0", "class 1", "class 2"]


# -- the command line -------------------------------------------------------------------------

@pytest.fixture
def named_csv(tmp_path, data):
    X, y = data
    path = tmp_path / "named.csv"
    pd.DataFrame({"label": y, NAMES[0]: X[:, 0], NAMES[1]: X[:, 1]}).to_csv(
        path, index=False, float_format="%.17g")
    return path


@pytest.fixture
def saved_figures(monkeypatch):
    """The Figures the command line saves (Matplotlib's HTML writer saves each frame)."""
    from matplotlib.figure import Figure

    saved = []
    real = Figure.savefig
    monkeypatch.setattr(Figure, "savefig",
                        lambda self, *a, **k: saved.append(self) or real(self, *a, **k))
    return saved


@pytest.mark.parametrize("kind, out", [
    ("boundary", "b.png"), ("separability", "s.png"), ("regions", "r.png"),
    ("animate", "a.html"),
])
def test_the_command_line_names_the_axes_by_the_csv_header(tmp_path, named_csv, saved_figures,
                                                           kind, out):
    run_cli("plot", kind, str(named_csv), "--out", str(tmp_path / out))
    assert saved_figures
    assert {labels_of(f.axes[0]) for f in saved_figures} == {tuple(NAMES)}


def test_the_command_line_keeps_feature_i_without_a_header(tmp_path, data, saved_figures):
    X, y = data
    path = tmp_path / "plain.csv"
    np.savetxt(path, np.column_stack([y, X]), delimiter=",", fmt="%.17g")
    run_cli("plot", "boundary", str(path), "--out", str(tmp_path / "b.png"))
    assert labels_of(saved_figures[-1].axes[0]) == ("feature 0", "feature 1")


def table_rows(text: str, title: str) -> list[list[str]]:
    """The body rows of the Rich table titled `title` in `text`, as lists of cells."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(title))
    body = lines[start:]
    first = next(i for i, line in enumerate(body) if line.startswith("┡"))
    rows = []
    for line in body[first + 1:]:
        if line.startswith("└"):
            return rows
        rows.append([cell.strip() for cell in line.strip("│").split("│")])
    raise AssertionError(f"table {title!r} has no end")


def test_plot_tables_print_columns_not_python_reprs(tmp_path, named_csv, data):
    X, y = data
    out, _ = run_cli_text("plot", "animate", str(named_csv), "--out", str(tmp_path / "a.html"),
                          "--passes", "5")
    assert "{" not in out and "'" not in out  # it printed {'step': 1, 'row': 0}, ...
    expected = naive_updates(X, y, 5)
    assert table_rows(out, "the updates") == [[str(k), str(step), str(row)] for k, (step, row)
                                              in enumerate(expected, 1)]
    out, _ = run_cli_text("plot", "losses", "--out", str(tmp_path / "l.png"))
    assert "{" not in out
    assert dict(map(tuple, table_rows(out, "the losses")))["hinge"] == "yes"
    out, _ = run_cli_text("plot", "shatter", "--out", str(tmp_path / "x.png"))
    assert table_rows(out, "the labelings no halfspace realises") == [
        ["-1", "-1", "1", "1"], ["1", "1", "-1", "-1"]]  # XOR's two, by hand


def test_long_plot_tables_show_their_ends_and_say_how_many_rows(tmp_path):
    epsilons = [round(0.5 / k, 6) for k in range(1, 61)]
    args = ("plot", "sample-complexity", "--param", "vc_dim=3", "--param",
            f"epsilons={epsilons}", "--out", str(tmp_path / "s.png"))
    record = run_cli(*args)
    out, _ = run_cli_text(*args)
    rows = table_rows(out, "the samples m(epsilon)")
    assert "40 of 60 rows; --json lists all" in out
    assert len(rows) == 41 and rows[20] == ["..."] * 3
    shown = rows[:20] + rows[21:]
    kept = list(range(20)) + list(range(40, 60))
    assert [int(r[1]) for r in shown] == [record["realizable"][i] for i in kept]
    assert [int(r[2]) for r in shown] == [record["agnostic"][i] for i in kept]


def test_regions_table_gives_each_class_its_corners(tmp_path):
    X, y = noisy(40, 2, seed=23, flip=0.0)
    path = tmp_path / "r.csv"
    np.savetxt(path, np.column_stack([y, X]), delimiter=",", fmt="%.17g")
    record = run_cli("plot", "regions", str(path), "--out", str(tmp_path / "r.png"),
                     "--model", "logistic", "--param", "alpha=0.01")
    out, _ = run_cli_text("plot", "regions", str(path), "--out", str(tmp_path / "r.png"),
                          "--model", "logistic", "--param", "alpha=0.01")
    text = " ".join(out.split())
    model = LogisticRegression(alpha=0.01).fit(X, y)
    for label, region in zip(record["classes"], record["regions"], strict=True):
        assert model.predict([np.mean(region, axis=0)])[0] == label  # the oracle: predict
        assert f"({region[0][0]:.4f}, {region[0][1]:.4f})" in text
    assert "[" not in out


# -- the HTML animation, offline --------------------------------------------------------------

REMOTE = re.compile(r"""(?:src|href)\s*=\s*["']?\s*(?:https?:)?//|@import|url\(\s*["']?https?:""",
                    re.IGNORECASE)


def test_the_html_animation_fetches_nothing(tmp_path, data):
    # Matplotlib's player linked Font Awesome from a CDN: offline its buttons were blank
    X, y = data
    html = animate_perceptron(X, y, passes=3).save(tmp_path / "a.html").read_text()
    assert REMOTE.search(html) is None
    assert "http" not in html
    assert 'class="fa' not in html  # every icon became a symbol
    buttons = re.findall(r"<button[^>]*>(.*?)</button>", html, re.DOTALL)
    assert len(buttons) == 9
    assert all(re.sub(r"<[^>]+>", "", b).strip() for b in buttons)  # none is blank


def test_an_icon_the_player_does_not_know_keeps_its_name_as_text():
    from halfspaces.plot.animation import offline_player

    html = ('<link rel="stylesheet"\nhref="https://cdn.example/fa.css">'
            '<button title="Loop"><i class="fa fa-repeat"></i></button>')
    assert offline_player(html) == ('<button title="Loop"><span aria-hidden="true">repeat'
                                    '</span></button>')
