"""A CSV file's records through the CSV module, block by block, with their line numbers.

The one record loop of the text readers: :func:`kanon_graph.io.read.read_text_table`
(a whole file) and :func:`kanon_graph.io.chunks.iter_text_chunks` (chunk by
chunk) read here the files pandas' fast parser does not take.
"""

from __future__ import annotations

import csv
from collections.abc import Generator
from pathlib import Path

from ..exceptions import DataError
from ._encoding import decode_error

__all__ = ["csv_records", "check_header"]


def check_header(header: list[str], name: str, line: int) -> None:
    """A header with a duplicate or an empty column name is a one-line ``DataError``."""
    duplicated = sorted({c for c in header if header.count(c) > 1})
    if duplicated:
        raise DataError(f"input file {name!r}, line {line}: duplicate column name(s) "
                        f"{duplicated}; every column needs its own name")
    if any(c == "" for c in header):
        raise DataError(f"input file {name!r}, line {line}: column {header.index('') + 1} "
                        f"has no name")


def csv_records(path: Path, sep: str, codec: str, encoding: str,
                rows: int) -> Generator[tuple[list[str], list[list[str]], list[int]], None, None]:
    """A CSV file's records through the CSV module, ``rows`` at a time, lines counted.

    Yields ``(header, records, lines)``: the header's cells, up to ``rows``
    records (lists of cells, as many as the header has; a blank line between
    records is skipped) and the line each record starts on. The last block
    may be short; a file of a header alone gives one empty block. A short or
    long record, a bad byte or a broken quote is a one-line ``DataError``
    naming the file and the line.
    """
    name = str(path)
    header: list[str] | None = None
    block: list[list[str]] = []
    lines: list[int] = []
    yielded = False
    try:
        with open(path, encoding=codec, newline="") as handle:
            reader = csv.reader(handle, delimiter=sep, strict=True)
            seen = 0
            for cells in reader:
                start, seen = seen + 1, reader.line_num
                if header is None:
                    if cells:
                        header = cells
                        check_header(header, name, start)
                    continue
                if not cells:
                    if len(header) > 1:
                        continue                       # a blank line between records
                    cells = [""]
                if len(cells) != len(header):
                    raise DataError(
                        f"input file {name!r}, line {start}: {len(cells)} cell(s) where the "
                        f"header has {len(header)} (separator {sep!r}; set it with --sep)")
                block.append(cells)
                lines.append(start)
                if len(block) == rows:
                    yield header, block, lines
                    yielded = True
                    block, lines = [], []
    except UnicodeDecodeError:
        # the reader decodes in chunks: the byte and its line are found on the file
        raise decode_error(path, codec, encoding) from None
    except csv.Error as exc:
        raise DataError(f"input file {name!r}, line {reader.line_num}: {exc}") from None
    if header is None:
        raise DataError(f"input file {name!r} is empty")
    if block or not yielded:
        yield header, block, lines

