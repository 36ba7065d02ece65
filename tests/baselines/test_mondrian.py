"""Mondrian: strict median cuts, categorical cuts along the hierarchy, no allowable cut left."""

import numpy as np
import pandas as pd
import pytest

import kanon_graph as kg


def numeric_table(n, seed):
    rng = np.random.default_rng(seed)
    return pd.DataFrame({"age": rng.integers(18, 80, n), "hours": rng.integers(1, 99, n),
                         "disease": rng.choice(["flu", "hiv", "cancer"], n)})


def test_paper003_classes():
    res = kg.anonymize(kg.datasets.paper_003_table(), kg.datasets.paper_003_schema(), k=3,
                       algorithm="mondrian")
    assert [c.tolist() for c in res.classes] == [[0, 1, 2], [3, 4, 5, 6], [7, 8, 9]]
    assert res.stats["cuts"] == {"gender": 1, "age": 1, "zip": 0}


def test_boxes_are_disjoint_and_no_allowable_cut_remains():
    table = numeric_table(300, 0)
    schema = kg.Schema(quasi_identifiers=["age", "hours"], sensitive=["disease"])
    k = 6
    res = kg.anonymize(table, schema, k=k, algorithm="mondrian")
    boxes = [(table.iloc[c][["age", "hours"]].min().to_numpy(),
              table.iloc[c][["age", "hours"]].max().to_numpy()) for c in res.classes]
    for i in range(len(boxes)):
        for j in range(i + 1, len(boxes)):
            (lo1, hi1), (lo2, hi2) = boxes[i], boxes[j]
            assert ((hi1 < lo2) | (hi2 < lo1)).any()  # strict: separated on some axis
    for members in res.classes:
        for column in ("age", "hours"):
            v = np.sort(table[column].to_numpy()[members])
            left = np.searchsorted(v, np.unique(v)[:-1], side="right")
            assert not ((left >= k) & (len(v) - left >= k)).any(), (column, v)
    assert max(len(c) for c in res.classes) < 4 * k


def test_categorical_cut_follows_the_hierarchy():
    rng = np.random.default_rng(1)
    jobs = ["clerk", "teacher", "nurse", "driver"]
    table = pd.DataFrame({"job": rng.choice(jobs, 200), "disease": rng.choice(["a", "b"], 200)})
    job = kg.Hierarchy.from_mapping({"*": {"office": ["clerk", "teacher"],
                                           "care": ["nurse", "driver"]}}, name="job")
    schema = kg.Schema(quasi_identifiers=["job"], sensitive=["disease"],
                       hierarchies={"job": job})
    res = kg.anonymize(table, schema, k=10, algorithm="mondrian")
    assert sorted(res.table["job"].unique()) == sorted(jobs)
    res = kg.anonymize(table, schema, k=60, algorithm="mondrian")
    assert set(res.table["job"]) <= {"office", "care", "*"}


def test_l_diversity_is_respected():
    table = numeric_table(200, 2)
    schema = kg.Schema(quasi_identifiers=["age", "hours"], sensitive=["disease"])
    plain = kg.anonymize(table, schema, k=3, algorithm="mondrian")
    diverse = kg.anonymize(table, schema, k=3, l=3, algorithm="mondrian")
    assert diverse.verification.l_achieved >= 3
    assert len(diverse.classes) <= len(plain.classes)


@pytest.mark.parametrize("k", [2, 5, 10])
def test_more_classes_for_smaller_k(k):
    table = numeric_table(200, 3)
    schema = kg.Schema(quasi_identifiers=["age", "hours"], sensitive=["disease"])
    res = kg.anonymize(table, schema, k=k, algorithm="mondrian")
    assert len(res.classes) >= 200 // (4 * k)
    assert min(len(c) for c in res.classes) >= k


def test_the_mondrian_start_lets_a_bug_raise(monkeypatch):
    """Issue 30 item 6: records/seed.py swallowed every exception from Mondrian."""
    import importlib

    mondrian_module = importlib.import_module("kanon_graph.baselines.mondrian")

    table, schema = kg.datasets.paper_003_table(), kg.datasets.paper_003_schema()
    data = kg.encode(table, schema)
    from kanon_graph.privacy import PrivacyModel
    from kanon_graph.records import RecordGraph

    g = RecordGraph(data)

    def broken(*args, **kwargs):
        raise KeyError("a bug")

    monkeypatch.setattr(mondrian_module, "mondrian", broken)
    with pytest.raises(KeyError):
        mondrian_module.mondrian_seed(data, g.node_of, g.n_nodes, PrivacyModel(k=3))

    def refuses(*args, **kwargs):
        raise ValueError("mondrian cannot meet this model")

    monkeypatch.setattr(mondrian_module, "mondrian", refuses)
    assert mondrian_module.mondrian_seed(data, g.node_of, g.n_nodes, PrivacyModel(k=3)) is None
