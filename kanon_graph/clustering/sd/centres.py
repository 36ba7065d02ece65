"""SD's distance between two classes, for merging classes that fail l or t.

SD (paper 000) enforces k only. When l-diversity or t-closeness is asked
for, a class that fails it is merged with its nearest class
(:func:`kanon_graph.records.merge_failing_classes`), "nearest" in SD's own
terms -- the distance step 4 uses to send a leftover record to the class
with the nearest centre, extended from a record to a class:

* numeric attributes: ``|mean_C - mean_C'|`` on eq. (5)'s range-normalized
  values (the centres' numeric parts);
* categorical attributes: ``min over v in S_C, u in S_C' of M[v, u]``, the
  closest pair of values of the two centres' value sets, with ``M`` ranked
  from the contingency tables of the whole table (of the class's MAGVal
  cell with boundaries) conditioned on the class's first tuple t1 -- as
  step 4 conditions on the leftover record. A value the two classes share
  costs 0.

After a merge the surviving class's centre is the union's (sizes, numeric
sums and value sets add up); its t1 stays its own.
"""

from __future__ import annotations

import numpy as np

from ._contingency import _contingency, _order

__all__ = ["SDClassCentres"]


class SDClassCentres:
    """Centres of SD's classes, with SD's class-to-class distance (module docstring).

    Parameters
    ----------
    cat, num : ndarray
        Categorical codes (u, c) and normalized numeric values (u, p) of the
        distinct tuples.
    groups : list of ndarray
        Records per tuple of each MAGVal cell (one group without boundaries).
    picks, owner : ndarray
        The tuple of every placed record and its class; a class's first
        pick is its t1.
    cell : ndarray (C,)
        Group (cell) of every class.
    k : int
        Contingency rows with fewer than ``k`` records are widened.
    """

    def __init__(self, cat, num, groups, picks, owner, cell, k):
        n_classes = len(cell)
        self.cat, self.num, self.groups, self.cell, self.k = cat, num, groups, cell, k
        self.mmax = int(cat.max(initial=0)) + 1
        self.size = np.bincount(owner, minlength=n_classes).astype(float)
        self.sums = np.zeros((n_classes, num.shape[1]))
        np.add.at(self.sums, owner, num[picks])
        self.member = np.zeros((n_classes, cat.shape[1], self.mmax), dtype=bool)
        for a in range(cat.shape[1]):
            self.member[owner, a, cat[picks, a]] = True
        self.t1 = np.full(n_classes, -1, dtype=np.int64)
        first = np.unique(owner, return_index=True)[1]
        self.t1[owner[first]] = picks[first]
        self._tables = {}

    def _table(self, g):
        """Value counts, presence and order of group ``g`` (cached)."""
        if g not in self._tables:
            weight = self.groups[g]
            full = np.zeros((self.cat.shape[1], self.mmax), np.int64)
            for a in range(self.cat.shape[1]):
                full[a] = np.bincount(self.cat[:, a], weights=weight, minlength=self.mmax)
            present = full > 0
            self._tables[g] = (full, present, _order(present)[0])
        return self._tables[g]

    def distances(self, c, others):
        """SD's distance from class ``c`` to each class of ``others``."""
        mean = self.sums / self.size[:, None]
        out = np.abs(mean[others] - mean[c]).sum(axis=1)
        if self.cat.shape[1]:
            g = int(self.cell[c])
            full, present, order = self._table(g)
            t = self.t1[c]
            everyone = np.arange(len(self.groups[g]), dtype=np.int64)
            _, _, matrices = _contingency(self.cat, self.groups[g], everyone, order,
                                          self.cat[t].copy(), float(self.k), full, present)
            for a in range(self.cat.shape[1]):
                near = matrices[a][self.member[c, a]].min(axis=0)     # S_C to every value
                out += np.where(self.member[others, a, :], near, np.inf).min(axis=1)
        return out

    def merge(self, c, into):
        """Class ``c`` joins class ``into``: the union's centre."""
        self.size[into] += self.size[c]
        self.sums[into] += self.sums[c]
        self.member[into] |= self.member[c]
