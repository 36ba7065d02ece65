"""The report as one self-contained HTML page (or a fragment for a notebook).

No script, no external stylesheet, font or image: the pictures are data
URIs, and the page's Content-Security-Policy forbids loading anything else,
so opening it fetches nothing from the network.
"""

from __future__ import annotations

import html

from . import _figures
from ._content import SECTIONS

__all__ = ["render_html", "render_sections"]

_CSS = """
.kg-report { font-family: system-ui, -apple-system, "Segoe UI", sans-serif; color: #222;
  max-width: 60rem; margin: 0 auto; line-height: 1.4; }
.kg-report h1 { font-size: 1.6rem; margin-bottom: .2rem; }
.kg-report h2 { font-size: 1.2rem; border-bottom: 1px solid #ccc; padding-bottom: .2rem;
  margin-top: 1.6rem; }
.kg-report table { border-collapse: collapse; margin: .5rem 0; font-size: .9rem; }
.kg-report th, .kg-report td { border: 1px solid #ddd; padding: .2rem .6rem;
  text-align: right; }
.kg-report th:first-child, .kg-report td:first-child { text-align: left; }
.kg-report thead th { background: #f3f3f3; }
.kg-report .holds { color: #1a7f37; font-weight: bold; }
.kg-report .fails { color: #b42318; font-weight: bold; }
.kg-report img { max-width: 100%; display: block; margin: .5rem 0; }
.kg-report code, .kg-report pre { background: #f6f6f6; padding: .1rem .3rem;
  font-size: .85rem; white-space: pre-wrap; overflow-wrap: anywhere; }
.kg-report .note { color: #666; font-size: .85rem; }
"""


_SIZES_SHOWN = 12        # rows of the class-size table (all of them are in the JSON)


def _e(value):
    return html.escape(str(value), quote=True)


def _fmt(value, digits=4):
    if value is None:
        return "n/a"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e15:
        return f"{int(value):,}"
    if isinstance(value, float):
        return f"{value:.{digits}g}"
    return str(value)


def _table(header, rows):
    head = "".join(f"<th>{_e(h)}</th>" for h in header)
    body = "".join("<tr>" + "".join(f"<td>{_e(_fmt(c))}</td>" for c in row) + "</tr>"
                   for row in rows)
    return (f'<table class="kg-table"><thead><tr>{head}</tr></thead>'
            f"<tbody>{body}</tbody></table>")


def _picture(uri, alt):
    if uri is None:
        return ('<p class="note picture-fallback">(no picture: matplotlib is not installed; '
                'the plot extra draws it. The numbers are in the table.)</p>')
    return f'<img src="{uri}" alt="{_e(alt)}">'


def _summary(c):
    s = c["summary"]
    rows = [("records", s["records"]), ("released", s["released"]),
            ("suppressed", s["suppressed"]), ("equivalence classes", s["classes"]),
            ("recoding", s["recoding"]), ("algorithm", s["algorithm"] or "not recorded"),
            ("quasi-identifiers", ", ".join(s["quasi_identifiers"])),
            ("sensitive", ", ".join(s["sensitive"]) or "none")]
    if s["dropped"]:
        rows.insert(1, ("dropped before anonymizing (missing value)", s["dropped"]))
    if s.get("sharding"):
        rows.append(("sharding", s["sharding"]))
    return _table(["", "value"], rows)


def _privacy(c):
    p = c["privacy"]
    verdict = ('<p class="holds">The privacy model holds.</p>' if p["holds"] else
               '<p class="fails">The privacy model does NOT hold.</p>')
    rows = [("k", p["k"], p["k_achieved"])]
    on = f" of {p['sensitive']}" if p.get("sensitive") else ""
    if p["l"] is not None:
        rows.append((f"{p['diversity']} l{on}", p["l"], p["l_achieved"]))
    if p["t"] is not None:
        how = f", {p['t_distance']} distance" if p.get("t_distance") else ""
        rows.append((f"t{on} (largest EMD{how})", p["t"], p["t_achieved"]))
    ids = p["identifier_columns"]
    note = (f"Identifier column{'s' if len(ids) > 1 else ''} {', '.join(ids)}: "
            + ("NOT removed: " + ", ".join(p["identifier_columns_released"])
               if p["identifier_columns_released"] else "removed from the release")
            if ids else "No identifier column was declared.")
    dp = p.get("differential_privacy")
    if dp:
        verdict += (f"<p><strong>Guarantee:</strong> {_e(dp['guarantee'])} Records not "
                    f"released: {dp['not_sampled']} not sampled, {dp['suppressed']} "
                    f"suppressed; in the publication their rows are "
                    f"{_e(dp['withheld_rows'])}.</p>")
    return (verdict + _table(["criterion", "required", "achieved"], rows)
            + f"<p>{_e(p['described'])} (checked on {_e(p['checked_on'])}).</p>"
            + f"<p>{_e(note)}</p>")


