"""Refinement of a local recoding by moves between neighbouring classes.

The reusable last step of the graph algorithms (MST now, SD next). Its
interface is deliberately small:

* an encoded table's **cost tables** (:class:`~kanon_graph.records.costs.ClassCost`,
  built from the node code tuples and the ``metric``);
* an **initial class assignment of distinct tuples** (``labels``, one per
  node) with their **multiplicities** (``counts``);
* a **neighbour structure**: edges ``(eu, ev)`` between nodes (an MST, a
  nearest-neighbour graph, ...). Two classes are neighbours when an edge
  joins them;
* the **privacy model**: ``k``, the MAGVal ``cell_of_node`` (a class never
  spans two cells) and ``failing(labels) -> bool per class`` for l / t.

Each round computes, for every node, the best move of the node (with all its
records) from its class A to a neighbouring class B of the same cell that
keeps ``|A| >= k`` and lowers the total cost; then applies the best moves
first. The first ``batch_rounds`` rounds (all rounds with ``failing``)
apply at most one move per class per round (so every applied gain is
exact) and, with ``failing``, undo the moves whose classes then fail l / t
(and never try those nodes again); later rounds apply any number of moves
per class, each re-costed against the classes as they are by then
(:func:`~kanon_graph.records.apply.apply_moves`). Measured on Adult (8
quasi-identifiers, k = 5 / 10 / 20 / 50): one move per class throughout
reached mean Loss 0.0601 / 0.0903 / 0.1283 / 0.2100 in 20 rounds, move by
move throughout 0.0605 / 0.0910 / 0.1259 / 0.1843 (faster, but a worse
local optimum at small k), 8 rounds one per class then move by move
0.0601 / 0.0903 / 0.1255 / 0.1861 (what ``mst`` uses). Classes of ``2k`` records or more made of
several tuples are split when that lowers the cost (the least-cost
agglomeration of :mod:`~kanon_graph.records.adjacent` over all pairs of their
tuples). Rounds stop when no move helps, or at ``max_rounds`` / ``max_moves``
/ ``time_budget``. The total cost never increases.
"""

from __future__ import annotations

import time

import numpy as np

from .adjacent import _compact
from .apply import apply_moves
from .resplit import split_big_classes
from ._without import _costs_without
from .costs import _set_cost
from ._summaries import _attribute_order, _plus_cost, _plus_levels, _rest_costs, _summaries
from .mst import HAVE_NUMBA
from ._layout import GAIN, _class_order, _neighbours_of_pairs, _ranked, code_major  # GAIN: a move gains more

from .._jit import njit  # numba loads on a kernel's first call

__all__ = ["refine_classes", "node_neighbours"]


def node_neighbours(eu, ev, n_nodes):
    """CSR ``(ptr, adj)`` of the nodes joined to each node by an edge (both directions)."""
    eu, ev = np.asarray(eu, dtype=np.int64), np.asarray(ev, dtype=np.int64)
    width = max(int(n_nodes), 1)
    pairs = eu * width + ev               # sorted pairs eu < ev (block_edges'): no sort
    if len(pairs) and (eu < ev).all() and (pairs[1:] > pairs[:-1]).all():
        return _neighbours_of_pairs(eu, ev, int(n_nodes))
    src = np.concatenate([eu, ev]).astype(np.int64)
    dst = np.concatenate([ev, eu]).astype(np.int64)
    # (src, dst) in one int64 sorted by value: far faster than a lexsort of the two
    keys = np.sort(src * width + dst)
    ptr = np.zeros(n_nodes + 1, dtype=np.int64)
    ptr[1:] = np.cumsum(np.bincount(src, minlength=n_nodes))
    return ptr, keys % width


