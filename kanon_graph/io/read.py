"""CSV tables in, every cell as the text it was written with.

Nothing is rewritten on the way in: no cell is stripped, no number is
reparsed (``1.50`` stays ``1.50``, ``02139`` stays ``02139``), and no word
such as ``NA`` or ``null`` is taken for a missing value. Only the cells the
caller names as missing (by default the empty cell) become ``NaN``, so a
release written back carries every cell the algorithm did not generalize
exactly as it came in. :func:`numeric_columns` says which columns hold only
numbers, so a caller can declare them numeric without converting them.
"""

from __future__ import annotations

import contextlib
import csv
import os
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from ..cells.kinds import is_number_text, is_numeric_column
from ..exceptions import DataError
from ._encoding import ascii_safe, check_no_utf8_bom, is_utf8, text_codec
from ._parquet import parquet_columns, read_parquet
from ._records import check_header, csv_records

__all__ = ["TextTable", "read_header", "read_text_table", "read_table", "read_input_table",
           "read_parquet", "is_parquet", "numeric_columns", "is_number_text"]

_SEPARATORS = (";", ",", "\t", "|")


@dataclass(frozen=True)
class TextTable:
    """A CSV file read as text, with the file line each row starts on.

    Attributes
    ----------
    path : Path
    sep : str
        The cell separator used.
    frame : DataFrame
        Every cell as a ``str``, exactly as in the file (quotes removed as
        CSV says); columns in file order; a 0..n-1 index.
    lines : ndarray of int
        ``lines[i]`` is the 1-based line of the file on which row ``i`` starts
        (for a Parquet file, its 1-based row number).
    unit : str
        ``"line"`` (CSV) or ``"row"`` (Parquet), for messages.
    """

    path: Path
    sep: str
    frame: pd.DataFrame
    lines: np.ndarray
    unit: str = "line"

    def where(self, row: int) -> str:
        """``"FILE, line N"`` (``"FILE, row N"`` for Parquet) for row position ``row``."""
        return f"{str(self.path)!r}, {self.unit} {int(self.lines[row])}"

    @property
    def typed(self) -> bool:
        """Whether the cells keep their file's types (Parquet) rather than being text."""
        return self.unit == "row"


def _sniff(path: str | os.PathLike[str], codec: str = "utf-8-sig") -> str:
    with open(path, encoding=codec, errors="replace", newline="") as handle:
        first = next((line for line in handle if line.strip()), "")
    counts = {sep: first.count(sep) for sep in _SEPARATORS}
    best = max(counts, key=lambda sep: counts[sep])
    return best if counts[best] else ","


def read_text_table(path: str | os.PathLike[str], *, sep: str | None = None,
                    encoding: str = "utf-8") -> TextTable:
    """Read a CSV file with a header row, every cell as text.

    Parameters
    ----------
    path : str or path-like
    sep : str, optional
        The cell separator; sniffed from the header line (``;``, ``,``, tab
        or ``|``, whichever occurs most) when omitted.
    encoding : str
        The file's text encoding (default ``"utf-8"``; a UTF-8 byte order
        mark is dropped): ``"latin-1"``, ``"cp1252"``, ``"utf-16"`` or any
        other Python knows. Cells are decoded exactly, never replaced.

    Returns
    -------
    TextTable

    Raises
    ------
    DataError
        The file does not exist, is empty, does not decode with ``encoding``
        (named with its line and byte), has a duplicate or empty column
        name, or a row with more or fewer cells than the header (named with
        its line); ``encoding`` is no text encoding.

    Examples
    --------
    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "t.csv")
    >>> _ = open(path, "w").write("age;note\\n1.50;NA\\n2; padded \\n")
    >>> t = read_text_table(path)
    >>> t.frame["age"].tolist(), t.frame["note"].tolist(), t.lines.tolist()
    (['1.50', '2'], ['NA', ' padded '], [2, 3])
    """
    path, sep, codec = text_file(path, sep, encoding, "read_text_table")
    fast = _read_plain(path, sep, codec)
    if fast is not None:
        return fast
    chunks: list[list[np.ndarray]] = []
    lines: list[int] = []
    for header, rows, block_lines in csv_records(path, sep, codec, encoding, _ROWS_PER_CHUNK):
        chunks.append(_shared_columns(rows, len(header)))
        lines.extend(block_lines)
    frame = pd.DataFrame({h: pd.Series(np.concatenate([chunk[i] for chunk in chunks]),
                                       dtype=object)
                          for i, h in enumerate(header)}, columns=header)
    return TextTable(path, sep, frame, np.asarray(lines, dtype=np.int64))


