"""The perceptron family against its slow twins, scikit-learn, and Novikoff's theorem."""

from __future__ import annotations

import warnings

import _naive
import numpy as np
import pytest
import scipy.sparse as sp
from _child import REFUSED, run_child
from _datasets import FORMATS, in_format, noisy, separable
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.linear_model import Perceptron as SkPerceptron

from halfspaces import (
    AveragedPerceptron,
    ConvergenceWarning,
    Perceptron,
    PocketPerceptron,
    VotedPerceptron,
    augment,
)
from halfspaces.datasets import load_a9a
from halfspaces.perceptron import online_perceptron

ALL = [Perceptron, AveragedPerceptron, VotedPerceptron, PocketPerceptron]


def quiet_fit(estimator, X, y):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return estimator.fit(X, y)


def sklearn_perceptron(max_iter):
    return SkPerceptron(shuffle=False, eta0=1.0, alpha=0.0, penalty=None, tol=None,
                        max_iter=max_iter)


# ---------------------------------------------------------------- the slow twins

@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("fit_intercept", [True, False])
@pytest.mark.parametrize("selection", ["cyclic", "shuffle", "worst"])
@pytest.mark.parametrize("separable_data", [True, False])
def test_perceptron_equals_twin(fmt, fit_intercept, selection, separable_data):
    X, y = separable(150, 6, seed=3)[:2] if separable_data else noisy(150, 6, seed=4)
    X = in_format(X, fmt)
    clf = quiet_fit(Perceptron(fit_intercept=fit_intercept, max_epochs=7, selection=selection,
                               random_state=5), X, y)
    w, b, n_updates, n_epochs, converged = _naive.perceptron(
        X, y, fit_intercept, 7, selection, np.random.RandomState(5))
    assert_array_equal(clf.coef_.ravel(), w)
    assert clf.intercept_[0] == b
    assert (clf.n_updates_, clf.n_epochs_, clf.converged_) == (n_updates, n_epochs, converged)


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("selection", ["cyclic", "shuffle"])
def test_averaged_equals_explicit_mean_of_all_weights(fmt, selection):
    X, y = noisy(120, 5, seed=7, sparsity=0.5)
    X = in_format(X, fmt)
    clf = quiet_fit(AveragedPerceptron(max_epochs=4, selection=selection, random_state=1), X, y)
    w, b = _naive.averaged_perceptron(X, y, True, 4, selection, np.random.RandomState(1))
    assert_allclose(clf.coef_.ravel(), w, rtol=1e-10, atol=1e-12)
    assert_allclose(clf.intercept_[0], b, rtol=1e-10, atol=1e-12)


def tied_integer_data(n, d, seed):
    """Small integers: the stored vectors give decision values of exactly 0 on many points."""
    rng = np.random.default_rng(seed)
    X = rng.integers(-2, 3, size=(n, d)).astype(np.float64)
    y = np.where(X @ rng.normal(size=d) + 0.3 > 0, 1.0, -1.0)
    return X, np.where(rng.random(n) < 0.2, -y, y)


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("fit_intercept", [True, False])
@pytest.mark.parametrize("tied", [False, True])
def test_voted_equals_freund_schapire_figure_1(fmt, fit_intercept, tied):
    X, y = tied_integer_data(100, 4, seed=11) if tied else noisy(100, 4, seed=11)
    rng = np.random.default_rng(0)
    X_test = rng.integers(-2, 3, size=(300, 4)).astype(float) if tied else rng.normal(
        size=(300, 4))
    X = in_format(X, fmt)
    clf = quiet_fit(VotedPerceptron(max_epochs=3, fit_intercept=fit_intercept), X, y)
    vectors = _naive.voted_perceptron(X, y, fit_intercept, 3)
    if tied:  # sign(0) must count as -1 in the vote, as predict counts it
        assert sum(np.sum(X_test @ v + b == 0) for v, b, _ in vectors[1:]) > 100
    assert_array_equal(clf.vote_counts_[0], [count for _, _, count in vectors])
    votes = _naive.voted_decision(vectors, X_test)
    assert_array_equal(clf.decision_function(in_format(X_test, fmt)), votes)
    assert_array_equal(clf.predict(in_format(X_test, fmt)), np.where(votes > 0, 1.0, -1.0))
    last_w, last_b, _ = vectors[-1]
    assert_array_equal(clf.coef_.ravel(), last_w)
    assert clf.intercept_[0] == last_b


