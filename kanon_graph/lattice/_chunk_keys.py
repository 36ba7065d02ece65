"""Target keys of a roll-up from the bottom node, a few attributes per table look-up.

A packed roll-up (:func:`~._rollup_kernels._hash_packed`) builds every
source group's target key attribute by attribute: a shift, a mask, a map
look-up and a shift per attribute. At 12 quasi-identifiers the exact search
rolls the bottom node's nearly unique groups up tens of thousands of times
(issue 47 item 4: about 615 million group reads), and building the keys is
most of each roll-up. In the bottom node's key, consecutive attributes sit
in consecutive bits, so a run of them whose bits add up to at most
:data:`CHUNK_BITS` is one field; one table per target level combination of
the run maps the whole field to the run's target bits (attributes at the
target already packed at their own widths). A key then takes one look-up per
run instead of one per attribute: four instead of twelve on the 12-QI table.

The runs (:func:`chunk_plan`) are fixed once per search from the bottom's
widths; each table is built inside the compiled loop the first time a
target needs it (:func:`chunked_keys`), and only for sources at level 0 in
the whole run, which is the bottom node, the source of nearly every check on
a wide table. Anything else goes attribute by attribute as before. The keys
are the same either way (``tests/lattice/test_chunk_keys.py``).
"""

from __future__ import annotations

import numpy as np

from .._jit import njit  # numba loads on a kernel's first call

__all__ = ["CHUNK_BITS", "ChunkTables", "chunk_plan", "chunked_keys"]

#: Bits of the bottom node's key one table covers (tables of at most 2 ** CHUNK_BITS entries).
CHUNK_BITS = 12
#: Entries of one run's tables, all target combinations together, at most.
_RUN_ENTRIES = 1 << 22


def chunk_plan(widths, heights, bits=CHUNK_BITS, entries=_RUN_ENTRIES):
    """Runs of consecutive attributes, each at most ``bits`` wide in the bottom's key.

    A run also stops where its tables (one per target level combination,
    ``2 ** width`` entries each) would hold more than ``entries`` entries.
    A single attribute wider than ``bits`` is a run of its own, marked
    untabled (width -1).

    Returns
    -------
    first : ndarray of int64, shape (r + 1,)
        Run ``c`` holds attributes ``first[c]`` to ``first[c + 1] - 1``.
    run_bits : ndarray of int64, shape (r,)
        Bits of each run in the bottom's key; -1: never tabled.
    combos : ndarray of int64, shape (r,)
        Target level combinations of each run (the product of height + 1).

    Examples
    --------
    >>> first, run_bits, combos = chunk_plan([1, 7, 3, 3, 4, 14], [1, 5, 1, 3, 4, 2])
    >>> first.tolist(), run_bits.tolist(), combos.tolist()
    ([0, 3, 5, 6], [11, 7, -1], [24, 20, 3])
    """
    first, run_bits, combos = [0], [], []
    at, width, combo = 0, 0, 1
    for j, (w, h) in enumerate(zip(widths, heights)):
        w, h = int(w), int(h)
        fits = width + w <= bits and (combo * (h + 1)) << (width + w) <= entries
        if j > at and not fits:
            first.append(j)
            run_bits.append(width)
            combos.append(combo)
            at, width, combo = j, 0, 1
        width += w
        combo *= h + 1
    if len(widths):
        first.append(len(widths))
        run_bits.append(width)
        combos.append(combo)
    run_bits = [b if b <= bits else -1 for b in run_bits]
    return (np.asarray(first, dtype=np.int64), np.asarray(run_bits, dtype=np.int64),
            np.asarray(combos, dtype=np.int64))


