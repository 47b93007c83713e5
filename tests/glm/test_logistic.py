"""LogisticRegression, the estimator: parity with scikit-learn's optimum, the solvers' default
budgets, partial_fit and warm starts, probabilities, warnings and scikit-learn's checks.

The layers below have their own tests: test_fast_logistic (compiled loops), test_datafits
(values, gradients, curvature) and test_solvers (optimisers, whitening, stopping rules)."""

from __future__ import annotations

import re
import warnings

import numpy as np
import pytest
from _child import REFUSED, run_child
from _datasets import FORMATS, SHARED_DATA, in_format, noisy, separable
from _glm_reference import (
    assert_same_optimum,
    dense,
    objective,
    reference_value,
    sklearn_optimum,
)
from numpy.testing import assert_allclose, assert_array_equal
from scipy.special import expit
from sklearn.datasets import load_digits
from sklearn.linear_model import LogisticRegression as SkLogisticRegression

from halfspaces import ConvergenceWarning, LogisticRegression


# -- parity with scikit-learn's optimum --------------------------------------------------------
def test_no_overflow_warnings_at_huge_margins():
    X, y = noisy(200, 4, seed=3)
    with warnings.catch_warnings(), np.errstate(over="raise", invalid="raise", divide="raise"):
        warnings.simplefilter("error", RuntimeWarning)
        for loss in ("logistic", "softmax"):
            labels = (y > 0).astype(np.intp) if loss == "softmax" else y
            obj = objective(X * 1e6, labels, 0.0, True, loss, 2)
            value, grad = obj.value_grad(np.random.default_rng(0).normal(size=obj.size))
            assert np.isfinite(value) and np.all(np.isfinite(grad)) and value > 1e3
        clf = LogisticRegression(solver="newton", alpha=1e-3).fit(X * 1e6, y)
        proba = clf.predict_proba(X * 1e9)
        assert np.all(np.isfinite(clf.predict_log_proba(X * 1e9)))
    assert_allclose(proba.sum(axis=1), 1.0)


@pytest.fixture(scope="module")
def a9a_reference(a9a):
    X, y = a9a
    return sklearn_optimum(X, y, 1.0)


@pytest.mark.parametrize("solver", ["newton", "lbfgs"])
def test_a9a_matches_sklearn(a9a, a9a_reference, solver):
    X, y = a9a
    ours = LogisticRegression(solver=solver, alpha=1.0 / X.shape[0], tol=1e-9,
                              max_iter=3000)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)  # lbfgs may stop on J's change
        ours.fit(X, y)
    # a9a with alpha = 1/N is ill conditioned (smallest curvature ~ alpha = 2e-5); L-BFGS
    # reaches the coefficients to 1e-5 only thanks to its whitening (unwhitened it stalled
    # with errors near 1e-4)
    assert_same_optimum(ours, a9a_reference, X, y, 1.0)


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("C", [1.0, None])
@pytest.mark.parametrize("solver", ["newton", "lbfgs"])
def test_dense_and_sparse_binary_match_sklearn(fmt, C, solver):
    X, y = noisy(1500, 8, seed=6, flip=0.2)
    X = in_format(X * 3.0, fmt)
    alpha = 0.0 if C is None else 1.0 / (C * X.shape[0])
    ours = LogisticRegression(solver=solver, alpha=alpha, tol=1e-10)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)  # may stall at 1e-10: rounding
        ours.fit(X, y)
    assert_same_optimum(ours, sklearn_optimum(in_format(dense(X), "dense64"), y, C),
                        dense(X), y, C)


@pytest.fixture(scope="module")
def digits_reference():
    X, y = load_digits(return_X_y=True)
    return X / 16.0, y, sklearn_optimum(X / 16.0, y, 1.0)


@pytest.mark.parametrize("solver", ["newton", "lbfgs"])
def test_digits_multinomial_matches_sklearn(digits_reference, solver):
    X, y, reference = digits_reference
    ours = LogisticRegression(solver=solver, alpha=1.0 / X.shape[0], tol=1e-8,
                              max_iter=5000).fit(X, y)
    assert_same_optimum(ours, reference, X, y, 1.0)


