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

**Climbing** (issue 47, 12 quasi-identifiers). The candidates come highest
bound first, so a failing candidate sits just under the best value, and
most of its direct generalizations fail too (on the 12-QI census nearly
nine in ten failing candidates had a failing successor, on average six of
seven). Each failing successor's down-set holds the candidate's and more,
so after a failing candidate the loop climbs (:func:`_climb`): it checks the
unknown successor of least bound, tags it failing if it fails and goes on
from it, and stops at the first that passes. A climbing check rolls up from
the set just computed (at most ``limit`` groups, not the bottom's nearly
``n``), and every failing node it tags is one the search would otherwise
check or cover by a larger check later. Only true failures are tagged, so
the search's answer does not move (``tests/lattice/test_check_loop.py``);
on the 12-QI table checks fell from 35,562 to about 25,000 and the groups
read from 603 to 239 million.

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
def _rekey(src, src_level, target, width2, offsets3, flat):
    """The packed keys at ``target`` of packed keys at ``src_level`` (below it)."""
    d = len(src_level)
    keys = np.zeros(len(src), dtype=np.int64)
    s_bit = np.int64(0)
    t_bit = np.int64(0)
    for j in range(d - 1, -1, -1):
        a, b = src_level[j], target[j]
        mk = (np.int64(1) << width2[j, a]) - 1
        if a == b:
            for i in range(len(src)):
                keys[i] |= ((src[i] >> s_bit) & mk) << t_bit
        else:
            off = offsets3[j, a, b]
            for i in range(len(src)):
                keys[i] |= flat[off + ((src[i] >> s_bit) & mk)] << t_bit
        s_bit += width2[j, a]
        t_bit += width2[j, b]
    return keys


@njit(cache=True, nogil=True)
def _tag_below(i, nodes, position, radix, state):
    """Tag node ``i`` and every more specific node failing (2); returns the box's size."""
    d = nodes.shape[1]
    high = np.empty(d, dtype=np.int64)
    box = 1
    for j in range(d):
        high[j] = nodes[i, j]
        box *= high[j] + 1
    _closed_fill(position, radix, np.zeros(d, dtype=np.int64), high, state, np.int8(2), False)
    return box


@njit(cache=True, nogil=True)
def _climb(x, src_level, src, counts, state, bound, nodes, position, radix, offsets3, width2,
           flat, k, budget, limit, out, n_checked):
    """From failing node ``x``, check successors upwards while they fail (see the module doc).

    Each step takes the direct generalization of the last failing node that
    is still unknown (state 0) with the least bound (ties: lowest index),
    rolls it up from the last complete frequency set met on the way (first
    ``src`` at ``src_level``: packed keys and counts), and tags it and its
    down-set failing when it fails (appended to ``out``). The climb ends at
    the first successor that passes (left unknown: a pass is only scored by
    the search) or when none is unknown.

    Returns ``(n_checked, tagged, read, stopped, done, passed)``.
    """
    d = nodes.shape[1]
    level = src_level.copy()
    tagged = read = stopped = done = passed = 0
    while True:
        key = np.int64(0)
        for j in range(d):
            key = key * radix[j] + nodes[x, j]
        s = -1
        stride = np.int64(1)
        for j in range(d - 1, -1, -1):
            if nodes[x, j] < radix[j] - 1:
                c = position[key + stride]
                if state[c] == 0 and (s < 0 or bound[c] < bound[s]
                                      or (bound[c] == bound[s] and c < s)):
                    s = c
            stride *= radix[j]
        if s < 0:
            break
        most = min(len(src), limit + 1)
        table_bits = 4
        while (np.int64(1) << table_bits) < 2 * most:
            table_bits += 1
        keys, sums, got = _hash_keys(_rekey(src, level, nodes[s], width2, offsets3, flat),
                                     counts, table_bits, limit)
        read += got
        complete = got == len(src) and len(keys) <= limit
        if complete:
            done += 1
            failing = 0
            for g in range(len(sums)):
                if sums[g] < k:
                    failing += sums[g]
            if failing <= budget:
                passed += 1
                break
        else:
            stopped += 1
        out[n_checked] = s
        n_checked += 1
        tagged += _tag_below(s, nodes, position, radix, state)
        x = s
        if complete:
            src, counts = keys, sums
            for j in range(d):
                level[j] = nodes[s, j]
    return n_checked, tagged, read, stopped, done, passed


