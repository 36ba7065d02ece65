"""A plain UTF-8 CSV file read by Arrow's multi-threaded reader, every cell as text.

:func:`kanon_graph.io.read.read_text_table` sends here the files whose parse
cannot differ from the CSV module's (checked a block at a time on the bytes:
no quote, a carriage return only before a line feed, no blank line, every
line with as many separators as the header). Arrow reads the file on every
core into dictionary-encoded columns (each distinct text of a block once),
never converting a cell (no number, no null: ``NA`` and the empty cell stay
text); each column then becomes one object array whose equal cells share one
``str``, built from the column's codes and its distinct texts, the Arrow
buffers of a column freed as soon as it is converted. So the frame is the
one the row reader makes, for less time and memory than a parse that makes
a new ``str`` per cell.

Needs pyarrow (the ``parquet`` extra); without it the caller's pandas parser
reads the file.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

__all__ = ["read_plain_arrow"]

#: Arrow reads the file in blocks of this many bytes, one per thread at a time.
_BLOCK_BYTES = 1 << 24


def read_plain_arrow(path: Path, sep: str, header: list[str]) -> pd.DataFrame | None:
    """The rows of a checked plain UTF-8 file as text columns; None without pyarrow.

    ``header`` is the file's first line, already split (its byte order mark
    dropped); the rows are every line after it.
    """
    try:
        import pyarrow as pa
        import pyarrow.csv as pacsv
    except ImportError:
        return None
    text = pa.dictionary(pa.int32(), pa.string())
    table = pacsv.read_csv(
        path,
        read_options=pacsv.ReadOptions(use_threads=True, block_size=_BLOCK_BYTES,
                                       skip_rows=1, column_names=header),
        parse_options=pacsv.ParseOptions(delimiter=sep, quote_char=False, double_quote=False,
                                         escape_char=False, newlines_in_values=False,
                                         ignore_empty_lines=False),
        convert_options=pacsv.ConvertOptions(column_types={name: text for name in header},
                                             null_values=[], strings_can_be_null=False,
                                             quoted_strings_can_be_null=False,
                                             check_utf8=True))
    # one dictionary per column for all its blocks, so each distinct text is one str
    table = table.unify_dictionaries()
    columns = {name: table.column(i) for i, name in enumerate(header)}
    rows = table.num_rows
    del table
    frame = {}
    for name in header:
        frame[name] = _shared_texts(columns.pop(name), rows)
    return pd.DataFrame(frame, columns=header)


def _shared_texts(column: Any, rows: int) -> pd.Series:
    """A chunked dictionary column (one dictionary) as an object array, one ``str`` per text."""
    out = np.empty(rows, dtype=object)
    if not column.num_chunks:
        return pd.Series(out, dtype=object)
    texts = np.asarray(column.chunk(0).dictionary.to_pylist() + [""], dtype=object)
    at = 0
    for chunk in column.chunks:
        codes = chunk.indices.to_numpy(zero_copy_only=False)
        out[at:at + len(codes)] = texts[codes]
        at += len(codes)
    return pd.Series(out, dtype=object)
