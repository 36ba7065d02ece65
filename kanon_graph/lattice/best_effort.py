"""A best-effort search for lattices too large to search exactly.

:func:`best_effort_search` looks at a budget of nodes and returns the best
node it checked, with ``proven_optimal=False``. It combines three ideas:

* **Datafly's ascent** (Sweeney 2002, Figure 4 of "Achieving k-anonymity
  privacy protection using generalization and suppression"): from the
  bottom, raise the attribute with the most distinct values at the current
  node until the model holds (within the suppression budget). So the search
  starts from the node Datafly releases and is never worse than it.
* **ARX's top-down greedy search** (Prasser & Kohlmayer's heuristic for
  large lattices): from the top, step to the predecessor with the best
  metric value that still passes, while that improves the value.
* **Local search, as our RV local search does with its pointers**
  (Morton et al. 2012, Figure 5) and ARX's genetic search with its
  mutations: from the best node so far, try the neighbours (one attribute
  one level lower; one lower and another one higher) in order of their
  lower bound, move to the first that passes with a better value; at a
  local optimum, a seeded random *kick* (two attributes lower, one higher)
  restarts the descent while the budget lasts.

Guarantees: the returned node passes the privacy model (it was checked);
its value is the best among the nodes checked, and never worse than
Datafly's node or the top's; nothing more (the result is generally not the
optimum). Neighbours whose lower bound cannot beat the best are never
checked. The search is deterministic for a given seed and ``max_checks``;
a ``time_limit`` stops it earlier on a slower machine (then the result
depends on the machine).

References
----------
.. [Sweeney] Sweeney, "Achieving k-anonymity privacy protection using
   generalization and suppression" (2002): the Datafly heuristic.
.. [ARX] Prasser, Kohlmayer et al., ARX's heuristic searches for large
   solution spaces (top-down greedy and genetic, ARX 3.7+).
.. [004] Morton, Mahoui, Gibson & Yechuri, "An enhanced utility-driven data
   anonymization method", Transactions on Data Privacy 5 (2012), Figure 5.
"""

from __future__ import annotations

import time

import numpy as np

from .frequency import spreads
from .lattice import Lattice, StatusMap

__all__ = ["best_effort_search", "check_budget", "DEFAULT_MAX_CHECKS"]

#: Nodes a best-effort search checks at most (by default).
DEFAULT_MAX_CHECKS = 3000

#: Random restarts after the first local optimum (the search also ends there).
MAX_KICKS = 200

_TOL = 1e-12


def check_budget(max_checks, time_limit):
    """A clear ValueError unless ``max_checks`` >= 1 and ``time_limit`` is None or > 0."""
    if isinstance(max_checks, bool) or not isinstance(max_checks, (int, np.integer)) \
            or max_checks < 1:
        raise ValueError(f"The 'max_checks' parameter of the optimal search must be an "
                         f"integer >= 1. Got {max_checks!r}.")
    if time_limit is not None and (isinstance(time_limit, bool) or not isinstance(
            time_limit, (int, float, np.integer, np.floating)) or not time_limit > 0):
        raise ValueError(f"The 'time_limit' parameter of the optimal search must be a "
                         f"number of seconds > 0 or None. Got {time_limit!r}.")


class _Budget(Exception):
    pass


