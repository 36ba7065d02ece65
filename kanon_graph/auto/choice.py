"""``algorithm="auto"``: the algorithm the quality suite teaches, or trials where it is silent.

:func:`kanon_graph.anonymize` with ``algorithm="auto"`` (the default) calls
:func:`measure`.

**What the suite teaches** (:func:`taught`): when every quasi-identifier has
a hierarchy, the lattice has at most :data:`STEPWISE_LATTICE_LIMIT` nodes and
the model is k-anonymity (no l, t or generalization boundaries), ``auto``
runs ``stepwise`` without trials (with l or t too: below). On every table of the
quality suite, tuning and held-out alike, at k = 5, 10 and 20, its loss was below ARX's
local recoding, and the lowest of the library's algorithms run beside it (``mst`` and
``mondrian``; ``sd`` and the other local recodings were not run) in 15 of the 21 runs;
``mst`` was lower in the other six (patients k = 10, clinic k = 10 and 20, the held-out
admissions table: by 0.4% to 8%) at 6 to 20 times the time (``benchmarks/quality.py``):
a trial of ``mst`` would cost more than the whole ``stepwise`` run. When *no*
quasi-identifier has a hierarchy (and the model is k-anonymity alone),
``auto`` runs :data:`FLAT_TAUGHT` (``flat``, :mod:`kanon_graph.flat`) without
trials: the records of tuples held by k records kept as they are, the rest
clustered by ``mst`` (the lowest loss in 10 of the 12 hierarchy-free tuning
runs of the suite, where the trials cost about twice its time), or by
``mondrian`` on all of them at once when they are too many for ``mst``'s
shards to keep their loss (``benchmarks/bench_flat_scale.py``). With **t-closeness** or
**l-diversity** (of every kind, and both together), every quasi-identifier with a
hierarchy and the same lattice limit, ``auto`` runs ``stepwise`` without trials too
(issue 47): under t below the trials' choice in 11 of 12 tuning runs; under l at or
below it on the tuning runs and at or below ARX's local recoding on every run of
docs/bench/sensitive-stepwise.md (held out, ``mst`` is lower on three screening runs).

**Trials** otherwise (boundaries, some quasi-identifiers with a hierarchy and some
without, a large lattice, l or t without hierarchies): every candidate that fits the
data (:func:`candidates`; with l or t first :data:`SENSITIVE_TRIAL`)
runs on the table, or on a seeded sample of :data:`AUTO_SAMPLE` records when
the table is larger; each trial release is scored with one formula, the
mean over the quasi-identifiers of ARX's per-attribute Loss
(:func:`mean_loss`, the figure the quality suite reports), and the candidate
with the lowest loss wins (ties: the earlier candidate). On a sample the winner then
runs on the whole table, and that release is verified like every other. Whether
it runs in shards is :mod:`kanon_graph.scale.shard_rule`'s rule (shards only where
measured to cost no Loss, or beyond the largest table measured whole).

The choice depends only on the table, the parameters and the seed, never on
the clock: trial times are measured and reported (``res.stats["auto"]``),
and the time budget is the sample size.
"""

from __future__ import annotations

import time
import warnings
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..exceptions import PrivacyError
from ..metrics._loss import arx_loss_per_attribute
from ..privacy.reachability import check_reachable
from ..recoding import recode_levels, recode_partition
from ..registry import Partition, get_algorithm
from ..pipeline.dispatch import run_algorithm
from ..pipeline.from_partition import COLLAPSED
from ..scale.sharding import subset

__all__ = ["AUTO_CANDIDATES", "SENSITIVE_TRIAL", "AUTO_LATTICE_LIMIT", "AUTO_SAMPLE", "AUTO_SUPPRESSION",
           "AUTO_COLLAPSED", "STEPWISE_LATTICE_LIMIT", "FLAT_TAUGHT", "AutoChoice", "candidates", "taught",
           "TAUGHT_REASONS", "lattice_nodes", "measure", "mean_loss", "auto_text", "reason_key"]

#: The algorithms ``auto`` tries, in order (the order breaks ties): the exact
#: full-domain optimum when every quasi-identifier has a hierarchy, the fast
#: multidimensional partitioning, and the two graph algorithms.
AUTO_CANDIDATES = ("optimal", "mondrian", "sd", "mst")

