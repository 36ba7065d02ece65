"""Column kinds a user's own table needs (issue 23): ISO date text, zero-padded codes,
missing cells kept, and the walk-through on a clinic table with all three."""

import re
import sys
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import kanon_graph as kg
from kanon_graph.cli import main
from kanon_graph.exceptions import InferenceWarning

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
from clinic import clinic  # noqa: E402

QIS = ["zip", "birth_date", "sex", "ethnicity", "weight"]
DATE_RANGE = re.compile(r"^\[(\d{4}-\d{2}-\d{2}), (\d{4}-\d{2}-\d{2})\]$|^\d{4}-\d{2}-\d{2}$")


def _table(n=400, seed=1):
    rng = np.random.default_rng(seed)
    days = rng.integers(0, 20_000, n)
    return pd.DataFrame({
        "born": (np.datetime64("1940-01-01") + days.astype("timedelta64[D]")).astype(str),
        "zip": np.char.zfill(rng.integers(100, 99_999, n).astype(str), 5),
        "sex": rng.choice(["F", "M"], n)})


def test_iso_date_text_is_a_date_and_says_so_once():
    table = _table()
    schema = kg.Schema(quasi_identifiers=["born", "sex"])
    assert schema.kind("born", table) == "date"
    with pytest.warns(InferenceWarning, match="'born' holds ISO 8601 date text") as seen:
        res = kg.anonymize(table, schema, k=5, algorithm="mondrian")
    assert sum("'born'" in str(w.message) for w in seen) == 1
    for original, released in zip(table["born"], res.table["born"]):
        match = DATE_RANGE.match(released)
        assert match, released
        lo, hi = (match.group(1), match.group(2)) if match.group(1) else (released, released)
        assert lo <= original <= hi
    flat = kg.Schema(quasi_identifiers=["born", "sex"], categorical=["born"])
    with warnings.catch_warnings():
        warnings.simplefilter("error", InferenceWarning)
        sets = kg.anonymize(table, flat, k=5, algorithm="mondrian")
    assert sets.table["born"].str.startswith("{").any()


def test_zero_padded_codes_are_masked_without_a_hierarchy():
    table = _table()
    schema = kg.Schema(quasi_identifiers=["zip", "sex"])
    with pytest.warns(InferenceWarning, match="'zip' holds digit codes with leading zeros"):
        res = kg.anonymize(table, schema, k=5, algorithm="mondrian")
    for original, released in zip(table["zip"], res.table["zip"]):
        assert len(released) == 5 and re.fullmatch(r"\d*\**", released), released
        prefix = released.rstrip("*")
        assert original.startswith(prefix)
    assert kg.anonymize(table, kg.Schema(quasi_identifiers=["zip", "sex"],
                                         categorical=["zip"]), k=5,
                        algorithm="mondrian").table["zip"].str.startswith("{").any()
    plain = pd.DataFrame({"zip": ["12345", "23456", "34567"] * 4, "sex": ["F", "M"] * 6})
    assert kg.Schema(quasi_identifiers=["zip"]).kind("zip", plain) == "numeric"


def test_suggest_proposes_dates_and_masking():
    table = _table().assign(code=lambda t: t["zip"].str[:2])
    made = kg.hierarchy.suggest(table, kg.Schema(quasi_identifiers=["born", "zip", "code"]))
    assert made["born"][1] == "date: month, quarter, year, 5 years, decade"
    assert made["zip"][1].startswith("code of 5 characters: masked")
    assert made["code"][1].startswith("code of 2 characters: masked")


def test_cli_categorical_overrides_the_inference(tmp_path, capsys):
    _table().to_csv(tmp_path / "t.csv", index=False)
    out = tmp_path / "o.csv"
    assert main(["anonymize", str(tmp_path / "t.csv"), "--qi", "born,zip,sex", "-k", "5",
                 "--algorithm", "mondrian", "-o", str(out), "-q"]) == 0
    inferred = pd.read_csv(out, dtype=str)
    assert inferred["born"].str.match(DATE_RANGE).all()
    assert inferred["zip"].str.fullmatch(r"\d*\**").all()
    assert main(["anonymize", str(tmp_path / "t.csv"), "--qi", "born,zip,sex", "-k", "5",
                 "--algorithm", "mondrian", "--categorical", "born,zip", "-o", str(out),
                 "-q"]) == 0
    flat = pd.read_csv(out, dtype=str)
    assert flat["born"].str.startswith("{").any() and flat["zip"].str.startswith("{").any()


