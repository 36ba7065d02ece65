"""A Dask release on disk: checked as written, each row in a random file, each file shuffled.

What :meth:`kanon_graph.AnonymizationResult.write` and ``kanon-graph
anonymize --engine dask`` do with a Dask release. The release is lazy:
writing it reads the input again, so the cells written are checked again
as they are written -- nothing the run reported is trusted to describe them:

1. the input's files are compared with their fingerprints taken when they
   were read (:mod:`kanon_graph.scale._sources`); a changed file is an error
   naming it, and nothing is written;
2. **scatter** (one task per input partition): the partition's released rows
   are computed once, their formula cells counted, their (quasi-identifier[,
   sensitive]) cells counted by text, and each row sent to a file drawn from
   the order seed (:func:`kanon_graph.io.release.file_of_rows`); the rows
   bound for each file are set aside in a hidden folder inside the temporary
   release;
3. **check** (:class:`~kanon_graph.scale._released.CellCheck`): the rows set
   aside hold every record of the input (less those dropped for a missing
   value), every class of released cells holds k records, and with l or t
   the privacy model holds on the counted classes; a record whose
   quasi-identifiers are all ``*`` is suppressed. The files are compared
   with their fingerprints again. Any failure: nothing is written;
4. **gather** (one task per output file): the rows set aside for the file,
   taken in input order, are put in an order drawn from the seed
   (:func:`kanon_graph.io.release.file_order`) and written.

A file replaced during the run is thus caught by its fingerprint (where the
table names its files: ``dd.read_parquet``, ``dd.read_csv``, the command
line's reader) and, whatever the table, a release that no longer satisfies
the model by its own cells is never written. The number of files depends
on the number of rows only (one per ``ROWS_PER_FILE``), and their sizes are
random: nothing of the input's files shows in the output's. The order seed
undoes both draws. With ``keep_order`` the files are the input's
partitions, their rows in the input's order.
"""

from __future__ import annotations

import csv
import shutil
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

from ..exceptions import DataError
from ..io.release import (Publishable, file_count, file_of_rows, file_order, formula_cells,
                          fresh_order_seed, plain_dictionaries, publishable)
from ..io.tables import CRLF
from ..io.write import atomic_folder
from ._cluster import quiet_graphs
from ._counts import add_counts, count_tuples

__all__ = ["ROWS_PER_FILE", "write_dask_release"]

#: Rows of one output file (on average): the file count is the row count over this.
ROWS_PER_FILE = 500_000
_SCATTER = ".kg-scatter"          # inside the temporary release folder, removed before the swap
_COUNT = "__kg_count__"
_NOTHING = "nothing was written: anonymize the input again as it is now"


def _scatter(part, number, folder, seed, files, columns, escape):
    """Pass 1 on input partition ``number``: its rows set aside per output file.

    Returns the formula cells and the counted cells of the rows set aside
    (the rows that will be written, no other).
    """
    part = part.reset_index(drop=True)
    counts = pd.Series(formula_cells(part), dtype="int64")
    cells = count_tuples(part, columns, text=True)
    if escape:
        part = publishable(part, seed=None, keep_order=True, escape_formulas=True).table
    target = np.full(len(part), number) if seed is None else \
        file_of_rows(len(part), seed, number, files)
    for file in np.unique(target):
        piece = folder / str(int(file))
        piece.mkdir(exist_ok=True)
        part.iloc[np.flatnonzero(target == file)].to_pickle(piece / f"{number}.pkl")
    return counts, cells


