"""The CLI's fit path and the theory tools: rules their layer tests let mutants change.

Each test was written for a surviving mutant of ``halfspaces.cli.fit`` or
``halfspaces.theory`` (benchmarks/MUTATION_SURVIVORS.md lists what is left).
Every expected value comes from NumPy, SciPy, scikit-learn or the documented defaults, not
from the function under test.
"""

from __future__ import annotations

import contextlib
import io
import json
import warnings

import numpy as np
import pytest
from _cli import cli_error, fitted, report_lines, run_cli, shifted_problem, write_shifted
from _oracles import linprog_separable

import halfspaces
from halfspaces.cli import main

pytestmark = pytest.mark.filterwarnings("ignore::halfspaces.exceptions.ConvergenceWarning")


# ----------------------------------------------------------------------------- helpers


@pytest.fixture
def shifted_file(tmp_path):
    return write_shifted(tmp_path)  # one-based indices


# ----------------------------------------------------------------------------- cli.fit


class Recorder:
    """predict returns what it is given; score returns -1.0, so the path taken shows."""

    def __init__(self, predicted):
        self.predicted = np.asarray(predicted)

    def predict(self, X):
        return self.predicted

    def score(self, X, y):
        return -1.0


def test_accuracy_takes_the_fast_path_for_every_mix_of_binary_and_multiclass_labels():
    # x__accuracy__mutmut_18 (types < {...}), _21 and _22 ("multiclass" misspelt): labels in
    # one column, binary or multiclass on either side, are counted by the mean, not score()
    from halfspaces.cli._fit_measures import accuracy as measured_accuracy

    three = np.array([0, 1, 2, 1, 0])
    assert measured_accuracy(Recorder(three), None, three) == 1.0  # multiclass on both sides
    assert measured_accuracy(Recorder([0, 1, 1, 1, 0]), None, three) == 0.8  # multiclass vs binary
    assert measured_accuracy(Recorder([0, 1, 2, 2, 0]), None, np.array([0, 1, 1, 1, 0])) == 0.6


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # scikit-learn casts the NaN
def test_accuracy_refuses_nan_labels_with_score_s_own_message():
    # x__accuracy__mutmut_6, _8, _9, _10: input_name is what accuracy_score calls y
    from halfspaces.cli._fit_measures import accuracy as measured_accuracy

    X, y = np.array([[0.0], [1.0], [3.0], [4.0]]), np.array([0, 0, 1, 1])
    clf = fitted(halfspaces.Perceptron(), X, y)
    y_nan = np.array([0.0, np.nan, 1.0, 1.0])
    with pytest.raises(ValueError) as by_score:
        clf.score(X, y_nan)
    with pytest.raises(ValueError) as by_accuracy:
        measured_accuracy(clf, X, y_nan)
    assert str(by_accuracy.value) == str(by_score.value) == "Input y_true contains NaN."


def test_accuracy_falls_back_to_score_with_the_data_and_the_labels():
    # x__accuracy__mutmut_24 (score(None, y)) and _25 (score(X, None)): a column vector of
    # labels goes to score(X, y), which accepts it; the accuracy is the plain mean
    from halfspaces.cli._fit_measures import accuracy as measured_accuracy

    X, y = shifted_problem(seed=3, n=60)
    clf = fitted(halfspaces.Perceptron(max_epochs=1), X, y)
    expected = float(np.mean(clf.predict(X) == y))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # scikit-learn's DataConversionWarning on a column
        assert measured_accuracy(clf, X, y.reshape(-1, 1)) == expected


def test_the_compilation_note_asks_for_the_loops_of_this_estimator_and_this_format(
        monkeypatch, tmp_path):
    # x__announce_compilation__mutmut_7 (_loop_module(model, None)) and _11
    # (_is_svmlight(data, None)): a linear KernelPerceptron trains with the primal loops, and
    # --format csv on a file named .svm reads no svmlight
    import halfspaces._fast as fast
    from halfspaces.cli import fit as fit_module

    asked, notes = [], []
    monkeypatch.setattr(fit_module._output, "note", notes.append)
    monkeypatch.setattr(fit_module.sys.stderr, "isatty", lambda: True, raising=False)
    monkeypatch.setattr(fast, "is_cached", lambda module: asked.append(module) or True)
    table = tmp_path / "table.svm"  # CSV text under an svmlight suffix
    table.write_text("1,0.5\n-1,2.5\n")
    fit_module._announce_compilation("kernel", halfspaces.KernelPerceptron(kernel="linear"),
                                     table, "csv", True)
    assert asked == ["labels", "perceptron"] and notes == []


