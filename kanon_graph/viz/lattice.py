"""The generalization lattice's Hasse diagram: DOT (re-exported) and a matplotlib figure.

:func:`lattice_dot` / :func:`lattice_dot_lines` live with the lattice
(:mod:`kanon_graph.lattice.dot`) and are re-exported here so every picture
of the three graphs is found under :mod:`kanon_graph.viz`.
"""

from __future__ import annotations

from ..lattice.dot import lattice_dot, lattice_dot_lines
from ..lattice.lattice import STATUSES, _status_of

__all__ = ["lattice_dot", "lattice_dot_lines", "lattice_figure"]


def lattice_figure(lattice, status=None, *, ax=None, max_nodes=400):
    """The Hasse diagram of a small lattice, layered by height, nodes coloured by status.

    Level vectors of the same height (sum of levels) share a row, the bottom
    ``(0, ..., 0)`` at the bottom and the top node at the top; an edge joins
    a node to each successor (one attribute one level higher). Colours are
    those of the DOT export (:data:`kanon_graph.lattice.STATUSES`):
    anonymous pale green, not anonymous light coral, pruned grey, chosen
    gold, unknown white.

    Parameters
    ----------
    lattice : Lattice
    status : dict or StatusMap, optional
        Node -> ``"anonymous"``, ``"not-anonymous"``, ``"pruned"`` or
        ``"chosen"``; a :class:`~kanon_graph.lattice.StatusMap` spreads its
        frontier to every node.
    ax : matplotlib Axes, optional
    max_nodes : int
        Refuse larger lattices (a picture of thousands of boxes is unreadable;
        use :func:`lattice_dot` and Graphviz instead).

    Returns
    -------
    matplotlib.figure.Figure
        One axes titled ``"lattice: N nodes, height H"``; one text per node
        (its label, e.g. ``sex1-age0``), one line segment per edge.

    References
    ----------
    Morton, Mahoui, Gibson & Yechuri, "An enhanced utility-driven data
    anonymization method", Transactions on Data Privacy 5 (2012), section
    5.3 and Figure 2 (the lattice of generalization strings).

    Examples
    --------
    >>> from kanon_graph.lattice import Lattice
    >>> lat = Lattice([1, 2], names=["sex", "age"])
    >>> fig = lattice_figure(lat, {(0, 1): "not-anonymous", (1, 1): "chosen"})
    >>> ax = fig.axes[0]
    >>> ax.get_title(), len(ax.texts), len(ax.collections[0].get_segments())
    ('lattice: 6 nodes, height 3', 6, 7)
    """
    from ._figure import pyplot

    if lattice.size > max_nodes:
        raise ValueError(f"The lattice has {lattice.size} nodes, more than max_nodes="
                         f"{max_nodes} for lattice_figure; draw it with lattice_dot instead.")
    plt = pyplot("lattice_figure")  # first: a clear error when matplotlib is absent
    from matplotlib.collections import LineCollection
    from matplotlib.patches import Patch

    layers = {}
    for node in lattice.nodes():
        layers.setdefault(lattice.height(node), []).append(node)
    pos = {}
    for h, row in layers.items():
        for i, node in enumerate(row):
            pos[node] = (i - (len(row) - 1) / 2, h)
    widest = max(len(row) for row in layers.values())
    chars = max(len(lattice.label(node)) for node in pos)
    if ax is None:
        fig, ax = plt.subplots(figsize=(min(max(4.0, (0.3 + 0.085 * chars) * widest), 40.0),
                                        min(max(3.0, 0.9 * len(layers)), 24.0)))
    else:
        fig = ax.figure
    segments = [[pos[node], pos[succ]] for node in pos for succ in lattice.successors(node)]
    ax.add_collection(LineCollection(segments, colors="#999999", linewidths=0.8, zorder=1))
    seen = set()
    for node, (x, y) in pos.items():
        st = _status_of(status, node)
        seen.add(st)
        ax.text(x, y, lattice.label(node), ha="center", va="center", fontsize=8, zorder=3,
                bbox=dict(boxstyle="round,pad=0.3", facecolor=STATUSES.get(st, "white"),
                          edgecolor="#444444", linewidth=1.4 if st == "chosen" else 0.6))
    handles = [Patch(facecolor=colour, edgecolor="#444444", label=name or "unknown")
               for name, colour in STATUSES.items() if name in seen]
    if status is not None:
        ax.legend(handles=handles, loc="upper left", fontsize=8, frameon=False)
    half = (widest - 1) / 2 + 0.8
    ax.set_xlim(-half, half)
    ax.set_ylim(-0.6, lattice.max_height + 0.6)
    ax.set_yticks(range(lattice.max_height + 1))
    ax.set_ylabel("height (sum of levels)")
    ax.set_xticks([])
    for side in ("top", "right", "bottom"):
        ax.spines[side].set_visible(False)
    ax.set_title(f"lattice: {lattice.size} nodes, height {lattice.max_height}")
    fig.tight_layout()
    return fig
