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

from halfspaces._perceptron.run import (
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
