"""Privacy checks and metrics of any released table, ours or another tool's.

:func:`evaluate` maps every released cell back to what it stands for -- a
node of the attribute's hierarchy (looked up by label), or for an attribute
without a hierarchy a range ``[lo-hi]`` / a value set ``{a,b}`` / a single
value -- rebuilds a :class:`~kanon_graph.recoding.Release` from them, and runs
the registered metrics and the privacy model on it. On a release made by
:func:`kanon_graph.anonymize` it gives back exactly ``result.metrics``.

Readings (a released table cannot say everything):

* a row whose quasi-identifiers are all ``*`` is a suppressed record (ARX's
  convention), unless ``suppressed=`` says otherwise;
* equivalence classes are the distinct released quasi-identifier tuples,
  numbered by first row;
* a label that occurs on several levels of a hierarchy (a value generalized
  to itself, as ``[80-100]`` on two levels of the Adult age hierarchy) is
  read at the lowest level at which every record of the attribute matches it
  when the attribute looks full-domain (one level fits every row), else at
  the lowest level whose node covers the whole class (the LCA of local
  recoding);
* a hierarchy-free numeric range stands for the distinct released values it
  contains; ``*`` alone stands for the whole column.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from typing import TYPE_CHECKING, Any, cast

import numpy as np
import numpy.typing as npt
import pandas as pd

from .._cells import date_days, parse_date
from ..encoding import MISSING, EncodedTable, encode
from ..exceptions import DataError
from ..recoding._release import AttributeRelease, Release, _hierarchy_release
from ._registry import compute_metrics

if TYPE_CHECKING:
    from ..schema import Schema

__all__ = ["Evaluation", "evaluate"]

_NUM = r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?"
_RANGE = re.compile(rf"^\s*[\[(]?\s*({_NUM})\s*(?:-|,|;|\.\.)\s*({_NUM})\s*[\])]?\s*$")


@dataclass(frozen=True)
class Evaluation:
    """What :func:`evaluate` measured on a released table.

    Attributes
    ----------
    metrics : dict
        Every requested registered metric.
    verification : Verification
        k (and l, t when asked) required and achieved.
    risk : dict
        Prosecutor re-identification risk: ``highest`` (1 / smallest class)
        and ``average`` (classes / released records).
    levels : dict or None
        The level of every quasi-identifier when the release is full-domain
        (every attribute has a hierarchy and one level fits every row).
    release : Release
        The rebuilt release (class of every record, per-class values).
    """

    metrics: dict
    verification: object
    risk: dict
    levels: dict | None
    release: Release = field(repr=False)

    @property
    def suppressed(self) -> int:
        """Records suppressed in the release."""
        return self.release.suppressed

    @property
    def dropped(self) -> int:
        """Rows of the original left out for a missing value (``missing="drop"``)."""
        data = cast(EncodedTable, self.release.data)
        return int(data.dropped)

    def as_dict(self) -> dict[str, Any]:
        """A JSON-ready summary: metrics, verification, risk, classes, levels."""
        sizes = self.release.sizes
        return {
            "records": int(self.release.class_of.shape[0]),
            "released": int(sizes.sum()),
            "suppressed": self.suppressed,
            "dropped": self.dropped,
            "classes": {"count": int(len(sizes)),
                        "min": int(sizes.min()) if len(sizes) else None,
                        "max": int(sizes.max()) if len(sizes) else None,
                        "mean": float(sizes.mean()) if len(sizes) else None},
            "levels": self.levels,
            "risk": dict(self.risk),
            "verification": self.verification,
            "metrics": dict(self.metrics),
        }


def _cell_text(value: Any) -> str:
    if isinstance(value, (float, np.floating)) and float(value).is_integer():
        return str(int(value))
    return str(value).strip()


def _column_text(series: pd.Series) -> npt.NDArray[Any]:
    """Released cells as stripped text, one conversion per distinct value."""
    codes, uniques = pd.factorize(series, use_na_sentinel=False)
    return np.asarray([_cell_text(v) for v in uniques], dtype=object)[codes]


def _fail(attr: str, row: Any, value: Any, why: str) -> DataError:
    row = row.item() if isinstance(row, np.generic) else row
    return DataError(f"evaluate: released value {str(value)!r} of {attr!r} in row {row!r} "
                     f"{why}")


def _hierarchy_cells(attr: Any, labels: npt.NDArray[Any], rows: npt.NDArray[np.int64],
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
        node_at[lv] = [lookup.get(u, -1) for u in uniq]
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


def _date_span(text: str) -> tuple[int, int] | None:
    """``(first, last)`` in days of a released date or ``[first, last]``, or ``None``."""
    first, sep, last = text[1:-1].partition(", ") if text.startswith("[") \
        and text.endswith("]") else (text, "", text)
    if text.startswith("[") and not sep:
        return None
    a, b = parse_date(first), parse_date(last)
    return None if a is None or b is None else (date_days(a), date_days(b))


def _number_span(attr: Any, text: str) -> tuple[float, float] | None:
    """``(lo, hi)`` of a released number, range or date interval; None if it is none."""
    if attr.date:
        return _date_span(text)
    try:
        return float(text), float(text)
    except ValueError:
        match = _RANGE.match(text)
        return (float(match.group(1)), float(match.group(2))) if match else None


def _free_cells(attr: Any, labels: npt.NDArray[Any], rows: npt.NDArray[np.int64],
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
                span = _date_span(text)
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
    domain = {str(v): j for j, v in enumerate(attr.domain)}
    members = []
    for c, text in enumerate(class_labels):
        if text == "*":
            items = set(domain.values())
        else:
            parts = text[1:-1].split(",") if text.startswith("{") and text.endswith("}") \
                else [text]
            unknown = [p.strip() for p in parts if p.strip() not in domain]
            if unknown:
                raise _fail(attr.name, index[rows[first[c]]], text,
                            f"holds {unknown[0]!r}, which is not a value of the column")
            items = {domain[p.strip()] for p in parts}
        members.append(items)
    for i, (c, code) in enumerate(zip(cls, attr.codes[rows])):
        if code not in members[c]:
            raise _fail(attr.name, index[rows[i]], labels[i],
                        f"does not cover the original value {str(attr.domain[code])!r}")
    distinct = np.array([len(m) for m in members], dtype=np.int64)
    return AttributeRelease(class_labels.astype(object), None, None, None, None, distinct)


def evaluate(original: pd.DataFrame, released: pd.DataFrame, schema: Schema, k: int = 1, *,
             l: float | None = None, diversity: str = "distinct", c: float = 1.0,
             t: float | None = None, sensitive: str | None = None,
             metrics: Sequence[str] | None = None,
             suppressed: npt.ArrayLike | None = None,
             target: str | None = None, missing: str = "error") -> Evaluation:
    """Privacy and information loss of ``released``, a release of ``original``.

    Parameters
    ----------
    original : DataFrame
        The table before anonymization (a pandas DataFrame; :func:`kanon_graph.evaluate`
        also takes two Dask DataFrames, see :mod:`kanon_graph.scale.dask_evaluate`).
    released : DataFrame
        The released table, row-aligned with ``original`` (same number of
        rows, same order), with every quasi-identifier column. With
        ``missing="drop"``, row-aligned with the rows of ``original`` that
        have no missing value, as :func:`kanon_graph.anonymize` releases them.
    schema : Schema
        Quasi-identifiers, hierarchies and sensitive attributes.
    k : int
        The k to check (and the threshold of discernibility and CAVG).
    l, diversity, c, t, sensitive
        Optional l-diversity / t-closeness to check, as in
        :func:`kanon_graph.anonymize`.
    metrics : list of str, optional
        Registered metrics to compute (default: all whose needs are met;
        the classification metrics only with a ``target``).
    suppressed : array of bool, optional
        Which rows are suppressed (default: rows whose quasi-identifiers
        are all ``*``).
    missing : {"error", "drop", "keep"}
        Rows of ``original`` with a missing quasi-identifier or sensitive
        value: an error (default), or left out as ``anonymize(...,
        missing="drop")`` leaves them out (their number is in
        ``evaluation.dropped``), or ``"keep"``: a missing cell is a value of
        its own, as ``anonymize(..., missing="keep")`` releases it.
    target : str, optional
        A class column of ``original`` (not a quasi-identifier); with it the
        metrics that need a target (``classification_accuracy``,
        ``classification_f1``; scikit-learn, ``pip install -e ".[ml]"``)
        are computed too.

    Returns
    -------
    Evaluation

    Raises
    ------
    DataError
        A released value is not a node of its hierarchy, cannot be read as a
        range or set, or does not cover the original value; the message
        names the attribute, the row and the value.

    References
    ----------
    The metrics are those of :mod:`kanon_graph.metrics` (NCP: Sarrafi Aghdam &
    Sonehara 2016, eq. 2-3; GCP and CAVG: Venkata Ramana & Valli Kumari 2013,
    eq. 7 and 9; ARX's Loss: Prasser & Kohlmayer 2015); prosecutor risk
    ``1/|E|`` as in ARX.

    Examples
    --------
    >>> import kanon_graph as kg
    >>> table, schema = kg.datasets.paper_003_table(), kg.datasets.paper_003_schema()
    >>> res = kg.anonymize(table, schema, k=3, algorithm="mst")
    >>> ev = kg.evaluate(table, res.table, schema, k=3)
    >>> ev.metrics == res.metrics, ev.verification.k_achieved >= 3
    (True, True)
    >>> ev.risk["highest"] <= 1 / 3
    True
    """
    from ..privacy.parameters import privacy_model as _model

    data = encode(original, schema, missing=missing, where="evaluate")
    if not isinstance(released, pd.DataFrame):
        raise DataError(f"evaluate: the released table must be a pandas DataFrame, got "
                        f"{type(released).__name__}")
    if len(released) != data.n:
        left = (f" ({data.n} once the {data.dropped} with a missing value are dropped)"
                if data.dropped else "")
        hint = ("" if data.dropped or missing == "drop" else
                "; a release made with missing='drop' needs missing='drop' here too")
        raise DataError(f"evaluate: the released table has {len(released)} rows but the "
                        f"original has {len(original)}{left}; they must be row-aligned{hint}")
    qis = list(schema.quasi_identifiers)
    absent = [q for q in qis if q not in released.columns]
    if absent:
        raise DataError(f"evaluate: quasi-identifier column(s) {absent} are not in the "
                        f"released table; it has columns {list(released.columns)}")
    model = _model(k, l, diversity, c, t, sensitive, data.n, "evaluate").bind(data)
    text = pd.DataFrame({q: _column_text(released[q]) for q in qis})
    if suppressed is None:
        suppressed = (text == "*").all(axis=1).to_numpy()
    suppressed = np.asarray(suppressed, dtype=bool)
    if suppressed.shape != (data.n,):
        raise ValueError(f"The 'suppressed' parameter of evaluate must be a boolean array of "
                         f"length {data.n}. Got shape {suppressed.shape}.")
    kept = ~suppressed
    rows = np.flatnonzero(kept)
    index = released.index.to_numpy()
    class_of = np.full(data.n, -1, dtype=np.int64)
    if rows.size:
        key, _ = pd.MultiIndex.from_frame(text.iloc[rows]).factorize()
        class_of[rows] = np.asarray(key, dtype=np.int64)   # by first appearance
    n_classes = int(class_of.max()) + 1 if rows.size else 0
    cls = class_of[rows]
    attributes, levels = {}, []
    for attr in data.attributes:
        labels = text[attr.name].to_numpy(dtype=object)[rows].astype(str)
        if attr.hierarchy is not None:
            level, node, uniform = _hierarchy_cells(attr, labels, rows, cls, n_classes, index)
            attributes[attr.name] = _hierarchy_release(attr, level, node)
            levels.append(uniform)
        else:
            attributes[attr.name] = _free_cells(attr, labels, rows, cls, n_classes, index, kept)
            levels.append(None)
    sizes = np.bincount(cls, minlength=n_classes)
    full_domain = all(v is not None for v in levels)
    release = Release(data, class_of, sizes, attributes,
                      tuple(levels) if full_domain else None)
    if target is not None and (not isinstance(target, str) or target not in original.columns):
        raise ValueError(f"The 'target' parameter of evaluate must name a column of the "
                         f"original table. Got {target!r}; the columns are "
                         f"{list(original.columns)}.")
    values = compute_metrics(release, model.k, metrics, target=target)
    verification = model.verify(class_of, data)
    risk = {"highest": float(1.0 / sizes.min()) if n_classes else 0.0,
            "average": float(n_classes / sizes.sum()) if n_classes else 0.0}
    return Evaluation(values, verification, risk,
                      dict(zip(data.names, levels)) if full_domain else None, release)
