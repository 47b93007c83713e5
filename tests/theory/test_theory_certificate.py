import io
import json

import numpy as np
import pytest
from _cli import fitted, report_lines
from _datasets import hidden_separator
from _oracles import (
    check_certificate,
    exact_least_score,
    min_norm_point_norm,
    noisy_sample,
    separable_sample,
    signed,
)
from rich.console import Console
from sklearn.svm import SVC

from halfspaces.erm import LinearProgramClassifier, MaxMarginClassifier
from halfspaces.kernel import KernelPerceptron, VotedKernelPerceptron
from halfspaces.linear_regression import LinearRegression
from halfspaces.perceptron import AveragedPerceptron, Perceptron, PocketPerceptron
from halfspaces.theory import (
    CertifyReport,
    best_freund_schapire_bound,
    certify,
    perceptron_mistake_bound,
    radius,
)

XOR = np.array([[0.0, 0.0], [1.0, 1.0], [0.0, 1.0], [1.0, 0.0]]), np.array([1, 1, 0, 0])

# certify is checked on runs over inseparable data, which warn that they did not converge
pytestmark = pytest.mark.filterwarnings("ignore::halfspaces.exceptions.ConvergenceWarning")


def test_separable_perceptron_within_novikoff():
    X, y = separable_sample(np.random.default_rng(0), 100, 3, gap=0.2)
    clf = Perceptron(max_epochs=10_000).fit(X, y)
    cert = certify(clf, X, y)
    assert cert.separable and cert.certificate is None and cert.bound_name == "Novikoff"
    gamma = min_norm_point_norm(signed(X, y, True))  # independent: NNLS
    assert cert.mistake_bound == pytest.approx((radius(X, True) / gamma) ** 2, rel=1e-5)
    assert cert.n_updates == clf.n_updates_ and cert.within_bound
    assert cert.training_error == 0.0 and cert.model_margin > 0
    # R on x' = (1, x), by NumPy
    assert cert.radius == pytest.approx(np.linalg.norm(np.c_[np.ones(100), X], axis=1).max(),
                                        rel=1e-12)


def test_xor_certificate_and_outputs():
    X, y = XOR
    cert = certify(PocketPerceptron(max_epochs=20).fit(X, y), X, y)
    assert not cert.separable and cert.gamma is None
    check_certificate(X, np.where(y == 1, 1, -1), cert.certificate)
    assert cert.within_bound  # E passes as one sequence: ((R + sqrt(E) D) / gamma)^2
    assert "Freund-Schapire" in str(cert) and "separable" in str(cert)
    json.dumps(cert.to_dict())
    console = Console(record=True, width=100)
    console.print(cert)
    text = console.export_text()
    assert "halfspaces certify" in text and "Gordan certificate proved exactly" in text


def test_report_has_the_documented_fields():
    X, y = XOR
    report = certify(Perceptron(max_epochs=5).fit(X, y), X, y)
    assert isinstance(report, CertifyReport)
    assert sorted(report.to_dict()) == sorted([
        "estimator", "n_samples", "n_features", "fit_intercept", "training_error",
        "model_margin", "radius", "separable", "gamma", "bound_name", "mistake_bound",
        "n_updates", "within_bound", "certificate", "certificate_exact", "notes"])
    assert report.notes == () and report.to_dict()["notes"] == []


def test_worst_selection_has_no_bound_on_non_separable_data():
    X, y = noisy_sample(np.random.default_rng(1), 60, 2)
    cert = certify(AveragedPerceptron(selection="worst", max_epochs=3).fit(X, y), X, y)
    assert cert.within_bound is None


def test_any_linear_classifier_of_the_library():
    X, y = separable_sample(np.random.default_rng(2), 60, 2, gap=0.2)
    mm = MaxMarginClassifier().fit(X, y)
    cert = certify(mm, X, y)
    assert cert.model_margin == pytest.approx(mm.margin_) and cert.n_updates is None
    X, y = noisy_sample(np.random.default_rng(3), 80, 2)
    cert = certify(LinearProgramClassifier(on_infeasible="hinge").fit(X, y), X, y)
    assert not cert.separable and cert.mistake_bound > 0


def test_a9a_certificate(a9a):
    X, y = a9a
    X, y = X[:5000], y[:5000]  # keeps the Freund-Schapire search short; still not separable
    cert = certify(Perceptron(max_epochs=2).fit(X, y), X, y)
    assert not cert.separable
    check_certificate(X, np.where(y > 0, 1, -1), cert.certificate)
    assert cert.within_bound


