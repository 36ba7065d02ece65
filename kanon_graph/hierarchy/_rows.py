"""A hierarchy file's text cut into rows of cells (:func:`~kanon_graph.hierarchy.read_hierarchy`).

A text with a quote character is walked cell by cell (:func:`_split`, CSV
quoting as RFC 4180 has it); one without is split by ``str.split``, which
gives the same rows (``tests/test_hierarchy_plain_read.py`` holds them equal
on random texts) in a fraction of the time. A plain text that is also
regular (every line the same number of cells, no blank line, nothing to strip,
no MAGVal mark: what a builder writes) is cut into columns in bulk by
:func:`_plain_columns`, with no list per row at all.
"""

from __future__ import annotations

import contextlib
import gc
import itertools
import re
from collections.abc import Iterator

__all__: list[str] = []

_MARK = re.compile(r"^\*(?=.*[^*])(.+)\*$")


def _split(line: str, sep: str) -> list[tuple[str, bool]]:
    """Cells of one CSV line as ``(text, quoted)`` pairs.

    CSV quoting (RFC 4180): a cell that starts with ``"`` runs to the next
    lone ``"``, and ``""`` inside it stands for one ``"``. A quoted cell is
    taken literally: it is never read as a MAGVal mark.
    """
    cells, i, n = [], 0, len(line)
    while True:
        start = i
        while i < n and line[i] in " \t" and line[i] != sep:
            i += 1
        if i < n and line[i] == '"':
            i += 1
            text = []
            while i < n:
                if line[i] == '"':
                    if i + 1 < n and line[i + 1] == '"':
                        text.append('"')
                        i += 2
                        continue
                    break
                text.append(line[i])
                i += 1
            i += 1  # the closing quote
            end = line.find(sep, i) if sep else -1
            end = n if end < 0 else end
            cells.append(("".join(text) + line[i:end].rstrip(" \t"), True))
        else:
            end = line.find(sep, start)
            end = n if end < 0 else end
            cells.append((line[start:end], False))
        if end >= n:
            return cells
        i = end + 1


@contextlib.contextmanager
def _collector_paused() -> Iterator[None]:
    """Python's cyclic garbage collector paused while a file's rows are made.

    A row is a new list; hundreds of thousands of them (a ZIP+4 file of
    348,438 lines) set off collection after collection that finds nothing
    (they hold only strings): reading and building such a file took 3.7 s
    of CPU with it running and about half that with it paused. It is turned
    on again after, if it was on.
    """
    was_on = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_on:
            gc.enable()


def _plain_rows(text: str, sep: str) -> tuple[list[list[str]], list[int], list[tuple[int, str]]]:
    """:func:`_quoted_rows` for a text without a quote character: each line split on
    ``sep`` by ``str.split`` (what :func:`_split` does there, without its walk
    character by character: a 348,438-line ZIP+4 file read in 3.6 s, most of
    it that walk), a cell read as a MAGVal mark only when it starts with ``*``."""
    rows, lines, marks = [], [], []
    spaced = any(space in text for space in " \t\f\v\x1c\x1d\x1e\x1f\x85\xa0") or (
        not text.isascii())                       # else no cell has anything to strip
    # a line can hold a mark only where a cell starts with '*' then holds something else
    marked = re.compile(r"(?:^|" + re.escape(sep) + r")\s*\*+[^*" + re.escape(sep) + "]")
    for number, line in enumerate(text.splitlines(), start=1):
        cells = [cell.strip() for cell in line.split(sep)] if spaced else line.split(sep)
        if not any(cells):
            continue
        if marked.search(line):
            for level, cell in enumerate(cells):
                match = _MARK.match(cell) if cell[:1] == "*" else None
                if match:
                    cells[level] = match.group(1).strip()
                    marks.append((level, cells[level]))
        rows.append(cells)
        lines.append(number)
    return rows, lines, marks


#: Characters ``str.strip`` or ``str.splitlines`` would act on, beside the line ends ``\n`` / ``\r``.
_SPACES = " \t\f\v\x1c\x1d\x1e\x1f\x85\xa0"


def _plain_columns(text: str, sep: str) -> list[list[str]] | None:
    """The columns of a regular plain text, leaf column first; ``None`` when it is not one.

    Regular: no quote character, ASCII, no character a cell would be stripped of,
    no blank line or empty cell, every line holding as many cells as the first, no cell that
    starts with ``*`` then holds something else (a possible MAGVal mark). Then
    :func:`_plain_rows` would give row ``i`` (line ``i + 1``) as the ``i``-th cell of
    each column, unmarked: the same cells, cut from the whole text at once (a
    348,438-line ZIP+4 file: no list per row). Anything else is ``None``, and
    the file is read row by row, which reports what is wrong with it.
    """
    if '"' in text or not text.isascii() or any(space in text for space in _SPACES):
        return None
    lines = text.splitlines()
    if not lines or "" in lines:
        return None
    per_line = lines[0].count(sep)
    if set(map(str.count, lines, itertools.repeat(sep))) != {per_line}:
        return None
    joined = "\n".join(lines)
    if joined[:1] == "*" or "\n*" in joined or re.search(    # a leaf, or a cell after it
            re.escape(sep) + r"\*+[^*\n" + re.escape(sep) + "]", joined):
        return None
    cells = joined.replace("\n", sep).split(sep)
    if "" in cells:                 # a line of empty cells is skipped, one empty cell refused
        return None
    width = per_line + 1
    return [cells[level::width] for level in range(width)]


def _quoted_rows(text: str, sep: str) -> tuple[list[list[str]], list[int], list[tuple[int, str]]]:
    """Each non-blank line's cells (:func:`_split`; unquoted cells stripped, marks
    unwrapped), its line number, and the ``(level, label)`` of each MAGVal mark."""
    rows, lines, marks = [], [], []
    for number, line in enumerate(text.splitlines(), start=1):
        row = _split(line, sep)
        if all(not cell.strip() and not quoted for cell, quoted in row):
            continue
        clean = []
        for level, (cell, quoted) in enumerate(row):
            if not quoted:      # a quoted cell keeps its spaces: data cells are never stripped
                cell = cell.strip()
            match = None if quoted else _MARK.match(cell)
            if match:
                cell = match.group(1).strip()
                marks.append((level, cell))
            clean.append(cell)
        rows.append(clean)
        lines.append(number)
    return rows, lines, marks
