"""The explorer's HTTP API (Starlette): routes over a :class:`~._session.Session`.

Every endpoint is a plain function, which Starlette runs in its thread pool:
the event loop never waits on a view, and runs go to worker processes
(:mod:`._runs`). The API is documented in ``docs/reference/explore-api.md``.
"""

from __future__ import annotations

from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import FileResponse, HTMLResponse, JSONResponse, Response
from starlette.routing import Route

from ..exceptions import HierarchyError
from ._guard import LOOPBACK_HOSTS, TokenGuard, cookie_name, static_file
from ._lattice import lattice_view
from ._session import Session
from ._trees import drafted, edited

__all__ = ["create_app"]

#: Headers on every answer: no referrer (the token is in the URL), nothing from elsewhere.
SECURITY_HEADERS = {
    "Referrer-Policy": "no-referrer",
    "X-Content-Type-Options": "nosniff",
    "Cache-Control": "no-store",
    "Content-Security-Policy": ("default-src 'self'; script-src 'self' 'unsafe-inline'; "
                                "style-src 'self' 'unsafe-inline'; img-src 'self' data:; "
                                "connect-src 'self'; frame-ancestors 'none'"),
}

FALLBACK_PAGE = ("<!doctype html><meta charset=utf-8><title>kanon_graph explorer</title>"
                 "<p>The explorer's page is not installed; the API answers under /api/.")

#: The run parameters the API passes to :func:`kanon_graph.anonymize`.
RUN_KEYS = ("k", "l", "t", "suppression", "algorithm", "diversity", "c", "sensitive",
            "respect_boundaries", "missing", "seed")


def _error(message: Any, status: int = 400) -> JSONResponse:
    return JSONResponse({"error": " ".join(str(message).split())}, status_code=status)


def _secured(response: Response) -> Response:
    for key, value in SECURITY_HEADERS.items():
        response.headers.setdefault(key, value)
    return response


def _body(request: Request) -> dict[str, Any]:
    import json

    raw = request.scope.get("_body")
    try:
        data = json.loads(raw) if raw else {}
    except ValueError:
        raise ValueError("the request body must be JSON") from None
    if not isinstance(data, dict):
        raise ValueError("the request body must be a JSON object")
    return data


