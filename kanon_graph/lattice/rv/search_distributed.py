"""Distributed global RV search: string subsets that fit a memory budget (section 5.3.5).

Morton, Mahoui, Gibson & Yechuri, "An enhanced utility-driven data
anonymization method", section 5.3.5. When the full string list does not fit
in memory, it is split into subsets that do, the global search (Figure 4)
runs on every subset as an independent task, and the subsets' successful
strings are combined and tested again; the best of them is applied.

Here a subset is the set of strings sharing the levels of the first ``p``
attributes (a *prefix*): the smallest ``p`` whose remaining product fits
``memory_budget`` bytes (:func:`~kanon_graph.lattice.rv.search_global.string_bytes`
per string). A task carries only its prefix; a worker builds its subset,
searches it with its own frequency engine and returns its success list. The
tasks go to a Dask ``distributed.Client`` (a LocalCluster of ``workers``
processes unless ``scheduler`` names a running scheduler or is a Client);
the encoded table is scattered to the workers once, and each worker thread
keeps one frequency engine for all its tasks. At most as many subsets as the
cluster has worker threads, each within the budget, are in flight at once.

Two bounds keep the work down without changing the answer: subsets are
dispatched in descending order of the highest RV they can hold, and a
subset whose highest RV is below the best success already returned is
skipped (its strings all have lower RV, Figure 4's first pruning rule);
the same bound is passed to each task, which drops its strings of lower RV
before searching. Since the subsets partition the string list and each
global search is exact on its subset, the combined answer equals the global
search's.
"""

from __future__ import annotations

import itertools
import math
import threading
import uuid

import numpy as np

from ...registry import K_L_T, register_algorithm
from ...scale._cluster import DEFAULT_WORKERS, client_for, worker_threads
from ..frequency import FrequencyEngine, spreads, suppression_budget
from .search_common import make_charge
from .search_global import (PRUNING_RULES, StringList, best_string, finish, global_loop,
                            make_strings, prepare, string_bytes)

__all__ = ["rv_distributed", "split_plan"]

#: Bytes each subset of strings may take by default.
DEFAULT_TASK_BUDGET = 32 * 2**20


def split_plan(lowest, highest, memory_budget):
    """How many leading attributes to fix so that each subset fits ``memory_budget``.

    Returns
    -------
    prefix : int
        Attributes whose levels every subset fixes.
    per_subset : int
        Strings in one subset.
    n_subsets : int

    Examples
    --------
    >>> split_plan([0] * 20, [1] * 20, 2 * 2**20)   # 2**20 strings of 37 bytes
    (5, 32768, 32)
    """
    sizes = [hi - lo + 1 for lo, hi in zip(lowest, highest)]
    cap = memory_budget // string_bytes(len(sizes))
    if cap < 1:
        raise ValueError(f"The 'memory_budget' parameter of rv-distributed must hold at least "
                         f"one string ({string_bytes(len(sizes))} bytes). Got {memory_budget!r}.")
    for prefix in range(len(sizes) + 1):
        rest = math.prod(sizes[prefix:])
        if rest <= cap:
            return prefix, rest, math.prod(sizes[:prefix])
    raise AssertionError("unreachable")  # pragma: no cover - prefix = d gives rest = 1


# ----------------------------------------------------------------- worker
# search state per (run token, thread): a worker thread builds its frequency
# engine once and keeps it (and its cache) for every task of the run
_STATE = {}


def _state(token, shared):
    key = (token, threading.get_ident())
    if key not in _STATE:
        data, model, suppression, tables, heights, lowest, highest, capped = shared
        _STATE[key] = dict(data=data, model=model, suppression=suppression, tables=tables,
                           heights=heights, lowest=lowest, highest=highest,
                           engine=FrequencyEngine(data, capped=capped))
    return _STATE[key]


def _forget(token):
    """Drop a finished run's engines (run on every worker at the end)."""
    for key in [key for key in _STATE if key[0] == token]:
        del _STATE[key]


def _task(token, shared, prefix, bound):
    """The global search on the subset whose first attributes sit at ``prefix``."""
    s = _state(token, shared)
    p = len(prefix)
    lowest = tuple(prefix) + tuple(s["lowest"][p:])
    highest = tuple(prefix) + tuple(s["highest"][p:])
    levels, rv = make_strings(lowest, highest, s["tables"])
    generated = len(rv)
    strings = StringList(levels, rv, s["heights"])
    del levels, rv
    below = 0
    if bound is not None:
        below = int((strings.rv < bound).sum())
        keep = strings.rv >= bound
        strings.levels, strings.rv = strings.levels[keep], strings.rv[keep]
    engine = s["engine"]
    before = engine.frequency_sets_computed
    success = []
    tests = global_loop(strings, lambda node: engine.is_anonymous(
        node, s["model"], s["suppression"]), success,
        make_charge(engine, s["model"], s["data"].records, s["tables"]),
        spread=spreads(s["model"], suppression_budget(s["suppression"], s["data"].records)))
    pruned = dict(strings.pruned)
    pruned["lower_rv"] += below
    return success, generated, pruned, tests, engine.frequency_sets_computed - before


