"""The kernel perceptrons' margin and burn-in against their slow twins and the theorem."""

from __future__ import annotations

import _naive_kernel as naive
import numpy as np
import pytest
import scipy.sparse as sp
from _datasets import FORMATS, in_format
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.utils._param_validation import InvalidParameterError
from test_kernel_average import EXACT, REAL, quiet_fit  # the kernels' exact and real cases

import halfspaces
from halfspaces import KernelPerceptron, VotedKernelPerceptron
from halfspaces.io.model import ModelFileError
from halfspaces.kernel import kernel_matrix
from halfspaces.theory import max_margin


def integer_data(n=50, d=4, seed=0, flip=0.15):
    rng = np.random.default_rng(seed)
    X = rng.integers(-3, 4, size=(n, d)).astype(np.float64)
    y = np.where(X @ rng.normal(size=d) + 0.4 > 0, 1.0, -1.0)
    return X, np.where(rng.random(n) < flip, -y, y)


def twin(X, y, name, params, margin, fit_intercept=True, max_epochs=4, selection="cyclic",
         seed=0):
    K = naive.kernel(X, X, name, **params)
    return naive.kernel_perceptron_history(K, y, fit_intercept, max_epochs, selection,
                                           np.random.RandomState(seed), margin=margin)


def dense_coef(clf, n):
    coef = np.zeros((clf.dual_coef_.shape[0], n))
    coef[:, clf.support_] = clf.dual_coef_
    return coef


def linear_callable(A, B):
    return kernel_matrix(A, B, "linear")  # a callable keeps the dual loop


# ---------------------------------------------------------------- the run with a margin

@pytest.mark.parametrize("name, params", [*EXACT.items(), *REAL.items()])
@pytest.mark.parametrize("fit_intercept", [True, False])
@pytest.mark.parametrize("margin", [0.5, 2.0])
def test_margin_run_equals_the_twin(name, params, fit_intercept, margin):
    X, y = integer_data(seed=1)
    clf = quiet_fit(KernelPerceptron(kernel=name, margin=margin, fit_intercept=fit_intercept,
                                     max_epochs=4, selection="shuffle", random_state=3,
                                     **params), X, y)
    visited, _ = twin(X, y, name, params, margin, fit_intercept, 4, "shuffle", seed=3)
    assert_array_equal(clf.alpha_, visited[-1])
    assert clf.n_updates_ == visited[-1].sum() > 0


@pytest.mark.parametrize("fmt", ["dense", "csr", "precomputed", "callable"])
def test_margin_run_is_the_same_for_every_form_of_the_kernel(fmt):
    X, y = integer_data(seed=2)
    make = dict(kernel="poly", degree=2, gamma=1.0, coef0=1.0)
    reference = quiet_fit(KernelPerceptron(margin=1.0, max_epochs=3, **make), X, y)
    if fmt == "precomputed":
        clf = KernelPerceptron(kernel="precomputed", margin=1.0, max_epochs=3)
        quiet_fit(clf, kernel_matrix(X, X, "poly", degree=2, gamma=1.0, coef0=1.0), y)
    elif fmt == "callable":
        def poly(A, B):
            return kernel_matrix(A, B, "poly", degree=2, gamma=1.0, coef0=1.0)
        clf = quiet_fit(KernelPerceptron(kernel=poly, margin=1.0, max_epochs=3), X, y)
    else:
        clf = quiet_fit(KernelPerceptron(margin=1.0, max_epochs=3, **make),
                        sp.csr_matrix(X) if fmt == "csr" else X, y)
    assert_array_equal(clf.alpha_, reference.alpha_)


def test_a_tiny_cache_computes_the_same_margin_run():
    # rows computed ahead are chosen by the margin's test too (missing_rows)
    X, y = integer_data(n=60, seed=4)
    full = quiet_fit(KernelPerceptron(kernel="rbf", gamma=0.3, margin=1.0, max_epochs=3), X, y)
    small = quiet_fit(KernelPerceptron(kernel="rbf", gamma=0.3, margin=1.0, max_epochs=3,
                                       cache_size=60 * 8 * 5 / 2**20), sp.csr_matrix(X), y)
    assert_array_equal(small.alpha_, full.alpha_)


