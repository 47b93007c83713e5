"""MistakeBoundDisplay and ``halfspaces plot mistakes`` over several passes.

The curves are checked against a plain NumPy perceptron that passes over the examples again
and again; the bounds against the theorems: Novikoff's over any sequence (several passes are
one longer sequence), Freund-Schapire's computed on the sample written out K times.
"""

from __future__ import annotations

import json
import re
import warnings

import numpy as np
import pytest
from _datasets import noisy, separable
from _naive import naive_mistakes

from halfspaces import theory
from halfspaces.plot import MistakeBoundDisplay

pytest.importorskip("matplotlib")


def test_several_passes_on_noisy_data_follow_a_plain_perceptron_under_the_repeated_bound():
    X, y = noisy(40, 2, seed=16, flip=0.2)
    disp = MistakeBoundDisplay.from_online(X, y, n_passes=5, n_orders=2, random_state=0)
    for order, mask, curve in zip(disp.orders, disp.mistakes, disp.curves_, strict=True):
        expected = naive_mistakes(X[order], y[order], 5)
        np.testing.assert_array_equal(mask, expected)
        np.testing.assert_array_equal(curve.get_xdata(), np.arange(1, 201))
        np.testing.assert_array_equal(curve.get_ydata(), np.cumsum(expected))
        assert expected.sum() <= disp.bound_
    # Freund-Schapire on the sequence of 5 passes: the sample written out 5 times, at the
    # (u, gamma) that is best for one pass
    best = theory.best_freund_schapire_bound(X, y)
    repeated = theory.freund_schapire_bound(np.tile(X, (5, 1)), np.tile(y, 5), best.u,
                                            best.gamma)
    assert disp.bound_kind == "Freund-Schapire"
    assert disp.bound_ == pytest.approx(repeated, rel=1e-12) and disp.bound_ > best.bound
    assert [line.get_xdata()[0] for line in disp.pass_lines_] == [40.5, 80.5, 120.5, 160.5]
    assert "5 passes of 40" in disp.ax_.get_xlabel()


def test_on_separable_data_the_curve_flattens_under_novikoff_once_a_pass_is_clean():
    X, y, _, _ = separable(30, 2, seed=14, gap=0.3)
    disp = MistakeBoundDisplay.from_online(X, y, n_passes=20)
    mask = disp.mistakes[0]
    assert mask.size == 600
    np.testing.assert_array_equal(mask, naive_mistakes(X, y, 20))
    per_pass = mask.reshape(20, 30).sum(axis=1)
    assert per_pass[-1] == 0 and per_pass[0] > 0
    assert disp.bound_kind == "Novikoff"
    assert disp.bound_ == theory.perceptron_mistake_bound(X, y) >= mask.sum()


def test_the_repeated_freund_schapire_bound_is_the_bound_of_the_repeated_sample():
    X, y = noisy(25, 3, seed=4, flip=0.2)
    u = np.ones(4) / 2.0
    for passes in (1, 2, 7):
        assert theory.freund_schapire_bound(X, y, u, 0.3, passes=passes) == pytest.approx(
            theory.freund_schapire_bound(np.tile(X, (passes, 1)), np.tile(y, passes), u, 0.3),
            rel=1e-12)
    with pytest.raises(ValueError, match="passes"):
        theory.freund_schapire_bound(X, y, u, 0.3, passes=0)


@pytest.mark.parametrize("bad", [0, -1, 2.5, True, "3"])
def test_n_passes_is_a_positive_int(bad):
    X, y = noisy(10, 2, seed=1)
    with pytest.raises(ValueError, match=r"n_passes=.* must be a positive int"):
        MistakeBoundDisplay.from_online(X, y, n_passes=bad)


def test_too_many_examples_seen_are_refused_before_any_run(monkeypatch):
    import halfspaces.plot.mistakes as mistakes

    monkeypatch.setattr(mistakes, "MAX_SEEN", 100)
    X, y = noisy(30, 2, seed=1)
    with pytest.raises(ValueError, match=r"n_passes=4 over 30 examples is 120 examples seen"):
        MistakeBoundDisplay.from_online(X, y, n_passes=4)


