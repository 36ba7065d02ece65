"""How the facade runs a registered algorithm: as one call, or sharded.

:func:`kanon_graph.anonymize` and the ``auto`` trials (:mod:`kanon_graph._auto`)
hand the algorithm the registry found to :func:`run_algorithm`, which decides
how it runs: a local algorithm on many records inside shards
(:mod:`kanon_graph.scale.sharding`, in this process or as Dask tasks), any
other as one call, with the ``scheduler`` and ``progress`` it declares it takes.
"""

from __future__ import annotations

import inspect
from typing import TYPE_CHECKING, Any, Callable

from .scale.sharding import DEFAULT_SHARD_SIZE, run_sharded

if TYPE_CHECKING:
    import numpy as np

    from .encoding import EncodedTable
    from .privacy import PrivacyModel
    from .registry import AlgorithmInfo, Partition

__all__ = ["run_algorithm"]


def _accepts(function: Callable[..., Any], name: str) -> bool:
    params = inspect.signature(function).parameters
    return name in params or any(p.kind == p.VAR_KEYWORD for p in params.values())


def run_algorithm(info: AlgorithmInfo, data: EncodedTable, model: PrivacyModel, *,
                  rng: np.random.Generator | None, suppression: float | None,
                  options: dict[str, Any], shard_size: int | None = None,
                  scheduler: Any = None, progress: Any = None) -> Partition:
    """Run a registered algorithm on ``data``, sharded when it is local and large.

    A local algorithm on more than ``shard_size`` records runs through
    :func:`~kanon_graph.scale.sharding.run_sharded` (as Dask tasks when
    ``scheduler`` is given, in this process otherwise); everything else runs
    as one call, with ``scheduler`` passed on to an algorithm that takes one
    (``rv-distributed``). Never sharded: an algorithm registered with
    ``shards=False`` (``stepwise``), and, when the caller gave no
    ``shard_size``, a model that judges a class against the whole table
    (t-closeness, :attr:`~kanon_graph.privacy.PrivacyModel.needs_whole_table`):
    a shard does not see the whole table, so the default runs it unsharded
    rather than refuse it.

    Parameters
    ----------
    info : AlgorithmInfo
    data, model, rng, suppression
        As for any algorithm (``rng`` None: an algorithm that declares
        ``secret_randomness``, called without a seed of the caller's).
    options : dict
        The algorithm's options.
    shard_size : int, optional
        Default :data:`~kanon_graph.scale.sharding.DEFAULT_SHARD_SIZE`
        (none with t-closeness).
    scheduler : None, str or distributed.Client
    progress : Reporter or callable, optional
        ``progress(done, total, text)`` per shard when sharded; otherwise
        handed to an algorithm that reports progress itself
        (``info.reports_progress()``), and ignored by the others.

    Returns
    -------
    Partition
    """
    if shard_size is None:
        whole = getattr(model, "needs_whole_table", False)
        shard_size = data.n if whole else DEFAULT_SHARD_SIZE
    if info.recoding == "local" and info.shards and data.n > shard_size:
        if scheduler is None:
            return run_sharded(info.function, data, model, rng=rng, suppression=suppression,
                               shard_size=shard_size, progress=progress, **options)
        from .scale._cluster import client_for

        with client_for(scheduler, where="anonymize") as client:
            return run_sharded(info.function, data, model, rng=rng, suppression=suppression,
                               shard_size=shard_size, client=client, progress=progress,
                               **options)
    if scheduler is not None and _accepts(info.function, "scheduler"):
        options = dict(options, scheduler=scheduler)
    if progress and info.reports_progress():
        options = dict(options, progress=progress)
    return info.function(data, model, rng=rng, suppression=suppression, **options)
