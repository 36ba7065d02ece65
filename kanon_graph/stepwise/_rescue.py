"""Between ``stepwise``'s steps and its leftovers: stranded records get donors, not whole classes.

Under l-diversity the full-domain steps can use up the partners of the
commonest sensitive value. On FARS with injury severity as the sensitive
column, only the fatal records carry a date of death: every class the steps
release at a specific node holds non-fatal records alone, and when the steps
end, the fatal records (42% of the table) are left with no other value to
be diverse with. Placed one unit at a time (:mod:`._leftovers`), each widens
a whole released class to the root of the dates, and the release lost more
than ``mst``'s.

:func:`rescue` keeps a *diversity reserve* instead, taken after the steps
from what the released classes can spare:

1. the records left are grouped among themselves by the steps with k alone
   (classes of at least ``k`` records at the least-loss nodes, the few left
   joining the group they widen least);
2. each group that breaks the model takes *donors*, one at a time: a
   quasi-identifier tuple of a released class whose class still holds the
   model without it (and keeps ``k`` records), the donor of least added
   loss -- the group widened to take it in, less what the donor cost at
   home -- among those that make the group hold, else among those that
   bring it a value other than its commonest (at most :data:`_DONORS`);
3. a group no donors make hold is left to :mod:`._leftovers` as before.

A donor moves whole (every record of its tuple), so classes stay sets of
distinct tuples. :func:`settle` rescues only records that are stranded:
taken together they break the model (no grouping of them alone could
hold), and, under a superset-closed model (distinct l), no released class
holds their tuple within its common ancestors (one that does takes them
widening nothing and still holds). It runs the leftovers both ways -- from
the steps' classes as they were, and after the rescue -- and keeps the release
of lower loss (the mean ARX cell loss), so the rescue never costs Loss at
this stage. It does not run where the plain placement is cheap per record left over
(below :data:`RESCUE_FROM`): there the rescue lost on every table measured, and on a
60,000-row census it was 41% of the run.
"""

from __future__ import annotations

import numpy as np

from .._jit import njit  # numba loads on a kernel's first call
from ..privacy import ClassCheck, PrivacyModel
from ..scale.sharding import subset
from ._leftovers import _lca_table, _padded, _Tables, place_leftovers
from ._steps import release_steps

__all__ = ["rescue", "settle", "partition_loss", "placement_cost", "RESCUE_FROM"]

_SCAN = 64
"""Donor candidates checked at a time, cheapest first."""

_DONORS = 16
"""Donors one group may take at most."""

RESCUE_FROM = 0.5
"""The rescue runs only where the plain placement adds at least this much loss per record
left over (:func:`placement_cost`: the loss of a cell is in [0, 1], so 1 is every cell of
every left-over record at its root). A heuristic, not a bound (none was found: the cheapest
class with a second value a stranded record could join does not show the rescue cannot
win). Measured with ``benchmarks/rescue_gate.py`` at k = 5: where the rescue won
(tune_sensitive's FARS, injury severity sensitive, distinct l = 2 / 3, entropy l = 2,
recursive (3, 2)) the placement added 0.86 to 1.19 per left-over record; where it lost
(census 60,000 rows distinct l = 2: 0.16, adult 0.25, FARS with alcohol 0.20 and 0.22)
at most 0.25, and the rescue cost 41% of the census run's profile for nothing."""


def partition_loss(data, class_of, tables=None):
    """The mean ARX cell loss of ``class_of`` (every class at its values' common ancestors;
    a suppressed record, ``-1``, costs 1 per cell)."""
    tables = tables or _Tables(data)
    weights = np.ones(data.n) if data.weights is None else np.asarray(data.weights, float)
    placed = np.flatnonzero(class_of >= 0)
    total = float(weights[class_of < 0].sum()) * len(data.attributes)
    if len(placed):
        order = placed[np.argsort(class_of[placed], kind="stable")]
        starts = np.concatenate([[0], np.flatnonzero(np.diff(class_of[order])) + 1])
        level = tables.levels(order, starts)
        codes = np.column_stack([a.codes for a in data.attributes])
        per = np.sum(tables.costs(level, codes[order[starts]]), axis=0)
        sizes = np.add.reduceat(weights[order], starts)
        total += float((per * sizes).sum())
    return total / max(float(weights.sum()) * len(data.attributes), 1.0)


