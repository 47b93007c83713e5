"""MulticlassPerceptron against its slow twin and the Kesler-construction mistake bound."""

from __future__ import annotations

import warnings

import _naive_kernel as naive
import numpy as np
import pytest
from _datasets import FORMATS, in_format
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose, assert_array_equal

from halfspaces import ConvergenceWarning, MulticlassPerceptron


def quiet_fit(estimator, X, y):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return estimator.fit(X, y)


def multiclass_separable(n=150, d=4, k=4, seed=0, gap=0.3, intercept=True):
    """Labels argmax_j <w*_j, x'> with a gap of at least ``gap`` to the runner-up.

    Returns X, y and the margin gamma and radius R of the bound (W* normalised to norm 1).
    """
    rng = np.random.default_rng(seed)
    W = rng.normal(size=(k, d + 1))
    if not intercept:
        W[:, -1] = 0.0
    W /= np.linalg.norm(W)
    X = rng.normal(size=(40 * n, d)) * 2.0
    Xp = np.hstack([X, np.full((len(X), 1), float(intercept))])
    scores = Xp @ W.T
    top2 = np.sort(scores, axis=1)[:, -2:]
    keep = top2[:, 1] - top2[:, 0] >= gap
    X, Xp, scores = X[keep][:n], Xp[keep][:n], scores[keep][:n]
    y = scores.argmax(axis=1)
    runner_up = np.where(np.eye(k, dtype=bool)[y], -np.inf, scores).max(axis=1)
    gamma = float(np.min(scores[np.arange(len(y)), y] - runner_up))
    R = float(np.max(np.linalg.norm(Xp, axis=1)))
    return X, y, gamma, R


def noisy_multiclass(n=150, d=4, k=3, seed=0, flip=0.15):
    X, y, _, _ = multiclass_separable(n, d, k, seed, gap=0.0)
    rng = np.random.default_rng(seed + 1)
    flipped = rng.random(n) < flip
    return X, np.where(flipped, rng.integers(0, k, size=n), y)


# ---------------------------------------------------------------- the slow twin

@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("fit_intercept", [True, False])
@pytest.mark.parametrize("average", [False, True])
@pytest.mark.parametrize("selection", ["cyclic", "shuffle"])
def test_equals_twin(fmt, fit_intercept, average, selection):
    X, y = noisy_multiclass(120, 5, 4, seed=2)
    X[np.abs(X) < 0.7] = 0.0
    clf = quiet_fit(MulticlassPerceptron(fit_intercept=fit_intercept, average=average,
                                         selection=selection, random_state=7, max_epochs=5),
                    in_format(X, fmt), y)
    W, n_updates, n_epochs, converged = naive.multiclass_perceptron(
        in_format(X, fmt), y, 4, fit_intercept, 5, selection, np.random.RandomState(7), average)
    assert_allclose(clf.coef_, W[:, :-1], rtol=1e-10, atol=1e-10)
    assert_allclose(clf.intercept_, W[:, -1], rtol=1e-10, atol=1e-10)
    assert (clf.n_updates_, clf.n_epochs_, clf.converged_) == (n_updates, n_epochs, converged)


def test_plain_weights_are_exact():
    X, y = noisy_multiclass(100, 3, 3, seed=3)
    X = np.round(X * 4) / 4  # quarters: every sum is exact
    clf = quiet_fit(MulticlassPerceptron(max_epochs=4), X, y)
    W, *_ = naive.multiclass_perceptron(X, y, 3, True, 4)
    assert_array_equal(clf.coef_, W[:, :-1])
    assert_array_equal(clf.intercept_, W[:, -1])


# ---------------------------------------------------------------- the mistake bound

def assert_within_kesler_bound(X, y, gamma, R, **params):
    clf = MulticlassPerceptron(**params).fit(X, y)
    assert clf.converged_
    assert (clf.predict(X) == y).all()
    assert clf.n_updates_ <= 2 * R**2 / gamma**2


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("intercept", [True, False])
def test_mistakes_within_kesler_bound(seed, intercept):
    X, y, gamma, R = multiclass_separable(200, 4, 5, seed=seed, gap=0.25, intercept=intercept)
    assert_within_kesler_bound(X, y, gamma, R, fit_intercept=intercept)
    assert_within_kesler_bound(X, y, gamma, R, fit_intercept=intercept, selection="shuffle",
                               random_state=seed)


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10_000), k=st.integers(2, 6), d=st.integers(1, 6),
       gap=st.floats(0.05, 0.5))
def test_kesler_bound_property(seed, k, d, gap):
    X, y, gamma, R = multiclass_separable(60, d, k, seed=seed, gap=gap)
    if np.unique(y).size < 2:
        return
    # classes absent from y are dropped: W* restricted to the others has norm <= 1 and
    # no smaller margin, so the bound still holds
    labels = np.unique(y, return_inverse=True)[1]
    assert_within_kesler_bound(X, labels, gamma, R)


