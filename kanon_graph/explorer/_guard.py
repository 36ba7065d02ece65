"""The explorer's door: the token, the host, the origin, and the static folder.

It serves personal data, so every request must carry the session's token
(``?token=T`` or the header ``X-Token: T``); the page's own scripts and
styles, which the browser fetches without headers, may carry it in the
cookie ``GET /?token=T`` sets (HttpOnly, SameSite=Strict, this port only),
and only for ``/`` and ``/static/``. A request whose ``Host`` is not this
machine's loopback name (DNS rebinding), or that comes from another origin
(an ``Origin`` header of another site, ``Sec-Fetch-Site: cross-site`` or
``same-site``), is refused whatever it carries; the one exception is a click on
the link itself (``GET /``, ``Sec-Fetch-Mode: navigate``: a notebook's link to
the page), which still needs the token.
"""

from __future__ import annotations

import secrets
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs

__all__ = ["TokenGuard", "static_file", "STATIC", "LOOPBACK_HOSTS"]

#: The folder of the page's own files, inside the package.
STATIC = Path(__file__).resolve().parent / "static"

#: Host names the server answers to (it binds 127.0.0.1 only).
LOOPBACK_HOSTS = ("127.0.0.1", "localhost")

REFUSED = b"forbidden: this explorer needs its token (the link it printed, ?token=...)"


def cookie_name(port: Any) -> str:
    """The token cookie of the explorer on ``port`` (several may run side by side)."""
    return f"kanon_graph_token_{port}"


def static_file(name: str) -> Path | None:
    """The file ``name`` of the static folder, or None for anything else.

    Refused: ``..`` anywhere, an absolute path, a backslash, a folder (no
    listing), a hidden file, and a path that leaves the folder once resolved
    (a link pointing out).
    """
    if not name or "\x00" in name or "\\" in name or name.startswith("/"):
        return None
    parts = name.split("/")
    if any(part in ("", ".", "..") or part.startswith(".") for part in parts):
        return None
    path = (STATIC / name).resolve()
    if STATIC not in path.parents or not path.is_file():
        return None
    return path


class TokenGuard:
    """ASGI middleware: refuse (403) any request without the token, or from elsewhere."""

    def __init__(self, app: Any, token: str, *, hosts: tuple[str, ...] = LOOPBACK_HOSTS) -> None:
        self.app = app
        self.token = token
        self.hosts = hosts

    def _allowed(self, scope: dict[str, Any]) -> bool:
        headers = {k.decode("latin-1").lower(): v.decode("latin-1")
                   for k, v in scope.get("headers", [])}
        host = headers.get("host", "")
        hostname = host.rsplit(":", 1)[0] if not host.startswith("[") else host
        if hostname not in self.hosts:
            return False
        origin = headers.get("origin")
        if origin is not None and origin.rstrip("/") != f"{scope.get('scheme', 'http')}://{host}":
            return False
        if headers.get("sec-fetch-site", "same-origin") not in ("same-origin", "none"):
            # only a click on the link (a notebook's, say) may come from elsewhere: it
            # shows the page to the person who clicked, and gives the other site nothing
            navigation = (scope.get("method") == "GET" and scope.get("path") == "/"
                          and headers.get("sec-fetch-mode") == "navigate")
            if not navigation:
                return False
        given = headers.get("x-token")
        if given is None:
            query = parse_qs(scope.get("query_string", b"").decode("latin-1"))
            given = (query.get("token") or [None])[0]
        path = scope.get("path", "")
        if given is None and (path == "/" or path.startswith("/static/")):
            port = host.rsplit(":", 1)[1] if ":" in host else ""
            given = _cookie(headers.get("cookie", ""), cookie_name(port))
        return given is not None and secrets.compare_digest(given.encode(), self.token.encode())

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] not in ("http", "websocket") or self._allowed(scope):
            await self.app(scope, receive, send)
            return
        if scope["type"] == "websocket":
            await send({"type": "websocket.close", "code": 1008})
            return
        await send({"type": "http.response.start", "status": 403,
                    "headers": [(b"content-type", b"text/plain; charset=utf-8"),
                                (b"content-length", str(len(REFUSED)).encode()),
                                (b"referrer-policy", b"no-referrer"),
                                (b"cache-control", b"no-store"),
                                (b"x-content-type-options", b"nosniff")]})
        await send({"type": "http.response.body", "body": REFUSED})


def _cookie(header: str, name: str) -> str | None:
    for part in header.split(";"):
        key, _, value = part.strip().partition("=")
        if key == name:
            return value
    return None
