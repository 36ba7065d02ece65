"""The lattice's Hasse diagram: DOT and a matplotlib figure, of a lattice or of a result.

:func:`lattice_dot` / :func:`lattice_dot_lines` wrap the lattice's own DOT
export (:mod:`kanon_graph.lattice.dot`) so that every picture of the three
graphs is found under :mod:`kanon_graph.viz`; like :func:`lattice_figure`
they also take an anonymization result of a global recoding and draw the
lattice its search walked, each node checked against the result's criteria
and the released node chosen (:mod:`kanon_graph.viz._result_lattice`).
"""

from __future__ import annotations

from ..lattice import dot as _dot
from ..lattice.dot import STATUSES, _status_of
from ._layout import box_sizes, fit_into, frame_figure
from ._result_lattice import check_lattice, is_result, result_lattice

__all__ = ["lattice_dot", "lattice_dot_lines", "lattice_figure"]

#: Inches between two boxes of a row, between two rows, and around the drawing.
GAP, ROW_GAP, MARGIN = 0.12, 0.4, 0.12


def _lattice_and_status(obj, status, where, max_nodes=None):
    """(lattice, status, result lattice or None) of a Lattice or a result."""
    if is_result(obj):
        if status is not None:
            raise TypeError(f"{where}: a result brings its own statuses; pass status only "
                            f"with a Lattice")
        found = result_lattice(obj, max_nodes=max_nodes, where=where)
        return found.lattice, found.status, found
    return check_lattice(obj, where), status, None


def lattice_dot_lines(lattice, status=None, *, name="lattice"):
    """Yield the DOT lines of the Hasse diagram of a lattice or of a result's lattice.

    Parameters
    ----------
    lattice : Lattice or AnonymizationResult
        A lattice small enough to enumerate, or the result of a global
        recoding: its lattice, each node checked against the result's
        criteria, the released node ``"chosen"`` (as :func:`lattice_figure`).
    status : dict or StatusMap, optional
        With a Lattice: node -> status (see
        :func:`kanon_graph.lattice.lattice_dot_lines`).
    name : str
        The graph's name.

    Examples
    --------
    >>> import kanon_graph as kg
    >>> res = kg.anonymize(kg.datasets.paper_003_table(), kg.datasets.paper_003_schema(),
    ...                    k=3, algorithm="optimal")
    >>> [line.strip() for line in lattice_dot_lines(res) if "gold" in line]
    ['"0,3,2" [label="gender0-age3-zip2", fillcolor="gold", tooltip="chosen"];']
    """
    lattice, status, _ = _lattice_and_status(lattice, status, "lattice_dot_lines")
    yield from _dot.lattice_dot_lines(lattice, status, name=name)


def lattice_dot(lattice, status=None, *, name="lattice"):
    """The DOT text of the Hasse diagram of a lattice or a result's (see :func:`lattice_dot_lines`).

    Examples
    --------
    >>> from kanon_graph.lattice import Lattice
    >>> print(lattice_dot(Lattice([1], names=["sex"])))  # doctest: +NORMALIZE_WHITESPACE
    digraph "lattice" {
      rankdir=BT;
      node [shape=box, style="rounded,filled", fontname="Helvetica"];
      "0" [label="sex0", fillcolor="white", tooltip="unknown"];
      "1" [label="sex1", fillcolor="white", tooltip="unknown"];
      "0" -> "1";
    }
    """
    return "\n".join(lattice_dot_lines(lattice, status, name=name)) + "\n"


def _rows(lattice):
    rows = {}
    for node in lattice.nodes():
        rows.setdefault(lattice.height(node), []).append(node)
    return rows


