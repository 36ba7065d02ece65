"""The record graph: distances, the plug-in registry, deduplication, exports, MSTs."""

import networkx as nx
import numpy as np
import pandas as pd
import pytest

import kanon_graph as kg
from kanon_graph.hierarchy import intervals
from kanon_graph.records import (RecordGraph, distance_names, get_distance, hdist_distance,
                                 minimum_spanning_edges, register_distance,
                                 unregister_distance)
from kanon_graph.records import distances as distances_module
from kanon_graph.records import mst as mst_module


def random_table(n, seed):
    """Few distinct values so that duplicates (multiplicities) occur."""
    rng = np.random.default_rng(seed)
    return pd.DataFrame({
        "age": rng.integers(20, 60, n),
        "income": rng.choice([10.0, 25.5, 40.0, 80.0], n),
        "sex": rng.choice(["F", "M"], n),
        "job": rng.choice(["clerk", "nurse", "teacher", "farmer"], n),
        "disease": rng.choice(["flu", "hiv", "none"], n),
    })


def random_schema():
    job = kg.Hierarchy.from_mapping({"*": {"office": ["clerk", "teacher"],
                                           "care": ["nurse", "farmer"]}}, name="job")
    return kg.Schema(quasi_identifiers=["age", "income", "sex", "job"], sensitive=["disease"],
                     hierarchies={"age": intervals(range(0, 100), widths=[5, 10, 20],
                                                   name="age"), "job": job})


def nx_mst_weight_over_records(graph):
    """networkx's MST weight on the explicit complete graph of the records."""
    dense = graph.matrix(records=True)
    g = nx.Graph()
    n = dense.shape[0]
    g.add_nodes_from(range(n))
    i, j = np.triu_indices(n, k=1)
    g.add_weighted_edges_from(zip(i.tolist(), j.tolist(), dense[i, j].tolist()))
    return nx.minimum_spanning_tree(g).size(weight="weight")


@pytest.mark.parametrize("seed", range(25))
def test_mst_weight_equals_networkx(seed):
    rng = np.random.default_rng(100 + seed)
    n = int(rng.integers(2, 40))
    data = kg.encode(random_table(n, seed), random_schema())
    graph = RecordGraph(data)
    expected = nx_mst_weight_over_records(graph)
    for method in ("kruskal", "prim"):
        u, v, w = minimum_spanning_edges(graph, method)
        assert len(w) == graph.n_nodes - 1
        assert w.sum() == pytest.approx(expected, abs=1e-9)
        # a spanning tree: connects every node
        t = nx.Graph()
        t.add_nodes_from(range(graph.n_nodes))
        t.add_edges_from(zip(u.tolist(), v.tolist()))
        assert nx.is_tree(t)
    assert mst_module._prim_numpy(graph)[2].sum() == pytest.approx(expected, abs=1e-9)


def test_deduplication_collapses_identical_tuples():
    table = pd.DataFrame({"a": ["x", "y", "x", "x", "y"], "b": [1, 2, 1, 3, 2]})
    data = kg.encode(table, kg.Schema(quasi_identifiers=["a", "b"], categorical=["a"]))
    g = RecordGraph(data)
    assert g.n_nodes == 3 and g.n_records == 5
    assert g.node_of.tolist() == [0, 1, 0, 2, 1]
    assert g.counts.tolist() == [2, 2, 1]
    assert g.records_of(0).tolist() == [0, 2]
    dense = g.matrix(records=True)
    assert dense[0, 2] == 0 and dense[1, 4] == 0
    # numeric without hierarchy: |x - y| / range; categorical: 0 / 1
    assert dense[0, 3] == pytest.approx(2 / 2)
    assert dense[0, 1] == pytest.approx(1 + 1 / 2)


def test_lazy_gaps_equal_matrices(monkeypatch):
    data = kg.encode(random_table(60, 3), random_schema())
    dense = RecordGraph(data).matrix()
    weight = minimum_spanning_edges(RecordGraph(data), "prim")[2].sum()
    monkeypatch.setattr(distances_module, "MAX_MATRIX_CODES", 0)
    lazy = RecordGraph(data)
    assert all(not isinstance(p, np.ndarray) for p in lazy.parts)
    np.testing.assert_allclose(lazy.matrix(), dense)
    assert minimum_spanning_edges(lazy, "prim")[2].sum() == pytest.approx(weight)


def test_registry_and_plugins():
    assert "hdist" in distance_names()
    assert get_distance("hdist") is hdist_distance
    with pytest.raises(ValueError, match="Unknown distance 'nope'. Known distances"):
        get_distance("nope")
    with pytest.raises(ValueError, match="already registered"):
        register_distance("hdist", hdist_distance)

    @register_distance("test-double")
    def double(attr):
        return 2 * np.asarray(hdist_distance(attr))

    try:
        data = kg.encode(random_table(30, 4), random_schema())
        base = RecordGraph(data).matrix()
        np.testing.assert_allclose(RecordGraph(data, "test-double").matrix(), 2 * base)
        # per-attribute dict: only "job" doubled
        job = RecordGraph(data, {"job": "test-double"}).matrix()
        only_job = RecordGraph(data, {a: (lambda attr: np.zeros((attr.n_codes,) * 2))
                                      for a in ["age", "income", "sex"]}).matrix()
        np.testing.assert_allclose(job, base + only_job)
    finally:
        unregister_distance("test-double")


def test_record_distance_callable():
    data = kg.encode(random_table(40, 5), random_schema())
    graph = RecordGraph(data)
    parts = graph.parts

    def record_distance(row, codes):
        return sum(np.asarray(p)[row[a]][codes[:, a]] for a, p in enumerate(parts))

    custom = RecordGraph(data, record_distance=record_distance)
    np.testing.assert_allclose(custom.matrix(), graph.matrix())
    assert minimum_spanning_edges(custom, "prim")[2].sum() == pytest.approx(
        minimum_spanning_edges(graph, "kruskal")[2].sum())


def test_bad_distances_are_named():
    data = kg.encode(random_table(10, 6), random_schema())
    with pytest.raises(ValueError, match=r"attribute 'sex' must return an \(2, 2\) array"):
        RecordGraph(data, {"sex": lambda attr: np.zeros((3, 3))})
    with pytest.raises(ValueError, match=r"names \['zzz'\], which are not quasi-identifiers"):
        RecordGraph(data, {"zzz": "hdist"})
    with pytest.raises(ValueError, match="'method' parameter of minimum_spanning_edges"):
        minimum_spanning_edges(RecordGraph(data), "boruvka")


def test_exports_and_mst_graphs():
    data = kg.encode(kg.datasets.paper_003_table(), kg.datasets.paper_003_schema())
    g = RecordGraph(data)
    complete = g.to_networkx()
    assert complete.number_of_edges() == 45
    assert complete[7][9]["weight"] == pytest.approx(5 / 3)
    assert complete.nodes[0]["values"] == {"gender": "Male", "age": "21", "zip": "535280"}
    ig = g.to_igraph()
    assert ig.ecount() == 45
    assert sum(ig.spanning_tree(weights="weight").es["weight"]) == pytest.approx(47 / 3)
    for method in ("kruskal", "prim"):
        tree = g.mst(method)
        assert nx.is_tree(tree) and tree.size(weight="weight") == pytest.approx(47 / 3)
        assert sum(g.mst(method, backend="igraph").es["weight"]) == pytest.approx(47 / 3)
    with pytest.raises(ValueError, match="'backend' parameter"):
        g.mst(backend="graphviz")
