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
stay alone long and rare ones join the values they resemble. Each merge's
cost is then weighed by the number of values the merged group would hold
(:data:`_BALANCE`), so that rare values do not all chain into one group of
many values while the common ones stay alone: a group of many values costs
each of its records as much, whatever its rows. A level is
kept each time the number of groups falls to a third of the level below,
until two are left, then ``*``.

A group of one value keeps the value's own text; a larger one is written as
its members in braces, the most common first, all of them up to three
(``{Doctorate, Masters, Prof-school}``), else the first two and how many
more (``{HS-grad, Some-college, +3 more}``). The draft's file lists every
member of every group (one row per value).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

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
#: A merge's Ward cost is weighed by the merged group's number of values to this power
#: (issue 48; tuning tables adult and fars, data yardstick: mean gap +2.9% with 0, -0.8%
#: with 1; 2 and 4 lower still but today's yardstick 13 and 44 points worse on adult).
_BALANCE = 1.0


def _sorted_quantiles(ranked: np.ndarray, quantiles: Sequence[float]) -> np.ndarray:
    """``np.quantile(ranked, quantiles)`` of an already sorted, non-empty array, with
    numpy's own arithmetic for its default (linear) method but without the
    partition it makes of a copy of the whole array: the virtual index
    ``(n - 1) q``, its floor and the next index (both the last past the end, both
    the first below it), the fraction ``t`` and ``a + (b - a) t``, or
    ``b - (b - a) (1 - t)`` from ``t = 0.5`` on.

    >>> _sorted_quantiles(np.array([1.0, 2.0, 4.0, 8.0]), [0.2, 0.5, 1.0]).tolist()
    [1.6, 3.0, 8.0]
    """
    n = len(ranked)
    q = np.asarray(quantiles, dtype=float)
    virtual = (n - 1) * q
    below = np.floor(virtual)
    above = below + 1
    below[virtual >= n - 1], above[virtual >= n - 1] = -1, -1
    below[virtual < 0], above[virtual < 0] = 0, 0
    t = virtual - below
    a, b = ranked[below.astype(np.intp)], ranked[above.astype(np.intp)]
    diff = b - a
    return np.where(t >= 0.5, b - diff * (1 - t), a + diff * t)


def _code_map(series: pd.Series, codes: np.ndarray, uniques: Any) -> tuple[np.ndarray, int]:
    """The profile code of each distinct value of a factorized column and the number of
    codes: quintiles of its rows, or its values (the most common alone, the rest
    pooled)."""
    if series.dtype.kind in "biuf" and len(uniques) > _TOP:
        # the same cuts and codes as np.quantile and np.searchsorted over the present
        # rows' numbers, worked out on the distinct values (-0.0 counts as 0.0, integers
        # that are one float as one number: as np.unique tells them apart)
        numbers = np.asarray(uniques, dtype=float)
        if len(pd.unique(numbers + 0.0)) > _TOP:
            order = np.argsort(numbers, kind="stable")
            seen = np.bincount(codes + 1, minlength=len(numbers) + 1)[1:]
            ranked = np.repeat(numbers[order], seen[order])      # the rows' numbers, sorted
            cuts = _sorted_quantiles(ranked, [0.2, 0.4, 0.6, 0.8])
            return np.searchsorted(cuts, numbers, side="right"), 5
    if len(uniques) > _TOP:                    # the most common values, the rest pooled
        counts = np.bincount(codes + 1, minlength=len(uniques) + 1)[1:]
        rank = np.empty(len(uniques), dtype=np.int64)
        rank[np.argsort(-counts, kind="stable")] = np.arange(len(uniques))
        return np.minimum(rank, _TOP), _TOP + 1
    return np.arange(len(uniques)), max(len(uniques), 1)


def _codes(series: pd.Series,
           factorized: tuple[np.ndarray, Any] | None = None) -> tuple[np.ndarray, int]:
    """Small integer codes of one other column (-1: missing): quintiles or top values
    (``factorized``: ``pd.factorize(series)`` when the caller has it already)."""
    codes, uniques = factorized if factorized is not None else pd.factorize(
        series, use_na_sentinel=True)
    mapping, width = _code_map(series, codes, uniques)
    return np.append(mapping, -1)[codes], width