@pytest.mark.parametrize(("fit_fmt", "test_fmt"), [("csr64", "dense64"), ("dense64", "csr32"),
                                                   ("dense32", "dense32"), ("csr32", "csr32")])
def test_voted_scoring_in_blocks_equals_the_vote_of_every_weight_vector(fit_fmt, test_fmt,
                                                                        monkeypatch):
    from halfspaces import perceptron
    from halfspaces._utils.progress import listen

    X, y = tied_integer_data(150, 4, seed=12)
    X_test = np.random.default_rng(1).integers(-2, 3, size=(1001, 4)).astype(float)
    clf = quiet_fit(VotedPerceptron(max_epochs=40), in_format(X, fit_fmt), y)
    monkeypatch.setattr(perceptron, "_SCORING_BLOCK", 20_000)
    block = 20_000 // clf.support_vectors_.shape[0]
    assert block < 1001 and len(clf.vote_counts_[0]) > 1000  # several blocks, many votes
    heard = []
    with listen(lambda done, total: heard.append((done, total))):
        votes = clf.decision_function(in_format(X_test, test_fmt))
    vectors = _naive.voted_perceptron(X, y, True, 40)
    assert_array_equal(votes, _naive.voted_decision(vectors, X_test))
    assert heard[-1] == (1001, 1001) and len(heard) == -(-1001 // block)


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_pocket_equals_ratchet_twin(fmt, seed):
    X, y = noisy(120, 3, seed=seed, flip=0.2)
    X = in_format(X, fmt)
    clf = quiet_fit(PocketPerceptron(max_epochs=6), X, y)
    w, b, errors = _naive.pocket_perceptron(X, y, True, 6)
    assert_array_equal(clf.coef_.ravel(), w)
    assert clf.intercept_[0] == b
    assert clf.n_errors_ == errors == np.sum(clf.predict(X) != y)


def test_a_warm_started_pocket_judges_the_weights_of_the_new_data():
    # the pocket's run from the first fit (every row right) outlasted every later run, so
    # the weights that separate the relabelled data were never judged: converged_ with a
    # pocket wrong on 4 of 4 rows
    X = np.array([[1.0], [2.0], [3.0], [4.0]])
    clf = PocketPerceptron(warm_start=True).fit(X, [0, 0, 1, 1])
    clf.fit(X, [1, 1, 0, 0])
    assert clf.converged_ and clf.n_errors_ == 0 and clf.score(X, [1, 1, 0, 0]) == 1.0
    stream = PocketPerceptron()
    for _ in range(21):
        stream.partial_fit(X, [0, 0, 1, 1], classes=[0, 1])
    for _ in range(30):
        stream.partial_fit(X, [1, 1, 0, 0])
        assert stream.n_errors_ == np.sum(stream.predict(X) != [1, 1, 0, 0])
    assert stream.converged_ and stream.n_errors_ == 0


@pytest.mark.parametrize("seed", [33, 108, 256, 308])
def test_a_shuffled_run_that_converges_pockets_its_separator(seed):
    # a pocket's run may span two shuffled passes (up to 2n - 2 rows), longer than the n of
    # the pass that proves the last weights separate: they were never judged, and a fit
    # ended converged_ with a pocket making one training error (these seeds, found by search)
    rng = np.random.default_rng(seed)
    X, y, _, _ = separable(int(rng.integers(3, 12)), 2, seed=seed, gap=0.01)
    clf = quiet_fit(PocketPerceptron(max_epochs=50, selection="shuffle", random_state=seed),
                    X, y)
    assert clf.converged_
    assert clf.n_errors_ == np.sum(clf.predict(X) != y) == 0


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 10**6), st.sampled_from(["cyclic", "shuffle"]), st.integers(1, 3))
def test_the_pocket_of_a_converged_run_makes_no_training_error(seed, selection, n_calls):
    # a pass without a mistake proves the current weights have no training error, so the
    # pocket (the fewest errors seen) has none either; and n_errors_ counts the pocket's
    # errors on the last call's data, whatever the earlier calls saw
    rng = np.random.default_rng(seed)
    clf = PocketPerceptron(warm_start=True, max_epochs=8, selection=selection,
                           random_state=seed)
    for _ in range(n_calls):
        X, y, _, _ = separable(int(rng.integers(4, 30)), 2, seed=int(rng.integers(10**6)))
        y[:2] = [1.0, -1.0]  # both labels, whatever the draw (then not always separable)
        clf = quiet_fit(clf, X, y)
        assert clf.n_errors_ == np.sum(clf.predict(X) != y)
        if clf.converged_:
            assert clf.n_errors_ == 0


