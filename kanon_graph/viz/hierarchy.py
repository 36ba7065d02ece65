"""Render a value generalization hierarchy as text, Graphviz DOT or networkx.

Each picture shows, for every node, its level (0 for the original values,
the height for the root), how many leaves it covers, and whether it is
marked as a maximum allowed generalization value (MAGVal; Hussien, Darwish &
Hefny 2016, Definition 3). The functions are pure: they return a string, a
generator of DOT lines, or a graph; :func:`write_dot` writes DOT lines to a
file.
"""

from __future__ import annotations


__all__ = ["hierarchy_text", "hierarchy_dot", "hierarchy_figure", "hierarchy_to_networkx",
           "write_dot"]

MAGVAL_MARK = "MAGVal"


def _leaves(hierarchy, node):
    """Leaves under ``node`` (anytree's own ``node.leaves`` is a tuple of nodes)."""
    return int(hierarchy.leaf_counts[node.level][node.index])


def _count(n):
    return "1 leaf" if n == 1 else f"{n} leaves"


def _describe(hierarchy, node):
    leaves = _count(_leaves(hierarchy, node))
    mark = f", {MAGVAL_MARK}" if node.magval else ""
    return f"level {node.level}, {leaves}{mark}"


def hierarchy_text(hierarchy, *, ascii=False):
    """The hierarchy as an indented tree, one line per node.

    Each line holds the node's label, then its level, the number of leaves
    it covers and, for a node marked as MAGVal (Hussien et al. 2016,
    Definition 3), the mark ``MAGVal``. Children appear in hierarchy order
    (the order of the rows the hierarchy was read from).

    Parameters
    ----------
    hierarchy : Hierarchy
    ascii : bool
        Draw the branches with ``|--`` and ``` `-- ``` instead of box-drawing
        characters (for terminals without UTF-8).

    Returns
    -------
    str
        The lines joined by newlines, without a trailing newline.

    Examples
    --------
    >>> import kanon_graph as kg
    >>> h = kg.Hierarchy.from_mapping({"Person": ["Male", "Female"]}, name="gender")
    >>> print(hierarchy_text(h))
    Person  (level 1, 2 leaves)
    ├── Male  (level 0, 1 leaf)
    └── Female  (level 0, 1 leaf)
    >>> print(hierarchy_text(kg.datasets.paper_002_location(), ascii=True).splitlines()[1])
    |-- South Egypt  (level 1, 3 leaves, MAGVal)
    """
    tee, last, pipe, blank = ("|-- ", "`-- ", "|   ", "    ") if ascii \
        else ("├── ", "└── ", "│   ", "    ")
    lines = []

    def walk(node, prefix, connector, child_prefix):
        lines.append(f"{prefix}{connector}{node.name}  ({_describe(hierarchy, node)})")
        children = node.children
        for i, child in enumerate(children):
            is_last = i == len(children) - 1
            walk(child, child_prefix, last if is_last else tee,
                 child_prefix + (blank if is_last else pipe))

    walk(hierarchy.root, "", "", "")
    return "\n".join(lines)


def _quote(text):
    """A DOT double-quoted string (backslashes and quotes escaped)."""
    return '"' + str(text).replace("\\", "\\\\").replace('"', '\\"') + '"'


def _node_id(node):
    return f"n{node.level}_{node.index}"