class Context:
    """The columns that describe a value's records, each factorized and coded once
    (lazily), and their codes packed a few columns to one for :func:`profiles`."""

    def __init__(self, table: pd.DataFrame):
        self.table = table
        self._factorized: dict[str, tuple[np.ndarray, Any]] = {}
        self._texts: dict[str, list[str]] = {}
        self._listed: dict[str, list[Any]] = {}
        self._coded: dict[str, tuple[np.ndarray, int]] = {}
        self._maps: dict[str, tuple[np.ndarray, int]] = {}
        self._packed: dict[int, list[tuple[list[tuple[str, int]], np.ndarray, int]]] = {}
        self._series: dict[str, pd.Series] = {}

    def column(self, column: str) -> pd.Series:
        """``table[column]``, looked up once (pandas builds a new Series each time)."""
        if column not in self._series:
            self._series[column] = self.table[column]
        return self._series[column]

    def factorized(self, column: str) -> tuple[np.ndarray, Any]:
        """``pd.factorize`` of a column (codes, -1 for missing, and the distinct values)."""
        if column not in self._factorized:
            self._factorized[column] = pd.factorize(self.column(column), use_na_sentinel=True)
        return self._factorized[column]

    def distinct(self, column: str) -> list[Any]:
        """The column's distinct present values in order of appearance, as
        ``list(pd.unique(column.dropna()))`` gives them (:meth:`text_values` for a
        text column)."""
        texts = self.text_values(column)
        return texts if texts is not None else list(pd.unique(self.column(column).dropna()))

    def text_values(self, column: str) -> list[Any] | None:
        """A text column's (object or string dtype) distinct present values from its
        factorization: the same objects in the same order as ``pd.unique`` of its
        present cells. None for a column of another dtype."""
        series = self.column(column)
        if series.dtype != object and not pd.api.types.is_string_dtype(series.dtype):
            return None
        if column not in self._listed:
            self._listed[column] = list(self.factorized(column)[1])
        return list(self._listed[column])

    def texts(self, column: str) -> list[str]:
        """``str`` of each distinct value of the factorization, in its order."""
        if column not in self._texts:
            self._texts[column] = [str(u) for u in self.factorized(column)[1]]
        return self._texts[column]

    def code_map(self, column: str) -> tuple[np.ndarray, int]:
        """The profile code of each of a column's distinct values (:func:`_code_map`)
        and their number."""
        if column not in self._maps:
            self._maps[column] = _code_map(self.column(column), *self.factorized(column))
        return self._maps[column]

    def coded(self, column: str) -> tuple[np.ndarray, int]:
        """A column's profile codes (:func:`_codes`, -1 for a missing cell) and their
        number."""
        if column not in self._coded:
            mapping, width = self.code_map(column)
            self._coded[column] = np.append(mapping, -1)[self.factorized(column)[0]], width
        return self._coded[column]

    def packed(self, limit: int) -> list[tuple[list[tuple[str, int]], np.ndarray, int]]:
        """The columns' profile codes packed a few columns to one code: each pack's
        columns with their radix (codes, then one for a missing cell), the pack's code
        of every row (mixed radix, the first column most significant) and the product
        of the radices, at most ``limit`` (a column of more codes is a pack alone).

        Packs are filled first-fit, the columns of most codes first: a count over a
        pack's codes is a count over each of its columns, with fewer keys to count.
        """
        if limit not in self._packed:
            radix = {c: self.code_map(c)[1] + 1 for c in self.table.columns}
            bins: list[list[str]] = []
            for column in sorted(radix, key=lambda c: -radix[c]):   # stable: table order
                for members in bins:
                    if math.prod(radix[m] for m in members) * radix[column] <= limit:
                        members.append(column)
                        break
                else:
                    bins.append([column])
            packs = []
            for members in bins:
                code: np.ndarray | None = None
                for m in members:         # a missing cell (code -1) to the last code
                    own = np.append(self.code_map(m)[0], radix[m] - 1)[self.factorized(m)[0]]
                    code = own if code is None else code * radix[m] + own
                assert code is not None
                packs.append(([(m, radix[m]) for m in members], code,
                              math.prod(radix[m] for m in members)))
            self._packed[limit] = packs
        return self._packed[limit]


#: Rows counted at once by :func:`profiles` (bounds its temporary keys).
_CHUNK = 1 << 16
#: At most this many codes in one pack of :meth:`Context.packed` (Adult's nine described
#: columns count as four packs; a column of more values than a pack's codes fit in its
#: rows is counted column by column, so summing counts back never outweighs the keys
#: saved).
_PACK = 256


