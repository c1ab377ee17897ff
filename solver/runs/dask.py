"""The one Dask client helper of the long builds (the Dudo match, the hold'em bot).

`distributed` is imported when a client is made, not with this module: it takes about a second
to import and most commands never need it.

`distributed` closes only the clusters it starts itself: a client handed a `LocalCluster` leaves
it running when the client closes, and its worker processes end with the interpreter instead,
which leaves their semaphores to the resource tracker ("There appear to be N leaked semaphore
objects to clean up at shutdown" in a build's log). The client made here on a local cluster
closes its cluster when it closes.

The local cluster's workers do not report to a background build's status file: they inherit the
driver's environment, and a worker's bar (its hand buckets, loaded as its first task starts)
would overwrite the step the driver is at, which is the only one the lobby should show.
"""

from __future__ import annotations

import os
from typing import Any

from solver.engine.progress import STATUS_ENV


def dask_client(scheduler: str | None = None, workers: int | None = None) -> Any:
    """A `distributed.Client`: on the cluster of `scheduler` (``tcp://host:8786``) if given,
    else on a new local cluster of `workers` processes (default: the machine's cores), one
    thread each (the kernels are single-threaded), on loopback, its dashboard on a free port,
    its workers silent in the status file;
    closing that client (or leaving its ``with`` block) closes its cluster too."""
    from distributed import Client, LocalCluster  # heavy: imported only to make a client

    if scheduler:
        return Client(scheduler)

    class OwnClusterClient(Client):
        def close(self, *args: Any, **kwargs: Any) -> Any:
            try:
                return super().close(*args, **kwargs)  # type: ignore[no-untyped-call]
            finally:
                if self.cluster is not None:
                    self.cluster.close()

    cluster = LocalCluster(n_workers=workers or os.cpu_count() or 1, threads_per_worker=1,
                           processes=True, host="127.0.0.1", dashboard_address=":0",
                           env={STATUS_ENV: ""})
    return OwnClusterClient(cluster)  # type: ignore[no-untyped-call]
