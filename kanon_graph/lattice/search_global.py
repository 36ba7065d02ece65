"""Global optimization of the research value: a pruned binary search (Figure 4).

Morton, Mahoui, Gibson & Yechuri, "An enhanced utility-driven data
anonymization method", section 5.3.2 and Figure 4. Every generalization
string left by the pre-pruning (Figure 3) is generated and sorted in
ascending order of its total research value. The string at the midpoint of
the list is tested. On success it joins the success list, and every string
of lower RV and every more general string leave the list (and, with the
ranking rule below, the strings of equal RV that rank below it); on failure every
more specific string leaves it (it cannot pass either). The tested string
leaves the list in both cases, and the search goes on until the list is
empty. The answer is the successful string with the highest RV, then the
fewest attributes at their root level.

This module also holds what the local, hybrid and distributed searches
share: the sorted :class:`StringList`, the ranking rule and the assembly of
the :class:`~kanon_graph.registry.Partition`.

**Ranking (ties broken deterministically).** Strings are ranked by: higher
total RV (rounded to 10 decimals, so sums that differ only by floating-point
noise tie); then fewer attributes at their root level; then a smaller sum of
levels; then the lexicographically smaller level vector. The list is sorted
ascending by rank, so the best string is last.

**Why it is exact.** A string leaves the list only if it fails (it lies
below a failure), or ranks below a known success: lower RV, equal RV and a
worse rank (a refinement of Figure 4's line 6 that makes ties cheap), or more
general than a success (RV tables never increase with the level, so its RV is not
higher, and it has at least as many root attributes and a larger level sum).
The best anonymous string is therefore tested, and the answer equals an
exhaustive search's.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from ..registry import Partition, register_algorithm
from .frequency import FrequencyEngine
from .prepruning import prepruning
from .rv import research_values

__all__ = ["rv_global", "StringList", "make_strings", "ranking_order", "best_string",
           "string_bytes", "DEFAULT_MEMORY_BUDGET"]

#: Memory the string list of :func:`rv_global` may take (bytes).
DEFAULT_MEMORY_BUDGET = 256 * 2**20

PRUNING_RULES = ("lower_rv", "lower_rank", "more_general", "more_specific")


def string_bytes(d):
    """Bytes one string of ``d`` attributes takes in a :class:`StringList`.

    ``d`` int8 levels, a float64 RV, the int64 sort index and a mask byte.
    """
    return d + 8 + 8 + 1


def make_strings(lowest, highest, tables):
    """Every string with ``lowest[i] <= levels[i] <= highest[i]``, and its total RV.

    Returns
    -------
    levels : ndarray of int8, shape (m, d)
    rv : ndarray of float64, shape (m,)
        Sum over attributes of ``tables[i][levels[i]]``, rounded to 10 decimals.

    Examples
    --------
    >>> levels, rv = make_strings([0, 1], [1, 2], [[0.5, 0.0], [0.5, 0.3, 0.0]])
    >>> levels.tolist(), rv.tolist()
    ([[0, 1], [0, 2], [1, 1], [1, 2]], [0.8, 0.5, 0.3, 0.0])
    """
    sizes = [hi - lo + 1 for lo, hi in zip(lowest, highest)]
    m = int(np.prod(sizes, dtype=np.int64)) if sizes else 1
    d = len(sizes)
    levels = np.empty((m, d), dtype=np.int8)
    rv = np.zeros(m)
    inner = m
    for j, (lo, size) in enumerate(zip(lowest, sizes)):
        inner //= size
        column = np.tile(np.repeat(np.arange(lo, lo + size, dtype=np.int8), inner),
                         m // (inner * size))
        levels[:, j] = column
        rv += np.asarray(tables[j], dtype=float)[column]
    return levels, np.round(rv, 10)


def ranking_order(levels, rv, heights):
    """Indices sorting strings ascending by rank (the best string last)."""
    levels = np.asarray(levels)
    heights = np.asarray(heights, dtype=np.int64)
    roots = (levels == heights).sum(1)
    total = levels.sum(1, dtype=np.int64)
    radices = heights + 1
    if float(np.prod(radices.astype(float))) < 2.0**62:
        # the level vector as one mixed-radix number: numeric order = lexicographic order
        code = np.zeros(len(levels), dtype=np.int64)
        for j in range(levels.shape[1]):
            code = code * radices[j] + levels[:, j]
        keys = [-code]
    else:
        keys = [-levels[:, j].astype(np.int64) for j in range(levels.shape[1] - 1, -1, -1)]
    return np.lexsort(keys + [-(roots * (int(total.max(initial=0)) + 1) + total),
                              np.asarray(rv)])


def best_string(success, heights):
    """The best ``(levels, rv)`` of a success list by the ranking rule, or None."""
    if not success:
        return None
    levels = np.array([s[0] for s in success], dtype=np.int64).reshape(len(success), -1)
    rv = np.array([s[1] for s in success], dtype=float)
    i = ranking_order(levels, rv, heights)[-1]
    return tuple(int(v) for v in levels[i]), float(rv[i])


class StringList:
    """Generalization strings sorted ascending by rank, pruned as results come in.

    Parameters
    ----------
    levels : ndarray (m, d)
    rv : ndarray (m,)
    heights : sequence of int
        The attributes' heights (to count root attributes in the ranking).

    Attributes
    ----------
    pruned : dict
        Strings removed by each rule (``lower_rv``, ``lower_rank``,
        ``more_general``, ``more_specific``), the tested strings themselves
        not included.
    """

    def __init__(self, levels, rv, heights):
        order = ranking_order(levels, rv, heights)
        self.levels = np.ascontiguousarray(np.asarray(levels, dtype=np.int8)[order])
        self.rv = np.asarray(rv, dtype=float)[order]
        self.generated = len(self.rv)
        self.pruned = dict.fromkeys(PRUNING_RULES, 0)

    def __len__(self):
        return len(self.rv)

    def midpoint(self):
        """``(levels, rv)`` of the string at position ``len // 2``."""
        i = len(self) // 2
        return tuple(int(v) for v in self.levels[i]), float(self.rv[i])

    def apply(self, node, rv, anonymous, at=None):
        """Remove ``node`` and what its outcome prunes (Figure 4, lines 5-12).

        A success still in the list also removes every string ranked below
        it (``lower_rank``: equal RV, worse by the tie-breaking rule).
        ``at`` is the node's index in the list when the caller knows it
        (the midpoint): then only the strings ranked above it are scanned,
        since every more specific string ranks above a failure and every
        string below a success goes anyway.
        """
        if not len(self):
            return
        g = np.asarray(node, dtype=np.int8)
        if at is None:
            found = np.flatnonzero((self.levels == g).all(1))
            if not found.size:
                self._apply_outside(g, rv, anonymous)
                return
            at = int(found[0])
        above = slice(at + 1, None)
        if anonymous:
            lower = int(np.searchsorted(self.rv, rv, side="left"))
            self.pruned["lower_rv"] += lower
            self.pruned["lower_rank"] += at - lower
            general = (self.levels[above] >= g).all(1)
            self.pruned["more_general"] += int(general.sum())
            keep = ~general
            self.levels = self.levels[above][keep]
            self.rv = self.rv[above][keep]
        else:
            specific = (self.levels[above] <= g).all(1)
            self.pruned["more_specific"] += int(specific.sum())
            keep = ~specific
            self.levels = np.concatenate([self.levels[:at], self.levels[above][keep]])
            self.rv = np.concatenate([self.rv[:at], self.rv[above][keep]])

    def _apply_outside(self, g, rv, anonymous):
        """The pruning of an outcome for a string no longer in the list."""
        if anonymous:
            lower = self.rv < rv
            general = (self.levels >= g).all(1) & ~lower
            self.pruned["lower_rv"] += int(lower.sum())
            self.pruned["more_general"] += int(general.sum())
            drop = lower | general
        else:
            drop = (self.levels <= g).all(1)
            self.pruned["more_specific"] += int(drop.sum())
        if drop.any():
            self.levels = self.levels[~drop]
            self.rv = self.rv[~drop]


