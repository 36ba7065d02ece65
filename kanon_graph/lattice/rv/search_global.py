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

This module also holds the sorted :class:`StringList` the hybrid and
distributed searches reuse; the ranking rule, the search context and the
assembly of the :class:`~kanon_graph.registry.Partition` live in
:mod:`~kanon_graph.lattice.rv.search_common` (re-exported here).

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

**Suppression.** A success that suppresses records is ranked by its charged
RV (suppressed records count at the lowest RV, see
:mod:`~kanon_graph.lattice.rv.search_common`), which may lie below strings of
lower plain RV or more general ones that suppress fewer records. Such a
success prunes only the strings whose plain RV is below its charged RV (the
plain RV bounds the charged one from above); the three rules above apply
to successes that suppress nothing. The answer is still the exhaustive
optimum by charged RV.
"""

from __future__ import annotations

import numpy as np

from ...registry import K_L_T, register_algorithm
from .search_common import (SearchContext, best_string, check_budget, finish, prepare,
                            ranking_order, string_bytes, success_table)

__all__ = ["rv_global", "StringList", "make_strings", "ranking_order", "best_string",
           "string_bytes", "DEFAULT_MEMORY_BUDGET", "SearchContext", "prepare", "finish",
           "check_budget", "success_table", "global_loop"]

#: Memory the string list of :func:`rv_global` may take (bytes).
DEFAULT_MEMORY_BUDGET = 256 * 2**20

PRUNING_RULES = ("lower_rv", "lower_rank", "more_general", "more_specific")


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

    def apply(self, node, rv, anonymous, at=None, suppressed=0, charged=None, spread=True):
        """Remove ``node`` and what its outcome prunes (Figure 4, lines 5-12).

        A success still in the list also removes every string ranked below
        it (``lower_rank``: equal RV, worse by the tie-breaking rule).
        ``at`` is the node's index in the list when the caller knows it
        (the midpoint): then only the strings ranked above it are scanned,
        since every more specific string ranks above a failure and every
        string below a success goes anyway.

        A success that suppresses records (``suppressed > 0``) is worth its
        ``charged`` RV (:func:`~kanon_graph.lattice.rv.search_common.charged_rv`),
        below its plain RV, and a more general string may suppress fewer
        records: it removes only itself and the strings whose plain RV (an
        upper bound of their charged RV) is below ``charged``.

        ``spread=False`` (a check that is not monotone): a failure removes
        the failing string only.
        """
        if not len(self):
            return
        g = np.asarray(node, dtype=np.int8)
        if not anonymous and not spread:
            itself = (self.levels == g).all(1)
            self.levels, self.rv = self.levels[~itself], self.rv[~itself]
            return
        if anonymous and suppressed:
            self._apply_charged(g, rv if charged is None else charged)
            return
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

    def _apply_charged(self, g, charged):
        """The pruning of a success that suppresses records, worth ``charged``."""
        lower = self.rv < charged
        itself = (self.levels == g).all(1)
        self.pruned["lower_rv"] += int(lower.sum())
        keep = ~(lower | itself)
        self.levels, self.rv = self.levels[keep], self.rv[keep]

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


def global_loop(strings, test, success, charge=None, spread=True, report=None):
    """Figure 4's while loop over ``strings``; returns the number of tests.

    ``charge(node, rv) -> (charged rv, suppressed)`` values a success that
    suppresses records (:func:`~kanon_graph.lattice.rv.search_common.make_charge`);
    without it a success is worth its plain RV. ``spread=False`` when the
    check is not monotone: a failure then prunes nothing but itself.
    ``report(done, total, text)`` (a :mod:`kanon_graph._progress` reporter)
    hears every 16 tests, and at the end, how many of the strings the loop
    started with are decided (tested or pruned).
    """
    tests = 0
    start = len(strings)
    while len(strings):
        at = len(strings) // 2
        node, rv = strings.midpoint()
        ok = test(node)
        tests += 1
        value, suppressed = rv, 0
        if ok:
            if charge is not None:
                value, suppressed = charge(node, rv)
            success.append((node, value))
        strings.apply(node, rv, ok, at, suppressed=suppressed, charged=value, spread=spread)
        if report and (tests % 16 == 0 or not len(strings)):
            report(start - len(strings), start, f"{tests} strings tested, "
                   f"{len(success)} successful")
    if report and not start:
        report(0, 0, "no string left to test")
    return tests


def _full_string_list(ctx, memory_budget, algorithm):
    """The string list of every node between the pre-pruned bounds, within the budget."""
    pre = ctx.pre
    check_budget(pre.n_strings, len(ctx.heights), memory_budget, algorithm)
    levels, rv = make_strings(pre.lowest, pre.highest, ctx.rv.tables)
    return StringList(levels, rv, ctx.heights)


def rv_global(data, model, *, rng=None, suppression=None, weights=None, rules=None,
              rv_tables=None, max_levels=None, memory_budget=DEFAULT_MEMORY_BUDGET,
              respect_boundaries=False, progress=None):
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
    respect_boundaries : bool
        Never go past a MAGVal: RV tables, pre-pruning and tests use capped
        recodings (values stop at their MAGVals), every attribute's levels
        end at its boundary level, and the release is the capped recoding.
    progress : None, bool or callable
        ``progress(done, total, text)`` every 16 tests: ``done`` of the
        ``total`` strings of the list are decided (tested or pruned); see
        :mod:`kanon_graph._progress`.

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
                  max_levels=max_levels, respect_boundaries=respect_boundaries)
    strings = _full_string_list(ctx, memory_budget, "rv-global")
    success = []
    from ..._progress import reporter

    with reporter(progress, "rv-global") as report:
        global_loop(strings, ctx.test, success, ctx.charge, spread=ctx.spread, report=report)
    return finish(ctx, success, algorithm="rv-global", generated=strings.generated,
                  pruned=strings.pruned)


register_algorithm("rv-global", rv_global, recoding="global", models=K_L_T, needs_hierarchies=True,
                   supports_suppression=True, supports_boundaries=True, weighted=True,
                   description="Morton et al.'s global research-value search (2012, Figure 4)")
