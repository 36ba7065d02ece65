"""What a cell stands for: the one rule for numbers, dates and missing values.

Every reader of a column asks this module, so the library, :mod:`kanon_graph.io`
and the CLI agree on which text is a number, which column is numeric, which
cell is a date and which cell is missing:

* a *number* is a plain decimal such as ``34``, ``-1.50`` or ``2e3``
  (surrounding blanks allowed); ``inf``, ``nan``, ``1_000`` are text;
* a column is *inferred numeric* when it has a numeric dtype (not bool), or
  when every present cell is a number without a leading zero: ``02139`` is a
  code, not a quantity;
* a *date* is ISO 8601 (``1944-12-14``, ``1944-12-14T08:30``) or text in a
  date format such as ``%d/%m/%Y`` (:mod:`kanon_graph.cells.date_text`); a
  ``datetime64`` column is a date column, and so is a text column whose every
  present cell is an ISO date written with dashes (:func:`is_iso_date_column`),
  or a date in one format whose day/month order the cells tell
  (``13/03/1961``: day first; :func:`~kanon_graph.cells.date_text.date_reading`);
* money and shares written as text (``$1,234.50``, ``1.234,50 EUR``,
  ``12%``) in one unit make a numeric column too, each cell the number it
  writes (:mod:`kanon_graph.cells.amounts`);
* a *code* column holds digit strings of one width, at least one with a
  leading zero (ZIP ``02139``, ``007``): categorical, and generalized by
  masking its trailing digits when no hierarchy is given
  (:func:`is_code_column`);
* a declared kind (``Schema(numeric=, dates=, categorical=)``, ``--dates``,
  ``--categorical``) always wins over the inference;
* a *missing* cell is what pandas calls missing (``NaN``, ``None``, ``NaT``):
  ``?``, ``NA`` or a blank cell are data unless the reader maps them.
"""

from __future__ import annotations

import datetime as _dt
import math
import re

import numpy as np
import pandas as pd

from .amounts import amount_reading
from .date_text import ISO_DATE as _ISO_DATE, date_reading, parse_iso, parse_with

__all__ = ["NUMBER", "parse_number", "is_number_text", "is_numeric_column",
           "is_text_column", "is_date_column", "parse_date", "date_text", "column_kind",
           "missing_mask", "is_iso_date_column", "is_code_column", "inferred_kind",
           "one_kind"]

NUMBER = re.compile(r"^\s*[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?\s*$")
_INTEGER = re.compile(r"^\s*[+-]?[0-9]+\s*$")
_LEADING_ZERO = re.compile(r"^\s*[+-]?0[0-9]")
_EPOCH = _dt.datetime(1970, 1, 1)
_DIGITS = re.compile(r"^[0-9]+$")


def parse_number(text):
    """The exact number a cell's text stands for (an int stays an int), or ``None``.

    >>> parse_number("1.50"), parse_number("12"), parse_number("inf"), parse_number("1_0")
    (1.5, 12, None, None)
    """
    if not isinstance(text, str) or not NUMBER.match(text):
        return None
    if _INTEGER.match(text):
        return int(text)
    value = float(text)
    return value if math.isfinite(value) else None


def is_number_text(text):
    """Whether ``text`` is a plain number without a leading zero (``02139`` is a code)."""
    return parse_number(text) is not None and not _LEADING_ZERO.match(text)


def is_text_column(series):
    """Whether a column holds Python objects or strings (not a typed dtype)."""
    return series.dtype == object or pd.api.types.is_string_dtype(series.dtype)


def is_date_column(series):
    """Whether a column has a ``datetime64`` dtype (with or without a time zone)."""
    return pd.api.types.is_datetime64_any_dtype(series.dtype)


def is_numeric_column(series):
    """Whether a column counts as numeric when nobody declared its kind.

    A numeric dtype (not bool), or text whose every present cell is a number
    without a leading zero. A column with no present cell is not numeric.
    """
    if pd.api.types.is_bool_dtype(series.dtype) or is_date_column(series):
        return False
    if pd.api.types.is_numeric_dtype(series.dtype):
        return True
    if not is_text_column(series):
        return False
    uniques = pd.unique(series.dropna())
    return bool(len(uniques)) and all(isinstance(u, str) and is_number_text(u)
                                      for u in uniques)


def _text_uniques(series, uniques=None):
    if not is_text_column(series):
        return None
    if uniques is None:
        uniques = pd.unique(series.dropna())
    if not len(uniques) or not all(isinstance(u, str) for u in uniques):
        return None
    return uniques


def is_iso_date_column(series):
    """Whether every present cell of a text column is an ISO date with dashes.

    ``1944-12-14`` or ``1944-12-14T08:30``; the basic form ``19441214`` is a
    number. A column with no present cell is not a date column.

    >>> is_iso_date_column(pd.Series(["1944-12-14", None, "2001-02-28"]))
    True
    >>> is_iso_date_column(pd.Series(["1944-12-14", "2001-02-30"]))
    False
    """
    uniques = _text_uniques(series)
    return uniques is not None and _iso_dates(uniques)


def _iso_dates(texts):
    return all(_ISO_DATE.match(u.strip()) and parse_date(u) is not None for u in texts)


