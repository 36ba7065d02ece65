"""``--engine dask``: a folder or glob of Parquet / CSV files in, a Parquet folder out."""

from __future__ import annotations

import glob
from pathlib import Path

from ._common import DataProblem

__all__ = ["is_many", "read_dask_table", "write_dask_table"]

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


def read_dask_table(path, sep=None):
    """A lazy ``dask.dataframe.DataFrame`` over the files of ``path`` (one partition or more each).

    CSV cells are read as text (empty cells stay empty, so ``missing`` decides
    about them), as :func:`kanon_graph.io.read_table` does for quasi-identifiers.
    """
    from ..scale import require_dask

    require_dask("--engine dask")
    import dask.dataframe as dd

    files, parquet = _files(path)
    if parquet:
        return dd.read_parquet(files)
    return dd.read_csv(files, sep=sep or ",", dtype=str, keep_default_na=False,
                       na_values=[])


def write_dask_table(table, path):
    """Write a lazy release partition by partition: a Parquet folder, or CSV files.

    ``path`` ending in ``.csv`` with a ``*`` (``out/part-*.csv``) writes one CSV
    file per partition; anything else is a folder of Parquet files.
    Returns the number of partitions written.
    """
    if str(path).lower().endswith(".csv"):
        if "*" not in str(path):
            raise DataProblem(f"a Dask release is written per partition: give a pattern with "
                              f"'*' such as 'out/part-*.csv', or a folder for Parquet; got "
                              f"{str(path)!r}")
        table.to_csv(str(path), index=False)
    else:
        table.to_parquet(str(path), write_index=False)
    return int(table.npartitions)
