"""``kanon-graph anonymize --stream``: two passes over the file, the in-memory release.

Every test runs the real entry point, ``main([...])``, once streaming (with a
small ``--chunk-rows`` so the file is read in several chunks) and once in
memory (``--stream off``), and compares the files written byte for byte, or
the one-line errors.
"""

import csv
import json

import numpy as np
import pytest

import kanon_graph as kg
from kanon_graph.cli import main

CENSUS_QIS = "sex,age,race,marital-status,education,native-country,workclass,occupation"


def _run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def _error(err):
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("kanon-graph: error: "), err
    return lines[0]


def _write(path, rows, line_end="\n"):
    with open(path, "w", newline="", encoding="utf-8") as handle:
        csv.writer(handle, lineterminator=line_end).writerows(rows)
    return path


@pytest.fixture(scope="module")
def census(tmp_path_factory):
    """3,000 census rows as CSV (with an id column), and the census hierarchies."""
    folder = tmp_path_factory.mktemp("census")
    table = kg.datasets.make_census(3000, seed=1)
    table.insert(0, "id", [f"p{i}" for i in range(len(table))])
    table.to_csv(folder / "census.csv", index=False)
    (folder / "h").mkdir()
    for name, hierarchy in kg.datasets.census_schema().hierarchies.items():
        kg.write_hierarchy(hierarchy, folder / "h" / f"census_hierarchy_{name}.csv")
    return folder


def _both(capsys, tmp_path, source, *argv, chunk_rows=401):
    """Run streamed and in memory; the two outputs' bytes, reports and stdout."""
    runs = []
    for mode in ("on", "off"):
        out, report = tmp_path / f"{mode}.csv", tmp_path / f"{mode}.json"
        code, stdout, err = _run(capsys, "anonymize", source, *argv, "-o", out,
                                 "--report", report, "--stream", mode,
                                 "--chunk-rows", chunk_rows)
        assert code == 0, err
        runs.append((out.read_bytes(), json.loads(report.read_text()), stdout))
    return runs


@pytest.mark.parametrize("algorithm,qis,extra", [
    ("optimal", CENSUS_QIS, ["--suppression", "0.02"]),
    ("optimal", CENSUS_QIS, []),
    ("datafly", CENSUS_QIS, []),
    ("incognito", "sex,age,race,education", ["--suppression", "0.01"]),
])
def test_the_streamed_release_is_the_in_memory_release_byte_for_byte(census, tmp_path, capsys,
                                                                    algorithm, qis, extra):
    (streamed, s_report, s_out), (memory, m_report, m_out) = _both(
        capsys, tmp_path, census / "census.csv", "--qi", qis, "--identifiers", "id",
        "--hierarchies", census / "h", "-k", 5, "--algorithm", algorithm,
        "--order-seed", 11, *extra)
    assert streamed == memory
    assert b"p0" not in streamed and streamed.count(b"\n") == 3001    # no id, every row
    for key in ("levels", "records", "released", "suppressed", "dropped", "classes",
                "metrics", "verification", "publication"):
        assert s_report[key] == m_report[key], key
    assert s_report["parameters"]["stream"]["distinct_tuples"] < 3000
    # the summary is the in-memory one (class sizes counted on the written cells)
    assert s_out.splitlines()[:-1] == m_out.splitlines()[:-1]
    assert "streamed" in s_out.splitlines()[-1]


@pytest.mark.parametrize("chunk_rows", [1, 64, 5000])
def test_the_row_order_is_the_order_seeds_whatever_the_chunks(census, tmp_path, capsys,
                                                              chunk_rows):
    (streamed, report, _), (memory, _, _) = _both(
        capsys, tmp_path, census / "census.csv", "--qi", "sex,age,race", "--hierarchies",
        census / "h", "-k", 3, "--algorithm", "optimal", "--order-seed", 5,
        chunk_rows=chunk_rows)
    assert streamed == memory and report["publication"]["order_seed"] == 5
    # and the order is not the input's: a fresh seed gives another file
    (other, _, _), _ = _both(capsys, tmp_path, census / "census.csv", "--qi", "sex,age,race",
                             "--hierarchies", census / "h", "-k", 3, "--algorithm",
                             "optimal", "--order-seed", 6, chunk_rows=chunk_rows)
    assert other != streamed and sorted(other.splitlines()) == sorted(streamed.splitlines())


def test_keep_order_streams_the_rows_in_the_input_order(census, tmp_path, capsys):
    (streamed, report, _), (memory, _, _) = _both(
        capsys, tmp_path, census / "census.csv", "--qi", "sex,age,race", "--hierarchies",
        census / "h", "-k", 3, "--algorithm", "optimal", "--keep-order")
    assert streamed == memory and report["publication"]["order_seed"] is None
    ids = [line.split(",")[0] for line in streamed.decode().splitlines()[1:]]
    assert ids == [f"p{i}" for i in range(3000)]          # the id column, in input order


