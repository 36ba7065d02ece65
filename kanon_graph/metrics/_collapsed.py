"""Which quasi-identifiers a release gives (almost) nothing of, why, and what would help.

A quasi-identifier is *collapsed* when most of its released cells say
nothing: ``*``, its hierarchy's root, or a suppressed record, on more than
half of the records, or a mean ARX cell loss of at least :data:`COLLAPSED`
(ranges as wide as the column). :func:`collapse_notes` names each one with
its cause, read from the column and its hierarchy, and a remedy, for
``result.summary()``, the command line's summary and the privacy report.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..cells.date_text import date_reading
from ._loss import arx_loss_per_attribute

__all__ = ["COLLAPSED", "collapse_notes", "collapse_lines"]

#: A quasi-identifier counts as collapsed when its mean ARX cell loss is at
#: least this (almost every cell suppressed or generalized to the root).
COLLAPSED = 0.9


def _root_share(release: Any, attr: Any) -> float:
    """The share of records whose cell of ``attr`` is ``*``, the root, or suppressed."""
    labels = np.asarray(release.attributes[attr.name].labels, dtype=object)
    roots = {"*"}
    if attr.hierarchy is not None:
        roots.add(attr.hierarchy.label(attr.hierarchy.height, 0))
    at_root = np.fromiter((str(v) in roots for v in labels), dtype=bool, count=len(labels))
    records = release.data.records
    nothing = float(release.sizes[at_root].sum()) + release.suppressed
    return nothing / records if records else 0.0


def _cause(attr: Any, records: int) -> tuple[str, str]:
    """``(cause, remedy)`` of one collapsed quasi-identifier."""
    present = [v for j, v in enumerate(attr.domain) if j != attr.missing_code]
    name = attr.name
    texts = [v for v in present if isinstance(v, str)]
    build = ("give it a hierarchy with levels between the value and * (kanon-graph "
             "hierarchy build / hierarchy suggest, kg.hierarchy.suggest)")
    if attr.kind == "categorical" and date_reading(texts).status == "ambiguous":
        return ("its cells are dates read as text, since their day and month could be either "
                "way round", f"say their format (--date-format {name}=%d/%m/%Y, "
                f"Schema(dates={{{name!r}: '%d/%m/%Y'}})) so it is generalized as dates")
    distinct = attr.kind == "categorical" and len(present) * 2 > records
    many = (f"a column of (nearly) distinct values ({len(present)} values in {records} "
            f"records)")
    drop = ("if it names people, drop it from the release (--identifiers, "
            "Schema(identifiers=...)); if it is a date or a number, declare it so (--dates, "
            "--date-format, numeric) to release ranges")
    if attr.hierarchy is not None and attr.hierarchy.height == 1 and len(present) <= 2:
        return (f"it has {len(present)} value(s): each is released as itself or *, and k with "
                f"the other quasi-identifiers needs *",
                "a smaller k, a suppression budget or fewer (or coarser) other "
                "quasi-identifiers; a level between its values and * cannot help")
    if attr.hierarchy is not None and attr.hierarchy.height == 1:
        return ("its hierarchy has no level between the value and *"
                + (f", over {many}" if distinct else ""),
                f"{build}; " + (drop if distinct else "declare it a date or a number if it "
                                "is one, or drop it as a quasi-identifier"))
    if distinct:
        return many, f"{build}; {drop}"
    if attr.hierarchy is not None:
        return ("k with the other quasi-identifiers needs its top level",
                "a smaller k, a suppression budget, fewer quasi-identifiers or finer levels "
                "in its hierarchy")
    if attr.kind == "categorical":
        return ("without a hierarchy its classes hold (almost) all of its values",
                f"{build}, or fewer quasi-identifiers")
    return ("its classes span (almost) its whole range",
            "a smaller k or fewer quasi-identifiers")


def collapse_notes(release: Any) -> dict[str, dict[str, Any]]:
    """``{attribute: {"share", "loss", "cause", "remedy"}}`` of each collapsed quasi-identifier.

    ``share`` is the fraction of records released as ``*`` (or the root, or
    suppressed) in that attribute; ``loss`` its mean ARX cell loss.
    """
    loss = arx_loss_per_attribute(release)
    notes = {}
    for attr in release.data.attributes:
        share = _root_share(release, attr)
        if share <= 0.5 and loss[attr.name] < COLLAPSED:
            continue
        cause, remedy = _cause(attr, release.data.records)
        notes[attr.name] = {"share": share, "loss": float(loss[attr.name]), "cause": cause,
                            "remedy": remedy}
    return notes


def collapse_lines(notes: dict[str, dict[str, Any]]) -> list[str]:
    """One line per collapsed quasi-identifier: what, why, what would help."""
    return [f"{name} gives (almost) nothing: * or its root on {note['share']:.0%} of the "
            f"records (mean cell loss {note['loss']:.2f}); cause: {note['cause']}; remedy: "
            f"{note['remedy']}" for name, note in notes.items()]