def _risk(c):
    r = c["risk"]
    rows = [(label, before, after) for label, before, after in _figures._risk_rows(r)]
    b, a = r["before"], r["after"]
    rows.insert(1, ("journalist highest", b["journalist"]["highest"],
                    a["journalist"]["highest"]))
    rows.append(("sample uniques (records)", b["sample_uniqueness"]["uniques"],
                 a["sample_uniqueness"]["uniques"]))
    if "individual" in b:
        rows.append(("individual risk highest", b["individual"]["highest"],
                     a["individual"]["highest"]))
        rows.append(("expected re-identifications", b["individual"]["expected"],
                     a["individual"]["expected"]))
    out = [_picture(_figures.risk_figure(r), "risk before and after"),
           _table(["measure", "original", "released"], rows), _population_note(r)]
    if "population_uniqueness" in b:
        pb, pa = b["population_uniqueness"], a["population_uniqueness"]
        models = [(m, pb[m], pa[m]) for m in ("pitman", "zayatz", "snb", "dankar")]
        models.append(("Dankar's rule chose", pb["dankar_model"], pa["dankar_model"]))
        source = " (from the weights)" if r.get("sampling_fraction_from") == "weights" else ""
        out.append(f"<p>Population uniques for a sampling fraction of "
                   f"{_e(_fmt(r['sampling_fraction']))}{source} (population "
                   f"{_e(_fmt(pb['population'], 6))} records):</p>")
        out.append(_table(["model", "original", "released"], models))
    else:
        out.append('<p class="note">Population uniqueness and individual risk need a '
                   'sampling fraction (--sampling-fraction, sampling_fraction=) or sampling '
                   'weights (--weights, weights=).</p>')
    out.append(f'<p class="note">Threshold {_e(_fmt(r["threshold"]))}; {_e(r["note"])}. '
               "See docs/privacy.md, &ldquo;Attacker models&rdquo;.</p>")
    return "".join(out)


_SIZES_FROM = {"table": "counted in the population table",
               "estimated": "estimated as f / pi from the sampling fraction",
               "weights": "estimated as the sum of the records' sampling weights",
               "sample": "the table's own (no population: journalist risk is prosecutor "
                         "risk)"}
_MODEL_TEXT = {None: "1 / F",
               "individual": "Benedetti-Franconi individual risk E[1/F | f] (sdcMicro's "
                             "indivRisk)",
               "expansion": "1 / F (the expansion estimate; optimistic for sample uniques)"}


def _population_note(r):
    """Which population sizes, and which model, journalist and marketer risk used."""
    sizes = r.get("population_sizes_from") or {}
    models = r.get("population_model") or {}
    parts = []
    for side, label in (("before", "original"), ("after", "released")):
        if side in sizes:
            parts.append(f"{label}: class sizes in the population "
                         f"{_SIZES_FROM.get(sizes[side], sizes[side])}; a record's risk "
                         f"{_MODEL_TEXT.get(models.get(side), models.get(side))}")
    if not parts:
        return ""
    return (f'<p class="note">Journalist and marketer risk, {_e("; ".join(parts))}. '
            "See docs/privacy.md, &ldquo;Individual risk&rdquo;.</p>")


def _loss(c):
    loss = c["loss"]
    per = [(n, v["ncp"], v["loss"]) for n, v in loss["per_attribute"].items()]
    overall = [(n, v) for n, v in loss["overall"].items()]
    collapsed = "".join(
        f'<p class="fails">{_e(name)} gives (almost) nothing: * or its root on '
        f'{v["share"]:.0%} of the records.</p><p>Cause: {_e(v["cause"])}. '
        f'Remedy: {_e(v["remedy"])}.</p>' for name, v in (loss.get("collapsed") or {}).items())
    return (collapsed + _picture(_figures.loss_figure(loss), "information loss per attribute")
            + _table(["attribute", "mean NCP", "Loss"], per)
            + f'<p class="note">{_e(loss["note"])}</p>'
            + _table(["metric (whole release)", "value"], overall))


