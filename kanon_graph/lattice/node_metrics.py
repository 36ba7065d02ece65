"""Metrics of a lattice node, computed from its frequency set, with lower bounds.

The optimal search (:mod:`kanon_graph.lattice.optimal`) scores a node from
its frequency set and prunes with a lower bound that needs no frequency set.
Each metric declares whether its bound is exact when nothing is suppressed
and whether it is monotone (never better at a more general node). Add a
metric by subclassing :class:`NodeMetric` and registering it in
:data:`NODE_METRICS`.

With ``capped=True`` (generalization boundaries) a node is a capped
recoding: within one attribute, values stopped by their MAGVal sit at lower
levels, so the released node -- and its leaf count and level -- varies per
group. Loss and Precision then read every group's code as a global node id
(:mod:`kanon_graph.lattice.capped`); both stay separable per attribute
without suppression (a value's released node depends on its attribute's
level only), so their bounds stay exact, and both are monotone (a value's
capped node only rises with the level). Height stays the sum of the node's
levels; Discernibility and DM* read the class sizes only.

Suppression: every metric charges a suppressed record the greatest loss,
as if it were generalized to the root of every attribute (ARX's Loss counts
a suppressed cell as fully generalized): 1 per cell in Loss and Precision,
the sum of the heights in Height, ``|D|`` in Discernibility and DM*. So no
node that suppresses records is ever cheaper than releasing those records
at the top, and with a suppression budget no metric is monotone (a more
general node may suppress fewer records).

References
----------
.. [ARX] Prasser & Kohlmayer, "Putting statistical disclosure control into
   practice: The ARX data anonymization tool" (2015): the Loss,
   Discernibility (DM and the monotonic DM*), Precision and Height metrics.
.. [Sweeney] Sweeney, "Achieving k-anonymity privacy protection using
   generalization and suppression" (2002): Prec.
"""

from __future__ import annotations

import numpy as np

__all__ = ["NodeMetric", "LossMetric", "DiscernibilityMetric", "DMStarMetric",
           "PrecisionMetric", "HeightMetric", "NODE_METRICS", "node_metric"]


class NodeMetric:
    """A metric evaluated on a node's frequency set, with a lower bound per node.

    Parameters
    ----------
    data : EncodedTable
    budget : int
        Records that may be suppressed (0: no suppression).
    capped : bool
        Score nodes as capped recodings (values stop at their MAGVals).

    Examples
    --------
    >>> import numpy as np, kanon_graph as kg
    >>> data = kg.encode(kg.datasets.paper_003_table(), kg.datasets.paper_003_schema())
    >>> m = node_metric("height", data, 0)
    >>> m.lower_bound(np.array([[0, 3, 2], [1, 1, 1]])).tolist(), m.monotone
    ([5.0, 3.0], True)
    """

    name = ""
    exact_without_suppression = False   # lower_bound is the value when nothing is suppressed
    always_monotone = False             # monotone even with record suppression

    def __init__(self, data, budget, capped=False):
        self.data = data
        self.n = data.records
        self.budget = budget
        self.capped = bool(capped)

    def _per_node(self, attr, per_level):
        """Concatenate per-level node values into one array by global node id, when capped."""
        if attr.is_capped(self.capped):
            return [np.concatenate(per_level)] * len(per_level)
        return per_level

    def _released_mean(self, attr, cells):
        """Per level: the mean over records of ``cells[level][released code]``."""
        weights = self.data.weights
        return np.array([float(np.average(cells[l][attr.at_level(l, self.capped)],
                                          weights=weights))
                         for l in range(attr.height + 1)])

    @property
    def monotone(self):
        return self.always_monotone or self.budget == 0

    def lower_bound(self, nodes):
        raise NotImplementedError

    def value(self, node, fs, failing):
        raise NotImplementedError

    def bound_from(self, fs):
        """A bound valid for every node more general than ``fs``'s (None: none)."""
        return None


class LossMetric(NodeMetric):
    """ARX's Loss: per attribute the mean of (leaves under value - 1)/(leaves - 1),
    1 for a suppressed cell, combined as prod(1 + loss_i)^(1/d) - 1."""

    name = "loss"
    exact_without_suppression = True

    def __init__(self, data, budget, capped=False):
        super().__init__(data, budget, capped)
        self.cells = []       # cells[j][l][code at level l] (a global node id when capped)
        self.means = []       # means[j][l] without suppression
        for attr in data.attributes:
            h = attr.hierarchy
            leaves = h.n_leaves
            per_level = [(lc - 1) / (leaves - 1) if leaves > 1 else np.zeros(len(lc))
                         for lc in h.leaf_counts]
            cells = self._per_node(attr, per_level)
            self.cells.append(cells)
            self.means.append(self._released_mean(attr, cells))

    def _combine(self, per_attribute):
        # the product taken attribute by attribute, in order (what np.prod along the
        # first axis of the stacked array does, without stacking d arrays of every node)
        d = len(per_attribute)
        if np.ndim(per_attribute[0]) == 0:      # one node: plain floats
            out = 1.0
            for part in per_attribute:
                out *= 1.0 + float(part)
            return np.float64(out) ** (1.0 / d) - 1.0
        out = 1.0 + np.asarray(per_attribute[0], dtype=float)
        for part in per_attribute[1:]:
            out *= 1.0 + np.asarray(part, dtype=float)
        return out ** (1.0 / d) - 1.0

    def lower_bound(self, nodes):
        return self._combine([self.means[j][nodes[:, j]] for j in range(nodes.shape[1])])

    def lower_bound_grid(self, heights):
        """:meth:`lower_bound` of every node of the lattice ``heights``, in key order.

        Node ``v``'s bound sits at its mixed-radix key (``v[0]`` most
        significant, :func:`~.node_space.node_key`); the products are
        outer products, the same multiplications in the same order as
        :meth:`_combine` makes (so the same bits), without a gather per node
        and attribute.
        """
        out = 1.0 + np.asarray(self.means[0][:heights[0] + 1], dtype=float)
        for j in range(1, len(heights)):
            out = np.multiply.outer(out, 1.0 + self.means[j][:heights[j] + 1]).ravel()
        return out ** (1.0 / len(heights)) - 1.0

    def value(self, node, fs, failing):
        suppressed = int(fs.counts[failing].sum())
        if suppressed == 0:
            return float(self.lower_bound(np.asarray([node]))[0])
        keep = ~failing
        counts, codes = fs.counts[keep], fs.codes[keep]     # once, not per attribute
        per = [(float((counts * self.cells[j][node[j]][codes[:, j]]).sum())
                + suppressed) / self.n for j in range(len(node))]
        return float(self._combine(per))


