"""Sensitive-attribute based clustering (Bhaladhare & Jinwala, paper 001).

Records are grouped by their sensitive value, sorted within each group by a
numeric quasi-identifier (age in the paper), and cut into clusters of at
least ``k`` consecutive records; each cluster is released at its lowest
common ancestors (numeric range, categorical LCA, codes masked by their
hierarchy).

.. warning::
   Every class this method builds from one sensitive value holds only that
   value: its l-diversity is 1, and anyone who links a person to the class
   learns the person's sensitive value (the homogeneity attack of
   Machanavajjhala et al. 2006). This is what the paper proposes; the
   algorithm reports it in ``stats`` instead of hiding it.
"""

from __future__ import annotations

import numpy as np

from ..privacy import PrivacyModel
from ..records._groups import GroupCoster
from ..recoding import recode_partition
from ..recoding.boundaries import cells_to_suppress, has_boundaries, magval_cells
from ..registry import Partition, register_algorithm

__all__ = ["sensitive_clustering"]

RARE = ("merge", "pool")


def _segment(coster, rows, k):
    """Cut the ordered ``rows`` into runs of k..2k-1 records of least total IL.

    A run of 2k records or more never helps: splitting it into two runs of
    at least k never raises Byun's IL (each part's ranges and LCAs lie inside
    the whole's), so the dynamic programme only tries widths k..2k-1.
    """
    n = len(rows)
    widths = list(range(k, min(2 * k - 1, n) + 1))
    costs = {w: w * coster.window_cost(rows, w) for w in widths}
    best = np.full(n + 1, np.inf)
    best[0] = 0.0
    choice = np.zeros(n + 1, dtype=np.int64)
    for end in range(k, n + 1):
        for w in widths:
            if w > end:
                break
            value = best[end - w] + costs[w][end - w]
            if value < best[end]:
                best[end], choice[end] = value, w
    bounds, end = [], n
    while end > 0:
        bounds.append((end - choice[end], end))
        end -= choice[end]
    return [rows[a:b] for a, b in reversed(bounds)]


def _merge_rare(coster, clusters, rare_rows):
    """Add each rare record to the cluster whose IL grows least (ties: lowest index)."""
    rows = np.concatenate(clusters)
    labels = np.concatenate([np.full(len(c), i) for i, c in enumerate(clusters)])
    group_of = np.full(len(coster.leaves), -1, dtype=np.int64)
    group_of[rows] = labels
    states = coster.of_groups(labels, len(clusters), rows)
    for row in rare_rows:
        merged = coster.merge(coster.singletons([row]), states)
        growth = coster.loss(merged) - coster.loss(states)
        best = int(np.argmin(growth))
        states.lo[best], states.hi[best] = merged.lo[best], merged.hi[best]
        states.level[best] = merged.level[best]
        states.size[best] += 1
        group_of[row] = best
    return group_of


