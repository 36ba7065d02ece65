"""Compiled roll-up of a frequency set: generalize, pack, and group in one pass.

A roll-up (:meth:`~kanon_graph.lattice.frequency.FrequencyEngine.frequency_set`)
maps every value group of a cached more specific node to its code at the
target node, attribute by attribute, and sums the counts of the groups that
become equal. In numpy that is one temporary column per attribute, a packed
key, and an ``argsort`` of the keys (issue 17: 1-3 ms per check at 10
quasi-identifiers, most of the search). :func:`rollup` does it in one pass
over the source groups: each group's target codes are packed into one
int64 key (earlier attributes in the higher bits, so key order is
lexicographic order) and added into an open-addressing hash table; only the
distinct keys -- usually far fewer than the source groups -- are sorted.

The kernels are compiled by numba on their first call
(:func:`kanon_graph._jit.njit`, cached on disk).
"""

from __future__ import annotations

import numpy as np

from .._jit import njit  # numba loads on a kernel's first call

__all__ = ["rollup", "rollup_flat", "rollup_packed", "rollup_packed_layout", "packed_layout",
           "key_widths", "key_shifts"]

_EMPTY = -1
_GOLDEN = np.uint64(0x9E3779B97F4A7C15)  # Fibonacci hashing multiplier
_DIRECT_PER_ROW = 2                      # counters per source group before hashing instead


def key_shifts(widths):
    """Where each attribute's bits start in a packed key (the last attribute at bit 0).

    >>> key_shifts([0, 1, 3, 8])
    [12, 11, 8, 0]
    """
    shifts, at = [0] * len(widths), 0
    for j in range(len(widths) - 1, -1, -1):
        shifts[j], at = at, at + int(widths[j])
    return shifts


def key_widths(radices):
    """Bits per attribute of a packed key: ``bit_length(radix - 1)`` each.

    >>> key_widths([1, 2, 5, 256])
    [0, 1, 3, 8]
    """
    return [max(int(r) - 1, 0).bit_length() for r in radices]


@njit(cache=True, nogil=True)
def _hash_group(codes, counts, maps, offsets, shifts, bits):
    """Distinct packed keys of the mapped rows of ``codes`` (first-seen order) and summed counts."""
    m, d = codes.shape
    keys = np.zeros(m, dtype=np.int64)
    for j in range(d):           # column by column: ``codes`` is column-major
        off, sh = offsets[j], shifts[j]
        if off >= 0:
            for i in range(m):
                keys[i] |= maps[off + codes[i, j]] << sh
        else:
            for i in range(m):
                keys[i] |= codes[i, j] << sh
    size = np.int64(1) << bits
    mask = size - 1
    drop = np.uint64(64 - bits)
    table_keys = np.full(size, _EMPTY, dtype=np.int64)
    table_slot = np.empty(size, dtype=np.int64)
    unique = np.empty(m, dtype=np.int64)
    sums = np.zeros(m, dtype=np.int64)
    n_keys = 0
    for i in range(m):
        key = keys[i]
        h = np.int64((np.uint64(key) * _GOLDEN) >> drop)
        while True:
            held = table_keys[h]
            if held == key:
                sums[table_slot[h]] += counts[i]
                break
            if held == _EMPTY:
                table_keys[h] = key
                table_slot[h] = n_keys
                unique[n_keys] = key
                sums[n_keys] = counts[i]
                n_keys += 1
                break
            h = (h + 1) & mask
    return unique[:n_keys], sums[:n_keys]


@njit(cache=True, nogil=True)
def _direct_group(codes, counts, maps, offsets, shifts, key_bits):
    """Like :func:`_hash_group` for a small key space: one counter per possible key.

    The keys come out in increasing order (a scan of the counters), so no
    sort follows.
    """
    m, d = codes.shape
    tally = np.zeros(np.int64(1) << key_bits, dtype=np.int64)
    for i in range(m):
        key = np.int64(0)
        for j in range(d):
            code = codes[i, j]
            if offsets[j] >= 0:
                code = maps[offsets[j] + code]
            key |= code << shifts[j]
        tally[key] += counts[i]
    n_keys = 0
    for key in range(len(tally)):
        if tally[key] > 0:
            n_keys += 1
    unique = np.empty(n_keys, dtype=np.int64)
    sums = np.empty(n_keys, dtype=np.int64)
    at = 0
    for key in range(len(tally)):
        if tally[key] > 0:
            unique[at] = key
            sums[at] = tally[key]
            at += 1
    return unique, sums


