"""Integers: a code or a quantity? Read from the data, and said why.

A column of integers is either a **quantity** (an age, a count, a day of the
month: its order means something, so bands of neighbouring values are the
natural levels) or a **code** (a state, a race, an injury class numbered 0,
1, 2, ...: its order is an accident of the numbering, and bands such as
``[10-19]`` join states that have nothing in common). :func:`read_integers`
decides from the data, the way a person would look at it: are a value's
records like those of its *neighbours* more than like those of any other
value?

Each value is described by its profile on the other columns
(:func:`~kanon_graph.hierarchy._groups.profiles`). The **order ratio** is
the mean squared distance between the profiles of neighbouring values
(in numeric order) over the mean squared distance between the profiles of
any two values, each pair weighed by its rarer value's rows and each
distance less what sampling noise alone would give (a value seen on ``n``
rows has a profile whose shares wobble by about ``p (1 - p) / n``). For an
age it is far below one (0.02 on Adult, FARS's ``iage``); for a numbering it
is about one (FARS's ``istatenum`` 0.97, ``irace`` 1.12). Below
:data:`QUANTITY_BELOW` the column is a quantity, from :data:`CODE_FROM` on
a code; in between the reading is unsure and :func:`cheaper` lets a quick,
data-only release of each draft choose. A column whose values do not differ
beyond noise (few rows per value, or nothing to tell them apart) gives no
evidence and stays a quantity. The name (``state``, ``race``, ``code``)
is reported as a hint, never used as proof.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ._groups import Context, profiles, similar_groups
from ._tree import Hierarchy

__all__ = ["IntegerReading", "read_integers", "cheaper", "as_code", "without_near_root",
           "QUANTITY_BELOW", "CODE_FROM", "HALVES", "ALMOST_ALL"]

#: An order ratio below this reads as a quantity (FARS's iage 0.02, ideathday 0.52).
QUANTITY_BELOW = 0.7
#: An order ratio from this on reads as a code (FARS's istatenum 0.97, irace 1.12).
CODE_FROM = 0.85
#: At most this many values (the most common) are compared (the cost stays bounded).
_MOST = 400
#: Fewer rows per value on average than this give no evidence of a code.
_ROWS_PER_VALUE = 10
#: Profiles must differ beyond noise by this share of their raw spread to be evidence.
_SIGNAL = 0.1
#: The k of the quick release :func:`cheaper` makes of each draft.
_K = 5
#: Drafted groups halve from one level to the next (similar_groups's default thirds
#: took Adult's 7 marital statuses and FARS's 7 injury classes straight to 2 groups;
#: halves keep a level between, and the data-only loss fell on both: adult 0.0572 ->
#: 0.0551 at k = 5, fars 0.0695 -> 0.0656).
HALVES = 2
#: In a column of fewer than MIN_VALUES numbers, a band level one of whose bands holds
#: this share of the rows is left out (it costs as much as joining half the values and
#: hides almost as much as ``*``; FARS's isex: fars's data-only loss 0.0934 -> 0.0920 at
#: k = 10).
ALMOST_ALL = 0.9
_NAMED = re.compile(r"(code|state|race|region|county|country|fips|occup|industr|type|"
                    r"kind|class|categ|status|group|num(ber)?$|_id$|^id$|^id_)", re.IGNORECASE)


@dataclass(frozen=True)
class IntegerReading:
    """What the data says an integer column is: ``"code"``, ``"quantity"`` or
    ``"unsure"``, the order ratio (``None`` without evidence) and why, in words."""

    kind: str
    ratio: float | None
    why: str


def _integers(uniques: Sequence[object]) -> bool:
    for u in uniques:
        if isinstance(u, (bool, np.bool_)):
            return False
        if isinstance(u, (int, np.integer)):
            continue
        if isinstance(u, str) and u.strip().lstrip("-").isdigit() and u == u.strip():
            continue
        return False
    return True


def _by_value(context: Context, column: str) -> tuple[list[str], np.ndarray]:
    """The texts of an integer column's values that the order ratio compares, in
    numeric order, and their row counts.

    Every distinct present value when there are at most :data:`_MOST` and no two
    texts are one number (counted from the column's factorization), else the
    :data:`_MOST` most common, as ``value_counts`` ranks them.
    """
    codes, uniques = context.factorized(column)
    numbers = [int(u) for u in uniques]
    if len(numbers) <= _MOST and len(set(numbers)) == len(numbers):
        seen = np.bincount(codes + 1, minlength=len(uniques) + 1)[1:]
        order = np.argsort(numbers, kind="stable")
        texts = context.texts(column)
        return [texts[i] for i in order], seen[order].astype(float)
    kept = context.column(column).dropna().value_counts().iloc[:_MOST]
    order = np.argsort([int(v) for v in kept.index], kind="stable")
    return [str(kept.index[i]) for i in order], kept.to_numpy(dtype=float)[order]


def order_ratio(context: Context, column: str, others: Sequence[str]) -> float | None:
    """The order ratio of integer ``column`` (see the module's text), ``None`` without
    evidence (too few rows per value, no other column, or no spread beyond noise)."""
    codes = context.factorized(column)[0]
    distinct = len(context.factorized(column)[1])
    if not others or distinct < 3 or (codes >= 0).sum() / distinct < _ROWS_PER_VALUE:
        return None
    values, weights = _by_value(context, column)
    points = profiles(context, column, values, others)
    noise = (points * (1 - points)).sum(axis=1) / weights
    # squared distances |p_i|^2 + |p_j|^2 - 2 p_i.p_j (one matrix product, not a
    # values x values x bins array; equal to the direct sum within rounding)
    square = (points * points).sum(axis=1)
    raw = np.maximum(square[:, None] + square[None, :] - 2.0 * (points @ points.T), 0.0)
    np.fill_diagonal(raw, 0.0)
    clean = raw - noise[:, None] - noise[None, :]      # not clipped: noise averages out
    pair = np.minimum(weights[:, None], weights[None, :])
    np.fill_diagonal(pair, 0.0)
    spread = (clean * pair).sum() / pair.sum()
    if not spread > _SIGNAL * (raw * pair).sum() / pair.sum():
        return None
    i = np.arange(len(values) - 1)
    near = (clean[i, i + 1] * pair[i, i + 1]).sum() / pair[i, i + 1].sum()
    return max(float(near / spread), 0.0)


def read_integers(context: Context, column: str, others: Sequence[str],
                  uniques: Sequence[object]) -> IntegerReading | None:
    """Code, quantity or unsure, for an integer column of at least five values
    (``None`` for a column that is not integers).

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> state = rng.integers(0, 8, 4000)               # regions 0, 2, 1, 3, 0, 3, 1, 2
    >>> road = np.array(list("abcd"))[np.array([0, 2, 1, 3, 0, 3, 1, 2])[state]]
    >>> age = rng.integers(20, 28, 4000)
    >>> t = pd.DataFrame({"state": state, "road": road,
    ...                   "age": age, "weight": age * 3 + rng.random(4000)})
    >>> read_integers(Context(t), "state", ["road"], list(range(8))).kind
    'code'
    >>> read_integers(Context(t), "age", ["weight"], list(range(20, 28))).kind
    'quantity'
    """
    if not _integers(uniques):
        return None
    hint = (f"; its name, {column!r}, sounds like a code (a hint, not evidence)"
            if _NAMED.search(str(column)) else "")
    ratio = order_ratio(context, column, others)
    if ratio is None:
        return IntegerReading("quantity", None,
                              "a quantity: its values' records do not differ beyond noise, "
                              "so nothing says its order is an accident of numbering" + hint)
    said = (f"neighbouring values' records are {ratio:.2f} times as far apart as any two "
            f"values'")
    if ratio < QUANTITY_BELOW:
        return IntegerReading("quantity", ratio, f"a quantity: {said}, so its order means "
                                                 f"something" + hint)
    if ratio >= CODE_FROM:
        return IntegerReading("code", ratio, f"a code: {said}, so its order is an accident "
                                             f"of numbering" + hint)
    return IntegerReading("unsure", ratio, f"code or quantity: {said}" + hint)


def _release_cost(hierarchy: Hierarchy, context: Context, column: str,
                  others: Sequence[str]) -> float:
    """A quick, data-only release of ``column`` with ``hierarchy``, the other columns kept.

    The other columns are taken as the profiles code them (top values,
    quintiles), jointly. Each row is recoded locally to the lowest level at
    which its node and the other columns' codes are shared by at least
    ``k`` rows, and costs that node's (values in it - 1) / (values - 1)
    (issue 48's data yardstick); a row that no level below the root
    protects costs 1.
    """
    codes, uniques = pd.factorize(context.table[column].astype(str), use_na_sentinel=True)
    keep = codes >= 0
    n = len(uniques)
    if n < 2:
        return 0.0
    joint = np.zeros(int(keep.sum()), dtype=np.int64)
    for other in others:
        other_codes, width = context.coded(other)
        joint = pd.factorize(joint * (width + 1) + other_codes[keep] + 1)[0]
    joint = joint.astype(np.int64)
    paths = [hierarchy.ancestors(u) for u in uniques]
    cost = np.ones(len(joint))
    open_ = np.ones(len(joint), dtype=bool)
    for level in range(hierarchy.height + 1):
        nodes, node_of = np.unique([p[level] for p in paths], return_inverse=True)
        size = np.bincount(node_of, minlength=len(nodes))
        row_node = node_of[codes[keep]]
        cell = pd.factorize(row_node * (int(joint.max()) + 1) + joint)[0]
        now = open_ & (np.bincount(cell)[cell] >= _K)
        cost[now] = (size[row_node[now]] - 1) / (n - 1)
        open_ &= ~now
    return float(cost.mean())


def cheaper(drafts: Sequence[Hierarchy], context: Context, column: str,
            others: Sequence[str]) -> tuple[int, list[float]]:
    """The index of the draft whose quick release (:func:`_release_cost`) loses least,
    and every draft's cost (the first draft wins a tie)."""
    costs = [_release_cost(h, context, column, others) for h in drafts]
    return int(np.argmin(costs)), costs


def without_near_root(bands: Hierarchy, present: pd.Series,
                       widths: Sequence[float]) -> tuple[Hierarchy, list[float]]:
    """``bands`` without the levels below the root in which one band holds at least
    :data:`ALMOST_ALL` of the rows (FARS's ``isex``: ``[0-1]`` held 98%), and the
    widths kept."""
    counts = present.map(str).value_counts()
    rows = bands.to_rows()
    total = float(counts.sum())
    drop = set()
    for level in range(1, bands.height):
        held: dict[str, int] = {}
        for row in rows:
            held[row[level]] = held.get(row[level], 0) + int(counts.get(row[0], 0))
        if total and max(held.values()) / total >= ALMOST_ALL:
            drop.add(level)
    if not drop:
        return bands, list(widths)
    kept = [[cell for i, cell in enumerate(row) if i not in drop] for row in rows]
    return (Hierarchy(kept, name=bands.name, source=bands.source),
            [w for i, w in enumerate(widths, start=1) if i not in drop])


def _others(context: Context, column: str) -> list[str]:
    return [c for c in context.table.columns if c != column]


def as_code(context: Context, column: str, reading: IntegerReading,
             bands: Hierarchy | None, widths: Sequence[float]) -> tuple[Hierarchy, str] | None:
    """An integer column read as a code (or unsure): groups of look-alike values, or the
    bands when the reading is unsure and a quick data-only release of each prefers them."""
    rows = similar_groups(context, column, _others(context, column), factor=HALVES)
    if len(rows[0]) < 3:                          # no level between a value and *
        return None
    groups = Hierarchy(rows, name=column, source="suggest")
    sizes = " -> ".join(str(len({r[i] for r in rows})) for i in range(1, len(rows[0]) - 1))
    grouped = (f"groups of values whose records look alike on the other columns "
               f"({sizes} groups, then *)")
    if reading.kind == "code" or bands is None:
        return groups, f"numeric ({reading.why}): {grouped}"
    chosen, costs = cheaper([bands, groups], context, column, _others(context, column))
    shown = ", ".join(f"{w:g}" for w in widths)
    tried = (f"drafted both, a quick data-only release at k = 5 lost {costs[0]:.3f} with "
             f"bands, {costs[1]:.3f} with groups")
    if chosen == 1:
        return groups, f"numeric ({reading.why}; {tried}): {grouped}"
    return bands, f"numeric ({reading.why}; {tried}): bands of width {shown}"
