"""Runs in worker processes: started, polled, cancelled; the server never waits on one.

Each run gets a :class:`concurrent.futures.ProcessPoolExecutor` of one worker
(started with ``spawn``, safe beside the server's threads). The worker's
process id is asked for first, so cancelling a run that has started ends
that process (``os.kill``), and the pool is dropped; a run not yet started is
simply cancelled. Progress comes back through a :class:`multiprocessing`
manager's dictionary, written by the worker's progress callback.
"""

from __future__ import annotations

import itertools
import multiprocessing
import os
import signal
import threading
from concurrent.futures import Future, ProcessPoolExecutor
from dataclasses import dataclass
from typing import Any, Callable

__all__ = ["Runs", "Run", "anonymize_job", "levels_job"]


def _progress_to(shared: Any, key: str) -> Callable[[int, int, str], None]:
    def report(done: int, total: int, text: str) -> None:
        try:
            shared[key] = {"done": int(done), "total": int(total), "text": str(text)}
        except Exception:       # the manager gone (server stopping): progress is optional
            pass
    return report


def anonymize_job(table: Any, schema: Any, params: dict[str, Any], shared: Any = None,
                  key: str = "") -> Any:
    """In a worker: :func:`kanon_graph.anonymize` with the page's parameters, and its views."""
    from ..api import anonymize

    from ._views import release_views

    progress = _progress_to(shared, key) if shared is not None else None
    result = anonymize(table, schema, progress=progress, **params)
    return result, release_views(result, table, schema, params)


def levels_job(table: Any, schema: Any, params: dict[str, Any], shared: Any = None,
               key: str = "") -> Any:
    """In a worker: :func:`kanon_graph.apply_levels` at one lattice node, checked."""
    from ..api import apply_levels
    from ._views import release_views

    result = apply_levels(table, schema, params["levels"], k=params.get("k", 1),
                          respect_boundaries=params.get("respect_boundaries", False),
                          missing=params.get("missing", "error"))
    return result, release_views(result, table, schema, params)


@dataclass
class Run:
    """One run: its parameters, its future, and what it became."""

    id: str
    params: dict[str, Any]
    kind: str
    future: Future | None = None
    pool: ProcessPoolExecutor | None = None
    pid_future: Future | None = None
    schema: Any = None
    state: str = "running"
    error: str | None = None
    result: Any = None
    views: Any = None
    lattice: Any = None
    parent: str | None = None


class Runs:
    """The session's runs, by id (``"1"``, ``"2"``, ...)."""

    def __init__(self) -> None:
        self._runs: dict[str, Run] = {}
        self._ids = itertools.count(1)
        self._lock = threading.Lock()
        self._context = multiprocessing.get_context("spawn")
        self._manager: Any = None

    def _shared(self) -> Any:
        with self._lock:                    # two first runs at once start one manager
            if self._manager is None:
                self._manager = self._context.Manager()
                self._progress = self._manager.dict()
            return self._progress

    def start(self, job: Callable[..., Any], table: Any, schema: Any, params: dict[str, Any],
              *, kind: str = "anonymize", parent: str | None = None) -> Run:
        """Submit ``job(table, schema, params)`` to a worker process of its own."""
        with self._lock:
            run = Run(id=str(next(self._ids)), params=dict(params), kind=kind, parent=parent,
                      schema=schema)
        shared = self._shared()
        run.pool = ProcessPoolExecutor(max_workers=1, mp_context=self._context)
        run.pid_future = run.pool.submit(os.getpid)      # the worker's pid, for cancel
        run.future = run.pool.submit(job, table, schema, params, shared, run.id)
        run.future.add_done_callback(lambda f, run=run: self._finished(run, f))
        self._runs[run.id] = run                 # known (and cancellable) once submitted
        return run

    def _finished(self, run: Run, future: Future) -> None:
        if run.state == "cancelled":
            return
        if future.cancelled():
            run.state = "cancelled"
        elif future.exception() is not None:
            exc = future.exception()
            run.state, run.error = "failed", " ".join(str(exc).split()) or type(exc).__name__
        else:
            run.result, run.views = future.result()
            run.lattice = run.views.pop("lattice", None)
            run.state = "done"
        if run.pool is not None:
            run.pool.shutdown(wait=False)

    def get(self, run_id: str) -> Run | None:
        """The run of ``run_id``, or None."""
        return self._runs.get(run_id)

    @staticmethod
    def pid(run: Run, timeout: float = 60) -> int | None:
        """The process id of the run's worker (None when it never started)."""
        if run.pid_future is None:
            return None
        try:
            return int(run.pid_future.result(timeout=timeout))
        except Exception:
            return None

    def progress(self, run_id: str) -> dict[str, Any] | None:
        """The latest progress a run reported, if any."""
        if self._manager is None:
            return None
        try:
            return dict(self._progress.get(run_id) or {}) or None
        except Exception:
            return None

    def cancel(self, run_id: str) -> Run | None:
        """Cancel a run: a waiting one is dropped, a working one's process ended."""
        run = self._runs.get(run_id)
        if run is None or run.state != "running":
            return run
        run.state = "cancelled"
        if run.future is not None and not run.future.cancel():
            pid = self.pid(run)
            if pid is not None:
                try:
                    os.kill(pid, signal.SIGTERM)
                except OSError:
                    pass
        if run.pool is not None:
            run.pool.shutdown(wait=False, cancel_futures=True)
        return run

    def close(self) -> None:
        """Cancel every run still working and stop the progress manager."""
        for run_id in list(self._runs):
            self.cancel(run_id)
        if self._manager is not None:
            self._manager.shutdown()
            self._manager = None
