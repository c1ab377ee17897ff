"""A Dask client on a local cluster of its own, closed with it.

`distributed` closes only the clusters it starts itself: a client handed a `LocalCluster` leaves
it running when the client closes, and its worker processes end with the interpreter instead,
which leaves their semaphores to the resource tracker ("There appear to be N leaked semaphore
objects to clean up at shutdown" in a build's log). Here closing the client closes its cluster.
"""

from __future__ import annotations

import os
from typing import Any


def local_client(workers: int | None = None) -> Any:
    """A `distributed.Client` on a new local cluster of `workers` processes (default: the
    machine's cores), one thread each (the kernels are single-threaded), on loopback; closing
    the client (or leaving its ``with`` block) closes the cluster too."""
    from distributed import Client, LocalCluster

    class OwnClusterClient(Client):  # type: ignore[misc]
        def close(self, *args: Any, **kwargs: Any) -> Any:
            try:
                return super().close(*args, **kwargs)
            finally:
                self.cluster.close()

    cluster = LocalCluster(n_workers=workers or os.cpu_count() or 1, threads_per_worker=1,
                           processes=True, host="127.0.0.1", dashboard_address=":0")
    return OwnClusterClient(cluster)
