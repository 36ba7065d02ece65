"""A hierarchy tree drawn with matplotlib, every label measured so that none overlaps.

The layout is in inches: each node's label is wrapped on spaces, measured by
the figure's renderer, and every subtree gets the width its widest level
needs (a parent whose label is wider than its children's row widens its
subtree), so sibling subtrees never share a column and no two boxes meet.
When the bottom row would make the figure wider than :data:`WIDE` inches,
its labels are turned upright. The figure is then sized around the drawing.
"""

from __future__ import annotations

from ._layout import box_pad, box_sizes, fit_into, frame_figure, wrap
from ._tree import MAX_CHILDREN, MAX_LEAVES, _bottom_level, _check_max, _children, _Elided, \
    _leaves

__all__ = ["hierarchy_figure"]

#: Inches between two sibling boxes, between two rows, and around the drawing.
GAP, ROW_GAP, MARGIN = 0.14, 0.5, 0.12
#: Inches above the top row (room for a MAGVal star on the root).
HEADROOM = 0.22
#: A drawing wider than this many inches turns its bottom labels upright.
WIDE = 16.0
#: Characters per line before a label wraps (inner nodes, bottom row).
INNER_WRAP, LEAF_WRAP = 20, 16
#: Fill and border colours.
MAGVAL_FACE, MAGVAL_EDGE, INNER_FACE, LEAF_FACE, EDGE = (
    "#ffd580", "#c07000", "#eef3fb", "white", "#555555")

CHD_NOTE = "CHD = level / height: the concept hierarchical distance from a leaf"


def chd_label(level, height):
    """The CHD of a node at ``level`` from a leaf, as ``"CHD 1/3"`` (paper 003, eq. 1).

    >>> chd_label(0, 3), chd_label(2, 3), chd_label(3, 3)
    ('CHD 0', 'CHD 2/3', 'CHD 1')
    """
    if level == 0 or height == 0:
        return "CHD 0"
    return "CHD 1" if level == height else f"CHD {level}/{height}"


def _kids(node, hierarchy, max_children, bottom):
    if node.level <= bottom or isinstance(node, _Elided):
        return []
    return _children(node, hierarchy, max_children)


def _nodes(hierarchy, max_children, bottom):
    """Drawn nodes in pre-order, with their drawn children."""
    order, kids = [], {}
    stack = [hierarchy.root]
    while stack:
        node = stack.pop()
        order.append(node)
        kids[id(node)] = _kids(node, hierarchy, max_children, bottom)
        stack.extend(reversed(kids[id(node)]))
    return order, kids


def _place(order, kids, size):
    """x (centre, inches) of every node: each subtree as wide as its widest row needs."""
    width = {}
    for node in reversed(order):                    # children before their parent
        children = kids[id(node)]
        row = sum(width[id(c)] for c in children) + GAP * max(len(children) - 1, 0)
        width[id(node)] = max(size[id(node)][0], row)
    x = {}
    stack = [(order[0], MARGIN)]
    while stack:
        node, left = stack.pop()
        x[id(node)] = left + width[id(node)] / 2
        children = kids[id(node)]
        row = sum(width[id(c)] for c in children) + GAP * max(len(children) - 1, 0)
        start = left + (width[id(node)] - row) / 2
        for child in children:
            stack.append((child, start))
            start += width[id(child)] + GAP
    return x, width[id(order[0])] + 2 * MARGIN


def _rows(order, size, bottom, height):
    """Bottom y and height (inches) of every level's row, and the drawing's height."""
    tallest = {level: 0.0 for level in range(bottom, height + 1)}
    for node in order:
        tallest[node.level] = max(tallest[node.level], size[id(node)][1])
    low, y = {}, MARGIN
    for level in range(bottom, height + 1):
        low[level] = y
        y += tallest[level] + ROW_GAP
    return low, tallest, y - ROW_GAP + HEADROOM


