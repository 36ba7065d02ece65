"""CSV input in another text encoding than UTF-8 (issue 30, item 6: a new user's Latin-1 file).

``encoding=`` of the readers and ``--encoding`` of every command that reads a
data file: the cells are decoded exactly (``Müller`` from Latin-1 is
``Müller`` in the release, written as UTF-8); a byte that does not decode is
one line naming the file, the line and the byte, and suggesting
``--encoding latin-1``, never a ``UnicodeDecodeError`` traceback.
"""

import collections
import json

import pandas as pd
import pytest

import kanon_graph as kg
from kanon_graph.cli import main
from kanon_graph.exceptions import DataError
from kanon_graph.io import read as read_module

WARDS = ["Süd", "Nord", "Mitte-Ost"]
TOWNS = ["München", "Köln", "Düsseldorf", "Zürich", "Bremen", "Müller-Stadt"]


def _table(n=60):
    return pd.DataFrame({"ward": [WARDS[i % 3] for i in range(n)],
                         "sex": ["F", "M"] * (n // 2),
                         "age": [str(20 + (i * 7) % 50) for i in range(n)],
                         "town": [TOWNS[i % 6] for i in range(n)]})


def _write(table, path, encoding="latin-1", **options):
    table.to_csv(path, index=False, encoding=encoding, **options)
    return path


def _error(capsys):
    err = capsys.readouterr().err
    assert "Traceback" not in err and "UnicodeDecodeError" not in err, err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    return lines[0]


# -- the library's readers -------------------------------------------------------------------

@pytest.mark.parametrize("quoted", [False, True])    # the fast reader, and the row reader
def test_read_table_decodes_latin1_exactly(tmp_path, quoted):
    table = _table()
    path = _write(table, tmp_path / "t.csv", quoting=1 if quoted else 0)
    read = kg.io.read_table(path, encoding="latin-1")
    assert read["town"].tolist() == table["town"].tolist()
    assert read["ward"].tolist() == table["ward"].tolist()
    text = kg.io.read_input_table(path, encoding="latin-1")
    assert text.frame["town"].tolist() == table["town"].tolist()
    assert text.lines.tolist() == list(range(2, len(table) + 2))
    # a Latin-1 file without quotes takes the fast reader, which reads it the same
    fast = read_module._read_plain(path, ",", "iso8859-1")
    assert (fast is not None) is not quoted
    if fast is not None:
        pd.testing.assert_frame_equal(fast.frame, text.frame)


def test_without_the_encoding_the_error_names_file_line_and_byte(tmp_path):
    path = _write(_table(), tmp_path / "t.csv")
    # 'Süd' is the ward of row 1 (file line 2); its 'ü' is byte 0xfc in Latin-1
    raw = path.read_bytes()
    offset = raw.index(b"\xfc")
    with pytest.raises(DataError) as caught:
        kg.io.read_table(path)
    message = str(caught.value)
    assert "\n" not in message
    assert repr(str(path)) in message and "line 2:" in message
    assert f"byte 0xfc (offset {offset})" in message
    assert "--encoding latin-1" in message


def test_the_error_names_the_right_line_deep_in_a_large_file(tmp_path):
    """The row reader decodes in chunks: the line and offset are the file's, not a chunk's."""
    lines = ["ward,sex"] + ["Nord,F"] * 20_000 + ["Süd,M"] + ["Nord,M"] * 10
    path = tmp_path / "big.csv"
    path.write_bytes("\n".join(lines).encode("latin-1") + b"\n")
    offset = path.read_bytes().index(b"\xfc")
    with pytest.raises(DataError, match=rf"line 20002: byte 0xfc \(offset {offset}\)"):
        kg.io.read_text_table(path)
    read = kg.io.read_text_table(path, encoding="latin-1")
    assert read.frame["ward"].iloc[20_000] == "Süd" and read.lines[20_000] == 20_002


def test_utf8_stays_the_default_and_its_byte_order_mark_is_dropped(tmp_path):
    table = _table()
    path = _write(table, tmp_path / "t.csv", encoding="utf-8-sig")
    read = kg.io.read_table(path)
    assert list(read.columns) == list(table.columns)
    assert read["town"].tolist() == table["town"].tolist()


def test_a_utf8_file_read_as_latin1_is_refused_not_garbled(tmp_path):
    path = _write(_table(), tmp_path / "t.csv", encoding="utf-8-sig")
    with pytest.raises(DataError, match="starts with a UTF-8 byte order mark"):
        kg.io.read_table(path, encoding="latin-1")


def test_utf16_is_read_by_the_row_reader(tmp_path):
    table = _table()
    path = _write(table, tmp_path / "t.csv", encoding="utf-16")
    assert kg.io.read_table(path, encoding="utf-16")["town"].tolist() == table["town"].tolist()


@pytest.mark.parametrize("bad", ["latin-7", "", "base64", 8])
def test_an_unknown_encoding_names_the_parameter(tmp_path, bad):
    path = _write(_table(), tmp_path / "t.csv")
    with pytest.raises(DataError, match="The 'encoding' parameter of read_text_table"):
        kg.io.read_table(path, encoding=bad)


def test_parquet_refuses_another_encoding(tmp_path):
    pytest.importorskip("pyarrow")
    path = tmp_path / "t.parquet"
    _table().to_parquet(path, index=False)
    assert kg.io.read_table(path)["town"].tolist() == _table()["town"].tolist()
    with pytest.raises(DataError, match="is Parquet, whose text is UTF-8"):
        kg.io.read_table(path, encoding="latin-1")


# -- the command line ------------------------------------------------------------------------

def _anonymize(path, out, *more):
    return main(["anonymize", str(path), "--qi", "ward,sex", "-k", "4", "--algorithm",
                 "mondrian", "-o", str(out), "-q", *more])


def test_cli_latin1_round_trips_into_the_release(tmp_path, capsys):
    table = _table()
    path = _write(table, tmp_path / "in.csv")
    out, report = tmp_path / "out.csv", tmp_path / "report.json"
    assert _anonymize(path, out, "--encoding", "latin-1", "--report", str(report)) == 0
    released = kg.io.read_table(out)          # the release is UTF-8
    # the town column is not generalized: every cell goes out exactly as it came in
    assert collections.Counter(released["town"]) == collections.Counter(table["town"])
    assert "Süd" in set(released["ward"])      # a quasi-identifier value released as itself
    assert json.loads(report.read_text())["parameters"]["encoding"] == "latin-1"
    # evaluate: the original in Latin-1, the release as written (UTF-8)
    assert main(["evaluate", str(path), str(out), "--qi", "ward,sex", "-k", "4",
                 "--encoding", "latin-1", "--unshuffle", str(report), "-q"]) == 0
    assert main(["report", str(path), str(out), "--qi", "ward,sex", "-k", "4",
                 "--encoding", "latin-1", "--unshuffle", str(report),
                 "-o", str(tmp_path / "r.json"), "-q"]) == 0
    assert json.loads((tmp_path / "r.json").read_text())["privacy"]["holds"]


def test_cli_without_encoding_is_one_line_naming_file_line_and_byte(tmp_path, capsys):
    path = _write(_table(), tmp_path / "in.csv")
    out = tmp_path / "out.csv"
    assert _anonymize(path, out) == 1
    line = _error(capsys)
    assert line.startswith("kanon-graph: error: input file") and "in.csv" in line
    assert "line 2:" in line and "byte 0xfc" in line and "--encoding latin-1" in line
    assert not out.exists()


def test_cli_released_encoding_is_its_own(tmp_path, capsys):
    """--encoding names ORIGINAL's encoding; RELEASED is read as UTF-8 unless told."""
    table = _table()
    original = _write(table, tmp_path / "in.csv")
    released = _write(table, tmp_path / "rel.csv")            # another tool's, in Latin-1
    common = ["--qi", "ward,sex", "-k", "2", "--encoding", "latin-1", "-q"]
    assert main(["evaluate", str(original), str(released), *common]) == 1
    assert "rel.csv" in _error(capsys)
    assert main(["evaluate", str(original), str(released), *common,
                 "--released-encoding", "latin-1"]) == 0


def test_cli_unknown_encoding_is_a_usage_error(tmp_path, capsys):
    path = _write(_table(), tmp_path / "in.csv")
    assert _anonymize(path, tmp_path / "out.csv", "--encoding", "latin-7") == 2
    line = _error(capsys)
    assert "argument --encoding: unknown text encoding 'latin-7'" in line


def test_cli_hierarchy_suggest_and_build_read_latin1(tmp_path, capsys):
    path = _write(_table(), tmp_path / "in.csv")
    drafts = tmp_path / "drafts"
    assert main(["hierarchy", "suggest", str(path), "--qi", "ward", "--encoding", "latin-1",
                 "-o", str(drafts)]) == 0
    assert "Süd" in (drafts / "ward.csv").read_text(encoding="utf-8")
    capsys.readouterr()
    codes = _write(pd.DataFrame({"unit": ["Sü1", "Sü2", "Nö1"]}), tmp_path / "units.csv")
    assert main(["hierarchy", "build", "--mask", "1", "--values-from", str(codes), "--column",
                 "unit", "--encoding", "latin-1"]) == 0
    assert "Sü1;Sü*" in capsys.readouterr().out


def test_cli_dask_reads_every_file_with_the_encoding(tmp_path, capsys, dask_client):
    pytest.importorskip("pyarrow")
    table = _table()
    folder = tmp_path / "parts"
    folder.mkdir()
    for i in range(2):
        _write(table.iloc[i * 30:(i + 1) * 30], folder / f"part-{i}.csv")
    hierarchies = tmp_path / "h"
    hierarchies.mkdir()
    (hierarchies / "ward.csv").write_text("".join(f"{w};*\n" for w in WARDS), encoding="utf-8")
    (hierarchies / "sex.csv").write_text("F;*\nM;*\n", encoding="utf-8")
    out = tmp_path / "release"
    common = ["anonymize", str(folder), "--qi", "ward,sex", "--hierarchies", str(hierarchies),
              "-k", "4", "--algorithm", "optimal", "--engine", "dask", "-o", str(out), "-q"]
    assert main(common) == 1
    line = _error(capsys)
    assert "part-0.csv" in line and "--encoding latin-1" in line
    assert main([*common, "--encoding", "latin-1"]) == 0
    released = pd.read_parquet(out)
    assert collections.Counter(released["town"]) == collections.Counter(table["town"])
    assert "Süd" in set(released["ward"])


def test_windows_bytes_are_hinted_as_cp1252_first(tmp_path, capsys):
    """Issue 42 item 5: an en dash saved by Windows is 0x96, a control character in Latin-1."""
    path = tmp_path / "dash.csv"
    path.write_bytes("ward,sex\nNorth \u2013 East,F\nSouth,M\n".encode("cp1252"))
    with pytest.raises(DataError) as caught:
        kg.io.read_table(path)
    message = str(caught.value)
    assert "byte 0x96" in message and "--encoding cp1252" in message
    assert "latin-1" not in message.lower().split("read it with")[1]
    assert kg.io.read_table(path, encoding="cp1252")["ward"][0] == "North \u2013 East"
    assert _anonymize(path, tmp_path / "o.csv") == 1
    assert "--encoding cp1252" in capsys.readouterr().err
    plain = _write(_table(), tmp_path / "t.csv")           # Latin-1 letters, no 0x80-0x9F
    with pytest.raises(DataError, match="--encoding latin-1 or --encoding cp1252"):
        kg.io.read_table(plain)