# ---------------------------------------------------------------- the decision rule

def test_ties_go_to_the_lower_class_index():
    clf = quiet_fit(MulticlassPerceptron(max_epochs=1), [[1.0], [2.0], [3.0]], [5, 7, 9])
    clf.coef_[:] = 0.0
    clf.intercept_[:] = [0.0, 1.0, 1.0]
    assert_array_equal(clf.predict([[0.0]]), [7])
    clf.intercept_[:] = 0.0
    assert_array_equal(clf.predict([[0.0]]), [5])


def test_first_update_follows_the_rule():
    # w = 0: the first example of class 0 is predicted right, the first of class 1 wrong
    clf = quiet_fit(MulticlassPerceptron(max_epochs=1), [[1.0, 0.0], [0.0, 1.0]], [0, 1])
    assert clf.n_updates_ == 1
    assert_array_equal(clf.coef_, [[0.0, -1.0], [0.0, 1.0]])
    assert_array_equal(clf.intercept_, [-1.0, 1.0])


def test_binary_decision_function_is_the_difference():
    X, y, _, _ = multiclass_separable(80, 3, 2, seed=5)
    clf = MulticlassPerceptron().fit(X, y)
    scores = X @ clf.coef_.T + clf.intercept_
    assert_allclose(clf.decision_function(X), scores[:, 1] - scores[:, 0])
    assert_array_equal(clf.predict(X), scores.argmax(axis=1))


def test_averaged_is_steadier_on_noisy_data():
    X, y = noisy_multiclass(400, 4, 3, seed=6, flip=0.2)
    X_test, y_test = noisy_multiclass(400, 4, 3, seed=6, flip=0.0)
    plain = quiet_fit(MulticlassPerceptron(max_epochs=10), X, y)
    averaged = quiet_fit(MulticlassPerceptron(max_epochs=10, average=True), X, y)
    assert averaged.score(X_test, y_test) >= plain.score(X_test, y_test)


def test_string_labels_and_formats_agree():
    X, y = noisy_multiclass(90, 3, 3, seed=8)
    names = np.array(["ant", "bee", "cat"])[y]
    fits = [quiet_fit(MulticlassPerceptron(max_epochs=3), in_format(X, fmt), names)
            for fmt in ("dense64", "csr64")]
    assert_array_equal(fits[0].coef_, fits[1].coef_)
    # string labels are only names: the same fit on the class indices, predictions renamed
    numeric = quiet_fit(MulticlassPerceptron(max_epochs=3), X, y)
    assert_array_equal(fits[0].coef_, numeric.coef_)
    assert_array_equal(fits[0].predict(X), np.array(["ant", "bee", "cat"])[numeric.predict(X)])


# ---------------------------------------------------------------- errors and warnings

@pytest.mark.parametrize("params, name", [
    (dict(max_epochs=0), "max_epochs"),
    (dict(selection="worst"), "selection"),
    (dict(average="yes"), "average"),
    (dict(fit_intercept=None), "fit_intercept"),
])
def test_bad_parameters_name_themselves(params, name):
    with pytest.raises(ValueError, match=f"'{name}' parameter"):
        MulticlassPerceptron(**params).fit([[0.0], [1.0]], [0, 1])


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # inf * 0 under NUMBA_DISABLE_JIT=1
@pytest.mark.parametrize("bad", [np.nan, np.inf])
def test_non_finite_input_is_rejected_naming_the_row(bad):
    X = np.array([[0.0, 1.0], [1.0, 0.0], [1.0, bad]])
    with pytest.raises(ValueError, match="row 2"):
        MulticlassPerceptron().fit(X, [0, 1, 2])


def test_warns_when_not_converged():
    X, y = noisy_multiclass(80, 3, 3, seed=9, flip=0.3)
    with pytest.warns(ConvergenceWarning, match="max_epochs=2.* use average=True"):
        clf = MulticlassPerceptron(max_epochs=2).fit(X, y)
    assert not clf.converged_
    # the averaged form was told to use average=True, which it had
    with pytest.warns(ConvergenceWarning, match="made for such data") as caught:
        MulticlassPerceptron(max_epochs=2, average=True).fit(X, y)
    assert "use average=True" not in str(caught[0].message)


def test_equals_twin_on_pendigits():
    from _datasets import SHARED_DATA

    if not (SHARED_DATA / "pendigits").exists():
        pytest.skip("pendigits is not available")
    from sklearn.datasets import load_svmlight_file

    X, y = load_svmlight_file(str(SHARED_DATA / "pendigits"), n_features=16)
    X, y = X[:600], y[:600].astype(np.int64)
    clf = quiet_fit(MulticlassPerceptron(max_epochs=2), X, y)
    W, n_updates, _, _ = naive.multiclass_perceptron(X, y, 10, True, 2)
    assert_array_equal(clf.coef_, W[:, :-1])  # integer features: exact sums
    assert clf.n_updates_ == n_updates