@njit(cache=True, nogil=True)
def _unpack(keys, shifts, widths):
    """Column-major codes of packed ``keys`` (a shift and a mask per attribute)."""
    n, d = len(keys), len(shifts)
    out = np.empty((d, n), dtype=np.int64)
    for j in range(d):
        sh, mask = shifts[j], (np.int64(1) << widths[j]) - 1
        for g in range(n):
            out[j, g] = (keys[g] >> sh) & mask
    return out.T


def rollup(codes, counts, maps, radices):
    """The value groups of ``codes`` (weighted by ``counts``) after mapping each column.

    Every row's mapped codes are packed into one int64 key (attribute ``j``
    gets :func:`key_widths` bits, earlier attributes in higher bits, so key
    order is lexicographic order), grouped by an open-addressing hash table
    in one pass, and only the distinct keys are sorted.

    Parameters
    ----------
    codes : ndarray of int64, shape (m, d)
        The source node's value groups.
    counts : ndarray of int64, shape (m,)
    maps : list of (ndarray of int64 or None)
        Per attribute, the array taking a source code to its target code,
        or None to keep the column.
    radices : sequence of int
        Number of codes of every attribute at the target node; the widths
        of :func:`key_widths` must sum to at most 62 bits.

    Returns
    -------
    codes : ndarray of int64, shape (g, d), Fortran order
        The distinct target tuples, sorted lexicographically.
    counts : ndarray of int64, shape (g,)
        Summed counts.

    Examples
    --------
    >>> codes = np.array([[0, 0], [0, 1], [1, 1], [2, 0]])
    >>> out, n = rollup(codes, np.array([1, 2, 3, 4]), [np.array([0, 0, 1]), None], [2, 2])
    >>> out.tolist(), n.tolist()
    ([[0, 0], [0, 1], [1, 0]], [1, 5, 4])
    """
    widths = key_widths(radices)
    offsets = np.full(len(maps), -1, dtype=np.int64)
    parts, at = [], 0
    for j, mp in enumerate(maps):
        if mp is not None:
            offsets[j] = at
            parts.append(np.asarray(mp, dtype=np.int64))
            at += len(parts[-1])
    flat = np.concatenate(parts) if parts else np.zeros(1, dtype=np.int64)
    return rollup_flat(codes, counts, flat, offsets, widths)


def rollup_flat(codes, counts, flat, offsets, widths):
    """:func:`rollup` with the maps given as one flat array and per-attribute offsets.

    ``flat[offsets[j] + c]`` is the target code of source code ``c`` of
    attribute ``j`` (``offsets[j] < 0``: kept); ``widths`` as
    :func:`key_widths` of the target radices. An engine that rolls up many
    nodes keeps ``flat`` once instead of joining the maps per call.
    """
    codes = np.asarray(codes, dtype=np.int64)      # either layout: no copy
    m = len(codes)
    key_bits = sum(widths)
    if key_bits > 62:
        raise ValueError(f"rollup packs at most 62 bits per key; the widths {list(widths)} "
                         f"need {key_bits}")
    shifts, at = [0] * len(widths), 0
    for j in range(len(widths) - 1, -1, -1):
        shifts[j], at = at, at + widths[j]
    shifts = np.asarray(shifts, dtype=np.int64)
    counts = np.asarray(counts, dtype=np.int64)
    if (1 << key_bits) <= _DIRECT_PER_ROW * m + 1024:   # few possible keys: count them
        unique, sums = _direct_group(codes, counts, flat, offsets, shifts, key_bits)
        return _unpack(unique, shifts, np.asarray(widths, dtype=np.int64)), sums
    table_bits = max(int(2 * max(m, 1) - 1).bit_length(), 4)   # load factor at most 1/2
    unique, sums = _hash_group(codes, counts, flat, offsets,
                               shifts, table_bits)
    slot_bits = max(len(unique) - 1, 0).bit_length()
    if key_bits + slot_bits <= 63:
        # sort (key, slot) packed in one int64: numpy's sort of plain integers is far
        # faster than its argsort
        packed = np.sort((unique << slot_bits) | np.arange(len(unique), dtype=np.int64))
        order = packed & ((1 << slot_bits) - 1)
        unique = packed >> slot_bits
    else:
        order = np.argsort(unique)
        unique = unique[order]
    return _unpack(unique, shifts, np.asarray(widths, dtype=np.int64)), sums[order]


