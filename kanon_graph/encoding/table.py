"""Encode a table once into integer codes, so algorithms work on numpy arrays.

A quasi-identifier with a hierarchy is encoded as leaf indices of that
hierarchy; generalizing it to level ``l`` is ``hierarchy.level_map[l][codes]``.
A quasi-identifier without one is encoded as indices into its sorted distinct
values (``domain``), and a numeric one also keeps its float values. A date
is encoded as a numeric attribute measured in days (``values``) whose
domain holds the dates' own texts, marked ``date=True`` so that a range is
released as a date interval.

Which column is numeric, a date or categorical, and which cell is missing,
is decided in :mod:`kanon_graph.cells.kinds` (the CLI and :mod:`kanon_graph.io`
use the same rule).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ..cells.kinds import column_kind, missing_mask
from .cells import _date_cells, _factorize, _numeric_cells
from .plain import _iso_cells, iso_column_days, plain_strings
from .inferred import _inferred
from .missing import MISSING, sensitive_with_missing, with_missing
from ..exceptions import DataError
from ..hierarchy import Hierarchy
from ..schema import Schema

__all__ = ["EncodedAttribute", "EncodedTable", "encode", "MISSING"]


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
    date_format : str or None
        The format a date's text is read in (``"%d/%m/%Y"``); ``None`` for
        ISO 8601 text and date objects.
    missing_code : int or None
        With ``missing="keep"``, the code of the missing value
        (:data:`MISSING`), when the column has one. A numeric or date
        attribute without a hierarchy gives it code 0 and a value below the
        smallest present one; with a hierarchy it is a leaf of its own
        directly under the root.
    """

    name: str
    kind: str
    codes: np.ndarray
    hierarchy: Hierarchy | None
    domain: list
    values: np.ndarray | None = None
    date: bool = False
    missing_code: int | None = None
    date_format: str | None = None

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
    missing_kept : dict of str to int
        Missing cells kept as a value of their own, per column (only with
        ``missing="keep"``).
    weights : ndarray of int64 or None
        Records per row, when each row stands for a distinct tuple held by
        that many records (:mod:`kanon_graph.pipeline.tuples`); None: one record per
        row. ``n`` counts rows, ``records`` counts records.
    sensitive_missing : dict of str to int
        With ``missing="keep"``, the code (0) of the missing value in each
        sensitive column that has one. A record with it counts toward k,
        never as a sensitive value (l and t read the known values only).
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
    missing_kept: dict = field(default_factory=dict)
    weights: np.ndarray | None = None
    sensitive_missing: dict = field(default_factory=dict)

    @property
    def n(self):
        """Rows (distinct tuples when ``weights`` is set)."""
        return len(self.table)

    @property
    def records(self):
        """Records: the rows, or the sum of ``weights``."""
        return len(self.table) if self.weights is None else int(self.weights.sum())

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
    if total < 2**62:               # built in place: one int64 array, whatever the codes' type
        key = np.zeros(len(columns[0]), dtype=np.int64)
        for col, r in zip(columns, radices):
            key *= max(int(r), 1)
            key += col
        return key
    stacked = np.column_stack(columns)
    _, inverse = np.unique(stacked, axis=0, return_inverse=True)
    return inverse.reshape(-1).astype(np.int64)


