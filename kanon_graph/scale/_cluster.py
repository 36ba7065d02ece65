"""Where Dask work runs: the user's scheduler, threads in this process otherwise.

``scheduler=None`` uses the ``distributed.Client`` current in the process
(one the user opened, or ``dask.config``'s ``scheduler`` set to a Client);
otherwise the work runs on threads inside this process (an in-process
scheduler: no worker processes, so a script needs no ``__main__`` guard and
no memory limit is imposed), one thread per core unless ``dask.config``'s
``scheduler`` is ``"sync"`` / ``"single-threaded"`` / ``"synchronous"``
(one thread) or ``num_workers`` is set. A LocalCluster of worker processes
starts only when asked: ``scheduler="local"`` (``--scheduler local``).

A Dask table's own tasks (counting its partitions, checking its release) go
through :func:`runner_for` and :func:`compute_all`: with no Client there,
they run on dask's local threaded scheduler, with no cluster at all (no
start-up, no per-task messages); :func:`client_for`'s in-process cluster of
threads serves the work that needs a Client's futures (shards,
``rv-distributed``'s subsets, ``kg.evaluate`` on Dask).

Dask (``dask[dataframe]`` and ``distributed``) is an optional extra
(``pip install "kanon_graph[dask]"``); every entry point that needs it calls
:func:`require_dask` first, so a missing extra is one clear line, never an
``ImportError`` from deep inside.
"""

from __future__ import annotations

import contextlib
import os

__all__ = ["dask_available", "require_dask", "client_for", "runner_for", "compute_all",
           "quiet_graphs", "machine_cores", "DEFAULT_WORKERS"]


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


@contextlib.contextmanager
def runner_for(scheduler, *, where="kanon_graph"):
    """What runs a Dask table's tasks: a Client, or None for dask's own threads here.

    As :func:`client_for`, except that with ``scheduler=None`` and no Client
    current (or configured) nothing is started: the tasks run on dask's
    local threaded scheduler in this process (``None`` is yielded), which
    costs no cluster start and no per-task messages. Hand what it yields
    to :func:`compute_all`.
    """
    require_dask(where)
    if scheduler is None:
        from distributed import Client

        try:
            current = Client.current()
        except ValueError:
            current = _configured_client()
        if current is None:
            yield None
            return
        scheduler = current
    with client_for(scheduler, where=where) as client:
        yield client


@contextlib.contextmanager
def quiet_graphs():
    """Keep distributed's "Sending large graph" warning to itself while tasks are sent.

    A Dask release's tasks share one payload (the counted tuples' released
    labels), put once in the graph; a Client warns when a graph is large,
    advice meant for a user who embeds data by accident, not for this.
    """
    import warnings

    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="Sending large graph")
        yield


def compute_all(client, tasks, progress=None, text="partition"):
    """The results of ``tasks`` (dask delayed objects), in their order.

    Parameters
    ----------
    client : distributed.Client or None
        Where they run; ``None``: dask's threaded scheduler in this process
        (one thread per core, or what ``dask.config`` says, as :func:`client_for`).
    tasks : list of dask.delayed.Delayed
    progress : callable, optional
        ``progress(done, total, text)`` as each task finishes.
    text : str
        What a task is, for ``progress``'s text.
    """
    import dask

    tasks = list(tasks)
    total = len(tasks)

    def tick(done):
        if progress is not None:
            progress(done, total, f"{text} {done}/{total}")

    if client is not None:
        from distributed import as_completed

        with quiet_graphs():
            futures = client.compute(tasks)
        position = {future.key: i for i, future in enumerate(futures)}
        results = [None] * total
        for done, future in enumerate(as_completed(futures), start=1):
            results[position[future.key]] = future.result()
            tick(done)
        return results
    threads = _threads()
    options = {"scheduler": "sync"} if threads == 1 else {"scheduler": "threads",
                                                           "num_workers": threads}
    if progress is None:
        return list(dask.compute(*tasks, **options))
    from dask.callbacks import Callback

    wanted, done = {t.key for t in tasks}, []

    class _Ticks(Callback):
        def _posttask(self, key, result, dsk, state, worker_id):
            if key in wanted:
                done.append(key)
                tick(len(done))

    with _Ticks():
        return list(dask.compute(*tasks, **options))


def worker_threads(client):
    """Total threads of the client's workers (tasks that can run at once)."""
    info = client.scheduler_info()
    return max(sum(w.get("nthreads", 1) for w in info.get("workers", {}).values()), 1)
