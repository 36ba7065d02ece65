"""The SpatialDistance (SD) greedy clustering (paper 000, section 4.2, Figure 3).

Readings of Figure 3 and of the text around it (the pseudo-code is slightly
garbled):

* **Sort (step 1).** Records are sorted ascending on the quasi-identifier
  with the most distinct values (ties: the first in schema order); the
  text leaves ties in that attribute open: they are broken by the other
  quasi-identifiers in schema order (numbers by value, categories by
  label), so identical tuples are adjacent and the result does not depend
  on row order. t1 is always the first remaining record in that order.
* **Distances (step 2).** Numeric attributes by eq. (5) with the range of
  the whole column; categorical ones from the contingency tables of the
  *remaining* records relative to t1 (:mod:`.sd_distance`); hierarchies in
  the schema are ignored (SD is hierarchy-free by design).
* **Growing a class (step 3).** t1 moves into *Merge*; while ``|Merge| < k``
  the remaining record nearest to the centre ``t_c`` moves in (ties: the
  first in sorted order). ``t_c`` is the mean of each numeric attribute and,
  for each categorical attribute, the set of distinct values in *Merge*
  (the paper's "sum of all the distinct values"). The distance from
  ``t_c`` to a record is eq. (7) with, per categorical attribute, the
  smallest distance from a value of the set to the record's value,
  ``min_{u in set} M[u, v]`` (``M`` ranked with ``u`` as the reference,
  conditioned on t1's values): 0 when the value is already in the set --
  adding it costs no NCP (eq. 3) -- and, with the set ``{t1's value}``,
  exactly the paper's distance from t1.
* **Update (end of step 3).** *Merge* becomes a class; the contingency
  tables (and so cardinalities, order, widening and distances) are
  recomputed on the remaining records for the next t1.
* **Loop condition.** Figure 3 reads ``WHILE |T| > K`` and step 4 ``WHILE
  |T| < K``, which together would strand exactly ``k`` remaining records;
  the loop runs while ``|T| >= k`` (so ``k`` remaining records form a
  class of their own).
* **Leftovers (step 4).** Each of the fewer than ``k`` remaining records,
  in sorted order, joins the class whose centre is nearest (ties: the
  first class); the class centre is updated after every join. The
  remaining table holds fewer than ``k`` records, so these distances use
  the contingency tables of the whole table with the leftover record as
  the reference: ``min_{u in set} M[v, u]``.

Runs on deduplicated tuples with multiplicities: one record is moved at a
time (so the result is the per-record algorithm's), and the distances of
all remaining tuples to the centre are kept up to date incrementally (a
categorical term changes only when a new value enters a set) in compiled
loops; time ``O(n * u)`` for ``u`` distinct tuples, memory ``O(u)``.

References
----------
Sarrafi Aghdam & Sonehara, "On enhancing data utility in k-anonymization
for data without hierarchical taxonomies", IJCSI (2016): section 4.2,
Figure 3; complexity section 5.1.
"""

from __future__ import annotations

import numpy as np

from ..encoding import combine_codes
from ..recoding.boundaries import cells_to_suppress, has_boundaries, magval_cells
from ..records.failing import merge_failing_classes
from ..registry import Partition, register_algorithm
from ._sd_kernels import _classes
from ._sd_merge import SDClassCentres
from .sd_distance import _contingency, _order

__all__ = ["spatial_distance"]


