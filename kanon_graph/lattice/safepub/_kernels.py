"""Compiled Loss of one lattice node on a sample's distinct tuples (SafePub's score).

One pass packs each distinct tuple's codes at the node into one int64 key
and counts the keys in an open-addressing hash table; a second pass sums,
per attribute and in integers, the cell loss numerators (leaves under the
value - 1) of the records whose class holds at least k records: the score is
then exact (:meth:`~kanon_graph.lattice.safepub.SampleScores.exact_score`). A node with
few possible classes counts them in one array instead
(:func:`node_loss_dense`, about a third faster). Numpy's ``unique`` sorts
the keys, about ten times slower at Adult's size (most of a search's
time). Compiled by numba on first call (:func:`kanon_graph._jit.njit`,
cached on disk).
"""

from __future__ import annotations

import numpy as np

from ..._jit import njit  # numba loads on a kernel's first call

__all__ = ["node_loss", "node_loss_dense"]

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)  # Fibonacci hashing multiplier


@njit(cache=True, nogil=True)
def node_loss_dense(codes, costs, radices, node, weights, k, space):
    """:func:`node_loss` when the node's key space (``space`` = the product of the
    attributes' ``radices`` at their levels) is small: one counter per key, no hashing."""
    d = codes.shape[0]
    u = codes.shape[2]
    keys = np.zeros(u, dtype=np.int64)
    for j in range(d):
        l = node[j]
        r = radices[j, l]
        row = codes[j, l]
        for t in range(u):
            keys[t] = keys[t] * r + row[t]
    counts = np.zeros(space, dtype=np.int64)
    for t in range(u):
        counts[keys[t]] += weights[t]
    released = np.empty(u, dtype=np.bool_)
    for t in range(u):
        released[t] = counts[keys[t]] >= k
    return _sums(costs, node, weights, released)


@njit(cache=True, nogil=True)
def _sums(costs, node, weights, released):
    """Per attribute, the summed cost numerators of the released tuples; and their records."""
    d = costs.shape[0]
    u = costs.shape[2]
    sums = np.zeros(d, dtype=np.int64)
    kept = np.int64(0)
    for t in range(u):
        if released[t]:
            kept += weights[t]
    for j in range(d):
        cost = costs[j, node[j]]
        total = np.int64(0)
        for t in range(u):
            if released[t]:
                total += weights[t] * cost[t]
        sums[j] = total
    return sums, kept


@njit(cache=True, nogil=True)
def node_loss(codes, costs, widths, node, weights, k, bits):
    """``(per attribute: summed cost numerators of the released records, records released)``.

    ``codes[j, l, t]`` / ``costs[j, l, t]``: tuple t's code and its cost
    numerator (leaves under its value - 1, an integer) of attribute j at
    level l; ``widths[j, l]`` the bits of that code; a class
    is released when its summed ``weights`` reach ``k``; ``bits`` sizes the
    hash table (``2**bits`` slots, at least twice the tuples).
    """
    d = codes.shape[0]
    u = codes.shape[2]
    keys = np.zeros(u, dtype=np.int64)
    for j in range(d):           # attribute by attribute: streams along contiguous rows
        l = node[j]
        w = widths[j, l]
        row = codes[j, l]
        for t in range(u):
            keys[t] = (keys[t] << w) | row[t]
    size = np.int64(1) << bits
    mask = size - 1
    drop = np.uint64(64 - bits)
    table_keys = np.full(size, -1, dtype=np.int64)
    table_counts = np.zeros(size, dtype=np.int64)
    slot = np.empty(u, dtype=np.int64)
    for t in range(u):
        key = keys[t]
        h = np.int64((np.uint64(key) * _GOLDEN) >> drop)
        while True:
            held = table_keys[h]
            if held == key:
                break
            if held == -1:
                table_keys[h] = key
                break
            h = (h + 1) & mask
        table_counts[h] += weights[t]
        slot[t] = h
    released = np.empty(u, dtype=np.bool_)
    for t in range(u):
        released[t] = table_counts[slot[t]] >= k
    return _sums(costs, node, weights, released)
