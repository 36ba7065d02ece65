"""The streamed release written: each row takes its tuple's cells, counted, shuffled, published.

:func:`write_release` reads the input a second time, a chunk at a time
(:func:`kanon_graph.io.chunks.iter_text_chunks`), and gives every row the
released quasi-identifier cells of its tuple (found in the search's release
of the counted tuples, :mod:`kanon_graph.cli._stream`); every other written
column keeps the file's text, identifiers are left out, a row dropped for a
missing value (``--missing drop``) is not written.

The privacy check runs again on the written cells before anything is
published: the released rows are grouped by their quasi-identifier cells,
chunk by chunk, and every class not suppressed must hold at least k rows,
the rows must be every record the release covers, and the suppressed rows
within the budget (``kanon-graph anonymize`` in memory checks the same,
:func:`kanon_graph.pipeline.from_partition.check_release`).

Order: the in-memory command writes row ``order_of(n, seed)[i]`` of the
release as row ``i`` (:func:`kanon_graph.io.release.order_of`). Here each
released row's written position is known as soon as the row is (the inverse
permutation, ``n`` integers), so the rows are spread into buckets of
consecutive written positions in temporary files beside the output, and the
buckets are then written in order, each sorted by position: the same file,
a bucket held at a time. ``--keep-order`` writes the rows as they come.
The file is written to a temporary name and renamed into place only after
the check (:func:`kanon_graph.io.write.atomic_file`).
"""

from __future__ import annotations

import contextlib
import pickle
import tempfile

import numpy as np
import pandas as pd

from ..exceptions import PrivacyError
from ..io.chunks import CHUNK_ROWS, iter_text_chunks
from ..io.release import _is_formula, fresh_order_seed, order_of
from ..io.tables import CRLF
from ..io.write import atomic_file
from ..recoding import SUPPRESSED
from ._common import _missing_as_nan, encoding_of
from ._memory import give_back_free_memory

__all__ = ["Written", "write_release"]

_ID = "__kg_tuple__"


class Written:
    """What was written: rows, class sizes counted on the written cells, formulas, order."""

    def __init__(self, rows, sizes, suppressed, formulas, escaped, seed):
        self.rows, self.sizes, self.suppressed = rows, sizes, suppressed
        self.formulas, self.escaped, self.seed = formulas, escaped, seed

    @property
    def shuffled(self):
        return self.seed is not None


def _tuple_cells(result, counted):
    """Per counted tuple: its released cells, whether it is suppressed, and whether it is
    written at all (not dropped).

    The cells are ``{column: (codes, labels)}``: tuple ``i`` is released as
    ``labels[codes[i]]``. A categorical column (the release's labels) keeps
    one object per label and a code of the narrowest unsigned type per
    tuple, where an object array per column held 8 bytes per tuple (15 MiB
    for 247,750 tuples of 8 quasi-identifiers).
    """
    n = len(counted.tuples)
    table = result.table
    positions = result.release.data.positions
    kept = np.arange(n) if positions is None else np.asarray(positions, dtype=np.int64)
    if len(kept) != len(table):
        raise PrivacyError("the release of the counted tuples does not hold one row per "
                           "tuple kept; nothing is written")
    written = np.zeros(n, dtype=bool)
    written[kept] = True
    gone = np.zeros(n, dtype=bool)
    gone[kept] = np.asarray(result.release.class_of) < 0
    cells = {}
    for column in counted.schema.quasi_identifiers:
        released = table[column]
        if isinstance(released.dtype, pd.CategoricalDtype):
            known = released.cat.categories.to_numpy(dtype=object)
            of_kept = released.cat.codes.to_numpy().astype(np.int64)
            of_kept[of_kept < 0] = len(known)                   # a missing cell: NaN
            labels = np.concatenate([known, np.array([np.nan, SUPPRESSED], dtype=object)])
        else:
            of_kept = np.arange(len(kept))
            labels = np.append(released.astype(object).to_numpy(), SUPPRESSED).astype(object)
        codes = np.full(n, len(labels) - 1, dtype=np.min_scalar_type(len(labels)))
        codes[kept] = of_kept
        cells[column] = (codes, labels)
    return cells, gone, written


