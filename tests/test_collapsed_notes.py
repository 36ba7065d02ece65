"""Issue 42 item 2: a quasi-identifier released as `*` on most rows is named, with cause and remedy."""

import csv
import json
import warnings

import numpy as np
import pandas as pd
import pytest

import kanon_graph as kg
from kanon_graph.cli import main


def _table(n=240, seed=0):
    rng = np.random.default_rng(seed)
    born = pd.Timestamp("1940-01-01") + pd.to_timedelta(rng.integers(0, 20_000, n), unit="D")
    return pd.DataFrame({"dob": born.strftime("%d/%m/%Y"),
                         "sex": rng.choice(["F", "M"], n),
                         "area": rng.choice(["LS6", "LS7", "BD10", "BD11"], n)})


def _schema(table):
    flat = kg.Hierarchy([[v, "*"] for v in sorted(set(table["dob"]))], name="dob")
    area = kg.Hierarchy([[v, v[:2], "*"] for v in sorted(set(table["area"]))], name="area")
    sex = kg.Hierarchy([["F", "*"], ["M", "*"]], name="sex")
    return kg.Schema(quasi_identifiers=["dob", "sex", "area"], categorical=["dob"],
                     hierarchies={"dob": flat, "area": area, "sex": sex})


def _quiet(call):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return call()


@pytest.mark.parametrize("algorithm", ["optimal", "datafly", "mondrian", "mst", "auto"])
def test_a_flat_hierarchy_is_named_in_the_summary_for_every_algorithm(algorithm):
    table = _table()
    res = _quiet(lambda: kg.anonymize(table, _schema(table), k=5, algorithm=algorithm))
    note = res.stats["collapsed_notes"]["dob"]
    assert note["share"] > 0.5
    line = next(l for l in res.summary().splitlines() if l.startswith("dob gives"))
    assert "no level between the value and *" in line and "hierarchy build" in line


def test_the_cause_is_read_from_the_column():
    table = _table()
    res = _quiet(lambda: kg.anonymize(table, _schema(table), k=5, algorithm="mondrian"))
    assert f"distinct values ({table['dob'].nunique()} values in 240 records)" in \
        res.stats["collapsed_notes"]["dob"]["cause"]
    assert "--identifiers" in res.stats["collapsed_notes"]["dob"]["remedy"]
    ambiguous = table.assign(dob=pd.to_datetime(table["dob"], format="%d/%m/%Y")
                             .dt.strftime("%d/%m/%Y").str.replace(r"^(1[3-9]|2\d|3[01])",
                                                                  "01", regex=True))
    flat = dict(_schema(table).hierarchies,
                dob=kg.Hierarchy([[v, "*"] for v in sorted(set(ambiguous["dob"]))]))
    res = _quiet(lambda: kg.anonymize(ambiguous, kg.Schema(
        quasi_identifiers=["dob", "sex", "area"], hierarchies=flat), k=5, algorithm="optimal"))
    assert "--date-format dob=" in res.stats["collapsed_notes"]["dob"]["remedy"]


def test_a_useful_release_names_nothing():
    table = _table()
    res = _quiet(lambda: kg.anonymize(table, kg.Schema(quasi_identifiers=["dob", "sex"]),
                                      k=5, algorithm="mst"))      # dob read as dates
    assert res.stats["collapsed_notes"] == {}
    assert "gives (almost) nothing" not in res.summary()


def test_the_command_line_and_the_report_name_it(tmp_path, capsys):
    table = _table()
    table.to_csv(tmp_path / "t.csv", index=False)
    (tmp_path / "h").mkdir()
    kg.write_hierarchy(_schema(table).hierarchy("dob"), tmp_path / "h" / "dob.csv")
    assert main(["anonymize", str(tmp_path / "t.csv"), "--qi", "dob,sex", "--categorical",
                 "dob", "--hierarchies", str(tmp_path / "h"), "-k", "5", "--algorithm",
                 "mondrian", "--keep-order", "-o", str(tmp_path / "o.csv")]) == 0
    out = capsys.readouterr().out
    assert "dob gives (almost) nothing" in out and "distinct values" in out
    assert main(["report", str(tmp_path / "t.csv"), str(tmp_path / "o.csv"), "--qi", "dob,sex",
                 "--categorical", "dob", "--hierarchies", str(tmp_path / "h"), "-k", "5",
                 "-o", str(tmp_path / "r.html")]) == 0
    html = (tmp_path / "r.html").read_text()
    assert "dob gives (almost) nothing" in html and "Remedy:" in html
    res = _quiet(lambda: kg.anonymize(table, _schema(table), k=5, algorithm="optimal"))
    res.report(tmp_path / "r.json")
    notes = json.loads((tmp_path / "r.json").read_text())["loss"]["collapsed"]
    assert list(notes) == ["dob"] and "no level between" in notes["dob"]["cause"]


def test_a_two_valued_column_is_not_told_to_get_levels():
    # five M among 60 records: at k = 20 sex must be '*' (no suppression); a level between
    # F / M and * cannot exist, so the note says what can help instead
    table = pd.DataFrame({"sex": ["M"] * 5 + ["F"] * 55, "code": ["a", "b", "c"] * 20})
    schema = kg.Schema(quasi_identifiers=["sex", "code"], hierarchies={
        "sex": kg.Hierarchy([["F", "*"], ["M", "*"]]),
        "code": kg.Hierarchy([["a", "*"], ["b", "*"], ["c", "*"]])})
    res = _quiet(lambda: kg.anonymize(table, schema, k=20, algorithm="optimal"))
    note = res.stats["collapsed_notes"]["sex"]
    assert "it has 2 value(s)" in note["cause"] and "cannot help" in note["remedy"]
    assert "hierarchy build" not in note["remedy"] and "code" not in res.stats["collapsed_notes"]