def _tuples(data):
    """Distinct quasi-identifier tuples, in SD's sorted order, with their records."""
    dense, cards, numeric = [], [], []
    for attr in data.attributes:
        source = attr.values if attr.kind == "numeric" else attr.codes
        _, inverse = np.unique(source, return_inverse=True)     # numbers by value
        dense.append(inverse.reshape(-1).astype(np.int64))
        cards.append(int(inverse.max()) + 1)
    keys = combine_codes(dense, cards)
    _, first, inverse, weight = np.unique(keys, return_index=True, return_inverse=True,
                                          return_counts=True)
    inverse = inverse.reshape(-1)
    sort_attr = int(np.argmax(cards))
    # sorted on the sort attribute, ties by the quasi-identifiers in schema order
    rank = np.lexsort([d[first] for d in dense[::-1]] + [dense[sort_attr][first]])
    position = np.empty_like(rank)
    position[rank] = np.arange(len(rank))
    tuple_of_row = position[inverse]
    rows = np.argsort(tuple_of_row, kind="stable")
    starts = np.searchsorted(tuple_of_row[rows], np.arange(len(rank) + 1))
    cat_cols = [d[first[rank]] for a, d in zip(data.attributes, dense) if a.kind != "numeric"]
    for attr in data.attributes:
        if attr.kind == "numeric":
            span = float(attr.values.max() - attr.values.min())
            numeric.append(attr.values[first[rank]] / span if span > 0
                           else np.zeros(len(rank)))
    n_u = len(rank)
    cat = np.column_stack(cat_cols) if cat_cols else np.zeros((n_u, 0), np.int64)
    num = np.column_stack(numeric) if numeric else np.zeros((n_u, 0))
    numeric_names = [a.name for a in data.attributes if a.kind == "numeric"]
    name = data.names[sort_attr]
    sorted_num = numeric_names.index(name) if name in numeric_names else -1
    return (np.ascontiguousarray(cat, np.int64), np.ascontiguousarray(num, float),
            weight[rank].astype(np.int64), rows, starts, name, sorted_num)


def _value_counts(cat, weight, mmax):
    out = np.zeros((cat.shape[1], mmax), np.int64)
    for a in range(cat.shape[1]):
        out[a] = np.bincount(cat[:, a], weights=weight, minlength=mmax)
    return out


def _leftovers(cat, num, weight, rem, picks, k, mmax):
    """Step 4: every remaining record joins the class with the nearest centre."""
    n_classes = len(picks) // k
    owner = np.repeat(np.arange(n_classes), k)
    sizes = np.full(n_classes, k, dtype=np.int64)
    sums = np.zeros((n_classes, num.shape[1]))
    np.add.at(sums, owner, num[picks])
    member = np.zeros((n_classes, cat.shape[1], mmax), dtype=bool)
    for a in range(cat.shape[1]):
        member[owner, a, cat[picks, a]] = True
    full = _value_counts(cat, weight, mmax)
    present = full > 0
    order, _ = _order(present)
    everyone = np.arange(len(weight), dtype=np.int64)
    extra_picks, extra_owner = [], []
    for t in np.flatnonzero(rem > 0):
        _, _, matrices = _contingency(cat, weight, everyone, order, cat[t].copy(), float(k),
                                      full, present)
        for _ in range(int(rem[t])):
            dist = np.abs(num[t] - sums / sizes[:, None]).sum(axis=1)
            for a in range(cat.shape[1]):
                row = matrices[a, cat[t, a]]
                dist += np.where(member[:, a, :], row, np.inf).min(axis=1)
            b = int(np.argmin(dist))
            sizes[b] += 1
            sums[b] += num[t]
            member[b, np.arange(cat.shape[1]), cat[t]] = True
            extra_picks.append(t)
            extra_owner.append(b)
        rem[t] = 0
    return np.asarray(extra_picks, np.int64), np.asarray(extra_owner, np.int64)


