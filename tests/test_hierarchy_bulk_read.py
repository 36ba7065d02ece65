"""A large regular hierarchy file is cut into columns at once (``_rows._plain_columns``,
``Hierarchy._from_columns``), and reads as the row-by-row reading does: the same tree,
line numbers, implicit root and MAGVal marks, or the same error, on random files."""

from __future__ import annotations

import warnings

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import kanon_graph.hierarchy._io as io_module
import kanon_graph.hierarchy._tree as tree_module
from kanon_graph.exceptions import HierarchyError
from kanon_graph.hierarchy import read_hierarchy
from kanon_graph.hierarchy._rows import _plain_columns, _plain_rows

from test_hierarchy_vectorized import same_hierarchy

SETTINGS = settings(max_examples=150, deadline=None)
LABEL = st.text(alphabet=list("ab9*-. "), min_size=0, max_size=3)


@SETTINGS
@given(text=st.text(alphabet=list("ab9*;,\t -\n\r\"é"), max_size=80),
       sep=st.sampled_from([";", ",", "\t"]))
def test_columns_are_the_plain_rows_when_given(text, sep):
    columns = _plain_columns(text, sep)
    if columns is None:
        return
    rows, lines, marks = _plain_rows(text, sep)
    assert [list(row) for row in zip(*columns)] == rows
    assert lines == list(range(1, len(rows) + 1)) and marks == []


@st.composite
def files(draw):
    """A hierarchy file as a builder writes it, now and then with a flaw of a hand-made one."""
    n = draw(st.integers(1, 12))
    height = draw(st.integers(1, 3))
    rows = [[f"v{i}"] for i in range(n)]
    for level in range(1, height + 1):
        groups = draw(st.integers(1, max(1, n // level)))
        for i, row in enumerate(rows):
            row.append(f"g{level}.{i % groups}")
    if draw(st.booleans()):
        for row in rows:
            row[-1] = "*"                         # one root, or several (an implicit root)
    for _ in range(draw(st.integers(0, 2))):       # flaws: odd labels, widths, blank lines
        i, level = draw(st.integers(0, n - 1)), draw(st.integers(0, height))
        rows[i][level] = draw(LABEL)
    if draw(st.booleans()):
        rows.insert(draw(st.integers(0, n)), list(rows[draw(st.integers(0, n - 1))]))
    if draw(st.integers(0, 5)) == 0:
        rows[draw(st.integers(0, n - 1))].append("x")
    sep = draw(st.sampled_from([";", ","]))
    lines = [sep.join(row) for row in rows]
    if draw(st.integers(0, 5)) == 0:
        lines.insert(draw(st.integers(0, n)), "")
    end = draw(st.sampled_from(["\n", "\r\n"]))
    return end.join(lines) + (end if draw(st.booleans()) else "")


def _read(path):
    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always")
        try:
            hierarchy, error = read_hierarchy(path), None
        except HierarchyError as exc:
            hierarchy, error = None, str(exc)
    return hierarchy, error, [str(w.message) for w in said]


@SETTINGS
@given(text=files())
def test_a_file_cut_into_columns_reads_as_row_by_row(text, tmp_path_factory, monkeypatch_module):
    path = tmp_path_factory.mktemp("h") / "c.csv"
    path.write_bytes(text.encode())
    monkeypatch_module.setattr(io_module, "BULK_FROM", 0)
    monkeypatch_module.setattr(tree_module, "ARRAYS_FROM", 0)
    bulk, bulk_error, bulk_said = _read(path)
    monkeypatch_module.setattr(io_module, "BULK_FROM", 10**9)
    monkeypatch_module.setattr(tree_module, "ARRAYS_FROM", 10**9)
    rows, rows_error, rows_said = _read(path)
    assert bulk_error == rows_error and bulk_said == rows_said
    if rows is not None:
        same_hierarchy(bulk, rows)
        assert bulk.implicit_root == rows.implicit_root
        assert [bulk._magval[level].tolist() for level in range(bulk.height + 1)] == \
            [rows._magval[level].tolist() for level in range(rows.height + 1)]


def test_a_large_regular_file_makes_no_row_lists(tmp_path, monkeypatch):
    """A ZIP+4-like file of 3,000 lines is read without the row-by-row split."""
    lines = [f"{z:05d}-{p:04d};{z:05d}-****;{z // 100:03d}**;*****"
             for z in range(1000, 1030) for p in range(100)]
    path = tmp_path / "zip.csv"
    path.write_text("\r\n".join(lines) + "\r\n")

    def refused(*args):
        raise AssertionError("read row by row")

    monkeypatch.setattr(io_module, "_plain_rows", refused)
    monkeypatch.setattr(io_module, "BULK_FROM", 20_000)       # as shipped
    hierarchy = read_hierarchy(path)
    assert hierarchy.n_leaves == 3000 and hierarchy.height == 3
    assert hierarchy.generalize("01029-0099", 2) == "010**"
    assert hierarchy.line_of("01001-0005") == 106


def test_a_mark_or_a_blank_line_is_read_row_by_row(tmp_path, monkeypatch):
    monkeypatch.setattr(io_module, "BULK_FROM", 0)
    body = "\n".join(f"{i:05d};{i // 10:04d}*;*" for i in range(3000))
    path = tmp_path / "m.csv"
    path.write_text(body.replace("00000;0000*", "00000;*South*", 1) + "\n\n00x;001*;*\n")
    assert _plain_columns(path.read_text(), ";") is None
    hierarchy = read_hierarchy(path)
    assert hierarchy.magval("00000") == "South" and hierarchy.line_of("00x") == 3002


@pytest.fixture(scope="module")
def monkeypatch_module():
    patch = pytest.MonkeyPatch()
    yield patch
    patch.undo()
