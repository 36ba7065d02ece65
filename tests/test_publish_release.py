"""Issue 21, findings 6-9: what a written release carries (order, index, formulas, odd cells)."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import kanon_graph as kg
from kanon_graph.cli import main
from kanon_graph.io import read_input_table, read_text_table


def order_of(n, seed):
    """The written order (kanon_graph.io.release.order_of; imported late: runs on old code)."""
    from kanon_graph.io.release import order_of as written_order

    return written_order(n, seed)


@pytest.fixture
def people(tmp_path):
    table = kg.datasets.make_census(300, seed=2)
    table.insert(0, "record", [f"r{i:04d}" for i in range(len(table))])  # the file's order
    path = tmp_path / "people.csv"
    table.to_csv(path, index=False)
    return path


def _anonymize(source, out, *extra):
    return main(["anonymize", str(source), "--qi", "sex,age", "-k", "5", "--algorithm",
                 "mondrian", "-o", str(out), *map(str, extra)])


# finding 6: order and index ----------------------------------------------------------------

def test_a_written_release_is_shuffled_with_its_order_seed(people, tmp_path, capsys):
    original = read_text_table(people).frame["record"].tolist()
    orders = {}
    for seed in (0, 1):
        out = tmp_path / f"out-{seed}.csv"
        assert _anonymize(people, out, "--order-seed", seed) == 0
        written = read_text_table(out).frame["record"].tolist()
        assert sorted(written) == original and written != original
        assert written == [original[i] for i in order_of(len(original), seed)]
        orders[seed] = written
    assert orders[0] != orders[1]
    assert "rows shuffled (order seed in the report, not in the release), no index" in \
        capsys.readouterr().out


def test_the_default_order_cannot_be_guessed_from_the_algorithms_seed(people, tmp_path):
    """Same input, same --seed (the default 0): same classes, but a fresh order each run,
    recorded only in the report; the algorithm's seed does not undo it."""
    original = read_text_table(people).frame["record"].tolist()
    written, seeds = [], []
    for run in (1, 2):
        out, report = tmp_path / f"out-{run}.csv", tmp_path / f"r-{run}.json"
        assert _anonymize(people, out, "--report", report) == 0
        written.append(read_text_table(out).frame["record"].tolist())
        seeds.append(json.loads(report.read_text())["publication"]["order_seed"])
        assert written[-1] == [original[i] for i in order_of(len(original), seeds[-1])]
        assert written[-1] != [original[i] for i in order_of(len(original), 0)]
    assert seeds[0] != seeds[1] and written[0] != written[1]
    assert sorted(written[0]) == sorted(written[1]) == sorted(original)


def test_keep_order_writes_the_input_order(people, tmp_path):
    out = tmp_path / "out.csv"
    assert _anonymize(people, out, "--keep-order") == 0
    assert read_text_table(out).frame["record"].tolist() == \
        read_text_table(people).frame["record"].tolist()


def test_evaluate_unshuffle_reads_a_shuffled_release_back(people, tmp_path, capsys):
    out, report = tmp_path / "out.csv", tmp_path / "r.json"
    assert _anonymize(people, out, "--report", report) == 0
    capsys.readouterr()
    args = ["evaluate", str(people), str(out), "--qi", "sex,age", "-k", "5", "-q"]
    assert main(args) == 1
    assert "--unshuffle" in capsys.readouterr().err
    made = json.loads(report.read_text())
    assert made["publication"]["shuffled"] is True
    seed = made["publication"]["order_seed"]
    for given in (str(report), str(seed)):          # the run's report, or the seed it holds
        evaluation = tmp_path / "e.json"
        assert main(args + ["--unshuffle", given, "--report", str(evaluation)]) == 0
        measured = json.loads(evaluation.read_text())
        assert measured["metrics"]["loss"] == pytest.approx(made["metrics"]["loss"])
    capsys.readouterr()
    assert main(args + ["--unshuffle", str(people)]) == 2       # not a report: one line
    assert "argument --unshuffle: " in capsys.readouterr().err
    evaluation.write_text('{"publication": {"shuffled": false}}')
    assert main(args + ["--unshuffle", str(evaluation)]) == 2
    assert "has no publication.order_seed" in capsys.readouterr().err


def test_an_identifier_in_the_index_never_reaches_a_written_file(tmp_path):
    table = kg.datasets.make_census(200, seed=4)
    table.index = pd.Index([f"patient-{i:05d}" for i in range(len(table))], name="patient")
    res = kg.anonymize(table, kg.Schema(quasi_identifiers=["sex", "age"]), k=5,
                       algorithm="mondrian")
    assert res.table.index.equals(table.index)          # aligned with the input
    seeds = {}
    for name in ("r.csv", "r.parquet"):
        path = tmp_path / name
        written = res.write(path)
        seeds[name] = written.seed
        raw = path.read_bytes()
        assert b"patient-" not in raw and b"patient" not in raw
        back = pd.read_parquet(path) if name.endswith("parquet") else pd.read_csv(path)
        assert list(back.columns) == list(res.table.columns) and len(back) == len(table)
        assert written.shuffled
    # the same rows, in the order drawn from a fresh order seed per write (returned)
    assert seeds["r.csv"] != seeds["r.parquet"]
    back = pd.read_csv(tmp_path / "r.csv", dtype=str)
    expected = res.table.astype(str).iloc[order_of(len(table), seeds["r.csv"])]
    assert back["age"].tolist() == expected["age"].tolist()


