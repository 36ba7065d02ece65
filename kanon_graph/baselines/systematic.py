"""Systematic clustering (Kabir, Wang & Bertino 2011), the baseline of paper 001.

Where each step comes from
--------------------------
The full text of Kabir et al.'s Acta Informatica paper was not reachable
while this module was written; only its abstract and paper 001's account of
it were. From those:

* the abstract: records are grouped with similar records and each group is
  anonymized on its own; the algorithm takes O(n^2 / k) time;
* paper 001 (Bhaladhare & Jinwala 2014, sections I and 5.4): the method
  *forms all clusters at the same time* (unlike Byun et al.'s k-member,
  which grows one cluster after another), its clusters have *different
  sizes* (Figure 6), and on six records with k = 3 it forms *two* clusters,
  i.e. ``floor(n / k)`` of them.

The following choices are this module's own, made to match those facts:

1. ``m = floor(n / k)`` cluster seeds are chosen farthest-first (Gonzalez's
   k-center rule, paper 001 reference [5]): a random record, then over and
   over the record whose distance to its nearest seed is largest. That is
   ``m`` passes over the records: O(n^2 / k), the complexity the abstract
   gives. When every distinct tuple is a seed before ``m`` is reached the
   seeding stops (a further seed would duplicate a tuple; step 4 splits
   the large clusters this leaves).
2. Every record joins its nearest seed (all clusters at once); ties go to
   the seed chosen first.
3. A cluster with fewer than ``k`` records (in seed order) takes, one at a
   time, the record nearest to its seed among the clusters holding more
   than ``k`` records (ties: the first row of the table). Since
   ``m * k <= n`` the surplus always covers the deficit.
4. A cluster with ``2k`` or more records is split: its record furthest from
   its seed and that record's ``k - 1`` nearest cluster-mates leave as a new
   cluster, until fewer than ``2k`` remain. Every cluster then holds between
   ``k`` and ``2k - 1`` records, the bound of an optimal k-partition
   (Domingo-Ferrer & Mateo-Sanz 2002, the property paper 001 also uses).
   ``cap=False`` skips this step: the variant without the 2k - 1 cap keeps
   the ``floor(n / k)`` clusters of steps 1-3, of whatever size (at least
   ``k``), which is closer to paper 001's "clusters of different sizes".

Distances are those of the record distance graph
(:class:`~kanon_graph.records.RecordGraph`, default paper 003's HDist, which
orders categorical pairs like Byun et al.'s distance, the measure this family
of methods uses); each cluster is then released at its lowest common
ancestors and measured, e.g. by Byun's IL (``"byun_il"``).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ..records import RecordGraph
from ..registry import Partition, register_algorithm

__all__ = ["systematic", "paper_001_adult"]


def _seed_and_assign(graph, m, first_node):
    """Steps 1-2: farthest-first seeds (nodes) and every node's nearest seed."""
    seeds = [int(first_node)]
    near = graph.distances_from(first_node)
    owner = np.zeros(graph.n_nodes, dtype=np.int64)
    while len(seeds) < m:
        cand = int(np.argmax(near))                 # ties: the node seen first
        if near[cand] <= 0:
            break                                   # every tuple is already a seed
        d = graph.distances_from(cand)
        closer = d < near                           # ties keep the earlier seed
        near = np.where(closer, d, near)
        owner[closer] = len(seeds)
        seeds.append(cand)
    return np.array(seeds, dtype=np.int64), owner


def _fill_small(graph, k, seeds, class_of, size):
    """Step 3: each cluster below k takes the nearest records of clusters above k."""
    for c in np.flatnonzero(size < k):
        d_rec = graph.distances_from(seeds[c])[graph.node_of]
        while size[c] < k:
            key = np.where(size[class_of] > k, d_rec, np.inf)
            row = int(np.argmin(key))               # ties: the first row
            size[class_of[row]] -= 1
            class_of[row] = c
            size[c] += 1


