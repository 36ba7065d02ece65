"""Where Dask work runs: a LocalCluster by default, or an existing scheduler.

Dask (``dask[dataframe]`` and ``distributed``) is an optional extra
(``pip install "kanon_graph[dask]"``); every entry point that needs it calls
:func:`require_dask` first, so a missing extra is one clear line, never an
``ImportError`` from deep inside.
"""

from __future__ import annotations

import contextlib

__all__ = ["dask_available", "require_dask", "client_for", "DEFAULT_WORKERS"]

#: Workers of the LocalCluster started when no scheduler is given (a 2-core machine).
DEFAULT_WORKERS = 2
#: Memory limit of each LocalCluster worker.
WORKER_MEMORY = "4GiB"


def dask_available():
    """True when ``dask.dataframe`` and ``distributed`` can both be imported."""
    try:
        import dask.dataframe  # noqa: F401
        import distributed  # noqa: F401
    except ImportError:
        return False
    return True


def require_dask(what):
    """Raise a one-line ImportError naming ``what`` unless the Dask extra is installed."""
    if not dask_available():
        raise ImportError(f"{what} needs the optional Dask extra: "
                          f"pip install \"kanon_graph[dask]\"")


def _check_workers(workers, where):
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise ValueError(f"The 'workers' parameter of {where} must be a positive integer. "
                         f"Got {workers!r}.")
    return workers


@contextlib.contextmanager
def client_for(scheduler, *, workers=DEFAULT_WORKERS, where="kanon_graph", processes=True):
    """A ``distributed.Client`` for ``scheduler``, closed on exit when made here.

    Parameters
    ----------
    scheduler : None, str or distributed.Client
        ``None`` uses the Client current in this process if there is one,
        else starts a LocalCluster of ``workers`` single-threaded
        workers (``WORKER_MEMORY`` each) and shuts it down afterwards; a
        string is the address of a running scheduler
        (``"tcp://host:8786"``); a Client is used as it is and left open.
    workers : int
        Workers of the LocalCluster (ignored otherwise).
    where : str
        The public function to name in error messages.
    processes : bool
        LocalCluster workers in processes (default) or threads.

    Yields
    ------
    distributed.Client
    """
    require_dask(where)
    from distributed import Client, LocalCluster

    if isinstance(scheduler, Client):
        yield scheduler
        return
    if scheduler is not None and not isinstance(scheduler, str):
        raise ValueError(f"The 'scheduler' parameter of {where} must be None (a LocalCluster), "
                         f"a scheduler address such as 'tcp://host:8786' or a "
                         f"distributed.Client. Got {scheduler!r}.")
    if isinstance(scheduler, str):
        try:
            client = Client(scheduler, timeout="10s")
        except OSError as exc:
            raise ConnectionError(f"{where}: no Dask scheduler answers at {scheduler!r} "
                                  f"({exc})") from None
        with client:
            yield client
        return
    try:
        current = Client.current()
    except ValueError:
        current = None
    if current is not None:
        yield current
        return
    workers = _check_workers(workers, where)
    with LocalCluster(n_workers=workers, threads_per_worker=1, processes=processes,
                      memory_limit=WORKER_MEMORY, dashboard_address=":0") as cluster, \
            Client(cluster) as client:
        yield client


def worker_threads(client):
    """Total threads of the client's workers (tasks that can run at once)."""
    info = client.scheduler_info()
    return max(sum(w.get("nthreads", 1) for w in info.get("workers", {}).values()), 1)
