"""The hard margin by dual coordinate descent: the QPs' margin and SVC's, the fast path taken
where its candidate is verified, and the QPs where it cannot be."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from _datasets import SHARED_DATA
from _oracles import (
    check_certificate,
    hull_half_distance,
    min_norm_point_norm,
    noisy_sample,
    signed,
)
from _oracles import separable_sample as sample
from sklearn.svm import SVC

from halfspaces import MaxMarginClassifier, NotSeparableError, SolverError
from halfspaces._exact import coordinate, min_norm
from halfspaces.theory import max_margin

QP_ROUTES = ("_primal", "_dual", "_balanced_dual")


def _qp_called(name):
    def route(*args, **kwargs):
        raise AssertionError(f"the {name} QP was called")
    return route


def _switched_off(Z, Zs, free_first):
    raise SolverError("switched off.")


def by_route(route, fn):
    """fn() with only the coordinate descent (the QPs fail the test if called) or only the
    QPs (the coordinate route refuses, as when it cannot verify)."""
    with pytest.MonkeyPatch.context() as patch:
        if route == "coordinate":
            for name in QP_ROUTES:
                patch.setattr(min_norm, name, _qp_called(name))
        else:
            patch.setattr(min_norm, "_coordinate", _switched_off)
        return fn()


def independent_margin(X, y, coef, intercept):
    """min_i y_i (<w, x_i> + b) / ||w|| in plain NumPy."""
    X = X.toarray() if sp.issparse(X) else np.asarray(X)
    y = np.where(np.asarray(y) == np.max(y), 1.0, -1.0)
    coef = np.ravel(coef)
    return float(np.min(y * (X @ coef + intercept)) / np.linalg.norm(coef))


def svc_margin(X, y, tol=1e-10):
    X = X.toarray() if sp.issparse(X) else X  # SVC refuses CSR with 64-bit indices
    svc = SVC(kernel="linear", C=1e10, tol=tol).fit(X, y)
    return independent_margin(X, y, svc.coef_, svc.intercept_[0])


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("fmt", ["dense", "csr"])
@pytest.mark.parametrize("fit_intercept", [True, False])
def test_random_separable_margin_is_the_qps_and_the_oracles(seed, fmt, fit_intercept):
    # wide rows (fewer support rows than columns, MNIST's regime), where the coordinate
    # route's candidate at the first tolerance already has the optimum's support
    X, y = sample(np.random.default_rng(seed), 100, 50, gap=0.1, fit_intercept=fit_intercept)
    data = sp.csr_matrix(X) if fmt == "csr" else X

    def fit():
        return MaxMarginClassifier(fit_intercept=fit_intercept).fit(data, y)
    fast, qp = by_route("coordinate", fit), by_route("qp", fit)
    assert fast.margin_ == pytest.approx(qp.margin_, rel=1e-9)
    assert_support_equal(fast.support_, qp.support_)
    assert independent_margin(X, y, fast.coef_, fast.intercept_[0]) == pytest.approx(
        fast.margin_, rel=1e-12)
    assert np.min(signed(X, y, fit_intercept) @ np.r_[fast.intercept_[0] if fit_intercept
                                                       else [], fast.coef_[0]]) >= 1.0
    if fit_intercept:
        assert fast.margin_ == pytest.approx(hull_half_distance(X, y), rel=1e-6)
        assert fast.margin_ == pytest.approx(svc_margin(X, y), rel=1e-6)
    else:
        assert fast.margin_ == pytest.approx(min_norm_point_norm(signed(X, y, False)),
                                             rel=1e-6)


def assert_support_equal(a, b):
    assert np.array_equal(np.asarray(a), np.asarray(b))


@pytest.mark.parametrize("fit_intercept", [True, False])
def test_theory_max_margin_takes_the_coordinate_route_for_both_of_its_problems(fit_intercept):
    # the margin on x and, with the intercept, min ||(b, w)|| on x' = (1, x): both solved
    # by coordinate descent (the QPs would fail the test), both equal to the QPs' answers
    X, y = sample(np.random.default_rng(7), 200, 100, gap=0.1, fit_intercept=fit_intercept)
    fast = by_route("coordinate", lambda: max_margin(X, y, fit_intercept))
    qp = by_route("qp", lambda: max_margin(X, y, fit_intercept))
    # both verified to the accepted relative duality gap, 1e-6 (1.5e-9 apart here)
    assert [fast.margin, fast.norm_bound, fast.augmented_margin] == pytest.approx(
        [qp.margin, qp.norm_bound, qp.augmented_margin], rel=1e-6)
    assert_support_equal(fast.support, qp.support)
    assert fast.margin == pytest.approx(independent_margin(X, y, fast.coef, fast.intercept),
                                        rel=1e-12)


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("fit_intercept", [True, False])
def test_narrow_rows_get_the_maximum_whichever_route_answers(seed, fit_intercept):
    # few columns, many rows near the margin: the coordinate route often stalls here (its
    # gap shrinks by less than half per doubling of the passes) and the QPs answer
    X, y = sample(np.random.default_rng(seed), 200, 5, gap=0.3, fit_intercept=fit_intercept)
    clf = MaxMarginClassifier(fit_intercept=fit_intercept).fit(X, y)
    expected = (hull_half_distance(X, y) if fit_intercept
                else min_norm_point_norm(signed(X, y, False)))
    assert clf.margin_ == pytest.approx(expected, rel=1e-6)


def test_a_candidate_the_checks_refuse_falls_back_to_the_qps(monkeypatch):
    # the coordinate route yields a hyperplane that separates nothing: the duality gap
    # check refuses it and the QPs answer, with the margin they give alone
    X, y = sample(np.random.default_rng(3), 150, 4, gap=0.3)
    expected = by_route("qp", lambda: MaxMarginClassifier().fit(X, y)).margin_
    offered = []

    def bad_candidates(rows, free_first, **options):
        offered.append(True)
        yield np.zeros(rows.shape[1]), np.zeros(rows.shape[0])

    routes = spy_on_qps(monkeypatch)
    monkeypatch.setattr(min_norm, "coordinate_candidates", bad_candidates)
    clf = MaxMarginClassifier().fit(X, y)
    assert offered and routes and clf.margin_ == pytest.approx(expected, rel=1e-9)


def spy_on_qps(monkeypatch):
    """The QP routes, each recorded in the returned list when called."""
    called = []
    for name in QP_ROUTES:
        original = getattr(min_norm, name)

        def route(*args, _original=original, _name=name, **kwargs):
            called.append(_name)
            return _original(*args, **kwargs)
        monkeypatch.setattr(min_norm, name, route)
    return called


def test_passes_run_out_and_the_qps_answer(monkeypatch):
    # two passes cannot reach the first tolerance: no candidate, the QPs answer
    X, y = sample(np.random.default_rng(4), 100, 50, gap=0.1)
    expected = by_route("coordinate", lambda: MaxMarginClassifier().fit(X, y)).margin_
    monkeypatch.setattr(coordinate, "MAX_EPOCHS", 2)
    assert list(coordinate.coordinate_candidates(signed(X, y, True), True)) == []
    routes = spy_on_qps(monkeypatch)
    clf = MaxMarginClassifier().fit(X, y)
    assert routes and clf.margin_ == pytest.approx(expected, rel=1e-9)


@pytest.mark.parametrize("fit_intercept", [True, False])
def test_inseparable_rows_stop_the_coordinate_route_and_raise_as_before(fit_intercept,
                                                                        monkeypatch):
    # the dual is unbounded: sum(a) outgrows ||w(a)||^2 within a few passes and the route
    # yields nothing; the QPs then raise the error and certificate they always gave
    X, y = noisy_sample(np.random.default_rng(5), 400, 4, flip=0.2)
    Z = signed(X, y, fit_intercept)
    assert list(coordinate.coordinate_candidates(Z / np.abs(Z).max(), fit_intercept)) == []
    routes = spy_on_qps(monkeypatch)
    with pytest.raises(NotSeparableError) as refused:
        MaxMarginClassifier(fit_intercept=fit_intercept).fit(X, y)
    assert routes and str(refused.value) == min_norm._NOT_SEPARABLE
    check_certificate(X, y, refused.value.certificate, fit_intercept)


def test_a_zero_row_without_an_intercept_is_left_to_the_qps():
    # its coordinate has no curvature (the loop would divide by 0): no candidate at all
    Z = np.array([[1.0, 0.0], [0.0, 0.0]])
    assert list(coordinate.coordinate_candidates(Z, False)) == []
    with pytest.raises(NotSeparableError):
        min_norm.min_norm_separator(Z, free_first=False)


# -- real separable sets (skipped where ../shared/data lacks them) -----------------------------

def mnist_pair(first, second):
    images = SHARED_DATA / "mnist-t10k-images-idx3-ubyte"
    labels = SHARED_DATA / "mnist-t10k-labels-idx1-ubyte"
    if not (images.exists() and labels.exists()):
        pytest.skip("MNIST t10k is not in shared/data")
    X = np.fromfile(images, dtype=np.uint8, offset=16).reshape(-1, 784)
    digits = np.fromfile(labels, dtype=np.uint8, offset=8)
    keep = (digits == first) | (digits == second)
    return X[keep] / 255.0, np.where(digits[keep] == second, 1.0, -1.0)


def svmlight(name):
    from sklearn.datasets import load_svmlight_file

    path = SHARED_DATA / name
    if not path.exists():
        pytest.skip(f"{name} is not in shared/data")
    X, y = load_svmlight_file(str(path))
    return X.tocsr(), np.where(y == y.max(), 1.0, -1.0)


REAL = {
    "mnist 0 vs 1": lambda: mnist_pair(0, 1),
    "mushrooms": lambda: svmlight("mushrooms"),
}


@pytest.mark.parametrize("name", sorted(REAL))
def test_real_separable_sets_are_certified_by_the_coordinate_route(name):
    X, y = REAL[name]()
    fast = by_route("coordinate", lambda: MaxMarginClassifier().fit(X, y))
    qp = by_route("qp", lambda: MaxMarginClassifier().fit(X, y))
    # both verified maxima, to the QPs' accepted relative gap of 1e-6
    assert fast.margin_ == pytest.approx(qp.margin_, rel=2e-6)
    ours = independent_margin(X, y, fast.coef_, fast.intercept_[0])
    assert ours == pytest.approx(fast.margin_, rel=1e-12)
    # SVC's hyperplane is feasible for the same problem, so its margin is no larger
    assert ours >= svc_margin(X, y, tol=1e-3) * (1.0 - 1e-12)
    assert np.all(fast.predict(X) == np.where(y > 0, fast.classes_[1], fast.classes_[0]))
