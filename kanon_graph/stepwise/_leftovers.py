"""The end of ``stepwise``'s steps: the records no step released join a class, or are suppressed.

When no node releases the records left (fewer than ``k`` of them, or none
forming a class where the model holds), :func:`place_leftovers` settles them:

1. each *unit* -- the records of one quasi-identifier tuple together, in
   order of their first row (so the rows of a table and its weighted
   distinct tuples, ``data.weights``, are settled alike) -- joins the class
   whose common ancestors it widens least (by ARX cell loss) among the
   classes where the model still holds with it in (with k alone every class
   qualifies);
2. a unit no class takes is suppressed while the suppression budget lasts
   (with t-closeness only when the classes still hold against the records
   left released, which is how the release is verified);
3. past the budget, those units join the class they widen least together,
   and while that class breaks the model it merges with the class whose
   union with it widens least. At worst every record ends in one class,
   which satisfies the model whenever the whole table does (the facade
   refuses a model the whole table cannot reach before any algorithm runs),
   so no record is dropped beyond the budget the caller gave.

This is how ``mst`` treats its small classes too (merge with the class of
least loss, Venkata Ramana & Valli Kumari 2013, section 6), while ARX
suppresses every record its last step cannot release (Prasser et al. 2020).
Records are counted by ``data.weights`` throughout (class sizes, units, the
budget).
"""

from __future__ import annotations

import numpy as np

from .._jit import njit  # numba loads on a kernel's first call
from ..lattice.node_metrics import LossMetric
from ._placed_checked import histograms, place_checked
from ._split import class_levels

__all__ = ["place_leftovers"]


class _Tables:
    """Per attribute: ``anc[level, leaf]`` (ancestor index), ``cost[level, node]`` and, for
    hierarchies of at most :data:`_PAIRS` leaf pairs, ``lca[leaf, leaf]`` (the level of
    the pair's lowest common ancestor)."""

    def __init__(self, data):
        self.attrs = data.attributes
        self.anc = [np.vstack(a.hierarchy.level_map) for a in self.attrs]
        cells = LossMetric(data, 0).cells
        self.cost = []
        for per_level in cells:
            width = max(len(c) for c in per_level)
            table = np.zeros((len(per_level), width))
            for level, c in enumerate(per_level):
                table[level, :len(c)] = c
            self.cost.append(table)
        self.lca = [_pair_levels(anc) if anc.shape[1] ** 2 <= _PAIRS else None
                    for anc in self.anc]

    def levels(self, order, starts):
        return np.column_stack([class_levels(list(anc), a.codes[order], starts)
                                for anc, a in zip(self.anc, self.attrs)])

    def costs(self, level, ref, per_class=None):
        """Per attribute: each class's cost per record at its ``level`` (``ref``: a member).

        ``per_class`` (from :meth:`class_costs` for the same ``ref``) reads them
        from a table instead."""
        if per_class is not None:
            return [table[np.arange(len(level)), level[:, j]]
                    for j, table in enumerate(per_class)]
        return [cost[level[:, j], anc[level[:, j], ref[:, j]]]
                for j, (anc, cost) in enumerate(zip(self.anc, self.cost))]

    def class_costs(self, ref):
        """Per attribute: ``(classes, levels)`` cost per record of each class at each level."""
        return [cost[np.arange(anc.shape[0])[None, :], anc[:, ref[:, j]].T]
                for j, (anc, cost) in enumerate(zip(self.anc, self.cost))]

    def widen(self, level, ref, codes, per_class=None):
        """Per class: the levels that take in every code of ``codes``, and the new costs.

        ``level``/``ref``: each class's ancestor level and a member's code per
        attribute; ``codes``: ``(m, d)`` codes of the records to take in. A
        class's new level is the larger of its level and the level at which
        its member meets each new code (the ancestors of a leaf are nested).
        """
        new_levels = level.copy()
        for j, anc in enumerate(self.anc):
            lv = new_levels[:, j]
            for code in np.unique(codes[:, j]):
                if self.lca[j] is not None:
                    meet = self.lca[j][ref[:, j], code]
                else:
                    meet = np.argmax(anc[:, ref[:, j]] == anc[:, code][:, None], axis=0)
                np.maximum(lv, meet, out=lv)
        return new_levels, self.costs(new_levels, ref, per_class)

    @staticmethod
    def extra(sizes, m, old, new):
        """Loss added when ``m`` records join classes of ``sizes`` (summed attribute by attribute)."""
        extra = np.zeros(len(sizes))
        for o, n in zip(old, new):
            extra += (sizes + m) * n - sizes * o
        return extra