def _gather(file, folder, parts, seed, meta, path, sep):
    """Pass 2: output file ``file`` from the rows set aside for it, shuffled, written."""
    pieces = [pd.read_pickle(p) for p in (folder / str(file) / f"{i}.pkl" for i in range(parts))
              if p.exists()]
    frame = pd.concat(pieces, ignore_index=True) if pieces else meta.iloc[:0]
    if seed is not None:
        frame = frame.iloc[file_order(len(frame), seed, file)].reset_index(drop=True)
    frame = plain_dictionaries(frame)
    if path.suffix.lower() == ".csv":
        # CRLF (RFC 4180): a cell holding a bare carriage return is quoted
        frame.to_csv(path, index=False, sep=sep, lineterminator=CRLF,
                     quoting=csv.QUOTE_MINIMAL)
    else:
        frame.to_parquet(path, index=False)
    shutil.rmtree(folder / str(file), ignore_errors=True)
    return len(frame)


def write_dask_release(result, path, *, seed=None, keep_order=False, escape_formulas=False,
                       sep=",", before_swap=None, rows_per_file=None, where="write"):
    """Write a Dask run's release into a new folder of files, checked, swapped in whole.

    Parameters
    ----------
    result : AnonymizationResult
        A run on a Dask DataFrame (``result.table`` is lazy, ``result.cell_check``
        says what its cells must satisfy).
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
    sep : str
        The CSV separator.
    before_swap : callable, optional
        ``before_swap(publication)`` once the files are complete, before the
        folder is swapped in (the CLI writes its report there).
    rows_per_file : int, optional
        Rows per file on average (default :data:`ROWS_PER_FILE`).
    where : str
        What to name in messages.

    Returns
    -------
    kanon_graph.io.release.Publishable
        What was written (``table`` None, ``files`` the number of files).
    """
    import dask

    check = getattr(result, "cell_check", None)
    if check is None:
        raise TypeError(f"{where}: this Dask release carries no check of its cells; write "
                        f"the result kg.anonymize or kg.apply_levels returned")
    is_csv = str(path).lower().endswith(".csv")
    if is_csv and "*" not in Path(path).name:
        raise DataError(f"{where}: a Dask release is a folder of files, one written per "
                        f"task: give a folder (Parquet files) or a CSV pattern with '*' such "
                        f"as 'out/part-*.csv'; got {str(path)!r}")
    table = result.table
    if check.files is not None:
        check.files.check(where, _NOTHING)
    parts = int(table.npartitions)
    if keep_order:
        seed, files = None, parts
    else:
        seed = fresh_order_seed() if seed is None else int(seed)
        files = file_count(check.records, rows_per_file or ROWS_PER_FILE)
    width = max(len(str(files - 1)), 5)
    folder = Path(path).parent if is_csv else Path(path)
    name = (lambda i: Path(path).name.replace("*", f"{i:0{width}d}")) if is_csv else \
        (lambda i: f"part-{i:0{width}d}.parquet")
    with atomic_folder(folder) as tmp, quiet_graphs():
        tmp = tmp.resolve()                 # worker processes may not share this cwd
        scatter = tmp / _SCATTER
        scatter.mkdir()
        tasks = [dask.delayed(_scatter, pure=False)(part, i, scatter, seed, files,
                                                    check.columns, escape_formulas)
                 for i, part in enumerate(table.to_delayed())]
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", message="Computing mixed collections")
            passed = dask.compute(*tasks)
        counted = add_counts([c for _, c in passed], check.columns, _COUNT)
        check.check(counted, where=where, what="the release to write (nothing was written)")
        if check.files is not None:
            check.files.check(where, _NOTHING)
        found = pd.concat([c for c, _ in passed])
        formulas = {str(c): int(v) for c, v in found.groupby(level=0).sum().items() if v}
        writes = [dask.delayed(_gather, pure=False)(j, scatter, parts, seed, table._meta,
                                                    tmp / name(j), sep)
                  for j in range(files)]
        dask.compute(*writes)
        shutil.rmtree(scatter)
        publication = {"shuffled": not keep_order, "order_seed": seed, "files": files,
                       "formula_cells": formulas,
                       "formulas_escaped": bool(escape_formulas and formulas)}
        if before_swap is not None:
            before_swap(publication)
    return Publishable(None, shuffled=not keep_order, formulas=formulas,
                       escaped=publication["formulas_escaped"], seed=seed, files=files)
