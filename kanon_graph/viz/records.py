"""The record graph's MST, its cut edges and the classes they leave (paper 003, Figure 5).

For small tables only (the complete graph is built densely): the exact MST
of the distinct quasi-identifier tuples, the ``floor(n/k) - 1`` longest
edges removed by :func:`kanon_graph.records.split_mst` drawn dashed, and the
sub-trees (the classes of the MST partition before any merge) coloured.
:func:`mst_split_view` computes the picture's content; :func:`mst_dot` and
:func:`mst_figure` draw it.

References
----------
Venkata Ramana & Valli Kumari, "Graph based local recoding for data
anonymization", IJDMS 5(6), 2013: section 4.3 and Figure 5 (the MST of the
worked example with its two longest edges removed, k = 3).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._display import html
from ..encoding import EncodedTable
from ..records import RecordGraph, minimum_spanning_edges, split_mst
from ._figure import PALETTE, pyplot

__all__ = ["MSTSplitView", "mst_dot", "mst_figure", "mst_split_view"]

#: Largest number of distinct tuples the MST pictures accept.
MAX_PICTURE_NODES = 300


@dataclass(frozen=True)
class MSTSplitView:
    """The content of the Figure 5 picture.

    Attributes
    ----------
    graph : RecordGraph
    u, v, w : ndarray
        The MST's edges (node indices, weights), sorted by ``(min, max)`` end.
    cut : ndarray of bool
        Edges removed by the split.
    cluster_of : ndarray of int64
        The sub-tree (class) of every node, numbered by smallest node.
    labels : list of str
        Per node, its records as ``r<position + 1>`` (``r1,r5`` when a tuple
        repeats).
    k : int
    """

    graph: RecordGraph
    u: np.ndarray
    v: np.ndarray
    w: np.ndarray
    cut: np.ndarray
    cluster_of: np.ndarray
    labels: list
    k: int

    @property
    def n_classes(self):
        return int(self.cluster_of.max()) + 1 if len(self.cluster_of) else 0

    def _repr_html_(self):  # Jupyter's display, registered by kanon_graph.viz.notebook
        return html(self)


def _record_labels(graph):
    out = []
    for node in range(graph.n_nodes):
        rows = graph.records_of(node)
        names = [f"r{int(r) + 1}" for r in rows[:3]]
        out.append(",".join(names) + (f",+{len(rows) - 3}" if len(rows) > 3 else ""))
    return out


def mst_split_view(data, k, *, distance="hdist", method="auto"):
    """The MST of a small table, the edges the split removes and the resulting classes.

    Parameters
    ----------
    data : EncodedTable or RecordGraph
        ``kg.encode(table, schema)``, or a graph already built (e.g. with a
        custom distance).
    k : int
    distance : str, callable or dict
        Passed to :class:`~kanon_graph.records.RecordGraph` when ``data`` is
        an EncodedTable.
    method : {"auto", "kruskal", "prim"}

    Returns
    -------
    MSTSplitView

    Examples
    --------
    >>> import kanon_graph as kg
    >>> data = kg.encode(kg.datasets.paper_003_table(), kg.datasets.paper_003_schema())
    >>> view = mst_split_view(data, 3)
    >>> int(view.cut.sum()), view.n_classes, view.cluster_of.tolist()
    (2, 3, [0, 0, 0, 1, 1, 1, 1, 2, 2, 2])
    """
    graph = data if isinstance(data, RecordGraph) else None
    if graph is None:
        if not isinstance(data, EncodedTable):
            raise ValueError(f"The 'data' parameter of mst_split_view must be an EncodedTable "
                             f"or a RecordGraph. Got {type(data).__name__}.")
        graph = RecordGraph(data, distance)
    if not isinstance(k, (int, np.integer)) or isinstance(k, bool) or k < 1:
        raise ValueError(f"The 'k' parameter of mst_split_view must be an integer >= 1. "
                         f"Got {k!r}.")
    if graph.n_nodes > MAX_PICTURE_NODES:
        raise ValueError(f"mst_split_view draws small tables only: the graph has "
                         f"{graph.n_nodes} distinct tuples, more than {MAX_PICTURE_NODES}.")
    u, v, w = minimum_spanning_edges(graph, method=method)
    lo, hi = np.minimum(u, v), np.maximum(u, v)
    order = np.lexsort((hi, lo))
    u, v, w = lo[order], hi[order], np.asarray(w, dtype=float)[order]
    cluster_of, _ = split_mst(u, v, w, graph.n_nodes, graph.n_records, int(k))
    cut = cluster_of[u] != cluster_of[v]   # in a forest, an edge is cut iff it joins two trees
    return MSTSplitView(graph, u, v, w, cut, cluster_of, _record_labels(graph), int(k))


def _view(data, k, distance, method):
    return data if isinstance(data, MSTSplitView) else \
        mst_split_view(data, k, distance=distance, method=method)


def mst_dot(data, k=None, *, distance="hdist", method="auto", values=True, name="mst"):
    """DOT lines of the split MST: cut edges dashed, nodes filled by class (a generator).

    Parameters
    ----------
    data : EncodedTable, RecordGraph or MSTSplitView
    k : int
        Required unless ``data`` is an :class:`MSTSplitView`.
    distance, method
        See :func:`mst_split_view`.
    values : bool
        Add the tuple's original values as a second label line.
    name : str

    Yields
    ------
    str

    Examples
    --------
    >>> import kanon_graph as kg
    >>> data = kg.encode(kg.datasets.paper_003_table(), kg.datasets.paper_003_schema())
    >>> lines = list(mst_dot(data, 3, values=False))
    >>> sum('style=dashed' in line for line in lines), sum('--' in line for line in lines)
    (2, 9)
    >>> lines[3].strip()
    'n0 [label="r1", fillcolor="#8dd3c7"];'
    """
    view = _view(data, k, distance, method)
    yield f'graph "{name}" {{'
    yield f'  label="MST, k={view.k}: {int(view.cut.sum())} edges cut, {view.n_classes} classes";'
    yield '  node [shape=ellipse, style=filled, fontname="Helvetica"];'
    for node, label in enumerate(view.labels):
        if values:
            vals = ", ".join(str(x) for x in view.graph.node_labels(node).values())
            label = f"{label}\\n{vals}"
        colour = PALETTE[int(view.cluster_of[node]) % len(PALETTE)]
        yield f'  n{node} [label="{label}", fillcolor="{colour}"];'
    for a, b, weight, cut in zip(view.u, view.v, view.w, view.cut):
        style = ", style=dashed, color=grey40" if cut else ""
        yield f'  n{a} -- n{b} [label="{weight:.2f}"{style}];'
    yield "}"


def mst_figure(data, k=None, *, distance="hdist", method="auto", ax=None, seed=0):
    """The split MST as a matplotlib figure (paper 003, Figure 5).

    Kept edges are solid, removed edges dashed, each labelled with its
    weight; nodes are coloured by class and labelled with their records.
    The layout is networkx's spring layout with a fixed ``seed``.

    Parameters
    ----------
    data : EncodedTable, RecordGraph or MSTSplitView
    k : int
        Required unless ``data`` is an :class:`MSTSplitView`.
    distance, method
        See :func:`mst_split_view`.
    ax : matplotlib Axes, optional
    seed : int
        Layout seed.

    Returns
    -------
    matplotlib.figure.Figure
        One axes titled ``"MST, k=K: C edges cut, M classes"``; ``ax.lines``
        holds one line per edge (dashed ones are the cut edges), and one text
        per node plus one per edge weight.

    Examples
    --------
    >>> import kanon_graph as kg
    >>> data = kg.encode(kg.datasets.paper_003_table(), kg.datasets.paper_003_schema())
    >>> ax = mst_figure(data, 3).axes[0]
    >>> ax.get_title()
    'MST, k=3: 2 edges cut, 3 classes'
    >>> sorted(line.get_linestyle() for line in ax.lines).count("--")
    2
    """
    import networkx as nx

    plt = pyplot("mst_figure")
    view = _view(data, k, distance, method)
    tree = nx.Graph()
    tree.add_nodes_from(range(view.graph.n_nodes))
    tree.add_edges_from(zip(view.u.tolist(), view.v.tolist()))
    pos = nx.spring_layout(tree, seed=seed)
    if ax is None:
        fig, ax = plt.subplots(figsize=(7, 5.5))
    else:
        fig = ax.figure
    for a, b, weight, cut in zip(view.u, view.v, view.w, view.cut):
        (xa, ya), (xb, yb) = pos[int(a)], pos[int(b)]
        ax.plot([xa, xb], [ya, yb], linestyle="--" if cut else "-",
                color="#777777" if cut else "#333333", linewidth=1.2, zorder=1)
        ax.text((xa + xb) / 2, (ya + yb) / 2, f"{weight:.2f}", fontsize=7, color="#555555",
                ha="center", va="center", zorder=2)
    xy = np.array([pos[node] for node in range(view.graph.n_nodes)])
    colours = [PALETTE[int(c) % len(PALETTE)] for c in view.cluster_of]
    ax.scatter(xy[:, 0], xy[:, 1], s=520, c=colours, edgecolors="#333333", zorder=3)
    for node, label in enumerate(view.labels):
        ax.text(xy[node, 0], xy[node, 1], label, fontsize=8, ha="center", va="center", zorder=4)
    ax.set_title(f"MST, k={view.k}: {int(view.cut.sum())} edges cut, {view.n_classes} classes")
    ax.set_axis_off()
    ax.margins(0.12)
    fig.tight_layout()
    return fig