def encode(table, schema, *, missing="error", where="anonymize", weights=None):
    """Validate ``table`` against ``schema`` and encode it.

    Parameters
    ----------
    table : DataFrame
    schema : Schema
    missing : {"error", "drop", "keep"}
        What to do with rows that have a missing value (what pandas calls
        missing: ``NaN``, ``None``, ``NaT``) in a quasi-identifier or
        sensitive column: raise, drop them and count them in
        ``EncodedTable.dropped``, or keep them: a missing cell is then a
        value of its own, :data:`MISSING`, generalized like any other and
        counted in ``EncodedTable.missing_kept`` (in a sensitive column it
        is code 0, which the privacy model counts toward k only:
        ``EncodedTable.sensitive_missing``). Any other cell, ``?`` or a
        blank included, is a value.
    where : str
        The public function to name in error messages.
    weights : array of int, optional
        Records per row, when each row is a distinct tuple held by that many
        records (a Dask table's counted tuples); ``dropped`` and the missing
        counts are then counted in records.

    Returns
    -------
    EncodedTable
    """
    if not isinstance(table, pd.DataFrame):
        raise DataError(f"{where}: the table must be a pandas DataFrame, got {type(table).__name__}")
    if not isinstance(schema, Schema):
        raise DataError(f"{where}: the schema must be a kg.Schema, got {type(schema).__name__}")
    if missing not in ("error", "drop", "keep"):
        raise DataError(f"The 'missing' parameter of {where} must be 'error', 'drop' or "
                        f"'keep'. Got {missing!r}.")
    schema.check_table(table, where=where)
    if len(table) == 0:
        raise DataError(f"{where}: the table is empty (no rows)")
    checked = list(schema.quasi_identifiers) + list(schema.sensitive)
    bad = np.zeros(len(table), dtype=bool)
    kept = {}
    for column in checked:
        mask = missing_mask(table[column])
        if mask.any() and missing == "error":
            row = int(np.flatnonzero(mask)[0])
            raise DataError(
                f"{where}: column {column!r} has {int(mask.sum())} missing value(s) "
                f"(first at row {table.index[row]!r}); clean them, or pass missing='drop' "
                f"or missing='keep'"
            )
        if missing == "keep":
            if mask.any():
                kept[column] = mask
            continue
        bad |= mask
    if weights is not None:
        weights = np.asarray(weights, dtype=np.int64)
        if weights.shape != (len(table),) or (weights < 1).any():
            raise DataError(f"{where}: the weights must be one positive count per row")
    dropped = int(bad.sum() if weights is None else weights[bad].sum())
    row_labels = table.index.to_numpy()[~bad]
    positions = np.flatnonzero(~bad)
    table = table.loc[~bad].reset_index(drop=True) if dropped else table.reset_index(drop=True)
    if len(table) == 0:
        raise DataError(f"{where}: every row has a missing value; nothing is left to release")

    attributes = []
    # a message names a row by its position in the caller's table: after dropped rows, or
    # on a column's present cells, the cells are indexed by those positions (Python ints)
    at = pd.Index(positions.astype(object), dtype=object) if dropped or kept else None
    for column in schema.quasi_identifiers:
        series = table[column] if at is None else table[column].set_axis(at)
        if column in kept:
            mask = kept[column]
            present = _encode_attribute(series[~mask], column, schema, where)
            attributes.append(with_missing(present, mask))
        else:
            attributes.append(_encode_attribute(series, column, schema, where))
    sensitive, sensitive_domain, sensitive_kinds, sensitive_missing = {}, {}, {}, {}
    for column in schema.sensitive:
        kind = column_kind(schema, column, table[column])
        if column in kept:                     # the missing value first: code 0
            sensitive[column], sensitive_domain[column] = sensitive_with_missing(
                table[column], kept[column], kind, column, where, schema.date_format(column))
            sensitive_kinds[column], sensitive_missing[column] = kind, 0
            continue
        if kind == "numeric":
            codes, texts, _ = _numeric_cells(table[column], column, where)
        elif kind == "date":
            codes, texts, _, _ = _date_cells(table[column], column, where,
                                             schema.date_format(column))
        else:
            texts, codes = _factorize(table[column])
        sensitive[column] = codes
        sensitive_domain[column] = texts
        sensitive_kinds[column] = kind
    return EncodedTable(table=table, schema=schema, attributes=attributes, sensitive=sensitive,
                        sensitive_domain=sensitive_domain, sensitive_kinds=sensitive_kinds,
                        row_labels=row_labels, positions=positions, dropped=dropped,
                        missing_kept={c: int(m.sum() if weights is None else weights[m].sum())
                                      for c, m in kept.items()},
                        weights=None if weights is None else weights[~bad],
                        sensitive_missing=sensitive_missing)


def _encode_attribute(series, column, schema, where):
    # hash the column once; its kind follows from its dtype and distinct values, so it is
    # inferred from one cell per distinct value (same dtype) instead of the whole column
    inverse, uniques = pd.factorize(series, use_na_sentinel=False)
    first = np.empty(len(uniques), dtype=np.int64)
    first[inverse[::-1]] = np.arange(len(series) - 1, -1, -1)
    distinct = pd.Series(uniques, index=series.index[first], name=series.name)
    factorized = (inverse, uniques)             # pandas.factorize(series) without missing cells
    if distinct.dtype != series.dtype or distinct.isna().any():
        # the factorized values are the first cells themselves unless a dtype changed or
        # a missing value stood for several kinds of missing cell: then take the cells
        distinct, factorized = series.iloc[first], None
    else:       # pandas' string dtype reads cell by cell slowly: its values as Python strs
        distinct, factorized = plain_strings(distinct, inverse, uniques)
    declared = column in schema.numeric or column in schema.dates or column in schema.categorical
    # undeclared, or a date without a format: distinct YYYY-MM-DD texts of real days are an
    # ISO date column (what column_kind and the format rule say), read by numpy at once
    maybe_iso = not declared or (column in schema.dates and schema.date_format(column) is None)
    iso_days = iso_column_days(distinct, factorized) if maybe_iso else None
    kind = "date" if iso_days is not None else column_kind(schema, column, distinct)
    hierarchy = schema.hierarchy(column)
    if not declared:
        hierarchy = _inferred(distinct, column, kind, hierarchy, where,
                              iso=iso_days is not None)
    if kind == "date":
        codes, texts, days, fmt = (_iso_cells(factorized, iso_days) if iso_days is not None
                                   else _date_cells(series, column, where,
                                                    schema.date_format(column)))
        if hierarchy is not None:
            leaf_of_text = hierarchy.encode(np.asarray(texts, dtype=object))
            return EncodedAttribute(column, "numeric", leaf_of_text[codes], hierarchy,
                                    hierarchy.leaf_labels, days[codes], date=True,
                                    date_format=fmt)
        return EncodedAttribute(column, "numeric", codes, None, texts, days[codes], date=True,
                                date_format=fmt)
    if kind == "numeric":
        codes, texts, numbers = _numeric_cells(series, column, where, factorized)
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
        leaf_of_value = hierarchy.encode(np.asarray(uniques if factorized is None
                                                    else factorized[1], dtype=object))
        return EncodedAttribute(column, kind, leaf_of_value[inverse], hierarchy,
                                hierarchy.leaf_labels, None)
    domain, codes = _factorize(series.astype(str))
    return EncodedAttribute(column, kind, codes, None, domain, None)