def test_multiclass_is_refused():
    X = np.array([[0.0], [1.0], [2.0]])
    with pytest.raises(ValueError, match="binary"):
        certify(Perceptron().fit(X, [0, 1, 2]), X, [0, 1, 2])


@pytest.mark.parametrize("make, match", [
    (lambda: LinearRegression(), "LinearRegression is a regressor: it has no classes"),
    (lambda: KernelPerceptron(kernel="rbf"), "feature space of its kernel \\('rbf'\\)"),
    (lambda: KernelPerceptron(kernel="linear"), "feature space of its kernel \\('linear'\\)"),
    (lambda: VotedKernelPerceptron(kernel="poly"), "feature space of its kernel \\('poly'\\)"),
    (lambda: SVC(kernel="rbf"), "feature space of its kernel"),  # scikit-learn's, alike
])
@pytest.mark.parametrize("fit", [True, False])
def test_what_certify_cannot_report_on_is_named_with_what_applies(make, match, fit):
    # fitted, these were told "This LinearRegression instance is not fitted yet"
    X, y = separable_sample(np.random.default_rng(5), 30, 2, gap=0.2)
    model = make()
    if fit:
        model.fit(X, y.astype(float) if isinstance(model, LinearRegression) else y)
    with pytest.raises(TypeError, match=match) as caught:
        certify(model, X, y)
    assert "not fitted" not in str(caught.value)
    assert "data_report" in str(caught.value)


def test_a_kernel_classifier_with_a_hyperplane_in_the_space_of_x_is_certified():
    # scikit-learn's linear-kernel SVC has coef_: its hyperplane is one certify can read
    X, y = separable_sample(np.random.default_rng(6), 40, 2, gap=0.2)
    svc = SVC(kernel="linear", C=1e6).fit(X, y)
    report = certify(svc, X, y)
    assert report.separable and report.training_error == 0.0
    scores = X @ svc.coef_.ravel() + svc.intercept_[0]  # the margin, by NumPy
    assert report.model_margin == pytest.approx(
        np.min(np.where(y == svc.classes_[1], 1, -1) * scores) / np.linalg.norm(svc.coef_),
        rel=1e-9)


def test_report_prints_no_nan_and_no_negative_zero():
    X, y = np.array([[0.0], [1.0]]), np.array([0, 1])
    clf = Perceptron().fit(X, y)
    clf.coef_, clf.intercept_ = np.array([[1.0]]), np.array([0.0])  # x = 0 on the boundary
    report = certify(clf, X, y)
    assert np.signbit(report.model_margin) and report.model_margin == 0.0  # -0.0 itself
    line = next(line for line in str(report).splitlines() if line.startswith("model margin"))
    assert line.split()[-1] == "0"
    clf.coef_ = np.array([[0.0]])
    report = certify(clf, X, y)
    assert np.isnan(report.model_margin)
    assert "nan" not in str(report) and "undefined (w = 0)" in str(report)


def test_certify_follows_the_estimators_fit_intercept():
    # separable through the origin, with R and gamma on x (no constant feature) different
    # from those on x' = (1, x): each is recomputed here by NNLS and norms
    X, y = separable_sample(np.random.default_rng(4), 50, 3, gap=0.2, fit_intercept=False)
    clf = Perceptron(fit_intercept=False, max_epochs=10_000).fit(X, y)
    report = certify(clf, X, y)
    R = float(np.max(np.linalg.norm(X, axis=1)))
    gamma = min_norm_point_norm(signed(X, y, False))
    assert R != pytest.approx(float(np.max(np.linalg.norm(np.c_[np.ones(50), X], axis=1))))
    assert report.fit_intercept is False and report.separable
    assert report.radius == pytest.approx(R, rel=1e-12)
    assert report.gamma == pytest.approx(gamma, rel=1e-5)
    assert report.mistake_bound == pytest.approx((R / gamma) ** 2, rel=1e-5)
    assert (report.estimator, report.n_samples, report.n_features) == ("Perceptron", 50, 3)
    assert report.n_updates == clf.n_updates_ <= report.mistake_bound


