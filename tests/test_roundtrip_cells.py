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
from kanon_graph.io._escaped import unescaped_formulas

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


# ----------------------------------------------------------- escaped formulas
NOTES = ["=1+1", "-x", "@a", "plain", "'=2", "+q"]


@pytest.fixture
def formulas(tmp_path):
    rows = [["note", "age", "sex"]]
    rows += [[NOTES[i % 6], str(20 + i % 5), "MF"[i % 2]] for i in range(24)]
    _write_csv(tmp_path / "t.csv", rows)
    return tmp_path / "t.csv"


@pytest.mark.parametrize("algorithm", ["mondrian", "optimal"])
def test_evaluate_reads_escaped_formulas_of_a_quasi_identifier(tmp_path, formulas, algorithm):
    extra = []
    if algorithm == "optimal":
        assert main(["hierarchy", "suggest", str(formulas), "--qi", "note,sex",
                     "-o", str(tmp_path / "h")]) == 0
        extra = ["--hierarchies", str(tmp_path / "h")]
    out, report = tmp_path / "r.csv", tmp_path / "r.json"
    assert main(["anonymize", str(formulas), "--qi", "note,sex", *extra, "-k", "2",
                 "--algorithm", algorithm, "--escape-formulas", "--order-seed", "1",
                 "-o", str(out), "--report", str(report), "-q"]) == 0
    written = kg.io.read_table(out)["note"]
    assert written.isin(["'=1+1", "'-x", "'@a", "'+q"]).any()     # escaped in the file
    assert main(["evaluate", str(formulas), str(out), "--qi", "note,sex", *extra, "-k", "2",
                 "--unshuffle", str(report), "--check", "-q"]) == 0


def test_only_cells_that_are_no_value_are_read_as_escaped():
    original = pd.DataFrame({"note": ["=1+1", "'=2", "'x", "a", None]})
    released = pd.DataFrame({"note": ["'=1+1", "'=2", "'x", "a", None]})
    schema = kg.Schema(quasi_identifiers=["note"])
    read = unescaped_formulas(released, original, schema)["note"].tolist()
    assert read[:4] == ["=1+1", "'=2", "'x", "a"] and pd.isna(read[4])
    # a hierarchy label is read as it is, and so is a cell of a column that is no QI
    h = kg.Hierarchy([["=1+1", "'=g"], ["'=2", "'=g"], ["'x", "'=g"], ["a", "'=g"]],
                     name="note")
    released = pd.DataFrame({"note": ["'=g", "'=1+1"], "other": ["'=1", "'=1"]})
    read = unescaped_formulas(released, original.head(2).assign(other=["=1", "=1"]),
                              kg.Schema(quasi_identifiers=["note"], hierarchies={"note": h}))
    assert read["note"].tolist() == ["'=g", "=1+1"] and read["other"].tolist() == ["'=1"] * 2


# ------------------------------------------------------ suggested hierarchies
PADDED = [" pad ", "pad", "pad ", "\tx", "x", "plain"]


@pytest.fixture
def padded(tmp_path):
    rows = [["note", "sex"]] + [[PADDED[i % 6], "MF"[i % 2]] for i in range(24)]
    _write_csv(tmp_path / "t.csv", rows)
    return tmp_path / "t.csv"


def test_suggest_keeps_the_data_s_spaces():
    table = pd.DataFrame({"note": PADDED * 2})
    h, _ = kg.hierarchy.suggest(table, kg.Schema(quasi_identifiers=["note"]))["note"]
    assert sorted(h.leaf_labels) == sorted(PADDED)
    assert h.encode(table["note"]).tolist() == [h.leaf_index(v) for v in PADDED * 2]


def test_a_hierarchy_file_keeps_quoted_spaces(tmp_path):
    h = kg.Hierarchy([[" pad ", " grp", "*"], ["pad", "grp", "*"], ["x", "grp", "*"]],
                     name="note")
    kg.write_hierarchy(h, tmp_path / "note.csv")
    back = kg.read_hierarchy(tmp_path / "note.csv")
    assert back.to_rows() == h.to_rows()
    assert sorted(back.leaf_labels) == [" pad ", "pad", "x"]
    assert back.generalize(" pad ", 1) == " grp" and back.generalize("pad", 1) == "grp"
    # unquoted cells are still read without their padding (ARX files written 'a; b')
    (tmp_path / "loose.csv").write_text("a ; x ;*\n b; x;*\n")
    assert kg.read_hierarchy(tmp_path / "loose.csv").to_rows() == [["a", "x", "*"],
                                                                     ["b", "x", "*"]]


def test_suggest_then_anonymize(tmp_path, padded):
    folder = tmp_path / "h"
    assert main(["hierarchy", "suggest", str(padded), "--qi", "note,sex",
                 "-o", str(folder)]) == 0
    out = tmp_path / "r.csv"
    assert main(["anonymize", str(padded), "--qi", "note,sex", "--hierarchies", str(folder),
                 "-k", "2", "--algorithm", "optimal", "--keep-order", "-o", str(out),
                 "-q"]) == 0
    released = kg.io.read_table(out)["note"].tolist()
    assert all(r in (v, "*") for r, v in zip(released, [PADDED[i % 6] for i in range(24)]))
