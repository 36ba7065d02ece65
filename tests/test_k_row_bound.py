"""k above the row count refused before a row is read (issue 47 item 2).

The bound is counted on the file's bytes (line breaks; a Parquet footer): a
quoted line break, a blank line only over-count, so a k above it is above
the row count. The CLI tests spy on the readers and assert on what ran.
"""

import numpy as np
import pandas as pd
import pytest

import kanon_graph.cli._common as common
import kanon_graph.cli.anonymize as anonymize_cli
import kanon_graph.io.read as read
from kanon_graph.cli import main
from kanon_graph.io.bounds import record_bound

CASES = {
    "lf": (b"a,b\n1,2\n3,4\n", 2),
    "crlf": (b"a,b\r\n1,2\r\n3,4\r\n", 2),
    "cr only": (b"a,b\r1,2\r3,4\r", 2),
    "no last break": (b"a,b\r\n1,2\r\n3,4", 2),
    "quoted breaks": (b'a,b\r\n1,"x\r\ny"\r\n3,"\n"\r\n', 2),
    "blank lines": (b"a,b\n1,2\n\n3,4\n\n", 2),
    "header only": (b"a,b\n", 0),
    "empty": (b"", 0),
    "utf-16 crlf": ("a,b\r\n1,2\r\n3,4\r\n".encode("utf-16"), 2),
}


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("block", [1, 2, 3, 5, 1 << 20])
def test_the_bound_is_never_below_the_records_whatever_the_blocks(tmp_path, name, block):
    data, records = CASES[name]
    path = tmp_path / "t.csv"
    path.write_bytes(data)
    encoding = "utf-16" if name.startswith("utf-16") else "utf-8"
    bound = record_bound(path, encoding, block=block)
    assert bound >= records
    if name in ("lf", "crlf", "cr only", "no last break", "header only", "empty"):
        assert bound == records                       # exact for plain files
    assert bound == record_bound(path, encoding)      # the blocks do not change it


def test_the_bound_covers_what_the_reader_reads(tmp_path):
    rng = np.random.default_rng(4)
    for trial in range(20):
        n = int(rng.integers(1, 40))
        cells = rng.choice(["x", "y z", "two\nlines", "a\r\nb", ""], n)
        frame = pd.DataFrame({"a": cells, "b": rng.integers(0, 9, n).astype(str)})
        path = tmp_path / f"t{trial}.csv"
        frame.to_csv(path, index=False, lineterminator=["\n", "\r\n"][trial % 2])
        assert record_bound(path) >= len(read.read_input_table(path).frame)


def test_no_bound_where_it_cannot_be_told(tmp_path):
    path = tmp_path / "t.csv"
    path.write_bytes("a,b\n1,2\n".encode("cp500"))     # EBCDIC: a line break is no \n byte
    assert record_bound(path, "cp500") is None
    assert record_bound(tmp_path / "missing.csv") is None
    assert record_bound(path, "no-such-codec") is None


ROWS = 30_000


@pytest.fixture(scope="module")
def csv_file(tmp_path_factory):
    folder = tmp_path_factory.mktemp("bound")
    rng = np.random.default_rng(0)
    table = pd.DataFrame({"zip": np.char.zfill(rng.integers(0, 99, ROWS).astype(str), 5),
                          "sex": rng.choice(["F", "M"], ROWS),
                          "note": rng.choice(["plain", "two\nlines"], ROWS)})
    path = folder / "t.csv"
    table.to_csv(path, index=False, lineterminator="\r\n")
    hierarchies = folder / "h"
    hierarchies.mkdir()
    (hierarchies / "sex.csv").write_text("F;*\nM;*\n")
    (hierarchies / "zip.csv").write_text("".join(f"{z};*\n" for z in sorted(set(table["zip"]))))
    parts = folder / "parts"
    parts.mkdir()
    for i, part in enumerate(np.array_split(np.arange(ROWS), 3)):
        table.iloc[part].to_parquet(parts / f"part-{i}.parquet", index=False)
    csvs = folder / "csvs"
    csvs.mkdir()
    for i, part in enumerate(np.array_split(np.arange(ROWS), 3)):
        table.iloc[part].to_csv(csvs / f"part-{i}.csv", index=False)
    return path, hierarchies, parts, csvs