def test_a_format_that_cannot_be_read_is_not_svmlight(tmp_path):
    # x__is_svmlight__mutmut_11: detect_format refusing the format answers False
    from halfspaces.cli.fit import _is_svmlight

    data = tmp_path / "d.svm"
    data.write_text("1 1:0.5\n")
    assert _is_svmlight(data, "svmlight")
    assert _is_svmlight(data, "bogus") is False


def test_a_model_without_partial_fit_is_refused_a_stream_by_the_option_stream(shifted_file):
    # x__check_streamable__mutmut_10, _12, _15, _16: the usage error names --stream
    code, message = cli_error("fit", str(shifted_file), "--stream", "--model", "lp")
    assert code == 2
    assert message.endswith("Invalid value for --stream: --model lp cannot learn from a "
                            "stream (it has no partial_fit); drop --stream."), message


def test_a_streamed_test_file_is_read_with_the_run_s_format_and_label_column(tmp_path):
    # x__fit_stream__mutmut_71: the test file is read with --format, --label-column and
    # --chunk-size (a CSV under an svmlight suffix, its label in the middle)
    from halfspaces.io.model import load_with_extra

    X, y = shifted_problem(seed=6, n=160)
    train, test = tmp_path / "train.csv", tmp_path / "test.svm"
    for path, rows in ((train, slice(0, 100)), (test, slice(100, None))):
        np.savetxt(path, np.column_stack([X[rows, :2], y[rows], X[rows, 2:]]), delimiter=",",
                   header="a,b,income,c,d", comments="", fmt="%.17g")
    out = tmp_path / "m.hs"
    report = run_cli("fit", str(train), "--test", str(test), "--stream", "--format", "csv",
                     "--label-column", "income", "--chunk-size", "16", "--model",
                     "perceptron", "--out", str(out))
    model, _ = load_with_extra(out)
    assert report["n_test"] == len(y) - 100
    assert report["test_accuracy"] == float(np.mean(model.predict(X[100:]) == y[100:]))


def test_a_streamed_svmlight_model_file_records_the_index_base(shifted_file, tmp_path):
    # x__fit_stream__mutmut_76: the model file of a stream keeps the file's index base
    # (dump_svmlight_file(zero_based=False) wrote 1-based indices)
    from halfspaces.io.model import load_with_extra

    out = tmp_path / "s.hs"
    run_cli("fit", str(shifted_file), "--stream", "--chunk-size", "25", "--model",
            "perceptron", "--out", str(out))
    assert load_with_extra(out)[1]["data"]["zero_based"] is False


def test_an_infinite_mistake_bound_is_left_empty(monkeypatch):
    # x__mistake_bound__mutmut_18: a bound that overflowed to inf ((R / gamma)^2 past 1.8e308)
    # leaves the field None, as documented, so the report stays valid JSON (render uses
    # allow_nan=False). Real data that overflow R / gamma put their columns 1e155 apart,
    # where the hard-margin QP now refuses, so the bound is stubbed here
    import halfspaces.theory
    from halfspaces.cli._fit_measures import mistake_bound

    X, y = np.array([[1.0, 0.0], [-1.0, 0.0], [1.0, 1.0]]), np.array([1, -1, 1])
    clf = fitted(halfspaces.Perceptron(fit_intercept=False), X, y)
    monkeypatch.setattr(halfspaces.theory, "perceptron_mistake_bound",
                        lambda X, y, fit_intercept: float("inf"))
    assert mistake_bound("perceptron", clf, X, y) == (None, ())
    monkeypatch.setattr(halfspaces.theory, "perceptron_mistake_bound",
                        lambda X, y, fit_intercept: 12.0)
    assert mistake_bound("perceptron", clf, X, y) == (12.0, ())


