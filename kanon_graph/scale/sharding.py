"""Sharded local recoding: median cuts into shards, a local algorithm inside each.

Local recoding algorithms that walk a record graph (``mst``, ``sd``,
``k-member``, ``bottom-up``) grow faster than linearly with the number of
records or of distinct tuples. Sharding bounds that cost: the records are
split top-down by median cuts on their encoded quasi-identifiers, as
Mondrian splits a table (LeFevre, DeWitt & Ramakrishnan, "Mondrian
multidimensional k-anonymity", 2006, section 4), until every shard holds at
most ``shard_size`` records, and the chosen algorithm runs inside each shard
on its own. Classes never cross shards; verification stays global
(:func:`kanon_graph.anonymize` checks the whole release).

A cut is taken only when both sides could be released on their own: at
least ``k`` records each, and each l-diverse as one class when l-diversity
is asked. t-closeness compares a class with the whole table's distribution,
which a shard does not see, so it is not sharded.

Shards cost quality: a class cannot join records across a cut.
``benchmarks/bench_shards.py`` measured it (docs/bench/shards.csv; issue
41): on census, hierarchy-free census and the continuous patients table,
shards of 10,000 to 50,000 records raised the Loss of ``mst``, ``sd`` and
``mondrian`` by several percent to several times over (within 1% in one
run of 67, at no lower CPU time), for at most 65% less CPU time (``mst``
at 500,000 rows; ``mondrian`` none). So a table is sharded only where
:mod:`kanon_graph.scale.shard_rule` says so: when the caller gives a
``shard_size``, or beyond the largest table the algorithm's whole run was
measured on. :data:`DEFAULT_SHARD_SIZE` is the size of the shards then.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from ..registry import Partition

__all__ = ["DEFAULT_SHARD_SIZE", "shard_records", "subset", "run_sharded"]

#: Largest shard, in records, when :mod:`kanon_graph.scale.shard_rule` shards a table
#: the caller gave no ``shard_size`` for.
DEFAULT_SHARD_SIZE = 50_000


def subset(data, rows):
    """The encoded table restricted to ``rows`` (positions), codes and domains kept.

    Parameters
    ----------
    data : EncodedTable
    rows : ndarray of int

    Returns
    -------
    EncodedTable
        Its records are ``data``'s records ``rows`` in that order (with their
        ``weights`` when ``data`` is weighted tuples); codes still index the
        full table's domains and hierarchies.
    """
    rows = np.asarray(rows, dtype=np.int64)
    attributes = [dataclasses.replace(a, codes=a.codes[rows],
                                      values=None if a.values is None else a.values[rows])
                  for a in data.attributes]
    return dataclasses.replace(
        data, table=data.table.iloc[rows].reset_index(drop=True), attributes=attributes,
        sensitive={name: codes[rows] for name, codes in data.sensitive.items()},
        row_labels=None if data.row_labels is None else data.row_labels[rows],
        positions=None if data.positions is None else data.positions[rows],
        weights=None if data.weights is None else data.weights[rows], dropped=0)


def _releasable(data, rows, model):
    """Could ``rows`` be released as one class under ``model``?"""
    if len(rows) < model.k:
        return False
    if not model.needs_sensitive:
        return True
    return not bool(model.failing(np.zeros(len(rows), dtype=np.int64),
                                  subset(data, rows), 1)[0])


def _cut(data, rows, model):
    """Split ``rows`` at the median of the widest attribute that allows a cut, or None.

    Attributes are tried widest first (most distinct codes among ``rows``);
    the cut puts codes ``<= median`` left, moving the boundary to the other
    side of a run of equal codes when that run holds the median.
    """
    spans = []
    for j, attr in enumerate(data.attributes):
        codes = attr.codes[rows]
        distinct = len(np.unique(codes))
        if distinct > 1:
            spans.append((-distinct, j, codes))
    for _, _, codes in sorted(spans, key=lambda s: s[:2]):
        order = np.argsort(codes, kind="stable")
        ordered = codes[order]
        half = len(rows) // 2
        median = ordered[half]
        candidates = [int(np.searchsorted(ordered, median, side="right")),
                      int(np.searchsorted(ordered, median, side="left"))]
        for at in sorted(set(candidates), key=lambda a: abs(a - half)):
            if 0 < at < len(rows):
                left, right = rows[order[:at]], rows[order[at:]]
                if _releasable(data, left, model) and _releasable(data, right, model):
                    return np.sort(left), np.sort(right)
    return None


def shard_records(data, model, shard_size=DEFAULT_SHARD_SIZE):
    """Split the records into shards of at most ``shard_size`` by median cuts.

    Parameters
    ----------
    data : EncodedTable
    model : PrivacyModel
        Every shard satisfies it as one class (at least ``k`` records, and
        l-diverse when asked), so every shard can be anonymized on its own.
    shard_size : int
        Largest shard wanted. A shard with no allowed cut (for instance all
        its records alike) stays larger.

    Returns
    -------
    list of ndarray
        Record positions of each shard, sorted; together every record once.

    Examples
    --------
    >>> import kanon_graph as kg
    >>> data = kg.encode(kg.datasets.make_census(1000, seed=0), kg.datasets.census_schema())
    >>> shards = shard_records(data, kg.privacy.PrivacyModel(5), shard_size=300)
    >>> sum(len(s) for s in shards), max(len(s) for s in shards) <= 300
    (1000, True)
    """
    done, todo = [], [np.arange(data.n, dtype=np.int64)]
    while todo:
        rows = todo.pop()
        cut = _cut(data, rows, model) if len(rows) > shard_size else None
        if cut is None:
            done.append(rows)
        else:
            todo.extend(cut[::-1])
    return sorted(done, key=lambda rows: int(rows[0]))


def _run_shard(function, shard, model, seed, suppression, options):
    """One shard's partition: class labels of its records, -1 for suppressed."""
    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
    part = function(shard, model, rng=rng, suppression=suppression, **options)
    if not isinstance(part, Partition):
        raise TypeError(f"the algorithm returned {type(part).__name__}, not a kg.Partition")
    if part.levels is not None:
        raise ValueError("sharding runs local recoding algorithms only; this one returned "
                         "a global level vector")
    class_of = np.asarray(part.class_of, dtype=np.int64)
    if class_of.shape != (shard.n,):
        raise ValueError(f"the algorithm returned {class_of.shape} class labels for a shard "
                         f"of {shard.n} records")
    return class_of, dict(part.stats)


