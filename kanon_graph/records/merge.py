"""Merging small equivalence classes by least NCP (paper 003, section 6, lines 15-21).

Every class is summarized per quasi-identifier so that NCP(C u C') of any
pair is computed in O(d) without touching the records:

* with a hierarchy: the level of the class's lowest common ancestor and one
  leaf under it; the union's ancestor is found by climbing both leaves from
  the higher of the two levels, and its cost is read from a (level, leaf)
  table;
* numeric without a hierarchy: the class's min and max value;
* categorical without a hierarchy: the set of values as a bitset.

A scan for the best partner of one class is then O(classes * d), so the
whole loop is O(classes^2 * d) at worst, independent of the number of
records. The scan is compiled with numba when available (pure Python
otherwise, which is fine for small tables only).

References
----------
.. [003] Venkata Ramana & Valli Kumari, "Graph based local recoding for data
   anonymization" (2013), section 6 (algorithm lines 15-21), eq. (5)-(6).
"""

from __future__ import annotations

import numpy as np

from ..recoding._release import class_lca
from .mst import HAVE_NUMBA

__all__ = ["ClassSummaries", "merge_small_classes"]

TIE = 1e-9
"""Merge costs closer than this are equal (ties go to the smaller class index)."""

from .._jit import njit  # numba loads on a kernel's first call

def _node_costs(attr):
    """NCP (eq. 5-6) of every node of the attribute's hierarchy, one array per level."""
    h = attr.hierarchy
    leaves = h.leaf_values if attr.kind == "numeric" else None
    span = float(leaves.max() - leaves.min()) if leaves is not None else 0.0
    out = []
    for l in range(h.height + 1):
        count = h.leaf_counts[l]
        if leaves is not None:
            lo = np.full(len(count), np.inf)
            hi = np.full(len(count), -np.inf)
            np.minimum.at(lo, h.level_map[l], leaves)
            np.maximum.at(hi, h.level_map[l], leaves)
            out.append((hi - lo) / span if span > 0 else np.zeros(len(count)))
        else:
            out.append(np.where(count <= 1, 0.0, count / h.n_leaves))
    return out