@pytest.fixture
def odd(tmp_path):
    """A quoted, awkward CSV (the row reader's path): formula cells, separators in cells,
    empty cells in a quasi-identifier."""
    rng = np.random.default_rng(3)
    rows = [["zip", "age", "note", "diagnosis"]]
    notes = ["=1+1", "a,b", 'say "hi"', "", "NA", "-3", "@SUM(A1)", " padded ",
             "two" + chr(13) + "lines"]
    for i in range(300):
        zip_code = str(rng.choice(["13053", "13068", "14850", "14853", ""]))
        rows.append([zip_code, str(int(rng.integers(20, 60))), notes[i % len(notes)],
                     str(rng.choice(["flu", "cancer", "=cmd"]))])
    _write(tmp_path / "odd.csv", rows, line_end=chr(13) + chr(10))   # quotes a bare CR
    h = tmp_path / "h"
    h.mkdir()
    (h / "zip.csv").write_text("".join(f"{z};{z[:4]}*;{z[:3]}**;*\n" for z in
                                       ["13053", "13068", "14850", "14853"]))
    (h / "age.csv").write_text("".join(f"{a};[{a // 10 * 10}-{a // 10 * 10 + 9}];*\n"
                                       for a in range(20, 60)))
    return tmp_path


@pytest.mark.parametrize("missing", ["drop", "keep"])
@pytest.mark.parametrize("escape", [[], ["--escape-formulas"]])
def test_missing_cells_quotes_and_formulas_stream_as_in_memory(odd, capsys, missing, escape):
    (streamed, s_report, _), (memory, m_report, _) = _both(
        capsys, odd, odd / "odd.csv", "--qi", "zip,age", "--hierarchies", odd / "h", "-k", 4,
        "--algorithm", "optimal", "--missing", missing, "--order-seed", 2, *escape,
        chunk_rows=37)
    assert streamed == memory and (chr(13) + chr(10)).encode() in streamed  # CRLF rows
    for key in ("records", "dropped", "classes", "levels", "publication"):
        assert s_report[key] == m_report[key], key
    if missing == "drop":
        assert s_report["dropped"] > 0
    else:
        assert s_report["stats"]["missing_kept"] == m_report["stats"]["missing_kept"]


def test_a_missing_cell_is_named_as_in_memory_after_the_whole_count(odd, capsys):
    errors = []
    for mode in ("on", "off"):
        code, _, err = _run(capsys, "anonymize", odd / "odd.csv", "--qi", "zip,age",
                            "--hierarchies", odd / "h", "-k", 4, "--algorithm", "optimal",
                            "-o", odd / "o.csv", "--stream", mode, "--chunk-rows", 7)
        assert code == 1
        errors.append(_error(err))
    assert errors[0] == errors[1]
    assert "odd.csv', line" in errors[0] and "'zip'" in errors[0] and "--missing drop" in errors[0]
    assert not (odd / "o.csv").exists()


def test_a_declared_number_that_is_text_is_named_with_its_line_in_a_later_chunk(tmp_path,
                                                                                 capsys):
    rows = [["age", "x"]] + [[str(20 + i % 30), "a"] for i in range(50)]
    rows[41][0] = "thirty"                  # line 42 of the file, in the fifth chunk of 10
    _write(tmp_path / "t.csv", rows)
    (tmp_path / "s.yaml").write_text("quasi_identifiers: [age]\nnumeric: [age]\n")
    (tmp_path / "h").mkdir()                # datafly needs one (refused before reading)
    (tmp_path / "h" / "age.csv").write_text("".join(f"{20 + i};*\n" for i in range(30)))
    errors = []
    for mode in ("on", "off"):
        code, _, err = _run(capsys, "anonymize", tmp_path / "t.csv", "--schema",
                            tmp_path / "s.yaml", "--hierarchies", tmp_path / "h", "-k", 2,
                            "--algorithm", "datafly",
                            "-o", tmp_path / "o.csv", "--stream", mode, "--chunk-rows", 10)
        assert code == 1
        errors.append(_error(err))
    assert errors[0] == errors[1]
    assert "t.csv', line 42" in errors[0] and "'age'" in errors[0] and "'thirty'" in errors[0]


def test_a_row_with_a_cell_too_many_is_named_with_its_line(tmp_path, capsys):
    rows = [["a", "b"]] + [["x", "1"]] * 30
    _write(tmp_path / "t.csv", rows)
    with open(tmp_path / "t.csv", "a") as handle:
        handle.write('"y",2,3\n')
    code, _, err = _run(capsys, "anonymize", tmp_path / "t.csv", "--qi", "a", "-k", 2,
                        "--algorithm", "datafly", "-o", tmp_path / "o.csv", "--stream", "on",
                        "--chunk-rows", 8)
    line = _error(err)
    assert code == 1 and "t.csv', line 32" in line and "3 cell(s)" in line


@pytest.mark.parametrize("argv,reason", [
    (["--algorithm", "optimal", "--l", "2", "--sensitive", "note"], "--l and --t"),
    (["--algorithm", "mondrian"], "does not recode globally"),
    (["--algorithm", "auto"], "auto compares"),
])
def test_stream_on_refuses_what_it_cannot_stream_saying_why(odd, capsys, argv, reason):
    code, _, err = _run(capsys, "anonymize", odd / "odd.csv", "--qi", "zip,age",
                        "--hierarchies", odd / "h", "-k", 2, "--missing", "drop",
                        "-o", odd / "o.csv", "--stream", "on", *argv)
    line = _error(err)
    assert code == 2 or code == 1
    assert "--stream on" in line and reason in line