def _written_labels(cells):
    """Per column, the distinct labels some tuple is released with."""
    return {c: labels[np.unique(codes)] for c, (codes, labels) in cells.items()}


class _TupleIndex:
    """The counted tuple of a row, found from its cells' codes.

    Each tuple's codes are packed into one integer (as
    :func:`kanon_graph.cli._stream._merge_counts` packs them) and the keys
    kept sorted, so a chunk's rows are looked up by binary search: two
    arrays of one entry per tuple, where a join on the code columns built a
    hash table of every tuple for every chunk. Past 62 bits of key, the
    rows are joined on their code columns.
    """

    def __init__(self, counted):
        self.counted = counted
        self.radices = [len(counted.dictionaries.values[c]) + 1 for c in counted.columns]
        self.keys = self.order = self.index = None
        if float(np.prod(np.asarray(self.radices, dtype=float))) < 2.0**62:
            keys = self._keys(counted.codes)
            self.order = np.argsort(keys, kind="stable").astype(
                np.int32 if len(keys) < 2**31 else np.int64)
            self.keys = keys[self.order]
        else:
            self.index = counted.codes.astype(np.int32).assign(  # as a chunk's codes
                **{_ID: np.arange(len(counted.codes), dtype=np.int64)})

    def _keys(self, codes):
        key = np.zeros(len(codes), dtype=np.int64)      # -1 (missing) codes as 0
        for column, radix in zip(self.counted.columns, self.radices):
            key *= radix
            key += codes[column].to_numpy().astype(np.int64) + 1
        return key

    def ids(self, table):
        """The counted tuple of every row of ``table`` (None: a tuple the first pass did not
        count, the input changed)."""
        codes = self.counted.dictionaries.codes(table, grow=False)
        if codes is None:
            return None
        if self.keys is None:
            joined = codes.merge(self.index, on=self.counted.columns, how="left", sort=False)
            ids = joined[_ID].to_numpy()
            if len(ids) and pd.isna(ids).any():
                return None
            return ids.astype(np.int64)
        key = self._keys(codes)
        at = np.searchsorted(self.keys, key)
        if len(key) and (at.max() >= len(self.keys) or (self.keys[at] != key).any()):
            return None
        return self.order[at].astype(np.int64)


