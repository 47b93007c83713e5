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

import threading
import time

__all__ = ["NO_WORKERS_PATIENCE", "gather"]

NO_WORKERS_PATIENCE = 60.0
"""Seconds a wait tolerates a cluster without any worker, as a nanny restarts them (a
worker process starts in 1-12 s on a loaded machine, importing scikit-learn)."""

_POLL = 1.0  # seconds between looks at the cluster's workers while the tasks run


def gather(client, futures: list) -> list:
    """``client.gather(futures)``, or RuntimeError once the cluster has had no worker for
    :data:`NO_WORKERS_PATIENCE` seconds while they wait.

    A thread watches the cluster and cancels the futures then; the gather itself is the
    plain one (a ``wait`` with a timeout before it added a round trip: 20 ms per empty pass
    over 8 partitions where the plain gather takes 13 ms). A task's own error (a
    KilledWorker among them) is raised as ``gather`` raises it.
    """
    lost, finished = threading.Event(), threading.Event()
    watcher = threading.Thread(target=_watch, args=(client, futures, lost, finished),
                               daemon=True, name="halfspaces-dask-workers")
    watcher.start()
    try:
        return client.gather(futures)
    except BaseException:
        if lost.is_set():  # the futures were cancelled here: say why
            raise RuntimeError(
                f"the Dask cluster ({client.scheduler.address}) has had no worker for "
                f"{NO_WORKERS_PATIENCE:g} s while {len(futures)} task(s) waited for one: its "
                "workers died (killed, or out of memory) and none came back. Restart the "
                "cluster, or add workers, and run again.") from None
        raise
    finally:
        finished.set()


def _watch(client, futures: list, lost: threading.Event, finished: threading.Event) -> None:
    """Until `finished`: cancel `futures`, and set `lost`, once the cluster has had no worker
    for :data:`NO_WORKERS_PATIENCE` seconds."""
    since = None
    while not finished.wait(_POLL):
        try:
            workers = client.scheduler_info(n_workers=-1).get("workers")
        except Exception:  # noqa: BLE001 - a closing client: the gather reports it
            return
        if workers:
            since = None
            continue
        since = time.monotonic() if since is None else since
        if time.monotonic() - since > NO_WORKERS_PATIENCE:
            lost.set()
            client.cancel(futures)
            return
