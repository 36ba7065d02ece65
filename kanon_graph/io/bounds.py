"""How many records a file can hold at most, told from its bytes without reading a row.

A CSV record ends at a line break (``\\n``, ``\\r\\n`` or a lone ``\\r``, the
line ends the row reader and pandas' parser take), so a file of ``L`` line
breaks (``L + 1`` lines when its last line has none) holds at most ``L``
records after its header. A line break inside a quoted cell, a blank line or
a second line of the header only make that an over-count, never an
under-count: a ``k`` above the bound is above the row count, and refusing it
before the file is read is safe (issue 47 item 2). A Parquet file says its
row count in its footer.
"""

from __future__ import annotations

import codecs
import os
from collections.abc import Iterable
from pathlib import Path

__all__ = ["record_bound", "records_bound"]

#: Bytes counted at a time.
_BLOCK = 1 << 23
_PARQUET = (".parquet", ".pq")


def record_bound(path: str | os.PathLike[str], encoding: str = "utf-8", *,
                 block: int = _BLOCK) -> int | None:
    """An upper bound on the records of the file ``path`` (after its header), or None.

    CSV: the line breaks counted on the bytes (a ``\\r\\n`` counted once, a
    last line without a break counted too), minus the header line; no cell
    is decoded or parsed. Parquet: the row count of its footer. None when
    the file cannot be opened, its footer cannot be read, or ``encoding``
    writes a line break without the bytes ``\\n`` / ``\\r`` (an EBCDIC code
    page): the reader then finds the count.

    Examples
    --------
    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "t.csv")
    >>> _ = open(path, "wb").write(b'a,b\\r\\n1,"two\\nlines"\\r\\n3,4')
    >>> record_bound(path)      # two records; the quoted line break over-counts
    3
    """
    path = Path(path)
    if path.suffix.lower() in _PARQUET:
        return _parquet_rows(path)
    try:
        codec = codecs.lookup(encoding).name
        if b"\n" not in "\n".encode(codec) or b"\r" not in "\r".encode(codec):
            return None
    except (LookupError, UnicodeError):
        return None
    breaks, last, pending_cr = 0, b"", False
    try:
        with open(path, "rb") as handle:
            while chunk := handle.read(block):
                # a CRLF is one break: count LF, and CR not followed by LF
                cr = chunk.count(b"\r")
                crlf = (chunk.count(b"\r\n") if cr else 0) + (pending_cr and chunk[:1] == b"\n")
                breaks += chunk.count(b"\n") + cr - crlf
                pending_cr, last = chunk[-1:] == b"\r", chunk[-1:]
    except OSError:
        return None
    lines = breaks + (last not in (b"", b"\n", b"\r"))
    return max(lines - 1, 0)


def records_bound(paths: Iterable[str | os.PathLike[str]],
                  encoding: str = "utf-8") -> int | None:
    """The sum of :func:`record_bound` over ``paths`` (each file with its header), or None."""
    total = 0
    for path in paths:
        bound = record_bound(path, encoding)
        if bound is None:
            return None
        total += bound
    return total


def _parquet_rows(path: Path) -> int | None:
    try:
        import pyarrow.parquet as pq

        return int(pq.read_metadata(path).num_rows)
    except Exception:  # no pyarrow, or no Parquet footer: the reader says why
        return None