def _split_large(graph, k, seeds, class_of, size):
    """Step 4: peel k-record clusters off every cluster of 2k records or more."""
    seeds = list(seeds)
    for c in np.flatnonzero(size >= 2 * k):
        rows = np.flatnonzero(class_of == c)
        nodes = graph.node_of[rows]
        from_seed = graph.distances_from(seeds[c])[nodes]
        while len(rows) >= 2 * k:
            far = int(np.argmax(from_seed))         # ties: the first row
            d = graph.distances_from(nodes[far])[nodes]
            d[far] = -1.0                           # the new seed itself goes first
            take = np.argsort(d, kind="stable")[:k]
            class_of[rows[take]] = len(seeds)
            seeds.append(int(nodes[far]))
            keep = np.ones(len(rows), dtype=bool)
            keep[take] = False
            rows, nodes, from_seed = rows[keep], nodes[keep], from_seed[keep]
    return np.array(seeds, dtype=np.int64)


def _cluster(graph, k, first_node, cap=True):
    """Steps 1-4 (1-3 without ``cap``) on a record graph; returns
    ``(class_of, seeds, n_seeded)``."""
    n = graph.n_records
    seeds, owner = _seed_and_assign(graph, max(n // k, 1), first_node)
    class_of = owner[graph.node_of].copy()
    size = np.bincount(class_of, minlength=len(seeds))
    _fill_small(graph, k, seeds, class_of, size)
    all_seeds = _split_large(graph, k, seeds, class_of, size) if cap else seeds
    return class_of, all_seeds, len(seeds)


def systematic(data, model, *, rng, suppression=None, distance="hdist", cap=True):
    """Form floor(n/k) clusters at once around farthest-first seeds, then fix their sizes.

    Steps (see the module docstring for which come from the papers and which
    are this implementation's choices): pick ``floor(n / k)`` seeds
    farthest-first from a random record (``rng``); assign every record to
    its nearest seed; let each cluster below ``k`` records take the records
    nearest its seed from clusters above ``k``; split every cluster of
    ``2k`` records or more into pieces of ``k`` (each piece: the record
    furthest from the seed and its ``k - 1`` nearest cluster-mates). Every
    cluster ends with ``k`` to ``2k - 1`` records; ``cap=False`` leaves out
    that last split, so clusters may be larger. Deterministic for a given
    ``rng``.

    Parameters
    ----------
    data : EncodedTable
    model : PrivacyModel
        Only k is enforced; l-diversity / t-closeness are refused.
    rng : numpy.random.Generator
        Chooses the first seed.
    suppression : float, optional
        Unused: no record is suppressed.
    distance : str or dict
        The per-attribute distance of the record graph (default ``"hdist"``);
        see :class:`~kanon_graph.records.RecordGraph`.
    cap : bool, default True
        Split clusters of ``2k`` or more records (step 4), our
        reconstruction's choice. ``False`` is the variant without the cap:
        exactly ``floor(n / k)`` clusters (fewer when the table has fewer
        distinct tuples), each of at least ``k`` records.

    Returns
    -------
    Partition
        ``stats``: ``clusters``, ``seeds`` (farthest-first seeds placed in
        step 1), ``first_record``, ``distinct_tuples``.

    References
    ----------
    Kabir, Wang & Bertino, "Efficient systematic clustering method for
    k-anonymization", Acta Informatica 48 (2011) 51-66 (abstract: O(n^2/k)).
    Bhaladhare & Jinwala, "A sensitive attribute based clustering method for
    k-anonymization" (2014), sections I and 5.4 (all clusters at once, two
    clusters on six records). Gonzalez, "Clustering to minimize the maximum
    intercluster distance" (1985): farthest-first seeds. Domingo-Ferrer &
    Mateo-Sanz, "Practical data-oriented microaggregation for statistical
    disclosure control" (2002): clusters of k to 2k - 1 records.

    Examples
    --------
    >>> import pandas as pd, kanon_graph as kg
    >>> table = pd.DataFrame({"x": [0, 1, 2, 50, 51, 100, 101, 102, 103],
    ...                       "s": list("abcabcabc")})
    >>> schema = kg.Schema(quasi_identifiers=["x"], sensitive=["s"])
    >>> res = kg.anonymize(table, schema, k=3, algorithm="systematic", seed=0)
    >>> sorted(sorted(table["x"][c].tolist()) for c in res.classes)
    [[0, 1, 2], [50, 51, 100], [101, 102, 103]]
    >>> two = pd.DataFrame({"x": [0] * 6 + [100] * 4, "s": list("abababcdcd")})
    >>> schema = kg.Schema(quasi_identifiers=["x"], sensitive=["s"])
    >>> for cap in (True, False):   # two distinct tuples: two seeds; the cap splits them
    ...     res = kg.anonymize(two, schema, k=2, algorithm="systematic", seed=0, cap=cap)
    ...     print(cap, res.stats["clusters"])
    True 5
    False 2
    """
    if not isinstance(cap, bool):
        raise ValueError(f"The 'cap' parameter of systematic must be True or False. "
                         f"Got {cap!r}.")
    if model.needs_sensitive:
        raise ValueError("systematic enforces k-anonymity only; it cannot meet the requested "
                         "l-diversity or t-closeness -- use another algorithm")
    graph = RecordGraph(data, distance=distance)
    first = int(rng.integers(data.n))
    class_of, seeds, n_seeded = _cluster(graph, model.k, graph.node_of[first], cap)
    return Partition(class_of, None, {"clusters": len(seeds), "seeds": n_seeded,
                                      "first_record": first,
                                      "distinct_tuples": graph.n_nodes})


register_algorithm("systematic", systematic, recoding="local", models=("k",),
                   description="Kabir, Wang & Bertino's systematic clustering (2011)")


def paper_001_adult(path):
    """Paper 001's experimental table (section 5.3) built from Adult.

    Bhaladhare & Jinwala retain Age, Gender, Zip code and Occupation, with
    Occupation sensitive. Our Adult has no zip code; ``native-country``
    stands in for it (the one location attribute), as a categorical
    quasi-identifier with the project's Adult hierarchy; ``sex`` has its
    hierarchy too and ``age`` is numeric without one (its released ranges
    are the clusters' [min, max], as in Byun et al.'s IL).

    Parameters
    ----------
    path : str, path-like or DataFrame
        Adult as :func:`kanon_graph.datasets.load_adult` reads it (a file or
        a folder holding ``adult.csv`` / ``adult.data``), or a table already
        loaded with Adult's columns (Adult itself, or the synthetic census).

    Returns
    -------
    (DataFrame, Schema)
        The columns ``age, sex, native-country, occupation`` (30,162 rows
        from ARX's ``adult.csv``; a copy when a table is passed) and a schema with quasi-identifiers
        ``age, sex, native-country`` and ``occupation`` sensitive.

    Examples
    --------
    >>> import os, kanon_graph as kg
    >>> from kanon_graph.baselines.systematic import paper_001_adult
    >>> data = os.environ.get("KANON_GRAPH_DATA")
    >>> if data:   # the comparison of paper 001, Figures 1-5, at k = 5
    ...     table, schema = paper_001_adult(os.path.join(data, "adult"))
    ...     res = kg.anonymize(table, schema, k=5, algorithm="systematic")
    ...     assert min(len(c) for c in res.classes) >= 5
    """
    from ..datasets import adult_hierarchies, load_adult
    from ..schema import Schema

    import pandas as pd

    source = path if isinstance(path, pd.DataFrame) else load_adult(Path(path))
    table = source[["age", "sex", "native-country", "occupation"]]
    hierarchies = adult_hierarchies(["sex", "native-country"])
    schema = Schema(quasi_identifiers=["age", "sex", "native-country"],
                    sensitive=["occupation"], hierarchies=hierarchies)
    return table.reset_index(drop=True).copy(), schema
