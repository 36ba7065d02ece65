"""Prim's tree through a nearest-outside-neighbour index, for graphs with a continuous attribute.

The plain Prim kernel (:mod:`.mst`) updates every outside node's key at
every step: ``O(u^2 d)`` whatever the data. When one quasi-identifier is
continuous (a :class:`~kanon_graph.records.distances.NumericGap`, ``|x - y|
* scale``) and no distance term is negative, most of those updates can be
ruled out without computing them. This module runs Prim in its
"nearest outside neighbour" form (as in the geometric MSTs of Bentley &
Friedman 1978):

* every inside node ``i`` holds one heap entry ``(d, p, rank(i))``: its
  nearest outside node ``p`` (the smallest index among equals) at distance
  ``d``; ``rank`` is the order in which nodes joined the tree;
* the smallest entry gives the next tree edge ``(i, p)``, unless ``p`` has
  joined meanwhile: the entry is then recomputed and pushed again. The
  outside set only shrinks, so a stale entry is a lower bound of the fresh
  one and the recomputation is lazy (done when the entry reaches the top);
* a nearest-outside query scans the nodes *bucket by bucket* (the buckets
  are the distinct tuples of a few small-domain matrix attributes, whose
  distance term is then one look-up per bucket), buckets in increasing
  order of that term, and within a bucket the outside nodes in order of
  the continuous value, outward from the query's, stopping as soon as
  ``bucket term + |x - x_i| * scale`` exceeds the best distance found
  (every other term is ``>= 0``). Joined nodes are skipped in ``O(1)``
  amortized (union-find "next alive" pointers with path compression).

The entries are compared as ``(d, p, rank)``: the smallest weight, then the
smallest node, then the earliest parent -- the plain kernel's rules (the
smallest index among ties, the earlier parent kept), so the two return the
same tree, edge for edge and in the same order, up to weights that differ by
less than :data:`~kanon_graph.records._terms.TIE` without being equal (the
plain kernel takes those as ties; here they are ordered). Distances are
summed attribute by attribute in the plain kernel's order, so weights are
bit-identical.

The cost depends on the data, not only on ``u``: on issue 17's patients
(zip, date of birth, sex, income) every query reads a few hundred nodes at
any ``u``, so the tree grows about as ``u log u``. When the bounds prune
nothing, it gives up after as many distances as the plain kernel computes
and the caller runs the plain kernel instead.

References
----------
.. [P] Prim, "Shortest connection networks and some generalizations" (1957).
.. [BF] Bentley & Friedman, "Fast algorithms for constructing minimal spanning
   trees in coordinate spaces", IEEE Trans. Computers C-27 (1978).
"""

from __future__ import annotations

import numpy as np

from .._jit import njit
from ._terms import TIE, _level_term   # a bound must clear the best by TIE to prune

__all__ = ["indexed_prim", "MAX_BUCKETS"]

MAX_BUCKETS = 1024
"""At most this many buckets (distinct tuples of the bucket attributes)."""



def _dist(codes, i, j, kind, flat, off, width, scale, weights, woff):
    """The plain Prim kernel's distance from inside ``i`` to outside ``j``, term by term."""
    d = codes.shape[1]
    dist = 0.0
    for a in range(d):
        k = kind[a]
        if k == 0:
            dist += flat[off[a] + codes[i, a] * width[a] + codes[j, a]]
        elif k == 1:
            dist += abs(flat[off[a] + codes[j, a]] - flat[off[a] + codes[i, a]]) * scale[a]
        else:
            dist += _level_term(k, flat, off[a], width[a], scale[a], weights, woff[a],
                                codes[i, a], codes[j, a])
    return dist


def _find(nxt, dead, pos):
    """The first alive position from ``pos`` following ``nxt`` (path compression)."""
    root = pos
    while dead[root]:
        root = nxt[root]
    while pos != root:
        step = nxt[pos]
        nxt[pos] = root
        pos = step
    return root


def _nearest(i, codes, kind, flat, off, width, scale, weights, woff, xs, xsorted, xscale, order,
             bucket, bstart, bend, blb, targets, alive, dead, right, left, work):
    """The nearest outside node of ``i`` (smallest index among equals): ``(d, p)``.

    ``work[0]`` counts the distances computed.
    """
    u = codes.shape[0]
    best = np.inf
    best_id = u
    b = bucket[i]
    xi = xs[i]
    for t_pos in range(targets.shape[1]):
        t = targets[b, t_pos]
        lb = blb[b, t]
        if lb > best + TIE:
            break
        if alive[t] == 0:
            continue
        lo, hi = bstart[t], bend[t]
        q = lo + np.searchsorted(xsorted[lo:hi], xi)
        pos = _find(right, dead, q + 1) - 1             # positions are shifted by one
        while pos < hi:
            if lb + abs(xsorted[pos] - xi) * xscale > best + TIE:
                break
            j = order[pos]
            dj = _dist(codes, i, j, kind, flat, off, width, scale, weights, woff)
            work[0] += 1
            if dj < best - TIE or (dj <= best + TIE and j < best_id):
                best, best_id = dj, j
            pos = _find(right, dead, pos + 2) - 1
        pos = _find(left, dead, q) - 1                  # q - 1, shifted by one
        while pos >= lo:
            if lb + abs(xsorted[pos] - xi) * xscale > best + TIE:
                break
            j = order[pos]
            dj = _dist(codes, i, j, kind, flat, off, width, scale, weights, woff)
            work[0] += 1
            if dj < best - TIE or (dj <= best + TIE and j < best_id):
                best, best_id = dj, j
            pos = _find(left, dead, pos) - 1
    return best, best_id