def global_loop(strings, test, success):
    """Figure 4's while loop over ``strings``; returns the number of tests."""
    tests = 0
    while len(strings):
        at = len(strings) // 2
        node, rv = strings.midpoint()
        ok = test(node)
        tests += 1
        if ok:
            success.append((node, rv))
        strings.apply(node, rv, ok, at)
    return tests


# ------------------------------------------------------------ shared parts
@dataclass
class SearchContext:
    """What every RV search prepares: RV tables, pre-pruning, engine, counters."""

    data: object
    model: object
    suppression: float
    rv: object
    pre: object
    engine: object
    started: float
    tests: int = 0
    known: int = 0
    stats: dict = field(default_factory=dict)

    @property
    def heights(self):
        return tuple(self.data.heights)

    def test(self, node):
        """Check one string with the frequency engine."""
        self.tests += 1
        return bool(self.engine.is_anonymous(node, self.model, self.suppression))


def prepare(data, model, suppression, *, weights=None, rules=None, rv_tables=None,
            max_levels=None):
    """RV tables, the pre-pruning and a frequency engine for one search."""
    started = time.perf_counter()
    suppression = float(suppression or 0.0)
    rv = research_values(data, weights=weights, rules=rules, rv_tables=rv_tables)
    pre = prepruning(data, model, suppression=suppression, max_levels=max_levels)
    return SearchContext(data, model, suppression, rv, pre, FrequencyEngine(data), started)