_PAIRS = 1 << 22
"""Largest ``leaves ** 2`` for which an attribute's pairwise LCA levels are tabulated."""


def _pair_levels(anc):
    """``lca[a, b]``: the lowest level at which leaves ``a`` and ``b`` share their ancestor."""
    leaves = anc.shape[1]
    out = np.full((leaves, leaves), anc.shape[0] - 1, dtype=np.int64)
    for level in range(anc.shape[0] - 1, -1, -1):
        same = anc[level][:, None] == anc[level][None, :]
        out[same] = level
    return out


def place_leftovers(data, class_of, check=None, budget=0, model=None):
    """Settle the records with class ``-1`` (see the module docstring).

    Parameters
    ----------
    data : EncodedTable
    class_of : ndarray of int (n,)
    check : ClassCheck, optional
        The model on histograms; None or without a sensitive attribute: k
        alone, every class takes a record.
    budget : int
        Records that may be suppressed.
    model : PrivacyModel, optional
        With t-closeness: to verify the classes against the records left
        released before suppressing any.

    Returns
    -------
    class_of : ndarray of int64 (n,)
        ``-1`` only for suppressed records (or every record when no class
        exists and the whole table fails the model within the budget).
    stats : dict
        ``placed``, ``suppressed`` and ``merged`` (classes merged in rule 3).

    Examples
    --------
    >>> import numpy as np, kanon_graph as kg
    >>> data = kg.encode(kg.datasets.paper_003_table(), kg.datasets.paper_003_schema())
    >>> start = np.array([0, 0, 0, 1, 1, 1, 2, 2, 2, -1])
    >>> out, stats = place_leftovers(data, start)
    >>> int(out[9]) in (0, 1, 2), stats
    (True, {'placed': 1, 'suppressed': 0, 'merged': 0})
    """
    out = np.asarray(class_of, dtype=np.int64).copy()
    stats = {"placed": 0, "suppressed": 0, "merged": 0}
    left = np.flatnonzero(out < 0)
    placed = out >= 0
    sensitive = check is not None and check.sensitive
    if not len(left):
        return out, stats
    if not placed.any():                                 # nothing released: one class, if it holds
        if check is None or check.holds_on(np.arange(data.n)) or _records(data, left) > budget:
            out[:] = 0
        else:
            stats["suppressed"] = _records(data, left)
        return out, stats
    tables = _Tables(data)
    labels, first, sizes = np.unique(out[placed], return_index=True, return_counts=True)
    weights = data.weights
    if weights is not None:
        sizes = np.bincount(np.searchsorted(labels, out[placed]), weights=weights[placed]
                            ).astype(np.int64)
    rows = np.flatnonzero(placed)[first]
    codes = np.column_stack([a.codes for a in data.attributes])
    ref = codes[rows]                                               # a member of each class
    order = np.flatnonzero(placed)[np.argsort(out[placed], kind="stable")]
    starts = np.concatenate([[0], np.cumsum(np.bincount(np.searchsorted(labels, out[order])))[:-1]])
    level = tables.levels(order, starts)
    per_class = tables.class_costs(ref)
    old = tables.costs(level, ref, per_class)
    # a class satisfying a superset-closed model (k, distinct l) satisfies it with more records
    checked = sensitive and not check.model.superset_closed
    members = np.split(order, starts[1:]) if checked else None
    unplaced = []
    units = _units(codes, left)
    if not checked:                     # every class takes a unit: one compiled pass
        unit_codes = codes[[u[0] for u in units]]
        unit_m = np.array([_records(data, u) for u in units], dtype=np.int64)
        anc = _padded([a for a in tables.anc], 0)
        per = _padded([p.T for p in per_class], 0.0)
        chosen = _place_units(unit_codes, unit_m, level, ref, sizes.astype(np.int64),
                              np.column_stack(old), per, anc, _lca_table(tables),
                              all(bool((np.diff(p, axis=1) >= 0).all()) for p in per_class))
        for unit, c in zip(units, chosen):
            out[unit] = labels[c]
        stats["placed"] += int(unit_m.sum())
        units = []
    elif check.model.t is None and check.model.diversity in ("entropy", "recursive"):
        found = histograms(check, np.searchsorted(labels, out[order]), order, len(labels))
        if found is not None:            # one compiled pass, each class's histogram kept
            hist, dense = found
            unit_codes = codes[[u[0] for u in units]]
            unit_m = np.array([_records(data, u) for u in units], dtype=np.int64)
            per = _padded([p.T for p in per_class], 0.0)
            chosen = place_checked(
                check, units, dense, unit_codes, unit_m, level, ref, sizes.astype(np.int64),
                np.column_stack(old), per, _padded(list(tables.anc), 0), _lca_table(tables),
                all(bool((np.diff(p, axis=1) >= 0).all()) for p in per_class), hist)
            for unit, c, m in zip(units, chosen.tolist(), unit_m.tolist()):
                if c < 0:
                    unplaced.append(unit)
                else:
                    out[unit] = labels[c]
                    stats["placed"] += m
            units = []
    for unit in units:
        new_levels, new = tables.widen(level, ref, codes[unit], per_class)
        m = _records(data, unit)
        extra = tables.extra(sizes, m, old, new)
        c = _first_holding(check, extra, members, unit) if checked else int(np.argmin(extra))
        if c < 0:
            unplaced.append(unit)
            continue
        out[unit] = labels[c]
        level[c] = new_levels[c]
        for o, n in zip(old, new):
            o[c] = n[c]
        sizes[c] += m
        if checked:
            members[c] = np.concatenate([members[c], unit])
        stats["placed"] += m
    if unplaced:
        rest = np.concatenate(unplaced)
        if _records(data, rest) <= budget and _can_suppress(model, out, rest, data):
            stats["suppressed"] = _records(data, rest)
        else:
            stats["merged"] = _merge_until_holds(data, out, rest, check, tables)
    return out, stats