def text_file(path: str | os.PathLike[str], sep: str | None, encoding: str,
              where: str) -> tuple[Path, str, str]:
    """``(path, sep, codec)`` of a text file about to be read by ``where``.

    The file must exist; a UTF-8 byte order mark is refused unless the
    encoding allows it; the separator is sniffed when not given and must be
    one character; the CSV module's cell limit is raised.
    """
    codec = text_codec(encoding, where)
    path = Path(path)
    if not path.is_file():
        raise DataError(f"input file {str(path)!r} does not exist")
    check_no_utf8_bom(path, codec, encoding)
    sep = sep or _sniff(path, codec)
    if len(sep) != 1:
        raise DataError(f"--sep must be one character; got {sep!r}")
    _allow_long_cells()
    return path, sep, codec


#: The row reader turns rows into columns this many at a time.
_ROWS_PER_CHUNK = 1 << 16


def _shared_columns(rows: list[list[str]], width: int) -> list[np.ndarray]:
    """``rows`` as one object array per column, equal cells sharing one ``str``.

    The CSV module makes a new ``str`` for every cell; a column keeps one
    per distinct text of the chunk instead, and the row lists can go.
    """
    columns = []
    for i in range(width):
        cells = np.empty(len(rows), dtype=object)
        cells[:] = [row[i] for row in rows]
        codes, uniques = pd.factorize(cells)
        columns.append(np.asarray(uniques, dtype=object)[codes] if len(rows) else cells)
    return columns


#: The longest cell the row reader takes: as long as the platform allows (the CSV
#: module stops at 131,072 characters by default, so a release holding a longer
#: cell, written from a Parquet input, could not be read back).
_CELL_LIMIT = min(sys.maxsize, 2**31 - 1)


def _allow_long_cells() -> None:
    """Let the CSV module read a cell of any length (raised once, never lowered).

    The limit is the process's: raising it lets every reader take longer
    cells and shrinks no one's; two threads raising it at once set one value.
    """
    if csv.field_size_limit() < _CELL_LIMIT:
        csv.field_size_limit(_CELL_LIMIT)


_BLOCK = 1 << 20            # the fast path checks the file 1 MiB at a time