@pytest.mark.parametrize("n, d, seed, max_epochs",
                         [(80, 3, 31, 2)]  # the final weights beat every earlier one here
                         + [(40, 2, seed, epochs) for seed in range(40) for epochs in (1, 2, 3)])
def test_pocket_with_worst_selection_keeps_the_best_weights_seen(n, d, seed, max_epochs):
    # an exact oracle: the pocket holds the fewest training errors of any weight vector the
    # run visits, w = 0 and the weights left by its last update included
    X, y = noisy(n, d, seed=seed, flip=0.2)
    fit_intercept = seed % 2 == 1
    clf = quiet_fit(PocketPerceptron(max_epochs=max_epochs, selection="worst",
                                     fit_intercept=fit_intercept), X, y)
    visited = _naive.perceptron_worst_weights(X, y, fit_intercept, max_epochs)
    errors = [_naive.training_errors(X, y, w, b) for w, b in visited]
    assert clf.n_errors_ == min(errors) == np.sum(clf.predict(X) != y)
    best_w, best_b = visited[int(np.argmin(errors))]  # the first of the best: a ratchet
    assert_array_equal(clf.coef_.ravel(), best_w)
    assert clf.intercept_[0] == best_b


# ---------------------------------------------------------------- scikit-learn parity

@pytest.mark.parametrize("as_dense", [False, True])
def test_a9a_equals_sklearn_exactly(as_dense):
    X, y = load_a9a()
    X_ours = X.toarray() if as_dense else X
    epochs = 3
    ours = quiet_fit(Perceptron(max_epochs=epochs), X_ours, y)
    theirs = sklearn_perceptron(epochs).fit(X.toarray(), y)
    assert_array_equal(ours.coef_, theirs.coef_)
    assert_array_equal(ours.intercept_, theirs.intercept_)


def test_a9a_int64_indices_accepted_and_identical():
    X, y = load_a9a()
    X64 = in_format(X[:5000], "csr64")
    a = quiet_fit(Perceptron(max_epochs=2), X64, y[:5000])
    b = quiet_fit(Perceptron(max_epochs=2), X[:5000].toarray(), y[:5000])
    assert_array_equal(a.coef_, b.coef_)


@pytest.mark.parametrize("seed", [0, 1])
def test_dense_gaussian_matches_sklearn(seed):
    X, y = noisy(3000, 20, seed=seed, flip=0.05)
    epochs = 10
    ours = quiet_fit(Perceptron(max_epochs=epochs), X, y)
    theirs = sklearn_perceptron(epochs).fit(X, y)
    assert_allclose(ours.coef_, theirs.coef_, rtol=1e-9)
    assert_allclose(ours.intercept_, theirs.intercept_, rtol=1e-9)


def test_multiclass_one_vs_rest_equals_sklearn_on_digits():
    from sklearn.datasets import load_digits

    X, y = load_digits(return_X_y=True)
    ours = quiet_fit(Perceptron(max_epochs=4), X, y)
    theirs = sklearn_perceptron(4).fit(X, y)
    assert_array_equal(ours.coef_, theirs.coef_)
    assert_array_equal(ours.intercept_, theirs.intercept_)
    assert ours.n_updates_.shape == (10,)
    assert_array_equal(ours.predict(X), theirs.predict(X))


# ---------------------------------------------------------------- online protocol and bounds

