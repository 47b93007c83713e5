"""The middle layer's perceptron runs called with their defaults, against the plain twins.

The estimators always pass every option, so a wrong default in the runs themselves (one
epoch, cyclic order, an intercept, no update log, a fresh step count) would pass the
estimator tests; these call the runs as the dask workers and the kernel module do.
"""

from __future__ import annotations

import _naive
import _naive_kernel
import numpy as np
import pytest
from _child import REFUSED, run_child
from _datasets import noisy
from numpy.testing import assert_array_equal

from halfspaces._fast import perceptron as fast_perceptron
from halfspaces._perceptron.run import (
    PerceptronState,
    perceptron_block_epoch,
    run_multiclass_perceptron,
    run_perceptron,
    survival_counts,
)


def integer_data(n=40, d=3, seed=0):
    """Integer features and labels: every sum is exact, so twins agree bit for bit."""
    rng = np.random.default_rng(seed)
    return rng.integers(-3, 4, size=(n, d)).astype(np.float64), rng.choice([-1.0, 1.0], n)


def test_run_perceptron_defaults_to_one_cyclic_plain_epoch_with_an_intercept():
    X, y = integer_data()
    run = run_perceptron(X, y)
    w, b, n_updates, n_epochs, _ = _naive.perceptron(X, y, max_epochs=1)
    assert_array_equal(run.coef, w)
    assert run.intercept == b and run.n_updates == n_updates > 0
    assert run.n_epochs == n_epochs == 1
    assert run.update_rows is None and run.update_steps is None  # no log unless asked


def test_the_update_log_lists_every_update_of_every_epoch():
    X, y = integer_data(seed=1)
    run = run_perceptron(X, y, max_epochs=3, record_updates=True)
    assert run.update_rows.shape == run.update_steps.shape == (run.n_updates,)
    # replay the log: the same weights
    w, b = np.zeros(3), 0.0
    for i in run.update_rows:
        w, b = w + y[i] * X[i], b + y[i]
    assert_array_equal(run.coef, w)
    assert run.intercept == b
    assert np.all(np.diff(run.update_steps) > 0) and run.update_steps[-1] <= 3 * 40


def test_run_multiclass_perceptron_defaults_to_one_cyclic_epoch_with_an_intercept():
    rng = np.random.default_rng(2)
    X = rng.integers(-3, 4, size=(30, 2)).astype(np.float64)
    labels = rng.integers(0, 3, 30)
    run = run_multiclass_perceptron(X, labels, 3)
    W, n_updates, n_epochs, _ = _naive_kernel.multiclass_perceptron(X, labels, 3, max_epochs=1)
    assert_array_equal(run.coef, W[:, :-1])
    assert_array_equal(run.intercept, W[:, -1])
    assert run.n_updates == n_updates > 0 and run.n_epochs == n_epochs == 1


def test_a_block_epoch_from_zero_weights_is_the_first_serial_epoch():
    X, y = noisy(50, 3, seed=3)
    block = perceptron_block_epoch(X, y, np.zeros(4))
    serial = run_perceptron(X, y, max_epochs=1)
    assert_array_equal(block.w[:-1], serial.coef)
    assert block.w[-1] == serial.intercept
    assert block.n_updates == serial.n_updates
    assert block.n_steps == 50  # the steps of this pass, from a fresh count


def test_survival_counts_are_whole_numbers_of_examples():
    counts = survival_counts(np.array([2, 5], dtype=np.int64), 7)
    assert counts.dtype == np.int64
    assert_array_equal(counts, [1, 3, 3])  # w_0 saw 1 example, w_1 3, w_2 the last 3


