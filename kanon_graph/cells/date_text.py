"""Dates as people write them: ``1961-03-13``, ``13/03/1961``, ``03/13/1961``, ``13.03.1961``.

ISO 8601 text (``1961-03-13``, ``19610313``, ``1961-03-13T08:30``) is a date
wherever it occurs. A column of other date text is read in one *format*, a
:meth:`datetime.datetime.strptime` format such as ``%d/%m/%Y``:

* the shapes read without being told are ``dd/mm/yyyy`` and ``mm/dd/yyyy``
  with ``/``, ``.`` or ``-`` between the fields, and ``yyyy/mm/dd``, each
  optionally followed by a time ``HH:MM`` or ``HH:MM:SS`` (after a blank or
  a ``T``); a day or a month may have one digit (``1/3/1961``);
* which field is the day is decided from the column's cells: a first field
  above 12 in some cell makes the column day first, a second field above 12
  month first; both seen is an error naming two such cells; when every cell
  could be read either way (both fields at most 12), nobody can tell, and the
  user says it (``Schema(dates={column: "%d/%m/%Y"})``, ``--date-format``);
* a two-digit year (``13/03/61``) is refused: the century would be a guess.

:func:`date_reading` says what a column's distinct texts are;
:func:`column_date_format` is the one rule for a column known to be a date.
"""

from __future__ import annotations

import datetime as _dt
import re
from typing import NamedTuple

from ..exceptions import DataError

__all__ = ["ISO_DATE", "parse_iso", "parse_with", "DateReading", "date_reading",
           "column_date_format", "check_date_format", "how_to_say", "cell_problem"]

ISO_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?)?$")
_TIME = r"(?:[ T](\d{1,2}):(\d{2})(?::(\d{2}))?)?"
_DAY_MONTH = re.compile(rf"^(\d{{1,2}})([/.-])(\d{{1,2}})\2(\d{{4}}){_TIME}$")
_YEAR_FIRST = re.compile(rf"^(\d{{4}})/(\d{{1,2}})/(\d{{1,2}}){_TIME}$")
_SHORT_YEAR = re.compile(rf"^(\d{{1,2}})([/.-])(\d{{1,2}})\2(\d{{2}}){_TIME}$")
_TIMES = ("", " %H:%M", " %H:%M:%S", "T%H:%M", "T%H:%M:%S")


def parse_iso(text: str) -> _dt.datetime | None:
    """ISO 8601 text as a ``datetime``, or ``None`` (``1944-12-14``, ``19441214``, with a time)."""
    text = text.strip()
    if not re.match(r"^\d{4}-?\d{2}-?\d{2}([T ].*)?$", text):
        return None
    if re.match(r"^\d{8}", text):         # the basic format; Python 3.10 reads only YYYY-MM-DD
        text = f"{text[:4]}-{text[4:6]}-{text[6:]}"
    try:
        return _dt.datetime.fromisoformat(text).replace(tzinfo=None)
    except ValueError:
        return None


def parse_with(text: str, fmt: str) -> _dt.datetime | None:
    """``text`` read in ``fmt``, a time ``HH:MM[:SS]`` after it allowed; else ``None``.

    >>> parse_with("13/03/1961", "%d/%m/%Y"), parse_with("13/03/1961 08:30", "%d/%m/%Y")
    (datetime.datetime(1961, 3, 13, 0, 0), datetime.datetime(1961, 3, 13, 8, 30))
    >>> parse_with("03/13/1961", "%d/%m/%Y") is None
    True
    """
    text = text.strip()
    for time in (_TIMES if "%H" not in fmt else ("",)):
        try:
            return _dt.datetime.strptime(text, fmt + time)
        except ValueError:
            continue
    return None