def load_mnist_test(n):
    images = SHARED_DATA / "mnist-t10k-images-idx3-ubyte"
    labels = SHARED_DATA / "mnist-t10k-labels-idx1-ubyte"
    if not images.exists() or not labels.exists():
        pytest.skip("MNIST t10k is not available")
    X = np.frombuffer(images.read_bytes(), dtype=np.uint8, offset=16).reshape(-1, 784)
    y = np.frombuffer(labels.read_bytes(), dtype=np.uint8, offset=8)
    return X[:n] / 255.0, y[:n].astype(np.int64)


@pytest.fixture(scope="module")
def mnist_reference():
    X, y = load_mnist_test(1000)
    # scikit-learn's lbfgs stalls above 1e-5 here: its newton-cg is the oracle
    sk = SkLogisticRegression(C=1.0, solver="newton-cg", tol=1e-10, max_iter=1000).fit(X, y)
    return X, y, sk


@pytest.mark.parametrize("solver", ["newton", "lbfgs"])
def test_mnist_multinomial_matches_sklearn(mnist_reference, solver):
    # 7,850 parameters: Newton-CG on Hessian-vector products (no Cholesky); L-BFGS whitened
    # by ten 785 x 785 class blocks
    X, y, sk = mnist_reference
    ours = LogisticRegression(solver=solver, alpha=1.0 / X.shape[0], tol=1e-9,
                              max_iter=3000).fit(X, y)
    assert_same_optimum(ours, sk, X, y, 1.0)


def test_dense_and_sparse_give_the_same_model():
    X, y = noisy(400, 6, seed=7, sparsity=0.5)
    models = [LogisticRegression(solver="newton", alpha=0.01).fit(in_format(X, f), y)
              for f in ("dense64", "csr64")]
    assert_allclose(models[0].coef_, models[1].coef_, rtol=1e-10)


# -- the solvers' budgets and behaviour ---------------------------------------------------------
@pytest.mark.parametrize("solver,rtol", [("newton", 1e-8), ("sgd", 1e-3), ("minibatch", 1e-3),
                                         ("gd", 1e-3)])