def novikoff_bound(X, y, w_star, b_star, fit_intercept=True):
    """(R / gamma)^2 on x' = (1, x) for the separator (b*, w*): an upper bound on mistakes."""
    X_aug = augment(X) if fit_intercept else X
    u = np.concatenate([[b_star], w_star]) if fit_intercept else w_star
    gamma = np.min(y * (X_aug @ u)) / np.linalg.norm(u)
    R = np.max(np.linalg.norm(X_aug, axis=1))
    return (R / gamma) ** 2


def test_online_perceptron_is_one_cyclic_pass():
    X, y = noisy(200, 5, seed=2)
    run = online_perceptron(X, y)
    w, b, n_updates, _, _ = _naive.perceptron(X, y, True, 1)
    assert_array_equal(run.coef, w)
    assert run.intercept == b and run.n_mistakes == n_updates
    # replay: a mistake exactly where the twin's weights misclassify before updating
    w, b = np.zeros(5), 0.0
    for i in range(len(y)):
        mistake = y[i] * (X[i] @ w + b) <= 0
        assert run.mistakes[i] == mistake
        if mistake:
            w, b = w + y[i] * X[i], b + y[i]


@pytest.mark.parametrize("cls", [Perceptron, AveragedPerceptron, VotedPerceptron, PocketPerceptron])
def test_partial_fit_batches_equal_one_online_pass(cls):
    X, y = noisy(300, 4, seed=8)
    whole = cls().partial_fit(X, y, classes=[-1, 1])
    batched = cls()
    for start in range(0, 300, 70):
        batched.partial_fit(X[start:start + 70], y[start:start + 70], classes=[-1, 1])
    if cls is not PocketPerceptron:  # the pocket is judged per batch by design
        assert_allclose(batched.coef_, whole.coef_, rtol=1e-12)
        assert_allclose(batched.decision_function(X), whole.decision_function(X), rtol=1e-12)
    assert batched.n_updates_ == whole.n_updates_ == online_perceptron(X, y).n_mistakes


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10_000), n=st.integers(5, 120), d=st.integers(1, 8),
       gap=st.floats(0.05, 1.0), fit_intercept=st.booleans())
def test_mistakes_within_novikoff_bound(seed, n, d, gap, fit_intercept):
    X, y, w_star, b_star = separable(n, d, seed, gap=gap, intercept=fit_intercept)
    assume(np.unique(y).size == 2)
    bound = novikoff_bound(X, y, w_star, b_star, fit_intercept)
    assert online_perceptron(X, y, fit_intercept=fit_intercept).n_mistakes <= bound
    clf = Perceptron(fit_intercept=fit_intercept, selection="shuffle", random_state=seed)
    clf.fit(X, y)
    assert clf.converged_ and clf.n_updates_ <= bound
    assert np.all(clf.predict(X) == y)


def test_homogeneous_reduction_matches_implicit_intercept():
    X, y = noisy(150, 4, seed=9)
    implicit = quiet_fit(Perceptron(max_epochs=5), X, y)
    explicit = quiet_fit(Perceptron(max_epochs=5, fit_intercept=False), augment(X), y)
    assert_allclose(explicit.coef_.ravel(), np.r_[implicit.intercept_, implicit.coef_.ravel()])


def test_augment_keeps_format_and_puts_the_constant_first():
    X = np.arange(6, dtype=np.float32).reshape(3, 2)
    dense = augment(X)
    assert dense.dtype == np.float32
    assert_array_equal(dense, np.hstack([np.ones((3, 1)), X]))
    sparse = augment(sp.csr_matrix(X))
    assert sp.issparse(sparse) and sparse.format == "csr"
    assert_array_equal(sparse.toarray(), dense)



# ---------------------------------------------------------------- state, warnings, no copies

def test_warm_start_continues_the_same_run():
    X, y = noisy(200, 4, seed=10)
    once = quiet_fit(Perceptron(max_epochs=6), X, y)
    warm = quiet_fit(Perceptron(max_epochs=2, warm_start=True), X, y)
    warm.set_params(max_epochs=4)
    quiet_fit(warm, X, y)
    assert_array_equal(warm.coef_, once.coef_)
    assert warm.n_updates_ == once.n_updates_


