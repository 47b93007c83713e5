"""The averaged and voted kernel perceptrons against their slow twins and the primal forms."""

from __future__ import annotations

import re
import warnings

import _naive_kernel as naive
import numpy as np
import pytest
import scipy.sparse as sp
from _child import outcomes
from _datasets import FORMATS, in_format
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose, assert_array_equal

import halfspaces
from halfspaces import (
    AveragedPerceptron,
    ConvergenceWarning,
    KernelPerceptron,
    VotedKernelPerceptron,
    VotedPerceptron,
)
from halfspaces._utils.progress import listen
from halfspaces.kernel import kernel_matrix

# parameters whose kernel values are integers on integer data (every sum exact), and two
# whose values are not
EXACT = {"linear": {}, "poly": dict(degree=2, gamma=1.0, coef0=1.0)}
REAL = {"rbf": dict(gamma=0.3), "sigmoid": dict(gamma=0.05, coef0=0.2)}


def quiet_fit(estimator, X, y):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return estimator.fit(X, y)


def integer_data(n=60, d=4, seed=0, flip=0.15):
    rng = np.random.default_rng(seed)
    X = rng.integers(-3, 4, size=(n, d)).astype(np.float64)
    y = np.where(X @ rng.normal(size=d) + 0.4 > 0, 1.0, -1.0)
    return X, np.where(rng.random(n) < flip, -y, y)


def linear_callable(A, B):
    return kernel_matrix(A, B, "linear")  # a callable keeps the dual loop


def twin(X, y, name, params, fit_intercept=True, max_epochs=5, selection="cyclic", seed=0):
    """The naive run's visited alphas and hypotheses, on the kernel's Gram matrix."""
    K = naive.kernel(X, X, name, **params)
    return naive.kernel_perceptron_history(K, y, fit_intercept, max_epochs, selection,
                                           np.random.RandomState(seed))


def dense_coef(clf, n):
    """The estimator's dual_coef_ as one coefficient per training row (a fit from scratch)."""
    coef = np.zeros((clf.dual_coef_.shape[0], n))
    coef[:, clf.support_] = clf.dual_coef_
    return coef


# ---------------------------------------------------------------- averaged: the mean of all

@pytest.mark.parametrize("name, params", [*EXACT.items(), *REAL.items()])
@pytest.mark.parametrize("fit_intercept", [True, False])
@pytest.mark.parametrize("selection", ["cyclic", "shuffle"])
def test_averaged_is_the_mean_of_the_visited_hypotheses(name, params, fit_intercept, selection):
    X, y = integer_data(seed=3)
    clf = quiet_fit(KernelPerceptron(kernel=name, average=True, fit_intercept=fit_intercept,
                                     max_epochs=4, selection=selection, random_state=5,
                                     **params), X, y)
    visited, _ = twin(X, y, name, params, fit_intercept, 4, selection, seed=5)
    expected = naive.averaged_coefficients(visited, y)
    assert clf._n_steps[0] == len(visited)
    assert_allclose(dense_coef(clf, len(y))[0], expected, rtol=1e-12, atol=1e-12)
    assert_allclose(clf.intercept_[0], expected.sum() * fit_intercept, rtol=1e-12,
                    atol=1e-12)
    X_test = np.random.default_rng(4).integers(-4, 5, size=(50, 4)).astype(np.float64)
    scores = naive.kernel(X_test, X, name, **params) @ expected + expected.sum() * fit_intercept
    assert_allclose(clf.decision_function(X_test), scores, rtol=1e-10, atol=1e-10)


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**16), n=st.integers(2, 20), d=st.integers(1, 4),
       name=st.sampled_from(sorted(EXACT)), fit_intercept=st.booleans(),
       max_epochs=st.integers(1, 4))
