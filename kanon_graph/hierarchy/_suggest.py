"""Hierarchies for a table that has none: one sensible tree per quasi-identifier.

Global algorithms need a hierarchy for every quasi-identifier. Rather than
ask a user to write four by hand, :func:`suggest` builds a first draft from
the data, by the column's kind (:func:`kanon_graph.cells.kinds.column_kind`):

* **numeric**: nested bands of round widths (1, 2, 5 times a power of ten,
  each width dividing the next: 5, 10, 20, 100, ...; from a finest width of
  1 or 2 doubling, 2, 4, 8, 16, ..., see :func:`round_widths`), the finest giving
  about ``bands`` bands over the span of the middle 90% of the rows (so a
  few large incomes do not make every band 20,000 wide), up to one band
  covering every value (ARX's interval builder with fixed widths); money
  and percent text (``$1,234.50``, ``12%``) is numeric too;
* **date**: month, quarter, year, 5 years, decade
  (:func:`~kanon_graph.hierarchy.dates`: ``2019-07-14 -> 2019-07 ->
  2019-Q3 -> 2019 -> [2015-2019] -> [2010-2019]``);
* **alphanumeric codes** (letters and digits, every value with a digit:
  ICD-10 ``F32.1``, UK postcode districts ``LS6`` and full postcodes
  ``LS6 3AB``, Dutch postcodes ``1234 AB``, product codes): the levels the
  data's prefix tree has (:func:`~kanon_graph.hierarchy.prefix_levels`:
  cut where letters meet digits, before a separator, and digit by digit in
  a run of one width; a level kept when it joins at least 10% of the rows
  with others): ``F32.1 -> F32* -> F3* -> *``, ``LS6 -> LS* -> *``;
* **digit codes** (every value the same length, at least three characters,
  digits and dots only: US ZIP and German postcodes, NAICS): masking from
  the right (:func:`~kanon_graph.hierarchy.masking`), ``02139 -> 0213* ->
  021** -> ... -> *****`` (``021**`` is the ZIP3 area);
* **codes with a suffix** (digits of one width, a separator and a suffix on
  some: ZIP+4 ``02139-4307`` beside ``02139``): the suffix dropped, then the
  head masked, ``02139-4307 -> 02139* -> 0213* -> 021** -> ...``;
* **integers: code or quantity**, decided from the data: non-negative
  integers all of one width of at least three digits (ZIPs stored as
  numbers, ISCO ``2231``) are a code and masked from the right (exact
  decimal bands, so a quantity read so still gets nested bands); integers
  of varying width (FARS's ``irace``, ``istatenum``) are read by
  :func:`~kanon_graph.hierarchy._integers.read_integers`: when neighbouring
  values' records look no more alike than any two values' the order is an
  accident of numbering and the column is a code with look-alike groups, as
  a category gets; when they look alike it is a quantity with bands; when
  unsure both are drafted and a quick data-only release chooses. The note
  says which and why. A number of fewer than five values drops a band
  level whose one band holds 90% of the rows (almost ``*``);
* any other categorical column of at least five values: groups of values
  whose records look alike on the other quasi-identifiers and the sensitive
  column (Ward's merging weighted by row counts, so rare values join the
  values they resemble first; a level each time the groups halve,
  :func:`~kanon_graph.hierarchy._groups.similar_groups`), named by
  their members (``{HS-grad, Some-college, +3 more}``); with fewer values:
  value, then ``*``.

Every leaf is the data's own text (a value `` pad `` keeps its spaces, apart
from ``pad``), so the draft matches the column it was made from.

The result is a draft: write it with :func:`~kanon_graph.write_hierarchy`
(``kanon-graph hierarchy suggest`` does) and edit the files.
"""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Callable, Sequence
from typing import Any, Protocol

import numpy as np
import pandas as pd

from ..cells.amounts import amount_reading, number_reader
from ..cells.kinds import column_kind, is_code_column, parse_number
from ..exceptions import HierarchyError, SchemaError
from ._builders import masking, read_intervals
from ._codes import code_form
from ._dates import dates
from ._groups import MIN_VALUES, Context, similar_groups
from ._integers import ALMOST_ALL, HALVES, as_code, read_integers, without_near_root
from ._prefix import is_prefix_code_column, prefix_levels
from ._tree import Hierarchy


class Schema(Protocol):
    """What :func:`suggest` reads of a :class:`~kanon_graph.Schema` (the schema sits above
    the hierarchies it holds, so this room names it by its shape, not by an import)."""

    @property
    def quasi_identifiers(self) -> Sequence[str]: ...

    @property
    def numeric(self) -> Sequence[str]: ...

    @property
    def categorical(self) -> Sequence[str]: ...

    @property
    def dates(self) -> Sequence[str]: ...

    def hierarchy(self, column: str) -> Hierarchy | None: ...

    def date_format(self, column: str) -> str | None: ...

    @property
    def sensitive(self) -> Sequence[str]: ...

