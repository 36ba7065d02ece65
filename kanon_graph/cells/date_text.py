"""Dates as people write them: ``1961-03-13``, ``13/03/1961``, ``03/13/1961``, ``13.03.1961``.

ISO 8601 text (``1961-03-13``, ``19610313``, ``1961-03-13T08:30``) is a date
wherever it occurs. A column of other date text is read in one *format*, a
:meth:`datetime.datetime.strptime` format such as ``%d/%m/%Y``:

* the shapes read without being told are ``dd/mm/yyyy`` and ``mm/dd/yyyy``
  with ``/``, ``.`` or ``-`` between the fields, and ``yyyy/mm/dd`` and
  ``yyyy/dd/mm``, each
  optionally followed by a time ``HH:MM`` or ``HH:MM:SS`` (after a blank or
  a ``T``); a day or a month may have one digit (``1/3/1961``);
* which field is the day is decided from the column's cells: a first field
  above 12 in some cell makes the column day first, a second field above 12
  month first (after a leading year: a second field above 12 makes it
  ``yyyy/dd/mm``, a third ``yyyy/mm/dd``); both seen is an error naming two
  such cells; when every cell could be read either way (both fields at most
  12), nobody can tell, and the user says it
  (``Schema(dates={column: "%d/%m/%Y"})``, ``--date-format``);
* a column of one such format but for a cell that is no date in it
  (``31/02/2020``, or ``13.03.1961`` among ``dd/mm/yyyy`` cells) is not read
  as dates: :func:`date_reading` names that cell, and the encoder says so;
* a two-digit year (``13/03/61``) is refused: the century would be a guess.

:func:`date_reading` says what a column's distinct texts are;
:func:`column_date_format` is the one rule for a column known to be a date.
"""

from __future__ import annotations

import datetime as _dt
import functools
import re
from typing import NamedTuple

from ..exceptions import DataError

__all__ = ["ISO_DATE", "parse_iso", "parse_with", "DateReading", "date_reading",
           "column_date_format", "check_date_format", "how_to_say", "cell_problem",
           "swapped"]

ISO_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?)?$")
_TIME = r"(?:[ T](\d{1,2}):(\d{2})(?::(\d{2}))?)?"
_DAY_MONTH = re.compile(rf"^(\d{{1,2}})([/.-])(\d{{1,2}})\2(\d{{4}}){_TIME}$")
_YEAR_FIRST = re.compile(rf"^(\d{{4}})/(\d{{1,2}})/(\d{{1,2}}){_TIME}$")
_SHORT_YEAR = re.compile(rf"^(\d{{1,2}})([/.-])(\d{{1,2}})\2(\d{{2}}){_TIME}$")
_TIMES = ("", " %H:%M", " %H:%M:%S", "T%H:%M", "T%H:%M:%S")
#: How many (text, format) readings :func:`parse_with` keeps: a column's distinct
#: dates are read by the kind inference, the format rule and the encoder in turn.
_KEPT = 1 << 17
_strptime = _dt.datetime.strptime     # one name, so that a test can count the readings


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
    return _read(text, fmt)


@functools.lru_cache(maxsize=_KEPT)
def _read(text: str, fmt: str) -> _dt.datetime | None:
    """:func:`parse_with`'s reading, done once per distinct ``(text, fmt)``.

    A column's distinct texts are read by :func:`date_reading` (the kind
    inference and the format rule) and then by the encoder: each text is
    read once (a ``datetime`` is immutable, so sharing it is safe), up to
    ``_KEPT`` texts kept, the least recently read dropped first.
    """
    text = text.strip()
    for time in (_TIMES if "%H" not in fmt else ("",)):
        try:
            return _strptime(text, fmt + time)
        except ValueError:
            continue
    return None


