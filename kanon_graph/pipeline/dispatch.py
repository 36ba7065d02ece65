"""How the facade runs a registered algorithm: as one call, or sharded.

:func:`kanon_graph.anonymize` and the ``auto`` trials (:mod:`kanon_graph.auto.choice`)
hand the algorithm the registry found to :func:`run_algorithm`, which decides
how it runs: in shards (:mod:`kanon_graph.scale.sharding`, in this process or
as Dask tasks) where :func:`kanon_graph.scale.shard_rule.plan_shards` says so,
otherwise as one call, with the ``scheduler`` and ``progress`` it declares it
takes. The rule is the same whether ``auto`` chose the algorithm or the
caller named it: a local recoding runs in shards only where
``benchmarks/bench_shards.py`` measured the shards within 1% of the whole
table's Loss at lower CPU time (issue 41), or beyond the largest table its
whole run was measured on; a ``shard_size`` of the caller's wins, except
over an algorithm that never runs in shards (``stepwise``, ``flat``, a global
recoding). The partition's ``stats["sharding"]`` says which, with the
measured cost, and says so when a ``shard_size`` given was not applied.
"""

from __future__ import annotations

import dataclasses
import inspect
from typing import TYPE_CHECKING, Any, Callable

from ..registry import Partition
from ..scale.shard_rule import ShardPlan, plan_shards, sharded_text
from ..scale.sharding import run_sharded

if TYPE_CHECKING:
    import numpy as np

    from ..encoding import EncodedTable
    from ..privacy import PrivacyModel
    from ..registry import AlgorithmInfo

__all__ = ["run_algorithm"]


def _accepts(function: Callable[..., Any], name: str) -> bool:
    params = inspect.signature(function).parameters
    return name in params or any(p.kind == p.VAR_KEYWORD for p in params.values())


def run_algorithm(info: AlgorithmInfo, data: EncodedTable, model: PrivacyModel, *,
                  rng: np.random.Generator | None, suppression: float | None,
                  options: dict[str, Any], shard_size: int | None = None,
                  scheduler: Any = None, progress: Any = None) -> Partition:
    """Run a registered algorithm on ``data``, in shards where the measurements say so.

    :func:`~kanon_graph.scale.shard_rule.plan_shards` decides: never
    sharded is an algorithm registered with ``shards=False`` (``stepwise``)
    or that is not a local recoding, whatever ``shard_size`` says (its
    ``stats["sharding"]`` then says the ``shard_size`` was not applied);
    otherwise a caller's ``shard_size`` wins, and without one a model that
    judges a class against the whole table runs unsharded (t-closeness,
    :attr:`~kanon_graph.privacy.PrivacyModel.needs_whole_table`: a shard
    does not see the whole table, so it runs unsharded rather than being
    refused); ``mst``, ``sd`` and ``mondrian`` run whole wherever
    their whole run was measured (:data:`~kanon_graph.scale.shard_rule.SHARD_EVIDENCE`).
    In shards, :func:`~kanon_graph.scale.sharding.run_sharded` runs them
    (as Dask tasks when ``scheduler`` is given, in this process otherwise);
    otherwise one call, with ``scheduler`` passed on to an algorithm that
    takes one (``rv-distributed``).

    Parameters
    ----------
    info : AlgorithmInfo
    data, model, rng, suppression
        As for any algorithm (``rng`` None: an algorithm that declares
        ``secret_randomness``, called without a seed of the caller's).
    options : dict
        The algorithm's options.
    shard_size : int, optional
        The caller's: more records than this run in shards of at most this
        many. None: the rule of :mod:`kanon_graph.scale.shard_rule`.
    scheduler : None, str or distributed.Client
    progress : Reporter or callable, optional
        ``progress(done, total, text)`` per shard when sharded; otherwise
        handed to an algorithm that reports progress itself
        (``info.reports_progress()``), and ignored by the others.

    Returns
    -------
    Partition
        With ``stats["sharding"]`` (a sentence) when the rule was asked about
        more than :data:`~kanon_graph.scale.sharding.DEFAULT_SHARD_SIZE`
        records, or a ``shard_size`` cut the table or would have (and was
        not applied).
    """
    plan = plan_shards(info, data.n, shard_size=shard_size,
                       whole_table_model=getattr(model, "needs_whole_table", False))
    if plan.shard_size is not None:
        if scheduler is None:
            part = run_sharded(info.function, data, model, rng=rng, suppression=suppression,
                               shard_size=plan.shard_size, progress=progress, **options)
        else:
            from ..scale._cluster import client_for

            with client_for(scheduler, where="anonymize") as client:
                part = run_sharded(info.function, data, model, rng=rng,
                                   suppression=suppression, shard_size=plan.shard_size,
                                   client=client, progress=progress, **options)
        return _noted(part, plan)
    if scheduler is not None and _accepts(info.function, "scheduler"):
        options = dict(options, scheduler=scheduler)
    if progress and info.reports_progress():
        options = dict(options, progress=progress)
    return _noted(info.function(data, model, rng=rng, suppression=suppression, **options), plan)


def _noted(part: Partition, plan: ShardPlan) -> Partition:
    """``part`` with ``stats["sharding"]``: how the run went and what sharding measured."""
    text = sharded_text(plan, part.stats) if isinstance(part, Partition) else None
    if text is not None:
        part = dataclasses.replace(part, stats={**part.stats, "sharding": text})
    return part
