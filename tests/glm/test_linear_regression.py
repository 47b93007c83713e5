"""LinearRegression against scikit-learn's LinearRegression and Ridge, and its iterative solvers
against the exact solution."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from _child import run_child
from _datasets import FORMATS, in_format
from _oracles import sgd_regressor_twin
from numpy.testing import assert_allclose
from sklearn.linear_model import LinearRegression as SkLinearRegression
from sklearn.linear_model import Ridge

from halfspaces import ConvergenceWarning, LinearRegression


def regression(n=300, d=6, seed=0, sparsity=0.3, noise=0.5):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)) * (rng.random((n, d)) >= sparsity)
    y = X @ rng.normal(size=d) + 1.5 + noise * rng.normal(size=n)
    return X, y


def objective(X, y, coef, intercept, alpha):
    """J from its definition, in NumPy."""
    X = X.toarray() if sp.issparse(X) else np.asarray(X, dtype=np.float64)
    r = X @ coef + intercept - y
    return r @ r / (2 * len(y)) + 0.5 * alpha * coef @ coef


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("fit_intercept", [True, False])
@pytest.mark.parametrize("solver", ["lstsq", "cholesky"])
def test_matches_sklearn_linear_regression(solver, fit_intercept, fmt):
    X, y = regression()
    Xf = in_format(X, fmt)
    ours = LinearRegression(solver=solver, fit_intercept=fit_intercept).fit(Xf, y)
    sk = SkLinearRegression(fit_intercept=fit_intercept).fit(X, y)
    rtol = 1e-5 if fmt == "dense32" else 1e-9
    assert_allclose(ours.coef_, sk.coef_, rtol=rtol, atol=rtol)
    assert_allclose(ours.intercept_, sk.intercept_, rtol=rtol, atol=rtol)
    assert_allclose(ours.predict(Xf), sk.predict(X), rtol=rtol, atol=rtol)


@pytest.mark.parametrize("fmt", ["dense64", "csr64"])
@pytest.mark.parametrize("solver", ["lstsq", "cholesky"])
def test_ridge_penalty_is_sklearn_ridge_with_alpha_times_n(solver, fmt):
    X, y = regression(seed=1)
    alpha = 0.05
    ours = LinearRegression(solver=solver, alpha=alpha).fit(in_format(X, fmt), y)
    sk = Ridge(alpha=alpha * len(y), solver="svd").fit(X, y)
    assert_allclose(ours.coef_, sk.coef_, rtol=1e-9)
    assert_allclose(ours.intercept_, sk.intercept_, rtol=1e-9)


# column scales s_j and a target scale t, powers of two: the solution for (X diag(s), y t)
# is w_j t / s_j and b t, exactly, with alpha s_j^2 (here alpha with s = 1 only)
EXTREME = {"features 2^665": ([2.0**665] * 4, 1.0), "features 2^-665": ([2.0**-665] * 4, 1.0),
           "mixed columns": ([2.0**600, 2.0**-600, 1.0, 2.0**300], 1.0),
           "target 2^1000": ([1.0] * 4, 2.0**1000), "both 2^665": ([2.0**665] * 4, 2.0**665)}


def extreme(case):
    X, y = regression(n=80, d=4, seed=6)
    s, t = EXTREME[case]
    return X, y, np.array(s), t


def fitted(estimator, X, y, folder):
    """estimator.fit(X, y), in a child process when ``folder`` is given: LAPACK's
    least squares on the inf of the old unscaled X^T X ran for minutes."""
    if folder is None:
        return estimator.fit(X, y)
    import pickle

    (folder / "in.pkl").write_bytes(pickle.dumps((estimator, X, y)))
    run_child(f"""
        import pickle, pathlib
        folder = pathlib.Path({str(folder)!r})
        estimator, X, y = pickle.loads((folder / "in.pkl").read_bytes())
        (folder / "out.pkl").write_bytes(pickle.dumps(estimator.fit(X, y)))
        """, timeout=120)
    return pickle.loads((folder / "out.pkl").read_bytes())


@pytest.mark.parametrize("case", list(EXTREME))
@pytest.mark.parametrize(("solver", "fmt"), [("cholesky", "dense64"), ("lstsq", "dense64"),
                                             ("lstsq", "csr64"), ("cholesky", "csr64")])
def test_direct_solvers_answer_at_extreme_scales(case, solver, fmt, tmp_path):
    # X^T X of entries 1e200 was inf and of 1e-200 was 0 (sparse X takes the normal
    # equations whatever the solver); dense lstsq's SVD cut columns 2^-600 off beside
    # columns 2^600 as rank deficient
    X, y, s, t = extreme(case)
    alpha = 0.1 if case == "target 2^1000" else 0.0
    want = LinearRegression(solver=solver, alpha=alpha).fit(in_format(X, fmt), y)
    got = fitted(LinearRegression(solver=solver, alpha=alpha), in_format(X * s, fmt), y * t,
                 tmp_path if case == "mixed columns" else None)
    assert_allclose(got.coef_ * s / t, want.coef_, rtol=1e-10)
    assert_allclose(got.intercept_ / t, want.intercept_, rtol=1e-10)
    if case.startswith("features"):  # elsewhere scikit-learn's squares overflow, or its
        # SVD cuts columns 2^1200 below the largest off as rank deficient
        sk = SkLinearRegression().fit(X * s, y * t)
        assert_allclose(got.coef_ * s / t, sk.coef_ * s / t, rtol=1e-9)


def test_rank_deficient_lstsq_is_the_minimum_norm_solution():
    X, y = regression(seed=2, sparsity=0.0)
    X = np.hstack([X, X[:, :2]])  # duplicated columns
    ours = LinearRegression().fit(X, y)
    sk = SkLinearRegression().fit(X, y)
    assert_allclose(ours.coef_, sk.coef_, rtol=1e-8, atol=1e-10)
    assert_allclose(ours.coef_, np.linalg.pinv(X - X.mean(0)) @ (y - y.mean()), rtol=1e-8)


@pytest.mark.parametrize("solver,rtol", [("gd", 1e-6), ("sgd", 1e-3), ("minibatch", 1e-3)])
@pytest.mark.parametrize("fmt", ["dense64", "csr32"])
def test_iterative_solvers_reach_the_exact_objective(solver, rtol, fmt):
    X, y = regression(n=2000, seed=3)
    alpha = 1e-3
    exact = LinearRegression(alpha=alpha).fit(X, y)
    best = objective(X, y, exact.coef_, exact.intercept_, alpha)
    ours = LinearRegression(solver=solver, alpha=alpha, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        ours.fit(in_format(X, fmt), y)
    reached = objective(X, y, ours.coef_, ours.intercept_, alpha)
    assert reached <= best * (1 + rtol)
    assert_allclose(ours.loss_curve_[-1], reached, rtol=1e-6)
    if solver == "gd":
        assert np.all(np.diff(ours.loss_curve_) <= 0)


def test_gd_without_line_search_diverges_with_a_too_large_step():
    X, y = regression(seed=4)
    with pytest.warns(ConvergenceWarning):
        reg = LinearRegression(solver="gd", line_search=False, eta0=10.0, max_iter=20).fit(X, y)
    assert reg.loss_curve_[-1] > reg.loss_curve_[0]


@pytest.mark.parametrize("params", [{"solver": "cholesky", "alpha": 1e-3},
                                    {"solver": "gd", "max_iter": 50}])
def test_sklearn_checks_pass_for_other_solvers(params):
    from sklearn.utils.estimator_checks import check_estimator

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        check_estimator(LinearRegression(**params))


@pytest.mark.parametrize("fmt", ["dense64", "csr64"])
@pytest.mark.parametrize("scale", [1e-8, 1e-6, 1e-3, 1.0, 1e4])
def test_gd_reaches_ridge_on_scaled_data(scale, fmt):
    # gd stops on |g_j| <= tol min(1, max_i |x_ij|): the absolute test stopped at w = 0 on
    # X * 1e-8, whose gradients there are about 1e-8 (symmetric data: the intercept's is 0)
    X, y = regression(150, 4, seed=9)
    X, y = np.vstack([X, -X]), np.concatenate([y, -y])
    Xs = in_format(X * scale, fmt)
    alpha = 1e-2
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        ours = LinearRegression(solver="gd", alpha=alpha).fit(Xs, y)
    sk = Ridge(alpha=len(y) * alpha, solver="cholesky").fit(X * scale, y)
    assert ours.converged_
    assert_allclose(ours.coef_, sk.coef_, rtol=1e-5)
    assert abs(ours.intercept_) <= 1e-6  # 0 by the symmetry; its derivative is at most tol


def test_iterative_solvers_refuse_data_whose_squares_overflow():
    X, y = regression(40, 3, seed=10)
    with pytest.raises(ValueError, match="Rescale X"):
        LinearRegression(solver="gd").fit(X * 1e300, y)


def test_a_python_int_alpha_gives_the_model_of_the_float_it_equals():
    # lstsq took sqrt(N alpha) of the int: NumPy's object-dtype "no callable sqrt"
    X, y = regression(seed=3)
    for solver in ("lstsq", "cholesky", "gd"):
        with warnings.catch_warnings():  # gd stalls at once: the penalty is all of J
            warnings.simplefilter("ignore", ConvergenceWarning)
            got = LinearRegression(solver=solver, alpha=10**30).fit(X, y)
            want = LinearRegression(solver=solver, alpha=1e30).fit(X, y)
        assert np.array_equal(got.coef_, want.coef_) and got.intercept_ == want.intercept_


def test_lstsq_takes_an_alpha_whose_n_alpha_overflows():
    # sqrt(N alpha) was sqrt(inf): an inf in the stacked matrix, and LAPACK refused it
    X, y = regression(seed=4)
    n, alpha = X.shape[0], 1e307
    reg = LinearRegression(alpha=alpha).fit(X, y)
    Xc, yc = X - X.mean(axis=0), y - y.mean()
    # the ridge solution (Xc'Xc + N alpha I)^-1 Xc'yc, to first order in 1/alpha, within
    # lstsq's normwise error (eps ||yc|| over the smallest singular value, sqrt(N alpha))
    coef = (Xc.T @ yc / n) / alpha
    assert_allclose(reg.coef_, coef, rtol=0, atol=1e-14 * np.linalg.norm(yc) / np.sqrt(n)
                    / np.sqrt(alpha))
    assert_allclose(reg.intercept_, y.mean() - X.mean(axis=0) @ reg.coef_, rtol=1e-15)
    assert_allclose(reg.intercept_, y.mean(), rtol=1e-12)


def test_an_alpha_beyond_float64_is_refused_by_name():
    X, y = regression(seed=5)
    with pytest.raises(ValueError, match="'alpha' parameter of LinearRegression .*float64"):
        LinearRegression(alpha=10**400).fit(X, y)


@pytest.mark.parametrize("solver", ["gd", "sgd", "minibatch"])
# the stochastic solvers stop at their default budgets here; the intercept is the point
@pytest.mark.filterwarnings("ignore::halfspaces.exceptions.ConvergenceWarning")
def test_a_warm_start_without_an_intercept_reports_none(solver):
    # the intercept of the earlier fit (5) stayed in the solver's start, which no step
    # moves without an intercept, and was reported beside weights fitted without it
    rng = np.random.default_rng(0)
    X = rng.standard_normal((200, 2))
    y = X @ [1.0, 2.0] + 5
    reg = LinearRegression(solver=solver, warm_start=True, random_state=0).fit(X, y)
    assert reg.intercept_ > 4
    reg.set_params(fit_intercept=False).fit(X, y)
    assert reg.intercept_ == 0.0
    assert_allclose(reg.predict(X), X @ reg.coef_)


@pytest.mark.parametrize("exponent", [-700, -300, 0, 300, 600])
def test_score_is_r2_score_at_any_scale_of_the_targets(exponent):
    # R^2 is the same for y and for y s with s a power of two (the fit scales exactly: the
    # normal equations' target scale is a power of two), so the oracle is scikit-learn's
    # r2_score of the unscaled targets and predictions; it gave nan at 2^600 (inf / inf)
    # and 1.0 at 2^-700 (0 / 0)
    from sklearn.metrics import r2_score

    rng = np.random.default_rng(3)
    X = rng.normal(size=(60, 3))
    y = X @ [1.0, -2.0, 0.5] + 1e-1 * rng.normal(size=60)
    s = 2.0**exponent
    model = LinearRegression(solver="cholesky").fit(X, y * s)
    expected = r2_score(y, model.predict(X) / s)
    assert 0.9 < expected < 1.0
    assert model.score(X, y * s) == pytest.approx(expected, rel=1e-12)
    weights = rng.uniform(0.5, 2.0, size=60)
    assert model.score(X, y * s, sample_weight=weights) == pytest.approx(
        r2_score(y, model.predict(X) / s, sample_weight=weights), rel=1e-12)


@pytest.mark.parametrize("average", [False, True])
@pytest.mark.parametrize("fit_intercept", [True, False])
@pytest.mark.parametrize("schedule", [{"learning_rate": "constant", "eta0": 0.01},
                                      {"learning_rate": "invscaling", "eta0": 0.05,
                                       "power_t": 0.3}])
def test_partial_fit_takes_sgd_regressors_steps(schedule, fit_intercept, average):
    X, y = regression(240, 5, seed=3)
    chunks = np.array_split(np.arange(len(y)), [70, 71, 150])  # one chunk of a single row
    params = {"alpha": 1e-3, "fit_intercept": fit_intercept, **schedule}
    ours = LinearRegression(solver="sgd", average=average, random_state=5, **params)
    for _ in range(2):  # two passes: the schedule's t and the mean carry over
        for rows in chunks:
            ours.partial_fit(X[rows], y[rows])
    sk = sgd_regressor_twin(X, y, chunks + chunks, 5, average=average, **params)
    assert_allclose(ours.coef_, sk.coef_, rtol=1e-9, atol=1e-12)
    assert_allclose(ours.intercept_, sk.intercept_[0], rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("fmt", FORMATS)
def test_partial_fit_epochs_reach_the_least_squares_solution(fmt):
    # noise-free targets: SGD with a constant step converges to the interpolating solution
    X, y = regression(200, 4, seed=4, sparsity=0.0, noise=0.0)
    exact = SkLinearRegression().fit(X, y)
    ours = LinearRegression(solver="minibatch", batch_size=8, eta0=0.05, average=False,
                            random_state=0)
    data = in_format(X, fmt)
    for _ in range(300):
        for start in range(0, 200, 50):
            ours.partial_fit(data[start:start + 50], y[start:start + 50])
    assert_allclose(ours.coef_, exact.coef_, atol=1e-6)
    assert_allclose(ours.intercept_, exact.intercept_, atol=1e-6)


def test_averaged_partial_fit_approaches_ridge():
    X, y = regression(300, 4, seed=6, sparsity=0.0, noise=0.5)
    alpha = 0.01
    ridge = Ridge(alpha=alpha * len(y)).fit(X, y)
    ours = LinearRegression(solver="sgd", alpha=alpha, eta0=0.01, random_state=1)
    for _ in range(200):
        ours.partial_fit(X, y)
    assert_allclose(ours.coef_, ridge.coef_, atol=2e-3)
    assert_allclose(ours.intercept_, ridge.intercept_, atol=2e-3)


def test_partial_fit_is_the_same_on_dense_and_sparse_rows():
    X, y = regression(120, 6, seed=8)
    dense, sparse = (LinearRegression(solver="sgd", eta0=0.01, random_state=2)
                     for _ in range(2))
    for _ in range(3):
        dense.partial_fit(X, y)
        sparse.partial_fit(sp.csr_matrix(X), y)
    assert_allclose(sparse.coef_, dense.coef_, rtol=1e-12)
    assert_allclose(sparse.intercept_, dense.intercept_, rtol=1e-12)


def test_partial_fit_exists_for_the_stochastic_solvers_only():
    assert not hasattr(LinearRegression(), "partial_fit")
    assert not hasattr(LinearRegression(solver="gd"), "partial_fit")
    assert hasattr(LinearRegression(solver="minibatch"), "partial_fit")


def test_partial_fit_refuses_bad_sample_weights_and_a_batch_of_another_width():
    X, y = regression(50, 3, seed=1)
    reg = LinearRegression(solver="sgd", random_state=0).partial_fit(X, y)
    before = reg.coef_.copy()
    with pytest.raises(ValueError, match="sample_weight holds a negative weight"):
        reg.partial_fit(X, y, sample_weight=-np.ones(len(y)))
    with pytest.raises(ValueError, match="3 features"):
        reg.partial_fit(np.hstack([X, X]), y)
    assert_allclose(reg.coef_, before, rtol=0)
    with pytest.raises(ValueError, match="could not convert|numeric"):
        LinearRegression(solver="sgd").partial_fit(X, np.array(["a"] * len(y), dtype=object))


def test_partial_fit_after_a_direct_fit_goes_on_from_its_weights():
    X, y = regression(100, 3, seed=2)
    reg = LinearRegression().fit(X, y)
    exact = reg.coef_.copy()
    reg.set_params(solver="sgd", eta0=1e-12).partial_fit(X, y)
    assert_allclose(reg.coef_, exact, atol=1e-8)
    assert reg._state.t == len(y)
