"""A CSV file read a chunk of rows at a time, every cell as the text it was written with.

:func:`iter_text_chunks` yields the rows of a file as consecutive
:class:`~kanon_graph.io.TextTable` pieces of at most ``rows`` rows each: the
same cells, the same file lines and the same errors (file, line, cause) as
:func:`~kanon_graph.io.read_text_table` gives for the whole file, while only
one chunk is held at once. A plain file (no quote, no carriage return, no
blank line) is parsed by pandas' C parser a chunk at a time; any other goes
through the CSV module row by row. The streaming command line
(``kanon-graph anonymize --stream``) reads its input twice this way.
"""

from __future__ import annotations

import csv
import os
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pandas as pd

from ..exceptions import DataError
from ._encoding import ascii_safe, is_utf8
from ._records import csv_records
from .read import TextTable, _plain_lines, _shared_columns, text_file

__all__ = ["iter_text_chunks", "CHUNK_ROWS"]

#: Rows per chunk by default.
CHUNK_ROWS = 1 << 16


def iter_text_chunks(path: str | os.PathLike[str], *, sep: str | None = None,
                     encoding: str = "utf-8", rows: int = CHUNK_ROWS) -> Iterator[TextTable]:
    """The rows of a CSV file as :class:`TextTable` chunks of at most ``rows`` rows.

    Parameters
    ----------
    path : str or path-like
    sep : str, optional
        The cell separator (sniffed from the header line when omitted, as
        :func:`~kanon_graph.io.read_text_table` does).
    encoding : str
        The file's text encoding (see :func:`~kanon_graph.io.read_text_table`).
    rows : int
        The largest chunk.

    Yields
    ------
    TextTable
        Consecutive rows: ``frame`` has the index ``0..m-1`` of the chunk and
        ``lines`` the file line each row starts on, so ``chunk.where(i)``
        names the file and line. A file with a header and no row yields one
        empty chunk.

    Raises
    ------
    DataError
        As :func:`~kanon_graph.io.read_text_table` (raised when the chunk
        holding the fault is reached).

    Examples
    --------
    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "t.csv")
    >>> _ = open(path, "w").write("age;zip\\n1.50;02139\\n2;02140\\n3;\\n")
    >>> [(c.frame["zip"].tolist(), c.lines.tolist()) for c in iter_text_chunks(path, rows=2)]
    [(['02139', '02140'], [2, 3]), ([''], [4])]
    """
    if isinstance(rows, bool) or not isinstance(rows, (int, np.integer)) or rows < 1:
        raise ValueError(f"The 'rows' parameter of iter_text_chunks must be an integer "
                         f">= 1. Got {rows!r}.")
    path, sep, codec = text_file(path, sep, encoding, "iter_text_chunks")
    plain = None
    if len(sep.encode()) == 1 and sep not in ('"', "\n") and ascii_safe(codec):
        plain = _plain_lines(path, sep, codec)
    if plain is not None:
        yield from _plain_chunks(path, sep, codec, plain, int(rows))
    else:
        yield from _row_chunks(path, sep, codec, encoding, int(rows))


def _plain_chunks(path: Path, sep: str, codec: str, plain: tuple[list[str], int, bool],
                  rows: int) -> Iterator[TextTable]:
    """A plain file through pandas' C parser, ``rows`` at a time (lines are row + 2)."""
    header, total, bom = plain
    reader = pd.read_csv(path, sep=sep, dtype=object, na_filter=False, header=0,
                         names=header, index_col=False, quoting=csv.QUOTE_NONE, engine="c",
                         skip_blank_lines=False, chunksize=rows,
                         encoding=codec if not is_utf8(codec) else
                         "utf-8-sig" if bom else "utf-8")
    seen, yielded = 0, False
    with reader:
        for frame in reader:
            if len(frame.columns) != len(header) or any(frame[c].isna().any()
                                                        for c in frame.columns):
                raise DataError(f"input file {str(path)!r}: the rows after line {seen + 1} "
                                f"do not parse as the header's {len(header)} columns")
            frame = frame.reset_index(drop=True)
            lines = np.arange(seen + 2, seen + 2 + len(frame), dtype=np.int64)
            seen += len(frame)
            yielded = True
            yield TextTable(path, sep, frame, lines)
    if seen != total:
        raise DataError(f"input file {str(path)!r} changed while it was read "
                        f"({seen} rows read, {total} counted)")
    if not yielded:
        yield TextTable(path, sep, pd.DataFrame({h: pd.Series([], dtype=object)
                                                 for h in header}, columns=header),
                        np.zeros(0, dtype=np.int64))


def _row_chunks(path: Path, sep: str, codec: str, encoding: str,
                rows: int) -> Iterator[TextTable]:
    """Any CSV file through the CSV module, ``rows`` at a time, lines counted."""
    for header, records, lines in csv_records(path, sep, codec, encoding, rows):
        yield _chunk(path, sep, header, records, lines)


def _chunk(path: Path, sep: str, header: list[str], rows: list[list[str]],
           lines: list[int]) -> TextTable:
    columns = _shared_columns(rows, len(header))
    frame = pd.DataFrame({h: pd.Series(columns[i], dtype=object) for i, h in enumerate(header)},
                         columns=header)
    return TextTable(path, sep, frame, np.asarray(lines, dtype=np.int64))
