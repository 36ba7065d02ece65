"""Runs in worker processes, the release views from counts, the lattice, compare, export."""

import os
import time

import pandas as pd
import pytest

import kanon_graph as kg

from .conftest import QIS, wait


def _released(session, run_id):
    return session.runs.get(run_id).result.table


@pytest.fixture
def optimal_run(client):
    started = client.post("/api/run", json={"k": 5, "algorithm": "optimal"})
    assert started.status_code == 200, started.text
    state = wait(client, started.json()["run"])
    assert state["state"] == "done", state
    return started.json()["run"]


def test_release_views_equal_the_librarys_measures_on_the_release(client, session, optimal_run):
    views = client.get(f"/api/release/{optimal_run}").json()
    released = _released(session, optimal_run)
    classes = kg.privacy.equivalence_classes(released, QIS)
    assert views["min_class"] == kg.privacy.k_anonymity(released, QIS) >= 5
    assert views["n_classes"] == len(classes)
    sizes = sorted(len(c) for c in classes)
    histogram = [(bar["from"], bar["to"], bar["classes"], bar["records"])
                 for bar in views["classes"]]
    assert sum(b[2] for b in histogram) == len(sizes)
    assert sum(b[3] for b in histogram) == sum(sizes)
    stars = (released[QIS].astype(str) == "*")
    assert views["suppressed"] == int(stars.all(axis=1).sum())
    assert views["collapsed"] == {q: int(stars[q].sum()) for q in QIS}
    after = kg.risk.assess(released, QIS, models=["prosecutor", "journalist", "marketer"])
    before = kg.risk.assess(session.table, QIS,
                            models=["prosecutor", "journalist", "marketer"])
    assert views["risk"] == {"before": before, "after": after}
    for q in QIS:
        h = session.schema.hierarchy(q)
        shares = views["profile"][q]["shares"]
        level_of = released[q].astype(str).map(
            lambda v, h=h: h.height if v == "*" else h.level(v))
        assert shares == pytest.approx(
            [float((level_of == lv).mean()) for lv in range(h.height + 1)])
    assert views["loss"] == pytest.approx(kg.evaluate(session.table, released, session.schema,
                                                      metrics=["loss"]).metrics["loss"])


def test_a_lattice_node_click_makes_a_checked_release(client, session, optimal_run):
    lattice = client.get(f"/api/release/{optimal_run}/lattice").json()
    chosen = [n for n in lattice["nodes"] if n["chosen"]]
    assert len(chosen) == 1
    levels = session.runs.get(optimal_run).result.levels
    assert chosen[0]["levels"] == levels
    ids = {n["id"] for n in lattice["nodes"]}
    assert all(a in ids and b in ids for a, b in lattice["edges"])
    other = next(n for n in lattice["nodes"] if not n["chosen"] and n["suppressed"] == 0)
    # an edit after the run does not change what the node means
    assert client.post("/api/hierarchy/age/edit", json={"op": "add_level"}).status_code == 200
    started = client.post(f"/api/release/{optimal_run}/lattice/{other['id']}")
    assert started.status_code == 200, started.text
    state = wait(client, started.json()["run"])
    assert state["state"] == "done", state
    views = client.get(f"/api/release/{started.json()['run']}").json()
    released = _released(session, started.json()["run"])
    assert views["levels"] == other["levels"]
    assert views["min_class"] == kg.privacy.k_anonymity(released, QIS) == other["min_class"]
    assert views["verified"]["holds"] == (views["min_class"] >= 5)
    expected = kg.apply_levels(session.table, session.schema, other["levels"], k=5)
    assert views["loss"] == pytest.approx(expected.metrics["loss"])
    assert other["loss"] == pytest.approx(expected.metrics["loss"])


def test_a_local_recoding_shows_the_node_its_cells_reach_and_its_views_count_its_cells(client, session):
    started = client.post("/api/run", json={"k": 5, "algorithm": "mondrian"})
    run = started.json()["run"]
    assert wait(client, run)["state"] == "done"
    lattice = client.get(f"/api/release/{run}/lattice").json()
    assert lattice["recoding"] == "local" and "local recoding" in lattice["reason"]
    chosen = next(n for n in lattice["nodes"] if n["chosen"])
    released = _released(session, run)
    kept = released[~(released[QIS].astype(str) == "*").all(axis=1)]
    for q in QIS:                       # the node its cells reach at most
        h = session.schema.hierarchy(q)
        reached = max(h.height if v == "*" else h.level(v) for v in kept[q].astype(str))
        assert chosen["levels"][q] == reached
    clicked = client.post(f"/api/release/{run}/lattice/{chosen['id']}")
    assert clicked.status_code == 200, clicked.text
    assert wait(client, clicked.json()["run"])["state"] == "done"
    views = client.get(f"/api/release/{run}").json()
    assert views["min_class"] == kg.privacy.k_anonymity(released, QIS) >= 5
    assert views["n_classes"] == len(kg.privacy.equivalence_classes(released, QIS))
    assert sum(bar["records"] for bar in views["classes"]) + views["suppressed"] == len(released)


def test_compare_gives_both_releases(client, optimal_run):
    other = client.post("/api/run", json={"k": 10, "algorithm": "optimal"}).json()["run"]
    assert wait(client, other)["state"] == "done"
    both = client.get(f"/api/compare?a={optimal_run}&b={other}").json()
    assert both["a"]["params"]["k"] == 5 and both["b"]["params"]["k"] == 10
    assert both["b"]["min_class"] >= 10
    assert client.get(f"/api/compare?a={optimal_run}&b=99").status_code == 404


