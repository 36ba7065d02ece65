"""Hybrid RV search: the local pointers first, then the global search (section 5.3.4).

Morton, Mahoui, Gibson & Yechuri, "An enhanced utility-driven data
anonymization method", section 5.3.4. The full string list of the global
search is built, and the local search (Figure 5) runs first; each of its
outcomes prunes the list with the rules of Figure 4 (a success removes the
strings of lower RV and the more general ones, a failure the more specific
ones). When the local pointers have met, the global binary search runs over
whatever is left. A local string whose outcome already follows from an
earlier one (it lies above a success or below a failure) is not tested
again. The pruning is the global search's, so the answer is the global
optimum; the local phase only changes the order of the tests.
"""

from __future__ import annotations

from ...registry import K_L_T, register_algorithm
from ..lattice import StatusMap
from .search_global import DEFAULT_MEMORY_BUDGET, _full_string_list, finish, global_loop, prepare
from .search_local import local_loop

__all__ = ["rv_hybrid"]


def rv_hybrid(data, model, *, rng=None, suppression=None, weights=None, rules=None,
              rv_tables=None, max_levels=None, memory_budget=DEFAULT_MEMORY_BUDGET,
              respect_boundaries=False, progress=None):
    """Full-domain generalization by the hybrid RV search (local, then global).

    Parameters are those of :func:`~kanon_graph.lattice.rv.search_global.rv_global`,
    including ``respect_boundaries`` (capped recodings, levels up to each
    attribute's boundary level) and ``progress`` (reported by the global
    phase: strings of the remaining list decided).

    Returns
    -------
    Partition
        ``stats`` as for ``rv-global``, plus ``local_tests`` (tests made by
        the local phase) and ``local_successes``.

    References
    ----------
    Morton, Mahoui, Gibson & Yechuri, "An enhanced utility-driven data
    anonymization method", Transactions on Data Privacy 5 (2012), section 5.3.4.

    Examples
    --------
    >>> import kanon_graph as kg
    >>> table, schema = kg.datasets.paper_003_table(), kg.datasets.paper_003_schema()
    >>> hybrid = kg.anonymize(table, schema, k=3, algorithm="rv-hybrid")
    >>> best = kg.anonymize(table, schema, k=3, algorithm="rv-global")
    >>> hybrid.levels == best.levels
    True
    """
    ctx = prepare(data, model, suppression, weights=weights, rules=rules, rv_tables=rv_tables,
                  max_levels=max_levels, respect_boundaries=respect_boundaries)
    strings = _full_string_list(ctx, memory_budget, "rv-hybrid")
    status = StatusMap(len(ctx.heights))
    success = []

    spread = ctx.spread

    def decide(node):
        if not spread:                  # a check proves nothing about other strings
            return ctx.test(node)
        known = status.is_anonymous(node)
        if known is not None:
            ctx.known += 1
            return known
        ok = ctx.test(node)
        status.mark(node, ok)
        return ok

    def record(node, ok):
        value = ctx.rv.total(node)
        charged, suppressed = ctx.charge(node, value) if ok else (value, 0)
        if ok:
            success.append((node, charged))
        strings.apply(node, value, ok, suppressed=suppressed, charged=charged, spread=spread)

    local_loop(ctx.pre.lowest, ctx.pre.highest, decide, record)
    local_tests, local_successes = ctx.tests, len(success)
    from ..._progress import reporter

    with reporter(progress, "rv-hybrid") as report:
        global_loop(strings, ctx.test, success, ctx.charge, spread=spread, report=report)
    success = list(dict.fromkeys(success))
    return finish(ctx, success, algorithm="rv-hybrid", generated=strings.generated,
                  pruned=strings.pruned,
                  extra={"local_tests": local_tests, "local_successes": local_successes})


register_algorithm("rv-hybrid", rv_hybrid, recoding="global", models=K_L_T, needs_hierarchies=True,
                   supports_suppression=True, supports_boundaries=True, weighted=True,
                   description="Morton et al.'s hybrid local-then-global RV search (2012, 5.3.4)")