def write_release(result, counted, args, progress, *, rows=CHUNK_ROWS, before_publish=None):
    """Pass 2: write the release of ``counted``'s file to ``args.output``; what was written.

    ``before_publish(written)`` runs once the written cells passed the check,
    before the release is renamed into place (the command writes its report
    there, so a release in place always has its report).

    Raises
    ------
    PrivacyError
        The written cells fail the check (nothing is published), or a row
        holds a tuple the first pass did not count (the input changed).
    """
    cells, gone, written = _tuple_cells(result, counted)
    qis = list(counted.schema.quasi_identifiers)
    expected = int(counted.counts[written].sum())
    seed = None if args.keep_order else (
        args.order_seed if args.order_seed is not None else fresh_order_seed())
    used = _written_labels(cells)
    crlf = counted.carriage_return or any(
        any(isinstance(v, str) and chr(13) in v for v in used[c]) for c in qis)
    out = _Out(args, crlf, expected, seed, rows)
    index = _TupleIndex(counted)
    classes = _Classes(used, qis)
    suppressed, formulas, done = 0, {}, 0
    progress.phase(f"writing {args.output}")
    with contextlib.ExitStack() as stack:
        out.open(stack)
        for text in iter_text_chunks(args.input, sep=args.sep, encoding=encoding_of(args),
                                     rows=rows):
            table = _missing_as_nan(text, counted.columns, args)
            ids = index.ids(table)
            del table
            if ids is None:
                raise PrivacyError(f"{args.input!r} holds a tuple the first pass did not count "
                                   f"(did the file change while it was read?); nothing is "
                                   f"written")
            keep = written[ids]
            ids = ids[keep]
            columns = counted.schema.released_columns(text.frame)
            frame = text.frame.loc[keep, columns].reset_index(drop=True)
            del text                            # the chunk's cells: only frame's from here
            for column in qis:      # object cells kept as they are (no str dtype inferred)
                codes, labels = cells[column]
                frame[column] = pd.Series(labels[codes[ids]], dtype=object)
            free = ~gone[ids]
            suppressed += int((~free).sum())
            if free.any():                   # the classes, counted on the written cells
                classes.add(frame.loc[free, qis])
            for column, count in _formulas(frame).items():
                formulas[column] = formulas.get(column, 0) + count
            if args.escape_formulas:
                frame = _escaped(frame)
            out.take(frame, done)
            done += len(frame)
            del frame                           # not held while the next chunk is read
            give_back_free_memory()             # the chunk's freed blocks, before the next
            progress.phase(f"writing {args.output}: {done:,} rows")
        class_sizes = classes.sizes()
        _check(result, class_sizes, suppressed, done, expected)
        out.finish()              # the buckets in order; renamed into place on leaving
        order = [c for c in counted.header if c in formulas]
        done = Written(done, class_sizes.to_numpy(dtype=np.int64), suppressed,
                       {c: formulas[c] for c in order}, bool(args.escape_formulas and formulas),
                       seed)
        if before_publish is not None:
            before_publish(done)
    return done


class _Classes:
    """Rows per tuple of written quasi-identifier cells, added up chunk by chunk.

    Each written cell is looked up among its column's released labels (a
    cell that is no label is an error) and the label numbers of a row are
    combined into one integer key; past 62 bits of keys, the rows are
    grouped by their cells instead.
    """

    def __init__(self, cells, qis):
        self.qis = list(qis)
        self.labels = {c: pd.Index(pd.unique(cells[c])) for c in self.qis}
        radices = [max(len(self.labels[c]), 1) for c in self.qis]
        self.radices = radices if float(np.prod(np.asarray(radices, dtype=float))) < 2.0**62 \
            else None
        self.pieces = []

    def add(self, frame):
        if self.radices is None:
            self.pieces.append(frame.value_counts(sort=False))
        else:
            key = np.zeros(len(frame), dtype=np.int64)
            for column, radix in zip(self.qis, self.radices):
                code = self.labels[column].get_indexer(frame[column].to_numpy(dtype=object))
                if (code < 0).any():
                    raise PrivacyError(f"a written cell of {column!r} is no released label; "
                                       f"nothing is written")
                key *= radix
                key += code
            keys, counts = np.unique(key, return_counts=True)
            self.pieces.append(pd.Series(counts, index=keys))
        if len(self.pieces) >= 8:
            self.pieces = [self._total()]

    def _total(self):
        whole = pd.concat(self.pieces)
        return whole.groupby(level=list(range(whole.index.nlevels))).sum()

    def sizes(self):
        """Rows per class (a Series of counts)."""
        if not self.pieces:
            return pd.Series(dtype=np.int64)
        return self._total()


def _formulas(frame):
    """``{column: count}`` of the cells a spreadsheet would run (as
    :func:`kanon_graph.io.release.formula_cells` counts them)."""
    counts = {}
    for column in frame.columns:
        cells = frame[column]
        if cells.dtype != object and not pd.api.types.is_string_dtype(cells.dtype):
            continue
        uniques = pd.unique(cells)
        flagged = [u for u in uniques if _is_formula(u)]
        if flagged:
            n = int(cells.isin(flagged).sum())
            if n:
                counts[column] = n
    return counts


