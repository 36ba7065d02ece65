"""Runs of failing k-checks in one compiled loop (the exact search's "close the gap" phase).

Once the exact search (:func:`~kanon_graph.lattice.exact.exact_search`) has a
best value and its metric is exact without suppression, it takes the live
candidate of highest bound, checks it, and on a failure tags every more
specific node failing -- on a wide table tens of thousands of times, nearly
all failures. In Python each of those checks paid for the candidate queue,
the source choice, the roll-up's set-up and the tagging walk around a small
kernel. :func:`failing_run` does the whole run in one compiled loop: it steps
the queue past dead candidates, rolls every candidate up from the cached
frequency set below it with the fewest groups (packed keys, stopped as soon
as the node has more groups than a passing node can have, as
:meth:`~kanon_graph.lattice.frequency.FrequencyEngine.check_k` does), tags
the failures, and hands back the first candidate that passes (or is already
known to pass) unchecked, so the search's own Python checks, scores and
spreads it. The nodes checked, in order, and the tags are those of the
Python loop; only the roll-ups' sources differ (the counts do not depend on
them).

References
----------
.. [Flash] Kohlmayer, Prasser, Eckert, Kemper & Kuhn, "Flash: efficient, stable
   and optimal k-anonymity", PASSAT 2012, section 4 (predictive tagging).
"""

from __future__ import annotations

import numpy as np

from .._jit import njit  # numba loads on a kernel's first call
from ._frequency_sets import FrequencySet
from ._chunk_keys import CHUNK_BITS, ChunkTables, chunked_keys
from ._rollup_kernels import _hash_keys
from .node_space import _closed_fill

__all__ = ["FailingRun"]

_TOL = 1e-12


@njit(cache=True, nogil=True)
def _dead(i, state, evaluated, dominated, bound, value, rank, suppressed):
    """The exact search's ``not alive(i)`` (its best value, position and suppression fixed)."""
    if state[i] == 2 or evaluated[i] or dominated[i]:
        return True
    tol = _TOL * max(1.0, abs(value)) if np.isfinite(value) else 0.0
    if bound[i] > value + tol:
        return True
    return suppressed == 0 and bound[i] >= value - tol and i >= rank


@njit(cache=True, nogil=True)
def _run(order, at, state, evaluated, dominated, bound, value, rank, suppressed, nodes,
         position, radix, src_levels, src_keys, src_counts, src_starts, offsets3, width2,
         flat, k, budget, limit, out, first, run_bits, combo_radix, n_codes0, tables,
         built, table_at, built_at):
    """Check candidates from ``order[at:]`` while they fail; see :func:`FailingRun.run`.

    Returns ``(at, n_checked, tagged, read, stopped, done, keys, sums)``:
    ``out[:n_checked]`` holds the indices checked, in order; ``read`` the
    source groups read, ``stopped`` the roll-ups stopped at ``limit``,
    ``done`` those completed; ``keys`` and ``sums`` the packed set of the
    candidate at ``order[at]`` when it passed (else empty).
    """
    d = nodes.shape[1]
    n_sources = src_levels.shape[0]
    bottom = np.zeros(d, dtype=np.int64)
    high = np.empty(d, dtype=np.int64)
    src_shifts = np.empty(d, dtype=np.int64)
    src_masks = np.empty(d, dtype=np.int64)
    shifts = np.empty(d, dtype=np.int64)
    offsets = np.empty(d, dtype=np.int64)
    n_checked = 0
    tagged = 0
    read_all = 0
    stopped = 0
    done = 0
    while at < len(order):
        i = order[at]
        if _dead(i, state, evaluated, dominated, bound, value, rank, suppressed):
            at += 1
            continue
        if state[i] != 0:
            break                   # known to pass: the search scores it
        # the cached source below node i with the fewest groups
        best_s, best_m = -1, np.int64(1) << 62
        for s in range(n_sources):
            size = src_starts[s + 1] - src_starts[s]
            if size >= best_m:
                continue
            below = True
            for j in range(d):
                if src_levels[s, j] > nodes[i, j]:
                    below = False
                    break
            if below:
                best_s, best_m = s, size
        if best_s < 0:
            break                   # no source: the search's own check computes one
        s_at, t_at = d - 1, d - 1
        s_bit = np.int64(0)
        t_bit = np.int64(0)
        bits = 0
        for j in range(d - 1, -1, -1):
            a, b = src_levels[best_s, j], nodes[i, j]
            src_shifts[j] = s_bit
            src_masks[j] = (np.int64(1) << width2[j, a]) - 1
            s_bit += width2[j, a]
            shifts[j] = t_bit
            t_bit += width2[j, b]
            offsets[j] = -1 if a == b else offsets3[j, a, b]
        bits = t_bit
        lo, hi = src_starts[best_s], src_starts[best_s + 1]
        most = min(hi - lo, limit + 1)
        table_bits = 4
        while (np.int64(1) << table_bits) < 2 * most:
            table_bits += 1
        target = chunked_keys(src_keys[lo:hi], src_levels[best_s], nodes[i], src_shifts,
                              src_masks, flat, offsets, shifts, width2, offsets3, first,
                              run_bits, combo_radix, n_codes0, tables, built, table_at,
                              built_at)
        keys, sums, read = _hash_keys(target, src_counts[lo:hi], table_bits, limit)
        read_all += read
        ok = False
        if read < hi - lo or len(keys) > limit:
            stopped += 1
        else:
            done += 1
            failing = 0
            for g in range(len(sums)):
                if sums[g] < k:
                    failing += sums[g]
            ok = failing <= budget
        if ok:                      # passes: the search checks, scores and spreads it
            return at, n_checked, tagged, read_all, stopped, done, keys, sums
        out[n_checked] = i
        n_checked += 1
        box = 1
        for j in range(d):
            high[j] = nodes[i, j]
            box *= high[j] + 1
        _closed_fill(position, radix, bottom, high, state, np.int8(2), False)
        tagged += box
        at += 1
    empty = np.zeros(0, dtype=np.int64)
    return at, n_checked, tagged, read_all, stopped, done, empty, empty[:0]