def _plain_lines(path: Path, sep: str,
                 codec: str = "utf-8-sig") -> tuple[list[str], int, bool] | None:
    """``(header, rows, bom)`` of a plain file, checked a block at a time; else None.

    Plain: decodes with ``codec`` (an ASCII-safe one), no quote, a carriage
    return only as part of a CRLF line end, no blank line, every line with as
    many separators as the header.
    Only one block of the file is held at once (blocks end on a line end, so
    no character is cut).
    """
    quote, cr, newline, mark = b'"', bytes([13]), b"\n", ord(sep)
    header, lines, bom, carry = None, 0, False, b""
    with open(path, "rb") as handle:
        while True:
            block = handle.read(_BLOCK)
            data, carry = carry + block, b""
            if block:                          # keep the last partial line for the next block
                end = data.rfind(newline) + 1
                data, carry = data[:end], data[end:]
                if not data:
                    continue
            elif not data:
                break
            if quote in data or data.count(cr) != data.count(cr + newline) or \
                    b"\n\n" in data or b"\n\r\n" in data or data.startswith((newline, cr)):
                return None
            block_codec = codec if header is None or not is_utf8(codec) else "utf-8"
            try:
                data.decode(block_codec)
            except UnicodeDecodeError:
                return None
            if header is None:
                bom = is_utf8(codec) and data.startswith(b"\xef\xbb\xbf")
                first = data.split(newline, 1)[0].removesuffix(cr).decode(codec)
                header = first.split(sep)
                if len(header) < 2 or len(set(header)) != len(header) or "" in header:
                    return None
            # cells per line, counted on the bytes: every line as many as the header
            raw = np.frombuffer(data, dtype=np.uint8)
            starts = np.r_[0, np.flatnonzero(raw == 10) + 1]
            starts = starts[starts < len(raw)]
            # the separators' offsets, counted between line starts (no int64 copy of the
            # block: a reduceat over it would cast every byte to 8)
            marks = np.flatnonzero(raw == mark)
            seps = np.diff(np.searchsorted(marks, np.r_[starts, len(raw)]))
            if (seps != len(header) - 1).any():
                return None
            lines += len(starts)
            del raw, data, marks
    if header is None:
        return None
    return header, lines - 1, bom


def _read_plain(path: Path, sep: str, codec: str = "utf-8-sig") -> TextTable | None:
    """The same :class:`TextTable` through pandas' C parser, for a plain file; else None.

    Only a file the two parsers cannot read differently takes this path: no
    quote, a carriage return only in a CRLF line end, no blank line, at
    least two columns, text of UTF-8 (a byte order mark allowed) or of a
    single-byte encoding that extends ASCII (Latin-1...), every row with as
    many cells as the header. Anything else (or any doubt) returns None, and
    the row-by-row reader gives the answer and the message naming the line.

    The file is checked a block at a time and parsed straight from disk: no
    copy of the whole text is held, and the parser stores each distinct cell
    of a column once per chunk (the cells are shared ``str`` objects).
    """
    if len(sep.encode()) != 1 or sep in ('"', chr(10), chr(13)) or not ascii_safe(codec):
        return None
    plain = _plain_lines(path, sep, codec)
    if plain is None:
        return None
    header, rows, bom = plain
    try:
        frame = pd.read_csv(path, sep=sep, dtype=object, na_filter=False, header=0,
                            names=header, index_col=False, quoting=csv.QUOTE_NONE,
                            engine="c", skip_blank_lines=False,
                            encoding=codec if not is_utf8(codec) else
                            "utf-8-sig" if bom else "utf-8")
    except (ValueError, pd.errors.ParserError, UnicodeDecodeError):
        return None
    if len(frame.columns) != len(header) or len(frame) != rows:
        return None
    for column in frame.columns:
        if frame[column].isna().any():
            return None
    frame = frame.reset_index(drop=True)
    return TextTable(path, sep, frame, np.arange(2, len(frame) + 2, dtype=np.int64))


def is_parquet(path: str | os.PathLike[str]) -> bool:
    """Whether ``path`` names a Parquet file (by its ``.parquet`` / ``.pq`` suffix)."""
    return Path(path).suffix.lower() in (".parquet", ".pq")


def read_input_table(path: str | os.PathLike[str], *, sep: str | None = None,
                     encoding: str = "utf-8") -> TextTable:
    """A :class:`TextTable` of a CSV file (text cells) or a Parquet file (typed cells).

    ``encoding`` is the CSV file's (see :func:`read_text_table`); a Parquet
    file's text is UTF-8 by its format, so another encoding is an error.
    """
    if is_parquet(path):
        _parquet_encoding(path, encoding, "read_input_table")
        frame = read_parquet(path)
        check_header([str(c) for c in frame.columns], str(path), 1)
        return TextTable(Path(path), "", frame.reset_index(drop=True),
                         np.arange(1, len(frame) + 1, dtype=np.int64), unit="row")
    return read_text_table(path, sep=sep, encoding=encoding)