def test_averaged_property(seed, n, d, name, fit_intercept, max_epochs):
    X, y = integer_data(n, d, seed=seed)
    if np.unique(y).size < 2:
        y[0] = -y[0]
    clf = quiet_fit(KernelPerceptron(kernel=name, average=True, fit_intercept=fit_intercept,
                                     max_epochs=max_epochs, **EXACT[name]), X, y)
    visited, _ = twin(X, y, name, EXACT[name], fit_intercept, max_epochs)
    expected = naive.averaged_coefficients(visited, y)
    assert_allclose(dense_coef(clf, n)[0], expected, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("fit_intercept", [True, False])
@pytest.mark.parametrize("selection", ["cyclic", "shuffle"])
@pytest.mark.parametrize("classes", [2, 3])
def test_averaged_linear_kernel_is_the_averaged_perceptron_bit_for_bit(fmt, fit_intercept,
                                                                        selection, classes):
    X, y = integer_data(150, 5, seed=31, flip=0.1)
    if classes == 3:
        y = np.digitize(X @ np.array([1.0, -0.5, 0.3, 0.2, 0.0]), [-1.5, 1.5])
    X = in_format(X, fmt)
    common = dict(fit_intercept=fit_intercept, max_epochs=8, selection=selection,
                  random_state=7)
    fast = quiet_fit(KernelPerceptron(average=True, **common), X, y)
    dual = quiet_fit(KernelPerceptron(kernel=linear_callable, average=True, **common), X, y)
    primal = quiet_fit(AveragedPerceptron(**common), X, y)
    assert not fast.converged_
    for name in ("alpha_", "support_", "dual_coef_", "intercept_", "_last_coef",
                 "_coef_sums", "_n_steps", "n_updates_", "n_epochs_"):
        assert_array_equal(getattr(fast, name), getattr(dual, name), err_msg=name)
    assert_array_equal(fast.n_updates_, primal.n_updates_)
    assert_array_equal(fast.intercept_, primal.intercept_)
    X_test = in_format(np.random.default_rng(32).integers(-4, 5, size=(200, 5)), fmt)
    assert_array_equal(fast.decision_function(X_test), primal.decision_function(X_test))
    assert_array_equal(fast.predict(X_test), primal.predict(X_test))
    assert_allclose(dual.decision_function(X_test), primal.decision_function(X_test),
                    rtol=1e-12, atol=1e-9)


# ---------------------------------------------------------------- voted: every hypothesis

@pytest.mark.parametrize("name, params", EXACT.items())
@pytest.mark.parametrize("fit_intercept", [True, False])
@pytest.mark.parametrize("selection", ["cyclic", "shuffle"])
def test_voted_equals_the_twin_that_stores_every_hypothesis(name, params, fit_intercept,
                                                            selection):
    X, y = integer_data(seed=8)
    clf = quiet_fit(VotedKernelPerceptron(kernel=name, fit_intercept=fit_intercept,
                                          max_epochs=4, selection=selection, random_state=2,
                                          **params), X, y)
    _, hypotheses = twin(X, y, name, params, fit_intercept, 4, selection, seed=2)
    assert_array_equal(clf.vote_counts_[0], [count for _, count in hypotheses])
    X_test = np.random.default_rng(9).integers(-3, 4, size=(80, 4)).astype(np.float64)
    X_test[:10] = 0.0  # f_k(0) = 0 for every k without intercept: sign(0) = -1 decides
    votes = naive.vote(hypotheses, y, naive.kernel(X_test, X, name, **params), fit_intercept)
    assert_array_equal(clf.decision_function(X_test), votes)
    assert_array_equal(clf.predict(X_test), np.where(votes > 0, 1.0, -1.0))


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**16), n=st.integers(3, 20), name=st.sampled_from(sorted(EXACT)),
       fit_intercept=st.booleans(), max_epochs=st.integers(1, 4))