#: The largest lattice (product of hierarchy heights + 1) ``auto`` searches
#: with ``optimal``; Adult's eight quasi-identifiers (23,040 nodes) take
#: about 0.5 s on 2,000 rows.
AUTO_LATTICE_LIMIT = 20_000

#: The largest lattice on which ``auto`` runs ``stepwise`` without trials
#: (Adult with the project's hierarchies: 23,040 nodes; the registry table of
#: the held-out suite: 19,683).
STEPWISE_LATTICE_LIMIT = 100_000

#: What ``auto`` runs without trials when no quasi-identifier has a hierarchy
#: and the model is k-anonymity (None: trials). On the hierarchy-free tuning
#: tables of the quality suite (``adult-flat``, ``fars-flat``, ``patients-flat``,
#: ``clinic-flat`` at k = 5, 10, 20) ``mst`` had the lowest mean Loss in 10
#: of 12 runs; ``sd`` was lower on clinic-flat at k = 10 and 20, by 0.2% and
#: 0.6%. The trials (mondrian, sd and mst on up to 20,000 records, then the
#: winner) took about twice the CPU time of ``mst`` alone. ``flat`` is
#: ``mst`` on those tables (its frequent tuples aside) and, past
#: :data:`kanon_graph.flat.MST_LIMIT` rare records, ``mondrian`` on the whole
#: rest instead of ``mst`` in dozens of shards (issue 41: the figures are in
#: docs/performance.md, "auto without hierarchies"). Issue 48 weighed it against
#: ``stepwise`` on ``kg.hierarchy.suggest``'s drafts (``benchmarks/suggest_vs_builder.py``,
#: tuning tables at k = 5 and 10): ``flat`` lost less on all 8 runs by the
#: hierarchy-free yardsticks (data, span) and on 3 of 8 by the hand-built
#: hierarchies' (the drafts won there on patients and clinic), so it stays.
FLAT_TAUGHT = "flat"

TAUGHT_REASONS = {
    "stepwise": "every quasi-identifier has a hierarchy and the model is k-anonymity: "
                "stepwise, below ARX's local recoding on every table of the quality suite",
    "flat": "no quasi-identifier has a hierarchy and the model is k-anonymity: flat, "
            "tuples held by k records kept and the rest by mst (the lowest loss on 10 of "
            "the 12 hierarchy-free runs of the quality suite), or by mondrian on the whole "
            "rest where mst would run in many shards; kept over suggest's drafted "
            "hierarchies, which lost more on all 8 tuning runs by the data and span "
            "yardsticks (on the hand-built hierarchies' in 3 of 8; "
            "benchmarks/suggest_vs_builder.py, docs/performance.md)",
    "stepwise-t": "every quasi-identifier has a hierarchy and the model is k with "
                  "t-closeness: stepwise, below the trials' choice in 11 of the 12 t runs "
                  "of the tuning tables (benchmarks/tune_sensitive.py)",
    "stepwise-l": "every quasi-identifier has a hierarchy and the model has l-diversity: "
                  "stepwise, at or below the trials' choice on every l run of the tuning "
                  "tables measured at k = 5 and at or below ARX's local recoding on every "
                  "run, held-out tables included (benchmarks/tune_sensitive.py, "
                  "docs/bench/sensitive-stepwise.md)",
}

#: Trials run on at most this many records (a seeded sample of a larger
#: table); this is ``auto``'s time budget. Up to it the trials run on the
#: whole table and the winner's trial is the release, so ``auto`` is the best
#: candidate by construction. A sample of 3,000 records misranked them on the
#: issue-23 clinic table (15,000 rows, suggested hierarchies: sd 0.275 <
#: mondrian 0.320 on the sample, mondrian 0.199 < sd 0.235 on the table), as
#: local partitions gain more from density than full-domain ones. The four
#: trials on that whole table take about 10 s of CPU (mst 5, sd 2.6).
AUTO_SAMPLE = 20_000