def lattice_figure(lattice, status=None, *, ax=None, max_nodes=400):
    """The Hasse diagram of a lattice, or of a result's lattice, nodes coloured by status.

    Level vectors of the same height (sum of levels) share a row, the bottom
    ``(0, ..., 0)`` at the bottom and the top node at the top; an edge joins
    a node to each successor (one attribute one level higher). Colours are
    those of the DOT export (:data:`kanon_graph.lattice.STATUSES`):
    anonymous pale green, not anonymous light coral, pruned grey, chosen
    gold, unknown white. Labels are measured and the rows spaced so that no
    two boxes overlap; the figure is sized around the drawing.

    Given an :class:`~kanon_graph.AnonymizationResult` of a global recoding,
    draws the lattice its search walked (the capped one with
    ``respect_boundaries``): every node checked against the result's
    criteria (k, and l / t when asked) with at most as many records
    suppressed as the release did, the released node chosen; the footer
    says the rule. A result keeps no record of which nodes its search
    visited or pruned, so none is drawn as pruned.

    Parameters
    ----------
    lattice : Lattice or AnonymizationResult
    status : dict or StatusMap, optional
        With a Lattice: node -> ``"anonymous"``, ``"not-anonymous"``,
        ``"pruned"`` or ``"chosen"``; a :class:`~kanon_graph.lattice.StatusMap`
        spreads its frontier to every node.
    ax : matplotlib Axes, optional
        Draw into this axes (its fonts shrink to fit); default: a new figure.
    max_nodes : int
        Refuse larger lattices with a ``ValueError`` that points to
        :func:`lattice_dot` (a picture of thousands of boxes is unreadable;
        Graphviz lays out the DOT export).

    Returns
    -------
    matplotlib.figure.Figure
        One axes titled ``"lattice: N nodes, height H"`` (for a result:
        ``"<algorithm>, k=K: released <node>; lattice of N nodes"``); one
        text per node (its label, e.g. ``sex1-age0``), one line segment per
        edge.

    Raises
    ------
    TypeError
        Anything but a Lattice or a result.
    ValueError
        A local recoding's result (no node of a lattice), or a lattice of
        more than ``max_nodes`` nodes.

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
    >>> import kanon_graph as kg
    >>> res = kg.anonymize(kg.datasets.paper_003_table(), kg.datasets.paper_003_schema(),
    ...                    k=3, algorithm="optimal")
    >>> lattice_figure(res).axes[0].get_title()
    'optimal, k=3: released gender0-age3-zip2; lattice of 24 nodes'
    """
    from ._figure import pyplot

    where = "lattice_figure"
    if is_result(lattice):
        found = _lattice_and_status(lattice, status, where, max_nodes)[2]
        result, lattice, status = lattice, found.lattice, found.status
    else:
        found, result = None, None
        lattice = check_lattice(lattice, where)
        if lattice.size > max_nodes:
            raise ValueError(f"{where}: the lattice has {lattice.size:,} nodes, more than "
                             f"max_nodes={max_nodes} that a figure draws readably; export it "
                             f"for Graphviz with kg.viz.lattice_dot, or pass a larger "
                             f"max_nodes")
    plt = pyplot(where)  # first: a clear error when matplotlib is absent
    from matplotlib.collections import LineCollection
    from matplotlib.patches import Patch

    own = ax is None
    if own:
        fig, ax = plt.subplots()
    else:
        fig = ax.figure
    rows = _rows(lattice)
    texts, seen = {}, set()
    for node in lattice.nodes():
        st = _status_of(status, node)
        seen.add(st)
        texts[node] = ax.text(0, 0, lattice.label(node), ha="center", va="center", fontsize=8,
                              zorder=3, fontweight="bold" if st == "chosen" else "normal",
                              bbox=dict(boxstyle="round,pad=0.3",
                                        facecolor=STATUSES.get(st, "white"),
                                        edgecolor="#444444",
                                        linewidth=1.6 if st == "chosen" else 0.6))
    size = dict(zip(texts, box_sizes(fig, texts.values())))
    pitch = max(w for w, _ in size.values()) + GAP
    row_h = max(h for _, h in size.values())
    widest = max(len(row) for row in rows.values())
    width = widest * pitch - GAP + 2 * MARGIN
    height = len(rows) * (row_h + ROW_GAP) - ROW_GAP + 2 * MARGIN
    pos = {}
    for h, row in rows.items():
        y = MARGIN + h * (row_h + ROW_GAP) + row_h / 2
        for i, node in enumerate(row):
            pos[node] = (width / 2 + (i - (len(row) - 1) / 2) * pitch, y)
    segments = [[(pos[n][0], pos[n][1] + size[n][1] / 2), (pos[s][0], pos[s][1] - size[s][1] / 2)]
                for n in pos for s in lattice.successors(n)]
    ax.set_yticks([MARGIN + h * (row_h + ROW_GAP) + row_h / 2 for h in sorted(rows)])
    ax.set_yticklabels([f"height {h}" for h in sorted(rows)], fontsize=9)
    ax.set_xticks([])
    for side in ("top", "right", "bottom"):
        ax.spines[side].set_visible(False)
    if result is None:
        ax.set_title(f"lattice: {lattice.size} nodes, height {lattice.max_height}")
    else:
        ax.set_title(f"{result.algorithm}, k={result.k}: released "
                     f"{lattice.label(found.chosen)}; lattice of {lattice.size} nodes")
    handles = [Patch(facecolor=colour, edgecolor="#444444", label=name or "unknown")
               for name, colour in STATUSES.items() if name in seen]
    shift = 0.0
    if own:
        footer = fig.text(0, 0, found.rule, fontsize=8, color="#444444") if found else None
        legend = (fig.legend(handles=handles, loc="lower right", fontsize=8, frameon=False,
                             ncol=len(handles), borderaxespad=0, columnspacing=1.0,
                             handlelength=1.2) if status is not None else None)
        shift = frame_figure(fig, ax, width, height, ticks=ax.get_yticklabels(),
                             footer=footer, legend=legend)
    else:
        scale = fit_into(ax, width, height)
        for text in texts.values():
            text.set_fontsize(text.get_fontsize() * scale)
        if status is not None:
            ax.legend(handles=handles, loc="upper left", fontsize=8, frameon=False)
    for node, (x, y) in pos.items():
        texts[node].set_position((x + shift, y))
    ax.add_collection(LineCollection([[(a + shift, b), (c + shift, d)] for (a, b), (c, d)
                                      in segments], colors="#999999", linewidths=0.8, zorder=1))
    return fig