def test_a_bound_the_qp_cannot_certify_leaves_a_note_not_a_false_number():
    # (1, 0)+, (-1, 0)-, (1, 1e155)+: gamma is 1, but the QP's columns are 1e155 apart and
    # its duality gap overflows; the field stays empty and the notes say why
    from halfspaces.cli._fit_measures import mistake_bound

    X, y = np.array([[1.0, 0.0], [-1.0, 0.0], [1.0, 1e155]]), np.array([1, -1, 1])
    clf = fitted(halfspaces.Perceptron(fit_intercept=False), X, y)
    bound, notes = mistake_bound("perceptron", clf, X, y)
    assert bound is None and len(notes) == 1
    assert notes[0].startswith("mistake_bound not computed: SolverError:")
    assert "duality gap is not finite" in notes[0]


def canned_report(**fields):
    from halfspaces.cli.fit import FitReport

    values = dict(dataset="d", model="averaged", selection="cyclic", max_epochs=10,
                  fit_intercept=True, seed=0, n_train=3, n_test=0, n_features=2,
                  train_accuracy=1.0, test_accuracy=None, n_updates=1, n_epochs=2,
                  converged=True, mistake_bound=None, bound_holds=None, fit_time_s=0.0,
                  notes=("a note from the fit",))
    values.update(fields)
    return FitReport(**values)


def test_fit_cli_called_from_python_has_the_command_line_s_defaults(monkeypatch,
                                                                     shifted_file):
    # x_fit_cli__mutmut_1..7 (the defaults of seed, intercept, stream, chunk_size, resume,
    # json_output, quiet) and x__name__mutmut_2, _3 (the default model is the str
    # "averaged", not a ModelName): fit_cli is public; called with only DATA it must hand
    # fit() the settings `halfspaces fit DATA` does, and print a table and the notes
    from halfspaces.cli import fit as fit_module
    from halfspaces.cli.fit import StreamOptions, fit_cli

    calls = []
    monkeypatch.setattr(fit_module, "fit", lambda data, **kw: calls.append((data, kw))
                        or canned_report())
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        fit_cli([shifted_file])
    ((data, settings),) = calls
    assert data == shifted_file
    assert settings == dict(test=None, test_fraction=None, model="averaged", params={},
                            epochs=None, selection="cyclic", seed=0, fit_intercept=True,
                            label_column=None, format=None, out=None, stream=None,
                            show_progress=True, dask=None)
    assert "halfspaces fit: averaged" in out.getvalue()  # a table, not JSON
    with pytest.raises(ValueError):
        json.loads(out.getvalue())
    assert "a note from the fit" in " ".join(err.getvalue().split())  # not quiet
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()), \
            pytest.raises(SystemExit):
        main(["fit", str(shifted_file)])  # the same settings through typer
    assert calls[1][1] == settings
    calls.clear()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        fit_cli([shifted_file], stream=True)
    assert calls[0][1]["stream"] == StreamOptions(chunk_size=10_000, checkpoint=None,
                                                  checkpoint_every=None, resume=False)


def test_a_run_that_meets_novikoffs_bound_exactly_holds_it(tmp_path):
    # on x = 1 (+1) and x = -1 (-1) without an intercept R = gamma = 1, so the bound is 1 and
    # the perceptron makes one update. The bound is rounded up past its rounding error (it
    # once came out 1-2 ulps below such integers), so x__report__mutmut_124 (updates < bound)
    # no longer differs here: the test now pins the rounding, up and by less than 1e-12
    path = tmp_path / "pm.svm"
    path.write_text("1 1:1\n-1 1:-1\n")
    report = run_cli("fit", str(path), "--model", "perceptron", "--no-intercept")
    assert report["n_updates"] == 1 and 1.0 <= report["mistake_bound"] <= 1.0 + 1e-12
    assert report["bound_holds"] is True


# ----------------------------------------------------------------------------- theory


