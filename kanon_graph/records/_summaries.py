"""Per-class summaries of the refinement, and the cost of a class with one tuple more.

A round of :mod:`~kanon_graph.records.refine` weighs moving each tuple ``x`` into
each neighbouring class ``b``: the cost of ``b`` with ``x`` added. At a million
distinct tuples that was some nine million costings a round, each a walk up
``d`` hierarchies read at random (the issue 47 export: 5.7 of 7.1 s of a round).
Two things make it cheaper without changing one float:

* :func:`_plus_cost` takes the attributes in ``seq`` (small tables first, a
  ZIP+4 hierarchy of 348,438 codes last) and stops as soon as the cost is sure
  to exceed ``limit``: the cells found so far plus the class's present cells on
  the attributes still to come (``rest``, :func:`_rest_costs`; a cell only
  widens when a tuple joins) already pass it. A cost it returns is the sum in
  attribute order, the very float of :func:`~kanon_graph.records.costs.set_cost`;
* :func:`_summaries` keeps, per class, what the costing needs (LCA level and a
  member code, or the range).

``tests/records/test_code_major.py`` compares both with ``set_cost`` on random
classes, tables and limits.
"""

from __future__ import annotations

import numpy as np

from .._jit import HAVE_NUMBA, njit  # numba loads on a kernel's first call

__all__: list[str] = []


def _summaries(order, start, codes, tables, anc_t, todo, lev, ref, lo, hi):
    """Per class with ``todo`` and attribute: LCA level and a member code (hierarchy) or
    the range, written into ``lev``, ``ref``, ``lo``, ``hi`` (``anc_t``: the hierarchy
    tables code by code, :func:`~kanon_graph.records._layout.code_major`)."""
    kind, nlev, off = tables[0], tables[1], tables[3]
    values = tables[6]
    n_classes = start.shape[0] - 1
    d = kind.shape[0]
    for c in range(n_classes):
        if not todo[c] or start[c + 1] == start[c]:
            continue
        for a in range(d):
            r = codes[order[start[c]], a]
            ref[c, a] = r
            if kind[a] == 0:
                h = nlev[a]
                level = 0
                rr = off[a] + r * h
                for j in range(start[c] + 1, start[c + 1]):
                    xx = off[a] + codes[order[j], a] * h
                    while level < h - 1 and anc_t[xx + level] != anc_t[rr + level]:
                        level += 1
                lev[c, a] = level
            elif kind[a] == 1:
                low = np.inf
                high = -np.inf
                for j in range(start[c], start[c + 1]):
                    v = values[off[a] + codes[order[j], a]]
                    low = min(low, v)
                    high = max(high, v)
                lo[c, a] = low
                hi[c, a] = high


def _attribute_order(tables):
    """The order in which :func:`_plus_cost` reads attributes: numeric ranges (one value),
    then hierarchies by the size of their tables (small ones stay in cache), then sets
    (a walk over the class's members)."""
    kind, nlev, width = tables[0], tables[1], tables[2]
    d = kind.shape[0]
    weight = np.zeros(d, dtype=np.int64)
    for a in range(d):
        if kind[a] == 0:
            weight[a] = 1 + nlev[a] * width[a]
        elif kind[a] == 2:
            weight[a] = np.iinfo(np.int64).max
    return np.argsort(weight, kind="mergesort")


def _rest_costs(start, tables, cell_t, seq, lev, ref, lo, hi, rest):
    """``rest[c, t]``: class ``c``'s present cells on attributes ``seq[t:]`` (0 for a set),
    a lower bound of those cells once a tuple joins ``c``."""
    kind, nlev, off, scale = tables[0], tables[1], tables[3], tables[7]
    d = kind.shape[0]
    for c in range(start.shape[0] - 1):
        rest[c, d] = 0.0
        if start[c + 1] == start[c]:
            continue
        for t in range(d - 1, -1, -1):
            a = seq[t]
            here = 0.0
            if kind[a] == 0:
                here = cell_t[off[a] + ref[c, a] * nlev[a] + lev[c, a]]
            elif kind[a] == 1:
                here = (hi[c, a] - lo[c, a]) * scale[a]
            rest[c, t] = rest[c, t + 1] + here


