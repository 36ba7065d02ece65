"""The CLI releases its input as it came in (issue 11, items 9, 10, 12; issue 16 item 6).

Every test runs the real entry point, ``main([...])`` (one the installed console
script), on files written in ``tmp_path``, and reads the files it writes with
the csv module, not with the library.
"""

import csv
import json
import subprocess
import sys
from pathlib import Path

import pytest

from kanon_graph.cli import main
from kanon_graph.exceptions import DataError
from kanon_graph.io import read_table, read_text_table

#: Cells a careless reader rewrites (blanks, strips, reformats as numbers).
ODD_CELLS = ["NA", "null", "None", "nan", "N/A", "#N/A", " padded ", "1.50", "2", "1e3",
             "-0", "12345678901234567890", "a,b", 'say "hi"', "", "+7", ".5", "0012"]


def _write(path, rows, sep=","):
    with open(path, "w", newline="", encoding="utf-8") as handle:
        csv.writer(handle, delimiter=sep, lineterminator="\n").writerows(rows)
    return path


def _read(path, sep=","):
    with open(path, newline="", encoding="utf-8") as handle:
        return list(csv.reader(handle, delimiter=sep))


def _hierarchy(path, rows):
    path.write_text("".join(";".join(r) + "\n" for r in rows), encoding="utf-8")
    return path


def _run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def _error(err):
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("kanon-graph: error: "), err
    return lines[0]


@pytest.fixture
def odd(tmp_path):
    """sex (QI, hierarchy F/M -> *), note and score free text, a sensitive text column."""
    n = len(ODD_CELLS)
    rows = [["sex", "note", "score", "diagnosis"]]
    for i, cell in enumerate(ODD_CELLS):
        rows.append(["F" if i % 2 else "M", cell, ODD_CELLS[(i + 3) % n], ODD_CELLS[(i + 5) % n]
                     or "x"])
    _write(tmp_path / "odd.csv", rows)
    (tmp_path / "h").mkdir()
    _hierarchy(tmp_path / "h" / "sex.csv", [["F", "*"], ["M", "*"]])
    return tmp_path


# ------------------------------------------------------------------ item 9
def test_a_duplicate_header_is_refused_naming_the_column_and_the_file(tmp_path, capsys):
    _write(tmp_path / "dup.csv", [["sex", "age", "sex"], ["F", "30", "F"], ["M", "31", "M"],
                                  ["F", "32", "F"], ["M", "33", "M"]])
    (tmp_path / "h").mkdir()
    _hierarchy(tmp_path / "h" / "sex.csv", [["F", "*"], ["M", "*"]])
    code, _, err = _run(capsys, "anonymize", "--keep-order", tmp_path / "dup.csv", "--qi", "sex",
                        "--hierarchies", tmp_path / "h", "-k", 4, "-o", tmp_path / "out.csv")
    line = _error(err)
    assert code == 1 and "duplicate column" in line and "['sex']" in line
    assert "dup.csv" in line and "line 1" in line
    assert not (tmp_path / "out.csv").exists()
    with pytest.raises(DataError, match=r"duplicate column name\(s\) \['sex'\]"):
        read_table(tmp_path / "dup.csv")
    for argv in (["evaluate", tmp_path / "dup.csv", tmp_path / "dup.csv", "--qi", "sex"],
                 ["lattice", "show", tmp_path / "dup.csv", "--qi", "sex", "--hierarchies",
                  tmp_path / "h", "-k", 2],
                 ["compare", tmp_path / "dup.csv", "--qi", "sex", "--algorithms", "datafly",
                  "-k", 2]):
        code, _, err = _run(capsys, *argv)
        assert code == 1 and "duplicate column" in _error(err) and "dup.csv" in err, argv


