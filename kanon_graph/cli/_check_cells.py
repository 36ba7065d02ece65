"""The pandas engine's cell rules for one input file (the Dask engine runs them per file).

Every fault names the file and line (row for Parquet), the column and the
value: a missing cell, a non-number in a numeric column, a non-date in a
``--dates`` column, an infinite number.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..cells.kinds import is_text_column, missing_mask, parse_number
from ..cells.date_text import (cell_problem, column_date_format, date_reading, parse_with,
                               swapped)
from ._parser import DataProblem

__all__ = ["check_cells", "floats_as_text", "not_a_date", "date_flag"]


def check_cells(table, text, schema, args, numeric):
    """The pandas engine's cell rules, for one file (the Dask engine runs them per file).

    Infinite numbers become missing (``--missing drop``) or an error; then
    the first missing cell, the first non-number of a ``numeric`` column and
    the first non-date of a ``--dates`` column are errors naming the file
    and line (row for Parquet). Returns ``table`` (inf cells as NaN).
    """
    checked = list(schema.quasi_identifiers) + list(schema.sensitive)
    for column in checked:
        if column in numeric:
            table = _check_infinite(table, column, args, text)
    _check_missing(table, checked, args, text)
    for column in checked:
        if column in numeric:
            _check_numbers(table[column], column, args, text)
        elif column in schema.dates:
            _check_dates(table[column], column, text, schema.date_format(column),
                         date_flag(column, args))
    return floats_as_text(table, schema.quasi_identifiers)


def floats_as_text(table, columns):
    """Typed float quasi-identifiers (Parquet) as the text a CSV file would hold.

    ``74.0`` becomes ``"74.0"`` (``str`` of the float, as pandas writes CSV),
    so a release labels it ``[64.3-74.0]`` from a Parquet file exactly as
    from the same table in CSV; missing cells stay missing.
    """
    for column in columns:
        series = table[column]
        if pd.api.types.is_float_dtype(series.dtype):
            table = table.copy()
            values = series.to_numpy(dtype=float)
            text = np.array([str(v) for v in values.tolist()], dtype=object)
            text[np.isnan(values)] = np.nan
            table[column] = pd.Series(text, index=series.index, dtype=object)
    return table


def _check_infinite(table, column, args, text):
    """``inf`` / ``-inf`` in a typed numeric column: an error, or missing with --missing drop."""
    series = table[column]
    if is_text_column(series) or not pd.api.types.is_float_dtype(series.dtype):
        return table
    mask = np.isinf(series.to_numpy(dtype=float))
    if not mask.any():
        return table
    if getattr(args, "missing", "error") in ("drop", "ignore"):
        table = table.copy()
        table[column] = series.where(~mask, np.nan)
        return table
    row = int(np.flatnonzero(mask)[0])
    raise DataProblem(f"{text.where(row)}: column {column!r} holds {series.iloc[row]!r}, an "
                      f"infinite number ({int(mask.sum())} in the column); a numeric "
                      f"quasi-identifier needs finite numbers: fix them, or pass --missing "
                      f"drop to drop such rows as missing")


def _check_missing(table, columns, args, text):
    """Name the first missing cell, with its line (the library's rule: NaN only).

    Only the empty cell and the ``--na-values`` texts became NaN on the way
    in, so ``?`` or a blank cell is a value, here as in the library.
    """
    for column in columns:
        mask = missing_mask(table[column])
        if not mask.any() or getattr(args, "missing", "error") in ("drop", "keep", "ignore"):
            continue
        row = int(np.flatnonzero(mask)[0])
        how = ("or pass --missing drop to drop such rows (--missing keep keeps them, a "
               "missing cell as a value of its own)" if hasattr(args, "missing")
               else "('anonymize' and 'evaluate' can drop such rows with --missing drop, or "
               "keep them with --missing keep)")
        raise DataProblem(
            f"{text.where(row)}: column {column!r} has a missing value "
            f"{text.frame[column].iloc[row]!r} ({int(mask.sum())} in the column; missing is "
            f"the empty cell or a --na-values text); fill them {how}")


def _check_numbers(series, column, args, text):
    """Name the first cell of a numeric column that is no number, with its line."""
    if not is_text_column(series):
        return                          # a typed (Parquet) column: the library checks it
    present = ~pd.isna(series).to_numpy()
    for value in pd.unique(series[present]):
        if parse_number(value) is None:
            row = int(np.flatnonzero(present & (series == value).to_numpy())[0])
            declared = (f"declared numeric in {args.schema}" if args.schema
                        else "numeric")
            raise DataProblem(f"{text.where(row)}: column {column!r} is {declared} but holds "
                              f"{value!r}, which is not a number")


def date_flag(column, args):
    """What made ``column`` a date column: ``--dates``, ``--date-format`` or the schema file."""
    if column in (getattr(args, "dates", None) or ()):
        return "--dates"
    if any(c in (column, None) for c, _ in getattr(args, "date_format", None) or ()):
        return "--date-format"
    return f"in {args.schema}" if getattr(args, "schema", None) else None


def _check_dates(series, column, text, fmt=None, flag=None):
    """Name the first cell of a date column that is no date, with its line.

    Each cell alone (:func:`~kanon_graph.cells.date_text.cell_problem`); which
    field is the day is the whole column's question, asked by the library,
    except that a given format ``fmt`` the column's cells all read the other
    way round is said here. ``flag`` says what made the column a date.
    """
    present = ~pd.isna(series).to_numpy()

    def line(value):
        return text.where(int(np.flatnonzero(present & (series == value).to_numpy())[0]))

    cells = pd.unique(series[present])
    texts = [v for v in cells if isinstance(v, str)]
    for value in cells:
        problem = cell_problem(value, fmt)
        if problem is not None:
            reads_as = _reads_as(texts, fmt)
            if reads_as is not None:           # the column, not the cell, says it
                problem = f"which is not a date in {fmt}"
            raise not_a_date(line(value), column, value, problem, flag, reads_as)
    # several formats, two orders, two-digit years: named with their lines here; whether
    # day and month can be told apart is the whole column's question (the library's)
    if fmt is None and date_reading(texts).status in ("none", "conflict", "two-digit"):
        try:
            column_date_format(texts, column, "", rows=line)
        except ValueError as exc:
            raise DataProblem(str(exc).lstrip(": ")) from None


def _reads_as(texts, fmt):
    """The format every cell reads in, when a given ``fmt`` has day and month swapped."""
    if fmt is None:
        return None
    other = swapped(fmt)
    fits = other != fmt and all(parse_with(t, other) is not None for t in texts)
    return other if fits else None


def not_a_date(where, column, value, problem, flag=None, reads_as=None):
    """The error of a date column's cell that is no date (in memory and streamed alike).

    ``flag`` says what made the column a date (``--dates``, ``--date-format``,
    the schema file); ``reads_as`` is the format every cell of the column
    reads in when its given one has day and month the other way round.
    """
    why = f" ({flag})" if flag else ""
    if reads_as is not None:
        how = (f"; the column's cells read as {reads_as} (day and month the other way "
               f"round): pass --date-format {column}={reads_as}")
    else:
        how = (" (ISO 8601 YYYY-MM-DD, dd/mm/yyyy, mm/dd/yyyy, dd.mm.yyyy, yyyy/mm/dd, "
               "yyyy/dd/mm are read; --date-format gives another)")
    return DataProblem(f"{where}: column {column!r} is a date column{why} but holds "
                       f"{value!r}, {problem}{how}")