#: The suppression budget ``optimal`` gets in ``auto`` when the caller gives
#: none: a full-domain release without suppression generalizes every record
#: as far as its rarest outlier needs.
AUTO_SUPPRESSION = 0.02

#: A quasi-identifier counts as collapsed when its mean ARX cell loss is at
#: least this (almost every cell suppressed or generalized to the root).
AUTO_COLLAPSED = COLLAPSED


@dataclass(frozen=True)
class AutoChoice:
    """What :func:`measure` chose.

    Attributes
    ----------
    algorithm : str
    suppression : float or None
        The suppression budget the winner runs with.
    partition : Partition or None
        The winner's partition when its trial ran on the whole table.
    stats : dict
        ``chose``, ``reason``, ``rows`` (records per trial), ``tried`` (one
        dict per candidate: ``algorithm``, ``suppression``, ``loss``,
        ``seconds``, or ``skipped`` with the reason).
    """

    algorithm: str
    suppression: float | None
    partition: Partition | None
    stats: dict = field(default_factory=dict)

    def warn(self, release, stats, k):
        """After the release: :func:`warn_if_collapsed` (a warning, and ``stats["collapsed"]``)."""
        warn_if_collapsed(release, stats, k)


def lattice_nodes(data):
    """Nodes of the table's generalization lattice (the product of heights + 1)."""
    return int(np.prod([a.height + 1 for a in data.attributes], dtype=object))


#: Tried first among the trials with l or t when every quasi-identifier has a hierarchy,
#: the lattice has at most :data:`STEPWISE_LATTICE_LIMIT` nodes and there are no
#: boundaries -- conditions under which :func:`taught` runs it with no trials at all since
#: issue 47 (so it is a trial only where a user unregistered and re-registered names, and
#: the algorithm a Dask table runs with boundaries, :mod:`kanon_graph.auto.counted`).
SENSITIVE_TRIAL = "stepwise"


def candidates(data, *, suppression=None, respect_boundaries=False, options=None,
               model=None):
    """``(runnable, skipped)``: ``[(name, suppression)]`` to try and ``[(name, why)]``.

    ``optimal`` fits when every quasi-identifier has a hierarchy and the
    lattice has at most :data:`AUTO_LATTICE_LIMIT` nodes; it gets
    :data:`AUTO_SUPPRESSION` unless ``suppression`` is given. Local
    candidates get ``suppression`` as given. With ``respect_boundaries``
    only algorithms that support boundaries fit; with ``options`` only
    algorithms that accept them.
    """
    runnable, skipped = [], []
    lacking = [a.name for a in data.attributes if a.hierarchy is None]
    nodes = lattice_nodes(data)
    if model is not None and model.needs_sensitive and not respect_boundaries \
            and not lacking and nodes <= STEPWISE_LATTICE_LIMIT:
        try:
            info = get_algorithm(SENSITIVE_TRIAL)
        except ValueError:                            # unregistered by the user
            info = None
        if info is not None and (not options or set(options) <= set(info.options())):
            runnable.append((SENSITIVE_TRIAL, suppression))
    for name in AUTO_CANDIDATES:
        try:
            info = get_algorithm(name)
        except ValueError:
            continue                                  # unregistered by the user
        known = info.options()
        if options and not info.accepts_any_option() and set(options) - set(known):
            skipped.append((name, f"does not take option(s) {sorted(set(options) - set(known))}"))
        elif respect_boundaries and not info.supports_boundaries:
            skipped.append((name, "cannot respect generalization boundaries"))
        elif info.needs_hierarchies and lacking:
            skipped.append((name, f"needs a hierarchy for {lacking}"))
        elif info.needs_hierarchies and nodes > AUTO_LATTICE_LIMIT:
            skipped.append((name, f"the lattice has {nodes} nodes, more than "
                                  f"{AUTO_LATTICE_LIMIT}"))
        else:
            budget = suppression
            if budget is None and info.recoding == "global" and info.supports_suppression:
                budget = AUTO_SUPPRESSION
            runnable.append((name, budget))
    return runnable, skipped


