"""The hierarchy view and its edits: records from counts, the library's own refusals, saves."""

import pytest

import kanon_graph as kg
from kanon_graph.exceptions import HierarchyError


def _walk(node):
    yield node
    for child in node["children"]:
        yield from _walk(child)


def test_tree_counts_the_rows_under_every_node(client, session):
    tree = client.get("/api/hierarchy/education").json()
    h = session.hierarchies["education"]
    assert tree["levels"] == h.height + 1
    counts = session.table["education"].value_counts()
    for node in _walk(tree["tree"]):
        under = h.leaves(node["label"], node["level"])
        assert node["records"] == int(counts.reindex(under).fillna(0).sum())
        assert node["chd"] == pytest.approx(node["level"] / h.height)
    assert tree["tree"]["records"] == len(session.table)


def test_large_trees_summarize_children_beyond_200(client, session):
    rows = [[str(i), "*"] for i in range(300)]
    session.replace_hierarchy("age", kg.Hierarchy.from_rows(rows, name="age"), "test")
    tree = client.get("/api/hierarchy/age").json()["tree"]
    assert len(tree["children"]) == 201
    rest = tree["children"][-1]
    assert rest["summarized"] == 100
    assert sum(c["records"] for c in tree["children"]) == tree["records"]


def test_move_rename_add_group_levels_then_save_reads_back_equal(client, session, tmp_path):
    h = session.hierarchies["education"]
    leaf = h.leaf_labels[0]
    old_parent = h.ancestors(leaf)[1]
    target = next(g for g in h.labels(1) if g != old_parent)
    moved = client.post("/api/hierarchy/education/edit",
                        json={"op": "move", "value": leaf, "to": target})
    assert moved.status_code == 200, moved.text
    assert session.hierarchies["education"].ancestors(leaf)[1] == target
    renamed = client.post("/api/hierarchy/education/edit",
                          json={"op": "rename", "group": target, "name": "Renamed"})
    assert renamed.status_code == 200, renamed.text
    assert session.hierarchies["education"].ancestors(leaf)[1] == "Renamed"
    grand = session.hierarchies["education"].ancestors(leaf)[2]
    added = client.post("/api/hierarchy/education/edit",
                        json={"op": "add_group", "name": "Mine", "parent": grand,
                              "members": [leaf]})
    assert added.status_code == 200, added.text
    assert session.hierarchies["education"].ancestors(leaf)[1] == "Mine"
    height = session.hierarchies["education"].height
    assert client.post("/api/hierarchy/education/edit",
                       json={"op": "add_level"}).json()["levels"] == height + 2
    assert client.post("/api/hierarchy/education/edit",
                       json={"op": "drop_level", "level": 1}).json()["levels"] == height + 1
    saved = client.post("/api/hierarchy/education/save")
    assert saved.status_code == 200, saved.text
    path = saved.json()["path"]
    assert path == str((tmp_path / "hierarchies" / "education.csv").resolve())
    back = kg.read_hierarchy(path, name="education")
    assert back.to_rows() == session.hierarchies["education"].to_rows()


def test_an_invalid_edit_answers_the_librarys_own_message(client, session):
    h = session.hierarchies["education"]
    leaf = h.leaf_labels[0]
    group = h.ancestors(leaf)[1]
    # a group renamed to a leaf's label names two different sets of values
    rows = [[cell if i != 1 or cell != group else h.leaf_labels[-1] for i, cell in
             enumerate(row)] for row in h.to_rows()]
    with pytest.raises(HierarchyError) as expected:
        kg.Hierarchy.from_rows(rows, name="education", source="the explorer")
    answer = client.post("/api/hierarchy/education/edit",
                         json={"op": "rename", "group": group, "name": h.leaf_labels[-1],
                               "level": 1})
    assert answer.status_code == 400
    assert answer.json()["error"] == " ".join(str(expected.value).split())
    assert session.hierarchies["education"] is h             # refused: nothing changed
    unknown = client.post("/api/hierarchy/education/edit",
                          json={"op": "move", "value": "no such value", "to": group})
    assert unknown.status_code == 400
    assert "no such value" in unknown.json()["error"]
    with pytest.raises(HierarchyError) as dropped:
        h.node("no such value")
    assert unknown.json()["error"] == str(dropped.value)
    leaf_renamed = client.post("/api/hierarchy/education/edit",
                               json={"op": "rename", "group": leaf, "name": "x"})
    assert leaf_renamed.status_code == 400 and "only groups" in leaf_renamed.json()["error"]
    assert session.hierarchies["education"] is h


def test_drafts_from_suggest_and_the_builders(client, session):
    drafted = client.post("/api/hierarchy/age/draft", json={"from": "intervals",
                                                             "widths": [10, 20]})
    assert drafted.status_code == 200, drafted.text
    assert drafted.json()["levels"] == 4
    assert drafted.json()["tree"]["records"] == len(session.table)
    suggested = client.post("/api/hierarchy/age/draft", json={"from": "suggest"})
    assert suggested.status_code == 200, suggested.text
    assert suggested.json()["tree"]["records"] == len(session.table)
    bad = client.post("/api/hierarchy/age/draft", json={"from": "intervals", "widths": [7, 10]})
    assert bad.status_code == 400
    with pytest.raises(Exception) as expected:
        kg.hierarchy.intervals(session.table["age"].unique(), widths=[7, 10])
    assert bad.json()["error"] == " ".join(str(expected.value).split())


def test_save_refuses_a_quasi_identifier_it_does_not_know(client):
    assert client.post("/api/hierarchy/..%2F..%2Fevil/save").status_code == 404
    assert client.get("/api/hierarchy/salary-class").status_code == 404


def test_a_quasi_identifier_without_a_tree_starts_from_a_draft(client, session):
    del session.hierarchies["age"]
    assert "age" not in client.get("/api/session").json()["hierarchies"]
    missing = client.get("/api/hierarchy/age")
    assert missing.status_code == 404 and "draft" in missing.json()["error"]
    drafted = client.post("/api/hierarchy/age/draft", json={"from": "intervals", "widths": [5]})
    assert drafted.status_code == 200, drafted.text
    assert client.get("/api/session").json()["hierarchies"]["age"] == {
        "levels": 3, "source": "draft: intervals"}
    assert session.current_schema().hierarchy("age") is session.hierarchies["age"]


def test_an_unknown_action_does_nothing(client, session, tmp_path):
    before = session.hierarchies["age"]
    assert client.post("/api/hierarchy/age/delete").status_code == 404
    assert client.post("/api/run/1/restart").status_code in (404,)
    assert session.hierarchies["age"] is before
    assert not (tmp_path / "hierarchies").exists()          # nothing saved
