"""Systematic clustering (Kabir, Wang & Bertino 2011): hand-derived clusterings and bounds."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import kanon_graph as kg
from kanon_graph.baselines.systematic import _cluster
from kanon_graph.encoding import encode
from kanon_graph.records import RecordGraph


def _one_column(values):
    table = pd.DataFrame({"x": values, "s": ["a"] * len(values)})
    schema = kg.Schema(quasi_identifiers=["x"], sensitive=["s"])
    return table, schema


def _groups(values, class_of):
    out = {}
    for v, c in zip(values, class_of):
        out.setdefault(int(c), []).append(v)
    return sorted(sorted(g) for g in out.values())


THREE_GROUPS = [0, 1, 2, 50, 51, 100, 101, 102, 103]


@pytest.mark.parametrize("first", range(len(THREE_GROUPS)))
def test_three_groups_from_every_first_record(first):
    # n = 9, k = 3: m = floor(9/3) = 3 seeds (distances |a - b| / 103).
    # Step 1 from a start in {0, 1, 2} (say 0): the furthest record is 103;
    # then min distances to {0, 103}: 50 -> 50, 51 -> 51, the rest <= 3, so
    # the third seed is 51. From 103 or 102 the second seed is 0 and the third
    # is 51 again (min(50, 53) = 50 < min(51, 52) = 51); from 100 or 101 the
    # third is 50 (tie or smaller); from 50 or 51 the seeds are 103 then 0.
    # Step 2 (nearest seed): {0, 1, 2}, {50, 51}, {100, ..., 103}: sizes 3, 2, 4.
    # Step 3: the B cluster needs one record from a cluster above k = 3: only
    # the C cluster (4) qualifies, and its record nearest to B's seed is 100.
    # Step 4: no cluster has 2k = 6 records. So whatever the start:
    table, schema = _one_column(THREE_GROUPS)
    graph = RecordGraph(encode(table, schema))
    class_of, seeds, n_seeded = _cluster(graph, 3, graph.node_of[first])
    assert _groups(THREE_GROUPS, class_of) == [[0, 1, 2], [50, 51, 100], [101, 102, 103]]
    assert n_seeded == 3 and len(seeds) == 3


def test_public_run_matches_the_steps():
    table, schema = _one_column(THREE_GROUPS)
    res = kg.anonymize(table, schema, k=3, algorithm="systematic", seed=7)
    got = sorted(sorted(table["x"][c].tolist()) for c in res.classes)
    assert got == [[0, 1, 2], [50, 51, 100], [101, 102, 103]]
    assert res.stats["clusters"] == 3 and res.stats["seeds"] == 3


def test_a_large_cluster_is_split_into_pieces_of_k():
    # n = 10, k = 3: m = 3, but there are only two distinct tuples (5 and 9),
    # so seeding stops after 2 seeds. Step 2: {5 x 7}, {9 x 3}. Step 3: none
    # below 3. Step 4: the 5-cluster has 7 >= 6 records; all are at distance
    # 0, so the first row is the furthest and it leaves with the next two
    # rows (0, 1, 2); 4 records remain (< 6). Final sizes 3, 4, 3.
    values = [5] * 7 + [9] * 3
    table, schema = _one_column(values)
    graph = RecordGraph(encode(table, schema))
    class_of, seeds, n_seeded = _cluster(graph, 3, 0)
    assert n_seeded == 2 and len(seeds) == 3
    assert sorted(np.bincount(class_of).tolist()) == [3, 3, 4]
    assert len(set(class_of[:3].tolist())) == 1 and class_of[0] != class_of[3]


def test_six_records_give_two_clusters_like_paper_001():
    # paper 001, section 5.4: on the six records of Table 1 (k = 3) the
    # systematic clustering forms two clusters (floor(6 / 3) = 2)
    schema = kg.Schema(quasi_identifiers=["age", "gender", "zip"], sensitive=["disease"],
                       identifiers=["name"], categorical=["zip"])
    res = kg.anonymize(kg.datasets.paper_001_table(), schema, k=3, algorithm="systematic")
    assert res.stats["clusters"] == 2
    assert sorted(len(c) for c in res.classes) == [3, 3]


def _census(n, seed):
    return kg.datasets.make_census(n, seed=seed), kg.datasets.census_schema()


@pytest.mark.parametrize("k", [2, 3, 5, 9])
@pytest.mark.parametrize("hierarchies", [True, False])
def test_every_cluster_has_k_to_2k_minus_1_records(k, hierarchies):
    table, schema = _census(600, seed=k)
    if not hierarchies:
        schema = kg.Schema(quasi_identifiers=schema.quasi_identifiers,
                           sensitive=schema.sensitive, categorical=schema.categorical)
    data = encode(table, schema)
    graph = RecordGraph(data)
    class_of, _, _ = _cluster(graph, k, 0)
    sizes = np.bincount(class_of)
    assert sizes.sum() == len(table)
    assert sizes.min() >= k and sizes.max() <= 2 * k - 1
    res = kg.anonymize(table, schema, k=k, algorithm="systematic", seed=1)
    assert min(len(c) for c in res.classes) >= k


def test_same_seed_same_clusters():
    table, schema = _census(500, seed=3)
    a = kg.anonymize(table, schema, k=4, algorithm="systematic", seed=11)
    b = kg.anonymize(table, schema, k=4, algorithm="systematic", seed=11)
    assert a.stats["first_record"] == b.stats["first_record"]
    assert [c.tolist() for c in a.classes] == [c.tolist() for c in b.classes]
    assert a.table.equals(b.table)


def test_diversity_is_refused():
    table, schema = _census(100, seed=0)
    with pytest.raises(ValueError, match="algorithm 'systematic' does not take distinct "
                                         r"l-diversity \(it takes k-anonymity\)"):
        kg.anonymize(table, schema, k=3, l=2, algorithm="systematic")


def test_registered_as_local_and_hierarchy_free():
    info = kg.registry.get_algorithm("systematic")
    assert info.recoding == "local" and not info.needs_hierarchies
    assert "Kabir" in info.description


def test_paper_001_table_from_adult(adult_dir):
    # paper 001, section 5.3: Age, Gender, Zip code (here native-country),
    # Occupation sensitive
    table, schema = kg.baselines.paper_001_adult(adult_dir)
    assert list(table.columns) == ["age", "sex", "native-country", "occupation"]
    assert len(table) == 30162
    assert list(schema.quasi_identifiers) == ["age", "sex", "native-country"]
    assert list(schema.sensitive) == ["occupation"]
    res = kg.anonymize(table.head(3000), schema, k=4, algorithm="systematic")
    assert min(len(c) for c in res.classes) >= 4


def test_paper_001_table_names_a_missing_path(tmp_path):
    with pytest.raises(FileNotFoundError, match="nowhere"):
        kg.baselines.paper_001_adult(tmp_path / "nowhere")


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 6), st.sampled_from("abc")), min_size=1, max_size=40),
       st.integers(1, 40), st.integers(0, 39))
def test_sizes_are_bounded_on_any_small_table(rows, k, first):
    # duplicates, ties and k up to n: every record lands in one cluster of
    # k..2k-1 records (a single cluster of n records when n < 2k)
    k = min(k, len(rows))
    table = pd.DataFrame(rows, columns=["x", "c"]).assign(s="a")
    schema = kg.Schema(quasi_identifiers=["x", "c"], sensitive=["s"], categorical=["c"])
    graph = RecordGraph(encode(table, schema))
    class_of, seeds, _ = _cluster(graph, k, graph.node_of[first % len(rows)])
    sizes = np.bincount(class_of, minlength=len(seeds))
    assert sizes.sum() == len(rows) and len(sizes) == len(seeds)
    assert sizes.min() >= k and sizes.max() <= 2 * k - 1