def test_voted_property(seed, n, name, fit_intercept, max_epochs):
    X, y = integer_data(n, 2, seed=seed)
    if np.unique(y).size < 2:
        y[0] = -y[0]
    clf = quiet_fit(VotedKernelPerceptron(kernel=name, fit_intercept=fit_intercept,
                                          max_epochs=max_epochs, **EXACT[name]), X, y)
    _, hypotheses = twin(X, y, name, EXACT[name], fit_intercept, max_epochs)
    grid = np.array([[a, b] for a in range(-3, 4) for b in range(-3, 4)], dtype=np.float64)
    votes = naive.vote(hypotheses, y, naive.kernel(grid, X, name, **EXACT[name]),
                       fit_intercept)
    assert_array_equal(clf.decision_function(grid), votes)


@pytest.mark.parametrize("name, params", REAL.items())
def test_voted_real_valued_kernels_agree_with_the_twin(name, params):
    X, y = integer_data(seed=10)
    clf = quiet_fit(VotedKernelPerceptron(kernel=name, max_epochs=3, **params), X, y)
    _, hypotheses = twin(X, y, name, params, True, 3)
    X_test = np.random.default_rng(11).normal(size=(60, 4))
    votes = naive.vote(hypotheses, y, naive.kernel(X_test, X, name, **params))
    assert_array_equal(clf.decision_function(X_test), votes)


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("classes", [2, 3])
def test_voted_linear_kernel_is_the_voted_perceptron(fmt, classes):
    X, y = integer_data(120, 5, seed=12, flip=0.1)
    if classes == 3:
        y = np.digitize(X @ np.array([1.0, -0.5, 0.3, 0.2, 0.0]), [-1.5, 1.5])
    X = in_format(X, fmt)
    dual = quiet_fit(VotedKernelPerceptron(max_epochs=6), X, y)
    callable_dual = quiet_fit(VotedKernelPerceptron(kernel=linear_callable, max_epochs=6), X, y)
    primal = quiet_fit(VotedPerceptron(max_epochs=6), X, y)
    for k in range(len(primal.vote_counts_)):
        assert_array_equal(dual.vote_counts_[k], primal.vote_counts_[k])
        assert_array_equal(dual.update_signs_[k], primal.update_signs_[k])
        assert_array_equal(callable_dual.vote_counts_[k], primal.vote_counts_[k])
        assert_array_equal(callable_dual.update_support_[k], dual.update_support_[k])
    X_test = in_format(np.random.default_rng(13).integers(-4, 5, size=(150, 5)), fmt)
    assert_array_equal(dual.decision_function(X_test), primal.decision_function(X_test))
    assert_array_equal(callable_dual.decision_function(X_test),
                       primal.decision_function(X_test))


def test_multiclass_voted_and_averaged_are_one_vs_rest_of_the_twins():
    X, y = integer_data(90, 3, seed=14)
    y = np.digitize(X @ np.array([1.0, -0.5, 0.3]), [-1.0, 1.0])
    params = EXACT["poly"]
    voted = quiet_fit(VotedKernelPerceptron(kernel="poly", max_epochs=3, **params), X, y)
    averaged = quiet_fit(KernelPerceptron(kernel="poly", average=True, max_epochs=3,
                                          **params), X, y)
    X_test = np.random.default_rng(15).integers(-3, 4, size=(40, 3)).astype(np.float64)
    K_test = naive.kernel(X_test, X, "poly", **params)
    for k, label in enumerate(voted.classes_):
        signs = np.where(y == label, 1.0, -1.0)
        visited, hypotheses = twin(X, signs, "poly", params, True, 3)
        n_votes = sum(count for _, count in hypotheses)  # beyond two classes: the fraction
        assert_allclose(voted.decision_function(X_test)[:, k],
                        naive.vote(hypotheses, signs, K_test) / n_votes, rtol=1e-15)
        assert_allclose(dense_coef(averaged, len(y))[k],
                        naive.averaged_coefficients(visited, signs), rtol=1e-12)


# ------------------------------------------------------------ precomputed, warm, batches