def profiles(context: Context, column: str, values: Sequence[str],
             others: Sequence[str]) -> np.ndarray:
    """One row per value of ``values``: the shares of the other columns over its records.

    Each other column contributes a block of shares summing to one per
    value (missing cells counted nowhere), so every column weighs alike.
    The counts are taken a few columns at once (one ``bincount`` of
    value-and-pack keys per pack of :meth:`Context.packed`, then summed back
    to each column).
    """
    if not others:
        return np.zeros((len(values), 1))
    codes = context.factorized(column)[0]
    where = {v: i for i, v in enumerate(values)}
    lookup = np.array([where.get(u, -1) for u in context.texts(column)] + [-1], dtype=np.int64)
    index = lookup[codes]                    # codes -1 (missing) reads the last entry
    kept = index >= 0
    everyone = bool(np.all(kept))
    if not everyone:
        index = index[kept]
    # packed only while a value's share of a pack's counts is no more than its rows
    limit = _PACK if len(values) * _PACK <= len(index) else 1
    wanted = set(others)
    block_of: dict[str, np.ndarray] = {}
    for members, code, size in context.packed(limit):
        if not any(m in wanted for m, _ in members):
            continue
        if not everyone:
            code = code[kept]
        flat = np.zeros(len(values) * size, dtype=np.int64)
        for start in range(0, len(index), _CHUNK):
            keys = code[start:start + _CHUNK] + index[start:start + _CHUNK] * size
            flat += np.bincount(keys, minlength=len(flat))
        counts = flat.reshape(len(values), *(r for _, r in members))
        for axis, (member, width) in enumerate(members, start=1):
            if member in wanted:
                summed = counts.sum(axis=tuple(a for a in range(1, counts.ndim) if a != axis))
                block_of[member] = summed[:, :width - 1]        # the last: missing cells
    blocks = []
    for other in others:
        block = block_of[other]
        total = block.sum(axis=1, keepdims=True)
        blocks.append(block / np.maximum(total, 1))
    return np.hstack(blocks)


def _merges(points: np.ndarray, weights: np.ndarray,
            sizes: np.ndarray | None = None) -> list[tuple[int, int]]:
    """Ward's merge order of ``points`` weighted by ``weights``: pairs of group ids.

    Group ids are the starting indices; a merge of ``(a, b)`` keeps id ``a``.
    Each merge's Ward cost is weighed by the number of values the merged group
    would hold, raised to :data:`_BALANCE` (``sizes``: the values each point
    stands for, one by default).
    """
    n = len(points)
    w = weights.astype(float).copy()
    held = np.ones(n) if sizes is None else np.asarray(sizes, dtype=float).copy()
    diff = points[:, None, :] - points[None, :, :]
    sq = np.einsum("ijk,ijk->ij", diff, diff)
    # Ward's cost of merging i and j; a tiny tie-break on the ids keeps it deterministic
    cost = (w[:, None] * w[None, :]) / (w[:, None] + w[None, :]) * sq
    cost += np.add.outer(np.arange(n), np.arange(n)) * 1e-12
    np.fill_diagonal(cost, np.inf)
    chosen = cost * np.add.outer(held, held) ** _BALANCE if _BALANCE else cost
    alive = np.ones(n, dtype=bool)
    out = []
    for _ in range(n - 1):
        flat = int(np.argmin(chosen))
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
        held[a] += held[b]
        if _BALANCE:
            weighed = new * (held[a] + held) ** _BALANCE
            chosen[a, :], chosen[:, a] = weighed, weighed
            chosen[b, :], chosen[:, b] = np.inf, np.inf
        out.append((a, b))
    return out


def group_levels(points: np.ndarray, weights: np.ndarray, *,
                 factor: int = _FACTOR, sizes: np.ndarray | None = None) -> list[np.ndarray]:
    """Per level, finest first, each point's group id (each level about ``1 / factor``
    as many groups as the one below, down to two groups).

    >>> pts = np.array([[0.0], [0.1], [5.0], [5.2], [9.0], [9.1]])
    >>> [g.tolist() for g in group_levels(pts, np.ones(6))]
    [[0, 0, 2, 2, 2, 2]]
    """
    n = len(points)
    merges = _merges(points, weights, sizes)
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
    context = (table if isinstance(table, Context)
               else Context(table[list(dict.fromkeys([column, *others]))]))
    codes = context.factorized(column)[0]
    texts = context.texts(column)
    seen = np.bincount(codes + 1, minlength=len(texts) + 1)[1:]
    counts: dict[str, int] = {}
    for u, c in zip(texts, seen.tolist()):
        counts[u] = counts.get(u, 0) + c
    ordered = sorted(counts, key=lambda v: (-counts[v], v))
    start = ordered if len(ordered) <= MAX_START else ordered[:MAX_START - 1]
    rest = ordered[len(start):]
    points = profiles(context, column, ordered, others)
    weights = np.array([counts[v] for v in ordered], dtype=float)
    sizes = np.ones(len(start) + bool(rest))
    if rest:                       # the rarest values start as one group
        tail = len(start)
        pooled = (points[tail:] * weights[tail:, None]).sum(axis=0) / weights[tail:].sum()
        points = np.vstack([points[:tail], pooled])
        weights = np.append(weights[:tail], weights[tail:].sum())
        sizes[-1] = len(rest)
    levels = group_levels(points, weights, factor=factor, sizes=sizes)
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