def success_table(success, heights, limit=50):
    """The best ``limit`` successes, best first: levels, research value, root attributes.

    The paper reports the success list with the number of root attributes of
    each string, so that a data expert may pick another string of similar RV.
    """
    if not success:
        return []
    levels = np.array([s[0] for s in success], dtype=np.int64).reshape(len(success), -1)
    rv = np.array([s[1] for s in success], dtype=float)
    order = ranking_order(levels, rv, heights)[::-1][:limit]
    return [{"levels": tuple(int(v) for v in levels[i]), "research_value": float(rv[i]),
             "root_attributes": int((levels[i] == np.asarray(heights)).sum())} for i in order]


def finish(ctx, success, *, algorithm, generated, pruned, extra=None, listing=None):
    """The :class:`Partition` of the best success string, with the search statistics.

    ``listing`` is the success list to report (default ``success``).
    """
    best = best_string(success, ctx.heights)
    if best is None:
        raise ValueError(f"{algorithm}: no generalization string satisfies the privacy model "
                         f"(k={ctx.model.k}) within the allowed levels; try a smaller k, a "
                         f"suppression budget or higher max_levels")
    levels, value = best
    class_of, n_classes = ctx.engine.class_of(levels)
    failing = np.asarray(ctx.model.failing(class_of, ctx.data, n_classes), dtype=bool)
    class_of = class_of.astype(np.int64)
    class_of[failing[class_of]] = -1
    roots = sum(int(l == h) for l, h in zip(levels, ctx.heights))
    stats = {
        "research_value": value,
        "max_research_value": float(sum(t[0] for t in ctx.rv.tables)),
        "root_attributes": roots,
        "strings_generated": int(generated),
        "frequency_sets": ctx.engine.frequency_sets_computed,
        "prepruning_tests": ctx.pre.tests,
        "tests": ctx.tests,
        "nodes_checked": ctx.tests,
        "metric_value": value,
        "known_without_test": ctx.known,
        "strings_pruned": dict(pruned),
        "success_strings": len(success),
        "successes": success_table(list(dict.fromkeys(
            success if listing is None else listing)), ctx.heights),
        "withheld": list(ctx.pre.withheld),
        "levels_dropped": ctx.pre.levels_dropped,
        "search_seconds": time.perf_counter() - ctx.started,
    }
    stats.update(extra or {})
    return Partition(class_of, levels, stats)


