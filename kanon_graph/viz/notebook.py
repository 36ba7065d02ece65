"""How hierarchies, lattices, MST splits and results show themselves in Jupyter.

Jupyter calls an object's ``_repr_html_`` to display it; the model classes
keep one-line methods that ask :mod:`kanon_graph._display`, where this module
registers the functions below (the model rooms never import their pictures),
so all drawing stays in :mod:`kanon_graph.viz`. Each function returns an
HTML fragment:

* a hierarchy: its tree drawn by :func:`~kanon_graph.viz.hierarchy_figure`
  (inline SVG) when it has at most ``max_leaves`` leaves and matplotlib is
  installed, else the text tree of :func:`~kanon_graph.viz.hierarchy_text`
  cut after ``max_lines`` lines;
* a lattice: its Hasse diagram (:func:`~kanon_graph.viz.lattice_figure`) up
  to ``max_nodes`` nodes, else a one-line description;
* an MST split (:class:`~kanon_graph.viz.MSTSplitView`): paper 003's Figure 5
  (:func:`~kanon_graph.viz.mst_figure`), else a one-line description;
* a result: the verification, the level vector and, for a global recoding,
  the lattice its search walked with the released node (up to ``max_nodes``
  nodes; :func:`~kanon_graph.viz.lattice_figure`), every metric and the
  largest ``max_classes`` equivalence classes as tables, then,
  folded, the sections of its privacy report (:mod:`kanon_graph.report`:
  risk before and after, information loss, class sizes, and for a global
  recoding the levels and the lattice node) up to ``max_report_rows`` rows.

Without matplotlib every object still shows its text form. The limits keep a
notebook small; :func:`set_display` raises them, and the full pictures are
one call away (``kg.viz.hierarchy_figure(h)``, ``res.class_summary()``).
"""

from __future__ import annotations

import html
import io

from .._display import register_display

__all__ = ["set_display", "hierarchy_html", "lattice_html", "mst_html", "result_html",
           "figure_svg"]

_LIMITS = {"max_leaves": 40, "max_lines": 40, "max_nodes": 60, "max_classes": 10,
           "max_mst_nodes": 60, "max_report_rows": 100_000}


def set_display(**limits):
    """Change how much a notebook display shows; return the previous limits.

    Parameters
    ----------
    **limits : int
        Any of the limits below; an unknown name is a ``TypeError`` naming it.

    Other Parameters
    ----------------
    max_leaves : int, optional
        Draw a hierarchy with at most this many leaves (default 40).
    max_lines : int, optional
        Lines of a hierarchy's text tree when it is not drawn (default 40).
    max_nodes : int, optional
        Draw a lattice, or a result's lattice, with at most this many nodes
        (default 60).
    max_classes : int, optional
        Equivalence classes listed for a result (default 10).
    max_mst_nodes : int, optional
        Draw an MST split with at most this many nodes (default 60).
    max_report_rows : int, optional
        Embed the privacy report's sections in a result's display up to this
        many rows (default 100,000; 0 never embeds them).

    Returns
    -------
    dict
        The limits in force before the call, to restore with ``set_display(**old)``.

    Examples
    --------
    >>> old = set_display(max_classes=3)
    >>> old["max_classes"], set_display(**old)["max_classes"]
    (10, 3)
    """
    for name, value in limits.items():
        if name not in _LIMITS:
            raise TypeError(f"set_display got an unknown limit {name!r}; "
                            f"known: {', '.join(sorted(_LIMITS))}")
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise ValueError(f"The {name!r} parameter of set_display must be an integer "
                             f">= 0. Got {value!r}.")
    old = dict(_LIMITS)
    _LIMITS.update(limits)
    return old


def figure_svg(fig):
    """The figure as an SVG string (the figure is closed afterwards)."""
    import matplotlib.pyplot as plt

    buffer = io.StringIO()
    try:
        fig.savefig(buffer, format="svg", bbox_inches="tight")
    finally:
        plt.close(fig)
    text = buffer.getvalue()
    return text[text.index("<svg"):]        # drop the XML prolog and DOCTYPE for inline use


def _svg_or_none(draw):
    """``figure_svg(draw())``, or None when matplotlib is not installed."""
    try:
        return figure_svg(draw())
    except ImportError:
        return None


def _pre(text):
    return f"<pre>{html.escape(text)}</pre>"


def _table(header, rows):
    head = "".join(f"<th>{html.escape(str(h))}</th>" for h in header)
    body = "".join("<tr>" + "".join(f"<td>{html.escape(str(c))}</td>" for c in row) + "</tr>"
                   for row in rows)
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def hierarchy_html(hierarchy):
    """The notebook display of a hierarchy: its drawing, or its text tree when large.

    Examples
    --------
    >>> import kanon_graph as kg
    >>> shown = hierarchy_html(kg.datasets.paper_002_location())
    >>> shown.startswith("<div"), ("<svg" in shown) or ("<pre>" in shown)
    (True, True)
    """
    from .hierarchy import hierarchy_figure, hierarchy_text

    name = hierarchy.name or "hierarchy"
    title = (f"<b>{html.escape(str(name))}</b>: height {hierarchy.height}, "
             f"{hierarchy.n_leaves} leaves, {len(hierarchy)} nodes")
    svg = None
    if hierarchy.n_leaves <= _LIMITS["max_leaves"]:
        svg = _svg_or_none(lambda: hierarchy_figure(hierarchy))
    if svg is not None:
        return f"<div>{title}<br>{svg}</div>"
    lines = hierarchy_text(hierarchy).splitlines()
    shown = lines[:_LIMITS["max_lines"]]
    if len(lines) > len(shown):
        shown.append(f"... {len(lines) - len(shown)} more lines "
                     f"(kg.viz.hierarchy_text(h) prints all; set_display raises the limit)")
    return f"<div>{title}{_pre(chr(10).join(shown))}</div>"


