"""``kanon-graph anonymize --stream``: a large CSV anonymized in two passes over the file.

A global recoding releases every record holding the same quasi-identifier
tuple alike, so a search that counts records by weight needs the distinct
tuples and their counts only (the frequency set of the bottom lattice node,
Morton et al. 2012, section 2.3), never the rows:

1. **count** (:func:`count_tuples`): the file is read a chunk of rows at a
   time (:func:`kanon_graph.io.chunks.iter_text_chunks`); each chunk's
   quasi-identifier and sensitive cells go through the in-memory command's
   rules (missing cells, numbers, dates; an error names the file, the line,
   the column and the value, and the first fault in the file is the one
   named, as in memory) and are counted by distinct tuple, in the order of
   their first row;
2. **search** (:func:`run_counted`): the pipeline of :func:`kanon_graph.anonymize`
   runs on the counted tuples (``weights``) and verifies its release of them;
3. **write** (:mod:`kanon_graph.cli._stream_write`): the file is read again,
   each row takes its tuple's released cells, the classes are counted again
   from the written cells, and the release is published atomically, rows in
   the same order as the in-memory command writes them for the same order
   seed.

The streamed release is the in-memory release: same levels, cells, rows and
order. :func:`stream_refusal` says when streaming cannot give that: only
algorithms that recode globally and count by weight stream (``optimal``,
``datafly``, ``incognito``; not ``auto``, whose choice runs on all rows),
with k-anonymity alone (no ``--l``/``--t``), a CSV input (not Parquet, not
``--engine dask``) and a CSV output.
"""

from __future__ import annotations

import dataclasses
import os
import sys

import numpy as np
import pandas as pd

from ..cells.kinds import is_numeric_column, missing_mask, parse_number
from ..cells.date_text import cell_problem
from ..io import is_parquet
from ..io.chunks import CHUNK_ROWS, iter_text_chunks
from ._memory import give_back_free_memory
from ._common import (DataProblem, _check_columns, _missing_as_nan, check_hierarchies,
                      encoding_of, not_a_date, schema_from_args)

__all__ = ["STREAM_BYTES", "stream_refusal", "wants_stream", "Counted", "Dictionaries",
           "count_tuples", "run_counted"]

#: ``--stream auto`` streams an input file at least this large (64 MiB).
STREAM_BYTES = 64 * 2**20

_COUNT = "__kg_count__"


def stream_refusal(args):
    """Why ``args`` cannot stream (one phrase), or None when it can."""
    from ..registry import get_algorithm

    if args.engine != "pandas":
        return "--engine dask reads its input lazily already"
    if is_parquet(args.input):
        return "the input is Parquet (streaming reads CSV files)"
    if is_parquet(args.output):
        return "the output is Parquet (streaming writes CSV files)"
    if args.algorithm == "auto":
        return ("--algorithm auto compares algorithms on all rows; name a global one "
                "(optimal, datafly, incognito)")
    info = get_algorithm(args.algorithm)
    if getattr(info, "samples_records", False):
        return (f"algorithm {args.algorithm!r} withholds every cell of the records it does "
                f"not release, which only the in-memory writer does")
    if info.recoding != "global" or not info.weighted:
        return (f"algorithm {args.algorithm!r} does not recode globally by counted tuples "
                f"(streaming takes optimal, datafly, incognito)")
    if args.l is not None or args.t is not None:
        return "--l and --t are checked in memory only"
    if args.respect_boundaries:
        return "--respect-boundaries is checked in memory only"
    return None


def wants_stream(args):
    """Whether this run streams: ``--stream on`` (refused with the reason when it cannot),
    ``off``, or ``auto``: an input of at least :data:`STREAM_BYTES` that can stream."""
    mode = getattr(args, "stream", "auto")
    if mode == "off":
        return False
    refusal = stream_refusal(args)
    if mode == "on":
        if refusal is not None:
            from ._parser import UsageError

            raise UsageError(f"--stream on cannot stream this run: {refusal}; use "
                             f"--stream off (the table is then read into memory)")
        return True
    try:
        size = os.path.getsize(args.input)
    except OSError:
        return False                  # the reader names the missing file
    if size >= STREAM_BYTES and refusal is not None and not getattr(args, "quiet", False) \
            and args.engine == "pandas" and not is_parquet(args.input):
        print(f"kanon-graph: note: {args.input} ({size / 2**20:,.0f} MiB) is read into "
              f"memory, not streamed: {refusal}", file=sys.stderr)
    return refusal is None and size >= STREAM_BYTES


