"""Generalization boundaries (MAGVals) on the lattice: capped full-domain recoding.

Hussien, Darwish & Hefny (2016), Definitions 3-6: every leaf ``v`` has a
maximum allowed generalization value MAGVal(v), the first marked node on its
path to the root (the root when none is marked). With
``respect_boundaries=True`` the lattice searches apply a level vector as a
*capped* full-domain recoding: every value rises to its attribute's level
except where its MAGVal stops it (``EncodedTable.group_keys(levels,
capped=True)``). An attribute's lattice then ends at its *boundary level*,
the highest MAGVal level among the values present in the data: above it
nothing changes. So "the lattice searches never go past an attribute's
MAGVal level", and a constrained release (Definition 6) needs no further
check.

**Monotonicity still holds**, so every pruning rule stays valid. Let
``m(x)`` be the level of the first marked node on the path from node ``x``
(inclusive) to the root. A leaf ``v`` released at attribute level ``a`` sits
at node ``x`` of level ``min(a, m(v))``, and ``m(x) = m(v)``: below ``x`` the
path has no mark (or ``x`` itself is the mark). Raising the attribute to
``b >= a`` moves it to ``x``'s ancestor at ``min(b, m(x))`` -- a function
of ``x`` alone. Hence the classes of a more general node are unions of the
classes of a more specific one: frequency sets roll up (the map of
:func:`capped_rollup_map`), class sizes only grow, and k-anonymity, the
record-suppression budget, l-diversity and t-closeness keep the
generalization property; ARX's Loss and Precision never fall.
"""

from __future__ import annotations

import math

import numpy as np

__all__ = ["boundary_levels", "binding_boundaries", "capped_rollup_map", "node_magval_levels",
           "unreachable_error", "suppression_hint", "magval_stops"]


def _present(attr):
    return np.unique(attr.codes)


def boundary_levels(data, respect_boundaries=True):
    """Per quasi-identifier, the highest level the (capped) lattice needs.

    The highest MAGVal level among the values present in the data, or the
    hierarchy height when the attribute has no MAGVal (or
    ``respect_boundaries`` is False).

    Examples
    --------
    >>> import kanon_graph as kg
    >>> schema = kg.datasets.paper_003_schema()
    >>> _ = schema.hierarchy("age").mark_magval("[20-30]").mark_magval("[31-40]")
    >>> data = kg.encode(kg.datasets.paper_003_table(), schema)
    >>> data.heights, boundary_levels(data)
    ([1, 3, 2], (1, 2, 2))
    """
    out = []
    for attr in data.attributes:
        if attr.is_capped(respect_boundaries):
            out.append(int(attr.hierarchy.magval_levels()[_present(attr)].max()))
        else:
            out.append(int(attr.height))
    return tuple(out)


def binding_boundaries(data):
    """``{name: boundary level}`` of the attributes whose MAGVals stop some present value
    below the root (withholding them, i.e. releasing the root, would break a boundary)."""
    out = {}
    for attr in data.attributes:
        if attr.is_capped(True):
            levels = attr.hierarchy.magval_levels()[_present(attr)]
            if levels.min() < attr.height:
                out[attr.name] = int(levels.max())
    return out


def node_magval_levels(hierarchy):
    """Per global node id, ``m(x)``: the level of the first MAGVal on the path from
    ``x`` (inclusive) to the root, the height when there is none."""
    offsets = hierarchy.node_offsets
    height = hierarchy.height
    out = np.full(int(offsets[-1]), height, dtype=np.int64)
    # one leaf under every node stands for it: the level-l ancestor of a leaf
    for level in range(height + 1):
        n_nodes = len(hierarchy.leaf_counts[level])
        rep = np.empty(n_nodes, dtype=np.int64)
        rep[hierarchy.level_map[level][::-1]] = np.arange(hierarchy.n_leaves)[::-1]
        pending = np.ones(n_nodes, dtype=bool)
        result = np.full(n_nodes, height, dtype=np.int64)
        for up in range(level, height + 1):
            hit = pending & hierarchy._magval[up][hierarchy.level_map[up][rep]]
            result[hit] = up
            pending &= ~hit
        out[offsets[level]:offsets[level + 1]] = result
    return out


def capped_rollup_map(hierarchy, level):
    """Global node id -> global id of its capped ancestor at ``level``.

    Node ``x`` goes to its ancestor at ``min(level, m(x))`` (see the module
    notes), so a frequency set of capped codes rolls up to any more general
    node with one lookup per group. On leaves it equals
    ``hierarchy.capped_map(level)``.

    Examples
    --------
    >>> import kanon_graph as kg
    >>> h = kg.Hierarchy.from_mapping({"A.R.E": {"South": ["Geza", "Aswan"],
    ...                                          "North": ["Alex", "Tanta"]}})
    >>> _ = h.mark_magval("South")
    >>> up = capped_rollup_map(h, 2)
    >>> h.split_node_ids(up[h.capped_map(1)])[0].tolist()   # South stays at level 1
    [1, 1, 2, 2]
    >>> bool((up[:h.n_leaves] == h.capped_map(2)).all())
    True
    """
    hierarchy._check_level(level)
    offsets = hierarchy.node_offsets
    m = node_magval_levels(hierarchy)
    out = np.empty(int(offsets[-1]), dtype=np.int64)
    for l in range(hierarchy.height + 1):
        n_nodes = len(hierarchy.leaf_counts[l])
        rep = np.empty(n_nodes, dtype=np.int64)
        rep[hierarchy.level_map[l][::-1]] = np.arange(hierarchy.n_leaves)[::-1]
        ids = np.arange(offsets[l], offsets[l + 1])
        target = np.maximum(np.minimum(level, m[ids]), l)
        for t in np.unique(target):
            pick = target == t
            out[ids[pick]] = offsets[t] + hierarchy.level_map[t][rep[pick]]
    return out


def unreachable_error(where, data, respect_boundaries, failing, budget):
    """A ValueError saying the privacy model is out of reach, naming binding boundaries."""
    binding = binding_boundaries(data) if respect_boundaries else {}
    if binding:
        names = ", ".join(f"{name!r} (values stop at {magval_stops(data.attribute(name))})"
                          for name in binding)
        need = f"{failing} records still fail at the top of the capped lattice" \
            if failing is not None else "no string passes"
        hint = f"; allow suppression >= {suppression_hint(failing, data.records)}" if failing else ""
        return ValueError(f"{where}: the privacy model cannot be reached within the "
                          f"generalization boundaries of {names}: {need} and at most "
                          f"{budget} may be suppressed{hint}, or relax the boundaries")
    return ValueError(f"{where}: no generalization satisfies the privacy model, even with "
                      f"every quasi-identifier at its root and {budget} records suppressed")


def magval_stops(attr):
    """The MAGVals below the root that hold some present value (at most three named)."""
    h = attr.hierarchy
    present = np.unique(attr.codes)
    levels = h.magval_levels()[present]
    below = present[levels < h.height]
    labels = sorted({h.label(int(l), int(h.level_map[l][v]))
                     for v, l in zip(below, h.magval_levels()[below])})
    more = f" and {len(labels) - 3} more" if len(labels) > 3 else ""
    return ", ".join(map(str, labels[:3])) + more


def suppression_hint(failing, n):
    """The smallest 4-decimal fraction whose budget (rounded down) covers ``failing`` records.

    >>> suppression_hint(3, 11)
    '0.2728'
    """
    return f"{math.ceil(failing / n * 1e4) / 1e4:.4f}"
