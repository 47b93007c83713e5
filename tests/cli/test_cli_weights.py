"""``halfspaces fit --weight-column/--class-weight``: a weight column of a CSV/TSV or Parquet
file trains the model that ``fit(sample_weight=)`` trains on the same numbers, checked
against SciPy's linprog and milp (tests/_oracles.py); the options' refusals name them, with
the file, line and column where the data are to blame."""

from __future__ import annotations

import numpy as np
import pytest
from _cli import cli_error, run_cli
from _oracles import milp_weighted_errors, noisy_sample, weighted_hinge_linprog
from sklearn.utils.class_weight import compute_class_weight

import halfspaces
from halfspaces.cli._models import available_models, model_class
from halfspaces.cli._weights import takes_weights


def problem(seed=0, n=40):
    rng = np.random.default_rng(seed)
    X, y = noisy_sample(rng, n, 2, flip=0.25)
    weights = rng.choice([0.0, 0.5, 1.0, 2.0, 3.5], size=n)
    return X, y, weights


def write_csv(path, X, y, weights, *, weight_name="w", cells=None):
    """Columns x1, <weight_name>, x2, label (the weight column between two features)."""
    lines = [f"x1,{weight_name},x2,label"]
    for i in range(len(y)):
        cell = repr(float(weights[i])) if cells is None else cells[i]
        lines.append(f"{float(X[i, 0])!r},{cell},{float(X[i, 1])!r},{int(y[i])}")
    path.write_text("\n".join(lines) + "\n")
    return path


def fit_cli(tmp_path, data, *options):
    out = tmp_path / "model.hs"
    run_cli("fit", str(data), "--label-column", "label", "--out", str(out), *options)
    return halfspaces.load(out)


def weighted_mean_hinge(model, X, y, weights):
    loss = np.maximum(0.0, 1.0 - y * (X @ model.coef_[0] + model.intercept_[0]))
    return float(weights @ loss / weights.sum())


def test_a_weight_column_trains_the_weighted_hinge_lp(tmp_path):
    X, y, weights = problem()
    data = write_csv(tmp_path / "d.csv", X, y, weights)
    model = fit_cli(tmp_path, data, "--model", "lp", "--param", "on_infeasible=hinge",
                    "--weight-column", "w")
    assert model.n_features_in_ == 2  # the weights are not a feature
    assert weighted_mean_hinge(model, X, y, weights) == pytest.approx(
        weighted_hinge_linprog(X, y, weights), rel=1e-7)
    python = halfspaces.LinearProgramClassifier(on_infeasible="hinge").fit(
        X, y, sample_weight=weights)
    np.testing.assert_array_equal(model.coef_, python.coef_)
    np.testing.assert_array_equal(model.intercept_, python.intercept_)


def test_weights_and_class_weights_train_the_weighted_zero_one_erm(tmp_path):
    X, y, weights = problem(seed=1, n=30)
    data = write_csv(tmp_path / "d.csv", X, y, weights)
    model = fit_cli(tmp_path, data, "--model", "zero-one", "--weight-column", "w",
                    "--class-weight", "1=2.5,-1=0.5")
    assert model.class_weight == {1.0: 2.5, -1.0: 0.5}
    rows = weights * np.where(y == 1, 2.5, 0.5)
    assert model.optimal_
    assert model.weighted_errors_ == pytest.approx(milp_weighted_errors(X, y, rows, True),
                                                   rel=1e-6)


def test_balanced_class_weight_is_scikit_learns(tmp_path):
    X, y, _ = problem(seed=2, n=30)
    y[:20] = 1
    data = write_csv(tmp_path / "d.csv", X, y, np.ones(30))
    model = fit_cli(tmp_path, data, "--model", "zero-one", "--class-weight", "balanced")
    assert model.class_weight == "balanced"
    per_class = compute_class_weight("balanced", classes=np.array([-1, 1]), y=y)
    rows = per_class[(y == 1).astype(int)]
    assert model.weighted_errors_ == pytest.approx(milp_weighted_errors(X, y, rows, True),
                                                   rel=1e-6)


