"""A node's frequency set, the suppression budget and the helpers both engines share.

:class:`FrequencySet` is what :class:`~kanon_graph.lattice.frequency.FrequencyEngine`
(numpy, with roll-up) and :mod:`kanon_graph.lattice.sql` (DuckDB) return for a
node; :func:`suppression_budget` and :func:`spreads` are the two rules every
lattice search applies (how many records may go, and whether a check spreads
through the lattice). Morton et al. 2012, sections 2.3-2.4.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["FrequencySet", "suppression_budget", "spreads"]


@dataclass(frozen=True)
class FrequencySet:
    """The value groups of one node and their counts.

    Attributes
    ----------
    levels : tuple of int
    codes : ndarray of int64, shape (m, d)
        Generalized code of every attribute per group (index of the
        hierarchy node at that attribute's level; in a capped engine, the
        global node id for attributes with MAGVals), groups sorted
        lexicographically (the order of ``EncodedTable.group_keys``). Stored
        column-major, since roll-ups read it one attribute at a time.
    counts : ndarray of int64, shape (m,)
    """

    levels: tuple
    codes: np.ndarray
    counts: np.ndarray

    @property
    def n_groups(self):
        return len(self.counts)

    @property
    def min_count(self):
        """The paper's ``min(count(GS))``; 0 for an empty table."""
        return int(self.counts.min()) if len(self.counts) else 0

    def failing_records(self, k):
        """Records in groups smaller than ``k``."""
        return int(self.counts[self.counts < k].sum())


def suppression_budget(suppression, n):
    """How many records a fraction ``suppression`` of ``n`` allows (rounded down).

    >>> suppression_budget(0.02, 30162)
    603
    """
    return int(np.floor((suppression or 0.0) * n + 1e-9))


def spreads(model, budget):
    """Whether a check of ``model`` with ``budget`` suppressed records is monotone.

    Asks :meth:`~kanon_graph.privacy.PrivacyModel.is_monotone`; a model
    without it is trusted by its ``monotone`` attribute (default True).
    Only when this is true may a search spread a pass to every more general
    node and a failure to every more specific one.

    >>> from kanon_graph.privacy import PrivacyModel
    >>> spreads(PrivacyModel(2, l=2, diversity="entropy"), 0), spreads(
    ...     PrivacyModel(2, l=2, diversity="entropy"), 3)
    (True, False)
    """
    is_monotone = getattr(model, "is_monotone", None)
    if is_monotone is not None:
        return bool(is_monotone(budget))
    return bool(getattr(model, "monotone", True))


def _check_levels(levels, heights):
    """``levels`` as a tuple of ints; a ValueError unless each is in [0, height]."""
    levels = tuple(int(v) for v in levels)
    if len(levels) != len(heights) or any(not 0 <= v <= h for v, h in zip(levels, heights)):
        raise ValueError(f"The 'levels' parameter must give one level in [0, height] per "
                         f"quasi-identifier (heights {list(heights)}). "
                         f"Got {list(levels)}.")
    return levels


def _sorted_groups(key, weights=None):
    """Distinct keys (sorted) and their counts (or summed weights), by one sort."""
    if weights is None:
        ordered = np.sort(key)
    else:
        order = np.argsort(key)
        ordered = key[order]
    if len(ordered) == 0:
        return ordered, np.zeros(0, dtype=np.int64)
    first = np.empty(len(ordered), dtype=bool)
    first[0] = True
    np.not_equal(ordered[1:], ordered[:-1], out=first[1:])
    starts = np.flatnonzero(first)
    if weights is None:
        counts = np.diff(np.append(starts, len(ordered)))
    else:
        counts = np.add.reduceat(np.asarray(weights)[order], starts)
    return ordered[starts], counts.astype(np.int64)


def _level_to_level(attr, low, high):
    """Array mapping a node index at level ``low`` to its ancestor index at ``high``."""
    if attr.hierarchy is None:
        return np.arange(attr.n_codes) if high == 0 else np.zeros(
            attr.n_at_level(low), dtype=np.int64)
    lm = attr.hierarchy.level_map
    out = np.zeros(len(attr.hierarchy.leaf_counts[low]), dtype=np.int64)
    out[lm[low]] = lm[high]
    return out