class ChunkTables:
    """The runs of :func:`chunk_plan` and their tables, for one search's compiled loop.

    Parameters
    ----------
    widths0 : sequence of int
        Bits of every attribute in the bottom node's key.
    heights : sequence of int
    n_codes0 : sequence of int
        Codes of every attribute at level 0 (a field value beyond them
        never occurs; its table entry is left 0).
    bits : int
        :data:`CHUNK_BITS` by default; below 0, no run is tabled.

    Attributes
    ----------
    tables : ndarray of int32
        Every run's tables, one after another: run ``c``'s table of target
        combination ``combo`` starts at ``table_at[c] + (combo << run_bits[c])``.
        Allocated zeroed (the pages of the tables never built are never
        touched); at most ``2 ** 22`` entries per run (:func:`chunk_plan`).
    built : ndarray of bool
        ``built[built_at[c] + combo]``: whether that table is filled.
    table_at, built_at : ndarray of int64, shape (r,)
    """

    def __init__(self, widths0, heights, n_codes0, bits=CHUNK_BITS):
        self.first, self.run_bits, self.combos = chunk_plan(widths0, heights, max(bits, 0))
        if bits < 0:                            # no tables at all
            self.run_bits[:] = -1
        entries = np.where(self.run_bits >= 0, self.combos << np.maximum(self.run_bits, 0), 0)
        flags = np.where(self.run_bits >= 0, self.combos, 0)
        self.table_at = np.concatenate([[0], np.cumsum(entries)[:-1]]).astype(np.int64)
        self.built_at = np.concatenate([[0], np.cumsum(flags)[:-1]]).astype(np.int64)
        self.tables = np.zeros(max(int(entries.sum()), 1), dtype=np.int32)
        self.built = np.zeros(max(int(flags.sum()), 1), dtype=np.bool_)
        self.radix = np.asarray([int(h) + 1 for h in heights], dtype=np.int64)
        self.n_codes0 = np.asarray(n_codes0, dtype=np.int64)


@njit(cache=True, nogil=True)
def _build(table, lo, hi, target, width2, offsets3, flat, n_codes0):
    """Fill ``table``: a run's field in the bottom's key -> its bits at ``target``."""
    for v in range(len(table)):
        out = np.int64(0)
        s_bit = 0
        t_bit = 0
        for j in range(hi - 1, lo - 1, -1):
            code = (v >> s_bit) & ((np.int64(1) << width2[j, 0]) - 1)
            s_bit += width2[j, 0]
            b = target[j]
            if b > 0:
                code = flat[offsets3[j, 0, b] + code] if code < n_codes0[j] else 0
            out |= code << t_bit
            t_bit += width2[j, b]
        table[v] = out


@njit(cache=True, nogil=True)
def chunked_keys(src, src_level, target, src_shifts, src_masks, flat, offsets, shifts,
                 width2, offsets3, first, run_bits, radix, n_codes0, tables, built, table_at,
                 built_at):
    """The target key of every packed source key, a run at a time where it can.

    ``src_level`` and ``target`` are the source's and the target's levels;
    the rest as :func:`~._rollup_kernels._packed_keys` and
    :class:`ChunkTables` hold them. A run at level 0 in the source, tabled,
    with at least as many source keys as its table has entries, takes one
    look-up per key (its table built first if need be); any other run goes
    attribute by attribute.
    """
    m = len(src)
    keys = np.zeros(m, dtype=np.int64)
    for c in range(len(run_bits)):
        lo, hi = first[c], first[c + 1]
        tabled = run_bits[c] >= 0 and (np.int64(1) << run_bits[c]) <= m
        combo = 0
        for j in range(lo, hi):
            if src_level[j] != 0:
                tabled = False
            combo = combo * radix[j] + target[j]
        if tabled:
            start = table_at[c] + (combo << run_bits[c])
            table = tables[start:start + (np.int64(1) << run_bits[c])]
            if not built[built_at[c] + combo]:
                _build(table, lo, hi, target, width2, offsets3, flat, n_codes0)
                built[built_at[c] + combo] = True
            ss, mk, sh = src_shifts[hi - 1], (np.int64(1) << run_bits[c]) - 1, shifts[hi - 1]
            for i in range(m):
                keys[i] |= np.int64(table[(src[i] >> ss) & mk]) << sh
            continue
        for j in range(lo, hi):
            ss, mk, off, sh = src_shifts[j], src_masks[j], offsets[j], shifts[j]
            if off >= 0:
                for i in range(m):
                    keys[i] |= flat[off + ((src[i] >> ss) & mk)] << sh
            else:
                for i in range(m):
                    keys[i] |= ((src[i] >> ss) & mk) << sh
    return keys
