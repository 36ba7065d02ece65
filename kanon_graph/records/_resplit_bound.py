"""Which classes a split could make cheaper: a bound that spares most agglomerations.

:func:`~kanon_graph.records.resplit.split_big_classes` re-clusters a class of
``2k`` records or more and keeps the split when its parts, each of at least
``k`` records, cost less than the whole. Under ARX's Loss with a hierarchy on
every attribute (or GCP / NCP: any cost ``|E| * sum_a cell_a(E)`` whose cell
is that of the class's lowest common ancestor), a part costs less per record
than the whole only when its values share a lower ancestor on some attribute
``a``: all of its records lie under one child of the class's common ancestor
there. So unless some child holds ``k`` of the class's records on some
attribute, every part of ``k`` records or more costs exactly the whole's cost
per record, and no split lowers the total: :func:`may_split` tells those
classes apart in a few vectorized passes, without running the agglomeration
(on the patients table, 20,000 rows, it leaves 5 or 6 of 214 to 539 classes
per call). A numeric range or a set of values (no hierarchy), or the
discernibility metric (``|E|^2``, lowered by any split), gives no such bound:
every class is then kept.

``tests/records/test_resplit_bound.py`` checks on random classes that every
class the agglomeration would split is one :func:`may_split` keeps.
"""

from __future__ import annotations

import numpy as np

__all__ = ["may_split"]


def may_split(order, start, classes, counts, k, codes, tables):
    """Per class of ``classes``: whether some child of its common ancestor holds ``k`` records.

    Parameters
    ----------
    order, start : ndarray of int
        The nodes class by class, class ``c`` at ``order[start[c]:start[c + 1]]``.
    classes : ndarray of int
        The classes asked about (each of at least one node).
    counts : ndarray of int
        Records per node.
    k : int
    codes : ndarray (u, d)
    tables : tuple
        :attr:`~kanon_graph.records.costs.ClassCost.tables`.

    Returns
    -------
    ndarray of bool
        False only where no split into parts of ``k`` records or more can
        cost less than the class (see the module docstring).
    """
    kind, nlev, width, off, anc = tables[:5]
    mode = tables[11]
    classes = np.asarray(classes, dtype=np.int64)
    if mode != 0 or (np.asarray(kind) != 0).any() or not len(classes):
        return np.ones(len(classes), dtype=bool)
    sizes = start[classes + 1] - start[classes]
    starts = np.concatenate([[0], np.cumsum(sizes)])[:-1]
    # the members of the classes asked about, class after class
    members = order[np.repeat(start[classes] - starts, sizes) + np.arange(int(sizes.sum()))]
    of = np.repeat(np.arange(len(classes)), sizes)
    weight = np.asarray(counts, dtype=np.int64)[members]
    out = np.zeros(len(classes), dtype=bool)
    for a in range(len(kind)):
        m, base, top = int(width[a]), int(off[a]), int(nlev[a]) - 1
        x = codes[members, a]
        level = np.full(len(classes), top, dtype=np.int64)
        open_ = np.ones(len(classes), dtype=bool)
        for lev in range(top):            # the lowest level where the class shares one node
            at = anc[base + lev * m + x]
            same = np.minimum.reduceat(at, starts) == np.maximum.reduceat(at, starts)
            level[open_ & same] = lev
            open_ &= ~same
            if not open_.any():
                break
        below = level[of] > 0             # a class of one value on ``a`` gains nothing there
        if not below.any():
            continue
        child = anc[base + (level[of][below] - 1) * m + x[below]]
        keys, inverse = np.unique(of[below] * m + child, return_inverse=True)
        held = np.bincount(inverse.reshape(-1), weights=weight[below])
        out[keys[held >= k] // m] = True
    return out
