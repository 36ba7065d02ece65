"""``--engine dask`` reads Parquet as the pandas engine does (issue 31 items 13 and 14).

Each file is one partition read by the pandas engine's reader, so an
integer column with a null keeps its integers (it went through ``float64``:
``9007199254740993`` came out as ``9007199254740992.0``, ``-7`` as ``-7.0``)
and a named index is a column (it was missing from the Dask frame's columns,
so ``--qi ...,ward`` was refused).
"""

from __future__ import annotations

import csv
import glob
import math

import pytest

import kanon_graph as kg
from kanon_graph.cli import main

pytest.importorskip("dask.dataframe", reason="the optional Dask extra is not installed "
                                             "(pip install \"kanon_graph[dask]\")")
pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")

BIG = 2**53 + 1


def _files(tmp_path, index):
    """Two Parquet files, the second with nulls (written by pyarrow: no pandas dtypes
    to restore); or, with ``index``, written by pandas with ``ward`` as the index."""
    folder = tmp_path / "in"
    folder.mkdir()
    for part in range(2):
        table = pa.table({
            "ward": pa.array(["north", "south"] * 5),
            "age": pa.array([31, 40, 45, 50, 44, 33, 34, 38, 41, 47], pa.int64()),
            "big": pa.array([BIG, -7] + ([None] if part else [8]) + list(range(7)), pa.int64()),
            "ratio": pa.array([1.5, math.nan if part else 2.5] + [2.0] * 8, pa.float64()),
        })
        if index:
            frame = table.drop_columns(["big", "ratio"]).to_pandas().set_index("ward")
            frame.to_parquet(folder / f"part-{part}.parquet")   # ward: the stored index
        else:
            pq.write_table(table, folder / f"part-{part}.parquet")
    hierarchies = tmp_path / "h"
    hierarchies.mkdir()
    kg.write_hierarchy(kg.hierarchy.intervals(range(30, 60), widths=[10, 20], name="age"),
                       hierarchies / "age.csv")
    kg.write_hierarchy(kg.Hierarchy([["north", "*"], ["south", "*"]], name="ward"),
                       hierarchies / "ward.csv")
    return folder, hierarchies


def _rows(out):
    rows = []
    for path in sorted(glob.glob(str(out / "part-*.csv"))):
        with open(path, newline="", encoding="utf-8") as handle:
            rows.append(list(csv.DictReader(handle)))
    return rows


def test_dask_keeps_the_integers_of_a_column_with_a_null(tmp_path):
    folder, hierarchies = _files(tmp_path, index=False)
    out = tmp_path / "out"
    assert main(["anonymize", str(folder), "--engine", "dask", "--qi", "age,ward",
                 "--hierarchies", str(hierarchies), "-k", "2", "--algorithm", "optimal",
                 "--keep-order", "-o", str(out / "part-*.csv"), "-q"]) == 0
    rows = _rows(out)
    assert [list(part[0]) for part in rows] == [["ward", "age", "big", "ratio"]] * 2
    assert [r["big"] for r in rows[0][:3]] == [str(BIG), "-7", "8"]
    assert [r["big"] for r in rows[1][:3]] == [str(BIG), "-7", ""]
    assert [r["ratio"] for r in rows[1][:2]] == ["1.5", "nan"]
    parquet = tmp_path / "release"
    assert main(["anonymize", str(folder), "--engine", "dask", "--qi", "age,ward",
                 "--hierarchies", str(hierarchies), "-k", "2", "--algorithm", "optimal",
                 "--keep-order", "-o", str(parquet), "-q"]) == 0
    parts = [pq.read_table(p) for p in sorted(glob.glob(str(parquet / "*.parquet")))]
    assert [p.schema.field("big").type for p in parts] == [pa.int64()] * 2
    assert parts[1].column("big").to_pylist()[:3] == [BIG, -7, None]


def test_dask_reads_a_named_index_as_a_column(tmp_path):
    folder, hierarchies = _files(tmp_path, index=True)
    out = tmp_path / "out"
    assert main(["anonymize", str(folder), "--engine", "dask", "--qi", "age,ward",
                 "--hierarchies", str(hierarchies), "-k", "2", "--algorithm", "optimal",
                 "--keep-order", "-o", str(out / "part-*.csv"), "-q"]) == 0
    rows = _rows(out)
    assert [list(part[0]) for part in rows] == [["ward", "age"]] * 2
    assert all(r["ward"] in ("north", "south", "*") for part in rows for r in part)
    assert sum(len(part) for part in rows) == 20


def test_dask_reads_a_cell_over_the_csv_module_s_default_limit(tmp_path):
    """Both engines read a 131,073-character cell (issue 31 item 18; it was refused)."""
    folder = tmp_path / "in"
    folder.mkdir()
    long = "x" * 131_073
    rows = [("F", long if i == 0 else "flu", 30 + i) for i in range(6)]
    rows += [("M", "cold", 40 + i) for i in range(6)]
    (folder / "people.csv").write_text(
        "sex,note,age\n" + "".join(f"{s},{n},{a}\n" for s, n, a in rows))
    (tmp_path / "sex.csv").write_text("F;*\nM;*\n")
    common = ["--qi", "sex", "--hierarchies", str(tmp_path), "-k", "2", "--algorithm",
              "optimal", "--keep-order", "-q"]
    assert main(["anonymize", str(folder / "people.csv"), *common,
                 "-o", str(tmp_path / "p.csv")]) == 0
    assert main(["anonymize", str(folder), "--engine", "dask", *common,
                 "-o", str(tmp_path / "d" / "part-*.csv")]) == 0
    (dask_rows,) = _rows(tmp_path / "d")
    with open(tmp_path / "p.csv", newline="", encoding="utf-8") as handle:
        assert list(csv.DictReader(handle)) == dask_rows
    assert dask_rows[0]["note"] == long
