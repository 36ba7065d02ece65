"""MDAV-generic's squared distance of a record to a point (compiled; one expression for all).

Domingo-Ferrer and Torra 2005, section 3: numeric coordinates standardized,
ordinal ones by rank over the number of categories, nominal ones 0 or 1;
the squares add (:class:`kanon_graph.recoding.AggregateSpace`). Every
search of MDAV (linear scans, :mod:`kanon_graph.clustering._mdav_tree`) ranks
records by this one expression, so they tie where the others tie.
"""

from __future__ import annotations

from .._jit import njit

__all__ = ["dist2"]


@njit
def dist2(i, num, num_c, ordc, ord_c, ord_size, nomc, nom_c):
    """Squared distance of record ``i`` to the point ``(num_c, ord_c, nom_c)``."""
    d = 0.0
    for j in range(num.shape[1]):
        t = num[i, j] - num_c[j]
        d += t * t
    for j in range(ordc.shape[1]):
        t = (ordc[i, j] - ord_c[j]) / ord_size[j]
        d += t * t
    for j in range(nomc.shape[1]):
        if nomc[i, j] != nom_c[j]:
            d += 1.0
    return d