def create_app(session: Session, *, hosts: tuple[str, ...] = LOOPBACK_HOSTS) -> Any:
    """The ASGI app serving ``session``, behind its token guard."""

    def page(request: Request) -> Response:
        path = static_file("index.html")
        response = FileResponse(path) if path else HTMLResponse(FALLBACK_PAGE)
        token = request.query_params.get("token")
        if token:
            response.set_cookie(cookie_name(request.url.port or ""), token, httponly=True,
                                samesite="strict", path="/")
        return _secured(response)

    def static(request: Request) -> Response:
        path = static_file(request.path_params["file"])
        if path is None:
            return _secured(Response("not found", status_code=404, media_type="text/plain"))
        return _secured(FileResponse(path))

    def describe(request: Request) -> Response:
        return _secured(JSONResponse(session.describe()))

    def hierarchy(request: Request) -> Response:
        qi = request.path_params["qi"]
        try:
            tree = session.tree(qi)
        except KeyError as exc:
            return _secured(_error(exc.args[0], 404))
        return _secured(JSONResponse(tree))

    def edit(request: Request) -> Response:
        qi, action = request.path_params["qi"], request.path_params["action"]
        if action not in ("edit", "draft", "save"):
            return _secured(_error(f"no such action {action!r}: edit, draft or save", 404))
        try:
            body = _body(request)
            with session.lock:                  # one edit at a time, each on the latest tree
                if action == "edit":
                    new = edited(qi, session.hierarchy(qi), body)
                    session.replace_hierarchy(qi, new, "edited")
                elif action == "draft":
                    if qi not in session.qis:
                        raise KeyError(f"{qi!r} is not a quasi-identifier; they are "
                                       f"{session.qis}")
                    new = drafted(qi, session.table[qi], session.schema, body)
                    session.replace_hierarchy(qi, new, f"draft: {body.get('from')}")
                else:
                    return _secured(JSONResponse({"path": str(session.save(qi))}))
        except KeyError as exc:
            return _secured(_error(exc.args[0], 404))
        except PermissionError as exc:
            return _secured(_error(exc, 403))
        except (HierarchyError, ValueError, TypeError) as exc:
            return _secured(_error(exc))
        return hierarchy(request)

    def run(request: Request) -> Response:
        from ._runs import anonymize_job

        try:
            params = _run_params(_body(request), session)
        except ValueError as exc:
            return _secured(_error(exc))
        started = session.runs.start(anonymize_job, session.table, session.current_schema(),
                                     params)
        return _secured(JSONResponse({"run": started.id}))

    def run_state(request: Request) -> Response:
        found = session.runs.get(request.path_params["id"])
        if found is None:
            return _secured(_error(f"no run {request.path_params['id']!r}", 404))
        action = request.path_params.get("action")
        if action is not None and action != "cancel":
            return _secured(_error(f"no such action {action!r}: cancel", 404))
        if action == "cancel":
            session.runs.cancel(found.id)
        answer: dict[str, Any] = {"run": found.id, "state": found.state, "kind": found.kind,
                                  "params": found.params}
        progress = session.runs.progress(found.id) if found.state == "running" else None
        if progress:
            answer["progress"] = progress
        if found.error:
            answer["error"] = found.error
        if found.state == "done":
            from ._views import summary_of

            answer["summary"] = summary_of(found.views)
        return _secured(JSONResponse(answer))

    def release(request: Request) -> Response:
        found = _done(session, request.path_params["id"])
        if isinstance(found, Response):
            return found
        return _secured(JSONResponse(found.views))

    def lattice(request: Request) -> Response:
        found = _done(session, request.path_params["id"])
        if isinstance(found, Response):
            return found
        node = request.path_params.get("node")
        if node is None:
            return _secured(JSONResponse(lattice_view(session, found)))
        from ._runs import levels_job

        try:
            levels = [int(v) for v in node.split("-")]
            names = list((found.lattice or {}).get("names") or [])
            if len(levels) != len(names):
                raise ValueError(f"node {node!r} needs {len(names)} levels joined by '-'")
        except ValueError as exc:
            return _secured(_error(exc))
        # the node's release is checked for the run's own criteria (k, and l, t if asked)
        params = {"levels": dict(zip(names, levels)), "k": found.params.get("k", 1),
                  **{key: found.params[key] for key in ("l", "t", "diversity", "c", "sensitive")
                     if found.params.get(key) is not None}}
        # the node's levels are levels of the hierarchies the release was made with
        started = session.runs.start(levels_job, session.table, found.schema, params,
                                     kind="lattice node", parent=found.id)
        return _secured(JSONResponse({"run": started.id}))

    def compare(request: Request) -> Response:
        out = {}
        if not request.query_params.get("a") or not request.query_params.get("b"):
            return _secured(_error("compare needs two releases: /api/compare?a=ID&b=ID"))
        for key in ("a", "b"):
            found = _done(session, request.query_params.get(key, ""))
            if isinstance(found, Response):
                return found
            out[key] = found.views
        return _secured(JSONResponse(out))

    def export(request: Request) -> Response:
        found = _done(session, request.path_params["id"])
        if isinstance(found, Response):
            return found
        refused = _fails(found)
        if refused:
            return _secured(_error(refused, 409))
        try:
            folder = session.export_folder(_body(request).get("folder"))
            data, report = folder / "release.csv", folder / "report.html"
            there = [p.name for p in (data, report) if p.exists()]
            if there:                          # an export never replaces an earlier one
                return _secured(_error(f"{folder} already holds {', '.join(there)}; name "
                                       f"another folder", 409))
            found.result.write(data)
            found.result.report(report)
        except PermissionError as exc:
            return _secured(_error(exc, 403))
        except ValueError as exc:
            return _secured(_error(exc))
        return _secured(JSONResponse({"files": [str(data), str(report)]}))

    routes = [
        Route("/", page), Route("/static/{file:path}", static),
        Route("/api/session", describe),
        Route("/api/hierarchy/{qi}", hierarchy),
        Route("/api/hierarchy/{qi}/{action:str}", edit, methods=["POST"]),
        Route("/api/run", run, methods=["POST"]),
        Route("/api/run/{id}", run_state),
        Route("/api/run/{id}/{action:str}", run_state, methods=["POST"]),
        Route("/api/release/{id}", release),
        Route("/api/release/{id}/lattice", lattice),
        Route("/api/release/{id}/lattice/{node}", lattice, methods=["POST"]),
        Route("/api/release/{id}/export", export, methods=["POST"]),
        Route("/api/compare", compare),
    ]
    app = Starlette(routes=routes)

    async def read_body(scope: Any, receive: Any, send: Any) -> None:
        """Read a POST body before the sync endpoint runs (it cannot await)."""
        if scope["type"] == "http" and scope.get("method") == "POST":
            chunks, more = [], True
            while more:
                message = await receive()
                chunks.append(message.get("body", b""))
                more = message.get("more_body", False)
            scope["_body"] = b"".join(chunks)

        async def secured_send(message: Any) -> None:
            if message["type"] == "http.response.start":      # every answer, 404s included
                have = {k.lower() for k, _ in message.get("headers", [])}
                message = {**message, "headers": list(message.get("headers", [])) + [
                    (k.lower().encode(), v.encode()) for k, v in SECURITY_HEADERS.items()
                    if k.lower().encode() not in have]}
            await send(message)

        await app(scope, receive, secured_send)

    return TokenGuard(read_body, session.token, hosts=hosts)


