"""Issue 31, item 11: ``kanon-graph report`` says what ``res.report()`` says, with one population."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

import kanon_graph as kg
from kanon_graph import report
from kanon_graph.cli import main


@pytest.fixture
def run(tmp_path):
    """``(people.csv, released.csv, run.json)`` of one ``anonymize --algorithm auto`` run."""
    people = tmp_path / "people.csv"
    kg.datasets.make_census(300, seed=2).to_csv(people, index=False)
    out, run_report = tmp_path / "out.csv", tmp_path / "run.json"
    assert main(["anonymize", str(people), "--qi", "sex,age", "-k", "5", "-o", str(out),
                 "--report", str(run_report), "-q"]) == 0
    return people, out, run_report


def _report(people, out, path, *extra):
    return main(["report", str(people), str(out), "--qi", "sex,age", "-k", "5", "-o",
                 str(path), "-q", *map(str, extra)])


def test_the_report_names_the_algorithm_the_run_report_names(run, tmp_path):
    people, out, run_report = run
    ran = json.loads(run_report.read_text())["algorithm"]
    assert ran != "auto"                        # auto chose one: that one is recorded
    assert _report(people, out, tmp_path / "r.json", "--unshuffle", run_report) == 0
    assert json.loads((tmp_path / "r.json").read_text())["summary"]["algorithm"] == ran
    assert _report(people, out, tmp_path / "r.html", "--unshuffle", run_report) == 0
    assert f"<td>{ran}</td>" in (tmp_path / "r.html").read_text()
    # what was asked ('auto') is no contradiction; another name is
    assert _report(people, out, tmp_path / "a.json", "--unshuffle", run_report,
                   "--algorithm", "auto") == 0
    assert json.loads((tmp_path / "a.json").read_text())["summary"]["algorithm"] == ran


def test_an_algorithm_the_run_did_not_use_is_an_error(run, tmp_path, capsys):
    people, out, run_report = run
    ran = json.loads(run_report.read_text())["algorithm"]
    other = "datafly" if ran != "datafly" else "mondrian"
    assert _report(people, out, tmp_path / "r.json", "--unshuffle", run_report,
                   "--algorithm", other) == 1
    err = capsys.readouterr().err
    assert f"--algorithm '{other}'" in err and f"says '{ran}' ran" in err
    assert not (tmp_path / "r.json").exists()


def test_without_a_run_report_the_algorithm_is_not_recorded(run, tmp_path):
    people, out, run_report = run
    seed = json.loads(run_report.read_text())["publication"]["order_seed"]
    assert _report(people, out, tmp_path / "r.html", "--unshuffle", seed) == 0
    assert "<td>not recorded</td>" in (tmp_path / "r.html").read_text()
    assert _report(people, out, tmp_path / "r.json", "--unshuffle", seed,
                   "--algorithm", "mondrian") == 0
    assert json.loads((tmp_path / "r.json").read_text())["summary"]["algorithm"] == "mondrian"


def test_a_shuffled_release_without_unshuffle_gets_evaluates_hint(run, tmp_path, capsys):
    people, out, _ = run
    assert _report(people, out, tmp_path / "r.json") == 1
    err = capsys.readouterr().err
    assert "does not cover the original value" in err
    assert "pass --unshuffle with the run's report or its order seed" in err
    assert not (tmp_path / "r.json").exists()
    # evaluate says the same
    assert main(["evaluate", str(people), str(out), "--qi", "sex,age", "-k", "5", "-q"]) == 1
    assert "pass --unshuffle" in capsys.readouterr().err


def _suppressing_release():
    table = kg.datasets.make_census(400, seed=7)
    schema = kg.Schema(quasi_identifiers=["sex", "age", "race"],
                       hierarchies=kg.datasets.adult_hierarchies())
    res = kg.anonymize(table, schema, k=10, algorithm="optimal", suppression=0.05)
    assert 0 < res.suppressed < len(table)
    return table, schema, res


def test_before_and_after_share_one_population():
    table, schema, res = _suppressing_release()
    pi = 0.05
    # the f / pi reading of the estimated population, asked for by name (the default is
    # individual risk: tests/test_risk_individual.py)
    c = report.build_report(table, res.table.reset_index(drop=True), schema, k=10,
                            suppressed=res.suppressed_mask, sampling_fraction=pi,
                            population_model="expansion")
    n = len(table)
    risk = c["risk"]
    assert risk["population"] == pytest.approx(n / pi)
    before = risk["before"]["population_uniqueness"]["population"]
    after = risk["after"]["population_uniqueness"]["population"]
    assert before == pytest.approx(n / pi) and after == pytest.approx(n / pi)
    # a class is estimated to hold f / pi of the population before and after alike
    released = res.table.reset_index(drop=True)
    kept = ~res.suppressed_mask
    sizes = released.loc[kept, ["sex", "age", "race"]].astype(str).value_counts()
    assert risk["after"]["journalist"]["highest"] == pytest.approx(
        min(1.0, 1 / max(sizes.min(), sizes.min() / pi)))


def test_res_report_counts_dropped_rows_in_the_population(tmp_path):
    table = kg.datasets.make_census(300, seed=3)
    table.loc[[5, 40, 41], "age"] = np.nan
    schema = kg.Schema(quasi_identifiers=["sex", "age"])
    res = kg.anonymize(table, schema, k=5, algorithm="mondrian", missing="drop")
    assert res.dropped == 3
    path = res.report(tmp_path / "r.json", sampling_fraction=0.1)
    risk = json.loads(path.read_text())["risk"]
    for side in ("before", "after"):
        assert risk[side]["population_uniqueness"]["population"] == pytest.approx(300 / 0.1)
    # the command line, on the files, says the same
    table.to_csv(tmp_path / "in.csv", index=False)
    pd.DataFrame(res.table).to_csv(tmp_path / "out.csv", index=False)
    assert main(["report", str(tmp_path / "in.csv"), str(tmp_path / "out.csv"), "--qi",
                 "sex,age", "-k", "5", "--missing", "drop", "--sampling-fraction", "0.1",
                 "-o", str(tmp_path / "cli.json"), "-q"]) == 0
    cli = json.loads((tmp_path / "cli.json").read_text())["risk"]
    assert cli["after"]["population_uniqueness"] == risk["after"]["population_uniqueness"]
    assert cli["before"]["population_uniqueness"] == risk["before"]["population_uniqueness"]
