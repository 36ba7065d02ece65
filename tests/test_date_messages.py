"""Dates that are read, or not, and say so (issue 46 items 8 and 9)."""

import csv
import datetime as dt
import json
import warnings

import numpy as np
import pandas as pd
import pytest

import kanon_graph as kg
from kanon_graph.cli import main
from kanon_graph.encoding import encode
from kanon_graph.exceptions import DataError, InferenceWarning


def _write(path, rows):
    with open(path, "w", newline="") as fh:
        csv.writer(fh).writerows(rows)


def _dates(n=40, seed=0):
    rng = np.random.default_rng(seed)
    start = dt.date(1940, 1, 1)
    return [start + dt.timedelta(days=int(d)) for d in rng.integers(0, 20_000, n)]


def _rows(fmt, n=40, seed=0):
    rng = np.random.default_rng(seed)
    when = _dates(n, seed)
    when[0] = when[0].replace(day=25)             # a day above 12 tells the order
    return [["dob", "sex"]] + [[w.strftime(fmt), "FM"[int(b)]]
                               for w, b in zip(when, rng.integers(0, 2, n))]


# item 8 ---------------------------------------------------------------------------------

@pytest.mark.parametrize("algorithm", ["mondrian", "mst"])
def test_a_missing_cell_of_a_day_first_column_is_kept(tmp_path, capsys, algorithm):
    rows = _rows("%d/%m/%Y")
    rows[5][0] = ""                                # one missing date
    _write(tmp_path / "t.csv", rows)
    out = tmp_path / "o.csv"
    code = main(["anonymize", str(tmp_path / "t.csv"), "--qi", "dob,sex", "-k", "3",
                 "--algorithm", algorithm, "--missing", "keep", "--keep-order",
                 "-o", str(out), "-q"])
    assert code == 0, capsys.readouterr().err
    released = pd.read_csv(out, dtype=str, keep_default_na=False)
    holds = released["dob"][4]                     # the missing cell's row (after the header)
    assert "(missing)" in holds
    # the other cells are ISO intervals (or the kept marker), read from day-first text
    assert released["dob"].str.match(r"^(\[\d{4}-\d{2}-\d{2}, \d{4}-\d{2}-\d{2}\]|\(missing\))"
                                     ).all()
    assert main(["evaluate", str(tmp_path / "t.csv"), str(out), "--qi", "dob,sex",
                 "-k", "3", "--missing", "keep", "--check", "-q"]) == 0


# item 9 ---------------------------------------------------------------------------------

def _undeclared(cells):
    table = pd.DataFrame({"dob": cells, "sex": ["F", "M"] * (len(cells) // 2)})
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        data = encode(table, kg.Schema(quasi_identifiers=["dob", "sex"]))
    return data.attribute("dob"), [str(w.message) for w in seen
                                   if issubclass(w.category, InferenceWarning)]


@pytest.mark.parametrize("odd", ["31/02/2020", "25.07.1986"])
def test_one_cell_that_keeps_a_date_column_text_is_named(odd):
    cells = [w.strftime("%d/%m/%Y") for w in _dates()]
    cells[0] = "25/07/1986"
    cells[7] = odd                                 # an impossible day, or a second separator
    attr, said = _undeclared(cells)
    assert not attr.date                           # kept as text...
    assert len(said) == 1                          # ...with a word naming the column and cell
    assert "'dob'" in said[0] and repr(odd) in said[0] and "row 7" in said[0]
    assert "%d/%m/%Y" in said[0] and "kept as text" in said[0]


def test_an_ordinary_text_column_gets_no_date_word():
    _, said = _undeclared(["flu", "cold", "31/02/2020", "hiv"])
    assert said == []


def test_year_first_dates_are_told_day_from_month():
    when = _dates()
    when[0] = when[0].replace(day=25)
    attr, said = _undeclared([w.strftime("%Y/%d/%m") for w in when])   # yyyy/dd/mm
    assert attr.date and attr.date_format == "%Y/%d/%m"
    epoch = dt.date(1970, 1, 1)
    assert np.allclose(attr.values, [(w - epoch).days for w in when])  # not transposed
    assert "'1" in said[0] and "/25/" in said[0]   # the warning cites the telling cell
    attr, said = _undeclared([w.strftime("%Y/%m/%d") for w in when])   # yyyy/mm/dd
    assert attr.date and attr.date_format == "%Y/%m/%d"
    # no field above 12: either way round, so asked for, not read in silence
    untold = [w.replace(day=min(w.day, 12)).strftime("%Y/%m/%d") for w in when]
    attr, said = _undeclared(untold)
    assert not attr.date and "either way round" in said[0]
    assert "--date-format dob=%Y/%m/%d (or %Y/%d/%m)" in said[0]
    with pytest.raises(DataError, match="either way round"):
        encode(pd.DataFrame({"dob": untold}), kg.Schema(quasi_identifiers=["dob"],
                                                        dates=["dob"]))


def test_date_format_flags_are_checked(tmp_path, capsys):
    _write(tmp_path / "t.csv", _rows("%m/%d/%Y"))
    args = ["anonymize", str(tmp_path / "t.csv"), "--qi", "dob,sex", "-k", "3",
            "--algorithm", "mondrian", "-o", str(tmp_path / "o.csv"), "-q"]
    assert main(args + ["--date-format", "dbo=%m/%d/%Y"]) == 1     # no such column
    err = capsys.readouterr().err
    assert "'dbo'" in err and "--date-format" in err and "Traceback" not in err
    assert main(args + ["--date-format", "dob=%d/%m/%Y", "--date-format",
                        "dob=%m/%d/%Y"]) == 1                       # two for one column
    err = capsys.readouterr().err
    assert "twice" in err and "'%d/%m/%Y'" in err and "'%m/%d/%Y'" in err
    # month-first data given day first: no --dates was passed; say how it reads
    assert main(args + ["--date-format", "dob=%d/%m/%Y"]) == 1
    err = capsys.readouterr().err
    assert "--dates" not in err and "(--date-format)" in err
    assert "read as %m/%d/%Y" in err and "--date-format dob=%m/%d/%Y" in err


@pytest.mark.parametrize("flag, fmt", [([], "%d/%m/%Y"), (["--date-format", "dob=%d/%m/%Y"],
                                                          "%d/%m/%Y")])
def test_the_report_records_the_format_read(tmp_path, capsys, flag, fmt):
    _write(tmp_path / "t.csv", _rows("%d/%m/%Y"))
    report = tmp_path / "r.json"
    assert main(["anonymize", str(tmp_path / "t.csv"), "--qi", "dob,sex", "-k", "3",
                 "--algorithm", "mondrian", "-o", str(tmp_path / "o.csv"), "-q",
                 "--report", str(report)] + flag) == 0, capsys.readouterr().err
    assert json.loads(report.read_text())["stats"]["date_formats"] == {"dob": fmt}
    table = pd.DataFrame({"dob": ["1961-03-13", "1970-02-01"] * 3})
    res = kg.anonymize(table, kg.Schema(quasi_identifiers=["dob"], dates=["dob"]), k=2,
                       algorithm="mondrian")
    assert res.stats["date_formats"] == {"dob": "ISO 8601"}
