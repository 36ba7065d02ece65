"""The CSV reader's fast path (pandas' C parser on plain files) reads exactly as the row reader.

The Dask engine reads every file with the pandas engine's reader; a plain
file (no quote, no carriage return, no blank line) is parsed by pandas' C
parser, everything else row by row. Both must give the same cells, lines and
errors, so each case is read both ways.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kanon_graph.exceptions import DataError
from kanon_graph.io import read as reader

CASES = {
    "short row": "a,b,c\n1,2,3\n4,5\n", "long row": "a,b\n1,2\n3,4,5\n",
    "blank-ish line": "a,b\n1,2\n  \n3,4\n", "bom": "\ufeffa,b\n1,2\n",
    "trailing separator": "a,b\n1,2,\n", "empty cells": "a,b\n,\n1,\n",
    "unicode": "a;b\n漢;é\n", "no final newline": "a,b\n1,2", "padded": "a,b\n 1 , 2 \n",
    "duplicate header": "a,a\n1,2\n", "comment-like": "a,b\n#x,1\n", "header only": "a,b\n",
    "missing-looking words": "a,b\nNA,null\nNaN,None\n", "tab": "a,b\n\tx,1\n",
    "tsv": "a\tb\n1\t2\n", "backslash": "a,b\n\\,1\n", "quoted": 'a,b\n"x,y",1\n',
    "crlf": "a,b\r\n1,2\r\n", "not utf-8": b"a,b\n\xff,1\n",
    "long cell": "a,b\n" + "x" * 131_073 + ",1\n",
}


def _read(path, fast):
    plain = reader._read_plain
    if not fast:
        reader._read_plain = lambda *args: None
    try:
        t = reader.read_text_table(path)
        return "ok", t.frame.to_dict("list"), t.lines.tolist(), list(map(str, t.frame.dtypes))
    except DataError as error:
        return "error", str(error)
    finally:
        reader._read_plain = plain


@pytest.mark.parametrize("case", sorted(CASES))
def test_fast_path_reads_as_the_row_reader(tmp_path, case):
    content = CASES[case]
    path = tmp_path / "t.csv"
    path.write_bytes(content if isinstance(content, bytes) else content.encode())
    assert _read(path, fast=True) == _read(path, fast=False)


def test_a_plain_file_takes_the_fast_path(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text("a,b\n1,2\n3,4\n")
    assert reader._read_plain(path, ",") is not None


@settings(max_examples=60, deadline=None)
@given(st.lists(st.lists(st.text(alphabet="ab ,;\t\n.-0", max_size=4), min_size=2,
                         max_size=2), max_size=6))
def test_fast_path_on_random_text(tmp_path_factory, rows):
    path = tmp_path_factory.mktemp("fast") / "t.csv"
    path.write_text("x,y\n" + "".join(",".join(r) + "\n" for r in rows))
    assert _read(path, fast=True) == _read(path, fast=False)
