"""Greedy k-member clustering (Byun, Kamra, Bertino & Li 2007).

The baseline of paper 003 (Figures 7-9) and the origin of the information
loss IL that paper 001 uses. It walks the record distance graph
(:class:`~kanon_graph.records.RecordGraph`): records with the same
quasi-identifier tuple are one node with a multiplicity, so the work per step
is proportional to the number of distinct tuples, not of records.
"""

from __future__ import annotations

import numpy as np

from ..records import RecordGraph
from ..registry import Partition, register_algorithm
from ._groups import GroupCoster, GroupStates

__all__ = ["k_member"]


def k_member(data, model, *, rng, suppression=None, distance="hdist"):
    """Build clusters of exactly k records, each grown greedily by least information loss.

    Following Byun et al.'s Figure 2: pick a random record r (from ``rng``);
    while at least k records are left, let r be the remaining record
    furthest from the previous r (distances of the record distance graph),
    start a cluster with it, and add the remaining record whose addition
    gives the cluster the least information loss IL (section 4.1; numeric
    span / range, categorical LCA height / tree height, times the size) until
    the cluster holds k records. The fewer than k records left at the end
    each join the cluster whose IL grows least.

    Records with identical quasi-identifiers are one node of the graph: once
    the best record's tuple is chosen, further copies of it add nothing to
    IL and are taken together (up to k), which gives the same clusters as
    taking them one by one, up to ties. Ties go to the node seen first in the
    table.

    Parameters
    ----------
    data : EncodedTable
    model : PrivacyModel
        Only k is enforced; l-diversity / t-closeness are refused.
    rng : numpy.random.Generator
        Chooses the first record.
    distance : str or dict
        The per-attribute distance of the record graph used to find the
        furthest record (default ``"hdist"``, paper 003's HDist, which orders
        pairs like Byun's distance on categorical attributes); see
        :class:`~kanon_graph.records.RecordGraph`.

    Returns
    -------
    Partition
        ``stats``: ``clusters``, ``first_record``, ``distinct_tuples``.

    References
    ----------
    Byun, Kamra, Bertino & Li, "Efficient k-anonymization using clustering
    techniques", DASFAA 2007: the greedy k-member algorithm (Figure 2),
    information loss (Definition 4), ``find_best_record`` and
    ``find_best_cluster``. Cost O(n^2 / k) distance and IL evaluations.

    Examples
    --------
    >>> import kanon_graph as kg
    >>> table = kg.datasets.paper_003_table()
    >>> res = kg.anonymize(table, kg.datasets.paper_003_schema(), k=3,
    ...                    algorithm="k-member", seed=0)
    >>> sorted(len(c) for c in res.classes)
    [3, 3, 4]
    """
    if model.needs_sensitive:
        raise ValueError("k-member enforces k-anonymity only; it cannot meet the requested "
                         "l-diversity or t-closeness -- use another algorithm")
    k = model.k
    graph = RecordGraph(data, distance=distance)
    coster = GroupCoster(data, cost="byun")
    nodes = coster.singletons(graph.first_record)
    remaining = graph.counts.copy()
    order = np.argsort(graph.node_of, kind="stable")
    starts = np.concatenate([[0], np.cumsum(graph.counts)])
    taken = np.zeros(graph.n_nodes, dtype=np.int64)      # records of a node already used

    def take(node, count):
        begin = starts[node] + taken[node]
        taken[node] += count
        remaining[node] -= count
        return order[begin:begin + count]

    class_of = np.full(data.n, -1, dtype=np.int64)
    first = int(rng.integers(data.n))
    seed = int(graph.node_of[first])
    left = data.n
    clusters = []
    while left >= k:
        alive = np.flatnonzero(remaining > 0)
        far = graph.distances_from(seed)[alive]
        seed = int(alive[np.argmax(far)])
        members = [take(seed, min(remaining[seed], k))]
        state = nodes.take([seed])
        size = len(members[0])
        while size < k:
            alive = np.flatnonzero(remaining > 0)
            cost = coster.merge_cost(state, nodes, alive)
            best = int(alive[np.argmin(cost)])
            state = coster.merge_one(state, nodes, best)
            members.append(take(best, min(remaining[best], k - size)))
            size += len(members[-1])
        rows = np.concatenate(members)
        class_of[rows] = len(clusters)
        state.size = np.array([size])
        clusters.append(state)
        left -= size
    if left:
        states = _stack(clusters)
        rest = np.concatenate([order[starts[v] + taken[v]:starts[v + 1]]
                               for v in np.flatnonzero(remaining > 0)])
        for row in np.sort(rest):
            one = coster.singletons([row])
            merged = coster.merge(one, states)
            growth = coster.loss(merged) - coster.loss(states)
            best = int(np.argmin(growth))
            states.lo[best], states.hi[best] = merged.lo[best], merged.hi[best]
            states.level[best] = merged.level[best]
            states.size[best] += 1
            class_of[row] = best
    return Partition(class_of, None, {"clusters": len(clusters), "first_record": first,
                                      "distinct_tuples": graph.n_nodes})


def _stack(states):
    return GroupStates(np.vstack([s.lo for s in states]), np.vstack([s.hi for s in states]),
                       np.vstack([s.level for s in states]), np.vstack([s.leaf for s in states]),
                       np.concatenate([s.size for s in states]))


register_algorithm("k-member", k_member, recoding="local",
                   description="Byun et al.'s greedy k-member clustering (2007)")