def test_a_state_or_labels_of_another_size_are_refused_before_the_loop():
    # the loop indexes w by feature and y by row without bounds checks: a state of 4 slots
    # for 10**8 features was written at w[10**8 - 1] (a segfault)
    out = run_child(REFUSED, """
        import numpy as np, scipy.sparse as sp
        from halfspaces._perceptron.run import (PerceptronState, perceptron_block_epoch,
                                                run_perceptron)
        d = 10**8
        X = sp.csr_matrix(([1.0, -1.0], [d - 1, d - 1], [0, 1, 2]), shape=(2, d))
        y = np.array([1.0, -1.0])
        refused(lambda: run_perceptron(X, y, state=PerceptronState.zeros(3)))
        refused(lambda: run_perceptron(X, np.ones(10**6)))
        refused(lambda: perceptron_block_epoch(X, y, np.zeros(4)))
        refused(lambda: perceptron_block_epoch(X[:, :3], y, np.zeros(4), np.zeros(5)))
        refused(lambda: perceptron_block_epoch(X[:, :3], y, np.zeros(4),
                                               order=np.array([0, 10**9])))
    """)
    assert out.count("refused:") == 5, out
    assert "holds (4,) weights" in out and "one label per row" in out


def test_a_positive_class_that_the_labels_dtype_cannot_hold_is_refused():
    # int8(257) is 1: the loop counted the rows labelled 1 as the positive class 257
    X, y = np.array([[1.0], [-1.0]]), np.array([1, 1], dtype=np.int8)
    for positive in (257, np.int64(257), 1.5):
        with pytest.raises(ValueError, match="is not a value of y's dtype int8"):
            run_perceptron(X, y, positive=positive)
        with pytest.raises(ValueError, match="is not a value of y's dtype int8"):
            perceptron_block_epoch(X, y, np.zeros(2), positive=positive)
    assert run_perceptron(X, y, positive=np.int64(1)).intercept == 2.0  # two +1 updates


def test_a_run_without_an_intercept_drops_the_one_its_state_held():
    # with c = 0 the loop neither reads nor moves the intercept slot: a state from a run
    # with an intercept reported it as the hypothesis's b
    X, y = integer_data()
    state = run_perceptron(X, y, max_epochs=3).state
    state.w[-1] = state.aux[-1] = 7.0  # an intercept left by a run with one
    for mode in ("plain", "averaged", "pocket"):
        run = run_perceptron(X, y, mode=mode, fit_intercept=False, state=state)
        assert run.intercept == 0.0 and run.state.w[-1] == run.state.aux[-1] == 0.0
    block = perceptron_block_epoch(X, y, state.w, state.aux, state.n_steps,
                                   mode="averaged", fit_intercept=False)
    assert block.w[-1] == block.aux[-1] == 0.0


def test_multiclass_labels_outside_the_classes_are_refused_before_the_loop():
    # the loop indexes the rows of W by label without bounds checks
    out = run_child(REFUSED, """
        import numpy as np
        from halfspaces._perceptron.run import run_multiclass_perceptron
        X = np.array([[1.0, 0.0], [0.0, 1.0]])
        for labels in (np.array([0, 10**9]), np.array([-10**9, 0]), np.array([0])):
            refused(lambda: run_multiclass_perceptron(X, labels, 3))
    """)
    assert out.count("refused: labels must be one class index in [0, 3) per row") == 3, out


# -- warm starts: the pocket's ratchet, the average of few steps, the dtypes -----------------------
def separable_rows():
    X = np.array([[1.0, 2.0], [2.0, 1.0], [-1.0, -2.0], [-2.0, -1.5]])
    return X, np.array([1.0, 1.0, -1.0, -1.0])


def test_a_recorded_run_without_updates_logs_no_rows_rather_than_nothing():
    # record_updates=True asks for the log of every update: a run that makes none (a warm
    # start from weights that already separate the rows) logs an empty list, not None
    X, y = separable_rows()
    first = run_perceptron(X, y, mode="voted", max_epochs=50, record_updates=True)
    assert first.converged
    again = run_perceptron(X, y, mode="voted", state=first.state, record_updates=True)
    assert again.n_updates == 0 and again.converged
    assert again.update_rows is not None and again.update_steps is not None
    assert again.update_rows.shape == (0,) and again.update_steps.shape == (0,)


