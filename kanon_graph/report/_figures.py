"""The report's pictures: matplotlib figures inlined as SVG data URIs.

Each function takes the report content (numbers and released labels only)
and returns ``data:image/svg+xml;base64,...`` for an ``<img>``, or None when
matplotlib is not installed (the HTML then shows the same numbers as text).
Figures are drawn on :class:`matplotlib.figure.Figure` directly (no pyplot,
no display backend) with ``svg.fonttype = "none"``, so the SVG's text is text.
"""

from __future__ import annotations

import base64
import io

__all__ = ["available", "risk_figure", "class_size_figure", "loss_figure", "levels_figure",
           "lattice_figure"]

_BEFORE, _AFTER = "#c0504d", "#4f81bd"


def available():
    """Whether matplotlib can be imported."""
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        return False
    return True


def _uri(fig):
    import matplotlib

    buffer = io.StringIO()
    with matplotlib.rc_context({"svg.fonttype": "none", "svg.hashsalt": "kanon_graph"}):
        fig.savefig(buffer, format="svg", bbox_inches="tight", metadata={"Date": None})
    text = buffer.getvalue()
    return "data:image/svg+xml;base64," + base64.b64encode(text.encode("utf-8")).decode("ascii")


def _figure(width, height):
    if not available():
        return None
    from matplotlib.figure import Figure

    return Figure(figsize=(width, height), dpi=100, layout="constrained")


def risk_figure(risk):
    """Grouped bars: each risk measure on the original and on the release."""
    fig = risk_plot(risk)
    return None if fig is None else _uri(fig)


