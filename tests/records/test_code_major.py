"""The refinement's code-major hierarchy tables (issue 47: the 1M-row export).

:func:`~kanon_graph.records._layout.code_major` lays a code's ancestors side by side;
the summaries and the cost of a class with one more tuple, read from that layout, must
be what the level-major tables give: the LCA level of the members and ``set_cost`` of
the class with the tuple added, on random tables and random classes.
"""

import numpy as np
import pytest

import kanon_graph as kg
from kanon_graph import _jit
from kanon_graph.records import RecordGraph, _layout, _summaries, refine
from kanon_graph.hierarchy import intervals
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
    anc_t, cell_t = _layout.code_major(cost.tables)
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
    """Hierarchy, numeric-range and category-set attributes, every metric: the same floats;
    with a limit, ``inf`` only when the cost is above it (else the same float)."""
    metric = ["loss", "gcp", "discernibility"][seed % 3]
    graph, cost = _cost(seed, metric)

    def kernel(name):
        found = getattr(_summaries, name)
        return found if compiled else getattr(found, "py_func", found)

    summaries, plus, rest_costs = kernel("_summaries"), kernel("_plus_cost"), kernel("_rest_costs")
    codes, tables = cost.codes, cost.tables
    anc_t, cell_t = _layout.code_major(tables)
    seq = kernel("_attribute_order")(tables)
    rng = np.random.default_rng(seed)
    counts = graph.counts.astype(np.int64)
    u, d = codes.shape
    assert sorted(seq.tolist()) == list(range(d))
    cells = np.empty(d)
    cut = above = 0
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
        rest = np.empty((n_classes, d + 1))
        rest_costs(start, tables, cell_t, seq, lev, ref, lo, hi, rest)
        for _ in range(10):
            b = int(rng.integers(n_classes))
            if start[b + 1] == start[b]:
                continue
            x = int(rng.integers(u))
            members = np.append(order[start[b]:start[b + 1]], x).astype(np.int64)
            exact = _set_cost_py(members, len(members), codes, counts, tables)
            got = plus(b, x, lev, ref, lo, hi, rest, seq, cells, order, start, size, codes,
                       counts, tables, anc_t, cell_t, np.inf)
            assert got == exact
            limit = exact * float(rng.choice([0.0, 0.5, 0.9, 0.999, 1.0, 1.5]))
            got = plus(b, x, lev, ref, lo, hi, rest, seq, cells, order, start, size, codes,
                       counts, tables, anc_t, cell_t, limit)
            # inf only above the limit, up to the rounding of a sum taken in another order
            assert got == exact or (got == np.inf and exact > limit - 1e-12 * (1 + exact))
            cut += got == np.inf
            above += exact > limit
    assert metric == "discernibility" or above == 0 or cut > 0    # the limit stopped some


@pytest.mark.parametrize("compiled", [False, True])
@pytest.mark.parametrize("seed", range(5))
def test_class_order_is_the_stable_argsort(seed, compiled, monkeypatch):
    """The counting sort of a round gives mergesort's order and the classes' starts."""
    monkeypatch.setattr(_jit, "PYTHON_WORK", 0)        # compiled: compile on the first call
    kernel = _layout._class_order if compiled else getattr(_layout._class_order, "py_func",
                                                          _layout._class_order)
    rng = np.random.default_rng(seed)
    u = int(rng.integers(1, 3000))
    labels = rng.integers(0, int(rng.integers(1, u + 1)), u).astype(np.int64)
    n_classes = int(labels.max()) + 3               # empty classes at the end too
    order, start = kernel(labels, n_classes)
    assert (order == np.argsort(labels, kind="mergesort")).all()
    assert (start == np.concatenate([[0], np.cumsum(np.bincount(labels,
                                                                minlength=n_classes))])).all()


@pytest.mark.parametrize("seed", range(5))
def test_ranked_moves_are_the_full_lexsort_filtered(seed):
    """Only the gaining nodes are sorted: the same order as sorting all and filtering."""
    rng = np.random.default_rng(seed)
    gain = np.where(rng.random(5000) < 0.1, rng.integers(-3, 4, 5000) * 0.5, 0.0)
    gain[rng.random(5000) < 0.02] = refine.GAIN / 2
    full = np.lexsort((np.arange(len(gain)), -gain))
    assert (_layout._ranked(gain) == full[gain[full] > refine.GAIN]).all()
    assert len(_layout._ranked(gain))