@pytest.mark.parametrize("cls", [KernelPerceptron, VotedKernelPerceptron])
def test_precomputed_gram_gives_the_same_models(cls):
    X, y = integer_data(seed=16)
    extra = {"average": True} if cls is KernelPerceptron else {}
    direct = quiet_fit(cls(kernel="rbf", gamma=0.2, max_epochs=4, **extra), X, y)
    pre = quiet_fit(cls(kernel="precomputed", max_epochs=4, **extra),
                    kernel_matrix(X, X, "rbf", gamma=0.2), y)
    X_test = np.random.default_rng(17).normal(size=(30, 4))
    assert_array_equal(direct.dual_coef_, pre.dual_coef_)
    assert_allclose(pre.decision_function(kernel_matrix(X_test, X, "rbf", gamma=0.2)),
                    direct.decision_function(X_test), rtol=1e-12, atol=1e-12)


def scores(clf, X):
    return clf.decision_function(X)


@pytest.mark.parametrize("name", sorted(EXACT))
@pytest.mark.parametrize("cls, extra", [(KernelPerceptron, {"average": True}),
                                        (KernelPerceptron, {}), (VotedKernelPerceptron, {})])
@pytest.mark.parametrize("fmt", ["dense", "csr"])
def test_warm_start_continues_the_run(name, cls, extra, fmt):
    X, y = integer_data(seed=18)
    X = in_format(X, fmt)
    once = quiet_fit(cls(kernel=name, max_epochs=3, **EXACT[name], **extra), X, y)
    warm = cls(kernel=name, max_epochs=1, warm_start=True, **EXACT[name], **extra)
    for _ in range(3):
        quiet_fit(warm, X, y)
    assert warm.n_updates_ == once.n_updates_ and warm._n_steps[0] == 3 * X.shape[0]
    X_test = np.random.default_rng(19).integers(-4, 5, size=(60, 4)).astype(np.float64)
    assert_allclose(scores(warm, X_test), scores(once, X_test), rtol=1e-12, atol=1e-9)
    assert_array_equal(warm.predict(X_test), once.predict(X_test))


@pytest.mark.parametrize("name", sorted(EXACT))
@pytest.mark.parametrize("cls, extra", [(KernelPerceptron, {"average": True}),
                                        (KernelPerceptron, {}), (VotedKernelPerceptron, {})])
def test_partial_fit_batches_are_one_pass(name, cls, extra):
    X, y = integer_data(100, seed=20)
    one_pass = quiet_fit(cls(kernel=name, max_epochs=1, **EXACT[name], **extra), X, y)
    streamed = cls(kernel=name, **EXACT[name], **extra)
    for start in range(0, 100, 30):
        streamed.partial_fit(X[start:start + 30], y[start:start + 30], classes=[-1.0, 1.0])
    assert streamed.n_updates_ == one_pass.n_updates_
    X_test = np.random.default_rng(21).integers(-4, 5, size=(60, 4)).astype(np.float64)
    assert_allclose(scores(streamed, X_test), scores(one_pass, X_test), rtol=1e-12,
                    atol=1e-9)


@pytest.mark.parametrize("cls", [KernelPerceptron, VotedKernelPerceptron])
def test_a_precomputed_kernel_has_no_partial_fit_and_no_warm_start(cls):
    X, y = integer_data(seed=22)
    assert hasattr(cls(), "partial_fit") and not hasattr(cls(kernel="precomputed"),
                                                         "partial_fit")
    clf = quiet_fit(cls(kernel="precomputed", warm_start=True, max_epochs=2), X @ X.T, y)
    with pytest.raises(ValueError, match="precomputed"):
        clf.fit(X @ X.T, y)


def test_warm_start_on_other_classes_starts_afresh():
    X, y = integer_data(seed=23)
    clf = quiet_fit(KernelPerceptron(kernel="rbf", warm_start=True, average=True), X, y)
    fresh = quiet_fit(KernelPerceptron(kernel="rbf", average=True), X, np.where(y > 0, 2, 0))
    clf = quiet_fit(clf, X, np.where(y > 0, 2, 0))
    assert_array_equal(clf.dual_coef_, fresh.dual_coef_)


