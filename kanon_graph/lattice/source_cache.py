"""The frequency sets a :class:`~kanon_graph.lattice.frequency.FrequencyEngine` keeps.

A roll-up starts from a cached frequency set of a more specific node; the
fewer groups it has, the cheaper the roll-up. :class:`SourceCache` is a
least-recently-used cache bounded by its total number of value groups that
also answers "which cached node below this one has the fewest groups" with
one vectorized comparison over arrays it keeps up to date as sets come and
go (rebuilding them per check cost more than the comparison itself).
"""

from __future__ import annotations

from collections import OrderedDict

import numpy as np

__all__ = ["SourceCache"]

_NEVER = np.iinfo(np.int64).max     # a free row's levels: below no node


class SourceCache:
    """Frequency sets by level vector, least recently used dropped beyond ``max_tuples``.

    Parameters
    ----------
    dimension : int
        Number of quasi-identifiers.
    max_tuples : int
        Bound on the summed number of groups; the most recent set is always
        kept.

    Examples
    --------
    >>> from kanon_graph.lattice.frequency import FrequencySet
    >>> cache = SourceCache(2, max_tuples=10)
    >>> for levels, m in [((0, 0), 6), ((1, 0), 3), ((0, 1), 4)]:
    ...     cache.store(FrequencySet(levels, np.zeros((m, 2), np.int64), np.ones(m, np.int64)))
    >>> sorted(cache.levels())                    # (0, 0) dropped: 13 groups > 10
    [(0, 1), (1, 0)]
    >>> cache.best_source((1, 1)).levels          # below (1, 1), fewest groups
    (1, 0)
    """

    def __init__(self, dimension, max_tuples):
        self.max_tuples = int(max_tuples)
        self.tuples = 0
        self._sets = OrderedDict()
        self._row = {}                          # levels -> row of the arrays below
        self._levels = np.zeros((0, dimension), dtype=np.int64)
        self._sizes = np.zeros(0, dtype=np.int64)
        self._entries, self._free = [], []
        self._pk = None                         # the packed sets as arrays, built on request

    def __len__(self):
        return len(self._sets)

    def levels(self):
        """The cached level vectors, least recently used first."""
        return list(self._sets)

    def peek(self, levels):
        """The cached set of ``levels``, or None (its recency unchanged)."""
        return self._sets.get(levels)

    def get(self, levels):
        """The cached set of ``levels`` (now most recently used), or None."""
        hit = self._sets.get(levels)
        if hit is not None:
            self._sets.move_to_end(levels)
        return hit

    def store(self, fs):
        """Keep ``fs``; drop the least recently used sets beyond ``max_tuples``."""
        self._sets[fs.levels] = fs
        self.tuples += fs.n_groups
        self._enter(fs)
        while self.tuples > self.max_tuples and len(self._sets) > 1:
            levels, old = self._sets.popitem(last=False)
            self.tuples -= old.n_groups
            self._leave(levels)

    def best_source(self, levels):
        """The cached set of a node at most as general as ``levels`` with the fewest groups."""
        if not self._row:
            return None
        below = (self._levels <= np.asarray(levels, dtype=np.int64)).all(axis=1)
        if not below.any():
            return None
        return self._entries[int(np.argmin(np.where(below, self._sizes, _NEVER)))]

    def packed_arrays(self):
        """The packed sets held, as arrays a compiled loop can search.

        The arrays grow as sets are stored (a dropped set's row is marked
        below no node, and the arrays are rebuilt once the dropped groups
        outnumber the held ones), so asking after every check costs only
        what was stored since.

        Returns
        -------
        levels : ndarray of int64, shape (s, d)
            A dropped set's row reads ``_NEVER`` (below no node).
        keys, counts : ndarray of int64
            Every packed set's keys and counts, one set after another.
        starts : ndarray of int64, shape (s + 1,)
            Where each set starts in ``keys`` (and the end).
        """
        if self._pk is None:
            self._pk = _Packed(self._levels.shape[1])
            for fs in self._sets.values():
                self._pk.add(fs)
        return self._pk.views()

    def _enter(self, fs):
        if not self._free:                      # grow the arrays (doubling)
            at = len(self._sizes)
            grown = max(16, 2 * at)
            levels = np.full((grown, self._levels.shape[1]), _NEVER, dtype=np.int64)
            levels[:at] = self._levels
            sizes = np.full(grown, _NEVER, dtype=np.int64)
            sizes[:at] = self._sizes
            self._levels, self._sizes = levels, sizes
            self._entries.extend([None] * (grown - at))
            self._free.extend(range(grown - 1, at - 1, -1))
        if self._pk is not None:
            self._pk.add(fs)
        row = self._free.pop()
        self._row[fs.levels] = row
        self._levels[row] = fs.levels
        self._sizes[row] = fs.n_groups
        self._entries[row] = fs

    def _leave(self, levels):
        if self._pk is not None and not self._pk.drop(levels):
            self._pk = None                     # mostly dropped sets: rebuilt on request
        row = self._row.pop(levels)
        self._levels[row] = _NEVER
        self._sizes[row] = _NEVER
        self._entries[row] = None
        self._free.append(row)


class _Packed:
    """Packed sets appended into growing arrays (:meth:`SourceCache.packed_arrays`)."""

    def __init__(self, dimension):
        self.levels = np.full((16, dimension), _NEVER, dtype=np.int64)
        self.keys = np.zeros(1024, dtype=np.int64)
        self.counts = np.zeros(1024, dtype=np.int64)
        self.starts = np.zeros(17, dtype=np.int64)
        self.n = self.used = self.dropped = 0
        self.row = {}

    def add(self, fs):
        packed = fs.packed
        if packed is None:
            return
        keys, counts = packed[0], packed[1]
        if self.n + 1 >= len(self.levels):
            self.levels = np.concatenate([self.levels, np.full_like(self.levels, _NEVER)])
            self.starts = np.concatenate([self.starts, np.zeros(len(self.starts),
                                                                dtype=np.int64)])
        need = self.used + len(keys)
        if need > len(self.keys):
            size = max(need, 2 * len(self.keys))
            self.keys = np.concatenate([self.keys[:self.used],
                                        np.zeros(size - self.used, dtype=np.int64)])
            self.counts = np.concatenate([self.counts[:self.used],
                                          np.zeros(size - self.used, dtype=np.int64)])
        self.keys[self.used:need] = keys
        self.counts[self.used:need] = counts
        self.levels[self.n] = fs.levels
        self.row[fs.levels] = self.n
        self.n += 1
        self.used = need
        self.starts[self.n] = need

    def drop(self, levels):
        """Mark ``levels``'s set dropped; False once the dropped groups outnumber the rest."""
        row = self.row.pop(levels, None)
        if row is not None:
            self.levels[row] = _NEVER
            self.dropped += int(self.starts[row + 1] - self.starts[row])
        return self.dropped <= self.used - self.dropped

    def views(self):
        return (self.levels[:self.n], self.keys[:self.used], self.counts[:self.used],
                self.starts[:self.n + 1])
