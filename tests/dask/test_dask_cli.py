"""``halfspaces fit --dask`` and ``halfspaces certify --dask``: reports, --json and --out."""

from __future__ import annotations

import json

import numpy as np
import pytest

pytest.importorskip("distributed")

from _datasets import noisy, separable  # noqa: E402
from distributed import Client, LocalCluster  # noqa: E402
from sklearn.datasets import dump_svmlight_file  # noqa: E402
from typer.testing import CliRunner  # noqa: E402

import halfspaces  # noqa: E402
from halfspaces.cli import app  # noqa: E402
from halfspaces.io import read_svmlight_files  # noqa: E402


def run(*args):
    result = CliRunner().invoke(app, [str(a) for a in args])
    assert result.exit_code == 0, result.output
    return result.output


def parts_on_disk(folder, X, y, cuts):
    for i, (a, b) in enumerate(zip(cuts[:-1], cuts[1:], strict=True)):
        dump_svmlight_file(X[a:b], y[a:b], str(folder / f"part-{i}.svm"), zero_based=False)
    return str(folder / "part-*.svm")


def test_fit_on_a_local_cluster_of_processes_saves_the_serial_model(tmp_path):
    # the one test with worker processes: every task and argument crosses a pickle
    X, y = noisy(120, 4, seed=1)
    pattern = parts_on_disk(tmp_path, X, y, [0, 50, 120])
    out = tmp_path / "model.npz"
    record = json.loads(run("fit", pattern, "--dask", "local:2", "--model", "averaged",
                            "--epochs", "3", "--out", out, "--json"))
    model = halfspaces.load(out)
    assert type(model) is halfspaces.AveragedPerceptron
    Xs, ys = zip(*read_svmlight_files(sorted(tmp_path.glob("part-*.svm"))), strict=True)
    X_all, y_all = np.vstack([x.toarray() for x in Xs]), np.concatenate(ys)
    assert record["n_train"] == 120 and record["n_epochs"] == 3
    assert record["train_accuracy"] == pytest.approx(model.score(X_all, y_all))
    assert record["model_file"] == str(out)


@pytest.fixture(scope="module")
def address():
    with LocalCluster(n_workers=2, processes=False, threads_per_worker=1, protocol="tcp",
                      dashboard_address=":0") as cluster, Client(cluster):
        yield cluster.scheduler_address


def test_certify_on_a_scheduler_gives_the_serial_record(address, tmp_path):
    for name, (X, y) in {"sep": separable(300, 3, seed=2)[:2], "noisy": noisy(300, 3)}.items():
        folder = tmp_path / name
        folder.mkdir()
        pattern = parts_on_disk(folder, X, y, [0, 100, 101, 300])
        ours = json.loads(run("certify", pattern, "--dask", address, "--json"))
        dump_svmlight_file(X, y, str(folder / "all.svm"), zero_based=False)
        theirs = json.loads(run("certify", folder / "all.svm", "--json"))
        assert ours["separable"] == theirs["separable"]
        for key in ("radius", "margin", "norm_bound", "certificate_support"):
            if key in theirs:
                assert ours[key] == pytest.approx(theirs[key], rel=1e-9)
        assert ours["mistake_bound_kind"] == theirs["mistake_bound_kind"]
        if theirs["separable"]:
            assert ours["mistake_bound"] == pytest.approx(theirs["mistake_bound"], rel=1e-9)
        else:
            assert ours["certificate_residual"] < 1e-9
            assert ours["certificate_exact"] is theirs["certificate_exact"] is True
            # the best Freund-Schapire bound: the same search, its sums over partitions
            assert ours["mistake_bound"] == pytest.approx(theirs["mistake_bound"], rel=1e-6)
        assert ours["sample_complexity"] == theirs["sample_complexity"]
        assert ours["notes"] == theirs["notes"] == []


def report_modules():
    """The modules whose names the serial and the cluster reports call."""
    import importlib

    return (importlib.import_module("halfspaces.theory.data_report"),
            importlib.import_module("halfspaces.dask._data_report"))


def cannot_answer(*args, **kwargs):
    from halfspaces.exceptions import SolverError

    raise SolverError("HiGHS cannot answer")


