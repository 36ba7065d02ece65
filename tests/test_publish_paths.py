"""Issue 21, finding 4: path collisions are refused before any work, and nothing is written."""

from __future__ import annotations

import os

import pytest

import kanon_graph as kg
from kanon_graph.cli import main


@pytest.fixture
def people(tmp_path):
    path = tmp_path / "people.csv"
    kg.datasets.make_census(200, seed=1).to_csv(path, index=False)
    return path


def _anonymize(people, *extra):
    return main(["anonymize", str(people), "--qi", "sex,age", "-k", "5", "--algorithm",
                 "mondrian", "-q", *map(str, extra)])


def _error(capsys):
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0, err                    # one line
    return err


def test_output_and_report_on_one_path_are_refused(people, tmp_path, capsys):
    target = tmp_path / "c.csv"
    assert _anonymize(people, "-o", target, "--report", target) == 1
    err = _error(capsys)
    assert "-o" in err and "--report" in err and "same place" in err
    assert not target.exists()


@pytest.mark.parametrize("flag", ["-o", "--report"])
def test_an_output_naming_the_input_is_refused_and_the_input_kept(people, tmp_path, capsys,
                                                                  flag):
    before = people.read_bytes()
    other = "--report" if flag == "-o" else "-o"
    assert _anonymize(people, flag, people, other, tmp_path / "other.x") == 1
    assert "would overwrite the input" in _error(capsys)
    assert people.read_bytes() == before
    assert not (tmp_path / "other.x").exists()


def test_a_link_to_the_input_is_the_input(people, tmp_path, capsys):
    link = tmp_path / "link.csv"
    link.symlink_to(people)
    hard = tmp_path / "hard.csv"
    os.link(people, hard)
    before = people.read_bytes()
    for alias in (link, hard, tmp_path / "." / "people.csv"):
        assert _anonymize(people, "-o", alias) == 1
        assert "would overwrite the input" in _error(capsys)
    assert people.read_bytes() == before


def test_an_unwritable_report_fails_before_the_release_is_written(people, tmp_path, capsys):
    out = tmp_path / "out.csv"
    folder = tmp_path / "report.json"
    folder.mkdir()                       # a report path that cannot be written: a folder
    assert _anonymize(people, "-o", out, "--report", folder) == 1
    assert "--report" in _error(capsys)
    assert not out.exists()


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes into read-only folders")
def test_a_report_in_a_read_only_folder_fails_first(people, tmp_path, capsys):
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o500)
    try:
        out = tmp_path / "out.csv"
        assert _anonymize(people, "-o", out, "--report", locked / "r.json") == 1
        assert "not writable" in _error(capsys) and not out.exists()
    finally:
        locked.chmod(0o700)


def test_a_dask_output_folder_holding_other_files_is_refused(people, tmp_path, capsys):
    folder = tmp_path / "release"
    folder.mkdir()
    (folder / "notes.txt").write_text("mine")
    code = main(["anonymize", str(people.parent), "--qi", "sex", "-k", "2", "--engine", "dask",
                 "-o", str(folder), "-q"])
    assert code == 1 and "notes.txt" in _error(capsys)
    assert (folder / "notes.txt").read_text() == "mine"


def test_a_dask_output_folder_around_the_input_is_refused(people, tmp_path, capsys):
    # the release folder would be replaced as a whole: with the input inside it
    code = main(["anonymize", str(people.parent), "--qi", "sex", "-k", "2", "--engine", "dask",
                 "-o", str(people.parent / "part-*.csv"), "-q"])
    assert code == 1 and "would overwrite the input" in _error(capsys)
    assert people.exists()


def test_evaluate_report_naming_an_input_is_refused(people, tmp_path, capsys):
    before = people.read_bytes()
    code = main(["evaluate", str(people), str(people), "--qi", "sex", "--report", str(people)])
    assert code == 1 and "would overwrite the input" in _error(capsys)
    assert people.read_bytes() == before


def test_other_commands_refuse_writing_over_their_input(people, tmp_path, capsys):
    before = people.read_bytes()
    assert main(["compare", str(people), "--qi", "sex,age", "--algorithms", "mondrian",
                 "-k", "2", "-o", str(people), "-q"]) == 1
    assert "would overwrite the input" in _error(capsys)
    assert main(["lattice", "show", str(people), "--qi", "sex", "-k", "2", "-o",
                 str(people)]) == 1
    assert "would overwrite the input" in _error(capsys)
    assert people.read_bytes() == before
    # hierarchy suggest writes new files into a folder, which may hold the input
    assert main(["hierarchy", "suggest", str(people), "--qi", "sex", "-o",
                 str(people.parent)]) == 0
    assert (people.parent / "sex.csv").exists() and people.read_bytes() == before
