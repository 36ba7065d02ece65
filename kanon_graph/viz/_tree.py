"""The tree a hierarchy picture draws: which nodes, summarized how, and where.

Shared by the text, DOT and figure pictures: a node with more than
``max_children`` children shows the first ``max_children - 1`` and one
summary node; a figure with more than ``max_leaves`` boxes side by side
starts at a higher level (:func:`_bottom_level`).
"""

from __future__ import annotations

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
