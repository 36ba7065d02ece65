"""Prim through the nearest-outside-neighbour index returns the plain kernel's tree, edge by edge."""

import numpy as np
import pandas as pd
import pytest

import kanon_graph as kg
from kanon_graph.records import RecordGraph, minimum_spanning_edges
from kanon_graph.records import distances as distances_module
from kanon_graph.records import indexed_prim as indexed_module
from kanon_graph.records.distances import LevelGap, NumericGap
from kanon_graph.records.mst import _flatten, _prim_kernel


def random_parts(rng, u):
    """Codes and parts of every kind, with many exact ties and sums that tie only within 1e-9."""
    values = rng.choice([0.0, 0.1, 0.2, 0.3, 0.7, 1.0, 2.5], 12) if rng.random() < 0.5 \
        else np.round(rng.normal(size=40), 1)
    numeric = NumericGap(values, float(rng.choice([0.1, 1.0, 3.0])))
    sex = 1.0 - np.eye(2)
    zone = np.abs(np.subtract.outer(np.arange(5), np.arange(5))) * 0.1     # not constant
    level_map = np.vstack([np.arange(8), np.arange(8) // 2, np.arange(8) // 4, np.zeros(8)])
    by_level = LevelGap(level_map.astype(np.int64), np.array([0.0, 0.1, 0.2, 0.3]))
    by_code = LevelGap(level_map.astype(np.int64), rng.choice([0.1, 0.2], (4, 8)) *
                       (np.arange(4) > 0)[:, None])
    parts = [numeric, sex, zone, by_level, by_code]
    widths = [len(values), 2, 5, 8, 8]
    keep = sorted(rng.choice(5, size=int(rng.integers(1, 5)), replace=False).tolist())
    if 0 not in keep:
        keep = [0] + keep
    parts = [parts[a] for a in keep]
    codes = np.column_stack([rng.integers(0, widths[a], u) for a in keep])
    codes = np.unique(codes, axis=0)            # distinct tuples, as a record graph's nodes
    return codes[rng.permutation(len(codes))], parts


@pytest.mark.parametrize("seed", range(40))
@pytest.mark.parametrize("max_buckets", [1, 4, 1024])
def test_same_tree_as_plain_kernel(seed, max_buckets):
    rng = np.random.default_rng(seed)
    codes, parts = random_parts(rng, int(rng.integers(2, 400)))
    flat = _flatten(parts)
    got = indexed_module.indexed_prim(codes, parts, flat, max_buckets=max_buckets)
    want = _prim_kernel(np.ascontiguousarray(codes, dtype=np.int64), *flat, True)
    for a, b in zip(got, want):
        np.testing.assert_array_equal(a, b)


def test_plan_buckets_by_widest_gap_first():
    rng = np.random.default_rng(0)
    codes = np.column_stack([rng.integers(0, 30, 200), rng.integers(0, 2, 200),
                             rng.integers(0, 50, 200)])
    parts = [NumericGap(np.arange(30.0), 1.0), 1.0 - np.eye(2), (1.0 - np.eye(50)) * 0.01]
    kind = _flatten(parts)[0]
    assert indexed_module._plan(parts, codes, kind, 1024) == (0, [1, 2])
    assert indexed_module._plan(parts, codes, kind, 10) == (0, [1])   # 2 x 50 > 10 buckets
    assert indexed_module._plan(parts[1:], codes[:, 1:], kind[1:], 1024) is None


def test_record_graph_with_a_continuous_column_uses_the_index(monkeypatch):
    rng = np.random.default_rng(5)
    table = pd.DataFrame({"income": np.round(rng.lognormal(10, 0.5, 600), 0),
                          "sex": rng.choice(["F", "M"], 600),
                          "zip": rng.choice(["a", "b", "c"], 600)})
    schema = kg.Schema(quasi_identifiers=["income", "sex", "zip"], numeric=["income"],
                       categorical=["sex", "zip"])
    monkeypatch.setattr(distances_module, "MAX_MATRIX_CODES", 10)   # income -> NumericGap
    graph = RecordGraph(kg.encode(table, schema), "loss")
    assert any(isinstance(p, NumericGap) for p in graph.parts)
    calls = []
    real = indexed_module.indexed_prim
    monkeypatch.setattr(indexed_module, "indexed_prim",
                        lambda *a, **kw: calls.append(1) or real(*a, **kw))
    u, v, w = minimum_spanning_edges(graph, "prim")
    assert calls == [1]
    flat = _flatten(graph.parts)
    for a, b in zip((u, v, w), _prim_kernel(graph.codes.astype(np.int64), *flat, True)):
        np.testing.assert_array_equal(a, b)
    assert w.sum() == pytest.approx(minimum_spanning_edges(graph, "kruskal")[2].sum(), abs=1e-9)