def _plus_cost(b, x, lev, ref, lo, hi, rest, seq, cells, order, start, size, codes, counts,
               tables, anc_t, cell_t, limit):
    """Cost of class ``b`` with node ``x`` added, from ``b``'s summaries: O(d H); ``inf`` as
    soon as it is sure to exceed ``limit`` (up to the rounding of a sum taken in ``seq``'s
    order: a caller's limit has a slack above that), ``cells``: scratch of ``d`` floats."""
    kind, nlev, width, off, anc, cell, values, scale, settab, setoff, mark, mode = tables
    total_size = size[b] + counts[x]
    if mode == 1:
        return float(total_size) * float(total_size)
    d = kind.shape[0]
    partial = 0.0
    for t in range(d):
        a = seq[t]
        cx = codes[x, a]
        if kind[a] == 0:
            h = nlev[a]
            rr = off[a] + ref[b, a] * h
            xx = off[a] + cx * h
            level = lev[b, a]
            while level < h - 1 and anc_t[xx + level] != anc_t[rr + level]:
                level += 1
            cells[a] = cell_t[rr + level]
        elif kind[a] == 1:
            v = values[off[a] + cx]
            cells[a] = (max(hi[b, a], v) - min(lo[b, a], v)) * scale[a]
        else:
            mark[0] += 1
            stamp = mark[0]
            distinct = 0
            for j in range(start[b], start[b + 1]):
                slot = 1 + off[a] + codes[order[j], a]
                if mark[slot] != stamp:
                    mark[slot] = stamp
                    distinct += 1
            if mark[1 + off[a] + cx] != stamp:
                distinct += 1
            cells[a] = settab[setoff[a] + distinct]
        partial += cells[a]
        if (partial + rest[b, t + 1]) * total_size > limit:
            return np.inf
    total = 0.0
    for a in range(d):              # summed in attribute order: set_cost's very float
        total += cells[a]
    return total * total_size


def _plus_levels(b, x, lev, ref, rest, seq, cells, codes, nlev, off, anc_t, cell_t, total_size,
                 limit):
    """:func:`_plus_cost` where every attribute has a hierarchy and the metric is not the
    discernibility: the same steps, so the same float or ``inf``; ``total_size`` is
    ``size[b] + counts[x]``. Ten arrays where :func:`_plus_cost` takes eighteen and a
    tuple of eleven: on patients (20,000 tuples, k = 20) a round weighs 65,000
    candidate moves, and entering the general kernel (a reference count taken and
    dropped per array) cost more than the costing: the first round took 22 ms, 8 ms now."""
    d = seq.shape[0]
    partial = 0.0
    for t in range(d):
        a = seq[t]
        h = nlev[a]
        rr = off[a] + ref[b, a] * h
        xx = off[a] + codes[x, a] * h
        level = lev[b, a]
        while level < h - 1 and anc_t[xx + level] != anc_t[rr + level]:
            level += 1
        cells[a] = cell_t[rr + level]
        partial += cells[a]
        if (partial + rest[b, t + 1]) * total_size > limit:
            return np.inf
    total = 0.0
    for a in range(d):              # summed in attribute order: set_cost's very float
        total += cells[a]
    return total * total_size


if HAVE_NUMBA:
    _summaries = njit(cache=True)(_summaries)
    _attribute_order = njit(cache=True)(_attribute_order)
    _rest_costs = njit(cache=True)(_rest_costs)
    _plus_cost = njit(cache=True)(_plus_cost)
    _plus_levels = njit(cache=True, inline="always")(_plus_levels)
