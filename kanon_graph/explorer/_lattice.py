"""The lattice around a release: the chosen node and its neighbours, each node checked.

For a global recoding (one level per quasi-identifier) the nodes within two
steps of the chosen one (its predecessors and successors, and theirs) are
checked against the release's own criteria on the release's encoded table
(:class:`kanon_graph.lattice.frequency.FrequencyEngine`): each node's Loss
(ARX's, with the release's suppression budget), smallest class, and the
records it would suppress. ``pruned`` marks a node whose status a search
would not have needed to check, because a checked neighbour's status spreads
to it (an anonymous node's generalizations are anonymous, a failing node's
specializations fail, when the criteria are monotone): the search's own
record of what it pruned is not kept by the release.
"""

from __future__ import annotations

from typing import Any

__all__ = ["lattice_of", "lattice_view", "DEPTH"]

#: Steps from the chosen node in either direction.
DEPTH = 2


def _neighbourhood(lattice: Any, chosen: tuple[int, ...], depth: int) -> tuple[list, list]:
    nodes, edges = {chosen}, set()
    for step in (lattice.predecessors, lattice.successors):
        frontier = [chosen]
        for _ in range(depth):
            found = []
            for node in frontier:
                for other in step(node):
                    edge = (other, node) if step is lattice.predecessors else (node, other)
                    edges.add(edge)
                    if other not in nodes:
                        nodes.add(other)
                        found.append(other)
            frontier = found
    ordered = sorted(nodes, key=lambda n: (sum(n), n))
    return ordered, sorted(edges)


def _reached(result: Any, data: Any) -> tuple[tuple[int, ...] | None, str]:
    """The node a local recoding's cells reach at most: per attribute, its highest level."""
    from ..exceptions import HierarchyError
    from ._cells import suppressed_rows, text_counts

    released = result.table
    kept = released.loc[~suppressed_rows(released, list(data.names))]
    node = []
    for name, attr in zip(data.names, data.attributes):
        h = attr.hierarchy
        if h is None:
            return None, f"{name!r} has no hierarchy, so its cells are on no level"
        top = 0
        for label in text_counts(kept[name]).index:
            try:
                top = max(top, h.height if label == "*" else h.level(label))
            except HierarchyError:
                return None, (f"{name!r} releases {label!r}, no node of its hierarchy, so "
                              f"the release is on no node")
        node.append(top)
    return tuple(node), ""


def lattice_of(result: Any) -> dict[str, Any]:
    """``{nodes, edges}`` around a release's node, or ``{nodes: [], reason}``.

    A global recoding's node is its own; a local recoding's is the node its
    cells reach at most (each attribute at the highest level any of its
    released cells takes), marked ``chosen`` with ``recoding: "local"``.
    """
    release = getattr(result, "release", None)
    data = getattr(release, "data", None)
    if release is None or not hasattr(data, "group_keys"):
        return {"nodes": [], "edges": [], "reason": "the release keeps no encoded table "
                "(a Dask input), so its lattice cannot be checked"}
    if result.levels is not None and release.levels is not None:
        chosen, recoding, why = tuple(int(x) for x in release.levels), "global", ""
    else:
        found, why = _reached(result, data)
        if found is None:
            return {"nodes": [], "edges": [], "reason": f"{result.algorithm!r} made a local "
                    f"recoding and {why}"}
        chosen, recoding = found, "local"
        why = (f"{result.algorithm!r} made a local recoding: its cells sit on different "
               f"levels; shown is the lattice around the node they reach at most")
    from ..lattice.frequency import FrequencyEngine
    from ..lattice.lattice import Lattice
    from ..lattice.node_metrics import node_metric
    from ..privacy import PrivacyModel

    v = result.verification
    if v.diversity == "recursive":
        return {"nodes": [], "edges": [], "reason": "recursive (c, l)-diversity: the release "
                "does not keep its c, so other nodes cannot be checked"}
    budget = max(int(result.suppressed), int(result.stats.get("suppression_budget", 0) or 0))
    unbound = PrivacyModel(v.k, l=v.l, diversity=v.diversity or "distinct", t=v.t)
    monotone = unbound.is_monotone(budget)
    model = unbound.bind(data)
    capped = bool(release.capped)
    heights = list(data.heights)
    if capped:
        from ..lattice.capped import boundary_levels

        heights = list(boundary_levels(data))
    lattice = Lattice(heights, names=list(data.names))
    engine = FrequencyEngine(data, capped=capped)
    metric = node_metric("loss", data, budget, capped)
    nodes, edges = _neighbourhood(lattice, chosen, DEPTH)
    checked = {}
    for node in nodes:
        fs = engine.frequency_set(node)
        failing = engine.failing_groups(node, model)
        suppressed = int(fs.counts[failing].sum())
        kept = fs.counts[~failing]
        checked[node] = {
            "id": "-".join(map(str, node)), "levels": dict(zip(data.names, node)),
            "loss": float(metric.value(node, fs, failing)),
            "min_class": int(kept.min()) if kept.size else 0,
            "suppressed": suppressed, "anonymous": suppressed <= budget,
            "chosen": node == chosen, "pruned": False}
    for a, b in edges:            # a is a direct specialization of b
        if monotone and checked[a]["anonymous"] and checked[b]["anonymous"]:
            checked[b]["pruned"] = True
        if monotone and not checked[b]["anonymous"] and not checked[a]["anonymous"]:
            checked[a]["pruned"] = True
    return {"recoding": recoding, "reason": why, "names": list(data.names), "heights": heights,
            "chosen": checked[chosen]["id"],
            "budget": budget, "nodes": [checked[n] for n in nodes],
            "edges": [[checked[a]["id"], checked[b]["id"]] for a, b in edges]}


def lattice_view(session: Any, run: Any) -> dict[str, Any]:
    """The JSON of ``GET /api/release/{id}/lattice`` (computed with the release)."""
    return run.lattice or {"nodes": [], "edges": [], "reason": "not computed"}