@pytest.mark.parametrize(
    "cls, advice",
    [(Perceptron, "use AveragedPerceptron .* or PocketPerceptron .*, made for such data"),
     (VotedPerceptron, "VotedPerceptron is made for such data \\(a vote of every weight"),
     (AveragedPerceptron, "AveragedPerceptron is made for such data \\(the mean of all"),
     (PocketPerceptron, "PocketPerceptron is made for such data \\(the weights with the fewest")],
)
def test_not_separable_warns_without_sending_the_user_in_a_circle(cls, advice):
    # the averaged perceptron's warning told the user to use the pocket perceptron, whose
    # warning told them to use the averaged one: a class made for non-separable data says so
    X, y = noisy(100, 3, seed=1, flip=0.3)
    with pytest.warns(ConvergenceWarning, match=advice) as caught:
        cls(max_epochs=3).fit(X, y)
    message = str(caught[0].message)
    assert "separability" in message
    assert (" use " in message) == (cls is Perceptron)  # no other class told to be another


@pytest.mark.parametrize("fmt", FORMATS)
def test_fit_does_not_copy_X(fmt):
    import tracemalloc

    rng = np.random.default_rng(0)
    n, d = 40_000, 200
    X = in_format(rng.normal(size=(n, d)) * (rng.random((n, d)) < 0.5), fmt)
    y = np.where(rng.random(n) < 0.5, 1.0, -1.0)
    size = X.data.nbytes + X.indices.nbytes if sp.issparse(X) else X.nbytes
    quiet_fit(Perceptron(max_epochs=1), X[:100], y[:100])  # compile outside the measurement
    tracemalloc.start()
    quiet_fit(Perceptron(max_epochs=1), X, y)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert peak < 0.1 * size, f"fit allocated {peak / 1e6:.1f} MB for a {size / 1e6:.0f} MB X"


def test_pandas_feature_names():
    pd = pytest.importorskip("pandas")
    X, y = separable(50, 3, seed=0)[:2]
    frame = pd.DataFrame(X, columns=["a", "b", "c"])
    clf = Perceptron().fit(frame, y)
    assert list(clf.feature_names_in_) == ["a", "b", "c"]


# ---------------------------------------------------------------- errors that name the problem

@pytest.mark.parametrize("fmt", ["dense64", "dense32", "csr32"])
@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
@pytest.mark.parametrize("selection", ["cyclic", "worst"])
def test_non_finite_input_names_the_row(fmt, bad, selection):
    X, y = noisy(50, 3, seed=0)
    X[17, 1] = bad
    with pytest.raises(ValueError, match="NaN or infinity.*row 17"):
        Perceptron(selection=selection).fit(in_format(X, fmt), y)


def test_overflow_is_reported_as_such():
    X, y = noisy(10, 2, seed=0)
    X[3] = [1e308, 1e308]
    with pytest.raises(ValueError, match="row 3 overflowed"):
        quiet_fit(Perceptron(), X, y)


@pytest.mark.parametrize(
    "params, match",
    [({"max_epochs": 0}, "max_epochs"), ({"selection": "random"}, "selection"),
     ({"fit_intercept": "yes"}, "fit_intercept")],
)
def test_bad_parameters_are_named(params, match):
    X, y = separable(20, 2)[:2]
    with pytest.raises(ValueError, match=match):
        Perceptron(**params).fit(X, y)


def test_bad_inputs_are_named():
    X, y = separable(20, 2)[:2]
    with pytest.raises(ValueError, match="only one class"):
        Perceptron().fit(X, np.ones(20))
    with pytest.raises(ValueError, match="inconsistent numbers of samples"):
        Perceptron().fit(X, y[:-1])
    with pytest.raises(ValueError, match="0 sample"):
        Perceptron().fit(X[:0], y[:0])
    clf = Perceptron().fit(X, y)
    with pytest.raises(ValueError, match="X has 3 features"):
        clf.predict(np.zeros((2, 3)))


def test_partial_fit_label_checks():
    X, y = separable(20, 2)[:2]
    with pytest.raises(ValueError, match="classes must be passed"):
        Perceptron().partial_fit(X[y > 0], y[y > 0])
    clf = Perceptron().partial_fit(X, y)
    with pytest.raises(ValueError, match="not in classes_"):
        clf.partial_fit(X, np.full(20, 7.0))


