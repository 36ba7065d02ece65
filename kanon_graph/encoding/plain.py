"""Fast paths of :func:`kanon_graph.encoding.encode` for the commonest columns.

Each gives what the general path gives, read at once instead of cell by cell
(``tests/test_encoding_fast_paths.py`` holds each equal to the general path
on random columns):

* :func:`plain_strings` -- a column of pandas' string dtype (pyarrow-backed in
  pandas 3) reads its distinct values one Python call per cell (about a
  microsecond each, and the kind inference reads them several times): they
  are taken once as an object array of the same ``str`` values;
* :func:`iso_column_days` -- distinct texts that are all ``YYYY-MM-DD`` days
  are an ISO date column: that is what the kind inference
  (:func:`~kanon_graph.cells.kinds.column_kind`) and the format rule
  (:func:`~kanon_graph.cells.date_text.column_date_format`) decide by reading
  each text with Python's ``datetime``, and numpy reads them all in one call;
* :func:`_iso_cells` -- those dates' codes, texts and days, as
  :func:`~kanon_graph.encoding.cells._date_cells` gives them;
* :func:`number_texts` -- the shortest text of each distinct number
  (:func:`~kanon_graph.encoding.cells._number_text`) for a whole array.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..cells.kinds import is_text_column

__all__ = ["plain_strings", "iso_column_days", "number_texts"]



def plain_strings(distinct, inverse, uniques):
    """``(distinct, (inverse, values))`` with a string-dtype column's values as Python strs.

    ``distinct`` is a column's distinct values (a Series, no missing value),
    ``inverse, uniques`` the column's factorization. A column of any other
    dtype comes back as it is.
    """
    if not isinstance(distinct.dtype, pd.StringDtype):
        return distinct, (inverse, uniques)
    values = distinct.to_numpy(dtype=object)
    return pd.Series(values, index=distinct.index, name=distinct.name, dtype=object), \
        (inverse, values)


def iso_column_days(distinct, factorized):
    """Days since 1970-01-01 of a text column's distinct values, when all are plain ISO days.

    None unless ``distinct`` (no missing value) is a text column whose every
    value is a ``YYYY-MM-DD`` text of a real day from year 1 on, in ASCII
    digits (:func:`~kanon_graph.encoding.cells._plain_iso_days`); then every
    value is also one that :func:`~kanon_graph.cells.date_text.parse_iso`
    reads, so the column is an ISO date column. ``factorized``:
    ``(inverse, values)`` of the column, values in ``distinct``'s order.
    """
    if factorized is None or not len(distinct) or not is_text_column(distinct):
        return None
    values = factorized[1]
    head = values[0]
    if not isinstance(head, str) or len(head) != 10 or head[4] != "-" or head[7] != "-":
        return None                    # most text columns end here, after one value
    return _plain_iso_days(values)


def _iso_cells(factorized, days):
    """``(codes, texts, days, None)`` of an ISO date column (:func:`iso_column_days`'s days),
    as :func:`~kanon_graph.encoding.cells._date_cells` returns them: codes in the dates'
    order, each date its own text."""
    inverse, values = factorized
    order = np.argsort(days, kind="stable")
    rank = np.empty(len(order), dtype=np.int64)
    rank[order] = np.arange(len(order))
    texts = np.asarray(values, dtype=object)[order].tolist()
    return rank[inverse], texts, days[order].astype(float), None


def number_texts(ordered):
    """``[_number_text(v) for v in ordered.tolist()]`` for an integer or float array.

    Integers, and whole floats below 2**53, as integer text; any other float
    as its ``repr`` (the shortest text that reads back as it).

    >>> number_texts(np.array([1.0, 2.5, -0.0, 1e300]))
    ['1', '2.5', '0', '1e+300']
    """
    values = ordered.tolist()
    if ordered.dtype.kind in "iu":
        return list(map(str, values))
    texts = list(map(repr, values))
    with np.errstate(invalid="ignore"):
        whole = np.flatnonzero(np.isfinite(ordered) & (ordered == np.trunc(ordered))
                               & (np.abs(ordered) < 2.0**53))
    if len(whole):
        for i, text in zip(whole.tolist(), ordered[whole].astype(np.int64).astype(str).tolist()):
            texts[i] = text
    return texts


def _plain_iso_days(uniques):
    """Days since 1970-01-01 of distinct ``YYYY-MM-DD`` texts, read by numpy at once.

    None unless every value is such a text of a real day from year 1 on (then
    each is read by :func:`~kanon_graph.cells.kinds.parse_date` as before, and
    a bad one is named): numpy reads a shorter text as a month or a year, and
    year 0, which Python's dates do not have.

    >>> _plain_iso_days(["1970-01-02", "1969-12-31"]).tolist()
    [1, -1]
    >>> _plain_iso_days(["1970-01-02", "1970-02-30"]) is None    # no such day
    True
    >>> _plain_iso_days(["1970-01-02", "1970-01"]) is None       # not a day
    True
    """
    if not len(uniques) or not all(isinstance(u, str) for u in uniques):
        return None
    texts = np.asarray(uniques, dtype="U10")
    if texts.dtype.itemsize != 40 or any(len(u) != 10 for u in uniques):
        return None
    chars = texts.view(np.uint32).reshape(len(texts), 10)
    digits = chars[:, [0, 1, 2, 3, 5, 6, 8, 9]]
    if not (((digits >= 48) & (digits <= 57)).all() and (chars[:, [4, 7]] == 45).all()
            and (digits[:, :4] > 48).any(axis=1).all()):
        return None
    try:
        return np.asarray(texts, dtype="datetime64[D]").astype(np.int64)
    except ValueError:
        return None