def taught(data, model, *, respect_boundaries=False, options=None):
    """The algorithm the quality suite settles (see the module docstring), else None.

    ``"stepwise"`` when every quasi-identifier has a hierarchy and the
    lattice has at most :data:`STEPWISE_LATTICE_LIMIT` nodes, under every
    model (k; l-diversity of every kind; t-closeness; l and t together):
    under k alone it is below ARX's local recoding on every table of the
    quality suite; under t below the trials' choice in 11 of the 12 t runs
    of the tuning tables; under l at or below the trials' choice and ARX's
    local recoding on the runs of docs/bench/sensitive-stepwise.md
    (:data:`TAUGHT_REASONS`). :data:`FLAT_TAUGHT` (``"flat"``) when no
    quasi-identifier has a hierarchy and the model is k alone. Never with
    generalization boundaries, and only if the algorithm takes ``options``.
    """
    if respect_boundaries:
        return None
    with_hierarchy = [a.hierarchy is not None for a in data.attributes]
    if all(with_hierarchy):
        name = "stepwise" if lattice_nodes(data) <= STEPWISE_LATTICE_LIMIT else None
    elif not any(with_hierarchy) and not model.needs_sensitive:
        name = FLAT_TAUGHT
    else:
        name = None
    if name is None:
        return None
    try:
        info = get_algorithm(name)
    except ValueError:                               # unregistered by the user
        return None
    if options and not set(options) <= set(info.options()):
        return None
    return name


def reason_key(name, model):
    """The key of :data:`TAUGHT_REASONS` for ``name`` taught under ``model``."""
    if name != "stepwise":
        return name
    return "stepwise-l" if model.l is not None else "stepwise-t" if model.t is not None \
        else name


def _release(data, partition):
    if partition.levels is not None:
        return recode_levels(data, partition.levels, suppress=np.asarray(partition.class_of) < 0,
                             capped=partition.capped)
    return recode_partition(data, partition.class_of)


def measure(data, model, *, seed, suppression=None, respect_boundaries=None, options=None,
            shard_size=None, scheduler=None, progress=None):
    """Try every candidate on ``data`` (or a sample) and choose the lowest loss.

    Parameters
    ----------
    data : EncodedTable
    model : PrivacyModel
        Bound to ``data``.
    seed : int
        Seeds the sample and every trial's generator.
    suppression, respect_boundaries, options
        As given to :func:`kanon_graph.anonymize`.
    shard_size, scheduler
        For a trial on the whole table.
    progress : callable, optional
        ``progress(done, total, text)`` before each trial and after the last.

    Returns
    -------
    AutoChoice
    """
    options = dict(options or {})
    name = taught(data, model, respect_boundaries=bool(respect_boundaries), options=options)
    if name is not None:
        reason = TAUGHT_REASONS.get(reason_key(name, model), f"{name}: the quality suite's choice")
        return AutoChoice(name, suppression, None,
                          {"chose": name, "reason": reason, "rows": data.n, "tried": []})
    runnable, skipped = candidates(data, suppression=suppression,
                                   respect_boundaries=bool(respect_boundaries), options=options,
                                   model=model)
    if respect_boundaries is not None:
        options = {**options, "respect_boundaries": bool(respect_boundaries)}
    whole = data.n <= AUTO_SAMPLE
    if whole:
        trial_data = data
    else:
        rows = np.sort(np.random.default_rng(seed).choice(data.n, AUTO_SAMPLE, replace=False))
        trial_data = subset(data, rows)
    tried: list[dict[str, Any]] = [{"algorithm": n, "skipped": why} for n, why in skipped]
    best = None
    for i, (name, budget) in enumerate(runnable):
        if progress:
            progress(i, len(runnable), f"auto: trial of {name} on {trial_data.n} records")
        info = get_algorithm(name)
        opts = {k: v for k, v in options.items()
                if k != "respect_boundaries" or info.supports_boundaries}
        started, cpu = time.perf_counter(), time.process_time()
        try:
            check_reachable(model, trial_data, budget, info, bool(respect_boundaries))
            partition = run_algorithm(info, trial_data, model, rng=np.random.default_rng(seed),
                                      suppression=budget, options=opts, shard_size=shard_size,
                                      scheduler=scheduler)
            release = _release(trial_data, partition)
            if not model.verify(release.class_of, trial_data).holds:
                raise PrivacyError("its release does not meet the privacy model")
            loss = mean_loss(release)
        except (ValueError, PrivacyError) as exc:   # this candidate cannot meet the model
            tried.append({"algorithm": name, "suppression": budget,
                          "skipped": str(exc).splitlines()[0]})
            continue
        entry = {"algorithm": name, "suppression": budget, "loss": round(loss, 6),
                 "seconds": round(time.perf_counter() - started, 3),
                 "cpu_seconds": round(time.process_time() - cpu, 3)}
        tried.append(entry)
        if best is None or loss < best[0]:
            best = (loss, name, budget, partition)
    if progress:
        progress(len(runnable), len(runnable), "auto: trials done")
    if best is None:
        said: dict[str, list[str]] = {}          # one reason once, with all it stopped
        for t in tried:
            said.setdefault(t["skipped"], []).append(t["algorithm"])
        reasons = "; ".join(f"{', '.join(names)}: {why}" for why, names in said.items())
        on = "" if whole else f" (trials on {trial_data.records} of the {data.records} records)"
        raise ValueError(f"algorithm='auto' found no algorithm that fits{on}: {reasons}")
    order = {n: i for i, n in enumerate((SENSITIVE_TRIAL, *AUTO_CANDIDATES))}
    tried.sort(key=lambda t: order.get(t["algorithm"], len(order)))     # candidate order
    loss, name, budget, partition = best
    where = "the table" if whole else f"a seeded sample of {AUTO_SAMPLE} of {data.n} records"
    losses = ", ".join(f"{t['algorithm']} {t['loss']:.4f}" for t in tried if "loss" in t)
    reason = f"lowest mean ARX loss on {where} ({losses})"
    stats = {"chose": name, "reason": reason, "rows": trial_data.n, "tried": tried}
    return AutoChoice(name, budget, partition if whole else None, stats)