# finding 7: formula cells ------------------------------------------------------------------

def _with_formulas(tmp_path):
    table = kg.datasets.make_census(100, seed=5).astype(object)
    table["note"] = "plain"
    table.loc[[3, 9], "note"] = ['=HYPERLINK("http://x.example","click")', "@SUM(A1:A9)"]
    table.loc[[4], "occupation"] = ["+1+cmd|' /C calc'!A0"]
    table.loc[[5], "note"] = ["-3"]                     # a number, not a formula
    path = tmp_path / "f.csv"
    table.to_csv(path, index=False)
    return path


def test_formula_cells_are_counted_per_column(tmp_path, capsys):
    path, out, report = _with_formulas(tmp_path), tmp_path / "o.csv", tmp_path / "r.json"
    assert _anonymize(path, out, "--report", report, "--keep-order") == 0
    printed = capsys.readouterr().out
    assert "3 cell(s) a spreadsheet would run as formulas" in printed
    assert "note (2)" in printed and "occupation (1)" in printed
    data = json.loads(report.read_text())["publication"]
    assert data["formula_cells"] == {"occupation": 1, "note": 2}
    assert data["formulas_escaped"] is False
    cells = read_text_table(out).frame
    assert cells.loc[3, "note"].startswith("=HYPERLINK")        # unchanged by default


def test_escape_formulas_prefixes_them_and_nothing_else(tmp_path):
    path, out = _with_formulas(tmp_path), tmp_path / "o.csv"
    assert _anonymize(path, out, "--escape-formulas", "--keep-order", "-q") == 0
    before, after = read_text_table(path).frame, read_text_table(out).frame
    assert after.loc[3, "note"] == "'" + before.loc[3, "note"]
    assert after.loc[9, "note"] == "'@SUM(A1:A9)"
    assert after.loc[4, "occupation"] == "'" + before.loc[4, "occupation"]
    assert after.loc[5, "note"] == "-3"
    untouched = [i for i in range(len(before)) if i not in (3, 4, 9)]
    assert after.loc[untouched, "note"].tolist() == before.loc[untouched, "note"].tolist()


# finding 8: every cell reads back ----------------------------------------------------------

_CELLS = st.text(alphabet=st.sampled_from(list("ab;,\"'\r\n\t 0é漢=\\")), max_size=6)