def test_default_budgets_reach_the_optimum_on_a9a(a9a, a9a_reference, solver, rtol):
    X, y = a9a
    alpha = 1.0 / X.shape[0]
    ours = LogisticRegression(solver=solver, alpha=alpha, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        ours.fit(X, y)
    t = np.where(y > 0, 1.0, -1.0)
    best = reference_value(X, t, np.r_[a9a_reference.coef_.ravel(), a9a_reference.intercept_],
                           alpha, "logistic")
    assert ours.loss_curve_[-1] <= best * (1 + rtol)
    assert_allclose(ours.loss_curve_[-1], reference_value(
        X, t, np.r_[ours.coef_.ravel(), ours.intercept_], alpha, "logistic"), rtol=1e-12)



def test_partial_fit_epochs_equal_fit_epochs():
    X, y = noisy(300, 4, seed=10)
    fitted = LogisticRegression(solver="minibatch", batch_size=16, alpha=1e-3, max_iter=3,
                                tol=0.0, random_state=1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        fitted.fit(X, y)
    online = LogisticRegression(solver="minibatch", batch_size=16, alpha=1e-3, random_state=1)
    for _ in range(3):
        online.partial_fit(X, y, classes=[-1.0, 1.0])
    assert_allclose(online.coef_, fitted.coef_, rtol=1e-12)
    assert not hasattr(LogisticRegression(solver="lbfgs"), "partial_fit")


@pytest.mark.parametrize("n_classes", [2, 3])
def test_a_batch_beyond_the_rows_is_the_full_batch_trajectory(n_classes):
    # every step of batch_size=1000 on 60 rows averages the same 60 rows as batch_size=60;
    # the default step was sqrt(1000) / (2 R^2), not sqrt(60) / (2 R^2): another, 4 times
    # longer trajectory (a model far from batch_size=60's after 5 epochs)
    X, y = noisy(60, 3, seed=12)
    if n_classes == 3:
        y = np.where(X[:, 1] > 0.5, 2.0, y)
    fits = []
    for batch_size in (60, 61, 1000, 256):
        clf = LogisticRegression(solver="minibatch", batch_size=batch_size, max_iter=5,
                                 tol=0.0, random_state=3)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            fits.append(clf.fit(X, y))
    for clf in fits[1:]:
        assert_array_equal(clf.coef_, fits[0].coef_)
        assert_array_equal(clf.intercept_, fits[0].intercept_)
        assert_array_equal(clf.loss_curve_, fits[0].loss_curve_)


def test_warm_start_resumes_at_the_optimum():
    X, y = noisy(300, 4, seed=11)
    clf = LogisticRegression(solver="newton", alpha=1e-2, warm_start=True).fit(X, y)
    assert clf.fit(X, y).n_iter_ == 0


# -- predictions, labels, warnings -------------------------------------------------------------
def test_probabilities_follow_classes_order_with_string_labels():
    X, y = load_digits(n_class=3, return_X_y=True)
    names = np.array(["zero", "one", "two"])[y]
    clf = LogisticRegression(solver="newton", alpha=1e-2).fit(X / 16, names)
    assert_array_equal(clf.classes_, ["one", "two", "zero"])
    proba = clf.predict_proba(X / 16)
    assert_allclose(proba.sum(axis=1), 1.0)
    assert_array_equal(clf.classes_[proba.argmax(axis=1)], clf.predict(X / 16))
    assert_allclose(np.exp(clf.predict_log_proba(X / 16)), proba)
    assert clf.score(X / 16, names) > 0.95


def test_binary_probabilities_are_the_sigmoid_of_the_decision_function():
    X, y = noisy(200, 3, seed=12)
    clf = LogisticRegression(solver="newton", alpha=1e-2).fit(X, np.where(y > 0, "b", "a"))
    assert_allclose(clf.predict_proba(X)[:, 1], expit(clf.decision_function(X)))


def test_separable_data_warn_that_alpha_is_needed():
    X, y, _, _ = separable(100, 3, seed=13)
    for solver in ("newton", "lbfgs"):
        with pytest.warns(ConvergenceWarning, match="linearly separable"):
            LogisticRegression(solver=solver).fit(X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        LogisticRegression(solver="newton", alpha=1e-2).fit(X, y)


SCALES = (1e-8, 1e-6, 1e-3, 1.0, 1e4)


def symmetric(data):
    """(X, y) and (-X, -y): at w = 0 the intercept's derivative is 0, the features' alone
    are not, so a solver that stops there has looked at the features' gradients only."""
    X, y = data
    X, y = X[np.any(X != 0, axis=1)], y[np.any(X != 0, axis=1)]  # no score exactly b = 0
    return np.vstack([X, -X]), np.concatenate([y, -y])


@pytest.mark.parametrize("scale", SCALES)
@pytest.mark.parametrize("solver", ["lbfgs", "newton"])
def test_separable_data_are_separated_and_flagged_at_every_scale(solver, scale):
    # the stopping rule scales with the features: an absolute gradient test stopped at w = 0
    # on X * 1e-6 (gradients ~ 1e-7 < tol), with accuracy 0.5 and no warning
    X, y, _, _ = separable(200, 3, seed=31)
    with pytest.warns(ConvergenceWarning, match="linearly separable"):
        clf = LogisticRegression(solver=solver).fit(X * scale, y)
    assert_array_equal(clf.predict(X * scale), y)


@pytest.mark.parametrize("fmt", ["dense64", "csr64"])
def test_unfinished_fits_ask_the_lp_on_unit_scale_data(fmt):
    # gd cannot separate 1e-10 data in 20 steps, so the check falls back on separability(),
    # whose LP tolerances are absolute: it gets X / max |x_ij|
    X, y, _, _ = separable(100, 3, seed=36)
    with pytest.warns(ConvergenceWarning, match="linearly separable"):
        clf = LogisticRegression(solver="gd", max_iter=20).fit(in_format(X * 1e-10, fmt), y)
    assert not clf.converged_


@pytest.mark.parametrize("fmt", ["dense64", "csr64"])
@pytest.mark.parametrize("scale", SCALES)
@pytest.mark.parametrize("solver", ["lbfgs", "newton"])
def test_penalised_fits_match_sklearn_on_scaled_data(solver, scale, fmt):
    X, y = symmetric(noisy(100, 3, seed=32, sparsity=0.3))
    Xs = in_format(X * scale, fmt)
    alpha = 1e-2
    with warnings.catch_warnings():  # its Newton solver's line search may hand over to lbfgs
        warnings.simplefilter("ignore")
        sk = SkLogisticRegression(C=1.0 / (alpha * len(y)), solver="newton-cholesky",
                                  tol=1e-14, max_iter=1000).fit(Xs, y)
    with warnings.catch_warnings():  # at 1e4 the absolute test is below the rounding
        warnings.simplefilter("ignore", ConvergenceWarning)
        ours = LogisticRegression(solver=solver, alpha=alpha).fit(Xs, y)
    assert ours.converged_ or scale > 1
    # relative, as the coefficients are of order scale / alpha (the penalty dominates) or
    # 1 / scale; |g_j| <= tol s_j leaves a relative error of about tol at every scale
    assert_allclose(ours.coef_, sk.coef_, rtol=1e-4)
    assert_allclose(ours.intercept_, sk.intercept_, atol=1e-9)  # 0 by the symmetry


def test_softmax_predictions_do_not_depend_on_the_scale():
    X, y = load_digits(return_X_y=True)
    X, y = X[:300] / 16.0, y[:300]
    base = LogisticRegression(alpha=1e-2).fit(X, y)
    for scale in (1e-8, 1e-4):
        with warnings.catch_warnings():
            warnings.simplefilter("error", ConvergenceWarning)
            clf = LogisticRegression(alpha=1e-2 * scale**2).fit(X * scale, y)
        # alpha scale^2 on X scale is the same problem in w / scale
        assert_allclose(clf.coef_ * scale, base.coef_, rtol=1e-4, atol=1e-5)
        assert_array_equal(clf.predict(X * scale), base.predict(X))


def test_gd_does_not_claim_convergence_at_w_zero_on_tiny_features():
    X, y = symmetric(noisy(100, 3, seed=33))
    with pytest.warns(ConvergenceWarning):
        clf = LogisticRegression(solver="gd", max_iter=50).fit(X * 1e-6, y)
    assert not clf.converged_ and clf.n_iter_ > 0


@pytest.mark.parametrize("solver", ["lbfgs", "newton", "gd", "sgd"])
def test_data_whose_squares_overflow_are_refused_with_their_scale(solver):
    X, y = noisy(50, 3, seed=34)
    largest = f"{np.abs(X * 1e300).max():.3g}"  # it used to be "singular matrix"
    with pytest.raises(ValueError, match=rf"largest entry .* {re.escape(largest)}.*Rescale X"):
        LogisticRegression(solver=solver).fit(X * 1e300, y)


@pytest.mark.parametrize("alpha", [0.0, 1e-2])
@pytest.mark.parametrize("data", ["separable", "noisy", "3 classes"])
def test_dataframe_fits_do_not_warn_about_feature_names(data, alpha):
    pd = pytest.importorskip("pandas")
    if data == "separable":
        X, y, _, _ = separable(60, 3, seed=35)
    elif data == "noisy":
        X, y = noisy(60, 3, seed=35)
    else:
        X, y = noisy(60, 3, seed=35)
        y = np.where(X[:, 0] > 0.5, 2, y)
    frame = pd.DataFrame(X, columns=["a", "b", "c"])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        clf = LogisticRegression(alpha=alpha).fit(frame, y)
    assert not [w for w in caught if "feature names" in str(w.message)]
    assert_array_equal(clf.feature_names_in_, ["a", "b", "c"])


def test_optimal_schedule_needs_alpha():
    with pytest.raises(ValueError, match="alpha > 0"):
        LogisticRegression(solver="sgd", learning_rate="optimal").fit(*noisy(50, 2))


@pytest.mark.parametrize("params", [{"solver": "newton", "alpha": 1e-2},
                                    {"solver": "minibatch", "batch_size": 8, "max_iter": 3}])
def test_sklearn_checks_pass_for_other_solvers(params):
    from sklearn.utils.estimator_checks import check_estimator

    # a stochastic step scales the example's gradient by its weight, where k repeats take k
    # steps: SGD is not sample-weight equivalent (scikit-learn expects the same failure of
    # its SGDClassifier); tests/glm/test_weights.py checks its steps against SGDClassifier's
    reason = "SGD: a weight scales one step, k repeated rows take k steps"
    expected = ({f"check_sample_weight_equivalence_on_{kind}_data": reason
                 for kind in ("dense", "sparse")} if params["solver"] == "minibatch" else None)
    if expected is not None:
        # class weights 1000 : 1e-4 without a penalty put the optimum's intercept near -15
        # (lbfgs predicts class 0 on all the test rows); 1000 epochs of minibatch steps,
        # sized for the weight-1000 rows, reach 60% of them, not the check's 87%
        expected["check_class_weight_classifiers"] = "minibatch: too few epochs to get there"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        check_estimator(LogisticRegression(**params), expected_failed_checks=expected)


def test_log_probabilities_are_minus_the_logistic_loss_in_the_tails():
    from scipy.special import log_expit

    X, y = noisy(200, 3, seed=37)
    clf = LogisticRegression(solver="newton", alpha=1e-2).fit(X, y)
    Xs = np.vstack([X, X * 1e4])  # margins in the hundreds: probabilities round to 0 and 1
    z = clf.decision_function(Xs)
    log_proba = clf.predict_log_proba(Xs)
    assert_allclose(log_proba, np.column_stack([log_expit(-z), log_expit(z)]), rtol=1e-13,
                    atol=1e-300)
    assert np.all(np.isfinite(log_proba)) and log_proba.min() < -100


@pytest.mark.parametrize("legacy", [False, True])
def test_a_saved_stochastic_model_continues_where_it_stopped(tmp_path, legacy):
    from halfspaces.io.model import load, save

    X, y = noisy(120, 3, seed=38)
    clf = LogisticRegression(solver="sgd", alpha=1e-2, random_state=3, max_iter=4, tol=0.0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        clf.fit(X, y)
    path = save(clf, tmp_path / "sgd.model")
    copy = load(path)
    if legacy:  # the state as a tuple (iterate, average, n_avg, t)
        s = copy._state
        copy._state = (s.iterate, s.average, s.n_avg, s.t)
    for model in (clf, copy):
        model.partial_fit(X, y)
    assert_array_equal(copy.coef_, clf.coef_)
    assert_array_equal(copy.intercept_, clf.intercept_)


def test_the_glm_docstrings_hold_the_shared_parameters():
    from halfspaces import LinearRegression

    for cls in (LogisticRegression, LinearRegression):
        doc = cls.__doc__
        assert "halfspaces._glm.base" not in doc
        for name in ("learning_rate", "eta0", "power_t", "batch_size", "line_search",
                     "average", "random_state", "warm_start"):
            assert f"\n    {name} : " in doc, (cls.__name__, name)
        assert doc.index("    tol : ") < doc.index("    learning_rate : ") < doc.index(
            "    Attributes")


@pytest.mark.parametrize("solver", ["sgd", "minibatch"])
def test_a_diverging_stochastic_run_is_refused_and_the_last_model_kept(solver):
    # a step of 1e306 on entries of 1e3 overflows the weights to inf and NaN within an
    # epoch. Stored, that model predicted one class everywhere, and a warm start from it
    # with lbfgs stopped at once calling it optimal
    X, y = noisy(200, 3, seed=0, flip=0.1)
    X = X * 1e3
    est = LogisticRegression(solver=solver, alpha=1e-3, max_iter=5, random_state=0,
                             warm_start=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        est.fit(X, y)
    coef, intercept = est.coef_.copy(), est.intercept_.copy()
    assert np.all(np.isfinite(coef))
    est.set_params(eta0=1e306, learning_rate="constant")
    with np.errstate(all="ignore"), pytest.raises(
            FloatingPointError, match=r"diverged: .*\(eta0=1e\+306, learning_rate='constant'\)"):
        est.fit(X, y)
    with np.errstate(all="ignore"), pytest.raises(FloatingPointError, match="diverged"):
        est.partial_fit(X, y)
    assert_array_equal(est.coef_, coef)  # the last model is kept, and so is its state
    assert_array_equal(est.intercept_, intercept)
    est.set_params(solver="lbfgs", max_iter=100)  # a warm start from it reaches the optimum
    ref = LogisticRegression(solver="lbfgs", alpha=1e-3).fit(X, y)
    assert_allclose(est.fit(X, y).coef_, ref.coef_, rtol=1e-5)


@pytest.mark.parametrize("params", [
    {"solver": "sgd", "eta0": 10**30},
    {"solver": "minibatch", "eta0": 10**30, "batch_size": 7},
    {"solver": "sgd", "learning_rate": "invscaling", "eta0": 1, "power_t": 10**30},
    {"solver": "lbfgs", "alpha": 10**30},
])
def test_python_int_parameters_give_the_model_of_the_float_they_equal(params):
    # an int reached the compiled loops (beyond int64 a Numba typing error) and NumPy
    # (alpha = 10**30: an OverflowError converting it to int64)
    X, y = noisy(60, 3, seed=1)
    as_floats = {k: float(v) if k in ("eta0", "power_t", "alpha", "tol") else v
                 for k, v in params.items()}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        got = LogisticRegression(random_state=0, **params).fit(X, y)
        want = LogisticRegression(random_state=0, **as_floats).fit(X, y)
    assert np.all(np.isfinite(want.coef_))
    assert_array_equal(got.coef_, want.coef_)
    assert_array_equal(got.intercept_, want.intercept_)


@pytest.mark.parametrize("name, value", [
    ("alpha", 10**400), ("tol", 10**400), ("eta0", 10**400), ("power_t", 10**400),
    ("batch_size", 2**63),
], ids=["alpha", "tol", "eta0", "power_t", "batch_size"])
def test_parameters_beyond_float64_or_int64_are_refused_by_name(name, value):
    X, y = noisy(30, 2, seed=2)
    est = LogisticRegression(solver="minibatch", learning_rate="invscaling", **{name: value})
    with pytest.raises(ValueError, match=f"'{name}' parameter of LogisticRegression"):
        est.fit(X, y)


@pytest.mark.parametrize("solver", ["sgd", "minibatch"])
def test_partial_fit_refuses_a_saved_state_that_does_not_fit_the_batch(solver):
    # partial_fit trusted n_features_in_ as the width of its saved SGD state: raised to
    # 10**8, a batch of 10**8 columns ran the compiled epoch on 6 parameters (a segfault).
    # (The solver refuses such a state too, test_solvers; this refusal comes first.)
    out = run_child(REFUSED, f"""
        import numpy as np, scipy.sparse as sp
        from halfspaces import LogisticRegression
        from halfspaces._glm.solvers import SgdState
        rng = np.random.default_rng(0)
        X, y = rng.standard_normal((40, 5)), rng.integers(0, 2, 40)
        d = 10**8
        clf = LogisticRegression(solver={solver!r}).partial_fit(X, y)
        clf.n_features_in_ = d
        refused(lambda: clf.partial_fit(
            sp.csr_matrix(([1.0, -1.0], [d - 1, d - 1], [0, 1, 2]), shape=(2, d)), [1, 0]))
        clf = LogisticRegression(solver={solver!r}).partial_fit(X, y)
        clf._state = SgdState.start(np.zeros(2))
        refused(lambda: clf.partial_fit(X, y))
    """)
    assert out.count("refused: partial_fit: the saved parameters of this") == 2, out


@pytest.mark.parametrize("solver", ["lbfgs", "newton", "gd", "sgd", "minibatch"])
# the stochastic solvers stop at their default budgets here; the intercept is the point
@pytest.mark.filterwarnings("ignore::halfspaces.exceptions.ConvergenceWarning")
def test_a_warm_start_without_an_intercept_starts_from_the_weights_alone(solver):
    # no solver moves the intercept of a problem without one, so the earlier fit's
    # intercept (1.6) was kept as intercept_ beside weights fitted without it
    rng = np.random.default_rng(0)
    X = rng.standard_normal((200, 2))
    y = (X[:, 0] + 3 > rng.standard_normal(200) * 3).astype(int)
    params = dict(solver=solver, alpha=1e-2, random_state=0)
    clf = LogisticRegression(warm_start=True, **params).fit(X, y)
    assert clf.intercept_[0] > 1
    clf.set_params(fit_intercept=False).fit(X, y)
    assert_array_equal(clf.intercept_, [0.0])
    if solver not in ("sgd", "minibatch"):  # the same optimum as a fresh fit
        fresh = LogisticRegression(fit_intercept=False, **params).fit(X, y)
        assert_allclose(clf.coef_, fresh.coef_, rtol=1e-4)
    else:
        clf.partial_fit(X, y)
        assert_array_equal(clf.intercept_, [0.0])
        assert_allclose(clf.decision_function(X), X @ clf.coef_[0])


@pytest.mark.parametrize("change", [{"batch_size": 0}, {"batch_size": -5},
                                    {"batch_size": 10**30}, {"learning_rate": "bogus"},
                                    {"eta0": -1.0}, {"alpha": float("nan")}])
def test_every_partial_fit_checks_the_parameters(change):
    # scikit-learn checks a fitted estimator's first partial_fit only: batch_size=0 then
    # failed as "range() arg 3 must not be zero", learning_rate="bogus" as KeyError, and
    # eta0=-1 climbed the loss silently
    from sklearn.utils._param_validation import InvalidParameterError

    X, y = noisy(40, 3, seed=1)
    clf = LogisticRegression(solver="minibatch", batch_size=8).partial_fit(X, y)
    coef = clf.coef_
    clf.set_params(**change)
    with pytest.raises(InvalidParameterError, match=f"'{next(iter(change))}' parameter"):
        clf.partial_fit(X, y)
    assert clf.coef_ is coef


@pytest.mark.parametrize("solver", ["lbfgs", "newton", "gd"])
@pytest.mark.parametrize("n_classes", [2, 3])
def test_partial_fit_after_a_full_batch_fit_goes_on_from_its_weights(solver, n_classes):
    # a full-batch fit leaves no SGD state, and partial_fit started again from zero: the
    # fitted model was silently replaced by one SGD epoch's (coefficients ten times smaller)
    X, y = noisy(300, 3, seed=2)
    if n_classes == 3:  # a third class: the softmax's weights
        y = np.where(X[:, 0] > 0.5, 2, y)
    clf = LogisticRegression(solver=solver, alpha=1e-2, random_state=0).fit(X, y)
    fitted = np.c_[clf.coef_, clf.intercept_]
    # steps of 1e-9 move no weight by more than about 1e-8: the epoch starts where fit ended
    clf.set_params(solver="sgd", eta0=1e-9).partial_fit(X[:50], y[:50])
    assert_allclose(np.c_[clf.coef_, clf.intercept_], fitted, atol=1e-6)
    fresh = LogisticRegression(solver="sgd", alpha=1e-2, eta0=1e-9, random_state=0)
    assert np.abs(fresh.partial_fit(X[:50], y[:50]).coef_).max() < 1e-6  # from zero