def _best_moves_py(labels, counts, ptr, adj, cell, k, tabu, active, best, target, codes, tables,
                   own, lev, ref, lo, hi, anc_t, cell_t, minus, minus_ok):
    """Per node: the gain (lower total cost) of its best move and the target class.

    The candidate classes of node ``x`` are the classes of its neighbours.
    Only ``active`` nodes are evaluated (``best`` / ``target`` are updated in
    place): a node whose class and neighbours' classes did not change keeps
    its best move, and one whose class and best target did not change weighs
    only the classes that changed (the others' gains are the ones it had).
    ``own`` (a cost per class) and the summaries ``lev``,
    ``ref``, ``lo``, ``hi`` (a row per class) are kept between calls: only
    the classes whose ``own`` is NaN (changed since) are costed again. So are
    ``minus`` (per node, what its class's cost loses without it) and ``minus_ok``
    (per class, whether its members' ``minus`` are taken): a class not changed keeps
    them (patients, k = 20: a round after the first changes 2 to 16 classes of 555,
    and taking them all again was 1 of its 3 ms). The
    costs of each class without each of its members are taken class by class;
    the nodes are then weighed in node order, so that the neighbour lists are
    read front to back (class by class, each node's list was a jump in memory).
    """
    u = labels.shape[0]
    n_classes = 0
    for x in range(u):
        n_classes = max(n_classes, labels[x] + 1)
    order, start = _class_order(labels, n_classes)
    size = np.zeros(n_classes, dtype=np.int64)
    for x in range(u):
        size[labels[x]] += counts[x]
    todo = np.zeros(n_classes, dtype=np.bool_)
    for c in range(n_classes):
        if own[c] != own[c]:
            todo[c] = True
            minus_ok[c] = False
            own[c] = 0.0 if start[c + 1] == start[c] else _set_cost(
                order[start[c]:start[c + 1]], start[c + 1] - start[c], codes, counts, tables)
    _summaries(order, start, codes, tables, anc_t, todo, lev, ref, lo, hi)
    d = codes.shape[1]
    seq = _attribute_order(tables)
    rest = np.empty((n_classes, d + 1))
    _rest_costs(start, tables, cell_t, seq, lev, ref, lo, hi, rest)
    cells = np.empty(d)
    nlev, off = tables[1], tables[3]
    levels_only = tables[11] == 0 and (tables[0] == 0).all()      # _plus_levels' case
    # minus[x]: the cost x's class loses without x, for each node that may move
    without = np.empty(u + 1)
    scratch = np.zeros(tables[10].shape[0], dtype=np.int64)
    for c in range(n_classes):
        m = start[c + 1] - start[c]
        for i in range(m if m >= 2 and not minus_ok[c] else 0):
            x = order[start[c] + i]
            if active[x] and not tabu[x] and size[c] - counts[x] >= k:
                _costs_without(order[start[c]:start[c + 1]], m, codes, counts, tables,
                               without, scratch)
                for j in range(m):
                    minus[order[start[c] + j]] = without[j] - own[c]
                minus_ok[c] = True
                break
    # ``kept``: the active nodes whose class and best target did not change. Their best
    # move among the unchanged classes is the one found before (the very same gains), so
    # only the changed classes are weighed for them, after the others. They are listed
    # and taken out of ``active`` meanwhile: a per-node flag read in the loop below made
    # it twice as slow compiled (the census's first round, 0.13 s against 0.22 s).
    n_kept = 0
    for x in range(u):
        if active[x] and not todo[labels[x]] and (target[x] < 0 or not todo[target[x]]):
            n_kept += 1
    kept = np.empty(n_kept, dtype=np.int64)
    n_kept = 0
    for x in range(u):
        if not active[x]:
            continue
        if not todo[labels[x]] and (target[x] < 0 or not todo[target[x]]):
            kept[n_kept] = x
            n_kept += 1
            active[x] = False
        else:
            best[x] = 0.0               # even a node alone in its class: its old move is stale
            target[x] = -1
    seen = np.full(n_classes, -1, dtype=np.int64)
    for x in range(u):
        c = labels[x]
        if not active[x] or tabu[x] or start[c + 1] - start[c] < 2 or size[c] - counts[x] < k:
            continue
        for q in range(ptr[x], ptr[x + 1]):
            b = labels[adj[q]]
            if b == c or seen[b] == x or cell[b] != cell[c]:
                continue
            seen[b] = x
            # adding x to b costs at least counts[x] times b's cost per record (cells
            # only widen), so b cannot beat the best move found when even that fails
            floor = max(best[x] - GAIN, GAIN)
            slack = 1e-9 * (1.0 + own[b])
            if -minus[x] - counts[x] * own[b] / size[b] + slack < floor:
                continue
            # nor when the cells found so far, and b's own on the rest, already fail it
            if levels_only:
                plus = _plus_levels(b, x, lev, ref, rest, seq, cells, codes, nlev, off, anc_t,
                                    cell_t, size[b] + counts[x], own[b] - minus[x] - floor + slack)
            else:
                plus = _plus_cost(b, x, lev, ref, lo, hi, rest, seq, cells, order, start, size,
                                  codes, counts, tables, anc_t, cell_t,
                                  own[b] - minus[x] - floor + slack)
            if plus == np.inf:
                continue
            gain = -(minus[x] + plus - own[b])
            if gain > best[x] + GAIN or (gain > GAIN and target[x] >= 0
                                         and abs(gain - best[x]) <= GAIN and b < target[x]):
                best[x] = gain
                target[x] = b
    for x in kept:                      # the same weighing, of the changed classes only
        active[x] = True
        c = labels[x]
        if tabu[x] or start[c + 1] - start[c] < 2 or size[c] - counts[x] < k:
            continue
        for q in range(ptr[x], ptr[x + 1]):
            b = labels[adj[q]]
            if b == c or seen[b] == x or cell[b] != cell[c] or not todo[b]:
                continue
            seen[b] = x
            # adding x to b costs at least counts[x] times b's cost per record (cells
            # only widen), so b cannot beat the best move found when even that fails
            floor = max(best[x] - GAIN, GAIN)
            slack = 1e-9 * (1.0 + own[b])
            if -minus[x] - counts[x] * own[b] / size[b] + slack < floor:
                continue
            # nor when the cells found so far, and b's own on the rest, already fail it
            if levels_only:
                plus = _plus_levels(b, x, lev, ref, rest, seq, cells, codes, nlev, off, anc_t,
                                    cell_t, size[b] + counts[x], own[b] - minus[x] - floor + slack)
            else:
                plus = _plus_cost(b, x, lev, ref, lo, hi, rest, seq, cells, order, start, size,
                                  codes, counts, tables, anc_t, cell_t,
                                  own[b] - minus[x] - floor + slack)
            if plus == np.inf:
                continue
            gain = -(minus[x] + plus - own[b])
            if gain > best[x] + GAIN or (gain > GAIN and target[x] >= 0
                                         and abs(gain - best[x]) <= GAIN and b < target[x]):
                best[x] = gain
                target[x] = b


