"""Mondrian: strict multidimensional partitioning (LeFevre, DeWitt & Ramakrishnan 2006).

The baseline of papers 000 (Figures 4-5) and 003 (Figures 7-9).
"""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np

from ..recoding.boundaries import cells_to_suppress, has_boundaries, magval_cells
from ..registry import Partition, register_algorithm

__all__ = ["mondrian"]


class _Attribute:
    """How one quasi-identifier is measured and cut."""

    def __init__(self, attr):
        self.name = attr.name
        h = attr.hierarchy
        self.numeric = attr.kind == "numeric"
        if self.numeric:
            self.values = attr.values.astype(float)
            span = float(self.values.max() - self.values.min())
            self.span = span if span > 0 else 1.0
            return
        if h is not None:
            self.lmap = np.vstack(h.level_map)
            self.under = np.vstack([h.leaf_counts[l][h.level_map[l]] for l in range(h.height + 1)])
        else:  # a flat tree: the value, or every value
            m = attr.n_codes
            self.lmap = np.vstack([np.arange(m), np.zeros(m, dtype=np.int64)])
            self.under = np.vstack([np.ones(m, dtype=np.int64), np.full(m, m)])
        self.codes = attr.codes
        self.n_leaves = self.lmap.shape[1]

    def width(self, rows):
        """Normalized width of a partition; 0 when it cannot be cut on this attribute."""
        if self.numeric:
            v = self.values[rows]
            return (v.max() - v.min()) / self.span
        level = self._lca_level(rows)
        return 0.0 if level == 0 else self.under[level, self.codes[rows[0]]] / self.n_leaves

    def _lca_level(self, rows):
        for level in range(self.lmap.shape[0]):
            mapped = self.lmap[level, self.codes[rows]]
            if (mapped == mapped[0]).all():
                return level
        return self.lmap.shape[0] - 1  # pragma: no cover

    def cut(self, rows, ok):
        """Sub-partitions of an allowable cut on this attribute, or ``None``.

        Numeric: the cut ``v <= s`` / ``v > s`` at the distinct value ``s``
        that leaves the two sides closest to half each (the median when
        values are distinct) among the cuts whose both sides pass ``ok``.
        Categorical: one part per child of the partition's LCA node, allowed
        only if every part passes ``ok``.
        """
        if self.numeric:
            v = self.values[rows]
            uniques, counts = np.unique(v, return_counts=True)
            if len(uniques) < 2:
                return None
            left = np.cumsum(counts)[:-1]
            for i in np.argsort(np.abs(left - len(rows) / 2), kind="stable"):
                mask = v <= uniques[i]
                parts = [rows[mask], rows[~mask]]
                if ok(parts):
                    return parts
            return None
        level = self._lca_level(rows)
        if level == 0:
            return None
        child = self.lmap[level - 1, self.codes[rows]]
        order = np.argsort(child, kind="stable")
        bounds = np.flatnonzero(np.diff(child[order])) + 1
        parts = np.split(rows[order], bounds)
        return parts if ok(parts) else None


