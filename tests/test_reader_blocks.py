"""The plain-CSV fast path checks the file a block at a time (issue 25, memory).

:func:`kanon_graph.io.read._plain_lines` never holds the whole file: it
reads blocks cut at a line end. Whatever falls on a block boundary (a quote,
a carriage return, a blank line, a multi-byte character, a short row) must
be seen exactly as in a single pass, so each case is read with tiny blocks,
with one block, and by the row reader, and all three must agree.
"""

from __future__ import annotations

import pytest

from kanon_graph.exceptions import DataError
from kanon_graph.io import read as reader

BODY = "".join(f"{i % 7},{'é' * (i % 3)}x{i},0{i % 5}\n" for i in range(40))

CASES = {
    "plain": "a,b,c\n" + BODY,
    "no final newline": "a,b,c\n" + BODY.rstrip("\n"),
    "bom": "\ufeffa,b,c\n" + BODY,
    "quote late": "a,b,c\n" + BODY + '1,"q",2\n',
    "carriage return late": "a,b,c\n" + BODY + "1,r\r,2\n",
    "blank line late": "a,b,c\n" + BODY + "\n" + "1,2,3\n",
    "blank line at the end": "a,b,c\n" + BODY + "\n",
    "short row late": "a,b,c\n" + BODY + "1,2\n",
    "long row late": "a,b,c\n" + BODY + "1,2,3,4\n",
    "bad utf-8 late": ("a,b,c\n" + BODY).encode() + b"1,\xff,2\n",
    "empty cells": "a,b,c\n" + BODY + ",,\n",
}


def _read(path, block, fast=True):
    plain, size = reader._read_plain, reader._BLOCK
    reader._BLOCK = block
    if not fast:
        reader._read_plain = lambda *args: None
    try:
        t = reader.read_text_table(path)
        return "ok", t.frame.to_dict("list"), t.lines.tolist(), list(map(str, t.frame.dtypes))
    except DataError as error:
        return "error", str(error)
    finally:
        reader._read_plain, reader._BLOCK = plain, size


@pytest.mark.parametrize("case", sorted(CASES))
@pytest.mark.parametrize("block", [1, 7, 64])
def test_small_blocks_read_as_one_block_and_as_the_row_reader(tmp_path, case, block):
    content = CASES[case]
    path = tmp_path / "t.csv"
    path.write_bytes(content if isinstance(content, bytes) else content.encode())
    whole = _read(path, 1 << 23)
    assert _read(path, block) == whole == _read(path, 1 << 23, fast=False)


@pytest.mark.parametrize("case, plain", [("plain", True), ("no final newline", True),
                                         ("bom", True), ("empty cells", True),
                                         ("quote late", False), ("carriage return late", False),
                                         ("blank line late", False), ("short row late", False),
                                         ("bad utf-8 late", False)])
def test_only_a_plain_file_takes_the_fast_path_whatever_the_block(tmp_path, case, plain):
    content = CASES[case]
    path = tmp_path / "t.csv"
    path.write_bytes(content if isinstance(content, bytes) else content.encode())
    for block in (1, 7, 64, 1 << 23):
        reader._BLOCK, size = block, reader._BLOCK
        try:
            assert (reader._plain_lines(path, ",") is not None) is plain, block
        finally:
            reader._BLOCK = size


QUOTED = ('a,b,c\n' + "".join(f'"{i % 3}","x{i % 4}, y",0{i % 2}\n' for i in range(30))
          + '"multi\nline",1,2\n' + '"say ""hi""",,3\n')


@pytest.mark.parametrize("chunk", [1, 2, 7])
def test_the_row_reader_reads_the_same_in_small_chunks(tmp_path, monkeypatch, chunk):
    path = tmp_path / "q.csv"
    path.write_text(QUOTED)
    whole = reader.read_text_table(path)
    monkeypatch.setattr(reader, "_ROWS_PER_CHUNK", chunk)
    small = reader.read_text_table(path)
    assert small.frame.to_dict("list") == whole.frame.to_dict("list")
    assert small.lines.tolist() == whole.lines.tolist() == list(range(2, 32)) + [32, 34]
    assert list(map(str, small.frame.dtypes)) == ["object"] * 3
    # equal cells of a chunk share one str: the column holds each text once per chunk
    column = small.frame["b"].to_numpy()
    assert len({id(v) for v in column}) <= 6 * -(-len(column) // chunk)
