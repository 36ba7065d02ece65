"""Issue 31: what a written release hides (pandas engine and the writer itself).

Item 1: a Parquet release's dictionaries (the categories of a categorical
column) follow no input order and hold no value that no written row holds.
Item 4: a folder is replaced only when it is empty or holds a release this
library wrote (its manifest). Item 12: an ``fsync`` error is raised, never
swallowed.
"""

from __future__ import annotations

import errno
import os

import numpy as np
import pandas as pd
import pytest

import kanon_graph as kg
from kanon_graph.cli import main

TEMP_MARK = ".kg-tmp-"        # kanon_graph.io.write.TEMP_MARK (spelled out: runs on old code)
QIS = ["sex", "age", "race"]

pq = pytest.importorskip("pyarrow.parquet", reason="Parquet files need pyarrow")


def _schema():
    return kg.Schema(quasi_identifiers=QIS, sensitive=["salary-class"],
                     hierarchies=kg.datasets.census_schema().hierarchies)


def _dictionaries(path):
    """``{column: categories}`` of every categorical column of a Parquet file, as read."""
    back = pd.read_parquet(path)
    return {c: list(back[c].cat.categories) for c in back.columns
            if isinstance(back[c].dtype, pd.CategoricalDtype)}, back


def _leftovers(folder):
    return [n for n in os.listdir(folder) if TEMP_MARK in n]


# item 1: Parquet dictionaries keep no input order ------------------------------------------

def test_parquet_dictionaries_do_not_follow_the_input_order(tmp_path):
    table = kg.datasets.make_census(600, seed=11)
    flipped = table.iloc[::-1].reset_index(drop=True)
    written = {}
    for name, source in (("a", table), ("b", flipped)):
        res = kg.anonymize(source, _schema(), k=5, algorithm="optimal")
        path = tmp_path / f"{name}.parquet"
        res.write(path, seed=1)
        written[name] = _dictionaries(path)
        # the input's first row no longer names the first category of every column
        first = res.table.iloc[0]
        assert any(written[name][0][c][0] != str(first[c]) for c in QIS)
    (cats_a, back_a), (cats_b, back_b) = written["a"], written["b"]
    assert set(QIS) <= set(cats_a)
    for column, categories in cats_a.items():
        # the values the rows hold, sorted; the same whatever the input's order
        assert categories == sorted(set(back_a[column].astype(str)))
        assert categories == cats_b[column]


def test_a_dropped_records_value_is_not_in_a_written_dictionary(tmp_path):
    table = kg.datasets.make_census(300, seed=2)
    diag = np.array(["flu", "cold"] * 150, dtype=object)
    diag[7] = "rare-disease"
    table["diag"] = pd.Categorical(diag)
    table["age"] = table["age"].astype(float)
    table.loc[7, "age"] = np.nan                 # its row is dropped: missing age
    schema = kg.Schema(quasi_identifiers=QIS, sensitive=["diag"],
                       hierarchies=kg.datasets.census_schema().hierarchies)
    res = kg.anonymize(table, schema, k=5, algorithm="optimal", missing="drop")
    assert res.dropped == 1
    path = tmp_path / "r.parquet"
    res.write(path)
    categories, back = _dictionaries(path)
    assert "rare-disease" not in categories["diag"]
    assert "rare-disease" not in pq.read_table(path).column("diag").to_pylist()
    assert len(back) == len(table) - 1


def test_cli_parquet_release_has_sorted_dictionaries(tmp_path):
    table = kg.datasets.make_census(400, seed=4)
    source = tmp_path / "people.csv"
    table.to_csv(source, index=False)
    folder = tmp_path / "h"
    folder.mkdir()
    for column, h in kg.datasets.census_schema().hierarchies.items():
        kg.write_hierarchy(h, folder / f"{column}.csv")
    out = tmp_path / "out.parquet"
    assert main(["anonymize", str(source), "--qi", ",".join(QIS), "--hierarchies",
                 str(folder), "-k", "5", "--algorithm", "optimal", "-o", str(out), "-q"]) == 0
    categories, back = _dictionaries(out)
    assert set(QIS) <= set(categories)
    for column, values in categories.items():
        assert values == sorted(set(back[column].astype(str))), column


def test_plain_dictionaries_keeps_an_ordered_categorical_order():
    from kanon_graph.io.release import plain_dictionaries

    t = pd.DataFrame({"size": pd.Categorical(["high", "low", "high"],
                                             categories=["low", "mid", "high"], ordered=True),
                      "mixed": pd.Categorical([2, "a", 2], categories=["a", 2])})
    out = plain_dictionaries(t)
    assert list(out["size"].cat.categories) == ["low", "high"] and out["size"].cat.ordered
    assert list(out["mixed"].cat.categories) == [2, "a"]
    assert out["size"].astype(str).tolist() == ["high", "low", "high"]