def _run_inline(shared, prefixes, order, skip, absorb, bounds_of):
    """Every subset in this process, one after another (no Dask needed)."""
    token = uuid.uuid4().hex
    try:
        for i in order:
            if not skip(i):
                absorb(_task(token, shared, prefixes[i], bounds_of()))
    finally:
        _forget(token)


def _run_on_dask(client, shared, prefixes, order, skip, absorb, bounds_of):
    """Subsets as Dask tasks, at most one per worker thread in flight."""
    from distributed import wait

    token = uuid.uuid4().hex
    slots = worker_threads(client)
    [state] = client.scatter([shared], broadcast=True, hash=False)   # one future, the tuple
    try:
        pending, queue = set(), list(order)
        while queue or pending:
            while queue and len(pending) < slots:
                i = queue.pop(0)
                if not skip(i):
                    pending.add(client.submit(_task, token, state, prefixes[i], bounds_of(),
                                              pure=False))
            if not pending:
                continue
            done, pending = wait(pending, return_when="FIRST_COMPLETED")
            pending = set(pending)
            for future in done:
                absorb(future.result())
    finally:
        client.run(_forget, token)
        del state
    return slots


def _prefix_bound(prefix, tables, lowest):
    """Highest total RV a subset can hold (its prefix, every other attribute at its lowest)."""
    p = len(prefix)
    value = sum(tables[j][l] for j, l in enumerate(prefix))
    value += sum(tables[j][lowest[j]] for j in range(p, len(tables)))
    return round(value, 10)