class ClassSummaries:
    """Per-class, per-attribute summaries of a set of initial classes.

    Parameters
    ----------
    data : EncodedTable
    codes : ndarray (u, d)
        Code tuples of the graph nodes.
    class_of_node : ndarray (u,)
        Initial class of every node, ``0..C-1``.
    counts : ndarray (u,)
        Multiplicity of every node.
    cell_of_node : ndarray (u,), optional
        MAGVal cell of every node (:func:`kanon_graph.recoding.magval_cells`);
        classes of different cells are never merged (generalization
        boundaries). Every initial class must lie in one cell.

    Attributes
    ----------
    size : ndarray (C,)
        Records per class.
    anc, lev : ndarray
        Hierarchical attributes: ``anc[c, toff[a] + L]`` is the node at level
        ``L`` above a leaf of class ``c``; ``lev[c, a]`` the level of the
        class's lowest common ancestor. ``ncost[noff[toff[a] + L] + node]``
        is that node's NCP.
    lo, hi : ndarray (C, dn)
        Numeric attributes without a hierarchy: the class's range.
    bits : ndarray of uint64 (C, words)
        Categorical attributes without a hierarchy: the class's value set.
    cell : ndarray (C,)
        MAGVal cell of every class (all zeros without boundaries).
    """

    def __init__(self, data, codes, class_of_node, counts, cell_of_node=None):
        n_classes = int(class_of_node.max(initial=-1)) + 1
        self.size = np.bincount(class_of_node, weights=counts,
                                minlength=n_classes).astype(np.int64)
        first = np.full(n_classes, -1, dtype=np.int64)
        first[class_of_node[::-1]] = np.arange(len(class_of_node))[::-1]
        self.cell = (np.zeros(n_classes, dtype=np.int64) if cell_of_node is None
                     else np.asarray(cell_of_node, dtype=np.int64)[first])
        anc, toff, nlev, lev, ncost, noff = [], [], [], [], [], []
        lo, hi, scale = [], [], []
        words, word_off, n_words, width = [], [], [], []
        t_pos = c_pos = w_pos = 0
        for a, attr in enumerate(data.attributes):
            col = codes[:, a]
            if attr.hierarchy is not None:
                h = attr.hierarchy
                toff.append(t_pos)
                nlev.append(h.height + 1)
                rep = col[first]
                for l, cost in enumerate(_node_costs(attr)):
                    anc.append(h.level_map[l][rep])
                    noff.append(c_pos)
                    ncost.append(cost)
                    c_pos += len(cost)
                t_pos += h.height + 1
                lev.append(class_lca(h.level_map, col, class_of_node, n_classes)[0])
            elif attr.kind == "numeric":
                values = np.zeros(attr.n_codes)
                values[attr.codes] = attr.values
                span = float(values.max() - values.min()) if attr.n_codes else 0.0
                scale.append(1.0 / span if span > 0 else 0.0)
                low = np.full(n_classes, np.inf)
                high = np.full(n_classes, -np.inf)
                np.minimum.at(low, class_of_node, values[col])
                np.maximum.at(high, class_of_node, values[col])
                lo.append(low)
                hi.append(high)
            else:
                n_w = (attr.n_codes + 63) // 64
                block = np.zeros((n_classes, n_w), dtype=np.uint64)
                bit = np.left_shift(np.uint64(1), (col % 64).astype(np.uint64))
                np.bitwise_or.at(block, (class_of_node, col // 64), bit)
                words.append(block)
                word_off.append(w_pos)
                n_words.append(n_w)
                width.append(attr.n_codes)
                w_pos += n_w

        def stack(columns, dtype):
            if not columns:
                return np.zeros((n_classes, 0), dtype=dtype)
            return np.ascontiguousarray(np.column_stack(columns).astype(dtype))

        ints = (lambda x: np.asarray(x, dtype=np.int64))
        self.anc, self.lev = stack(anc, np.int64), stack(lev, np.int64)
        self.toff, self.nlev, self.noff = ints(toff), ints(nlev), ints(noff)
        self.ncost = np.concatenate(ncost) if ncost else np.zeros(0)
        self.lo, self.hi = stack(lo, float), stack(hi, float)
        self.scale = np.asarray(scale, dtype=float)
        self.bits = (np.ascontiguousarray(np.hstack(words)) if words
                     else np.zeros((n_classes, 0), dtype=np.uint64))
        self.word_off, self.n_words = ints(word_off), ints(n_words)
        self.width = np.asarray(width, dtype=float)

    def arrays(self):
        return (self.cell, self.anc, self.toff, self.nlev, self.lev, self.ncost, self.noff, self.lo,
                self.hi, self.scale, self.bits, self.word_off, self.n_words, self.width)


def _popcount(x):
    count = 0
    while x:
        x &= x - np.uint64(1)
        count += 1
    return count


def _union_level(anc, toff, nlev, lev, a, c, o):
    """Level of the lowest common ancestor of classes c and o on hierarchical attribute a."""
    level = max(lev[c, a], lev[o, a])
    base = toff[a]
    top = nlev[a] - 1
    while level < top and anc[c, base + level] != anc[o, base + level]:
        level += 1
    return level


def _make_merge_pass(with_cells):
    """The pass below, with the MAGVal-cell test compiled in or out (``with_cells``)."""

    def _merge_pass(order, k, k_mode, alive, into, size, cell, anc, toff, nlev, lev, ncost,
                    noff, lo, hi, scale, bits, word_off, n_words, width):
        """One pass of lines 16-20 over the classes in ``order``; returns merges made.

        The live classes are kept in a compact list (a merged-away class is
        swapped out). NCP(C u C') is summed attribute by attribute and a
        candidate is dropped as soon as its partial sum exceeds the best so far
        (every term is >= 0); costs within ``TIE`` of each other tie, and ties go
        to the smaller class index (so the result does not depend on the order
        in which floating-point terms were added). Only classes of the same
        MAGVal ``cell`` are candidates (generalization boundaries); a class with
        no candidate is left as it is.
        """
        n_classes = size.shape[0]
        dh, dn, dc = lev.shape[1], lo.shape[1], word_off.shape[0]
        touched = np.zeros(n_classes, dtype=np.bool_)
        live = np.flatnonzero(alive)
        where = np.full(n_classes, -1, dtype=np.int64)
        for p in range(live.shape[0]):
            where[live[p]] = p
        n_live = live.shape[0]
        merges = 0
        for idx in range(order.shape[0]):
            c = order[idx]
            if not alive[c] or (k_mode and size[c] >= k) or (not k_mode and touched[c]):
                continue
            best = n_classes
            best_cost = np.inf
            for p in range(n_live):
                o = live[p]
                if o == c or cell[o] != cell[c]:
                    continue
                total = 0.0
                for a in range(dh):
                    level = _union_level(anc, toff, nlev, lev, a, c, o)
                    total += ncost[noff[toff[a] + level] + anc[c, toff[a] + level]]
                    if total > best_cost + TIE:
                        break
                if total > best_cost + TIE:
                    continue
                for a in range(dn):
                    total += (max(hi[c, a], hi[o, a]) - min(lo[c, a], lo[o, a])) * scale[a]
                for a in range(dc):
                    count = 0
                    for w in range(word_off[a], word_off[a] + n_words[a]):
                        count += _popcount(bits[c, w] | bits[o, w])
                    if count > 1:
                        total += count / width[a]
                if total < best_cost - TIE or (total <= best_cost + TIE and o < best):
                    best_cost = total
                    best = o
            if best == n_classes:
                continue
            # C is merged into C': C' takes the union's summary
            for a in range(dh):
                lev[best, a] = _union_level(anc, toff, nlev, lev, a, c, best)
            for a in range(dn):
                lo[best, a] = min(lo[best, a], lo[c, a])
                hi[best, a] = max(hi[best, a], hi[c, a])
            for w in range(bits.shape[1]):
                bits[best, w] |= bits[c, w]
            size[best] += size[c]
            alive[c] = False
            into[c] = best
            touched[best] = True
            n_live -= 1
            moved = live[n_live]
            live[where[c]] = moved
            where[moved] = where[c]
            merges += 1
        return merges

    return _merge_pass


if HAVE_NUMBA:
    _popcount = njit(cache=True, inline="always")(_popcount)
    _union_level = njit(cache=True, inline="always")(_union_level)
    _merge_pass_free = njit(cache=True)(_make_merge_pass(False))
    _merge_pass_cells = njit(cache=True)(_make_merge_pass(True))
else:  # pragma: no cover
    _merge_pass_free, _merge_pass_cells = _make_merge_pass(False), _make_merge_pass(True)


def _resolve(into):
    """Final class of every initial class, following the merge pointers."""
    final = np.arange(len(into))
    while True:
        step = np.where(into[final] >= 0, into[final], final)
        if np.array_equal(step, final):
            return final
        final = step


def merge_small_classes(summary, k, *, failing=None):
    """Merge every class smaller than ``k`` into the class C' minimizing NCP(C u C').

    Lines 15-21 of the algorithm of [003] section 6: while some class has
    fewer than ``k`` records, each such class (in class order, if it is
    still smaller than ``k`` when its turn comes) is merged into the other
    class whose union with it has the least NCP; ties go to the lowest
    class index. NCP(C u C') is the unweighted sum over attributes of
    eq. (5)-(6) for the union's generalization.

    Parameters
    ----------
    summary : ClassSummaries
    k : int
    failing : callable, optional
        ``failing(final) -> bool per class`` where ``final`` maps each
        initial class to its current class: after the k-loop, classes it
        flags (e.g. not l-diverse) are merged the same way, pass after pass.

    Returns
    -------
    final : ndarray (C,)
        The class (an initial class index) every initial class ends up in.
    merges : int
    """
    size = summary.size
    alive = np.ones(len(size), dtype=np.bool_)
    into = np.full(len(size), -1, dtype=np.int64)
    merges = 0
    args = summary.arrays()
    _merge_pass = _merge_pass_cells if summary.cell.any() else _merge_pass_free
    while alive.sum() > 1:
        order = np.flatnonzero(alive & (size < k)).astype(np.int64)
        if not len(order):
            break
        made = _merge_pass(order, k, True, alive, into, size, *args)
        if not made:
            break
        merges += made
    if failing is not None:
        while alive.sum() > 1:
            flagged = failing(_resolve(into))
            order = np.flatnonzero(alive & flagged).astype(np.int64)
            if not len(order):
                break
            made = _merge_pass(order, k, False, alive, into, size, *args)
            if not made:
                break
            merges += made
    return _resolve(into), merges