# item 4: a folder holding somebody else's file is never replaced ---------------------------

@pytest.mark.parametrize("earlier", [False, True], ids=["plain-folder", "earlier-release"])
def test_atomic_folder_refuses_a_folder_with_a_foreign_file(tmp_path, earlier):
    from kanon_graph.io.write import atomic_folder

    target = tmp_path / "out"
    if earlier:
        with atomic_folder(target) as tmp:
            (tmp / "part-00000.parquet").write_text("the earlier release")
    else:
        target.mkdir()
    (target / "my_raw_2025.csv").write_text("id,diagnosis\n1,flu\n")
    before = sorted(os.listdir(target))
    with pytest.raises(FileExistsError, match="my_raw_2025.csv"), atomic_folder(target) as tmp:
        (tmp / "part-00000.parquet").write_text("new")
    assert sorted(os.listdir(target)) == before
    assert (target / "my_raw_2025.csv").read_text() == "id,diagnosis\n1,flu\n"
    assert _leftovers(tmp_path) == []


def test_a_file_put_in_the_folder_during_the_write_is_kept(tmp_path):
    """The check is made again at the swap: a file that arrived after it starts is kept."""
    from kanon_graph.io.write import atomic_folder

    target = tmp_path / "out"
    with atomic_folder(target) as tmp:
        (tmp / "part-00000.parquet").write_text("old")
    with pytest.raises(FileExistsError, match="notes.txt"), atomic_folder(target) as tmp:
        (tmp / "part-00000.parquet").write_text("new")
        (target / "notes.txt").write_text("mine")
    assert (target / "notes.txt").read_text() == "mine"
    assert (target / "part-00000.parquet").read_text() == "old"
    assert _leftovers(tmp_path) == []


def test_foreign_entry_accepts_only_what_the_manifest_names(tmp_path):
    from kanon_graph.io.write import RELEASE_MANIFEST, foreign_entry, write_manifest

    assert foreign_entry(tmp_path / "absent") is None and foreign_entry(tmp_path) is None
    (tmp_path / "part-0.csv").write_text("x")
    assert foreign_entry(tmp_path) == "part-0.csv"          # no manifest: not ours
    write_manifest(tmp_path)
    assert foreign_entry(tmp_path) is None
    (tmp_path / "sub").mkdir()
    assert foreign_entry(tmp_path) == "sub"
    (tmp_path / "sub").rmdir()
    (tmp_path / RELEASE_MANIFEST).write_text("{not json")
    assert foreign_entry(tmp_path) == RELEASE_MANIFEST


# item 12: an fsync error is an error ------------------------------------------------------

@pytest.mark.parametrize("kind", ["file", "folder"])
def test_an_fsync_error_fails_the_write_and_keeps_the_old_output(tmp_path, monkeypatch, kind):
    from kanon_graph.io.write import atomic_file, atomic_folder

    target = tmp_path / ("out.csv" if kind == "file" else "out")
    if kind == "file":
        target.write_text("old")
    else:
        with atomic_folder(target) as tmp:
            (tmp / "part-0.csv").write_text("old")

    def failing(fd):
        raise OSError(errno.EIO, "Input/output error")

    monkeypatch.setattr(os, "fsync", failing)
    with pytest.raises(OSError, match="could not sync"):
        if kind == "file":
            with atomic_file(target) as tmp:
                tmp.write_text("new")
        else:
            with atomic_folder(target) as tmp:
                (tmp / "part-0.csv").write_text("new")
    monkeypatch.undo()
    kept = target if kind == "file" else target / "part-0.csv"
    assert kept.read_text() == "old" and _leftovers(tmp_path) == []


def test_an_fsync_error_is_one_line_on_the_command_line(tmp_path, monkeypatch, capsys):
    source = tmp_path / "people.csv"
    kg.datasets.make_census(100, seed=1).to_csv(source, index=False)

    def failing(fd):
        raise OSError(errno.EIO, "Input/output error")

    monkeypatch.setattr(os, "fsync", failing)
    code = main(["anonymize", str(source), "--qi", "sex,age", "-k", "5", "--algorithm",
                 "mondrian", "-o", str(tmp_path / "r.csv"), "-q"])
    monkeypatch.undo()
    err = capsys.readouterr().err.strip()
    assert code == 1 and err.count("\n") == 0 and "could not sync" in err, err
    assert not (tmp_path / "r.csv").exists() and _leftovers(tmp_path) == []