def rv_distributed(data, model, *, rng=None, suppression=None, weights=None, rules=None,
                   rv_tables=None, max_levels=None, memory_budget=DEFAULT_TASK_BUDGET,
                   scheduler=None, workers=DEFAULT_WORKERS, respect_boundaries=False):
    """The global RV search over string subsets run as Dask tasks (section 5.3.5).

    Parameters
    ----------
    data, model, rng, suppression, weights, rules, rv_tables, max_levels
        As for :func:`~kanon_graph.lattice.rv.search_global.rv_global`.
    respect_boundaries : bool
        As for ``rv_global``: every task tests capped recodings (values stop
        at their MAGVals) on levels up to each attribute's boundary level.
    memory_budget : int
        Bytes one subset of strings may take; at most one subset per worker
        thread is held at once.
    scheduler : None, str or distributed.Client
        Where the subsets run when the plan has more than one: ``None``
        starts a Dask LocalCluster of ``workers`` processes for this search;
        an address (``"tcp://host:8786"``) or a ``distributed.Client`` uses
        that cluster; ``"inline"`` runs them in this process one after
        another (no Dask needed). A plan with a single subset always runs
        in-process. Dask is the optional extra
        ``pip install "kanon_graph[dask]"``.
    workers : int
        Workers of the LocalCluster started when ``scheduler`` is None (default:
        one per core of the machine, :data:`kanon_graph.scale._cluster.DEFAULT_WORKERS`).

    Returns
    -------
    Partition
        ``stats`` as for ``rv-global``, plus ``subsets``, ``subsets_skipped``,
        ``prefix_attributes``, ``strings_per_subset``, ``workers`` (tasks
        in flight at once: the cluster's worker threads, 1 in-process),
        ``scheduler`` (``"in-process"``, ``"inline"`` or ``"dask"``),
        ``retests`` and ``memory_budget``.

    References
    ----------
    Morton, Mahoui, Gibson & Yechuri, "An enhanced utility-driven data
    anonymization method", Transactions on Data Privacy 5 (2012), section 5.3.5.

    Examples
    --------
    >>> import kanon_graph as kg
    >>> table, schema = kg.datasets.paper_003_table(), kg.datasets.paper_003_schema()
    >>> res = kg.anonymize(table, schema, k=2, algorithm="rv-distributed", memory_budget=60,
    ...                    scheduler="inline")
    >>> res.stats["subsets"] > 1
    True
    >>> res.levels == kg.anonymize(table, schema, k=2, algorithm="rv-global").levels
    True
    """
    if isinstance(workers, bool) or not isinstance(workers, (int, np.integer)) or workers < 1:
        raise ValueError(f"The 'workers' parameter of rv-distributed must be a positive "
                         f"integer. Got {workers!r}.")
    if isinstance(memory_budget, bool) or not isinstance(memory_budget, (int, np.integer)) \
            or memory_budget <= 0:
        raise ValueError(f"The 'memory_budget' parameter of rv-distributed must be a positive "
                         f"number of bytes. Got {memory_budget!r}.")
    if scheduler is not None and not isinstance(scheduler, str) \
            and not callable(getattr(scheduler, "submit", None)):
        # checked before Dask is needed, so a wrong value is named with or without the extra
        raise ValueError(f"The 'scheduler' parameter of rv-distributed must be None, 'inline', "
                         f"a scheduler address such as 'tcp://host:8786' or a "
                         f"distributed.Client. Got {scheduler!r}.")
    ctx = prepare(data, model, suppression, weights=weights, rules=rules, rv_tables=rv_tables,
                  max_levels=max_levels, respect_boundaries=respect_boundaries)
    pre = ctx.pre
    tables = tuple(tuple(t) for t in ctx.rv.tables)
    prefix_len, per_subset, n_subsets = split_plan(pre.lowest, pre.highest, memory_budget)
    prefixes = list(itertools.product(*[range(lo, hi + 1) for lo, hi in
                                        zip(pre.lowest[:prefix_len], pre.highest[:prefix_len])]))
    bounds = [_prefix_bound(p, tables, pre.lowest) for p in prefixes]
    order = sorted(range(len(prefixes)), key=lambda i: (-bounds[i], prefixes[i]))
    initargs = (data, ctx.model, ctx.suppression, tables, ctx.heights, pre.lowest, pre.highest,
                ctx.capped)

    success, pruned = [], dict.fromkeys(PRUNING_RULES, 0)
    totals = {"generated": 0, "tests": 0, "frequency_sets": 0, "skipped": 0, "skipped_strings": 0}
    best = [None]

    def absorb(result):
        found, generated, task_pruned, tests, fsets = result
        success.extend(found)
        for rule, count in task_pruned.items():
            pruned[rule] += count
        totals["generated"] += generated
        totals["tests"] += tests
        totals["frequency_sets"] += fsets
        top = best_string(success, ctx.heights)
        best[0] = None if top is None else top[1]

    def skip(i):
        if best[0] is not None and bounds[i] < best[0]:
            totals["skipped"] += 1
            totals["skipped_strings"] += per_subset
            pruned["lower_rv"] += per_subset
            return True
        return False

    bound = lambda: best[0]  # noqa: E731 - the best success so far, read at dispatch
    if len(prefixes) == 1:
        used_workers, where = 1, "in-process"
        _run_inline(initargs, prefixes, order, skip, absorb, bound)
    elif isinstance(scheduler, str) and scheduler == "inline":
        used_workers, where = 1, "inline"
        _run_inline(initargs, prefixes, order, skip, absorb, bound)
    else:
        where = "dask"
        with client_for(scheduler, workers=int(workers), where="rv-distributed") as client:
            used_workers = _run_on_dask(client, initargs, prefixes, order, skip, absorb, bound)
    # combine: re-test the combined successes, best first, until one holds
    retests, verified = 0, []
    remaining = list(dict.fromkeys(success))
    while remaining:
        top = ctx.best(remaining)
        remaining.remove(top)
        retests += 1
        if ctx.test(top[0]):
            verified = [top]
            break
    ctx.tests += totals["tests"]
    ctx.engine.frequency_sets_computed += totals["frequency_sets"]
    return finish(ctx, verified, algorithm="rv-distributed", listing=success,
                  generated=totals["generated"], pruned=pruned,
                  extra={"subsets": len(prefixes), "subsets_skipped": totals["skipped"],
                         "prefix_attributes": prefix_len, "strings_per_subset": per_subset,
                         "strings_in_plan": pre.n_strings, "workers": used_workers,
                         "scheduler": where,
                         "success_strings": len(set(success)), "retests": retests,
                         "memory_budget": int(memory_budget)})


register_algorithm("rv-distributed", rv_distributed, recoding="global", models=K_L_T,
                   needs_hierarchies=True,
                   supports_suppression=True, supports_boundaries=True, weighted=True,
                   description="Morton et al.'s distributed global RV search over string "
                               "subsets as Dask tasks (2012, 5.3.5)")