@dataclasses.dataclass
class Counted:
    """Pass 1's findings: the distinct tuples, their counts, and the file's facts.

    Attributes
    ----------
    schema : Schema
        The run's schema (numeric columns inferred as in memory).
    columns : list of str
        Quasi-identifiers then sensitive columns: the tuple's cells.
    tuples : DataFrame
        ``columns`` (missing cells NaN), one row per distinct tuple, in the
        order of the first row holding it.
    counts : ndarray of int64
        Rows holding each tuple.
    rows : int
        Rows in the file.
    header : list of str
        The file's columns.
    carriage_return : bool
        Whether a written cell (not a quasi-identifier) holds a ``\\r``.
    dictionaries : Dictionaries
        The codes of each column's cells.
    codes : DataFrame
        ``tuples`` as codes (each column the narrowest signed integer type).
    """

    schema: object
    columns: list
    tuples: pd.DataFrame
    counts: np.ndarray
    rows: int
    header: list
    carriage_return: bool
    dictionaries: Dictionaries
    codes: pd.DataFrame


class _Faults:
    """The first fault of each kind and column, in file order (raised after the pass)."""

    def __init__(self, columns):
        self.missing = dict.fromkeys(columns, 0)
        self.first_missing = {}
        self.not_number = {}
        self.not_date = {}

    def see(self, table, text, columns, schema):
        for column in columns:
            mask = missing_mask(table[column])
            n = int(mask.sum())
            if n:
                self.missing[column] += n
                if column not in self.first_missing:
                    row = int(np.flatnonzero(mask)[0])
                    self.first_missing[column] = (text.where(row),
                                                  text.frame[column].iloc[row])
            if column in schema.numeric and column not in self.not_number:
                self._first_bad(self.not_number, table[column], column, text, parse_number)
            elif column in schema.dates and column not in self.not_date:
                fmt = schema.date_format(column)
                self._first_bad(self.not_date, table[column], column, text,
                                lambda v: None if cell_problem(v, fmt) else v)

    @staticmethod
    def _first_bad(found, series, column, text, parse):
        present = ~pd.isna(series).to_numpy()
        for value in pd.unique(series[present]):
            if parse(value) is None:
                row = int(np.flatnonzero(present & (series == value).to_numpy())[0])
                found[column] = (text.where(row), value)
                return

    def raise_first(self, columns, args, schema):
        """The error the in-memory command gives: missing cells, then numbers, then dates."""
        if getattr(args, "missing", "error") == "error":
            for column in columns:
                if self.missing[column]:
                    where, value = self.first_missing[column]
                    raise DataProblem(
                        f"{where}: column {column!r} has a missing value {value!r} "
                        f"({self.missing[column]} in the column; missing is the empty cell or "
                        f"a --na-values text); fill them or pass --missing drop to drop such "
                        f"rows (--missing keep keeps them, a missing cell as a value of its "
                        f"own)")
        for column in columns:
            if column in self.not_number:
                where, value = self.not_number[column]
                declared = f"declared numeric in {args.schema}" if args.schema else "numeric"
                raise DataProblem(f"{where}: column {column!r} is {declared} but holds "
                                  f"{value!r}, which is not a number")
            if column in self.not_date:
                where, value = self.not_date[column]
                raise not_a_date(where, column, value,
                                 cell_problem(value, schema.date_format(column)))


