"""``flat``: the hierarchy-free local recoding at any size.

``kg.anonymize(..., algorithm="flat")``, and ``auto``'s choice when no
quasi-identifier has a hierarchy and the model is k-anonymity
(:data:`kanon_graph.auto.choice.FLAT_TAUGHT`). A table of at most
:data:`WHOLE_MST` records (the size up to which the facade runs ``mst`` in
one piece) goes to ``mst`` as it is: the release is ``mst``'s, as it was
before ``flat`` existed. A larger table runs in two parts:

1. **Frequent tuples** (k-anonymity only: with l or t none is kept and step
   2 clusters the whole table). The records of every distinct
   quasi-identifier tuple held by at least ``k`` records form a class of
   their own: released with every cell as it is (a class of identical tuples
   costs nothing under any loss the library scores), in one pass over the
   table.
2. **The rest** (records whose tuple is rarer than ``k``) are clustered
   together: by ``mst`` (Venkata Ramana & Valli Kumari 2013) when they are at
   most :data:`MST_LIMIT` records (on all of them at once: the shard rule,
   :mod:`kanon_graph.scale.shard_rule`, runs ``mst`` whole up to 500,000
   records), else by
   ``mondrian`` (LeFevre, DeWitt & Ramakrishnan 2006) on all of them at once.
   If fewer than ``k`` records are rare, the whole table goes to ``mst`` (it
   spans distinct tuples, so a table of few distinct tuples is cheap).

Keeping the frequent tuples is not free on a small table (a tuple held by k
records may serve better split among its neighbours: 3% above ``mst`` on
2,000 census rows at k = 2), so it is kept only above :data:`WHOLE_MST`
records, where it takes the bulk of the records off ``mst``'s quadratic tree.

Why: ``mst``'s spanning tree is quadratic in the distinct tuples it spans,
and shards (each a share of the table, whose records lie as far apart as a
small table's where almost every tuple is distinct: dates, codes) cost it
16-58% of Loss where measured (:data:`~kanon_graph.scale.shard_rule.SHARD_EVIDENCE`).
``mondrian`` cuts the whole table in
``O(n log n)``, so every class is drawn from the full density of the data.
The measurements behind :data:`MST_LIMIT` are in its comment and in
``benchmarks/bench_flat_scale.py``.

No hierarchy is drawn: every class is released the way the facade releases
a hierarchy-free column (:func:`kanon_graph.recoding.recode_partition`: the
class's ``[min-max]`` interval for a number or date, the set of its values
for a category, the value itself where the class holds one), scored with the
same hierarchy-free Loss as ``mst``'s release, and verified from its cells by
the facade like every release.

References
----------
Venkata Ramana & Valli Kumari, "Graph based local recoding for data
anonymization", IJSPTM 2(4), 2013 (``mst``).
LeFevre, DeWitt & Ramakrishnan, "Mondrian multidimensional k-anonymity",
ICDE 2006.
"""

from __future__ import annotations

import numpy as np

from .pipeline.dispatch import run_algorithm
from ._progress import reporter
from .encoding import combine_codes
from .registry import K_L_T, Partition, get_algorithm, register_algorithm
from .scale.sharding import DEFAULT_SHARD_SIZE, subset

__all__ = ["flat", "MST_LIMIT", "WHOLE_MST", "frequent_tuples"]

#: Up to this many records ``flat`` is ``mst`` on the whole table, exactly
#: ``mst``'s release (the size up to which the facade ran ``mst`` in one piece
#: before issue 41's shard rule; every table of the quality suite is smaller).
WHOLE_MST = DEFAULT_SHARD_SIZE

#: The most rare records (records whose tuple is held by fewer than k) that
#: go to ``mst``; past it ``mondrian`` clusters them all at once. Measured on
#: ``make_register`` (every tuple distinct), k = 10, the Loss of
#: ``benchmarks/bench_flat_scale.py``: ``mst`` in the library's shards 0.0354
#: at 100,000 records and 0.0332 at 200,000 (its shards keep it about level),
#: ``mondrian`` on all of them 0.0483, 0.0405, 0.0347 at 400,000 and 0.0267 at
#: 1,000,000 (its classes gain from density). They cross near 470,000 records
#: (interpolated, not measured there); below it ``mst`` keeps the lower Loss at
#: the higher cost (166 s of CPU at 200,000 records against mondrian's 3 s).
#: Those ``mst`` figures are from shards of 50,000, before the shard rule: ``mst``
#: now runs whole up to 500,000 records, which lowered its Loss 13-37% where
#: measured (docs/bench/shards.csv), so the crossover is, if anything, higher;
#: the limit is kept at the size up to which ``mst`` was measured whole.
MST_LIMIT = 500_000


