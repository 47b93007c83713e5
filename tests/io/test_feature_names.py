"""Models trained from files keep the files' column names as ``feature_names_in_``, as a
model fitted on a DataFrame does: :func:`halfspaces.io.fit_stream` from a CSV header or a
Parquet schema, and model files that earlier versions of ``halfspaces fit --out`` wrote with
the names only in the command's own reading options.

The oracle is scikit-learn: its own estimator fitted on the same DataFrame, and the error it
raises for a DataFrame whose columns are in another order.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from _cli import shifted_problem
from sklearn.linear_model import Perceptron as Reference

import halfspaces
from halfspaces.io import column_names, fit_stream
from halfspaces.io.model import load_with_extra, save

COLUMNS = ["a", "b", "c", "d"]
pytestmark = pytest.mark.filterwarnings("ignore::halfspaces.exceptions.ConvergenceWarning")


def scikit_learns_refusal(frame, y, shown) -> str:
    """scikit-learn's message for predicting `shown` with a model fitted on `frame`."""
    reference = Reference(max_iter=3, tol=None).fit(frame, y)
    with pytest.raises(ValueError) as caught:
        reference.predict(shown)
    return str(caught.value).replace("Perceptron", "")


def assert_checks_names_as_scikit_learn(model, frame, y):
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the same columns in the same order: no warning
        predicted = model.predict(frame)
    scores = frame.to_numpy() @ model.coef_.ravel() + model.intercept_[0]
    np.testing.assert_array_equal(predicted, np.where(scores > 0, *model.classes_[::-1]))
    shuffled = frame[["c", "a", "d", "b"]]
    with pytest.raises(ValueError) as ours:
        model.predict(shuffled)
    assert str(ours.value).replace(type(model).__name__, "") == \
        scikit_learns_refusal(frame, y, shuffled)


@pytest.fixture
def named(tmp_path):
    X, y = shifted_problem(seed=21, n=90)
    frame = pd.DataFrame(X, columns=COLUMNS)
    return frame, y, frame.assign(income=y)


@pytest.mark.parametrize("ext", ["csv", "parquet"])
def test_fit_stream_gives_the_model_the_files_column_names(named, tmp_path, ext):
    frame, y, table = named
    path = tmp_path / f"named.{ext}"
    if ext == "csv":
        table.to_csv(path, index=False, float_format="%.17g")
    else:
        pytest.importorskip("pyarrow")
        table.to_parquet(path)
    assert column_names(path, label_column="income") == COLUMNS
    run = fit_stream(halfspaces.Perceptron(), path, label_column="income", chunk_size=30,
                     epochs=3)
    assert run.model.feature_names_in_.dtype == object
    assert run.model.feature_names_in_.tolist() == COLUMNS
    assert_checks_names_as_scikit_learn(run.model, frame, y)
    loaded = halfspaces.load(save(run.model, tmp_path / "m.hs"))
    assert_checks_names_as_scikit_learn(loaded, frame, y)


def test_fit_stream_of_a_model_with_names_trains_without_warnings_and_keeps_the_files(named,
                                                                                     tmp_path):
    frame, y, table = named
    path = tmp_path / "named.csv"
    table.rename(columns=dict(zip(COLUMNS, "pqrs", strict=True))).to_csv(
        path, index=False, float_format="%.17g")
    model = halfspaces.Perceptron(warm_start=True).fit(frame, y)  # names a, b, c, d
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # partial_fit on arrays: no "fitted with names"
        run = fit_stream(model, path, label_column="income", chunk_size=30)
    assert run.model.feature_names_in_.tolist() == list("pqrs")


def test_files_without_names_leave_the_model_without_them(named, tmp_path):
    frame, y, _ = named
    path = tmp_path / "plain.csv"
    np.savetxt(path, np.column_stack([y, frame.to_numpy()]), delimiter=",", fmt="%.17g")
    model = halfspaces.Perceptron().fit(frame, y)
    run = fit_stream(model, path, label_column=0, chunk_size=30)
    assert not hasattr(run.model, "feature_names_in_")


# -- model files written by earlier versions of ``halfspaces fit --out`` -----------------------

def written_by_an_earlier_command(model, path, names):
    """What ``fit --out`` wrote before models kept the names: the model without
    ``feature_names_in_``, the names only in the command's reading options."""
    assert not hasattr(model, "feature_names_in_")
    data = {"format": "csv", "zero_based": None, "label_column": "income"}
    if names is not None:
        data["feature_names"] = names
    return save(model, path, extra={"data": data})


def test_an_earlier_commands_model_file_gets_the_names_it_recorded(named, tmp_path):
    frame, y, _ = named
    model = halfspaces.Perceptron(max_epochs=5).fit(frame.to_numpy(), y)
    path = written_by_an_earlier_command(model, tmp_path / "old.hs", COLUMNS)
    loaded, extra = load_with_extra(path)
    assert loaded.feature_names_in_.dtype == object
    assert loaded.feature_names_in_.tolist() == COLUMNS == extra["data"]["feature_names"]
    assert_checks_names_as_scikit_learn(loaded, frame, y)


@pytest.mark.parametrize("names", [
    None,  # a file without a header
    ["a", "b", "c"],  # one name short of the features (the boundary)
    ["a", "b", "c", "d", "e"],  # one too many
    ["a", "b", "a", "d"],  # repeated
    ["a", "b", 3, "d"],  # not a string
])
def test_names_the_command_could_not_have_written_are_not_given_to_the_model(named, tmp_path,
                                                                             names):
    frame, y, _ = named
    model = halfspaces.Perceptron(max_epochs=5).fit(frame.to_numpy(), y)
    path = written_by_an_earlier_command(model, tmp_path / "old.hs", names)
    assert not hasattr(halfspaces.load(path), "feature_names_in_")


def test_names_saved_with_the_model_win_over_the_recorded_ones(named, tmp_path):
    frame, y, _ = named
    model = halfspaces.Perceptron(max_epochs=5).fit(frame, y)
    path = save(model, tmp_path / "m.hs", extra={"data": {"feature_names": list("pqrs")}})
    assert halfspaces.load(path).feature_names_in_.tolist() == COLUMNS
