"""Step 1 of ``stepwise``: release the records group by group, each group at a lattice node.

ARX's local recoding (Prasser, Eicher, Spengler, Bild & Kuhn, "Flexible data
anonymization using ARX -- current status and challenges ahead", Software:
Practice and Experience 50(7), 2020, section 4.3) anonymizes a table
*iteratively* with full-domain generalization: a global search with a
suppression limit releases the records that fall into classes of at least
``k`` at the chosen node; the records it suppressed are anonymized again, on
their own, by another search; and so on until nothing is left that could be
released. Every record ends up released at the node of its own step.

This module runs that scheme on the library's lattice. Each step looks for
the node of least *generalization loss* (ARX's Loss with its gs-factor 0: a
suppressed record costs what it would cost generalized to the node, so only
the node's generalization counts) among the nodes that release at least
``step * records`` of the remaining records (all of them when fewer remain).

Two facts make the search cheap:

* the loss of a node is its lower bound (it is separable per attribute), so
  the nodes are visited in order of loss and the first node that releases
  enough is the step's optimum;
* "releases fewer than r records" is monotone for k-anonymity, both down
  the lattice (a more specific node's classes are parts of a more general
  node's) and from one step to the next (the remaining records only
  shrink). So a failing node marks every more specific node failing, for
  every later step too: over the whole run each node fails at most once.
  (Entropy and recursive l and t-closeness are not monotone in this way,
  one reason ``stepwise`` is for k-anonymity only.)
"""

from __future__ import annotations

import math

import numpy as np

from ..lattice.frequency import FrequencyEngine
from ..lattice.lattice import Lattice
from ..lattice.node_metrics import LossMetric
from ..lattice.node_space import NodeSpace
from ..scale.sharding import subset

__all__ = ["STEP", "release_steps", "generalization_loss"]

STEP = 0.002
"""Each step releases at least this fraction of all records (ARX's own: 0.01).

Chosen from 0.002, 0.005, 0.01, 0.02 and 0.05 on the tuning tables with a
hierarchy for every quasi-identifier, ``adult``, ``fars``, ``patients`` and
``clinic`` of ``benchmarks/quality.py``, at k = 5, 10 and 20
(``benchmarks/sweep_step.py`` reruns the sweep; its output is
docs/bench/sweep_step.txt): the least mean Loss over the 12 runs (0.0937;
0.0943 to 0.0969 for the others) and the least Loss in 10 of them (0.02 was
lower on patients k = 20 and clinic k = 5, by 0.6% and 0.3%). Smaller steps
choose more specific nodes for more records, at the price of more steps."""

_CHUNK = 512    # candidates sorted at a time


class _GeneralizationLoss:
    """Per node: the per-attribute cell loss of every record at that node, combined.

    The per-level means are :class:`~kanon_graph.lattice.node_metrics.LossMetric`'s
    (weighted by the tuples' counts); ``"geometric"`` is its own combination.
    """

    def __init__(self, data, combine):
        self.metric = LossMetric(data, 0)
        self.combine = combine

    def lower_bound(self, nodes):
        if self.combine == "geometric":
            return self.metric.lower_bound(nodes)
        return np.mean([m[nodes[:, j]] for j, m in enumerate(self.metric.means)], axis=0)


def generalization_loss(data, nodes, combine="mean"):
    """The generalization loss of each of ``nodes`` (rows of level vectors) on ``data``.

    ``combine="mean"``: the mean over the quasi-identifiers of the mean
    per-record ARX cell loss (``(leaves under the value - 1) / (leaves - 1)``);
    ``"geometric"``: ARX's own combination, ``prod(1 + l_i)^(1/d) - 1``.

    Examples
    --------
    >>> import numpy as np, kanon_graph as kg
    >>> data = kg.encode(kg.datasets.paper_003_table(), kg.datasets.paper_003_schema())
    >>> generalization_loss(data, np.array([[0, 0, 0], [1, 3, 2]])).round(4).tolist()
    [0.0, 1.0]
    """
    return _GeneralizationLoss(data, combine).lower_bound(np.asarray(nodes))


def release_steps(data, model, *, step=STEP, combine="mean", progress=None):
    """Release the records of ``data`` step by step, each step at one lattice node.

    Parameters
    ----------
    data : EncodedTable
        Every quasi-identifier has a hierarchy.
    model : PrivacyModel
        k-anonymity (no l or t).
    step : float
        The least fraction of all records a step must release, in (0, 1].
    combine : {"mean", "geometric"}
        How the search combines the per-attribute losses.
    progress : callable, optional
        ``progress(released, records, text)`` after each step.

    Returns
    -------
    class_of : ndarray of int64 (n,)
        A class per record (the records of one class share their values at
        their step's node); ``-1`` for the records left when nothing more can
        be released (fewer than ``k``, or no node releases them under the
        model).
    stats : dict
        ``steps`` (one ``(levels, records released)`` per step), ``left``
        (records left) and ``nodes_checked``.
    """
    lattice = Lattice(data.heights, names=data.names)
    space = NodeSpace(lattice, _GeneralizationLoss(data, combine))
    nodes = space.nodes
    failed = np.zeros(space.total, dtype=np.int8)        # 1: releases too few, for good
    weights = data.weights
    total_records = data.records
    need_each = max(1, math.ceil(step * total_records))
    class_of = np.full(data.n, -1, dtype=np.int64)
    remaining = np.arange(data.n)
    steps, checked, next_class = [], 0, 0
    while _records(weights, remaining) >= model.k:
        sub = subset(data, remaining)
        need = min(need_each, sub.records)
        engine = FrequencyEngine(sub)
        bound = _GeneralizationLoss(sub, combine).lower_bound(nodes)
        found, more = _first_releasing(space, bound, failed, engine, model, need)
        checked += more
        if found is None:
            break
        levels = tuple(int(v) for v in nodes[found])
        groups, _ = engine.class_of(levels)
        released = ~engine.failing_groups(levels, model)[groups]
        _, label = np.unique(groups[released], return_inverse=True)
        class_of[remaining[released]] = next_class + label
        next_class += int(label.max()) + 1
        steps.append((levels, _records(sub.weights, np.flatnonzero(released))))
        remaining = remaining[~released]
        if progress:
            progress(total_records - _records(weights, remaining), total_records,
                     f"stepwise: step {len(steps)}")
    return class_of, {"steps": steps, "left": _records(weights, remaining),
                      "nodes_checked": checked}


def _records(weights, rows):
    return len(rows) if weights is None else int(weights[rows].sum())


def _first_releasing(space, bound, failed, engine, model, need):
    """The node of least ``bound`` that releases at least ``need`` records (ties: lower index).

    Candidates are taken :data:`_CHUNK` at a time in bound order; a node
    that releases too few marks every more specific node in ``failed``.
    """
    candidates = np.flatnonzero(failed == 0)
    checked = 0
    while len(candidates):
        take = min(_CHUNK, len(candidates))
        part = np.argpartition(bound[candidates], take - 1)[:take] if take < len(candidates) \
            else np.arange(len(candidates))
        chunk = candidates[part]
        chunk = chunk[np.lexsort((chunk, bound[chunk]))]
        for i in chunk:
            if failed[i]:
                continue
            levels = tuple(int(v) for v in space.nodes[i])
            fs = engine.frequency_set(levels)
            checked += 1
            if int(fs.counts[~engine.failing_groups(levels, model)].sum()) >= need:
                return int(i), checked
            space.fill_below(int(i), failed, 1, closed=True)
        done = np.zeros(len(candidates), dtype=bool)
        done[part] = True
        candidates = candidates[~done & (failed[candidates] == 0)]
    return None, checked
