"""``kanon-graph anonymize --engine dask``: a glob or folder of files in, a release per partition out."""

import json

import pandas as pd
import pytest

import kanon_graph as kg
from kanon_graph.cli import main

pytest.importorskip("dask.dataframe", reason="the optional Dask extra is not installed "
                                             "(pip install \"kanon_graph[dask]\")")
pytest.importorskip("pyarrow", reason="Parquet files need pyarrow (kanon_graph[dask])")

QIS = "sex,age,race,marital-status,education,native-country,workclass,occupation"


@pytest.fixture
def census_files(tmp_path):
    """A seeded census in 3 Parquet and 3 CSV files, and its hierarchies as ARX CSVs."""
    table = kg.datasets.make_census(900, seed=5)
    for kind in ("parquet", "csv"):
        (tmp_path / kind).mkdir()
    for i in range(3):
        part = table.iloc[i * 300:(i + 1) * 300]
        part.to_parquet(tmp_path / "parquet" / f"part-{i}.parquet", index=False)
        part.to_csv(tmp_path / "csv" / f"part-{i}.csv", index=False)
    folder = tmp_path / "hierarchies"
    folder.mkdir()
    for column, h in kg.datasets.census_schema().hierarchies.items():
        kg.write_hierarchy(h, folder / f"{column}.csv")
    return tmp_path, table


def _released(path):
    return pd.read_parquet(path).astype(str).reset_index(drop=True)


@pytest.mark.parametrize("source", ["parquet/*.parquet", "csv"])
def test_glob_or_folder_through_dask_equals_pandas(census_files, dask_client, capsys, source):
    tmp, table = census_files
    out, report = tmp / f"out-{source.split('/')[0]}", tmp / "report.json"
    code = main(["anonymize", "--keep-order", str(tmp / source), "--qi", QIS, "--sensitive", "salary-class",
                 "--hierarchies", str(tmp / "hierarchies"), "-k", "5", "--algorithm",
                 "optimal", "--engine", "dask", "-o", str(out), "--report", str(report)])
    printed = capsys.readouterr().out
    assert code == 0 and "(from 3 input partitions)" in printed
    assert len(list(out.glob("*.parquet"))) == 3
    plain = kg.anonymize(table, kg.datasets.census_schema(), k=5, algorithm="optimal")
    released = _released(out)
    expected = plain.table.astype(str).reset_index(drop=True)
    pd.testing.assert_frame_equal(released[expected.columns], expected)
    data = json.loads(report.read_text())
    assert data["levels"] == plain.levels and data["parameters"]["engine"] == "dask"
    assert data["classes"]["count"] == len(plain.classes)


def test_folder_without_engine_dask_is_a_usage_error(census_files, capsys):
    tmp, _ = census_files
    code = main(["anonymize", "--keep-order", str(tmp / "parquet"), "--qi", "sex,age", "-k", "2",
                 "-o", str(tmp / "x.csv")])
    err = capsys.readouterr().err
    assert code == 2 and "add --engine dask" in err and "Traceback" not in err


def test_no_matching_file_names_the_pattern(census_files, dask_client, capsys):
    tmp, _ = census_files
    code = main(["anonymize", "--keep-order", str(tmp / "nothing-*.parquet"), "--qi", "sex,age", "-k", "2",
                 "--engine", "dask", "-o", str(tmp / "out")])
    err = capsys.readouterr().err
    assert code == 1 and "nothing-*.parquet" in err and len(err.strip().splitlines()) == 1


def test_evaluate_engine_dask_equals_pandas(census_files, dask_client, capsys):
    tmp, table = census_files
    out, report = tmp / "release", tmp / "evaluation.json"
    common = ["--qi", QIS, "--sensitive", "salary-class", "--hierarchies",
              str(tmp / "hierarchies"), "-k", "5"]
    assert main(["anonymize", "--keep-order", str(tmp / "parquet"), *common, "--algorithm", "optimal",
                 "--engine", "dask", "-o", str(out), "-q"]) == 0
    code = main(["evaluate", str(tmp / "parquet" / "*.parquet"), str(out), *common,
                 "--engine", "dask", "--report", str(report), "--check"])
    printed = capsys.readouterr().out
    assert code == 0 and "900 records: 900 released" in printed
    data = json.loads(report.read_text())
    plain = kg.anonymize(table, kg.datasets.census_schema(), k=5, algorithm="optimal")
    want = kg.evaluate(table, plain.table, kg.datasets.census_schema(), k=5).as_dict()
    assert data["levels"] == want["levels"] == plain.levels
    assert data["classes"] == want["classes"] and data["parameters"]["engine"] == "dask"
    assert data["metrics"]["loss"] == pytest.approx(want["metrics"]["loss"])


def test_evaluate_folder_without_engine_dask_is_a_usage_error(census_files, capsys):
    tmp, _ = census_files
    code = main(["evaluate", str(tmp / "parquet"), str(tmp / "parquet"), "--qi", "sex,age"])
    err = capsys.readouterr().err
    assert code == 2 and "add --engine dask" in err and "Traceback" not in err