def test_the_console_script_refuses_a_duplicate_header(tmp_path):
    _write(tmp_path / "dup.csv", [["sex", "sex"], ["F", "F"], ["M", "M"]])
    script = Path(sys.executable).with_name("kanon-graph")
    done = subprocess.run([str(script), "anonymize", "--keep-order", str(tmp_path / "dup.csv"), "--qi", "sex",
                           "-k", "1", "-o", str(tmp_path / "o.csv")],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 1 and done.stdout == ""
    assert "duplicate column name(s) ['sex']" in _error(done.stderr)
    assert not (tmp_path / "o.csv").exists()


# ----------------------------------------------------------------- item 10
@pytest.mark.parametrize("sep", [",", ";"])
def test_cells_not_generalized_are_released_byte_for_byte(odd, capsys, sep):
    source = _read(odd / "odd.csv")
    if sep != ",":
        _write(odd / "odd.csv", source, sep=sep)
    out = odd / "out.csv"
    code, _, err = _run(capsys, "anonymize", "--keep-order", odd / "odd.csv", "--qi", "sex", "--sensitive",
                        "diagnosis", "--hierarchies", odd / "h", "-k", 3, "-o", out,
                        "--sep", sep)
    assert code == 0, err
    released = _read(out, sep)
    assert released[0] == source[0]
    assert [r[1:] for r in released[1:]] == [r[1:] for r in source[1:]]
    assert [r[0] for r in released[1:]] == [r[0] for r in source[1:]]  # 9 F, 9 M: level 0
    # and not re-quoted beyond what CSV needs: the file's text is the csv module's own
    assert out.read_text(encoding="utf-8") == (odd / "odd.csv").read_text(encoding="utf-8")


def test_na_and_friends_are_data_and_missing_is_only_the_empty_cell(tmp_path, capsys):
    rows = [["code", "note"]] + [[c, c] for c in ["NA", "NA", "null", "null", "N/A", "N/A"]]
    _write(tmp_path / "t.csv", rows)
    (tmp_path / "h").mkdir()
    _hierarchy(tmp_path / "h" / "code.csv", [["NA", "*"], ["null", "*"], ["N/A", "*"]])
    code, _, err = _run(capsys, "anonymize", "--keep-order", tmp_path / "t.csv", "--qi", "code",
                        "--hierarchies", tmp_path / "h", "-k", 2, "-o", tmp_path / "o.csv")
    assert code == 0, err
    assert _read(tmp_path / "o.csv") == rows  # 2-anonymous as it is: released at level 0


def test_na_values_names_more_missing_cells_in_qi_and_sensitive_columns_only(tmp_path,
                                                                             capsys):
    rows = [["code", "note"], ["a", "NA"], ["a", "x"], ["NA", "y"], ["b", "NA"], ["b", ""]]
    _write(tmp_path / "t.csv", rows)
    args = ["anonymize", "--keep-order", tmp_path / "t.csv", "--qi", "code", "-k", 2, "--algorithm", "mondrian",
            "--na-values", "NA", "-o", tmp_path / "o.csv", "--report", tmp_path / "r.json"]
    code, _, err = _run(capsys, *args)
    line = _error(err)
    assert code == 1 and "t.csv', line 4" in line and "'code'" in line and "'NA'" in line
    assert "--missing drop" in line and "missing='drop'" not in line
    code, _, err = _run(capsys, *args, "--missing", "drop")
    assert code == 0, err
    released = _read(tmp_path / "o.csv")
    assert released == [["code", "note"], ["a", "NA"], ["a", "x"], ["b", "NA"], ["b", ""]]
    report = json.loads((tmp_path / "r.json").read_text())
    assert report["dropped"] == 1 and report["parameters"]["na_values"] == ["", "NA"]


def test_a_missing_value_error_names_the_flag_file_line_column_and_cell(tmp_path, capsys):
    _write(tmp_path / "t.csv", [["code", "age"], ["a", "1"], ["a", ""], ["b", "3"]])
    code, _, err = _run(capsys, "anonymize", "--keep-order", tmp_path / "t.csv", "--qi", "code,age", "-k", 1,
                        "--algorithm", "mondrian", "-o", tmp_path / "o.csv")
    line = _error(err)
    assert code == 1 and "t.csv', line 3" in line and "'age'" in line and "''" in line
    assert "--missing drop" in line and "missing='drop'" not in line
    for argv in (["compare", tmp_path / "t.csv", "--qi", "code,age", "--algorithms", "mondrian",
                  "-k", 1],
                 ["evaluate", tmp_path / "t.csv", tmp_path / "t.csv", "--qi", "code,age"]):
        code, _, err = _run(capsys, *argv)
        line = _error(err)
        assert code == 1 and "line 3" in line and "'age'" in line and "missing='drop'" not in line


def test_a_qi_declared_numeric_that_holds_text_is_named_with_file_line_and_cell(tmp_path,
                                                                               capsys):
    _write(tmp_path / "t.csv", [["age", "x"], ["31", "a"], ["thirty", "b"]])
    (tmp_path / "s.yaml").write_text("quasi_identifiers: [age]\nnumeric: [age]\n")
    code, _, err = _run(capsys, "anonymize", "--keep-order", tmp_path / "t.csv", "--schema", tmp_path / "s.yaml",
                        "-k", 1, "--algorithm", "mondrian", "-o", tmp_path / "o.csv")
    line = _error(err)
    assert code == 1 and "t.csv', line 3" in line and "'age'" in line and "'thirty'" in line
    assert "s.yaml" in line


def test_a_twenty_digit_number_is_released_or_named_never_a_numpy_message(tmp_path, capsys):
    big = ["12345678901234567890", "99999999999999999999", "-99999999999999999999"]
    rows = [["id_", "n", "s"]] + [[b, b, b] for b in big for _ in range(2)]
    _write(tmp_path / "t.csv", rows)
    code, _, err = _run(capsys, "anonymize", "--keep-order", tmp_path / "t.csv", "--qi", "id_", "--sensitive",
                        "s", "-k", 2, "--l", 1, "--algorithm", "mondrian",
                        "-o", tmp_path / "o.csv")
    assert code == 0, err
    assert [r[1:] for r in _read(tmp_path / "o.csv")] == [r[1:] for r in rows]


def test_twenty_digit_quasi_identifiers_released_as_themselves_keep_every_digit(tmp_path,
                                                                                 capsys):
    """Waits for the encoding branch: two integers that one float cannot tell apart.

    At k=1 each value is its own class and must be released as its own text
    (before: both came out as ``12345678901234567168``, which is neither).
    """
    rows = [["n", "b"], ["12345678901234567890", "a"], ["12345678901234567891", "b"],
            ["-99999999999999999999", "c"]]
    _write(tmp_path / "t.csv", rows)
    code, _, err = _run(capsys, "anonymize", "--keep-order", tmp_path / "t.csv", "--qi", "n", "-k", 1,
                        "--algorithm", "mondrian", "-o", tmp_path / "o.csv")
    assert code == 0, err
    assert _read(tmp_path / "o.csv") == rows


def test_a_numeric_qi_released_as_itself_keeps_its_text(tmp_path, capsys):
    """Waits for the encoding branch (numeric QI given as text keeps each value's text)."""
    rows = [["w", "note"], ["1.50", "a"], ["1.50", "b"], ["1e3", "c"], ["1e3", "d"],
            ["-0", "e"], ["-0", "f"]]
    _write(tmp_path / "t.csv", rows)
    code, _, err = _run(capsys, "anonymize", "--keep-order", tmp_path / "t.csv", "--qi", "w", "-k", 2,
                        "--algorithm", "mondrian", "-o", tmp_path / "o.csv")
    assert code == 0, err
    released = _read(tmp_path / "o.csv")
    assert [r[1] for r in released] == [r[1] for r in rows]
    # mondrian cuts the three pairs apart; a class of one text releases that text
    assert [r[0] for r in released] == [r[0] for r in rows]


def test_a_numeric_qi_with_a_hierarchy_keeps_the_leaf_text(tmp_path, capsys):
    rows = [["w"], ["1.50"], ["1.50"], ["1e3"], ["1e3"]]
    _write(tmp_path / "t.csv", rows)
    (tmp_path / "h").mkdir()
    _hierarchy(tmp_path / "h" / "w.csv", [["1.50", "*"], ["1e3", "*"]])
    code, _, err = _run(capsys, "anonymize", "--keep-order", tmp_path / "t.csv", "--qi", "w",
                        "--hierarchies", tmp_path / "h", "-k", 2, "-o", tmp_path / "o.csv")
    assert code == 0, err
    assert _read(tmp_path / "o.csv") == rows


def test_evaluate_reads_the_original_as_anonymize_does(odd, capsys):
    """A QI category 'NA' is data for evaluate too (it was read as missing before)."""
    rows = [["code", "note"]] + [[c, "1.50"] for c in ["NA", "NA", "b", "b"]]
    _write(odd / "t.csv", rows)
    code, out, err = _run(capsys, "evaluate", odd / "t.csv", odd / "t.csv", "--qi", "code",
                          "-k", 2)
    assert code == 0, err
    assert "holds: k=2" in out


# ----------------------------------------------------------------- item 12
def test_the_seed_defaults_to_zero_and_is_in_the_report(odd, capsys):
    rows = [["a", "b"]] + [[str(i % 7), str(i * 37 % 11)] for i in range(40)]
    _write(odd / "t.csv", rows)
    outputs = []
    for run in range(2):
        out, report = odd / f"o{run}.csv", odd / f"r{run}.json"
        code, _, err = _run(capsys, "anonymize", "--keep-order", odd / "t.csv", "--qi", "a,b", "-k", 3,
                            "--algorithm", "k-member", "-o", out, "--report", report)
        assert code == 0, err
        assert json.loads(report.read_text())["parameters"]["seed"] == 0
        outputs.append(out.read_text())
    assert outputs[0] == outputs[1]
    code, help_text, _ = _run(capsys, "anonymize", "--keep-order", "--help")
    assert code == 0 and "default 0" in " ".join(help_text.split()).split("--seed SEED")[-1][:120]


@pytest.mark.parametrize("cell", ["?", "  "])
def test_a_question_mark_or_blank_cell_is_a_value_as_in_the_library(tmp_path, capsys, cell):
    """Only the empty cell (and --na-values texts) is missing, in the CLI as in the library."""
    _write(tmp_path / "t.csv", [["code", "x"], ["a", "1"], ["b", "2"], [cell, "3"]])
    code, _, err = _run(capsys, "anonymize", "--keep-order", tmp_path / "t.csv", "--qi", "code", "-k", 1,
                        "--algorithm", "mondrian", "-o", tmp_path / "o.csv")
    assert code == 0, err
    assert read_text_table(tmp_path / "o.csv").frame["code"].tolist()[-1] == cell
    if not cell.strip():
        return                              # --na-values takes non-blank texts
    code, _, err = _run(capsys, "anonymize", "--keep-order", tmp_path / "t.csv", "--qi", "code", "-k", 1,
                        "--algorithm", "mondrian", "-o", tmp_path / "o.csv",
                        "--na-values", cell)
    line = _error(err)
    assert code == 1 and "line 4" in line and "'code'" in line
    assert "--missing drop" in line and "missing='drop'" not in line


def test_an_output_in_a_missing_folder_names_the_flag(tmp_path, capsys):
    _write(tmp_path / "t.csv", [["code"], ["a"]])
    code, _, err = _run(capsys, "anonymize", "--keep-order", tmp_path / "t.csv", "--qi", "code", "-k", 1,
                        "-o", tmp_path / "no" / "o.csv")
    assert code == 1 and _error(err).startswith("kanon-graph: error: -o: ")
    code, _, err = _run(capsys, "anonymize", "--keep-order", tmp_path / "t.csv", "--qi", "code", "-k", 1,
                        "-o", tmp_path / "o.csv", "--report", tmp_path / "no" / "r.json")
    assert code == 1 and _error(err).startswith("kanon-graph: error: --report: ")
