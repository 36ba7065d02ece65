"""The local RV search (Figure 5): Hi / Lo / Mid pointers per attribute."""

import math

import numpy as np
import pandas as pd
import pytest

import kanon_graph as kg
from kanon_graph.lattice.rv.search_local import local_loop, rv_local
from kanon_graph.privacy import PrivacyModel


def test_pointers_move_specific_on_success_and_general_on_failure():
    seen = local_loop([0, 0, 0], [4, 4, 2], lambda node: sum(node) >= 5)
    nodes = [node for node, _ in seen]
    assert nodes[0] == (2, 2, 1)                       # the midpoints
    for (node, ok), (after, _) in zip(seen, seen[1:]):
        if ok:
            assert all(a <= b for a, b in zip(after, node))   # towards specific
        else:
            assert all(a >= b for a, b in zip(after, node))   # towards general
    assert len(set(nodes)) == len(nodes)               # no string is decided twice


@pytest.mark.parametrize("height", [1, 2, 3, 5, 8, 13])
def test_one_attribute_is_an_exact_binary_search(height):
    for threshold in range(height + 1):
        seen = local_loop([0], [height], lambda node: node[0] >= threshold)
        successes = [node for node, ok in seen if ok]
        assert min(successes) == (threshold,)
        assert len(seen) <= math.ceil(math.log2(height + 1)) + 1


def test_every_failure_ends_at_the_most_general_string():
    seen = local_loop([0, 1], [3, 2], lambda node: node == (3, 2))
    assert seen[-1] == ((3, 2), True)
    assert all(not ok for _, ok in seen[:-1])


@pytest.mark.parametrize("seed", range(10))
def test_rv_local_finds_an_anonymous_string_in_few_tests(seed):
    rng = np.random.default_rng(seed)
    n = 120
    table = pd.DataFrame({"age": rng.integers(0, 100, n),
                          "zip": rng.choice([f"1{i:04d}" for i in range(30)], n),
                          "sex": rng.choice(["F", "M"], n)})
    schema = kg.Schema(quasi_identifiers=["age", "zip", "sex"], categorical=["zip"],
                       hierarchies={
                           "age": kg.hierarchy.intervals(range(0, 100), widths=[5, 10, 20, 40],
                                                         name="age"),
                           "zip": kg.hierarchy.masking([f"1{i:04d}" for i in range(30)],
                                                       levels=4, name="zip"),
                           "sex": kg.Hierarchy.from_rows([["F", "*"], ["M", "*"]], name="sex")})
    data = kg.encode(table, schema)
    k = int(rng.integers(2, 8))
    part = rv_local(data, PrivacyModel(k))
    engine = kg.lattice.FrequencyEngine(data)
    assert engine.is_anonymous(part.levels, PrivacyModel(k))
    bound = math.ceil(math.log2(max(data.heights) + 1)) + 1
    assert part.stats["tests"] <= bound
    assert part.stats["strings_pruned"] == {}


def test_rv_local_through_anonymize():
    table, schema = kg.datasets.paper_003_table(), kg.datasets.paper_003_schema()
    res = kg.anonymize(table, schema, k=3, algorithm="rv-local",
                       rv_tables={"age": [0.9, 0.6, 0.3, 0.0]})
    assert res.verification.k_achieved >= 3
    assert res.stats["research_value"] <= res.stats["max_research_value"]
    assert res.stats["success_strings"] >= 1