def settle(data, class_of, check, budget, model):
    """The leftovers of the steps settled (:func:`place_leftovers`), with a :func:`rescue`
    first when the model has l, the records left are *stranded* (taken together,
    they break the model) and their plain placement costs them at least
    :data:`RESCUE_FROM` each; the lower-loss way wins."""
    plain, stats = place_leftovers(data, class_of, check, budget, model)
    left = np.flatnonzero(class_of < 0)
    if model.l is None or not check.sensitive or not len(left) \
            or not (class_of >= 0).any():
        return plain, stats
    tables = _Tables(data)
    if placement_cost(data, class_of, plain, tables) < RESCUE_FROM:
        return plain, stats             # placed cheaply: the rescue would not win
    if check.model.superset_closed:     # a class keeps distinct l with any record more:
        left = left[~_covered(data, class_of, left)]    # those it holds cost it nothing
    if not len(left) or check.holds_on(left):
        return plain, stats             # nothing stranded: the records left are diverse
    rescued, donors = rescue(data, class_of, check, rows=left)
    if donors == 0:
        return plain, stats
    other, more = place_leftovers(data, rescued, check, budget, model)
    if partition_loss(data, other, tables) < partition_loss(data, plain, tables) - 1e-12:
        more = {**more, "rescued": int(_weight(data, np.flatnonzero(
            (class_of < 0) & (rescued >= 0))).sum()), "donors": donors}
        return other, more
    return plain, stats


def placement_cost(data, class_of, placed, tables=None):
    """The loss the leftovers' placement adds, per record left over.

    ``class_of``: the steps' classes (``-1`` left over); ``placed``: the same
    classes with the leftovers settled. The difference of the two
    :func:`partition_loss` (a left-over cell charged 0 instead of 1), in units
    of the loss of one record's cells, over the records left over.
    """
    tables = tables or _Tables(data)
    weights = np.ones(data.n) if data.weights is None else np.asarray(data.weights, float)
    left = float(weights[class_of < 0].sum())
    if not left:
        return 0.0
    total = float(weights.sum())
    before = partition_loss(data, class_of, tables) - left / total
    return (partition_loss(data, placed, tables) - before) * total / left


def _weight(data, rows):
    return np.ones(len(rows)) if data.weights is None else np.asarray(data.weights)[rows]


def _covered(data, class_of, left):
    """Per record of ``left``: does a released class hold its tuple within the common
    ancestors of the class's values (so that it joins the class widening nothing)?"""
    tables = _Tables(data)
    placed = np.flatnonzero(class_of >= 0)
    order = placed[np.argsort(class_of[placed], kind="stable")]
    starts = np.concatenate([[0], np.flatnonzero(np.diff(class_of[order])) + 1])
    level = tables.levels(order, starts)
    codes = np.column_stack([a.codes for a in data.attributes])
    ref = codes[order[starts]]
    out = np.zeros(len(left), dtype=bool)
    vectors, which = np.unique(level, axis=0, return_inverse=True)
    which = which.reshape(-1)
    for v, lv in enumerate(vectors):
        boxes = np.column_stack([anc[lv[j], ref[which == v, j]]
                                 for j, anc in enumerate(tables.anc)])
        mine = np.column_stack([anc[lv[j], codes[left, j]] for j, anc in enumerate(tables.anc)])
        out |= np.isin(_keys(mine), _keys(boxes))
    return out


def _keys(rows):
    """One comparable value per row of an integer matrix."""
    rows = np.ascontiguousarray(rows, dtype=np.int64)
    return rows.view(np.dtype((np.void, 8 * rows.shape[1]))).ravel()


def rescue(data, class_of, check, rows=None):
    """Group the records left (``-1``; ``rows`` of them if given) and give each failing group
    donors (module docstring).

    Returns ``(class_of, donors)``: the groups that now hold get new labels
    (their donors with them); the records of the other groups stay ``-1``.
    """
    out = np.asarray(class_of, dtype=np.int64).copy()
    left = np.flatnonzero(out < 0) if rows is None else np.asarray(rows, dtype=np.int64)
    k = check.k
    sub = subset(data, left)
    alone = PrivacyModel(k)
    groups, _ = release_steps(sub, alone, check=ClassCheck(alone, sub))
    groups, _ = place_leftovers(sub, groups)
    codes = np.column_stack([a.codes for a in data.attributes])
    weights = np.ones(data.n, dtype=np.int64) if data.weights is None \
        else np.asarray(data.weights, dtype=np.int64)
    values = check.values
    tables = _Tables(data)
    pool = _Pool(data, out, codes, weights, values, check, tables)
    next_label = int(out.max()) + 1
    donors = 0
    order = np.argsort(groups, kind="stable")
    bounds = np.flatnonzero(np.diff(groups[order])) + 1
    for rows in np.split(left[order], bounds):
        taken = _fill(pool, rows, codes, weights, values, check, tables)
        if taken is None:
            continue
        out[rows] = next_label
        for unit in taken:
            out[pool.rows[unit]] = next_label
        donors += len(taken)
        next_label += 1
    return out, donors


