"""What the RV searches share: the ranking rule, the search context and the result.

Morton, Mahoui, Gibson & Yechuri, "An enhanced utility-driven data
anonymization method", Transactions on Data Privacy 5 (2012), section 5.3.
Every RV search (:mod:`~kanon_graph.lattice.rv.search_global`,
:mod:`~kanon_graph.lattice.rv.search_local`,
:mod:`~kanon_graph.lattice.rv.search_hybrid`,
:mod:`~kanon_graph.lattice.rv.search_distributed`) prepares the RV tables, the
pre-pruning and a frequency engine (:func:`prepare`), ranks strings by
:func:`ranking_order` and turns its best success into a
:class:`~kanon_graph.registry.Partition` (:func:`finish`).

**Ranking (ties broken deterministically).** Strings are ranked by: higher
total RV (rounded to 10 decimals); then fewer suppressed records (when
known); then fewer attributes at their root level; then a smaller sum of
levels; then the lexicographically smaller level vector. Sorted ascending by
rank, the best string is last.

**Suppressed records.** A suppressed record releases nothing, so it carries
the lowest research value each attribute can have (its most general level,
as ARX counts a suppressed record as fully generalized). A success string
that suppresses ``s`` of ``n`` records is ranked by its *charged* RV, the
record-weighted mean ``(1 - s/n) RV(levels) + (s/n) RV_min``
(:func:`charged_rv`), never above its plain RV; ties go to fewer suppressed
records. So suppressing the whole table is never chosen over a release. The
string lists stay sorted by plain RV, an upper bound of the charged one, and
prune only what that bound proves (:meth:`StringList.apply`).

**Monotonicity.** A failure removes the more specific strings only when
the check is monotone for the budget (k and distinct l; entropy /
recursive l and t only without suppression:
:meth:`~kanon_graph.privacy.PrivacyModel.is_monotone`). Otherwise a
failure removes the failing string alone, and the RV bounds do the pruning.

**Generalization boundaries.** With ``respect_boundaries=True`` the RV
tables, the pre-pruning and every test use capped recodings (values stop at
their MAGVals, :mod:`~kanon_graph.lattice.capped`), each attribute's levels
end at its boundary level, and the release is the capped recoding. Capped
recodings keep the generalization property and RV tables stay
non-increasing in the level, so every pruning rule stays exact. An
attribute held below its root by a MAGVal never counts as a root attribute.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from ...registry import Partition
from ..capped import binding_boundaries, boundary_levels, unreachable_error
from ..frequency import FrequencyEngine, spreads, suppression_budget
from .prepruning import prepruning
from .values import research_values

__all__ = ["string_bytes", "ranking_order", "best_string", "SearchContext", "prepare",
           "success_table", "finish", "check_budget", "charged_rv", "make_charge"]


def string_bytes(d):
    """Bytes one string of ``d`` attributes takes in a :class:`StringList`.

    ``d`` int8 levels, a float64 RV, the int64 sort index and a mask byte.
    """
    return d + 8 + 8 + 1


def charged_rv(rv, suppressed, n, lowest):
    """The RV of a string that suppresses ``suppressed`` of ``n`` records.

    Each suppressed record counts at ``lowest`` (the sum over attributes of
    their lowest RV): ``(1 - s/n) rv + (s/n) lowest``, rounded to 10 decimals.

    Examples
    --------
    >>> charged_rv(0.5, 0, 6, 0.0), charged_rv(0.5, 3, 6, 0.0), charged_rv(0.5, 6, 6, 0.0)
    (0.5, 0.25, 0.0)
    """
    if suppressed == 0 or n == 0:
        return round(float(rv), 10)
    share = suppressed / n
    return round((1.0 - share) * float(rv) + share * float(lowest), 10)


def make_charge(engine, model, n, tables):
    """``charge(node, rv) -> (charged rv, suppressed records)`` for one search."""
    lowest = float(sum(min(t) for t in tables))

    def charge(node, rv):
        suppressed = engine.suppressed_records(node, model)
        return charged_rv(rv, suppressed, n, lowest), suppressed

    return charge


def ranking_order(levels, rv, heights, suppressed=None):
    """Indices sorting strings ascending by rank (the best string last).

    ``suppressed`` (optional, per string): fewer suppressed records rank
    higher among strings of equal RV.
    """
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
    keys = keys + [-(roots * (int(total.max(initial=0)) + 1) + total)]
    if suppressed is not None:
        keys.append(-np.asarray(suppressed, dtype=np.int64))
    return np.lexsort(keys + [np.asarray(rv)])


def best_string(success, heights, suppressed=None):
    """The best ``(levels, rv)`` of a success list by the ranking rule, or None.

    ``suppressed`` (optional): a callable giving a string's suppressed
    records, to break ties of equal RV towards fewer.
    """
    if not success:
        return None
    levels = np.array([s[0] for s in success], dtype=np.int64).reshape(len(success), -1)
    rv = np.array([s[1] for s in success], dtype=float)
    counts = None if suppressed is None else [suppressed(s[0]) for s in success]
    i = ranking_order(levels, rv, heights, counts)[-1]
    return tuple(int(v) for v in levels[i]), float(rv[i])


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
    capped: bool = False
    tests: int = 0
    known: int = 0
    stats: dict = field(default_factory=dict)

    @property
    def heights(self):
        return tuple(self.data.heights)

    @property
    def spread(self):
        """Whether a failure may be spread to the more specific strings (a monotone check)."""
        return spreads(self.model, suppression_budget(self.suppression, self.data.records))

    def test(self, node):
        """Check one string with the frequency engine."""
        self.tests += 1
        return bool(self.engine.is_anonymous(node, self.model, self.suppression))

    def charge(self, node, rv=None):
        """``(charged RV, suppressed records)`` of a successful string (:func:`charged_rv`)."""
        rv = self.rv.total(node) if rv is None else rv
        return make_charge(self.engine, self.model, self.data.records, self.rv.tables)(node, rv)

    def suppressed(self, node):
        """Records suppressed at ``node``."""
        return self.engine.suppressed_records(node, self.model)

    def best(self, success):
        """The best ``(levels, rv)`` of ``success``, ties to fewer suppressed records."""
        return best_string(success, self.heights, self.suppressed)


def prepare(data, model, suppression, *, weights=None, rules=None, rv_tables=None,
            max_levels=None, respect_boundaries=False):
    """RV tables, the pre-pruning and a frequency engine for one search
    (all on capped recodings with ``respect_boundaries``)."""
    started = time.perf_counter()
    suppression = float(suppression or 0.0)
    capped = bool(respect_boundaries)
    rv = research_values(data, weights=weights, rules=rules, rv_tables=rv_tables,
                         respect_boundaries=capped)
    pre = prepruning(data, model, suppression=suppression, max_levels=max_levels,
                     respect_boundaries=capped)
    return SearchContext(data, model, suppression, rv, pre,
                         FrequencyEngine(data, capped=capped), started, capped)


def success_table(success, heights, limit=50, suppressed=None):
    """The best ``limit`` successes, best first: levels, research value, root attributes.

    ``suppressed`` (optional, per string) breaks ties of equal RV.

    The paper reports the success list with the number of root attributes of
    each string, so that a data expert may pick another string of similar RV.
    """
    if not success:
        return []
    levels = np.array([s[0] for s in success], dtype=np.int64).reshape(len(success), -1)
    rv = np.array([s[1] for s in success], dtype=float)
    order = ranking_order(levels, rv, heights, suppressed)[::-1][:limit]
    rows = [{"levels": tuple(int(v) for v in levels[i]), "research_value": float(rv[i]),
             "root_attributes": int((levels[i] == np.asarray(heights)).sum())} for i in order]
    if suppressed is not None:
        for row, i in zip(rows, order):
            row["suppressed"] = int(suppressed[i])
    return rows


def finish(ctx, success, *, algorithm, generated, pruned, extra=None, listing=None):
    """The :class:`Partition` of the best success string, with the search statistics.

    ``listing`` is the success list to report (default ``success``). Every
    value is the string's charged RV (:func:`charged_rv`); the best string is
    chosen with ties going to fewer suppressed records.
    """
    best = ctx.best(success)
    if best is None and ctx.capped and binding_boundaries(ctx.data):
        top = boundary_levels(ctx.data, True)
        raise unreachable_error(algorithm, ctx.data, True,
                                ctx.engine.suppressed_records(top, ctx.model),
                                suppression_budget(ctx.suppression, ctx.data.records))
    if best is None:
        raise ValueError(f"{algorithm}: no generalization string satisfies the privacy model "
                         f"(k={ctx.model.k}) within the allowed levels; try a smaller k, a "
                         f"suppression budget or higher max_levels")
    levels, value = best
    class_of, n_classes = ctx.engine.class_of(levels)
    failing = np.asarray(ctx.model.suppressed_classes(class_of, ctx.data, n_classes),
                         dtype=bool)
    class_of = class_of.astype(np.int64)
    class_of[failing[class_of]] = -1
    roots = sum(int(l == h) for l, h in zip(levels, ctx.heights))
    listed = list(dict.fromkeys(success if listing is None else listing))
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
        "successes": success_table(listed, ctx.heights,
                                   suppressed=[ctx.suppressed(l) for l, _ in listed]),
        "withheld": list(ctx.pre.withheld),
        "levels_dropped": ctx.pre.levels_dropped,
        "search_seconds": time.perf_counter() - ctx.started,
    }
    stats.update(extra or {})
    return Partition(class_of, levels, stats, capped=ctx.capped)


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
