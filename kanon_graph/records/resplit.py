"""Splitting classes of 2k records or more, the refinement's second kind of step.

:func:`split_big_classes` re-clusters the tuples of every such class by the
least-cost agglomeration of :mod:`~kanon_graph.records.adjacent` (over all
pairs of its tuples when few, else over the neighbour edges inside it) and
keeps the split when its parts, each of at least ``k`` records, cost less
than the whole. Only classes whose members changed since their last try
are looked at.
"""

from __future__ import annotations

import numpy as np

from .adjacent import _agglomerate
from ._resplit_bound import may_split
from ._layout import _class_order
from .costs import _set_cost
from .mst import HAVE_NUMBA

from .._jit import njit  # numba loads on a kernel's first call

__all__ = ["split_big_classes", "SPLIT_PAIRS"]

GAIN = 1e-9
"""A split must lower the total cost by more than this."""

SPLIT_PAIRS = 2000
"""Largest number of tuple pairs a class split considers (larger classes use ``eu, ev``)."""


def _split_parts_py(local, members, codes, counts, tables):
    """Compact ``local`` (labels of ``members``) in place; return (parts, cost of the parts).

    Parts are numbered by first appearance; their total cost is the sum of
    :func:`~kanon_graph.records.costs.set_cost` over them.
    """
    m = local.shape[0]
    rename = np.full(m, -1, dtype=np.int64)
    parts = 0
    for i in range(m):
        if rename[local[i]] < 0:
            rename[local[i]] = parts
            parts += 1
        local[i] = rename[local[i]]
    buf = np.empty(m, dtype=np.int64)
    total = 0.0
    for p in range(parts):
        n = 0
        for i in range(m):
            if local[i] == p:
                buf[n] = members[i]
                n += 1
        total += _set_cost(buf, n, codes, counts, tables)
    return parts, total


_split_parts = njit(cache=True)(_split_parts_py) if HAVE_NUMBA else _split_parts_py


def split_big_classes(labels, counts, k, codes, tables, tried, eu, ev, candidates=None):
    """Split every class of >= 2k records and >= 2 tuples whose least-cost split is cheaper.

    Only the classes in ``candidates`` (all when ``None``) are looked at: a
    class whose members did not change since it was last tried would split
    the same way. ``tried`` holds the member sets already tried without
    success. Returns the labels of the classes split and created.
    """
    changed = []
    sizes = np.bincount(labels, weights=counts)
    nodes_per = np.bincount(labels)
    big = (sizes >= 2 * k) & (nodes_per >= 2)
    if candidates is not None:
        keep = np.zeros(len(big), dtype=bool)
        keep[np.asarray(candidates, dtype=np.int64)] = True
        big &= keep
    if not big.any():
        return changed
    order, start = _class_order(labels, len(nodes_per))   # the stable argsort, O(u)
    local_of = None
    classes = np.flatnonzero(big)
    # a class no part of k records can make cheaper is not agglomerated (_resplit_bound)
    for c in classes[may_split(order, start, classes, counts, k, codes, tables)]:
        members = order[start[c]:start[c + 1]]
        key = members.tobytes()
        if key in tried or counts[members].max() >= sizes[c] - k + 1:
            continue                                   # one tuple leaves no room for a second class
        tried.add(key)
        m = len(members)
        if m * (m - 1) // 2 <= SPLIT_PAIRS:
            i, j = _pairs(m)
        else:
            if local_of is None:
                local_of = np.full(len(labels), -1, dtype=np.int64)
            local_of[members] = np.arange(m)
            inside = (local_of[eu] >= 0) & (local_of[ev] >= 0)
            i, j = local_of[eu[inside]], local_of[ev[inside]]
            local_of[members] = -1
        sub_codes = codes[members]
        sub_counts = counts[members]
        local, _ = _agglomerate(np.arange(m, dtype=np.int64), i, j, np.zeros(m, dtype=np.bool_),
                                int(k), np.zeros(m, dtype=np.int64), sub_codes, sub_counts,
                                tables)
        n_parts, parts = _split_parts(local, np.arange(m, dtype=np.int64), sub_codes,
                                      sub_counts, tables)
        if n_parts < 2 or np.bincount(local, weights=sub_counts).min() < k:
            continue
        whole = _set_cost(np.arange(m, dtype=np.int64), m, sub_codes, sub_counts, tables)
        if parts < whole - GAIN:
            top = labels.max() + 1
            labels[members] = np.where(local == 0, c, top + local - 1)
            changed += [c] + list(range(top, top + n_parts - 1))
    return changed


_PAIRS = {}


def _pairs(m):
    """``np.triu_indices(m, 1)`` as int64, cached (classes are split again and again)."""
    if m not in _PAIRS:
        i, j = np.triu_indices(m, 1)
        _PAIRS[m] = (i.astype(np.int64), j.astype(np.int64))
    return _PAIRS[m]