@pytest.mark.parametrize("clf, advice", [(KernelPerceptron(), True),
                                         (KernelPerceptron(average=True), False),
                                         (VotedKernelPerceptron(), False)])
def test_not_converged_warning_advises_averaging_only_the_last_hypothesis(clf, advice):
    X, y = integer_data(seed=27)
    with pytest.warns(ConvergenceWarning, match="raise max_epochs") as caught:
        clf.set_params(max_epochs=2).fit(X, y)
    assert ("average=True" in str(caught[0].message)) is advice


def test_parameters_round_trip():
    clf = KernelPerceptron().set_params(average=True, warm_start=True)
    assert clf.get_params()["average"] and clf.get_params()["warm_start"]
    assert "average" not in VotedKernelPerceptron().get_params()
    with pytest.raises(ValueError, match="average"):
        KernelPerceptron(average="yes").fit(*integer_data(seed=24))


@pytest.mark.parametrize("cls, extra", [(KernelPerceptron, {"average": True}),
                                        (VotedKernelPerceptron, {})])
@pytest.mark.parametrize("fmt", ["dense", "csr"])
def test_model_files_keep_the_run_going(cls, extra, fmt, tmp_path):
    X, y = integer_data(90, seed=25)
    y = np.digitize(X @ np.array([1.0, -0.5, 0.3, 0.2]), [-1.0, 1.0])  # three classes
    X = in_format(X, fmt)
    clf = cls(kernel="poly", **EXACT["poly"], **extra).partial_fit(X[:45], y[:45], [0, 1, 2])
    halfspaces.save(clf, tmp_path / "m.hs")
    loaded = halfspaces.load(tmp_path / "m.hs")
    X_test = np.random.default_rng(26).integers(-4, 5, size=(40, 4)).astype(np.float64)
    assert_array_equal(loaded.decision_function(X_test), clf.decision_function(X_test))
    clf.partial_fit(X[45:], y[45:])
    loaded.partial_fit(X[45:], y[45:])
    assert_array_equal(loaded.decision_function(X_test), clf.decision_function(X_test))
    if sp.issparse(X):
        assert sp.issparse(loaded.support_vectors_)


# ---------------------------------------------------------------- a model's state, checked

STATE_SETUP = """
import copy
import numpy as np
from halfspaces import KernelPerceptron, VotedKernelPerceptron
rng = np.random.default_rng(0)
X, y = rng.standard_normal((600, 4)), rng.integers(0, 2, 600)
K = X @ X.T
"""


def refusals(setup, cases):
    """Run each call of ``cases`` (call -> pattern) in one child; each must be a ValueError
    whose message matches (a crash, or any other outcome, fails)."""
    for found, match in zip(outcomes(setup, *cases), cases.values(), strict=True):
        assert re.match(f"ValueError: .*{match}", found), found


def test_a_kernel_switched_across_precomputed_is_refused_by_name():
    # a voted model fitted on a Gram matrix keeps no support vectors, and one fitted on
    # features keeps them, not the Gram matrix's columns: either switched to the other
    # kind read the update indices past the test kernel matrix (segmentation faults);
    # KernelPerceptron gave NumPy's matmul errors
    setup = STATE_SETUP + """
voted_gram = VotedKernelPerceptron(kernel="precomputed", max_epochs=2).fit(K, y)
voted_rbf = VotedKernelPerceptron(kernel="rbf")
for start in range(0, 600, 100):
    voted_rbf.partial_fit(X[start:start + 100], y[start:start + 100], classes=[0, 1])
gram, rbf = (KernelPerceptron(kernel=k, max_epochs=2) for k in ("precomputed", "rbf"))
gram.fit(K, y), rbf.fit(X, y)
"""
    fitted_with_gram = "fitted with kernel='precomputed'.* kernel='rbf'"
    fitted_on_features = "fitted with a kernel of the features.* kernel='precomputed'"
    refusals(setup, {
        "voted_gram.set_params(kernel='rbf').decision_function(K[:50])": fitted_with_gram,
        "voted_rbf.set_params(kernel='precomputed').decision_function(rng.normal("
        "size=(500, 4)))": fitted_on_features,
        "gram.set_params(kernel='rbf').decision_function(K[:50])": fitted_with_gram,
        "gram.set_params(kernel='rbf').partial_fit(K[:50], y[:50])": fitted_with_gram,
        "gram.set_params(kernel='linear').predict(K[:50])": "kernel='linear'",
        "rbf.set_params(kernel='precomputed').predict(X[:50])": fitted_on_features,
    })


