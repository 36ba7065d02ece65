"""Local optimization of the research value: a binary search per attribute (Figure 5).

Morton, Mahoui, Gibson & Yechuri, "An enhanced utility-driven data
anonymization method", section 5.3.3 and Figure 5. Each attribute keeps three
pointers over its levels left by the pre-pruning: ``Lo`` (the most specific
level still in play), ``Hi`` (the most general one) and ``Mid``. The string
made of every attribute's ``Mid`` is tested; on success it joins the success
list and every attribute moves towards the specific half (``Hi = Mid``), on
failure towards the general half (``Lo = Mid + 1``). The search ends when no
pointer can move; the answer is the successful string with the highest RV,
then the fewest root attributes (the ranking of
:mod:`~kanon_graph.lattice.rv.search_global`).

Reading of the figure: with the literal ``Lo = Mid`` / ``Hi = Mid`` and
``Mid = (Hi + Lo) / 2`` the pointers can cycle between two strings; the
``+ 1`` of an ordinary binary search makes every move shrink an interval,
so the search stops after about ``log2(max height) + 1`` tests (section 6.1).
When the pointers meet on a string that was never tested it is tested once,
so a search whose every string failed still ends at the most general
allowed string. The search is a heuristic: it looks at a handful of strings
and need not find the best one (the paper's Table 5).

**Suppression.** With a suppression budget every string the pointers visit
may pass only by suppressing records (with a budget of 1.0, by suppressing
all of them), and the pointers then run to the most specific strings. So
when the best success found suppresses records, the most general allowed
string is tested once more as a fallback: a suppressed record is charged the
lowest RV (as in ``rv-global``), so the answer is never worse than releasing
every record at the top. Without suppression nothing changes.

**Checks that are not monotone** (entropy / recursive l or t with a
suppression budget, :meth:`~kanon_graph.privacy.PrivacyModel.is_monotone`):
a failure no longer proves that the more specific half fails, so the
pointers are only a guess. When they find no success, the strings of the
pre-pruned box are tested in ``rv-global``'s order, pruning by RV alone,
until the best passing one is known (or none passes).
"""

from __future__ import annotations

from ...registry import K_L_T, register_algorithm
from .search_global import _full_string_list, DEFAULT_MEMORY_BUDGET, finish, global_loop, prepare

__all__ = ["rv_local", "local_loop"]


def local_loop(lowest, highest, decide, on_result=None):
    """Run the Hi/Lo/Mid pointers; ``decide(node) -> bool`` tests a string.

    Parameters
    ----------
    lowest, highest : sequence of int
        Per attribute, the most specific and most general level in play.
    decide : callable
        The outcome of a string (a test, or a known status).
    on_result : callable, optional
        ``on_result(node, ok)`` after every decision.

    Returns
    -------
    list of tuple
        The strings decided, in order, with their outcome: ``(node, ok)``.

    Examples
    --------
    With a string passing when its level sum is at least 3:

    >>> local_loop([0, 0], [2, 3], lambda node: sum(node) >= 3)
    [((1, 1), False), ((2, 2), True)]
    """
    lo = [int(v) for v in lowest]
    hi = [int(v) for v in highest]
    seen = []
    decided = set()
    while True:
        mid = tuple((a + b) // 2 for a, b in zip(lo, hi))
        if all(a == b for a, b in zip(lo, hi)):
            if mid not in decided:
                ok = bool(decide(mid))
                seen.append((mid, ok))
                if on_result is not None:
                    on_result(mid, ok)
            return seen
        ok = bool(decide(mid))
        decided.add(mid)
        seen.append((mid, ok))
        if on_result is not None:
            on_result(mid, ok)
        if ok:
            hi = list(mid)
        else:
            lo = [m + 1 if a < b else a for m, a, b in zip(mid, lo, hi)]


def rv_local(data, model, *, rng=None, suppression=None, weights=None, rules=None,
             rv_tables=None, max_levels=None, respect_boundaries=False):
    """Full-domain generalization by the local RV search (Figure 5).

    Parameters are those of :func:`~kanon_graph.lattice.rv.search_global.rv_global`
    (without ``memory_budget``: no string list is built), including
    ``respect_boundaries`` (capped recodings, levels up to each attribute's
    boundary level).

    Returns
    -------
    Partition
        ``stats`` as for ``rv-global``; ``strings_generated`` counts the
        strings examined, ``strings_pruned`` is empty (no pruning here).

    References
    ----------
    Morton, Mahoui, Gibson & Yechuri, "An enhanced utility-driven data
    anonymization method", Transactions on Data Privacy 5 (2012),
    section 5.3.3, Figure 5.

    Examples
    --------
    >>> import kanon_graph as kg
    >>> res = kg.anonymize(kg.datasets.paper_003_table(), kg.datasets.paper_003_schema(),
    ...                    k=3, algorithm="rv-local")
    >>> res.stats["tests"] <= 4, res.verification.k_achieved >= 3
    (True, True)
    """
    ctx = prepare(data, model, suppression, weights=weights, rules=rules, rv_tables=rv_tables,
                  max_levels=max_levels, respect_boundaries=respect_boundaries)
    success = []

    def record(node, ok):
        if ok:
            success.append((node, ctx.charge(node)[0]))

    seen = local_loop(ctx.pre.lowest, ctx.pre.highest, ctx.test, record)
    top = tuple(int(v) for v in ctx.pre.highest)
    if success and min(ctx.suppressed(node) for node, _ in success) > 0 \
            and all(node != top for node, _ in seen):
        if ctx.test(top):
            record(top, True)
        seen.append((top, top in dict(success)))
    if not success and not ctx.spread:
        strings = _full_string_list(ctx, DEFAULT_MEMORY_BUDGET, "rv-local")
        before = ctx.tests
        global_loop(strings, ctx.test, success, ctx.charge, spread=False)
        seen.extend((None, None) for _ in range(ctx.tests - before))
    return finish(ctx, success, algorithm="rv-local", generated=len(seen), pruned={})


register_algorithm("rv-local", rv_local, recoding="global", models=K_L_T, needs_hierarchies=True,
                   supports_suppression=True, supports_boundaries=True, weighted=True,
                   description="Morton et al.'s local research-value search (2012, Figure 5)")
