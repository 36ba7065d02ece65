"""Step 2 of ``stepwise``: split classes down their hierarchies.

A class released at a step's node is generalized as far as the node says for
every record in it, but the release labels each class by the lowest common
ancestor of its values (local recoding), and a class of ``2k`` records or
more can often be cut in two along one attribute's hierarchy: its records
fall under different children of the class's common ancestor. :func:`split_classes`
cuts a class into the children that hold ``k`` records or more, pooling the
smaller children into one rest class that keeps the ancestor (the smallest
large children join the rest when it would fall below ``k``), when that lowers
the class's loss; it takes the attribute whose cut lowers the loss most, and
goes on with the parts. This is Mondrian's top-down cut (LeFevre, DeWitt &
Ramakrishnan, "Mondrian multidimensional k-anonymity", 2006) on hierarchy
children, started from the steps' classes.

The records no step could release are placed by :mod:`._leftovers`.
"""

from __future__ import annotations

import numpy as np


__all__ = ["split_classes", "class_levels"]


def cell_losses(data):
    """``costs[j][level][code]``: ARX's cell loss of each node, ``(leaves under it - 1) /
    (leaves - 1)`` (what :class:`~kanon_graph.lattice.node_metrics.LossMetric` holds as
    ``cells``, without its per-level means over the records, which step 2 does not read)."""
    out = []
    for attr in data.attributes:
        leaves = attr.hierarchy.n_leaves
        out.append([(lc - 1) / (leaves - 1) if leaves > 1 else np.zeros(len(lc))
                    for lc in attr.hierarchy.leaf_counts])
    return out


def _lca_level(level_map, codes, start=0):
    """The lowest level (from ``start``) at which all ``codes`` share their ancestor."""
    for level in range(start, len(level_map)):
        mapped = level_map[level][codes]
        if (mapped == mapped[0]).all():
            return level
    return len(level_map) - 1


def split_classes(data, class_of, k, check=None):
    """Cut classes down their hierarchies while every part keeps ``k`` records and the model.

    Records are counted by ``data.weights`` when it is set (rows are then
    distinct tuples, each holding that many records): class and child sizes,
    and the loss a cut saves, are those of the records.

    Parameters
    ----------
    data : EncodedTable
    class_of : ndarray of int (n,)
        Classes of at least ``k`` records; ``-1`` rows are left alone.
    k : int
    check : ClassCheck, optional
        With l-diversity or t-closeness: a cut is taken only when the model
        holds on every part (the cut of most gain that does, per class).

    Returns
    -------
    class_of : ndarray of int64 (n,)
    cuts : int
        Classes cut.

    Examples
    --------
    >>> import numpy as np, kanon_graph as kg
    >>> data = kg.encode(kg.datasets.paper_003_table(), kg.datasets.paper_003_schema())
    >>> labels, cuts = split_classes(data, np.zeros(10, dtype=np.int64), 3)
    >>> sizes = np.unique(labels, return_counts=True)[1]
    >>> bool(cuts >= 1 and sizes.min() >= 3), int(sizes.sum())
    (True, 10)
    """
    attrs = data.attributes
    maps = [a.hierarchy.level_map for a in attrs]
    costs = cell_losses(data)                  # costs[j][level][code]: ARX cell loss
    codes = np.column_stack([a.codes for a in attrs])
    weights = np.ones(data.n, dtype=np.int64) if data.weights is None \
        else np.asarray(data.weights, dtype=np.int64)
    out = np.asarray(class_of, dtype=np.int64).copy()
    if not len(out):
        return out, 0
    next_label = int(out.max()) + 1
    order = np.argsort(out, kind="stable")
    bounds = np.flatnonzero(np.diff(out[order])) + 1
    # a class where no child of its common ancestor holds k records on any attribute has
    # no cut (_cuts finds no large child): it is left out of the stack at once
    starts = np.concatenate([[0], bounds]).astype(np.int64)
    ends = np.append(bounds, len(order)).astype(np.int64)
    keep = _may_cut(codes[order], weights[order], maps, starts, k) & (out[order[starts]] >= 0)
    stack = [order[s:e] for s, e in zip(starts[keep].tolist(), ends[keep].tolist())]
    cuts = 0
    while stack:
        rows = stack.pop()
        if int(weights[rows].sum()) < 2 * k:
            continue
        best = None
        for cut in _cuts(codes[rows], weights[rows], maps, costs, k):
            if check is None or not check.sensitive or _parts_hold(check, rows, *cut):
                best = cut
                break
        if best is None:
            continue
        cuts += 1
        child, large = best
        for c in np.flatnonzero(large):
            part = rows[child == c]
            out[part] = next_label
            next_label += 1
            stack.append(part)
        rest = rows[~large[child]]
        if len(rest):
            stack.append(rest)
    return out, cuts