def test_certify_on_a_scheduler_notes_what_its_solvers_cannot_answer(address, tmp_path,
                                                                     monkeypatch):
    # the serial record's optional fields, on the cluster: a SolverError leaves them null
    # with a note. The solvers are stubbed, to reach each field; the real undecidable
    # rows (entries 1e308) are in test_certify_on_a_scheduler_of_extreme_entries_...
    serial_report, cluster_report = report_modules()
    X, y = separable(120, 3, seed=6)[:2]
    pattern = parts_on_disk(tmp_path, X, y, [0, 60, 120])
    serial = tmp_path / "all.svm"
    dump_svmlight_file(X, y, str(serial), zero_based=False)
    with monkeypatch.context() as patch:  # undecided: the bound that holds on any data
        patch.setattr(cluster_report, "separability", cannot_answer)
        patch.setattr(serial_report, "separability", cannot_answer)
        ours = json.loads(run("certify", pattern, "--dask", address, "--json"))
        theirs = json.loads(run("certify", serial, "--json"))
    assert ours["separable"] is theirs["separable"] is None
    assert ours["notes"] == theirs["notes"] == [
        "separable not computed: SolverError: HiGHS cannot answer"]
    assert ours["mistake_bound"] == pytest.approx(theirs["mistake_bound"], rel=1e-6)
    assert ours["sample_complexity"] == theirs["sample_complexity"]
    assert set(ours) == set(theirs) and "margin" not in ours
    with monkeypatch.context() as patch:
        patch.setattr(cluster_report, "max_margin", cannot_answer)
        ours = json.loads(run("certify", pattern, "--dask", address, "--json"))
    assert ours["separable"] is True
    assert ours["margin"] is ours["norm_bound"] is ours["mistake_bound"] is None
    assert ours["notes"] == ["margin, norm_bound, mistake_bound not computed: SolverError: "
                             "HiGHS cannot answer"]
    X, y = noisy(120, 3, seed=7)
    folder = tmp_path / "noisy"
    folder.mkdir()
    pattern = parts_on_disk(folder, X, y, [0, 60, 120])
    with monkeypatch.context() as patch:
        patch.setattr(cluster_report, "best_freund_schapire_bound_of_rows", cannot_answer)
        ours = json.loads(run("certify", pattern, "--dask", address, "--json"))
    assert ours["separable"] is False and ours["certificate_exact"] is True
    assert ours["mistake_bound"] is None
    assert ours["notes"] == ["mistake_bound not computed: SolverError: HiGHS cannot answer"]


def test_certify_on_a_scheduler_does_not_hide_a_bug_behind_a_note(address, tmp_path,
                                                                   monkeypatch):
    def broken(*args, **kwargs):
        raise TypeError("a bug")

    X, y = separable(60, 2, seed=8)[:2]
    pattern = parts_on_disk(tmp_path, X, y, [0, 30, 60])
    monkeypatch.setattr(report_modules()[1], "max_margin", broken)
    result = CliRunner().invoke(app, ["certify", pattern, "--dask", address, "--json"])
    assert result.exit_code != 0 and isinstance(result.exception, TypeError)


@pytest.mark.parametrize("model", ["perceptron", "logistic", "linear"])
def test_fit_on_a_scheduler_with_a_test_set(address, tmp_path, model):
    X, y = noisy(200, 3, seed=3)
    pattern = parts_on_disk(tmp_path, X[:150], y[:150], [0, 70, 150])
    dump_svmlight_file(X[150:], y[150:], str(tmp_path / "test.svm"), zero_based=False)
    out = tmp_path / "m.npz"
    record = json.loads(run("fit", pattern, "--dask", address, "--model", model,
                            "--test", tmp_path / "test.svm", "--out", out, "--json"))
    model_ = halfspaces.load(out)
    X_test = read_svmlight_files([tmp_path / "test.svm"], n_features=3)[0][0]
    assert record["n_test"] == 50
    measured = "test_r2" if model == "linear" else "test_accuracy"  # R^2 for regression
    assert record[measured] == pytest.approx(model_.score(X_test, y[150:]), rel=1e-9)


