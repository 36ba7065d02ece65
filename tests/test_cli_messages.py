"""What the command line says when a check fails or a warning comes (issue 46 item 11)."""

import csv
import sys

import numpy as np
import pytest

import kanon_graph as kg
from kanon_graph.cli import main


def _write(path, rows):
    with open(path, "w", newline="") as fh:
        csv.writer(fh).writerows(rows)


def _table(path, n=60, seed=0, sensitive=None):
    rng = np.random.default_rng(seed)
    rows = [["age", "zip", "dob", "disease"]]
    for i in range(n):
        d, m = int(rng.integers(1, 29)), int(rng.integers(1, 13))
        rows.append([int(rng.integers(20, 70)), str(rng.choice(["130", "131", "140"])),
                     f"{d:02d}/{m:02d}/{int(rng.integers(1950, 2000))}",
                     sensitive if sensitive is not None else
                     str(rng.choice(["flu", "cold", "hiv", "cancer"]))])
    rows[1][2] = "25/07/1986"                      # a day above 12 tells the order
    _write(path, rows)
    return path


def test_a_quiet_failing_check_says_what_failed(tmp_path, capsys):
    data = _table(tmp_path / "t.csv")
    out = tmp_path / "o.csv"
    assert main(["anonymize", str(data), "--qi", "age,zip", "-k", "3", "--keep-order",
                 "--algorithm", "mondrian", "-o", str(out), "-q"]) == 0
    capsys.readouterr()
    assert main(["evaluate", str(data), str(out), "--qi", "age,zip", "-k", "50",
                 "--check", "-q"]) == 3
    std, err = capsys.readouterr()
    lines = err.strip().splitlines()
    assert std == "" and len(lines) == 1
    assert "FAILS" in lines[0] and "k=50" in lines[0] and "smallest class" in lines[0]
    # a check that holds stays silent
    assert main(["evaluate", str(data), str(out), "--qi", "age,zip", "-k", "3",
                 "--check", "-q"]) == 0
    assert capsys.readouterr() == ("", "")


def test_report_says_report_in_its_warnings(tmp_path, capsys):
    data = _table(tmp_path / "t.csv")
    out = tmp_path / "o.csv"
    assert main(["anonymize", str(data), "--qi", "age,dob", "-k", "3", "--keep-order",
                 "--algorithm", "mondrian", "-o", str(out), "-q"]) == 0
    capsys.readouterr()
    assert main(["report", str(data), str(out), "--qi", "age,dob", "-k", "3",
                 "-o", str(tmp_path / "r.html"), "-q"]) == 0
    err = capsys.readouterr().err
    assert "warning: report: column 'dob'" in err
    assert "evaluate:" not in err
    shuffled = tmp_path / "s.csv"                  # and its errors say 'report:' too
    assert main(["anonymize", str(data), "--qi", "age,dob", "-k", "3", "--order-seed", "1",
                 "--algorithm", "mondrian", "-o", str(shuffled), "-q"]) == 0
    capsys.readouterr()
    assert main(["report", str(data), str(shuffled), "--qi", "age,dob", "-k", "3",
                 "-o", str(tmp_path / "r.html"), "-q"]) == 1
    err = capsys.readouterr().err
    assert "error: report: released value" in err and "evaluate:" not in err


def test_a_warning_clears_the_progress_bar_line_first(tmp_path, capsys, monkeypatch):
    data = _table(tmp_path / "t.csv")
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True, raising=False)
    assert main(["anonymize", str(data), "--qi", "age,dob", "-k", "3", "--keep-order",
                 "--algorithm", "mondrian", "-o", str(tmp_path / "o.csv")]) == 0
    err = capsys.readouterr().err
    assert "kanon-graph: anonymizing" in err               # a bar was drawn
    start = err.index("kanon-graph: warning: anonymize: column 'dob'")
    # the warning starts a line of its own: the bar's line was cleared ("\r   \r") first
    assert err[start - 1] in "\r\n", repr(err[max(0, start - 40):start + 20])


def test_too_few_sensitive_values_are_said_once_before_any_algorithm(tmp_path, capsys):
    data = _table(tmp_path / "t.csv", n=300, sensitive="flu")
    assert main(["anonymize", str(data), "--qi", "age,zip", "--sensitive", "disease",
                 "-k", "3", "--l", "2", "-o", str(tmp_path / "o.csv"), "-q"]) == 1
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1
    assert "'disease'" in err and "1 distinct value" in err and "all 300 records" in err
    assert "needs 2 in every class" in err
    assert err.count("cannot be reached") == 1 and "mondrian" not in err
    # the library says it too, before auto tries anything
    import pandas as pd
    table = pd.read_csv(data, dtype=str)
    with pytest.raises(ValueError, match="1 distinct value") as caught:
        kg.anonymize(table, kg.Schema(quasi_identifiers=["age", "zip"],
                                      sensitive=["disease"]), k=3, l=2)
    assert "auto" not in str(caught.value)