def test_a_run_that_meets_novikoffs_bound_exactly_is_within_it():
    # x = (1, 0) labelled +1 and (-1, 0) labelled -1, no intercept: both signed rows are
    # (1, 0), so R = gamma = 1 and the bound is 1; the perceptron makes exactly one update
    X, y = np.array([[1.0, 0.0], [-1.0, 0.0]]), np.array([1, 0])
    clf = Perceptron(fit_intercept=False).fit(X, y)
    report = certify(clf, X, y)
    assert clf.n_updates_ == 1 and report.mistake_bound == pytest.approx(1.0)
    assert report.within_bound is True


def test_report_text_shows_every_field_with_its_value():
    X, y = separable_sample(np.random.default_rng(5), 40, 2, gap=0.2)
    report = certify(Perceptron(max_epochs=10_000).fit(X, y), X, y)
    assert report_lines(report) == {
        "estimator": "Perceptron",
        "samples x features": "40 x 2",
        "training error": "0.0000%",
        "model margin": f"{report.model_margin:.6g}",
        "radius R": f"{report.radius:.6g}",
        "separable": "yes",
        "margin gamma' (on x')": f"{report.gamma:.6g}",
        "Novikoff mistake bound": f"{report.mistake_bound:.6g}",
        "perceptron updates": f"{report.n_updates} (within bound)",
    }
    console = Console(record=True, width=120)
    console.print(report)
    table = [line.strip("│ ").split("│") for line in console.export_text().splitlines()]
    cells = {row[0].strip(): row[1].strip() for row in table if len(row) == 2}
    assert cells == report_lines(report)  # the table's rows are the text's, nothing more
    assert table[0] == ["halfspaces certify"]
    assert len(table) == len(cells) + 3  # the title, two borders: no header row


def test_report_text_of_inseparable_data_and_of_broken_or_inapplicable_bounds():
    X, y = XOR
    clf = Perceptron(max_epochs=3).fit(X, y)
    lines = report_lines(certify(clf, X, y))
    assert lines["separable"] == "no (Gordan certificate proved exactly)"
    assert "margin gamma' (on x')" not in lines
    assert lines["training error"] == f"{1 - clf.score(X, y):.4%}"
    assert lines["Freund-Schapire (3 passes) mistake bound"]
    assert lines["perceptron updates"] == f"{clf.n_updates_} (within bound)"
    clf.n_updates_ = 10**6  # more updates than any bound allows: the report says so
    report = certify(clf, X, y)
    assert report.within_bound is False
    assert report_lines(report)["perceptron updates"] == "1000000 (EXCEEDS bound)"
    worst = AveragedPerceptron(selection="worst", max_epochs=3).fit(X, y)
    lines = report_lines(certify(worst, X, y))
    assert lines["perceptron updates"] == f"{worst.n_updates_} (bound n/a)"
    assert "Freund-Schapire (one pass; n/a to this run) mistake bound" in lines
    report = certify(MaxMarginClassifier().fit(*separable_sample(np.random.default_rng(6),
                                                                 20, 2, gap=0.3)),
                     *separable_sample(np.random.default_rng(6), 20, 2, gap=0.3))
    assert "perceptron updates" not in report_lines(report)  # no updates to count


def test_report_as_json_holds_the_certificate_itself():
    X, y = XOR
    report = certify(Perceptron(max_epochs=3).fit(X, y), X, y)
    plain = json.loads(json.dumps(report.to_dict()))
    assert plain["certificate"] == report.certificate.tolist()
    assert plain["fit_intercept"] is True and plain["separable"] is False


def test_bad_labels_are_named():
    X, y = XOR
    clf = Perceptron().fit(X, y)
    with pytest.raises(ValueError, match=r"^y holds labels \[7\] not in classes_ \[0, 1\]\.$"):
        certify(clf, X, [0, 7, 1, 0])
    with pytest.raises(ValueError, match="Perceptron has 3 classes"):
        certify(Perceptron().fit(X[:3], [0, 1, 2]), X[:3], [0, 1, 2])


