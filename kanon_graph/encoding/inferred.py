"""What :func:`kanon_graph.encoding.encode` says about a column nobody declared.

ISO date text becomes a date, date text such as ``13/03/1961`` too when its
cells tell the day from the month, digit codes with leading zeros are masked
from the right when no hierarchy is given (:mod:`kanon_graph.cells.kinds`); date
text whose day/month order nobody can tell stays text, with a warning that
says how to tell it, date text with one cell that is no date in the
column's format (``31/02/2020``, a second separator) stays text with a
warning naming that cell, so does a column of numbers with a few text cells
(``unknown``), and date text that cannot be read (two orders at
once, two-digit years) is an error. Each inference is one
:class:`~kanon_graph.exceptions.InferenceWarning`, pointed at the user's
call (:func:`_outside`).
"""

from __future__ import annotations

import os
import re
import sys
import warnings

from ..cells.amounts import amount_reading
from ..cells.kinds import is_code_column, is_number_text, is_text_column, parse_number
from ..cells.date_text import column_date_format, date_reading, how_to_say
from ..exceptions import DataError, InferenceWarning
from ..hierarchy import masking

def _inferred(distinct, column, kind, hierarchy, where, iso=False):
    """Say what was inferred of an undeclared column; a code column's masking hierarchy.

    Each inference is one warning; date text that cannot be read as one
    kind of date raises a :class:`~kanon_graph.exceptions.DataError`.
    ``iso``: the caller found every value a plain ISO day
    (:func:`~kanon_graph.encoding.plain.iso_column_days`), so the format is ISO's.
    """
    if iso:
        texts = list(distinct)
    else:
        texts = [v for v in distinct.dropna() if isinstance(v, str)] \
            if is_text_column(distinct) else []
    if kind == "date" and texts:
        fmt = None if iso else column_date_format(texts, column, where)
        what = ("ISO 8601 date text" if fmt is None else
                f"date text in the format {fmt} (told by cells such as "
                f"{_telling(texts, fmt)!r})")
        if hierarchy is not None:
            how = (f"generalized through its hierarchy: "
                   f"{' -> '.join(hierarchy.ancestors(hierarchy.leaf_labels[0]))}")
        else:
            how = "released as date intervals [first, last] written in ISO 8601"
        warnings.warn(f"{where}: column {column!r} holds {what}: taken as a date (measured "
                      f"in days, {how}); declare it categorical (Schema(categorical="
                      f"[{column!r}]), --categorical {column}) to keep it as text",
                      InferenceWarning, stacklevel=_outside())
    elif kind == "numeric" and texts and not all(parse_number(t) is not None for t in texts):
        _amounts(texts, column, where)
    elif kind == "categorical" and hierarchy is None and texts:
        reading = date_reading(texts)
        if reading.status == "ambiguous":
            warnings.warn(f"{where}: column {column!r} holds date text whose day and month "
                          f"could be either way round (no field above 12, e.g. "
                          f"{reading.examples[0]!r}): kept as text, released as sets of "
                          f"values; {how_to_say(column, reading.format)} to release it as "
                          f"dates", InferenceWarning, stacklevel=_outside())
        elif reading.status == "none" and reading.examples:
            _not_quite_dates(distinct, column, reading, where)
        elif reading.status in ("conflict", "two-digit"):
            try:
                column_date_format(texts, column, where)
            except DataError as exc:
                raise DataError(f"{exc}; or declare it categorical (Schema(categorical="
                                f"[{column!r}]), --categorical {column}) to keep it as "
                                f"text") from None
        elif is_code_column(distinct):
            return _masked(distinct, column, where)
        else:
            _not_quite_numbers(distinct, column, texts, where)
    return hierarchy


def _not_quite_numbers(distinct, column, texts, where):
    """Warn of a column of numbers kept as text for a few cells (``unknown``, ``n/a``),
    naming the first such cell and its row.

    Said when at least :data:`_NUMBERS_AT_LEAST` distinct cells are plain numbers and
    at most :data:`_ODD_AT_MOST` are not (and those are under a twentieth of the
    distinct cells): a column of codes such as ``1, 2, x`` stays text without a word.
    """
    odd = [t for t in texts if not is_number_text(t)]
    numbers = len(texts) - len(odd)
    if not odd or numbers < _NUMBERS_AT_LEAST or len(odd) > _ODD_AT_MOST \
            or 20 * len(odd) >= len(texts):
        return
    cell = odd[0]
    at = _row_of(distinct, cell)
    others = f" and {len(odd) - 1} other text(s)" if len(odd) > 1 else ""
    warnings.warn(f"{where}: column {column!r} holds numbers but for {cell!r}{at}{others}, "
                  f"which is not a number: kept as text, released as sets of values; fix "
                  f"that cell or make it missing (on the command line --na-values {cell}) "
                  f"to release the column as numbers", InferenceWarning,
                  stacklevel=_outside())


