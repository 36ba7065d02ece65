"""``--engine dask``: a folder or glob of Parquet / CSV files in, a release folder out.

Each file is read by the pandas engine's own reader and checked by its own
cell rules (:func:`kanon_graph.cli._common.check_cells`): the same
missing-value rule, the same field count per row, the same numeric and date
rules, and one-line errors naming the file and its line (row for Parquet).
Each file is one partition, read lazily on the workers.

The release is written into a temporary folder beside the target and swapped
into place as a whole (:func:`kanon_graph.io.write.atomic_folder`); its
partitions and the rows within each are put in an order drawn from the run's
seed unless ``keep_order``.
"""

from __future__ import annotations

import argparse
import csv
import glob
import warnings
from pathlib import Path

import numpy as np

from ..io import read_input_table
from ..io._parquet import parquet_frame
from ..io.release import ORDER_STREAM, formula_cells, fresh_order_seed, publishable
from ..io.tables import CRLF
from ..io.write import atomic_folder
from ._common import DataProblem, _missing_as_nan, check_cells, floats_as_text

__all__ = ["is_many", "read_dask_table", "write_dask_table", "unshuffle_dask",
           "partition_order", "quiet_dask_logs"]

_PARQUET = (".parquet", ".pq")
_CSV = (".csv", ".tsv", ".txt")


def is_many(path):
    """Does ``path`` name a folder or a glob pattern (rather than one file)?"""
    return Path(path).is_dir() or any(ch in str(path) for ch in "*?[")


def _files(path):
    if Path(path).is_dir():
        files = sorted(str(p) for p in Path(path).iterdir()
                       if p.is_file() and p.suffix.lower() in _PARQUET + _CSV)
    else:
        files = sorted(glob.glob(str(path)))
    if not files:
        raise DataProblem(f"no Parquet or CSV file matches {str(path)!r}")
    kinds = {Path(f).suffix.lower() in _PARQUET for f in files}
    if len(kinds) > 1:
        raise DataProblem(f"{str(path)!r} mixes Parquet and CSV files; give one kind")
    return files, kinds.pop()


def _meta(file, parquet, sep):
    """An empty frame with the columns (and Parquet dtypes) of ``file``."""
    import pandas as pd

    if parquet:
        try:
            import pyarrow.parquet as pq

            # as the reader makes each partition (a named index is a column)
            return _plain(parquet_frame(pq.read_schema(file).empty_table()))
        except Exception:  # pyarrow's errors have no common base class
            read_input_table(file)     # the pandas engine's own message for this file
            raise
    text = read_input_table(file, sep=sep)      # the whole first file: its errors now
    return pd.DataFrame({c: pd.Series(dtype=object) for c in text.frame.columns})


def _read_file(file, sep, columns, schema, rules):
    """One file as one partition, under the pandas engine's rules."""
    text = read_input_table(file, sep=sep or None)
    if list(text.frame.columns) != columns:
        raise DataProblem(f"input file {file!r} has the columns {list(text.frame.columns)}; "
                          f"the first file has {columns}: every file needs the same header")
    if schema is None:
        return _plain(text.frame)
    checked = list(schema.quasi_identifiers) + list(schema.sensitive)
    table = _missing_as_nan(text, checked, rules)
    numeric = list(schema.numeric) + [c for c in checked if c not in schema.numeric
                                      and table[c].dtype.kind == "f"]
    return _plain(check_cells(table, text, schema, rules, numeric))


def _plain(frame):
    """Categorical columns as their values: each file has its own categories, and the
    partitions of one Dask frame must agree on their dtypes."""
    import pandas as pd

    columns = [c for c in frame.columns if isinstance(frame[c].dtype, pd.CategoricalDtype)]
    if columns:
        frame = frame.astype({c: object for c in columns})
    return frame


def read_dask_table(path, sep=None, *, schema=None, args=None):
    """A lazy ``dask.dataframe.DataFrame`` over the files of ``path``, one partition each.

    Every file is read as the pandas engine reads one (CSV cells as text,
    field count checked per row; Parquet with its dtypes). With ``schema``
    (and the command's ``args``: ``missing``, ``na_values``), the
    quasi-identifier and sensitive cells follow the pandas engine's rules:
    the empty cell and ``--na-values`` are missing, a missing cell is an
    error unless ``--missing drop``, numbers and dates are checked; every
    error is one line naming the file and line.
    """
    from ..scale import require_dask

    require_dask("--engine dask")
    import dask
    import dask.dataframe as dd

    files, parquet = _files(path)
    meta = _meta(files[0], parquet, sep)
    rules = None
    if schema is not None:
        rules = argparse.Namespace(schema=getattr(args, "schema", None),
                                   missing=getattr(args, "missing", "error"),
                                   na_values=list(getattr(args, "na_values", None) or ()))
        for column in list(schema.quasi_identifiers) + list(schema.sensitive) + \
                list(schema.identifiers):
            if column not in meta.columns:
                raise DataProblem(f"column {column!r} is not in {files[0]!r}; its columns "
                                  f"are {list(meta.columns)}")
        meta = floats_as_text(meta, schema.quasi_identifiers)
    columns = [str(c) for c in meta.columns]
    parts = [dask.delayed(_read_file, pure=True)(f, sep, columns, schema, rules)
             for f in files]
    return dd.from_delayed(parts, meta=meta, verify_meta=False)


