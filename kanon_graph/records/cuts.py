"""Median cuts inside a class: splitting classes of 2k records or more along one attribute.

The refinement's own split (:mod:`~kanon_graph.records.resplit`) re-clusters a
big class by least-cost agglomeration, which often ends in one part again
(parts of ``k - 1`` merge back). :func:`cut_big_classes` instead tries, for
every attribute, the cut of the class's tuples sorted on that attribute (the
others after it) nearest the median that leaves ``k`` records on both sides
-- Mondrian's cut (LeFevre et al. 2006), applied inside one class -- and
keeps the cheapest cut when the two halves cost less than the class. Halves
of ``2k`` records or more are cut again. The total cost never increases.
"""

from __future__ import annotations

import numpy as np

from .costs import _set_cost

__all__ = ["cut_big_classes"]

GAIN = 1e-9
"""A cut must lower the total cost by more than this."""


def _best_cut(members, codes, counts, k, tables):
    """``(gain, left, right)`` of the cheapest median cut of ``members``, or None."""
    whole = _set_cost(members, len(members), codes, counts, tables)
    best = None
    d = codes.shape[1]
    for a in range(d):
        keys = [codes[members, (a + j) % d] for j in range(d)]
        order = members[np.lexsort(keys[::-1])]
        cum = np.cumsum(counts[order])
        total = cum[-1]
        ok = np.flatnonzero((cum >= k) & (total - cum >= k))
        if not len(ok):
            continue
        at = ok[np.argmin(np.abs(cum[ok] - total / 2))]
        left, right = order[:at + 1], order[at + 1:]
        parts = _set_cost(left, len(left), codes, counts, tables) + \
            _set_cost(right, len(right), codes, counts, tables)
        if parts < whole - GAIN and (best is None or whole - parts > best[0]):
            best = (whole - parts, left, right)
    return best


def cut_big_classes(cost, labels, counts, k):
    """Cut every class of ``>= 2k`` records where a median cut lowers the cost.

    Parameters
    ----------
    cost : ClassCost
    labels : ndarray of int (u,)
    counts : ndarray of int (u,)
    k : int

    Returns
    -------
    labels : ndarray of int64 (u,)
        Classes numbered ``0..C-1``.
    cuts : int

    Examples
    --------
    >>> import numpy as np, kanon_graph as kg
    >>> from kanon_graph.records import RecordGraph
    >>> from kanon_graph.records.costs import ClassCost
    >>> data = kg.encode(kg.datasets.paper_003_table(), kg.datasets.paper_003_schema())
    >>> g = RecordGraph(data)
    >>> c = ClassCost(data, g.codes)
    >>> one = np.zeros(g.n_nodes, dtype=np.int64)
    >>> out, cuts = cut_big_classes(c, one, g.counts, 3)
    >>> cuts >= 1, bool(c.of_labels(out, g.counts) < c.of_labels(one, g.counts))
    (True, True)
    """
    codes, tables = cost.codes, cost.tables
    counts = np.asarray(counts, dtype=np.int64)
    labels = np.unique(labels, return_inverse=True)[1].reshape(-1).astype(np.int64)
    sizes = np.bincount(labels, weights=counts)
    order = np.argsort(labels, kind="stable")
    start = np.concatenate([[0], np.cumsum(np.bincount(labels))])
    todo = [order[start[c]:start[c + 1]] for c in np.flatnonzero(sizes >= 2 * k)]
    cuts = 0
    top = int(labels.max()) + 1
    while todo:
        members = todo.pop()
        if len(members) < 2:
            continue
        got = _best_cut(members, codes, counts, k, tables)
        if got is None:
            continue
        _, left, right = got
        labels[right] = top
        top += 1
        cuts += 1
        for half in (left, right):
            if counts[half].sum() >= 2 * k:
                todo.append(half)
    return np.unique(labels, return_inverse=True)[1].reshape(-1).astype(np.int64), cuts
