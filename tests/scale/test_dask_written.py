"""Issue 31 on ``--engine dask``: what a written Dask release hides, and what it never loses.

Item 2: no output file is the rows of one input file; rows are spread over
the files at random, file count and sizes independent of the input's.
Item 4: a folder holding a user's file is refused, the file kept. Item 12:
an input changed between the run's check and the write is refused, never
written with rows lost. Item 16: ``evaluate --engine dask --unshuffle
REPORT --check`` passes an honest shuffled release and fails a tampered one.
"""

from __future__ import annotations

import json
import os

import pandas as pd
import pytest

import kanon_graph as kg
from kanon_graph.cli import main

pytest.importorskip("dask.dataframe", reason="the optional Dask extra is not installed "
                                             "(pip install \"kanon_graph[dask]\")")
pytest.importorskip("pyarrow", reason="Parquet files need pyarrow (kanon_graph[dask])")

SIZES = (50, 70, 90)
QIS = "sex,age,race"
MANIFEST = "_kanon_graph_release.json"


@pytest.fixture
def parts(tmp_path):
    """A census in three Parquet files of 50 / 70 / 90 rows (a ``rec`` column names each
    row), and its hierarchies."""
    table = kg.datasets.make_census(sum(SIZES), seed=5)
    table["rec"] = [f"r{i}" for i in range(len(table))]
    (tmp_path / "in").mkdir()
    start = 0
    for i, n in enumerate(SIZES):
        table.iloc[start:start + n].to_parquet(tmp_path / "in" / f"p{i}.parquet", index=False)
        start += n
    (tmp_path / "h").mkdir()
    for column, h in kg.datasets.census_schema().hierarchies.items():
        kg.write_hierarchy(h, tmp_path / "h" / f"{column}.csv")
    return tmp_path, table


@pytest.fixture
def few_rows_per_file(monkeypatch):
    """60 rows per output file (the default is far larger than these tables)."""
    _rows_per_file(monkeypatch, 60)


def _rows_per_file(monkeypatch, rows):
    from kanon_graph.scale import written

    monkeypatch.setattr(written, "ROWS_PER_FILE", rows)


def _anonymize(tmp, out, *extra, source="in"):
    return main(["anonymize", str(tmp / source), "--qi", QIS, "--hierarchies", str(tmp / "h"),
                 "-k", "5", "--algorithm", "optimal", "--engine", "dask", "-o", str(out),
                 "-q", *map(str, extra)])


def _files(folder):
    return sorted(p for p in folder.iterdir() if p.suffix == ".parquet")


# item 2 -----------------------------------------------------------------------------------

def test_no_output_file_holds_the_rows_of_one_input_file(parts, dask_client, few_rows_per_file):
    tmp, table = parts
    assert _anonymize(tmp, tmp / "out", "--order-seed", 0) == 0
    files = [pd.read_parquet(f) for f in _files(tmp / "out")]
    assert len(files) == 4                           # 210 rows, 60 per file: by rows only
    assert sorted(len(f) for f in files) != sorted(SIZES)
    written = [set(f["rec"]) for f in files]
    assert sorted(r for w in written for r in w) == sorted(table["rec"])   # every row once
    start = 0
    for n in SIZES:
        rows = set(table["rec"].iloc[start:start + n])
        start += n
        assert sum(bool(rows & w) for w in written) >= 3, "an input file kept together"
        assert rows not in written


def test_file_count_follows_the_rows_not_the_input_files(parts, dask_client, few_rows_per_file):
    tmp, table = parts
    (tmp / "one").mkdir()
    table.to_parquet(tmp / "one" / "all.parquet", index=False)
    assert _anonymize(tmp, tmp / "from-three", "--order-seed", 3) == 0
    assert _anonymize(tmp, tmp / "from-one", "--order-seed", 3, source="one") == 0
    assert len(_files(tmp / "from-three")) == len(_files(tmp / "from-one")) == 4
    three = pd.read_parquet(tmp / "from-three").astype(str)
    one = pd.read_parquet(tmp / "from-one").astype(str)
    key = sorted(three.columns)
    assert sorted(map(tuple, three[key].to_numpy())) == sorted(map(tuple, one[key].to_numpy()))


def test_a_dask_release_is_spread_with_the_default_file_size_too(parts, dask_client):
    tmp, table = parts
    assert _anonymize(tmp, tmp / "out", "--report", tmp / "r.json") == 0
    files = _files(tmp / "out")
    assert len(files) == 1 and len(pd.read_parquet(files[0])) == len(table)
    publication = json.loads((tmp / "r.json").read_text())["publication"]
    assert publication["shuffled"] and publication["files"] == 1


def test_keep_order_still_writes_the_input_files_in_order(parts, dask_client):
    tmp, table = parts
    assert _anonymize(tmp, tmp / "kept", "--keep-order") == 0
    files = [pd.read_parquet(f) for f in _files(tmp / "kept")]
    assert [len(f) for f in files] == list(SIZES)
    assert pd.concat(files)["rec"].tolist() == table["rec"].tolist()


# item 4 -----------------------------------------------------------------------------------

