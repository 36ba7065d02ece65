"""Prim through the nearest-outside-neighbour index returns the plain kernel's tree exactly."""

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
    got = indexed_module.indexed_prim(codes, parts, flat, max_buckets=max_buckets,
                                      max_distances=2**62)         # never give up here
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

    def spy(*args, **kwargs):
        calls.append(real(*args, **kwargs))
        return calls[-1]

    monkeypatch.setattr(indexed_module, "indexed_prim", spy)
    u, v, w = minimum_spanning_edges(graph, "prim")
    assert len(calls) == 1 and calls[0] is not None       # the index's tree, not the fallback
    flat = _flatten(graph.parts)
    for a, b in zip((u, v, w), _prim_kernel(graph.codes.astype(np.int64), *flat, True)):
        np.testing.assert_array_equal(a, b)
    assert w.sum() == pytest.approx(minimum_spanning_edges(graph, "kruskal")[2].sum(), abs=1e-9)


def test_gives_up_when_the_bounds_prune_nothing():
    # no bucket attribute and a continuous column with scale 0: no bound ever prunes
    rng = np.random.default_rng(1)
    level_map = np.vstack([np.arange(64), np.arange(64) // 8, np.zeros(64)]).astype(np.int64)
    parts = [NumericGap(np.arange(50.0), 0.0), LevelGap(level_map, np.array([0.0, 0.2, 0.5]))]
    codes = np.unique(np.column_stack([rng.integers(0, 50, 600), rng.integers(0, 64, 600)]),
                      axis=0)
    flat = _flatten(parts)
    assert indexed_module.indexed_prim(codes, parts, flat) is None
    # and with a scale the same codes go through the index
    scaled = [NumericGap(np.arange(50.0), 0.3), parts[1]]
    got = indexed_module.indexed_prim(codes, scaled, _flatten(scaled))
    assert got is not None
    for a, b in zip(got, _prim_kernel(codes.astype(np.int64), *_flatten(scaled), True)):
        np.testing.assert_array_equal(a, b)
