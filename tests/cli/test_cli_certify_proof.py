"""``halfspaces certify`` prints its proof, and certifies one class against the rest.

Every proof printed is checked here from the printed numbers alone, on the file's own text,
in rational arithmetic (:class:`fractions.Fraction`): a hyperplane must put every example
strictly on its side, a Gordan certificate must weigh the signed examples to exactly zero.
Nothing of the library is used to check it.
"""

from __future__ import annotations

import os
from fractions import Fraction
from pathlib import Path
from unittest import mock

import numpy as np
import pytest
from _cli import cli_error, run_cli, run_cli_text


def write_csv(path: Path, X, labels) -> list[tuple[list[Fraction], str]]:
    """Write integer features and labels as CSV; return each row's exact values and label
    as read back from the file's text."""
    lines = ["x" + ",x".join(str(j) for j in range(len(X[0]))) + ",label"]
    lines += [",".join(str(int(v)) for v in row) + f",{label}"
              for row, label in zip(X, labels, strict=True)]
    path.write_text("\n".join(lines) + "\n")
    rows = []
    for line in path.read_text().splitlines()[1:]:
        *values, label = line.split(",")
        rows.append(([Fraction(v) for v in values], label))
    return rows


def signs(rows, positive: str) -> list[int]:
    return [1 if label == positive else -1 for _, label in rows]


def assert_separates(rows, positive: str, coef, intercept) -> None:
    """y_i(<w, x_i> + b) > 0 for every row, exactly, with w and b as printed."""
    w = [Fraction(v) for v in coef]  # JSON numbers are read back as the same floats
    b = Fraction(intercept)
    for (x, _), y in zip(rows, signs(rows, positive), strict=True):
        assert y * (sum(wj * xj for wj, xj in zip(w, x, strict=True)) + b) > 0


def assert_gordan(rows, positive: str, certificate) -> None:
    """a >= 0, sum(a) = 1, sum_i a_i y_i (1, x_i) = 0, exactly, with a as printed."""
    a = [Fraction(q) for q in certificate]
    assert len(a) == len(rows) and min(a) >= 0 and sum(a) == 1
    total = [Fraction(0)] * (len(rows[0][0]) + 1)
    for ai, (x, _), y in zip(a, rows, signs(rows, positive), strict=True):
        for j, v in enumerate([Fraction(1), *x]):
            total[j] += ai * y * v
    assert total == [0] * len(total)


@pytest.fixture
def separable_file(tmp_path):
    rng = np.random.default_rng(3)
    X = rng.integers(-20, 21, size=(60, 3))
    score = X @ np.array([3, -2, 1]) + 4
    keep = np.abs(score) >= 2
    X, labels = X[keep], np.where(score[keep] > 0, "pos", "neg")
    path = tmp_path / "sep.csv"
    return path, write_csv(path, X, labels)


def test_certify_prints_a_hyperplane_that_separates_the_file_exactly(separable_file):
    path, rows = separable_file
    record = run_cli("certify", str(path))
    assert record["separable"] is True and record["positive_class"] == "pos"
    assert record["negative_classes"] == ["neg"]
    assert len(record["coef"]) == 3
    assert_separates(rows, "pos", record["coef"], record["intercept"])


def test_the_table_prints_every_digit_of_the_hyperplane(separable_file):
    path, rows = separable_file
    record = run_cli("certify", str(path))
    with mock.patch.dict(os.environ, {"COLUMNS": "400"}):
        out, _ = run_cli_text("certify", str(path))
    w_line = next(line for line in out.splitlines() if "hyperplane w" in line)
    b_line = next(line for line in out.splitlines() if "hyperplane b" in line)
    printed = w_line.split("(", 1)[1].split(")", 1)[0].split(", ")
    assert printed == [repr(v) for v in record["coef"]]
    # the table's own digits are a proof too
    assert_separates(rows, "pos", [float(v) for v in printed],
                     float(b_line.split("│")[2].strip()))


def test_a_long_hyperplane_is_shortened_in_the_table_and_whole_in_json(tmp_path):
    X = np.eye(12, dtype=int)
    X = np.vstack([X, -X])
    path = tmp_path / "wide.csv"
    rows = write_csv(path, X, ["1"] * 12 + ["0"] * 12)
    record = run_cli("certify", str(path))
    assert len(record["coef"]) == 12
    assert_separates(rows, "1", record["coef"], record["intercept"])
    with mock.patch.dict(os.environ, {"COLUMNS": "400"}):
        out, _ = run_cli_text("certify", str(path))
    assert "[12 entries; --json prints all]" in out and "..." in out


def test_certify_prints_an_exact_gordan_certificate(tmp_path):
    # 3 points of one class around a point of the other: the weights are thirds and sixths,
    # which no float holds
    X = [[0, 0], [6, 0], [0, 6], [2, 2], [9, 9]]
    path = tmp_path / "inside.csv"
    rows = write_csv(path, X, ["a", "a", "a", "b", "a"])
    record = run_cli("certify", str(path))
    assert record["separable"] is False and record["certificate_exact"] is True
    assert all(isinstance(q, str) for q in record["certificate"])
    assert_gordan(rows, "b", record["certificate"])
    assert any(Fraction(q).denominator % 3 == 0 for q in record["certificate"])
    with mock.patch.dict(os.environ, {"COLUMNS": "400"}):
        out, _ = run_cli_text("certify", str(path))
    shown = {f"a[{i}] = {q}" for i, q in enumerate(record["certificate"]) if q != "0"}
    assert all(entry in out for entry in shown) and "a[4]" not in out


def test_positive_class_certifies_one_class_against_the_rest(tmp_path):
    # three clusters on a line: the middle one is not separable from the rest, the ends are
    X = [[0], [1], [10], [11], [20], [21]]
    path = tmp_path / "three.csv"
    rows = write_csv(path, X, ["lo", "lo", "mid", "mid", "hi", "hi"])
    record = run_cli("certify", str(path), "--positive-class", "hi")
    assert record["positive_class"] == "hi"
    assert sorted(record["negative_classes"]) == ["lo", "mid"]
    assert record["separable"] is True
    assert_separates(rows, "hi", record["coef"], record["intercept"])
    record = run_cli("certify", str(path), "--positive-class", "mid")
    assert record["separable"] is False
    assert_gordan(rows, "mid", record["certificate"])


def test_positive_class_matches_a_numeric_label_as_written(tmp_path):
    X = [[0], [1], [10], [11], [20], [21]]
    path = tmp_path / "numeric.csv"
    rows = write_csv(path, X, [0, 0, 1, 1, 2, 2])
    record = run_cli("certify", str(path), "--positive-class", "2")
    assert record["positive_class"] == "2" and record["negative_classes"] == ["0", "1"]
    assert_separates(rows, "2", record["coef"], record["intercept"])


def test_a_label_absent_from_the_file_is_refused_with_the_labels_present(tmp_path):
    path = tmp_path / "three.csv"
    write_csv(path, [[0], [1], [2]], ["lo", "mid", "hi"])
    code, message = cli_error("certify", str(path), "--positive-class", "top")
    assert code == 1
    assert "--positive-class 'top'" in message and "hi, lo, mid" in message


def test_more_than_two_classes_without_positive_class_names_the_option(tmp_path):
    path = tmp_path / "three.csv"
    write_csv(path, [[0], [1], [2]], ["lo", "mid", "hi"])
    code, message = cli_error("certify", str(path))
    assert code == 1 and "--positive-class" in message and "found 3" in message
