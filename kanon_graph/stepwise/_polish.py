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


def polish(data, class_of, k, check=None):
    """Refine ``class_of`` (every record placed) along the record graph.

    With ``check`` (a :class:`~kanon_graph.privacy.ClassCheck` with l or t)
    a move is kept only when both its classes still satisfy the model
    afterwards, judged from the classes' sensitive histograms: the records
    per (distinct tuple, sensitive value), summed over the tuples of each
    class. The refinement then moves one tuple per class per round and
    splits no class (:func:`~kanon_graph.records.refine.refine_classes`
    with ``failing``); with k alone it runs as before.

    Records are counted by ``data.weights`` when it is set (the multiplicity
    of a node is then the records of its rows).

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
    failing = None
    if check is not None and check.sensitive:
        failing = _histogram_failing(check, graph.node_of)
    # records per node: the graph counts rows, a table of weighted tuples holds more
    counts = graph.counts if data.weights is None else np.bincount(
        graph.node_of, weights=data.weights, minlength=graph.n_nodes).astype(np.int64)
    labels, stats = refine_classes(cost, labels, counts, eu, ev, k, failing=failing,
                                   max_rounds=MAX_ROUNDS, batch_rounds=BATCH_ROUNDS)
    return labels[graph.node_of], {"polish_moves": int(stats["moves"]),
                                   "polish_splits": int(stats["splits"]),
                                   "loss_before_polish": float(stats["loss_before"]),
                                   "loss_after_polish": float(stats["loss_after"])}


def _histogram_failing(check, node_of):
    """``failing(labels)`` of the refinement, from per-(tuple, sensitive value) counts."""
    weights = np.ones(len(node_of), dtype=np.int64) if check.weights is None else check.weights
    width = int(check.values.max()) + 1 if len(check.values) else 1
    pairs, inverse = np.unique(np.asarray(node_of, dtype=np.int64) * width + check.values,
                               return_inverse=True)
    counts = np.bincount(inverse.reshape(-1), weights=weights).astype(np.int64)
    node, value = pairs // width, pairs % width

    def failing(labels):
        return check.failing(labels[node], value, counts, int(labels.max()) + 1)

    return failing
