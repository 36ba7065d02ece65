"""Generalization boundaries for local recodings: which classes may be released.

Hussien, Darwish & Hefny, "Utility-based anonymization using generalization
boundaries to protect sensitive attributes" (2016), section 2.3,
Definitions 3-6. Local recoding releases every class at the lowest common
ancestor (LCA) of its members, so a class respects the boundaries iff, for
every quasi-identifier with a hierarchy,

    level(LCA(class)) <= min over members m of level(MAGVal(m))      (*)

**MAGVal cells.** Condition (*) is an equivalence relation: a class is
allowed iff all its members have the *same MAGVal node* on every attribute.

*Proof.* If all members share the MAGVal node N (level L), they all lie
under N, so the LCA is at or below N and (*) holds. Conversely take two
members i, j with MAGVal nodes N_i != N_j, and suppose the class is allowed.
Then j lies under N_i and i under N_j, so both nodes are on the root path of
one leaf and one is strictly above the other, say N_j above N_i. As j lies
under N_i, the marked node N_i (or, for the unmarked root, nothing lower)
is on j's path below N_j, so j's MAGVal -- the *first* marked node on its
path -- is N_i or lower, not N_j: a contradiction. (A member whose MAGVal
is the unmarked root can thus share a class only with members whose
MAGVal is also the root.)

So a local recoding respects the boundaries iff it never puts records of
two different *cells* (:func:`magval_cells`) in one class; a cell with fewer
than ``k`` records (or failing l-diversity / t-closeness as a whole) can
only be suppressed.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from ..encoding import EncodedTable, combine_codes
from ._release import class_lca

__all__ = ["magval_cells", "class_cells", "union_allowed", "allowed_classes", "has_boundaries",
           "cells_to_suppress", "subset_table"]


def _bounded(data):
    return [a for a in data.attributes if a.hierarchy is not None and a.hierarchy.has_magvals]


def _first_order_labels(key):
    """Dense labels 0..C-1 numbered by first appearance."""
    _, first, inverse = np.unique(key, return_index=True, return_inverse=True)
    rank = np.empty(len(first), dtype=np.int64)
    rank[np.argsort(first, kind="stable")] = np.arange(len(first))
    return rank[inverse.reshape(-1)]


def magval_cells(data):
    """The MAGVal cell of every record: one label per tuple of MAGVal nodes.

    Two records may share a released class iff they are in the same cell
    (see the module docstring for the proof). Attributes without a
    hierarchy or without marks put everyone in one cell.

    Parameters
    ----------
    data : EncodedTable

    Returns
    -------
    ndarray of int64, shape (n,)
        Cells numbered 0..C-1 by first appearance.

    Examples
    --------
    >>> import pandas as pd, kanon_graph as kg
    >>> schema = kg.Schema(quasi_identifiers=["loc"],
    ...                    hierarchies={"loc": kg.datasets.paper_002_location()})
    >>> table = pd.DataFrame({"loc": ["Geza", "Aswan", "Helwan", "Alex", "Tanta"]})
    >>> magval_cells(kg.encode(table, schema)).tolist()
    [0, 0, 1, 2, 2]
    """
    bounded = _bounded(data)
    if not bounded:
        return np.zeros(data.n, dtype=np.int64)
    columns = [a.hierarchy.capped_map(a.hierarchy.height)[a.codes] for a in bounded]
    radices = [int(a.hierarchy.node_offsets[-1]) for a in bounded]
    return _first_order_labels(combine_codes(columns, radices))


def class_cells(cell_of, class_of, n_classes=None):
    """Per class, its MAGVal cell, or ``-1`` when it mixes cells (not allowed).

    This is the per-class summary for local recodings: a class is allowed
    iff its entry is ``>= 0``, and the union of two allowed classes is
    allowed iff their entries are equal (:func:`union_allowed`).

    Examples
    --------
    >>> import numpy as np
    >>> class_cells(np.array([0, 0, 1, 1, 2]), np.array([0, 0, 1, 2, 2])).tolist()
    [0, 1, -1]
    """
    cell_of = np.asarray(cell_of, dtype=np.int64)
    class_of = np.asarray(class_of, dtype=np.int64)
    keep = class_of >= 0
    if n_classes is None:
        n_classes = int(class_of.max()) + 1 if keep.any() else 0
    lo = np.full(n_classes, np.iinfo(np.int64).max)
    hi = np.full(n_classes, -1, dtype=np.int64)
    np.minimum.at(lo, class_of[keep], cell_of[keep])
    np.maximum.at(hi, class_of[keep], cell_of[keep])
    return np.where(lo == hi, lo, -1)


def union_allowed(cells_a, cells_b):
    """Whether the union of classes with summaries ``cells_a``/``cells_b`` is allowed.

    Examples
    --------
    >>> union_allowed([0, 1, -1], [0, 2, -1]).tolist()
    [True, False, False]
    """
    cells_a, cells_b = np.asarray(cells_a), np.asarray(cells_b)
    return (cells_a == cells_b) & (cells_a >= 0)


def allowed_classes(data, class_of, n_classes=None):
    """Boolean per class: is its release within every member's MAGVal? (eq. (*)).

    Computed directly from the definition -- the level of the class's lowest
    common ancestor against the smallest MAGVal level of its members -- so
    it also serves to test :func:`magval_cells`.

    Examples
    --------
    >>> import numpy as np, pandas as pd, kanon_graph as kg
    >>> schema = kg.Schema(quasi_identifiers=["loc"],
    ...                    hierarchies={"loc": kg.datasets.paper_002_location()})
    >>> table = pd.DataFrame({"loc": ["Geza", "Aswan", "Helwan", "Alex", "Tanta"]})
    >>> allowed_classes(kg.encode(table, schema), [0, 0, 0, 1, 1]).tolist()
    [False, True]
    """
    class_of = np.asarray(class_of, dtype=np.int64)
    keep = class_of >= 0
    if n_classes is None:
        n_classes = int(class_of.max()) + 1 if keep.any() else 0
    ok = np.ones(n_classes, dtype=bool)
    cls = class_of[keep]
    for attr in _bounded(data):
        h = attr.hierarchy
        leaves = attr.codes[keep]
        cap = np.full(n_classes, h.height, dtype=np.int64)
        np.minimum.at(cap, cls, h.magval_levels()[leaves])
        level, _ = class_lca(h.level_map, leaves, cls, n_classes)
        ok &= level <= cap
    return ok


def _describe(data, rows):
    """'attr=MAGVal' for every bounded attribute of a cell's first record."""
    parts = []
    for attr in _bounded(data):
        h = attr.hierarchy
        leaf = attr.codes[rows[0]]
        level = int(h.magval_levels()[leaf])
        parts.append(f"{attr.name}={h.label(level, h.level_map[level][leaf])!r}")
    return ", ".join(parts)