def frequent_tuples(data, k):
    """The class of every record whose quasi-identifier tuple is held by ``k`` records or more.

    Parameters
    ----------
    data : EncodedTable
    k : int

    Returns
    -------
    ndarray of int64 (n,)
        One class per frequent tuple (numbered from 0), ``-1`` for the
        records of rarer tuples.

    Examples
    --------
    >>> import numpy as np, kanon_graph as kg
    >>> table = kg.datasets.paper_003_table()
    >>> data = kg.encode(table, kg.Schema(quasi_identifiers=["gender"]))
    >>> labels = frequent_tuples(data, 3)
    >>> bool((labels >= 0).all()), len(np.unique(labels)) == table["gender"].nunique()
    (True, True)
    """
    attrs = data.attributes
    key = combine_codes([a.codes for a in attrs], [a.n_codes for a in attrs])
    _, inverse, counts = np.unique(key, return_inverse=True, return_counts=True)
    inverse = inverse.reshape(-1)
    frequent = counts >= k
    number = np.cumsum(frequent) - 1
    return np.where(frequent[inverse], number[inverse], -1).astype(np.int64)


def flat(data, model, *, rng=None, suppression=None, progress=None):
    """``mst`` on a small table; on a large one frequent tuples as classes, the rest by
    ``mst`` or (many) ``mondrian``.

    Parameters
    ----------
    data : EncodedTable
        No quasi-identifier needs a hierarchy (those given are used by the
        inner algorithm as it would use them).
    model : PrivacyModel
        k-anonymity. With l or t no frequent tuple is kept (a class of
        identical tuples may hold one sensitive value): the inner algorithm
        clusters the whole table and checks its own classes.
    rng : numpy.random.Generator, optional
        Handed to the inner algorithm.
    suppression : float, optional
        Handed to the inner algorithm, as a share of the records it clusters.
    progress : None, bool or callable
        Reported once the frequent tuples are set, then by the inner run.

    Returns
    -------
    Partition
        ``stats``: ``frequent`` (records in frequent tuples), ``rare``,
        ``clustered`` (records the inner algorithm clustered: the rare ones,
        or the whole table), ``inner`` (that algorithm) and its own stats.

    Examples
    --------
    >>> import kanon_graph as kg
    >>> table = kg.datasets.make_census(2_000, seed=0)
    >>> schema = kg.Schema(quasi_identifiers=["sex", "age", "race"])
    >>> res = kg.anonymize(table, schema, k=5, algorithm="flat")
    >>> res.verification.holds, res.algorithm
    (True, 'flat')
    """
    report = reporter(progress, "flat")
    keep = data.n > WHOLE_MST and not model.needs_sensitive
    class_of = frequent_tuples(data, model.k) if keep else np.full(data.n, -1, dtype=np.int64)
    rare = np.flatnonzero(class_of < 0)
    stats = {"frequent": int(data.n - len(rare)), "rare": int(len(rare))}
    report(stats["frequent"], data.n, "flat: frequent tuples kept")
    if not len(rare):
        report(data.n, data.n, "flat: done")
        return Partition(class_of, stats={**stats, "inner": None})
    if len(rare) < model.k:                  # too few to cluster apart: the whole table
        rare = np.arange(data.n)
        class_of[:] = -1
    inner = "mst" if len(rare) <= MST_LIMIT else "mondrian"
    stats["clustered"] = int(len(rare))
    part = run_algorithm(get_algorithm(inner), subset(data, rare), model, rng=rng,
                         suppression=suppression, options={},
                         shard_size=None if inner == "mst" else len(rare),
                         progress=report or None)
    labels = np.asarray(part.class_of, dtype=np.int64)
    shift = int(class_of.max()) + 1
    class_of[rare] = np.where(labels >= 0, labels + shift, -1)
    report(data.n, data.n, "flat: done")
    inner_stats = {key: value for key, value in (part.stats or {}).items()
                   if isinstance(value, (int, float, str, np.integer, np.floating))}
    return Partition(class_of, stats={**stats, "inner": inner, **inner_stats})


register_algorithm("flat", flat, recoding="local", models=K_L_T,
                   supports_suppression=True, shards=False,
                   description="hierarchy-free local recoding at any size: tuples held by k "
                               "records kept, the rest by mst (mondrian on many)")
