"""Released cells that read back (issue 31 item 18).

* a CSV cell longer than the ``csv`` module's default limit (131,072
  characters), written from a Parquet input, could not be read by
  ``evaluate``;
* ``--escape-formulas`` on a quasi-identifier made ``evaluate --check``
  refuse the honest release (``'=1+1`` named no value of the column);
* ``hierarchy suggest`` stripped leading / trailing spaces that the data
  keeps, so ``anonymize`` refused its own draft hierarchy.
"""

from __future__ import annotations

import csv

import pandas as pd
import pytest

import kanon_graph as kg
from kanon_graph.cli import main
from kanon_graph.io import read as reader

LONG = 200_000


def _write_csv(path, rows):
    with open(path, "w", newline="", encoding="utf-8") as handle:
        csv.writer(handle).writerows(rows)


# ---------------------------------------------------------------- long cells
@pytest.mark.parametrize("cell", ["x" * LONG, "x, \"y\"\n" * (LONG // 7)])
def test_the_reader_takes_a_cell_of_any_length(tmp_path, cell):
    path = tmp_path / "t.csv"
    _write_csv(path, [["a", "b"], [cell, "1"], ["short", "2"]])
    table = reader.read_text_table(path)
    assert table.frame["a"].tolist() == [cell, "short"]
    assert table.frame["b"].tolist() == ["1", "2"]


def test_a_long_pass_through_cell_from_parquet_reads_back(tmp_path):
    pytest.importorskip("pyarrow")
    note = "n" * LONG
    table = pd.DataFrame({"age": list(range(20, 32)), "sex": list("MF") * 6,
                          "note": [note] + [f"short {i}" for i in range(11)]})
    table.to_parquet(tmp_path / "t.parquet", index=False)
    out = tmp_path / "r.csv"
    assert main(["anonymize", str(tmp_path / "t.parquet"), "--qi", "age,sex", "-k", "2",
                 "--algorithm", "mondrian", "--keep-order", "-o", str(out), "-q"]) == 0
    assert kg.io.read_table(out)["note"].tolist() == table["note"].tolist()
    assert main(["evaluate", str(tmp_path / "t.parquet"), str(out), "--qi", "age,sex",
                 "-k", "2", "--check", "-q"]) == 0
