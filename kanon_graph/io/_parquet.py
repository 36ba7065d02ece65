"""Parquet tables in: every stored column, with its own type and every value.

pandas' default conversion of an Arrow table loses what pandas' numpy dtypes
cannot hold: an integer column with a null becomes ``float64`` (so
``9007199254740993`` reads as ``9007199254740992.0``), a float ``NaN``
becomes the same missing value as a null, and a decimal becomes Python
``Decimal`` objects whose precision is lost on the way out. Those columns
are read into a dtype that keeps them (:func:`exact_dtype`): pandas'
nullable integers (``Int64``, ``UInt8``...) and Arrow-backed floats and
decimals (``pd.ArrowDtype``); every other column is read as pandas reads it.
A release written from such a table carries each value and type back out.

A column stored as the pandas index is a column too when it has a name
(``df.set_index("ward").to_parquet(...)``); an unnamed index (a
``RangeIndex`` kept as metadata, or the ``__index_level_0__`` row labels
pandas stores after a filter) is the rows' labels, not data, and is not read.

:func:`library_cells` turns a column the algorithms read (a quasi-identifier
or sensitive attribute) into their form: floats as ``float64`` (a ``NaN`` is
missing there, as a null is), decimals as ``Decimal`` objects; nullable
integers stay as they are, so their values, and the range labels made of
them, stay exact.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ..exceptions import DataError

__all__ = ["read_parquet", "parquet_columns", "parquet_frame", "exact_dtype", "library_cells",
           "take_cells"]

#: The name pandas gives a stored index level that has no name of its own.
_ROW_LABELS = re.compile(r"^__index_level_\d+__$")


def read_parquet(path: str | os.PathLike[str]) -> pd.DataFrame:
    """A Parquet file as a DataFrame, every value and type kept (needs pyarrow).

    Parameters
    ----------
    path : str or path-like

    Returns
    -------
    DataFrame
        One column per stored column (a named index included, first), a
        ``0..n-1`` index; see the module docstring for the dtypes.

    Raises
    ------
    DataError
        The file does not exist, pyarrow is missing, the file is no Parquet
        file, or a named index has the name of a column.

    Examples
    --------
    >>> import os, tempfile
    >>> import pyarrow as pa, pyarrow.parquet as pq
    >>> path = os.path.join(tempfile.mkdtemp(), "t.parquet")
    >>> pq.write_table(pa.table({"n": pa.array([2**53 + 1, None])}), path)
    >>> t = read_parquet(path)
    >>> str(t["n"].dtype), t["n"].tolist()[0]
    ('Int64', 9007199254740993)
    """
    path = Path(path)
    if not path.is_file():
        raise DataError(f"input file {str(path)!r} does not exist")
    try:
        import pyarrow.parquet as pq
    except ImportError:
        raise DataError(f"reading {str(path)!r} needs pyarrow: pip install -e \".[parquet]\"") \
            from None
    try:
        table = pq.read_table(path)
    except Exception as exc:  # pyarrow's errors have no common base class
        raise DataError(f"input file {str(path)!r} is not a readable Parquet file: "
                        f"{str(exc).splitlines()[0]}") from None
    return parquet_frame(table, where=f"input file {str(path)!r}")


def parquet_columns(path: str | os.PathLike[str]) -> list[str] | None:
    """The columns :func:`read_parquet` gives for ``path``, from its schema alone; else None.

    Only the file's footer is read (no row group). None when pyarrow is
    missing or the file is no readable Parquet file: :func:`read_parquet`
    then says why.
    """
    try:
        import pyarrow.parquet as pq

        schema = pq.read_schema(path)
    except (ImportError, OSError, ValueError):     # ArrowInvalid is a ValueError
        return None
    stored = [c for c in ((schema.pandas_metadata or {}).get("index_columns") or [])
              if isinstance(c, str)]
    named = [c for c in stored if not _ROW_LABELS.match(c)]
    return named + [c for c in schema.names if c not in stored]


def parquet_frame(table: Any, *, where: str = "the Parquet table") -> pd.DataFrame:
    """An Arrow table as a DataFrame, as :func:`read_parquet` reads a file's table."""
    stored = [c for c in ((table.schema.pandas_metadata or {}).get("index_columns") or [])
              if isinstance(c, str)]          # a RangeIndex is a dict: metadata, no column
    named = [c for c in stored if not _ROW_LABELS.match(c)]
    frame = table.to_pandas()
    if named:
        try:
            frame = frame.reset_index(level=named)
        except ValueError as exc:      # the index's name is a column's name too
            raise DataError(f"{where}: its index {named} cannot become a column: "
                            f"{str(exc).splitlines()[0]}") from None
    frame = frame.reset_index(drop=True)
    # the frame's columns in the table's terms: named index levels first, then the data
    names = table.column_names
    columns = [names.index(c) for c in named] + [i for i, c in enumerate(names)
                                                 if c not in stored]
    for position, column in enumerate(columns):
        cells = table.column(column)
        dtype = exact_dtype(cells)
        if dtype is not None:
            frame.isetitem(position, pd.Series(dtype.__from_arrow__(cells), index=frame.index))
    return frame


def exact_dtype(cells: Any) -> Any:
    """The dtype that keeps every value of an Arrow column, when pandas' default loses one.

    An integer column with a null: pandas' nullable integer of its width; a
    float column holding a ``NaN``, and any decimal column: its own Arrow
    type (``pd.ArrowDtype``). None for every other column.
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    kind = cells.type
    if pa.types.is_integer(kind):
        if not cells.null_count:
            return None
        unsigned = "U" if pa.types.is_unsigned_integer(kind) else ""
        return pd.api.types.pandas_dtype(f"{unsigned}Int{kind.bit_width}")
    if pa.types.is_floating(kind):
        return pd.ArrowDtype(kind) if pc.any(pc.is_nan(cells)).as_py() else None
    if pa.types.is_decimal(kind):
        return pd.ArrowDtype(kind)
    return None


def library_cells(cells: pd.Series) -> pd.Series:
    """A column read by :func:`read_parquet` in the form the algorithms read.

    Arrow-backed floats become ``float64`` (``NaN`` and null both missing),
    Arrow-backed decimals ``Decimal`` objects (``None`` when missing), as
    pandas reads them by default; every other column is returned as it is.
    Only the columns an algorithm reads go through this: the others are
    released as they were read.
    """
    dtype = cells.dtype
    if not isinstance(dtype, pd.ArrowDtype):
        return cells
    if dtype.kind == "f":
        return pd.Series(cells.to_numpy(dtype=dtype.pyarrow_dtype.to_pandas_dtype(),
                                        na_value=np.nan),
                         index=cells.index, name=cells.name)
    values = cells.array.__arrow_array__().to_pandas().to_numpy(dtype=object)
    return pd.Series(values, index=cells.index, name=cells.name, dtype=object)


def take_cells(cells: pd.Series, positions: np.ndarray) -> Any:
    """The cells at row ``positions``, keeping an exact dtype (:func:`exact_dtype`) exact.

    A nullable integer or Arrow-backed column keeps its dtype (``to_numpy``
    would turn ``Int64`` with a null into ``float64``); any other column is
    taken as a numpy array, as before.
    """
    dtype = cells.dtype
    if isinstance(dtype, pd.ArrowDtype) or (pd.api.types.is_extension_array_dtype(dtype)
                                            and dtype.kind in "iufb"):
        return cells.array.take(np.asarray(positions, dtype=np.int64))
    return cells.to_numpy()[positions]