class Dictionaries:
    """Per column, the distinct cells seen so far, each given a code in order of appearance.

    A chunk's cells become int32 codes (``-1``: missing), so the tuples are
    counted on small integers and each distinct text is held once, however
    many rows hold it.
    """

    def __init__(self, columns):
        self.columns = list(columns)
        self.values = {c: [] for c in self.columns}
        self.index = {c: pd.Index([], dtype=object) for c in self.columns}

    def codes(self, table, *, grow=True):
        """``table[columns]`` as a frame of int32 codes (None: a cell never seen, ``grow``
        False)."""
        out = {}
        for column in self.columns:
            local, uniques = pd.factorize(table[column].to_numpy(dtype=object))
            at = self.index[column].get_indexer(uniques) if len(uniques) else \
                np.zeros(0, dtype=np.int64)
            new = at < 0
            if new.any():
                if not grow:
                    return None
                fresh = list(uniques[new])
                at[new] = np.arange(len(self.values[column]),
                                    len(self.values[column]) + len(fresh))
                self.values[column].extend(fresh)
                self.index[column] = pd.Index(self.values[column], dtype=object)
            lookup = np.append(at, -1).astype(np.int32)       # local -1 (missing) -> -1
            out[column] = lookup[local]
        return pd.DataFrame(out)

    def cells(self, codes, column, *, categorical=False):
        """The cells of ``codes`` in ``column`` (NaN for -1), one ``str`` per distinct text;
        ``categorical``: as a categorical column of sorted categories (as a Dask table's
        counted tuples are given to the search, :mod:`kanon_graph.scale.dask_input`)."""
        values = np.empty(len(self.values[column]) + 1, dtype=object)
        values[:-1] = self.values[column]
        values[-1] = np.nan
        if not categorical:
            return values[codes]
        try:
            rank = np.argsort(values[:-1], kind="stable")
        except TypeError:                       # mixed kinds of value: sorted by their text
            rank = np.argsort(values[:-1].astype(str), kind="stable")
        new_code = np.empty(len(values), dtype=np.int32)
        new_code[rank] = np.arange(len(rank), dtype=np.int32)
        new_code[-1] = -1
        return pd.Categorical.from_codes(new_code[codes], categories=pd.Index(
            values[:-1][rank], dtype=object))

    def sample(self, column):
        """The distinct present cells of ``column`` (a Series), for the numeric rule."""
        return pd.Series(self.values[column], dtype=object).dropna()


def _merge_counts(pieces, columns, dictionaries):
    """The pieces' counts added up per tuple, in the order of first appearance."""
    whole = pd.concat(pieces, ignore_index=True) if len(pieces) > 1 else pieces[0]
    radices = [len(dictionaries.values[c]) + 1 for c in columns]
    if np.prod(np.asarray(radices, dtype=float)) >= 2.0**62:   # too many: grouped by column
        total = whole.groupby(columns, sort=False)[_COUNT].sum()
        return total.reset_index()
    key = np.zeros(len(whole), dtype=np.int64)      # one int64 per tuple (-1 codes as +1)
    for column, radix in zip(columns, radices):
        key *= radix
        key += whole[column].to_numpy() + 1
    group, _ = pd.factorize(key)                     # numbered by first appearance
    first = np.empty(group.max() + 1 if len(group) else 0, dtype=np.int64)
    first[group[::-1]] = np.arange(len(group) - 1, -1, -1)
    counts = np.bincount(group, weights=whole[_COUNT].to_numpy(), minlength=len(first))
    out = whole.iloc[first].reset_index(drop=True)
    out[_COUNT] = counts.astype(np.int64)
    return out


def _narrowest(distinct):
    """The smallest signed integer type holding codes ``-1 .. distinct - 1`` (and + 1)."""
    return np.int8 if distinct < 127 else np.int16 if distinct < 32767 else np.int32


