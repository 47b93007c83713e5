"""The exact modules' rules that their layer tests let mutants change.

Each test was written for a surviving mutant of ``halfspaces._exact`` (risk, the
Freund-Schapire search, feasibility; benchmarks/MUTATION_SURVIVORS.md lists what is left).
Each states the rule it checks and computes its expectation independently (by hand, by
brute force or with SciPy), not from the function under test.
"""

from __future__ import annotations

import numpy as np
import pytest
from _oracles import brute_force_errors, noisy_sample, signed
from numpy.testing import assert_allclose, assert_array_equal

from halfspaces._exact import decide, hinge_lp, risk, zero_one_erm
from halfspaces._exact.highs import HighsResult
from halfspaces.exceptions import SolverError

# -- risk -------------------------------------------------------------------------------------

def test_hinge_lp_accepts_a_loss_exactly_at_its_tolerance(monkeypatch):
    # the check refuses only a loss *above* objective + 1e-6 max(1, objective): a solver
    # reporting -1e-6 for a w of hinge loss exactly 0 sits on the boundary and is accepted,
    # one ulp lower it is refused
    Z = np.array([[1.0], [2.0]])  # w = 1: scores 1 and 2, hinge loss exactly 0

    def reporting(objective):
        def solve(*args, **kwargs):
            return HighsResult("Optimal", np.array([1.0, 0.0, 0.0]), np.zeros(2), objective, 0.0)
        return solve

    assert -1e-6 + 1e-6 * max(1.0, -1e-6) == 0.0  # the boundary, exactly
    monkeypatch.setattr(risk, "solve", reporting(-1e-6))
    assert_array_equal(hinge_lp(Z), [1.0])
    monkeypatch.setattr(risk, "solve", reporting(np.nextafter(-1e-6, -1.0)))
    with pytest.raises(SolverError, match="hinge-loss LP reported"):
        hinge_lp(Z)


def test_zero_one_erm_counts_a_zero_row_as_an_error():
    # without an intercept the point x = 0 has score 0 under every w: always an error
    X = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0], [-1.0, -1.0]])
    y = np.array([1, 1, 1, -1])
    fit = zero_one_erm(signed(X, y, False), 1e-5)
    assert brute_force_errors(X, y, False) == 1
    assert fit.optimal and fit.n_errors == 1


def test_zero_one_erm_on_no_rows_is_optimal_with_no_gap():
    # no rows: no binaries, HiGHS solves an LP (its MIP gap is then inf); the fit is optimal,
    # errs nowhere, and its gap is the documented 0.0
    fit = zero_one_erm(np.zeros((0, 2)), 1e-5)
    assert fit.optimal and fit.n_errors == 0 and fit.gap == 0.0


@pytest.mark.parametrize("Z, tau", [
    # hinge loss by hand: f(w) = (1 - 1.5w)_+ + (1 - 0.75w)_+ + (1 + w) is least at w = 2/3
    # (slope -1.25 before, +0.25 after); scaled into the box, w0 = 1; scores 1.5, 0.75, -1
    (np.array([[1.5], [0.75], [-1.0]]), 0.6),
    # f(w) = (1 - w)_+ + (1 - w/2)_+ + (1 + w) is least at w = 1: scores 1, 0.5 (= tau: not
    # below it, so no error) and -1
    (np.array([[1.0], [0.5], [-1.0]]), 0.5),
])
def test_the_first_incumbent_is_the_hinge_hyperplane_scaled_into_the_box(Z, tau):
    # with no time at all HiGHS keeps its first incumbent: w0 = hinge w / max|w| and e_i = 1
    # exactly for the rows with <w0, z_i> < tau (only the last row here)
    res = risk._zero_one_milp(Z, tau, 0.0, None)
    assert_allclose(res.x, [1.0, 0.0, 0.0, 1.0], atol=1e-9)
    assert res.objective == pytest.approx(1.0)


