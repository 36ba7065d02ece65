"""Bottom-up utility-based local recoding (Xu, Wang, Pei, Wang, Shi & Fu 2006).

The baseline of paper 004 (section 6.2.2): groups grow from single tuples by
merging, always with the partner that costs the least certainty penalty.

A reference implementation of the method as published, not a fast one: each
small group looks for its partner among all live groups (a compiled scan,
:func:`~kanon_graph.baselines._bottom_up_kernels.best_partner`), so a run
costs O(u^2 d) for u distinct quasi-identifier tuples and d attributes
(about u merges, each scanning up to u groups). On 20,000 rows of continuous
columns (u close to 20,000) that is 10-20 times mondrian's time
(docs/performance.md, "Continuous columns"); use ``mondrian`` (O(n log n))
for large tables with continuous quasi-identifiers.
"""

from __future__ import annotations

import numpy as np

from ..records import RecordGraph
from ..recoding.boundaries import cells_to_suppress, has_boundaries, magval_cells
from ..registry import Partition, register_algorithm
from ._bottom_up_kernels import best_partner
from ._cost_kernels import leaf_tables
from ..records._groups import GroupCoster

__all__ = ["bottom_up"]


def bottom_up(data, model, *, rng=None, suppression=None, respect_boundaries=False,
              progress=None):
    """Merge groups smaller than k with their cheapest partner until every group has k.

    Every distinct quasi-identifier tuple starts as a group (identical
    tuples cost nothing to merge, so they start merged). While some group
    has fewer than k records, each such group G, in turn, is merged with the
    group G' that raises the total certainty penalty least, i.e. minimises
    ``NCP(G ∪ G') - NCP(G) - NCP(G')`` with ``NCP(E) = |E| sum_A NCP_A(E)``
    (numeric span / range, categorical leaves under the LCA / all leaves).
    When the union would hold 2k records or more, it is split instead: G
    takes the ``k - |G|`` records of G' that are cheapest to add to it and
    G' keeps the rest (at least k), as the method's "split large groups"
    step; the paper leaves the split heuristic open, this is our reading.

    Parameters
    ----------
    data : EncodedTable
    model : PrivacyModel
        Only k is enforced; l-diversity / t-closeness are refused.
    rng : numpy.random.Generator
        Unused: the method is deterministic (ties go to the group of the
        tuple seen first in the table).
    suppression : float, optional
        Budget for suppressing MAGVal cells with boundaries (else unused).
    respect_boundaries : bool, default False
        Generalization boundaries (Hussien et al. 2016, Definitions 3-6):
        only *allowed* merges and splits happen, i.e. a group's partner is
        the cheapest group of its own MAGVal cell (a class is allowed iff
        its members share their MAGVal node on every attribute, proof in
        :mod:`kanon_graph.recoding.boundaries`). Cells that cannot hold
        ``k`` records are suppressed within the budget, else a
        ``ValueError`` names their MAGVals; every other small group then has
        an allowed partner.
    progress : None, bool or callable
        ``progress(done, total, text)``: ``done`` records are in groups of at
        least ``k`` of the ``total`` records to release, reported after
        every 256 groups merged or split and at the end of each round (see
        :mod:`kanon_graph._progress`).

    Returns
    -------
    Partition
        ``stats``: ``rounds`` (passes over the small groups), ``merges``,
        ``splits`` and ``groups``.

    References
    ----------
    Xu, Wang, Pei, Wang, Shi & Fu, "Utility-based anonymization using local
    recoding", KDD 2006: the weighted certainty penalty (section 2) and the
    bottom-up greedy method (section 4.1). Used as the local-recoding
    baseline by Morton et al. (2012), section 6.2.2.

    Examples
    --------
    >>> import kanon_graph as kg
    >>> table = kg.datasets.paper_003_table()
    >>> res = kg.anonymize(table, kg.datasets.paper_003_schema(), k=3, algorithm="bottom-up")
    >>> sorted(len(c) for c in res.classes)
    [3, 3, 4]
    """
    if model.needs_sensitive:
        raise ValueError("bottom-up enforces k-anonymity only; it cannot meet the requested "
                         "l-diversity or t-closeness -- use another algorithm")
    k = model.k
    graph = RecordGraph(data)
    coster = GroupCoster(data, cost="ncp")
    states = coster.singletons(graph.first_record)
    states.size = graph.counts.copy()
    order = np.argsort(graph.node_of, kind="stable")
    bounds = np.concatenate([[0], np.cumsum(graph.counts)])
    members = [order[bounds[g]:bounds[g + 1]] for g in range(graph.n_nodes)]
    loss = np.zeros(graph.n_nodes)               # identical tuples: every group costs 0
    alive = np.ones(graph.n_nodes, dtype=bool)
    cell = np.zeros(graph.n_nodes, dtype=np.int64)     # MAGVal cell of every group
    if respect_boundaries and has_boundaries(data):
        cells = magval_cells(data)
        cells[cells_to_suppress(data, model, cells, suppression, "bottom-up")] = -1
        cell = cells[graph.first_record]
        alive &= cell >= 0
    rounds = merges = splits = 0
    from .._progress import reporter

    report = reporter(progress, "bottom-up")
    to_release = int(states.size[alive].sum())

    def settled(text):
        report(int(states.size[alive & (states.size >= k)].sum()), to_release, text)

    anc, cost_at = leaf_tables(coster, states.leaf)     # per-group rows for the kernel
    leaf_rows = []                                       # attribute c: rows of every leaf
    for c in range(len(coster.lmaps)):
        rows_c = leaf_tables(coster, _one_attribute(coster, c))
        leaf_rows.append((rows_c[0][:, c], rows_c[1][:, c]))
    spans = np.ascontiguousarray(coster.spans, dtype=float)

    def set_state(g, rows):
        fresh = coster.state_of(rows)
        states.lo[g], states.hi[g] = fresh.lo[0], fresh.hi[0]
        states.level[g], states.leaf[g] = fresh.level[0], fresh.leaf[0]
        states.size[g] = len(rows)
        for c, (a_table, c_table) in enumerate(leaf_rows):
            anc[g, c], cost_at[g, c] = a_table[fresh.leaf[0, c]], c_table[fresh.leaf[0, c]]
        loss[g] = coster.loss(fresh)[0]

    while True:
        small = np.flatnonzero(alive & (states.size < k))
        if len(small) == 0:
            break
        rounds += 1
        live = np.flatnonzero(alive)
        n_alive = len(live)
        for step, g in enumerate(small):
            if not alive[g] or states.size[g] >= k:
                continue
            if report and step % 256 == 255:
                settled(f"round {rounds}")
            if 4 * (len(live) - n_alive) > len(live):   # drop merged groups from the scan
                live = np.flatnonzero(alive)
            best = best_partner(g, live, alive, cell, states.size, loss, states.lo, states.hi,
                                states.level, anc, cost_at, spans)
            if best < 0:
                raise RuntimeError(f"bottom-up: group {g} has no partner in its cell")
            if states.size[g] + states.size[best] >= 2 * k:
                rows = members[best]
                cost = coster.merge_cost(states.take([g]), coster.singletons(rows),
                                         np.arange(len(rows)))
                moved = np.argsort(cost, kind="stable")[:k - states.size[g]]
                keep = np.ones(len(rows), dtype=bool)
                keep[moved] = False
                members[g] = np.concatenate([members[g], rows[moved]])
                members[best] = rows[keep]
                set_state(best, members[best])
                splits += 1
            else:
                members[g] = np.concatenate([members[g], members[best]])
                members[best] = members[best][:0]
                alive[best] = False
                n_alive -= 1
                merges += 1
            set_state(g, members[g])
        settled(f"round {rounds}")
    if not rounds:
        settled("no group below k")
    class_of = np.full(data.n, -1, dtype=np.int64)
    for label, g in enumerate(np.flatnonzero(alive)):
        class_of[members[g]] = label
    return Partition(class_of, None, {"rounds": rounds, "merges": merges, "splits": splits,
                                      "groups": int(alive.sum())})


def _one_attribute(coster, c):
    """Leaf codes ``0..m_c - 1`` of categorical attribute ``c`` (0 elsewhere), as ``(m_c, q)``."""
    leaves = np.zeros((coster.lmaps[c].shape[1], len(coster.lmaps)), dtype=np.int64)
    leaves[:, c] = np.arange(len(leaves))
    return leaves


register_algorithm("bottom-up", bottom_up, recoding="local", models=("k",),
                   supports_boundaries=True,
                   supports_suppression=True,
                   description="Xu et al.'s bottom-up utility-based local recoding (2006)")