def risk_plot(risk):
    """The Figure of :func:`risk_figure`; its legend stands right of the axes, off the bars."""
    fig = _figure(7.0, 3.0)
    if fig is None:
        return None
    rows = _risk_rows(risk)
    ax = fig.add_subplot()
    x = range(len(rows))
    ax.bar([i - 0.2 for i in x], [r[1] for r in rows], 0.4, label="original", color=_BEFORE)
    ax.bar([i + 0.2 for i in x], [r[2] for r in rows], 0.4, label="released", color=_AFTER)
    ax.set_xticks(list(x), [r[0] for r in rows], rotation=20, ha="right")
    ax.set_ylim(0, 1.05)
    ax.set_ylabel("probability / share")
    ax.legend(frameon=False, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    ax.set_title("Re-identification risk before and after")
    return fig


def _risk_rows(risk):
    """``(label, before, after)`` for the measures every report has."""
    b, a = risk["before"], risk["after"]
    rows = [("prosecutor highest", b["prosecutor"]["highest"], a["prosecutor"]["highest"]),
            ("prosecutor average", b["prosecutor"]["average"], a["prosecutor"]["average"]),
            (f"records at risk (>{risk['threshold']:g})", b["prosecutor"]["at_risk"],
             a["prosecutor"]["at_risk"]),
            ("journalist average", b["journalist"]["average"], a["journalist"]["average"]),
            ("marketer", b["marketer"]["average"], a["marketer"]["average"]),
            ("sample uniques", b["sample_uniqueness"]["share"],
             a["sample_uniqueness"]["share"])]
    if "population_uniqueness" in b:
        rows.append(("population uniques", b["population_uniqueness"]["share"] or 0.0,
                     a["population_uniqueness"]["share"] or 0.0))
    return rows


def class_size_figure(classes):
    """Histogram: how many records sit in classes of each size.

    Up to 40 distinct sizes, one bar per size; beyond, sizes are binned on a
    logarithmic scale (each bar counts the records of the classes in its bin).
    """
    fig = _figure(7.0, 2.8)
    if fig is None:
        return None
    import numpy as np

    ax = fig.add_subplot()
    hist = classes["histogram"]
    sizes = np.array([h["size"] for h in hist], dtype=float)
    records = np.array([h["records"] for h in hist], dtype=float)
    if len(hist) <= 40:
        ax.bar(sizes, records, width=0.8, color=_AFTER)
    else:
        edges = np.unique(np.round(np.geomspace(sizes.min(), sizes.max() + 1, 30)))
        counts, edges = np.histogram(sizes, bins=edges, weights=records)
        ax.bar(edges[:-1], counts, width=np.diff(edges), align="edge", color=_AFTER,
               edgecolor="white")
        ax.set_xscale("log")
    ax.set_xlabel("class size")
    ax.set_ylabel("records")
    ax.set_title(f"{classes['count']} equivalence classes: records by class size")
    return _uri(fig)


def loss_figure(loss):
    """Horizontal bars: mean NCP and ARX's Loss per attribute."""
    per = loss["per_attribute"]
    fig = _figure(7.0, 0.45 * len(per) + 1.2)
    if fig is None:
        return None
    ax = fig.add_subplot()
    names = list(per)
    y = range(len(names))
    ax.barh([i - 0.2 for i in y], [per[n]["ncp"] for n in names], 0.4, label="NCP",
            color=_AFTER)
    ax.barh([i + 0.2 for i in y], [per[n]["loss"] for n in names], 0.4, label="Loss",
            color="#9bbb59")
    ax.set_yticks(list(y), names)
    ax.invert_yaxis()
    ax.set_xlim(0, 1)
    ax.set_xlabel("information loss (0 = as is, 1 = suppressed)")
    ax.legend(frameon=False, loc="upper center", bbox_to_anchor=(0.5, -0.22), ncol=2)
    return _uri(fig)


def levels_figure(hierarchies):
    """One row per hierarchy: the share of released records at each of its levels."""
    if not hierarchies:
        return None
    names = list(hierarchies)
    top = max(h["height"] for h in hierarchies.values())
    fig = _figure(1.0 + 0.8 * (top + 1), 0.5 * len(names) + 1.2)
    if fig is None:
        return None
    import numpy as np

    grid = np.full((len(names), top + 1), np.nan)
    for i, name in enumerate(names):
        counts = np.asarray(hierarchies[name]["records_per_level"], dtype=float)
        total = counts.sum()
        grid[i, :len(counts)] = counts / total if total else 0.0
    ax = fig.add_subplot()
    ax.imshow(grid, cmap="Blues", vmin=0, vmax=1, aspect="auto")
    for i, name in enumerate(names):
        for level in range(hierarchies[name]["height"] + 1):
            share = grid[i, level]
            mark = "\u25cf " if hierarchies[name]["global_level"] == level else ""
            ax.text(level, i, f"{mark}{share:.0%}", ha="center", va="center", fontsize=8,
                    color="white" if share > 0.6 else "black")
    ax.set_xticks(range(top + 1), [f"level {i}" for i in range(top + 1)])
    ax.set_yticks(range(len(names)), [f"{n} (h={hierarchies[n]['height']})" for n in names])
    ax.set_title("released records per hierarchy level (0 = the original value)")
    return _uri(fig)


def lattice_figure(lattice):
    """The release's node in the lattice: each attribute's level against its height."""
    if not lattice.get("global"):
        return None
    names, node, heights = lattice["attributes"], lattice["node"], lattice["heights"]
    fig = _figure(max(4.0, 0.9 * len(names) + 1.5), 3.0)
    if fig is None:
        return None
    ax = fig.add_subplot()
    x = range(len(names))
    for i, h in zip(x, heights):
        ax.plot([i, i], [0, h], color="#bbbbbb", linewidth=6, solid_capstyle="round")
        ax.scatter([i] * (h + 1), range(h + 1), s=14, color="#888888", zorder=2)
    ax.plot(list(x), node, color=_AFTER, marker="o", markersize=8, zorder=3)
    ax.set_xticks(list(x), names, rotation=30, ha="right")
    ax.set_ylabel("level")
    ax.set_title(f"node {tuple(node)}: height {lattice['node_height']} of "
                 f"{lattice['lattice_height']}")
    return _uri(fig)