def level_maps(engine):
    """Every level-to-level map of ``engine`` in one flat array, and the widths of each level.

    Returns
    -------
    offsets3 : ndarray of int64, shape (d, H + 1, H + 1)
        Where the map of attribute ``j`` from level ``a`` to ``b > a`` starts
        in ``flat`` (-1 elsewhere).
    width2 : ndarray of int64, shape (d, H + 1)
        Bits of attribute ``j``'s codes at each level in a packed key.
    flat : ndarray of int64
    """
    heights = engine.heights
    top = max(heights) if heights else 0
    offsets3 = np.full((len(heights), top + 1, top + 1), -1, dtype=np.int64)
    width2 = np.zeros((len(heights), top + 1), dtype=np.int64)
    for j, h in enumerate(heights):
        for a in range(h + 1):
            width2[j, a] = engine._width(j, a)
            for b in range(a + 1, h + 1):
                offsets3[j, a, b] = engine._flat_offset(j, a, b)
    return offsets3, width2, engine._flat


class FailingRun:
    """The compiled loop of :func:`_run` bound to one search's arrays and engine.

    Parameters
    ----------
    space : NodeSpace
    engine : FrequencyEngine
        Must offer :meth:`~kanon_graph.lattice.frequency.FrequencyEngine.packed_sources`
        and :meth:`~kanon_graph.lattice.frequency.FrequencyEngine.level_maps`.
    k, budget : int
    queue : CandidateQueue
        The search's highest-bound-first queue (bounds fixed); its position
        is advanced past the nodes the run settles.
    """

    def __init__(self, space, engine, k, budget, queue):
        self.space, self.engine, self.queue = space, engine, queue
        self.k, self.budget = int(k), int(budget)
        self.limit = (int(engine.n) + self.budget * (self.k - 1)) // self.k
        self.offsets3, self.width2, self.flat = level_maps(engine)
        self.out = np.empty(space.total, dtype=np.int64)
        heights = engine.heights
        n_codes0 = [len(engine._map(j, 0, 1)) if h else 0 for j, h in enumerate(heights)]
        # runs of attributes a table look-up each (not for capped codes: global node ids)
        self.chunks = ChunkTables(self.width2[:, 0] if len(heights) else [], heights, n_codes0,
                                  bits=-1 if engine.capped else CHUNK_BITS)

    def run(self, state, evaluated, dominated, best):
        """Check candidates while they fail.

        Returns
        -------
        checked : ndarray of int64
            The nodes checked (all failing, each with every more specific
            node tagged 2 in ``state``), in order.
        tagged : int
            The sizes of their tagged boxes, as :meth:`NodeSpace.fill_below` counts them.
        """
        levels, keys, counts, starts = self.engine._cache.packed_arrays()
        ch = self.chunks
        queue = self.queue
        at, n, tagged, read, stopped, done, keys, sums = _run(queue.order, queue.at, state, evaluated, dominated,
                             self.space.bound, float(best[0]), int(best[1]), int(best[2]),
                             self.space.nodes, self.space.position, self.space.radix, levels,
                             keys, counts, starts, self.offsets3, self.width2, self.flat,
                             self.k, self.budget, self.limit, self.out, ch.first, ch.run_bits,
                             ch.radix, ch.n_codes0, ch.tables, ch.built, ch.table_at,
                             ch.built_at)
        queue.at = int(at)
        engine = self.engine
        engine.groups_read += int(read)
        engine.rollups_stopped += int(stopped)
        engine.rollups += int(done)                  # computed, not kept
        engine.frequency_sets_computed += int(done)
        if len(sums):
            # the candidate that passed: its set kept, so the search's check of it is a hit
            node = tuple(int(v) for v in self.space.nodes[queue.order[queue.at]])
            engine._cache.store(FrequencySet(node, None, sums, keys=keys,
                                             widths=engine._layout(node)[0]))
        return self.out[:n].copy(), int(tagged)