def hierarchy_dot(hierarchy, *, name=None, rankdir="TB"):
    """Graphviz DOT lines of the hierarchy (a generator; nothing is written).

    Nodes are named ``n<level>_<index>`` and labelled with the value and a
    second line ``level L, N leaves``; MAGVal nodes get a third line
    ``MAGVal`` and are drawn filled with a double border. Edges run from a node to its children. Pipe the lines
    into ``dot -Tpng`` or write them with :func:`write_dot`.

    Parameters
    ----------
    hierarchy : Hierarchy
    name : str, optional
        The graph's name (default: the hierarchy's attribute name).
    rankdir : {"TB", "LR", "BT", "RL"}
        Graphviz layout direction; ``"LR"`` suits wide hierarchies.

    Yields
    ------
    str
        One line of DOT source.

    Examples
    --------
    >>> import kanon_graph as kg
    >>> h = kg.Hierarchy.from_mapping({"Person": ["Male", "Female"]}, name="gender")
    >>> print("\\n".join(hierarchy_dot(h)))
    digraph "gender" {
      rankdir=TB;
      node [shape=box, fontname="Helvetica"];
      n1_0 [label="Person\\nlevel 1, 2 leaves"];
      n0_0 [label="Male\\nlevel 0, 1 leaf"];
      n0_1 [label="Female\\nlevel 0, 1 leaf"];
      n1_0 -> n0_0;
      n1_0 -> n0_1;
    }
    """
    if rankdir not in ("TB", "LR", "BT", "RL"):
        raise ValueError(f"The 'rankdir' parameter of hierarchy_dot must be one of "
                         f"['TB', 'LR', 'BT', 'RL']. Got {rankdir!r}.")
    title = name if name is not None else (hierarchy.name or "hierarchy")
    yield f"digraph {_quote(title)} {{"
    yield f"  rankdir={rankdir};"
    yield '  node [shape=box, fontname="Helvetica"];'
    nodes = list(hierarchy)
    for node in nodes:
        leaves = _count(_leaves(hierarchy, node))
        mark = f"\n{MAGVAL_MARK}" if node.magval else ""
        label = _quote(f"{node.name}\nlevel {node.level}, {leaves}{mark}").replace("\n", "\\n")
        style = ', style="filled,bold", fillcolor="#ffd580", peripheries=2' if node.magval else ""
        yield f"  {_node_id(node)} [label={label}{style}];"
    for node in nodes:
        for child in node.children:
            yield f"  {_node_id(node)} -> {_node_id(child)};"
    yield "}"


def write_dot(lines, path):
    """Write DOT ``lines`` (e.g. from :func:`hierarchy_dot`) to ``path``; returns the path."""
    from ..io.write import write_text  # every output through the one atomic writer

    return write_text(path, "\n".join(lines) + "\n")


def hierarchy_to_networkx(hierarchy):
    """The hierarchy as a networkx ``DiGraph`` with edges from parent to child.

    Nodes are ``(level, label)`` pairs (a label may repeat on several levels
    when a value is generalized to itself) with the attributes ``label``,
    ``level``, ``leaves`` (leaves covered) and ``magval`` (bool). The graph
    attributes hold ``name``, ``height`` and ``root``.

    Examples
    --------
    >>> import kanon_graph as kg
    >>> g = hierarchy_to_networkx(kg.datasets.paper_002_location())
    >>> g.graph["root"], g.nodes[(1, "South Egypt")]
    ((2, 'A.R.E'), {'label': 'South Egypt', 'level': 1, 'leaves': 3, 'magval': True})
    >>> sorted(g.successors((1, "Mid Egypt")))
    [(0, 'Fayoum'), (0, 'Helwan'), (0, 'Minya')]
    """
    import networkx as nx  # networkx loads only when a graph is asked for

    root = hierarchy.root
    graph = nx.DiGraph(name=hierarchy.name, height=hierarchy.height,
                       root=(root.level, root.name))
    for node in hierarchy:
        graph.add_node((node.level, node.name), label=node.name, level=node.level,
                       leaves=_leaves(hierarchy, node), magval=bool(node.magval))
        if node.parent is not None:
            graph.add_edge((node.parent.level, node.parent.name), (node.level, node.name))
    return graph


def _tree_positions(hierarchy):
    """x of every node: leaves 0, 1, ... in hierarchy order, a parent centred over its children."""
    x = {}
    next_leaf = [0]

    def place(node):
        if not node.children:
            x[id(node)] = float(next_leaf[0])
            next_leaf[0] += 1
        else:
            for child in node.children:
                place(child)
            x[id(node)] = sum(x[id(c)] for c in node.children) / len(node.children)

    place(hierarchy.root)
    return x