def test_the_linear_kernel_with_a_margin_runs_the_dual_loop():
    X, y = integer_data(seed=5)
    named = quiet_fit(KernelPerceptron(margin=1.0, max_epochs=3), X, y)
    dual = quiet_fit(KernelPerceptron(kernel=linear_callable, margin=1.0, max_epochs=3), X, y)
    assert_array_equal(named.alpha_, dual.alpha_)
    plain = quiet_fit(KernelPerceptron(max_epochs=3), X, y)
    assert named.n_updates_ > plain.n_updates_  # the margin updates on more than mistakes


@pytest.mark.parametrize("k", [-40, 0, 30])
def test_the_margin_is_relative_to_the_kernel_scale(k):
    # scaling X by 2^k scales the linear kernel by 4^k exactly: the same run
    X, y = integer_data(seed=6)
    base = quiet_fit(KernelPerceptron(margin=0.7, max_epochs=4, fit_intercept=False), X, y)
    scaled = quiet_fit(KernelPerceptron(margin=0.7, max_epochs=4, fit_intercept=False),
                       X * 2.0**k, y)
    assert_array_equal(scaled.alpha_, base.alpha_)


def separable_integer_data(seed, n, d):
    rng = np.random.default_rng(seed)
    X = rng.integers(-4, 5, size=(n, d)).astype(np.float64)
    w = rng.integers(-3, 4, size=d).astype(np.float64)
    scores = X @ w + 0.5
    keep = np.abs(scores) >= 1
    return X[keep], np.where(scores[keep] > 0, 1.0, -1.0)


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10**6), n=st.integers(4, 30), d=st.integers(1, 4),
       margin=st.sampled_from([0.0, 0.25, 1.0, 3.0]))
def test_updates_obey_the_margin_perceptron_bound(seed, n, d, margin):
    # each update adds at most (2m + 1) R^2 to ||w||^2 and at least gamma to <w*, w>
    X, y = separable_integer_data(seed, n, d)
    if len(y) < 2 or len(set(y)) < 2:
        return
    Xp = np.hstack([X, np.ones((len(y), 1))])  # the kernel's constant: k(x, z) + 1
    gamma = max_margin(Xp, y, fit_intercept=False).margin
    R2 = float(np.max(np.einsum("ij,ij->i", Xp, Xp)))
    clf = KernelPerceptron(margin=margin, max_epochs=10_000).fit(X, y)
    assert clf.converged_
    assert clf.n_updates_ <= (2 * margin + 1) * R2 / gamma**2 * (1 + 1e-9)
    f = clf.decision_function(X)
    assert np.all(y * f > margin * np.einsum("ij,ij->i", Xp, Xp))  # the margin it stops at


# ---------------------------------------------------------------- the burn-in

