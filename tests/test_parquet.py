"""Parquet in and out (issue 16 item 4): dtypes kept, released generalized cells are text."""

import numpy as np
import pandas as pd
import pytest

import kanon_graph as kg
from kanon_graph.cli import main

pytest.importorskip("pyarrow")


def _table(n=40):
    rng = np.random.default_rng(4)
    return pd.DataFrame({
        "name": [f"p{i}" for i in range(n)],
        "birth": pd.Timestamp("1950-01-01") + pd.to_timedelta(rng.integers(0, 9000, n),
                                                              unit="D"),
        "zip": rng.choice(["02139", "02141", "02142"], n),
        "income": rng.gamma(3, 1000, n).round(2),
        "visits": rng.integers(0, 9, n),
    })


def test_read_table_keeps_parquet_dtypes(tmp_path):
    table = _table()
    table.to_parquet(tmp_path / "t.parquet", index=False)
    back = kg.io.read_table(tmp_path / "t.parquet")
    assert back.dtypes.to_dict() == table.dtypes.to_dict()
    assert kg.Schema(quasi_identifiers=["birth"]).kind("birth", back) == "date"
    with pytest.raises(kg.DataError, match="'.*nope.parquet' does not exist"):
        kg.io.read_table(tmp_path / "nope.parquet")
    (tmp_path / "bad.parquet").write_text("not parquet")
    with pytest.raises(kg.DataError, match="not a readable Parquet file"):
        kg.io.read_table(tmp_path / "bad.parquet")


def test_cli_anonymizes_parquet_to_parquet(tmp_path, capsys):
    table = _table()
    table.to_parquet(tmp_path / "t.parquet", index=False)
    assert main(["anonymize", "--keep-order", str(tmp_path / "t.parquet"), "--qi", "birth,zip",
                 "--identifiers", "name", "-k", "4", "--algorithm", "mondrian",
                 "-o", str(tmp_path / "r.parquet"), "-q"]) == 0
    out = pd.read_parquet(tmp_path / "r.parquet")
    assert list(out.columns) == ["birth", "zip", "income", "visits"]
    # columns not generalized keep their dtype and values; generalized ones are text
    assert out["income"].dtype == table["income"].dtype
    assert out["income"].tolist() == table["income"].tolist()
    assert out["visits"].tolist() == table["visits"].tolist()
    assert out["birth"].map(type).eq(str).all()
    assert out["birth"].str.match(r"^\[\d{4}-\d{2}-\d{2}, \d{4}-\d{2}-\d{2}\]$|^\d{4}-").all()
    assert out.groupby(["birth", "zip"]).size().min() >= 4

