"""The refinement's round (``refine._best_moves``) equals a plain reference on random inputs.

The kernel weighs the nodes in node order, costs each class without each member class
by class, and stops costing a candidate class as soon as it cannot be the best move
(issue 47, the 1M-row export). The reference below costs every candidate in full with
``set_cost`` and walks the classes as the round did before: each node's best gain and
target class must be the very same, run as Python and compiled, on random tables
(hierarchies, numeric ranges, category sets), metrics, labellings, tabu and active nodes.
"""

import numpy as np
import pytest

from kanon_graph.records import _layout, refine
from kanon_graph.records.costs import _set_cost_py

from test_code_major import _cost

GAIN = refine.GAIN


def reference_best_moves(labels, counts, ptr, adj, cell, k, tabu, active, best, target,
                         codes, tables):
    """Each active node's best move, every candidate costed in full by ``set_cost``."""
    members = {}
    for x in range(len(labels)):
        members.setdefault(int(labels[x]), []).append(x)

    def cost(nodes):
        nodes = np.asarray(sorted(nodes), dtype=np.int64)
        return _set_cost_py(nodes, len(nodes), codes, counts, tables) if len(nodes) else 0.0

    size = {c: int(counts[m].sum()) for c, m in members.items()}
    own = {c: cost(m) for c, m in members.items()}
    for x in np.flatnonzero(active):
        best[x], target[x] = 0.0, -1
    for x in np.flatnonzero(active):
        c = int(labels[x])
        if tabu[x] or len(members[c]) < 2 or size[c] - counts[x] < k:
            continue
        minus = cost([y for y in members[c] if y != x]) - own[c]
        seen = set()
        for q in range(ptr[x], ptr[x + 1]):
            b = int(labels[adj[q]])
            if b == c or b in seen or cell[b] != cell[c]:
                continue
            seen.add(b)
            gain = -(minus + cost(members[b] + [x]) - own[b])
            if gain > best[x] + GAIN or (gain > GAIN and target[x] >= 0
                                         and abs(gain - best[x]) <= GAIN and b < target[x]):
                best[x], target[x] = gain, b