def best_effort_search(data, model, scorer, engine, budget, heights, *, rng=None,
                       max_checks=DEFAULT_MAX_CHECKS, time_limit=None):
    """The best node found within a budget of checks (or seconds).

    Parameters
    ----------
    data : EncodedTable
    model : PrivacyModel
    scorer : NodeMetric
    engine : FrequencyEngine
    budget : int
        Records that may be suppressed.
    heights : sequence of int
        The lattice's top node.
    rng : numpy.random.Generator, optional
        For the kicks (default: seed 0).
    max_checks : int
        Stop after this many nodes are checked.
    time_limit : float, optional
        Stop after this many seconds as well.

    Returns
    -------
    levels, value, stats
        ``levels`` None when not even the top passes.
    """
    started = time.perf_counter()
    rng = np.random.default_rng(0) if rng is None else rng
    lattice = Lattice(heights, names=data.names)
    spread = spreads(model, budget)
    status = StatusMap(lattice.dimension)
    seen = {}                               # node -> (passes, value, suppressed)
    best = [None, np.inf, 0]                # node, value, suppressed

    def check(node):
        if node in seen:
            return seen[node]
        if spread and status.is_anonymous(node) is False:
            return (False, None, None)
        if len(seen) >= max_checks or (time_limit is not None
                                       and time.perf_counter() - started > time_limit):
            raise _Budget
        fs = engine.frequency_set(node)
        failing = engine.failing_groups(node, model)
        suppressed = int(fs.counts[failing].sum())
        ok = suppressed <= budget
        value = scorer.value(node, fs, failing) if ok else None
        seen[node] = (ok, value, suppressed)
        if spread:
            status.mark(node, ok)
        if ok:
            tol = _TOL * max(1.0, abs(best[1])) if np.isfinite(best[1]) else 0.0
            key = (suppressed, sum(node), node)
            if value < best[1] - tol or (value <= best[1] + tol and best[0] is not None
                                         and key < (best[2], sum(best[0]), best[0])):
                best[:] = [node, value, suppressed]
        return seen[node]

    def descend(node):
        """First-improvement local search from a passing ``node``."""
        current = node
        while True:
            moves = lattice.predecessors(current)
            for i, v in enumerate(current):
                if v == 0:
                    continue
                for j, w in enumerate(current):
                    if j != i and w < heights[j]:
                        moves.append(tuple(v - 1 if a == i else w + 1 if a == j else x
                                           for a, x in enumerate(current)))
            if not moves:
                return current
            bounds = scorer.lower_bound(np.asarray(moves, dtype=np.int64))
            order = np.lexsort((rng.permutation(len(moves)), bounds))
            moved = False
            for t in order:
                if bounds[t] >= best[1]:
                    break                       # no later move can beat the best
                ok, value, _ = check(moves[t])
                if ok and value < seen[current][1]:
                    current, moved = moves[t], True
                    break
            if not moved:
                return current

    top = tuple(int(h) for h in heights)
    stats = {"starts": {}}
    try:
        if not check(top)[0]:
            return None, None, _stats(seen, stats, started)
        node = _datafly_ascent(lattice, data, engine, check)
        stats["starts"]["datafly"] = seen[node][1] if node else None
        node = top
        while True:                           # ARX's top-down greedy
            options = [(seen[p][1], p) for p in lattice.predecessors(node)
                       if check(p)[0]]
            if not options or min(options)[0] >= seen[node][1]:
                break
            node = min(options)[1]
        stats["starts"]["top_down"] = seen[node][1]
        descend(best[0])
        kicks = 0
        while kicks < MAX_KICKS:
            kicks += 1
            start = list(best[0])
            down = rng.choice(len(start), size=min(2, len(start)), replace=False)
            for a in down:
                start[a] = max(0, start[a] - 1)
            up = int(rng.integers(len(start)))
            start[up] = min(heights[up], start[up] + 1)
            start = tuple(start)
            stats["kicks"] = kicks
            if check(start)[0]:
                descend(start)
    except _Budget:
        pass
    return best[0], float(best[1]), _stats(seen, stats, started)


def _datafly_ascent(lattice, data, engine, check):
    """Sweeney's Datafly order: raise the attribute with the most distinct values."""
    node = lattice.bottom
    while not check(node)[0]:
        fs = engine.frequency_set(node)
        distinct = [len(np.unique(fs.codes[:, j])) if node[j] < lattice.heights[j] else -1
                    for j in range(lattice.dimension)]
        j = int(np.argmax(distinct))
        if distinct[j] < 0:
            return None
        node = node[:j] + (node[j] + 1,) + node[j + 1:]
    return node


def _stats(seen, stats, started):
    stats.update({"nodes_checked": len(seen), "search": "best-effort",
                  "proven_optimal": False, "seconds": time.perf_counter() - started})
    return stats