@settings(max_examples=25, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(cells=st.lists(_CELLS, min_size=10, max_size=10), sep=st.sampled_from([",", ";"]),
       zeros=st.booleans())
def test_every_written_cell_reads_back_identically(tmp_path_factory, cells, sep, zeros):
    folder = tmp_path_factory.mktemp("roundtrip")
    table = pd.DataFrame({"sex": ["F", "M"] * 5, "age": [str(20 + i) for i in range(10)],
                          "text": cells,
                          "code": [("00" if zeros else "") + str(i) for i in range(10)]})
    path, out = folder / "in.csv", folder / "out.csv"
    table.to_csv(path, index=False, sep=sep, lineterminator="\r\n")
    code = main(["anonymize", str(path), "--qi", "sex,age", "-k", "2", "--algorithm",
                 "mondrian", "--sep", sep, "-o", str(out), "-q", "--order-seed", "3"])
    assert code == 0
    back = read_text_table(out, sep=sep).frame
    order = order_of(len(table), 3)
    assert back["text"].tolist() == [cells[i] for i in order]
    assert back["code"].tolist() == table["code"].iloc[order].tolist()
    assert main(["evaluate", str(path), str(out), "--qi", "sex,age", "-k", "2", "--sep", sep,
                 "--unshuffle", "3", "-q"]) == 0


def test_a_bare_carriage_return_is_quoted(tmp_path):
    table = pd.DataFrame({"sex": ["F", "M"] * 3, "age": ["30"] * 6,
                          "note": ["a\rb", "c", "d", "e", "f", "g"]})
    path, out = tmp_path / "in.csv", tmp_path / "out.csv"
    table.to_csv(path, index=False, lineterminator="\r\n")     # so the input quotes it
    assert _anonymize(path, out, "--keep-order", "-q") == 0
    assert b'"a\rb"' in out.read_bytes()
    assert read_text_table(out).frame["note"].tolist() == table["note"].tolist()


# finding 9: inf in a numeric quasi-identifier ----------------------------------------------

def _with_inf(tmp_path):
    table = pd.DataFrame({"age": [61.0, 62.0, np.inf, 30.0, 31.0, 35.0, 64.0],
                          "sex": list("FFFMMMF")})
    path = tmp_path / "inf.parquet"
    table.to_parquet(path, index=False)
    return path


def test_inf_in_a_numeric_qi_is_an_error_naming_column_and_row(tmp_path, capsys):
    out = tmp_path / "o.csv"
    assert main(["anonymize", str(_with_inf(tmp_path)), "--qi", "age,sex", "-k", "2",
                 "--algorithm", "mondrian", "-o", str(out), "-q"]) == 1
    err = capsys.readouterr().err
    assert "'age'" in err and "row 3" in err and "infinite" in err and not out.exists()


def test_inf_with_missing_drop_is_dropped_as_missing(tmp_path, capsys):
    out, report = tmp_path / "o.csv", tmp_path / "r.json"
    assert main(["anonymize", str(_with_inf(tmp_path)), "--qi", "age,sex", "-k", "2",
                 "--algorithm", "mondrian", "--missing", "drop", "-o", str(out),
                 "--report", str(report), "-q"]) == 0
    data = json.loads(report.read_text())
    assert data["dropped"] == 1 and "inf" not in out.read_text()
    assert all(v is not None for v in data["metrics"].values())


def test_the_library_refuses_inf_too():
    table = pd.DataFrame({"age": [61.0, np.inf, 30.0, 31.0], "sex": list("FFMM")})
    with pytest.raises(kg.DataError, match=r"'age'.*inf.*row 1"):
        kg.anonymize(table, kg.Schema(quasi_identifiers=["age", "sex"]), k=2,
                     algorithm="mondrian")


# issue 23: one text for a float quasi-identifier, CSV or Parquet --------------------------

def test_parquet_and_csv_inputs_release_the_same_labels(tmp_path):
    table = pd.DataFrame({"x": [64.3, 74.0, 70.5, 66.0, 80.25, 90.0], "s": list("abcdef")})
    table.to_csv(tmp_path / "t.csv", index=False)
    table.to_parquet(tmp_path / "t.parquet", index=False)
    written = {}
    for source in ("t.csv", "t.parquet"):
        for out in ("o.csv", "o.parquet"):
            assert main(["anonymize", str(tmp_path / source), "--qi", "x", "-k", "3",
                         "--algorithm", "mondrian", "-o", str(tmp_path / out), "-q",
                         "--order-seed", "1"]) == 0
            frame = read_input_table(tmp_path / out).frame
            written[source, out] = frame["x"].astype(str).tolist()
    assert len({tuple(v) for v in written.values()}) == 1
    assert "[74.0-90.0]" in written["t.parquet", "o.parquet"]


def test_a_privacy_report_never_holds_the_order_seed(people, tmp_path):
    """The privacy report is handed on: it names --unshuffle / --order-seed, never their values."""
    out, run = tmp_path / "out.csv", tmp_path / "run.json"
    assert _anonymize(people, out, "--report", run) == 0
    seed = json.loads(run.read_text())["publication"]["order_seed"]
    made_by = f"kanon-graph anonymize people.csv --order-seed={seed} -o out.csv"
    for given in (str(seed), str(run)):
        for fmt in ("html", "json"):
            report = tmp_path / f"report.{fmt}"
            assert main(["report", str(people), str(out), "--qi", "sex,age", "-k", "5",
                         "--unshuffle", given, "--made-by", made_by, "-o", str(report),
                         "-q"]) == 0
            text = report.read_text()
            assert str(seed) not in text and "(withheld)" in text
        assert main(["report", str(people), str(out), "--qi", "sex,age", "-k", "5",
                     "--unshuffle", given, "-o", str(report), "-q"]) == 0
        assert str(seed) not in report.read_text()


def test_a_formula_label_released_as_it_was_is_counted_and_escaped(tmp_path):
    """Released quasi-identifiers are categoricals: their labels are checked too."""
    table = pd.DataFrame({"code": ["=HYPERLINK(1)"] * 5 + ["plain"] * 5,
                          "age": [str(30 + i % 2) for i in range(10)]})
    res = kg.anonymize(table, kg.Schema(quasi_identifiers=["code"]), k=5,
                       algorithm="mondrian")
    assert isinstance(res.table["code"].dtype, pd.CategoricalDtype)
    assert (res.table["code"].astype(str) == "=HYPERLINK(1)").sum() == 5   # left as it was
    written = res.write(tmp_path / "plain.csv")
    assert written.formulas == {"code": 5} and not written.escaped
    escaped = res.write(tmp_path / "escaped.csv", escape_formulas=True)
    cells = pd.read_csv(tmp_path / "escaped.csv", dtype=str)["code"]
    assert escaped.escaped and (cells == "'=HYPERLINK(1)").sum() == 5
    assert (cells == "plain").sum() == 5
