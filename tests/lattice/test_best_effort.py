"""The best-effort search, the exact/best-effort switch and the exact search on wide lattices."""

import sys

import numpy as np
import pandas as pd
import pytest

import kanon_graph as kg
from kanon_graph.lattice import optimal_search
from kanon_graph.privacy import PrivacyModel

from test_optimal import _exhaustive, _random_case


def _wide_case(seed, d=6):
    """A seeded table of ``d`` quasi-identifiers (a wide, small lattice)."""
    rng = np.random.default_rng(seed)
    columns, hierarchies = {}, {}
    for j in range(d):
        rows = [[f"v{j}_{i}", f"g{j}_{i // 2}", "*"] for i in range(4)]
        hierarchies[f"a{j}"] = kg.Hierarchy.from_rows(rows, name=f"a{j}")
        columns[f"a{j}"] = [f"v{j}_{i}" for i in rng.integers(0, 4, size=120)]
    columns["s"] = rng.choice(["x", "y", "z"], size=120)
    table = pd.DataFrame(columns)
    schema = kg.Schema(quasi_identifiers=list(hierarchies), sensitive=["s"],
                       hierarchies=hierarchies, categorical=list(hierarchies))
    return table, schema


@pytest.mark.parametrize("seed", range(2))
@pytest.mark.parametrize("metric", ["loss", "discernibility", "height", "precision"])
def test_exact_search_equals_exhaustive_on_wide_lattices(seed, metric):
    table, schema = _wide_case(seed)
    data = kg.encode(table, schema)
    for suppression, kw in ((0.0, {}), (0.1, {}), (0.1, {"l": 2})):
        model = PrivacyModel(3, **kw).bind(data)
        expected = _exhaustive(data, model, metric, suppression)
        found = optimal_search(data, model, metric=metric, suppression=suppression, exact=True)
        assert found.levels == expected[3]
        assert found.stats["proven_optimal"] is True


def test_best_effort_reports_itself_and_is_deterministic():
    table, schema = _wide_case(3)
    data = kg.encode(table, schema)
    model = PrivacyModel(3)
    runs = [optimal_search(data, model, suppression=0.05, exact=False, max_checks=60,
                           rng=np.random.default_rng(7)) for _ in range(2)]
    assert runs[0].levels == runs[1].levels and runs[0].value == runs[1].value
    assert runs[0].stats["proven_optimal"] is False
    assert runs[0].stats["search"] == "best-effort"
    assert 0 < runs[0].stats["nodes_checked"] <= 60
    exact = optimal_search(data, model, suppression=0.05, exact=True)
    assert runs[0].value >= exact.value - 1e-12       # never better than the optimum
    engine = kg.lattice.FrequencyEngine(data)
    assert engine.is_anonymous(runs[0].levels, model, 0.05)


def test_best_effort_never_worse_than_datafly():
    table, schema = _wide_case(4, d=7)
    res = kg.anonymize(table, schema, k=4, suppression=0.05, algorithm="optimal",
                       exact=False, max_checks=200)
    fly = kg.anonymize(table, schema, k=4, suppression=0.05, algorithm="datafly")
    assert res.metrics["loss"] <= fly.metrics["loss"] + 1e-12
    assert res.stats["proven_optimal"] is False and res.verification.holds


def test_default_switches_by_lattice_size(monkeypatch):
    data = kg.encode(*_wide_case(5))
    assert optimal_search(data, PrivacyModel(3)).stats["proven_optimal"] is True
    monkeypatch.setattr(sys.modules["kanon_graph.lattice.optimal"], "EXACT_UP_TO", 10)
    assert optimal_search(data, PrivacyModel(3)).stats["proven_optimal"] is False


@pytest.mark.parametrize("option, value", [("max_checks", 0), ("time_limit", -1.0)])
def test_bad_budget_is_refused(option, value):
    table, schema = _wide_case(0)
    with pytest.raises(ValueError, match=f"'{option}' parameter"):
        kg.anonymize(table, schema, k=3, algorithm="optimal", exact=False, **{option: value})


def test_random_cases_still_match():
    table, schema = _random_case(2)
    data = kg.encode(table, schema)
    expected = _exhaustive(data, PrivacyModel(3), "loss", 0.1)
    assert optimal_search(data, PrivacyModel(3), suppression=0.1).levels == expected[3]
