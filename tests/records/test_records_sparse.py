"""The sparse spanning tree (``method="sparse"``) and ``RecordGraph.pair_distances``."""

import networkx as nx
import numpy as np
import pytest

import kanon_graph as kg
from kanon_graph.records import RecordGraph, minimum_spanning_edges
from kanon_graph.records.mst import sparse_spanning_edges
from kanon_graph.records.neighbours import block_edges

from test_records_graph import random_schema, random_table


def graph_of(n, seed):
    return RecordGraph(kg.encode(random_table(n, seed), random_schema()))


def is_spanning_tree(n, u, v):
    g = nx.Graph()
    g.add_nodes_from(range(n))
    g.add_edges_from(zip(u.tolist(), v.tolist()))
    return len(u) == n - 1 and nx.is_connected(g)


@pytest.mark.parametrize("seed", range(4))
def test_pair_distances_match_the_rows(seed):
    g = graph_of(60, seed)
    i, j = np.triu_indices(g.n_nodes, 1)
    dense = np.vstack([g.distances_from(x) for x in range(g.n_nodes)])
    np.testing.assert_allclose(g.pair_distances(i, j), dense[i, j], atol=1e-12)


@pytest.mark.parametrize("seed", range(4))
def test_all_pairs_give_the_exact_mst_weight(seed):
    g = graph_of(80, seed)
    i, j = np.triu_indices(g.n_nodes, 1)
    u, v, w = sparse_spanning_edges(g, i, j)
    assert is_spanning_tree(g.n_nodes, u, v)
    assert abs(w.sum() - minimum_spanning_edges(g)[2].sum()) < 1e-9


@pytest.mark.parametrize("seed", range(4))
def test_disconnected_candidates_are_joined_into_one_tree(seed):
    g = graph_of(80, seed)
    u, v, w = sparse_spanning_edges(g, np.array([0, 2]), np.array([1, 3]))   # almost nothing
    assert is_spanning_tree(g.n_nodes, u, v)
    assert w.sum() >= minimum_spanning_edges(g)[2].sum() - 1e-9
    np.testing.assert_allclose(w, g.pair_distances(u, v))


def test_near_index_tree_is_spanning_and_never_lighter():
    data = kg.encode(random_table(300, 5), random_schema())
    g = RecordGraph(data)
    u, v, w = sparse_spanning_edges(g, *block_edges(data, g.codes, free=1))
    assert is_spanning_tree(g.n_nodes, u, v)
    assert w.sum() >= minimum_spanning_edges(g)[2].sum() - 1e-9


def test_sparse_method_releases_k_anonymous_tables():
    table, schema = random_table(400, 3), random_schema()
    res = kg.anonymize(table, schema, k=4, algorithm="mst", method="sparse")
    assert res.verification.k_achieved >= 4
    assert res.stats["mst_method"] == "sparse"
    assert sorted(np.concatenate(res.classes).tolist()) == list(range(len(table)))


@pytest.mark.parametrize("options", [{"split": "paper"}, {"neighbours": 0}])
def test_sparse_method_is_refused_where_it_has_no_index(options):
    with pytest.raises(ValueError, match="'method' parameter of the mst algorithm"):
        kg.anonymize(random_table(50, 0), random_schema(), k=3, algorithm="mst",
                     method="sparse", **options)


def test_pair_distances_refuse_a_record_distance():
    data = kg.encode(random_table(30, 0), random_schema())
    g = RecordGraph(data, record_distance=lambda t, codes: np.zeros(len(codes)))
    with pytest.raises(ValueError, match="record_distance"):
        g.pair_distances([0], [1])


def test_block_edges_of_tuples_with_no_near_pair_is_empty():
    """Two tuples differing everywhere: no chain joins them (regression: the dedup of 0 pairs)."""
    import pandas as pd
    table = pd.DataFrame({"a": ["x", "y"], "b": ["p", "q"], "c": ["m", "n"]})
    data = kg.encode(table, kg.Schema(quasi_identifiers=["a", "b", "c"]))
    eu, ev = block_edges(data, RecordGraph(data).codes, free=1)
    assert eu.tolist() == [] and ev.tolist() == []
