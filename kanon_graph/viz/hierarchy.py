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


#: Children drawn under one node before the rest are summarized in one box
#: (``max_children``): a 300-leaf ZIP hierarchy stays readable.
MAX_CHILDREN = 12


class _Elided:
    """The children of a wide node left out of a picture, shown as one summary node."""

    def __init__(self, hidden, hierarchy):
        self.hidden = hidden
        self.level = hidden[0].level
        self.leaves = sum(_leaves(hierarchy, n) for n in hidden)
        self.name = f"... {len(hidden)} more"
        self.children = ()
        self.magval = False
        self.index = f"{hidden[0].index}_more"


def _leaves(hierarchy, node):
    """Leaves under ``node`` (anytree's own ``node.leaves`` is a tuple of nodes)."""
    if isinstance(node, _Elided):
        return node.leaves
    return int(hierarchy.leaf_counts[node.level][node.index])


#: Leaves a figure draws before it starts at a higher level (``max_leaves``).
MAX_LEAVES = 40


def _check_max(value, where, name="max_children"):
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 2:
        raise ValueError(f"The {name!r} parameter of {where} must be None or an "
                         f"integer >= 2. Got {value!r}.")
    return value


def _bottom_level(hierarchy, max_leaves, max_children):
    """The lowest level whose drawing has at most ``max_leaves`` boxes side by side."""
    if max_leaves is None:
        return 0
    for level in range(hierarchy.height + 1):
        x, _ = _tree_positions(hierarchy, max_children, level)
        if max(x.values()) + 1 <= max_leaves:
            return level
    return hierarchy.height


def _children(node, hierarchy, max_children):
    """``node``'s children as drawn: the first ``max_children - 1``, then one summary."""
    children = list(node.children)
    if max_children is None or len(children) <= max_children:
        return children
    keep = max_children - 1
    return children[:keep] + [_Elided(children[keep:], hierarchy)]


def _drawn(hierarchy, max_children):
    """Every drawn node, parents before children, with its drawn parent."""
    out = []

    def walk(node, parent):
        out.append((node, parent))
        for child in _children(node, hierarchy, max_children):
            walk(child, node)

    walk(hierarchy.root, None)
    return out


def _count(n):
    return "1 leaf" if n == 1 else f"{n} leaves"


def _describe(hierarchy, node):
    leaves = _count(_leaves(hierarchy, node))
    mark = f", {MAGVAL_MARK}" if node.magval else ""
    return f"level {node.level}, {leaves}{mark}"


def hierarchy_text(hierarchy, *, ascii=False, max_children=MAX_CHILDREN):
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
    max_children : int or None, default 12
        A node with more children shows the first ``max_children - 1`` and
        one line ``... N more`` with the leaves they cover; ``None`` shows
        every node.

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
    max_children = _check_max(max_children, "hierarchy_text")
    tee, last, pipe, blank = ("|-- ", "`-- ", "|   ", "    ") if ascii \
        else ("├── ", "└── ", "│   ", "    ")
    lines = []

    def walk(node, prefix, connector, child_prefix):
        lines.append(f"{prefix}{connector}{node.name}  ({_describe(hierarchy, node)})")
        children = _children(node, hierarchy, max_children)
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


def hierarchy_dot(hierarchy, *, name=None, rankdir="TB", max_children=MAX_CHILDREN):
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
    max_children : int or None, default 12
        As for :func:`hierarchy_text`: wider nodes get one dashed summary
        node ``... N more``.

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
    max_children = _check_max(max_children, "hierarchy_dot")
    drawn = _drawn(hierarchy, max_children)
    shown = {id(node) for node, _ in drawn}
    nodes = [node for node in hierarchy if id(node) in shown]     # the hierarchy's order
    nodes += [node for node, _ in drawn if isinstance(node, _Elided)]
    for node in nodes:
        leaves = _count(_leaves(hierarchy, node))
        mark = f"\n{MAGVAL_MARK}" if node.magval else ""
        label = _quote(f"{node.name}\nlevel {node.level}, {leaves}{mark}").replace("\n", "\\n")
        style = ', style="filled,bold", fillcolor="#ffd580", peripheries=2' if node.magval else ""
        if isinstance(node, _Elided):
            style = ', style="dashed"'
        yield f"  {_node_id(node)} [label={label}{style}];"
    for node in nodes:
        for child in _children(node, hierarchy, max_children):
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


def _tree_positions(hierarchy, max_children=None, bottom=0):
    """x of every drawn node and the drawn nodes with their parents.

    Leaves (and summary nodes) at 0, 1, ... in hierarchy order, a parent
    centred over its drawn children.
    """
    x = {}
    next_leaf = [0]
    drawn = []

    def place(node, parent):
        drawn.append((node, parent))
        children = [] if node.level <= bottom else _children(node, hierarchy, max_children)
        if not children:
            x[id(node)] = float(next_leaf[0])
            next_leaf[0] += 1
        else:
            for child in children:
                place(child, node)
            x[id(node)] = sum(x[id(c)] for c in children) / len(children)

    place(hierarchy.root, None)
    return x, drawn


def hierarchy_figure(hierarchy, *, ax=None, leaf_fontsize=None, max_children=MAX_CHILDREN,
                     max_leaves=MAX_LEAVES):
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
    max_children : int or None, default 12
        A node with more children draws the first ``max_children - 1`` and
        one summary box ``... N more`` with the leaves they cover, so a
        300-leaf ZIP hierarchy stays readable; ``None`` draws every node.
    max_leaves : int or None, default 40
        When more than this many boxes would stand side by side, the
        drawing starts at the lowest level where they fit; each node there
        shows how many values it covers, and the title says from which level
        it is drawn. ``None`` draws down to the leaves.

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

    max_children = _check_max(max_children, "hierarchy_figure")
    bottom = _bottom_level(hierarchy, _check_max(max_leaves, "hierarchy_figure", "max_leaves"),
                           max_children)
    x, drawn = _tree_positions(hierarchy, max_children, bottom)
    nodes = [node for node, _ in drawn]
    n = int(max(x.values())) + 1           # drawn leaves and summaries, side by side
    if ax is None:
        fig, ax = plt.subplots(figsize=(min(max(4.0, (0.9 if n <= 20 else 0.3) * n), 40.0),
                                        1.4 * (hierarchy.height + 1) + 0.8))
    else:
        fig = ax.figure
    small = leaf_fontsize or (9 if n <= 20 else 7 if n <= 50 else 5)
    segments = [[(x[id(parent)], parent.level), (x[id(node)], node.level)]
                for node, parent in drawn if parent is not None]
    ax.add_collection(LineCollection(segments, colors="#888888", linewidths=0.8, zorder=1))
    for node in nodes:
        count = _leaves(hierarchy, node)
        leaf = node.level <= bottom or isinstance(node, _Elided)
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
    ax.set_ylim(bottom - 0.7, hierarchy.height + 0.7)
    ax.set_yticks(range(bottom, hierarchy.height + 1))
    ax.set_yticklabels([f"level {lv}" for lv in range(bottom, hierarchy.height + 1)])
    ax.set_xticks([])
    for side in ("top", "right", "bottom"):
        ax.spines[side].set_visible(False)
    total = hierarchy.n_leaves
    ax.set_title(f"{hierarchy.name or 'hierarchy'}: height {hierarchy.height}, "
                 f"{total} {'leaf' if total == 1 else 'leaves'}"
                 + (f"; drawn from level {bottom} up" if bottom else ""))
    fig.tight_layout()
    return fig