def _loss(path):
    import json

    return json.loads(Path(path).read_text())["metrics"]["loss"]


def test_walkthrough_on_a_clinic_table(tmp_path, capsys):
    """Issue 23's Done-when, on a smaller clinic table: no flags, default within 10% of
    the best algorithm, dates as intervals, zips as prefixes, every row with keep."""
    table = clinic(1500, seed=5)
    table.to_csv(tmp_path / "clinic.csv", index=False)
    base = ["anonymize", str(tmp_path / "clinic.csv"), "--qi", ",".join(QIS), "--identifiers",
            "patient_id", "--sensitive", "diagnosis", "-k", "5", "--missing", "keep", "-q",
            "--keep-order"]              # rows compared by position below
    losses = {}
    for algorithm in ("auto", "mondrian", "sd", "mst"):
        assert main(base + ["--algorithm", algorithm, "-o", str(tmp_path / f"{algorithm}.csv"),
                            "--report", str(tmp_path / f"{algorithm}.json")]) == 0
        losses[algorithm] = _loss(tmp_path / f"{algorithm}.json")
    best = min(v for a, v in losses.items() if a != "auto")
    assert losses["auto"] <= 1.10 * best, losses
    released = pd.read_csv(tmp_path / "auto.csv", dtype=str, keep_default_na=False)
    assert len(released) == len(table)
    missing = kg.encoding.MISSING
    for original, cell in zip(table["birth_date"], released["birth_date"]):
        shown = cell.split(" or ")[0]
        if pd.isna(original):
            assert missing in cell or cell == "*"
        else:
            assert DATE_RANGE.match(shown), cell
    for original, cell in zip(table["zip"], released["zip"]):
        if pd.isna(original):
            assert cell in (missing, "*****")
        else:
            assert original.startswith(cell.rstrip("*")) and len(cell) == 5, cell
    assert main(["evaluate", str(tmp_path / "clinic.csv"), str(tmp_path / "auto.csv"),
                 "--qi", ",".join(QIS), "--identifiers", "patient_id", "--sensitive",
                 "diagnosis", "-k", "5", "--missing", "keep", "--check", "-q"]) == 0


def test_numbers_with_a_few_text_cells_say_which_cell_keeps_them_text(tmp_path, capsys):
    rng = np.random.default_rng(4)
    table = pd.DataFrame({"age": rng.integers(18, 90, 300).astype(str).astype(object),
                          "sex": rng.choice(["F", "M"], 300)})
    table.loc[7, "age"] = "unknown"
    schema = kg.Schema(quasi_identifiers=["age", "sex"])
    assert schema.kind("age", table) == "categorical"
    with pytest.warns(InferenceWarning, match=r"'age' holds numbers but for 'unknown' \(row 7\)"):
        kg.anonymize(table, schema, k=5, algorithm="mondrian")
    # the remedy it names works: read as missing, the column is numbers
    path = tmp_path / "ages.csv"
    table.to_csv(path, index=False)
    assert main(["anonymize", str(path), "--qi", "age,sex", "-k", "5", "--na-values", "unknown",
                 "--missing", "keep", "-o", str(tmp_path / "out.csv")]) == 0
    released = pd.read_csv(tmp_path / "out.csv", dtype=str, keep_default_na=False)["age"]
    assert not released.str.startswith("{").any()
    # codes with a few letters among few numbers are categories without a word
    codes = pd.DataFrame({"grade": ["1", "2", "3", "x"] * 30, "sex": ["F", "M", "M"] * 40})
    with warnings.catch_warnings():
        warnings.simplefilter("error", InferenceWarning)
        kg.anonymize(codes, kg.Schema(quasi_identifiers=["grade", "sex"]), k=5,
                     algorithm="mondrian")


def test_an_inference_names_the_row_by_its_position_after_missing_rows(tmp_path):
    rng = np.random.default_rng(5)
    table = pd.DataFrame({"age": rng.integers(18, 90, 300).astype(str).astype(object),
                          "sex": rng.choice(["F", "M"], 300)},
                         index=pd.RangeIndex(1000, 1300))
    table.loc[1005, "age"] = None
    table.loc[1007, "age"] = "unknown"
    for missing in ("keep", "drop"):
        with pytest.warns(InferenceWarning, match=r"'unknown' \(row 7\)"):
            kg.anonymize(table, kg.Schema(quasi_identifiers=["age", "sex"]), k=5,
                         algorithm="mondrian", missing=missing)