__all__ = ["suggest", "round_widths"]

_CODE = re.compile(r"^[0-9.]+$")


class _Present:
    """A column's present cells (``series.dropna()``), made on first use: most drafts
    read only the distinct values, and dropping the missing cells of a text column
    copies it."""

    def __init__(self, series: pd.Series):
        self._series = series
        self._cells: pd.Series | None = None

    @property
    def cells(self) -> pd.Series:
        if self._cells is None:
            self._cells = self._series.dropna()
        return self._cells


def _prefixed(present: _Present, column: str,
              uniques: Sequence[object] = ()) -> tuple[Hierarchy, str] | None:
    """The prefix levels of an alphanumeric code column (None for another column).

    ``uniques``, the column's distinct values, rule out a text column that is
    no code before its rows are counted (text is its own ``str``).
    """
    if (uniques and all(isinstance(u, str) for u in uniques)
            and not is_prefix_code_column(uniques)):       # type: ignore[arg-type]
        return None
    counts = present.cells.astype(str).value_counts(sort=False)
    texts = sorted(counts.index)
    if not is_prefix_code_column(texts):
        return None
    rows = prefix_levels(texts, [int(counts[t]) for t in texts])
    example = max(rows, key=len)
    how = ("alphanumeric code: prefix levels, " + " -> ".join(example)
           if len(example) > 2 else "alphanumeric code without shared prefixes: value -> *")
    return Hierarchy(rows, name=column, source="suggest"), how


def round_widths(lo: float, hi: float, *, bands: int = 20, integral: bool = False,
                 bulk: tuple[float, float] | None = None) -> list[float]:
    """Nested round band widths over ``[lo, hi]``, finest first.

    The finest width is the smallest of 1, 2 or 5 times a power of ten that
    cuts the range (or ``bulk``, the span most values lie in, when given:
    a few large values then do not widen every band) into at most ``bands``
    bands. From 5 the next ones follow 5 -> 10 -> 20 -> 100 -> 200, so each
    divides the next; from 1 or 2 they double (1 -> 2 -> 4 -> 8, 2 -> 4 -> 8 ->
    16), where the round ones would jump five-fold, 2 -> 10, one level above
    the finest (issue 48: FARS's day of death drafted 2 / 10 / 20 lost 22%
    more by the data yardstick than its hand-built quarter and half months at
    k = 10; 2 / 4 / 8 / 16 / 32 / 64 about as much). They stop before a width
    whose one band (from a multiple of it) holds every value. A range that
    crosses zero never fits one band (``[-w, 0)`` and ``[0, w)`` stay apart):
    it stops at the first width whose two bands around zero hold every value.

    >>> round_widths(17, 90)
    [5, 10, 20]
    >>> round_widths(0, 31)
    [2, 4, 8, 16]
    >>> round_widths(12000.5, 151000.25)
    [10000, 20000, 40000, 80000]
    >>> round_widths(-2500, 110000)
    [10000, 20000, 40000, 80000, 160000]
    >>> round_widths(0, 250000, bulk=(15000, 95000))
    [5000, 10000, 20000, 100000, 200000]
    """
    if not float(hi) - float(lo) > 0:
        return []
    span = float(hi) - float(lo)
    if bulk is not None and float(bulk[1]) - float(bulk[0]) > 0:
        span = float(bulk[1]) - float(bulk[0])
    exponent = math.floor(math.log10(span / bands))
    mantissa = next(m for m in (1, 2, 5, 10) if m * 10.0 ** exponent >= span / bands)
    if mantissa == 10:
        mantissa, exponent = 1, exponent + 1
    if integral and exponent < 0:
        mantissa, exponent = 1, 0
    doubling = mantissa in (1, 2)
    widths: list[float] = []
    while True:
        width = mantissa * 10 ** exponent if exponent >= 0 else mantissa / 10 ** -exponent
        first, last = math.floor(lo / width), math.floor(hi / width)
        if first == last:
            return widths
        widths.append(width)
        if (first, last) == (-1, 0):         # the two bands around zero hold every value
            return widths
        if doubling:
            mantissa *= 2
        else:
            mantissa, exponent = {1: (2, exponent), 2: (1, exponent + 1),
                                  5: (1, exponent + 1)}[mantissa]


def _is_code_column(texts: Sequence[str]) -> bool:
    lengths = {len(t) for t in texts}
    return (len(lengths) == 1 and next(iter(lengths)) >= 3
            and all(_CODE.match(t) and any(c.isdigit() for c in t) for t in texts))