def count_tuples(args, progress, *, rows=CHUNK_ROWS):
    """Pass 1: the file's distinct (quasi-identifier, sensitive) tuples and their counts.

    Every chunk goes through the in-memory command's rules
    (:func:`kanon_graph.cli._common.read_input`); the first fault in the file
    is raised, as there, once the whole file is read (its message counts
    the column's missing cells).

    Returns
    -------
    Counted
    """
    schema = schema_from_args(args)
    check_hierarchies(schema, args)             # before the file, as in memory
    columns = list(dict.fromkeys(list(schema.quasi_identifiers) + list(schema.sensitive)))
    faults = _Faults(columns)
    dictionaries = Dictionaries(columns)
    progress.phase(f"counting the tuples of {args.input}")
    pieces, header, n, carriage_return = [], None, 0, False
    for text in iter_text_chunks(args.input, sep=args.sep, encoding=encoding_of(args),
                                 rows=rows):
        if header is None:
            header = list(text.frame.columns)
            _check_columns(schema, args, text)
            written = [c for c in schema.released_columns(text.frame)
                       if c not in schema.quasi_identifiers]
        table = _missing_as_nan(text, columns, args)
        faults.see(table, text, columns, schema)
        carriage_return = carriage_return or any(
            text.frame[c].str.contains(chr(13), regex=False).any() for c in written)
        n += len(table)
        codes = dictionaries.codes(table)
        del table, text
        counted = codes.groupby(columns, sort=False).size()
        pieces.append(counted.rename(_COUNT).reset_index())
        if len(pieces) >= 8:                    # bounded: merged as the pass goes
            pieces = [_merge_counts(pieces, columns, dictionaries)]
        give_back_free_memory()                 # the chunk's freed blocks, before the next
        progress.phase(f"counting the tuples of {args.input}: {n:,} rows")
    codes = _merge_counts(pieces, columns, dictionaries)
    del pieces
    faults.raise_first(columns, args, schema)
    counts = codes.pop(_COUNT).to_numpy(dtype=np.int64)
    # held through the search and the write: each column in the narrowest signed type
    codes = codes.astype({c: _narrowest(len(dictionaries.values[c])) for c in columns})
    undeclared = [c for c in columns if c not in schema.numeric and c not in schema.categorical
                  and c not in schema.dates]
    numeric = list(schema.numeric) + [c for c in undeclared
                                      if is_numeric_column(dictionaries.sample(c))]
    schema = dataclasses.replace(schema, numeric=numeric)
    # the tuples' cells as the in-memory table holds them (text, NaN when missing); a
    # column of categories as categorical (codes and the distinct texts only)
    tuples = pd.DataFrame({c: dictionaries.cells(
        codes[c].to_numpy(), c, categorical=c not in numeric and c not in schema.dates)
        for c in columns})
    return Counted(schema, columns, tuples, counts, n, header, carriage_return,
                   dictionaries, codes)


def run_counted(counted, args, progress):
    """Pass 2's search: :func:`kanon_graph.anonymize`'s pipeline on the counted tuples.

    The pipeline verifies its release of the tuples (k counted by weight,
    every original value covered, the suppression budget) before it
    returns; the written cells are counted again in
    :func:`kanon_graph.cli._stream_write.write_release`.
    """
    from ..pipeline.run import Options, run_pipeline
    from .._jit import numpy_only
    from .._progress import reporter

    options = Options(args.k, algorithm=args.algorithm, l=args.l, diversity=args.diversity,
                      c=args.c, t=args.t, sensitive=args.sensitive,
                      suppression=args.suppression, respect_boundaries=None,
                      missing=args.missing, seed=args.seed, shard_size=args.shard_size,
                      scheduler=None, extra=dict(args.option))
    # the tuples hold the quasi-identifiers and sensitive columns only: identifiers and
    # the other columns are the writer's (kanon_graph.cli._stream_write)
    inner = dataclasses.replace(counted.schema, identifiers=(), insensitive=None)
    progress.phase(f"anonymizing {counted.rows:,} rows ({len(counted.tuples):,} distinct "
                   f"tuples) with {args.algorithm} (k={args.k})")
    # numba forgone: its import, CPU target and LLVM would hold about 125 MiB, more than
    # the counted tuples' whole search; the lattice's numpy path keeps its sets packed
    with reporter(progress if progress.enabled else None, "anonymize") as report, \
            numpy_only():
        return run_pipeline(counted.tuples, inner, options, progress=report,
                            weights=counted.counts)
