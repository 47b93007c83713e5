"""A Dask fit whose workers die mid-fit: a correct retry, or a clear error, never a hang.

Losing some workers is survived: the scheduler recomputes their partitions elsewhere, and the
fit is the one an intact cluster gives (the oracle: the same fit on a cluster that lost
nothing). A cluster left without any worker ends the wait with an error naming the cause
once it has had none for ``NO_WORKERS_PATIENCE`` seconds (patched small here). Every fit runs
under a generous timeout that only turns a hang into a failure.
"""

from __future__ import annotations

import os
import re
import signal
import threading

import numpy as np
import pytest

pytest.importorskip("distributed")

from _datasets import noisy  # noqa: E402
from distributed import Client, LocalCluster  # noqa: E402

from halfspaces import dask as hd  # noqa: E402
from halfspaces._utils.progress import listen  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore::halfspaces.ConvergenceWarning")

HANG = 240  # seconds: beyond this a fit is taken to hang (it takes a few seconds)
NO_WORKERS = r"has had no worker for 3 s while \d+ task\(s\) waited for one: its workers died"


def bounded(fit):
    """fit()'s result (or its exception), failing the test if it has not ended in HANG s."""
    outcome: dict = {}

    def run():
        try:
            outcome["value"] = fit()
        except Exception as exc:  # noqa: BLE001 - handed to the test
            outcome["error"] = exc

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(HANG)
    assert not thread.is_alive(), f"the fit did not end in {HANG} s"
    return outcome


def blocks(client):
    X, y = noisy(400, 3, seed=8, flip=0.1)
    return hd.Partitions.from_collections(*_as_dask(X, y), client=client)


def _as_dask(X, y):
    import dask.array as da

    return da.from_array(X, chunks=(100, 3)), da.from_array(y, chunks=100)


def fit(parts, on_epoch=None):
    with listen(on_epoch or (lambda done, total: None)):
        return hd.Perceptron(max_epochs=6).fit(parts)


@pytest.fixture
def processes():
    with LocalCluster(n_workers=2, processes=True, threads_per_worker=1,
                      dashboard_address=":0", silence_logs=50) as cluster, \
            Client(cluster) as client:
        client.wait_for_workers(2)
        yield client


@pytest.fixture
def patience(monkeypatch):
    monkeypatch.setattr("halfspaces.dask._gather.NO_WORKERS_PATIENCE", 3.0)


def test_a_worker_killed_between_epochs_is_recomputed_and_the_fit_is_the_same(processes):
    parts = blocks(processes)
    expected = fit(parts)
    pids, killed = processes.run(os.getpid), []
    victim = parts.workers[0]

    def kill_at_the_second_epoch(done, total):
        if done == 2 and not killed:
            os.kill(pids[victim], signal.SIGKILL)
            killed.append(victim)

    outcome = bounded(lambda: fit(parts, kill_at_the_second_epoch))
    assert "error" not in outcome, outcome.get("error")
    assert killed == [victim]
    model = outcome["value"]
    np.testing.assert_array_equal(model.coef_, expected.coef_)
    np.testing.assert_array_equal(model.intercept_, expected.intercept_)
    np.testing.assert_array_equal(model.mistakes_, expected.mistakes_)


def test_a_cluster_without_workers_is_named_not_waited_on(patience):
    # the guard itself: a task on a scheduler that has no worker (and gets none)
    from halfspaces.dask._gather import gather

    with LocalCluster(n_workers=0, processes=False, dashboard_address=":0") as cluster, \
            Client(cluster) as client:
        future = client.submit(sum, [1, 2])
        outcome = bounded(lambda: gather(client, [future]))
    assert isinstance(outcome.get("error"), RuntimeError), outcome
    assert re.search(NO_WORKERS.replace(r"\d+", "1"), str(outcome["error"]))