def mean_loss(release):
    """The mean over the quasi-identifiers of ARX's per-attribute Loss: the figure trials
    are ranked by, and the one the quality suite and docs/performance.md report."""
    return float(np.mean(list(arx_loss_per_attribute(release).values())))


def choose(data, model, options, progress=None):
    """The pipeline's choice step (:func:`kanon_graph.pipeline.run.run_pipeline`): :func:`measure`
    with the options of :class:`kanon_graph.pipeline.run.Options`."""
    return measure(data, model, seed=options.seed, suppression=options.suppression,
                   respect_boundaries=options.respect_boundaries, options=dict(options.extra),
                   shard_size=options.shard_size, scheduler=options.scheduler,
                   progress=progress)


def auto_text(stats):
    """One line: which algorithm ``auto`` chose and why."""
    return f"chose {stats['chose']}: {stats['reason']}"


def warn_if_collapsed(release, stats, k):
    """Warn when most quasi-identifiers of ``release`` are (almost) all ``*``.

    Says what the other candidates lost and what would do better; adds the
    list of collapsed attributes to ``stats`` (``collapsed``).
    """
    per = arx_loss_per_attribute(release)
    collapsed = [a for a, v in per.items() if v >= AUTO_COLLAPSED]
    stats["collapsed"] = collapsed
    if len(collapsed) * 2 <= len(per):
        return
    others = [t for t in stats["tried"] if "loss" in t and t["algorithm"] != stats["chose"]]
    tried = ", ".join(f"{t['algorithm']} {t['loss']:.4f}" for t in others) or "none"
    keep = [a for a in per if a not in collapsed]
    warnings.warn(
        f"algorithm='auto' ({stats['chose']}) generalizes {collapsed} to (almost) nothing "
        f"(mean ARX cell loss >= {AUTO_COLLAPSED} on {len(collapsed)} of {len(per)} "
        f"quasi-identifiers; the other candidates lost more: {tried}). A smaller k (now {k}), "
        f"fewer quasi-identifiers (e.g. only {keep or list(per)[:1]}), finer hierarchies for "
        f"{collapsed}, or dropping hierarchies so local algorithms cut ranges would keep more",
        UserWarning, stacklevel=5)   # AutoChoice.warn, run_pipeline, anonymize, the caller