@pytest.mark.parametrize("compiled", [False, True])
@pytest.mark.parametrize("seed", range(6))
def test_neighbours_of_sorted_pairs_are_the_lexsort_lists(seed, compiled, monkeypatch):
    """Sorted pairs ``eu < ev`` (block_edges' edges) give the lists without a sort."""
    monkeypatch.setattr(_jit, "PYTHON_WORK", 0)        # compiled: compile on the first call
    kernel = _layout._neighbours_of_pairs if compiled else getattr(
        _layout._neighbours_of_pairs, "py_func", _layout._neighbours_of_pairs)
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 80))
    a, b = rng.integers(0, n, 400), rng.integers(0, n, 400)
    keep = a != b
    pairs = np.unique(np.minimum(a, b)[keep] * n + np.maximum(a, b)[keep])
    eu, ev = pairs // n, pairs % n
    src, dst = np.concatenate([eu, ev]), np.concatenate([ev, eu])
    order = np.lexsort((dst, src))
    expected_ptr = [0] + np.cumsum(np.bincount(src, minlength=n)).tolist()
    for ptr, adj in (kernel(eu, ev, n), refine.node_neighbours(eu, ev, n)):
        assert adj.tolist() == dst[order].tolist()
        assert ptr.tolist() == expected_ptr


@pytest.mark.parametrize("compiled", [False, True])
@pytest.mark.parametrize("seed", range(4))
def test_plus_levels_is_plus_cost_when_every_attribute_has_a_hierarchy(seed, compiled):
    """The refinement's lean costing (every attribute under a hierarchy, ARX's Loss or
    GCP) returns the very float, or ``inf``, that the general kernel returns, limit or not."""
    rng = np.random.default_rng(seed)
    table = random_table(int(rng.integers(40, 200)), seed)
    hierarchies = {"age": intervals(range(0, 100), widths=[5, 10, 20], name="age"),
                   "income": intervals([10.0, 25.5, 40.0, 80.0], widths=[20, 40], name="income"),
                   "sex": kg.Hierarchy([["F", "*"], ["M", "*"]], name="sex"),
                   "job": random_schema().hierarchies["job"]}
    data = kg.encode(table, kg.Schema(quasi_identifiers=list(hierarchies), sensitive=["disease"],
                                      hierarchies=hierarchies))
    graph = RecordGraph(data)
    cost = ClassCost(data, graph.codes, ["loss", "gcp"][seed % 2])
    codes, tables = cost.codes, cost.tables
    assert (tables[0] == 0).all() and tables[11] == 0
    general = _summaries._plus_cost
    lean = _summaries._plus_levels if compiled else getattr(_summaries._plus_levels, "py_func",
                                                            _summaries._plus_levels)
    anc_t, cell_t = _layout.code_major(tables)
    seq = _summaries._attribute_order(tables)
    counts = graph.counts.astype(np.int64)
    u, d = codes.shape
    cells = np.empty(d)
    cut = 0
    for _ in range(20):
        labels = rng.integers(0, max(2, u // 5), u).astype(np.int64)
        n_classes = int(labels.max()) + 1
        order = np.argsort(labels, kind="mergesort")
        start = np.concatenate([[0], np.cumsum(np.bincount(labels, minlength=n_classes))])
        size = np.bincount(labels, weights=counts, minlength=n_classes).astype(np.int64)
        lev, ref = np.zeros((n_classes, d), np.int64), np.zeros((n_classes, d), np.int64)
        lo, hi = np.zeros((n_classes, d)), np.zeros((n_classes, d))
        _summaries._summaries(order, start, codes, tables, anc_t, np.ones(n_classes, np.bool_),
                              lev, ref, lo, hi)
        rest = np.empty((n_classes, d + 1))
        _summaries._rest_costs(start, tables, cell_t, seq, lev, ref, lo, hi, rest)
        for _ in range(10):
            b, x = int(rng.integers(n_classes)), int(rng.integers(u))
            if start[b + 1] == start[b]:
                continue
            exact = general(b, x, lev, ref, lo, hi, rest, seq, cells, order, start, size, codes,
                            counts, tables, anc_t, cell_t, np.inf)
            for limit in (np.inf, exact * float(rng.choice([0.0, 0.5, 0.9, 0.999, 1.0, 1.5]))):
                want = general(b, x, lev, ref, lo, hi, rest, seq, cells, order, start, size,
                               codes, counts, tables, anc_t, cell_t, limit)
                got = lean(b, x, lev, ref, rest, seq, cells, codes, tables[1], tables[3], anc_t,
                           cell_t, size[b] + counts[x], limit)
                assert got == want
                cut += got == np.inf
    assert cut > 0                                            # the limit stopped some
