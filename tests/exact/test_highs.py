"""halfspaces._exact.highs.solve on problems whose answers are known without HiGHS: LPs by
their vertices, QPs in closed form, MILPs by brute force, and the statuses it must refuse
or pass on. Small and fast, so that each mutant of the plumbing is judged in seconds."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
import scipy.sparse as sp
from numpy.testing import assert_allclose

from halfspaces._exact.highs import INF, qp_iteration_limit, solve
from halfspaces.exceptions import SolverError


def lp_by_vertices(c, A, lo, hi, xl, xu):
    """min c x s.t. lo <= A x <= hi, xl <= x <= xu in two variables: the best feasible
    intersection of two constraint lines (a bounded LP's optimum is at a vertex)."""
    lines = []  # (a, b): a x = b
    for a, lower, upper in zip(A, lo, hi, strict=True):
        lines += [(a, b) for b in (lower, upper) if np.isfinite(b)]
    for j in range(2):
        e = np.eye(2)[j]
        lines += [(e, b) for b in (xl[j], xu[j]) if np.isfinite(b)]
    best = None
    for (a1, b1), (a2, b2) in itertools.combinations(lines, 2):
        M = np.array([a1, a2])
        if abs(np.linalg.det(M)) < 1e-12:
            continue
        x = np.linalg.solve(M, [b1, b2])
        feasible = np.all(A @ x >= lo - 1e-9) and np.all(A @ x <= hi + 1e-9) \
            and np.all(x >= xl - 1e-9) and np.all(x <= xu + 1e-9)
        if feasible and (best is None or c @ x < c @ best - 1e-12):
            best = x
    return best


@pytest.mark.parametrize("seed", range(8))
def test_lps_reach_the_best_vertex_with_row_and_column_bounds(seed):
    rng = np.random.default_rng(seed)
    A = rng.normal(size=(4, 2))
    lo = np.where(rng.random(4) < 0.5, -INF, -rng.random(4) - 0.5)
    hi = rng.random(4) + 0.5
    xl, xu = -rng.random(2) - 1.0, rng.random(2) + 1.0
    c = rng.normal(size=2)
    result = solve(sp.csr_matrix(A), c, (xl, xu), (lo, hi), what="test LP")
    expected = lp_by_vertices(c, A, lo, hi, xl, xu)
    assert result.status == "Optimal"
    assert_allclose(result.x, expected, atol=1e-7)
    assert result.objective == pytest.approx(c @ expected, abs=1e-9)
    assert result.x.dtype == np.float64 and result.row_dual.shape == (4,)


def test_row_duals_certify_the_lp_optimum():
    # min c x s.t. A x >= b, x free: strong duality c x = b y with y >= 0 and A^T y = c
    A = np.array([[1.0, 2.0], [3.0, 1.0], [1.0, -1.0]])
    b = np.array([4.0, 6.0, -3.0])
    c = np.array([2.0, 3.0])
    result = solve(sp.csc_matrix(A), c, (np.full(2, -INF), np.full(2, INF)),
                   (b, np.full(3, INF)))
    y = result.row_dual
    assert np.all(y >= -1e-9)
    assert_allclose(A.T @ y, c, atol=1e-9)
    assert b @ y == pytest.approx(c @ result.x, abs=1e-9)


def test_a_diagonal_qp_is_the_clipped_unconstrained_minimum():
    # min 1/2 sum h_j x_j^2 + c x over a box: each x_j = clip(-c_j / h_j) for h_j > 0, and
    # at the bound c_j points away from for h_j = 0 (a variable left unpenalised)
    h = np.array([2.0, 0.5, 0.0, 4.0, 0.0])
    c = np.array([-1.0, 3.0, 2.0, -20.0, -1.5])
    lower, upper = np.full(5, -2.0), np.full(5, 3.0)
    A = sp.csr_matrix(np.ones((1, 5)))
    result = solve(A, c, (lower, upper), (np.array([-INF]), np.array([INF])),
                   hessian_diagonal=h)
    expected = np.array([0.5, -2.0, -2.0, 3.0, 3.0])
    assert_allclose(result.x, expected, atol=1e-6)
    assert result.objective == pytest.approx(0.5 * h @ expected**2 + c @ expected, abs=1e-6)


def test_a_dense_qp_is_the_solution_of_its_linear_system():
    rng = np.random.default_rng(3)
    B = rng.normal(size=(4, 4))
    H = B @ B.T + 0.5 * np.eye(4)  # symmetric positive definite, every entry nonzero
    c = rng.normal(size=4)
    free = (np.full(4, -INF), np.full(4, INF))
    result = solve(sp.csr_matrix(np.ones((1, 4))), c, free, (np.array([-INF]),
                   np.array([INF])), hessian=H)
    assert_allclose(result.x, np.linalg.solve(H, -c), rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("seed", range(4))
def test_a_milp_is_the_best_integer_point_by_brute_force(seed):
    # max v x s.t. W x <= cap, x in {0, 1, 2}^5: a bounded knapsack
    rng = np.random.default_rng(seed)
    v, W = rng.integers(1, 10, 5).astype(float), rng.integers(1, 6, (2, 5)).astype(float)
    cap = np.array([9.0, 11.0])
    result = solve(sp.csr_matrix(W), -v, (np.zeros(5), np.full(5, 2.0)),
                   (np.full(2, -INF), cap), integrality=np.ones(5), what="knapsack")
    best = max(v @ np.array(x) for x in itertools.product(range(3), repeat=5)
               if np.all(W @ np.array(x) <= cap))
    assert result.status == "Optimal" and -result.objective == pytest.approx(best)
    assert_allclose(result.x, np.round(result.x), atol=1e-9)
    assert v @ np.round(result.x) == pytest.approx(best) and result.mip_gap <= 1e-9
    # the last variable continuous: for each integer point of the others it goes as far
    # as both rows allow (its value and weights are positive), at most 2
    mixed = solve(sp.csr_matrix(W), -v, (np.zeros(5), np.full(5, 2.0)),
                  (np.full(2, -INF), cap), integrality=np.r_[np.ones(4), 0.0])
    best_mixed = -np.inf
    for x in itertools.product(range(3), repeat=4):
        room = np.min((cap - W[:, :4] @ np.array(x)) / W[:, 4])
        if room >= 0:
            best_mixed = max(best_mixed, v[:4] @ np.array(x) + v[4] * min(2.0, room))
    assert -mixed.objective == pytest.approx(best_mixed, rel=1e-9)
    assert best_mixed >= best


def test_a_start_is_taken_and_options_reach_highs():
    W = sp.csr_matrix(np.array([[3.0, 4.0, 5.0]]))
    v = np.array([4.0, 5.0, 6.0])
    bounds = (np.zeros(3), np.ones(3))
    rows = (np.array([-INF]), np.array([7.0]))
    started = solve(W, -v, bounds, rows, integrality=np.ones(3), start=np.array([1, 1, 0]))
    assert_allclose(started.x, [1.0, 1.0, 0.0], atol=1e-9)  # the optimum (value 9): a hint
    # a zero time limit stops HiGHS before it proves anything: refused unless accepted
    with pytest.raises(SolverError, match=r"could not solve the budgeted MILP: model status "
                       r"'Time limit reached'\. The data may be too badly scaled; rescale the "
                       r"features, or raise the time limit if one was set\."):
        solve(W, -v, bounds, rows, integrality=np.ones(3), options={"time_limit": 0.0},
              what="budgeted MILP")
    limited = solve(W, -v, bounds, rows, integrality=np.ones(3),
                    options={"time_limit": 0.0}, accept=("Time limit reached",))
    assert limited.status == "Time limit reached"


def test_infeasible_problems_are_refused_by_name_or_passed_on_when_accepted():
    A = sp.csr_matrix(np.array([[1.0, 1.0]]))
    args = (A, np.zeros(2), (np.zeros(2), np.ones(2)), (np.array([3.0]), np.array([INF])))
    with pytest.raises(SolverError, match="could not solve the toy LP: model status "
                                          "'Infeasible'"):
        solve(*args, what="toy LP")
    assert solve(*args, accept=("Infeasible",)).status == "Infeasible"
    with pytest.raises(SolverError, match="could not solve the problem: "):
        solve(*args)


# The augmented hard-margin QP of 10 points 1e-3 apart at (2092, -5924), labels mixed
# (scaled rows y_i (2^-12, x_i / 2^12)): HiGHS's active-set QP cycled on it for minutes with
# no limit. Run in a subprocess, so that a regression fails, not hangs
_CYCLING_QP = """
import numpy as np
from halfspaces._exact.highs import INF, solve
from halfspaces.exceptions import SolverError
x = [("-0x1.05759b8638242p-1", "0x1.72419f68e2c7ep+0"), ("-0x1.057595762d203p-1",
     "0x1.72419bf1c8d84p+0"), ("0x1.057599a5b7f7cp-1", "-0x1.7241a26f322f5p+0"),
     ("-0x1.05759e2918845p-1", "0x1.7241a01ab3834p+0"), ("0x1.05758eaeb10c4p-1",
     "-0x1.7241a15fcd468p+0"), ("0x1.05758db42c156p-1", "-0x1.72419d07bbcb5p+0"),
     ("0x1.057585d21b677p-1", "-0x1.72419db13a75bp+0"), ("-0x1.05759eb3fa28fp-1",
     "0x1.72419ea7beaa8p+0"), ("0x1.0575922d98c3dp-1", "-0x1.72419cbcd40fbp+0"),
     ("-0x1.05759d11c639ep-1", "0x1.72419af7b09dep+0")]
Z = np.array([[float.fromhex(v) for v in row] for row in x])
Z = np.c_[np.sign(Z[:, 0]) * 2.0**-12, Z]
try:
    solve(Z, np.zeros(3), (np.full(3, -INF), np.full(3, INF)), (np.ones(10), np.full(10, INF)),
          hessian_diagonal=np.ones(3), what="cycling QP")
except SolverError as err:
    print(err)
"""


def test_a_qp_that_cycles_stops_at_its_iteration_limit():
    import subprocess
    import sys

    try:
        done = subprocess.run([sys.executable, "-c", _CYCLING_QP], capture_output=True,
                              text=True, timeout=60)
    except subprocess.TimeoutExpired:
        pytest.fail("HiGHS's QP ran a minute on a 10 x 3 QP: no iteration limit")
    assert ("could not solve the cycling QP: its QP solver reached its iteration limit (1260)"
            in done.stdout), done.stdout + done.stderr


def test_a_qp_keeps_the_callers_iteration_limit():
    # qp_iteration_limit = 0 stops before the first step: the caller's value reached HiGHS
    A = sp.csr_matrix(np.array([[1.0, 1.0]]))
    with pytest.raises(SolverError, match=r"iteration limit \(0\)"):
        solve(A, np.array([-1.0, -1.0]), (np.zeros(2), np.full(2, INF)),
              (np.array([-INF]), np.array([1.0])), hessian_diagonal=np.ones(2),
              options={"qp_iteration_limit": 0})
    assert qp_iteration_limit(10, 3) == 1260


# Four points of a small cluster far from the origin: the augmented QP on x' = (1, x) has
# nearly parallel rows, and highspy 1.16.0's QP solver aborted the process on it ("double
# free or corruption (out)", SIGABRT), which is why pyproject.toml excludes that release
_ABORTING_QP = """
import numpy as np
from halfspaces.exceptions import SolverError
from halfspaces.theory import max_margin
X = np.array([[-12054.09406106829, -1724.7138521878533],
              [-12054.093837464081, -1724.7141381547679],
              [-12054.09425867862, -1724.7132576608942],
              [-12054.09432129508, -1724.7149047261369]])
try:
    print("margin", max_margin(X, [-1, 1, -1, -1]).margin)
except SolverError as err:
    print("refused:", err)
"""


def test_a_qp_of_nearly_parallel_rows_answers_or_refuses_without_killing_the_process():
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-c", _ABORTING_QP], capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, f"rc {done.returncode}: {done.stderr[-2000:]}"
    assert done.stdout.startswith(("margin", "refused:")), done.stdout


# A process started with descriptor 1 or 2 closed (a daemon, ``>&-``, ``2>&-``) has
# sys.stdout or sys.stderr None; the redirection of HiGHS's C output around each solve
# flushed sys.stdout and duplicated descriptor 2 unconditionally, so every LP failed there.
_SOLVE_WITH_CLOSED_STREAMS = """
import os, sys
import numpy as np
from halfspaces.theory import max_margin
margin = max_margin(np.array([[1.0, 2.0], [2.0, 1.0], [-1.0, -2.0]]), [1, 1, -1]).margin
with open(os.environ["RESULT"], "w") as out:
    out.write(repr((sys.stdout is None, sys.stderr is None, margin)))
"""


@pytest.mark.parametrize("closed", ["1", "2", "1 2"])
def test_a_solve_works_in_a_process_without_stdout_or_stderr(closed, tmp_path):
    import os
    import subprocess
    import sys

    from halfspaces.theory import max_margin

    X = np.array([[1.0, 2.0], [2.0, 1.0], [-1.0, -2.0]])
    expected = max_margin(X, [1, 1, -1]).margin
    result = tmp_path / "result"
    shut = " ".join(f"{fd}>&-" for fd in closed.split())
    script = tmp_path / "solve.py"
    script.write_text(_SOLVE_WITH_CLOSED_STREAMS)
    done = subprocess.run(["sh", "-c", f'exec "$0" "$1" {shut}', sys.executable, str(script)],
                          env={**os.environ, "RESULT": str(result)}, timeout=120,
                          capture_output=True)
    assert done.returncode == 0, done.stderr[-2000:]
    stdout_none, stderr_none, margin = eval(result.read_text())  # our own repr of a tuple
    assert (stdout_none, stderr_none) == ("1" in closed.split(), "2" in closed.split())
    assert margin == expected
