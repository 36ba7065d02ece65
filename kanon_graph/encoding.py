"""Encode a table once into integer codes, so algorithms work on numpy arrays.

A quasi-identifier with a hierarchy is encoded as leaf indices of that
hierarchy; generalizing it to level ``l`` is ``hierarchy.level_map[l][codes]``.
A quasi-identifier without one is encoded as indices into its sorted distinct
values (``domain``), and a numeric one also keeps its float values. A date
is encoded as a numeric attribute measured in days (``values``) whose
domain holds the dates' own texts, marked ``date=True`` so that a range is
released as a date interval.

Which column is numeric, a date or categorical, and which cell is missing,
is decided in :mod:`kanon_graph._cells` (the CLI and :mod:`kanon_graph.io`
use the same rule).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ._cells import (column_kind, date_days, date_text, is_text_column, missing_mask,
                     parse_date, parse_number)
from .exceptions import DataError
from .hierarchy import Hierarchy
from .schema import Schema

__all__ = ["EncodedAttribute", "EncodedTable", "encode"]


@dataclass(frozen=True)
class EncodedAttribute:
    """One quasi-identifier as integer codes.

    Attributes
    ----------
    name : str
    kind : {"numeric", "categorical"}
        A date is ``"numeric"`` (in days) with ``date`` set.
    codes : ndarray of int64, shape (n,)
        Leaf index in ``hierarchy`` if there is one, else index into ``domain``.
    hierarchy : Hierarchy or None
    domain : list
        Labels of the codes (the hierarchy's leaves, or the sorted distinct values).
    values : ndarray of float or None
        The numeric values (numeric attributes only; days since 1970-01-01
        for dates).
    date : bool
        Whether the attribute is a date (released as ``[first, last]``).
    """

    name: str
    kind: str
    codes: np.ndarray
    hierarchy: Hierarchy | None
    domain: list
    values: np.ndarray | None = None
    date: bool = False

    @property
    def height(self):
        """Hierarchy height (1 for a hierarchy-free attribute: value or everything)."""
        return self.hierarchy.height if self.hierarchy is not None else 1

    @property
    def n_codes(self):
        return len(self.domain)

    def is_capped(self, capped):
        """Whether generalization to a level is capped at MAGVals for this attribute."""
        return bool(capped) and self.hierarchy is not None and self.hierarchy.has_magvals

    def at_level(self, level, capped=False):
        """Codes generalized to ``level`` (hierarchy-free: level 1 is all one code).

        With ``capped``, each value stops at its MAGVal when that is lower, and
        the codes are global node ids (see :meth:`Hierarchy.capped_map`).
        """
        if self.is_capped(capped):
            return self.hierarchy.capped_map(level)[self.codes]
        if self.hierarchy is not None:
            return self.hierarchy.level_map[level][self.codes]
        return self.codes if level == 0 else np.zeros_like(self.codes)

    def n_at_level(self, level, capped=False):
        """Number of distinct codes possible at ``level``."""
        if self.is_capped(capped):
            return int(self.hierarchy.node_offsets[-1])
        if self.hierarchy is not None:
            return len(self.hierarchy.leaf_counts[level])
        return self.n_codes if level == 0 else 1


@dataclass(frozen=True)
class EncodedTable:
    """A table with its quasi-identifiers and sensitive attributes encoded.

    Attributes
    ----------
    table : DataFrame
        The input rows that were kept (missing-value rows dropped on request),
        with a fresh 0..n-1 index; ``row_labels`` holds the original labels.
    schema : Schema
    attributes : list of EncodedAttribute
        The quasi-identifiers, in schema order.
    sensitive : dict of str to ndarray
        Codes of each sensitive attribute (indices into ``sensitive_domain``).
    sensitive_domain : dict of str to list
        The distinct values of each sensitive attribute, in order: by value
        for a numeric or date column, by text otherwise.
    sensitive_kinds : dict of str to str
        ``"numeric"``, ``"date"`` or ``"categorical"`` per sensitive column
        (ordered t-closeness for the first two).
    row_labels, positions : ndarray
        Index label and position in the input table of every kept row.
    dropped : int
        Rows removed for missing values (only with ``missing="drop"``).
    """

    table: pd.DataFrame
    schema: Schema
    attributes: list
    sensitive: dict = field(default_factory=dict)
    sensitive_domain: dict = field(default_factory=dict)
    row_labels: np.ndarray | None = None
    positions: np.ndarray | None = None
    dropped: int = 0
    sensitive_kinds: dict = field(default_factory=dict)

    @property
    def n(self):
        return len(self.table)

    @property
    def names(self):
        return [a.name for a in self.attributes]

    def attribute(self, name):
        for a in self.attributes:
            if a.name == name:
                return a
        raise KeyError(name)

    @property
    def heights(self):
        return [a.height for a in self.attributes]

    def generalized_codes(self, levels):
        """(n, d) codes of every quasi-identifier generalized to ``levels``."""
        return np.column_stack([a.at_level(l) for a, l in zip(self.attributes, levels)])

    def group_keys(self, levels, capped=False):
        """One int64 key per row identifying its class under ``levels``.

        ``capped`` stops every value at its MAGVal (generalization boundaries).
        """
        return combine_codes([a.at_level(l, capped) for a, l in zip(self.attributes, levels)],
                             [a.n_at_level(l, capped) for a, l in zip(self.attributes, levels)])


def combine_codes(columns, radices):
    """Mixed-radix combination of code columns into one int64 key per row.

    Falls back to a lexicographic ``np.unique`` over the stacked columns when
    the product of radices would overflow 63 bits.
    """
    columns = list(columns)
    if not columns:
        return np.zeros(0, dtype=np.int64)
    total = 1
    for r in radices:
        total *= max(int(r), 1)
    if total < 2**62:
        key = np.zeros(len(columns[0]), dtype=np.int64)
        for col, r in zip(columns, radices):
            key = key * max(int(r), 1) + col
        return key
    stacked = np.column_stack(columns)
    _, inverse = np.unique(stacked, axis=0, return_inverse=True)
    return inverse.reshape(-1).astype(np.int64)


def encode(table, schema, *, missing="error", where="anonymize"):
    """Validate ``table`` against ``schema`` and encode it.

    Parameters
    ----------
    table : DataFrame
    schema : Schema
    missing : {"error", "drop"}
        What to do with rows that have a missing value (what pandas calls
        missing: ``NaN``, ``None``, ``NaT``) in a quasi-identifier or
        sensitive column: raise, or drop them and count them in
        ``EncodedTable.dropped``. Any other cell, ``?`` or a blank included,
        is a value.
    where : str
        The public function to name in error messages.

    Returns
    -------
    EncodedTable
    """
    if not isinstance(table, pd.DataFrame):
        raise DataError(f"{where}: the table must be a pandas DataFrame, got {type(table).__name__}")
    if not isinstance(schema, Schema):
        raise DataError(f"{where}: the schema must be a kg.Schema, got {type(schema).__name__}")
    if missing not in ("error", "drop"):
        raise DataError(
            f"The 'missing' parameter of {where} must be 'error' or 'drop'. Got {missing!r}."
        )
    schema.check_table(table, where=where)
    if len(table) == 0:
        raise DataError(f"{where}: the table is empty (no rows)")
    checked = list(schema.quasi_identifiers) + list(schema.sensitive)
    bad = np.zeros(len(table), dtype=bool)
    for column in checked:
        mask = missing_mask(table[column])
        if mask.any() and missing == "error":
            row = int(np.flatnonzero(mask)[0])
            raise DataError(
                f"{where}: column {column!r} has {int(mask.sum())} missing value(s) "
                f"(first at row {table.index[row]!r}); clean them or pass missing='drop'"
            )
        bad |= mask
    dropped = int(bad.sum())
    row_labels = table.index.to_numpy()[~bad]
    positions = np.flatnonzero(~bad)
    table = table.loc[~bad].reset_index(drop=True) if dropped else table.reset_index(drop=True)
    if len(table) == 0:
        raise DataError(f"{where}: every row has a missing value; nothing is left to release")

    attributes = []
    for column in schema.quasi_identifiers:
        attributes.append(_encode_attribute(table[column], column, schema, where))
    sensitive, sensitive_domain, sensitive_kinds = {}, {}, {}
    for column in schema.sensitive:
        kind = column_kind(schema, column, table[column])
        if kind == "numeric":
            codes, texts, _ = _numeric_cells(table[column], column, where)
        elif kind == "date":
            codes, texts, _ = _date_cells(table[column], column, where)
        else:
            texts, codes = _factorize(table[column])
        sensitive[column] = codes
        sensitive_domain[column] = texts
        sensitive_kinds[column] = kind
    return EncodedTable(table=table, schema=schema, attributes=attributes, sensitive=sensitive,
                        sensitive_domain=sensitive_domain, sensitive_kinds=sensitive_kinds,
                        row_labels=row_labels, positions=positions, dropped=dropped)


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


def _numeric_cells(series, column, where):
    """Per row, the code of its text; per code, its text and exact number.

    Codes follow the numeric order (ties between texts of one number, such
    as ``1.5`` and ``1.50``, by text), so the smallest code of a class is its
    smallest value. Integers are compared as Python ints, never through
    float, so ``2**53 + 1`` and ``2**53`` stay distinct and ordered.
    """
    inverse, uniques = pd.factorize(series)
    is_text = is_text_column(series)
    pairs = []
    for position, u in enumerate(uniques):
        if isinstance(u, str):
            number = parse_number(u)
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


def _date_cells(series, column, where):
    """Per row, the code of its date; per code, its text and its day number.

    Codes follow the dates' order (ties between texts of one instant by
    text). A text cell keeps its own text; a ``datetime64`` or date object
    is written ``YYYY-MM-DD`` (with the time when it is not midnight).
    """
    inverse, uniques = pd.factorize(series)
    triples = []
    for position, u in enumerate(uniques):
        when = parse_date(u)
        if when is None:
            row = series.index[int(np.flatnonzero(inverse == position)[0])]
            raise DataError(
                f"{where}: date column {column!r} holds {u!r} (row {row!r}), which is not an "
                f"ISO 8601 date (YYYY-MM-DD); clean it, or do not declare the column a date")
        triples.append((when, u if isinstance(u, str) else date_text(when)))
    order = sorted(range(len(triples)), key=lambda i: triples[i])
    rank = np.empty(len(triples), dtype=np.int64)
    rank[order] = np.arange(len(triples))
    texts = [triples[i][1] for i in order]
    days = np.array([date_days(triples[i][0]) for i in order], dtype=float)
    return rank[inverse], texts, days


def _encode_attribute(series, column, schema, where):
    # hash the column once; its kind follows from its dtype and distinct values, so it is
    # inferred from one cell per distinct value (same dtype) instead of the whole column
    inverse, uniques = pd.factorize(series, use_na_sentinel=False)
    first = np.empty(len(uniques), dtype=np.int64)
    first[inverse[::-1]] = np.arange(len(series) - 1, -1, -1)
    kind = column_kind(schema, column, series.iloc[first])
    hierarchy = schema.hierarchy(column)
    if kind == "date":
        codes, texts, days = _date_cells(series, column, where)
        if hierarchy is not None:
            leaf_of_text = hierarchy.encode(np.asarray(texts, dtype=object))
            return EncodedAttribute(column, "numeric", leaf_of_text[codes], hierarchy,
                                    hierarchy.leaf_labels, days[codes], date=True)
        return EncodedAttribute(column, "numeric", codes, None, texts, days[codes], date=True)
    if kind == "numeric":
        codes, texts, numbers = _numeric_cells(series, column, where)
        values = numbers[codes]
        if hierarchy is not None:
            # a value matches the leaf with its own text; by number only when no
            # leaf has the text and one leaf alone has the number
            leaf_of_text = hierarchy.encode(np.asarray(texts, dtype=object))
            return EncodedAttribute(column, kind, leaf_of_text[codes], hierarchy,
                                    hierarchy.leaf_labels, values)
        return EncodedAttribute(column, kind, codes, None, texts, values)
    if hierarchy is not None:
        # match each distinct value once, not a Python object per row
        leaf_of_value = hierarchy.encode(np.asarray(uniques, dtype=object))
        return EncodedAttribute(column, kind, leaf_of_value[inverse], hierarchy,
                                hierarchy.leaf_labels, None)
    domain, codes = _factorize(series.astype(str))
    return EncodedAttribute(column, kind, codes, None, domain, None)
