"""How :func:`kanon_graph.encoding.encode` turns one column's cells into codes.

Numbers keep their own texts and exact values, dates their texts and day
numbers, categories their sorted distinct values; the kinds themselves are
decided in :mod:`kanon_graph.cells.kinds`.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..cells.amounts import number_reader
from ..cells.kinds import date_days, date_text, is_text_column, parse_date, parse_number
from ..cells.date_text import column_date_format
from ..exceptions import DataError
from .plain import _plain_iso_days, number_texts


def _factorize(series):
    codes, uniques = pd.factorize(series, sort=True)
    return list(uniques), codes.astype(np.int64)


def _number_text(value):
    """Shortest text that reads back as ``value``: ints as ints, exactly."""
    if isinstance(value, (int, np.integer)):
        return str(int(value))
    value = float(value)
    if value.is_integer() and abs(value) < 2**53:
        return str(int(value))
    return repr(value)


def _numeric_cells(series, column, where, factorized=None):
    """Per row, the code of its text; per code, its text and exact number.

    Codes follow the numeric order (ties between texts of one number, such
    as ``1.5`` and ``1.50``, by text), so the smallest code of a class is its
    smallest value. Integers are compared as Python ints, never through
    float, so ``2**53 + 1`` and ``2**53`` stay distinct and ordered.
    ``factorized``: ``pandas.factorize(series)`` when the caller has it.
    """
    inverse, uniques = pd.factorize(series) if factorized is None else factorized
    is_text = is_text_column(series)
    fast = None if is_text else _plain_numbers(uniques)
    if fast is not None:     # distinct finite numbers of a numeric dtype: ordered by value
        order = np.argsort(fast, kind="stable")
        rank = np.empty(len(order), dtype=np.int64)
        rank[order] = np.arange(len(order))
        ordered = fast[order]
        return (rank[inverse], number_texts(ordered),
                ordered.astype(float))
    reader = number_reader([u for u in uniques if isinstance(u, str)], parse_number)
    pairs = []
    for position, u in enumerate(uniques):
        if isinstance(u, str):
            number = reader(u)
            if number is None:
                row = series.index[int(np.flatnonzero(inverse == position)[0])]
                raise DataError(
                    f"{where}: numeric column {column!r} holds text {u!r} (row {row!r}) "
                    f"that is not a number; declare it categorical=[{column!r}] or clean it"
                )
            pairs.append((number, u))
        elif isinstance(u, (bool, np.bool_)) or not isinstance(u, (int, float, np.number)):
            row = series.index[int(np.flatnonzero(inverse == position)[0])]
            raise DataError(f"{where}: numeric column {column!r} holds {u!r} (row {row!r}), "
                            f"which is not a number")
        else:
            number = int(u) if isinstance(u, (int, np.integer)) else float(u)
            if not isinstance(number, int) and not np.isfinite(number):
                row = series.index[int(np.flatnonzero(inverse == position)[0])]
                raise DataError(f"{where}: numeric column {column!r} holds {u!r} (row {row!r}), "
                                f"an infinite number; use finite numbers, or NaN with "
                                f"missing='drop' to drop such rows")
            pairs.append((number, _number_text(number) if not is_text else str(u)))
    order = sorted(range(len(pairs)), key=lambda i: (pairs[i][0], pairs[i][1]))
    rank = np.empty(len(pairs), dtype=np.int64)
    rank[order] = np.arange(len(pairs))
    texts = [pairs[i][1] for i in order]
    numbers = np.array([float(pairs[i][0]) for i in order], dtype=float)
    codes = rank[inverse]
    return codes, texts, numbers


def _date_cells(series, column, where, fmt=None):
    """Per row, the code of its date; per code, its text and its day number; the format.

    Codes follow the dates' order (ties between texts of one instant by
    text). A text cell keeps its own text; a ``datetime64`` or date object
    is written ``YYYY-MM-DD`` (with the time when it is not midnight). Text
    is read in ``fmt`` when given, else in the one format its cells allow
    (:func:`~kanon_graph.cells.date_text.column_date_format`: ISO 8601, or
    ``13/03/1961`` day first...); the format read is returned (``None``: ISO).
    """
    inverse, uniques = pd.factorize(series)

    def row(text):
        position = int(np.flatnonzero(uniques == text)[0])
        return f"row {series.index[int(np.flatnonzero(inverse == position)[0])]!r}"

    values = list(uniques)
    # distinct plain dates (every one a real day): ISO, the format date_reading finds;
    # one date per text, ordered by day
    days = _plain_iso_days(values) if fmt is None else None
    if days is not None:
        order = np.argsort(days, kind="stable")
        rank = np.empty(len(order), dtype=np.int64)
        rank[order] = np.arange(len(order))
        return rank[inverse], [values[i] for i in order], days[order].astype(float), None
    fmt = column_date_format(values, column, where, given=fmt, rows=row)
    triples = []
    for u in uniques:
        when = parse_date(u, fmt if isinstance(u, str) else None)
        if when is None:
            raise DataError(f"{where}: date column {column!r} holds {u!r} ({row(u)}), "
                            f"which is not a date")
        triples.append((when, u if isinstance(u, str) else date_text(when)))
    order = sorted(range(len(triples)), key=lambda i: triples[i])
    rank = np.empty(len(triples), dtype=np.int64)
    rank[order] = np.arange(len(triples))
    texts = [triples[i][1] for i in order]
    days = np.array([date_days(triples[i][0]) for i in order], dtype=float)
    return rank[inverse], texts, days, fmt


def _plain_numbers(uniques):
    """``uniques`` as an integer or float array when they are all finite numbers, else None.

    >>> _plain_numbers(np.array([3, 1])).tolist(), _plain_numbers(np.array([1.5, np.inf]))
    ([3, 1], None)
    """
    values = np.asarray(uniques)
    if values.dtype.kind in "iu" or (values.dtype.kind == "f" and np.isfinite(values).all()):
        return values
    return None
