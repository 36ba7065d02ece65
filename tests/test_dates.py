"""Dates as a kind of their own (issue 16 item 1), and text leaves of interval hierarchies."""

import csv

import numpy as np
import pandas as pd
import pytest

import kanon_graph as kg
from kanon_graph.cli import main
from kanon_graph.encoding import encode


def _births(n=60, seed=0):
    rng = np.random.default_rng(seed)
    days = rng.integers(0, 25_000, n)
    return pd.DataFrame({"dob": pd.Timestamp("1940-01-01") + pd.to_timedelta(days, unit="D"),
                         "sex": rng.choice(["F", "M"], n)})


def test_a_datetime_column_is_a_date_released_as_a_date_interval():
    table = _births()
    res = kg.anonymize(table, kg.Schema(quasi_identifiers=["dob", "sex"]), k=4,
                       algorithm="mst")
    data = encode(table, kg.Schema(quasi_identifiers=["dob", "sex"]))
    assert data.attribute("dob").date and data.attribute("dob").kind == "numeric"
    pattern = r"^\[\d{4}-\d{2}-\d{2}, \d{4}-\d{2}-\d{2}\]$|^\d{4}-\d{2}-\d{2}$"
    assert res.table["dob"].str.match(pattern).all(), res.table["dob"].head()
    for cell, born in zip(res.table["dob"], table["dob"]):     # each interval covers its date
        first, _, last = cell.strip("[]").partition(", ")
        assert pd.Timestamp(first) <= born <= pd.Timestamp(last or first)
    # measured in days: a class spans far less than the table's range
    spans = [(pd.Timestamp(c.strip("[]").split(", ")[-1]) - pd.Timestamp(c.strip("[]")[:10])).days
             for c in res.table["dob"]]
    assert np.median(spans) < 25_000 / 4


def test_declared_date_text_keeps_its_own_text_when_not_generalized():
    table = pd.DataFrame({"dob": ["1944-12-14", "1944-12-14", "19470610", "19470610"],
                          "x": ["a", "b", "c", "d"]})
    res = kg.anonymize(table, kg.Schema(quasi_identifiers=["dob"], dates=["dob"]), k=2,
                       algorithm="mondrian")
    assert res.table["dob"].tolist() == table["dob"].tolist()
    merged = kg.anonymize(table, kg.Schema(quasi_identifiers=["dob"], dates=["dob"]), k=4,
                          algorithm="mondrian")
    assert set(merged.table["dob"]) == {"[1944-12-14, 19470610]"}
    # undeclared, ISO text stays categorical (a set of dates)
    plain = kg.anonymize(table, kg.Schema(quasi_identifiers=["dob"]), k=4, algorithm="mondrian")
    assert set(plain.table["dob"]) == {"{1944-12-14,19470610}"}


def test_a_cell_that_is_no_date_is_named_with_column_row_and_value():
    table = pd.DataFrame({"dob": ["1944-12-14", "14/12/1944", "1950-01-01"]},
                         index=[10, 11, 12])
    with pytest.raises(kg.DataError, match=r"date column 'dob' holds '14/12/1944' \(row 1\)"):
        encode(table, kg.Schema(quasi_identifiers=["dob"], dates=["dob"]))
    with pytest.raises(kg.SchemaError, match="both numeric and dates"):
        kg.Schema(quasi_identifiers=["dob"], dates=["dob"], numeric=["dob"])


def test_date_hierarchy_builder_nests_months_years_and_bands():
    h = kg.hierarchy.dates(["1944-12-14", "1947-06-10", "1951-02-01"],
                           levels=("month", "year", "5 years", "decade"), name="dob")
    assert h.ancestors("1947-06-10") == ["1947-06-10", "1947-06", "1947", "[1945-1949]",
                                         "[1940-1949]", "*"]
    assert kg.hierarchy.dates(pd.to_datetime(["1944-12-14"]), levels=["quarter"]).ancestors(
        "1944-12-14") == ["1944-12-14", "1944-Q4", "*"]
    with pytest.raises(kg.HierarchyError, match="'4 years'.*'decade'|'decade'.*'4 years'"):
        kg.hierarchy.dates(["1944-12-14"], levels=("4 years", "decade"))
    with pytest.raises(kg.HierarchyError, match="unknown level 'week'"):
        kg.hierarchy.dates(["1944-12-14"], levels=("week",))
    with pytest.raises(kg.HierarchyError, match="'1944/13/14'.*which is not a date"):
        kg.hierarchy.dates(["1944/13/14"])
    table = pd.DataFrame({"dob": ["1944-12-14", "1947-06-10", "1951-02-01", "1953-03-03"]})
    res = kg.anonymize(table, kg.Schema(quasi_identifiers=["dob"], dates=["dob"],
                                        hierarchies={"dob": kg.hierarchy.dates(table["dob"])}),
                       k=2, algorithm="optimal")
    assert res.table["dob"].tolist() == ["[1940-1949]", "[1940-1949]",
                                         "[1950-1959]", "[1950-1959]"]