def test_a_stopped_milp_keeps_the_refit_of_its_start():
    # with no time, the answer is the hinge hyperplane's correct points separated again
    # exactly (decide): on this sample that refit errs less than the hinge hyperplane itself
    X, y = noisy_sample(np.random.default_rng(3), 60, 2, flip=0.25)
    Z = signed(X, y, True)
    errors = lambda w: int(np.sum(Z @ w <= 0))  # noqa: E731
    hinge_w = hinge_lp(Z)
    w_lp = decide(Z[Z @ hinge_w > 0]).separator
    assert errors(w_lp) < errors(hinge_w) < 60
    fit = zero_one_erm(Z, 1e-5, time_limit=0.0)
    assert not fit.optimal
    assert fit.n_errors == errors(fit.w)  # recounted with <= 0
    assert fit.n_errors <= errors(w_lp)


def test_the_refit_counts_zero_scores_as_errors_and_prefers_the_lp_on_ties():
    # a zero row (score 0 under every w) is an error for both candidates
    Z = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0], [1.0, -3.0]])
    w_milp = np.array([1.0, 0.1])  # scores 0, 1, 0.1, 0.7: one error, the zero row
    correct = np.array([False, True, True, False])
    # their separator is (1, 1) up to scale: row 4 at -2, so two errors: w_milp is kept
    assert risk._refit_on_correct(Z, w_milp, correct) is w_milp
    # a tie (no error either way) goes to the LP's separator, though a row scores 1/2 < 1
    Z = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, -0.5]])
    w_milp = np.array([2.0, 1.0])
    w = risk._refit_on_correct(Z, w_milp, np.array([True, True, False]))
    assert w is not w_milp
    assert_allclose(w, [1.0, 1.0], rtol=1e-9)
    assert np.all(Z @ w > 0)


# -- freund_schapire --------------------------------------------------------------------------

XOR_X = np.array([[0.0, 0.0], [1.0, 1.0], [0.0, 1.0], [1.0, 0.0]])
XOR_Y = np.array([1, 1, -1, -1])


def _polish_returning(monkeypatch, v, found, roots):
    # smallest_root's one minimisation after _candidates (whose real answer is kept) is the
    # polish: make it return v
    import types

    import scipy.optimize

    from halfspaces._exact import freund_schapire as fs

    monkeypatch.setattr(fs, "_candidates", lambda rows, R: (found, roots))
    monkeypatch.setattr(scipy.optimize, "minimize",
                        lambda *args, **kwargs: types.SimpleNamespace(x=np.array(v)))


def test_a_polish_at_v_zero_is_dropped_though_f_is_lowest_there(monkeypatch):
    # on XOR the path collapses to v = 0 and only the tiny candidates +-1e-9/R e_0 are left,
    # both with F just above sqrt(4) = 2 = F(0); v = 0 gives no bound (gamma = 1/||v||)
    from halfspaces._exact import SignedRows
    from halfspaces._exact import freund_schapire as fs

    Z = signed(XOR_X, XOR_Y, True)
    R = float(np.sqrt(np.max(np.sum(Z * Z, axis=1))))
    rows = SignedRows(Z)
    found, roots = fs._candidates(rows, R)
    assert fs._root(rows, R, np.zeros(3)) == 2.0 < min(roots)
    _polish_returning(monkeypatch, np.zeros(3), found, roots)
    v = fs.smallest_root(rows, R)
    assert np.linalg.norm(v) > 0
    assert_array_equal(v, found[int(np.argmin(roots))])


def test_a_polish_that_only_ties_the_best_candidate_is_dropped(monkeypatch):
    # Z = [[1]], R = 1: F(v) = |v| + (1 - v)_+ is 1 on all of [0, 1]; the search's best
    # candidate has F = 1 and a polish to v = 1/2 (F = 1/2 + 1/2 = 1, exactly) does not improve
    from halfspaces._exact import SignedRows
    from halfspaces._exact import freund_schapire as fs

    rows = SignedRows(np.array([[1.0]]))
    found, roots = fs._candidates(rows, 1.0)
    best = found[int(np.argmin(roots))]
    assert min(roots) == 1.0 == fs._root(rows, 1.0, np.array([0.5]))
    assert best[0] != 0.5
    _polish_returning(monkeypatch, [0.5], found, roots)
    assert_array_equal(fs.smallest_root(rows, 1.0), best)


