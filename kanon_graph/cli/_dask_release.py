"""A Dask release on disk: every row in a random file, every file shuffled, checked first.

A release written file by file must not let anyone link a row to the input
file it came from (an admission month, a record range): inside one input
file, k does not hold. So the rows are spread over new files at random, in
two passes (a scatter through the temporary release folder, so that memory
holds one partition at a time, never the whole release):

1. **scatter** (one task per input partition): the partition's released rows
   are computed once, their formula cells and class sizes counted, and each
   row is sent to a file drawn from the order seed
   (:func:`kanon_graph.io.release.file_of_rows`); the rows bound for each
   file are set aside in a hidden folder inside the temporary release;
2. **check**: the class sizes counted in that pass must be the ones the run
   verified (as many rows, no class smaller): an input that changed since
   is refused, and nothing is written;
3. **gather** (one task per output file): the rows set aside for the file,
   taken in input order, are put in an order drawn from the seed
   (:func:`kanon_graph.io.release.file_order`) and written.

The number of files depends on the number of rows only (one per
``ROWS_PER_FILE``), and their sizes are random: nothing of the input's
files shows in the output's. The order seed undoes both draws
(:func:`unshuffle_dask`). With ``keep_order`` the files are the input's
partitions, their rows in the input's order.
"""

from __future__ import annotations

import csv
import shutil
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

from ..exceptions import DataError, PrivacyError
from ..io.release import (file_count, file_of_rows, file_order, formula_cells, fresh_order_seed,
                          plain_dictionaries, publishable)
from ..io.tables import CRLF
from ..io.write import atomic_folder
from ..recoding import SUPPRESSED
from ._common import DataProblem

__all__ = ["ROWS_PER_FILE", "write_dask_table", "unshuffle_dask"]

#: Rows of one output file (on average): the file count is the row count over this.
ROWS_PER_FILE = 500_000
_SCATTER = ".kg-scatter"          # inside the temporary release folder, removed before the swap


def _scatter(part, number, folder, seed, files, qis, escape):
    """Pass 1 on input partition ``number``: its rows set aside per output file.

    Returns the row count, the formula cells and the class sizes of the rows
    set aside (the rows that will be written, no other).
    """
    part = part.reset_index(drop=True)
    counts = pd.Series(formula_cells(part), dtype="int64")
    sizes = part[qis].astype(str).value_counts(sort=False)
    if escape:
        part = publishable(part, seed=None, keep_order=True, escape_formulas=True).table
    target = np.full(len(part), number) if seed is None else \
        file_of_rows(len(part), seed, number, files)
    for file in np.unique(target):
        piece = folder / str(int(file))
        piece.mkdir(exist_ok=True)
        part.iloc[np.flatnonzero(target == file)].to_pickle(piece / f"{number}.pkl")
    return len(part), counts, sizes


def _gather(file, folder, parts, seed, meta, path):
    """Pass 2: output file ``file`` from the rows set aside for it, shuffled, written."""
    pieces = [pd.read_pickle(p) for p in (folder / str(file) / f"{i}.pkl" for i in range(parts))
              if p.exists()]
    frame = pd.concat(pieces, ignore_index=True) if pieces else meta.iloc[:0]
    if seed is not None:
        frame = frame.iloc[file_order(len(frame), seed, file)].reset_index(drop=True)
    frame = plain_dictionaries(frame)
    if path.suffix.lower() == ".csv":
        # CRLF (RFC 4180): a cell holding a bare carriage return is quoted
        frame.to_csv(path, index=False, lineterminator=CRLF, quoting=csv.QUOTE_MINIMAL)
    else:
        frame.to_parquet(path, index=False)
    shutil.rmtree(folder / str(file), ignore_errors=True)
    return len(frame)


def _check_written(sizes, result):
    """The rows set aside are the rows the run verified: as many, no class smaller."""
    verification = result.verification
    expected = int(verification.released) + int(verification.suppressed)
    total = int(sizes.sum()) if len(sizes) else 0
    free = sizes
    if result.suppressed and len(sizes):
        free = sizes.drop(index=[tuple([SUPPRESSED] * sizes.index.nlevels)]
                          if sizes.index.nlevels > 1 else [SUPPRESSED], errors="ignore")
    smallest = int(free.min()) if len(free) else 0
    if total != expected or (verification.released and smallest < verification.k_achieved):
        raise PrivacyError(f"the release to write holds {total} rows in classes of at least "
                           f"{smallest}, but the run verified {expected} rows in classes of at "
                           f"least {verification.k_achieved}: the input changed during the "
                           f"run; nothing was written")