#: A column is told to be "numbers but for a few cells" only with this many distinct
#: numbers and at most that many other texts (see :func:`_not_quite_numbers`).
_NUMBERS_AT_LEAST, _ODD_AT_MOST = 10, 3


def _amounts(texts, column, where):
    """Warn that a column of money or percent text is taken as numbers, naming it."""
    reading = amount_reading(texts)
    if reading is None:
        return
    example = next(t for t in texts if parse_number(t) is None)
    unit = "percentages" if reading.unit == "%" else f"amounts in {reading.unit}"
    warnings.warn(f"{where}: column {column!r} holds {unit} written as text: taken as "
                  f"numbers ({example!r} is {reading.number(example)!r}, decimal "
                  f"separator {reading.decimal!r}); declare it categorical (Schema("
                  f"categorical=[{column!r}]), --categorical {column}) to keep it as text",
                  InferenceWarning, stacklevel=_outside())


def _not_quite_dates(distinct, column, reading, where):
    """Warn of a column of date text kept as text for one cell (``31/02/2020``,
    or a second separator), naming the column, the cell and its row."""
    cell = reading.examples[0]
    at = _row_of(distinct, cell)
    shape = (f"date text in the format {reading.format}" if reading.format
             else "date text")
    warnings.warn(f"{where}: column {column!r} holds {shape} but for {cell!r}{at}, which "
                  f"is not a date{' in that format' if reading.format else ''}: kept as "
                  f"text, released as sets of values; fix that cell to release the column "
                  f"as dates, or declare it a date (Schema(dates=[{column!r}]), --dates "
                  f"{column}) to have such cells refused", InferenceWarning,
                  stacklevel=_outside())


def _row_of(distinct, cell):
    """`` (row 7)``: the row label of ``cell`` in the column (a plain Python value,
    not numpy's ``np.int64(7)``), or nothing when it is not found."""
    rows = distinct.index[(distinct == cell).to_numpy()]
    if not len(rows):
        return ""
    row = rows[0]
    return f" (row {getattr(row, 'item', lambda: row)()!r})"


def _telling(texts, fmt):
    """A cell whose day field is above 12 (what told the order), else the first."""
    day = fmt.replace("%", "").index("d") // 2 if "%d" in fmt else 0
    for text in texts:
        fields = [f for f in re.split(r"[^0-9]+", text.strip()) if f]
        if len(fields) > day and fields[day].isdigit() and int(fields[day]) > 12:
            return text
    return texts[0]


def _masked(distinct, column, where):
    texts = sorted(str(v) for v in distinct.dropna())
    hierarchy = masking(texts, name=column)
    example = " -> ".join(hierarchy.ancestors(texts[0]))
    warnings.warn(f"{where}: column {column!r} holds digit codes with leading zeros: "
                  f"generalized by masking trailing digits ({example}); declare it "
                  f"categorical (Schema(categorical=[{column!r}]), --categorical "
                  f"{column}) to release sets of codes instead, or give a hierarchy",
                  InferenceWarning, stacklevel=_outside())
    return hierarchy


#: The package's folder (this module is in its encoding/): a frame whose file is under it
#: is the library's.
_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep


def _outside():
    """The ``stacklevel`` that points a warning at the first caller outside the package.

    Counted from the function that calls ``warnings.warn``: the user's own
    line (``kg.anonymize(...)`` in their script or test), however deep the
    library's path to the warning (the pipeline, ``auto``, ``evaluate``).
    When every caller is the library's (the command line), the outermost.
    """
    frame = sys._getframe(2)            # the caller of the function that warns
    level = 2
    while frame.f_back is not None and \
            os.path.abspath(frame.f_code.co_filename).startswith(_PACKAGE):
        frame = frame.f_back
        level += 1
    return level
