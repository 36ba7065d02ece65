"""Levels for a categorical column with many values: values whose records look alike.

A column of many categories (education, country, occupation) drafted as
``value -> *`` has nothing between a value and ``*``: a release that cannot
keep a rare value hides every value. :func:`similar_groups` draws a few
levels from the data instead. Each value is described by its **profile**,
the distribution of the other columns over its records (each other
quasi-identifier and the sensitive column, when there is one, weighed
alike: a categorical column by its most common values, a numeric one by
its quintiles). Values are then merged bottom-up by Ward's criterion with
the values' row counts as weights (Ward 1963, "Hierarchical grouping to
optimize an objective function", the merge cost
``w_a w_b / (w_a + w_b) * |p_a - p_b|^2``; updated by the Lance-Williams
formula, Lance & Williams 1967): two groups merge early when their records
look alike on the other columns *or* when they are rare, so common values
stay alone long and rare ones join the values they resemble. A level is
kept each time the number of groups falls to a third of the level below,
until two are left, then ``*``.

A group of one value keeps the value's own text; a larger one is written as
its members in braces, the most common first, all of them up to three
(``{Doctorate, Masters, Prof-school}``), else the first two and how many
more (``{HS-grad, Some-college, +3 more}``). The draft's file lists every
member of every group (one row per value).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

__all__ = ["Context", "MIN_VALUES", "MAX_START", "group_levels", "similar_groups"]

#: A categorical column with at least this many values gets group levels.
MIN_VALUES = 5
#: At most this many groups start the merging: the most common values alone, the
#: rest (rarer than all of them) in one group (keeps the merging's cost bounded).
MAX_START = 300
#: Categories of an other column that a profile tells apart (the rest pooled).
_TOP = 12
#: Each level has about this many times fewer groups than the one below.
_FACTOR = 3


def _codes(series: pd.Series) -> tuple[np.ndarray, int]:
    """Small integer codes of one other column (-1: missing): quintiles or top values."""
    if series.dtype.kind in "biuf":
        numbers = series.to_numpy(dtype=float)
        present = ~np.isnan(numbers)
        if len(np.unique(numbers[present])) > _TOP:
            cuts = np.quantile(numbers[present], [0.2, 0.4, 0.6, 0.8])
            return np.where(present, np.searchsorted(cuts, numbers, side="right"), -1), 5
    codes, uniques = pd.factorize(series, use_na_sentinel=True)
    if len(uniques) > _TOP:                    # the most common values, the rest pooled
        counts = np.bincount(codes[codes >= 0], minlength=len(uniques))
        rank = np.empty(len(uniques), dtype=np.int64)
        rank[np.argsort(-counts, kind="stable")] = np.arange(len(uniques))
        kept = np.minimum(rank, _TOP)
        return np.where(codes >= 0, kept[np.maximum(codes, 0)], -1), _TOP + 1
    return codes, max(len(uniques), 1)


class Context:
    """The columns that describe a value's records, coded once (lazily) per column."""

    def __init__(self, table: pd.DataFrame):
        self.table = table
        self._coded: dict[str, tuple[np.ndarray, int]] = {}

    def coded(self, column: str) -> tuple[np.ndarray, int]:
        if column not in self._coded:
            self._coded[column] = _codes(self.table[column])
        return self._coded[column]


def profiles(context: Context, column: str, values: Sequence[str],
             others: Sequence[str]) -> np.ndarray:
    """One row per value of ``values``: the shares of the other columns over its records.

    Each other column contributes a block of shares summing to one per
    value (missing cells counted nowhere), so every column weighs alike.
    """
    codes, uniques = pd.factorize(context.table[column], use_na_sentinel=True)
    where = {v: i for i, v in enumerate(values)}
    lookup = np.array([where.get(str(u), -1) for u in uniques] + [-1], dtype=np.int64)
    index = lookup[codes]                    # codes -1 (missing) reads the last entry
    keep = index >= 0
    rows = index[keep]
    blocks = []
    for other in others:
        other_codes, width = context.coded(other)
        other_codes = other_codes[keep]
        ok = other_codes >= 0
        counts = np.bincount(rows[ok] * width + other_codes[ok],
                             minlength=len(values) * width).reshape(len(values), width)
        total = counts.sum(axis=1, keepdims=True)
        blocks.append(counts / np.maximum(total, 1))
    if not blocks:
        return np.zeros((len(values), 1))
    return np.hstack(blocks)


