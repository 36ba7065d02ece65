"""The exact search's climbing after a failing candidate (issue 47, 12 QIs exact).

A climb tags a node failing only after checking it, so the rule holds when
every node the search marks failing really fails, every node it marks
anonymous really passes, and the optimum is the brute-force optimum; these
tests check all three on random small tables against a node-by-node count.
"""

import functools
import importlib
import itertools

import numpy as np
import pandas as pd
import pytest

import kanon_graph as kg
from kanon_graph.lattice import FrequencyEngine, optimal_search
from kanon_graph.lattice.exact import exact_search
from kanon_graph.lattice.frequency import suppression_budget
from kanon_graph.lattice.node_metrics import node_metric
from kanon_graph.privacy import PrivacyModel


def _random_table(seed, n=400):
    """3 to 5 attributes, leaves 4 to 16, binary or flat hierarchies, skewed values."""
    rng = np.random.default_rng(seed)
    hierarchies, columns = {}, {}
    for j in range(int(rng.integers(3, 6))):
        leaves = int(rng.choice([4, 8, 16]))
        if rng.random() < 0.5:        # binary: leaf, pairs, quarters, ..., "*"
            depth = leaves.bit_length() - 1
            rows = [[f"v{i}"] + [f"g{level}_{i >> level}" for level in range(1, depth)] + ["*"]
                    for i in range(leaves)]
        else:                         # two levels: halves, then "*"
            rows = [[f"v{i}", f"h{i * 2 // leaves}", "*"] for i in range(leaves)]
        name = f"a{j}"
        hierarchies[name] = kg.Hierarchy.from_rows(rows, name=name)
        weights = rng.dirichlet(np.full(leaves, 0.7))
        columns[name] = [f"v{i}" for i in rng.choice(leaves, size=n, p=weights)]
    schema = kg.Schema(quasi_identifiers=list(hierarchies), hierarchies=hierarchies,
                       categorical=list(hierarchies))
    return kg.encode(pd.DataFrame(columns), schema)


def _brute_force(data, k, suppression):
    """Every node's outcome, and the least Loss among the passing nodes."""
    engine = FrequencyEngine(data, compiled=False)
    budget = suppression_budget(suppression, data.records)
    scorer = node_metric("loss", data, budget)
    passes, best = {}, np.inf
    for node in itertools.product(*[range(h + 1) for h in data.heights]):
        fs = engine.frequency_set(node)
        failing = fs.counts < k
        passes[node] = int(fs.counts[failing].sum()) <= budget
        if passes[node]:
            best = min(best, scorer.value(node, fs, failing))
    return passes, best


def _no_climb(monkeypatch):
    # the module (``kanon_graph.lattice.optimal`` the attribute is the function)
    optimal_module = importlib.import_module("kanon_graph.lattice.optimal")
    monkeypatch.setattr(optimal_module, "exact_search",
                        functools.partial(exact_search, climb=False))


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("k, suppression", [(2, 0.0), (3, 0.02), (5, 0.1)])
@pytest.mark.parametrize("progress", [None, lambda done, total, text: None])
def test_climbing_marks_only_true_outcomes_and_keeps_the_optimum(seed, k, suppression,
                                                                 progress, monkeypatch):
    # progress=None runs the compiled loop, a callback the Python one: both climb
    data = _random_table(seed)
    passes, best = _brute_force(data, k, suppression)
    model = PrivacyModel(k=k)
    res = optimal_search(data, model, suppression=suppression, exact=True, progress=progress)
    nodes = np.asarray(list(passes), dtype=np.int64)
    truth = np.asarray(list(passes.values()))
    failing = res.status.not_anonymous_mask(nodes)
    anonymous = res.status.anonymous_mask(nodes)
    assert not (failing & truth).any()           # no passing node was tagged failing
    assert not (anonymous & ~truth).any()        # nor a failing one anonymous
    assert res.levels is not None and passes[res.levels]
    assert res.value == pytest.approx(best, rel=1e-12, abs=1e-15)
    _no_climb(monkeypatch)                       # the same answer without climbing
    plain = optimal_search(data, model, suppression=suppression, exact=True,
                           progress=progress)
    assert (plain.levels, plain.value) == (res.levels, res.value)
    assert plain.stats["nodes_climbed"] == 0


def test_climbing_reads_fewer_groups_on_the_census(monkeypatch):
    # 8 quasi-identifiers, 20,000 rows, nearly unique tuples at the bottom: the
    # candidates just under the best value fail in bulk, as on the 12-QI table
    table = kg.datasets.make_census(20_000, seed=0)
    data = kg.encode(table, kg.datasets.census_schema())
    model = PrivacyModel(k=5)
    climbing = optimal_search(data, model, suppression=0.05, exact=True)
    _no_climb(monkeypatch)
    plain = optimal_search(data, model, suppression=0.05, exact=True)
    assert (climbing.levels, climbing.value) == (plain.levels, plain.value)
    assert climbing.stats["nodes_climbed"] > 0
    assert climbing.stats["groups_read"] < 0.75 * plain.stats["groups_read"]
    # fewer candidates rolled up from the bottom: the climbs covered the rest
    candidates = climbing.stats["nodes_checked"] - climbing.stats["nodes_climbed"]
    assert candidates < plain.stats["nodes_checked"]