def _integer_code_width(uniques: Sequence[object]) -> int | None:
    """The one digit width of a column of non-negative integers, if at least 3.

    A quantity's integers vary in width as its values spread (17 and 112, 900
    and 12000); a code's do not (ZIP 10001, ISCO 2231, ``19441214``). Masking
    such a column from the right is also exact decimal banding (``1483*`` is
    14830 to 14839), so a quantity misread as a code still gets nested bands.
    """
    texts = []
    for u in uniques:
        if isinstance(u, str):
            text = u.strip()
        elif isinstance(u, (int, np.integer)) and not isinstance(u, (bool, np.bool_)):
            text = str(int(u))
        elif isinstance(u, (float, np.floating)) and float(u).is_integer():
            text = str(int(u))
        else:
            return None
        if not text.isdigit():
            return None
        texts.append(text)
    widths = {len(t) for t in texts}
    return widths.pop() if len(widths) == 1 and len(texts) > 1 and len(texts[0]) >= 3 else None


def _bulk(present: pd.Series, reader: Callable[[str], Any]) -> tuple[float, float]:
    """The 5th and 95th percentiles of a numeric column's rows (the span of its bulk)."""
    counts = present.value_counts(sort=False)
    numbers = np.array([float(reader(u)) if isinstance(u, str) else float(u)
                        for u in counts.index])
    order = np.argsort(numbers, kind="stable")
    share = np.cumsum(counts.to_numpy()[order]) / counts.sum()
    ranked = numbers[order]
    low = int(np.searchsorted(share, 0.05))
    high = min(int(np.searchsorted(share, 0.95)), len(ranked) - 1)
    return float(ranked[low]), float(ranked[high])


def _quantity_because(values: np.ndarray) -> str:
    """Why integers ``values`` read as a quantity, not a code (the draft's note)."""
    digits = sorted({len(str(abs(int(v)))) for v in values})
    if len(digits) > 1:
        return f"a quantity: its integers run from {digits[0]} to {digits[-1]} digits"
    if values.min() < 0:
        return "a quantity: some integers are negative"
    return f"a quantity: integers of {digits[0]} digit(s), too short for a code"


#: The date draft's levels, finest first (issue 48: the 5-year level is the
#: hand-built birth-date hierarchies' own; the quarter sits between month and year).
_DATE_LEVELS = ("month", "quarter", "year", "5 years", "decade")


