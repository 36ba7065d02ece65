"""Vectorized information loss of groups of records, for the clustering algorithms.

k-member, Bottom-Up, Mondrian and the sensitive-attribute clustering all need
the cost of a group of records, and of the union of one group with every
other group at once. A group is summarised per quasi-identifier by

* a numeric attribute: the smallest and largest value (``lo``, ``hi``);
* a categorical attribute: the level of the lowest common ancestor (LCA) of
  its values and one leaf under it (``level``, ``leaf``), so the LCA node is
  ``lmap[level, leaf]``.

A categorical attribute without a hierarchy is treated as a flat tree of
height 1 (its value, or everything); a numeric attribute with a hierarchy of
numeric leaves is treated as a tree too, since the release shows the LCA
node, and costs the node's range over the domain's range (as the metrics
``byun_il`` and ``ncp`` count it). Two costs per attribute and record are
offered for categorical trees: Byun et al.'s (LCA height / tree height) and
Xu et al.'s NCP (leaves under the LCA / all leaves, 0 for one leaf); a
numeric value costs span / range under both.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..recoding._release import class_lca

__all__ = ["GroupCoster", "GroupStates"]


@dataclass
class GroupStates:
    """Summaries of many groups: ``lo``/``hi`` (G, p) numeric, ``level``/``leaf`` (G, q)."""

    lo: np.ndarray
    hi: np.ndarray
    level: np.ndarray
    leaf: np.ndarray
    size: np.ndarray

    def take(self, idx):
        return GroupStates(self.lo[idx], self.hi[idx], self.level[idx], self.leaf[idx],
                           self.size[idx])


def _node_spans(leaf_values, nodes):
    """For every leaf, the numeric span of its node in ``nodes`` (one level of a tree)."""
    lo = np.full(nodes.max() + 1, np.inf)
    hi = np.full(nodes.max() + 1, -np.inf)
    np.minimum.at(lo, nodes, leaf_values)
    np.maximum.at(hi, nodes, leaf_values)
    return (hi - lo)[nodes]


class GroupCoster:
    """Per-attribute arrays of an :class:`~kanon_graph.encoding.EncodedTable` for group costs.

    Parameters
    ----------
    data : EncodedTable
    cost : {"byun", "ncp"}
        Categorical cost: LCA level / height (Byun et al. 2007) or leaves under
        the LCA / leaves of the tree (Xu et al. 2006).
    """

    def __init__(self, data, cost="byun"):
        if cost not in ("byun", "ncp"):
            raise ValueError(f"The 'cost' parameter must be 'byun' or 'ncp'. Got {cost!r}.")
        self.cost_kind = cost
        self.names = data.names
        self.num_idx, self.cat_idx = [], []
        values, spans, leaves, lmaps, units = [], [], [], [], []
        for j, attr in enumerate(data.attributes):
            h = attr.hierarchy
            numeric_tree = attr.kind == "numeric" and h is not None and h.leaf_values is not None
            if attr.kind == "numeric" and not numeric_tree:
                self.num_idx.append(j)
                v = attr.values.astype(float)
                values.append(v)
                span = float(v.max() - v.min())
                spans.append(span if span > 0 else 1.0)
                continue
            self.cat_idx.append(j)
            if h is not None:
                lmap = np.vstack(h.level_map)
                under = np.vstack([h.leaf_counts[l][h.level_map[l]] for l in range(h.height + 1)])
                height = h.height
            else:
                m = attr.n_codes
                lmap = np.vstack([np.arange(m), np.zeros(m, dtype=np.int64)])
                under = np.vstack([np.ones(m, dtype=np.int64), np.full(m, m)])
                height = 1
            if numeric_tree:
                # a numeric value released as a hierarchy node stands for the node's range
                lv = h.leaf_values
                width = float(lv.max() - lv.min()) or 1.0
                unit = np.vstack([_node_spans(lv, lmap[l]) / width for l in range(height + 1)])
            elif cost == "byun":
                unit = np.repeat((np.arange(height + 1) / max(height, 1))[:, None],
                                 lmap.shape[1], axis=1)
            else:
                unit = np.where(under > 1, under / lmap.shape[1], 0.0)
            leaves.append(attr.codes)
            lmaps.append(lmap)
            units.append(unit)
        n = data.n
        self.values = np.column_stack(values) if values else np.zeros((n, 0))
        self.spans = np.asarray(spans, dtype=float)
        self.leaves = np.column_stack(leaves).astype(np.int64) if leaves \
            else np.zeros((n, 0), dtype=np.int64)
        self.lmaps, self.units = lmaps, units
        self._lca = {}

    # ------------------------------------------------------------ states
    def singletons(self, rows):
        """States of one-record groups for ``rows``."""
        rows = np.asarray(rows)
        return GroupStates(self.values[rows].copy(), self.values[rows].copy(),
                           np.zeros((len(rows), len(self.cat_idx)), dtype=np.int64),
                           self.leaves[rows].copy(), np.ones(len(rows), dtype=np.int64))

    def of_groups(self, group_of, n_groups, rows=None):
        """States of groups given by a label (0..n_groups-1) per record of ``rows`` (default all)."""
        group_of = np.asarray(group_of)
        rows = np.arange(len(group_of)) if rows is None else np.asarray(rows)
        values, leaves = self.values[rows], self.leaves[rows]
        lo = np.full((n_groups, len(self.num_idx)), np.inf)
        hi = np.full((n_groups, len(self.num_idx)), -np.inf)
        for c in range(len(self.num_idx)):
            np.minimum.at(lo[:, c], group_of, values[:, c])
            np.maximum.at(hi[:, c], group_of, values[:, c])
        level = np.zeros((n_groups, len(self.cat_idx)), dtype=np.int64)
        leaf = np.zeros((n_groups, len(self.cat_idx)), dtype=np.int64)
        for c, lmap in enumerate(self.lmaps):
            leaf[group_of, c] = leaves[:, c]
            found, _ = class_lca(lmap, leaves[:, c], group_of, n_groups)
            level[:, c] = np.maximum(found, 0)          # an empty group stays at level 0
        size = np.bincount(group_of, minlength=n_groups)
        return GroupStates(lo, hi, level, leaf, size)

    def merge(self, a, b):
        """States of ``a[i] ∪ b[i]`` (broadcasting: ``a`` may hold one group)."""
        lo = np.minimum(a.lo, b.lo)
        hi = np.maximum(a.hi, b.hi)
        n = max(len(a.size), len(b.size))
        level = np.empty((n, len(self.cat_idx)), dtype=np.int64)
        for c, lmap in enumerate(self.lmaps):
            la, lb = a.leaf[:, c], b.leaf[:, c]
            first = np.full(n, lmap.shape[0] - 1, dtype=np.int64)
            for l in range(lmap.shape[0] - 2, -1, -1):
                first = np.where(lmap[l, la] == lmap[l, lb], l, first)
            level[:, c] = np.maximum(np.maximum(a.level[:, c], b.level[:, c]), first)
        leaf = np.broadcast_to(a.leaf, (n, len(self.cat_idx))).copy() if len(a.size) == 1 \
            else a.leaf.copy()
        return GroupStates(lo, hi, level, leaf, a.size + b.size)

    def cost(self, s):
        """Per-record cost of each group (sum over attributes, not times the size)."""
        total = ((s.hi - s.lo) / self.spans).sum(axis=1) if len(self.num_idx) \
            else np.zeros(len(s.size))
        for c, unit in enumerate(self.units):
            total = total + unit[s.level[:, c], s.leaf[:, c]]
        return total

    def loss(self, s):
        """Group information loss: size times per-record cost."""
        return s.size * self.cost(s)

    def _lca_table(self, c):
        """``(m, m)`` LCA levels of attribute ``c``'s leaves (cached; None when m is large)."""
        if c not in self._lca:
            lmap = self.lmaps[c]
            m = lmap.shape[1]
            table = None
            if m <= 4096:
                table = np.full((m, m), lmap.shape[0] - 1, dtype=np.int64)
                for l in range(lmap.shape[0] - 2, -1, -1):
                    table[lmap[l][:, None] == lmap[l][None, :]] = l
            self._lca[c] = table
        return self._lca[c]

    def _first_common(self, c, leaf, leaves):
        """Level of the LCA of leaf ``leaf`` with each of ``leaves`` (attribute ``c``)."""
        table = self._lca_table(c)
        if table is not None:
            return table[leaf][leaves]
        lmap = self.lmaps[c]
        first = np.full(len(leaves), lmap.shape[0] - 1, dtype=np.int64)
        for l in range(lmap.shape[0] - 2, -1, -1):
            first[lmap[l, leaves] == lmap[l, leaf]] = l
        return first

    def merge_cost(self, one, many, pick):
        """Per-record cost of ``one ∪ many[i]`` for every ``i`` in ``pick``.

        ``one`` holds a single group. The LCA level of two groups is the LCA
        level of their leaves, but not below either group's own level.
        """
        total = np.zeros(len(pick))
        if len(self.num_idx):
            lo = np.minimum(many.lo[pick], one.lo[0])
            hi = np.maximum(many.hi[pick], one.hi[0])
            total += ((hi - lo) / self.spans).sum(axis=1)
        if len(self.cat_idx):
            leaves, levels = many.leaf[pick], many.level[pick]
            for c in range(len(self.lmaps)):
                first = self._first_common(c, one.leaf[0, c], leaves[:, c])
                level = np.maximum(np.maximum(first, one.level[0, c]), levels[:, c])
                total += self.units[c][level, leaves[:, c]]
        return total

    def state_of(self, rows):
        """The single-group state of the records ``rows`` (the LCA of a set is the
        highest of the LCAs of its first leaf with each leaf)."""
        rows = np.asarray(rows)
        values = self.values[rows]
        level = np.zeros((1, len(self.lmaps)), dtype=np.int64)
        leaf = self.leaves[rows[:1]].copy()
        for c in range(len(self.lmaps)):
            level[0, c] = self._first_common(c, leaf[0, c], self.leaves[rows, c]).max()
        return GroupStates(values.min(axis=0, keepdims=True), values.max(axis=0, keepdims=True),
                           level, leaf, np.array([len(rows)]))

    def merge_one(self, one, many, i):
        """The single-group state of ``one ∪ many[i]``."""
        level = one.level[0].copy()
        for c in range(len(self.lmaps)):
            first = self._first_common(c, one.leaf[0, c], many.leaf[i:i + 1, c])[0]
            level[c] = max(first, level[c], many.level[i, c])
        return GroupStates(np.minimum(one.lo, many.lo[i]), np.maximum(one.hi, many.hi[i]),
                           level[None, :], one.leaf.copy(), one.size + many.size[i])

    # ------------------------------------------------------------ windows
    def window_cost(self, rows, width):
        """Per-record cost of every window ``rows[i:i+width]`` of an ordered sequence."""
        from numpy.lib.stride_tricks import sliding_window_view

        rows = np.asarray(rows)
        total = np.zeros(len(rows) - width + 1)
        for c in range(len(self.num_idx)):
            w = sliding_window_view(self.values[rows, c], width)
            total += (w.max(axis=1) - w.min(axis=1)) / self.spans[c]
        for c, lmap in enumerate(self.lmaps):
            level = np.full(len(total), lmap.shape[0] - 1, dtype=np.int64)
            leaf_first = self.leaves[rows[: len(total)], c]
            for l in range(lmap.shape[0] - 2, -1, -1):
                w = sliding_window_view(lmap[l, self.leaves[rows, c]], width)
                level = np.where(w.min(axis=1) == w.max(axis=1), l, level)
            total += self.units[c][level, leaf_first]
        return total