def test_auto_streams_a_file_above_the_size_and_not_below(census, tmp_path, capsys,
                                                          monkeypatch):
    import kanon_graph.cli._stream as stream

    argv = ["anonymize", census / "census.csv", "--qi", "sex,age,race", "--hierarchies",
            census / "h", "-k", 3, "--algorithm", "optimal", "-o", tmp_path / "o.csv"]
    code, out, err = _run(capsys, *argv)
    assert code == 0 and "streamed" not in out, err          # 190 KiB < 64 MiB
    monkeypatch.setattr(stream, "STREAM_BYTES", 1000)
    code, out, err = _run(capsys, *argv)
    assert code == 0 and "streamed" in out, err
    code, out, err = _run(capsys, *argv, "--algorithm", "mondrian")
    assert code == 0 and "streamed" not in out, err          # a local recoding: in memory
    assert "read into memory, not streamed" in err and "'mondrian'" in err


def test_written_cells_that_break_k_are_refused_and_nothing_is_published(census, tmp_path,
                                                                         capsys, monkeypatch):
    import kanon_graph.cli._stream_write as writer

    real = writer._tuple_cells

    def one_class_split(result, counted):
        cells, gone, written = real(result, counted)
        first = np.flatnonzero(~gone & written & (counted.counts < 3))[0]
        codes, labels = cells["sex"]
        labels = np.append(labels, "a label of its own").astype(object)
        codes = codes.astype(np.int64)
        codes[first] = len(labels) - 1                       # its rows: a class of their own
        cells["sex"] = (codes, labels)
        return cells, gone, written

    monkeypatch.setattr(writer, "_tuple_cells", one_class_split)
    out = tmp_path / "o.csv"
    code, _, err = _run(capsys, "anonymize", census / "census.csv", "--qi", "sex,age,race",
                        "--hierarchies", census / "h", "-k", 3, "--algorithm", "optimal",
                        "-o", out, "--report", tmp_path / "r.json", "--stream", "on",
                        "--chunk-rows", 100)
    line = _error(err)
    assert code == 1 and "fewer than k=3" in line and "nothing is written" in line
    assert not out.exists() and not (tmp_path / "r.json").exists()
    assert [p.name for p in tmp_path.iterdir()] == []       # no temporary left behind


def test_classes_past_62_bits_of_labels_are_counted_by_their_cells():
    from kanon_graph.cli._stream_write import _Classes

    cells = {"a": np.array(["x", "y", "z"], dtype=object), "b": np.array(["1", "1", "2"],
                                                                        dtype=object)}
    keyed, grouped = _Classes(cells, ["a", "b"]), _Classes(cells, ["a", "b"])
    grouped.radices = None                     # as when the label counts overflow a key
    import pandas as pd

    for rows in (["x", "y", "x"], ["z", "x"]):
        frame = pd.DataFrame({"a": rows, "b": [{"x": "1", "y": "1", "z": "2"}[r] for r in rows]})
        keyed.add(frame)
        grouped.add(frame)
    assert sorted(keyed.sizes().tolist()) == sorted(grouped.sizes().tolist()) == [1, 1, 3]


@pytest.mark.parametrize("keep_order", [[], ["--keep-order"]])
def test_an_interrupted_write_leaves_no_release_no_temporary(census, tmp_path, capsys,
                                                             monkeypatch, keep_order):
    import kanon_graph.cli._stream_write as writer

    real, calls = writer._Out.take, []

    def interrupted(self, frame, start):
        calls.append(start)
        if len(calls) == 3:
            raise KeyboardInterrupt            # Ctrl-C (SIGTERM ends the command alike)
        return real(self, frame, start)

    monkeypatch.setattr(writer._Out, "take", interrupted)
    code, _, err = _run(capsys, "anonymize", census / "census.csv", "--qi", "sex,age,race",
                        "--hierarchies", census / "h", "-k", 3, "--algorithm", "optimal",
                        "-o", tmp_path / "o.csv", "--report", tmp_path / "r.json",
                        "--stream", "on", "--chunk-rows", 200, *keep_order)
    assert code == 130 and "interrupted" in _error(err)
    assert list(tmp_path.iterdir()) == []


def test_stream_on_refuses_safepub_whose_withheld_rows_only_memory_writes(odd, capsys):
    """safepub's records not released say nothing in any column: the in-memory writer only."""
    code, _, err = _run(capsys, "anonymize", odd / "odd.csv", "--qi", "zip,age",
                        "--hierarchies", odd / "h", "--algorithm", "safepub", "--epsilon", 2,
                        "--delta", 0.5, "--missing", "drop", "-o", odd / "o.csv",
                        "--stream", "on")
    line = _error(err)
    assert code in (1, 2) and "--stream on" in line and "withholds every cell" in line
