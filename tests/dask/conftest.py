"""The Dask tests' cluster: two in-process single-threaded workers per test module."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="module")
def client():
    """The default client of a module's tests (a test that needs other workers makes its own)."""
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=2, processes=False, threads_per_worker=1,
                                  dashboard_address=":0") as cluster, \
            distributed.Client(cluster) as c:
        yield c