@njit(cache=True, nogil=True)
def _run(order, at, state, evaluated, dominated, bound, value, rank, suppressed, nodes,
         position, radix, src_levels, src_keys, src_counts, src_starts, offsets3, width2,
         flat, k, budget, limit, out, first, run_bits, combo_radix, n_codes0, tables,
         built, table_at, built_at, climb):
    """Check candidates from ``order[at:]`` while they fail; see :func:`FailingRun.run`.

    Returns ``(at, n_checked, tagged, read, stopped, done, keys, sums, passed,
    climbed)``: ``out[:n_checked]`` holds the indices of the failing checks,
    in order; ``read`` the source groups read, ``stopped`` the roll-ups
    stopped at ``limit``, ``done`` those completed; ``keys`` and ``sums`` the
    packed set of the candidate at ``order[at]`` when it passed (else empty);
    ``passed`` the climbing checks that passed (not in ``out``), ``climbed``
    every climbing check. ``climb`` False: candidates only, no climbing.
    """
    d = nodes.shape[1]
    n_sources = src_levels.shape[0]
    src_shifts = np.empty(d, dtype=np.int64)
    src_masks = np.empty(d, dtype=np.int64)
    shifts = np.empty(d, dtype=np.int64)
    offsets = np.empty(d, dtype=np.int64)
    n_checked = 0
    passed = 0
    climbed = 0
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
            return at, n_checked, tagged, read_all, stopped, done, keys, sums, passed, climbed
        out[n_checked] = i
        n_checked += 1
        tagged += _tag_below(i, nodes, position, radix, state)
        at += 1
        if not climb:
            continue
        if read == hi - lo and len(keys) <= limit:      # the climb rolls up from i's set
            c = _climb(i, nodes[i], keys, sums, state, bound, nodes, position, radix,
                       offsets3, width2, flat, k, budget, limit, out, n_checked)
        else:                                           # or from the source's
            c = _climb(i, src_levels[best_s], src_keys[lo:hi], src_counts[lo:hi], state,
                       bound, nodes, position, radix, offsets3, width2, flat, k, budget,
                       limit, out, n_checked)
        climbed += c[0] - n_checked + c[5]
        n_checked, tagged, read_all = c[0], tagged + c[1], read_all + c[2]
        stopped, done, passed = stopped + c[3], done + c[4], passed + c[5]
    empty = np.zeros(0, dtype=np.int64)
    return at, n_checked, tagged, read_all, stopped, done, empty, empty[:0], passed, climbed


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
    climb : bool
        After each failing candidate, climb to failing generalizations
        (:func:`_climb`); False checks the candidates alone.
    """

    def __init__(self, space, engine, k, budget, queue, *, climb=True):
        self.space, self.engine, self.queue = space, engine, queue
        self.climb = bool(climb)
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
        passed : int
            Climbing checks that passed (their nodes left unknown, not in ``checked``).
        climbed : int
            Climbing checks, failing (in ``checked``) or passing.
        """
        levels, keys, counts, starts = self.engine._cache.packed_arrays()
        ch = self.chunks
        queue = self.queue
        at, n, tagged, read, stopped, done, keys, sums, passed, climbed = _run(
            queue.order, queue.at, state, evaluated, dominated, self.space.bound,
            float(best[0]), int(best[1]), int(best[2]), self.space.nodes, self.space.position,
            self.space.radix, levels, keys, counts, starts, self.offsets3, self.width2,
            self.flat, self.k, self.budget, self.limit, self.out, ch.first, ch.run_bits,
            ch.radix, ch.n_codes0, ch.tables, ch.built, ch.table_at, ch.built_at, self.climb)
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
        return self.out[:n].copy(), int(tagged), int(passed), int(climbed)