def check_budget(n_strings, d, memory_budget, where):
    """The byte size of a string list, or a clear error if it exceeds the budget."""
    if isinstance(memory_budget, bool) or not isinstance(memory_budget, (int, np.integer)) \
            or memory_budget <= 0:
        raise ValueError(f"The 'memory_budget' parameter of {where} must be a positive "
                         f"number of bytes. Got {memory_budget!r}.")
    need = n_strings * string_bytes(d)
    if need > memory_budget:
        raise MemoryError(f"{where}: the {n_strings:,} generalization strings need "
                          f"{need:,} bytes, more than memory_budget={memory_budget:,}; use "
                          f"algorithm='rv-distributed' or raise memory_budget")
    return need


def rv_global(data, model, *, rng=None, suppression=None, weights=None, rules=None,
              rv_tables=None, max_levels=None, memory_budget=DEFAULT_MEMORY_BUDGET):
    """Full-domain generalization with the highest total research value (Figure 4).

    Parameters
    ----------
    data : EncodedTable
    model : PrivacyModel
    rng : numpy.random.Generator
        Unused: the search is deterministic.
    suppression : float, optional
        Fraction of records that may be suppressed (default 0).
    weights : dict or "correlation", optional
        Attribute weights (default equal); see
        :func:`~kanon_graph.lattice.rv.research_values`.
    rules : dict, optional
        Data-constraint rules per attribute (:class:`~kanon_graph.lattice.rv.Rule`).
    rv_tables : dict, optional
        RV per level given directly for some attributes (Table 3).
    max_levels : dict, optional
        Most general level allowed per attribute; an attribute failing there
        on its own is withheld (released at its root, ``*``).
    memory_budget : int
        Bytes the string list may take (:func:`string_bytes` per string).

    Returns
    -------
    Partition
        ``stats`` holds ``research_value``, ``root_attributes``,
        ``strings_generated``, ``frequency_sets``, ``tests``,
        ``strings_pruned`` (per rule), ``success_strings``, ``successes``
        (the best 50 successful strings with their RV and root attributes,
        best first), ``withheld``, ``levels_dropped``, ``search_seconds``.

    References
    ----------
    Morton, Mahoui, Gibson & Yechuri, "An enhanced utility-driven data
    anonymization method", Transactions on Data Privacy 5 (2012),
    section 5.3.2, Figure 4.

    Examples
    --------
    >>> import kanon_graph as kg
    >>> res = kg.anonymize(kg.datasets.paper_003_table(), kg.datasets.paper_003_schema(),
    ...                    k=3, algorithm="rv-global", weights={"gender": 1, "age": 2, "zip": 1})
    >>> res.levels, round(res.stats["research_value"], 4)
    ({'gender': 0, 'age': 3, 'zip': 2}, 0.25)
    """
    ctx = prepare(data, model, suppression, weights=weights, rules=rules, rv_tables=rv_tables,
                  max_levels=max_levels)
    pre = ctx.pre
    check_budget(pre.n_strings, len(ctx.heights), memory_budget, "rv-global")
    levels, rv = make_strings(pre.lowest, pre.highest, ctx.rv.tables)
    strings = StringList(levels, rv, ctx.heights)
    del levels, rv
    success = []
    global_loop(strings, ctx.test, success)
    return finish(ctx, success, algorithm="rv-global", generated=strings.generated,
                  pruned=strings.pruned)


register_algorithm("rv-global", rv_global, recoding="global", needs_hierarchies=True,
                   supports_suppression=True,
                   description="Morton et al.'s global research-value search (2012, Figure 4)")
