"""Results of tasks on a cluster that may lose its workers: gathered, or refused by name.

``Client.gather`` waits for ever. When every worker of a cluster dies (killed, out of
memory) the tasks wait in the scheduler's "no-worker" state until one joins, and one may
never join: on a LocalCluster of processes whose client process had imported scikit-learn,
the nannies' restarts of two workers killed mid-fit (``os._exit`` in a partition's task)
did not come back in 120 s, and the fit hung. A cluster with workers is waited on as long as
its tasks run (their time is the data's); one without any for :data:`NO_WORKERS_PATIENCE`
seconds ends the wait with an error that says so. Losing some of the workers is not an
error: the scheduler recomputes their partitions elsewhere (the placement's restrictions
are loose), and the fit goes on with the same results.
"""

from __future__ import annotations

import time

__all__ = ["NO_WORKERS_PATIENCE", "gather"]

NO_WORKERS_PATIENCE = 60.0
"""Seconds a wait tolerates a cluster without any worker, as a nanny restarts them (a
worker process starts in 1-12 s on a loaded machine, importing scikit-learn)."""

_POLL = 1.0  # seconds between looks at the cluster's workers while the tasks run


def gather(client, futures: list) -> list:
    """``client.gather(futures)``, or RuntimeError once the cluster has had no worker for
    :data:`NO_WORKERS_PATIENCE` seconds while they wait.

    A task's own error (a KilledWorker among them) is raised as ``gather`` raises it.
    """
    from distributed import wait

    since = None
    while True:
        try:
            wait(futures, timeout=_POLL)
            return client.gather(futures)
        except TimeoutError:
            pass
        if client.scheduler_info(n_workers=-1).get("workers"):
            since = None
            continue
        since = time.monotonic() if since is None else since
        if time.monotonic() - since > NO_WORKERS_PATIENCE:
            raise RuntimeError(
                f"the Dask cluster ({client.scheduler.address}) has had no worker for "
                f"{NO_WORKERS_PATIENCE:g} s while {len(futures)} task(s) waited for one: its "
                "workers died (killed, or out of memory) and none came back. Restart the "
                "cluster, or add workers, and run again.")
