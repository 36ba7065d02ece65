"""Reading released cells back to what they stand for (for :func:`~kanon_graph.metrics.evaluate`).

A cell of an attribute with a hierarchy is a node of it, looked up by label
(:func:`hierarchy_cells`); a cell of an attribute without one is a range
``[lo-hi]``, a date or date interval, a value set ``{a,b}``, a single value or
``*`` (:func:`free_cells`; a categorical value that could be misread is
quoted, ``{"a,b",c}``, as :mod:`kanon_graph.recoding._value_labels` writes it). Every reader checks that the released cell covers
the original value, and a message names the attribute, the row and the value.
The sensitive column a privacy check judges is read from the released cells
too (:func:`released_sensitive`), never from the original.
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd

from ..cells.kinds import date_days, missing_mask, parse_date
from ..encoding.cells import _date_cells, _factorize, _numeric_cells
from ..encoding import MISSING
from ..exceptions import DataError
from ..recoding._release import AttributeRelease
from ..recoding._value_labels import member_codes

__all__ = ["column_text", "hierarchy_cells", "free_cells", "released_sensitive"]

_NUM = r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?"
_RANGE = re.compile(rf"^\s*[\[(]?\s*({_NUM})\s*(?:-|,|;|\.\.)\s*({_NUM})\s*[\])]?\s*$")


def _cell_text(value: Any) -> str:
    if isinstance(value, (float, np.floating)) and float(value).is_integer():
        return str(int(value))
    return str(value)


def column_text(series: pd.Series) -> npt.NDArray[Any]:
    """Released cells as text (blanks kept: a value may begin or end with one), once per value."""
    codes, uniques = pd.factorize(series, use_na_sentinel=False)
    return np.asarray([_cell_text(v) for v in uniques], dtype=object)[codes]


def _fail(attr: str, row: Any, value: Any, why: str) -> DataError:
    row = row.item() if isinstance(row, np.generic) else row
    return DataError(f"evaluate: released value {str(value)!r} of {attr!r} in row {row!r} "
                     f"{why}")


def hierarchy_cells(attr: Any, labels: npt.NDArray[Any], rows: npt.NDArray[np.int64],
                     cls: npt.NDArray[np.int64], n_classes: int,
                     index: Any) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64], int | None]:
    """(level, node) per class for an attribute with a hierarchy."""
    h = attr.hierarchy
    codes = attr.codes[rows]
    uniq, inv = np.unique(labels, return_inverse=True)
    inv = inv.reshape(-1)
    heights = h.height + 1
    match = np.zeros((heights, len(rows)), dtype=bool)
    node_at = np.full((heights, len(uniq)), -1, dtype=np.int64)
    for lv in range(heights):
        lookup = {label: j for j, label in enumerate(h.labels(lv))}
        node_at[lv] = [lookup.get(u, lookup.get(u.strip(), -1)) for u in uniq]
        if lv == h.height and h.label(lv, 0) != "*":
            node_at[lv][uniq == "*"] = 0      # "*" alone: the root
        match[lv] = node_at[lv][inv] == h.level_map[lv][codes]
    bad = ~match.any(axis=0)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        value = uniq[inv[i]]
        if (node_at[:, inv[i]] < 0).all():
            raise _fail(attr.name, index[rows[i]], value,
                        f"is not a node of its hierarchy ({h.source or 'no file'})")
        raise _fail(attr.name, index[rows[i]], value,
                    f"does not cover the original value {str(attr.domain[codes[i]])!r}")
    uniform = np.flatnonzero(match.all(axis=1))
    level = np.full(n_classes, -1, dtype=np.int64)
    if uniform.size:                              # a full-domain release of this attribute
        level[:] = uniform[0]
    else:                                         # per class: the lowest covering node
        for l in range(heights):
            misses = np.bincount(cls, weights=~match[l], minlength=n_classes)
            fresh = (level < 0) & (misses == 0)
            level[fresh] = l
        if (level < 0).any():
            c = int(np.flatnonzero(level < 0)[0])
            i = int(np.flatnonzero(cls == c)[0])
            raise _fail(attr.name, index[rows[i]], uniq[inv[i]],
                        "names different nodes within its class")
    first = np.empty(n_classes, dtype=np.int64)
    first[cls[::-1]] = np.arange(len(cls))[::-1]
    node = node_at[level, inv[first]]
    return level, node, (int(uniform[0]) if uniform.size else None)


def _date_span(text: str, fmt: str | None = None) -> tuple[int, int] | None:
    """``(first, last)`` in days of a released date or ``[first, last]``, or ``None``.

    A lone date is read in the column's format ``fmt`` (an unchanged cell)
    or ISO 8601 (a class's mean); an interval's ends are ISO 8601, or in
    ``fmt`` as a reader may write them.
    """
    first, sep, last = text[1:-1].partition(", ") if text.startswith("[") \
        and text.endswith("]") else (text, "", text)
    if text.startswith("[") and not sep:
        return None
    a, b = (_read_date(end, fmt) for end in (first, last))
    return None if a is None or b is None else (date_days(a), date_days(b))


def _read_date(text: str, fmt: str | None) -> Any:
    when = parse_date(text, fmt) if fmt is not None else None
    return when if when is not None else parse_date(text)


def _number_span(attr: Any, text: str) -> tuple[float, float] | None:
    """``(lo, hi)`` of a released number, range or date interval; None if it is none."""
    if attr.date:
        return _date_span(text, attr.date_format)
    try:
        return float(text), float(text)
    except ValueError:
        match = _RANGE.match(text)
        return (float(match.group(1)), float(match.group(2))) if match else None


def free_cells(attr: Any, labels: npt.NDArray[Any], rows: npt.NDArray[np.int64],
                cls: npt.NDArray[np.int64], n_classes: int, index: Any,
                kept: npt.NDArray[np.bool_]) -> AttributeRelease:
    """AttributeRelease of a hierarchy-free attribute from ranges / sets / values."""
    first = np.empty(n_classes, dtype=np.int64)
    first[cls[::-1]] = np.arange(len(cls))[::-1]
    class_labels = labels[first]
    if attr.kind == "numeric":
        values = attr.values
        present = np.unique(values[kept])
        lo, hi = np.empty(n_classes), np.empty(n_classes)
        gap = None                            # missing="keep": the missing value's number
        if attr.missing_code is not None:
            gap = float(values[np.flatnonzero(attr.codes == attr.missing_code)[0]])
        for c, text in enumerate(class_labels):
            text = text.strip()               # numbers, ranges and dates: blanks mean nothing
            if gap is not None and text == MISSING:
                lo[c] = hi[c] = gap
                continue
            if gap is not None and text.endswith(f" or {MISSING}"):
                text = text[:-len(f" or {MISSING}")]
                span = _number_span(attr, text)
                if span is None:
                    raise _fail(attr.name, index[rows[first[c]]], class_labels[c],
                                "is not a range 'or (missing)'")
                lo[c], hi[c] = gap, span[1]
                continue
            if text == "*":
                lo[c], hi[c] = np.nanmin(values), np.nanmax(values)
                continue
            if attr.date:                    # a date, or [first, last] (in days)
                span = _date_span(text, attr.date_format)
                if span is None:
                    raise _fail(attr.name, index[rows[first[c]]], text,
                                "is neither a date nor a date interval such as "
                                "[1944-12-14, 2008-01-10]")
                lo[c], hi[c] = span
                continue
            try:
                lo[c] = hi[c] = float(text)
                continue
            except ValueError:
                pass
            match = _RANGE.match(text)
            if not match:
                raise _fail(attr.name, index[rows[first[c]]], text,
                            "is neither a number nor a range such as [20-29]")
            lo[c], hi[c] = float(match.group(1)), float(match.group(2))
        out = (values[rows] < lo[cls]) | (values[rows] > hi[cls])
        if out.any():
            i = int(np.flatnonzero(out)[0])
            shown = str(attr.domain[attr.codes[rows[i]]])
            raise _fail(attr.name, index[rows[i]], labels[i],
                        f"does not cover the original value {shown!r}")
        distinct = (np.searchsorted(present, hi, side="right")
                    - np.searchsorted(present, lo, side="left"))
        return AttributeRelease(class_labels.astype(object), None, None, lo, hi, distinct)
    domain = {str(v): j for j, v in enumerate(attr.domain) if j != attr.missing_code}
    members = []
    for c, text in enumerate(class_labels):
        try:                                  # quoted members: recoding._value_labels
            codes = member_codes(text, domain, attr.missing_code)
        except LookupError as exc:
            raise _fail(attr.name, index[rows[first[c]]], text,
                        f"holds {exc.args[0]!r}, which is not a value of the column") from None
        members.append(set(range(len(attr.domain))) if codes is None else set(codes))
    for i, (c, code) in enumerate(zip(cls, attr.codes[rows])):
        if code not in members[c]:
            raise _fail(attr.name, index[rows[i]], labels[i],
                        f"does not cover the original value {str(attr.domain[code])!r}")
    distinct = np.array([len(m) for m in members], dtype=np.int64)
    return AttributeRelease(class_labels.astype(object), None, None, None, None, distinct)


def released_sensitive(data: Any, released: pd.DataFrame, column: str) -> Any:
    """``data`` with the sensitive ``column`` read from the released table's cells.

    l-diversity and t-closeness hold or fail on what is published: the codes
    of ``column`` are those of ``released`` (row-aligned with ``data``),
    encoded as :func:`~kanon_graph.encoding.encode` encodes the original's
    (numbers and dates in their order, categories by text; with
    ``missing="keep"`` a missing cell is a value of its own, code 0).
    """
    import dataclasses

    if column not in released.columns:
        raise DataError(f"evaluate: the sensitive column {column!r} is not in the released "
                        f"table, so its l-diversity / t-closeness cannot be judged from the "
                        f"release; it has columns {list(released.columns)}")
    series = released[column]
    mask = missing_mask(series)
    keep = column in data.missing_kept
    if mask.any() and not keep:
        row = series.index[int(np.flatnonzero(mask)[0])]
        row = row.item() if isinstance(row, np.generic) else row
        raise DataError(f"evaluate: the released sensitive column {column!r} has "
                        f"{int(mask.sum())} missing cell(s) (first in row {row!r}) where the "
                        f"original has a value; a release of missing='keep' is read with "
                        f"missing='keep'")
    kind = data.sensitive_kinds[column]
    present = series[~mask]
    if kind == "numeric":
        codes, texts, _ = _numeric_cells(present, column, "evaluate (released table)")
    elif kind == "date":
        codes, texts, _, _ = _date_cells(present, column, "evaluate (released table)",
                                         data.schema.date_format(column))
    else:
        texts, codes = _factorize(present)
    if keep:                                   # the missing value first: code 0
        inner = codes
        codes = np.zeros(len(series), dtype=np.int64)
        codes[~mask] = inner + 1
        texts = [MISSING] + list(texts)
    return dataclasses.replace(data, sensitive={**data.sensitive, column: np.asarray(codes)},
                               sensitive_domain={**data.sensitive_domain, column: list(texts)})


def aggregate_cells(attr: Any, labels: npt.NDArray[Any], rows: npt.NDArray[np.int64],
                    cls: npt.NDArray[np.int64], n_classes: int, index: Any,
                    how: str) -> AttributeRelease:
    """AttributeRelease of a microaggregated attribute from its released aggregates.

    Each class's cell must be a number (or a date) within its records' range
    (numeric) or one of its records' values (categorical), as
    :func:`kanon_graph.recoding.recode_aggregate` releases it.
    """
    first = np.full(n_classes, len(rows), dtype=np.int64)
    np.minimum.at(first, cls, np.arange(len(rows)))
    class_labels = labels[first]
    codes = attr.codes[rows]
    pairs = np.unique(np.column_stack([cls, codes]), axis=0)
    distinct = np.bincount(pairs[:, 0], minlength=n_classes)
    if attr.kind == "numeric":
        lo = np.full(n_classes, np.inf)
        hi = np.full(n_classes, -np.inf)
        np.minimum.at(lo, cls, attr.values[rows])
        np.maximum.at(hi, cls, attr.values[rows])
        centre = np.empty(n_classes)
        for c, text in enumerate(class_labels):
            when = _read_date(text, attr.date_format) if attr.date else None
            try:
                centre[c] = date_days(when) if when is not None else float(text)
            except ValueError:
                raise _fail(attr.name, index[rows[first[c]]], text,
                            f"is not the number a {how} of its class would be") from None
        bad = np.flatnonzero((centre < lo) | (centre > hi))
        if bad.size:
            c = int(bad[0])
            raise _fail(attr.name, index[rows[first[c]]], class_labels[c],
                        f"lies outside its class's values [{lo[c]:g}, {hi[c]:g}]: no {how}")
        return AttributeRelease(class_labels.astype(object), None, None, lo, hi, distinct,
                                how, centre)
    lookup = {_cell_text(v): j for j, v in enumerate(attr.domain)}
    centre = np.array([lookup.get(text, -1) for text in class_labels], dtype=np.int64)
    held = np.zeros(n_classes, dtype=bool)
    held[cls[codes == centre[cls]]] = True
    if not held.all():
        c = int(np.flatnonzero(~held)[0])
        raise _fail(attr.name, index[rows[first[c]]], class_labels[c],
                    f"is none of its class's values: no {how}")
    return AttributeRelease(class_labels.astype(object), None, None, None, None, distinct,
                            how, centre)