def spatial_distance(data, model, *, rng=None, suppression=None, respect_boundaries=False):
    """SpatialDistance: grow each class around the first record by nearest centres.

    Hierarchy-free local recoding: the released values are ``[min-max]``
    ranges and value sets (or, when the schema does give hierarchies, the
    core's lowest common ancestors; SD's distances ignore them). See the
    module docstring for how the pseudo-code of Figure 3 is read.

    Parameters
    ----------
    data : EncodedTable
    model : PrivacyModel
        SD builds its classes for ``model.k`` (Figure 3). With l-diversity
        or t-closeness asked for (not in the paper), each class that fails
        is then merged with its nearest class, in SD's distance between
        class centres (:mod:`._sd_merge`), until every class passes
        (:func:`~kanon_graph.records.merge_failing_classes`; never across
        MAGVal cells). Without l / t the paper's result is unchanged.
    rng : numpy.random.Generator
        Unused: SD is deterministic.
    suppression : float, optional
        SD never suppresses, except whole MAGVal cells with boundaries.
    respect_boundaries : bool, default False
        Generalization boundaries (Hussien et al. 2016, Definitions 3-6):
        a class is allowed iff its members share their MAGVal node on every
        attribute (proof in :mod:`kanon_graph.recoding.boundaries`). Merge
        then only admits tuples of t1's MAGVal cell (the nearest *allowed*
        tuple), and leftovers join the nearest class of their own cell. So
        steps 2-4 run cell by cell, with the remaining table T of Figure 3
        read as the remaining records of the cell (records of other cells
        can never join); numeric ranges stay those of the whole column.
        Cells that cannot hold ``k`` records are suppressed within the
        ``suppression`` budget, else a ``ValueError`` names their MAGVals.
        Without marked MAGVals the result is the unconstrained one.

    Returns
    -------
    Partition
        ``class_of`` per record; ``stats`` holds ``sort_attribute``,
        ``distinct_tuples``, ``leftovers`` (records placed by step 4) and
        ``l_t_merges`` (classes merged for l / t).

    Examples
    --------
    >>> import pandas as pd, kanon_graph as kg
    >>> table = pd.DataFrame({"age": [25, 27, 31, 45, 48, 52],
    ...                       "sex": ["F", "F", "M", "M", "F", "M"]})
    >>> schema = kg.Schema(quasi_identifiers=["age", "sex"])
    >>> res = kg.anonymize(table, schema, k=2, algorithm="sd")
    >>> res.table["age"].tolist()
    ['[25-27]', '[25-27]', '[31-45]', '[31-45]', '[48-52]', '[48-52]']

    References
    ----------
    Sarrafi Aghdam & Sonehara, "On enhancing data utility in
    k-anonymization for data without hierarchical taxonomies" (2016),
    section 4.2, Figure 3.
    """
    k = int(model.k)
    cat, num, weight, rows, starts, sort_attr, js = _tuples(data)
    if js >= 0 and np.any(np.diff(num[:, js]) < 0):
        js = -1
    mmax = int(cat.max(initial=0)) + 1
    cat_t = np.ascontiguousarray(cat.T)
    if respect_boundaries and has_boundaries(data):
        cells = magval_cells(data)
        drop = cells_to_suppress(data, model, cells, suppression, "sd")
        tuple_cell = np.where(drop, -1, cells)[rows[starts[:-1]]]
        groups = [weight * (tuple_cell == c) for c in np.unique(tuple_cell[tuple_cell >= 0])]
    else:
        groups = [weight]
    none = np.zeros(0, dtype=np.int64)         # every cell suppressed: no class at all
    picks, owner, extra, class_cell = [none], [none], [none], [none]
    n_classes = 0
    for g, group in enumerate(groups):  # one MAGVal cell at a time (all records without)
        rem = group.copy()
        got = _classes(cat, cat_t, num, rem, _value_counts(cat, group, mmax), k, js)
        left, left_owner = _leftovers(cat, num, group, rem, got, k, mmax)
        picks += [got, left]
        owner += [np.repeat(np.arange(len(got) // k), k) + n_classes, left_owner + n_classes]
        extra.append(left)
        class_cell.append(np.full(len(got) // k, g))
        n_classes += len(got) // k
    extra = np.concatenate(extra)
    picks = np.concatenate(picks)
    owner = np.concatenate(owner)
    # hand out each tuple's records in row order
    class_of = np.full(data.n, -1, dtype=np.int64)
    order = np.argsort(picks, kind="stable")
    cursor = starts[picks[order]] + _rank_within(picks[order])
    class_of[rows[cursor]] = owner[order]
    merges = 0
    if model.needs_sensitive and n_classes > 1:
        cell = np.concatenate(class_cell)
        centres = SDClassCentres(cat, num, groups, picks, owner, cell, k)
        class_of, merges = merge_failing_classes(
            class_of, lambda labels: model.failing(labels, data, n_classes),
            centres.distances, cell=cell, on_merge=centres.merge)
    return Partition(class_of, None, {"sort_attribute": sort_attr,
                                      "distinct_tuples": len(weight),
                                      "leftovers": len(extra),
                                      "l_t_merges": merges})


def _rank_within(sorted_ids):
    """0, 1, 2, ... within each run of equal ids of a sorted array."""
    idx = np.arange(len(sorted_ids))
    run_start = np.r_[0, np.flatnonzero(np.diff(sorted_ids)) + 1] if len(idx) else idx
    starts = np.zeros(len(idx), dtype=np.int64)
    starts[run_start] = run_start
    return idx - np.maximum.accumulate(starts)


register_algorithm("sd", spatial_distance, recoding="local", needs_hierarchies=False,
                   supports_suppression=True, supports_boundaries=True,
                   description="SpatialDistance: hierarchy-free greedy clustering "
                               "(Sarrafi Aghdam & Sonehara 2016)")