def hierarchy_figure(hierarchy, *, ax=None, leaf_fontsize=None):
    """A matplotlib drawing of the hierarchy tree, level by level.

    Levels run bottom-up (level 0, the original values, at the bottom; the
    root at the top), as in Hussien et al. (2016), Figure 2. Every node is a
    box labelled with its value and, in brackets, the number of leaves it
    covers; a node marked as MAGVal (Definition 3) is drawn in orange with a
    star above it. Writes nothing: save the figure with ``fig.savefig``.

    Parameters
    ----------
    hierarchy : Hierarchy
    ax : matplotlib Axes, optional
        Draw into this axes (default: a new figure sized by the leaves).
    leaf_fontsize : float, optional
        Font size of the leaf labels (default: smaller for wide trees).

    Returns
    -------
    matplotlib.figure.Figure
        One axes titled ``"<name>: height H, N leaves"``; its texts are the
        nodes (one per node), its line collection the edges, and a scatter
        labelled ``"MAGVal"`` holds one star per MAGVal node.

    References
    ----------
    Hussien, Darwish & Hefny, "Microdata anonymization with generalization
    boundaries", 2016: Figure 2 (a hierarchy tree) and Definition 3 (MAGVal).

    Examples
    --------
    >>> import kanon_graph as kg
    >>> fig = hierarchy_figure(kg.datasets.paper_002_location())
    >>> ax = fig.axes[0]
    >>> ax.get_title(), len(ax.texts), len(ax.collections[0].get_segments())
    ('location: height 2, 9 leaves', 13, 12)
    >>> len(ax.collections[1].get_offsets())   # the three MAGVal stars
    3
    """
    from ._figure import pyplot

    plt = pyplot("hierarchy_figure")  # first: a clear error when matplotlib is absent
    from matplotlib.collections import LineCollection

    nodes = list(hierarchy)
    x = _tree_positions(hierarchy)
    n = hierarchy.n_leaves
    if ax is None:
        fig, ax = plt.subplots(figsize=(min(max(4.0, (0.9 if n <= 20 else 0.3) * n), 40.0),
                                        1.4 * (hierarchy.height + 1) + 0.8))
    else:
        fig = ax.figure
    small = leaf_fontsize or (9 if n <= 20 else 7 if n <= 50 else 5)
    segments = [[(x[id(node.parent)], node.parent.level), (x[id(node)], node.level)]
                for node in nodes if node.parent is not None]
    ax.add_collection(LineCollection(segments, colors="#888888", linewidths=0.8, zorder=1))
    for node in nodes:
        count = _leaves(hierarchy, node)
        leaf = node.level == 0
        text = f"{node.name}" if leaf and count == 1 else f"{node.name}\n({count})"
        face = "#ffd580" if node.magval else ("#eef3fb" if not leaf else "white")
        ax.text(x[id(node)], node.level, text, ha="center", va="center", zorder=3,
                fontsize=small if leaf else 9, rotation=90 if leaf and n > 20 else 0,
                bbox=dict(boxstyle="round,pad=0.25", facecolor=face,
                          edgecolor="#c07000" if node.magval else "#555555",
                          linewidth=1.6 if node.magval else 0.6))
    marks = [(x[id(node)], node.level + 0.32) for node in nodes if node.magval]
    ax.scatter([p[0] for p in marks], [p[1] for p in marks], marker="*", s=90,
               color="#e08000", zorder=4, label="MAGVal")
    if marks:
        ax.legend(loc="upper right", fontsize=8, frameon=False)
    ax.set_xlim(-0.8, n - 0.2)
    ax.set_ylim(-0.7, hierarchy.height + 0.7)
    ax.set_yticks(range(hierarchy.height + 1))
    ax.set_yticklabels([f"level {lv}" for lv in range(hierarchy.height + 1)])
    ax.set_xticks([])
    for side in ("top", "right", "bottom"):
        ax.spines[side].set_visible(False)
    ax.set_title(f"{hierarchy.name or 'hierarchy'}: height {hierarchy.height}, "
                 f"{n} {'leaf' if n == 1 else 'leaves'}")
    fig.tight_layout()
    return fig
