"""A model trained by the command line on a CSV file with a header knows its features' names,
as a model fitted in Python on a DataFrame does: Python then checks a DataFrame's columns by
name (scikit-learn's error for another order), where a model without names scored a
DataFrame with its columns in another order silently wrong.

The oracle is scikit-learn itself: its own estimator fitted on the same DataFrame, and the
error and warnings it gives for the same inputs.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from _cli import run_cli, shifted_problem, write_shifted
from sklearn.linear_model import Perceptron as SklearnPerceptron

import halfspaces
from halfspaces.io import evaluate_stream

COLUMNS = ["a", "b", "c", "d"]


@pytest.fixture
def trained(tmp_path):
    """(model file trained by ``fit --out`` on a CSV with a header, its data as a DataFrame,
    the labels)."""
    X, y = shifted_problem(seed=11)
    frame = pd.DataFrame(X, columns=COLUMNS)
    data = tmp_path / "named.csv"
    frame.assign(income=y).to_csv(data, index=False, float_format="%.17g")
    out = tmp_path / "m.hs"
    run_cli("fit", str(data), "--label-column", "income", "--model", "perceptron", "--epochs",
            "3", "--out", str(out))
    return out, frame, y


def sklearn_messages(frame, y, shown):
    """What scikit-learn's own Perceptron, fitted on `frame`, says when predicting `shown`:
    (the error raised or None, the warnings)."""
    reference = SklearnPerceptron(max_iter=3, tol=None).fit(frame, y)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            reference.predict(shown)
        except ValueError as exc:
            return str(exc), [str(w.message) for w in caught]
    return None, [str(w.message) for w in caught]


def test_a_csv_header_becomes_the_models_feature_names(trained):
    out, frame, y = trained
    model = halfspaces.load(out)
    assert model.feature_names_in_.dtype == object
    assert model.feature_names_in_.tolist() == COLUMNS  # the label column is not a feature
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the same names, in the same order: no warning
        in_order = model.predict(frame)
    scores = frame.to_numpy() @ model.coef_.ravel() + model.intercept_[0]
    np.testing.assert_array_equal(in_order, np.where(scores > 0, *model.classes_[::-1]))


@pytest.mark.parametrize("columns", [
    ["c", "a", "d", "b"],  # another order: the model scored these silently wrong
    ["a", "b", "c", "e"],  # another name
])
def test_a_dataframe_with_other_columns_is_refused_as_scikit_learn_refuses_it(trained, columns):
    out, frame, y = trained
    shown = frame.rename(columns=dict(zip(COLUMNS, ["a", "b", "c", "e"], strict=True))) \
        if "e" in columns else frame[columns]
    expected, _ = sklearn_messages(frame, y, shown)
    assert expected is not None
    with pytest.raises(ValueError) as caught:
        halfspaces.load(out).predict(shown)
    # the names in scikit-learn's message are the same; only the class name differs
    assert str(caught.value).replace("Perceptron", "") == expected.replace("Perceptron", "")


def test_plain_arrays_get_scikit_learns_warning(trained):
    out, frame, y = trained
    _, expected = sklearn_messages(frame, y, frame.to_numpy())
    with pytest.warns(UserWarning) as caught:
        halfspaces.load(out).predict(frame.to_numpy())
    assert [str(w.message).replace("Perceptron", "") for w in caught] == \
        [m.replace("Perceptron", "") for m in expected]


def test_files_without_a_header_give_no_names(tmp_path):
    model_file = tmp_path / "m.hs"
    run_cli("fit", str(write_shifted(tmp_path)), "--epochs", "2", "--out", str(model_file))
    assert not hasattr(halfspaces.load(model_file), "feature_names_in_")


def test_a_streamed_model_knows_its_names_too(tmp_path):
    X, y = shifted_problem(seed=12, n=90)
    data = tmp_path / "stream.csv"
    pd.DataFrame(X, columns=COLUMNS).assign(income=y).to_csv(data, index=False,
                                                              float_format="%.17g")
    out = tmp_path / "s.hs"
    run_cli("fit", str(data), "--stream", "--label-column", "income", "--chunk-size", "30",
            "--model", "perceptron", "--out", str(out))
    assert halfspaces.load(out).feature_names_in_.tolist() == COLUMNS


def test_the_command_line_and_evaluate_stream_match_columns_by_the_models_names(trained,
                                                                                 tmp_path):
    """The command line and :func:`evaluate_stream` read a CSV whose columns are in another
    order by the names, with no warning about arrays without names; the oracle is the model's
    accuracy on the DataFrame in the training order."""
    out, frame, y = trained
    model = halfspaces.load(out)
    truth = float(np.mean(model.predict(frame) == y))
    shuffled = tmp_path / "shuffled.csv"
    frame[["d", "b", "a", "c"]].assign(income=y).to_csv(shuffled, index=False,
                                                         float_format="%.17g")
    assert run_cli("evaluate", str(out), str(shuffled))["accuracy"] == truth
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        counts = evaluate_stream(model, shuffled, label_column="income", chunk_size=25)
    assert counts.accuracy == truth
    assert model.feature_names_in_.tolist() == COLUMNS  # the caller's model is unchanged


@pytest.mark.filterwarnings("ignore::halfspaces.exceptions.ConvergenceWarning")
def test_a_model_fitted_on_a_dataframe_in_python_reads_a_csv_by_its_names(tmp_path):
    """The other way round: a model fitted on a DataFrame and saved in Python (no CSV
    metadata) predicts from the command line by matching the header to its names, where
    the columns were taken by position, with scikit-learn's warning at every chunk."""
    X, y = shifted_problem(seed=13)
    frame = pd.DataFrame(X, columns=COLUMNS)
    model = halfspaces.Perceptron(max_epochs=3).fit(frame, y)
    path = halfspaces.save(model, tmp_path / "py.hs")
    shuffled = tmp_path / "shuffled.csv"
    frame[["c", "d", "a", "b"]].to_csv(shuffled, index=False, float_format="%.17g")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        report = run_cli("predict", str(path), str(shuffled))
    assert report["predictions"] == model.predict(frame).tolist()


@pytest.mark.parametrize("stream", [False, True])
def test_a_parquet_schema_becomes_the_models_feature_names(tmp_path, stream):
    pytest.importorskip("pyarrow")
    X, y = shifted_problem(seed=14, n=90)
    frame = pd.DataFrame(X, columns=COLUMNS)
    data = tmp_path / "named.parquet"
    frame.assign(income=y).to_parquet(data)
    out = tmp_path / "p.hs"
    run_cli("fit", str(data), "--label-column", "income", "--model", "perceptron", "--out",
            str(out), *(["--stream", "--chunk-size", "30"] if stream else ["--epochs", "3"]))
    model = halfspaces.load(out)
    assert model.feature_names_in_.tolist() == COLUMNS
    expected, _ = sklearn_messages(frame, y, frame[["b", "a", "c", "d"]])
    with pytest.raises(ValueError) as caught:
        model.predict(frame[["b", "a", "c", "d"]])
    assert str(caught.value).replace("Perceptron", "") == expected.replace("Perceptron", "")
