"""The cost of a class of distinct tuples under a chosen metric, for compiled kernels.

A class is a set of graph nodes (distinct quasi-identifier tuples, each with
a multiplicity). Released by local recoding, its cell on attribute ``a`` is
the lowest common ancestor of its values (with a hierarchy), their range
(numeric without one) or their set (categorical without one). Its cost is

* ``metric="loss"`` (ARX's Loss, the default) and ``"gcp"`` / ``"ncp"``:
  ``|E| * sum_a cell_a(E)``, where ``cell_a`` is ARX's cell loss
  ``(leaves under the value - 1) / (leaves - 1)`` (range / domain span for a
  hierarchy-free numeric attribute) or the NCP of [003] eq. (5)-(6). Summed
  over classes and divided by ``n * d`` this is exactly the mean
  per-attribute ARX Loss, or GCP ([003] eq. (7)), of the release;
* ``metric="discernibility"``: ``|E|^2`` ([003] eq. (8) with every class of
  at least ``k`` records).

:class:`ClassCost` packs the tables a compiled kernel needs into one tuple
(:attr:`ClassCost.tables`); :func:`set_cost` evaluates one class from its
member list in ``O(|E| d)``. The merge (:mod:`~kanon_graph.records.adjacent`)
and refinement (:mod:`~kanon_graph.records.refine`) kernels share it.
"""

from __future__ import annotations

import numpy as np

from .merge import _node_costs
from ._layout import _class_order
from .mst import HAVE_NUMBA

from .._jit import njit  # numba loads on a kernel's first call

__all__ = ["ClassCost", "METRICS", "set_cost"]

METRICS = ("loss", "gcp", "ncp", "discernibility")
"""Metrics the graph kernels can minimize (``gcp`` and ``ncp`` order classes alike)."""


def _arx_node_costs(attr):
    """ARX cell loss of every node of the attribute's hierarchy, one array per level."""
    h = attr.hierarchy
    leaves = h.n_leaves
    return [(np.asarray(c, dtype=float) - 1.0) / (leaves - 1) if leaves > 1
            else np.zeros(len(c)) for c in h.leaf_counts]


class ClassCost:
    """Flat per-attribute tables from which a kernel costs any set of nodes.

    Parameters
    ----------
    data : EncodedTable
    codes : ndarray (u, d)
        Code tuple of every node (:attr:`RecordGraph.codes`).
    metric : {"loss", "gcp", "ncp", "discernibility"}

    Attributes
    ----------
    tables : tuple
        ``(kind, nlev, width, off, anc, cell, values, scale, settab, setoff,
        mark, mode)``: per attribute its kind (0 hierarchy, 1 numeric range,
        2 categorical set); for hierarchies ``anc[off + L * width + code]``
        is the code's ancestor at level ``L`` and ``cell[...]`` that
        ancestor's cell cost; for numeric ranges ``values[off + code]`` and
        ``scale`` (1 / domain span); for sets ``settab[setoff + c]`` the cost
        of ``c`` distinct values; ``mark`` is scratch; ``mode`` 1 for
        discernibility, else 0.
    norm : float
        What a total cost is divided by to give the reported loss:
        ``n * d`` (mean per-attribute loss, GCP), or 1 (discernibility).
    """

    def __init__(self, data, codes, metric="loss"):
        if metric not in METRICS:
            raise ValueError(f"The 'metric' parameter must be one of {list(METRICS)}. "
                             f"Got {metric!r}.")
        self.metric = metric
        d = len(data.attributes)
        kind = np.zeros(d, dtype=np.int64)
        nlev = np.ones(d, dtype=np.int64)
        width = np.zeros(d, dtype=np.int64)
        off = np.zeros(d, dtype=np.int64)
        scale = np.zeros(d)
        setoff = np.zeros(d, dtype=np.int64)
        anc, cell, values, settab = [], [], [], []
        pos = vpos = spos = 0
        for a, attr in enumerate(data.attributes):
            m = attr.n_codes
            width[a] = m
            if attr.hierarchy is not None:
                h = attr.hierarchy
                costs = _arx_node_costs(attr) if metric == "loss" else _node_costs(attr)
                nlev[a] = h.height + 1
                off[a] = pos
                for level in range(h.height + 1):
                    anc.append(h.level_map[level][:m].astype(np.int64))
                    cell.append(costs[level][h.level_map[level][:m]])
                pos += m * (h.height + 1)
            elif attr.kind == "numeric":
                kind[a] = 1
                vals = np.zeros(m)
                vals[attr.codes] = attr.values
                span = float(vals.max() - vals.min()) if m else 0.0
                scale[a] = 1.0 / span if span > 0 else 0.0
                off[a] = vpos
                values.append(vals)
                vpos += m
            else:
                kind[a] = 2
                count = np.arange(m + 1, dtype=float)
                if metric == "loss":
                    tab = (count - 1) / (m - 1) if m > 1 else np.zeros(m + 1)
                else:
                    tab = np.where(count <= 1, 0.0, count / max(m, 1))
                setoff[a] = spos
                off[a] = spos
                settab.append(np.maximum(tab, 0.0))
                spos += m + 1
        cat = (lambda parts, dt: np.concatenate(parts).astype(dt) if parts else np.zeros(1, dt))
        self.tables = (kind, nlev, width, off, cat(anc, np.int64), cat(cell, float),
                       cat(values, float), scale, cat(settab, float), setoff,
                       np.zeros(max(spos, 1) + 1, dtype=np.int64),
                       1 if metric == "discernibility" else 0)
        self.codes = np.ascontiguousarray(codes, dtype=np.int64)
        self.norm = 1.0 if metric == "discernibility" else float(data.records * max(d, 1))

    def of_labels(self, labels, counts):
        """Total cost of the classes ``labels`` (one per node), e.g. to check a kernel."""
        labels = np.asarray(labels)
        if len(labels) and labels.dtype.kind in "iu" and labels.min() >= 0:
            # one kernel call, not one per class (2,700 calls at patients' k = 5), and the
            # stable argsort's order by one counting sort: the same classes, the same sum
            order, start = _class_order(labels.astype(np.int64, copy=False),
                                        int(labels.max()) + 1)
            return _classes_cost(order, start, self.codes, counts, self.tables)
        order = np.argsort(labels, kind="stable").astype(np.int64)
        bounds = np.flatnonzero(np.diff(labels[order])) + 1
        total = 0.0
        for chunk in np.split(order, bounds):
            total += _set_cost(chunk, len(chunk), self.codes, counts, self.tables)
        return total


