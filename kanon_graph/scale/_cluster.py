"""Where Dask work runs: the user's scheduler, threads in this process otherwise.

``scheduler=None`` uses the ``distributed.Client`` current in the process
(one the user opened, or ``dask.config``'s ``scheduler`` set to a Client);
otherwise the work runs on threads inside this process (an in-process
scheduler: no worker processes, so a script needs no ``__main__`` guard and
no memory limit is imposed), one thread per core unless ``dask.config``'s
``scheduler`` is ``"sync"`` / ``"single-threaded"`` / ``"synchronous"``
(one thread) or ``num_workers`` is set. A LocalCluster of worker processes
starts only when asked: ``scheduler="local"`` (``--scheduler local``).

Dask (``dask[dataframe]`` and ``distributed``) is an optional extra
(``pip install "kanon_graph[dask]"``); every entry point that needs it calls
:func:`require_dask` first, so a missing extra is one clear line, never an
``ImportError`` from deep inside.
"""

from __future__ import annotations

import contextlib
import os

__all__ = ["dask_available", "require_dask", "client_for", "machine_cores", "DEFAULT_WORKERS"]


def machine_cores():
    """The cores this process may run on: its CPU affinity where the system says, else all.

    Examples
    --------
    >>> machine_cores() >= 1
    True
    """
    try:
        return max(len(os.sched_getaffinity(0)), 1)
    except (AttributeError, OSError):      # no affinity on this system (macOS, Windows)
        return max(os.cpu_count() or 1, 1)


#: Workers of the LocalCluster started for ``scheduler="local"``: one per core of the machine.
DEFAULT_WORKERS = machine_cores()
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


def _threads():
    """Threads of the in-process scheduler: what ``dask.config`` says, else one per core."""
    import dask

    configured = dask.config.get("scheduler", None)
    if configured in ("sync", "synchronous", "single-threaded"):
        return 1
    workers = dask.config.get("num_workers", None)
    if isinstance(workers, int) and not isinstance(workers, bool) and workers > 0:
        return workers
    return machine_cores()


def _configured_client():
    """A Client ``dask.config``'s ``scheduler`` names (a Client object), else None."""
    import dask
    from distributed import Client

    configured = dask.config.get("scheduler", None)
    return configured if isinstance(configured, Client) else None


@contextlib.contextmanager
def client_for(scheduler, *, workers=DEFAULT_WORKERS, where="kanon_graph", processes=True):
    """A ``distributed.Client`` for ``scheduler``, closed on exit when made here.

    Parameters
    ----------
    scheduler : None, "local", str or distributed.Client
        ``None``: the Client current in this process (or set as
        ``dask.config``'s ``scheduler``) if there is one, else threads in
        this process (see the module docstring); ``"local"``: start a
        LocalCluster of ``workers`` single-threaded worker processes
        (``WORKER_MEMORY`` each) and shut it down afterwards; another string
        is the address of a running scheduler (``"tcp://host:8786"``); a
        Client is used as it is and left open.
    workers : int
        Workers of the LocalCluster (``"local"`` only).
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
        raise ValueError(f"The 'scheduler' parameter of {where} must be None (the current "
                         f"Client, else threads here), 'local' (a LocalCluster), a scheduler "
                         f"address such as 'tcp://host:8786' or a distributed.Client. Got "
                         f"{scheduler!r}.")
    if scheduler == "local":
        workers = _check_workers(workers, where)
        with LocalCluster(n_workers=workers, threads_per_worker=1, processes=processes,
                          memory_limit=WORKER_MEMORY, dashboard_address=":0") as cluster, \
                Client(cluster) as client:
            yield client
        return
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
        current = _configured_client()
    if current is not None:
        yield current
        return
    # threads in this process: no worker processes to spawn, no memory limit imposed
    with LocalCluster(n_workers=1, threads_per_worker=_threads(), processes=False,
                      memory_limit=0, dashboard_address=None) as cluster, \
            Client(cluster) as client:
        yield client


def worker_threads(client):
    """Total threads of the client's workers (tasks that can run at once)."""
    info = client.scheduler_info()
    return max(sum(w.get("nthreads", 1) for w in info.get("workers", {}).values()), 1)
