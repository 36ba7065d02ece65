"""Incognito: the exact set of anonymous full-domain nodes, found with pruning."""

import itertools
import sys
from pathlib import Path

import numpy as np
import pytest

import kanon_graph as kg
from kanon_graph.lattice import FrequencyEngine
from kanon_graph.privacy import PrivacyModel

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from test_common import random_schema, random_table  # noqa: E402


def brute_minimal(data, model, suppression=0.0):
    engine = FrequencyEngine(data)
    ok = [n for n in itertools.product(*[range(h + 1) for h in data.heights])
          if engine.is_anonymous(n, model, suppression)]
    return sorted(n for n in ok
                  if not any(m != n and all(a <= b for a, b in zip(m, n)) for m in ok))


@pytest.mark.parametrize("k, suppression", [(2, None), (5, None), (5, 0.05)])
def test_minimal_nodes_match_brute_force(k, suppression):
    table, schema = random_table(150, 4), random_schema()
    res = kg.anonymize(table, schema, k=k, algorithm="incognito", suppression=suppression)
    data = kg.encode(table, schema)
    expected = brute_minimal(data, PrivacyModel(k), suppression or 0.0)
    assert sorted(map(tuple, res.stats["minimal_anonymous"])) == expected
    assert tuple(res.levels.values()) in expected


def test_pruning_checks_fewer_nodes_than_the_subsets_hold():
    table, schema = random_table(300, 5), random_schema()
    res = kg.anonymize(table, schema, k=5, algorithm="incognito")
    heights = kg.encode(table, schema).heights
    all_subset_nodes = int(np.prod([h + 2 for h in heights])) - 1
    assert res.stats["nodes_checked"] < sum(res.stats["candidates"]) < all_subset_nodes
    assert res.stats["rollups"] > 0


@pytest.mark.parametrize("metric", ["loss", "discernibility"])
def test_chosen_node_is_the_optimum(metric):
    table, schema = random_table(200, 6), random_schema()
    inc = kg.anonymize(table, schema, k=4, algorithm="incognito", metric=metric)
    opt = kg.anonymize(table, schema, k=4, algorithm="optimal", metric=metric)
    assert inc.stats["metric_value"] == pytest.approx(opt.stats["metric_value"])


def test_l_diversity():
    table, schema = random_table(200, 7), random_schema()
    res = kg.anonymize(table, schema, k=3, l=3, algorithm="incognito")
    assert res.verification.l_achieved >= 3
    data = kg.encode(table, schema)
    model = PrivacyModel(3, l=3).bind(data)
    assert sorted(map(tuple, res.stats["minimal_anonymous"])) == brute_minimal(data, model)


def test_adult_sample(adult_table, adult_schema):
    sample = adult_table.sample(2000, random_state=0)
    res = kg.anonymize(sample, adult_schema, k=10, algorithm="incognito")
    opt = kg.anonymize(sample, adult_schema, k=10, algorithm="optimal")
    assert res.stats["metric_value"] == pytest.approx(opt.stats["metric_value"])
    assert res.verification.k_achieved >= 10


@pytest.mark.parametrize("k, suppression", [(2, None), (4, 0.05)])
def test_minimal_nodes_with_boundaries_match_brute_force(k, suppression):
    """With respect_boundaries the minimal nodes are those of the capped lattice."""
    from kanon_graph.lattice import boundary_levels

    table, schema = random_table(200, 5), random_schema()
    schema.hierarchies["job"].mark_magval("office").mark_magval("care")
    schema.hierarchies["age"].mark_magval("[40-59]")
    data = kg.encode(table, schema)
    engine = FrequencyEngine(data, capped=True)
    fraction = suppression or 0.0
    ok = [n for n in itertools.product(*[range(b + 1) for b in boundary_levels(data)])
          if engine.is_anonymous(n, PrivacyModel(k), fraction)]
    minimal = sorted(n for n in ok
                     if not any(m != n and all(a <= b for a, b in zip(m, n)) for m in ok))
    res = kg.anonymize(table, schema, k=k, algorithm="incognito", suppression=suppression,
                       respect_boundaries=True)
    assert sorted(tuple(m) for m in res.stats["minimal_anonymous"]) == minimal
    assert tuple(res.levels.values()) in minimal
    assert kg.constraint_violations(res) == []
    assert kg.registry.get_algorithm("incognito").supports_boundaries