def _set_cost_py(nodes, n, codes, counts, tables):
    """Cost of the class made of ``nodes[:n]`` (see the module docstring)."""
    kind, nlev, width, off, anc, cell, values, scale, settab, setoff, mark, mode = tables
    size = 0
    for i in range(n):
        size += counts[nodes[i]]
    if mode == 1:
        return float(size) * float(size)
    total = 0.0
    d = kind.shape[0]
    for a in range(d):
        if kind[a] == 0:
            m = width[a]
            base = off[a]
            ref = codes[nodes[0], a]
            level = 0
            top = nlev[a] - 1
            for i in range(1, n):
                x = codes[nodes[i], a]
                while level < top and anc[base + level * m + x] != anc[base + level * m + ref]:
                    level += 1
            total += cell[base + level * m + ref]
        elif kind[a] == 1:
            lo = np.inf
            hi = -np.inf
            for i in range(n):
                v = values[off[a] + codes[nodes[i], a]]
                lo = min(lo, v)
                hi = max(hi, v)
            total += (hi - lo) * scale[a]
        else:
            mark[0] += 1
            stamp = mark[0]
            distinct = 0
            for i in range(n):
                slot = 1 + off[a] + codes[nodes[i], a]
                if mark[slot] != stamp:
                    mark[slot] = stamp
                    distinct += 1
            total += settab[setoff[a] + distinct]
    return total * size


def _classes_cost_py(order, start, codes, counts, tables):
    """Sum of :func:`_set_cost_py` over the classes ``order[start[c]:start[c + 1]]`` not
    empty, in class order: :meth:`ClassCost.of_labels` in one call, where it made one
    per class (2,700 at patients' k = 5, each paying numba's dispatch of ``tables``)."""
    total = 0.0
    for c in range(start.shape[0] - 1):
        if start[c + 1] > start[c]:
            total += _set_cost_callee(order[start[c]:start[c + 1]], start[c + 1] - start[c],
                                      codes, counts, tables)
    return total


def _set_cost_work(nodes, n, codes, counts, tables):
    """Steps of :func:`_set_cost_py`: a pass over the members per attribute."""
    return (int(n) + 1) * codes.shape[1] + 20   # 20: a call from Python


# small calls run as Python: a first run need not compile it (kanon_graph._jit, issue 32)
_set_cost = (njit(cache=True, work=_set_cost_work)(_set_cost_py) if HAVE_NUMBA
             else _set_cost_py)
set_cost = _set_cost
# compiling _classes_cost binds the name it calls to numba's dispatcher: another name, so
# that _set_cost stays the lazy kernel
_set_cost_callee = _set_cost
_classes_cost = (njit(cache=True, work=lambda order, start, codes, counts, tables:
                      (len(order) + len(start)) * codes.shape[1])(_classes_cost_py)
                 if HAVE_NUMBA else _classes_cost_py)
