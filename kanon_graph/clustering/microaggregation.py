"""MDAV microaggregation, registered as ``algorithm="mdav"``.

MDAV (Maximum Distance to Average Vector; Domingo-Ferrer and Mateo-Sanz
2002, section 4, and its generic form for any attribute type, MDAV-generic:
Domingo-Ferrer and Torra 2005, Algorithm 1) groups the records into classes
of at least k around the records farthest from the data's average:

1. while at least 3k records remain: find the average record ``c`` of the
   remaining records, the record ``r`` farthest from ``c`` and the record
   ``s`` farthest from ``r``; form a class of ``r`` and the ``k - 1``
   records nearest to it, remove it, then a class of ``s`` and the ``k - 1``
   remaining records nearest to it, and remove that;
2. if between 2k and 3k - 1 records remain: one more class around the
   record farthest from their average, as in step 1;
3. the records left (k to 2k - 1) form the last class.

Every class is then released as its aggregate
(:func:`kanon_graph.recoding.recode_aggregate`): a numeric
quasi-identifier as the class mean (``centroid="mean"``, the papers') or
median (``centroid="median"``), an ordinal one as its median and a nominal
one as its mode (2005, section 3). The distance and the average record are
MDAV-generic's (:class:`kanon_graph.recoding.AggregateSpace`): numeric
attributes standardized, ordinal ones by rank over the number of
categories, nominal ones equal or not; the average record takes the mean,
the lower median and the mode.

Ours: the tie rule (among equal computed distances the first record in row
order is the farthest, and the nearest are taken in row order), the case of
``s`` falling in ``r``'s class (only possible when every distance from
``r`` is equal; ``s`` is then sought again among the records left), and the
compiled linear scans (:mod:`kanon_graph.clustering._mdav_kernels`).

References
----------
J. Domingo-Ferrer and J. M. Mateo-Sanz, "Practical data-oriented
microaggregation for statistical disclosure control", IEEE Transactions on
Knowledge and Data Engineering 14(1), 2002.

J. Domingo-Ferrer and V. Torra, "Ordinal, continuous and heterogeneous
k-anonymity through microaggregation", Data Mining and Knowledge Discovery
11(2), 2005.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ..recoding import aggregate_space
from ..registry import Partition, register_algorithm
from ._mdav_kernels import mdav_classes

__all__ = ["mdav", "mdav_aggregates", "CENTROIDS"]

CENTROIDS = ("mean", "median")


def mdav_aggregates(data: Any, centroid: str = "mean",
                    ordinal: Sequence[str] = ()) -> dict[str, str]:
    """The aggregate of every quasi-identifier: ``centroid`` (numeric), median, or mode.

    Raises
    ------
    ValueError
        For a ``centroid`` not in :data:`CENTROIDS`, or an ``ordinal`` name
        that is no categorical quasi-identifier.
    """
    if centroid not in CENTROIDS:
        raise ValueError(f"The 'centroid' parameter of the mdav algorithm must be one of "
                         f"{list(CENTROIDS)}. Got {centroid!r}.")
    ordinal = [ordinal] if isinstance(ordinal, str) else list(ordinal)
    categorical = [a.name for a in data.attributes if a.kind != "numeric"]
    wrong = [name for name in ordinal if name not in categorical]
    if wrong:
        raise ValueError(f"The 'ordinal' parameter of the mdav algorithm must name categorical "
                         f"quasi-identifiers {categorical}. Got {wrong}.")
    return {a.name: centroid if a.kind == "numeric" else
            ("median" if a.name in ordinal else "mode") for a in data.attributes}


@register_algorithm("mdav", recoding="microaggregation", models=("k",),
                    description="MDAV microaggregation: classes released as their means "
                                "(Domingo-Ferrer and Mateo-Sanz 2002; MDAV-generic, "
                                "Domingo-Ferrer and Torra 2005)")
def mdav(data: Any, model: Any, *, rng: Any = None, suppression: float | None = None,
         centroid: str = "mean", ordinal: Sequence[str] = ()) -> Partition:
    """MDAV-generic microaggregation of ``data`` into classes of at least ``model.k``.

    Parameters
    ----------
    data : EncodedTable
    model : PrivacyModel
        Only k: MDAV does not aim at l-diversity or t-closeness, and refuses
        them (a ValueError) rather than release classes that would fail them.
    rng, suppression
        Unused: MDAV is deterministic and suppresses no record.
    centroid : {"mean", "median"}
        How a numeric quasi-identifier's class is released (2002, section 2:
        the mean; the median is an option of sdcMicro's ``microaggregation``).
    ordinal : sequence of str
        Categorical quasi-identifiers whose categories are ordered (by their
        hierarchy's leaves, else their sorted values): released as the class
        median, measured by rank (2005, section 3.1); the others are nominal,
        released as the class mode.

    Returns
    -------
    Partition
        Classes of k to 2k - 1 records (the last one possibly larger when
        ``n`` is below 2k), with ``aggregate`` naming each attribute's
        operator; ``stats["groups"]`` counts the classes formed (classes whose
        released tuples coincide are then merged), ``stats["aggregate"]``
        repeats the operators for the report.

    Examples
    --------
    >>> import pandas as pd, kanon_graph as kg
    >>> table = pd.DataFrame({"age": [20, 21, 22, 40, 41, 43], "zip": [1, 1, 2, 5, 5, 6]})
    >>> res = kg.anonymize(table, kg.Schema(quasi_identifiers=["age", "zip"]), k=3,
    ...                    algorithm="mdav")
    >>> res.table["age"].tolist()
    [21.0, 21.0, 21.0, 41.333333333333336, 41.333333333333336, 41.333333333333336]
    """
    if model.needs_sensitive:
        raise ValueError("mdav enforces k-anonymity only; it cannot meet the requested "
                         "l-diversity or t-closeness -- use another algorithm")
    aggregate = mdav_aggregates(data, centroid, ordinal)
    kept = [a.name for a in data.attributes
            if a.missing_code is not None and a.kind == "numeric"]
    if kept:
        raise ValueError(f"the mdav algorithm cannot average a missing numeric cell "
                         f"({kept} hold some under missing='keep'); pass missing='drop' or "
                         f"fill them first")
    space = aggregate_space(data, aggregate)
    k = int(model.k)
    if data.n < k:
        raise ValueError(f"The 'k' parameter of the mdav algorithm must be at most the number "
                         f"of records {data.n}. Got {k}.")
    class_of = mdav_classes(np.ascontiguousarray(space.numeric, dtype=np.float64),
                            np.ascontiguousarray(space.ordinal), space.ordinal_size,
                            np.ascontiguousarray(space.nominal), space.nominal_size, k,
                            space.nominal.shape[1] == 0)
    groups = int(class_of.max()) + 1 if len(class_of) else 0
    return Partition(np.asarray(class_of, dtype=np.int64),
                     stats={"groups": groups, "aggregate": dict(aggregate)}, aggregate=aggregate)
