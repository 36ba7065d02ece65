"""Compiled kernels of the SD greedy algorithm (see :mod:`.paper`).

``_classes`` runs step 3 of Figure 3 (paper 000) on the distinct tuples:
for each class it recomputes the contingency rows and distance matrices
relative to t1, then grows *Merge* one record at a time with ``_grow`` (a
scan of the remaining tuples) or ``_grow_sorted`` (an outward search along
the numeric sort attribute, bounded by the best distance found).
"""

from __future__ import annotations

import numpy as np

from ._contingency import _distance_matrices, _row_counts, njit


@njit(cache=True)
def _start(cat_t, num, rem, matrices, t1, k):
    """Open *Merge* with tuple t1: picks, numeric sums, value membership, distances to it."""
    c = cat_t.shape[0]
    mmax = matrices.shape[1]
    picks = np.empty(k, np.int64)
    picks[0] = t1
    rem[t1] -= 1
    sums = num[t1].copy()
    member = np.zeros((c, mmax), np.bool_)
    catd = np.empty((c, mmax))
    for a in range(c):
        member[a, cat_t[a, t1]] = True
        for w in range(mmax):
            catd[a, w] = matrices[a, cat_t[a, t1], w]
    return picks, sums, member, catd


@njit(cache=True)
def _add_value(matrices, catd, member, a, v):
    """Add value ``v`` of attribute ``a`` to *Merge*; True if it lowered some distance."""
    if member[a, v]:
        return False
    member[a, v] = True
    moved = False
    for w in range(matrices.shape[1]):
        if matrices[a, v, w] < catd[a, w]:
            catd[a, w] = matrices[a, v, w]
            moved = True
    return moved


@njit(cache=True)
def _distance(cat_t, num, catd, mean, t):
    """Distance of tuple ``t`` to the centre of *Merge* (categorical parts, then numeric)."""
    d = 0.0
    for a in range(cat_t.shape[0]):
        d += catd[a, cat_t[a, t]]
    for j in range(num.shape[1]):
        d += abs(num[t, j] - mean[j])
    return d


@njit(cache=True)
def _grow(cat_t, num, rem, alive, matrices, t1, k):
    """Grow *Merge* from t1 to ``k`` records; returns the picked tuple of each record.

    ``cat_t`` is (c, u): codes by attribute. The alive tuples are first
    copied into contiguous local arrays; ``catsum[i]`` holds the categorical
    part of local tuple ``i``'s distance to the centre (``inf`` once its
    records are used up), recomputed only after a step whose new values
    lowered some distance.
    """
    c = cat_t.shape[0]
    n_num = num.shape[1]
    n_alive = alive.shape[0]
    picks, sums, member, catd = _start(cat_t, num, rem, matrices, t1, k)
    # local contiguous copies of the alive tuples
    n_loc = 0
    for i in range(n_alive):
        if rem[alive[i]] > 0:
            n_loc += 1
    ids = np.empty(n_loc, np.int64)
    q = 0
    for i in range(n_alive):
        if rem[alive[i]] > 0:
            ids[q] = alive[i]
            q += 1
    loc_cat = np.empty((c, n_loc), np.int64)
    catsum = np.zeros(n_loc)
    for a in range(c):
        for i in range(n_loc):
            v = cat_t[a, ids[i]]
            loc_cat[a, i] = v
            catsum[i] += catd[a, v]
    loc_num = np.empty((n_num, n_loc))
    for j in range(n_num):
        for i in range(n_loc):
            loc_num[j, i] = num[ids[i], j]
    changed = np.empty(c, np.int64)
    n_changed = 0
    mean = np.empty(n_num)
    for step in range(1, k):
        for j in range(n_num):
            mean[j] = sums[j] / step
        if n_changed:       # recomputed in attribute order: the same sums as a full scan
            for i in range(n_loc):
                if catsum[i] < np.inf:
                    s = 0.0
                    for a in range(c):
                        s += catd[a, loc_cat[a, i]]
                    catsum[i] = s
        best = np.inf
        chosen = -1
        if n_num == 1:
            m0 = mean[0]
            for i in range(n_loc):
                d = catsum[i] + abs(loc_num[0, i] - m0)
                if d < best:
                    best = d
                    chosen = i
        else:
            for i in range(n_loc):
                d = catsum[i]
                for j in range(n_num):
                    d += abs(loc_num[j, i] - mean[j])
                if d < best:
                    best = d
                    chosen = i
        t = ids[chosen]
        picks[step] = t
        rem[t] -= 1
        if rem[t] == 0:
            catsum[chosen] = np.inf
        for j in range(n_num):
            sums[j] += num[t, j]
        n_changed = 0
        for a in range(c):
            if _add_value(matrices, catd, member, a, cat_t[a, t]):
                changed[n_changed] = a
                n_changed += 1
    return picks