def _padded(tables, fill):
    """Equal-shaped 2-D ``tables`` (rows padded with ``fill``) stacked into one 3-D array."""
    rows = max(t.shape[0] for t in tables)
    cols = max(t.shape[1] for t in tables)
    out = np.full((len(tables), rows, cols), fill, dtype=np.asarray(tables[0]).dtype)
    for i, t in enumerate(tables):
        out[i, :t.shape[0], :t.shape[1]] = t
    return out


def _lca_table(tables):
    """``lca[j, a, b]`` of every attribute padded to one array, or an empty one when an
    attribute's pairs are not tabulated (the kernel then walks the ancestors)."""
    if any(t is None for t in tables.lca):
        return np.zeros((0, 0, 0), dtype=np.int64)
    return _padded([np.asarray(t, dtype=np.int64) for t in tables.lca], 0)


def _place_units_py(unit_codes, unit_m, level, ref, sizes, old, per, anc, lca, rising):
    """Each unit, in order, joins the class it widens least (the first of least added loss);
    the class's levels, per-record costs and size follow. ``per[j, level, c]``: class
    ``c``'s cost per record at ``level`` of attribute ``j``; ``anc[j, level, leaf]``;
    ``lca[j, a, b]`` the level where leaves ``a`` and ``b`` meet (empty: walk ``anc``).

    A class's cost per record never falls as it widens, so the loss a unit of ``m``
    records adds to class ``c`` is at least ``m`` times its cost per record now, which
    is at least what it was at the start: the classes are visited in order of that
    start cost and the visit ends where ``m`` times it exceeds the least added loss
    found (by more than rounding), so a unit rarely looks at every class. For the
    same reason each attribute adds a term of at least 0 when every class's costs
    rise with the level (``rising``), so a class is then left as soon as its partial
    sum exceeds the least found: the floats and the choice are those of the full sum."""
    n_units, d = unit_codes.shape
    n_classes = level.shape[0]
    chosen = np.empty(n_units, dtype=np.int64)
    start = np.zeros(n_classes)
    for c in range(n_classes):
        for j in range(d):
            start[c] += old[c, j]
    tabulated = lca.shape[0] == d
    order = np.argsort(start, kind="mergesort")
    for u in range(n_units):
        m = unit_m[u]
        best, best_extra = 0, np.inf
        for i in range(n_classes):
            c = order[i]
            if m * start[c] > best_extra + 1e-9:
                break
            extra = 0.0
            for j in range(d):
                lv = level[c, j]
                if tabulated:
                    meet = lca[j, ref[c, j], unit_codes[u, j]]
                    if meet > lv:
                        lv = meet
                else:
                    while anc[j, lv, ref[c, j]] != anc[j, lv, unit_codes[u, j]]:
                        lv += 1
                extra += (sizes[c] + m) * per[j, lv, c] - sizes[c] * old[c, j]
                if rising and extra > best_extra:
                    break
            if extra < best_extra or (extra == best_extra and c < best):
                best, best_extra = c, extra
        for j in range(d):
            lv = level[best, j]
            while anc[j, lv, ref[best, j]] != anc[j, lv, unit_codes[u, j]]:
                lv += 1
            level[best, j] = lv
            old[best, j] = per[j, lv, best]
        sizes[best] += m
        chosen[u] = best
    return chosen


