"""Mistakes found before the rows are read (issue 46 item 10).

A misspelt column, a quasi-identifier without the hierarchy a named algorithm
needs, or a k above the row count is told by the header, the arguments or the
row count: the command refuses before reading the rows (or, for k, before any
cell is checked or encoded). The tests spy on the readers and the later steps
and assert on what ran, not on time.
"""

import numpy as np
import pandas as pd
import pytest

import kanon_graph.cli._common as common
import kanon_graph.cli.anonymize as anonymize_cli
import kanon_graph.io.read as read
from kanon_graph.cli import main

ROWS = 200_000


@pytest.fixture(scope="module")
def big_csv(tmp_path_factory):
    folder = tmp_path_factory.mktemp("big")
    rng = np.random.default_rng(0)
    table = pd.DataFrame({"zip": np.char.zfill(rng.integers(0, 999, ROWS).astype(str), 5),
                          "age": rng.integers(18, 90, ROWS), "sex": rng.choice(["F", "M"], ROWS),
                          "diagnosis": rng.choice(["a", "b", "c"], ROWS)})
    path = folder / "big.csv"
    table.to_csv(path, index=False, lineterminator="\r\n")      # CRLF: the row reader's path
    table.head(50_000).to_parquet(folder / "big.parquet", index=False)
    return path


@pytest.fixture
def spies(monkeypatch):
    """Calls of the whole-file readers and of the steps after reading, and rows read."""
    seen = {"read_input_table": 0, "read_parquet": 0, "check_cells": 0, "anonymize": 0,
            "records": 0, "load_hierarchies": 0}

    def counting(name, fn):
        def spy(*args, **kwargs):
            seen[name] += 1
            return fn(*args, **kwargs)
        return spy

    original = read.csv_records

    def records(*args, **kwargs):
        for header, rows, lines in original(*args, **kwargs):
            seen["records"] += len(rows)
            yield header, rows, lines

    monkeypatch.setattr(common, "read_input_table", counting("read_input_table",
                                                             common.read_input_table))
    monkeypatch.setattr(read, "read_parquet", counting("read_parquet", read.read_parquet))
    monkeypatch.setattr(common, "check_cells", counting("check_cells", common.check_cells))
    monkeypatch.setattr(anonymize_cli, "anonymize", counting("anonymize",
                                                             anonymize_cli.anonymize))
    monkeypatch.setattr(read, "csv_records", records)
    monkeypatch.setattr(common, "load_hierarchies", counting("load_hierarchies",
                                                             common.load_hierarchies))
    return seen


def _anonymize(path, tmp_path, *flags):
    return main(["anonymize", str(path), "-o", str(tmp_path / "out.csv"), "-q", *flags])


def test_a_misspelt_column_is_refused_from_the_header(big_csv, tmp_path, spies, capsys):
    folder = tmp_path / "h"
    folder.mkdir()
    (folder / "age.csv").write_text("".join(f"{a};*\n" for a in range(18, 90)))
    code = _anonymize(big_csv, tmp_path, "--qi", "zpi,age", "--sensitive", "diagnosis",
                      "--hierarchies", str(folder), "-k", "5")
    err = capsys.readouterr().err
    assert spies["read_input_table"] == 0
    assert spies["load_hierarchies"] == 0          # --qi: not even the hierarchy files
    assert spies["records"] <= 1                   # the header and at most one row
    assert code == 1
    assert "--qi names column 'zpi'" in err and "did you mean 'zip'?" in err
    assert "['zip', 'age', 'sex', 'diagnosis']" in err and err.count("\n") == 1
    assert not (tmp_path / "out.csv").exists()


def test_a_misspelt_sensitive_column_of_a_parquet_file_reads_no_row(big_csv, tmp_path,
                                                                    spies, capsys):
    code = _anonymize(big_csv.with_suffix(".parquet"), tmp_path, "--qi", "zip,age",
                      "--sensitive", "diagnoses", "-k", "5")
    err = capsys.readouterr().err
    assert spies["read_parquet"] == 0 and spies["read_input_table"] == 0
    assert code == 1 and "--sensitive names column 'diagnoses'" in err
    assert "did you mean 'diagnosis'?" in err


def test_a_qi_without_the_hierarchy_a_named_algorithm_needs(big_csv, tmp_path, spies, capsys):
    folder = tmp_path / "h"
    folder.mkdir()
    (folder / "sex.csv").write_text("F;*\nM;*\n")
    code = _anonymize(big_csv, tmp_path, "--qi", "sex,age", "--hierarchies", str(folder),
                      "--categorical", "age", "--algorithm", "optimal", "-k", "5")
    err = capsys.readouterr().err
    assert spies["read_input_table"] == 0 and spies["records"] <= 1
    assert code == 1
    assert "--algorithm optimal needs a hierarchy" in err and "['age']" in err


def test_k_above_the_row_count_is_refused_before_any_cell_is_checked(big_csv, tmp_path,
                                                                     spies, capsys):
    code = _anonymize(big_csv, tmp_path, "--qi", "zip,age,sex", "-k", str(ROWS + 1))
    err = capsys.readouterr().err
    assert spies["check_cells"] == 0 and spies["anonymize"] == 0
    assert code == 1
    assert "'k' parameter of anonymize (-k)" in err and f"Got {ROWS + 1}." in err
    assert f"[1, {ROWS}] (the number of records in " in err and err.count("\n") == 1


def test_k_equal_to_the_row_count_is_no_mistake(tmp_path, capsys):
    path = tmp_path / "t.csv"
    path.write_text("zip,sex\n02139,F\n02139,M\n02140,F\n")
    assert _anonymize(path, tmp_path, "--qi", "zip,sex", "--categorical", "zip", "-k", "3") == 0
