"""Compiled kernels of SD's contingency-table distances (see :mod:`.values`).

``_row_counts`` reads the (widened) contingency row of every categorical
attribute relative to a reference tuple; ``_distance_matrices`` turns the
rows into the rank-based distances ``M[a, u, v]`` (paper 000, section 4.1,
Definitions 1-2, eq. 6); ``_order`` is the processing order (increasing
cardinality). The readings of the text are listed in :mod:`.values`.
"""

from __future__ import annotations

import numpy as np

# numba loads on a kernel's first call; without numba the kernels run as (slow) Python
from ..._jit import njit


_TINY = float(np.finfo(float).tiny)


@njit(cache=True)
def _row_counts(cat, rem, alive, order, ref, k, marginals):
    """Counts of each attribute's values in its (widened) contingency row.

    ``cat`` (u, c) codes, ``rem`` (u,) multiplicities, ``alive`` the tuple
    indices to count, ``order`` attribute indices by increasing cardinality,
    ``ref`` the reference codes, ``marginals`` (c, m) the value counts of
    the counted tuples (the rows of depth 0). Returns ``counts`` (c, m)
    indexed by attribute, and ``depth`` (c,): how many conditioning
    attributes each row was conditioned on after widening.
    """
    c = cat.shape[1]
    counts = marginals.astype(np.float64)
    depth = np.zeros(c, np.int64)
    if c == 0:
        return counts, depth
    n_alive = alive.shape[0]
    totals = np.zeros(c + 1)
    totals[0] = marginals[order[0]].sum()
    first = order[0]
    hits = np.empty(n_alive, np.int64)
    match = np.empty(n_alive, np.int64)
    n_hits = 0
    for i in range(n_alive):
        t = alive[i]
        if rem[t] <= 0 or cat[t, first] != ref[first]:
            continue
        j = 1
        while j < c and cat[t, order[j]] == ref[order[j]]:
            j += 1
        hits[n_hits] = t
        match[n_hits] = j
        n_hits += 1
        for jj in range(1, j + 1):
            totals[jj] += rem[t]
    for p in range(c):
        j = p
        while j > 0 and totals[j] < k:
            j -= 1
        depth[order[p]] = j
    for a in range(c):
        if depth[a] > 0:
            counts[a, :] = 0.0
    for i in range(n_hits):
        t = hits[i]
        for a in range(c):
            if depth[a] > 0 and match[i] >= depth[a]:
                counts[a, cat[t, a]] += rem[t]
    return counts, depth


@njit(cache=True)
def _distance_matrices(counts, present, order, ref):
    """``M[a, u, v]``: distance from value ``u`` to ``v`` of attribute ``a``."""
    c, mmax = counts.shape
    out = np.zeros((c, mmax, mmax))
    scale = 1.0
    for p in range(c):
        a = order[p]
        card = 0
        for v in range(mmax):
            if present[a, v]:
                card += 1
        if card <= 1:
            continue
        if card == 2:
            for u in range(mmax):
                for v in range(mmax):
                    if u != v:
                        out[a, u, v] = 1.0
            scale = 1.0
            continue
        base = card - 1.0
        power = np.empty(card)              # power[r]: distance of rank r
        d = scale
        for r in range(1, card):
            d /= base
            power[r] = d if d > _TINY else _TINY
        values = np.empty(card, np.int64)
        q = 0
        for v in range(mmax):
            if present[a, v]:
                values[q] = v
                q += 1
        diff = np.empty(card)
        for u in range(mmax):
            for v in range(mmax):
                if v != u:
                    out[a, u, v] = power[1]     # absent values: the largest distance
            if not present[a, u]:
                continue
            for i in range(card):
                v = values[i]
                diff[i] = -1.0 if v == u else abs(counts[a, v] - counts[a, u])
            ranked = np.argsort(-diff, kind="mergesort")
            rank = 0
            for pos in range(card - 1):     # u itself sorts last
                i = ranked[pos]
                if pos == 0 or diff[i] != diff[ranked[pos - 1]]:
                    rank = pos + 1          # competition ranking: ties share a rank
                out[a, u, values[i]] = power[rank]
        smallest = np.inf
        r = ref[a]
        for v in range(mmax):
            if v != r and present[a, v] and out[a, r, v] < smallest:
                smallest = out[a, r, v]
        scale = smallest
    return out


@njit(cache=True)
def _contingency(cat, rem, alive, order, ref, k, marginals, present):
    """Row counts, depths and distance matrices, for calls from Python.

    The kernels above are also compiled inside other kernels; calling them
    from Python through this separate entry point avoids a numba caching
    problem with functions used both ways.
    """
    counts, depth = _row_counts(cat, rem, alive, order, ref, k, marginals)
    return counts, depth, _distance_matrices(counts, present, order, ref)


def _order(present):
    cards = present.sum(axis=1)
    return np.argsort(cards, kind="stable").astype(np.int64), cards