def test_a_pocket_call_judges_current_weights_whose_run_beats_the_pocket():
    # Gallant's ratchet on a warm start: the current weights separate the rows, the pocket
    # holds weights that err on all four. The first correct prediction gives the current
    # weights a run (1) longer than the pocket's (0): they are judged, make no error and
    # replace the pocket.
    X, y = separable_rows()
    good = np.array([1.0, 1.0, 0.0])
    state = PerceptronState(good.copy(), -good)
    run = run_perceptron(X, y, mode="pocket", state=state)
    assert_array_equal(run.coef, good[:-1])
    assert run.intercept == 0.0 and run.n_errors == 0 and run.n_updates == 0


def test_the_pocket_run_grows_while_the_current_weights_are_the_pocket():
    # Warm start with w = pocket = (1, 0), no intercept. Rows 1-2 are correct: the pocket's
    # run becomes 2. Row 3 (f = 0) is a mistake: w = (1, 1). Row 4 is correct: the run of
    # (1, 1) is 1, not longer than the pocket's 2, so (1, 1) is not judged even though it
    # makes no error. The ratchet leaves the pocket (1, 0) with its one error (row 3); the
    # end of the pass judges (1, 1), which makes none and replaces it.
    X = np.array([[1.0, 0.0], [1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    y = np.ones(4)
    start = np.array([1.0, 0.0, 0.0])
    state = PerceptronState(start.copy(), start.copy())
    run = run_perceptron(X, y, mode="pocket", fit_intercept=False, state=state)
    assert run.n_updates == 1
    assert_array_equal(run.state.w, [1.0, 1.0, 0.0])
    assert_array_equal(run.coef, [1.0, 1.0])
    assert run.n_errors == 0


def test_the_averaged_hypothesis_of_a_run_without_steps_is_its_weights():
    # selection="worst" makes no step when every margin is already positive: with a step
    # count of 0 the average of no iterates falls back to the weights themselves
    X, y = separable_rows()
    w = np.array([1.0, 1.0, 0.0])
    run = run_perceptron(X, y, mode="averaged", selection="worst", max_epochs=3,
                         state=PerceptronState(w.copy(), np.zeros(3)))
    assert run.n_updates == 0 and run.converged and run.state.n_steps == 0
    assert_array_equal(run.coef, w[:-1])
    assert run.intercept == 0.0


def test_the_averaged_hypothesis_after_one_step_is_w_minus_the_sum():
    # the averaged hypothesis is w - aux / T for every step count T >= 1, T = 1 included
    # (a state mixed by the Dask classes can hold T = 1 with aux != 0)
    X, y = separable_rows()
    w, aux = np.array([1.0, 1.0, 0.5]), np.array([0.25, -0.5, 0.125])
    state = PerceptronState(w.copy(), aux.copy())
    state.counters[fast_perceptron.STEP] = 1
    run = run_perceptron(X, y, mode="averaged", selection="worst", state=state)
    assert run.n_updates == 0 and run.state.n_steps == 1
    assert_array_equal(run.coef, (w - aux)[:-1])
    assert run.intercept == (w - aux)[-1]


def test_a_block_epoch_from_integer_weights_computes_in_float64():
    # rows x = 0.5 (+1), then x = -1.5 (-1), with an intercept: row 1 (f = 0) updates
    # w = (0.5, 1); row 2 has f = -0.75 + 1 = 0.25 > 0 but y = -1: w = (2, 0), and the
    # averaging sum gains (2 - 1) * (-1) * (-1.5, 1) = (1.5, -1)
    X, y = np.array([[0.5], [-1.5]]), np.array([1.0, -1.0])
    plain = perceptron_block_epoch(X, y, [0, 0])
    assert plain.w.dtype == np.float64 and plain.aux.dtype == np.float64
    assert_array_equal(plain.w, [2.0, 0.0])
    assert plain.n_updates == 2 and plain.n_steps == 2
    for w, aux in [([0, 0], None), (np.zeros(2), [0, 0])]:
        out = perceptron_block_epoch(X, y, w, aux, mode="averaged")
        assert out.w.dtype == np.float64 and out.aux.dtype == np.float64
        assert_array_equal(out.w, [2.0, 0.0])
        assert_array_equal(out.aux, [1.5, -1.0])
