"""Layouts and orders of the refinement's rounds (:mod:`~kanon_graph.records.refine`).

At a million distinct tuples a round of the refinement was bound by memory, not
arithmetic (about 12 us per tuple against 2.5 us at 80,000). These helpers give the
same values in layouts that read less memory: a code's ancestors side by side, the
nodes class by class by one counting sort, and only the gaining moves sorted.
Each is compared with its plain form on random inputs (``tests/records/test_code_major.py``).
"""

from __future__ import annotations

import numpy as np

from .._jit import HAVE_NUMBA, njit  # numba loads on a kernel's first call

__all__ = ["code_major"]

GAIN = 1e-9
"""A move must lower the total cost by more than this (the refinement's threshold)."""


def code_major(tables):
    """The hierarchy tables ``anc`` and ``cell`` laid out code by code.

    ``tables`` store a hierarchy attribute level by level (``anc[off + L * width + x]``):
    the ancestors of one code lie ``width`` apart, a cache miss per level on a wide
    hierarchy. The copies returned hold them side by side, ``anc_t[off + x * nlev + L]``
    (same offsets, same size per attribute), so that walking up from a code reads one
    line. Other attributes' entries are left as they are (unused).
    """
    kind, nlev, width, off, anc, cell = tables[:6]
    anc_t, cell_t = anc.copy(), cell.copy()
    for a in range(len(kind)):
        if kind[a] != 0:
            continue
        base, h, m = int(off[a]), int(nlev[a]), int(width[a])
        span = slice(base, base + h * m)
        anc_t[span] = anc[span].reshape(h, m).T.ravel()
        cell_t[span] = cell[span].reshape(h, m).T.ravel()
    return anc_t, cell_t


def _class_order(labels, n_classes):
    """The nodes class by class (``np.argsort(labels, kind="stable")``) and each class's
    ``start`` in that order, by one counting sort: ``O(u)`` where the sort was ``O(u log u)``."""
    u = labels.shape[0]
    start = np.zeros(n_classes + 1, dtype=np.int64)
    for x in range(u):
        start[labels[x] + 1] += 1
    for c in range(n_classes):
        start[c + 1] += start[c]
    order = np.empty(u, dtype=np.int64)
    fill = start[:-1].copy()
    for x in range(u):
        order[fill[labels[x]]] = x
        fill[labels[x]] += 1
    return order, start


def _ranked(gain):
    """The nodes whose move gains more than ``GAIN``, best gain first, ties by the lower
    node (``np.lexsort((arange, -gain))`` filtered after it); only those few are sorted."""
    ranked = np.flatnonzero(gain > GAIN)
    return ranked[np.lexsort((ranked, -gain[ranked]))]



def _neighbours_of_pairs(eu, ev, n_nodes):
    """CSR ``(ptr, adj)`` of :func:`~kanon_graph.records.refine.node_neighbours` in ``O(E)``
    when the edges are pairs ``eu < ev`` sorted by ``(eu, ev)`` without repeats (what
    :func:`~kanon_graph.records.neighbours.block_edges` returns): a node's lower neighbours
    (pairs where it is ``ev``, met in ascending ``eu``) then its higher ones (its own
    run of ``ev``, ascending) are its neighbours in ascending order, so one counting
    pass replaces the sort of ``2 E`` keys."""
    ptr = np.zeros(n_nodes + 1, dtype=np.int64)
    for e in range(eu.shape[0]):
        ptr[eu[e] + 1] += 1
        ptr[ev[e] + 1] += 1
    for x in range(n_nodes):
        ptr[x + 1] += ptr[x]
    fill = ptr[:-1].copy()
    adj = np.empty(2 * eu.shape[0], dtype=np.int64)
    for e in range(eu.shape[0]):           # lower neighbours, ascending
        adj[fill[ev[e]]] = eu[e]
        fill[ev[e]] += 1
    for e in range(eu.shape[0]):           # then higher ones, ascending
        adj[fill[eu[e]]] = ev[e]
        fill[eu[e]] += 1
    return ptr, adj


def _class_order_work(labels, n_classes):
    return 2 * len(labels) + int(n_classes)


def _neighbours_work(eu, ev, n_nodes):
    return 3 * len(eu) + int(n_nodes)


if HAVE_NUMBA:      # small calls run as Python: a first run need not compile them
    _class_order = njit(cache=True, work=_class_order_work)(_class_order)
    _neighbours_of_pairs = njit(cache=True, work=_neighbours_work)(_neighbours_of_pairs)
