"""Long loops report their progress to a listener: epochs and solver iterations."""

from __future__ import annotations

import warnings

import pytest
from _datasets import noisy

from halfspaces import (
    KernelPerceptron,
    LogisticRegression,
    MulticlassPerceptron,
    Perceptron,
    PocketPerceptron,
    VotedKernelPerceptron,
)
from halfspaces._utils.progress import listen, report


def heard_during(fit):
    heard = []
    with warnings.catch_warnings(), listen(lambda done, total: heard.append((done, total))):
        warnings.simplefilter("ignore")
        estimator = fit()
    return estimator, heard


@pytest.mark.parametrize("cls", [Perceptron, PocketPerceptron, KernelPerceptron,
                                 VotedKernelPerceptron, MulticlassPerceptron])
def test_epoch_loops_report_every_epoch(cls):
    X, y = noisy(60, 3, seed=0, flip=0.2)
    estimator, heard = heard_during(lambda: cls(max_epochs=4).fit(X, y))
    assert heard == [(epoch, 4) for epoch in range(1, estimator.n_epochs_ + 1)]


@pytest.mark.parametrize("solver", ["lbfgs", "newton", "gd", "sgd", "minibatch"])
def test_solvers_report_every_iteration(solver):
    X, y = noisy(80, 3, seed=1)
    estimator, heard = heard_during(
        lambda: LogisticRegression(solver=solver, alpha=0.1, max_iter=15).fit(X, y))
    assert heard and [done for done, _ in heard] == list(range(1, len(heard) + 1))
    assert all(total == 15 for _, total in heard)
    assert len(heard) == len(estimator.loss_curve_) - 1


def test_no_listener_no_effect_and_listeners_nest():
    report(1, 2)  # nobody listens: nothing happens
    outer, inner = [], []
    with listen(lambda *a: outer.append(a)):
        with listen(lambda *a: inner.append(a)):
            report(1, 3)
        report(2, 3)
    assert inner == [(1, 3)] and outer == [(2, 3)]
