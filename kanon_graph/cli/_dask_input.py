"""``--engine dask``: a folder or glob of Parquet / CSV files in, a release folder out.

Each file is read by the pandas engine's own reader and checked by its own
cell rules (:func:`kanon_graph.cli._common.check_cells`): the same
missing-value rule, the same field count per row, the same numeric and date
rules, and one-line errors naming the file and its line (row for Parquet).
Each file is one partition, read lazily on the workers.

Each file's fingerprint (size, modification time, a Parquet file's footer:
:func:`kanon_graph.scale._sources.fingerprint`) is taken when the table is
made, and every read of the file (the count, the release's check, the write)
compares it first: a file changed since is a one-line error naming it.

The release is written by :mod:`kanon_graph.cli._dask_release`: into a
temporary folder beside the target, swapped into place as a whole, every row
sent to an output file drawn from the order seed and every file shuffled
(unless ``keep_order``), its cells checked again as they are written.
"""

from __future__ import annotations

import argparse
import glob
import uuid
from pathlib import Path

from ..io import read_input_table
from ..io._encoding import is_utf8, text_codec
from ..io._parquet import parquet_frame
from ..scale._sources import Fingerprints, fingerprint
from ._common import DataProblem, _missing_as_nan, check_cells, floats_as_text
from ._dask_release import unshuffle_dask, write_dask_table

__all__ = ["is_many", "read_dask_table", "write_dask_table", "unshuffle_dask",
           "quiet_dask_logs"]

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


def _meta(file, parquet, sep, encoding="utf-8"):
    """An empty frame with the columns (and Parquet dtypes) of ``file``."""
    import pandas as pd

    if parquet:
        if not is_utf8(text_codec(encoding, "--encoding")):
            read_input_table(file, encoding=encoding)   # Parquet is UTF-8: the one-line error
        try:
            import pyarrow.parquet as pq

            # as the reader makes each partition (a named index is a column)
            return _plain(parquet_frame(pq.read_schema(file).empty_table()))
        except Exception:  # pyarrow's errors have no common base class
            read_input_table(file)     # the pandas engine's own message for this file
            raise
    text = read_input_table(file, sep=sep, encoding=encoding)   # the whole first file: now
    return pd.DataFrame({c: pd.Series(dtype=object) for c in text.frame.columns})


def _read_file(file, sep, columns, schema, rules, encoding="utf-8", seen=None):
    """One file as one partition, under the pandas engine's rules; ``seen``: the file's
    fingerprint when the table was made (a file changed since is refused)."""
    if seen is not None and fingerprint(file) != seen:
        Fingerprints(((file, seen),)).check("--engine dask", "the release is made, checked "
                                            "and written from the files as they were when "
                                            "read; nothing was written: run again")
    text = read_input_table(file, sep=sep or None, encoding=encoding)
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


def _read_part(file, sep, columns, shared, encoding, seen):
    """:func:`_read_file` with the schema and the rules as one shared graph node."""
    schema, rules = shared
    return _read_file(file, sep, columns, schema, rules, encoding, seen)


def _plain(frame):
    """Categorical columns as their values: each file has its own categories, and the
    partitions of one Dask frame must agree on their dtypes."""
    import pandas as pd

    columns = [c for c in frame.columns if isinstance(frame[c].dtype, pd.CategoricalDtype)]
    if columns:
        frame = frame.astype({c: object for c in columns})
    return frame


def read_dask_table(path, sep=None, *, schema=None, args=None, encoding="utf-8"):
    """A lazy ``dask.dataframe.DataFrame`` over the files of ``path``, one partition each.

    Every file is read as the pandas engine reads one (CSV cells as text in
    ``encoding``, field count checked per row; Parquet with its dtypes). With
    ``schema`` (and the command's ``args``: ``missing``, ``na_values``), the
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
    meta = _meta(files[0], parquet, sep, encoding)
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
    # the schema (with its hierarchies) is one node of the graph, named here: as an argument
    # of each file's task, dask would hash it by pickling it once per file (10 s a file for
    # the hierarchies of a clinic export, issue 47)
    shared = dask.delayed((schema, rules), name=f"kg-schema-{uuid.uuid4().hex}",
                          traverse=False)
    parts = [dask.delayed(_read_part, pure=True)(f, sep, columns, shared, encoding,
                                                 fingerprint(f))
             for f in files]
    return dd.from_delayed(parts, meta=meta, verify_meta=False)


def quiet_dask_logs():
    """Keep Dask's worker tracebacks off the terminal: the command prints its own one line.

    Set before the LocalCluster starts (its worker processes read the
    environment); ``KANON_GRAPH_DEBUG=1`` keeps them. distributed's advice
    "Sending large graph" (the release's one shared payload) is never
    printed: it is not the user's to act on (called inside ``main``'s
    ``warnings.catch_warnings``, so the filter ends with the command).
    """
    import logging
    import os
    import warnings

    warnings.filterwarnings("ignore", message="Sending large graph")
    if os.environ.get("KANON_GRAPH_DEBUG"):
        return
    os.environ.setdefault("DASK_LOGGING__DISTRIBUTED", "critical")
    logging.getLogger("distributed").setLevel(logging.CRITICAL)
