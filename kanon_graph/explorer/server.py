"""Start the explorer: ``kg.explore(table, schema)`` from Python, ``kanon-graph explore`` from
the command line.

The server (uvicorn) binds 127.0.0.1 only and answers only requests that
carry the session's random token (:mod:`kanon_graph.explorer._guard`). From
Python it runs in a thread of its own and :func:`explore` returns at once an
:class:`Explorer`, whose repr (and ``_repr_html_`` in a notebook) is the link.
"""

from __future__ import annotations

import socket
import threading
import time
from typing import Any

from ._session import Session

__all__ = ["Explorer", "explore", "serve", "needs_extra", "free_port"]

HOST = "127.0.0.1"


def needs_extra() -> None:
    """Raise ImportError naming the extra when Starlette or uvicorn is missing."""
    try:
        import starlette  # noqa: F401
        import uvicorn  # noqa: F401
    except ImportError:
        raise ImportError("the explorer needs Starlette and uvicorn: "
                          "pip install 'kanon_graph[explore]'") from None


def free_port() -> int:
    """A port free on 127.0.0.1 now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((HOST, 0))
        return int(s.getsockname()[1])


def _check_host(host: str) -> None:
    if host != HOST:
        raise ValueError(f"The 'host' of the explorer must be {HOST} (it serves personal data "
                         f"to this machine only). Got {host!r}.")


class Explorer:
    """A running explorer: its URL (with the token), and :meth:`stop`."""

    def __init__(self, session: Session, port: int, server: Any, thread: Any) -> None:
        self.session = session
        self.port = port
        self._server = server
        self._thread = thread

    @property
    def url(self) -> str:
        """The page's address, token included: give it to no one."""
        return f"http://{HOST}:{self.port}/?token={self.session.token}"

    def wait(self) -> None:
        """Block until the server stops (Ctrl-C interrupts the wait)."""
        while self._thread is not None and self._thread.is_alive():
            self._thread.join(timeout=0.5)

    def stop(self) -> None:
        """Stop the server and every run still working."""
        self._server.should_exit = True
        if self._thread is not None:
            self._thread.join(timeout=10)
        self.session.runs.close()

    def __repr__(self) -> str:
        return f"kanon_graph explorer: {self.url}"

    def _repr_html_(self) -> str:
        from html import escape

        return (f'<a href="{escape(self.url)}" target="_blank" rel="noopener noreferrer">'
                f"Open the kanon_graph explorer</a> (this machine only; stop it with "
                f"<code>.stop()</code>)")


def serve(session: Session, *, port: int | None = None, host: str = HOST,
          background: bool = True) -> Explorer:
    """Serve ``session`` on ``host:port`` (a free port by default).

    With ``background`` the server runs in a daemon thread and this returns
    once it listens; otherwise it runs here until interrupted.
    """
    needs_extra()
    _check_host(host)
    import uvicorn

    from ._app import create_app

    port = free_port() if port is None else int(port)
    config = uvicorn.Config(create_app(session), host=HOST, port=port, log_level="warning",
                            access_log=False, lifespan="off")
    server = uvicorn.Server(config)
    if not background:
        explorer = Explorer(session, port, server, None)
        try:
            server.run()
        finally:
            session.runs.close()
        return explorer
    thread = threading.Thread(target=server.run, name=f"kanon_graph-explore-{port}", daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started and thread.is_alive() and time.monotonic() < deadline:
        time.sleep(0.05)
    if not server.started:
        raise OSError(f"the explorer could not listen on {HOST}:{port}")
    return Explorer(session, port, server, thread)


def explore(table: Any, schema: Any = None, *, hierarchies: Any = None, port: int | None = None,
            exports: Any = None, host: str = HOST) -> Explorer:
    """Open the explorer on ``table``: see and edit hierarchies, run, walk the lattice, compare.

    Parameters
    ----------
    table : DataFrame
    schema : Schema
        Its quasi-identifiers and sensitive attributes; its hierarchies are
        the trees the page starts from.
    hierarchies : path or dict, optional
        A folder of ARX-format hierarchy files (read for the quasi-identifiers
        that have no hierarchy in ``schema``; saving writes there), or a dict
        of hierarchies. Saving is off unless a folder is given.
    port : int, optional
        Default: a free port.
    exports : path, optional
        The folder under which releases are exported (export is off without it).
    host : str
        Only ``"127.0.0.1"`` is accepted.

    Returns
    -------
    Explorer
        Its repr is the link (``?token=...``, private to this session).

    Examples
    --------
    >>> import kanon_graph as kg
    >>> table = kg.datasets.make_census(500, seed=0)
    >>> ex = kg.explore(table, kg.datasets.census_schema())
    >>> ex.url.startswith("http://127.0.0.1:"), "?token=" in ex.url
    (True, True)
    >>> ex.stop()
    """
    needs_extra()
    _check_host(host)
    from dataclasses import replace
    from pathlib import Path

    from ..hierarchy import load_hierarchies
    from ..schema import Schema

    import pandas as pd

    if not isinstance(table, pd.DataFrame):
        raise TypeError(f"The 'table' parameter of explore must be a pandas DataFrame (the "
                        f"explorer keeps the table in memory). Got {type(table).__name__}.")
    missing = [c for c in list(getattr(schema, "quasi_identifiers", ())) +
               list(getattr(schema, "sensitive", ())) if c not in table.columns]
    if missing:
        raise ValueError(f"The 'schema' of explore names column(s) {missing} that the table "
                         f"does not have; it has {list(table.columns)}")
    if schema is None:
        raise ValueError("The 'schema' parameter of explore is required: "
                         "kg.Schema(quasi_identifiers=[...], sensitive=[...])")
    if not isinstance(schema, Schema):
        raise TypeError(f"The 'schema' parameter of explore must be a kg.Schema. "
                        f"Got {type(schema).__name__}.")
    folder, sources = None, {}
    if isinstance(hierarchies, dict):
        given = dict(hierarchies)
    elif hierarchies is not None:
        folder = Path(hierarchies)
        given = load_hierarchies(folder, columns=schema.quasi_identifiers, missing="ignore")
        sources = {qi: str(folder) for qi in given}
    else:
        given = {}
    merged = {**given, **dict(schema.hierarchies)}
    session = Session(table, replace(schema, hierarchies=merged), hierarchies_folder=folder,
                      exports_folder=exports, sources=sources)
    return serve(session, port=port)
