"""The exact optimal search over a lattice: Flash-style chains with predictive tagging.

:func:`~kanon_graph.lattice.optimal.optimal_search` calls :func:`exact_search`
when the lattice is searched exactly (its own size, or ``exact=True``). The
loop keeps one status byte and one bound per node (:mod:`.node_space`):

* anonymity is monotone, so every check is spread (passing spreads to every
  more general node, failing to every more specific one);
* every metric gives a cheap *lower bound* per node; a node whose bound is
  no better than the best value found so far is pruned;
* the remaining candidates are visited in the spirit of ARX's Flash: take
  the most promising candidate, walk a chain of candidates upwards from it,
  and binary-search the chain for its lowest anonymous node, so that each
  failing check rules out a large set of more specific nodes.

Ties (equal values, up to 1e-12 relative) go to the node that suppresses
the fewest records, then to the node of lowest height, then to the
lexicographically smallest level vector (the order of :meth:`Lattice.array`).

References
----------
.. [Flash] Kohlmayer, Prasser, Eckert, Kemper & Kuhn, "Flash: efficient, stable
   and optimal k-anonymity", PASSAT 2012, sections 4-5.
"""

from __future__ import annotations

import numpy as np

from .._jit import HAVE_NUMBA
from ._check_loop import FailingRun
from .lattice import StatusMap
from .node_metrics import NodeMetric
from .node_space import ArrayStatus
from .node_space import CandidateQueue as _Queue
from .node_space import NodeSpace as _NodeSpace

__all__ = ["exact_search", "TAG_PRUNED_UP_TO"]

_TOL = 1e-12

#: Lattices up to this size get every node left unvisited tagged "pruned" in the status.
TAG_PRUNED_UP_TO = 300_000