def write_dask_table(result, path, *, seed=None, keep_order=False, escape_formulas=False,
                     before_swap=None, rows_per_file=None):
    """Write a Dask run's release into a new folder of files, swapped in as a whole.

    Parameters
    ----------
    result : AnonymizationResult
        A run on a Dask DataFrame (``result.table`` is lazy).
    path : str or path-like
        A folder (Parquet files), or a pattern with ``*`` such as
        ``out/part-*.csv`` (CSV files in ``out``). Whatever release the
        folder held is replaced (never merged); a folder holding anything
        else is refused.
    seed : int, optional
        The order seed (a fresh one when None): each row goes to a file
        drawn from it and each file's rows are shuffled with it (see the
        module docstring).
    keep_order : bool
        One file per input partition, rows in the input's order.
    escape_formulas : bool
        Prefix formula cells with ``'`` (they are counted either way).
    before_swap : callable, optional
        ``before_swap(publication)`` once the files are complete, before the
        folder is swapped in (the CLI writes its report there).
    rows_per_file : int, optional
        Rows per file on average (default :data:`ROWS_PER_FILE`).

    Returns
    -------
    int
        The number of files written.
    """
    import dask

    table = result.table
    is_csv = str(path).lower().endswith(".csv")
    if is_csv and "*" not in Path(path).name:
        raise DataProblem(f"a Dask release is written per partition: give a pattern with "
                          f"'*' such as 'out/part-*.csv', or a folder for Parquet; got "
                          f"{str(path)!r}")
    verification = result.verification
    rows = int(verification.released) + int(verification.suppressed)
    parts = int(table.npartitions)
    if keep_order:
        seed, files = None, parts
    else:
        seed = fresh_order_seed() if seed is None else int(seed)
        files = file_count(rows, rows_per_file or ROWS_PER_FILE)
    qis = list(result.release.data.schema.quasi_identifiers)
    width = max(len(str(files - 1)), 5)
    folder = Path(path).parent if is_csv else Path(path)
    name = (lambda i: Path(path).name.replace("*", f"{i:0{width}d}")) if is_csv else \
        (lambda i: f"part-{i:0{width}d}.parquet")
    with atomic_folder(folder) as tmp:
        scatter = tmp / _SCATTER
        scatter.mkdir()
        tasks = [dask.delayed(_scatter, pure=False)(part, i, scatter, seed, files, qis,
                                                    escape_formulas)
                 for i, part in enumerate(table.to_delayed())]
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", message="Computing mixed collections")
            passed = dask.compute(*tasks)
        sizes = pd.concat([s for _, _, s in passed])
        sizes = sizes.groupby(level=list(range(sizes.index.nlevels))).sum() if len(sizes) \
            else sizes
        _check_written(sizes, result)
        found = pd.concat([c for _, c, _ in passed])
        formulas = {str(c): int(v) for c, v in found.groupby(level=0).sum().items() if v}
        writes = [dask.delayed(_gather, pure=False)(j, scatter, parts, seed, table._meta,
                                                    tmp / name(j))
                  for j in range(files)]
        dask.compute(*writes)
        shutil.rmtree(scatter)
        if before_swap is not None:
            before_swap({"shuffled": not keep_order, "order_seed": seed, "files": files,
                         "formula_cells": formulas,
                         "formulas_escaped": bool(escape_formulas and formulas)})
    return files


def _split_file(part, file, seed, counts):
    """Released file ``file`` cut into the rows of each input partition, in input order."""
    if len(part) != int(counts.sum()):
        raise DataError(f"evaluate: released file {file} has {len(part)} rows, but the "
                        f"original's files and the order seed put {int(counts.sum())} there: "
                        f"is RELEASED the release of ORIGINAL written with this order seed?")
    gathered = part.iloc[np.argsort(file_order(len(part), seed, file))]
    gathered = gathered.astype({c: "category" for c in gathered.columns
                                if gathered[c].dtype == object
                                or pd.api.types.is_string_dtype(gathered[c].dtype)})
    ends = np.cumsum(counts)
    return [gathered.iloc[end - n:end] for n, end in zip(counts, ends)]


def _rebuild(pieces, number, n, seed, files, dtypes):
    """Input partition ``number``'s released rows, in its order, from every file's piece."""
    target = file_of_rows(n, seed, number, files)
    by_file = np.argsort(target, kind="stable")        # the rows grouped file by file
    back = np.empty(n, dtype=np.int64)
    back[by_file] = np.arange(n)
    rows = pd.concat(pieces, ignore_index=True)
    return rows.iloc[back].reset_index(drop=True).astype(dtypes)


def unshuffle_dask(released, seed, original):
    """Undo :func:`write_dask_table`'s order: ``released`` row-aligned with ``original``.

    The original's partitions are counted (one pass over it) to redraw
    every row's file; each released file is cut into the rows of each input
    partition, and each input partition's rows are put back together in its
    order. The cut pieces (text columns as categoricals) stay in memory
    between the two steps.
    """
    import dask
    import dask.dataframe as dd

    lengths = [int(n) for n in original.map_partitions(len).compute()]
    files = int(released.npartitions)
    plan = np.stack([np.bincount(file_of_rows(n, seed, i, files), minlength=files)
                     for i, n in enumerate(lengths)]) if lengths else np.zeros((0, files), int)
    split = [dask.delayed(_split_file, nout=len(lengths))(part, j, seed, plan[:, j])
             for j, part in enumerate(released.to_delayed())]
    dtypes = released._meta.dtypes.to_dict()
    rebuilt = [dask.delayed(_rebuild)([split[j][i] for j in range(files)], i, n, seed, files,
                                      dtypes)
               for i, n in enumerate(lengths)]
    return dd.from_delayed(rebuilt, meta=released._meta, verify_meta=False)