def test_the_path_stops_after_two_points_that_do_not_improve_on_a_flat_bound():
    # Z = [[1]], R = 1: F = 1 exactly at every v in [0, 1], so the first path points (lam =
    # 1e4, 1e3, 1e2: v = 1/(1 + lam) < 1) tie; a tie is no improvement, and the path stops
    # after the third point. Then the hard-margin point v = 1 (+ slack) and the tiny two
    from halfspaces._exact import SignedRows
    from halfspaces._exact import freund_schapire as fs

    rows = SignedRows(np.array([[1.0]]))
    found, roots = fs._candidates(rows, 1.0)
    assert len(found) == 3 + 1 + 2
    assert_allclose([v[0] for v in found[:3]], 1.0 / (1.0 + np.array([1e4, 1e3, 1e2])),
                    rtol=1e-4)
    assert roots[:3] == [1.0, 1.0, 1.0]
    assert found[3][0] == pytest.approx(1.0, rel=1e-9)


# -- feasibility ------------------------------------------------------------------------------

def test_the_first_working_set_is_a_fixed_sorted_sample():
    from halfspaces._exact.feasibility import first_rows

    assert_array_equal(first_rows(2000), np.arange(2000))
    a, b = first_rows(5000), first_rows(5000)
    assert_array_equal(a, b)  # a fixed seed: the same rows on every call
    assert a.size == 2000 and np.all(np.diff(a) > 0) and 0 <= a[0] and a[-1] < 5000


def test_check_rows_counts_rows_at_the_threshold_unless_strict_and_caps_the_new_rows():
    from halfspaces._exact.feasibility import check_rows
    from halfspaces._exact.signed import SignedRows

    Z = SignedRows(np.array([[1.0], [0.0], [-1.0], [2.0], [-3.0]]))
    w, rows = np.array([1.0]), np.array([0])  # scores 1, 0, -1, 2, -3
    found = check_rows(Z, w, rows, 0.0)  # <= 0: rows 1, 2, 4, most violated first
    assert found.n_violated == 3
    assert_array_equal(found.new_rows, [4, 2, 1])
    strict = check_rows(Z, w, rows, 0.0, strict=True)  # < 0: row 1 (score 0) is not
    assert strict.n_violated == 2
    assert_array_equal(strict.new_rows, [4, 2])
    # at most max(|rows|, least) new rows: here max(1, 1) = 1, the most violated
    assert_array_equal(check_rows(Z, w, rows, 0.0, least=1).new_rows, [4])


def test_check_rows_returns_at_most_1000_new_rows_by_default():
    from halfspaces._exact.feasibility import check_rows
    from halfspaces._exact.signed import SignedRows

    Z = SignedRows(-np.ones((1001, 1)))  # every row violated, none in the working set
    found = check_rows(Z, np.array([1.0]), np.empty(0, dtype=np.int64), 0.0)
    assert found.n_violated == 1001 and found.new_rows.size == 1000


def test_a_certificate_with_a_negative_weight_is_refused():
    from halfspaces._exact.feasibility import verified_certificate

    Z = np.array([[1.0], [2.0]])
    a = np.array([2.0, -1.0])  # sums to 1 and Z^T a = 0, but a < 0 somewhere
    assert a.sum() == 1.0 and Z.T @ a == 0.0
    assert verified_certificate(Z, a) is None
    Z = np.array([[1.0], [-2.0]])
    a = np.array([2.0, 1.0]) / 3.0  # a true certificate is kept
    assert verified_certificate(Z, a) is a