def is_code_column(series):
    """Whether a text column holds fixed-width digit codes with a leading zero.

    Every present cell is digits only, all of one width (at least 2), and at
    least one starts with ``0``: ``02139`` is a ZIP code, not the number 2139.

    >>> is_code_column(pd.Series(["02139", "10001", None]))
    True
    >>> is_code_column(pd.Series(["2139", "10001"]))
    False
    """
    uniques = _text_uniques(series)
    return uniques is not None and _codes(uniques)


def _codes(texts):
    if not all(_DIGITS.match(u) for u in texts):
        return False
    widths = {len(u) for u in texts}
    return len(widths) == 1 and widths.pop() >= 2 and any(u[0] == "0" for u in texts)


def inferred_kind(series, uniques=None):
    """The kind of an undeclared column, and whether it is a code column.

    ``("date", False)`` for a ``datetime64`` or ISO date text column, or
    text in a date format whose day/month order the cells tell,
    ``("numeric", False)`` for a numeric one (:func:`is_numeric_column`) or
    amounts as text (:func:`~kanon_graph.cells.amounts.amount_reading`),
    ``("categorical", True)`` for a code column (:func:`is_code_column`),
    ``("categorical", False)`` otherwise. The distinct present cells are
    found once for the three tests (the same answers as the three functions),
    or given as ``uniques`` (``pd.unique`` of them, by a caller that has it).
    """
    if is_date_column(series):
        return "date", False
    if pd.api.types.is_bool_dtype(series.dtype):
        return "categorical", False
    if pd.api.types.is_numeric_dtype(series.dtype):
        return "numeric", False
    texts = _text_uniques(series, uniques)
    if texts is None:
        return "categorical", False
    if _iso_dates(texts):
        return "date", False
    if all(is_number_text(u) for u in texts):
        return "numeric", False
    if date_reading(texts).status == "format":
        return "date", False
    if amount_reading(texts) is not None:
        return "numeric", False
    return "categorical", _codes(texts)


def column_kind(schema, column, series, uniques=None):
    """``"numeric"``, ``"date"`` or ``"categorical"``: declared, else inferred.

    Declared kinds (``schema.numeric``, ``schema.dates``, ``schema.categorical``)
    win; otherwise a ``datetime64`` column or ISO date text is a date, and a
    numeric one (see :func:`is_numeric_column`) numeric. ``uniques``: as for
    :func:`inferred_kind`.
    """
    if column in schema.numeric:
        return "numeric"
    if column in schema.dates:
        return "date"
    if column in schema.categorical:
        return "categorical"
    return inferred_kind(series, uniques)[0]


def parse_date(value, fmt=None):
    """A cell as a ``datetime.datetime``, or ``None`` when it is no date.

    Accepts ``datetime``/``date``/``Timestamp`` objects and ISO 8601 text
    (``1944-12-14``, ``19441214``, ``1944-12-14T08:30:00``); with ``fmt``
    (a strptime format such as ``%d/%m/%Y``) text in that format instead.

    >>> parse_date("1944-12-14"), parse_date("14/12/1944")
    (datetime.datetime(1944, 12, 14, 0, 0), None)
    >>> parse_date("14/12/1944", "%d/%m/%Y")
    datetime.datetime(1944, 12, 14, 0, 0)
    """
    if isinstance(value, pd.Timestamp):
        return None if pd.isna(value) else value.to_pydatetime().replace(tzinfo=None)
    if isinstance(value, _dt.datetime):
        return value.replace(tzinfo=None)
    if isinstance(value, _dt.date):
        return _dt.datetime(value.year, value.month, value.day)
    if isinstance(value, np.datetime64):
        return None if np.isnat(value) else pd.Timestamp(value).to_pydatetime()
    if not isinstance(value, str):
        return None
    return parse_iso(value) if fmt is None else parse_with(value, fmt)


def date_text(value):
    """ISO text of a date: ``YYYY-MM-DD`` at midnight, else with the time."""
    if value.hour == value.minute == value.second == value.microsecond == 0:
        return value.date().isoformat()
    return value.isoformat()


def date_days(value):
    """Days (fractional with a time) since 1970-01-01, the unit of date distances."""
    return (value - _EPOCH) / _dt.timedelta(days=1)


def missing_mask(series):
    """``NaN`` / ``None`` / ``NaT`` cells of a column, as a boolean array."""
    return series.isna().to_numpy().copy()



def cell_text(value):
    """The text of one present cell: a date's ISO text, any other value's ``str``."""
    if isinstance(value, (_dt.datetime, pd.Timestamp)):
        return date_text(value)
    return value if isinstance(value, str) else str(value)


def one_kind(cells):
    """An object column that mixes text with other values, as text throughout.

    A withheld row (``safepub``'s records not released) is ``*`` in every
    column, so a column of numbers or dates holds ``*`` beside them. A typed
    file such as Parquet takes one type per column: such a column is written
    as text, each present value its own text and a missing cell still
    missing, as a released quasi-identifier is (any other column comes back
    as it is).

    >>> one_kind(pd.Series([3, "*", None], dtype=object)).tolist()
    ['3', '*', None]
    >>> one_kind(pd.Series([3, 4])).tolist()
    [3, 4]
    """
    if cells.dtype != object:
        return cells
    values = cells.to_numpy(dtype=object)
    present = ~pd.isna(values)
    kinds = {isinstance(v, str) for v in values[present]}
    if len(kinds) < 2:
        return cells
    out = values.copy()
    out[present] = [cell_text(v) for v in values[present]]
    out[~present] = None
    return pd.Series(out, index=cells.index, name=cells.name, dtype=object)
