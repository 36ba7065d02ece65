"""Packed frequency sets and k-checks that stop early (issue 47, item 4)."""

import itertools

import numpy as np
import pandas as pd
import pytest

import kanon_graph as kg
from kanon_graph.lattice import FrequencyEngine, optimal_search
from kanon_graph.privacy import PrivacyModel


def _nearly_unique(n=3000, seed=0):
    """Six attributes of 16 leaves each (binary hierarchies): nearly every tuple is unique."""
    rng = np.random.default_rng(seed)
    rows = [[f"v{i}", f"p{i // 2}", f"q{i // 4}", f"r{i // 8}", "*"] for i in range(16)]
    hierarchies = {f"a{j}": kg.Hierarchy.from_rows(rows, name=f"a{j}") for j in range(6)}
    table = pd.DataFrame({name: [f"v{i}" for i in rng.integers(0, 16, size=n)]
                          for name in hierarchies})
    schema = kg.Schema(quasi_identifiers=list(hierarchies), hierarchies=hierarchies,
                       categorical=list(hierarchies))
    return kg.encode(table, schema)


@pytest.mark.parametrize("k, budget", [(2, 0), (5, 30), (20, 300)])
def test_check_k_agrees_with_the_unpacked_numpy_engine_on_every_node(k, budget):
    data = _nearly_unique(n=600)
    packed = FrequencyEngine(data)
    plain = FrequencyEngine(data, compiled=False)
    heights = [2, 1, 4, 3, 0, 2]             # a sub-lattice, visited in a scrambled order
    nodes = list(itertools.product(*[range(h + 1) for h in heights]))
    np.random.default_rng(1).shuffle(nodes)
    for node in nodes:
        node = tuple(int(v) for v in node)
        ok, fs = packed.check_k(node, k, budget)
        truth = plain.frequency_set(node)
        assert ok == (truth.failing_records(k) <= budget)
        if fs is not None:                   # the same groups, sorted the same way
            assert np.array_equal(fs.codes, truth.codes)
            assert np.array_equal(fs.counts, truth.counts)
        else:                                # stopped: it had more groups than can pass
            assert truth.n_groups > (data.records + budget * (k - 1)) // k
            assert not ok


def test_check_k_stops_a_roll_up_of_a_node_that_cannot_pass():
    data = _nearly_unique()
    engine = FrequencyEngine(data)
    bottom = engine.frequency_set((0,) * 6)
    read = engine.groups_read
    ok, fs = engine.check_k((1, 0, 0, 0, 0, 0), 5, 0)
    assert not ok and fs is None
    assert engine.rollups_stopped == 1
    # a passing node has at most n / k = 600 groups: the pass stops soon after that many
    assert 600 < engine.groups_read - read < bottom.n_groups
    assert engine.cached((1, 0, 0, 0, 0, 0)) is None


def test_exact_search_with_stopped_roll_ups_finds_the_same_optimum():
    data = _nearly_unique()
    model = PrivacyModel(k=5)
    fast = optimal_search(data, model, suppression=0.05, exact=True)
    slow = optimal_search(data, model, suppression=0.05, exact=True,
                          engine=FrequencyEngine(data, compiled=False))
    assert fast.levels == slow.levels
    assert fast.value == pytest.approx(slow.value, rel=1e-12)
    assert fast.stats["nodes_checked"] == slow.stats["nodes_checked"]
    assert fast.stats["rollups_stopped"] > 0
    assert slow.stats["rollups_stopped"] == 0
