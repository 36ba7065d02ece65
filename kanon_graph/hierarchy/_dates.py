"""A date hierarchy: days, then months, years and bands of years.

ARX's date builder generalizes a date through calendar granularities
(day, month, quarter, year, decade, century); this builder does the same
with nested levels named by the user, finest first:

``"month"``     ``1944-12``
``"quarter"``   ``1944-Q4``
``"year"``      ``1944``
``"N years"``   ``[1940-1944]`` (bands of N years from year 0, so they nest)
``"decade"``    the same as ``"10 years"``; ``"century"`` as ``"100 years"``

and ``*`` above them. Leaves keep the values' own text (``1944-12-14``,
``13/03/1961``), so they match the data cell by cell; the levels above are
written as above whatever the leaves' format, so nobody need guess which
field of ``03/04`` is the day.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import pandas as pd

from ..cells.kinds import date_text, parse_date
from ..cells.date_text import column_date_format
from ..exceptions import DataError, HierarchyError
from ._tree import Hierarchy

__all__ = ["dates", "DATE_LEVELS"]

DATE_LEVELS = ("month", "quarter", "year", "N years", "decade", "century")
_YEARS = re.compile(r"^\s*(\d+)\s*years?\s*$")


def _granularity(level: Any, name: str | None) -> tuple[int, Callable[[Any], str]]:
    """``(months, label function)`` of one level name."""
    text = str(level).strip().lower()
    if text == "month":
        return 1, lambda d: f"{d.year:04d}-{d.month:02d}"
    if text == "quarter":
        return 3, lambda d: f"{d.year:04d}-Q{(d.month - 1) // 3 + 1}"
    if text == "year":
        return 12, lambda d: f"{d.year:04d}"
    years = {"decade": 10, "century": 100}.get(text)
    match = _YEARS.match(text)
    if match:
        years = int(match.group(1))
    if not years:
        raise HierarchyError(f"dates for {name!r}: unknown level {level!r}; levels are "
                             f"{list(DATE_LEVELS)} (N a whole number, e.g. '5 years')")

    def band(d: Any, n: int = years) -> str:
        start = d.year // n * n
        return f"[{start:04d}-{start + n - 1:04d}]"
    return 12 * years, band


def dates(values: Iterable[Any], *,
          levels: Sequence[str] = ("month", "year", "5 years", "decade"),
          name: str | None = None, root: str = "*", format: str | None = None) -> Hierarchy:
    """Hierarchy of a date attribute: each date, then coarser calendar periods.

    Parameters
    ----------
    values : iterable of dates or date text
        The leaves (duplicates ignored): ``datetime64`` values, ``date`` /
        ``datetime`` objects or text such as ``1944-12-14`` or ``13/03/1961``
        (read as a date column's cells are: :mod:`kanon_graph.cells.date_text`).
        A text leaf keeps its own text; a date object is written ``YYYY-MM-DD``.
    levels : sequence of str
        Level names, finest first (see the module docstring); each period
        must lie inside the next (``quarter`` then ``year`` nest, ``5 years``
        then ``decade`` too; ``quarter`` then ``month`` or ``4 years`` then
        ``decade`` do not).
    name : str, optional
    root : str
        The root label.
    format : str, optional
        The strptime format of the text values (``"%d/%m/%Y"``); by default
        ISO 8601, or the one format the values tell (needed when day and
        month could be either way round in every value).

    Returns
    -------
    Hierarchy

    Examples
    --------
    >>> h = dates(["1944-12-14", "1947-06-10"], levels=("month", "year", "decade"),
    ...           name="dob")
    >>> h.ancestors("1944-12-14")
    ['1944-12-14', '1944-12', '1944', '[1940-1949]', '*']
    >>> dates(["13/03/1961", "01/02/1970"], levels=("year",)).ancestors("01/02/1970")
    ['01/02/1970', '1970', '*']

    References
    ----------
    Prasser & Kohlmayer, "Putting statistical disclosure control into
    practice: the ARX data anonymization tool" (2015): ARX's date
    hierarchy builder, whose granularities these levels follow.
    """
    if isinstance(levels, str):
        levels = [levels]
    steps = [_granularity(level, name) for level in levels]
    if not steps:
        raise HierarchyError(f"dates for {name!r}: give at least one level")
    for (fine, _), (coarse, _), a, b in zip(steps, steps[1:], levels, levels[1:]):
        if coarse % fine or coarse <= fine:
            raise HierarchyError(f"dates for {name!r}: level {b!r} does not contain whole "
                                 f"{a!r} periods, so the levels would not nest")
    leaves: dict[str, Any] = {}
    given = (pd.Series(list(values), dtype=object).dropna()
             if not isinstance(values, pd.Series) else values.dropna())
    try:
        fmt = column_date_format(list(pd.unique(given)), name or "the values",
                                 f"dates for {name!r}", given=format, builder=True)
    except DataError as exc:
        raise HierarchyError(str(exc)) from None
    for value in given:
        when = parse_date(value, fmt if isinstance(value, str) else None)
        if when is None:
            raise HierarchyError(f"dates for {name!r}: {value!r} is not a date")
        leaves.setdefault(value if isinstance(value, str) else date_text(when), when)
    if not leaves:
        raise HierarchyError(f"dates for {name!r}: no values given")
    ordered = sorted(leaves.items(), key=lambda item: (item[1], item[0]))
    rows = [[text] + [label(when) for _, label in steps] + [root] for text, when in ordered]
    return Hierarchy(rows, name=name, source="dates")