def test_cancel_ends_the_worker(client, session):
    started = client.post("/api/run", json={"k": 5, "algorithm": "optimal"}).json()["run"]
    pid = session.runs.pid(session.runs.get(started))
    cancelled = client.post(f"/api/run/{started}/cancel").json()
    assert cancelled["state"] == "cancelled"
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except OSError:
            break
        time.sleep(0.1)
    else:
        raise AssertionError("the worker process still runs after cancel")
    assert client.get(f"/api/run/{started}").json()["state"] == "cancelled"
    assert client.get(f"/api/release/{started}").status_code == 409


def test_bad_run_parameters_are_refused_before_running(client, session):
    for body, word in (({"k": 0}, "'k'"), ({"k": 5, "algorithm": "nope"}, "nope"),
                       ({"k": 5, "kk": 1}, "kk")):
        answer = client.post("/api/run", json=body)
        assert answer.status_code == 400 and word in answer.json()["error"]
    failed = client.post("/api/run", json={"k": 5, "l": 9, "algorithm": "optimal"}).json()
    state = wait(client, failed["run"])
    assert state["state"] == "failed" and state["error"]


def test_export_writes_the_release_shuffled_and_checked_and_the_report(client, session,
                                                                        optimal_run, tmp_path):
    answer = client.post(f"/api/release/{optimal_run}/export", json={"folder": "first"})
    assert answer.status_code == 200, answer.text
    files = answer.json()["files"]
    assert all(os.path.isfile(f) for f in files)
    assert all(os.path.dirname(f) == str((tmp_path / "exports" / "first").resolve())
               for f in files)
    written = pd.read_csv(files[0], dtype=str)
    released = _released(session, optimal_run)
    assert len(written) == len(released)
    assert kg.privacy.k_anonymity(written, QIS) >= 5
    assert not written[QIS].equals(released[QIS].astype(str).reset_index(drop=True))
    assert any(f.endswith(".html") for f in files)
    again = client.post(f"/api/release/{optimal_run}/export", json={"folder": "first"})
    assert again.status_code == 409 and "already holds" in again.json()["error"]
    assert pd.read_csv(files[0], dtype=str).equals(written)          # left as it was
    for outside in ("../out", "/tmp/out", "a/b", ".."):
        refused = client.post(f"/api/release/{optimal_run}/export", json={"folder": outside})
        assert refused.status_code == 403, outside


def test_a_runs_progress_comes_back_from_its_worker(client, session):
    started = client.post("/api/run", json={"k": 5, "algorithm": "mst"}).json()["run"]
    assert wait(client, started)["state"] == "done"
    last = session.runs.progress(started)          # the worker's last report stays
    assert last is not None and last["done"] == last["total"] > 0 and last["text"]


def test_a_release_that_fails_its_check_is_not_exported(client, session, optimal_run, tmp_path):
    lattice = client.get(f"/api/release/{optimal_run}/lattice").json()
    failing = next(n for n in lattice["nodes"] if n["min_class"] < 5 or n["suppressed"])
    started = client.post(f"/api/release/{optimal_run}/lattice/{failing['id']}").json()["run"]
    assert wait(client, started)["state"] == "done"
    views = client.get(f"/api/release/{started}").json()
    assert kg.privacy.k_anonymity(_released(session, started), QIS) < 5
    assert views["verified"]["holds"] is False
    refused = client.post(f"/api/release/{started}/export", json={"folder": "failing"})
    assert refused.status_code == 409
    assert "fails" in refused.json()["error"]
    assert not (tmp_path / "exports" / "failing").exists()


def test_a_node_of_an_l_diverse_run_is_checked_for_l_on_its_cells(client, session):
    run = client.post("/api/run", json={"k": 3, "l": 2, "algorithm": "optimal"}).json()["run"]
    assert wait(client, run)["state"] == "done"
    lattice = client.get(f"/api/release/{run}/lattice").json()
    schema = session.runs.get(run).schema

    def k_and_l(node):
        rel = kg.apply_levels(session.table, schema, node["levels"], k=3)
        return (kg.privacy.k_anonymity(rel.table, QIS),
                kg.privacy.l_diversity(rel.table, QIS, "salary-class"))

    # a node whose release is 3-anonymous but not 2-diverse: apply_levels checks k only
    node = next(n for n in lattice["nodes"] if not n["chosen"]
                and (lambda kl: kl[0] >= 3 and kl[1] < 2)(k_and_l(n)))
    clicked = client.post(f"/api/release/{run}/lattice/{node['id']}").json()["run"]
    assert wait(client, clicked)["state"] == "done"
    views = client.get(f"/api/release/{clicked}").json()
    released = _released(session, clicked)
    achieved = kg.privacy.l_diversity(released, QIS, "salary-class")
    assert achieved < 2 and kg.privacy.k_anonymity(released, QIS) >= 3
    assert views["verified"]["cells"]["l"] == {"asked": 2, "achieved": achieved, "holds": False}
    assert views["verified"]["holds"] is False and "l fails" in views["verified"]["described"]
    exported = client.post(f"/api/release/{clicked}/export", json={"folder": "node"})
    assert exported.status_code == 409