@pytest.mark.parametrize("fit_intercept", [True, False])
def test_freund_schapire_bound_is_stretched_to_the_runs_passes(fit_intercept):
    # E passes over inseparable data are one sequence with deficit sqrt(E) D, so the report
    # gives ((R + sqrt(E) D) / gamma)^2 at the best (u, gamma) of one pass; R and D are
    # recomputed here from the signed rows by NumPy
    # (few flipped labels: the best bound is below n, a margin's, where R counts; with 20%
    # flipped it was the bound n of a vanishing v, gamma ~ 1e9, where R vanished beside D)
    X, y = noisy_sample(np.random.default_rng(7), 100, 2, flip=0.05)
    clf = Perceptron(fit_intercept=fit_intercept, max_epochs=5).fit(X, y)
    report = certify(clf, X, y)
    y_pm = np.where(y == clf.classes_[1], 1.0, -1.0)
    one_pass, u, gamma = best_freund_schapire_bound(X, y_pm, fit_intercept)
    Z = signed(X, y_pm, fit_intercept)
    R = float(np.max(np.linalg.norm(Z, axis=1)))
    D = float(np.linalg.norm(np.maximum(0.0, gamma - Z @ u)))
    assert one_pass < len(X) and D > 0 and R > 0.1 * D
    assert one_pass == pytest.approx(((R + D) / gamma) ** 2, rel=1e-9)
    assert not report.separable and report.fit_intercept is fit_intercept
    assert report.bound_name == f"Freund-Schapire ({clf.n_epochs_} passes)"
    assert report.mistake_bound == pytest.approx(
        ((R + np.sqrt(clf.n_epochs_) * D) / gamma) ** 2, rel=1e-9)
    assert report.within_bound is (clf.n_updates_ <= report.mistake_bound)
    assert report.within_bound


def test_freund_schapire_bound_of_a_warm_started_or_updateless_classifier():
    # a warm start continues the count of updates, and n_steps_ the count of examples: two
    # fits of 2 passes are 4 passes; a classifier with no update count gets the one-pass bound
    X, y = noisy_sample(np.random.default_rng(8), 40, 2, flip=0.2)
    y_pm = np.where(y == 1, 1.0, -1.0)
    one_pass = best_freund_schapire_bound(X, y_pm, True).bound
    warm = Perceptron(warm_start=True, max_epochs=2).fit(X, y)
    first = warm.n_updates_
    warm.fit(X, y)
    assert warm.n_steps_ == 160 and warm.n_updates_ > first
    report = certify(warm, X, y)
    assert report.bound_name == "Freund-Schapire (4 passes)"
    assert report.within_bound is True and report.n_updates == warm.n_updates_
    assert report.mistake_bound > one_pass
    lp = LinearProgramClassifier(on_infeasible="hinge").fit(X, y)
    report = certify(lp, X, y)
    assert report.bound_name == "Freund-Schapire" and report.n_updates is None
    assert report.within_bound is None
    assert report.mistake_bound == pytest.approx(one_pass, rel=1e-12)


def test_a_classifier_from_elsewhere_gets_the_one_pass_bound_and_no_verdict():
    # scikit-learn's Perceptron keeps no update count or passes: the bound is Freund and
    # Schapire's for one pass, and there is nothing to hold against it
    from sklearn.linear_model import Perceptron as SkPerceptron

    X, y = noisy_sample(np.random.default_rng(7), 100, 2, flip=0.05)
    y_pm = np.where(y == 1, 1.0, -1.0)
    for fit_intercept in (True, False):
        sk = SkPerceptron(fit_intercept=fit_intercept, max_iter=5, tol=None).fit(X, y)
        report = certify(sk, X, y)
        assert report.bound_name == "Freund-Schapire" and report.fit_intercept is fit_intercept
        assert report.mistake_bound == pytest.approx(
            best_freund_schapire_bound(X, y_pm, fit_intercept).bound, rel=1e-12)
        assert report.within_bound is None and report.n_updates is None


def test_a_classifier_without_fit_intercept_is_read_with_an_intercept():
    from sklearn.base import BaseEstimator, ClassifierMixin
    from sklearn.exceptions import NotFittedError

    class Fitted(ClassifierMixin, BaseEstimator):  # what certify documents; no fit_intercept
        coef_, intercept_, classes_ = np.array([[1.0, -1.0]]), np.array([0.5]), np.array([0, 1])

        def fit(self, X, y):
            return self

        def decision_function(self, X):
            return np.asarray(X) @ self.coef_.ravel() + self.intercept_[0]

        def predict(self, X):
            return self.classes_[(self.decision_function(X) > 0).astype(int)]

    X, y = XOR
    report = certify(Fitted(), X, y)
    assert report.fit_intercept is True
    assert report.radius == pytest.approx(np.sqrt(1.0 + np.max(np.sum(X**2, axis=1))))

    class WithoutCoef(ClassifierMixin, BaseEstimator):  # fitted attributes, not coef_
        intercept_, classes_ = np.array([0.5]), np.array([0, 1])

        def fit(self, X, y):
            return self

    with pytest.raises(NotFittedError):
        certify(WithoutCoef(), X, y)


