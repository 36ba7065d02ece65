"""Mondrian: strict multidimensional partitioning (LeFevre, DeWitt & Ramakrishnan 2006).

The baseline of papers 000 (Figures 4-5) and 003 (Figures 7-9), and the
record graph's ``"mondrian"`` start (:func:`mondrian_seed`; why:
:mod:`kanon_graph.records.seed`).
"""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np

from ...recoding.boundaries import cells_to_suppress, magval_cells
from ...records.seed import register_start
from ...exceptions import PrivacyError
from ...registry import K_L_T, Partition, register_algorithm
from ._cuts import ORDERS, Attribute

__all__ = ["mondrian", "mondrian_seed"]

SPLITS = ("binary", "paper")
CUTS = ("strict", "relaxed")


def mondrian(data, model, *, rng=None, suppression=None, respect_boundaries=False,
             split="binary", cut="strict", order="frequency"):
    """Cut the records recursively, one attribute at a time, into classes of at least k.

    Starting from the whole table, a partition is cut on the quasi-
    identifier with the widest normalized width (numeric: (max - min) over
    the column's range; categorical with a hierarchy: leaves under the
    lowest common ancestor over all leaves; without one: distinct values
    over the column's), falling back to the next widest when no cut on it
    is allowable; a partition with no allowable cut becomes a class. A cut
    is allowable when every side satisfies the privacy model (at least k
    records, and l-diverse / t-close when asked: all are monotone, so a
    satisfying partition can always be left uncut).

    Every attribute is ordered (numeric by value, a hierarchy by the
    depth-first order of its leaves, hierarchy-free categorical values by
    ``order``) and, with ``split="binary"`` (the default), cut in two:

    * numeric without a hierarchy: at a median, strictly (values ``<= s``
      left, ``> s`` right, the distinct ``s`` closest to the median whose cut
      is allowable) or, with ``cut="relaxed"``, first at the exact median
      position, which may put records of the median value on both sides;
    * hierarchy-free categorical: the values in ``order`` split like numbers
      (a strict cut, between two distinct values);
    * with a hierarchy (categorical or numeric): between two children of
      the partition's LCA, at the child boundary closest to the median, so
      each side's LCA can only come down.

    ``split="paper"`` is the cut of LeFevre et al.'s section 5 experiments
    and the library's earlier default: numeric attributes at a median of
    their values (also when they have a hierarchy), categorical ones into
    one part per child of the LCA (one per value without a hierarchy), the
    cut allowed only if every part passes. On full Adult (8 QIs, k = 5)
    binary cuts release hierarchy-free GCP 0.037 instead of 0.094 and,
    with ARX's hierarchies, mean ARX Loss 0.070 instead of 0.116: the
    paper's categorical cuts are rarely allowable (every value or child must
    hold k records alone), and median cuts of a numeric value inside a
    hierarchy node lift a class to a much higher node
    (``benchmarks/bench_mondrian.py``, docs/algorithms/mondrian.md).

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
    split : {"binary", "paper"}, default "binary"
        Two parts along the attribute's order (hierarchies: at a child
        boundary of the LCA), or the paper's cuts (see above).
    cut : {"strict", "relaxed"}, default "strict"
        Whether a numeric hierarchy-free attribute may be cut at the exact
        median when the median value is tied (LeFevre et al.'s relaxed
        partitioning, section 3.2: the classes' ranges may then overlap).
    order : {"frequency", "codes"}, default "frequency"
        Order of the values of a hierarchy-free categorical attribute at a
        cut: most frequent in the partition being cut first, or the sorted
        values.

    Returns
    -------
    Partition
        ``stats``: ``cuts`` per attribute and ``partitions``.

    References
    ----------
    LeFevre, DeWitt & Ramakrishnan, "Mondrian multidimensional
    k-anonymity", ICDE 2006: strict and relaxed multidimensional
    partitioning (section 3), the greedy median-split algorithm (section 4,
    Figure 5) with the "widest normalized range" choice of dimension;
    categorical splits along generalization hierarchies as in its section 5
    experiments (``split="paper"``).

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
    for name, value, allowed in (("split", split, SPLITS), ("cut", cut, CUTS),
                                 ("order", order, ORDERS)):
        if value not in allowed:
            raise ValueError(f"The {name!r} parameter of mondrian must be one of "
                             f"{', '.join(map(repr, allowed))}. Got {value!r}.")
    paper = split == "paper"
    attrs = [Attribute(a, order, along_hierarchy=not paper) for a in data.attributes]
    relaxed = cut == "relaxed"
    k = model.k
    cuts = dict.fromkeys(data.names, 0)
    class_of = np.full(data.n, -1, dtype=np.int64)
    stack = [np.arange(data.n)]
    if respect_boundaries:     # one cell (no mark) too: it is suppressed if it fails whole
        cells = magval_cells(data)
        cells[cells_to_suppress(data, model, cells, suppression, "mondrian")] = -1
        by_cell = np.argsort(cells, kind="stable")
        bounds = np.flatnonzero(np.diff(cells[by_cell])) + 1
        stack = [rows for rows in np.split(by_cell, bounds) if cells[rows[0]] >= 0][::-1]
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
                                   sensitive_kinds=data.sensitive_kinds,
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
                parts = attrs[j].cut(rows, k, ok, relaxed=relaxed, children=paper)
                if parts is not None:
                    cuts[attrs[j].name] += 1
                    break
        if parts is None:
            class_of[rows] = n_classes
            n_classes += 1
        else:
            stack.extend(parts[::-1])
    return Partition(class_of, None, {"cuts": cuts, "partitions": n_classes})


register_algorithm("mondrian", mondrian, recoding="local", models=K_L_T, supports_boundaries=True,
                   supports_suppression=True,
                   description="LeFevre et al.'s strict multidimensional Mondrian (2006)")


def mondrian_seed(data, node_of, n_nodes, model, rng=None):
    """Mondrian's classes as one label per graph node, or ``None`` when it does not apply.

    A node (distinct tuple) whose records Mondrian put in several classes
    takes the class of its first record; classes left below ``k`` are the
    caller's to merge. ``None`` when Mondrian suppresses a record or fails.

    Parameters
    ----------
    data : EncodedTable
    node_of : ndarray (n,)
        The node of every record.
    n_nodes : int
    model : PrivacyModel

    Returns
    -------
    ndarray of int64 (n_nodes,) or None

    Examples
    --------
    >>> import kanon_graph as kg
    >>> from kanon_graph.records import RecordGraph
    >>> from kanon_graph.privacy import PrivacyModel
    >>> data = kg.encode(kg.datasets.paper_003_table(), kg.datasets.paper_003_schema())
    >>> g = RecordGraph(data)
    >>> mondrian_seed(data, g.node_of, g.n_nodes, PrivacyModel(k=3)).tolist()
    [0, 0, 0, 2, 2, 2, 2, 1, 1, 1]
    """
    try:
        part = mondrian(data, model, rng=rng)
    except (ValueError, PrivacyError):  # mondrian refuses the request: no seed then
        return None                 # (any other error is a bug, and raises)
    class_of = np.asarray(part.class_of)
    if len(class_of) != len(node_of) or (class_of < 0).any():
        return None
    labels = np.full(n_nodes, -1, dtype=np.int64)
    first = np.unique(node_of, return_index=True)[1]
    labels[node_of[first]] = class_of[first]
    return np.unique(labels, return_inverse=True)[1].reshape(-1).astype(np.int64)


# the record graph's "mondrian" start (``start="mondrian"`` / ``"best"`` of mst and sd):
# this room hands its partition to the record graph, which never imports it
register_start("mondrian", mondrian_seed, replace=True)
