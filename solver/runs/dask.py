"""The one Dask client helper of the long builds (the Dudo match, the hold'em bot).

`distributed` is imported when a client is made, not with this module: it takes about a second
to import and most commands never need it.
"""

from __future__ import annotations

import os
from typing import Any


def dask_client(scheduler: str | None = None, workers: int | None = None) -> Any:
    """A `distributed.Client`: on the cluster of `scheduler` (``tcp://host:8786``) if given,
    else on a new local cluster of `workers` processes (default: the machine's cores), one
    thread each (the kernels are single-threaded), on loopback, its dashboard on a free port."""
    from distributed import Client, LocalCluster  # heavy: imported only to make a client

    if scheduler:
        return Client(scheduler)
    cluster = LocalCluster(n_workers=workers or os.cpu_count() or 1, threads_per_worker=1,
                           processes=True, host="127.0.0.1", dashboard_address=":0")
    return Client(cluster)