def test_the_polish_stays_on_the_support_it_is_given():
    # rows 1 and 2 (z = -1 and z = 0) hold the certificate e_2; rows 0 and 1 hold another,
    # (1/2, 1/2, 0), which the polish may not use: row 0 is outside the duals' support.
    # _certificate reads the duals' support the same way
    from halfspaces._exact import feasibility

    Z = np.array([[1.0], [-1.0], [0.0]])
    duals = np.array([0.0, 0.5, 0.5])
    for found in (feasibility._polish(Z, duals), feasibility._certificate(Z, duals)):
        assert found is not None and found[0] == 0.0
        assert np.all(found >= 0) and abs(found.sum() - 1.0) <= 1e-12
        assert abs(Z.T @ found) <= 1e-9


def test_the_polish_finds_a_certificate_nnls_reaches_on_the_whole_support():
    # 2/3 (-1, 0) + 1/3 (2, 0) = 0: the certificate (2/3, 0, 0, 0, 1/3), from the uniform a
    from halfspaces._exact import feasibility

    Z = np.array([[-1.0, 0.0], [-1.0, 2.0], [0.0, -2.0], [0.0, -1.0], [2.0, 0.0]])
    found = feasibility._polish(Z, np.full(5, 0.2))
    assert found is not None
    assert np.all(found >= 0) and abs(found.sum() - 1.0) <= 1e-12
    assert np.all(np.abs(Z.T @ found) <= 1e-9 * np.abs(Z).max(axis=0))


def test_the_polish_normalises_the_nnls_weights_to_sum_one():
    # no exact certificate: the hull of the rows is 1e-6 from the origin, well inside the
    # tolerance of column 0 (1e-9 * 1e4). NNLS trades the residual against the sum row, so
    # its weights sum to 1/(1 + 1e-12): the polish divides by that sum
    from halfspaces._exact import feasibility

    Z = np.array([[1e-6, 1.0], [1e-6, -1.0], [1e4, 0.0]])
    found = feasibility._polish(Z, np.array([0.5, 0.5, 0.0]))
    assert found is not None
    assert_allclose(found, [0.5, 0.5, 0.0], rtol=1e-12)
    assert abs(found.sum() - 1.0) <= 1e-15


def test_unit_separator_keeps_a_separator_at_its_threshold_and_lifts_one_below():
    # accepted as is when min_i <w, z_i> >= 1 + 5e-13, else scaled to 1 + 1e-12
    from halfspaces._exact.feasibility import unit_separator

    Z = np.array([[1.0]])
    at = np.array([1.0 + 1e-12 / 2])
    assert_array_equal(unit_separator(Z, at), at)
    below = np.array([1.0 + 4e-13])
    lifted = unit_separator(Z, below)
    assert lifted[0] >= 1.0 + 5e-13
    assert lifted[0] == pytest.approx(1.0 + 1e-12, abs=1e-15)


def test_an_inseparable_first_working_set_is_certified_at_once():
    # 2500 rows, 30% of the labels flipped: the first 2000 rows are already inseparable
    # (box margin t = 0), and their certificate is one for the whole sample, so no row is
    # added: the certificate lies on the first working set
    from halfspaces._exact.feasibility import first_rows

    X, y = noisy_sample(np.random.default_rng(2), 2500, 4, flip=0.3)
    Z = signed(X, y, True)
    a = decide(Z).certificate
    assert a is not None
    assert set(np.flatnonzero(a)) <= set(first_rows(2500))
    assert np.all(np.abs(Z.T @ a) <= 1e-9 * np.abs(Z).max(axis=0))


# -- min_norm ---------------------------------------------------------------------------------

class FirstWorkingSet(Exception):
    """Raised by :class:`RecordingRows` once it has the first working set."""


class RecordingRows:
    """SignedRows that stop a working-set loop at its first ``take``, keeping the rows."""

    def __init__(self, rows):
        self.rows, self.taken = rows, None

    def take(self, rows):
        self.taken = np.array(rows)
        raise FirstWorkingSet

    def __getattr__(self, name):
        return getattr(self.rows, name)


