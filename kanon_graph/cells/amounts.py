"""Amounts written as text: money and percentages read as numbers.

A spreadsheet export writes money as ``$1,234.50`` or ``1.234,50 EUR`` and
shares as ``12%``. A column whose every present cell is such an amount, in
one unit, is a number column (:func:`amount_reading`); each cell stands for
the number it writes (``$1,234.50`` is 1234.5, ``12%`` is 12: the figure as
written, so band labels read as the column does).

The grammar of a cell: an optional sign, an optional currency before
(``$ € £ ¥`` or a three-letter code such as ``USD``), the digits, an
optional currency or ``%`` after. The digits may be grouped by thousands
(``,``, ``.``, a space, ``'``) and have a decimal part. Which of ``.`` and
``,`` is the decimal separator is read from the column: ``,`` when some cell
reads only that way (``1.234,50``, ``12,5``) and every cell reads so, else
``.``.
At least one cell must carry the unit, so plain grouped digits (``1,234``)
stay text.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

__all__ = ["AmountReading", "amount_reading", "number_reader"]

_CELL = re.compile(r"^\s*([+-])?\s*([$€£¥]|[A-Z]{3}(?=[\s\d+-]))?\s*([+-])?\s*"
                   r"(\d[\d.,' \u00a0]*\d|\d)\s*(%|[$€£¥]|[A-Z]{3})?\s*$")
_BODY = {".": re.compile(r"^(?:\d{1,3}(?:([, '\u00a0])\d{3})(?:\1\d{3})*|\d+)(?:\.\d+)?$"),
         ",": re.compile(r"^(?:\d{1,3}(?:([. '\u00a0])\d{3})(?:\1\d{3})*|\d+)(?:,\d+)?$")}


@dataclass(frozen=True)
class AmountReading:
    """How a column writes its amounts: the decimal separator and the unit."""

    decimal: str
    unit: str

    def number(self, text: str) -> int | float | None:
        """The number a cell writes, or ``None`` when it is no amount of this column.

        >>> AmountReading(",", "EUR").number("1.234,50 EUR")
        1234.5
        >>> AmountReading(".", "%").number("12%")
        12
        """
        return self._number_of(_parts(text))

    def _number_of(self, parts: tuple[str, str, str] | None) -> int | float | None:
        """:meth:`number` of a cell already cut into its :func:`_parts`."""
        if parts is None or parts[2] not in ("", self.unit):
            return None
        sign, body = parts[0], parts[1]
        if not _BODY[self.decimal].match(body):
            return None
        whole, _, fraction = body.partition(self.decimal)
        digits = re.sub(r"\D", "", whole)
        if not fraction:
            return -int(digits) if sign == "-" else int(digits)
        value = float(f"{digits}.{fraction}")
        return -value if sign == "-" else value


def _parts(text: str) -> tuple[str, str, str] | None:
    """(sign, digits, unit) of a cell that has the shape of an amount."""
    match = _CELL.match(text) if isinstance(text, str) else None
    if match is None:
        return None
    sign_a, before, sign_b, body, after = match.groups()
    if (before and after) or (sign_a and sign_b):
        return None
    return sign_a or sign_b or "", body, (before or after or "").strip()


def amount_reading(texts: Sequence[str]) -> AmountReading | None:
    """The reading of a column whose every text is an amount in one unit, else ``None``.

    >>> amount_reading(["$1,234.50", "$12", "980.25"])
    AmountReading(decimal='.', unit='$')
    >>> amount_reading(["1.234,50 EUR", "12,5 EUR"])
    AmountReading(decimal=',', unit='EUR')
    >>> amount_reading(["12%", "7.5%"]).unit, amount_reading(["1,234", "12"])
    ('%', None)
    """
    return _reading([_parts(t) for t in texts])


def _reading(parts: Sequence[tuple[str, str, str] | None]) -> AmountReading | None:
    """:func:`amount_reading` of texts already cut into their :func:`_parts`."""
    if not parts or any(p is None for p in parts):
        return None
    units = {p[2] for p in parts if p and p[2]}
    if len(units) != 1:
        return None
    unit = units.pop()
    bodies = [p[1] for p in parts if p]
    decimal = next((d for d in (".", ",") if all(_BODY[d].match(b) for b in bodies)), None)
    if decimal is None:
        return None
    return AmountReading(decimal, unit)              # "." when both read


def number_reader(texts: Sequence[str],
                  plain: Callable[[str], int | float | None]) -> Callable[[str], object]:
    """A cell-to-number function for a column's texts: ``plain`` unless they are amounts.

    Amounts are cut into their parts once: the function returned looks the
    given texts up (each read as :meth:`AmountReading.number` reads it) and
    reads any other text itself.

    >>> read = number_reader(["$1,234.50", "$12"], lambda t: None)
    >>> read("$12"), read("$7.25"), read("7 EUR")
    (12, 7.25, None)
    """
    if all(plain(t) is not None for t in texts):
        return plain
    parts = [_parts(t) for t in texts]
    reading = _reading(parts)
    if reading is None:
        return plain
    known = dict(zip(texts, map(reading._number_of, parts)))
    number = reading.number
    return lambda text: known[text] if text in known else number(text)