def run_sharded(function, data, model, *, rng, suppression=None, shard_size=DEFAULT_SHARD_SIZE,
                client=None, progress=None, **options):
    """Run a local recoding algorithm inside each shard and join the partitions.

    Parameters
    ----------
    function : callable
        A registered local algorithm's function.
    data, model, rng, suppression
        As for any algorithm; each shard gets ``suppression`` (so the total
        stays within it) and its own seed drawn from ``rng``.
    shard_size : int
    client : distributed.Client, optional
        Run each shard as one Dask task on this client; in this process,
        shard after shard, when None.
    progress : callable, optional
        ``progress(done, total, text)`` after each shard.
    **options
        The algorithm's options.

    Returns
    -------
    Partition
        Class labels numbered shard after shard (classes never cross
        shards); ``stats`` has ``shards``, ``largest_shard``,
        ``smallest_shard``, ``shard_size`` and ``scheduler``.
    """
    if model.t is not None:
        raise ValueError("t-closeness compares each class with the whole table, which a "
                         "shard does not see: pass a shard_size of at least the number of "
                         f"records ({data.n}) to run it unsharded")
    shards = shard_records(data, model, shard_size)
    if len(shards) == 1:
        # no cut allowed: exactly the unsharded run
        seeds = [rng]
    else:
        seeds = [int(s) for s in rng.integers(0, 2**63 - 1, size=len(shards))]
    results = [None] * len(shards)
    if client is None or len(shards) == 1:
        for i, rows in enumerate(shards):
            shard = data if len(shards) == 1 else subset(data, rows)
            results[i] = _run_shard(function, shard, model, seeds[i], suppression, options)
            if progress is not None:
                progress(i + 1, len(shards), f"shard {i + 1}/{len(shards)}")
    else:
        from distributed import as_completed

        futures = {client.submit(_run_shard, function, subset(data, rows), model, seeds[i],
                                 suppression, options, pure=False): i
                   for i, rows in enumerate(shards)}
        for done, future in enumerate(as_completed(futures), start=1):
            results[futures[future]] = future.result()
            if progress is not None:
                progress(done, len(shards), f"shard {done}/{len(shards)}")
    class_of = np.full(data.n, -1, dtype=np.int64)
    offset = 0
    for rows, (labels, _) in zip(shards, results):
        kept = labels >= 0
        _, dense = np.unique(labels[kept], return_inverse=True)
        class_of[rows[kept]] = dense.reshape(-1) + offset
        offset += int(dense.max()) + 1 if kept.any() else 0
    sizes = [len(rows) for rows in shards]
    stats = dict(results[0][1]) if len(shards) == 1 else {}
    stats.update(shards=len(shards), largest_shard=max(sizes), smallest_shard=min(sizes),
                 shard_size=int(shard_size),
                 scheduler="dask" if client is not None and len(shards) > 1 else "in-process")
    return Partition(class_of, stats=stats)

