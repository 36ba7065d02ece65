"""The stepwise search's faster paths give what the plain ones gave (issue 47: stepwise under k).

Each new kernel or rewritten pass is compared with a plain reference on random
inputs: the class costs without each member against ``set_cost`` of the
members left, the agglomeration on class summaries against the one that walks
the members, the near-tuple index and the neighbour lists against their
lexsort forms; and the step search under k reads its frequency sets' counts
without sorting them.
"""

import heapq

import numpy as np
import pytest

import kanon_graph as kg
from kanon_graph import _jit
from kanon_graph.lattice._frequency_sets import FrequencySet
from kanon_graph.privacy import PrivacyModel
from kanon_graph.records import RecordGraph
from kanon_graph.records import _without, adjacent
from kanon_graph.records.costs import ClassCost, _set_cost_py
from kanon_graph.records.neighbours import block_edges
from kanon_graph.records.refine import node_neighbours
from kanon_graph.stepwise._steps import release_steps

from test_records_graph import random_schema, random_table


def _graph_cost(seed, metric):
    data = kg.encode(random_table(int(np.random.default_rng(seed).integers(30, 200)), seed),
                     random_schema())
    graph = RecordGraph(data)
    return data, graph, ClassCost(data, graph.codes, metric)


@pytest.mark.parametrize("compiled", [False, True])
@pytest.mark.parametrize("seed", range(6))
def test_costs_without_each_member_are_set_cost_of_the_rest(seed, compiled):
    """Hierarchy, numeric-range and category-set attributes, every metric: the same floats."""
    metric = ["loss", "gcp", "discernibility"][seed % 3]
    data, graph, cost = _graph_cost(seed, metric)
    kernel = _without._costs_without if compiled else _without._costs_without_py
    rng = np.random.default_rng(seed)
    counts = graph.counts.astype(np.int64)
    for _ in range(40):
        m = int(rng.integers(2, min(graph.n_nodes, 25) + 1))
        members = rng.choice(graph.n_nodes, m, replace=False).astype(np.int64)
        out = np.zeros(m)
        kernel(members, m, cost.codes, counts, cost.tables, out,
               np.zeros(cost.tables[10].shape[0], dtype=np.int64))
        for i in range(m):
            rest = np.delete(members, i)
            assert out[i] == _set_cost_py(rest, m - 1, cost.codes, counts, cost.tables)


def _agglomerate_reference(labels, eu, ev, small_of, k, cell, codes, counts, tables):
    """The agglomeration costing every union from its members (as before the summaries)."""
    u = len(labels)
    n_classes = int(labels.max()) + 1
    parent = list(range(n_classes))
    members = [[] for _ in range(n_classes)]
    for x in range(u):
        members[labels[x]].append(x)
    size = [int(counts[np.asarray(m, dtype=np.int64)].sum()) for m in members]
    flag = list(small_of)
    version = [0] * n_classes

    def cost(nodes):
        return _set_cost_py(np.asarray(nodes, dtype=np.int64), len(nodes), codes, counts, tables)

    def find(x):
        while parent[x] != x:
            x = parent[x]
        return x

    own = [cost(m) if m else 0.0 for m in members]
    heap = []
    for e in range(len(eu)):
        a, b = labels[eu[e]], labels[ev[e]]
        if a == b or cell[a] != cell[b] or (size[a] >= k and size[b] >= k
                                            and not flag[a] and not flag[b]):
            continue
        heap.append((cost(members[a] + members[b]) - own[a] - own[b], e, 0, 0))
    heapq.heapify(heap)
    while heap:
        delta, e, va, vb = heapq.heappop(heap)
        a, b = find(labels[eu[e]]), find(labels[ev[e]])
        if a == b or (size[a] >= k and size[b] >= k and not flag[a] and not flag[b]):
            continue
        if va != version[a] or vb != version[b]:
            heapq.heappush(heap, (cost(members[a] + members[b]) - own[a] - own[b], e,
                                  version[a], version[b]))
            continue
        keep, gone = min(a, b), max(a, b)
        own[keep] = own[a] + own[b] + delta
        parent[gone] = keep
        size[keep] += size[gone]
        members[keep] = members[keep] + members[gone]
        members[gone] = []
        flag[keep] = False
        version[keep] += 1
        version[gone] += 1
    return np.asarray([find(labels[x]) for x in range(u)])


