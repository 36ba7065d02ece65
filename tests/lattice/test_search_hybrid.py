"""The hybrid RV search (section 5.3.4): the local pointers, then the global search."""

import pytest

import kanon_graph as kg
from kanon_graph.lattice.rv.search_global import rv_global
from kanon_graph.lattice.rv.search_hybrid import rv_hybrid
from kanon_graph.lattice.rv.search_local import rv_local
from kanon_graph.privacy import PrivacyModel

QIS = ["sex", "age", "race", "marital-status", "education"]


@pytest.fixture(scope="module")
def adult_sample(adult_table, adult_schema):
    sample = adult_table.iloc[::10].reset_index(drop=True)
    schema = kg.Schema(quasi_identifiers=QIS,
                       hierarchies={c: adult_schema.hierarchy(c) for c in QIS})
    return kg.encode(sample, schema)


@pytest.mark.parametrize("k,suppression", [(2, 0.0), (5, 0.0), (10, 0.02), (50, 0.0)])
def test_hybrid_equals_global_on_adult(adult_sample, k, suppression):
    options = {"weights": "correlation", "rules": {"age": [("20|21", 2), ("64|65", 1)]}}
    model = PrivacyModel(k)
    hybrid = rv_hybrid(adult_sample, model, suppression=suppression, **options)
    best = rv_global(adult_sample, model, suppression=suppression, **options)
    assert hybrid.levels == best.levels
    assert hybrid.stats["research_value"] == best.stats["research_value"]


def test_local_phase_comes_first_and_prunes(adult_sample):
    model = PrivacyModel(5)
    hybrid = rv_hybrid(adult_sample, model)
    local = rv_local(adult_sample, model)
    stats = hybrid.stats
    # the local phase makes the local search's tests, then the global phase goes on
    assert stats["local_tests"] == local.stats["tests"]
    assert stats["local_successes"] == local.stats["success_strings"]
    assert stats["tests"] > stats["local_tests"]
    # the local answer can only be improved on
    assert stats["research_value"] >= local.stats["research_value"]
    pruned = sum(stats["strings_pruned"].values())
    assert pruned + stats["tests"] + stats["known_without_test"] >= stats["strings_generated"]