def test_the_svm_gets_the_column_as_its_sample_weight(tmp_path):
    X, y, weights = problem(seed=3)
    data = write_csv(tmp_path / "d.csv", X, y, weights)
    model = fit_cli(tmp_path, data, "--model", "svm", "--weight-column", "w")
    python = halfspaces.LinearSVM().fit(X, y, sample_weight=weights)
    np.testing.assert_allclose(model.coef_, python.coef_, rtol=1e-12)
    np.testing.assert_allclose(model.intercept_, python.intercept_, rtol=1e-12)


def test_a_parquet_weight_column(tmp_path):
    pq = pytest.importorskip("pyarrow.parquet")
    import pyarrow as pa

    X, y, weights = problem(seed=4)
    path = tmp_path / "d.parquet"
    pq.write_table(pa.table({"x1": X[:, 0], "weight": weights, "x2": X[:, 1],
                             "label": y}), path)
    model = fit_cli(tmp_path, path, "--model", "lp", "--param", "on_infeasible=hinge",
                    "--weight-column", "weight")
    python = halfspaces.LinearProgramClassifier(on_infeasible="hinge").fit(
        X, y, sample_weight=weights)
    np.testing.assert_array_equal(model.coef_, python.coef_)


def test_a_test_file_drops_its_weight_column_too(tmp_path):
    X, y, weights = problem(seed=5)
    train = write_csv(tmp_path / "train.csv", X[:30], y[:30], weights[:30])
    test = write_csv(tmp_path / "test.csv", X[30:], y[30:], weights[30:])
    report = run_cli("fit", str(train), "--test", str(test), "--label-column", "label",
                     "--model", "lp", "--param", "on_infeasible=hinge", "--weight-column",
                     "w")
    python = halfspaces.LinearProgramClassifier(on_infeasible="hinge").fit(
        X[:30], y[:30], sample_weight=weights[:30])
    assert report["n_features"] == 2
    assert report["test_accuracy"] == python.score(X[30:], y[30:])


def test_a_held_out_fraction_keeps_each_rows_weight(tmp_path):
    X, y, weights = problem(seed=6)
    data = write_csv(tmp_path / "d.csv", X, y, weights)
    model = fit_cli(tmp_path, data, "--model", "lp", "--param", "on_infeasible=hinge",
                    "--weight-column", "w", "--test-fraction", "0.25", "--seed", "3")
    # the rows --test-fraction holds out: a permutation seeded by --seed, its first quarter
    train = np.sort(np.random.default_rng(3).permutation(40)[10:])
    assert weighted_mean_hinge(model, X[train], y[train], weights[train]) == pytest.approx(
        weighted_hinge_linprog(X[train], y[train], weights[train]), rel=1e-7)


# refusals ---------------------------------------------------------------------------------

@pytest.mark.parametrize("cell, match", [
    ("-2.0", "d.csv, line 6: column 'w' (--weight-column) holds the weight -2.0; weights "
             "must be >= 0"),
    ("heavy", "d.csv, line 6: column 'w' (--weight-column): 'heavy' is not a number"),
    ("nan", "d.csv, line 6: column 'w' (--weight-column): 'nan'; NaN and infinity are not "
            "allowed"),
])
def test_a_bad_weight_is_refused_with_file_line_and_column(tmp_path, cell, match):
    X, y, weights = problem()
    cells = [repr(float(w)) for w in weights]
    cells[4] = cell
    data = write_csv(tmp_path / "d.csv", X, y, weights, cells=cells)
    code, said = cli_error("fit", str(data), "--label-column", "label", "--model", "lp",
                           "--weight-column", "w")
    assert code == 1
    assert match in said


def test_a_comment_line_counts_in_the_line_number(tmp_path):
    X, y, weights = problem()
    cells = [repr(float(w)) for w in weights]
    cells[2] = "-1"
    data = write_csv(tmp_path / "d.csv", X, y, weights, cells=cells)
    text = data.read_text().splitlines()
    data.write_text("\n".join([text[0], "# a comment", "", *text[1:]]) + "\n")
    _, said = cli_error("fit", str(data), "--label-column", "label", "--model", "lp",
                        "--weight-column", "w")
    assert "d.csv, line 6: column 'w' (--weight-column) holds the weight -1.0" in said