def _less(hd, hp, hr, a, b):
    """Entry ``a`` before ``b``: the lighter (by more than TIE), then the smaller node and rank."""
    if hd[a] < hd[b] - TIE:
        return True
    if hd[a] > hd[b] + TIE:
        return False
    return hp[a] < hp[b] or (hp[a] == hp[b] and hr[a] < hr[b])


def _swap(hd, hp, hr, hi, a, b):
    hd[a], hd[b] = hd[b], hd[a]
    hp[a], hp[b] = hp[b], hp[a]
    hr[a], hr[b] = hr[b], hr[a]
    hi[a], hi[b] = hi[b], hi[a]


def _push(hd, hp, hr, hi, size, d, p, r, i):
    hd[size], hp[size], hr[size], hi[size] = d, p, r, i
    c = size
    while c > 0:
        parent = (c - 1) // 2
        if not _less(hd, hp, hr, c, parent):
            break
        _swap(hd, hp, hr, hi, c, parent)
        c = parent
    return size + 1


def _pop(hd, hp, hr, hi, size):
    """Move the smallest entry to position ``size - 1`` and restore the heap before it."""
    size -= 1
    _swap(hd, hp, hr, hi, 0, size)
    c = 0
    while True:
        small = c
        for child in (2 * c + 1, 2 * c + 2):
            if child < size and _less(hd, hp, hr, child, small):
                small = child
        if small == c:
            break
        _swap(hd, hp, hr, hi, c, small)
        c = small
    return size


def _kill(v, pos_of, dead, alive, bucket):
    """Node ``v`` joins the tree: its position is no longer alive in either direction."""
    dead[pos_of[v] + 1] = True
    alive[bucket[v]] -= 1


def _indexed_prim_py(codes, kind, flat, off, width, scale, weights, woff, xs, xscale, order,
                     pos_of, bucket, bstart, bend, blb, targets, budget):
    """The index's Prim (module docstring); ``ok`` False when it computed more than ``budget``
    distances."""
    u = codes.shape[0]
    xsorted = xs[order]
    out_u = np.empty(max(u - 1, 0), dtype=np.int64)
    out_v = np.empty(max(u - 1, 0), dtype=np.int64)
    out_w = np.empty(max(u - 1, 0), dtype=np.float64)
    # positions 1..u are the nodes in bucket / value order; 0 and u + 1 are alive sentinels
    dead = np.zeros(u + 2, dtype=np.bool_)
    right = np.arange(1, u + 3)
    left = np.arange(-1, u + 1)
    alive = np.bincount(bucket, minlength=bstart.shape[0]).astype(np.int64)
    hd = np.empty(u)
    hp = np.empty(u, dtype=np.int64)
    hr = np.empty(u, dtype=np.int64)
    hi = np.empty(u, dtype=np.int64)
    rank = np.zeros(u, dtype=np.int64)
    inside = np.zeros(u, dtype=np.bool_)
    inside[0] = True
    _kill(0, pos_of, dead, alive, bucket)
    size = 0
    work = np.zeros(1, dtype=np.int64)
    index = (xs, xsorted, xscale, order, bucket, bstart, bend, blb, targets, alive, dead, right,
             left, work)
    d0, p0 = _nearest(0, codes, kind, flat, off, width, scale, weights, woff, *index)
    if p0 < u:
        size = _push(hd, hp, hr, hi, size, d0, p0, 0, 0)
    edges = 0
    while edges < u - 1:
        if work[0] > budget:            # the bounds do not prune: leave it to the plain kernel
            return out_u[:0], out_v[:0], out_w[:0], False
        size = _pop(hd, hp, hr, hi, size)
        d, p, i = hd[size], hp[size], hi[size]
        if not inside[p]:
            out_u[edges], out_v[edges], out_w[edges] = i, p, d
            edges += 1
            inside[p] = True
            rank[p] = edges
            _kill(p, pos_of, dead, alive, bucket)
            dp, pp = _nearest(p, codes, kind, flat, off, width, scale, weights, woff, *index)
            if pp < u:
                size = _push(hd, hp, hr, hi, size, dp, pp, rank[p], p)
        di, pi = _nearest(i, codes, kind, flat, off, width, scale, weights, woff, *index)
        if pi < u:
            size = _push(hd, hp, hr, hi, size, di, pi, rank[i], i)
    return out_u, out_v, out_w, True