# --- one epoch on a block of rows (the step of iterative parameter mixing) ---------------


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("mode", ["plain", "averaged"])
def test_block_epochs_over_the_whole_data_are_the_serial_run_bit_for_bit(fmt, mode):
    from halfspaces._perceptron.run import perceptron_block_epoch, run_perceptron

    X, y = noisy(120, 4, seed=3)
    X = in_format(X, fmt)
    serial = run_perceptron(X, y, mode=mode, max_epochs=4)
    w, aux, steps, updates = np.zeros(5), np.zeros(5), 0, 0
    for _ in range(4):
        out = perceptron_block_epoch(X, y, w, aux, steps, mode=mode)
        w, aux, steps, updates = out.w, out.aux, out.n_steps, updates + out.n_updates
    assert_array_equal(serial.state.w, w)
    assert_array_equal(serial.state.aux, aux)
    assert (serial.state.n_steps, serial.n_updates) == (steps, updates)


@pytest.mark.parametrize("mode", ["plain", "averaged"])
def test_block_epochs_chained_over_consecutive_blocks_are_one_serial_epoch(mode):
    from halfspaces._perceptron.run import perceptron_block_epoch, run_perceptron

    X, y = noisy(90, 3, seed=4)
    serial = run_perceptron(X, y, mode=mode, max_epochs=1, fit_intercept=False)
    state, total = (np.zeros(4), np.zeros(4), 0), 0
    for block in (slice(0, 0), slice(0, 1), slice(1, 50), slice(50, 90)):  # empty, one row
        out = perceptron_block_epoch(X[block], y[block], *state, mode=mode,
                                     fit_intercept=False)
        state, total = (out.w, out.aux, out.n_steps), total + out.n_updates
    assert_array_equal(serial.state.w, state[0])
    assert_array_equal(serial.state.aux, state[1])
    assert total == serial.n_updates


def test_block_epoch_leaves_its_arguments_alone_and_names_a_bad_row():
    from halfspaces._perceptron.run import perceptron_block_epoch

    w, aux = np.zeros(3), np.zeros(3)
    perceptron_block_epoch(np.array([[1.0, 2.0]]), np.array([1.0]), w, aux, mode="averaged")
    assert not w.any() and not aux.any()
    with pytest.raises(ValueError, match="row 1"):
        perceptron_block_epoch(np.array([[1.0, 2.0], [np.nan, 0.0]]), np.array([1.0, -1.0]), w)
    with pytest.raises(ValueError, match="mode="):
        perceptron_block_epoch(np.array([[1.0, 2.0]]), np.array([1.0]), w, mode="pocket")


@pytest.mark.parametrize("cls", ALL)
def test_homogeneous_runs_are_scale_free_or_refused_where_scores_underflow(cls):
    # the perceptron without an intercept on c X is the run on X with c w, for c > 0; by a
    # power of two the floats agree exactly. At 1e-170 every score underflowed to 0 and
    # counted as a mistake: 100 updates on two points whose Novikoff bound is 1
    X, y, _, _ = separable(40, 3, seed=5, intercept=False)
    base = quiet_fit(cls(fit_intercept=False, max_epochs=20), X, y)
    scaled = quiet_fit(cls(fit_intercept=False, max_epochs=20), np.ldexp(X, -400), y)
    assert scaled.n_updates_ == base.n_updates_ and scaled.converged_ == base.converged_
    if hasattr(base, "coef_"):
        assert_array_equal(scaled.coef_, np.ldexp(base.coef_, -400))
    tiny = np.array([[1e-170], [-1e-170]])
    with pytest.raises(ValueError, match=r"largest \|x_ij\| of X is 1e-170.*underflow"):
        cls(fit_intercept=False, max_epochs=50).fit(tiny, [1, -1])
    with pytest.raises(ValueError, match="underflow"):
        online_perceptron(tiny, [1, -1], fit_intercept=False)


@pytest.mark.parametrize("cls", [Perceptron, AveragedPerceptron, PocketPerceptron,
                                 VotedPerceptron])