def _box_label(node, hierarchy, bottom):
    count = _leaves(hierarchy, node)
    leaf = node.level <= bottom or isinstance(node, _Elided)
    name = wrap(node.name, LEAF_WRAP if leaf else INNER_WRAP)
    return name if leaf and count == 1 else f"{name}\n({count})"


def hierarchy_figure(hierarchy, *, ax=None, leaf_fontsize=None, max_children=MAX_CHILDREN,
                     max_leaves=MAX_LEAVES, chd=True, upright_leaves=None):
    """A matplotlib drawing of the hierarchy tree, level by level, no label overlapping.

    Levels run bottom-up (level 0, the original values, at the bottom; the
    root at the top), as in Hussien et al. (2016), Figure 2. Every node is a
    box labelled with its value (wrapped on spaces, never cut) and, in
    brackets, the number of leaves it covers; a node marked as MAGVal
    (Definition 3) is drawn in orange with a star on its corner. Each level
    is labelled with its concept hierarchical distance from a leaf, CHD =
    level / height (Venkata Ramana & Valli Kumari 2013, Definition 4).
    Labels are measured and every subtree given the width it needs, so no
    two boxes overlap and the figure, sized around the drawing, holds them
    all. Writes nothing: save the figure with ``fig.savefig``.

    Parameters
    ----------
    hierarchy : Hierarchy
    ax : matplotlib Axes, optional
        Draw into this axes; the drawing keeps its proportions and its
        fonts shrink to fit the axes (default: a new figure sized by the
        drawing).
    leaf_fontsize : float, optional
        Font size of the bottom row's labels (default 9, 8 beyond 20 boxes).
    max_children : int or None, default 12
        A node with more children draws the first ``max_children - 1`` and
        one summary box ``... N more`` with the leaves they cover, so a
        300-leaf ZIP hierarchy stays readable; ``None`` draws every node.
    max_leaves : int or None, default 40
        When more than this many boxes would stand side by side, the
        drawing starts at the lowest level where they fit; each node there
        shows how many values it covers, and the title says from which level
        it is drawn. ``None`` draws down to the leaves.
    chd : bool, default True
        Label each level with its CHD (``level 2`` / ``CHD 2/3``) and
        explain it under the drawing.
    upright_leaves : bool, optional
        Turn the bottom row's labels upright (default: when the drawing
        would otherwise be wider than 16 inches).

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
    Venkata Ramana & Valli Kumari, "Graph based local recoding for data
    anonymization", 2013: Definition 4, eq. (1) (CHD).

    Examples
    --------
    >>> import kanon_graph as kg
    >>> fig = hierarchy_figure(kg.datasets.paper_002_location())
    >>> ax = fig.axes[0]
    >>> ax.get_title(), len(ax.texts), len(ax.collections[0].get_segments())
    ('location: height 2, 9 leaves', 13, 12)
    >>> len(ax.collections[1].get_offsets())   # the three MAGVal stars
    3
    >>> [t.get_text() for t in ax.get_yticklabels()]
    ['level 0\\nCHD 0', 'level 1\\nCHD 1/2', 'level 2\\nCHD 1']
    """
    from ._figure import pyplot

    plt = pyplot("hierarchy_figure")  # first: a clear error when matplotlib is absent
    from matplotlib.collections import LineCollection

    max_children = _check_max(max_children, "hierarchy_figure")
    if upright_leaves not in (None, True, False):
        raise ValueError(f"The 'upright_leaves' parameter of hierarchy_figure must be None, "
                         f"True or False. Got {upright_leaves!r}.")
    bottom = _bottom_level(hierarchy, _check_max(max_leaves, "hierarchy_figure", "max_leaves"),
                           max_children)
    order, kids = _nodes(hierarchy, max_children, bottom)
    own = ax is None
    if own:
        fig, ax = plt.subplots()
    else:
        fig = ax.figure
    low_row = {id(n) for n in order if not kids[id(n)] and n.level == bottom}
    small = leaf_fontsize or (9 if len(low_row) <= 20 else 8)
    texts = {}
    for node in order:
        leaf = not kids[id(node)]
        face = MAGVAL_FACE if node.magval else (LEAF_FACE if leaf else INNER_FACE)
        texts[id(node)] = ax.text(
            0, 0, _box_label(node, hierarchy, bottom), ha="center", va="center", zorder=3,
            fontsize=small if leaf else 9, multialignment="center",
            bbox=dict(boxstyle="round,pad=0.25", facecolor=face,
                      edgecolor=MAGVAL_EDGE if node.magval else EDGE,
                      linestyle="--" if isinstance(node, _Elided) else "-",
                      linewidth=1.6 if node.magval else 0.6))
    flat = dict(zip(texts, box_sizes(fig, texts.values())))
    x, width = _place(order, kids, flat)
    upright = upright_leaves
    if upright is None and width > WIDE:
        turned = {key: wh[::-1] if key in low_row else wh for key, wh in flat.items()}
        upright = _place(order, kids, turned)[1] < width
    size = {key: wh[::-1] if upright and key in low_row else wh for key, wh in flat.items()}
    if upright:
        x, width = _place(order, kids, size)
    low, tallest, height = _rows(order, size, bottom, hierarchy.height)
    top, base = {}, {}
    for node in order:
        text, (w, h) = texts[id(node)], size[id(node)]
        row_top = low[node.level] + tallest[node.level]
        if upright and id(node) in low_row:             # upright labels hang from the row's top
            text.set_rotation(90)
            text.set_va("top")
            text.set_position((x[id(node)], row_top - box_pad(text)))
            top[id(node)], base[id(node)] = row_top, row_top - h
        else:
            middle = low[node.level] + tallest[node.level] / 2
            text.set_position((x[id(node)], middle))
            top[id(node)], base[id(node)] = middle + h / 2, middle - h / 2
    segments = [[(x[id(node)], base[id(node)]), (x[id(c)], top[id(c)])]
                for node in order for c in kids[id(node)]]
    ax.add_collection(LineCollection(segments, colors="#888888", linewidths=0.8, zorder=1))
    marks = [(x[id(n)] + size[id(n)][0] / 2, top[id(n)]) for n in order if n.magval]
    stars = ax.scatter([p[0] for p in marks], [p[1] for p in marks], marker="*", s=90,
                       color="#e08000", edgecolors="#7a4000", linewidths=0.4, zorder=4,
                       label="MAGVal")
    levels = range(bottom, hierarchy.height + 1)
    ax.set_yticks([low[lv] + tallest[lv] / 2 for lv in levels])
    ax.set_yticklabels([f"level {lv}" + (f"\n{chd_label(lv, hierarchy.height)}" if chd else "")
                        for lv in levels], fontsize=9)
    ax.set_xticks([])
    for side in ("top", "right", "bottom"):
        ax.spines[side].set_visible(False)
    total = hierarchy.n_leaves
    ax.set_title(f"{hierarchy.name or 'hierarchy'}: height {hierarchy.height}, "
                 f"{total} {'leaf' if total == 1 else 'leaves'}"
                 + (f"; drawn from level {bottom} up" if bottom else ""))
    if not own:
        scale = fit_into(ax, width, height)
        for text in texts.values():
            text.set_fontsize(text.get_fontsize() * scale)
        if marks:
            ax.legend(handles=[stars], loc="upper right", fontsize=8, frameon=False)
        return fig
    footer = fig.text(0, 0, CHD_NOTE, fontsize=8, color="#444444") if chd else None
    legend = (fig.legend(handles=[stars], loc="lower right", fontsize=8, frameon=False,
                         borderaxespad=0, handletextpad=0.3) if marks else None)
    shift = frame_figure(fig, ax, width, height, ticks=ax.get_yticklabels(), footer=footer,
                         legend=legend)
    if shift:
        for text in texts.values():
            px, py = text.get_position()
            text.set_position((px + shift, py))
        ax.collections[0].set_segments([[(a + shift, b), (c + shift, d)]
                                        for (a, b), (c, d) in segments])
        if marks:
            stars.set_offsets([(px + shift, py) for px, py in marks])
    return fig