class _Pool:
    """The donor candidates: the quasi-identifier tuples of the released classes."""

    def __init__(self, data, class_of, codes, weights, values, check, tables):
        placed = np.flatnonzero(class_of >= 0)
        keys = np.column_stack([class_of[placed], codes[placed]])
        _, first, inverse = np.unique(keys, axis=0, return_index=True, return_inverse=True)
        inverse = inverse.reshape(-1)
        order = np.argsort(inverse, kind="stable")
        self.rows = np.split(placed[order], np.flatnonzero(np.diff(inverse[order])) + 1)
        self.home = class_of[placed[first]]
        self.codes = codes[placed[first]]
        self.weight = np.array([weights[r].sum() for r in self.rows], dtype=np.int64)
        self.gone = np.zeros(len(self.rows), dtype=bool)       # moved to a group
        self.blocked = np.zeros(len(self.rows), dtype=bool)    # its class cannot lose it
        # each class: its members (units) and its cost per record at its common ancestors
        labels, cls = np.unique(self.home, return_inverse=True)
        self.cls = cls.reshape(-1)
        self.members = [list(np.flatnonzero(self.cls == c)) for c in range(len(labels))]
        order = placed[np.argsort(class_of[placed], kind="stable")]
        starts = np.concatenate([[0], np.flatnonzero(np.diff(class_of[order])) + 1])
        level = tables.levels(order, starts)
        per = np.sum(tables.costs(level, codes[order[starts]]), axis=0)
        self.at_home = per[self.cls]                  # cost per record, summed over attributes
        self.weights, self.values, self.check = weights, values, check
        # per unit: its lowest and highest sensitive code, and (distinct l) its known codes
        unit_of = np.repeat(np.arange(len(self.rows)), [len(r) for r in self.rows])
        held = values[np.concatenate(self.rows)] if len(self.rows) else values[:0]
        self.vmin = np.full(len(self.rows), np.iinfo(np.int64).max)
        self.vmax = np.full(len(self.rows), np.iinfo(np.int64).min)
        np.minimum.at(self.vmin, unit_of, held)
        np.maximum.at(self.vmax, unit_of, held)
        self.distinct = check.model.superset_closed and check.model.l is not None
        if self.distinct:
            known = held != (-1 if check.missing is None else check.missing)
            pairs = np.unique(np.column_stack([unit_of[known], held[known]]), axis=0)
            self.uvals = pairs[:, 1]
            self.uptr = np.concatenate([[0], np.cumsum(np.bincount(
                pairs[:, 0], minlength=len(self.rows)))]).astype(np.int64)

    def holds_with(self, members, size, batch):
        """Distinct l: per unit of ``batch``, does the group (``members``, ``size`` records)
        hold with it in -- ``k`` records and ``l`` known values -- counted from the units'
        known codes instead of the rows' histograms."""
        check = self.check
        group = np.unique(self.values[members])
        if check.missing is not None:
            group = group[group != check.missing]
        lo, hi = self.uptr[batch], self.uptr[batch + 1]
        lens = hi - lo
        owner = np.repeat(np.arange(len(batch)), lens)
        pos = np.arange(int(lens.sum())) - np.repeat(np.cumsum(lens) - lens, lens) \
            + np.repeat(lo, lens)
        new = ~np.isin(self.uvals[pos], group)
        more = np.bincount(owner[new], minlength=len(batch))
        return (size + self.weight[batch] >= check.k) & (len(group) + more >= check.model.l)

    def spare(self, unit):
        """Does the unit's class still hold the model without it?"""
        c = self.cls[unit]
        rest = [u for u in self.members[c] if u != unit and not self.gone[u]]
        if not rest:
            return False
        rows = np.concatenate([self.rows[u] for u in rest])
        return bool(self.check.holds_on(rows))

    def padded(self, tables):
        """``(anc[j, level, leaf], cost[j, level, node], lca[j, leaf, leaf])`` of every
        attribute, padded to one 3-D array each (made once per pool; ``lca`` empty
        where an attribute's pair levels are not tabulated)."""
        if getattr(self, "_padded", None) is None:
            self._padded = (_padded(tables.anc, 0).astype(np.int64),
                            _padded(tables.cost, 0.0), _lca_table(tables))
        return self._padded


