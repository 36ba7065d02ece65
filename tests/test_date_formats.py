"""Dates as people write them (issue 42 item 1): dd/mm/yyyy, mm/dd/yyyy, dd.mm.yyyy, ..."""

import csv
import datetime as dt
import re
import warnings

import numpy as np
import pandas as pd
import pytest

import kanon_graph as kg
from kanon_graph.cli import main
from kanon_graph.encoding import encode
from kanon_graph.exceptions import InferenceWarning


def _days(n=120, seed=0, day_max=28):
    rng = np.random.default_rng(seed)
    start = dt.datetime(1930, 1, 1)
    out = [start + dt.timedelta(days=int(d)) for d in rng.integers(0, 25_000, n)]
    return [d for d in out if d.day <= day_max]


def _table(fmt, when, seed=0):
    rng = np.random.default_rng(seed)
    return pd.DataFrame({"dob": [w.strftime(fmt) for w in when],
                         "sex": rng.choice(["F", "M"], len(when))})


@pytest.mark.parametrize("fmt", ["%d/%m/%Y", "%m/%d/%Y", "%d.%m.%Y", "%d-%m-%Y", "%Y/%m/%d",
                                 "%d/%m/%Y %H:%M", "%m/%d/%Y %H:%M:%S"])
def test_each_format_is_read_as_a_date_in_the_right_order(fmt):
    when = _days()
    when[0] = when[0].replace(day=25)                      # a day above 12 tells the order
    if "%H" in fmt:
        when = [w.replace(hour=i % 24, minute=(7 * i) % 60) for i, w in enumerate(when)]
    table = _table(fmt, when)
    with pytest.warns(InferenceWarning, match="'dob' holds date text in the format"):
        data = encode(table, kg.Schema(quasi_identifiers=["dob", "sex"]))
    attr = data.attribute("dob")
    assert attr.date and attr.date_format == fmt.split(" ")[0]
    epoch = dt.datetime(1970, 1, 1)
    expected = np.array([(w - epoch) / dt.timedelta(days=1) for w in when])
    assert np.allclose(attr.values, expected)


def test_the_order_is_decided_by_the_data_both_ways():
    assert kg.hierarchy.dates(["13/03/1961", "01/02/1970"]).ancestors("01/02/1970")[2] == "1970"
    day_first = encode(pd.DataFrame({"d": ["13/03/1961", "01/02/1970"]}),
                       kg.Schema(quasi_identifiers=["d"], dates=["d"])).attribute("d")
    month_first = encode(pd.DataFrame({"d": ["03/13/1961", "01/02/1970"]}),
                         kg.Schema(quasi_identifiers=["d"], dates=["d"])).attribute("d")
    assert (day_first.date_format, month_first.date_format) == ("%d/%m/%Y", "%m/%d/%Y")
    # 01/02/1970 is the first of February day first, the second of January month first
    assert day_first.values[1] - month_first.values[1] == 30


def test_two_orders_in_one_column_is_an_error_naming_both_cells():
    table = pd.DataFrame({"dob": ["13/03/1961", "03/13/1961", "01/01/1970"]})
    for schema in (kg.Schema(quasi_identifiers=["dob"], dates=["dob"]),
                   kg.Schema(quasi_identifiers=["dob"])):
        with pytest.raises(kg.DataError, match=r"'dob' holds '13/03/1961'.*day first, and "
                                               r"'03/13/1961'.*month first"):
            kg.anonymize(table, schema, k=1)


def test_an_ambiguous_column_is_asked_for():
    table = pd.DataFrame({"dob": ["01/02/1970", "03/04/1961", "05/06/1980", "07/08/1990"],
                          "sex": ["F", "M", "F", "M"]})
    with pytest.raises(kg.DataError, match=r"'dob'.*either way round.*--date-format "
                                           r"dob=%d/%m/%Y.*Schema\(dates=\{'dob': '%d/%m/%Y'\}\)"):
        encode(table, kg.Schema(quasi_identifiers=["dob"], dates=["dob"]))
    with pytest.warns(InferenceWarning, match=r"'dob' holds date text whose day and month could "
                                              r"be either way round.*kept as text.*--date-format "
                                              r"dob=%d/%m/%Y.*Schema\(dates="):
        data = encode(table, kg.Schema(quasi_identifiers=["dob"]))
    assert data.attribute("dob").kind == "categorical"
    told = encode(table, kg.Schema(quasi_identifiers=["dob"], dates={"dob": "%m/%d/%Y"}))
    assert told.attribute("dob").date and told.attribute("dob").date_format == "%m/%d/%Y"
    assert kg.hierarchy.dates(table["dob"], levels=["year"], format="%m/%d/%Y").ancestors(
        "01/02/1970") == ["01/02/1970", "1970", "*"]
    with pytest.raises(kg.HierarchyError, match="either way round.*format='%d/%m/%Y'"):
        kg.hierarchy.dates(table["dob"])
    made = kg.hierarchy.suggest(table, kg.Schema(quasi_identifiers=["dob"],
                                                 dates={"dob": "%d/%m/%Y"}))
    assert made["dob"][0].ancestors("01/02/1970")[1:4] == ["1970-02", "1970-Q1",
                                                                "1970"]