def read_header(path: str | os.PathLike[str], *, sep: str | None = None,
                encoding: str = "utf-8") -> list[str] | None:
    """The column names of a CSV or Parquet file, read before (and without) its rows.

    A CSV file's header record (and the record after it: a header must be
    followed by rows of its width) through the row reader, so the header
    and its errors (a bad byte, a duplicate or empty name) are those of
    :func:`read_input_table`; a Parquet file's schema. None when a Parquet
    file's schema cannot be read (reading the file says why).
    """
    if is_parquet(path):
        _parquet_encoding(path, encoding, "read_header")
        return parquet_columns(path)
    path, sep, codec = text_file(path, sep, encoding, "read_header")
    with contextlib.closing(csv_records(path, sep, codec, encoding, 1)) as records:
        return next(records)[0]


def _parquet_encoding(path: str | os.PathLike[str], encoding: str, where: str) -> None:
    """An encoding other than UTF-8 given for a Parquet file: an error, not ignored."""
    if not is_utf8(text_codec(encoding, where)):
        raise DataError(f"input file {str(path)!r} is Parquet, whose text is UTF-8 by its "
                        f"format; the encoding {encoding!r} (--encoding) is for CSV files")


def read_table(path: str | os.PathLike[str], *, sep: str | None = None,
               na_values: Sequence[str] = ("",), encoding: str = "utf-8") -> pd.DataFrame:
    """Read a CSV file with a header row into a DataFrame of text, or a Parquet file.

    Parameters
    ----------
    path : str or path-like
        A ``.parquet`` file is read with its types and every value
        (:func:`read_parquet`: dates stay ``datetime64``, numbers stay
        numbers, an integer column with a null is ``Int64``, a named index
        is a column; its nulls are the missing values); it needs the
        ``parquet`` extra (pyarrow). Anything else is read as CSV.
    sep : str, optional
        The cell separator (sniffed when omitted, see :func:`read_text_table`).
    encoding : str
        The CSV file's text encoding (default ``"utf-8"``; see
        :func:`read_text_table`). A Parquet file's text is always UTF-8.
    na_values : iterable of str
        The cells that stand for a missing value (``NaN``); by default only
        the empty cell. Nothing else is missing: ``NA`` or ``null`` is text.
        For Parquet, text cells equal to one of them besides ``""``.

    Returns
    -------
    DataFrame
        For CSV, every other cell as the ``str`` written in the file (not
        stripped, not converted); use :func:`numeric_columns` to find the
        columns to declare numeric in a :class:`~kanon_graph.Schema`.

    Examples
    --------
    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "people.csv")
    >>> _ = open(path, "w").write("age;zip;sex\\n34;02139;F\\n51.0;;NA\\n")
    >>> t = read_table(path)
    >>> t["age"].tolist(), t["zip"].tolist(), t["sex"].tolist()
    (['34', '51.0'], ['02139', nan], ['F', 'NA'])
    >>> numeric_columns(t)
    ['age']
    """
    if is_parquet(path):
        _parquet_encoding(path, encoding, "read_table")
        frame = read_parquet(path)
        missing = set(na_values) - {""}
    else:
        frame = read_text_table(path, sep=sep, encoding=encoding).frame
        missing = set(na_values)
    if missing:
        for column in frame.columns:
            cells = frame[column]
            mask = cells.isin(missing)
            if mask.any():
                frame[column] = cells.where(~mask, np.nan)
    return frame


def numeric_columns(frame: pd.DataFrame, columns: Iterable[str] | None = None) -> list[str]:
    """The columns whose present cells are all plain numbers without leading zeros.

    A column with no present cell, or a code such as ZIP ``02139``, is not
    numeric. The rule is the encoder's (:mod:`kanon_graph.cells.kinds`), so a
    column found here is the column the library infers numeric.
    """
    return [column for column in (frame.columns if columns is None else columns)
            if is_numeric_column(frame[column])]