@pytest.mark.parametrize("output", ["out", "out/part-*.csv"])
def test_a_users_file_in_the_output_folder_is_refused_and_kept(parts, dask_client, capsys,
                                                               output):
    tmp, _ = parts
    (tmp / "out").mkdir()
    mine = tmp / "out" / "my_raw_2025.csv"
    mine.write_text("id,diagnosis\n1,flu\n")
    assert _anonymize(tmp, tmp / output) == 1
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "my_raw_2025.csv" in err, err
    assert os.listdir(tmp / "out") == ["my_raw_2025.csv"]
    assert mine.read_text() == "id,diagnosis\n1,flu\n"


def test_a_release_folder_with_a_file_added_is_refused(parts, dask_client, capsys):
    tmp, _ = parts
    assert _anonymize(tmp, tmp / "out") == 0
    assert (tmp / "out" / MANIFEST).exists()
    assert _anonymize(tmp, tmp / "out") == 0            # our own release: replaced
    (tmp / "out" / "notes.txt").write_text("mine")
    assert _anonymize(tmp, tmp / "out") == 1
    assert "notes.txt" in capsys.readouterr().err
    assert (tmp / "out" / "notes.txt").read_text() == "mine"


# item 12 ----------------------------------------------------------------------------------

def _changing_input(monkeypatch, change):
    """Run ``change()`` between the run's check and the write of the release."""
    from kanon_graph.cli import anonymize

    real = anonymize.write_dask_table

    def write(*args, **kwargs):
        change()
        return real(*args, **kwargs)

    monkeypatch.setattr(anonymize, "write_dask_table", write)


@pytest.mark.parametrize("missing", [False, True], ids=["per-value", "whole-tuple"])
@pytest.mark.parametrize("how", ["row deleted", "row changed"])
def test_an_input_changed_before_the_write_is_refused(parts, dask_client, monkeypatch, capsys,
                                                      missing, how):
    tmp, table = parts
    path = tmp / "in" / "p1.parquet"
    if missing:         # a missing cell dropped: the release maps whole tuples
        part = pd.read_parquet(path)
        part["race"] = part["race"].astype(object)
        part.loc[3, "race"] = None
        part.to_parquet(path, index=False)

    def change():
        part = pd.read_parquet(path)
        if how == "row deleted":
            part = part.iloc[1:]
        else:
            part["age"] = part["age"].astype(object)
            part.loc[5, "age"] = 777            # a value no row held
        part.to_parquet(path, index=False)

    _changing_input(monkeypatch, change)
    extra = ["--missing", "drop"] if missing else []
    code = _anonymize(tmp, tmp / "out", "--report", tmp / "r.json", *extra)
    lines = [line for line in capsys.readouterr().err.strip().splitlines()
             if not line.startswith("kanon-graph: warning:")]   # the run's own warnings
    err = "\n".join(lines)
    assert code == 1 and len(lines) == 1, err
    assert ("input changed" in err) or ("did the input change" in err) or \
        ("no released label" in err), err
    assert not (tmp / "out").exists() and not (tmp / "r.json").exists()
    assert [n for n in os.listdir(tmp) if ".kg-tmp-" in n] == []


# item 16 ----------------------------------------------------------------------------------

def _evaluate(tmp, released, *extra):
    return main(["evaluate", str(tmp / "in"), str(released), "--qi", QIS, "--hierarchies",
                 str(tmp / "h"), "-k", "5", "--engine", "dask", "--check", "-q",
                 *map(str, extra)])


@pytest.mark.parametrize("per_file", [None, 60], ids=["one-file", "four-files"])
@pytest.mark.parametrize("seed", [0, 7])
def test_evaluate_unshuffles_an_honest_dask_release(parts, dask_client, monkeypatch, per_file,
                                                    seed):
    if per_file:
        _rows_per_file(monkeypatch, per_file)
    tmp, _ = parts
    report = tmp / "r.json"
    assert _anonymize(tmp, tmp / "out", "--order-seed", seed, "--report", report) == 0
    assert _evaluate(tmp, tmp / "out", "--unshuffle", report) == 0
    assert _evaluate(tmp, tmp / "out", "--unshuffle", seed) == 0


@pytest.mark.parametrize("tamper", ["rows swapped", "row removed", "file renamed"])
def test_evaluate_unshuffle_fails_a_tampered_dask_release(parts, dask_client,
                                                          few_rows_per_file, capsys, tamper):
    tmp, _ = parts
    report = tmp / "r.json"
    assert _anonymize(tmp, tmp / "out", "--order-seed", 2, "--report", report) == 0
    files = _files(tmp / "out")
    first = pd.read_parquet(files[0])
    if tamper == "rows swapped":        # each row's released cells on another row
        first = first.iloc[list(range(1, len(first))) + [0]].reset_index(drop=True)
        first.to_parquet(files[0], index=False)
    elif tamper == "row removed":
        first.iloc[1:].to_parquet(files[0], index=False)
    else:                               # the file order changed
        files[0].rename(tmp / "out" / "part-99999.parquet")
    capsys.readouterr()
    assert _evaluate(tmp, tmp / "out", "--unshuffle", report) != 0