def sensitive_clustering(data, model, *, rng=None, suppression=None, sort_by=None,
                         rare="merge", respect_boundaries=False):
    """Cluster records of the same sensitive value, sorted by a numeric quasi-identifier.

    For each value of the sensitive attribute (the model's ``sensitive``,
    by default the schema's first sensitive column), its records
    are sorted by ``sort_by`` (ties broken by the other quasi-identifiers,
    in schema order) and cut into consecutive clusters of k to 2k-1 records
    so that the total information loss of Byun et al. (paper 001 section
    4.1) is least -- an exact dynamic programme over the sorted order, one
    reading of the paper's "the clusters are created such that the size of
    each cluster is greater than or equal to k and total information loss is
    at minimum". Each cluster is then released at its lowest common
    ancestors (local recoding).

    A sensitive value held by fewer than ``k`` records cannot form a cluster
    of its own. With ``rare="merge"`` (the default) each of its records
    joins, one at a time in sorted order, the cluster of another value whose
    information loss grows least (the nearest cluster). With
    ``rare="pool"`` the records of all rare values are first pooled and
    clustered together like one more value (mixed clusters), and only a pool
    smaller than ``k`` is merged. When no value reaches ``k`` records, all
    records form one pool.

    A missing sensitive value (``missing="keep"``) is no value, as in the
    l-diversity check (:class:`kanon_graph.privacy.PrivacyModel`: it counts
    toward k, never toward l): its records never form a cluster of their
    own, where no known value would be; each joins, like a rare record, the
    cluster whose information loss grows least. Fewer than ``k`` known
    values in the table (or in a boundary cell) make one cluster with the
    missing ones; a table with no known value is refused, and with
    boundaries a cell without one is suppressed like a cell of fewer than
    ``k`` records.

    Parameters
    ----------
    data : EncodedTable
    model : PrivacyModel
        ``k``, and ``sensitive``: the column whose values the clusters are
        cut by (the one l is checked on). Asking for l-diversity above 1, recursive
        (c, 1)-diversity with ``c <= 1``, or t-closeness is refused: the
        method's classes are homogeneous by design.
    rng : numpy.random.Generator
        Unused: the method is deterministic.
    sort_by : str, optional
        The quasi-identifier to sort by; default the first numeric one (the
        first quasi-identifier when none is numeric).
    rare : {"merge", "pool"}
        What happens to the records of sensitive values with fewer than k
        records (see above).
    suppression : float, optional
        Budget for suppressing MAGVal cells with boundaries (else unused).
    respect_boundaries : bool, default False
        Generalization boundaries (Hussien et al. 2016, Definitions 3-6):
        a class is allowed iff its members share their MAGVal node on every
        attribute (proof in :mod:`kanon_graph.recoding.boundaries`), so the
        method runs cell by cell: clusters are cut from the records of one
        sensitive value *and* one MAGVal cell, and rare records join (or
        pool into) clusters of their own cell only. Cells that cannot hold
        ``k`` records are suppressed within the budget, else a
        ``ValueError`` names their MAGVals.

    Returns
    -------
    Partition
        ``stats`` reports ``l_diversity`` (the smallest number of distinct
        known sensitive values in a released class: 1 whenever a class is
        homogeneous; ``None`` when every record is suppressed),
        ``homogeneous_classes``, ``homogeneous_records``,
        ``prosecutor_risk`` (largest re-identification probability, 1 /
        smallest class; 0 when nothing is released), ``average_risk``
        (classes / records), ``clusters``, ``rare_values`` and
        ``rare_records``.

    Raises
    ------
    ValueError
        If the schema has no sensitive attribute, ``sort_by`` is not a
        quasi-identifier, ``rare`` is unknown, an l / t that a class of
        one sensitive value cannot meet is requested, or every sensitive
        value is missing.

    Notes
    -----
    The homogeneity attack: an adversary who knows that a person is in the
    table and knows her quasi-identifiers finds her class, and every record
    of that class has the same sensitive value. k-anonymity holds, yet the
    sensitive value is disclosed. Use l-diversity (another algorithm with
    ``l=2``) where this matters.

    References
    ----------
    Bhaladhare & Jinwala, "A sensitive attribute based clustering method for
    k-anonymization" (2014), sections III, 4.1 and 5.1. Byun, Kamra, Bertino
    & Li, "Efficient k-anonymization using clustering techniques", DASFAA
    2007 (the information loss IL).

    Examples
    --------
    >>> import kanon_graph as kg
    >>> table = kg.datasets.paper_003_table()
    >>> res = kg.anonymize(table, kg.datasets.paper_003_schema(), k=2,
    ...                    algorithm="sensitive-clustering")
    >>> res.stats["l_diversity"], res.stats["prosecutor_risk"]
    (1, 0.5)
    >>> sorted(len(c) for c in res.classes)
    [2, 3, 5]
    """
    schema = data.schema
    if not schema.sensitive:
        raise ValueError("sensitive-clustering needs a sensitive attribute: list one in "
                         "Schema(sensitive=[...])")
    if rare not in RARE:
        raise ValueError(f"The 'rare' parameter of sensitive-clustering must be one of "
                         f"{list(RARE)}. Got {rare!r}.")
    # a class of one value meets distinct / entropy l = 1, and recursive (c, 1) iff c > 1
    if model.t is not None or model.l is not None and (
            model.l > 1 or model.diversity == "recursive" and model.c <= 1):
        raise ValueError("sensitive-clustering builds classes of one sensitive value "
                         "(l-diversity 1); it cannot meet the requested l-diversity or "
                         "t-closeness -- use another algorithm")
    names = data.names
    if sort_by is None:
        numeric = [a.name for a in data.attributes if a.kind == "numeric"]
        sort_by = numeric[0] if numeric else names[0]
    elif sort_by not in names:
        raise ValueError(f"The 'sort_by' parameter of sensitive-clustering must be a "
                         f"quasi-identifier {names}. Got {sort_by!r}.")
    k = model.k
    column = model.sensitive or schema.sensitive[0]     # the column l (and the caller) chose
    if column not in data.sensitive:
        raise ValueError(f"The 'sensitive' parameter of sensitive-clustering must be a "
                         f"sensitive column {list(schema.sensitive)}. Got {column!r}.")
    sensitive = data.sensitive[column]
    primary = data.attribute(sort_by)
    key = primary.values if primary.values is not None else primary.codes
    others = [a.codes for a in data.attributes if a.name != sort_by]
    order = np.lexsort(others[::-1] + [key])
    coster = GroupCoster(data, cost="byun")

    missing = (getattr(data, "sensitive_missing", None) or {}).get(column)
    absent = sensitive == missing if missing is not None else np.zeros(data.n, dtype=bool)
    cells = np.zeros(data.n, dtype=np.int64)
    if respect_boundaries and has_boundaries(data):
        cells = magval_cells(data)
        # with missing sensitive values kept, a cell must also hold a known one (distinct
        # l = 1 counts the known values only): else it can only be suppressed
        needed = model if missing is None else PrivacyModel(k, l=1, sensitive=column,
                                                            missing=missing)
        cells[cells_to_suppress(data, needed, cells, suppression, "sensitive-clustering")] = -1
    elif absent.all():
        raise ValueError(f"sensitive-clustering: every record's sensitive value {column!r} is "
                         f"missing, so no class can hold a known value; fill them, or pass "
                         f"missing='drop'")
    class_of = np.full(data.n, -1, dtype=np.int64)
    n_clusters = n_rare_values = n_rare_records = 0
    for cell in np.unique(cells[cells >= 0]):       # one MAGVal cell at a time
        cell_order = order[cells[order] == cell]
        counts = np.bincount(sensitive[cell_order],
                             minlength=len(data.sensitive_domain[column]))
        if missing is not None:
            counts[missing] = 0                     # no value: never a cluster of its own
        rare_values = np.flatnonzero((counts > 0) & (counts < k))
        clusters = []
        for value in np.flatnonzero(counts >= k):
            clusters += _segment(coster, cell_order[sensitive[cell_order] == value], k)
        rare_rows = cell_order[np.isin(sensitive[cell_order], rare_values)]
        if len(rare_rows) and (rare == "pool" or not clusters) and len(rare_rows) >= k:
            clusters += _segment(coster, rare_rows, k)
            rare_rows = rare_rows[:0]
        if not clusters:            # fewer than k known values: they seed the cell's one class
            clusters, rare_rows = [rare_rows], rare_rows[:0]
        rare_rows = cell_order[np.isin(cell_order, rare_rows) | absent[cell_order]]
        if len(rare_rows):
            group_of = _merge_rare(coster, clusters, rare_rows)
            placed = group_of >= 0
            class_of[placed] = group_of[placed] + n_clusters
        else:
            for i, rows in enumerate(clusters):
                class_of[rows] = i + n_clusters
        n_clusters += len(clusters)
        n_rare_values += len(rare_values)
        n_rare_records += int(counts[rare_values].sum())
    stats = _homogeneity(data, class_of, sensitive, absent)
    stats.update(clusters=n_clusters, rare_values=n_rare_values,
                 rare_records=n_rare_records, sort_by=sort_by,
                 sensitive=column)
    return Partition(class_of, None, stats)


