"""Compiled main loop of MDAV-generic (Domingo-Ferrer and Torra 2005, Algorithm 1).

The remaining records are kept in one array in row order (no pairwise
matrix: memory stays O(n)). Per pair of classes:

1. one scan drops the used-up records from the array and sums the numeric
   coordinates of the rest (in row order, so the average record is the same
   float as a plain sequential sum); ordinal medians and nominal modes come
   from per-category counts kept up to date;
2. ``r``, the record farthest from the average record; ``s``, the record
   farthest from ``r``; the ``k - 1`` records nearest to ``r``, then to
   ``s``: from the k-d tree of :mod:`kanon_graph.clustering._mdav_tree`
   when no attribute is nominal (``tree=True``), else by linear scans.

Tie rule (everywhere): among records at exactly the same computed squared
distance, the first in row order is the farthest, and the nearest are
taken in row order.
"""

from __future__ import annotations

import numpy as np

from .._jit import njit
from ._mdav_dist import dist2, keep_nearest
from ._mdav_tree import build, farthest as tree_farthest, nearest as tree_nearest, remove

__all__ = ["mdav_classes"]


@njit
def _centre(rem, m, num, ordc, ord_size, ord_count, ord_off, nomc, nom_size, nom_count,
            nom_off, num_c, ord_c, nom_c):
    """The average record of ``rem[:m]``: means, lower medians, first modes."""
    for j in range(num.shape[1]):
        num_c[j] = 0.0
    for t in range(m):
        i = rem[t]
        for j in range(num.shape[1]):
            num_c[j] += num[i, j]
    for j in range(num.shape[1]):
        num_c[j] /= m
    half = (m + 1) // 2
    for j in range(ordc.shape[1]):
        seen = 0
        for c in range(ord_size[j]):
            seen += ord_count[ord_off[j] + c]
            if seen >= half:
                ord_c[j] = c
                break
    for j in range(nomc.shape[1]):
        best, best_c = -1, 0
        for c in range(nom_size[j]):
            if nom_count[nom_off[j] + c] > best:
                best, best_c = nom_count[nom_off[j] + c], c
        nom_c[j] = best_c


@njit
def _scan_farthest(rem, m, alive, point):
    num, num_c, ordc, ord_c, ord_size, nomc, nom_c = point
    best, best_d = -1, -1.0
    for t in range(m):
        i = rem[t]
        if alive[i]:
            d = dist2(i, num, num_c, ordc, ord_c, ord_size, nomc, nom_c)
            if d > best_d:
                best, best_d = i, d
    return best


@njit
def _scan_nearest(rem, m, alive, centre, want, point, near_d, near_i):
    """The ``want`` alive records of ``rem[:m]`` nearest to the point (not ``centre``)."""
    num, num_c, ordc, ord_c, ord_size, nomc, nom_c = point
    got = 0
    for t in range(m):
        i = rem[t]
        if not alive[i] or i == centre:
            continue
        d = dist2(i, num, num_c, ordc, ord_c, ord_size, nomc, nom_c)
        # rows come in increasing order: the (distance, row) order is the scan's
        got = keep_nearest(near_d, near_i, got, want, d, i)
    return got


@njit
def _group(centre, label, k, rem, m, alive, class_of, num, ordc, ord_size, nomc, coords,
           tree, use_tree, stack, near_d, near_i, ord_count, ord_off, nom_count, nom_off):
    """Class ``label``: record ``centre`` and the ``k - 1`` alive records nearest to it."""
    point = (num, num[centre], ordc, ordc[centre], ord_size, nomc, nomc[centre])
    if k == 1:
        got = 0
    elif use_tree:
        got = tree_nearest(coords[centre], centre, k - 1, point, tree, alive, stack,
                           near_d, near_i)
    else:
        got = _scan_nearest(rem, m, alive, centre, k - 1, point, near_d, near_i)
    for t in range(got + 1):
        i = centre if t == got else near_i[t]
        class_of[i] = label
        alive[i] = False
        for j in range(ordc.shape[1]):
            ord_count[ord_off[j] + ordc[i, j]] -= 1
        for j in range(nomc.shape[1]):
            nom_count[nom_off[j] + nomc[i, j]] -= 1
        if use_tree:
            remove(i, coords, alive, tree)