def lattice_html(lattice, status=None):
    """The notebook display of a lattice: its Hasse diagram when small enough.

    Examples
    --------
    >>> from kanon_graph.lattice import Lattice
    >>> "6 nodes" in lattice_html(Lattice([1, 2], names=["sex", "age"]))
    True
    """
    from .lattice import lattice_figure

    names = lattice.names
    title = (f"<b>lattice</b>: {lattice.size} nodes, heights "
             + ", ".join(f"{html.escape(str(n))} {h}" for n, h in zip(names, lattice.heights)))
    svg = None
    if lattice.size <= _LIMITS["max_nodes"]:
        svg = _svg_or_none(lambda: lattice_figure(lattice, status))
    if svg is None:
        return f"<div>{title} (not drawn: kg.viz.lattice_dot draws it with Graphviz)</div>"
    return f"<div>{title}<br>{svg}</div>"


def mst_html(view):
    """The notebook display of an :class:`~kanon_graph.viz.MSTSplitView` (Figure 5)."""
    from .records import mst_figure

    title = (f"<b>MST split</b>, k={view.k}: {view.graph.n_nodes} nodes, "
             f"{int(view.cut.sum())} edges cut, {view.n_classes} classes")
    svg = None
    if view.graph.n_nodes <= _LIMITS["max_mst_nodes"]:
        svg = _svg_or_none(lambda: mst_figure(view))
    return f"<div>{title}<br>{svg}</div>" if svg else f"<div>{title}</div>"


def result_html(result):
    """The notebook display of an anonymization result: checks, levels, metrics, classes.

    Examples
    --------
    >>> import kanon_graph as kg
    >>> res = kg.anonymize(kg.datasets.paper_003_table(), kg.datasets.paper_003_schema(),
    ...                    k=3, algorithm="datafly")
    >>> shown = result_html(res)
    >>> "<th>size</th>" in shown, "levels" in shown, "loss" in shown, "released" in shown
    (True, True, True, True)
    """
    sizes = [len(c) for c in result.classes]
    parts = [f"<b>{html.escape(result.algorithm)}</b>, k={result.k}: "
             f"{html.escape(result.verification.describe())}; {len(result.table)} rows, "
             f"{len(sizes)} classes (sizes {min(sizes, default=0)}..{max(sizes, default=0)}), "
             f"{result.suppressed} suppressed"]
    if result.levels is not None:
        parts.append("levels " + _table(list(result.levels), [list(result.levels.values())]))
        parts.append(_result_lattice(result))
    parts.append("metrics " + _table(["metric", "value"],
                                     [(n, f"{v:.6g}") for n, v in result.metrics.items()]))
    classes = result.class_summary()
    limit = _LIMITS["max_classes"]
    note = (f" (largest {limit} of {len(classes)}; res.class_summary() has all)"
            if len(classes) > limit else "")
    shown = classes.head(limit)
    parts.append(f"classes{note} " + _table(list(shown.columns),
                                             shown.itertuples(index=False)))
    return "<div>" + "<br>".join(parts) + _report_sections(result) + "</div>"


def _result_lattice(result):
    """A global recoding's lattice (drawn up to ``max_nodes`` nodes), or what to call."""
    from ._result_lattice import result_heights
    from .lattice import lattice_figure

    try:
        heights = result_heights(result, "the result's display")[1]
    except ValueError as error:               # no encoded table (a Dask input)
        return f"lattice: {html.escape(str(error))}"
    size = 1
    for h in heights:
        size *= h + 1
    if size > _LIMITS["max_nodes"]:
        return (f"lattice: {size:,} nodes, not drawn (kg.viz.lattice_dot(res) exports it "
                f"for Graphviz; set_display(max_nodes=...) draws larger lattices)")
    svg = _svg_or_none(lambda: lattice_figure(result, max_nodes=_LIMITS["max_nodes"]))
    return f"lattice<br>{svg}" if svg else f"lattice: {size} nodes (needs matplotlib)"


#: The report sections a result's display folds in (levels only for a global recoding).
_REPORT_SECTIONS = ("risk", "loss", "classes")
_GLOBAL_SECTIONS = ("hierarchies", "lattice")


def _report_sections(result):
    """The privacy report's sections, folded (``<details>``), or how to write the report."""
    how = 'res.report("report.html") writes the whole privacy report'
    rows = len(result.table) if result.classes is not None else None
    if rows is None or rows > _LIMITS["max_report_rows"]:
        return f"<p><small>{html.escape(how)}.</small></p>"
    from ..report import render_sections
    from ..report._result import content_of_result

    wanted = _REPORT_SECTIONS + (_GLOBAL_SECTIONS if result.levels is not None else ())
    body = render_sections(content_of_result(result), wanted, heading_level=4)
    return (f"<details><summary><b>privacy report</b>: risk before and after, information "
            f"loss, class sizes ({html.escape(how)})</summary>{body}</details>")


# the model classes, by name (registering imports none of them)
register_display("kanon_graph.hierarchy._tree.Hierarchy", hierarchy_html, replace=True)
register_display("kanon_graph.lattice.lattice.Lattice", lattice_html, replace=True)
register_display("kanon_graph.result.AnonymizationResult", result_html, replace=True)
register_display("kanon_graph.viz.records.MSTSplitView", mst_html, replace=True)