@pytest.mark.parametrize("seed", range(8))
def test_agglomeration_on_summaries_is_the_member_walk(seed, monkeypatch):
    metric = ["loss", "gcp", "discernibility", "ncp"][seed % 4]
    data, graph, cost = _graph_cost(seed, metric)
    rng = np.random.default_rng(seed)
    u = graph.n_nodes
    eu, ev = block_edges(data, graph.codes, free=3)
    start = rng.integers(0, max(u // 2, 1), u).astype(np.int64) if seed % 2 \
        else np.arange(u, dtype=np.int64)
    start = np.unique(start, return_inverse=True)[1].reshape(-1).astype(np.int64)
    n_classes = int(start.max()) + 1
    k = int(rng.integers(2, 9))
    small = rng.random(n_classes) < 0.2
    cell = np.zeros(n_classes, dtype=np.int64)
    counts = graph.counts.astype(np.int64)
    expected = _agglomerate_reference(start, eu, ev, small, k, cell, cost.codes, counts,
                                      cost.tables)
    monkeypatch.setattr(_jit, "PYTHON_WORK", 0)
    for kernel in (adjacent._agglomerate_py, adjacent._agglomerate):
        got, _ = kernel(start.copy(), eu, ev, small.copy(), k, cell, cost.codes, counts,
                        cost.tables)
        assert got.tolist() == expected.tolist()


def _block_edges_reference(data, codes, window=2, free=2):
    """The near-tuple index by lexsorts (as before one packed sort per grouping)."""
    from itertools import combinations

    u, d = codes.shape
    leaf_order = np.lexsort(tuple(codes[:, a] for a in range(d - 1, -1, -1)))
    rank = np.empty(u, dtype=np.int64)
    rank[leaf_order] = np.arange(u)
    dense = [np.unique(codes[:, a], return_inverse=True)[1].reshape(-1) for a in range(d)]
    groupings = []
    for r in range(1, min(free, d - 1) + 1):
        groupings += [[dense[b] for b in range(d) if b not in out]
                      for out in combinations(range(d), r)]
    for level in (1, 2):
        cols = []
        for a, attr in enumerate(data.attributes):
            h = attr.hierarchy
            col = h.level_map[min(level, h.height)][codes[:, a]] if h is not None else codes[:, a]
            cols.append(np.unique(col, return_inverse=True)[1].reshape(-1))
        groupings.append(cols)
    pairs = set()
    for cols in groupings:
        key = np.unique(np.column_stack(cols), axis=0, return_inverse=True)[1].reshape(-1)
        order = np.lexsort((rank, key))
        for step in range(1, window + 1):
            for x, y in zip(order[:-step], order[step:]):
                if key[x] == key[y]:
                    pairs.add((min(x, y), max(x, y)))
    pairs = sorted(pairs)
    return (np.asarray([p[0] for p in pairs], dtype=np.int64),
            np.asarray([p[1] for p in pairs], dtype=np.int64))


@pytest.mark.parametrize("seed", range(6))
def test_block_edges_are_the_lexsort_ones(seed):
    data, graph, _ = _graph_cost(seed, "loss")
    for free in (1, 2, 3):
        got = block_edges(data, graph.codes, free=free)
        expected = _block_edges_reference(data, graph.codes, free=free)
        assert [a.tolist() for a in got] == [a.tolist() for a in expected]


def test_block_edges_with_keys_too_wide_for_one_int64():
    """Codes spread so wide that key * rows overflows: the stable-sort path, same edges."""
    rng = np.random.default_rng(3)
    data, graph, _ = _graph_cost(3, "loss")
    codes = graph.codes.copy()
    codes[:, 0] = codes[:, 0] * 2 ** 20 + rng.integers(0, 2 ** 20, len(codes))
    codes[:, 1] = codes[:, 1] * 2 ** 20 + rng.integers(0, 2 ** 20, len(codes))
    flat = kg.encode(random_table(len(codes), 3), kg.Schema(
        quasi_identifiers=["age", "income", "sex", "job"], categorical=["age", "job"]))
    got = block_edges(flat, codes, free=2)
    expected = _block_edges_reference(flat, codes, free=2)
    assert [a.tolist() for a in got] == [a.tolist() for a in expected]


@pytest.mark.parametrize("seed", range(5))
def test_node_neighbours_are_the_lexsort_lists(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 60))
    e = int(rng.integers(0, 200))
    eu, ev = rng.integers(0, n, e), rng.integers(0, n, e)
    ptr, adj = node_neighbours(eu, ev, n)
    src, dst = np.concatenate([eu, ev]), np.concatenate([ev, eu])
    order = np.lexsort((dst, src))
    assert adj.tolist() == dst[order].tolist()
    assert ptr.tolist() == [0] + np.cumsum(np.bincount(src, minlength=n)).tolist()


def test_steps_under_k_never_sort_a_frequency_set(monkeypatch):
    """k alone needs a node's counts only: no frequency set is sorted and unpacked."""
    table = kg.datasets.make_census(4000, seed=1)
    data = kg.encode(table, kg.datasets.census_schema())
    model = PrivacyModel(10).bind(data)
    unpacked = []
    original = FrequencySet._unpack
    monkeypatch.setattr(FrequencySet, "_unpack",
                        lambda self: (unpacked.append(self.levels), original(self))[1])
    class_of, stats = release_steps(data, model)
    assert stats["nodes_checked"] > 10 and (class_of >= 0).sum() > 0
    assert unpacked == []


@pytest.mark.parametrize("compiled", [False, True])
@pytest.mark.parametrize("seed", range(4))
def test_batch_counts_are_the_engines(seed, compiled, monkeypatch):
    """The records each node releases under k, counted in a batch and by the frequency sets."""
    from kanon_graph.lattice.frequency import FrequencyEngine
    from kanon_graph.lattice.lattice import Lattice
    from kanon_graph.stepwise import _batch

    rng = np.random.default_rng(seed)
    table = kg.datasets.make_census(int(rng.integers(50, 300)), seed=seed)
    data = kg.encode(table, kg.datasets.census_schema())
    if seed % 2:                                  # weighted distinct tuples
        codes = np.column_stack([a.codes for a in data.attributes])
        _, first, counts = np.unique(codes, axis=0, return_index=True, return_counts=True)
        from kanon_graph.scale.sharding import subset
        data = subset(data, first)
        data = __import__("dataclasses").replace(data, weights=counts.astype(np.int64))
    k = int(rng.integers(2, 12))
    nodes = Lattice(data.heights).array()
    nodes = nodes[rng.choice(len(nodes), min(len(nodes), 60), replace=False)]
    if compiled:
        counted = _batch.BatchCounter(data, k).released(nodes)
    else:
        monkeypatch.setattr(_batch, "_released", _batch._released_py)
        counted = _batch.BatchCounter(data, k).released(nodes)
    engine = FrequencyEngine(data)
    expected = [data.records - engine.frequency_set(tuple(v)).failing_records(k) for v in nodes]
    assert counted.tolist() == expected and len(set(expected)) > 1


@pytest.mark.parametrize("compiled", [False, True])
@pytest.mark.parametrize("seed", range(6))
def test_cost_of_labels_is_the_sum_of_set_cost_class_by_class(seed, compiled, monkeypatch):
    """``of_labels`` in one kernel call: the float of the per-class loop it replaced (the
    classes in label order, empty labels skipped), every metric; negative labels still
    take the loop."""
    from kanon_graph.records import costs

    monkeypatch.setattr(_jit, "PYTHON_WORK", 0 if compiled else 10 ** 12)
    if not compiled:
        monkeypatch.setattr(costs, "_classes_cost", costs._classes_cost.py_func)
    _, graph, cost = _graph_cost(seed, ["loss", "gcp", "discernibility"][seed % 3])
    rng = np.random.default_rng(seed)
    u = len(graph.counts)
    for labels in (rng.integers(0, max(2, u // 4), u), rng.integers(0, 3 * u, u) * 2,
                   np.zeros(u, dtype=np.int64), rng.integers(-1, 5, u)):
        order = np.argsort(labels, kind="stable").astype(np.int64)
        total = 0.0
        for chunk in np.split(order, np.flatnonzero(np.diff(labels[order])) + 1):
            total += _set_cost_py(chunk, len(chunk), cost.codes, graph.counts, cost.tables)
        assert cost.of_labels(labels, graph.counts) == total