def _done(session: Session, run_id: str) -> Any:
    found = session.runs.get(run_id)
    if found is None:
        return _secured(_error(f"no release {run_id!r}", 404))
    if found.state != "done":
        return _secured(_error(f"run {run_id} is {found.state}, it has no release", 409))
    return found


def _fails(run: Any) -> str | None:
    """Why a release may not be exported (None: it may): its own check, from its cells.

    The library verified the release from its released cells
    (``result.verification``, which a lattice node's ``apply_levels`` reports
    without enforcing, for k only); the smallest class, and l and t when the
    run asked for them, are recomputed here from the cells
    (:func:`._views.cells_check`), and any failing refuses the export before
    a file is written.
    """
    v = run.result.verification
    k = int(run.params.get("k", v.k))
    smallest = run.views["min_class"]
    checked = run.views["verified"]
    if not v.holds or not checked["holds"] or smallest < k:
        return (f"release {run.id} fails its privacy check ({checked['described']}; smallest "
                f"class {smallest}, k={k}): it is not exported")
    return None


def _run_params(body: dict[str, Any], session: Session) -> dict[str, Any]:
    from ..registry import get_algorithm

    unknown = sorted(set(body) - set(RUN_KEYS))
    if unknown:
        raise ValueError(f"unknown run parameter(s) {unknown}; known: {', '.join(RUN_KEYS)}")
    k = body.get("k")
    if not isinstance(k, int) or isinstance(k, bool) or not 1 <= k <= len(session.table):
        raise ValueError(f"The 'k' parameter must be an integer in [1, {len(session.table)}] "
                         f"(the number of records). Got {k!r}.")
    algorithm = body.get("algorithm") or "auto"
    if algorithm != "auto":
        get_algorithm(algorithm)                 # an unknown name: the registry's message
    params = {key: value for key, value in body.items() if value is not None}
    params["algorithm"] = algorithm
    return params
