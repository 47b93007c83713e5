"""LinearSVM as an estimator: refused input named, the convergence warning, warm starts, model
files (exact round trips, hostile dual coefficients refused) and the command line."""

from __future__ import annotations

import io
import json
import warnings
import zipfile

import numpy as np
import pytest
import scipy.sparse as sp
from _cli import run_cli
from _oracles import qp_svm, svm_objective
from sklearn.utils._param_validation import InvalidParameterError

import halfspaces
from halfspaces import ConvergenceWarning, LinearSVM, ModelFileError


def noisy(seed: int = 0, n: int = 60, d: int = 3, classes: int = 2):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    scores = X @ rng.normal(size=(d, classes)) + rng.normal(scale=0.5, size=(n, classes))
    y = np.argmax(scores, axis=1) if classes > 2 else (scores[:, 0] > 0).astype(int)
    return X, y


# -- refused input --------------------------------------------------------------------------


def test_alpha_zero_names_the_estimators_of_the_unregularised_problems():
    X, y = noisy()
    with pytest.raises(InvalidParameterError, match="'alpha' parameter of LinearSVM") as info:
        LinearSVM(alpha=0.0).fit(X, y)
    assert 'LinearProgramClassifier(on_infeasible="hinge")' in str(info.value)
    assert "MaxMarginClassifier" in str(info.value)
    with pytest.raises(InvalidParameterError, match="'alpha' parameter"):
        LinearSVM(alpha=-1.0).fit(X, y)


@pytest.mark.parametrize("name, value", [("loss", "log"), ("tol", -1.0), ("max_iter", 0),
                                         ("max_iter", True), ("multi_class", "ovo")])
def test_bad_parameters_are_refused_by_name(name, value):
    X, y = noisy()
    with pytest.raises(InvalidParameterError, match=f"'{name}' parameter"):
        LinearSVM(**{name: value}).fit(X, y)


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
@pytest.mark.parametrize("form", [np.asarray, sp.csr_matrix])
def test_nan_and_infinity_in_x_are_refused_by_name(bad, form):
    X, y = noisy()
    X[5, 1] = bad
    with pytest.raises(ValueError, match="Input X contains (NaN|infinity)"):
        LinearSVM().fit(form(X), y)


@pytest.mark.parametrize("weight, match", [
    (-1.0, r"sample_weight holds a negative weight \(-1.0 at row 3\)"),
    (np.nan, r"sample_weight holds NaN or infinity \(first at row 3\)"),
    (np.inf, r"sample_weight holds NaN or infinity \(first at row 3\)"),
])
def test_negative_and_non_finite_weights_are_refused_by_name(weight, match):
    X, y = noisy()
    weights = np.ones(len(y))
    weights[3] = weight
    with pytest.raises(ValueError, match=match):
        LinearSVM().fit(X, y, sample_weight=weights)


def test_weights_of_the_wrong_shape_or_all_zero_are_refused():
    X, y = noisy()
    with pytest.raises(ValueError, match=r"sample_weight has shape \(59,\)"):
        LinearSVM().fit(X, y, sample_weight=np.ones(59))
    with pytest.raises(ValueError, match="sample_weight is zero for every row"):
        LinearSVM().fit(X, y, sample_weight=np.zeros(60))


def test_one_class_is_refused_as_the_other_classifiers_refuse_it():
    X, _ = noisy()
    y = np.full(60, 7)
    with pytest.raises(ValueError) as ours:
        LinearSVM().fit(X, y)
    with pytest.raises(ValueError) as theirs:
        halfspaces.LogisticRegression().fit(X, y)
    assert str(ours.value) == str(theirs.value)
    assert "only one class (7)" in str(ours.value)


def test_weights_are_not_written_into():
    X, y = noisy()
    weights = np.linspace(0.0, 2.0, 60)
    before = weights.copy()
    LinearSVM(alpha=0.05).fit(X, y, sample_weight=weights)
    assert np.array_equal(weights, before)


# -- the convergence warning ----------------------------------------------------------------


def test_a_run_out_of_passes_warns_with_the_gap_reached():
    X, y = noisy(1, n=200, classes=3)
    est = LinearSVM(alpha=1e-5, max_iter=2, random_state=0)
    with pytest.warns(ConvergenceWarning) as caught:
        est.fit(X, y)
    (message,) = [str(w.message) for w in caught]
    worst = int(np.argmax(est.gap_ / est.objective_))
    assert f"certified duality gap of {est.gap_[worst]:.3g}" in message
    assert "max_iter=2" in message and "Raise max_iter" in message
    assert f"class {est.classes_[worst].tolist()!r}" in message
    assert not est.converged_ and np.all(est.n_iter_ == 2)


def test_a_converged_fit_does_not_warn():
    X, y = noisy(2)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        est = LinearSVM(alpha=0.05, random_state=0).fit(X, y)
    assert est.converged_ and est.gap_ <= est.tol * est.objective_


# -- warm starts ----------------------------------------------------------------------------


@pytest.mark.parametrize("loss", ["hinge", "squared_hinge"])
def test_a_warm_start_at_a_new_alpha_reaches_the_cold_optimum_in_fewer_passes(loss):
    X, y = noisy(3, n=150)
    n = len(y)
    est = LinearSVM(alpha=1.0 / n, loss=loss, tol=1e-10, max_iter=100_000, random_state=0,
                    warm_start=True).fit(X, y)
    est.set_params(alpha=0.9 / n).fit(X, y)
    cold = LinearSVM(alpha=0.9 / n, loss=loss, tol=1e-10, max_iter=100_000,
                     random_state=0).fit(X, y)
    _, _, J_ref = qp_svm(X, np.where(y > 0, 1.0, -1.0), 0.9 / n, loss, True)
    for fit in (est, cold):
        J = svm_objective(X, np.where(y > 0, 1.0, -1.0), fit.coef_[0], fit.intercept_[0],
                          0.9 / n, loss)
        assert J - J_ref <= fit.gap_ + 1e-13 * J_ref and fit.converged_
    assert est.n_iter_ < cold.n_iter_


