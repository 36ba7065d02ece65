"""Frequency sets of lattice nodes on the integer codes, with roll-up.

The frequency set of a table with respect to a node (Morton et al. 2012,
section 2.3) maps every distinct generalized tuple (a *value group*) to the
number of records holding it. The table is k-anonymous at the node when the
smallest count is at least ``k`` (section 2.4).

:class:`FrequencySet` and its helpers live in :mod:`._frequency_sets`.
:class:`FrequencyEngine` computes it from the encoded rows once, then *rolls
up*: the frequency set of a node is a group-by over the distinct tuples of a
cached more specific node, each tuple generalized further and weighted by its
count, which touches far fewer values than the raw rows (the idea of
Incognito's roll-up; LeFevre, DeWitt & Ramakrishnan 2005).

With ``capped=True`` a node is a capped full-domain recoding (generalization
boundaries, :mod:`kanon_graph.lattice.capped`): the codes of an attribute
with MAGVals are global node ids, and a roll-up maps each one to its capped
ancestor, which depends on the node alone, so roll-up stays exact.

References
----------
.. [004] Morton, Mahoui, Gibson & Yechuri, "An enhanced utility-driven data
   anonymization method", Transactions on Data Privacy 5 (2012), sections 2.3-2.4.
"""

from __future__ import annotations

import numpy as np

from .._jit import compiling
from ._frequency_sets import (FrequencySet, _check_levels, _level_to_level, spreads,
                              suppression_budget)
from ._numpy_rollup import group_keys, rollup_keys
from ._rollup_kernels import _hash_keys, packed_layout, rollup_flat, rollup_packed_layout
from .capped import capped_rollup_map
from .source_cache import SourceCache

__all__ = ["FrequencySet", "FrequencyEngine", "suppression_budget", "spreads"]

#: A roll-up source with more groups than this first steps to the node below the target.
_STEP_FROM = 1024


