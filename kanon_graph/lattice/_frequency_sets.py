"""A node's frequency set, the suppression budget and the helpers both engines share.

:class:`FrequencySet` is what :class:`~kanon_graph.lattice.frequency.FrequencyEngine`
(numpy, with roll-up) and :mod:`kanon_graph.lattice.sql` (DuckDB) return for a
node; :func:`suppression_budget` and :func:`spreads` are the two rules every
lattice search applies (how many records may go, and whether a check spreads
through the lattice). Morton et al. 2012, sections 2.3-2.4.
"""

from __future__ import annotations

import numpy as np

__all__ = ["FrequencySet", "suppression_budget", "spreads"]


class FrequencySet:
    """The value groups of one node and their counts.

    A set rolled up by the compiled engine is held *packed*: one int64 key
    per group (every attribute's code in its own bits, earlier attributes
    higher, so key order is lexicographic order), in the order the roll-up
    met the groups, and the counts beside them. An anonymity check with k
    alone needs only the counts (:meth:`failing_records`), and a later
    roll-up reads the keys, so most sets of a search are never unpacked. The
    first read of :attr:`codes` or :attr:`counts` sorts the keys and unpacks
    them (once).

    Parameters
    ----------
    levels : tuple of int
    codes : ndarray of int64, shape (m, d), optional
        Generalized code of every attribute per group (index of the
        hierarchy node at that attribute's level; in a capped engine, the
        global node id for attributes with MAGVals), groups sorted
        lexicographically (the order of ``EncodedTable.group_keys``). Stored
        column-major, since roll-ups read it one attribute at a time.
        None with ``keys``.
    counts : ndarray of int64, shape (m,)
    keys : ndarray of int64, shape (m,), optional
        The packed form: one key per group, any order, matching ``counts``.
    widths : sequence of int, optional
        Bits of every attribute in ``keys`` (:func:`~._rollup_kernels.key_widths`).

    Examples
    --------
    >>> fs = FrequencySet((1, 0), None, np.array([3, 1, 2]), keys=np.array([5, 0, 4]),
    ...                   widths=[1, 2])
    >>> fs.failing_records(2), fs.n_groups          # read without unpacking
    (1, 3)
    >>> fs.codes.tolist(), fs.counts.tolist()      # key 0 = (0, 0), 4 = (1, 0), 5 = (1, 1)
    ([[0, 0], [1, 0], [1, 1]], [1, 2, 3])
    """

    __slots__ = ("levels", "_codes", "_counts", "_keys", "_widths", "_sorted")

    def __init__(self, levels, codes, counts, *, keys=None, widths=None):
        self.levels = levels
        self._codes = codes
        self._counts = counts
        self._keys = keys
        self._widths = None if widths is None else tuple(int(w) for w in widths)
        self._sorted = codes is not None

    def __repr__(self):
        return f"FrequencySet(levels={self.levels}, n_groups={self.n_groups})"

    def _unpack(self):
        """Sort the packed keys (and their counts) and unpack them into codes, once."""
        keys, counts = self._keys, self._counts
        slot_bits = max(len(keys) - 1, 0).bit_length()
        if sum(self._widths) + slot_bits <= 63:
            # the keys are distinct: sort (key, slot) packed in one int64, far faster
            # in numpy than an argsort
            packed = np.sort((keys << slot_bits) | np.arange(len(keys), dtype=np.int64))
            order = packed & ((1 << slot_bits) - 1)
            keys = packed >> slot_bits
        else:
            order = np.argsort(keys)
            keys = keys[order]
        counts = counts[order]
        shift, codes = 0, np.empty((len(keys), len(self._widths)), dtype=np.int64, order="F")
        for j in range(len(self._widths) - 1, -1, -1):
            codes[:, j] = (keys >> shift) & ((1 << self._widths[j]) - 1)
            shift += self._widths[j]
        self._keys, self._counts, self._codes, self._sorted = keys, counts, codes, True

    @property
    def codes(self):
        """Codes of the groups, shape (m, d), groups sorted lexicographically."""
        if not self._sorted:
            self._unpack()
        return self._codes

    @property
    def counts(self):
        """Records per group (in the order of :attr:`codes`)."""
        if not self._sorted:
            self._unpack()
        return self._counts

    @property
    def packed(self):
        """``(keys, counts, widths)`` in the held order, or None when not packed."""
        if self._keys is None:
            return None
        return self._keys, self._counts, self._widths

    @property
    def n_groups(self):
        return len(self._counts)

    @property
    def min_count(self):
        """The paper's ``min(count(GS))``; 0 for an empty table."""
        return int(self._counts.min()) if len(self._counts) else 0

    def failing_records(self, k):
        """Records in groups smaller than ``k`` (read without unpacking)."""
        counts = self._counts
        return int(counts[counts < k].sum())


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


def _level_to_level(attr, low, high):
    """Array mapping a node index at level ``low`` to its ancestor index at ``high``."""
    if attr.hierarchy is None:
        return np.arange(attr.n_codes) if high == 0 else np.zeros(
            attr.n_at_level(low), dtype=np.int64)
    lm = attr.hierarchy.level_map
    out = np.zeros(len(attr.hierarchy.leaf_counts[low]), dtype=np.int64)
    out[lm[low]] = lm[high]
    return out