def test_an_interrupted_fit_leaves_the_model_that_partial_fit_continues(cls, monkeypatch):
    # an interrupt (or a memory refusal) after scikit-learn's validation had set
    # n_features_in_ = 5 left weights for 3 features: the next partial_fit on 5 columns
    # wrote beyond them
    X, y, _, _ = separable(20, 3, seed=0)
    clf = cls().partial_fit(X, y)
    reference = cls().partial_fit(X, y).partial_fit(X, y)

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr("halfspaces.perceptron.run_perceptron", interrupted)
    with pytest.raises(KeyboardInterrupt):
        clf.fit(np.hstack([X, X[:, :2]]), y)
    monkeypatch.undo()
    assert clf.n_features_in_ == 3
    assert_array_equal(clf.partial_fit(X, y).decision_function(X), reference.decision_function(X))


def test_partial_fit_refuses_a_state_that_does_not_fit_the_batch():
    # partial_fit trusted n_features_in_ as the width of its weights: raised to 10**8, a
    # batch of 10**8 columns was run on weights of 6 slots (a segfault); classes_ edited to
    # three labels failed inside zip()
    out = run_child(REFUSED, """
        import numpy as np, scipy.sparse as sp
        import halfspaces as hs
        rng = np.random.default_rng(0)
        X, y = rng.standard_normal((40, 5)), rng.integers(0, 2, 40)
        d = 10**8
        wide = sp.csr_matrix(([1.0, -1.0], [d - 1, d - 1], [0, 1, 2]), shape=(2, d))
        for name in ("Perceptron", "AveragedPerceptron", "PocketPerceptron",
                     "VotedPerceptron"):
            clf = getattr(hs, name)(max_epochs=2).fit(X, y)
            clf.n_features_in_ = d
            refused(lambda: clf.partial_fit(wide, [1, 0]))
            clf = getattr(hs, name)(max_epochs=2).fit(X, y)
            clf.classes_ = np.array([0, 1, 2])
            refused(lambda: clf.partial_fit(X, y))
        clf = hs.VotedPerceptron(max_epochs=2).fit(X, y)
        clf.support_vectors_ = clf.support_vectors_[:, :2]
        refused(lambda: clf.partial_fit(X, y))
    """)
    assert out.count("refused: partial_fit: the state of this") == 9, out


def test_voted_scoring_uses_one_log_while_partial_fit_replaces_it_in_another_thread():
    # decision_function read update_support_, update_signs_ and vote_counts_ again for each
    # block of rows: a partial_fit between two blocks gave update rows beyond the support
    # vectors it had read, and the compiled vote read past them (a segfault). The scoring
    # thread here waits after its first block until the partial_fit is done.
    out = run_child("""
        import threading, warnings
        import numpy as np
        from halfspaces import VotedPerceptron
        from halfspaces._utils.progress import listen
        warnings.simplefilter("ignore")
        rng = np.random.default_rng(0)
        clf = VotedPerceptron().partial_fit(rng.standard_normal((4000, 5)),
                                            rng.integers(0, 2, 4000))
        n_support = clf.support_vectors_.shape[0]
        Xt = rng.standard_normal((3 * 4_000_000 // n_support, 5))  # three blocks
        expected = clf.decision_function(Xt)
        first_block, trained, result = threading.Event(), threading.Event(), {}

        def wait_once(done, total):
            if done < total:
                first_block.set()
                trained.wait(60)

        def score():
            with listen(wait_once):
                result["votes"] = clf.decision_function(Xt)

        scorer = threading.Thread(target=score)
        scorer.start()
        first_block.wait(60)
        clf.partial_fit(rng.standard_normal((20000, 5)), rng.integers(0, 2, 20000))
        trained.set()
        scorer.join()
        print("grew:", clf.support_vectors_.shape[0] > 2 * n_support)
        print("same votes:", np.array_equal(result["votes"], expected))
    """)
    assert "grew: True" in out and "same votes: True" in out, out