class PrecisionMetric(NodeMetric):
    """Sweeney's Prec as ARX computes it: the mean over attributes and records of
    level / height, 1 for a suppressed cell."""

    name = "precision"
    exact_without_suppression = True

    def __init__(self, data, budget, capped=False):
        super().__init__(data, budget, capped)
        self.heights = np.asarray([max(h, 1) for h in data.heights], dtype=float)
        self.cells = []       # cells[j][l][code]: the released level over the height
        self.means = []
        for attr, height in zip(data.attributes, self.heights):
            h = attr.hierarchy
            per_level = [np.full(len(lc), l / height) for l, lc in enumerate(h.leaf_counts)]
            cells = self._per_node(attr, per_level)
            self.cells.append(cells)
            self.means.append(self._released_mean(attr, cells) if attr.is_capped(capped)
                              else np.arange(h.height + 1) / height)

    def lower_bound(self, nodes):
        return np.mean([self.means[j][nodes[:, j]] for j in range(nodes.shape[1])], axis=0)

    def value(self, node, fs, failing):
        suppressed = int(fs.counts[failing].sum())
        if suppressed == 0:
            return float(self.lower_bound(np.asarray([node]))[0])
        keep = ~failing
        return float(np.mean([(float((fs.counts[keep] * self.cells[j][node[j]][
            fs.codes[keep, j]]).sum()) + suppressed) / self.n for j in range(len(node))]))


class HeightMetric(NodeMetric):
    """ARX's Height (the sum of the levels, Samarati's minimal height), per record.

    A suppressed record counts as fully generalized (every attribute at its
    root, as ARX's Loss counts it): the value is the mean over records of
    the levels each is released at,
    ``sum(node) + (s / n) * (sum(heights) - sum(node))`` with ``s``
    suppressed records, so suppressing records is never cheaper than
    generalizing them to the top. Without suppression it is ``sum(node)``.
    """

    name = "height"
    exact_without_suppression = True

    def __init__(self, data, budget, capped=False):
        super().__init__(data, budget, capped)
        self.top = float(sum(data.heights))

    def lower_bound(self, nodes):
        return nodes.sum(axis=1).astype(float)

    def value(self, node, fs, failing):
        share = float(fs.counts[failing].sum()) / self.n if self.n else 0.0
        return float(sum(node)) + share * (self.top - float(sum(node)))


class DiscernibilityMetric(NodeMetric):
    """ARX's Discernibility: sum of |E|^2 over released classes plus |D| per suppressed record."""

    name = "discernibility"

    def lower_bound(self, nodes):
        # Only bounds learnt from computed frequency sets (bound_from); a static
        # bound such as n^2 / (number of possible classes) is valid but steers the
        # chains away from informative checks and costs more checks overall.
        return np.zeros(len(nodes))

    def value(self, node, fs, failing):
        counts = fs.counts.astype(float)
        return float((counts[~failing] ** 2).sum() + self.n * counts[failing].sum())

    def bound_from(self, fs):
        # sum |E|^2 never decreases when classes merge, and a suppressed
        # record costs |D| >= |E|: valid for every more general node.
        return float((fs.counts.astype(float) ** 2).sum())


class DMStarMetric(DiscernibilityMetric):
    """ARX's monotonic discernibility DM*: sum of |E|^2 over the classes.

    ARX keeps DM* monotone by charging a suppressed class ``|E|^2`` like a
    released one, which lets suppressing the whole table look cheaper than
    releasing it. Here a suppressed record costs ``|D|``, as if generalized
    to the root (every record in one class of ``|D|``): the greatest loss a
    record can carry. With a suppression budget DM* therefore equals
    Discernibility and is not monotone; without one it is ``sum |E|^2``,
    monotone, as in ARX.
    """

    name = "dm_star"


#: Metrics the optimal search understands, by name (add your own subclass here).
NODE_METRICS = {m.name: m for m in (LossMetric, DiscernibilityMetric, DMStarMetric,
                                    PrecisionMetric, HeightMetric)}


def node_metric(name, data, budget, capped=False):
    """Instantiate the node metric ``name`` for ``data`` and a suppression budget
    (``capped``: nodes are capped recodings within the generalization boundaries)."""
    try:
        return NODE_METRICS[name](data, budget, capped)
    except KeyError:
        raise ValueError(f"The 'metric' parameter of the optimal search must be one of "
                         f"{sorted(NODE_METRICS)}. Got {name!r}.") from None