def _best_moves_work(labels, counts, ptr, adj, *rest):
    """Steps of :func:`_best_moves_py`: its passes over the tuples and their neighbours,
    and a class's members once more for the costs without each, per attribute."""
    d = rest[6].shape[1]                # codes
    return (5 * len(labels) + len(adj)) * max(d, 1)


if HAVE_NUMBA:
    # small calls run as Python: a first run need not compile it (kanon_graph._jit)
    _best_moves = njit(cache=True, work=_best_moves_work)(_best_moves_py)
else:  # pragma: no cover
    _best_moves = _best_moves_py


def refine_classes(cost, labels, counts, eu, ev, k, *, cell_of_node=None, failing=None,
                   max_rounds=100, max_moves=None, time_budget=None, batch_rounds=None):
    """Local search over class assignments of distinct tuples (see the module docstring).

    Parameters
    ----------
    cost : ClassCost
        Cost tables of the metric to lower.
    labels : ndarray of int (u,)
        Initial class of every node; every class must already satisfy the model.
    counts : ndarray of int (u,)
        Records per node.
    eu, ev : ndarray of int (E,)
        Neighbour structure over nodes.
    k : int
    cell_of_node : ndarray (u,), optional
        MAGVal cells: a node only moves to a class of its own cell.
    failing : callable, optional
        ``failing(labels) -> bool per class``; moves that make a class fail
        are undone.
    max_rounds, max_moves : int, optional
        Budgets in rounds and in applied moves.
    time_budget : float, optional
        Seconds; checked between rounds.
    batch_rounds : int, optional
        Rounds applying at most one move per class before moving node by
        node (see the module docstring); the switch comes earlier when those
        rounds stop finding moves. ``None`` (default): one move per class in
        every round (``mst`` passes 8).

    Returns
    -------
    labels : ndarray of int64 (u,)
        Classes numbered by their smallest node.
    stats : dict
        ``moves``, ``splits``, ``rounds``, ``undone`` and the normalized
        ``loss_before`` / ``loss_after`` (total cost / ``cost.norm``: the
        mean per-attribute ARX Loss, GCP, or the discernibility).

    Examples
    --------
    >>> import kanon_graph as kg, numpy as np
    >>> from kanon_graph.records import RecordGraph, minimum_spanning_edges
    >>> from kanon_graph.records.costs import ClassCost
    >>> data = kg.encode(kg.datasets.paper_003_table(), kg.datasets.paper_003_schema())
    >>> g = RecordGraph(data)
    >>> u, v, w = minimum_spanning_edges(g)
    >>> start = np.array([0, 0, 0, 1, 1, 1, 2, 2, 2, 2])   # r7 put with r8-r10
    >>> labels, stats = refine_classes(ClassCost(data, g.codes), start, g.counts, u, v, 3)
    >>> labels.tolist(), stats["moves"], stats["loss_after"] < stats["loss_before"]
    ([0, 0, 0, 1, 1, 1, 1, 2, 2, 2], 1, True)
    """
    started = time.perf_counter()
    switch = batch_rounds is not None
    batch_rounds = max_rounds if batch_rounds is None else batch_rounds
    labels = _compact(np.asarray(labels, dtype=np.int64))
    counts = np.asarray(counts, dtype=np.int64)
    eu, ev = np.asarray(eu, dtype=np.int64), np.asarray(ev, dtype=np.int64)
    codes, tables = cost.codes, cost.tables
    node_cell = (np.zeros(len(labels), dtype=np.int64) if cell_of_node is None
                 else np.asarray(cell_of_node, dtype=np.int64))
    tabu = np.zeros(len(labels), dtype=np.bool_)
    active = np.ones(len(labels), dtype=np.bool_)
    gain = np.zeros(len(labels))
    target = np.full(len(labels), -1, dtype=np.int64)
    tried = set()
    last_split = np.zeros(0, dtype=np.int64)
    ptr, adj = node_neighbours(eu, ev, len(labels))
    anc_t, cell_t = code_major(tables)   # a code's ancestors side by side: one cache line
    d = codes.shape[1]
    # per class, kept between rounds: its cost (NaN: to cost again), its summaries, and
    # whether its members' costs without each (per node: minus) are taken
    own, minus_ok, minus = np.full(0, np.nan), np.zeros(0, dtype=np.bool_), np.zeros(len(labels))
    lev, ref = np.zeros((0, d), dtype=np.int64), np.zeros((0, d), dtype=np.int64)
    lo, hi = np.zeros((0, d)), np.zeros((0, d))
    before = cost.of_labels(labels, counts) / cost.norm
    moves = splits = undone = rounds = 0
    while rounds < max_rounds:
        if time_budget is not None and time.perf_counter() - started > time_budget:
            break
        if max_moves is not None and moves >= max_moves:
            break
        rounds += 1
        n_classes = int(labels.max()) + 1
        cell = np.zeros(n_classes, dtype=np.int64)
        cell[labels] = node_cell
        if n_classes > len(own):
            grow = n_classes - len(own)
            own = np.concatenate([own, np.full(grow, np.nan)])
            minus_ok = np.concatenate([minus_ok, np.zeros(grow, dtype=np.bool_)])
            lev, ref = (np.concatenate([lev, np.zeros((grow, d), dtype=np.int64)]),
                        np.concatenate([ref, np.zeros((grow, d), dtype=np.int64)]))
            lo, hi = np.concatenate([lo, np.zeros((grow, d))]), np.concatenate(
                [hi, np.zeros((grow, d))])
        _best_moves(labels, counts, ptr, adj, cell, int(k), tabu, active, gain, target, codes,
                    tables, own, lev, ref, lo, hi, anc_t, cell_t, minus, minus_ok)
        ranked = _ranked(gain)
        if failing is None and rounds > batch_rounds:
            room = None if max_moves is None else max_moves - moves
            made, touched = apply_moves(ranked, labels, target, counts, k, codes, tables,
                                        n_classes, gain_floor=GAIN, max_apply=room)
            moves += made
            applied = made > 0
        else:
            touched = np.zeros(n_classes, dtype=bool)
            applied = []
            for x in ranked:
                if max_moves is not None and moves + len(applied) >= max_moves:
                    break
                a, b = labels[x], target[x]
                if touched[a] or touched[b]:
                    continue
                touched[a] = touched[b] = True
                applied.append((x, a, b))
            for x, a, b in applied:
                labels[x] = b
            if failing is not None and applied:
                bad = np.asarray(failing(labels), dtype=bool)
                for x, a, b in applied:
                    if bad[a] or bad[b]:
                        labels[x] = a
                        tabu[x] = True
                        undone += 1
            moves += len(applied)
        split_now = []
        if failing is None:
            split_now = split_big_classes(labels, counts, k, codes, tables, tried, eu, ev,
                                   None if rounds == 1 else
                                   np.concatenate([touched.nonzero()[0], last_split]))
            last_split = np.asarray(split_now, dtype=np.int64)
            splits += sum(1 for c in split_now if c < n_classes)
        if not applied and not split_now:
            if failing is not None or not switch or rounds > batch_rounds:
                break
            batch_rounds = rounds                # converged one class at a time: go on move by move
        changed = np.zeros(max(n_classes, int(labels.max()) + 1), dtype=bool)
        changed[touched.nonzero()[0]] = True
        changed[np.asarray(split_now, dtype=np.int64)] = True
        own[np.flatnonzero(changed[:len(own)])] = np.nan       # costed again next round
        hit = changed[labels]
        active = hit.copy()
        active[eu[hit[ev]]] = True
        active[ev[hit[eu]]] = True
    labels = _compact(labels)
    moves -= undone
    after = cost.of_labels(labels, counts) / cost.norm
    return labels, {"moves": int(moves), "splits": int(splits), "rounds": int(rounds),
                    "undone": int(undone), "loss_before": float(before),
                    "loss_after": float(after),
                    "refine_seconds": time.perf_counter() - started}
