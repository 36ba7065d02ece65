"""The explorer's door: the token on every route, loopback only, no path outside its folders."""

import pytest

from .conftest import client_of, census_session

ROUTES = [
    ("GET", "/"), ("GET", "/static/index.html"), ("GET", "/api/session"),
    ("GET", "/api/hierarchy/age"), ("POST", "/api/hierarchy/age/edit"),
    ("POST", "/api/hierarchy/age/draft"), ("POST", "/api/hierarchy/age/save"),
    ("POST", "/api/run"), ("GET", "/api/run/1"), ("POST", "/api/run/1/cancel"),
    ("GET", "/api/release/1"), ("GET", "/api/release/1/lattice"),
    ("POST", "/api/release/1/lattice/0-0-0-0"), ("GET", "/api/compare?a=1&b=1"),
    ("POST", "/api/release/1/export"), ("GET", "/api/nowhere"),
]


@pytest.fixture(scope="module")
def door():
    made = census_session(rows=200)
    yield made, client_of(made)
    made.runs.close()


@pytest.mark.parametrize("method, path", ROUTES)
def test_every_route_needs_the_token(door, method, path):
    session, client = door
    client.cookies.clear()                  # no token cookie left by another test
    for headers in ({}, {"X-Token": "wrong" + session.token[5:]},
                    {"X-Token": session.token, "Origin": "http://evil.example"},
                    {"X-Token": session.token, "Sec-Fetch-Site": "cross-site"},
                    {"X-Token": session.token, "Host": "evil.example:8765"}):
        answer = client.request(method, path, headers=headers, json={})
        assert answer.status_code == 403, (headers, answer.text)
        assert "token" in answer.text
        assert session.token not in answer.text
    wrong_query = path + ("&" if "?" in path else "?") + "token=nope"
    assert client.request(method, wrong_query, json={}).status_code == 403


def test_the_token_opens_the_door(door):
    session, client = door
    assert client.get("/api/session", headers={"X-Token": session.token}).status_code == 200
    assert client.get(f"/api/session?token={session.token}").status_code == 200
    same_origin = {"X-Token": session.token, "Origin": "http://127.0.0.1:8765"}
    assert client.get("/api/session", headers=same_origin).status_code == 200


def test_the_page_sets_a_cookie_for_its_own_files_only(door):
    session, client = door
    page = client.get(f"/?token={session.token}")
    assert page.status_code == 200
    assert "kanon_graph_token_8765" in page.headers.get("set-cookie", "")
    assert "httponly" in page.headers["set-cookie"].lower()
    assert "samesite=strict" in page.headers["set-cookie"].lower()
    assert page.headers["referrer-policy"] == "no-referrer"
    policy = page.headers["content-security-policy"]
    assert "default-src 'self'" in policy and "connect-src 'self'" in policy
    assert "http" not in policy                       # nothing allowed from elsewhere
    cookie = {"cookie": f"kanon_graph_token_8765={session.token}"}
    assert client.get("/", headers=cookie).status_code == 200
    assert client.get("/api/session", headers=cookie).status_code == 403   # not the API


@pytest.mark.parametrize("path", [
    "/static/../__init__.py", "/static/..%2F_app.py", "/static/%2e%2e/_guard.py",
    "/static/../../api.py", "/static//etc/passwd", "/static/..\\_app.py", "/static/",
    "/static/.", "/static/%00", "/static/nothing.js",
])
def test_static_paths_outside_the_folder_are_refused(door, path):
    session, client = door
    answer = client.get(path, headers={"X-Token": session.token})
    assert answer.status_code == 404
    assert "import" not in answer.text and "root:" not in answer.text


def test_saving_and_exporting_are_off_without_their_folders(door):
    session, client = door
    headers = {"X-Token": session.token}
    answer = client.post("/api/hierarchy/age/save", headers=headers)
    assert answer.status_code == 403
    assert "--hierarchies" in answer.json()["error"]


def test_the_server_binds_loopback_only():
    import kanon_graph as kg

    with pytest.raises(ValueError, match="127.0.0.1"):
        kg.explore(kg.datasets.make_census(50, seed=0), kg.datasets.census_schema(),
                   host="0.0.0.0")


def test_a_link_clicked_elsewhere_opens_the_page_but_nothing_else(door):
    session, client = door
    client.cookies.clear()
    clicked = {"Sec-Fetch-Site": "cross-site", "Sec-Fetch-Mode": "navigate"}
    assert client.get(f"/?token={session.token}", headers=clicked).status_code == 200
    client.cookies.clear()
    assert client.get("/", headers=clicked).status_code == 403            # still the token
    assert client.get(f"/api/session?token={session.token}",
                      headers=clicked).status_code == 403
    fetched = {"Sec-Fetch-Site": "cross-site", "Sec-Fetch-Mode": "cors"}
    assert client.get(f"/?token={session.token}", headers=fetched).status_code == 403
