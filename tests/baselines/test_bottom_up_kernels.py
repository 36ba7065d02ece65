"""The compiled partner search of bottom-up gives the groups of the plain numpy scan.

The reference below is Xu et al.'s bottom-up method (section 4.1) written
directly with numpy, every live group scored for every small group (as the
library did before the kernel); the compiled search must not change a
single assignment on seeded tables with duplicates, hierarchies, numeric
trees and generalization boundaries.
"""

import numpy as np
import pandas as pd
import pytest

import kanon_graph as kg
from kanon_graph.baselines import bottom_up
from kanon_graph.records._groups import GroupCoster
from kanon_graph.hierarchy import intervals
from kanon_graph.privacy import PrivacyModel
from kanon_graph.recoding.boundaries import cells_to_suppress, has_boundaries, magval_cells
from kanon_graph.records import RecordGraph


def reference_bottom_up(data, k, respect_boundaries=False):
    """Section 4.1 of Xu et al. (2006), scanning every live group for every small one."""
    graph = RecordGraph(data)
    coster = GroupCoster(data, cost="ncp")
    states = coster.singletons(graph.first_record)
    states.size = graph.counts.copy()
    order = np.argsort(graph.node_of, kind="stable")
    bounds = np.concatenate([[0], np.cumsum(graph.counts)])
    members = [order[bounds[g]:bounds[g + 1]] for g in range(graph.n_nodes)]
    loss = np.zeros(graph.n_nodes)
    alive = np.ones(graph.n_nodes, dtype=bool)
    cell = np.zeros(graph.n_nodes, dtype=np.int64)
    if respect_boundaries and has_boundaries(data):
        cells = magval_cells(data)
        cells[cells_to_suppress(data, PrivacyModel(k), cells, None, "bottom-up")] = -1
        cell = cells[graph.first_record]
        alive &= cell >= 0

    def set_state(g, rows):
        fresh = coster.state_of(rows)
        states.lo[g], states.hi[g] = fresh.lo[0], fresh.hi[0]
        states.level[g], states.leaf[g] = fresh.level[0], fresh.leaf[0]
        states.size[g] = len(rows)
        loss[g] = coster.loss(fresh)[0]

    while True:
        small = np.flatnonzero(alive & (states.size < k))
        if len(small) == 0:
            break
        for g in small:
            if not alive[g] or states.size[g] >= k:
                continue
            others = np.flatnonzero(alive & (cell == cell[g]))
            others = others[others != g]
            one = states.take([g])
            union = (one.size[0] + states.size[others]) * coster.merge_cost(one, states, others)
            best = int(others[np.argmin(union - loss[others])])
            if states.size[g] + states.size[best] >= 2 * k:
                rows = members[best]
                cost = coster.merge_cost(one, coster.singletons(rows), np.arange(len(rows)))
                moved = np.argsort(cost, kind="stable")[:k - states.size[g]]
                keep = np.ones(len(rows), dtype=bool)
                keep[moved] = False
                members[g] = np.concatenate([members[g], rows[moved]])
                members[best] = rows[keep]
                set_state(best, members[best])
            else:
                members[g] = np.concatenate([members[g], members[best]])
                members[best] = members[best][:0]
                alive[best] = False
            set_state(g, members[g])
    class_of = np.full(data.n, -1, dtype=np.int64)
    for label, g in enumerate(np.flatnonzero(alive)):
        class_of[members[g]] = label
    return class_of


def mixed_table(seed, n=250):
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


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("k", [2, 4, 9])
def test_same_groups_as_the_numpy_scan(seed, k):
    data = kg.encode(mixed_table(seed), mixed_schema())
    np.testing.assert_array_equal(bottom_up(data, PrivacyModel(k)).class_of,
                                  reference_bottom_up(data, k))


def test_same_groups_on_an_adult_sample(adult_dir):
    table = pd.read_csv(adult_dir / "adult.csv", sep=";").sample(1200, random_state=2)
    qis = ["sex", "age", "race", "marital-status", "education", "native-country",
           "workclass", "occupation"]
    schema = kg.Schema(quasi_identifiers=qis, sensitive=["salary-class"],
                       hierarchies=kg.load_hierarchies(adult_dir))
    data = kg.encode(table, schema)
    np.testing.assert_array_equal(bottom_up(data, PrivacyModel(5)).class_of,
                                  reference_bottom_up(data, 5))


def test_same_groups_with_boundaries():
    rng = np.random.default_rng(1)
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
    np.testing.assert_array_equal(
        bottom_up(data, PrivacyModel(5), respect_boundaries=True).class_of,
        reference_bottom_up(data, 5, respect_boundaries=True))