@pytest.mark.parametrize("cls", [KernelPerceptron, VotedKernelPerceptron])
def test_a_warm_start_across_precomputed_starts_afresh(cls):
    # as many features as rows: the Gram matrix has the fitted width, which made the
    # warm start continue (refused: "precomputed does not keep support vectors")
    X, y = integer_data(12, 12, seed=30)
    K = X @ X.T
    fresh_gram = quiet_fit(cls(kernel="precomputed", max_epochs=3), K, y)
    fresh_features = quiet_fit(cls(kernel="poly", **EXACT["poly"], max_epochs=3), X, y)
    clf = quiet_fit(cls(kernel="poly", **EXACT["poly"], warm_start=True, max_epochs=3), X, y)
    quiet_fit(clf.set_params(kernel="precomputed"), K, y)
    assert_array_equal(clf.decision_function(K), fresh_gram.decision_function(K))
    quiet_fit(clf.set_params(kernel="poly"), X, y)
    assert_array_equal(clf.decision_function(X), fresh_features.decision_function(X))


def test_edited_fitted_attributes_are_refused_before_the_compiled_vote():
    # each edit let decision_function (or partial_fit) read past an array's end in a
    # compiled loop (segmentation faults, or votes from memory beyond the counts) or fail
    # in NumPy's matmul
    setup = STATE_SETUP + """
def edited(cls, **change):
    model = copy.deepcopy(fitted[cls])
    for name, value in change.items():
        setattr(model, name, value(getattr(model, name)))
    return model
fitted = {cls: cls(kernel="rbf", max_epochs=1).fit(X, y)
          for cls in (KernelPerceptron, VotedKernelPerceptron)}
fitted["gram"] = VotedKernelPerceptron(kernel="precomputed", max_epochs=1).fit(K, y)
T = rng.standard_normal((700, 4))
"""
    disagree = "fitted attributes disagree"
    refusals(setup, {
        "edited(VotedKernelPerceptron, support_vectors_=lambda v: v[:2]).decision_function(T)":
            "support vectors.*" + disagree,
        "edited(VotedKernelPerceptron, update_support_=lambda u: [u[0] * 1000])"
        ".decision_function(T)": "update_support_.0. holds rows",
        "edited(VotedKernelPerceptron, vote_counts_=lambda c: [c[0][:2]]).decision_function(T)":
            "vote_counts_",
        "edited(VotedKernelPerceptron, update_signs_=lambda s: s + s).decision_function(T)":
            "update_signs_ holds 2 arrays for 1",
        "edited(VotedKernelPerceptron, dual_coef_=lambda a: a[:, :-1]).predict(T)":
            "dual_coef_ has shape",
        "edited(KernelPerceptron, dual_coef_=lambda a: a[:, 1:]).predict(T)":
            "dual_coef_ has shape",
        "edited(KernelPerceptron, support_vectors_=lambda v: v[:, :3]).predict(T)":
            "support_vectors_ has 3 features where X has 4",
        "edited(KernelPerceptron, _n_steps=lambda t: t[:0]).partial_fit(X, y)": "_n_steps",
        "edited(VotedKernelPerceptron, _last_coef=lambda a: a[:, :5]).partial_fit(X, y)":
            "_last_coef",
        "edited('gram', support_=lambda s: s + 600).predict(K)": "support_ must be indices",
        "edited('gram', support_=lambda s: s - 600).predict(K)": "support_ must be indices",
    })