def _suggest_one(series: pd.Series, column: str, kind: str,
                 date_format: str | None = None,
                 context: Context | None = None) -> tuple[Hierarchy, str]:
    uniques = (context.distinct(column) if context is not None
               and column in context.table.columns else list(pd.unique(series.dropna())))
    if not uniques:
        raise HierarchyError(f"suggest: column {column!r} has no values to build a "
                             f"hierarchy from")
    present = _Present(series)          # the present cells, only when a draft reads them
    if kind == "date":
        return dates(uniques, levels=_DATE_LEVELS, name=column, format=date_format), \
            "date: month, quarter, year, 5 years, decade"
    width = _integer_code_width(uniques) if kind == "numeric" else None
    if width is not None:
        texts = [str(int(float(u))) if not isinstance(u, str) else u for u in uniques]
        return masking(texts, name=column), \
            (f"code: every value an integer of {width} digits (a quantity's would vary "
             f"in width), masked from the right")
    if kind == "numeric":
        reader = functools.lru_cache(maxsize=None)(     # each text read once (_bulk rereads)
            number_reader([u for u in uniques if isinstance(u, str)], parse_number))
        numbers = [reader(u) if isinstance(u, str) else u for u in uniques]
        values = np.asarray(numbers, dtype=float)
        integral = bool(np.all(values == np.round(values)))
        widths = round_widths(values.min(), values.max(), integral=integral,
                              bulk=_bulk(present.cells, reader))
        reading = None
        if integral and context is not None and len(uniques) >= MIN_VALUES:
            others = [c for c in context.table.columns if c != column]
            reading = read_integers(context, column, others, uniques)
        if reading is not None and context is not None and reading.kind != "quantity":
            bands = (read_intervals(uniques, reader, widths=widths, name=column) if widths
                     else None)
            made = as_code(context, column, reading, bands, widths)
            if made is not None:
                return made
        if widths:
            why = f" ({_quantity_because(values)})" if integral else ""
            if reading is not None:           # read from the data: say what it showed
                widths_vary = "digits" in why and " to " in why
                why = f" ({reading.why}" + (f"; {why[2:-1].removeprefix('a quantity: ')})"
                                            if widths_vary else ")")
            bands = read_intervals(uniques, reader, widths=widths, name=column)
            kept = list(widths)
            if len(uniques) < MIN_VALUES:     # as few values as a category drawn value -> *
                bands, kept = without_near_root(bands, present.cells, widths)
            shown = ", ".join(f"{w:g}" for w in kept)
            if len(kept) < len(widths):
                gone = ", ".join(f"{w:g}" for w in widths if w not in kept)
                shown += (f" (a level of width {gone} left out: one band held "
                          f"{ALMOST_ALL:.0%} of the rows or more)")
            texts = [u for u in uniques if isinstance(u, str)]
            amounts = amount_reading(texts) if texts else None    # money or percent text
            unit = (None if amounts is None else "percentages" if amounts.unit == "%"
                    else f"amounts in {amounts.unit}")
            said = f"{unit} written as text, read as numbers; " if unit else ""
            return bands, f"numeric{why}: {said}bands of width {shown}"
    texts = [str(u) for u in uniques]
    made = _prefixed(present, column, uniques) if kind != "numeric" else None
    if made is not None:
        return made
    width = code_form(texts) if kind != "numeric" else None
    if width is not None:
        return masking(texts, name=column), \
            (f"code of {width} digits, a suffix after a separator on some (ZIP+4 beside "
             f"ZIP): the suffix dropped, then masked from the right")
    if kind != "numeric" and (_is_code_column(texts) or (  # its cells are digits only
            all(isinstance(u, str) and _CODE.match(u) for u in uniques)
            and is_code_column(present.cells))):
        return masking(texts, name=column), \
            f"code of {len(texts[0])} characters: masked from the right"
    if kind != "numeric" and len(texts) >= MIN_VALUES and context is not None:
        others = [c for c in context.table.columns if c != column]
        rows = similar_groups(context, column, others, factor=HALVES)
        sizes = " -> ".join(str(len({r[i] for r in rows})) for i in range(1, len(rows[0]) - 1))
        if sizes:
            return Hierarchy(rows, name=column, source="suggest"), \
                (f"categorical, {len(texts)} values: groups of values whose records look "
                 f"alike on the other columns "
                 f"({sizes} groups, then *)")
    rows = [[t, "*"] for t in sorted(texts)]
    what = "one value" if kind == "numeric" else f"categorical, {len(texts)} values"
    return Hierarchy(rows, name=column, source="suggest"), f"{what}: value -> *"


def suggest(table: pd.DataFrame, schema: Schema, *,
            columns: Sequence[str] | None = None) -> dict[str, tuple[Hierarchy, str]]:
    """A draft hierarchy for every quasi-identifier that has none.

    Parameters
    ----------
    table : DataFrame
    schema : Schema
        Gives the quasi-identifiers and their kinds (declared or inferred).
    columns : list of str, optional
        Only these quasi-identifiers (default: every one without a
        hierarchy in ``schema``).

    Returns
    -------
    dict of str to (Hierarchy, str)
        Per column, the hierarchy and one line saying how it was built.

    Examples
    --------
    >>> import pandas as pd, kanon_graph as kg
    >>> table = pd.DataFrame({"age": [23, 37, 58], "zip": ["02139", "02141", "10001"],
    ...                       "sex": ["F", "M", "F"]})
    >>> made = kg.hierarchy.suggest(table, kg.Schema(quasi_identifiers=["age", "zip", "sex"]))
    >>> {c: how for c, (h, how) in made.items()}["zip"]
    'code of 5 characters: masked from the right'
    >>> made["age"][0].ancestors(37)
    ['37', '[36-37]', '[36-39]', '[32-39]', '[32-47]', '[32-63]', '*']
    >>> icd = pd.DataFrame({"icd": ["F32.1", "F32.0", "F33.2", "F41.1", "F41.0", "F20.0"]})
    >>> kg.hierarchy.suggest(icd, kg.Schema(quasi_identifiers=["icd"]))["icd"][0].ancestors("F32.1")
    ['F32.1', 'F32*', 'F3*', '*']
    """
    if columns is None:
        columns = [c for c in schema.quasi_identifiers if schema.hierarchy(c) is None]
    unknown = [c for c in columns if c not in table.columns]
    if unknown:
        raise SchemaError(f"suggest: column(s) {unknown} are not in the table; it has "
                          f"{list(table.columns)}")
    described = list(dict.fromkeys([*schema.quasi_identifiers,
                                    *getattr(schema, "sensitive", ())]))
    context = Context(table[[c for c in described if c in table.columns]])
    out = {}
    for column in columns:
        kind = column_kind(schema, column, table[column], context.text_values(column)
                           if column in context.table.columns else None)
        out[column] = _suggest_one(table[column], column, kind, schema.date_format(column),
                                   context)
    return out