def cell_problem(text, fmt: str | None = None) -> str | None:
    """Why one cell of a date column is no date (``None``: it is one in some order).

    The cell alone: whether the column's cells agree on one format is
    :func:`column_date_format`'s question.

    >>> cell_problem("13/03/1961"), cell_problem("31/02/1961"), cell_problem("13/03/61")[:20]
    (None, 'which is not a date', 'a date with a two-di')
    """
    if not isinstance(text, str):
        return None
    if fmt is not None:
        return None if parse_with(text, fmt) is not None else f"which is not a date in {fmt}"
    bare = text.strip()
    if parse_iso(bare) is not None or (_YEAR_FIRST.match(bare) and parse_with(bare, "%Y/%m/%d")):
        return None
    match = _DAY_MONTH.match(bare)
    if match:
        sep = match.group(2)
        if any(parse_with(bare, sep.join(order)) for order in (("%d", "%m", "%Y"),
                                                               ("%m", "%d", "%Y"))):
            return None
    if _SHORT_YEAR.match(bare):
        return ("a date with a two-digit year; which century it means would be a guess: "
                "write the years with four digits")
    return "which is not a date"


class DateReading(NamedTuple):
    """What a column's distinct texts are, as dates.

    ``status`` is ``"iso"`` (every cell ISO 8601, ``19441214`` too), ``"format"`` (every cell
    in ``format``), ``"ambiguous"`` (day and month could be either way:
    ``format`` is the day-first reading), ``"conflict"`` (some cells only
    day first, some only month first: ``examples`` holds one of each),
    ``"two-digit"`` (a year of two digits) or ``"none"`` (not one date
    format). ``examples`` holds cells to show the user.
    """

    status: str
    format: str | None = None
    examples: tuple = ()


def date_reading(texts) -> DateReading:
    """Read a column's distinct present texts as dates.

    >>> date_reading(["13/03/1961", "01/02/1970"])
    DateReading(status='format', format='%d/%m/%Y', examples=())
    >>> date_reading(["03.13.1961", "01.02.1970"]).format
    '%m.%d.%Y'
    >>> date_reading(["01/02/1970", "03/04/1961"]).status
    'ambiguous'
    >>> date_reading(["13/03/61"]).status
    'two-digit'
    """
    texts = list(texts)
    if not texts:
        return DateReading("none")
    if all(parse_iso(t) is not None for t in texts):
        return DateReading("iso")
    if all(_YEAR_FIRST.match(t.strip()) for t in texts):
        fmt = "%Y/%m/%d"
        bad = next((t for t in texts if parse_with(t, fmt) is None), None)
        return DateReading("none", examples=(bad,)) if bad else DateReading("format", fmt)
    if not (_DAY_MONTH.match(texts[0].strip()) or _SHORT_YEAR.match(texts[0].strip())):
        return DateReading("none")         # most text columns end here, after one cell
    matches = [_DAY_MONTH.match(t.strip()) for t in texts]
    if not all(matches):
        short = next((t for t in texts if _SHORT_YEAR.match(t.strip())), None)
        if short is not None and all(m or _SHORT_YEAR.match(t.strip())
                                     for m, t in zip(matches, texts)):
            return DateReading("two-digit", examples=(short,))
        return DateReading("none")
    seps = {m.group(2) for m in matches}
    if len(seps) > 1:
        return DateReading("none")
    sep = seps.pop()
    day_first = next((t for t, m in zip(texts, matches) if int(m.group(1)) > 12), None)
    month_first = next((t for t, m in zip(texts, matches) if int(m.group(3)) > 12), None)
    if day_first is not None and month_first is not None:
        return DateReading("conflict", examples=(day_first, month_first))
    fmt = f"%m{sep}%d{sep}%Y" if month_first is not None else f"%d{sep}%m{sep}%Y"
    bad = next((t for t in texts if parse_with(t, fmt) is None), None)
    if bad is not None:
        return DateReading("none", examples=(bad,))
    if day_first is None and month_first is None:
        return DateReading("ambiguous", fmt, examples=(texts[0],))
    return DateReading("format", fmt)


def how_to_say(column: str, fmt: str | None = None, *, builder: bool = False) -> str:
    """How a user tells the format of ``column``: the CLI flag and the Schema argument
    (with ``builder``, the argument of :func:`kanon_graph.hierarchy.dates`)."""
    fmt = fmt or "%d/%m/%Y"
    sep = next((c for c in fmt if c in "/.-"), "/")
    other = sep.join(("%m", "%d", "%Y")) if fmt.startswith("%d") else sep.join(
        ("%d", "%m", "%Y"))
    if builder:
        return (f"say which with format={fmt!r} (or {other!r}), --date-format {fmt} on "
                f"the command line")
    return (f"say which with --date-format {column}={fmt} (or {other}) on the command "
            f"line, or Schema(dates={{{column!r}: {fmt!r}}})")


