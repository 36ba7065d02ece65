"""kanon_graph.io.chunks: a CSV file read a chunk at a time is the file read whole."""

import numpy as np
import pandas as pd
import pytest

from kanon_graph.exceptions import DataError
from kanon_graph.io import read_text_table
from kanon_graph.io.chunks import iter_text_chunks

PLAIN = "age;zip;note\n" + "".join(f"{20 + i % 7};0{2130 + i % 5};n{i}\n" for i in range(23))
QUOTED = ('age,note\n1,"a,b"\n2,"two\nlines"\n\n3,"say ""hi"""\n4,\n'
          + "".join(f"{i},x{i}\n" for i in range(5, 20)))


@pytest.mark.parametrize("text", [PLAIN, QUOTED], ids=["plain", "quoted"])
@pytest.mark.parametrize("rows", [1, 4, 7, 1000])
def test_the_chunks_are_the_whole_table_cut_in_order(tmp_path, text, rows):
    path = tmp_path / "t.csv"
    path.write_text(text, encoding="utf-8", newline="")
    whole = read_text_table(path)
    chunks = list(iter_text_chunks(path, rows=rows))
    assert all(len(c.frame) <= rows for c in chunks)
    frame = pd.concat([c.frame for c in chunks], ignore_index=True)
    pd.testing.assert_frame_equal(frame, whole.frame)
    assert np.concatenate([c.lines for c in chunks]).tolist() == whole.lines.tolist()
    assert chunks[-1].where(len(chunks[-1].frame) - 1) == whole.where(len(whole.frame) - 1)


def test_a_short_row_is_named_with_its_line_when_its_chunk_is_reached(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text("a,b\n" + "x,1\n" * 10 + "y\n" + "z,2\n", encoding="utf-8")
    chunks = iter_text_chunks(path, rows=4)
    assert len(next(chunks).frame) == 4                      # the fault is further on
    with pytest.raises(DataError, match=r"line 12: 1 cell\(s\) where the header has 2"):
        list(chunks)


def test_a_header_without_rows_is_one_empty_chunk_and_a_bad_size_is_named(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text("a,b\n", encoding="utf-8")
    (chunk,) = iter_text_chunks(path)
    assert list(chunk.frame.columns) == ["a", "b"] and len(chunk.frame) == 0
    with pytest.raises(ValueError, match="'rows' parameter of iter_text_chunks.*Got 0"):
        next(iter_text_chunks(path, rows=0))
    with pytest.raises(DataError, match="does not exist"):
        next(iter_text_chunks(tmp_path / "missing.csv"))
