"""The optimal full-domain generalization for a metric (algorithm ``"optimal"``).

Among all nodes of the generalization lattice that satisfy the privacy model
(after suppressing the records of failing classes, within the suppression
budget), return the one with the best metric value. The search never looks
at most of the lattice:

* anonymity is monotone, so every check is spread by a :class:`StatusMap`
  (passing spreads to every more general node, failing to every more
  specific one);
* every metric gives a cheap *lower bound* per node; a node whose bound is
  no better than the best value found so far is pruned. For ARX's Loss,
  precision and height without suppression the bound is the exact value (it
  is separable per attribute), so only anonymity must be checked;
* the remaining candidates are visited in the spirit of ARX's Flash: take
  the most promising candidate, walk a chain of candidates upwards from it,
  and binary-search the chain for its lowest anonymous node, so that each
  failing check rules out a large set of more specific nodes.

That loop is :func:`~kanon_graph.lattice.exact.exact_search`; this module
chooses between it and the best-effort search and builds the partition.

Ties (equal values, up to 1e-12 relative) go to the node that suppresses
the fewest records, then to the node of lowest height, then to the
lexicographically smallest level vector (earlier attributes less
generalized): the order of :meth:`Lattice.array`.

Suppression: every metric charges a suppressed record the greatest loss
(as if generalized to the root of every attribute, as ARX counts it; see
:mod:`~kanon_graph.lattice.node_metrics`), so suppressing the whole table
never beats releasing it at the top node, and a tie between them goes to
the release.

With ``respect_boundaries=True`` (generalization boundaries, Hussien et al.
2016) every node is a capped recoding -- each value stops at its MAGVal --
and each attribute's levels end at its boundary level (the highest MAGVal
level among the values present), so the search never goes past a MAGVal.
Capped recodings keep the generalization property and the metrics keep
their monotonicity (see :mod:`kanon_graph.lattice.capped`), so the pruning
is unchanged and the result is the optimum over the capped lattice.

References
----------
.. [Flash] Kohlmayer, Prasser, Eckert, Kemper & Kuhn, "Flash: efficient, stable
   and optimal k-anonymity", PASSAT 2012.
.. [ARX] Prasser & Kohlmayer, "Putting statistical disclosure control into
   practice: The ARX data anonymization tool" (2015): the Loss, Discernibility,
   Precision and Height metrics.
.. [004] Morton et al. (2012), sections 2.3-2.4 and 5.3.1: frequency sets,
   k-anonymity as ``min(count) >= k`` and the generalization property.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from ..registry import K_L_T, Partition, register_algorithm
from .best_effort import DEFAULT_MAX_CHECKS, best_effort_search, check_budget
from .exact import TAG_PRUNED_UP_TO, exact_search  # noqa: F401  (TAG_PRUNED_UP_TO: re-export)
from .capped import boundary_levels, unreachable_error
from .frequency import FrequencyEngine, spreads, suppression_budget
from .lattice import Lattice, StatusMap
from .node_metrics import NODE_METRICS, node_metric

__all__ = ["optimal", "optimal_search", "OptimalResult", "NODE_METRICS", "node_metric"]

#: Largest lattice ``optimal`` searches exactly by default (larger: best-effort).
#: Measured on the wide census (benchmarks/bench_wide.py): 10 QIs (276,480
#: nodes) exact in ~5 s CPU; 12 QIs (2,211,840) in ~37 s; the exact search
#: keeps ~80 bytes per node.
EXACT_UP_TO = 300_000

@dataclass(frozen=True)
class OptimalResult:
    """What :func:`optimal_search` found.

    Attributes
    ----------
    levels : tuple of int or None
        The optimal node (None when no node satisfies the model).
    value : float or None
        Its metric value.
    status : StatusMap
        What the search learnt (checked / inferred nodes, ``"pruned"`` and
        ``"chosen"`` tags), e.g. for :meth:`Lattice.to_dot`.
    stats : dict
    """

    levels: tuple | None
    value: float | None
    status: StatusMap = field(repr=False)
    stats: dict = field(repr=False)


def optimal_search(data, model, *, metric="loss", suppression=0.0, engine=None,
                   respect_boundaries=False, exact=None, max_checks=DEFAULT_MAX_CHECKS,
                   time_limit=None, rng=None, progress=None):
    """Search the lattice of ``data`` for the best anonymous node under ``metric``.

    Parameters
    ----------
    data : EncodedTable
        Every quasi-identifier needs a hierarchy.
    model : PrivacyModel
    metric : {"loss", "discernibility", "dm_star", "precision", "height"}
    suppression : float
        Fraction of records that may be suppressed.
    engine : FrequencyEngine or SQLFrequencyEngine, optional
        Reuse an engine (and its cache); a new :class:`FrequencyEngine` by
        default. Its ``capped`` mode must equal ``respect_boundaries``.
    respect_boundaries : bool
        Search the capped lattice: values stop at their MAGVals and every
        attribute's levels end at its boundary level
        (:func:`~kanon_graph.lattice.capped.boundary_levels`).
    exact : bool, optional
        True: the exact search at any size (it keeps a few dozen bytes per
        node). False: the best-effort search
        (:func:`~kanon_graph.lattice.best_effort.best_effort_search`). None
        (default): exact up to :data:`EXACT_UP_TO` nodes, best-effort above.
    max_checks, time_limit : int, float, optional
        The best-effort search's budget: nodes checked, seconds.
    rng : numpy.random.Generator, optional
        Seeds the best-effort search's restarts.
    progress : None, bool or callable
        ``progress(done, total, text)`` every 16 checks: ``done`` of the
        ``total`` nodes are settled (failing, scored, dominated or bounded
        out); the best-effort search reports its end only.

    Returns
    -------
    OptimalResult
        ``levels`` is None when even the top node fails. ``status`` is a
        :class:`StatusMap` holding what the search learnt, with the visited
        optimum tagged ``"chosen"`` and bound-pruned nodes ``"pruned"``.

    Examples
    --------
    >>> import kanon_graph as kg
    >>> data = kg.encode(kg.datasets.paper_003_table(), kg.datasets.paper_003_schema())
    >>> res = optimal_search(data, kg.privacy.PrivacyModel(k=3), metric="height")
    >>> res.levels, res.value
    ((0, 3, 2), 5.0)
    >>> res.stats["nodes_checked"] < res.stats["lattice_size"]
    True
    """
    started = time.perf_counter()
    lacking = [a.name for a in data.attributes if a.hierarchy is None]
    if lacking:
        raise ValueError(f"optimal_search needs a hierarchy for every quasi-identifier; "
                         f"none is given for {lacking}")
    respect_boundaries = bool(respect_boundaries)
    if engine is None:
        engine = FrequencyEngine(data, capped=respect_boundaries)
    elif bool(getattr(engine, "capped", False)) != respect_boundaries:
        raise ValueError(f"The 'engine' parameter of optimal_search must count capped "
                         f"recodings exactly when respect_boundaries is True; got an engine "
                         f"with capped={getattr(engine, 'capped', False)} and "
                         f"respect_boundaries={respect_boundaries}")
    computed_before = engine.frequency_sets_computed
    rollups_before = engine.rollups
    steps_before = getattr(engine, "step_sets", 0)
    stopped_before = getattr(engine, "rollups_stopped", 0)
    read_before = getattr(engine, "groups_read", 0)
    budget = suppression_budget(suppression, data.records)
    spread = spreads(model, budget)
    scorer = node_metric(metric, data, budget, respect_boundaries)
    heights = boundary_levels(data, respect_boundaries)
    lattice = Lattice(heights, names=data.names)
    if exact is None:
        exact = lattice.size <= EXACT_UP_TO
    from .._progress import reporter

    report = reporter(progress, "optimal")
    if not exact:
        check_budget(max_checks, time_limit)
        levels, value, stats = best_effort_search(
            data, model, scorer, engine, budget, heights, rng=rng, max_checks=max_checks,
            time_limit=time_limit)
        stats.update(lattice_size=lattice.size, metric=metric, metric_value=value,
                     boundary_levels=list(heights), rollups=engine.rollups - rollups_before,
                     frequency_sets=engine.frequency_sets_computed - computed_before,
                     step_sets=getattr(engine, "step_sets", 0) - steps_before)
        stats["search_seconds"] = stats["seconds"] = time.perf_counter() - started
        status = StatusMap(lattice.dimension)
        status.tags.update({} if levels is None else {levels: "chosen"})
        report(stats.get("nodes_checked", 1), stats.get("nodes_checked", 1), "best effort")
        return OptimalResult(levels, value, status, stats)
    levels, value, status, stats = exact_search(lattice, model, scorer, engine, budget,
                                                spread, report)
    stats.update({
        "frequency_sets": engine.frequency_sets_computed - computed_before,
        "rollups": engine.rollups - rollups_before,
        "step_sets": getattr(engine, "step_sets", 0) - steps_before,
        "rollups_stopped": getattr(engine, "rollups_stopped", 0) - stopped_before,
        "groups_read": getattr(engine, "groups_read", 0) - read_before,
        "metric": metric,
        "metric_value": value,
        "boundary_levels": list(heights),
        "search": "exact",
        "proven_optimal": True,
        "seconds": time.perf_counter() - started,
    })
    stats["search_seconds"] = stats["seconds"]   # anonymize() overwrites "seconds" with its total
    return OptimalResult(levels, value, status, stats)


def optimal(data, model, *, rng=None, suppression=None, metric="loss", engine="numpy",
            respect_boundaries=False, exact=None, max_checks=DEFAULT_MAX_CHECKS,
            time_limit=None, progress=None):
    """The optimal full-domain generalization under ``metric`` (Flash-style search).

    Parameters
    ----------
    data : EncodedTable
    model : PrivacyModel
        k, and l-diversity / t-closeness when asked (all monotone).
    rng : numpy.random.Generator
        Seeds the best-effort search (the exact search is deterministic).
    suppression : float, optional
        Fraction of records that may be suppressed (default 0): the records
        of every class that fails the model are, when they fit the budget.
    metric : {"loss", "discernibility", "dm_star", "precision", "height"}
        ARX's definitions; lower is better. ``dm_star`` is ARX's monotonic
        variant of discernibility (suppressed classes cost ``|E|^2`` too).
    engine : {"numpy", "sqlite", "duckdb"}
        Where frequency sets are computed: on the integer codes with roll-up
        (default), or by SQL in an in-memory database (k-anonymity only).
    respect_boundaries : bool
        Never go past a MAGVal: search the capped lattice (values stop at
        their MAGVals, levels end at each attribute's boundary level) and
        release the capped recoding. When the boundaries make the model
        unreachable the error names the binding attributes; a suppression
        budget is used when allowed.
    exact : bool, optional
        None (default): the exact search up to :data:`EXACT_UP_TO` lattice
        nodes, the best-effort search above. True forces the exact search
        at any size; False the best-effort one. ``stats["proven_optimal"]``
        says which answered, ``stats["nodes_checked"]`` how many nodes it
        checked.
    max_checks : int
        The best-effort search checks at most this many nodes.
    time_limit : float, optional
        The best-effort search stops after this many seconds (the result
        then depends on the machine's speed).
    progress : None, bool or callable
        Passed to :func:`optimal_search`.

    Returns
    -------
    Partition
        The optimal level vector, ``-1`` for suppressed records, and the
        search statistics (``frequency_sets``, ``nodes_checked``,
        ``nodes_pruned``, ``metric_value``, ``seconds``, ...).

    Examples
    --------
    >>> import kanon_graph as kg
    >>> table = kg.datasets.paper_003_table()
    >>> res = kg.anonymize(table, kg.datasets.paper_003_schema(), k=3, algorithm="optimal",
    ...                    metric="height")
    >>> res.levels, res.suppressed
    ({'gender': 0, 'age': 3, 'zip': 2}, 0)
    """
    if engine == "numpy":
        counter = None
    elif engine in ("sqlite", "duckdb"):
        from .sql import SQLFrequencyEngine

        counter = SQLFrequencyEngine(data, backend=engine, capped=respect_boundaries)
    else:
        raise ValueError(f"The 'engine' parameter of the optimal search must be one of "
                         f"['numpy', 'sqlite', 'duckdb']. Got {engine!r}.")
    found = optimal_search(data, model, metric=metric, suppression=suppression or 0.0,
                           engine=counter, respect_boundaries=respect_boundaries,
                           exact=exact, max_checks=max_checks, time_limit=time_limit, rng=rng,
                           progress=progress)
    engine = FrequencyEngine(data, capped=respect_boundaries)
    if found.levels is None:
        top = boundary_levels(data, respect_boundaries)
        raise unreachable_error("optimal", data, respect_boundaries,
                                engine.suppressed_records(top, model),
                                suppression_budget(suppression, data.records))
    class_of, n_classes = engine.class_of(found.levels)
    if getattr(model, "needs_sensitive", False):
        failing = np.asarray(model.suppressed_classes(class_of, data, n_classes), dtype=bool)
    else:
        failing = np.bincount(class_of, weights=data.weights, minlength=n_classes) < model.k
    class_of = np.where(failing[class_of], -1, class_of).astype(np.int64)
    return Partition(class_of, found.levels, dict(found.stats), capped=bool(respect_boundaries))


register_algorithm("optimal", optimal, recoding="global", models=K_L_T, needs_hierarchies=True,
                   supports_suppression=True, supports_boundaries=True, weighted=True,
                   description="Optimal full-domain generalization for a metric "
                               "(Flash-style lattice search)")