def swapped(fmt: str) -> str:
    """``fmt`` with its day and month fields swapped: the other reading of the same text.

    >>> swapped("%d/%m/%Y"), swapped("%Y/%m/%d %H:%M")
    ('%m/%d/%Y', '%Y/%d/%m %H:%M')
    """
    return fmt.replace("%d", "\0").replace("%m", "%d").replace("\0", "%m")


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
        if parse_with(text, fmt) is not None:
            return None
        other = swapped(fmt)
        if other != fmt and parse_with(text, other) is not None:
            return f"which is not a date in {fmt} but is one in {other}"
        return f"which is not a date in {fmt}"
    bare = text.strip()
    if parse_iso(bare) is not None or (_YEAR_FIRST.match(bare) and (
            parse_with(bare, "%Y/%m/%d") or parse_with(bare, "%Y/%d/%m"))):
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

    ``dd/mm/yyyy`` and ``mm/dd/yyyy`` are told apart by a field above 12,
    and so are ``yyyy/mm/dd`` and ``yyyy/dd/mm``. A column of one date shape
    but for a cell that is no date in the column's format (``31/02/2020``, or
    a second separator: ``13.03.1961`` among ``dd/mm/yyyy``) is ``"none"``
    with that format and that cell (``examples``), so a reader can name it.

    >>> date_reading(["13/03/1961", "01/02/1970"])
    DateReading(status='format', format='%d/%m/%Y', examples=())
    >>> date_reading(["03.13.1961", "01.02.1970"]).format
    '%m.%d.%Y'
    >>> date_reading(["01/02/1970", "03/04/1961"]).status
    'ambiguous'
    >>> date_reading(["1961/13/03", "1970/01/02"]).format
    '%Y/%d/%m'
    >>> date_reading(["13/03/1961", "31/02/1970"])
    DateReading(status='none', format='%d/%m/%Y', examples=('31/02/1970',))
    >>> date_reading(["13/03/61"]).status
    'two-digit'
    """
    texts = list(texts)
    if not texts:
        return DateReading("none")
    if all(parse_iso(t) is not None for t in texts):
        return DateReading("iso")
    year_first = [_YEAR_FIRST.match(t.strip()) for t in texts]
    if all(year_first):
        ymd, ydm = "%Y/%m/%d", "%Y/%d/%m"      # a second field above 12 is a day
        return _ordered(texts, year_first, (2, ydm), (3, ymd), ymd)
    if not (_DAY_MONTH.match(texts[0].strip()) or _SHORT_YEAR.match(texts[0].strip())):
        return DateReading("none")         # most text columns end here, after one cell
    matches = [_DAY_MONTH.match(t.strip()) for t in texts]
    if not all(matches):
        short = next((t for t in texts if _SHORT_YEAR.match(t.strip())), None)
        if short is not None and all(m or _SHORT_YEAR.match(t.strip())
                                     for m, t in zip(matches, texts)):
            return DateReading("two-digit", examples=(short,))
        return DateReading("none")
    seps = [m.group(2) for m in matches]
    sep = max(sorted(set(seps)), key=seps.count)      # the column's own separator
    odd = next((t for t, s in zip(texts, seps) if s != sep), None)
    if odd is not None:                                # a second separator: that cell
        kept = [(t, m) for t, m in zip(texts, matches) if m.group(2) == sep]
        texts, matches = [t for t, _ in kept], [m for _, m in kept]
    dmy, mdy = f"%d{sep}%m{sep}%Y", f"%m{sep}%d{sep}%Y"
    reading = _ordered(texts, matches, (1, dmy), (3, mdy), dmy)
    return reading if odd is None else DateReading("none", reading.format, (odd,))


def _ordered(texts, matches, first, second, either):
    """The reading of date cells by the day field: ``first`` and ``second`` are
    ``(field, format)``, the format when that field, above 12 in some cell, is the
    day; ``either`` the format when no cell tells (``"ambiguous"``; both: a conflict)."""
    big = [(int(m.group(first[0])) > 12, int(m.group(second[0])) > 12) for m in matches]
    neither = next((t for t, (a, b) in zip(texts, big) if a and b), None)
    if neither is not None:                     # no day/month in either order
        return DateReading("none", examples=(neither,))
    by_first = next((t for t, m in zip(texts, matches) if int(m.group(first[0])) > 12), None)
    by_second = next((t for t, m in zip(texts, matches) if int(m.group(second[0])) > 12),
                     None)
    if by_first is not None and by_second is not None:
        return DateReading("conflict", examples=(by_first, by_second))
    fmt = first[1] if by_first is not None else second[1] if by_second is not None else either
    bad = next((t for t in texts if parse_with(t, fmt) is None), None)
    if bad is not None:
        return DateReading("none", fmt, examples=(bad,))
    if by_first is None and by_second is None:
        return DateReading("ambiguous", fmt, examples=(texts[0],))
    return DateReading("format", fmt)


def how_to_say(column: str, fmt: str | None = None, *, builder: bool = False) -> str:
    """How a user tells the format of ``column``: the CLI flag and the Schema argument
    (with ``builder``, the argument of :func:`kanon_graph.hierarchy.dates`)."""
    fmt = fmt or "%d/%m/%Y"
    other = swapped(fmt)
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
            other = swapped(given)
            if other != given and all(parse_with(t, other) is not None for t in texts):
                raise DataError(f"{where}: date column {column!r} holds {at(bad)}, which is "
                                f"not a date in its given format {given!r}; the column reads "
                                f"as {other!r} (day and month the other way round): give "
                                + (f"format={other!r}" if builder else
                                   f"Schema(dates={{{column!r}: {other!r}}}) (--date-format "
                                   f"{column}={other} on the command line)"))
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
    its = f" {reading.format}" if reading.format else ""
    raise DataError(f"{where}: date column {column!r} holds {at(bad)}, which is not a date "
                    f"in the column's format{its} (ISO 8601 YYYY-MM-DD, dd/mm/yyyy, "
                    f"mm/dd/yyyy, dd.mm.yyyy, yyyy/mm/dd, yyyy/dd/mm, one format per column); "
                    f"clean it, give its format, or do not declare the column a date")


def _odd_one(texts):
    """The first cell out of the column's shape: not ISO among ISO cells, else no date shape."""
    if any(ISO_DATE.match(t.strip()) for t in texts):
        return next(t for t in texts if parse_iso(t) is None)
    return next((t for t in texts if not (_DAY_MONTH.match(t.strip())
                                          or _YEAR_FIRST.match(t.strip()))), texts[0])