def noisy(seed: int, n: int, d: int, flip: float):
    """Gaussian points labelled by a random halfspace, a fraction of the labels flipped."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = np.where(X @ rng.normal(size=d) > 0, 1.0, -1.0)
    y[rng.random(n) < flip] *= -1
    return X, y


XOR = np.array([[0.0, 0.0], [1.0, 1.0], [0.0, 1.0], [1.0, 0.0]]), np.array([1, 1, 0, 0])
LONG_DOUBLE = np.finfo(np.longdouble).eps < np.finfo(np.float64).eps
needs_long_double = pytest.mark.skipif(not LONG_DOUBLE,
                                       reason="np.longdouble is float64 on this platform")


def test_freund_schapire_refuses_a_float32_u_that_is_not_unit_in_float64():
    # x__check_u__mutmut_3, _5: u is read as float64; float32 (0.6, 0.8) has norm
    # 1 + 2.4e-8 there (beyond the documented 1e-9), though its float32 norm rounds to 1
    from halfspaces.theory import freund_schapire_bound

    u = np.array([0.6, 0.8], dtype=np.float32)
    assert abs(np.linalg.norm(u.astype(np.float64)) - 1.0) > 1e-9
    with pytest.raises(ValueError, match="u must be a unit vector"):
        freund_schapire_bound([[1.0], [-1.0], [0.5]], [1, -1, -1], u, 0.5)


def test_the_best_freund_schapire_u_is_a_unit_vector_in_floating_point():
    # x__unit_and_gamma__mutmut_5 (v * ||v||), _6 (u * ||u||): "u renormalised so that
    # ||u|| = 1 in floating point"; on this sample v / ||v|| alone has a norm 1 ulp off
    from halfspaces.theory import best_freund_schapire_bound

    X, y = noisy(1, 30, 3, 0.1)
    bound, u, gamma = best_freund_schapire_bound(X, y)
    assert np.linalg.norm(u) == 1.0


@needs_long_double
def test_functional_margins_read_the_weights_as_float64():
    # x__coef__mutmut_3, _5: a long double weight 1 + 2^-60 is 1.0 in float64
    from halfspaces.theory import functional_margins

    coef = np.array([1], dtype=np.longdouble) + np.longdouble(2) ** -60
    assert coef[0] != 1 and np.float64(coef[0]) == 1.0
    margins = functional_margins([[1.0], [-2.0]], [1, -1], coef)
    assert margins.dtype == np.float64 and margins.tolist() == [1.0, 2.0]


@needs_long_double
def test_geometric_margins_divide_by_the_norm_of_the_float64_weights():
    # x__geometric_margins__mutmut_6, _8: (3, 4) plus 0.49 ulp each rounds to (3, 4) in
    # float64 (norm 5), while its long double norm rounds to 5 + 2^-50
    from halfspaces.theory import geometric_margins

    coef = (np.array([3, 4], dtype=np.longdouble)
            + np.array([0.49 * 2.0**-51, 0.49 * 2.0**-50], dtype=np.longdouble))
    assert coef.astype(np.float64).tolist() == [3.0, 4.0]
    assert float(np.linalg.norm(coef)) != 5.0  # what the weights' own norm would give
    assert geometric_margins([[3.0, 4.0]], [1], coef).tolist() == [5.0]  # 25 / 5


def test_a_report_names_each_undefined_number_with_its_word():
    # xǁCertifyReportǁ_rows__mutmut_14 and x__number__mutmut_1, _2: nan prints as
    # "undefined (w = 0)" for the model margin and as "undefined" elsewhere
    from halfspaces.theory import CertifyReport

    nan = float("nan")
    report = CertifyReport("Perceptron", 2, 1, False, 0.0, nan, nan, True, nan, "Novikoff",
                           nan, None, None, None)
    lines = report_lines(report)
    assert lines["model margin"] == "undefined (w = 0)"
    assert lines["radius R"] == "undefined"
    assert lines["margin gamma' (on x')"] == "undefined"
    assert lines["Novikoff mistake bound"] == "undefined"


def test_the_rich_table_prints_its_labels_in_bold():
    # xǁCertifyReportǁ__rich____mutmut_9 (style=None)
    from rich.console import Console

    from halfspaces.theory import CertifyReport

    report = CertifyReport("Perceptron", 2, 1, False, 0.0, 1.0, 1.0, True, 1.0, "Novikoff",
                           1.0, 1, True, None)
    console = Console(file=io.StringIO(), force_terminal=True, color_system="standard",
                      width=100)
    console.print(report)
    text = console.file.getvalue()
    for label in ("estimator", "radius R", "Novikoff mistake bound"):
        assert f"\x1b[1m{label}" in text  # SGR 1: bold


def test_the_model_margin_uses_the_float64_norm_of_a_float32_coef():
    # x__model_margin__mutmut_3, _5: scikit-learn keeps coef_ float32 after a float32 fit;
    # its norm in float32 differs in the last bits from the float64 norm of the same values
    from sklearn.linear_model import LogisticRegression

    from halfspaces.theory import certify

    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 3)).astype(np.float32)
    y = (X @ np.array([1.0, -2.0, 0.5]) > 0).astype(int)
    clf = LogisticRegression(C=0.1).fit(X, y)
    assert clf.coef_.dtype == np.float32
    w = clf.coef_.ravel()
    assert float(np.linalg.norm(w)) != float(np.linalg.norm(w.astype(np.float64)))
    y_pm = np.where(y == 1, 1.0, -1.0)
    expected = float(np.min(y_pm * clf.decision_function(X.astype(np.float64)))
                     / np.linalg.norm(w.astype(np.float64)))
    assert certify(clf, X, y).model_margin == expected


def counted(inner, **counters):
    """A fitted binary linear classifier with only the counters given (no selection, no
    warm_start): what certify documents it takes, from outside the library."""
    from sklearn.base import BaseEstimator, ClassifierMixin

    class Counted(ClassifierMixin, BaseEstimator):
        def fit(self, X, y):
            return self

        def predict(self, X):
            return inner.predict(X)

        def decision_function(self, X):
            return inner.decision_function(X)

    estimator = Counted()
    estimator.coef_, estimator.intercept_ = inner.coef_, inner.intercept_
    estimator.classes_, estimator.fit_intercept = inner.classes_, inner.fit_intercept
    for name, value in counters.items():
        setattr(estimator, name, value)
    return estimator


def xor_run():
    X, y = XOR
    inner = fitted(halfspaces.Perceptron(max_epochs=3), X, y)
    y_pm = np.where(y == 1, 1.0, -1.0)
    return X, y, y_pm, inner


def test_a_classifier_without_selection_or_warm_start_gets_the_bound_of_its_passes():
    # x__fs_for_run__mutmut_36 (selection without default), _49 (warm_start without
    # default), _52 (warm_start defaulting to True): counted passes are cyclic, not warm
    from halfspaces.theory import best_freund_schapire_bound, certify

    X, y, y_pm, inner = xor_run()
    E = inner.n_epochs_
    report = certify(counted(inner, n_updates_=inner.n_updates_, n_epochs_=E), X, y)
    _, u, gamma = best_freund_schapire_bound(X, y_pm, True)
    Z = y_pm[:, None] * np.column_stack([np.ones(len(X)), X])
    R = float(np.max(np.linalg.norm(Z, axis=1)))
    D = float(np.linalg.norm(np.maximum(0.0, gamma - Z @ u)))
    assert report.bound_name == f"Freund-Schapire ({E} passes)"
    assert report.mistake_bound == pytest.approx(((R + np.sqrt(E) * D) / gamma) ** 2,
                                                 rel=1e-9)
    assert report.within_bound is (inner.n_updates_ <= report.mistake_bound)


def test_a_classifier_with_passes_but_no_update_count_gets_the_one_pass_bound():
    # x__fs_for_run__mutmut_16 (`and`), _22 (n_updates_ read without a default)
    from halfspaces.theory import best_freund_schapire_bound, certify

    X, y, y_pm, inner = xor_run()
    report = certify(counted(inner, n_epochs_=inner.n_epochs_), X, y)
    assert report.bound_name == "Freund-Schapire"
    assert report.mistake_bound == pytest.approx(
        best_freund_schapire_bound(X, y_pm, True).bound, rel=1e-12)
    assert report.n_updates is None and report.within_bound is None


def test_an_update_count_without_passes_gets_no_verdict():
    # x__fs_for_run__mutmut_26: without n_epochs_ the one-pass bound does not apply to the
    # updates counted, so there is no verdict
    from halfspaces.theory import certify

    X, y, _, inner = xor_run()
    report = certify(counted(inner, n_updates_=inner.n_updates_), X, y)
    assert report.bound_name == "Freund-Schapire"
    assert report.n_updates == inner.n_updates_ and report.within_bound is None


def test_per_class_update_counts_are_not_a_run_s_count():
    # x_certify__mutmut_52: n_updates_ that is not a scalar (one count per class) is
    # reported as no count, not converted
    from halfspaces.theory import certify

    X, y, _, inner = xor_run()
    report = certify(counted(inner, n_updates_=np.array([3, 4]), n_epochs_=3), X, y)
    assert report.n_updates is None and report.within_bound is None


def test_a_point_within_float_noise_of_the_span_is_not_in_it():
    # once x__dependence__mutmut_27 and _28 of a float search with a tolerance of 1e-10
    # max|x|, which took x_1 = x_0 + (0, 1e-10) for a multiple of x_0: a = (1, -1, 0), not a
    # dependence. Exactly, x_0 and x_1 are independent and x_2 = (top / gap)(x_1 - x_0), so
    # a = (-top/gap, top/gap, -1) and the labeling is (-1, +1, -1)
    from halfspaces.theory import unrealizable_labeling

    for top, gap in ((1.0, 1e-10), (1.5, 1e-10)):
        points = np.array([[top, 0.0], [top, gap], [0.0, top]])
        labeling = unrealizable_labeling(points, fit_intercept=False)
        assert labeling.tolist() == [-1, 1, -1]
        assert not linprog_separable(points, labeling, fit_intercept=False)


def test_a_point_beyond_the_relative_tolerance_is_independent():
    # x__dependence__mutmut_13 (tolerance floor 2e-10): x_2 is 1.5e-10 from the span of x_1
    # (the largest scaled entry is 1), so it is kept; x_3 = 2 x_1 then gives the dependence,
    # and x_1, x_3 get opposite labels
    from halfspaces.theory import unrealizable_labeling

    points = np.array([[1.0, 0.0], [1.0, 1.5e-10], [2.0, 0.0], [0.0, 1.0]])
    labeling = unrealizable_labeling(points, fit_intercept=False)
    assert labeling[0] == 1 and labeling[2] == -1 and labeling[3] == 1
    assert not linprog_separable(points, labeling, fit_intercept=False)


@needs_long_double
def test_the_model_margin_reads_long_double_decision_values_as_float64():
    # x__model_margin__mutmut_13, _15: a classifier whose decision_function computes in long
    # double (3 * 0.1 = 0.3000000000000000166); certify reads the scores as float64 first
    # (0.30000000000000004), so the margin is 0.30000000000000004 / 3, not 0.1
    from sklearn.base import BaseEstimator, ClassifierMixin

    from halfspaces.theory import certify

    class LongDouble(ClassifierMixin, BaseEstimator):
        coef_, intercept_, classes_ = np.array([[3.0]]), np.array([0.0]), np.array([0, 1])

        def fit(self, X, y):
            return self

        def decision_function(self, X):
            return np.asarray(X, dtype=np.longdouble)[:, 0] * np.longdouble(3)

        def predict(self, X):
            return self.classes_[(self.decision_function(X) > 0).astype(int)]

    X, y = np.array([[0.1], [-0.7]]), np.array([1, 0])
    clf = LongDouble()
    scores = clf.decision_function(X).astype(np.float64)
    expected = float(np.min(np.array([1.0, -1.0]) * scores) / 3.0)
    assert expected != 0.1
    assert certify(clf, X, y).model_margin == expected