class FrequencyEngine:
    """Frequency sets and anonymity checks of lattice nodes for one encoded table.

    Parameters
    ----------
    data : EncodedTable
    cache_tuples : int, optional
        Upper bound on the total number of cached value groups (default
        ``8 * n``); least recently used frequency sets are dropped first.
    capped : bool
        Apply every node as a capped recoding: each value stops at its
        MAGVal (Hussien et al. 2016, Definition 6).
    compiled : bool, optional
        Roll up with the compiled kernel (:func:`~._rollup_kernels.rollup`) rather than
        numpy; default: when numba is installed and the run has not forgone it
        (:func:`kanon_graph._jit.numpy_only`). Both give the same frequency sets.

    Attributes
    ----------
    frequency_sets_computed : int
        Frequency sets computed (from rows or rolled up); cache hits do not count.
    rollups : int
        How many of them were rolled up from a cached more specific node.
    step_sets : int
        How many of them were steps: when the best cached source has more
        than ``_STEP_FROM`` groups, the node one level below the target (in
        every attribute) is rolled up and kept first, and the target (and
        later its neighbours) roll up from it. Steps stop when most of them
        did not shrink the source by a quarter (wide tables, where nodes
        one level down still hold most groups).
    row_scans : int
        Group-bys over the rows (frequency sets from rows, and class labels
        for l-diversity / t-closeness checks).
    rollups_stopped : int
        Roll-ups of :meth:`check_k` stopped early (the node had too many
        groups to pass); not counted in ``rollups``.
    groups_read : int
        Source groups read by roll-ups (their work, whatever the machine's speed).

    Examples
    --------
    >>> import kanon_graph as kg
    >>> data = kg.encode(kg.datasets.paper_003_table(), kg.datasets.paper_003_schema())
    >>> eng = FrequencyEngine(data)
    >>> eng.frequency_set((0, 0, 0)).min_count
    1
    >>> fs = eng.frequency_set((0, 3, 2))
    >>> fs.counts.tolist(), eng.rollups
    ([6, 4], 1)
    >>> eng.is_anonymous((0, 3, 2), kg.privacy.PrivacyModel(k=5))
    False
    >>> eng.is_anonymous((0, 3, 2), kg.privacy.PrivacyModel(k=5), suppression=0.4)
    True
    """

    def __init__(self, data, *, cache_tuples=None, capped=False, compiled=None):
        self.data = data
        self.capped = bool(capped)
        self.compiled = compiling() if compiled is None else bool(compiled)
        self.attributes = list(data.attributes)
        self.heights = tuple(data.heights)
        self.n = data.records                    # records (rows may be weighted tuples)
        self.cache_tuples = int(cache_tuples) if cache_tuples is not None else 8 * max(data.n, 1)
        self._cache = SourceCache(len(self.heights), self.cache_tuples)
        self._maps = {}
        self._widths = {}
        self._layouts = {}                       # levels -> packed key layout
        self._offsets = {}                       # (j, low, high) -> start in self._flat
        self._store = self._flat = np.zeros(0, dtype=np.int64)   # _flat: the used front
        self.frequency_sets_computed = 0
        self.rollups = 0
        self.step_sets = 0
        self._steps_paid = self._steps_missed = 0
        self.row_scans = 0
        self.rollups_stopped = 0
        self.groups_read = 0

    # -------------------------------------------------------------- helpers
    def _radices(self, levels):
        return [a.n_at_level(l, self.capped) for a, l in zip(self.attributes, levels)]

    def _map(self, j, low, high):
        attr = self.attributes[j]
        capped = attr.is_capped(self.capped)
        key = (j, None if capped else low, high)
        if key not in self._maps:
            # capped: a global node id goes to its capped ancestor whatever the source level
            self._maps[key] = (capped_rollup_map(attr.hierarchy, high) if capped
                               else _level_to_level(attr, low, high))
        return self._maps[key]

    def _check(self, levels):
        return _check_levels(levels, self.heights)

    def _group(self, columns, levels, weights=None):
        """Group rows (or weighted tuples) given as code columns; one packed key per row.

        Every column gets ``bit_length(radix - 1)`` bits, earlier columns in
        the higher bits, so sorting the keys sorts the tuples
        lexicographically and unpacking is a shift and a mask.
        """
        widths = [max(int(r) - 1, 0).bit_length() for r in self._radices(levels)]
        bits = sum(widths)
        m = len(columns[0]) if columns else 0
        if bits > 62:
            stacked = np.column_stack(columns)
            codes, inverse = np.unique(stacked, axis=0, return_inverse=True)
            counts = np.bincount(inverse.reshape(-1), weights=weights,
                                 minlength=len(codes)).astype(np.int64)
            return FrequencySet(levels, np.asfortranarray(codes), counts)
        shifts = np.cumsum([0] + widths[::-1])[:-1][::-1]
        key = np.zeros(m, dtype=np.int64)
        for col, shift, width in zip(columns, shifts, widths):
            if width:
                key |= np.left_shift(col, int(shift), dtype=np.int64)
        if (1 << bits) <= 4 * m + 4096:
            counts = np.bincount(key, weights=weights, minlength=1 << bits)
            keys = np.flatnonzero(counts)
            counts = counts[keys].astype(np.int64)
        elif self.compiled:     # one hash pass instead of a sort of the rows' keys
            ones = (np.ones(m, dtype=np.int64) if weights is None
                    else np.asarray(weights, dtype=np.int64))
            keys, counts, _ = _hash_keys(key, ones, max(int(2 * max(m, 1) - 1).bit_length(), 4),
                                         -1)
        else:                   # numpy: one sort
            keys, counts = group_keys(key, weights)
        # packed, as a roll-up's set: sorted and unpacked on the first read of its codes
        return FrequencySet(levels, None, counts, keys=keys.astype(np.int64, copy=False),
                            widths=widths)

    def _rollup(self, source, levels, limit=-1):
        """The frequency set of ``levels`` from the cached more specific ``source``.

        None when ``limit >= 0`` and the compiled roll-up of a packed source
        met more than ``limit`` groups (it stops there).
        """
        pairs = list(zip(source.levels, levels))
        widths, shifts, _, key_bits = self._layout(levels)
        if self.compiled and key_bits <= 62:
            offsets = np.asarray([self._flat_offset(j, a, b) if a != b else -1
                                  for j, (a, b) in enumerate(pairs)], dtype=np.int64)
            packed = source.packed
            if packed is not None:
                # packed in, packed out: neither sorted nor unpacked until someone reads
                # the codes (most checks need the counts only)
                _, source_shifts, masks, _ = self._layout(source.levels)
                keys, counts, read = rollup_packed_layout(
                    packed[0], packed[1], source_shifts, masks, self._flat, offsets, shifts,
                    key_bits, limit)
                self.groups_read += read
                if keys is None:
                    return None
                return FrequencySet(levels, None, counts, keys=keys, widths=widths)
            self.groups_read += source.n_groups
            codes, counts = rollup_flat(source.codes, source.counts, self._flat, offsets, widths)
            return FrequencySet(levels, codes, counts)
        self.groups_read += source.n_groups
        if source.packed is not None and key_bits <= 62:       # numpy, packed in and out
            keys, counts = rollup_keys(*source.packed[:2], *self._layout(source.levels)[1:3],
                                       [None if a == b else self._map(j, a, b)
                                        for j, (a, b) in enumerate(pairs)], shifts)
            return FrequencySet(levels, None, counts, keys=keys, widths=widths)
        columns = [source.codes[:, j] if a == b else self._map(j, a, b)[source.codes[:, j]]
                   for j, (a, b) in enumerate(pairs)]
        return self._group(columns, levels, weights=source.counts)

    def _width(self, j, level):
        """Bits of attribute ``j``'s codes at ``level`` in a packed key."""
        key = (j, level)
        if key not in self._widths:
            self._widths[key] = max(self.attributes[j].n_at_level(level, self.capped) - 1,
                                    0).bit_length()
        return self._widths[key]

    def _layout(self, levels):
        """``(widths, shifts, masks, bits)`` of node ``levels``'s packed keys, kept per node."""
        hit = self._layouts.get(levels)
        if hit is None:
            widths = tuple(self._width(j, b) for j, b in enumerate(levels))
            hit = (widths, *packed_layout(widths), sum(widths))
            self._layouts[levels] = hit
        return hit

    def _flat_offset(self, j, low, high):
        """Where :meth:`_map` ``(j, low, high)`` starts in the engine's one flat map array
        (appended in place, the store doubled when full: a copy per new map took 0.8 s)."""
        key = (j, low, high)
        if key not in self._offsets:
            mp = np.asarray(self._map(j, low, high), dtype=np.int64)
            at = self._offsets[key] = len(self._flat)
            if at + len(mp) > len(self._store):
                self._store = np.resize(self._store, 2 * (at + len(mp)))
            self._store[at:at + len(mp)] = mp
            self._flat = self._store[:at + len(mp)]
        return self._offsets[key]

    # --------------------------------------------------------------- public
    def cached(self, levels):
        """The cached frequency set of ``levels``, or None (does not compute)."""
        return self._cache.peek(tuple(int(v) for v in levels))

    def frequency_set(self, levels, *, rollup=True):
        """The frequency set of node ``levels``.

        Parameters
        ----------
        levels : sequence of int
            One level per quasi-identifier.
        rollup : bool
            Roll up from the cached more specific node with the fewest groups
            (default). When none is cached, the bottom node's frequency set is
            computed from the rows first (counted once) and kept as the root of
            later roll-ups. With ``False``, group the rows.

        Returns
        -------
        FrequencySet
        """
        return self._frequency_set(self._check(levels), rollup)

    def check_k(self, levels, k, budget):
        """Does node ``levels`` hold ``k`` with at most ``budget`` records suppressed?

        A node that passes has at most ``(n + budget * (k - 1)) // k``
        groups (at most ``budget`` records, so groups, under ``k``; the other
        records in groups of ``k`` or more), so the roll-up stops as soon as
        it meets more: such a node fails before all its groups are counted,
        and its frequency set is not kept.

        Returns
        -------
        passes : bool
        fs : FrequencySet or None
            The node's frequency set (None when the roll-up stopped early).
        """
        levels = self._check(levels)
        limit = (self.n + int(budget) * (int(k) - 1)) // int(k)
        fs = self._frequency_set(levels, True, limit)
        if fs is None:
            return False, None
        return fs.failing_records(k) <= budget, fs

    def _frequency_set(self, levels, rollup, limit=-1):
        hit = self._cache.get(levels)
        if hit is not None:
            return hit
        source = self._cache.best_source(levels) if rollup else None
        bottom = (0,) * len(levels)
        if source is None and rollup and levels != bottom:
            # the bottom node's distinct tuples are never more than the rows:
            # keep them as the root every later roll-up can start from
            source = self.frequency_set(bottom, rollup=False)
        if source is not None:
            self._cache.get(source.levels)       # a source just used is recently used
            if source.n_groups > _STEP_FROM:
                source = self._step_toward(source, levels)
            fs = self._rollup(source, levels, limit)
            if fs is None:
                self.rollups_stopped += 1
                return None
            self.rollups += 1
        else:
            # not kept: the bottom node's set, kept, is where later sets roll up from
            columns = [a.at_level(l, self.capped) for a, l in zip(self.attributes, levels)]
            fs = self._group(columns, levels, weights=self.data.weights)
            self.row_scans += 1
        self.frequency_sets_computed += 1
        self._cache.store(fs)
        return fs

    def _step_toward(self, source, levels):
        """A cached node one level below ``levels`` (in every attribute) to roll up from.

        A search checks neighbouring nodes: rolling a large source up to the
        node just below the target first, and keeping it, lets the target's
        neighbours roll up from far fewer groups. The counts do not depend on
        the source, only the time.
        """
        step = tuple(max(a, b - 1) for a, b in zip(source.levels, levels))
        if step == source.levels or step == levels:
            return source
        hit = self._cache.get(step)
        if hit is None:
            if self._steps_missed > 2 * self._steps_paid + 4:
                return source           # steps do not shrink on this table: stop taking them
            hit = self._rollup(source, step)
            self.rollups += 1
            self.step_sets += 1
            self.frequency_sets_computed += 1
            self._cache.store(hit)
            if hit.n_groups * 4 <= source.n_groups * 3:
                self._steps_paid += 1
            else:
                self._steps_missed += 1
        return hit

    def class_of(self, levels):
        """Class label of every record at ``levels`` (index into the frequency set's groups).

        Returns
        -------
        class_of : ndarray of int64, shape (n,)
        n_classes : int
        """
        levels = self._check(levels)
        keys = self.data.group_keys(levels, self.capped)
        _, inverse = np.unique(keys, return_inverse=True)
        inverse = inverse.reshape(-1).astype(np.int64)
        self.row_scans += 1
        return inverse, int(inverse.max()) + 1 if len(inverse) else 0

    def failing_groups(self, levels, model):
        """Boolean per group of ``frequency_set(levels)``: is it suppressed under ``model``?

        k alone is read off the counts; l-diversity and t-closeness need the
        records' sensitive values, so the classes are formed from the rows
        and :meth:`PrivacyModel.suppressed_classes` decides (t measured on
        the records left released).
        """
        fs = self.frequency_set(levels)
        if not getattr(model, "needs_sensitive", False):
            return fs.counts < model.k
        class_of, n_classes = self.class_of(levels)
        return np.asarray(model.suppressed_classes(class_of, self.data, n_classes), dtype=bool)

    def suppressed_records(self, levels, model):
        """Records that would have to be suppressed at ``levels`` (those in failing groups)."""
        fs = self.frequency_set(levels)
        return int(fs.counts[self.failing_groups(levels, model)].sum())

    def is_anonymous(self, levels, model, suppression=0.0):
        """Does node ``levels`` satisfy ``model`` after suppressing failing records?

        Parameters
        ----------
        levels : sequence of int
        model : PrivacyModel or int
            The privacy model (an int is taken as ``k``).
        suppression : float
            Fraction of the records that may be suppressed (the records of
            every failing group are); 0 means every group must pass.

        Returns
        -------
        bool
        """
        if isinstance(model, (int, np.integer)):
            from ..privacy import PrivacyModel

            model = PrivacyModel(int(model))
        budget = suppression_budget(suppression, self.n)
        return self.suppressed_records(levels, model) <= budget