def _escaped(frame):
    for column in frame.columns:
        cells = frame[column]
        if cells.dtype == object:
            flags = cells.map(_is_formula).to_numpy(dtype=bool)
            if flags.any():
                frame[column] = cells.where(~flags, "'" + cells.astype(str))
    return frame


def _check(result, sizes, suppressed, rows, expected):
    """The written cells' classes: k rows each, every row the search released, and as many
    suppressed as the search suppressed (which its check held to the budget)."""
    k = result.k
    small = sizes[sizes < k] if len(sizes) else sizes
    if rows != expected or int(sizes.sum()) + suppressed != rows:
        raise PrivacyError(f"the streamed release holds {rows} rows; the search released "
                           f"{expected}: nothing is written")
    if len(small):
        raise PrivacyError(f"the streamed release, counted on its written cells, has "
                           f"{len(small)} class(es) of fewer than k={k} rows (the smallest "
                           f"{int(small.min())}): nothing is written")
    if suppressed != result.suppressed:
        raise PrivacyError(f"the streamed release suppresses {suppressed} rows; the search "
                           f"suppressed {result.suppressed}: nothing is written")


class _Out:
    """The written file: rows in order (``--keep-order``) or through position buckets."""

    def __init__(self, args, crlf, n, seed, rows):
        self.args, self.n, self.seed, self.rows = args, n, seed, max(int(rows), 1)
        self.line_end = CRLF if crlf else "\n"
        self.sep = args.sep or ","
        self.header = True

    def open(self, stack):
        self.tmp = stack.enter_context(atomic_file(self.args.output))
        self.handle = stack.enter_context(open(self.tmp, "w", encoding="utf-8", newline=""))
        if self.seed is not None:
            # the written position of released row r, and a bucket file per block of them
            # (int32 below 2**31 rows: half the memory of the permutation itself)
            kind = np.int32 if self.n < 2**31 else np.int64
            self.position = np.empty(self.n, dtype=kind)
            self.position[order_of(self.n, self.seed)] = np.arange(self.n, dtype=kind)
            folder = stack.enter_context(tempfile.TemporaryDirectory(
                prefix=".kg-stream-", dir=str(self.tmp.parent)))
            self.buckets = [f"{folder}/{b}.pickle" for b in range(-(-self.n // self.rows))]

    def _write(self, frame):
        frame.to_csv(self.handle, sep=self.sep, index=False, header=self.header,
                     lineterminator=self.line_end)
        self.header = False

    def take(self, frame, start):
        if self.seed is None:
            self._write(frame)
            return
        position = self.position[start:start + len(frame)]
        bucket = position // self.rows
        order = np.argsort(bucket, kind="stable")
        bounds = np.searchsorted(bucket[order], np.arange(len(self.buckets) + 1))
        arrays = {c: frame[c].to_numpy() for c in frame.columns}
        for b in np.flatnonzero(np.diff(bounds)):
            rows = order[bounds[b]:bounds[b + 1]]
            part = {c: values[rows] for c, values in arrays.items()}
            with open(self.buckets[b], "ab") as handle:
                pickle.dump((position[rows], part), handle, protocol=pickle.HIGHEST_PROTOCOL)
        self.columns = list(frame.columns)

    def finish(self):
        if self.seed is None:
            return                  # every chunk, an empty one too, was written as it came
        del self.position
        if self.n == 0:
            self._write(pd.DataFrame(columns=getattr(self, "columns", [])))
            return
        for b, path in enumerate(self.buckets):
            start = b * self.rows
            size = min(self.rows, self.n - start)
            columns = {c: np.empty(size, dtype=object) for c in self.columns}
            with open(path, "rb") as handle:
                while True:
                    try:
                        position, part = pickle.load(handle)
                    except EOFError:
                        break
                    for c in self.columns:
                        columns[c][position - start] = part[c]
            self._write(pd.DataFrame(columns, columns=self.columns, dtype=object))
            columns = part = None               # one bucket's cells alive at a time
