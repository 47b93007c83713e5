"""The epoch driver: the order of each pass, the convergence rule, progress, bad rows."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from numpy.testing import assert_array_equal

from halfspaces._perceptron.epochs import CYCLIC, Epochs, non_finite_row_error, run_epochs
from halfspaces._utils.progress import listen


class Passes:
    """A stand-in for a compiled loop: returns the given update counts, records each order."""

    def __init__(self, *updates):
        self.updates, self.orders = list(updates), []

    def __call__(self, order):
        self.orders.append(order.copy())
        return self.updates[len(self.orders) - 1]


def drive(passes, n=5, max_epochs=10, **kwargs):
    heard = []
    with listen(lambda done, total: heard.append((done, total))):
        epochs = run_epochs(passes, n, max_epochs=max_epochs, bad_row=IndexError, **kwargs)
    return epochs, heard


def test_stops_after_the_first_pass_with_no_update():
    passes = Passes(3, 1, 0, 2)
    epochs, heard = drive(passes)
    assert epochs == Epochs(n_updates=4, n_epochs=3, converged=True)
    assert heard == [(1, 10), (2, 10), (3, 10)]
    assert len(passes.orders) == 3


def test_runs_out_of_epochs_without_converging():
    epochs, heard = drive(Passes(2, 1, 1), max_epochs=3)
    assert epochs == Epochs(n_updates=4, n_epochs=3, converged=False)
    assert heard == [(1, 3), (2, 3), (3, 3)]


def test_cyclic_passes_get_the_empty_order():
    passes = Passes(1, 1, 0)
    drive(passes, selection="cyclic")
    assert all(order.shape == (0,) and order.dtype == np.int64 for order in passes.orders)
    assert CYCLIC.shape == (0,) and CYCLIC.dtype == np.int64


def test_shuffle_draws_one_permutation_per_pass_before_it():
    passes = Passes(2, 2, 2, 0)
    drive(passes, n=7, selection="shuffle", rng=np.random.RandomState(4))
    twin = np.random.RandomState(4)
    assert len(passes.orders) == 4
    for order in passes.orders:
        assert_array_equal(order, twin.permutation(7))


def test_worst_draws_nothing_and_converges_below_n_updates():
    rng = np.random.RandomState(0)
    state = rng.get_state()[1].copy()
    passes = Passes(5, 5, 3, 0)
    epochs, heard = drive(passes, n=5, selection="worst", rng=rng)
    assert epochs == Epochs(n_updates=13, n_epochs=3, converged=True)  # 3 < n: converged
    assert len(heard) == 3
    assert_array_equal(rng.get_state()[1], state)
    epochs, _ = drive(Passes(5, 5), n=5, max_epochs=2, selection="worst")
    assert not epochs.converged  # n updates: the budget ran out, margins unknown


def test_a_bad_row_raises_the_runs_error_and_stops():
    passes = Passes(2, -1 - 6, 0)
    with pytest.raises(IndexError, match="^6$"):
        drive(passes)
    assert len(passes.orders) == 2


def test_no_epoch_when_max_epochs_is_zero():
    epochs, heard = drive(Passes(), max_epochs=0)
    assert epochs == Epochs(0, 0, False) and heard == []


@pytest.mark.parametrize("sparse", [False, True])
def test_non_finite_row_error_tells_bad_data_from_overflow(sparse):
    X = np.array([[1.0, 2.0], [np.nan, 0.0], [1e300, -3e300]])
    X = sp.csr_matrix(X) if sparse else X
    assert "NaN or infinity (row 1)" in str(non_finite_row_error(X, 1))
    message = str(non_finite_row_error(X, 2))
    assert "row 2 overflowed" in message and "3e+300" in message and "rescale X" in message