def _merges(points: np.ndarray, weights: np.ndarray) -> list[tuple[int, int]]:
    """Ward's merge order of ``points`` weighted by ``weights``: pairs of group ids.

    Group ids are the starting indices; a merge of ``(a, b)`` keeps id ``a``.
    """
    n = len(points)
    w = weights.astype(float).copy()
    diff = points[:, None, :] - points[None, :, :]
    sq = np.einsum("ijk,ijk->ij", diff, diff)
    # Ward's cost of merging i and j; a tiny tie-break on the ids keeps it deterministic
    cost = (w[:, None] * w[None, :]) / (w[:, None] + w[None, :]) * sq
    cost += np.add.outer(np.arange(n), np.arange(n)) * 1e-12
    np.fill_diagonal(cost, np.inf)
    alive = np.ones(n, dtype=bool)
    out = []
    for _ in range(n - 1):
        flat = int(np.argmin(cost))
        a, b = divmod(flat, n)
        a, b = min(a, b), max(a, b)
        wa, wb = w[a], w[b]
        # Lance-Williams for Ward, on the merge costs (d = cost * 2 / harmonic-free form)
        wk = w
        new = ((wa + wk) * cost[a] + (wb + wk) * cost[b] - wk * cost[a, b]) / (wa + wb + wk)
        alive[b] = False
        new[~alive] = np.inf
        new[a] = np.inf
        cost[a, :], cost[:, a] = new, new
        cost[b, :], cost[:, b] = np.inf, np.inf
        w[a] = wa + wb
        out.append((a, b))
    return out


def group_levels(points: np.ndarray, weights: np.ndarray, *,
                 factor: int = _FACTOR) -> list[np.ndarray]:
    """Per level, finest first, the group id of every point (levels of about
    ``1 / factor`` as many groups as the one below, down to two groups).

    >>> pts = np.array([[0.0], [0.1], [5.0], [5.2], [9.0], [9.1]])
    >>> [g.tolist() for g in group_levels(pts, np.ones(6))]
    [[0, 0, 2, 2, 2, 2]]
    """
    n = len(points)
    merges = _merges(points, weights)
    owner = np.arange(n)
    levels = []
    target = max(n // factor, 2)
    groups = n
    for a, b in merges:
        owner[owner == b] = a
        groups -= 1
        if groups == target:
            levels.append(owner.copy())
            if target == 2:
                break
            target = max(target // factor, 2)
    return levels


def _label(members: list[str], counts: dict[str, int]) -> str:
    if len(members) == 1:
        return members[0]
    ordered = sorted(members, key=lambda m: (-counts[m], m))
    if len(ordered) <= 3:
        return "{" + ", ".join(ordered) + "}"
    return "{" + ", ".join(ordered[:2]) + f", +{len(ordered) - 2} more}}"


def similar_groups(table: pd.DataFrame | Context, column: str, others: Sequence[str], *,
                   factor: int = _FACTOR) -> list[list[str]]:
    """Hierarchy rows ``[value, group, ..., "*"]`` for the values of ``table[column]``.

    Parameters
    ----------
    table : DataFrame or Context
        The table (a :class:`Context` codes the other columns once for
        several calls).
    column : str
        The categorical column to draw levels for.
    others : list of str
        The columns whose distributions describe a value's records (the
        other quasi-identifiers and the sensitive column).
    factor : int, default 3
        Each level has about ``1 / factor`` as many groups as the one below.

    Examples
    --------
    >>> t = pd.DataFrame({"job": list("aabbccddee") * 3,
    ...                   "age": ([20, 22, 21, 23] + [60] * 6) * 3})
    >>> rows = similar_groups(t, "job", ["age"])
    >>> [r for r in rows if r[0] in ("a", "e")]
    [['a', '{a, b}', '*'], ['e', '{c, d, e}', '*']]
    """
    context = table if isinstance(table, Context) else Context(table)
    codes, uniques = pd.factorize(context.table[column], use_na_sentinel=True)
    seen = np.bincount(codes[codes >= 0], minlength=len(uniques))
    counts: dict[str, int] = {}
    for u, c in zip(uniques, seen):
        counts[str(u)] = counts.get(str(u), 0) + int(c)
    ordered = sorted(counts, key=lambda v: (-counts[v], v))
    start = ordered if len(ordered) <= MAX_START else ordered[:MAX_START - 1]
    rest = ordered[len(start):]
    points = profiles(context, column, ordered, others)
    weights = np.array([counts[v] for v in ordered], dtype=float)
    if rest:                       # the rarest values start as one group
        tail = len(start)
        pooled = (points[tail:] * weights[tail:, None]).sum(axis=0) / weights[tail:].sum()
        points = np.vstack([points[:tail], pooled])
        weights = np.append(weights[:tail], weights[tail:].sum())
    levels = group_levels(points, weights, factor=factor)
    rows = {v: [v] for v in ordered}
    for level in levels:
        member_of = {v: int(level[min(i, len(start))]) for i, v in enumerate(ordered)}
        groups: dict[int, list[str]] = {}
        for v, g in member_of.items():
            groups.setdefault(g, []).append(v)
        names = {g: _label(ms, counts) for g, ms in groups.items()}
        for v in ordered:
            rows[v].append(names[member_of[v]])
    return [rows[v] + ["*"] for v in sorted(ordered)]