@pytest.mark.parametrize("name, params", [*EXACT.items(), *REAL.items()])
@pytest.mark.parametrize("burn_in", [0, 37, 100, 10_000])
@pytest.mark.parametrize("margin", [0.0, 1.0])
def test_averaged_after_the_burn_in_is_the_mean_of_the_later_hypotheses(name, params, burn_in,
                                                                       margin):
    X, y = integer_data(seed=7)
    clf = quiet_fit(KernelPerceptron(kernel=name, average=True, burn_in=burn_in,
                                     margin=margin, max_epochs=4, selection="shuffle",
                                     random_state=1, **params), X, y)
    visited, _ = twin(X, y, name, params, margin, True, 4, "shuffle", seed=1)
    later = visited[burn_in:] or visited[-1:]  # none past the burn-in: the last one
    expected = naive.averaged_coefficients(later, y)
    assert_allclose(dense_coef(clf, len(y))[0], expected, rtol=1e-12, atol=1e-12)
    assert_allclose(clf.intercept_[0], expected.sum(), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("fmt", FORMATS)
def test_the_linear_kernel_averages_after_the_burn_in_in_the_primal(fmt):
    # the named linear kernel runs the primal loop and reads the sums off its update log
    X, y = integer_data(seed=8)
    make = dict(average=True, burn_in=71, max_epochs=3, selection="shuffle", random_state=2)
    primal = quiet_fit(KernelPerceptron(**make), in_format(X, fmt), y)
    dual = quiet_fit(KernelPerceptron(kernel=linear_callable, **make), X, y)
    assert_array_equal(primal._coef_sums, dual._coef_sums)
    assert_allclose(primal.decision_function(X), dual.decision_function(X), rtol=1e-12)


@pytest.mark.parametrize("name, params", EXACT.items())
@pytest.mark.parametrize("burn_in", [0, 23, 150, 10_000])
@pytest.mark.parametrize("margin", [0.0, 1.0])
def test_voted_after_the_burn_in_votes_the_later_steps(name, params, burn_in, margin):
    X, y = integer_data(seed=9)
    clf = quiet_fit(VotedKernelPerceptron(kernel=name, burn_in=burn_in, margin=margin,
                                          max_epochs=3, **params), X, y)
    visited, _ = twin(X, y, name, params, margin, True, 3)
    X_test = integer_data(n=30, seed=10)[0]
    expected = naive.vote_after(visited, y, naive.kernel(X_test, X, name, **params), burn_in)
    assert_array_equal(clf.decision_function(X_test), expected)


@pytest.mark.parametrize("cls, extra", [(KernelPerceptron, dict(average=True)),
                                        (VotedKernelPerceptron, {})])
def test_partial_fit_counts_the_burn_in_over_calls(cls, extra):
    X, y = integer_data(n=60, seed=11)
    whole = cls(burn_in=45, margin=0.5, **extra).partial_fit(X, y)
    batches = cls(burn_in=45, margin=0.5, **extra)
    for rows in (slice(0, 20), slice(20, 40), slice(40, 60)):
        batches.partial_fit(X[rows], y[rows], classes=[-1.0, 1.0])
    assert_array_equal(batches.predict(X), whole.predict(X))
    assert_allclose(batches.decision_function(X), whole.decision_function(X), rtol=1e-12)


def test_a_warm_start_past_the_burn_in_keeps_it():
    X, y = integer_data(seed=12)
    clf = quiet_fit(KernelPerceptron(kernel="rbf", gamma=0.3, average=True, burn_in=20,
                                     max_epochs=2, warm_start=True), X, y)
    clf.set_params(burn_in=30)
    with pytest.raises(ValueError, match=r"burn_in=30 cannot continue a run averaged from "
                                         r"step 21 that has made 100 steps"):
        clf.fit(X, y)
    assert clf.burn_in == 30 and clf._burn_in == 20  # the model is as it was
    clf.set_params(burn_in=20)
    quiet_fit(clf, X, y)
    assert clf._n_steps[0] == 200


def test_a_warm_start_before_the_burn_in_may_change_it():
    X, y = integer_data(seed=13)
    clf = quiet_fit(KernelPerceptron(average=True, burn_in=500, max_epochs=2,
                                     warm_start=True, kernel="rbf", gamma=0.3), X, y)
    assert not clf._coef_sums.any()  # 100 steps, none past the burn-in: the last hypothesis
    assert_allclose(clf.dual_coef_, clf._last_coef)
    clf.set_params(burn_in=150)
    quiet_fit(clf, X, y)
    visited, _ = twin(X, y, "rbf", REAL["rbf"], 0.0, True, 4)
    expected = naive.averaged_coefficients(visited[150:], y)
    X_test = integer_data(n=20, seed=17)[0]
    K_test = naive.kernel(X_test, X, "rbf", **REAL["rbf"]) + 1.0
    assert_allclose(clf.decision_function(X_test), K_test @ expected, rtol=1e-10, atol=1e-12)


# ---------------------------------------------------------------- parameters and files

@pytest.mark.parametrize("params", [dict(margin=-0.5), dict(margin=np.inf),
                                    dict(margin=np.nan), dict(margin="1"),
                                    dict(burn_in=-1), dict(burn_in=True), dict(burn_in=1.5),
                                    dict(burn_in=2**63)])
@pytest.mark.parametrize("cls", [KernelPerceptron, VotedKernelPerceptron])
def test_bad_margins_and_burn_ins_are_refused_by_name(params, cls):
    X, y = integer_data(n=10)
    with pytest.raises(InvalidParameterError, match=next(iter(params))):
        cls(**params).fit(X, y)


def test_a_kernel_value_that_overflows_the_margin_is_refused_by_row():
    X = np.array([[1.0, 0.0], [0.0, 1.0], [1e200, 0.0]])
    with pytest.raises(ValueError, match="not finite for row 2"):
        KernelPerceptron(margin=1.0).fit(X, [1, -1, 1])
    quiet_fit(KernelPerceptron(max_epochs=2), X, [1, -1, 1])  # no margin: no diagonal


@pytest.mark.parametrize("cls, extra", [(KernelPerceptron, dict(average=True)),
                                        (VotedKernelPerceptron, {})])
def test_model_files_keep_the_burn_in(cls, extra, tmp_path):
    X, y = integer_data(seed=14)
    clf = quiet_fit(cls(kernel="rbf", gamma=0.3, margin=1.0, burn_in=60, max_epochs=2,
                        **extra), X, y)
    path = halfspaces.save(clf, tmp_path / "model.hs")
    loaded = halfspaces.load(path)
    assert loaded._burn_in == 60 and loaded.get_params() == clf.get_params()
    assert_array_equal(loaded.decision_function(X), clf.decision_function(X))
    # continued after loading, as the original continues
    loaded.partial_fit(X, y)
    clf.partial_fit(X, y)
    assert_array_equal(loaded.decision_function(X), clf.decision_function(X))


def test_model_files_from_before_the_burn_in_load_as_averaged_from_the_start(tmp_path):
    X, y = integer_data(seed=15)
    clf = quiet_fit(KernelPerceptron(kernel="rbf", gamma=0.3, average=True, max_epochs=2),
                    X, y)
    del clf._burn_in  # what an older version saved
    loaded = halfspaces.load(halfspaces.save(clf, tmp_path / "old.hs"))
    assert not hasattr(loaded, "_burn_in")
    assert_array_equal(loaded.decision_function(X), clf.decision_function(X))


@pytest.mark.parametrize("value", [-1, 2**64, 1.5, True])
def test_a_crafted_burn_in_in_a_model_file_is_refused(value, tmp_path):
    X, y = integer_data(seed=16)
    clf = quiet_fit(KernelPerceptron(kernel="rbf", gamma=0.3, average=True, max_epochs=2),
                    X, y)
    clf._burn_in = value
    with pytest.raises(ModelFileError, match="_burn_in"):
        halfspaces.load(halfspaces.save(clf, tmp_path / "crafted.hs"))


# ---------------------------------------------------------------- the multiclass vote

def early_and_late_classes(seed=21):
    """Three classes: class 0 far from the others (its problem converges in a pass or two),
    classes 1 and 2 overlapping (theirs run to max_epochs)."""
    rng = np.random.default_rng(seed)
    near = rng.integers(-3, 4, size=(60, 2)).astype(np.float64)
    far = rng.integers(-2, 3, size=(20, 2)).astype(np.float64) + [30.0, 30.0]
    X = np.vstack([far, near])
    y = np.concatenate([np.zeros(20), np.where(near[:, 0] + rng.normal(0, 1.5, 60) > 0, 1, 2)])
    return X, y.astype(int)


@pytest.mark.parametrize("cls", [VotedKernelPerceptron, halfspaces.VotedPerceptron])
def test_the_multiclass_vote_compares_each_class_by_its_fraction_of_votes(cls):
    # the one-vs-rest problems stop after different numbers of steps: raw sums of votes
    # are on different scales (the early class's are the smallest)
    X, y = early_and_late_classes()
    clf = quiet_fit(cls(max_epochs=40), X, y)
    steps = [int(c.sum()) for c in clf.vote_counts_]
    assert steps[0] < steps[1] == steps[2]  # class 0 converged early
    X_test = integer_data(n=200, d=2, seed=22)[0]
    fractions = clf.decision_function(X_test)
    raw = fractions * steps
    assert np.all(np.abs(fractions) <= 1)
    assert_allclose(np.abs(raw - np.round(raw)).max(), 0, atol=1e-9)  # whole votes
    assert_array_equal(clf.predict(X_test), clf.classes_[fractions.argmax(axis=1)])
    assert (raw.argmax(axis=1) != fractions.argmax(axis=1)).sum() > 10  # it matters here
    K_test = X_test @ X.T  # the twin's vote, class by class, for the linear kernel
    for k in range(3):
        signs = np.where(y == k, 1.0, -1.0)
        _, hypotheses = naive.kernel_perceptron_history(X @ X.T, signs, True, 40)
        n_votes = sum(count for _, count in hypotheses)
        assert n_votes == steps[k]
        assert_allclose(fractions[:, k], naive.vote(hypotheses, signs, K_test) / n_votes,
                        rtol=1e-12)


def test_the_command_line_sets_the_margin_and_the_burn_in(tmp_path):
    from _cli import run_cli

    X, y = integer_data(n=40, seed=23)
    path = tmp_path / "train.csv"
    np.savetxt(path, np.column_stack([y, X]), delimiter=",", fmt="%g")
    out = tmp_path / "model.hs"
    report = run_cli("fit", str(path), "--model", "kernel", "--param", "kernel=rbf",
                     "--param", "average=true", "--param", "margin=1.5", "--param",
                     "burn_in=60", "--epochs", "3", "--out", str(out))
    model = halfspaces.load(out)
    assert (model.margin, model.burn_in, model._burn_in) == (1.5, 60, 60)
    direct = quiet_fit(KernelPerceptron(kernel="rbf", average=True, margin=1.5, burn_in=60,
                                        max_epochs=3, selection="shuffle", random_state=0),
                       X, y)  # the command line shuffles, seed 0
    assert report["n_updates"] == direct.n_updates_
    assert_array_equal(model.decision_function(X), direct.decision_function(X))


@pytest.mark.parametrize("kernel", [
    dict(kernel="sigmoid", coef0=-5.0, gamma=0.1),
    dict(kernel="poly", degree=3, coef0=-5.0, gamma=0.1),
    dict(kernel=lambda A, B: -kernel_matrix(A, B, "linear")),
])
def test_a_negative_diagonal_updates_on_mistakes_at_least(kernel):
    # k(x, x) + c < 0 (no intercept, a kernel that is not PSD) made margin * (k + c) a
    # negative threshold: no update at f = 0, an empty model reported as converged
    X, y = integer_data(n=40, seed=24, flip=0)
    plain = quiet_fit(KernelPerceptron(fit_intercept=False, max_epochs=5, **kernel), X, y)
    margin = quiet_fit(KernelPerceptron(fit_intercept=False, max_epochs=5, margin=1.0,
                                        **kernel), X, y)
    assert margin.n_updates_ >= plain.n_updates_ > 0
    assert margin.converged_ == plain.converged_ or not margin.converged_


@pytest.mark.parametrize("cls, extra", [(KernelPerceptron, dict(average=True)),
                                        (VotedKernelPerceptron, {})])
def test_the_largest_burn_in_predicts_with_the_last_hypothesis(cls, extra):
    X, y = integer_data(seed=25)
    largest = quiet_fit(cls(kernel="rbf", gamma=0.3, max_epochs=3,
                            burn_in=np.iinfo(np.int64).max, **extra), X, y)
    last = quiet_fit(KernelPerceptron(kernel="rbf", gamma=0.3, max_epochs=3), X, y)
    assert_array_equal(largest.predict(X), last.predict(X))
    assert_array_equal(np.sign(largest.decision_function(X)),
                       np.where(last.decision_function(X) > 0, 1.0, -1.0))


def test_model_files_of_kernel_perceptrons_name_their_format_version(tmp_path):
    # an older halfspaces reads version 1 and calls version 2 "newer", not "corrupt"
    import json
    import zipfile

    X, y = integer_data(n=20, seed=26)
    for clf, version in [(quiet_fit(KernelPerceptron(max_epochs=2), X, y), 2),
                         (quiet_fit(halfspaces.Perceptron(max_epochs=2), X, y), 1)]:
        path = halfspaces.save(clf, tmp_path / f"{type(clf).__name__}.hs")
        with zipfile.ZipFile(path) as archive:
            document = json.loads(np.load(archive.open("__halfspaces__.npy")).tobytes())
        assert document["version"] == version