def test_voted_scoring_refuses_edited_attributes_that_disagree():
    # the compiled vote indexes support_vectors_, the signs and the counts by the logged
    # update rows without bounds checks: truncated support vectors or counts and inflated
    # rows were read beyond their end (segfaults, or silently wrong votes)
    out = run_child(REFUSED, """
        import warnings
        import numpy as np, scipy.sparse as sp
        from halfspaces import VotedPerceptron
        warnings.simplefilter("ignore")
        rng = np.random.default_rng(0)
        X, y = rng.standard_normal((3000, 5)), rng.integers(0, 2, 3000)
        Xt = rng.standard_normal((2000, 5))
        edits = {
            "support_vectors_": lambda c: c.support_vectors_[:2],
            "support_vectors_ ": lambda c: sp.csr_matrix(c.support_vectors_[:2]),
            "update_support_": lambda c: [c.update_support_[0] * 1000],
            "vote_counts_": lambda c: [c.vote_counts_[0][:2]],
            "update_signs_": lambda c: [c.update_signs_[0][:-1]],
            "update_support_ ": lambda c: [c.update_support_[0].astype(float)],
            "vote_counts_ ": lambda c: c.vote_counts_ * 2,
        }
        for name, edit in edits.items():
            c = VotedPerceptron(max_epochs=2).fit(X, y)
            setattr(c, name.strip(), edit(c))
            Xs = sp.csr_matrix(Xt) if sp.issparse(c.support_vectors_) else Xt
            refused(lambda: c.decision_function(Xs))
    """)
    assert out.count("refused: this VotedPerceptron's fitted attributes disagree") == 7, out


SHIFTED = (np.array([[3.0, 0.0], [4.0, 1.0], [5.0, 0.0], [6.0, 1.0]]), [0, 0, 1, 1])
THROUGH_ORIGIN = (np.array([[1.0, 0.0], [2.0, 0.0], [-1.0, 0.0], [-2.0, 0.0]]), [1, 1, 0, 0])


@pytest.mark.parametrize("cls", [Perceptron, AveragedPerceptron, PocketPerceptron])
@pytest.mark.parametrize("how", ["warm_start", "partial_fit"])
def test_continuing_without_an_intercept_drops_the_one_the_state_held(cls, how):
    # the loop without an intercept neither reads nor moves its slot, so the intercept of
    # the earlier fit (-10) stayed, was reported as intercept_ and added by predict:
    # accuracy 0.5 on data a fresh fit without an intercept separates
    X, y = THROUGH_ORIGIN
    clf = cls(warm_start=True).fit(*SHIFTED)
    if how == "partial_fit":
        clf = cls()
        for _ in range(20):
            clf.partial_fit(*SHIFTED)
    assert clf.intercept_[0] != 0
    clf.set_params(fit_intercept=False)
    for _ in range(5 if how == "partial_fit" else 1):
        clf = clf.fit(X, y) if how == "warm_start" else clf.partial_fit(X, y)
    assert_array_equal(clf.intercept_, [0.0])
    assert_array_equal(clf.decision_function(X), X @ clf.coef_[0])
    assert clf.score(X, y) == 1.0


def test_voted_votes_with_the_intercept_its_log_was_built_with():
    # decision_function read fit_intercept at predict time: set_params(fit_intercept=False)
    # changed the votes of a fitted model, and a partial_fit then mixed vectors logged
    # with an intercept and without
    X, y = SHIFTED
    clf = VotedPerceptron(warm_start=True).fit(X, y)
    votes = clf.decision_function(X)
    clf.set_params(fit_intercept=False)
    assert_array_equal(clf.decision_function(X), votes)
    with pytest.raises(ValueError, match="logged with fit_intercept=True.*set "
                                         "fit_intercept=True to continue"):
        clf.partial_fit(X, y)
    assert_array_equal(clf.decision_function(X), votes)
    fresh = VotedPerceptron(fit_intercept=False).fit(*THROUGH_ORIGIN)
    assert_array_equal(clf.fit(*THROUGH_ORIGIN).decision_function(X),
                       fresh.decision_function(X))  # the warm start started afresh
    assert clf.partial_fit(*THROUGH_ORIGIN).n_updates_ >= fresh.n_updates_


@pytest.mark.parametrize("cls", [Perceptron, VotedPerceptron])
def test_every_partial_fit_checks_the_parameters(cls):
    # scikit-learn checks a fitted estimator's first partial_fit only
    from sklearn.utils._param_validation import InvalidParameterError

    X, y, _, _ = separable(20, 3, seed=0)
    clf = cls().partial_fit(X, y).set_params(fit_intercept="no")
    with pytest.raises(InvalidParameterError, match="'fit_intercept' parameter"):
        clf.partial_fit(X, y)