def _homogeneity(data, class_of, sensitive, absent):
    """l-diversity (of the known values, ``absent`` the missing ones) and prosecutor risk
    of the release the partition becomes."""
    release = recode_partition(data, class_of)
    released = release.class_of
    n_classes = release.n_classes
    if n_classes == 0:          # every record suppressed: nothing released, nothing at risk
        return {"l_diversity": None, "homogeneous_classes": 0, "homogeneous_records": 0,
                "prosecutor_risk": 0.0, "average_risk": 0.0}
    kept = (released >= 0) & ~absent
    pairs = np.unique(np.column_stack([released[kept], sensitive[kept]]), axis=0)
    distinct = np.bincount(pairs[:, 0], minlength=n_classes)
    homogeneous = distinct == 1
    return {
        "l_diversity": int(distinct.min()),
        "homogeneous_classes": int(homogeneous.sum()),
        "homogeneous_records": int(release.sizes[homogeneous].sum()),
        "prosecutor_risk": float(1.0 / release.sizes.min()),
        "average_risk": float(n_classes / data.n),
    }


register_algorithm("sensitive-clustering", sensitive_clustering, recoding="local",
                   models=("k", "distinct-l", "entropy-l", "recursive-l"),
                   supports_boundaries=True, supports_suppression=True,
                   description="Bhaladhare & Jinwala's sensitive-attribute clustering (2014)")