def test_a_novikoff_bound_the_qp_cannot_compute_is_nan_with_a_note():
    # separable (w = (1e-250, 1), b = 0), but the Novikoff QP's one scale underflows the
    # 1e-200 feature: certify and the CLI called the data inseparable, right after their
    # own separability check found a separator, then refused with SolverError;
    # the bound is an optional fact of the report: nan, no verdict, and a note saying why
    X, y = np.array([[0.0, 1e-200], [0.0, -1e-200], [1e200, 0.0]]), np.array([1, 0, 1])
    fitted = Perceptron().fit(np.sign(X), y)  # on X itself its scores overflow
    report = certify(fitted, X, y)
    assert report.separable is True and report.bound_name == "Novikoff"
    assert np.isnan(report.mistake_bound) and np.isnan(report.gamma)
    assert report.n_updates == fitted.n_updates_ and report.within_bound is None
    assert report.radius == 1e200 and report.certificate is None
    assert len(report.notes) == 1
    assert report.notes[0].startswith("gamma, mistake_bound not computed: SolverError: ")
    assert "cannot be computed in float64" in report.notes[0]
    lines = report_lines(report)
    assert lines["Novikoff mistake bound"] == "not computed (see the notes)"
    assert lines["margin gamma' (on x')"] == "not computed (see the notes)"
    assert lines["perceptron updates"] == f"{fitted.n_updates_} (bound n/a)"
    assert lines["note"] == report.notes[0]
    assert report.to_dict()["notes"] == list(report.notes)


def test_data_whose_separability_cannot_be_decided_get_the_freund_schapire_bound():
    # columns of 3e221 and 8e-40: HiGHS's certificate passes in floating point but none
    # holds exactly, so separability raises SolverError; the report still gives what holds
    # on any data (R, the training error, Freund and Schapire's bound) and says why
    X, y = np.array([[-3e30], [-3e221], [-8e-40]]), np.array([0, 1, 1])
    fitted = LinearProgramClassifier(on_infeasible="hinge").fit(np.sign(X), y)
    report = certify(fitted, X, y)
    assert report.separable is None and report.certificate is None
    assert report.certificate_exact is False and report.gamma is None
    assert report.bound_name == "Freund-Schapire"
    assert report.mistake_bound == pytest.approx(
        best_freund_schapire_bound(X, [-1, 1, 1]).bound, rel=1e-12)
    assert report.radius == pytest.approx(3e221)
    assert len(report.notes) == 1
    assert report.notes[0].startswith("separable not computed: SolverError: separability "
                                      "cannot be decided")
    assert report_lines(report)["separable"] == "not decided (see the notes)"
    plain = json.loads(json.dumps(report.to_dict()))
    assert plain["separable"] is None and plain["notes"] == list(report.notes)


def test_a_freund_schapire_search_that_fails_leaves_the_bound_nan(monkeypatch):
    # the best Freund-Schapire bound has no cheap natural failure: its LPs are stubbed
    import sys

    from halfspaces.exceptions import SolverError

    def fails(X, y, fit_intercept=True):
        raise SolverError("the squared-hinge problem cannot be solved")

    monkeypatch.setattr(sys.modules["halfspaces.theory.report"], "best_freund_schapire_bound",
                        fails)
    X, y = XOR
    clf = Perceptron(max_epochs=3).fit(X, y)
    report = certify(clf, X, y)
    assert report.separable is False and report.certificate is not None
    assert np.isnan(report.mistake_bound) and report.within_bound is None
    assert report.bound_name == "Freund-Schapire"
    assert report.notes == ("mistake_bound not computed: SolverError: the squared-hinge "
                            "problem cannot be solved",)
    assert report_lines(report)["Freund-Schapire mistake bound"] == (
        "not computed (see the notes)")


@pytest.mark.parametrize("error", [TypeError, RuntimeError, ValueError])
def test_a_bug_or_bad_input_behind_a_bound_is_raised_not_noted(monkeypatch, error):
    # only SolverError (the solver cannot answer) makes a field optional
    import sys

    def broken(*args, **kwargs):
        raise error("a bug")

    module = sys.modules["halfspaces.theory.report"]
    X, y = separable_sample(np.random.default_rng(9), 20, 2, gap=0.3)
    clf = Perceptron().fit(X, y)
    monkeypatch.setattr(module, "perceptron_mistake_bound", broken)
    with pytest.raises(error, match="a bug"):
        certify(clf, X, y)
    monkeypatch.setattr(module, "separability_of_rows", broken)
    with pytest.raises(error, match="a bug"):
        certify(clf, X, y)


