"""Step 3 of ``stepwise``: move distinct tuples between classes along the record graph.

The classes of steps 1 and 2 are sets of whole distinct tuples (equal tuples
share every step's node and every hierarchy child), so they are a labelling
of the record graph's nodes (:class:`~kanon_graph.records.RecordGraph`). The
graph's local search (:func:`~kanon_graph.records.refine.refine_classes`)
then moves single tuples to a neighbouring class, and splits classes, while
that lowers the mean per-attribute Loss and every class keeps ``k`` records
-- the refinement the ``mst`` algorithm ends with, here started from a
partition that is already good. The neighbours are the near-tuple index's
edges (tuples that differ in at most :data:`INDEX` attributes,
:func:`~kanon_graph.records.neighbours.block_edges`).
"""

from __future__ import annotations

import numpy as np

from ..records import RecordGraph
from ..records.costs import ClassCost
from ..records.neighbours import block_edges
from ..records.refine import refine_classes

__all__ = ["INDEX", "MAX_ROUNDS", "BATCH_ROUNDS", "polish"]

INDEX = 3
"""Tuples differing in at most this many attributes are neighbours (mst's default)."""

MAX_ROUNDS = 20
"""Refinement rounds at most (mst's default)."""

BATCH_ROUNDS = 8
"""Rounds of one move per class before moving tuple by tuple (mst's default)."""


def polish(data, class_of, k):
    """Refine ``class_of`` (every record placed, k-anonymity only) along the record graph.

    Returns ``(class_of, stats)``; ``class_of`` is returned unchanged when a
    class splits a distinct tuple (it cannot be a labelling of the graph).
    """
    graph = RecordGraph(data)
    labels = np.full(graph.n_nodes, -1, dtype=np.int64)
    labels[graph.node_of] = class_of
    if (labels[graph.node_of] != class_of).any() or (labels < 0).any():
        return class_of, {"polish": "skipped: a class splits a distinct tuple"}
    cost = ClassCost(data, graph.codes, "loss")
    eu, ev = block_edges(data, graph.codes, free=INDEX)
    labels, stats = refine_classes(cost, labels, graph.counts, eu, ev, k,
                                   max_rounds=MAX_ROUNDS, batch_rounds=BATCH_ROUNDS)
    return labels[graph.node_of], {"polish_moves": int(stats["moves"]),
                                   "polish_splits": int(stats["splits"]),
                                   "loss_before_polish": float(stats["loss_before"]),
                                   "loss_after_polish": float(stats["loss_after"])}