@pytest.mark.parametrize("free_first", [False, True])
def test_the_dual_starts_from_256_distinct_rows_of_a_larger_sample(free_first):
    # "the dual's first working set, and the least rows it adds per round": 256 rows drawn
    # without replacement (a repeated row only adds a duplicate column to the QP), sorted;
    # a sample of at most 256 rows is taken whole
    from _oracles import separable_sample

    from halfspaces._exact import SignedRows, min_norm

    for n, size in ((600, 256), (257, 256), (256, 256), (100, 100)):
        X, y = separable_sample(np.random.default_rng(4), n, 3, fit_intercept=free_first)
        Z = SignedRows(signed(X, y, free_first))
        Zs = RecordingRows(Z.scaled(min_norm._scales(Z, free_first)))
        with pytest.raises(FirstWorkingSet):
            min_norm._dual(Z, Zs, free_first)
        first = Zs.taken
        assert first.size == size and np.unique(first).size == size
        assert np.all(np.diff(first) > 0) and 0 <= first[0] and first[-1] < n


@pytest.mark.parametrize("route", ["_primal", "_dual"])
def test_a_qp_that_fails_on_separable_rows_is_a_solver_error_not_a_false_proof(route,
                                                                               monkeypatch):
    # HiGHS calling the hard-margin QP infeasible (primal) or giving no optimal dual point
    # (dual) on rows that the separability LP separates: no certificate can be made, so the
    # answer is a SolverError that says so, not a NotSeparableError
    from _oracles import separable_sample

    from halfspaces._exact import SignedRows, min_norm

    X, y = separable_sample(np.random.default_rng(5), 40, 2)
    Z = SignedRows(signed(X, y, True))
    if route == "_primal":
        monkeypatch.setattr(min_norm, "solve", lambda *args, **kwargs: HighsResult(
            "Infeasible", np.zeros(3), np.zeros(40), 0.0, 0.0))
    else:
        monkeypatch.setattr(min_norm, "_dual_qp", lambda ZW, free_first, balanced=False: None)
    with pytest.raises(SolverError) as refused:
        getattr(min_norm, route)(Z, Z, True)
    assert str(refused.value) == ("HiGHS called the max-margin QP infeasible, but its rows "
                                  "are separable.")


@pytest.mark.parametrize("labels", [[1, 1, -1, -1, -1], [1, -1, -1, -1], [1, 1, 1, -1],
                                    [1, 1, 1], [-1, -1]])
def test_the_intercept_from_the_dual_equalises_the_two_sides_smallest_margins(labels):
    # _primal_from_dual's docstring: for w_reg = sum_i a_i z_i,reg the best w_0 makes
    # min_+ s_i + w_0 = min_- s_i - w_0 (s = <w_reg, z_i,reg>, z_i0 = y_i); with one side
    # absent from the working set, that side's smallest margin is 1. One-row sides included
    from halfspaces._exact import min_norm

    rng = np.random.default_rng(len(labels))
    c = np.array(labels, dtype=float)
    ZW = np.column_stack([c, rng.normal(size=(c.size, 2))])
    a = rng.uniform(0.1, 1.0, c.size)
    w = min_norm._primal_from_dual(ZW, a, True)
    w_reg = ZW[:, 1:].T @ a
    assert_allclose(w[1:], w_reg, rtol=1e-15)
    margins = ZW @ w  # <w, z_i> = s_i + w_0 c_i
    pos, neg = margins[c > 0], margins[c < 0]
    if pos.size and neg.size:
        assert pos.min() == pytest.approx(neg.min(), rel=1e-12, abs=1e-12)
    else:
        assert (pos if pos.size else neg).min() == pytest.approx(1.0, rel=1e-12)