def test_zero_based_files_keep_their_index_base_for_the_test_set_and_the_model(address,
                                                                               tmp_path):
    # the training files use index 0; the test file has no entry in column 0, so on its own
    # it would read as one-based and every feature would shift by one
    X, y = noisy(200, 3, seed=4)
    X[150:, 0] = 0.0
    for i, (a, b) in enumerate([(0, 70), (70, 150)]):
        dump_svmlight_file(X[a:b], y[a:b], str(tmp_path / f"part-{i}.svm"), zero_based=True)
    test = tmp_path / "test.svm"
    dump_svmlight_file(X[150:], y[150:], str(test), zero_based=True)
    out = tmp_path / "m.npz"
    record = json.loads(run("fit", tmp_path / "part-*.svm", "--dask", address, "--model",
                            "logistic", "--test", test, "--out", out, "--json"))
    model = halfspaces.load(out)
    assert record["test_accuracy"] == pytest.approx(model.score(X[150:], y[150:]), rel=1e-12)
    predicted = tmp_path / "predicted.txt"
    run("predict", out, test, "--out", predicted)
    assert np.loadtxt(predicted).tolist() == model.predict(X[150:]).tolist()


def test_usage_errors_name_the_option(tmp_path):
    X, y = noisy(20, 2)
    pattern = parts_on_disk(tmp_path, X, y, [0, 10, 20])
    result = CliRunner().invoke(app, ["fit", str(tmp_path / "part-0.svm"),
                                      str(tmp_path / "part-1.svm")])
    assert result.exit_code != 0 and "--dask" in result.output
    result = CliRunner().invoke(app, ["fit", pattern, "--dask", "local:0"])
    assert result.exit_code != 0 and "local:N" in str(result.exception)
    result = CliRunner().invoke(app, ["fit", pattern, "--dask", "local:1", "--model", "voted"])
    assert result.exit_code != 0 and "does not train on a cluster" in str(result.exception)


def test_empty_files_on_a_cluster_give_no_partition_or_a_named_error(address, tmp_path):
    X, y = noisy(40, 2, seed=5)
    dump_svmlight_file(X, y, str(tmp_path / "d.svm"), zero_based=False)
    (tmp_path / "empty.svm").write_text("")
    record = json.loads(run("fit", tmp_path / "d.svm", tmp_path / "empty.svm", "--dask",
                            address, "--model", "perceptron", "--json"))
    assert record["n_train"] == 40
    result = CliRunner().invoke(app, ["fit", str(tmp_path / "d.svm"), "--dask", address,
                                      "--test", str(tmp_path / "empty.svm")])
    assert result.exit_code != 0
    assert "empty.svm: the files hold no samples" in str(result.exception)


def test_a_worker_count_in_other_digits_is_refused_by_name(tmp_path):
    X, y = noisy(20, 2)
    pattern = parts_on_disk(tmp_path, X, y, [0, 10, 20])
    result = CliRunner().invoke(app, ["fit", pattern, "--dask", "local:\u00b2"])
    assert result.exit_code != 0 and "local:N" in str(result.exception)


EXTREME = {  # rows whose squares leave float64: the cluster's R was inf (or 0)
    "1e308": "label,a,b\n0,-1e308,0\n1,1e308,0\n0,0,1\n1,1,1\n",
    "1e200": "label,a,b\n0,-1e200,0\n1,1e200,0\n0,0,1\n1,1,1\n",
    "1e-200": "label,a,b\n0,-1e-200,0\n1,1e-200,0\n0,0,1e-200\n1,1e-200,1e-200\n",
}


@pytest.mark.parametrize("case", list(EXTREME))
@pytest.mark.parametrize("intercept", ["--intercept", "--no-intercept"])
def test_certify_on_a_scheduler_of_extreme_entries_gives_the_serial_record(
        address, tmp_path, case, intercept):
    # R = sqrt(max ||z_i||^2) was inf for entries 1e200 (the Freund-Schapire search then
    # failed on an empty argmin) and 0 for entries 1e-200 (a Novikoff bound of 0 mistakes);
    # the cluster's R is now scaled per partition, as theory.radius scales
    data = tmp_path / "d.csv"
    data.write_text(EXTREME[case])
    ours = json.loads(run("certify", data, intercept, "--dask", address, "--json"))
    theirs = json.loads(run("certify", data, intercept, "--json"))
    assert ours["radius"] == theirs["radius"] > 0
    assert ours["separable"] is theirs["separable"]
    assert ours["mistake_bound_kind"] == theirs["mistake_bound_kind"]
    assert ours["notes"] == theirs["notes"]
    if case == "1e-200" and intercept == "--intercept":
        # Novikoff's (R' B)^2 with B = 2e200 is beyond float64: null with a note, where
        # the cluster's Python float ** 2 raised OverflowError and the serial --json
        # refused an inf
        assert ours["mistake_bound"] is theirs["mistake_bound"] is None
        assert ours["notes"][-1] == "mistake_bound not shown: inf, beyond float64"
        return
    assert ours["mistake_bound"] == pytest.approx(theirs["mistake_bound"], rel=1e-9)
    assert ours["mistake_bound"] >= 1.0


