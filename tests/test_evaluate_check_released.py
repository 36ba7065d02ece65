"""Issue 31, item 15: ``evaluate --check`` judges k, l and t from the released file's cells.

A release whose sensitive values were altered after anonymization (a class now holds
{flu, flu}) must fail l=2, whatever the original held.
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

import kanon_graph as kg
from kanon_graph.cli import main
from kanon_graph.exceptions import DataError

QIS = ["sex", "age"]


@pytest.fixture(scope="module")
def made():
    """A census table, its schema and an l=2 release (rows in the input's order)."""
    table = kg.datasets.make_census(400, seed=11)
    table["diagnosis"] = np.random.default_rng(1).choice(["flu", "cold", "asthma"], len(table))
    schema = kg.Schema(quasi_identifiers=QIS, sensitive=["diagnosis"])
    res = kg.anonymize(table, schema, k=5, l=2, algorithm="mondrian")
    assert res.verification.holds and res.suppressed == 0
    return table, schema, res.table.reset_index(drop=True).astype(str)


def _flattened(released, value="flu"):
    """``released`` with every sensitive value of its first class set to ``value``."""
    out = released.copy()
    first = (out[QIS] == out.loc[0, QIS]).all(axis=1)
    assert first.sum() >= 5
    out.loc[first, "diagnosis"] = value
    return out


def test_l_is_measured_on_the_released_sensitive_values(made):
    table, schema, released = made
    honest = kg.evaluate(table, released, schema, k=5, l=2)
    assert honest.verification.holds and honest.verification.l_achieved >= 2
    altered = kg.evaluate(table, _flattened(released), schema, k=5, l=2)
    assert altered.verification.l_achieved == 1 and not altered.verification.holds
    assert "l=2 (achieved 1)" in altered.verification.describe()


def test_t_is_measured_on_the_released_sensitive_values(made):
    table, schema, released = made
    honest = kg.evaluate(table, released, schema, k=5, t=1.0)
    altered = kg.evaluate(table, _flattened(released, "asthma"), schema, k=5, t=1.0)
    # the release's own distribution and classes: the flattened class is farther from it
    assert altered.verification.t_achieved > honest.verification.t_achieved
    expected = kg.evaluate(_flattened(released, "asthma").assign(
        sex=table["sex"], age=table["age"]), _flattened(released, "asthma"), schema, k=5,
        t=1.0)
    assert altered.verification.t_achieved == pytest.approx(expected.verification.t_achieved)


def test_a_release_without_the_sensitive_column_cannot_be_judged(made):
    table, schema, released = made
    with pytest.raises(DataError, match="sensitive column 'diagnosis' is not in the released"):
        kg.evaluate(table, released.drop(columns="diagnosis"), schema, k=5, l=2)
    # k alone needs no sensitive column
    assert kg.evaluate(table, released.drop(columns="diagnosis"), schema, k=5).verification.holds


def test_a_missing_released_sensitive_cell_is_named(made):
    table, schema, released = made
    gap = released.copy()
    gap.loc[7, "diagnosis"] = np.nan
    with pytest.raises(DataError, match=r"released sensitive column 'diagnosis' has 1 "
                                        r"missing cell\(s\) \(first in row 7\)"):
        kg.evaluate(table, gap, schema, k=5, l=2)


def test_a_release_that_kept_missing_sensitive_cells_reads_them_as_a_value():
    table = kg.datasets.make_census(300, seed=4)
    table["diagnosis"] = np.random.default_rng(2).choice(["flu", "cold"], len(table))
    table.loc[[3, 9, 27], "diagnosis"] = None
    schema = kg.Schema(quasi_identifiers=QIS, sensitive=["diagnosis"])
    res = kg.anonymize(table, schema, k=5, l=2, algorithm="mondrian", missing="keep")
    ev = kg.evaluate(table, res.table, schema, k=5, l=2, missing="keep")
    assert ev.verification.l_achieved == res.verification.l_achieved
    assert ev.verification.holds


def _cli_run(tmp_path, table):
    path, out, run = tmp_path / "in.csv", tmp_path / "out.csv", tmp_path / "run.json"
    table.to_csv(path, index=False)
    assert main(["anonymize", str(path), "--qi", ",".join(QIS), "--sensitive", "diagnosis",
                 "-k", "5", "--l", "2", "--algorithm", "mondrian", "-o", str(out), "--report",
                 str(run), "-q"]) == 0
    return path, out, run


def test_check_fails_on_an_altered_released_file(made, tmp_path, capsys):
    table, _, _ = made
    path, out, run = _cli_run(tmp_path, table)
    check = ["evaluate", str(path), None, "--qi", ",".join(QIS), "--sensitive", "diagnosis",
             "-k", "5", "--l", "2", "--unshuffle", str(run), "--check"]
    check[2] = str(out)
    assert main(check) == 0
    assert "l=2 (achieved 2)" in capsys.readouterr().out
    # the published file altered: its first class's diagnoses all 'flu'
    written = pd.read_csv(out, dtype=str, keep_default_na=False)
    first = (written[QIS] == written.loc[0, QIS]).all(axis=1)
    written.loc[first, "diagnosis"] = "flu"
    written.to_csv(tmp_path / "altered.csv", index=False)
    check[2] = str(tmp_path / "altered.csv")
    assert main(check) == 3
    assert "l=2 (achieved 1)" in capsys.readouterr().out
    # the report command checks the same released cells
    assert main(["report", str(path), str(tmp_path / "altered.csv"), "--qi", ",".join(QIS),
                 "--sensitive", "diagnosis", "-k", "5", "--l", "2", "--unshuffle", str(run),
                 "-o", str(tmp_path / "r.json"), "-q"]) == 0
    privacy = json.loads((tmp_path / "r.json").read_text())["privacy"]
    assert privacy["l_achieved"] == 1 and not privacy["holds"]


@pytest.mark.dask
def test_dask_evaluate_judges_the_released_sensitive_values(made, dask_client):
    dd = pytest.importorskip("dask.dataframe")
    table, schema, released = made
    altered = _flattened(released)
    ev = kg.evaluate(dd.from_pandas(table, npartitions=2), dd.from_pandas(altered,
                     npartitions=2), schema, k=5, l=2)
    assert ev.verification.l_achieved == 1 and not ev.verification.holds
    honest = kg.evaluate(dd.from_pandas(table, npartitions=2), dd.from_pandas(released,
                         npartitions=2), schema, k=5, l=2)
    assert honest.verification.holds