def test_a_warm_start_that_does_not_fit_the_data_starts_cold():
    X, y = noisy(4)
    est = LinearSVM(alpha=0.05, warm_start=True, random_state=0).fit(X, y)
    cold = LinearSVM(alpha=0.05, random_state=0).fit(X[:40], y[:40])
    est.fit(X[:40], y[:40])  # 40 rows: the 60 dual variables do not fit them
    assert np.array_equal(est.coef_, cold.coef_) and est.n_iter_ == cold.n_iter_


def test_a_refit_without_warm_start_is_the_same_fit():
    X, y = noisy(5)
    est = LinearSVM(alpha=0.05, random_state=0).fit(X, y)
    first = est.coef_.copy()
    assert np.array_equal(est.fit(X, y).coef_, first)


# -- model files ----------------------------------------------------------------------------


@pytest.mark.parametrize("classes", [2, 3])
@pytest.mark.parametrize("form", [np.asarray, sp.csr_matrix])
def test_a_saved_model_predicts_bit_for_bit(classes, form, tmp_path):
    X, y = noisy(6, classes=classes)
    est = LinearSVM(alpha=0.05, loss="hinge", random_state=0).fit(form(X), y)
    loaded = halfspaces.load(halfspaces.save(est, tmp_path / "svm.hs"))
    assert loaded.get_params() == est.get_params()
    assert loaded.decision_function(X).tobytes() == est.decision_function(X).tobytes()
    assert np.array_equal(loaded.predict(X), est.predict(X))
    assert np.array_equal(loaded.dual_coef_, est.dual_coef_)
    assert np.array_equal(loaded.gap_, est.gap_) and np.array_equal(loaded.n_iter_, est.n_iter_)


def rewritten(path, out, name, change):
    """A copy of the model file at `path` with the array of state[name] changed."""
    with zipfile.ZipFile(path) as archive:
        members = {member: archive.read(member) for member in archive.namelist()}
    document = json.loads(np.load(io.BytesIO(members["__halfspaces__.npy"])).tobytes())
    member = document["state"][name]["$array"] + ".npy"
    buffer = io.BytesIO()
    np.lib.format.write_array(buffer, change(np.load(io.BytesIO(members[member]))))
    members[member] = buffer.getvalue()
    with zipfile.ZipFile(out, "w") as archive:
        for member, data in members.items():
            archive.writestr(member, data)
    return out


@pytest.mark.parametrize("name, change, match", [
    ("dual_coef_", lambda a: -a, "dual_coef_ holds .*below 0"),
    ("dual_coef_", lambda a: np.where(a == a.max(), np.nan, a), "dual_coef_"),
    ("dual_coef_", lambda a: a[:1], "dual_coef_"),  # one row for three problems
    ("dual_coef_", lambda a: a.ravel(), "dual_coef_"),
    ("coef_", lambda a: a[:, :2], "coef_"),
    ("coef_", lambda a: np.full_like(a, np.inf), "coef_"),
    ("intercept_", lambda a: a[:2], "intercept_"),
])
def test_hostile_fitted_state_is_refused_by_name(name, change, match, tmp_path):
    X, y = noisy(7, classes=3)
    path = halfspaces.save(LinearSVM(alpha=0.05, random_state=0).fit(X, y), tmp_path / "m.hs")
    bad = rewritten(path, tmp_path / "bad.hs", name, change)
    with pytest.raises(ModelFileError, match=match) as info:
        halfspaces.load(bad)
    assert str(bad) in str(info.value)


def test_a_loaded_model_warm_starts_from_its_dual_coefficients(tmp_path):
    X, y = noisy(8, n=100)
    est = LinearSVM(alpha=0.01, tol=1e-8, max_iter=100_000, random_state=0,
                    warm_start=True).fit(X, y)
    loaded = halfspaces.load(halfspaces.save(est, tmp_path / "m.hs"))
    again = loaded.fit(X, y)
    assert again.converged_ and again.n_iter_ < est.n_iter_


# -- the command line -----------------------------------------------------------------------


def test_the_command_line_fits_the_svm_and_prints_its_gap(tmp_path):
    X, y = noisy(9, n=80)
    path = tmp_path / "train.csv"
    np.savetxt(path, np.column_stack([y, X]), delimiter=",", header="label,a,b,c",
               comments="")
    out = tmp_path / "svm.hs"
    report = run_cli("fit", str(path), "--model", "svm", "--param", "loss=hinge",
                     "--param", "alpha=0.05", "--out", str(out))
    reference = LinearSVM(alpha=0.05, loss="hinge", random_state=0).fit(X, y)
    saved = halfspaces.load(out)
    assert np.array_equal(saved.coef_, reference.coef_)
    assert report["model"] == "svm" and report["gap"] == reference.gap_
    assert report["converged"] is True and report["n_epochs"] == reference.n_iter_
    assert report["train_accuracy"] == reference.score(X, y)
    assert "gap" not in run_cli("fit", str(path), "--model", "perceptron")