def _classes(c):
    cl = c["classes"]
    rows = [(h["size"], h["classes"], h["records"]) for h in cl["histogram"]]
    shown = rows[:_SIZES_SHOWN]
    more = (f'<p class="note">{len(rows) - _SIZES_SHOWN} more sizes in the JSON report.</p>'
            if len(rows) > _SIZES_SHOWN else "")
    return (_picture(_figures.class_size_figure(cl), "class-size histogram")
            + f"<p>{_e(_fmt(cl['count']))} classes, sizes {_e(_fmt(cl['min']))} to "
              f"{_e(_fmt(cl['max']))} (median {_e(_fmt(cl['median']))}).</p>"
            + _table(["class size", "classes", "records"], shown) + more)


def _hierarchies(c):
    h = c["hierarchies"]
    if not h:
        return "<p>No quasi-identifier was generalized with a hierarchy.</p>"
    top = max(v["height"] for v in h.values())
    rows = [[name, v["height"], "n/a" if v["global_level"] is None else v["global_level"]]
            + [v["records_per_level"][i] if i <= v["height"] else "" for i in range(top + 1)]
            for name, v in h.items()]
    header = ["attribute", "height", "level"] + [f"records at {i}" for i in range(top + 1)]
    return (_picture(_figures.levels_figure(h), "records per hierarchy level")
            + _table(header, rows))


def _lattice(c):
    lat = c["lattice"]
    if not lat.get("global"):
        return f"<p>{_e(lat['note'])}.</p>"
    node = ", ".join(f"{a}={v}" for a, v in zip(lat["attributes"], lat["node"]))
    return (_picture(_figures.lattice_figure(lat), "lattice position")
            + f"<p>Node ({_e(node)}) at height {lat['node_height']} of "
              f"{lat['lattice_height']}; the lattice has {_e(_fmt(lat['lattice_nodes']))} "
              f"nodes, {_e(_fmt(lat['nodes_at_this_height']))} of them at this height.</p>")


def _suppression(c):
    s = c["suppression"]
    return _table(["", "value"], [("suppressed records", s["suppressed"]),
                                  ("share of records", s["share"]),
                                  ("dropped for a missing value",
                                   s["dropped_for_missing_values"])])


def _provenance(c):
    p = c["provenance"]
    rows = [(role, v.get("file", ""), v.get("sha256", ""), v.get("bytes", ""))
            for role, v in p["checksums"].items()]
    call = p["call"] or "not recorded"
    return (f"<p>Made by:</p><pre>{_e(call)}</pre>"
            + _table(["", "file", "SHA-256", "bytes"], rows)
            + f'<p class="note">kanon_graph {_e(p["kanon_graph"])}, {_e(p["created"])}.</p>')


_RENDER = {"summary": _summary, "privacy": _privacy, "risk": _risk, "loss": _loss,
           "classes": _classes, "hierarchies": _hierarchies, "lattice": _lattice,
           "suppression": _suppression, "provenance": _provenance}


def render_sections(content, sections=None, *, heading_level=2):
    """The report's sections as one HTML fragment (styled, no ``<html>`` around it)."""
    wanted = [s for s in SECTIONS if sections is None or s[0] in sections]
    h = f"h{heading_level}"
    parts = [f'<section id="{key}"><{h}>{_e(title)}</{h}>{_RENDER[key](content)}</section>'
             for key, title in wanted]
    return f'<div class="kg-report"><style>{_CSS}</style>{"".join(parts)}</div>'


def render_html(content):
    """The whole report: one self-contained HTML page."""
    title = _e(content["title"])
    policy = "default-src 'none'; img-src data:; style-src 'unsafe-inline'"
    p = content["privacy"]
    verdict = "holds" if p["holds"] else "does NOT hold"
    return (f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
            f'<meta http-equiv="Content-Security-Policy" content="{policy}">'
            f'<meta name="viewport" content="width=device-width, initial-scale=1">'
            f"<title>{title}</title></head><body>"
            f'<div class="kg-report"><h1>{title}</h1><p>{_e(p["described"])}: the privacy '
            f"model {verdict}.</p></div>"
            f"{render_sections(content)}</body></html>\n")