_dist = njit(cache=True)(_dist)
_find = njit(cache=True)(_find)
_nearest = njit(cache=True)(_nearest)
_less = njit(cache=True)(_less)
_swap = njit(cache=True)(_swap)
_push = njit(cache=True)(_push)
_pop = njit(cache=True)(_pop)
_kill = njit(cache=True)(_kill)
_indexed_prim = njit(cache=True, nogil=True)(_indexed_prim_py)


def _plan(parts, codes, kind, max_buckets):
    """``(sorted attribute, bucket attributes)`` or None when the index cannot prune."""
    from .distances import NumericGap

    numeric = [a for a, part in enumerate(parts) if isinstance(part, NumericGap)]
    if not numeric:
        return None
    # the continuous attribute with the most distinct values among the nodes
    sort_attr = max(numeric, key=lambda a: (len(np.unique(codes[:, a])), -a))
    # matrix attributes, the largest smallest gap between two different codes first
    gains = []
    for a, part in enumerate(parts):
        if kind[a] != 0 or part.shape[0] < 2:
            continue
        present = np.unique(codes[:, a])
        sub = part[np.ix_(present, present)]
        off_diag = sub[~np.eye(len(present), dtype=bool)]
        if off_diag.size and off_diag.min() > 0:
            gains.append((-float(off_diag.min()), a))
    chosen = []
    for _, a in sorted(gains):
        trial = chosen + [a]
        if len(np.unique(codes[:, trial], axis=0)) <= max_buckets:
            chosen = trial
    return sort_attr, chosen


def indexed_prim(codes, parts, flat_parts, *, max_buckets=MAX_BUCKETS, max_distances=None):
    """Prim's tree of the record graph through a nearest-outside-neighbour index.

    Parameters
    ----------
    codes : ndarray of int, shape (u, d)
        The nodes' code tuples.
    parts : list
        Per attribute: an ``(m, m)`` matrix, a NumericGap or a LevelGap
        (:attr:`RecordGraph.parts`); every term must be ``>= 0``.
    flat_parts : tuple
        ``(kind, flat, off, width, scale, weights, woff)`` of
        :func:`kanon_graph.records.mst._flatten` for ``parts``.
    max_buckets : int
        At most this many buckets.
    max_distances : int, optional
        Give up (return ``None``) after computing more distances than this;
        default ``u (u - 1) / 2``, what the plain kernel computes.

    Returns
    -------
    (u, v, w) or None
        The tree edges in the order Prim adds them (parent, child, weight),
        as the plain kernel returns them; ``None`` when no attribute is a
        NumericGap (the index has nothing to sort by), or when the bounds
        prune so little that it has computed more than ``max_distances``
        distances: so it never costs much more than the plain kernel.

    Examples
    --------
    >>> import numpy as np
    >>> from kanon_graph.records.distances import NumericGap
    >>> from kanon_graph.records.mst import _flatten, _prim_kernel
    >>> parts = [NumericGap(np.array([0.0, 1.0, 3.0, 7.0]), 0.5), 1.0 - np.eye(2)]
    >>> codes = np.array([[0, 0], [3, 1], [1, 0], [2, 1]])
    >>> tree = indexed_prim(codes, parts, _flatten(parts))
    >>> [t.tolist() for t in tree]          # (parent, child, weight) in Prim's order
    [[0, 2, 3], [2, 3, 1], [0.5, 2.0, 2.0]]
    >>> all((a == b).all() for a, b in zip(tree, _prim_kernel(codes, *_flatten(parts), True)))
    True
    """
    codes = np.ascontiguousarray(codes, dtype=np.int64)
    kind, flat, off, width, scale, weights, woff = flat_parts
    plan = _plan(parts, codes, kind, max_buckets)
    if plan is None:
        return None
    s, chosen = plan
    xs = np.asarray(parts[s].values, dtype=float)[codes[:, s]]
    u = codes.shape[0]
    if chosen:
        combos, bucket = np.unique(codes[:, chosen], axis=0, return_inverse=True)
        bucket = bucket.reshape(-1).astype(np.int64)
    else:
        combos, bucket = np.zeros((1, 0), dtype=np.int64), np.zeros(u, dtype=np.int64)
    n_b = len(combos)
    blb = np.zeros((n_b, n_b))
    for col, a in enumerate(chosen):
        blb += parts[a][np.ix_(combos[:, col], combos[:, col])]
    targets = np.argsort(blb, axis=1, kind="stable").astype(np.int64)
    order = np.lexsort((np.arange(u), xs, bucket)).astype(np.int64)
    pos_of = np.empty(u, dtype=np.int64)
    pos_of[order] = np.arange(u)
    bend = np.cumsum(np.bincount(bucket, minlength=n_b)).astype(np.int64)
    bstart = (bend - np.bincount(bucket, minlength=n_b)).astype(np.int64)
    budget = u * (u - 1) // 2 if max_distances is None else int(max_distances)
    u_, v_, w_, ok = _indexed_prim(codes, kind, flat, off, width, scale, weights, woff, xs,
                                   float(parts[s].scale), order, pos_of, bucket, bstart, bend,
                                   blb, targets, budget)
    return (u_, v_, w_) if ok else None