def _write(path, rows):
    with open(path, "w", newline="") as handle:
        csv.writer(handle).writerows(rows)


def test_cli_dates_flag_and_date_hierarchy_build(tmp_path, capsys):
    rows = [["dob", "sex"], ["1944-12-14", "F"], ["1945-01-02", "F"], ["2001-05-05", "M"],
            ["2001-06-06", "M"]]
    _write(tmp_path / "t.csv", rows)
    assert main(["anonymize", "--keep-order", str(tmp_path / "t.csv"), "--qi", "dob,sex", "--dates", "dob",
                 "-k", "2", "--algorithm", "mondrian", "-o", str(tmp_path / "o.csv"),
                 "-q"]) == 0
    out = pd.read_csv(tmp_path / "o.csv", dtype=str)
    assert out["dob"].tolist() == ["[1944-12-14, 1945-01-02]"] * 2 + [
        "[2001-05-05, 2001-06-06]"] * 2
    _write(tmp_path / "bad.csv", rows + [["05/06/2001", "M"]])
    assert main(["anonymize", "--keep-order", str(tmp_path / "bad.csv"), "--qi", "dob,sex", "--dates", "dob",
                 "-k", "2", "-o", str(tmp_path / "o.csv")]) == 1
    err = capsys.readouterr().err
    assert "line 6" in err and "'dob'" in err and "'05/06/2001'" in err
    assert main(["hierarchy", "build", "--dates", "month,year,decade", "--values-from",
                 str(tmp_path / "t.csv"), "--column", "dob", "-o",
                 str(tmp_path / "dob.csv")]) == 0
    h = kg.read_hierarchy(tmp_path / "dob.csv")
    assert h.ancestors("1945-01-02") == ["1945-01-02", "1945-01", "1945", "[1940-1949]", "*"]


def test_interval_leaves_from_a_file_keep_the_data_text(tmp_path, capsys):
    """`hierarchy build --intervals --values-from`: leaves were floats, '1.50' became '1.5'."""
    rows = [["income"], ["1.50"], ["2.25"], ["10"], ["1.50"]]
    _write(tmp_path / "t.csv", rows)
    assert main(["hierarchy", "build", "--intervals", "5,10", "--values-from",
                 str(tmp_path / "t.csv"), "--column", "income", "-o",
                 str(tmp_path / "income.csv")]) == 0
    h = kg.read_hierarchy(tmp_path / "income.csv")
    assert h.leaf_labels == ["1.50", "2.25", "10"]
    table = pd.read_csv(tmp_path / "t.csv", dtype=str)
    res = kg.anonymize(table, kg.Schema(quasi_identifiers=["income"],
                                        hierarchies={"income": h}), k=1, algorithm="optimal")
    assert res.table["income"].tolist() == ["1.50", "2.25", "10", "1.50"]
    assert kg.hierarchy.intervals(["1.50", 3], widths=[5]).leaf_labels == ["1.50", "3"]


def test_evaluate_reads_date_intervals_back(tmp_path, capsys):
    """`kanon-graph evaluate` refused '[1944-12-14, 1945-01-02]' as no number nor range."""
    rows = [["dob", "sex"], ["1944-12-14", "F"], ["1945-01-02", "F"], ["2001-05-05", "M"],
            ["2001-06-06", "M"]]
    _write(tmp_path / "t.csv", rows)
    assert main(["anonymize", "--keep-order", str(tmp_path / "t.csv"), "--qi", "dob,sex", "--dates", "dob",
                 "-k", "2", "--algorithm", "mondrian", "-o", str(tmp_path / "o.csv"),
                 "-q"]) == 0
    capsys.readouterr()
    assert main(["evaluate", str(tmp_path / "t.csv"), str(tmp_path / "o.csv"), "--qi",
                 "dob,sex", "--dates", "dob", "-k", "2"]) == 0, capsys.readouterr().err
    table = pd.read_csv(tmp_path / "t.csv", dtype=str)
    schema = kg.Schema(quasi_identifiers=["dob", "sex"], dates=["dob"])
    wrong = pd.read_csv(tmp_path / "o.csv", dtype=str)
    wrong.loc[0, "dob"] = "[1944-12-15, 1945-01-02]"          # does not cover 1944-12-14
    with pytest.raises(kg.DataError, match="does not cover"):
        kg.evaluate(table, wrong, schema, k=2)