def _parts_hold(check, rows, child, large):
    """Does the model hold on every part of a cut (each large child, and the rest)?"""
    part = np.where(large[child], child, len(large))
    return not check.failing_rows(part, rows)[np.unique(part)].any()


def _cuts(codes, weights, maps, costs, k):
    """The cuts that lower the loss, ``(child of every row, which children stand alone)``,
    most gain first (ties: the earlier attribute); ``weights``: records per row."""
    found = []
    for j, (level_map, cost) in enumerate(zip(maps, costs)):
        col = codes[:, j]
        level = _lca_level(level_map, col)
        if level == 0:
            continue
        before = int(weights.sum()) * cost[level][level_map[level][col[0]]]
        values, child = np.unique(level_map[level - 1][col], return_inverse=True)
        if len(values) < 2:
            continue
        child = child.reshape(-1)
        counts = np.bincount(child, weights=weights, minlength=len(values)).astype(np.int64)
        large = counts >= k
        rest = int(counts[~large].sum())
        if 0 < rest < k:                         # the smallest large children join the rest
            for c in np.flatnonzero(large)[np.argsort(counts[large], kind="stable")]:
                if rest >= k:
                    break
                large[c] = False
                rest += int(counts[c])
            if rest < k:
                continue
        if not large.any() or (large.sum() == 1 and rest == 0):
            continue
        after = float((counts[large] * cost[level - 1][values[large]]).sum())
        if rest:
            left = col[~large[child]]
            at = _lca_level(level_map, left)
            after += rest * cost[at][level_map[at][left[0]]]
        gain = before - after
        if gain > 1e-12:
            found.append((-gain, j, child, large))
    found.sort(key=lambda cut: cut[:2])
    return [cut[2:] for cut in found]


def _may_cut(codes, weights, maps, starts, k):
    """Per class (rows ``starts[i]:starts[i + 1]`` of ``codes``, sorted by class): whether
    on some attribute a child of the class's common ancestor holds ``k`` records, which
    :func:`_cuts` needs for any cut (a class without it has none)."""
    of = np.repeat(np.arange(len(starts)), np.diff(np.append(starts, len(codes))))
    out = np.zeros(len(starts), dtype=bool)
    for j, level_map in enumerate(maps):
        col = codes[:, j]
        level = class_levels(level_map, col, starts)[of]
        below = level > 0
        if not below.any():
            continue
        stacked = np.stack(level_map)          # (levels, leaves): each leaf's ancestors
        child = stacked[level[below] - 1, col[below]]
        width = int(stacked.max()) + 1
        keys, inverse = np.unique(of[below] * width + child, return_inverse=True)
        held = np.bincount(inverse.reshape(-1), weights=weights[below])
        out[keys[held >= k] // width] = True
    return out


def class_levels(level_map, codes, starts):
    """The lowest level at which each class's values share one ancestor.

    ``codes`` are sorted by class; class ``i`` starts at ``starts[i]``.
    """
    out = np.full(len(starts), len(level_map) - 1, dtype=np.int64)
    open_ = np.ones(len(starts), dtype=bool)
    for level in range(len(level_map)):
        mapped = level_map[level][codes]
        same = np.minimum.reduceat(mapped, starts) == np.maximum.reduceat(mapped, starts)
        out[open_ & same] = level
        open_ &= ~same
    return out
