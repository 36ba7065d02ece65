"""MST-partition local recoding: k-anonymity, coverage, the merge rule, l-diversity."""

import networkx as nx
import numpy as np
import pandas as pd
import pytest

import kanon_graph as kg
from kanon_graph.metrics import ncp_per_attribute
from kanon_graph.privacy import PrivacyModel
from kanon_graph.recoding import recode_partition
from kanon_graph.records import (RecordGraph, merge_small_classes, minimum_spanning_edges,
                                 mst_local_recoding, split_mst, split_mst_feasible)
from kanon_graph.records.merge import ClassSummaries

from test_records_graph import random_schema, random_table


def free_schema():
    """No hierarchies at all: numeric ranges and categorical value sets."""
    return kg.Schema(quasi_identifiers=["age", "income", "sex", "job"], sensitive=["disease"])


@pytest.mark.parametrize("seed", range(20))
def test_partition_is_k_anonymous_and_covers_every_record(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(5, 80))
    k = int(rng.integers(2, min(n, 9) + 1))
    table = random_table(n, seed)
    schema = random_schema() if seed % 2 else free_schema()
    data = kg.encode(table, schema)
    part = mst_local_recoding(data, PrivacyModel(k), split="paper")
    assert part.class_of.shape == (n,) and (part.class_of >= 0).all()
    assert np.bincount(part.class_of)[np.unique(part.class_of)].min() >= k
    res = kg.anonymize(table, schema, k=k, algorithm="mst", split="paper")   # verifies k, coverage
    rows = np.sort(np.concatenate(res.classes))
    assert rows.tolist() == list(range(n))
    assert res.suppressed == 0
    assert res.stats["edges_removed"] == min(n // k - 1, res.stats["distinct_tuples"] - 1)


def reference_merge(data, class_of_records, k):
    """Lines 15-21 of 003 section 6, naively: NCP of each union via a real release."""
    cls = class_of_records.copy()
    while True:
        labels, sizes = np.unique(cls, return_counts=True)
        small = [c for c, s in zip(labels, sizes) if s < k]
        if not small or len(labels) == 1:
            return cls
        for c in small:
            labels, sizes = np.unique(cls, return_counts=True)
            if c not in labels or sizes[labels == c][0] >= k:
                continue
            best, best_cost = None, np.inf
            for o in labels:
                if o == c:
                    continue
                trial = np.where(np.isin(cls, [c, o]), 0, -1)
                per = ncp_per_attribute(recode_partition(data, trial))
                cost = sum(float(v[0]) for v in per.values())
                if cost < best_cost - 1e-9:
                    best, best_cost = o, cost
            cls[cls == c] = best


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize("hier", [True, False])
def test_merge_matches_naive_ncp_reference(seed, hier):
    n = 30 + seed
    k = 3 + seed % 4
    data = kg.encode(random_table(n, 50 + seed), random_schema() if hier else free_schema())
    graph = RecordGraph(data)
    u, v, w = minimum_spanning_edges(graph, "kruskal")
    cluster_of, _ = split_mst(u, v, w, graph.n_nodes, graph.n_records, k)
    final, merges = merge_small_classes(
        ClassSummaries(data, graph.codes, cluster_of, graph.counts), k)
    ours = final[cluster_of][graph.node_of]
    expected = reference_merge(data, cluster_of[graph.node_of], k)
    # same partition (labels may differ)
    pairs = set(zip(ours.tolist(), expected.tolist()))
    assert len(pairs) == len(set(ours.tolist())) == len(set(expected.tolist()))
    assert merges == len(np.unique(cluster_of)) - len(np.unique(final))


def test_l_diversity_is_reached_by_further_merging():
    table = random_table(120, 9)
    res = kg.anonymize(table, random_schema(), k=3, l=3, algorithm="mst")
    assert res.verification.holds and res.verification.l_achieved >= 3
    plain = kg.anonymize(table, random_schema(), k=3, algorithm="mst")
    assert len(res.classes) <= len(plain.classes)


def test_identical_tuples_stay_together():
    # 12 identical records and 3 others: only 3 distinct tuples, so at most 2 cuts
    table = pd.DataFrame({"x": ["a"] * 12 + ["b", "c", "d"], "y": [1] * 12 + [2, 3, 4]})
    schema = kg.Schema(quasi_identifiers=["x", "y"], categorical=["x"])
    res = kg.anonymize(table, schema, k=2, algorithm="mst", split="paper")
    assert res.stats["distinct_tuples"] == 4
    assert res.stats["edges_removed"] == 3          # min(15 // 2 - 1, 4 - 1)
    assert any(set(range(12)) <= set(c.tolist()) for c in res.classes)
    assert min(len(c) for c in res.classes) >= 2


def test_deterministic_and_methods_agree_on_weight():
    table = random_table(200, 11)
    a = kg.anonymize(table, random_schema(), k=4, algorithm="mst", method="prim")
    b = kg.anonymize(table, random_schema(), k=4, algorithm="mst", method="prim")
    c = kg.anonymize(table, random_schema(), k=4, algorithm="mst", method="kruskal")
    assert a.table.equals(b.table)
    assert a.stats["mst_weight"] == pytest.approx(c.stats["mst_weight"])


def test_adult_all_quasi_identifiers(adult_table, adult_schema):
    res = kg.anonymize(adult_table, adult_schema, k=5, algorithm="mst", split="paper")
    assert res.verification.k_achieved >= 5
    assert sum(len(c) for c in res.classes) == len(adult_table) == 30162
    assert res.stats["distinct_tuples"] < len(adult_table)
    assert res.stats["edges_removed"] == 30162 // 5 - 1
    assert res.stats["initial_clusters"] - res.stats["merges"] == res.stats["classes"]


@pytest.mark.parametrize("seed", range(10))
def test_feasible_split_gives_k_clusters_without_merging(seed):
    rng = np.random.default_rng(300 + seed)
    n = int(rng.integers(6, 90))
    k = int(rng.integers(2, min(n, 8) + 1))
    table = random_table(n, seed)
    res = kg.anonymize(table, random_schema(), k=k, algorithm="mst", split="feasible",
                       refine=False)
    assert res.stats["split"] == "feasible"
    assert min(len(c) for c in res.classes) >= k
    assert np.sort(np.concatenate(res.classes)).tolist() == list(range(n))
    # every uncut edge is infeasible: cutting it would leave a side below k
    data = kg.encode(table, random_schema())
    graph = RecordGraph(data, "loss")         # the default distance of the non-paper splits
    u, v, w = minimum_spanning_edges(graph, "auto")
    cluster_of, cuts = split_mst_feasible(u, v, w, graph.counts, k)
    assert cuts == res.stats["edges_removed"] == len(np.unique(cluster_of)) - 1
    sizes = np.bincount(cluster_of, weights=graph.counts)
    assert sizes.min() >= k
    for e in range(len(u)):
        if cluster_of[u[e]] != cluster_of[v[e]]:
            continue
        keep = np.ones(len(u), dtype=bool)
        keep[e] = False
        inside = (cluster_of[u] == cluster_of[u[e]]) & (cluster_of[v] == cluster_of[u[e]]) & keep
        sub = nx.Graph()
        members = np.flatnonzero(cluster_of == cluster_of[u[e]])
        sub.add_nodes_from(members.tolist())
        sub.add_edges_from(zip(u[inside].tolist(), v[inside].tolist()))
        side = nx.node_connected_component(sub, int(u[e]))
        below = graph.counts[list(side)].sum()
        assert below < k or sizes[cluster_of[u[e]]] - below < k


def test_paper_example_feasible_split():
    table = kg.datasets.paper_003_table()
    res = kg.anonymize(table, kg.datasets.paper_003_schema(), k=3, algorithm="mst",
                       split="feasible")
    assert sorted(sorted((c + 1).tolist()) for c in res.classes) == [[1, 2, 3], [4, 5, 6, 7],
                                                                     [8, 9, 10]]
    with pytest.raises(ValueError, match="'split' parameter of the mst algorithm"):
        kg.anonymize(table, kg.datasets.paper_003_schema(), k=3, algorithm="mst", split="x")


@pytest.mark.parametrize("seed", range(5))
def test_partition_does_not_depend_on_quasi_identifier_order(seed):
    """The paper's procedure only: the other variants break ties by attribute order."""
    table = random_table(150, 700 + seed)
    schema = random_schema()
    flipped = kg.Schema(quasi_identifiers=list(schema.quasi_identifiers)[::-1],
                        sensitive=["disease"], hierarchies=schema.hierarchies)
    for method in ("kruskal", "prim"):
        a = kg.anonymize(table, schema, k=4, algorithm="mst", method=method, split="paper")
        b = kg.anonymize(table, flipped, k=4, algorithm="mst", method=method, split="paper")
        assert [c.tolist() for c in a.classes] == [c.tolist() for c in b.classes]


@pytest.mark.parametrize("seed", range(4))
def test_merge_with_cells_is_the_best_merge_within_each_cell(seed):
    """Boundaries: merging with cells equals merging each cell's classes on their own."""
    k = 3
    data = kg.encode(random_table(60, 90 + seed), random_schema())
    graph = RecordGraph(data)
    u, v, w = minimum_spanning_edges(graph, "kruskal")
    cluster_of, _ = split_mst(u, v, w, graph.n_nodes, graph.n_records, k)
    node_cell = (graph.codes[:, 0] % 2).astype(np.int64)       # two arbitrary cells
    keep = (cluster_of[u] == cluster_of[v]) & (node_cell[u] == node_cell[v])
    cluster_of = split_mst(u[keep], v[keep], np.zeros(keep.sum()), graph.n_nodes,
                           graph.n_records, graph.n_records)[0]     # components only
    final, _ = merge_small_classes(
        ClassSummaries(data, graph.codes, cluster_of, graph.counts, node_cell), k)
    cell_of_class = node_cell[np.unique(cluster_of, return_index=True)[1]]
    assert np.array_equal(cell_of_class[final], cell_of_class)     # never across cells
    sizes = np.bincount(final[cluster_of], weights=graph.counts)
    assert sizes[sizes > 0].min() >= k
    for cell in (0, 1):                                             # = per-cell reference
        nodes = np.flatnonzero(node_cell == cell)
        sub = kg.recoding.boundaries.subset_table(
            data, np.flatnonzero(np.isin(graph.node_of, nodes)))
        records = np.isin(graph.node_of, nodes)
        expected = reference_merge(sub, cluster_of[graph.node_of][records], k)
        ours = final[cluster_of][graph.node_of][records]
        pairs = set(zip(ours.tolist(), expected.tolist()))
        assert len(pairs) == len(set(ours.tolist())) == len(set(expected.tolist()))


def test_split_of_an_empty_tree():
    """No records left (all suppressed): no node, no cluster, no numpy reduction error."""
    from kanon_graph.records import split_mst
    empty = np.zeros(0, dtype=np.int64)
    labels, removed = split_mst(empty, empty, np.zeros(0), 0, 0, 3)
    assert labels.shape == (0,) and removed == 0
