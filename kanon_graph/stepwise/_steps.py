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

A class is released when the privacy model holds on it: k-anonymity, and
l-diversity or t-closeness when asked (t against the whole table's
distribution, fixed before the first step: :class:`~kanon_graph.privacy.ClassCheck`).
With a sensitive attribute the frequency sets are those of the quasi-identifiers
*and* the sensitive value, so one frequency set gives both the class sizes
and the classes' sensitive histograms.

Two facts make the search cheap:

* the loss of a node is its lower bound (it is separable per attribute), so
  the nodes are visited in order of loss and the first node that releases
  enough is the step's optimum;
* "releases fewer than r records" spreads down the lattice and over the
  later steps when the model is *superset-closed*
  (:attr:`~kanon_graph.privacy.PrivacyModel.superset_closed`: k and distinct
  l). A class that satisfies such a model at a more specific node lies
  inside a class of the general node that contains it and so satisfies it
  too; a class over the records left at a later step lies inside the class
  over the records left now. So the records a node releases bound those
  every more specific node releases, now and later, and a node that
  releases fewer than r marks every more specific node failing while the
  steps need r or more. Entropy and recursive l and t-closeness are not
  superset-closed (a satisfying class and a failing one can merge into a
  failing one), so for them the marks come from their
  :meth:`~kanon_graph.privacy.PrivacyModel.relaxation` (k with distinct
  ``ceil(l)``, or k alone), which releases at least every record the model
  releases: a node that releases fewer than r records under the relaxation
  marks every more specific node.

A node that releases too few only under the model itself (not under its
relaxation) is not checked again at later steps either. For entropy and
recursive l and t this is a heuristic, not a bound: a class it failed can
pass once some of its records have been released at other nodes, so a later
step may skip a node that would then release enough. Checking such nodes
again at every step visits most of the lattice at every step, for the same
Loss: ``python benchmarks/stepwise_soft_marks.py`` (census, 3,000 rows, seed
0, k = 10, t = 0.2) prints both halves, 23,222 nodes checked with the soft
marks kept against 1,022,066 with them cleared before every step, Loss
0.2379 both (9.5 s against 198 s of CPU at a load average of 13-15). (The
figure given here before, 949,363 checks, came from a run no committed
command made.) So each step takes the least-loss node
that releases enough with k and distinct l, and the least-loss node among
those not yet failed with the other models.