def plot_mistakes(capsys, tmp_path, X, y, *options):
    """``halfspaces plot mistakes`` of (X, y), written as a CSV file, in process: its JSON."""
    from halfspaces.cli import main

    path = tmp_path / "data.csv"
    np.savetxt(path, np.column_stack([y, X]), delimiter=",", header="label,x0,x1",
               comments="")
    with pytest.raises(SystemExit) as ended:
        main(["plot", "mistakes", str(path), "--out", str(tmp_path / "m.png"), *options,
              "--json"])
    assert ended.value.code in (0, None)
    return json.loads(capsys.readouterr().out)


def test_cli_plot_mistakes_passes(capsys, tmp_path):
    X, y = noisy(30, 2, seed=16, flip=0.2)
    record = plot_mistakes(capsys, tmp_path, X, y, "--passes", "3")
    expected = naive_mistakes(X, y, 3)
    assert record["passes"] == 3
    assert record["mistakes"] == [int(expected.sum())]
    assert record["mistakes_per_pass"] == [expected.reshape(3, 30).sum(axis=1).tolist()]
    assert record["mistakes"][0] <= record["bound"]


# -- beyond the QP's rows: Freund-Schapire's bound, and no QP solved ---------------------------

@pytest.fixture
def no_qp(monkeypatch):
    """MAX_QP_ROWS = 30, and the max-margin problem an error wherever it is entered: the
    hard-margin solver (``min_norm_separator``, under every name a module holds it by) and
    any HiGHS quadratic program (it needs a Hessian). Novikoff's bound ran 300 s on 10^6
    points in it, and then failed."""
    import sys

    import highspy

    from halfspaces._exact import min_norm

    def refused(*args, **kwargs):
        raise AssertionError("the maximum-margin problem was solved")

    monkeypatch.setattr("halfspaces.plot._base.MAX_QP_ROWS", 30)
    monkeypatch.setattr(highspy, "HighsHessian", refused)
    entry = min_norm.min_norm_separator
    for module in list(sys.modules.values()):
        if getattr(module, "__name__", "").startswith("halfspaces") and \
                getattr(module, "min_norm_separator", None) is entry:
            monkeypatch.setattr(module, "min_norm_separator", refused)


BEYOND = (r"Novikoff's bound is not drawn for 31 rows: the maximum-margin QP is solved up to "
          r"30 rows.* The best Freund-Schapire bound is drawn instead")


@pytest.mark.parametrize("passes", [1, 3])
def test_beyond_the_qps_rows_the_mistake_bound_is_freund_schapires(no_qp, passes):
    X, y, _, _ = separable(31, 2, seed=14, gap=0.3)
    with pytest.warns(UserWarning, match=BEYOND):
        disp = MistakeBoundDisplay.from_online(X, y, n_orders=2, random_state=0,
                                               n_passes=passes)
    assert disp.bound_kind == "Freund-Schapire"
    for order, mask in zip(disp.orders, disp.mistakes, strict=True):
        expected = naive_mistakes(X[order], y[order], passes)
        np.testing.assert_array_equal(mask, expected)
        assert expected.sum() <= disp.bound_ < np.inf
    assert disp.bound_line_.get_ydata()[0] == disp.bound_


def test_at_the_qps_row_limit_the_bound_is_still_novikoffs(monkeypatch):
    monkeypatch.setattr("halfspaces.plot._base.MAX_QP_ROWS", 31)
    X, y, _, _ = separable(31, 2, seed=14, gap=0.3)
    disp = MistakeBoundDisplay.from_online(X, y)
    assert disp.bound_kind == "Novikoff"
    assert disp.bound_ == theory.perceptron_mistake_bound(X, y)


def test_beyond_the_qps_rows_inseparable_data_solve_no_qp_and_say_nothing(no_qp):
    X, y = noisy(31, 2, seed=16, flip=0.2)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # Novikoff's bound would not be drawn anyway
        disp = MistakeBoundDisplay.from_online(X, y)
    assert disp.bound_kind == "Freund-Schapire"
    assert naive_mistakes(X, y, 1).sum() <= disp.bound_ < np.inf


def test_cli_plot_mistakes_beyond_the_qps_rows_notes_the_fallback(no_qp, capsys, tmp_path):
    X, y, _, _ = separable(31, 2, seed=14, gap=0.3)
    record = plot_mistakes(capsys, tmp_path, X, y)
    assert record["bound_kind"] == "Freund-Schapire"
    assert record["mistakes"] == [int(naive_mistakes(X, y, 1).sum())]
    assert record["mistakes"][0] <= record["bound"]
    assert any(re.search(BEYOND, note) for note in record["notes"])
