import json

import numpy as np
import pytest
from _oracles import (
    check_certificate,
    min_norm_point_norm,
    noisy_sample,
    separable_sample,
    signed,
)
from rich.console import Console

from halfspaces.erm import LinearProgramClassifier, MaxMarginClassifier
from halfspaces.perceptron import AveragedPerceptron, Perceptron, PocketPerceptron
from halfspaces.theory import Certificate, CertifyReport, certify, radius

XOR = np.array([[0.0, 0.0], [1.0, 1.0], [0.0, 1.0], [1.0, 0.0]]), np.array([1, 1, 0, 0])


def test_separable_perceptron_within_novikoff():
    X, y = separable_sample(np.random.default_rng(0), 100, 3, gap=0.2)
    clf = Perceptron(max_epochs=10_000).fit(X, y)
    cert = certify(clf, X, y)
    assert cert.separable and cert.certificate is None and cert.bound_name == "Novikoff"
    gamma = min_norm_point_norm(signed(X, y, True))  # independent: NNLS
    assert cert.mistake_bound == pytest.approx((radius(X, True) / gamma) ** 2, rel=1e-5)
    assert cert.n_updates == clf.n_updates_ and cert.within_bound
    assert cert.training_error == 0.0 and cert.model_margin > 0


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
    assert "halfspaces certify" in text and "Gordan certificate checked" in text


def test_report_keeps_its_former_name():
    from halfspaces.theory import certificate

    assert Certificate is CertifyReport is certificate.Certificate
    assert certificate.certify is certify
    X, y = XOR
    report = certify(Perceptron(max_epochs=5).fit(X, y), X, y)
    assert isinstance(report, CertifyReport)
    assert sorted(report.to_dict()) == sorted([
        "estimator", "n_samples", "n_features", "fit_intercept", "training_error",
        "model_margin", "radius", "separable", "gamma", "bound_name", "mistake_bound",
        "n_updates", "within_bound", "certificate"])


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
