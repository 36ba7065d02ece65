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


@pytest.mark.parametrize("k, suppression", [(5, 0.05), (3, 0.0), (10, 0.02)])
def test_compiled_failing_runs_check_the_nodes_the_python_loop_checks(k, suppression,
                                                                      monkeypatch):
    from kanon_graph.lattice._check_loop import FailingRun

    data = _nearly_unique()
    model = PrivacyModel(k=k)
    ran = []
    real = FailingRun.run

    def counted(self, *args):
        out = real(self, *args)
        ran.append(len(out[0]))
        return out

    monkeypatch.setattr(FailingRun, "run", counted)
    compiled = optimal_search(data, model, suppression=suppression, exact=True)
    assert sum(ran) > 0                          # the compiled loop did check nodes
    ran.clear()
    # a progress callback keeps every check in the Python loop
    python = optimal_search(data, model, suppression=suppression, exact=True,
                            progress=lambda done, total, text: None)
    assert compiled.levels == python.levels
    for key in ("nodes_checked", "nodes_tagged", "nodes_not_anonymous", "nodes_pruned"):
        assert compiled.stats[key] == python.stats[key], key
    # the same nodes checked, in the same order, with the same outcomes
    assert compiled.status._checked == python.status._checked
    assert not ran                               # and the progress run did not use it


def test_failing_run_tags_what_it_checked_and_stops_at_a_passing_node():
    from kanon_graph.lattice import Lattice
    from kanon_graph.lattice._check_loop import FailingRun
    from kanon_graph.lattice.node_metrics import node_metric
    from kanon_graph.lattice.node_space import CandidateQueue, NodeSpace

    data = _nearly_unique(n=2000)
    engine = FrequencyEngine(data)
    engine.frequency_set((0,) * 6)                    # the bottom, packed: the run's source
    space = NodeSpace(Lattice(data.heights), node_metric("loss", data, 0))
    queue = CandidateQueue(space, highest=False)      # from the bottom up: failures first
    state = np.zeros(space.total, dtype=np.int8)
    none = np.zeros(space.total, dtype=bool)
    run = FailingRun(space, engine, 5, 0, queue)
    checked, tagged, passed, climbed = run.run(state, none, none.copy(),
                                               [np.inf, space.total, 0])
    plain = FrequencyEngine(data, compiled=False)
    for i in checked.tolist():                       # every one fails, everything below it tagged
        assert plain.frequency_set(tuple(space.nodes[i])).failing_records(5) > 0
        assert (state[space.below(i)] == 2).all()
    assert len(checked) > 0 and tagged >= len(checked)
    stop = int(queue.order[queue.at])                 # where it stopped: a passing candidate
    assert state[stop] == 0
    assert plain.frequency_set(tuple(space.nodes[stop])).failing_records(5) == 0


def test_node_space_successors_are_the_lattice_successors():
    from kanon_graph.lattice import Lattice
    from kanon_graph.lattice.node_space import NodeSpace

    class Height:
        def lower_bound(self, nodes):
            return nodes.sum(axis=1).astype(float)

    lattice = Lattice([2, 0, 3, 1])
    space = NodeSpace(lattice, Height())
    for i in range(space.total):
        node = tuple(int(v) for v in space.nodes[i])
        assert space.successors(i) == [space.index(s) for s in lattice.successors(node)]


def test_source_cache_packed_arrays_follow_stores_and_drops():
    from kanon_graph.lattice._frequency_sets import FrequencySet
    from kanon_graph.lattice.source_cache import SourceCache

    rng = np.random.default_rng(3)
    cache = SourceCache(2, max_tuples=60)
    cache.packed_arrays()                           # built empty, then kept up to date
    for step in range(40):
        m = int(rng.integers(1, 15))
        levels = (step, int(rng.integers(0, 3)))
        cache.store(FrequencySet(levels, None, rng.integers(1, 9, size=m),
                                 keys=rng.permutation(64)[:m], widths=[3, 3]))
        levels_out, keys, counts, starts = cache.packed_arrays()
        live = {tuple(row): (keys[starts[r]:starts[r + 1]], counts[starts[r]:starts[r + 1]])
                for r, row in enumerate(levels_out.tolist()) if row[0] != np.iinfo(np.int64).max}
        assert set(live) == set(cache.levels())
        for lv, (k, n) in live.items():
            fs = cache.peek(lv)
            assert np.array_equal(k, fs.packed[0]) and np.array_equal(n, fs.packed[1])


@pytest.mark.parametrize("weighted", [False, True])
def test_rows_are_grouped_by_one_hash_pass_into_the_numpy_engines_groups(monkeypatch,
                                                                          weighted):
    from kanon_graph.lattice import frequency

    data = _nearly_unique(n=3000)
    if weighted:                      # distinct tuples weighted by their counts
        weights = np.random.default_rng(2).integers(1, 5, size=len(data.table))
        data = kg.encode(data.table, data.schema, weights=weights)
    truth = FrequencyEngine(data, compiled=False).frequency_set((0,) * 6, rollup=False)

    def no_sort(*args, **kwargs):
        raise AssertionError("the compiled engine sorted the rows' keys")

    monkeypatch.setattr(frequency, "group_keys", no_sort)
    fs = FrequencyEngine(data).frequency_set((0,) * 6, rollup=False)
    assert fs.packed is not None                     # kept packed, like a roll-up's set
    assert np.array_equal(fs.codes, truth.codes) and np.array_equal(fs.counts, truth.counts)