def test_predict_reads_the_model_once_while_another_thread_replaces_it():
    # A partial_fit in another thread replaces the fitted attributes while
    # decision_function runs. The callable kernel below makes that happen at a known
    # point: its first call swaps in the grown model's attributes. decision_function read
    # update_support_ again after its kernel matrix of the old support vectors (the voted
    # model: indices past its columns, a segmentation fault) and the support vectors again
    # for every block (KernelPerceptron: a matmul error); it must predict with the model
    # it started with.
    setup = STATE_SETUP + """
swap = {}
def rbf(A, B):
    if swap:
        model.__dict__.update(swap.pop("grown").__dict__)
    return np.exp(-0.25 * ((A[:, None, :] - B[None, :, :]) ** 2).sum(axis=2))
T = rng.standard_normal((40, 4))
def predicts_as_before(cls):
    global model
    model = cls(kernel=rbf, cache_size=1e-4).partial_fit(X[:100], y[:100])
    grown = copy.deepcopy(model).partial_fit(X[100:], y[100:])
    assert grown.support_vectors_.shape[0] > model.support_vectors_.shape[0]
    before = model.decision_function(T)
    swap["grown"] = grown
    during = model.decision_function(T)
    assert not swap and np.array_equal(model.support_vectors_, grown.support_vectors_)
    assert np.array_equal(during, before), "another model's votes"
"""
    found = outcomes(setup, "predicts_as_before(VotedKernelPerceptron)",
                     "predicts_as_before(KernelPerceptron)")
    assert found == ["returned", "returned"], found


def test_predict_keeps_the_kernel_it_started_with_when_set_params_changes_it():
    # gamma, degree and coef0 were read from the model for each block of rows: a
    # set_params between two blocks (here by the progress listener, which hears each
    # block) mixed two kernels in one prediction. They are read once, with the arrays
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 3))
    y = (X[:, 0] * X[:, 1] > 0).astype(int)
    model = quiet_fit(VotedKernelPerceptron(kernel="rbf", gamma=0.5, cache_size=1e-6,
                                            max_epochs=3), X, y)
    before = model.decision_function(X)
    with listen(lambda done, total: model.set_params(gamma=5.0)):
        during = model.decision_function(X)
    assert_array_equal(during, before)
    assert not np.array_equal(model.decision_function(X), before)  # the next call's kernel


# ---------------------------------------------------------------- the point: accuracy

def test_averaging_and_voting_beat_the_last_hypothesis_on_a9a():
    """One RBF epoch on 2,000 a9a rows (the issue's setting, smaller).

    Measured over eight draws of the rows: the averaged and voted accuracies stay within
    0.828-0.843 while the last hypothesis ranges over 0.742-0.824; on the draw of seed 0
    they are 0.839 and 0.837 against 0.767 (first 5,000 test rows).
    """
    from halfspaces.datasets import load_a9a

    X, y = load_a9a()
    rows = np.random.default_rng(0).choice(32_561, 2_000, replace=False)  # the train split
    X_test, y_test = X[32_561:32_561 + 5_000], y[32_561:32_561 + 5_000]
    params = dict(kernel="rbf", gamma=0.08, max_epochs=1)
    accuracy = {}
    for label, clf in [("last", KernelPerceptron(**params)),
                       ("averaged", KernelPerceptron(average=True, **params)),
                       ("voted", VotedKernelPerceptron(**params))]:
        quiet_fit(clf, X[rows], y[rows])
        accuracy[label] = float(np.mean(clf.predict(X_test) == y_test))
    assert accuracy["averaged"] >= accuracy["last"] + 0.03, accuracy
    assert accuracy["voted"] >= accuracy["last"] + 0.03, accuracy
    assert min(accuracy["averaged"], accuracy["voted"]) >= 0.82, accuracy