def _labelled(seed, metric, base, fewest):
    """A random table's tuples (``_cost``) in random classes, none empty, and random
    neighbours: ``(codes, tables, counts, rng, n_classes, labels, eu, ev, ptr, adj)``,
    the tables copied (the kernel may write into them), ``rng`` seeded ``base + seed``."""
    graph, cost = _cost(seed, metric)
    codes = cost.codes
    tables = tuple(t.copy() if isinstance(t, np.ndarray) else t for t in cost.tables)
    rng = np.random.default_rng(base + seed)
    u = codes.shape[0]
    n_classes = int(rng.integers(fewest, max(fewest + 1, u // 3)))
    labels = rng.permutation(np.concatenate([np.arange(n_classes),
                                             rng.integers(0, n_classes, u - n_classes)]))
    eu, ev = rng.integers(0, u, 4 * u), rng.integers(0, u, 4 * u)
    ptr, adj = refine.node_neighbours(eu, ev, u)
    return (codes, tables, graph.counts.astype(np.int64), rng, n_classes,
            labels.astype(np.int64), eu, ev, ptr, adj)


@pytest.mark.parametrize("compiled", [False, True])
@pytest.mark.parametrize("seed", range(8))
def test_best_moves_are_the_reference_moves(seed, compiled):
    metric = ["loss", "gcp", "discernibility", "ncp"][seed % 4]
    codes, tables, counts, rng, n_classes, labels, _, _, ptr, adj = _labelled(seed, metric,
                                                                             100, 1)
    u, d = codes.shape
    cell = rng.integers(0, 2 if seed % 2 else 1, n_classes).astype(np.int64)
    k = int(rng.integers(1, 4))
    tabu = rng.random(u) < 0.1
    active = rng.random(u) < (1.0 if seed < 4 else 0.5)
    best0 = np.where(rng.random(u) < 0.5, rng.random(u), 0.0)
    target0 = np.where(best0 > 0, rng.integers(0, n_classes, u), -1).astype(np.int64)

    expected_best, expected_target = best0.copy(), target0.copy()
    reference_best_moves(labels, counts, ptr, adj, cell, k, tabu, active, expected_best,
                         expected_target, codes, tables)
    kernel = refine._best_moves.compile() if compiled else refine._best_moves_py
    best, target = best0.copy(), target0.copy()
    own = np.full(n_classes, np.nan)
    lev, ref = np.zeros((n_classes, d), np.int64), np.zeros((n_classes, d), np.int64)
    lo, hi = np.zeros((n_classes, d)), np.zeros((n_classes, d))
    kernel(labels, counts, ptr, adj, cell, k, tabu, active, best, target, codes, tables,
           own, lev, ref, lo, hi, *_layout.code_major(tables), np.zeros(u),
           np.zeros(n_classes, dtype=np.bool_))
    assert (expected_target >= 0).any()                    # moves to find: a real comparison
    np.testing.assert_array_equal(target, expected_target)
    np.testing.assert_array_equal(best, expected_best)


@pytest.mark.parametrize("compiled", [False, True])
@pytest.mark.parametrize("seed", range(1, 7))      # seed 0's table has no gaining move
def test_a_second_round_with_the_kept_class_state_is_the_reference(seed, compiled):
    """Between rounds the refinement keeps, per class, its cost, summaries and costs
    without each member (``minus`` / ``minus_ok``), marking only the changed classes
    (``own`` NaN): after some tuples move, a round from that kept state finds the very
    moves the reference finds from scratch."""
    metric = ["loss", "gcp", "discernibility"][seed % 3]
    codes, tables, counts, rng, n_classes, labels, _, _, ptr, adj = _labelled(seed, metric,
                                                                             200, 6)
    u, d = codes.shape
    cell = np.zeros(n_classes, dtype=np.int64)
    k, tabu = 1, np.zeros(u, dtype=np.bool_)
    kernel = refine._best_moves.compile() if compiled else refine._best_moves_py
    state = (np.full(n_classes, np.nan), np.zeros((n_classes, d), np.int64),
             np.zeros((n_classes, d), np.int64), np.zeros((n_classes, d)),
             np.zeros((n_classes, d)), *_layout.code_major(tables), np.zeros(u),
             np.zeros(n_classes, dtype=np.bool_))
    best, target = np.zeros(u), np.full(u, -1, dtype=np.int64)
    kernel(labels, counts, ptr, adj, cell, k, tabu, np.ones(u, np.bool_), best, target, codes,
           tables, *state)
    assert state[-1].any()                                 # costs without each member taken
    moved = rng.choice(u, size=2, replace=False)            # two tuples to the next class
    changed = np.unique(np.concatenate([labels[moved], (labels[moved] + 1) % n_classes]))
    labels[moved] = (labels[moved] + 1) % n_classes
    state[0][changed] = np.nan                             # what refine_classes marks
    kept_ok = state[-1].copy()
    kernel(labels, counts, ptr, adj, cell, k, tabu, np.ones(u, np.bool_), best, target, codes,
           tables, *state)
    assert (kept_ok & ~np.isin(np.arange(n_classes), changed)).any()     # some were kept
    expected_best, expected_target = np.zeros(u), np.full(u, -1, dtype=np.int64)
    reference_best_moves(labels, counts, ptr, adj, cell, k, tabu, np.ones(u, np.bool_),
                         expected_best, expected_target, codes, tables)
    assert (expected_target >= 0).any()
    np.testing.assert_array_equal(target, expected_target)
    np.testing.assert_array_equal(best, expected_best)


@pytest.mark.parametrize("compiled", [False, True])
@pytest.mark.parametrize("seed", range(1, 7))
def test_nodes_whose_class_and_target_stay_weigh_the_changed_classes_as_the_reference(seed, compiled):
    # a round after moves keeps own / the summaries of the classes that did not change and
    # the best moves of the nodes whose class and target did not change: each active node's
    # best move must still be the one the reference finds from scratch
    metric = ["loss", "gcp", "discernibility", "ncp"][seed % 4]
    codes, tables, counts, rng, n_classes, labels, eu, ev, ptr, adj = _labelled(seed, metric,
                                                                               200, 2)
    u, d = codes.shape
    cell = np.zeros(n_classes, dtype=np.int64)
    k, tabu = 1, np.zeros(u, dtype=np.bool_)
    kernel = refine._best_moves.compile() if compiled else refine._best_moves_py
    best, target = np.zeros(u), np.full(u, -1, dtype=np.int64)
    own = np.full(n_classes, np.nan)
    lev, ref = np.zeros((n_classes, d), np.int64), np.zeros((n_classes, d), np.int64)
    lo, hi = np.zeros((n_classes, d)), np.zeros((n_classes, d))
    anc_t, cell_t = _layout.code_major(tables)
    args = (codes, tables, own, lev, ref, lo, hi, anc_t, cell_t, np.zeros(u),
            np.zeros(n_classes, dtype=np.bool_))
    kernel(labels, counts, ptr, adj, cell, k, tabu, np.ones(u, dtype=np.bool_), best, target,
           *args)
    # move a few nodes (never emptying a class), as refine_classes does between rounds
    changed = np.zeros(n_classes, dtype=bool)
    for x in rng.permutation(u)[:2]:
        a, b = labels[x], int(rng.integers(0, n_classes))
        if a != b and (labels == a).sum() > 1:
            labels[x] = b
            changed[[a, b]] = True
    own[changed] = np.nan
    hit = changed[labels]
    active = hit.copy()
    active[eu[hit[ev]]] = True
    active[ev[hit[eu]]] = True
    expected_best, expected_target = best.copy(), target.copy()
    reference_best_moves(labels, counts, ptr, adj, cell, k, tabu, active, expected_best,
                         expected_target, codes, tables)
    kernel(labels, counts, ptr, adj, cell, k, tabu, active.copy(), best, target, *args)
    kept = active & ~changed[labels]                # nodes whose class did not change
    assert (expected_target[kept] >= 0).any()       # and have a move: a real comparison
    np.testing.assert_array_equal(target, expected_target)
    np.testing.assert_array_equal(best, expected_best)