The marks hold for a need of r or more; the last step needs only the records
left (fewer than the earlier steps' need), so the marks are cleared before it
(issue 39 item 10: kept, they made the last step skip nodes that release the
few records left and take a more general one).
"""

from __future__ import annotations

import copy
import dataclasses
import math

import numpy as np

from ..encoding import EncodedAttribute
from ..lattice.frequency import FrequencyEngine
from ..lattice.lattice import Lattice
from ..lattice.node_metrics import LossMetric
from ..lattice.node_space import NodeSpace
from ..privacy import ClassCheck
from ..scale.sharding import subset
from ._batch import BatchCounter
from ._diverse import distinct_released

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
    (weighted by the tuples' counts), summed here from the records per code
    (whole numbers) so that the rows and the weighted distinct tuples of one
    table give the very same floats, hence the same node at every tie;
    ``"geometric"`` is its own combination.
    """

    def __init__(self, data, combine, base=None):
        if base is None:
            self.metric = LossMetric(data, 0)
            # per attribute: the cell loss of each leaf code at each level, (levels, codes)
            self.leaf_costs = [np.stack([cells[level][a.hierarchy.level_map[level]]
                                         for level in range(a.height + 1)])
                               for a, cells in zip(data.attributes, self.metric.cells)]
        else:                           # one step's records: the tables of the whole table
            self.metric, self.leaf_costs = copy.copy(base.metric), base.leaf_costs
        self.metric.means = [_exact_means(a, costs, data.weights, data.records)
                             for a, costs in zip(data.attributes, self.leaf_costs)]
        self.combine = combine

    def lower_bound(self, nodes):
        if self.combine == "geometric":
            return self.metric.lower_bound(nodes)
        return np.mean([m[nodes[:, j]] for j, m in enumerate(self.metric.means)], axis=0)


def _exact_means(attr, leaf_costs, weights, records):
    """Per level: the mean over the records of the cell loss of their code at that level."""
    per_code = np.bincount(attr.codes, weights=weights, minlength=leaf_costs.shape[1])
    return leaf_costs @ per_code / max(records, 1)


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


def release_steps(data, model, *, step=STEP, combine="mean", check=None, progress=None):
    """Release the records of ``data`` step by step, each step at one lattice node.

    Parameters
    ----------
    data : EncodedTable
        Every quasi-identifier has a hierarchy.
    model : PrivacyModel
        Bound to ``data``: k, and l-diversity or t-closeness when asked.
    step : float
        The least fraction of all records a step must release, in (0, 1].
    combine : {"mean", "geometric"}
        How the search combines the per-attribute losses.
    check : ClassCheck, optional
        The model on sensitive histograms, t against the whole table
        (default: made from ``model`` and ``data``).
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

    Examples
    --------
    >>> import kanon_graph as kg
    >>> data = kg.encode(kg.datasets.paper_003_table(), kg.datasets.paper_003_schema())
    >>> class_of, stats = release_steps(data, kg.privacy.PrivacyModel(3), step=0.5)
    >>> stats["steps"], stats["left"]
    ([((0, 1, 1), 6), ((0, 3, 2), 4)], 0)
    """
    if check is None:
        check = ClassCheck(model, data)
    lattice = Lattice(data.heights, names=data.names)
    whole = _GeneralizationLoss(data, combine)
    space = NodeSpace(lattice, whole)
    nodes = space.nodes
    failed = np.zeros(space.total, dtype=np.int8)   # 1: releases too few while need >= marked
    marked = math.inf                               # the need the marks were made at
    soft = np.zeros(space.total, dtype=np.int8)     # 1: only the model released too few
    weights = data.weights
    total_records = data.records
    need_each = max(1, math.ceil(step * total_records))
    class_of = np.full(data.n, -1, dtype=np.int64)
    remaining = np.arange(data.n)
    steps, checked, next_class, more = [], 0, 0, 0
    while _records(weights, remaining) >= model.k:
        sub = subset(data, remaining)
        need = min(need_each, sub.records)
        if need < marked:               # marks made for a larger need do not hold for this one
            failed[:] = 0
            soft[:] = 0
            marked = need
        counter = _NodeCounter(sub, model, check, remaining, data.n)
        bound = _GeneralizationLoss(sub, combine, whole).lower_bound(nodes)
        found, more = _first_releasing(space, bound, failed, counter, need, soft,
                                       climb=more > _CHUNK and model.superset_closed)
        checked += more
        if found is None:
            break
        levels = tuple(int(v) for v in nodes[found])
        released = counter.released_rows(levels)
        _, label = np.unique(counter.groups[released], return_inverse=True)
        class_of[remaining[released]] = next_class + label
        next_class += int(label.max()) + 1
        steps.append((levels, _records(sub.weights, np.flatnonzero(released))))
        remaining = remaining[~released]
        if progress is not None:
            progress(total_records - _records(weights, remaining), total_records,
                     f"stepwise: step {len(steps)}")
    return class_of, {"steps": steps, "left": _records(weights, remaining),
                      "nodes_checked": checked}


def _records(weights, rows):
    return len(rows) if weights is None else int(weights[rows].sum())


class _NodeCounter:
    """The records a node releases from one step's remaining records ``sub``.

    k alone: read off the node's frequency set. With a sensitive attribute
    the frequency sets are taken over the quasi-identifiers and the
    sensitive code (an extra column no node generalizes), so the groups of a
    frequency set sorted by tuple are the classes' histograms in a row.
    """

    def __init__(self, sub, model, check, rows, rows_in_all=0):
        self.model, self.check, self.rows = model, check, rows
        self.sensitive = model.needs_sensitive
        self.relaxed = model.relaxation()
        self.sub = sub
        table = _with_sensitive(sub, model.sensitive) if self.sensitive else sub
        self.engine = FrequencyEngine(table)
        self.groups = None
        # k alone on few records: nodes counted in compiled batches (_batch)
        self.batch = BatchCounter(sub, model.k) if not self.sensitive and BatchCounter.fits(
            sub, rows_in_all) else None

    def released(self, levels, need=None):
        """``(records released under the model, under its relaxation)`` at ``levels``.

        With ``need``, a node whose relaxation releases fewer than ``need``
        records gives ``(possible, possible)``: the model releases fewer still.
        """
        if not self.sensitive:
            fs = self.engine.frequency_set(levels)
            counts = fs.packed[1] if fs.packed is not None else fs.counts  # any order: no unpack
            records = int(counts[counts >= self.model.k].sum())
            return records, records
        fs = self.engine.frequency_set(tuple(levels) + (0,))
        # the relaxation (distinct l, or k) counted from the packed keys (._diverse)
        possible = distinct_released(fs, self.relaxed.k, self.relaxed.l or 0, self.check.missing)
        if possible is not None and (self.model.superset_closed
                                     or (need is not None and possible < need)):
            return possible, possible
        # groups come sorted by tuple, the sensitive code last: a class's pairs are adjacent
        codes, counts = fs.codes, fs.counts
        d = len(levels)
        cls = np.zeros(len(counts), dtype=np.int64)
        if len(counts) > 1:
            np.cumsum((codes[1:, :d] != codes[:-1, :d]).any(axis=1), out=cls[1:])
        n_classes = int(cls[-1]) + 1 if len(cls) else 0
        sizes = np.bincount(cls, weights=counts, minlength=n_classes)
        loose = sizes < self.relaxed.k
        if self.relaxed.l is not None:
            known = cls if self.check.missing is None \
                else cls[codes[:, d] != self.check.missing]
            loose |= np.bincount(known, minlength=n_classes) < self.relaxed.l
        possible = int(sizes[~loose].sum())
        if self.model.superset_closed:              # the relaxation is the model
            return possible, possible
        bad = self.check.failing(cls, codes[:, d], counts, n_classes)
        return int(sizes[~bad].sum()), possible

    def released_rows(self, levels):
        """Boolean per remaining record: released at ``levels``; sets :attr:`groups`."""
        if not self.sensitive:          # the classes' records from the rows, no set sorted
            self.groups, n_classes = self.engine.class_of(levels)
            sizes = np.bincount(self.groups, weights=self.sub.weights, minlength=n_classes)
            return sizes[self.groups] >= self.model.k
        self.groups, n_classes = FrequencyEngine(self.sub).class_of(levels)
        return ~self.check.failing_rows(self.groups, self.rows)[self.groups]


def _with_sensitive(data, name):
    """``data`` with its sensitive codes as one more attribute, never generalized."""
    codes = np.asarray(data.sensitive[name], dtype=np.int64)
    domain = list(data.sensitive_domain.get(name, ())) or list(range(int(codes.max()) + 1))
    extra = EncodedAttribute(name=f"{name} (sensitive)", kind="categorical", codes=codes,
                             hierarchy=None, domain=domain)
    return dataclasses.replace(data, attributes=[*data.attributes, extra])


def _first_releasing(space, bound, failed, counter, need, soft, climb=False):
    """The node of least ``bound`` that releases at least ``need`` records (ties: lower index).

    Candidates are taken :data:`_CHUNK` at a time in bound order; a node
    whose relaxation releases too few marks every more specific node in
    ``failed``.

    With ``climb`` (a superset-closed model, the step after one that
    checked more than a chunk of nodes) the top node is counted first, and each node whose relaxation
    releases too few is followed up the lattice: its direct generalizations
    are counted, and those that release too few are followed in turn. Late
    in step 1 most nodes fail, and a failing general node marks all the
    nodes below it at once, which the bound order reaches one by one (census,
    60,000 rows, distinct l = 2, k = 5: 23,163 nodes counted without, 15,156
    with). The node found is the same: the marks are bounds whatever the
    order of the counts, and a node counted by a climb is judged on its
    counts when the bound order reaches it, as if counted then.
    """
    candidates = np.flatnonzero((failed == 0) & (soft == 0))
    checked = 0
    known = {}                  # nodes counted by a climb: (released, possible)

    def fails(i):               # count node i out of bound order; True if it marks below
        nonlocal checked
        known[i] = counter.released(tuple(int(v) for v in space.nodes[i]), need)
        checked += 1
        if known[i][1] >= need:
            return False
        space.fill_below(int(i), failed, 1, closed=True)
        return True

    climb = climb and counter.batch is None
    if climb and fails(space.index(space.lattice.heights)):    # nothing releases enough
        return None, checked
    while len(candidates):
        take = min(_CHUNK, len(candidates))
        part = np.argpartition(bound[candidates], take - 1)[:take] if take < len(candidates) \
            else np.arange(len(candidates))
        chunk = candidates[part]
        chunk = chunk[np.lexsort((chunk, bound[chunk]))]
        counted, batch = {}, 8
        for at, i in enumerate(chunk):
            if failed[i] or soft[i]:
                continue
            if i in known:
                released, possible = known[i]
            elif counter.batch is not None:
                if i not in counted:        # the next live nodes in one call, more each time
                    live = chunk[at:]
                    live = live[(failed[live] == 0) & (soft[live] == 0)][:batch]
                    counted = dict(zip(live.tolist(), counter.batch.released(space.nodes[live])))
                    batch = min(2 * batch, _CHUNK)
                released = possible = int(counted[i])
                checked += 1
            else:
                levels = tuple(int(v) for v in space.nodes[i])
                released, possible = counter.released(levels, need)
                checked += 1
            if released >= need:
                return int(i), checked
            if possible < need:
                space.fill_below(int(i), failed, 1, closed=True)
                stack = [int(i)] if climb else []
                while stack:                    # up while the generalizations fail too
                    stack += [j for j in space.successors(stack.pop())
                              if not failed[j] and j not in known and fails(j)]
            else:
                soft[i] = 1
        done = np.zeros(len(candidates), dtype=bool)
        done[part] = True
        candidates = candidates[~done & (failed[candidates] == 0) & (soft[candidates] == 0)]
    return None, checked
