"""Render a value generalization hierarchy as text, Graphviz DOT or networkx.

Each picture shows, for every node, its level (0 for the original values,
the height for the root), how many leaves it covers, and whether it is
marked as a maximum allowed generalization value (MAGVal; Hussien, Darwish &
Hefny 2016, Definition 3). The functions are pure: they return a string, a
generator of DOT lines, or a graph; :func:`write_dot` writes DOT lines to a
file.
"""

from __future__ import annotations

from ._hierarchy_figure import hierarchy_figure
from ._tree import MAX_CHILDREN, _check_max, _children, _drawn, _Elided, _leaves

__all__ = ["hierarchy_text", "hierarchy_dot", "hierarchy_figure", "hierarchy_to_networkx",
           "write_dot"]

MAGVAL_MARK = "MAGVal"


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
