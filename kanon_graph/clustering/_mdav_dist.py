"""MDAV-generic's squared distance of a record to a point (compiled; one expression for all).

Domingo-Ferrer and Torra 2005, section 3: numeric coordinates standardized,
ordinal ones by rank over the number of categories, nominal ones 0 or 1;
the squares add (:class:`kanon_graph.recoding.AggregateSpace`). Every
search of MDAV (linear scans, :mod:`kanon_graph.clustering._mdav_tree`) ranks
records by this one expression, so they tie where the others tie.
"""

from __future__ import annotations

from .._jit import njit

__all__ = ["dist2", "keep_nearest"]


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


@njit
def keep_nearest(near_d, near_i, got, want, d, i):
    """Record ``i`` at distance ``d`` into the ``want`` nearest so far (``got`` of them).

    ``near_d`` / ``near_i`` stay sorted by (distance, row): at equal
    distance the earlier row comes first. Returns the new count.
    """
    if got == want and (d > near_d[want - 1] or (d == near_d[want - 1] and i > near_i[want - 1])):
        return got
    pos = got if got < want else want - 1
    while pos > 0 and (near_d[pos - 1] > d or (near_d[pos - 1] == d and near_i[pos - 1] > i)):
        near_d[pos] = near_d[pos - 1]
        near_i[pos] = near_i[pos - 1]
        pos -= 1
    near_d[pos] = d
    near_i[pos] = i
    return got + 1 if got < want else got