def test_certify_on_a_scheduler_measures_a_certificate_residual_of_1e183(address, tmp_path):
    # NumPy's norm of Z^T a, sqrt(x.x), squared ~1e183 to inf: --json refused the record
    X, y = noisy(120, 3, seed=7)
    pattern = parts_on_disk(tmp_path, X * 1e200, y, [0, 60, 120])
    ours = json.loads(run("certify", pattern, "--dask", address, "--json"))
    serial = tmp_path / "all.svm"
    dump_svmlight_file(X * 1e200, y, str(serial), zero_based=False)
    theirs = json.loads(run("certify", serial, "--json"))
    assert ours["separable"] is theirs["separable"] is False
    assert ours["certificate_exact"] is theirs["certificate_exact"] is True
    assert 0.0 < ours["certificate_residual"] <= 1e-9 * ours["radius"]
    assert ours["radius"] == theirs["radius"]
    assert ours["mistake_bound"] == pytest.approx(theirs["mistake_bound"], rel=1e-6)
    assert ours["notes"] == theirs["notes"] == []


@pytest.mark.filterwarnings("ignore:invalid value encountered in reduce:RuntimeWarning")
def test_certify_on_a_scheduler_of_rows_beyond_float64_leaves_the_radius_empty(address,
                                                                              tmp_path):
    # ||(1, 1.5e308, 1.5e308)|| = 2.1e308: R itself is beyond float64 (inf). --json has no
    # inf: it refused the record; the bound, found on rows scaled by a power of two, stands
    data = tmp_path / "d.csv"
    data.write_text("label,a,b\n0,-1.5e308,-1.5e308\n1,1.5e308,1.5e308\n0,0,1\n1,1,1\n")
    ours = json.loads(run("certify", data, "--dask", address, "--json"))
    theirs = json.loads(run("certify", data, "--json"))
    assert ours["radius"] is theirs["radius"] is None
    assert ours["notes"] == theirs["notes"]
    assert ours["notes"][-1] == "radius not shown: inf, beyond float64"
    assert ours["mistake_bound"] == pytest.approx(theirs["mistake_bound"], rel=1e-9)


def test_fit_on_a_scheduler_keeps_the_csv_headers_names_in_the_model(address, tmp_path):
    # the model saved by --dask had no feature_names_in_: a DataFrame in another column
    # order scored silently wrong in Python; scikit-learn's own check is the oracle
    import pandas as pd
    from sklearn.linear_model import Perceptron as Reference

    X, y = separable(80, 3, seed=3)[:2]
    frame = pd.DataFrame(X, columns=["u", "v", "w"])
    for i, (a, b) in enumerate([(0, 30), (30, 80)]):
        frame[a:b].assign(label=y[a:b]).to_csv(tmp_path / f"part-{i}.csv", index=False,
                                               float_format="%.17g")
    out = tmp_path / "named.hs"
    run("fit", tmp_path / "part-*.csv", "--dask", address, "--model", "perceptron",
        "--label-column", "label", "--out", out)
    model = halfspaces.load(out)
    assert model.feature_names_in_.tolist() == ["u", "v", "w"]
    shuffled = frame[["w", "u", "v"]]
    with pytest.raises(ValueError) as theirs:
        Reference(max_iter=2, tol=None).fit(frame, y).predict(shuffled)
    with pytest.raises(ValueError) as ours:
        model.predict(shuffled)
    assert str(ours.value) == str(theirs.value)
    predicted = json.loads(run("predict", out, tmp_path / "part-0.csv", "--label-column",
                               "label", "--json"))["predictions"]
    assert predicted == model.predict(frame[:30]).tolist()
