"""The compiled k-member loop gives the clusters of the plain, unpruned procedure.

The reference below is Byun et al.'s Figure 2 written directly with numpy
(every remaining tuple scored at every step, as the library did before the
kernel): the kernel's pair-cost pruning and node-major tables must not
change a single assignment, on seeded tables with duplicates, hierarchies,
numeric trees, lazy distances and generalization boundaries.
"""

import numpy as np
import pandas as pd
import pytest

import kanon_graph as kg
from kanon_graph.baselines import k_member
from kanon_graph.records._groups import GroupCoster, GroupStates
from kanon_graph.hierarchy import intervals
from kanon_graph.privacy import PrivacyModel
from kanon_graph.recoding.boundaries import cells_to_suppress, has_boundaries, magval_cells
from kanon_graph.records import RecordGraph
from kanon_graph.records import distances as distances_module


def reference_k_member(data, k, rng, respect_boundaries=False):
    """Figure 2 of Byun et al. (2007) on the distinct tuples, scanning everything."""
    model = PrivacyModel(k)
    graph = RecordGraph(data)
    coster = GroupCoster(data, cost="byun")
    nodes = coster.singletons(graph.first_record)
    remaining = graph.counts.copy()
    order = np.argsort(graph.node_of, kind="stable")
    starts = np.concatenate([[0], np.cumsum(graph.counts)])
    taken = np.zeros(graph.n_nodes, dtype=np.int64)

    def take(node, count):
        begin = starts[node] + taken[node]
        taken[node] += count
        remaining[node] -= count
        return order[begin:begin + count]

    class_of = np.full(data.n, -1, dtype=np.int64)
    cell = np.zeros(graph.n_nodes, dtype=np.int64)
    left_in = np.array([data.n])
    if respect_boundaries and has_boundaries(data):
        cells = magval_cells(data)
        cells[cells_to_suppress(data, model, cells, None, "k-member")] = -1
        cell = cells[graph.first_record]
        remaining[cell < 0] = 0
        cell = np.maximum(cell, 0)
        left_in = np.bincount(cell, weights=remaining, minlength=cells.max() + 1).astype(int)
    seed = int(graph.node_of[int(rng.integers(data.n))])
    clusters, cluster_cell = [], []
    while (left_in >= k).any():
        alive = np.flatnonzero((remaining > 0) & (left_in[cell] >= k))
        seed = int(alive[np.argmax(graph.distances_from(seed)[alive])])
        members = [take(seed, min(remaining[seed], k))]
        state = nodes.take([seed])
        size = len(members[0])
        while size < k:
            alive = np.flatnonzero((remaining > 0) & (cell == cell[seed]))
            best = int(alive[np.argmin(coster.merge_cost(state, nodes, alive))])
            state = coster.merge_one(state, nodes, best)
            members.append(take(best, min(remaining[best], k - size)))
            size += len(members[-1])
        class_of[np.concatenate(members)] = len(clusters)
        state.size = np.array([size])
        clusters.append(state)
        cluster_cell.append(cell[seed])
        left_in[cell[seed]] -= size
    if remaining.any():
        states = GroupStates(*(np.concatenate([getattr(s, f) for s in clusters])
                               for f in ("lo", "hi", "level", "leaf", "size")))
        cluster_cell = np.asarray(cluster_cell)
        rest = np.concatenate([order[starts[v] + taken[v]:starts[v + 1]]
                               for v in np.flatnonzero(remaining > 0)])
        for row in np.sort(rest):
            merged = coster.merge(coster.singletons([row]), states)
            growth = coster.loss(merged) - coster.loss(states)
            growth[cluster_cell != cell[graph.node_of[row]]] = np.inf
            best = int(np.argmin(growth))
            states.lo[best], states.hi[best] = merged.lo[best], merged.hi[best]
            states.level[best] = merged.level[best]
            states.size[best] += 1
            class_of[row] = best
    return class_of


def mixed_table(seed, n=300):
    """Numbers with duplicates, a categorical column and a numeric column with a tree."""
    rng = np.random.default_rng(seed)
    return pd.DataFrame({"a": rng.integers(0, 40, n), "b": rng.choice(list("pqrstuv"), n),
                         "age": rng.integers(20, 80, n), "c": rng.integers(0, 4, n) * 2.5,
                         "s": rng.choice(["x", "y"], n)})


def mixed_schema():
    return kg.Schema(quasi_identifiers=["a", "b", "age", "c"], sensitive=["s"],
                     numeric=["a", "c"],
                     hierarchies={"age": intervals(range(20, 80), widths=[5, 10, 30],
                                                   name="age")})


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("k", [2, 3, 7])
def test_same_clusters_as_the_unpruned_procedure(seed, k):
    data = kg.encode(mixed_table(seed), mixed_schema())
    got = k_member(data, PrivacyModel(k), rng=np.random.default_rng(seed)).class_of
    want = reference_k_member(data, k, np.random.default_rng(seed))
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("seed", range(3))
def test_same_clusters_with_lazy_distances(seed, monkeypatch):
    # above MAX_MATRIX_CODES codes the graph evaluates NumericGap / LevelGap on the fly
    monkeypatch.setattr(distances_module, "MAX_MATRIX_CODES", 8)
    data = kg.encode(mixed_table(seed, n=200), mixed_schema())
    kinds = {type(p).__name__ for p in RecordGraph(data).parts}
    assert {"NumericGap", "LevelGap", "ndarray"} == kinds
    got = k_member(data, PrivacyModel(4), rng=np.random.default_rng(seed)).class_of
    np.testing.assert_array_equal(got, reference_k_member(data, 4, np.random.default_rng(seed)))


def test_same_clusters_on_an_adult_sample(adult_dir):
    table = pd.read_csv(adult_dir / "adult.csv", sep=";").sample(1500, random_state=1)
    qis = ["sex", "age", "race", "marital-status", "education", "native-country",
           "workclass", "occupation"]
    schema = kg.Schema(quasi_identifiers=qis, sensitive=["salary-class"],
                       hierarchies=kg.load_hierarchies(adult_dir))
    data = kg.encode(table, schema)
    got = k_member(data, PrivacyModel(5), rng=np.random.default_rng(7)).class_of
    np.testing.assert_array_equal(got, reference_k_member(data, 5, np.random.default_rng(7)))


def test_same_clusters_with_boundaries():
    rng = np.random.default_rng(0)
    cities = ["Geza", "Aswan", "Luxor", "Helwan", "Fayoum", "Minya", "Alex", "Tanta",
              "Damietta"]
    table = pd.DataFrame({"location": rng.choice(cities, 150),
                          "age": rng.integers(20, 80, 150),
                          "disease": rng.choice(["flu", "cancer", "hiv"], 150)})
    schema = kg.Schema(quasi_identifiers=["location", "age"], sensitive=["disease"],
                       hierarchies={"location": kg.datasets.paper_002_location(),
                                    "age": intervals(range(100), widths=[10, 20, 40],
                                                     name="age")})
    data = kg.encode(table, schema)
    got = k_member(data, PrivacyModel(5), rng=np.random.default_rng(3),
                   respect_boundaries=True).class_of
    want = reference_k_member(data, 5, np.random.default_rng(3), respect_boundaries=True)
    np.testing.assert_array_equal(got, want)


def test_default_seed_is_deterministic():
    table = mixed_table(9)
    a = kg.anonymize(table, mixed_schema(), k=4, algorithm="k-member")
    b = kg.anonymize(table, mixed_schema(), k=4, algorithm="k-member")
    assert [sorted(c) for c in a.classes] == [sorted(c) for c in b.classes]