def _criteria(model):
    parts = [f"k={model.k}"]
    if model.l is not None:
        parts.append(f"l={model.l:g} ({model.diversity})")
    if model.t is not None:
        parts.append(f"t={model.t:g}")
    return ", ".join(parts)


def cells_to_suppress(data, model, cells, suppression, where):
    """Records of cells that cannot satisfy ``model`` even as one class.

    Such cells can only be suppressed. They are, if the suppression budget
    ``floor(suppression * records)`` allows (records counted by
    ``data.weights``); otherwise a ``ValueError`` names the binding MAGVals.

    Returns
    -------
    ndarray of bool, shape (n,)
        The records to suppress.

    Examples
    --------
    >>> import pandas as pd, kanon_graph as kg
    >>> schema = kg.Schema(quasi_identifiers=["loc"],
    ...                    hierarchies={"loc": kg.datasets.paper_002_location()})
    >>> data = kg.encode(pd.DataFrame({"loc": ["Geza", "Aswan", "Helwan", "Alex", "Tanta"]}),
    ...                  schema)
    >>> cells = magval_cells(data)
    >>> from kanon_graph.privacy import PrivacyModel
    >>> cells_to_suppress(data, PrivacyModel(k=2), cells, 0.2, "mst").tolist()
    [False, False, True, False, False]
    """
    n_cells = int(cells.max()) + 1 if len(cells) else 0
    bad = model.suppressed_classes(cells, data, n_cells)
    out = bad[cells] if n_cells else np.zeros(0, dtype=bool)
    if not out.any():
        return out
    # records, not rows: a table of weighted tuples (``data.weights``) holds more
    weights = np.ones(data.n, dtype=np.int64) if data.weights is None else data.weights
    budget = int(np.floor((suppression or 0.0) * data.records))
    dropped = int(weights[out].sum())
    if dropped > budget:
        first = int(np.flatnonzero(bad)[0])
        rows = np.flatnonzero(cells == first)
        raise ValueError(
            f"{where}: with respect_boundaries, {dropped} record(s) in "
            f"{int(bad.sum())} MAGVal cell(s) cannot form a class satisfying {_criteria(model)}, "
            f"e.g. {int(weights[rows].sum())} record(s) with MAGVal {_describe(data, rows)}; "
            f"the suppression budget allows {budget}: raise 'suppression' or relax the "
            f"boundaries")
    return out


def subset_table(data, rows):
    """The encoded table restricted to ``rows`` (hierarchies and domains kept)."""
    rows = np.asarray(rows, dtype=np.int64)
    attrs = [dataclasses.replace(a, codes=a.codes[rows],
                                 values=None if a.values is None else a.values[rows])
             for a in data.attributes]
    pick = (lambda x: None if x is None else np.asarray(x)[rows])
    return dataclasses.replace(data, table=data.table.iloc[rows].reset_index(drop=True),
                               attributes=attrs,
                               sensitive={s: v[rows] for s, v in data.sensitive.items()},
                               row_labels=pick(data.row_labels),
                               positions=pick(data.positions), dropped=0)


def has_boundaries(data):
    """Whether some quasi-identifier of ``data`` has marked MAGVals."""
    return bool(_bounded(data))