@njit
def _farthest_from(q, point, rem, m, alive, tree, use_tree, stack):
    if use_tree:
        return tree_farthest(q, point, tree, alive, stack)
    return _scan_farthest(rem, m, alive, point)


@njit
def mdav_classes(num, ordc, ord_size, nomc, nom_size, k, use_tree):
    """MDAV-generic's class label per record (labels in the order the groups are formed).

    ``use_tree`` (only without nominal attributes): search the k-d tree
    instead of scanning; the classes are the same.
    """
    n = num.shape[0]
    class_of = np.full(n, -1, dtype=np.int64)
    alive = np.ones(n, dtype=np.bool_)
    rem = np.arange(n)
    ord_off = np.zeros(ordc.shape[1], dtype=np.int64)
    for j in range(1, ordc.shape[1]):
        ord_off[j] = ord_off[j - 1] + ord_size[j - 1]
    nom_off = np.zeros(nomc.shape[1], dtype=np.int64)
    for j in range(1, nomc.shape[1]):
        nom_off[j] = nom_off[j - 1] + nom_size[j - 1]
    ord_count = np.zeros(max(1, ord_size.sum()), dtype=np.int64)
    nom_count = np.zeros(max(1, nom_size.sum()), dtype=np.int64)
    for i in range(n):
        for j in range(ordc.shape[1]):
            ord_count[ord_off[j] + ordc[i, j]] += 1
        for j in range(nomc.shape[1]):
            nom_count[nom_off[j] + nomc[i, j]] += 1
    coords = np.zeros((n, num.shape[1] + ordc.shape[1]))
    for i in range(n):
        for j in range(num.shape[1]):
            coords[i, j] = num[i, j]
        for j in range(ordc.shape[1]):
            coords[i, num.shape[1] + j] = ordc[i, j] / ord_size[j]
    tree = build(coords if use_tree else coords[:1])
    stack = np.zeros(8 * n + 64, dtype=np.int64)
    num_c = np.zeros(num.shape[1])
    ord_c = np.zeros(ordc.shape[1], dtype=np.int64)
    nom_c = np.zeros(nomc.shape[1], dtype=np.int64)
    q = np.zeros(coords.shape[1])
    near_d = np.zeros(max(1, k - 1))
    near_i = np.zeros(max(1, k - 1), dtype=np.int64)
    m = n
    label = 0
    while m >= 2 * k:
        kept = 0                                     # 1. drop the used-up records
        for t in range(m):
            if alive[rem[t]]:
                rem[kept] = rem[t]
                kept += 1
        m = kept
        if m < 2 * k:
            break
        _centre(rem, m, num, ordc, ord_size, ord_count, ord_off, nomc, nom_size, nom_count,
                nom_off, num_c, ord_c, nom_c)
        for j in range(num.shape[1]):
            q[j] = num_c[j]
        for j in range(ordc.shape[1]):
            q[num.shape[1] + j] = ord_c[j] / ord_size[j]
        r = _farthest_from(q, (num, num_c, ordc, ord_c, ord_size, nomc, nom_c), rem, m,
                           alive, tree, use_tree, stack)     # 2. r, then s
        from_r = (num, num[r], ordc, ordc[r], ord_size, nomc, nomc[r])
        pair = m >= 3 * k
        s = -1
        if pair:
            s = _farthest_from(coords[r], from_r, rem, m, alive, tree, use_tree, stack)
        _group(r, label, k, rem, m, alive, class_of, num, ordc, ord_size, nomc, coords,
               tree, use_tree, stack, near_d, near_i, ord_count, ord_off, nom_count, nom_off)
        label += 1
        if not pair:
            break
        if not alive[s]:                             # s fell in r's group (equal distances)
            s = _farthest_from(coords[r], from_r, rem, m, alive, tree, use_tree, stack)
        _group(s, label, k, rem, m, alive, class_of, num, ordc, ord_size, nomc, coords,
               tree, use_tree, stack, near_d, near_i, ord_count, ord_off, nom_count, nom_off)
        label += 1
    for i in range(n):                               # the rest: one last group
        if alive[i]:
            class_of[i] = label
    return class_of