def _fill(pool, rows, codes, weights, values, check, tables):
    """Donors (pool units) that make the group ``rows`` hold, cheapest first; None if none do."""
    if check.holds_on(rows):
        return []
    ref = codes[rows[0]]
    order = np.array([0], dtype=np.int64)
    level = tables.levels(rows, order)[0]
    size = int(weights[rows].sum())
    members = list(rows)
    taken = []
    anc, table, lca = pool.padded(tables)
    for _ in range(_DONORS):
        free = ~pool.gone & ~pool.blocked
        if not free.any():
            break
        extra = _donor_extra(ref, level, size, pool.codes, pool.weight, pool.at_home, free,
                             anc, table, lca)
        ranked = _cheapest(extra, free, 8 * _SCAN)
        held, count = np.unique(values[members], return_counts=True)
        top = held[np.argmax(count)]                  # what a donor must bring besides
        pick, fallback = None, None
        for at in range(0, min(len(ranked), 8 * _SCAN), _SCAN):
            batch = ranked[at:at + _SCAN]
            hold = pool.holds_with(members, size, batch) if pool.distinct \
                else _holds_with(check, members, batch, pool)
            only_top = (pool.vmin[batch] == top) & (pool.vmax[batch] == top)
            # the units the loop below can stop at (the rest are passed over)
            for i in np.flatnonzero(hold | ~only_top):
                u, ok = batch[i], hold[i]
                if not ok and (fallback is not None or only_top[i]):
                    continue
                if not pool.spare(u):
                    pool.blocked[u] = True            # its class cannot lose it: not a donor
                    continue
                if ok:
                    pick = u
                    break
                fallback = u
            if pick is not None:
                break
        unit = pick if pick is not None else fallback
        if unit is None:
            break
        level = _joined_levels(ref, level, pool.codes[unit], anc)
        size += int(pool.weight[unit])
        members.extend(pool.rows[unit])
        pool.gone[unit] = True
        taken.append(unit)
        if pick is not None:
            return taken
    for unit in taken:                                # no luck: the donors go home
        pool.gone[unit] = False
    return None


def _cheapest(extra, free, count):
    """The ``count`` free units of least ``extra`` in the order of a stable sort (ties: the
    lower index), without sorting them all."""
    cand = np.flatnonzero(free)
    if len(cand) > count:
        values = extra[cand]
        bar = np.partition(values, count - 1)[count - 1]
        cand = cand[values <= bar]              # every unit that can be among the first
    return cand[np.argsort(extra[cand], kind="stable")][:count]


def _donor_extra_py(ref, level, size, codes, weight, at_home, free, anc, table, lca):
    """Per pool unit: the loss added when the group (its member ``ref``, ``level``, ``size``
    records) takes it in, less what it cost at home; ``inf`` where not ``free``.
    Summed attribute by attribute in the order the numpy form did, so the floats match.
    ``lca[j, a, b]``: the level where leaves ``a`` and ``b`` meet, read instead of
    walking ``anc`` up (empty: walk)."""
    n, d = codes.shape
    tabulated = lca.shape[0] == d
    old = 0.0
    for j in range(d):
        old += table[j, level[j], anc[j, level[j], ref[j]]]
    out = np.full(n, np.inf)
    for u in range(n):
        if not free[u]:
            continue
        cost = 0.0
        for j in range(d):
            lv = level[j]
            if tabulated:
                meet = lca[j, ref[j], codes[u, j]]
                if meet > lv:
                    lv = meet
            else:
                while anc[j, lv, ref[j]] != anc[j, lv, codes[u, j]]:
                    lv += 1
            cost += table[j, lv, anc[j, lv, ref[j]]]
        w = weight[u]
        out[u] = (size + w) * cost - size * old - w * at_home[u]
    return out


def _donor_extra_work(ref, level, size, codes, *rest):
    """Steps of :func:`_donor_extra_py`: units x attributes."""
    return codes.shape[0] * max(codes.shape[1], 1)


_donor_extra = njit(cache=True, work=_donor_extra_work)(_donor_extra_py)


def _joined_levels(ref, level, codes, anc):
    """The group's levels once it takes in a unit of ``codes``."""
    out = np.array(level, dtype=np.int64)
    for j in range(len(out)):
        while anc[j, out[j], ref[j]] != anc[j, out[j], codes[j]]:
            out[j] += 1
    return out


def _holds_with(check, members, batch, pool):
    """Per unit of ``batch``: does the group ``members`` hold with that unit in?"""
    members = np.asarray(members, dtype=np.int64)
    rows = np.concatenate([np.concatenate([members, pool.rows[u]]) for u in batch])
    part = np.repeat(np.arange(len(batch)), [len(members) + len(pool.rows[u]) for u in batch])
    return ~check.failing_rows(part, rows)
