"""Microaggregation: each class released as one aggregate value per attribute.

Where a generalization releases a value that *covers* every member of a
class (a hierarchy node, a range, a set), a microaggregation replaces every
member's value by one representative of the class (Domingo-Ferrer and
Mateo-Sanz 2002, section 2; Domingo-Ferrer and Torra 2005, section 3):

* ``"mean"`` -- a numeric attribute's class mean (a date's rounded to the
  column's resolution and written at it: :func:`_date_centres`);
* ``"median"`` -- a numeric attribute's class median (the mean of the two
  middle values for an even class), or an *ordinal* attribute's lower median
  in domain order (a category must be released);
* ``"mode"`` -- a nominal attribute's most frequent value in the class, the
  first in domain order among equally frequent ones.

A released number or date lies within its class's range, as the release
check (:func:`kanon_graph.pipeline.from_partition.check_cover`) demands: a mean or
median that floating-point rounding (the mean of three ``0.1`` computed as
their sum over 3 is ``0.10000000000000002``) or rounding to a date's
resolution carried past the class's smallest or largest value is that value.

:func:`recode_aggregate` builds the :class:`~kanon_graph.recoding.Release`:
the released value per class in ``labels`` (a float for a numeric
attribute, a domain value for a categorical one), the operator in
``aggregated``, the number or category code in ``centre``, and, so that the
generalization metrics can still measure a class, the range ``lo``/``hi`` of
its members (numeric) and the count of distinct members (``distinct``).
Classes whose released tuples coincide are merged, as in
:func:`~kanon_graph.recoding.recode_partition`: a reader cannot tell them apart.

:func:`aggregate_space` is the standardized space both MDAV-generic's
distance and the SSE / SST information loss are measured in.
"""

from __future__ import annotations

import datetime as _dt
from typing import Any

import numpy as np

from ..cells.kinds import date_days, parse_date
from ._release import AttributeRelease, Release, _classes_from_keys, _sizes, merge_coinciding

__all__ = ["AGGREGATES", "recode_aggregate", "aggregate_space", "AggregateSpace"]

_EPOCH = _dt.datetime(1970, 1, 1)

AGGREGATES = ("mean", "median", "mode")


def _ranges(values, class_of, n_classes):
    """Per class, the smallest and the largest of ``values``."""
    rows = np.flatnonzero(class_of >= 0)
    lo = np.full(n_classes, np.inf)
    hi = np.full(n_classes, -np.inf)
    np.minimum.at(lo, class_of[rows], values[rows])
    np.maximum.at(hi, class_of[rows], values[rows])
    return lo, hi


