"""The cost of a class without each of its members, all at once.

The refinement (:mod:`~kanon_graph.records.refine`) weighs moving a tuple out
of its class: it needs ``set_cost(class - x)`` for every member ``x``.
Costing each from its ``m - 1`` members is ``O(m^2 d)`` per class; this
kernel gives all ``m`` of them in ``O(m d H)`` (``H``: hierarchy height)
from the class's extremes:

* a hierarchy attribute: the level at which each member joins the first
  member's ancestor; without a member other than the first, the class's LCA
  level is the highest of the others' (the largest, or the second largest
  when the member holds the largest alone); without the first, the levels
  are taken again from the second member;
* a numeric range: the two smallest and two largest values;
* a set of categories: how many members hold each value (a value held once
  leaves the set with its member).

Each cost is summed attribute by attribute and multiplied by the records
left, as :func:`~kanon_graph.records.costs.set_cost` does, so every float
is the very one ``set_cost`` returns for the class without that member
(``tests/records/test_fast_paths.py`` checks it on random classes).
"""

from __future__ import annotations

import numpy as np

from .._jit import HAVE_NUMBA, njit  # numba loads on a kernel's first call

__all__ = ["costs_without"]


def _join(anc, base, w, top, x, r):
    """The lowest level (at most ``top``) at which codes ``x`` and ``r`` share an ancestor."""
    level = 0
    while level < top and anc[base + level * w + x] != anc[base + level * w + r]:
        level += 1
    return level


def _costs_without_py(members, m, codes, counts, tables, out, cnt):
    """``out[i]`` = the cost of ``members[:m]`` without ``members[i]`` (``m >= 2``).

    ``cnt`` is scratch (zeros, as long as the tables' ``mark``), left zero.
    """
    kind, nlev, width, off, anc, cell, values, scale, settab, setoff, mark, mode = tables
    size = 0
    for t in range(m):
        size += counts[members[t]]
    if mode == 1:
        for i in range(m):
            rest = size - counts[members[i]]
            out[i] = float(rest) * float(rest)
        return
    for i in range(m):
        out[i] = 0.0
    for a in range(kind.shape[0]):
        if kind[a] == 0:
            w = width[a]
            base = off[a]
            top = nlev[a] - 1
            r0 = codes[members[0], a]
            first = 0                 # the largest join level with r0 (members 1..m-1)
            who = -1                  # the member holding it alone, else -1
            second = 0
            for t in range(1, m):
                level = _join(anc, base, w, top, codes[members[t], a], r0)
                if level > first:
                    second = first
                    first = level
                    who = t
                elif level == first:
                    second = level
                    who = -1
                elif level > second:
                    second = level
            r1 = codes[members[1], a]
            level0 = 0                # without member 0: joins with member 1
            for t in range(2, m):
                level0 = max(level0, _join(anc, base, w, top, codes[members[t], a], r1))
            out[0] += cell[base + level0 * w + r1]
            for i in range(1, m):
                level = second if i == who else first
                out[i] += cell[base + level * w + r0]
        elif kind[a] == 1:
            low1 = np.inf
            low2 = np.inf
            high1 = -np.inf
            high2 = -np.inf
            ilow = -1
            ihigh = -1
            for t in range(m):
                v = values[off[a] + codes[members[t], a]]
                if v < low1:
                    low2 = low1
                    low1 = v
                    ilow = t
                elif v < low2:
                    low2 = v
                if v > high1:
                    high2 = high1
                    high1 = v
                    ihigh = t
                elif v > high2:
                    high2 = v
            for i in range(m):
                low = low2 if i == ilow else low1
                high = high2 if i == ihigh else high1
                out[i] += (high - low) * scale[a]
        else:
            distinct = 0
            for t in range(m):
                slot = 1 + off[a] + codes[members[t], a]
                cnt[slot] += 1
                if cnt[slot] == 1:
                    distinct += 1
            for i in range(m):
                slot = 1 + off[a] + codes[members[i], a]
                out[i] += settab[setoff[a] + distinct - (1 if cnt[slot] == 1 else 0)]
            for t in range(m):
                cnt[1 + off[a] + codes[members[t], a]] = 0
    for i in range(m):
        out[i] = out[i] * (size - counts[members[i]])


if HAVE_NUMBA:
    _join = njit(cache=True, inline="always")(_join)
    _costs_without = njit(cache=True)(_costs_without_py)
else:  # pragma: no cover
    _costs_without = _costs_without_py


def costs_without(members, codes, counts, cost):
    """The cost of the class ``members`` without each of them (a :class:`ClassCost`'s metric).

    Examples
    --------
    >>> import numpy as np, kanon_graph as kg
    >>> from kanon_graph.records import RecordGraph
    >>> from kanon_graph.records.costs import ClassCost, set_cost
    >>> data = kg.encode(kg.datasets.paper_003_table(), kg.datasets.paper_003_schema())
    >>> g = RecordGraph(data)
    >>> c = ClassCost(data, g.codes)
    >>> members = np.array([0, 1, 2, 3])
    >>> out = costs_without(members, c.codes, g.counts, c)
    >>> bool(out[1] == set_cost(np.array([0, 2, 3]), 3, c.codes, g.counts, c.tables))
    True
    """
    members = np.asarray(members, dtype=np.int64)
    out = np.zeros(len(members))
    if len(members) >= 2:
        cnt = np.zeros(cost.tables[10].shape[0], dtype=np.int64)
        _costs_without(members, len(members), codes, np.asarray(counts, dtype=np.int64),
                       cost.tables, out, cnt)
    return out