@njit(cache=True)
def _grow_sorted(cat_t, num, rem, alive, matrices, t1, k, js):
    """:func:`_grow` when the tuples are sorted on numeric attribute ``js``.

    The distance to the centre is at least ``|x_js - mean_js|``, so each step
    searches outwards from the mean along the sorted values and stops on
    each side once that gap exceeds the best distance found; the tuple with
    the smallest distance (ties: the first in order) is the same as a full
    scan's. Categorical parts are summed per candidate.
    """
    c = cat_t.shape[0]
    n_num = num.shape[1]
    picks, sums, member, catd = _start(cat_t, num, rem, matrices, t1, k)
    n_loc = alive.shape[0]
    mean = np.empty(n_num)
    for step in range(1, k):
        for j in range(n_num):
            mean[j] = sums[j] / step
        centre = mean[js]
        lo, hi = 0, n_loc                  # first alive tuple at or above the centre
        while lo < hi:
            mid = (lo + hi) // 2
            if num[alive[mid], js] < centre:
                lo = mid + 1
            else:
                hi = mid
        right = lo
        left = right - 1
        best = np.inf
        chosen = -1
        while left >= 0 or right < n_loc:
            if right < n_loc:
                if num[alive[right], js] - centre > best:
                    right = n_loc
                else:
                    t = alive[right]
                    if rem[t] > 0:
                        d = _distance(cat_t, num, catd, mean, t)
                        if d < best or (d == best and right < chosen):
                            best = d
                            chosen = right
                    right += 1
            if left >= 0:
                if centre - num[alive[left], js] > best:
                    left = -1
                else:
                    t = alive[left]
                    if rem[t] > 0:
                        d = _distance(cat_t, num, catd, mean, t)
                        if d < best or (d == best and left < chosen):
                            best = d
                            chosen = left
                    left -= 1
        t = alive[chosen]
        picks[step] = t
        rem[t] -= 1
        for j in range(n_num):
            sums[j] += num[t, j]
        for a in range(c):
            _add_value(matrices, catd, member, a, cat_t[a, t])
    return picks


@njit(cache=True)
def _classes(cat, cat_t, num, rem, values, k, js):
    """Step 3 of Figure 3: form ``n // k`` classes; returns the picks, ``k`` per class.

    ``rem`` (records left per tuple) and ``values`` (records left per
    attribute value, the margins of the contingency tables) are updated.
    """
    c = cat.shape[1]
    total = 0
    for t in range(rem.shape[0]):
        total += rem[t]
    n_classes = total // k
    picks = np.empty(n_classes * k, np.int64)
    alive = np.arange(rem.shape[0])
    present = np.empty(values.shape, np.bool_)
    cards = np.empty(c, np.int64)
    head = 0
    n_dead = 0
    gone = np.zeros(rem.shape[0], np.bool_)
    for b in range(n_classes):
        while rem[head] == 0:
            head += 1
        t1 = head
        if 4 * n_dead > alive.shape[0]:
            alive = alive[rem[alive] > 0]
            n_dead = 0
        for a in range(c):
            cards[a] = 0
            for v in range(values.shape[1]):
                present[a, v] = values[a, v] > 0
                cards[a] += present[a, v]
        order = np.argsort(cards, kind="mergesort")
        ref = cat[t1].copy()
        counts, _ = _row_counts(cat, rem, alive, order, ref, float(k), values)
        matrices = _distance_matrices(counts, present, order, ref)
        if js >= 0:
            merge = _grow_sorted(cat_t, num, rem, alive, matrices, t1, k, js)
        else:
            merge = _grow(cat_t, num, rem, alive, matrices, t1, k)
        for q in range(k):
            t = merge[q]
            for a in range(c):
                values[a, cat[t, a]] -= 1
            picks[b * k + q] = t
            if rem[t] == 0 and not gone[t]:
                gone[t] = True
                n_dead += 1
    return picks