def check_date_format(fmt, column: str | None, where: str) -> str:
    """``fmt`` if it is a usable date format for ``column``; a :class:`DataError` otherwise."""
    of = f" of column {column!r}" if column else ""
    if not isinstance(fmt, str) or not re.search(r"%[dmYjbBU]", fmt or ""):
        raise DataError(f"{where}: the date format{of} must be a strptime "
                        f"format such as '%d/%m/%Y'. Got {fmt!r}.")
    if "%y" in fmt:
        raise DataError(f"{where}: the date format {fmt!r}{of} has a "
                        f"two-digit year (%y), and which century it means would be a "
                        f"guess; write the years with four digits (%Y)")
    if "%Y" not in fmt:
        raise DataError(f"{where}: the date format {fmt!r}{of} has no "
                        f"year (%Y)")
    iso = parse_with("2001-02-03", fmt)
    if iso is not None and iso != _dt.datetime(2001, 2, 3):
        raise DataError(f"{where}: the date format {fmt!r}{of} reads ISO "
                        f"dates (2001-02-03) as another day; use '%Y-%m-%d' or no format")
    return fmt


def column_date_format(texts, column: str, where: str, given: str | None = None,
                       rows=None, builder: bool = False) -> str | None:
    """The format a date column's text is read in: ``None`` for ISO 8601, else a format.

    ``texts`` are the column's distinct present cells that are text (a
    ``datetime`` object needs no format); ``given`` the user's format;
    ``rows`` a function naming where a cell occurs (``"row 3"``);
    ``builder`` words the remedy for :func:`kanon_graph.hierarchy.dates`. Raises a
    :class:`DataError` naming the column and cells when the text is no date
    in one format, when day and month cannot be told apart, or on a
    two-digit year.
    """
    texts = [t for t in texts if isinstance(t, str)]
    rows = rows or (lambda text: None)

    def at(text):
        where_ = rows(text)
        return f"{text!r} ({where_})" if where_ else repr(text)

    if given is not None:
        check_date_format(given, column, where)
        bad = next((t for t in texts if parse_with(t, given) is None), None)
        if bad is not None:
            raise DataError(f"{where}: date column {column!r} holds {at(bad)}, which is not "
                            f"a date in its format {given!r}; clean it, or give its format")
        return given
    reading = date_reading(texts)
    if reading.status in ("iso", "format") or not texts:
        return reading.format
    if reading.status == "ambiguous":
        raise DataError(f"{where}: date column {column!r} holds dates whose day and month "
                        f"could be either way round (no day or month above 12, e.g. "
                        f"{reading.examples[0]!r}); "
                        f"{how_to_say(column, reading.format, builder=builder)}")
    if reading.status == "conflict":
        a, b = reading.examples
        raise DataError(f"{where}: date column {column!r} holds {at(a)}, day first, and "
                        f"{at(b)}, month first; one column takes one order: fix the cells "
                        f"written in the other one")
    if reading.status == "two-digit":
        raise DataError(f"{where}: date column {column!r} holds {at(reading.examples[0])}, "
                        f"a date with a two-digit year; which century it means would be a "
                        f"guess: write the years with four digits")
    bad = reading.examples[0] if reading.examples else _odd_one(texts)
    raise DataError(f"{where}: date column {column!r} holds {at(bad)}, which is not a date "
                    f"in the column's format (ISO 8601 YYYY-MM-DD, dd/mm/yyyy, mm/dd/yyyy, "
                    f"dd.mm.yyyy, yyyy/mm/dd, one format per column); clean it, give its "
                    f"format, or do not declare the column a date")


def _odd_one(texts):
    """The first cell out of the column's shape: not ISO among ISO cells, else no date shape."""
    if any(ISO_DATE.match(t.strip()) for t in texts):
        return next(t for t in texts if parse_iso(t) is None)
    return next((t for t in texts if not (_DAY_MONTH.match(t.strip())
                                          or _YEAR_FIRST.match(t.strip()))), texts[0])