@pytest.mark.parametrize("options, match", [
    (["--weight-column", "weights"], "--weight-column 'weights': the file has no such feature "
                                     "column (feature columns 'x1', 'w', 'x2')"),
    (["--weight-column", "label"], "--weight-column 'label': the file has no such feature"),
    (["--class-weight", "7=1"], "--class-weight '7=1' names '7', which is not a label of the "
                                "training data (its labels: -1.0, 1.0)"),
    (["--class-weight", "1=-3"], "--class-weight '1=-3': the weight of '1' is '-3'; a weight "
                                 "is a finite number >= 0"),
    (["--class-weight", "1=inf"], "the weight of '1' is 'inf'"),
    (["--class-weight", "heavy"], "--class-weight 'heavy': 'heavy' is not label=weight"),
    (["--class-weight", "1=2,1.0=3"], "--class-weight '1=2,1.0=3' gives '1.0' twice"),
])
def test_bad_weight_options_are_refused_by_name(tmp_path, options, match):
    X, y, weights = problem()
    data = write_csv(tmp_path / "d.csv", X, y, weights)
    code, said = cli_error("fit", str(data), "--label-column", "label", "--model", "zero-one",
                           *options)
    assert code == 1
    assert match in said


def test_all_zero_weights_are_refused(tmp_path):
    X, y, _ = problem()
    data = write_csv(tmp_path / "d.csv", X, y, np.zeros(40))
    _, said = cli_error("fit", str(data), "--label-column", "label", "--model", "lp",
                        "--weight-column", "w")
    assert "column 'w' (--weight-column) is zero on every row" in said


def test_formats_without_named_columns_refuse_a_weight_column(tmp_path):
    from sklearn.datasets import dump_svmlight_file

    X, y, _ = problem()
    path = tmp_path / "d.svm"
    dump_svmlight_file(X, y, str(path))
    _, said = cli_error("fit", str(path), "--model", "lp", "--weight-column", "w")
    assert "--weight-column 'w' needs a CSV/TSV or Parquet file with named columns" in said


def models_without(which: int) -> list[str]:
    """The --model names that take no sample_weight (0) or no class_weight (1) today."""
    return [name for name in available_models()
            if not takes_weights(model_class(name)())[which]]


@pytest.mark.parametrize("which, option", [(0, "--weight-column"), (1, "--class-weight")])
def test_a_model_without_weights_is_refused_by_name(tmp_path, which, option):
    without = models_without(which)
    if not without:
        pytest.skip(f"every model takes {option}")
    X, y, weights = problem()
    data = write_csv(tmp_path / "d.csv", X, y, weights)
    value = "w" if which == 0 else "balanced"
    code, said = cli_error("fit", str(data), "--label-column", "label", "--model", without[0],
                           option, value)
    assert code == 1
    assert f"--model {without[0]} does not take {option}" in said
    assert "lp" in said.split("models that do:")[1]


@pytest.mark.parametrize("model, extra", [("perceptron", ["--stream"]),
                                          ("logistic", ["--dask", "local:1"])])
def test_streaming_and_dask_refuse_weights(tmp_path, model, extra):
    X, y, weights = problem()
    data = write_csv(tmp_path / "d.csv", X, y, weights)
    # a model that streams, or has a Dask twin: the refusal is the weights'
    code, said = cli_error("fit", str(data), "--label-column", "label", "--model", model,
                           "--weight-column", "w", *extra)
    assert f"--weight-column cannot be used with {extra[0]}" in said


def test_a_bundled_data_set_has_no_weight_column():
    _, said = cli_error("fit", "--model", "lp", "--param", "on_infeasible=hinge",
                        "--weight-column", "w")
    assert "--weight-column 'w' needs a data file DATA" in said
