"""Parquet in, release out, every value and type kept (issue 31 items 13 and 14).

Item 13: an integer column with a null, a float ``NaN`` and a decimal came
back changed (through ``float64``; ``NaN`` as null; ``decimal128(5, 2)`` as
``(3, 2)``), and an integer quasi-identifier with a null was labelled with
rounded floats. Item 14: a column stored as the pandas index was dropped.
"""

from __future__ import annotations

import csv
import decimal
import json
import math
import re

import numpy as np
import pandas as pd
import pytest

import kanon_graph as kg
from kanon_graph.cli import main
from kanon_graph.io.release import order_of

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")

BIG = 2**53 + 1                     # 9007199254740993: no float64 holds it


def _input(path):
    """A table a non-pandas writer might make: nulls in integers, NaN and null in floats."""
    n = 12
    pq.write_table(pa.table({
        "age": pa.array([31, 40, 45, 50, BIG, 33, None, 38, 41, 47, 52, 60], pa.int64()),
        "big": pa.array([BIG, -7, None] + list(range(9)), pa.int64()),
        "small": pa.array([1, None] + [2] * 10, pa.int8()),
        "ratio": pa.array([1.5, math.nan, None] + [2.0] * 9, pa.float64()),
        "price": pa.array([decimal.Decimal("123.45"), None] + [decimal.Decimal("-0.50")] * 10,
                          pa.decimal128(5, 2)),
        "sex": pa.array(list("MF") * (n // 2)),
    }), path)
    return pq.read_table(path)


def _cells(column):
    """Python values, NaN as the text 'NaN' so that NaN and null compare apart."""
    return ["NaN" if isinstance(v, float) and math.isnan(v) else v for v in column.to_pylist()]


def _csv_rows(path):
    with open(path, newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def test_read_table_keeps_every_value_and_type(tmp_path):
    source = _input(tmp_path / "t.parquet")
    table = kg.io.read_table(tmp_path / "t.parquet")
    assert table["big"].tolist()[0] == BIG and isinstance(table["big"].tolist()[0], int)
    assert str(table["big"].dtype) == "Int64" and str(table["small"].dtype) == "Int8"
    assert pd.isna(table["big"].iloc[2])
    ratio = table["ratio"].tolist()
    assert ratio[0] == 1.5 and isinstance(ratio[1], float) and math.isnan(ratio[1])
    assert ratio[2] is pd.NA or ratio[2] is None          # null, not NaN
    # written back, every column is the input's: type and values
    table.to_parquet(tmp_path / "back.parquet", index=False)
    back = pq.read_table(tmp_path / "back.parquet")
    for name in ("age", "big", "small", "ratio", "price"):
        assert back.schema.field(name).type == source.schema.field(name).type, name
        assert _cells(back.column(name)) == _cells(source.column(name)), name


@pytest.mark.parametrize("suffix", ["csv", "parquet"])
def test_pass_through_columns_leave_as_they_came(tmp_path, suffix):
    source = _input(tmp_path / "t.parquet")
    out = tmp_path / f"r.{suffix}"
    assert main(["anonymize", str(tmp_path / "t.parquet"), "--qi", "age,sex", "-k", "2",
                 "--algorithm", "mondrian", "--missing", "keep", "--keep-order",
                 "-o", str(out), "-q"]) == 0
    if suffix == "parquet":
        back = pq.read_table(out)
        for name in ("big", "small", "ratio", "price"):
            assert back.schema.field(name).type == source.schema.field(name).type, name
            assert _cells(back.column(name)) == _cells(source.column(name)), name
        return
    rows = _csv_rows(out)
    assert [r["big"] for r in rows[:4]] == [str(BIG), "-7", "", "0"]
    assert [r["small"] for r in rows[:3]] == ["1", "", "2"]
    assert [r["ratio"] for r in rows[:4]] == ["1.5", "nan", "", "2.0"]
    assert [r["price"] for r in rows[:3]] == ["123.45", "", "-0.50"]


def _bounds(label):
    """The integers a released label ``[lo-hi]`` or ``v`` covers (an 'or (missing)' dropped)."""
    label = label.removesuffix(" or (missing)")
    match = re.fullmatch(r"\[(-?\d+)-(-?\d+)\]", label)
    return (int(match.group(1)), int(match.group(2))) if match else (int(label), int(label))


@pytest.mark.parametrize("algorithm", ["mondrian", "mst"])
def test_an_integer_quasi_identifier_with_a_null_keeps_exact_labels(tmp_path, algorithm):
    _input(tmp_path / "t.parquet")
    out, report = tmp_path / "r.csv", tmp_path / "r.json"
    assert main(["anonymize", str(tmp_path / "t.parquet"), "--qi", "age,sex", "-k", "2",
                 "--algorithm", algorithm, "--missing", "keep", "--order-seed", "5",
                 "-o", str(out), "--report", str(report), "-q"]) == 0
    rows = _csv_rows(out)
    ages = pq.read_table(tmp_path / "t.parquet").column("age").to_pylist()
    back = order_of(len(rows), json.loads(report.read_text())["publication"][
        "order_seed"])
    for position, row in zip(back, rows):
        label, value = row["age"], ages[position]
        assert "." not in label, label                    # no float text in the labels
        if value is None:
            assert label.endswith("(missing)"), label
        else:
            lo, hi = _bounds(label)
            assert lo <= value <= hi, (label, value)
    assert main(["evaluate", str(tmp_path / "t.parquet"), str(out), "--qi", "age,sex",
                 "-k", "2", "--missing", "keep", "--unshuffle", str(report), "--check",
                 "-q"]) == 0


def test_a_float_nan_in_a_quasi_identifier_is_missing(tmp_path, capsys):
    _input(tmp_path / "t.parquet")
    args = ["anonymize", str(tmp_path / "t.parquet"), "--qi", "ratio,sex", "-k", "2",
            "--algorithm", "mondrian", "--keep-order", "-o", str(tmp_path / "r.csv"), "-q"]
    assert main(args) == 1
    err = capsys.readouterr().err
    assert "row 2" in err and "'ratio'" in err and "missing value" in err
    assert main(args + ["--missing", "drop"]) == 0
    rows = _csv_rows(tmp_path / "r.csv")
    assert len(rows) == 10 and [r["big"] for r in rows[:2]] == [str(BIG), "0"]


def _wards(n=30, seed=3):
    rng = np.random.default_rng(seed)
    return pd.DataFrame({"ward": rng.choice(["north", "south", "east"], n),
                         "age": rng.integers(20, 70, n), "sex": rng.choice(["F", "M"], n),
                         "note": [f"n{i}" for i in range(n)]})


def test_a_named_index_is_a_column(tmp_path):
    table = _wards()
    table.set_index("ward").to_parquet(tmp_path / "t.parquet")
    read = kg.io.read_table(tmp_path / "t.parquet")
    assert list(read.columns) == ["ward", "age", "sex", "note"]
    assert read["ward"].tolist() == table["ward"].tolist()
    assert list(read.index) == list(range(len(table)))
    out = tmp_path / "r.csv"
    assert main(["anonymize", str(tmp_path / "t.parquet"), "--qi", "age,ward", "-k", "3",
                 "--algorithm", "mondrian", "--keep-order", "-o", str(out), "-q"]) == 0
    rows = _csv_rows(out)
    assert list(rows[0]) == ["ward", "age", "sex", "note"]
    assert [r["note"] for r in rows] == table["note"].tolist()
    # every released ward covers the input's ward (a value, a set or '*')
    for row, ward in zip(rows, table["ward"]):
        assert row["ward"] == "*" or ward in row["ward"].strip("{}").split(","), row


def test_an_unnamed_index_is_not_a_column(tmp_path):
    table = _wards()
    table.to_parquet(tmp_path / "range.parquet")                 # RangeIndex: metadata
    kept = table[table["age"] > 30]
    kept.to_parquet(tmp_path / "labels.parquet")                 # row labels 3, 5, ...
    kept.set_index(["ward", "sex"]).to_parquet(tmp_path / "multi.parquet")
    assert list(kg.io.read_table(tmp_path / "range.parquet").columns) == list(table.columns)
    labels = kg.io.read_table(tmp_path / "labels.parquet")
    assert list(labels.columns) == list(table.columns)
    assert list(labels.index) == list(range(len(kept)))          # the labels are not kept
    multi = kg.io.read_table(tmp_path / "multi.parquet")
    assert list(multi.columns) == ["ward", "sex", "age", "note"]
    assert multi["sex"].tolist() == kept["sex"].tolist()



def test_a_sensitive_decimal_and_a_nan_float_keep_their_type(tmp_path):
    source = _input(tmp_path / "t.parquet")
    out = tmp_path / "r.parquet"
    assert main(["anonymize", str(tmp_path / "t.parquet"), "--qi", "big,sex",
                 "--sensitive", "price", "--l", "1", "-k", "2", "--algorithm", "mondrian",
                 "--missing", "drop", "--keep-order", "-o", str(out), "-q"]) == 0
    back = pq.read_table(out)
    assert back.schema.field("price").type == pa.decimal128(5, 2)
    # rows 1 (price null) and 2 (big null) dropped; the rest as they came
    kept = [0] + list(range(3, 12))
    for name in ("price", "ratio", "small", "age"):
        assert back.schema.field(name).type == source.schema.field(name).type, name
        assert _cells(back.column(name)) == [_cells(source.column(name))[i] for i in kept]