def exact_search(lattice, model, scorer, engine, budget, spread, report, *, climb=True):
    """The node of least ``scorer`` value among the nodes of ``lattice`` that pass ``model``.

    Parameters
    ----------
    lattice : Lattice
    model : PrivacyModel
    scorer : NodeMetric
        Values and lower bounds of nodes (:mod:`.node_metrics`).
    engine : FrequencyEngine or SQLFrequencyEngine
    budget : int
        Records that may be suppressed.
    spread : bool
        Whether a check may be spread to other nodes (the model is monotone
        with this budget, :func:`~kanon_graph.lattice.frequency.spreads`).
    report : callable
        ``report(done, total, text)`` every 16 checks (falsy: no reports).
    climb : bool
        With k alone and spread checks: after a failing candidate of the
        "close the gap" phase, climb to its failing generalizations
        (:mod:`._check_loop`); the answer is the same either way.

    Returns
    -------
    levels : tuple of int or None
        The optimum (None when no node passes).
    value : float or None
    status : StatusMap
        What the search learnt, with ``"pruned"`` and ``"chosen"`` tags.
    stats : dict
        ``lattice_size``, ``nodes_checked``, ``nodes_climbed`` (checks made
        while climbing, among ``nodes_checked``), ``nodes_evaluated``,
        ``nodes_tagged``, ``nodes_not_anonymous``, ``nodes_pruned``.
    """
    space = _NodeSpace(lattice, scorer)
    # k alone (failing_groups is counts < k), on an engine that can stop a roll-up early
    # and a metric that learns no bound from a failing node's frequency set
    by_counts = (not getattr(model, "needs_sensitive", False) and hasattr(engine, "check_k")
                 and type(scorer).bound_from is NodeMetric.bound_from)
    nodes, bound, total = space.nodes, space.bound, space.total
    state = np.zeros(total, dtype=np.int8)      # 0 unknown, 1 anonymous, 2 not anonymous
    evaluated = np.zeros(total, dtype=bool)
    dominated = np.zeros(total, dtype=bool)     # more general than an evaluated node (monotone)
    checked = []            # (node, passed) in check order; (indices, False) for a run
    status = StatusMap(lattice.dimension) if not spread else ArrayStatus(space, state, checked)
    best = [np.inf, total, 0]                   # value, position (tie key), suppressed
    counts = {"checked": 0, "climbed": 0, "evaluated": 0, "tagged": 0}
    climb = bool(climb) and by_counts and spread

    def worse(i):
        """Can node ``i`` no longer beat the best (by its bound, then its position)?"""
        value, rank, suppressed = best
        tol = _TOL * max(1.0, abs(value)) if np.isfinite(value) else 0.0
        if bound[i] > value + tol:
            return True
        # a tie is lost by position only when the best suppresses nothing;
        # otherwise a later node of equal value may suppress fewer records
        return suppressed == 0 and bound[i] >= value - tol and i >= rank

    def dead(idx):
        """``not alive(i)`` for every index of the array ``idx``."""
        value, rank, suppressed = best
        tol = _TOL * max(1.0, abs(value)) if np.isfinite(value) else 0.0
        b = bound[idx]
        out = (state[idx] == 2) | evaluated[idx] | dominated[idx] | (b > value + tol)
        if suppressed == 0:
            out |= (b >= value - tol) & (idx >= rank)
        return out

    def alive(i):
        """Could node ``i`` still beat the best: not failing, not yet scored, bound not worse.

        Every reason to be dead is permanent (the best only improves), so
        the candidate queues may drop a dead node for good.
        """
        return state[i] != 2 and not evaluated[i] and not dominated[i] and not worse(i)

    def score(i, fs, failing):
        node = tuple(int(v) for v in nodes[i])
        value = scorer.value(node, fs, failing)
        suppressed = int(fs.counts[failing].sum())
        evaluated[i] = True
        counts["evaluated"] += 1
        tol = _TOL * max(1.0, abs(best[0])) if np.isfinite(best[0]) else 0.0
        tie = value <= best[0] + tol and (suppressed, i) < (best[2], best[1])
        if value < best[0] - tol or tie:
            best[0], best[1], best[2] = value, i, suppressed
        extra = scorer.bound_from(fs)
        if scorer.monotone:                 # every strictly more general node
            own = dominated[i]
            counts["tagged"] += space.fill_above(i, dominated, True, closed=True) - 1
            dominated[i] = own
        if extra is not None:
            space.fill_above(i, bound, extra, keep_max=True)

    def settled():              # nodes that can no longer be the answer: never drops
        out = (state == 2) | evaluated | dominated
        return int((out | (bound > best[0] + _TOL * max(1.0, abs(best[0])))).sum())

    def check(i):
        node = tuple(int(v) for v in nodes[i])
        if by_counts:
            # k alone: the records of groups under k, read off the packed, unsorted
            # counts (the groups are sorted and unpacked only if it passes); a node
            # with too many groups to pass fails before they are all counted (fs None)
            failing = None
            ok, fs = engine.check_k(node, model.k, budget)
        else:
            fs = engine.frequency_set(node)
            failing = engine.failing_groups(node, model)
            ok = int(fs.counts[failing].sum()) <= budget
        counts["checked"] += 1
        if report and counts["checked"] % 16 == 0:
            report(settled(), total, f"{counts['checked']} nodes checked")
        if ok and failing is None:
            failing = fs.counts < model.k
        if not spread:             # the check proves nothing about other nodes
            state[i] = 1 if ok else 2
            status.tag(node, "anonymous" if ok else "not-anonymous")
            if ok:
                score(i, fs, failing)
            return ok
        # spreading is valid for capped nodes too: a capped class at a more general
        # node is a union of classes of a more specific one (see lattice/capped.py)
        checked.append((node, ok))
        if ok:
            counts["tagged"] += space.fill_above(i, state, 1, closed=True)
            score(i, fs, failing)
        else:
            counts["tagged"] += space.fill_below(i, state, 2, closed=True)
            extra = None if fs is None else scorer.bound_from(fs)
            if extra is not None:
                space.fill_above(i, bound, extra, keep_max=True)
        return ok

    def climb_from(i):
        """After node ``i`` failed: check its unknown successor of least bound while they fail.

        The rule of :func:`~._check_loop._climb` (ties to the lower index; a
        pass ends the climb and is not recorded), so the compiled loop and
        this one check the same nodes.
        """
        while True:
            succ = [s for s in space.successors(i) if state[s] == 0]
            if not succ:
                return
            i = min(succ, key=lambda s: (bound[s], s))
            node = tuple(int(v) for v in nodes[i])
            counts["checked"] += 1
            counts["climbed"] += 1
            if engine.check_k(node, model.k, budget)[0]:
                return
            checked.append((node, False))
            counts["tagged"] += space.fill_below(i, state, 2, closed=True)

    high_first, low_first = _Queue.pair(space)
    # k alone, checks spread, no progress to report between checks, an engine of packed sets
    run = (FailingRun(space, engine, model.k, budget, high_first, climb=climb)
           if by_counts and spread and not report and HAVE_NUMBA
           and getattr(engine, "compiled", False) else None)
    while True:
        start = None
        if np.isfinite(best[0]) and scorer.exact_without_suppression:
            # Close the gap from above: the candidate whose bound is nearest the best
            # value; if it fails, every more specific node goes with it.
            if run is not None:
                # the run of failing checks in one compiled loop: it stops at the first
                # candidate that passes (or is known to), which the Python below takes
                ran, tagged, passed, climbed = run.run(state, evaluated, dominated, best)
                counts["checked"] += len(ran) + passed
                counts["climbed"] += climbed
                counts["tagged"] += tagged
                checked.append((ran, False))    # expanded only if the status is read
            start = high_first.next(alive, dead)
            if start is None:
                break
            if state[start] == 0:
                if not check(start) and climb:
                    climb_from(start)
                continue
        else:
            start = low_first.next(alive, dead)
            if start is None:
                break
        if not spread:                  # no chain: a failure says nothing below it
            check(start)
            continue
        if state[start] == 1:           # known anonymous, not yet scored (non-monotone metric)
            node = tuple(int(v) for v in nodes[start])
            score(start, engine.frequency_set(node), engine.failing_groups(node, model))
            continue
        chain = [start]
        while True:
            succ = space.successors(chain[-1])
            succ = [s for s in succ if state[s] == 0 and alive(s)]
            if not succ:
                break
            chain.append(min(succ, key=lambda s: (bound[s], s)))
        lo, hi = 0, len(chain) - 1
        while lo <= hi:
            mid = (lo + hi) // 2
            if state[chain[mid]] == 0:
                ok = check(chain[mid])
            else:
                ok = state[chain[mid]] == 1
            if ok:
                hi = mid - 1
            else:
                lo = mid + 1

    report(total, total, f"{counts['checked']} nodes checked")
    levels = None if best[1] == total else tuple(int(v) for v in nodes[best[1]])
    final_live = (state != 2) & ~evaluated
    n_pruned = int(final_live.sum())
    if total <= TAG_PRUNED_UP_TO:
        status.tags.update((node, "pruned") for node in map(tuple, nodes[final_live].tolist()))
    if levels is not None:
        status.tag(levels, "chosen")
    stats = {
        "lattice_size": total,
        "nodes_checked": counts["checked"],
        "nodes_climbed": counts["climbed"],
        "nodes_evaluated": counts["evaluated"],
        "nodes_tagged": counts["tagged"],
        "nodes_not_anonymous": int((state == 2).sum()),
        "nodes_pruned": n_pruned,
    }
    return levels, None if levels is None else float(best[0]), status, stats