def quiet_dask_logs():
    """Keep Dask's worker tracebacks off the terminal: the command prints its own one line.

    Set before the LocalCluster starts (its worker processes read the
    environment); ``KANON_GRAPH_DEBUG=1`` keeps them.
    """
    import logging
    import os

    if os.environ.get("KANON_GRAPH_DEBUG"):
        return
    os.environ.setdefault("DASK_LOGGING__DISTRIBUTED", "critical")
    logging.getLogger("distributed").setLevel(logging.CRITICAL)


def partition_order(n, seed):
    """The order in which a release's ``n`` partitions are written (from the seed)."""
    return np.random.default_rng([int(seed), ORDER_STREAM, 1]).permutation(int(n))


def _rows(n, seed, number):
    return np.random.default_rng([int(seed), ORDER_STREAM, 2, int(number)]).permutation(int(n))


def _shuffle_part(part, seed, partition_info=None):
    number = partition_info["number"] if partition_info else 0
    return part.iloc[_rows(len(part), seed, number)].reset_index(drop=True)


def _unshuffle_part(part, seed, partition_info=None):
    number = partition_info["number"] if partition_info else 0
    back = np.argsort(_rows(len(part), seed, number))
    return part.iloc[back].reset_index(drop=True)


def _formula_counts(part):
    import pandas as pd

    return pd.Series(formula_cells(part), dtype="int64")


def _escape_part(part):
    return publishable(part, seed=None, keep_order=True, escape_formulas=True).table


def write_dask_table(table, path, *, seed=None, keep_order=False, escape_formulas=False,
                     before_swap=None):
    """Write a lazy release partition by partition into a new folder, swapped in as a whole.

    ``path`` ending in ``.csv`` with a ``*`` (``out/part-*.csv``) writes one CSV
    file per partition into ``out``; anything else is a folder of Parquet
    files. Whatever the folder held is replaced (never merged). Unless
    ``keep_order``, the partitions are written in an order drawn from
    the order ``seed`` (a fresh one when None) and the rows of each are
    shuffled with it. Formula cells are
    counted in the same pass (and escaped with ``escape_formulas``);
    ``before_swap(publication)`` runs once the files are complete, before
    the folder is swapped in (the CLI writes its report there). Returns the
    number of partitions written.
    """
    import dask
    import pandas as pd

    is_csv = str(path).lower().endswith(".csv")
    if is_csv and "*" not in Path(path).name:
        raise DataProblem(f"a Dask release is written per partition: give a pattern with "
                          f"'*' such as 'out/part-*.csv', or a folder for Parquet; got "
                          f"{str(path)!r}")
    n = int(table.npartitions)
    if keep_order:
        seed = None
    else:
        seed = fresh_order_seed() if seed is None else int(seed)
        table = table.partitions[[int(i) for i in partition_order(n, seed)]]
        table = table.map_partitions(_shuffle_part, int(seed), meta=table._meta)
    counts = table.map_partitions(_formula_counts, meta=pd.Series(dtype="int64"))
    if escape_formulas:
        table = table.map_partitions(_escape_part, meta=table._meta)
    width = max(len(str(n - 1)), 5)
    folder = Path(path).parent if is_csv else Path(path)
    with atomic_folder(folder) as tmp:
        if is_csv:
            # CRLF (RFC 4180): a cell holding a bare carriage return is quoted
            write = table.to_csv(str(tmp / Path(path).name), index=False, compute=False,
                                 name_function=lambda i: f"{i:0{width}d}", lineterminator=CRLF,
                                 quoting=csv.QUOTE_MINIMAL)
        else:
            write = table.to_parquet(str(tmp), write_index=False, compute=False,
                                     name_function=lambda i: f"part-{i:0{width}d}.parquet")
        with warnings.catch_warnings():     # the write and the counts share one pass
            warnings.filterwarnings("ignore", message="Computing mixed collections")
            _, found = dask.compute(write, counts)
        formulas = {str(c): int(v) for c, v in found.groupby(level=0).sum().items() if v}
        if before_swap is not None:
            before_swap({"shuffled": not keep_order, "order_seed": seed, "formula_cells": formulas,
                         "formulas_escaped": bool(escape_formulas and formulas)})
    return n


def unshuffle_dask(released, seed):
    """Undo :func:`write_dask_table`'s order: the release back in its input's partition order."""
    n = int(released.npartitions)
    released = released.map_partitions(_unshuffle_part, int(seed), meta=released._meta)
    back = np.argsort(partition_order(n, seed))
    return released.partitions[[int(i) for i in back]]