def _numeric_centres(values, class_of, n_classes, how):
    """Per class, the mean or the median of ``values``, within the class's range.

    The mean is the sum over the count (where the sum overflows, the sum of
    each value over the count); the median of an even class the mean of its
    two middle values (where their sum overflows, the sum of their halves).
    Either is then clamped to the class's smallest and largest value, which
    rounding can cross by an ulp (``0.1 + 0.1 + 0.1`` over 3), never more.
    """
    rows = np.flatnonzero(class_of >= 0)
    cls, vals = class_of[rows], values[rows]
    size = np.bincount(cls, minlength=n_classes)
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        if how == "mean":
            centre = np.bincount(cls, weights=vals, minlength=n_classes) / size
            wide = ~np.isfinite(centre) & (size > 0)
            if wide.any():
                centre[wide] = np.bincount(cls, weights=vals / size[cls],
                                           minlength=n_classes)[wide]
        else:
            order = np.lexsort((vals, cls))              # by class, then by value
            cls, vals = cls[order], vals[order]
            start = np.searchsorted(cls, np.arange(n_classes))
            low = vals[np.minimum(start + (size - 1) // 2, len(vals) - 1)]
            high = vals[np.minimum(start + size // 2, len(vals) - 1)]
            centre = (low + high) / 2.0
            wide = ~np.isfinite(centre)
            centre[wide] = low[wide] / 2.0 + high[wide] / 2.0
    lo, hi = _ranges(values, class_of, n_classes)
    return np.clip(centre, lo, hi)


def _category_centres(codes, class_of, n_classes, n_codes, how):
    """Per class, the code of the mode (first code among ties) or the lower median code."""
    rows = np.flatnonzero(class_of >= 0)
    counts = np.zeros((n_classes, n_codes), dtype=np.int64)
    np.add.at(counts, (class_of[rows], codes[rows]), 1)
    if how == "mode":
        return np.argmax(counts, axis=1)             # argmax: the first maximum
    cumulative = np.cumsum(counts, axis=1)
    half = (cumulative[:, -1] + 1) // 2              # the lower median's rank
    return np.argmax(cumulative >= half[:, None], axis=1)


#: The resolutions a date is released at, coarsest first: a name of
#: :meth:`datetime.datetime.isoformat`'s ``timespec`` and its microseconds.
_RESOLUTIONS = (("days", 86_400_000_000), ("minutes", 60_000_000), ("seconds", 1_000_000),
                ("microseconds", 1))


def _microseconds(when):
    """Microseconds from 1970-01-01 to ``when``, exactly (an int)."""
    delta = when - _EPOCH
    return (delta.days * 86_400 + delta.seconds) * 1_000_000 + delta.microseconds


def _date_centres(attr, days, class_of, n_classes):
    """Each class's date: ``days`` rounded to the column's resolution, within the class.

    The resolution is the coarsest of :data:`_RESOLUTIONS` that every date
    of the column is a whole number of: a column of dates is released as
    dates (``1934-07-21``), one with times at the minute (``1934-07-21T16:00``),
    second or microsecond its values are written at. A rounded value before
    the class's first date or after its last is that date (three records of
    ``1934-07-21T16:00`` release ``1934-07-21T16:00``, not the next day).

    Returns
    -------
    centre : ndarray of float
        The released dates in days since 1970-01-01 (as the check reads them).
    labels : ndarray of object
        Their ISO texts.
    """
    present = np.unique(attr.codes[class_of >= 0])
    instants = {int(c): _microseconds(when) for c in present
                if (when := parse_date(attr.domain[c], attr.date_format if isinstance(
                    attr.domain[c], str) else None)) is not None}
    timespec, unit = next((name, unit) for name, unit in _RESOLUTIONS
                          if all(us % unit == 0 for us in instants.values()))
    rows = np.flatnonzero(class_of >= 0)
    order = rows[np.lexsort((attr.values[rows], class_of[rows]))]   # by class, then by date
    cls = class_of[order]
    first = order[np.searchsorted(cls, np.arange(n_classes))]
    last = order[np.searchsorted(cls, np.arange(n_classes), side="right") - 1]
    centre = np.empty(n_classes)
    labels = np.empty(n_classes, dtype=object)
    for c in range(n_classes):
        steps = float(np.round(days[c] * (86_400_000_000 / unit)))
        us = min(max(int(steps) * unit, instants[int(attr.codes[first[c]])]),
                 instants[int(attr.codes[last[c]])])
        when = _EPOCH + _dt.timedelta(microseconds=us)
        centre[c] = date_days(when)
        labels[c] = when.date().isoformat() if timespec == "days" else \
            when.isoformat(timespec=timespec)
    return centre, labels


def _attribute_release(attr, how, class_of, n_classes):

    rows = np.flatnonzero(class_of >= 0)
    cls = class_of[rows]
    pairs = np.unique(np.column_stack([cls, attr.codes[rows]]), axis=0)
    distinct = np.bincount(pairs[:, 0], minlength=n_classes)
    if attr.kind == "numeric":
        centre = _numeric_centres(attr.values, class_of, n_classes, how)
        lo, hi = _ranges(attr.values, class_of, n_classes)
        if attr.date:
            centre, labels = _date_centres(attr, centre, class_of, n_classes)
        else:
            labels = centre.astype(object)
        return AttributeRelease(labels, None, None, lo, hi, distinct, how, centre)
    code = _category_centres(attr.codes, class_of, n_classes, attr.n_codes, how)
    labels = np.array([attr.domain[c] for c in code], dtype=object)
    return AttributeRelease(labels, None, None, None, None, distinct, how,
                            code.astype(np.int64))


def recode_aggregate(data: Any, class_of: Any, aggregate: dict) -> Any:
    """Microaggregation: each class released as its aggregate per attribute.

    Parameters
    ----------
    data : EncodedTable
    class_of : array of int, shape (n,)
        A class label per record; ``-1`` marks a suppressed record.
    aggregate : dict of str to {"mean", "median", "mode"}
        The operator of every quasi-identifier: ``"mean"`` or ``"median"``
        for a numeric one (or a date), ``"median"`` (ordinal) or ``"mode"``
        (nominal) for a categorical one.

    Returns
    -------
    Release

    Examples
    --------
    >>> import numpy as np, pandas as pd, kanon_graph as kg
    >>> table = pd.DataFrame({"age": [20, 22, 30, 34], "sex": ["F", "M", "M", "M"]})
    >>> data = kg.encode(table, kg.Schema(quasi_identifiers=["age", "sex"]))
    >>> release = recode_aggregate(data, np.array([0, 0, 1, 1]), {"age": "mean", "sex": "mode"})
    >>> release.table()["age"].tolist(), release.table()["sex"].tolist()
    ([21.0, 21.0, 32.0, 32.0], ['F', 'F', 'M', 'M'])
    """

    class_of = np.asarray(class_of, dtype=np.int64)
    valid = class_of >= 0
    class_of = _classes_from_keys(class_of, valid)
    n_classes = int(class_of.max()) + 1 if valid.any() else 0
    attributes = {}
    for attr in data.attributes:
        how = aggregate[attr.name]
        if how not in AGGREGATES or (how == "mode" and attr.kind == "numeric"):
            raise ValueError(f"cannot release numeric attribute {attr.name!r} as its {how!r}"
                             if how in AGGREGATES else
                             f"unknown aggregate {how!r} for {attr.name!r}; one of "
                             f"{list(AGGREGATES)}")
        attributes[attr.name] = _attribute_release(attr, how, class_of, n_classes)
    attributes, class_of, n_classes = merge_coinciding(data, attributes, class_of, valid,
                                                       n_classes)
    sizes = _sizes(data, class_of, valid, n_classes)
    return Release(data, class_of, sizes, attributes, None)


class AggregateSpace:
    """Records as points of MDAV-generic's space (Domingo-Ferrer and Torra 2005, section 3).

    ``squared distance(x, y) = sum_numeric ((x_j - y_j) / s_j)^2
    + sum_ordinal ((rank x_j - rank y_j) / D_j)^2 + sum_nominal [x_j != y_j]``,
    with ``s_j`` the attribute's standard deviation over the records
    (population, ``ddof=0``; 1 when it is 0) and ``D_j`` the number of
    categories of an ordinal attribute (the ordinal distance of the paper:
    the categories between two values over all categories). For numeric
    attributes alone this is the squared Euclidean distance of the
    standardized (z-score) data of the 2002 paper.

    Attributes
    ----------
    numeric : ndarray of float, shape (n, p)
        The numeric attributes standardized, ``(x - mean) / s``.
    ordinal : ndarray of int64, shape (n, r)
        Ordinal codes (domain order); ``ordinal_size`` their ``D_j``.
    nominal : ndarray of int64, shape (n, q)
        Nominal codes; ``nominal_size`` the number of codes.
    scale : ndarray, shape (p,)
        The ``s_j`` (to standardize a released value the same way).
    """

    def __init__(self, data: Any, aggregate: dict) -> None:
        cols, scales, means, ords, ord_sizes, noms, nom_sizes = [], [], [], [], [], [], []
        self.numeric_names, self.ordinal_names, self.nominal_names = [], [], []
        for attr in data.attributes:
            how = aggregate[attr.name]
            if attr.kind == "numeric":
                values = np.asarray(attr.values, dtype=float)
                mean, s = float(values.mean()), float(values.std())
                s = s if s > 0 else 1.0
                cols.append((values - mean) / s)
                scales.append(s)
                means.append(mean)
                self.numeric_names.append(attr.name)
            elif how == "median":
                ords.append(attr.codes)
                ord_sizes.append(attr.n_codes)
                self.ordinal_names.append(attr.name)
            else:
                noms.append(attr.codes)
                nom_sizes.append(attr.n_codes)
                self.nominal_names.append(attr.name)
        n = data.n
        self.numeric = np.column_stack(cols) if cols else np.zeros((n, 0))
        self.scale, self.mean = np.array(scales, dtype=float), np.array(means, dtype=float)
        self.ordinal = (np.column_stack(ords).astype(np.int64) if ords
                        else np.zeros((n, 0), dtype=np.int64))
        self.ordinal_size = np.array(ord_sizes, dtype=np.int64)
        self.nominal = (np.column_stack(noms).astype(np.int64) if noms
                        else np.zeros((n, 0), dtype=np.int64))
        self.nominal_size = np.array(nom_sizes, dtype=np.int64)

    def squared_distance_to(self, rows: np.ndarray, numeric: np.ndarray,
                            ordinal: np.ndarray, nominal: np.ndarray) -> np.ndarray:
        """Squared distance of each of ``rows`` to one point per row (in this space's units)."""
        out = ((self.numeric[rows] - numeric) ** 2).sum(axis=1)
        if self.ordinal.shape[1]:
            out += (((self.ordinal[rows] - ordinal) / self.ordinal_size) ** 2).sum(axis=1)
        if self.nominal.shape[1]:
            out += (self.nominal[rows] != nominal).sum(axis=1)
        return out


def aggregate_space(data: Any, aggregate: dict) -> AggregateSpace:
    """The :class:`AggregateSpace` of ``data`` (ordinal: the attributes released as median)."""
    return AggregateSpace(data, aggregate)
