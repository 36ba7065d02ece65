"""The fast path of the CSV reader takes a Windows export (issue 47 item 3).

A plain file with CRLF line ends and a UTF-8 byte order mark (as a Windows
export writes it) is parsed by pandas' C parser (``_read_plain``), not row by
row by the CSV module as before; the frame it gives must be the row reader's
cell for cell, and equal cells must share one ``str`` as the row reader's do.
A file that is not plain (a quote, a bare carriage return, a blank line)
still goes to the row reader, whose messages name the line.
"""

import csv

import numpy as np
import pandas as pd
import pytest

import kanon_graph.io.read as read
from kanon_graph.io import read_text_table
from kanon_graph.io._records import csv_records

#: Cells a careless reader rewrites, none of which needs a quote.
ODD = ["NA", "null", "None", "nan", "N/A", "#N/A", " padded ", "1.50", "2", "1e3", "-0",
       "12345678901234567890", "", "+7", ".5", "0012", "TRUE", "01/02/1970", "ä–€😀", "\t"]


def _by_rows(path, sep=","):
    """The file through the CSV module alone: {column: cells}."""
    blocks = list(csv_records(path, sep, "utf-8-sig", "utf-8", 1 << 30))
    header = blocks[0][0]
    rows = [row for _, block, _ in blocks for row in block]
    return pd.DataFrame({h: pd.Series([r[i] for r in rows], dtype=object)
                         for i, h in enumerate(header)}, columns=header)


@pytest.fixture
def used(monkeypatch):
    """The files the fast path read (returned a table for)."""
    calls = []
    original = read._read_plain

    def spy(path, *args, **kwargs):
        table = original(path, *args, **kwargs)
        if table is not None:
            calls.append(path)
        return table
    monkeypatch.setattr(read, "_read_plain", spy)
    return calls


def _write(path, rows, *, line_end="\n", bom=False, sep=","):
    text = line_end.join(sep.join(r) for r in rows) + line_end
    path.write_bytes((b"\xef\xbb\xbf" if bom else b"") + text.encode("utf-8"))
    return path


@pytest.mark.parametrize("line_end,bom", [("\r\n", True), ("\r\n", False), ("\n", True),
                                          ("\n", False)])
def test_a_plain_file_is_read_fast_as_the_row_reader_reads_it(tmp_path, used, line_end,
                                                                   bom):
    rng = np.random.default_rng(1)
    rows = [["id", "odd", "zip", "note"]]
    rows += [[f"r{i}", ODD[i % len(ODD)], f"{rng.integers(0, 99999):05d}",
              ODD[rng.integers(len(ODD))]] for i in range(3000)]
    path = _write(tmp_path / "t.csv", rows, line_end=line_end, bom=bom)
    got = read_text_table(path)
    assert used == [path]                            # the fast path ran
    assert list(got.frame.columns) == rows[0]
    pd.testing.assert_frame_equal(got.frame, _by_rows(path))
    assert got.lines.tolist() == list(range(2, len(rows) + 1))
    assert all(got.frame[c].dtype == object for c in got.frame.columns)
    assert all(isinstance(v, str) for v in got.frame["odd"])
    shared = got.frame["odd"]
    na = [v for v in shared if v == "NA"]
    assert len({id(v) for v in na}) == 1              # one str per distinct text


def test_a_crlf_file_checked_in_many_blocks_shares_one_str_per_text(tmp_path, used,
                                                                      monkeypatch):
    monkeypatch.setattr(read, "_BLOCK", 1 << 12)             # the check's blocks
    rows = [["a", "b"]] + [[f"v{i % 7}", str(i)] for i in range(20_000)]
    path = _write(tmp_path / "t.csv", rows, line_end="\r\n", bom=True)
    got = read_text_table(path)
    assert used == [path]
    pd.testing.assert_frame_equal(got.frame, _by_rows(path))
    assert len({id(v) for v in got.frame["a"]}) == 7


@pytest.mark.parametrize("text", ['a,b\r\n"x,y",2\r\n', "a,b\r\n1,2\r\n3,4\r",
                                  "a,b\r\n1,2\r\n\r\n3,4\r\n", "a,b\n1,2\n\n3,4\n"])
def test_a_file_that_is_not_plain_goes_to_the_row_reader(tmp_path, used, text):
    path = tmp_path / "t.csv"
    path.write_bytes(text.encode())
    got = read_text_table(path)
    assert used == []
    with open(path, newline="", encoding="utf-8") as handle:
        rows = [r for r in csv.reader(handle) if r]
    assert got.frame.values.tolist() == rows[1:]


def test_a_row_with_a_cell_too_many_in_a_crlf_file_is_named_with_its_line(tmp_path, used):
    path = tmp_path / "t.csv"
    path.write_bytes(b"a,b\r\n1,2\r\n3,4,5\r\n")
    with pytest.raises(ValueError, match=r"line 3: 3 cell\(s\) where the header has 2"):
        read_text_table(path)
    assert used == []