def _place_units_work(unit_codes, unit_m, level, *rest):
    """Steps of :func:`_place_units_py`: units x classes x attributes."""
    return unit_codes.shape[0] * level.shape[0] * max(level.shape[1], 1)


_place_units = njit(cache=True, work=_place_units_work)(_place_units_py)


def _records(data, rows):
    return len(rows) if data.weights is None else int(data.weights[rows].sum())


def _units(codes, left):
    """The leftover records grouped by quasi-identifier tuple (in order of first row)."""
    _, first, inverse = np.unique(codes[left], axis=0, return_index=True, return_inverse=True)
    inverse = inverse.reshape(-1)
    groups = np.argsort(inverse, kind="stable")
    bounds = np.flatnonzero(np.diff(inverse[groups])) + 1
    units = np.split(left[groups], bounds)
    return [units[g] for g in np.argsort(first, kind="stable")]


def _first_holding(check, extra, members, unit):
    """The class of least ``extra`` where the model holds with ``unit`` in, or -1.

    Classes are checked in batches of 1, 8, 64, ... in order of ``extra``."""
    ranked = np.argsort(extra, kind="stable")
    at, size = 0, 1
    while at < len(ranked):
        batch = ranked[at:at + size]
        rows = np.concatenate([np.concatenate([members[c], unit]) for c in batch])
        part = np.repeat(np.arange(len(batch)), [len(members[c]) + len(unit) for c in batch])
        bad = check.failing_rows(part, rows)
        if not bad.all():
            return int(batch[int(np.argmin(bad))])
        at, size = at + size, size * 8
    return -1


def _can_suppress(model, out, rest, data):
    """t-closeness: do the classes still hold against the records left released?"""
    if model is None or model.t is None:
        return True
    trial = out.copy()
    trial[rest] = -1
    return not model.failing(trial, data).any()


def _merge_until_holds(data, out, rest, check, tables):
    """Rule 3: ``rest`` joins the class it widens least; merge while that class fails."""
    labels = np.unique(out[out >= 0])
    order = np.flatnonzero(out >= 0)
    codes = np.column_stack([a.codes for a in data.attributes])
    extra = []
    for label in labels:
        members = order[out[order] == label]
        level = tables.levels(members, np.zeros(1, dtype=np.int64))
        _, new = tables.widen(level, codes[members[:1]], codes[rest])
        old = tables.costs(level, codes[members[:1]])
        extra.append(tables.extra(np.array([_records(data, members)]), _records(data, rest),
                                  old, new)[0])
    target = labels[int(np.argmin(extra))]
    out[rest] = target
    merged = 0
    while not check.holds_on(np.flatnonzero(out == target)):
        mine = np.flatnonzero(out == target)
        others = np.flatnonzero((out >= 0) & (out != target))
        if not len(others):
            break
        labels, inverse = np.unique(out[others], return_inverse=True)
        sort = others[np.argsort(inverse, kind="stable")]
        starts = np.concatenate([[0], np.cumsum(np.bincount(inverse))[:-1]])
        level = tables.levels(sort, starts)
        _, new = tables.widen(level, codes[sort[starts]], codes[mine])
        old = tables.costs(level, codes[sort[starts]])
        sizes = np.bincount(inverse, weights=None if data.weights is None
                            else data.weights[others])
        m = _records(data, mine)
        own = tables.costs(tables.levels(mine, np.zeros(1, dtype=np.int64)), codes[mine[:1]])
        cost = tables.extra(sizes, m, old, new) - m * sum(o[0] for o in own)
        out[out == labels[int(np.argmin(cost))]] = target
        merged += 1
    return merged
