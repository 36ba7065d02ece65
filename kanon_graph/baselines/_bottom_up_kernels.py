"""Compiled partner search of bottom-up local recoding (Xu et al. 2006, section 4.1).

:func:`best_partner` scans the live groups once and returns the one whose
union with group ``g`` raises the total certainty penalty least,
``|G ∪ G'| NCP(G ∪ G') - NCP(G') `` (``NCP(G)`` is the same for every
partner), with the per-record cost of :func:`~._cost_kernels.union_cost`:
the same terms, in the same order, as the numpy
:meth:`GroupCoster.merge_cost`. Ties go to the lowest group index.
"""

from __future__ import annotations

import numpy as np

from ._cost_kernels import njit, union_cost

__all__ = ["best_partner"]


@njit(cache=True)
def best_partner(g, live, alive, cell, size, loss, lo, hi, level, anc, cost_at, spans):
    """Index of the cheapest partner of group ``g`` among ``live`` (ascending), or -1.

    A partner is alive, in ``g``'s MAGVal cell and not ``g`` itself.
    ``anc`` / ``cost_at`` are the groups' :func:`~._cost_kernels.leaf_tables`.
    """
    best = np.inf
    found = -1
    glo, ghi, glevel, ganc = lo[g], hi[g], level[g], anc[g]
    for i in range(live.shape[0]):
        o = live[i]
        if o == g or not alive[o] or cell[o] != cell[g]:
            continue
        weight = size[g] + size[o]
        cost = union_cost(glo, ghi, glevel, ganc, lo, hi, level, anc, cost_at, o, spans)
        growth = weight * cost - loss[o]
        if growth < best:
            best = growth
            found = o
    return found