def test_a_polish_whose_kkt_multipliers_are_negative_is_refused():
    # rows z1 = (1, 0) and z2 = (2, 1), no intercept: the optimum is w* = (1, 0) with z1 alone
    # active. On the support {1, 2} the KKT system gives a = (3, -1) and w = (1, -1): feasible
    # and no longer than the candidate (1, 1), but a negative multiplier proves nothing
    from halfspaces._exact import SignedRows, min_norm

    Z = np.array([[1.0, 0.0], [2.0, 1.0]])
    G = Z @ Z.T
    assert_allclose(np.linalg.solve(G, np.ones(2)), [3.0, -1.0], rtol=1e-12)
    assert min_norm._polish(SignedRows(Z), Z, np.array([1.0, 1.0]), np.array([0.5, 0.5]),
                            False) is None


def test_min_norm_separator_of_no_rows_is_zero_and_of_one_row_its_scaled_copy():
    # no constraint: w = 0; one row z: w = z / ||z||^2 (the closest point of <w, z> >= 1)
    from halfspaces._exact import min_norm_separator

    assert_array_equal(min_norm_separator(np.zeros((0, 3)), free_first=False), np.zeros(3))
    assert_allclose(min_norm_separator(np.array([[2.0, 0.0]]), free_first=False), [0.5, 0.0],
                    rtol=1e-9)
    # one class, no feature: the free intercept alone separates, w = (1, 0)
    assert_allclose(min_norm_separator(np.array([[1.0, 0.0], [1.0, 0.0]]), free_first=True),
                    [1.0, 0.0], atol=1e-9)


@pytest.mark.parametrize("first", [[0.0, 0.0], [1.0, -2.0]])
def test_a_free_first_column_that_is_not_a_signed_constant_is_refused(first):
    from halfspaces._exact import min_norm_separator

    Z = np.column_stack([first, [1.0, 1.0]])
    with pytest.raises(ValueError) as refused:
        min_norm_separator(Z, free_first=True)
    assert str(refused.value) == ("free_first needs the signed constant feature in column 0 "
                                  "(every |z_i0| equal and nonzero).")


def test_when_both_hard_margin_routes_fail_the_error_names_each(monkeypatch):
    from halfspaces._exact import min_norm

    def _primal(Z, Zs, free_first):
        raise SolverError("gap 1e-3.")

    def _dual(Z, Zs, free_first, balanced=False):
        raise SolverError("no optimal dual point" + (" with balanced rows." if balanced else "."))

    monkeypatch.setattr(min_norm, "_primal", _primal)
    monkeypatch.setattr(min_norm, "_dual", _dual)
    with pytest.raises(SolverError) as refused:
        min_norm.min_norm_separator(np.array([[1.0, 2.0], [-1.0, 1.0]]), free_first=True)
    assert str(refused.value) == ("the hard-margin QP cannot be solved to a closed duality "
                                  "gap; primal: gap 1e-3. dual: no optimal dual point. "
                                  "balanced_dual: no optimal dual point with balanced rows.")


def test_the_duality_gap_refuses_a_zero_margin_and_a_dual_point_off_its_constraint():
    # a hyperplane through a row (min margin exactly 0) cannot be scaled to margin 1; and
    # sum_i a_i y_i = 0 must hold to 1e-6 of sum(a) however small sum(a) is
    from halfspaces._exact import min_norm

    with pytest.raises(SolverError, match=r"does not separate the working set \(min margin 0\)"):
        min_norm._relative_gap(np.array([[1.0], [0.0]]), np.array([1.0]), np.array([0.5, 0.5]),
                               False)
    Zf = np.array([[1.0, 1.0], [-1.0, 1.0]])
    a = np.array([0.005 + 5e-8, 0.005 - 5e-8])  # sum 0.01, sum a_i y_i = 1e-7 > 1e-6 * 0.01
    with pytest.raises(SolverError, match="violates sum_i a_i y_i = 0"):
        min_norm._relative_gap(Zf, np.array([0.0, 1.0]), a, True)
