"""The refinement's code-major hierarchy tables (issue 47: the 1M-row export).

:func:`~kanon_graph.records.refine.code_major` lays a code's ancestors side by side;
the summaries and the cost of a class with one more tuple, read from that layout, must
be what the level-major tables give: the LCA level of the members and ``set_cost`` of
the class with the tuple added, on random tables and random classes.
"""

import numpy as np
import pytest

import kanon_graph as kg
from kanon_graph.records import RecordGraph, refine
from kanon_graph.records.costs import ClassCost, _set_cost_py

from test_records_graph import random_schema, random_table


def _cost(seed, metric):
    data = kg.encode(random_table(int(np.random.default_rng(seed).integers(30, 200)), seed),
                     random_schema())
    graph = RecordGraph(data)
    return graph, ClassCost(data, graph.codes, metric)


@pytest.mark.parametrize("seed", range(4))
def test_code_major_holds_each_codes_levels_side_by_side(seed):
    graph, cost = _cost(seed, "loss")
    kind, nlev, width, off, anc, cell = cost.tables[:6]
    anc_t, cell_t = refine.code_major(cost.tables)
    assert (kind == 0).any()
    for a in np.flatnonzero(kind == 0):
        for x in range(width[a]):
            for level in range(nlev[a]):
                at = off[a] + x * nlev[a] + level
                assert anc_t[at] == anc[off[a] + level * width[a] + x]
                assert cell_t[at] == cell[off[a] + level * width[a] + x]


@pytest.mark.parametrize("compiled", [False, True])
@pytest.mark.parametrize("seed", range(6))
def test_plus_cost_from_code_major_summaries_is_set_cost(seed, compiled):
    """Hierarchy, numeric-range and category-set attributes, every metric: the same floats."""
    metric = ["loss", "gcp", "discernibility"][seed % 3]
    graph, cost = _cost(seed, metric)
    summaries = refine._summaries if compiled else getattr(refine._summaries, "py_func",
                                                            refine._summaries)
    plus = refine._plus_cost if compiled else getattr(refine._plus_cost, "py_func",
                                                       refine._plus_cost)
    codes, tables = cost.codes, cost.tables
    anc_t, cell_t = refine.code_major(tables)
    rng = np.random.default_rng(seed)
    counts = graph.counts.astype(np.int64)
    u, d = codes.shape
    for _ in range(30):
        labels = rng.integers(0, max(2, u // 6), u).astype(np.int64)
        n_classes = int(labels.max()) + 1
        order = np.argsort(labels, kind="mergesort")
        start = np.concatenate([[0], np.cumsum(np.bincount(labels, minlength=n_classes))])
        size = np.bincount(labels, weights=counts, minlength=n_classes).astype(np.int64)
        lev, ref = np.zeros((n_classes, d), np.int64), np.zeros((n_classes, d), np.int64)
        lo, hi = np.zeros((n_classes, d)), np.zeros((n_classes, d))
        summaries(order, start, codes, tables, anc_t, np.ones(n_classes, np.bool_),
                  lev, ref, lo, hi)
        for _ in range(10):
            b = int(rng.integers(n_classes))
            if start[b + 1] == start[b]:
                continue
            x = int(rng.integers(u))
            got = plus(b, x, lev, ref, lo, hi, order, start, size, codes, counts, tables,
                       anc_t, cell_t)
            members = np.append(order[start[b]:start[b + 1]], x).astype(np.int64)
            assert got == _set_cost_py(members, len(members), codes, counts, tables)