def test_two_digit_years_are_refused():
    table = pd.DataFrame({"dob": ["13/03/61", "01/02/70"]})
    for schema in (kg.Schema(quasi_identifiers=["dob"], dates=["dob"]),
                   kg.Schema(quasi_identifiers=["dob"])):
        with pytest.raises(kg.DataError, match="'dob' holds '13/03/61'.*, a date with a two-digit "
                                               "year.*four digits"):
            encode(table, schema)
    with pytest.raises(kg.DataError, match="two-digit year"):
        encode(table, kg.Schema(quasi_identifiers=["dob"], dates={"dob": "%d/%m/%y"}))


def test_unchanged_cells_keep_their_bytes_and_intervals_contain_them():
    cells = ["13/03/1961", "1/3/1961", "02/11/1975 08:30", " 25/12/1980", "25/12/1980"]
    table = pd.DataFrame({"dob": cells * 2, "row": range(10)})
    schema = kg.Schema(quasi_identifiers=["dob"], dates=["dob"])
    res = kg.anonymize(table, schema, k=2, algorithm="mondrian")
    assert res.table["dob"].tolist() == table["dob"].tolist()      # byte for byte
    merged = kg.anonymize(table, schema, k=4, algorithm="mondrian")
    for cell, released in zip(table["dob"], merged.table["dob"]):
        when = dt.datetime.strptime(cell.strip(), "%d/%m/%Y %H:%M" if ":" in cell
                                    else "%d/%m/%Y")
        if released == cell:
            continue
        first, last = re.fullmatch(r"\[(\S+), (\S+)\]", released).groups()    # ISO ends
        assert dt.datetime.fromisoformat(first) <= when <= dt.datetime.fromisoformat(last)
    kg.evaluate(table, merged.table, schema, k=4)                  # read back and checked


def test_schema_files_carry_the_formats(tmp_path):
    schema = kg.Schema(quasi_identifiers=["dob", "sex"], dates={"dob": "%d/%m/%Y"})
    assert schema.dates == ("dob",) and schema.date_format("dob") == "%d/%m/%Y"
    again = kg.Schema.from_dict(schema.to_dict())
    assert again.date_formats == {"dob": "%d/%m/%Y"}
    with pytest.raises(kg.SchemaError, match="date format of column 'dob'"):
        kg.Schema(quasi_identifiers=["dob"], dates={"dob": "dd/mm/yyyy"})


def _write(path, rows):
    with open(path, "w", newline="") as handle:
        csv.writer(handle).writerows(rows)


def test_cli_suggest_then_anonymize_releases_years_or_coarser(tmp_path, capsys):
    when = _days(n=300, seed=3)
    rng = np.random.default_rng(3)
    rows = [["dob", "sex", "risk"]] + [[w.strftime("%d/%m/%Y"), rng.choice(["F", "M"]),
                                        rng.choice(["lo", "hi"])] for w in when]
    _write(tmp_path / "reg.csv", rows)
    assert main(["hierarchy", "suggest", str(tmp_path / "reg.csv"), "--qi", "dob,sex",
                 "-o", str(tmp_path / "h")]) == 0
    assert "dob  date: month, quarter, year, 5 years, decade" in capsys.readouterr().out
    assert main(["anonymize", "--keep-order", str(tmp_path / "reg.csv"), "--qi", "dob,sex",
                 "--hierarchies",
                 str(tmp_path / "h"), "-k", "10", "-o", str(tmp_path / "out.csv"), "-q"]) == 0
    out = pd.read_csv(tmp_path / "out.csv", dtype=str)
    # years, bands of years or the root (stepwise may lift a few classes to `*`)
    years = out["dob"].str.fullmatch(r"\d{4}|\[\d{4}-\d{4}\]|\*")
    assert years.all(), out["dob"][~years].head()
    assert main(["evaluate", str(tmp_path / "reg.csv"), str(tmp_path / "out.csv"), "--qi",
                 "dob,sex", "--hierarchies", str(tmp_path / "h"), "-k", "10"]) == 0


def test_cli_date_format_decides_an_ambiguous_column(tmp_path, capsys):
    rows = [["dob", "sex"]] + [[f"{d:02d}/{m:02d}/19{50 + d}", "FM"[d % 2]]
                               for d in range(1, 13) for m in (1, 5)]
    _write(tmp_path / "t.csv", rows)
    args = ["anonymize", str(tmp_path / "t.csv"), "--qi", "dob,sex", "-k", "2",
            "--algorithm", "mondrian", "-o", str(tmp_path / "o.csv"), "-q"]
    assert main(args + ["--dates", "dob"]) == 1
    err = capsys.readouterr().err
    assert "'dob'" in err and "either way round" in err and "--date-format dob=" in err
    for flag in (["--date-format", "dob=%m/%d/%Y"], ["--date-format", "%m/%d/%Y"]):
        assert main(args + flag) == 0, capsys.readouterr().err
        out = pd.read_csv(tmp_path / "o.csv", dtype=str)
        assert out["dob"].str.match(r"^\[\d{4}-\d{2}-\d{2}, ").all()    # dates, not sets
        capsys.readouterr()
    assert main(["hierarchy", "suggest", str(tmp_path / "t.csv"), "--qi", "dob,sex",
                 "-o", str(tmp_path / "h")]) == 0
    assert "--date-format dob=%d/%m/%Y" in capsys.readouterr().out
    assert main(args + ["--date-format", "dob=%d/%m/%y"]) == 2
    assert "two-digit year" in capsys.readouterr().err
