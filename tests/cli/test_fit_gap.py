"""``halfspaces fit`` reports the convex fits' certified duality gap (``gap_``): in --json as
``gap``, in the table as "duality gap", empty with a note where it is inf."""

from __future__ import annotations

import numpy as np
import pytest
from _cli import run_cli, run_cli_text

import halfspaces


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(80, 3))
    labels = (X[:, 0] + 0.7 * rng.normal(size=80) > 0).astype(int)
    targets = X @ np.array([1.0, 2.0, 3.0]) + rng.normal(size=80)
    folder = tmp_path_factory.mktemp("gap")
    for name, y in (("c.csv", labels), ("r.csv", targets)):
        np.savetxt(folder / name, np.column_stack([y, X]), delimiter=",",
                   header="label,a,b,c", comments="")
    return folder, X, labels, targets


def test_a_penalised_logistic_fit_prints_the_gap_its_model_certifies(files):
    folder, X, labels, _ = files
    report = run_cli("fit", str(folder / "c.csv"), "--model", "logistic", "--param",
                     "alpha=0.01")
    oracle = halfspaces.LogisticRegression(alpha=0.01).fit(X, labels)
    assert report["gap"] == pytest.approx(oracle.gap_, rel=1e-6, abs=1e-300)
    assert 0.0 <= report["gap"] < 1e-6 and "optimal" not in report


def test_least_squares_prints_its_gap_and_an_unpenalised_logistic_fit_says_why_it_has_none(
        files):
    folder, X, _, targets = files
    report = run_cli("fit", str(folder / "r.csv"), "--model", "linear")
    assert report["gap"] == pytest.approx(halfspaces.LinearRegression().fit(X, targets).gap_,
                                          rel=1e-6, abs=1e-300)
    unpenalised = run_cli("fit", str(folder / "c.csv"), "--model", "logistic")
    assert unpenalised["gap"] is None
    assert any("duality gap is inf" in note for note in unpenalised["notes"])
    assert "gap" not in run_cli("fit", str(folder / "c.csv"), "--model", "perceptron")


def test_the_table_calls_it_a_duality_gap(files):
    folder = files[0]
    out, _ = run_cli_text("fit", str(folder / "c.csv"), "--model", "logistic", "--param",
                          "alpha=0.01")
    assert "duality gap" in out and "MIP gap" not in out
