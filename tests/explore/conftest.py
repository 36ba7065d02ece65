"""Fixtures of the explorer's tests: a census session behind a Starlette TestClient.

The tests need the extra ``kanon_graph[explore]`` (Starlette, uvicorn) and httpx
(Starlette's TestClient); the ``test`` extra installs all three, so CI runs them.
"""

import time
import warnings

import pytest

pytest.importorskip("starlette", reason="the explorer needs the extra kanon_graph[explore] "
                    "(starlette, uvicorn)")
pytest.importorskip("uvicorn", reason="the explorer needs the extra kanon_graph[explore]")
pytest.importorskip("httpx", reason="Starlette's TestClient needs httpx (the test extra)")

import kanon_graph as kg  # noqa: E402

QIS = ["sex", "age", "race", "education"]
BASE = "http://127.0.0.1:8765"


def census_session(tmp_path=None, rows=1500):
    from kanon_graph.explorer._session import Session

    full = kg.datasets.census_schema()
    schema = kg.Schema(quasi_identifiers=QIS, sensitive=["salary-class"],
                       hierarchies={q: full.hierarchies[q] for q in QIS})
    table = kg.datasets.make_census(rows, seed=0)
    folders = {}
    if tmp_path is not None:
        folders = {"hierarchies_folder": tmp_path / "hierarchies",
                   "exports_folder": tmp_path / "exports"}
    return Session(table, schema, **folders)


def client_of(session):
    from kanon_graph.explorer._app import create_app

    with warnings.catch_warnings():      # Starlette 1.x: "use httpx2" (httpx still works)
        warnings.simplefilter("ignore")
        from starlette.testclient import TestClient

        return TestClient(create_app(session), base_url=BASE)


@pytest.fixture
def session(tmp_path):
    made = census_session(tmp_path)
    yield made
    made.runs.close()


@pytest.fixture
def client(session):
    c = client_of(session)
    c.headers["X-Token"] = session.token
    return c


def wait(client, run_id, timeout=300):
    """Poll ``GET /api/run/{id}`` until the run is no longer running."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        state = client.get(f"/api/run/{run_id}").json()
        if state["state"] != "running":
            return state
        time.sleep(0.2)
    raise AssertionError(f"run {run_id} still running after {timeout} s")