def test_a_float_certificate_beyond_the_exact_budget_is_not_reported_as_a_proof(monkeypatch):
    # separable by e_1 (exact scores 1e-11 and 1), yet a certificate on 50 rows passes the
    # float check; beyond the exact budget the report said "not separable"
    import halfspaces._exact.rational as rational_module

    X, y = hidden_separator(50)
    assert exact_least_score(X, y, np.eye(50)[0], 0.0, fit_intercept=False) > 0
    fitted = Perceptron(fit_intercept=False, max_epochs=5).fit(X, y)
    monkeypatch.setattr(rational_module, "MAX_EXACT_WORK", 2_000)
    report = certify(fitted, X, y)
    assert report.separable is None and report.certificate is None
    assert report.bound_name.startswith("Freund-Schapire")
    assert any("cannot be decided" in note for note in report.notes)


LONG_DOUBLE = np.finfo(np.longdouble).eps < np.finfo(np.float64).eps
needs_long_double = pytest.mark.skipif(not LONG_DOUBLE,
                                       reason="np.longdouble is float64 on this platform")


def test_a_report_names_each_undefined_number_with_its_word():
    # xǁCertifyReportǁ_rows__mutmut_14 and x__number__mutmut_1, _2: nan prints as
    # "undefined (w = 0)" for the model margin and as "undefined" elsewhere
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
    inner = fitted(Perceptron(max_epochs=3), X, y)
    y_pm = np.where(y == 1, 1.0, -1.0)
    return X, y, y_pm, inner


def test_a_classifier_without_selection_or_warm_start_gets_the_bound_of_its_passes():
    # x__fs_for_run__mutmut_36 (selection without default), _49 (warm_start without
    # default), _52 (warm_start defaulting to True): counted passes are cyclic, not warm
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
    X, y, y_pm, inner = xor_run()
    report = certify(counted(inner, n_epochs_=inner.n_epochs_), X, y)
    assert report.bound_name == "Freund-Schapire"
    assert report.mistake_bound == pytest.approx(
        best_freund_schapire_bound(X, y_pm, True).bound, rel=1e-12)
    assert report.n_updates is None and report.within_bound is None


def test_an_update_count_without_passes_gets_no_verdict():
    # x__fs_for_run__mutmut_26: without n_epochs_ the one-pass bound does not apply to the
    # updates counted, so there is no verdict
    X, y, _, inner = xor_run()
    report = certify(counted(inner, n_updates_=inner.n_updates_), X, y)
    assert report.bound_name == "Freund-Schapire"
    assert report.n_updates == inner.n_updates_ and report.within_bound is None


def test_per_class_update_counts_are_not_a_run_s_count():
    # x_certify__mutmut_52: n_updates_ that is not a scalar (one count per class) is
    # reported as no count, not converted
    X, y, _, inner = xor_run()
    report = certify(counted(inner, n_updates_=np.array([3, 4]), n_epochs_=3), X, y)
    assert report.n_updates is None and report.within_bound is None


@needs_long_double
def test_the_model_margin_reads_long_double_decision_values_as_float64():
    # x__model_margin__mutmut_13, _15: a classifier whose decision_function computes in long
    # double (3 * 0.1 = 0.3000000000000000166); certify reads the scores as float64 first
    # (0.30000000000000004), so the margin is 0.30000000000000004 / 3, not 0.1
    from sklearn.base import BaseEstimator, ClassifierMixin

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


def test_a_weighted_run_is_certified_against_the_weighted_bound():
    X, y = separable_sample(np.random.default_rng(2), 100, 3, gap=0.2)
    s = np.random.default_rng(3).uniform(0.5, 4.0, 100)
    clf = Perceptron(max_epochs=10_000).fit(X, y, sample_weight=s)
    cert = certify(clf, X, y)
    assert cert.bound_name.startswith("Novikoff (weighted")
    assert cert.mistake_bound == pytest.approx(
        perceptron_mistake_bound(X, y, sample_weight=s), rel=1e-12)
    assert cert.within_bound
    X, y = XOR
    weighted = Perceptron(max_epochs=5).fit(X, y, sample_weight=[1.0, 2.0, 1.0, 1.0])
    cert = certify(weighted, X, y)
    assert not cert.separable and cert.within_bound is None
    assert "n/a to this weighted run" in cert.bound_name
