"""DOT export of a lattice's Hasse diagram, nodes coloured by status.

Pure: :func:`lattice_dot_lines` yields DOT lines and :func:`lattice_dot`
joins them; writing a file is left to the caller (as anytree's exporters do).
Statuses and colours: ``"anonymous"`` (pale green), ``"not-anonymous"``
(light coral), ``"pruned"`` (light grey), ``"chosen"`` (gold), unknown
(white).
"""

from __future__ import annotations

__all__ = ["lattice_dot", "lattice_dot_lines", "STATUSES"]

#: Node statuses understood by the exporters (and their DOT fill colours).
STATUSES = {"anonymous": "palegreen", "not-anonymous": "lightcoral",
            "pruned": "lightgrey", "chosen": "gold", None: "white"}


def _status_of(status, node):
    """A node's status in ``status``: a dict, a :class:`~kanon_graph.lattice.StatusMap`, None."""
    if status is None:
        return None
    if hasattr(status, "get"):          # a mapping node -> status
        return status.get(node)
    return status.status(node)          # a StatusMap (it spreads marks by dominance)


def lattice_dot_lines(lattice, status=None, *, name="lattice"):
    """Yield the DOT lines of the Hasse diagram of ``lattice``.

    Parameters
    ----------
    lattice : Lattice
        Small enough to enumerate.
    status : dict or StatusMap, optional
        Node -> status (``"anonymous"``, ``"not-anonymous"``, ``"pruned"``,
        ``"chosen"``); a :class:`~kanon_graph.lattice.StatusMap` spreads its
        frontier to every node.
    name : str
        The graph's name.

    Examples
    --------
    >>> from kanon_graph.lattice import Lattice
    >>> lines = list(lattice_dot_lines(Lattice([1]), {(1,): "chosen"}))
    >>> lines[0], lines[-1]
    ('digraph "lattice" {', '}')
    >>> [l for l in lines if "fillcolor" in l][1].strip()
    '"1" [label="q01", fillcolor="gold", tooltip="chosen"];'
    """
    yield f'digraph "{name}" {{'
    yield "  rankdir=BT;"
    yield '  node [shape=box, style="rounded,filled", fontname="Helvetica"];'
    for node in lattice.nodes():
        st = _status_of(status, node)
        colour = STATUSES.get(st, "white")
        tip = st if st is not None else "unknown"
        yield (f'  "{_node_id(node)}" [label="{lattice.label(node)}", '
               f'fillcolor="{colour}", tooltip="{tip}"];')
    for node in lattice.nodes():
        for succ in lattice.successors(node):
            yield f'  "{_node_id(node)}" -> "{_node_id(succ)}";'
    yield "}"


def lattice_dot(lattice, status=None, *, name="lattice"):
    """The DOT text of the Hasse diagram (see :func:`lattice_dot_lines`).

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


def _node_id(node):
    return ",".join(str(v) for v in node)