@njit(cache=True, nogil=True)
def _packed_keys(src, src_shifts, src_masks, maps, offsets, shifts):
    """The target key of every packed source key: each attribute unpacked, mapped, packed."""
    m, d = len(src), len(shifts)
    keys = np.zeros(m, dtype=np.int64)
    for j in range(d):
        ss, mk, off, sh = src_shifts[j], src_masks[j], offsets[j], shifts[j]
        if off >= 0:
            for i in range(m):
                keys[i] |= maps[off + ((src[i] >> ss) & mk)] << sh
        else:
            for i in range(m):
                keys[i] |= ((src[i] >> ss) & mk) << sh
    return keys


@njit(cache=True, nogil=True)
def _hash_keys(keys, counts, bits, limit):
    """Distinct ``keys`` (first-seen order) and their summed counts, by open addressing.

    The table has ``2 ** bits`` slots (at least twice the keys it can
    receive). When more than ``limit`` distinct keys turn up (``limit >= 0``),
    the pass stops there: the third value returned is the number of keys
    read (``len(keys)`` when complete). A slot holds its key and its running
    sum side by side, so that a key costs one cache line of the table, not
    three (key, slot number, sum: a million keys hashed 10 to 35% faster);
    the sums are gathered in first-seen order at the end.
    """
    m = len(keys)
    size = np.int64(1) << bits
    mask = size - 1
    drop = np.uint64(64 - bits)
    table = np.empty((size, 2), dtype=np.int64)         # [key, its running sum]
    for h in range(size):
        table[h, 0] = _EMPTY
    room = m if limit < 0 else min(m, limit + 1)
    unique = np.empty(room, dtype=np.int64)
    where = np.empty(room, dtype=np.int64)
    n_keys = 0
    read = m
    for i in range(m):
        key = keys[i]
        h = np.int64((np.uint64(key) * _GOLDEN) >> drop)
        while True:
            held = table[h, 0]
            if held == key:
                table[h, 1] += counts[i]
                break
            if held == _EMPTY:
                table[h, 0] = key
                table[h, 1] = counts[i]
                unique[n_keys] = key
                where[n_keys] = h
                n_keys += 1
                break
            h = (h + 1) & mask
        if 0 <= limit < n_keys:
            read = i + 1
            break
    sums = np.empty(n_keys, dtype=np.int64)
    for j in range(n_keys):
        sums[j] = table[where[j], 1]
    return unique[:n_keys], sums, read


@njit(cache=True, nogil=True)
def _hash_packed(src, counts, src_shifts, src_masks, maps, offsets, shifts, bits, limit):
    """Distinct target keys of packed ``src`` (first-seen order) and their summed counts.

    Each source key is unpacked, mapped and packed again (attribute by
    attribute: tight loops over the keys), then hashed by :func:`_hash_keys`
    into ``2 ** bits`` slots, stopping beyond ``limit`` keys as it does.
    """
    keys = _packed_keys(src, src_shifts, src_masks, maps, offsets, shifts)
    return _hash_keys(keys, counts, bits, limit)