def mondrian(data, model, *, rng=None, suppression=None, respect_boundaries=False):
    """Cut the records recursively, one attribute at a time, into classes of at least k.

    Starting from the whole table, a partition is cut on the quasi-
    identifier with the widest normalized range (numeric: (max - min) over
    the column's range; categorical: leaves under the lowest common ancestor
    over all leaves), falling back to the next widest when that cut is not
    allowable; a partition with no allowable cut becomes a class. A cut is
    allowable when every side satisfies the privacy model (at least k
    records, and l-diverse / t-close when asked: all are monotone, so a
    satisfying partition can always be left uncut).

    * Numeric attributes are cut at a median (strict partitioning: values
      ``<= s`` left, ``> s`` right, so the two sides never overlap). With ties
      the distinct value ``s`` closest to the median whose cut is allowable
      is taken.
    * Categorical attributes are cut along the hierarchy: the partition's LCA
      node is replaced by its children, one part per child; the cut is
      allowed only if every part passes (a hierarchy-free attribute is a
      flat tree, so its parts are single values).

    Each class is then released at its lowest common ancestors (local
    recoding): with a hierarchy a numeric range is shown as the LCA node.

    Parameters
    ----------
    data : EncodedTable
    model : PrivacyModel
    rng : numpy.random.Generator
        Unused: Mondrian is deterministic (ties between equally wide
        attributes go to the first in schema order).
    suppression : float, optional
        Budget for suppressing MAGVal cells with boundaries (else unused).
    respect_boundaries : bool, default False
        Generalization boundaries (Hussien et al. 2016, Definitions 3-6):
        the recursion starts from the partition of the records by their
        MAGVal node on every attribute (the MAGVal *cells*) instead of the
        whole table, then cuts as usual. This is exact: a class is allowed
        iff all its members share their MAGVal node on every attribute
        (proof in :mod:`kanon_graph.recoding.boundaries`; in particular a
        record whose MAGVal is the unmarked root can never share a class
        with a record whose MAGVal is a marked node), and Mondrian's cuts
        only refine partitions, so no class ever crosses a cell, and every
        cell is released as finely as Mondrian can cut it. Cells that
        cannot satisfy the model alone are suppressed within the budget,
        else a ``ValueError`` names their MAGVals. Widths stay normalized
        by the whole column's range.

    Returns
    -------
    Partition
        ``stats``: ``cuts`` per attribute and ``partitions``.

    References
    ----------
    LeFevre, DeWitt & Ramakrishnan, "Mondrian multidimensional
    k-anonymity", ICDE 2006: strict multidimensional partitioning, the
    greedy median-split algorithm (section 4, Figure 5) with the "widest
    normalized range" choice of dimension; categorical splits along
    generalization hierarchies as in its section 5 experiments.

    Examples
    --------
    >>> import kanon_graph as kg
    >>> table = kg.datasets.paper_003_table()
    >>> res = kg.anonymize(table, kg.datasets.paper_003_schema(), k=3, algorithm="mondrian")
    >>> sorted(len(c) for c in res.classes)
    [3, 3, 4]
    >>> res.table["age"].tolist()[:4]
    ['[20-25]', '[20-25]', '[20-25]', '[20-40]']
    """
    attrs = [_Attribute(a) for a in data.attributes]
    k = model.k
    cuts = dict.fromkeys(data.names, 0)
    class_of = np.full(data.n, -1, dtype=np.int64)
    stack = [np.arange(data.n)]
    if respect_boundaries and has_boundaries(data):
        cells = magval_cells(data)
        cells[cells_to_suppress(data, model, cells, suppression, "mondrian")] = -1
        order = np.argsort(cells, kind="stable")
        bounds = np.flatnonzero(np.diff(cells[order])) + 1
        stack = [rows for rows in np.split(order, bounds) if cells[rows[0]] >= 0][::-1]
    if model.needs_sensitive:
        values = data.sensitive[model.sensitive]
        # t compares a part with every released record, not with the partition cut
        reference = values[np.concatenate(stack)] if stack else values[:0]

        def ok(parts):
            if min(len(p) for p in parts) < k:
                return False
            rows = np.concatenate(parts)
            labels = np.repeat(np.arange(len(parts)), [len(p) for p in parts])
            view = SimpleNamespace(sensitive={model.sensitive: values[rows]},
                                   sensitive_domain=data.sensitive_domain,
                                   schema=data.schema, table=data.table)
            return not model.failing(labels, view, len(parts), reference=reference).any()
    else:
        def ok(parts):
            return min(len(p) for p in parts) >= k
    n_classes = 0
    while stack:
        rows = stack.pop()
        parts = None
        if len(rows) >= 2 * k:
            widths = np.array([a.width(rows) for a in attrs])
            for j in np.argsort(-widths, kind="stable"):
                if widths[j] <= 0:
                    break
                parts = attrs[j].cut(rows, ok)
                if parts is not None:
                    cuts[attrs[j].name] += 1
                    break
        if parts is None:
            class_of[rows] = n_classes
            n_classes += 1
        else:
            stack.extend(parts[::-1])
    return Partition(class_of, None, {"cuts": cuts, "partitions": n_classes})


register_algorithm("mondrian", mondrian, recoding="local", supports_boundaries=True,
                   supports_suppression=True,
                   description="LeFevre et al.'s strict multidimensional Mondrian (2006)")
