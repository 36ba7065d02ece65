"""How Mondrian measures and cuts one quasi-identifier.

Every attribute is turned into an integer *rank* per record, so that a cut is
a threshold on the rank: numeric values by their order; categorical values
with a hierarchy by the depth-first order of its leaves (every subtree is a
contiguous run of ranks); hierarchy-free categorical values by their codes
(the sorted values), re-ranked at each cut by their frequency in the partition
being cut when asked (:func:`by_frequency`). The partition's records sorted
by rank are then cut at one position.
"""

from __future__ import annotations

import numpy as np

ORDERS = ("frequency", "codes")


def by_frequency(ranks):
    """Re-rank values so that the most frequent among ``ranks`` comes first (ties by rank)."""
    lo = ranks.min()
    counts = np.bincount(ranks - lo)
    local = np.empty(len(counts), dtype=np.int64)
    local[np.argsort(-counts, kind="stable")] = np.arange(len(counts))
    return local[ranks - lo]


class Attribute:
    """One quasi-identifier: its rank per record, width and cuts.

    Parameters
    ----------
    attr : EncodedAttribute
    order : {"frequency", "codes"}
        Order of the values of a hierarchy-free categorical attribute at a
        cut: most frequent in the partition first, or the sorted values.
    along_hierarchy : bool, default True
        Cut a numeric attribute that has a hierarchy along the hierarchy
        (between children of the partition's LCA) rather than on its values.
    """

    def __init__(self, attr, order, *, along_hierarchy=True):
        self.name = attr.name
        h = attr.hierarchy
        if attr.kind == "numeric" and (h is None or not along_hierarchy):
            self.kind = "numeric"
        else:
            self.kind = "tree" if h is not None else "set"
        if self.kind == "numeric" and h is None:
            # the codes already follow the exact numeric order (integers beyond 2**53
            # included, which float values would merge): rank by code
            self.rank = np.asarray(attr.codes, dtype=np.int64)
            self.sorted_values = np.zeros(attr.n_codes)
            self.sorted_values[self.rank] = attr.values
        elif self.kind == "numeric":
            self.sorted_values, self.rank = np.unique(attr.values.astype(float),
                                                      return_inverse=True)
        if self.kind == "numeric":
            values = np.asarray(attr.values, dtype=float)
            span = float(values.max() - values.min()) if len(values) else 0.0
            self.span = span if span > 0 else 1.0
        elif self.kind == "tree":
            lmap = np.vstack(h.level_map)                 # (height + 1, leaves)
            # depth-first order of the leaves: sort by ancestors from the root down
            dfs = np.lexsort(lmap)
            self.lmap = lmap[:, dfs]                      # columns in rank order
            rank_of_leaf = np.empty(len(dfs), dtype=np.int64)
            rank_of_leaf[dfs] = np.arange(len(dfs))
            self.rank = rank_of_leaf[attr.codes]
            self.under = np.vstack([h.leaf_counts[l][self.lmap[l]] for l in range(lmap.shape[0])])
            self.n_leaves = lmap.shape[1]
        else:
            self.n_codes = attr.n_codes
            self.rank = attr.codes
            self.by_frequency = order == "frequency"

    def width(self, rows):
        """Normalized width of a partition: 0 when every record has the same rank.

        Numeric: (max - min) over the column's range; categorical with a
        hierarchy: leaves under the partition's LCA over all leaves; without
        one: distinct values in the partition over the column's (the NCP of
        the value set, Sarrafi Aghdam & Sonehara eq. 3).
        """
        r = self.rank[rows]
        lo, hi = r.min(), r.max()
        if lo == hi:
            return 0.0
        if self.kind == "numeric":
            # distinct ranks are distinct values even where floats cannot tell them
            # apart (integers beyond 2**53): never a width of 0
            width = (self.sorted_values[hi] - self.sorted_values[lo]) / self.span
            return width if width > 0 else float(np.finfo(float).tiny)
        if self.kind == "tree":
            level = self._lca_level(lo, hi)
            return self.under[level, lo] / self.n_leaves
        return np.count_nonzero(np.bincount(r - lo)) / self.n_codes

    def _lca_level(self, lo, hi):
        """Level of the LCA of the leaves of ranks ``lo`` to ``hi`` (a contiguous run)."""
        return int(np.argmax(self.lmap[:, lo] == self.lmap[:, hi]))

    def cut(self, rows, k, ok, *, relaxed, children):
        """Sub-partitions of an allowable cut on this attribute, or ``None``.

        The records are sorted by rank. With ``relaxed`` (numeric and
        hierarchy-free categorical only) the first try is the exact median
        position, which may put records of the median value on both sides.
        Then the strict cuts -- between two distinct ranks (with a hierarchy:
        between two children of the partition's LCA) -- are tried from the
        one closest to the median outwards. With ``children`` a categorical
        attribute is instead cut into one part per child of the LCA (per
        value without a hierarchy), allowed only if every part passes.
        ``ok(parts)`` says whether every part satisfies the privacy model.
        """
        r = self.rank[rows]
        if self.kind == "set" and self.by_frequency:
            r = by_frequency(r)
        order = np.argsort(r, kind="stable")
        ranks = r[order]
        n = len(rows)
        if self.kind == "tree":
            level = self._lca_level(ranks[0], ranks[-1])
            if level == 0:
                return None
            keys = self.lmap[level - 1, ranks]          # the LCA's child of each record
        else:
            keys = ranks
        steps = np.flatnonzero(keys[1:] != keys[:-1]) + 1
        if len(steps) == 0:
            return None
        if children and self.kind != "numeric":
            parts = np.split(rows[order], steps)
            return parts if ok(parts) else None
        if relaxed and self.kind == "numeric" and n >= 2 * k:
            parts = [rows[order[:n // 2]], rows[order[n // 2:]]]
            if ok(parts):
                return parts
        steps = steps[(steps >= k) & (n - steps >= k)]
        for p in steps[np.argsort(np.abs(steps - n / 2), kind="stable")]:
            parts = [rows[order[:p]], rows[order[p:]]]
            if ok(parts):
                return parts
        return None