@njit(cache=True, nogil=True)
def _tally_sum(keys, counts, key_bits):
    """Like :func:`_hash_packed` (without a limit) for a small key space: one counter per key, keys ascending."""
    tally = np.zeros(np.int64(1) << key_bits, dtype=np.int64)
    seen = np.zeros(np.int64(1) << key_bits, dtype=np.bool_)
    for i in range(len(keys)):
        tally[keys[i]] += counts[i]
        seen[keys[i]] = True
    n_keys = 0
    for key in range(len(tally)):
        if seen[key]:
            n_keys += 1
    unique = np.empty(n_keys, dtype=np.int64)
    sums = np.empty(n_keys, dtype=np.int64)
    at = 0
    for key in range(len(tally)):
        if seen[key]:
            unique[at] = key
            sums[at] = tally[key]
            at += 1
    return unique, sums


def rollup_packed(keys, counts, source_widths, flat, offsets, widths, *, limit=-1):
    """A packed frequency set rolled up to a more general node, left packed and unsorted.

    Parameters
    ----------
    keys, counts : ndarray of int64
        The source's packed keys (any order) and their counts.
    source_widths : sequence of int
        Bits per attribute in ``keys``.
    flat, offsets : ndarray of int64
        The maps, as :func:`rollup_flat` takes them.
    widths : sequence of int
        Bits per attribute of the target's keys (at most 62 in all).
    limit : int
        Stop as soon as the target has more than ``limit`` groups (-1: never).

    Returns
    -------
    keys, counts : ndarray of int64 or None
        The target's distinct keys and summed counts, in no set order (the
        :class:`~._frequency_sets.FrequencySet` sorts them when unpacked);
        both None when the pass stopped at ``limit``.
    read : int
        Source groups read (``len(keys)`` unless stopped).

    Examples
    --------
    >>> flat, offsets = np.array([0, 0, 1]), np.array([0, -1])
    >>> k, n, read = rollup_packed(np.array([0, 1, 3, 4]), np.array([1, 2, 3, 4]), [2, 1],
    ...                            flat, offsets, [1, 1])
    >>> sorted(zip(k.tolist(), n.tolist())), read    # (0,0) (0,1) (1,1) (2,0) -> x: 0 0 1
    ([(0, 1), (1, 5), (2, 4)], 4)
    >>> rollup_packed(np.array([0, 1, 3, 4]), np.array([1, 2, 3, 4]), [2, 1], flat, offsets,
    ...               [1, 1], limit=2)[0] is None   # 3 groups: more than the limit
    True
    """
    key_bits = sum(int(w) for w in widths)
    if key_bits > 62:
        raise ValueError(f"rollup packs at most 62 bits per key; the widths {list(widths)} "
                         f"need {key_bits}")
    source_shifts, masks = packed_layout(source_widths)
    shifts = packed_layout(widths)[0]
    return rollup_packed_layout(keys, counts, source_shifts, masks, flat, offsets, shifts,
                                key_bits, limit)


def packed_layout(widths):
    """``(shifts, masks)`` of a packed key with these ``widths``, as int64 arrays."""
    widths = np.asarray(widths, dtype=np.int64)
    return (np.asarray(key_shifts(widths.tolist()), dtype=np.int64),
            (np.int64(1) << widths) - 1)


def rollup_packed_layout(keys, counts, source_shifts, masks, flat, offsets, shifts, key_bits,
                         limit=-1):
    """:func:`rollup_packed` with both keys' layouts given (:func:`packed_layout`).

    An engine that rolls up many nodes keeps every node's layout once.
    """
    counts = np.asarray(counts, dtype=np.int64)
    m = len(keys)
    if (1 << key_bits) <= _DIRECT_PER_ROW * m + 1024:   # few possible keys: count them
        out = _packed_keys(keys, source_shifts, masks, flat, offsets, shifts)
        unique, sums = _tally_sum(out, counts, key_bits)
        if 0 <= limit < len(unique):
            return None, None, m
        return unique, sums, m
    # load at most 1/2: the pass stops at limit + 1 keys, so a limit bounds the table
    # (a check's table then stays small enough for the processor's caches)
    most = m if limit < 0 else min(m, int(limit) + 1)
    table_bits = max(int(2 * max(most, 1) - 1).bit_length(), 4)
    unique, sums, read = _hash_packed(keys, counts, source_shifts, masks, flat, offsets,
                                      shifts, table_bits, int(limit))
    if read < m or 0 <= limit < len(unique):
        return None, None, read
    return unique, sums, read