@pytest.fixture
def spies(monkeypatch):
    seen = {"read_input_table": 0, "load_hierarchies": 0, "read_dask_table": 0, "records": 0}

    def counting(module, name):
        fn = getattr(module, name)

        def spy(*args, **kwargs):
            seen[name] += 1
            return fn(*args, **kwargs)
        monkeypatch.setattr(module, name, spy)

    counting(common, "read_input_table")
    counting(common, "load_hierarchies")
    counting(anonymize_cli, "read_dask_table")
    original = read.csv_records

    def records(*args, **kwargs):                 # rows handed out by the row reader
        for header, rows, lines in original(*args, **kwargs):
            seen["records"] += len(rows)
            yield header, rows, lines
    monkeypatch.setattr(read, "csv_records", records)
    return seen


def _run(path, tmp_path, k, *flags):
    return main(["anonymize", str(path), "--qi", "zip,sex", "--categorical", "zip",
                 "--identifiers", "note", "-k", str(k), "-o", str(tmp_path / "out"), "-q",
                 *flags])


def _refused(err, k, bound):
    assert f"The 'k' parameter of anonymize (-k) must be an integer in [1, {bound}]" in err
    assert f"Got {k}." in err and err.count("\n") == 1 and "Traceback" not in err


def test_k_above_the_bound_is_refused_before_the_file_or_hierarchies_are_read(
        csv_file, tmp_path, spies, capsys):
    path, hierarchies, _, _ = csv_file
    bound = record_bound(path)
    assert bound > ROWS                                # the quoted breaks over-count
    code = _run(path, tmp_path, bound + 1, "--hierarchies", str(hierarchies))
    err = capsys.readouterr().err
    assert code == 1
    assert spies["read_input_table"] == spies["load_hierarchies"] == 0
    assert spies["read_dask_table"] == 0 and spies["records"] <= 1   # the header, one row
    _refused(err, bound + 1, bound)
    assert "at most" in err and "line breaks" in err and "t.csv" in err


def test_k_between_rows_and_bound_is_refused_after_reading_by_the_row_count(
        csv_file, tmp_path, capsys):
    path = csv_file[0]
    assert _run(path, tmp_path, ROWS + 1) == 1
    _refused(capsys.readouterr().err, ROWS + 1, ROWS)


def test_k_equal_to_the_rows_is_accepted(csv_file, tmp_path, capsys):
    path = csv_file[0]
    assert _run(path, tmp_path, ROWS) == 0, capsys.readouterr().err
    assert len(pd.read_csv(tmp_path / "out", dtype=str)) == ROWS


@pytest.mark.parametrize("which", [2, 3])
def test_dask_k_above_the_bound_is_refused_before_the_files_are_read(csv_file, tmp_path,
                                                                     spies, capsys, which):
    pytest.importorskip("dask.dataframe")
    pytest.importorskip("pyarrow")
    folder = csv_file[which]
    files = sorted(folder.iterdir())
    bound = sum(record_bound(f) for f in files)
    code = _run(folder, tmp_path, bound + 1, "--engine", "dask")
    err = capsys.readouterr().err
    assert code == 1 and spies["read_dask_table"] == 0 and spies["load_hierarchies"] == 0
    assert spies["records"] <= 3                       # each file's header and one row
    _refused(err, bound + 1, bound)
    if which == 2:
        assert bound == ROWS and "Parquet footer of each file" in err


def test_dask_k_equal_to_the_rows_is_accepted(csv_file, tmp_path, capsys, dask_client):
    pytest.importorskip("dask.dataframe")
    pytest.importorskip("pyarrow")
    code = _run(csv_file[2], tmp_path, ROWS, "--engine", "dask", "--hierarchies",
                str(csv_file[1]))
    assert code == 0, capsys.readouterr().err
    assert len(pd.read_parquet(tmp_path / "out")) == ROWS


@pytest.mark.parametrize("content, k", [(b"zip,sex,note\n", 2),          # refused from the bound
                                        (b"zip,sex,note\r\n\r\n", 1)])  # from the rows read
def test_a_file_with_a_header_and_no_records_says_so(tmp_path, capsys, content, k):
    path = tmp_path / "empty.csv"
    path.write_bytes(content)
    assert _run(path, tmp_path, k) == 1
    err = capsys.readouterr().err
    assert "'k' parameter" not in err and "Traceback" not in err and err.count("\n") == 1
    assert "empty.csv" in err and "has no records" in err
