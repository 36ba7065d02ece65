"""Compiled group costs over encoded arrays, for the k-member and bottom-up kernels.

A :class:`~kanon_graph.records._groups.GroupCoster` keeps one ancestor
map ``lmap[l, leaf]`` and one unit-cost table ``unit[l, leaf]`` per
categorical attribute. The kernels scan thousands of groups per step, so
random look-ups into those tables would dominate; :func:`leaf_tables` gives
every group its own row instead: ``anc[g, c, l]`` (the ancestor of its leaf
at level ``l``) and ``cost[g, c, l]`` (the unit cost there), padded above
an attribute's root with the root, so the scan reads memory in order.

:func:`union_cost` is the per-record cost of the union of a group ``a``
(one summary) and a group ``b`` (row ``j`` of summary arrays), computed
term by term in the same order as :meth:`GroupCoster.merge_cost` (numeric
spans first, then categorical units), so it gives the same floating-point
value. Every term grows with the group (a wider span, a higher LCA), so the
cost of a group joined with a record never falls below the cost of any pair
it contains: the k-member kernel prunes with that bound.
"""

from __future__ import annotations

import numpy as np

# numba loads on a kernel's first call; without numba the kernels run as (slow) Python
from .._jit import njit

__all__ = ["leaf_tables", "union_cost", "njit"]


def leaf_tables(coster, leaves):
    """``(anc, cost)``, both ``(G, q, L)``: ancestors and unit costs of the leaves ``leaves``.

    ``leaves`` is ``(G, q)`` (one leaf code per categorical attribute);
    ``L`` is the largest height plus one; levels above an attribute's root
    repeat the root.
    """
    leaves = np.asarray(leaves, dtype=np.int64)
    depth = max((m.shape[0] for m in coster.lmaps), default=1)
    anc = np.empty((len(leaves), len(coster.lmaps), depth), dtype=np.int64)
    cost = np.empty((len(leaves), len(coster.lmaps), depth))
    for c, (lmap, unit) in enumerate(zip(coster.lmaps, coster.units)):
        top = lmap.shape[0] - 1
        for level in range(depth):
            anc[:, c, level] = lmap[min(level, top), leaves[:, c]]
            cost[:, c, level] = unit[min(level, top), leaves[:, c]]
    return anc, cost


@njit(cache=True, inline="always")
def union_cost(alo, ahi, alevel, aanc, blo, bhi, blevel, banc, bcost, j, spans):
    """Per-record cost (sum over attributes) of group ``a`` joined with row ``j`` of ``b``.

    ``a``: ``lo``/``hi`` (p,), ``level`` (q,), ``anc`` (q, L); ``b``: the
    same with a leading group axis, and ``bcost`` (G, q, L). Numeric:
    (max - min) / span; categorical: the unit cost of the LCA of both
    groups, read at ``b``'s leaf.
    """
    total = 0.0
    for t in range(spans.shape[0]):
        hi = ahi[t] if ahi[t] > bhi[j, t] else bhi[j, t]
        lo = alo[t] if alo[t] < blo[j, t] else blo[j, t]
        total += (hi - lo) / spans[t]
    depth = aanc.shape[1]
    for c in range(aanc.shape[0]):
        level = depth - 1
        for l in range(depth):
            if aanc[c, l] == banc[j, c, l]:
                level = l
                break
        if alevel[c] > level:
            level = alevel[c]
        if blevel[j, c] > level:
            level = blevel[j, c]
        total += bcost[j, c, level]
    return total
