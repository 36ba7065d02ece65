"""Issue 31, item 3: the order seed never reaches the privacy report, however it is spelled."""

from __future__ import annotations

import argparse
import json
import shlex
import sys

import pytest

import kanon_graph as kg
from kanon_graph.cli import build_parser, main


@pytest.fixture
def run(tmp_path):
    """``(people.csv, released.csv, run.json, order seed)`` of one anonymize run."""
    people = tmp_path / "people.csv"
    kg.datasets.make_census(300, seed=2).to_csv(people, index=False)
    out, report = tmp_path / "out.csv", tmp_path / "run.json"
    assert main(["anonymize", str(people), "--qi", "sex,age", "-k", "5", "--algorithm",
                 "mondrian", "-o", str(out), "--report", str(report), "-q"]) == 0
    seed = json.loads(report.read_text())["publication"]["order_seed"]
    assert len(str(seed)) >= 6            # a fresh 63-bit seed: no accidental match below
    return people, out, report, seed


def _parsers(parser):
    """``parser`` and every parser under it (commands, and their own sub-commands)."""
    yield parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                yield from _parsers(sub)


def test_no_parser_accepts_an_abbreviated_option():
    parsers = list(_parsers(build_parser()))
    assert len(parsers) > 10                      # every command was built in full
    assert [p.prog for p in parsers if p.allow_abbrev] == []


@pytest.mark.parametrize("argv", [
    ["--unsh"], ["--order-s"], ["--order-seed="], ["--made"],
])
def test_an_abbreviation_of_a_secret_option_is_a_usage_error(run, tmp_path, capsys, argv):
    people, out, _, seed = run
    report = tmp_path / "r.json"
    command = {"--order-s": "anonymize", "--order-seed=": "anonymize"}.get(argv[0], "report")
    if command == "report":
        line = ["report", str(people), str(out), "--qi", "sex,age", "-k", "5",
                "-o", str(report), argv[0], str(seed)]
    else:
        line = ["anonymize", str(people), "--qi", "sex,age", "-k", "5", "-o",
                str(tmp_path / "again.csv"), argv[0] + str(seed)]
    code = main(line)
    err = capsys.readouterr().err
    if argv[0] == "--order-seed=":            # the full name with '=' is the option itself
        assert code == 0
        return
    assert code == 2 and "unrecognized arguments" in err
    assert not report.exists()


def test_the_console_report_with_a_prefix_of_unshuffle_writes_nothing(run, tmp_path,
                                                                        monkeypatch, capsys):
    """``kanon-graph report ... --unsh SEED`` (the console's argv) used to write the seed."""
    people, out, _, seed = run
    report = tmp_path / "console.html"
    argv = ["report", str(people), str(out), "--qi", "sex,age", "-k", "5", "-o", str(report),
            "--unsh", str(seed)]
    monkeypatch.setattr(sys, "argv", ["/usr/local/bin/kanon-graph", *argv])
    assert main() == 2
    assert not report.exists()
    assert "--unsh" in capsys.readouterr().err


@pytest.mark.parametrize("made_by", [
    "kanon-graph anonymize people.csv --qi sex,age -k 5 --order-s {seed} -o out.csv",
    "kanon-graph anonymize people.csv --order-seed={seed} -o out.csv",
    "kanon-graph anonymize people.csv '--order-seed' '{seed}' -o out.csv",
    "sh -c 'kanon-graph anonymize people.csv --order-seed={seed} -o out.csv'",
    "sh -c 'kanon-graph anonymize people.csv --order-seed {seed} -o out.csv'",
    "bash -c \"sh -c 'kanon-graph anonymize people.csv --order-s={seed}'\"",
    "kanon-graph report people.csv out.csv --unsh {seed} -o r.html",
    "kanon-graph report people.csv out.csv --unshuffle={seed} -o r.html",
    "wrapper --made-by='kanon-graph anonymize people.csv --order-seed {seed}'",
    "env ARGS=--order-seed={seed} wrapper",
    "kanon-graph anonymize people.csv --order-seed",          # the value on no word: fine
])
@pytest.mark.parametrize("fmt", ["html", "json"])
def test_made_by_text_never_carries_the_seed(run, tmp_path, made_by, fmt):
    people, out, report, seed = run
    path = tmp_path / f"report.{fmt}"
    assert main(["report", str(people), str(out), "--qi", "sex,age", "-k", "5", "--unshuffle",
                 str(report), "--made-by", made_by.format(seed=seed), "-o", str(path),
                 "-q"]) == 0
    text = path.read_text()
    assert str(seed) not in text
    if "{seed}" in made_by:
        assert "(withheld)" in text


def test_withheld_keeps_the_rest_of_the_command_readable():
    from kanon_graph.cli.report import _withheld

    assert _withheld("kanon-graph anonymize in.csv --order-seed 77 -o 'my out.csv'") == \
        "kanon-graph anonymize in.csv --order-seed (withheld) -o 'my out.csv'"
    assert _withheld("sh -c 'kanon-graph anonymize in.csv --order-s=77'") == \
        "sh -c 'kanon-graph anonymize in.csv --order-s=(withheld)'"
    # a word that only begins like a secret option's name is not one
    assert _withheld("kanon-graph anonymize in.csv --output o.csv --option a=1") == \
        "kanon-graph anonymize in.csv --output o.csv --option a=1"
    assert shlex.split(_withheld("kanon-graph report a b --unshuffle=r.json"))[-1] == \
        "--unshuffle=(withheld)"
