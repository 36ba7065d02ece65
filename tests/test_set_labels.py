"""Issue 31, item 17: released value sets read back unambiguously.

A categorical value without a hierarchy that could be misread is released in double
quotes: inside a set, one with a comma, a brace, a quote, edge whitespace, or one of the
markers ``*`` and ``(missing)``; alone (a cell the algorithm did not generalize), only
one that would read as something else (a marker, empty, a quoted or a set form).
Everything else exactly as before.
"""

from __future__ import annotations

import json

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import kanon_graph as kg
from kanon_graph.cli import main


def quoted(value):
    """(imported late, so the behaviour tests below also run on code without it)"""
    from kanon_graph.recoding._value_labels import quoted as written

    return written(value)


def read_members(text):
    from kanon_graph.recoding._value_labels import read_members as read

    return read(text)


def alone(value):
    from kanon_graph.recoding._value_labels import alone as written

    return written(value)


def set_label(members):
    from kanon_graph.recoding._value_labels import set_label as label

    return label(members)


ODD = ["a,b", "c", " sp", "sp", "{x}", "x", "*", "(missing)", 'q"x', '"', "", "plain"]


def _label(values, missing=False):
    forms = [(v, quoted(v)) for v in values]
    if missing:
        forms.append(("(missing)", "(missing)"))
    return set_label(forms)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.text(alphabet=st.sampled_from(list('ab ,{}"*()\tmising')), max_size=6),
                min_size=1, max_size=5, unique=True), st.booleans())
def test_every_set_reads_back_as_written(values, missing):
    label = _label(values, missing)
    members = read_members(label)
    if len(values) == 1 and not missing:            # one value: written alone
        assert members == [(values[0], alone(values[0]) != values[0])]
        return
    want = sorted([(v, True) if quoted(v) != v else (v, False) for v in values]
                  + ([("(missing)", False)] if missing else []))
    assert sorted(members) == want


@settings(max_examples=300, deadline=None)
@given(st.lists(st.text(alphabet=st.sampled_from(list('ab ,{}"*')), max_size=4), min_size=1,
                max_size=3, unique=True),
       st.lists(st.text(alphabet=st.sampled_from(list('ab ,{}"*')), max_size=4), min_size=1,
                max_size=3, unique=True))
def test_two_different_sets_never_print_alike(one, other):
    if set(one) != set(other):
        assert _label(one) != _label(other)


def test_plain_values_are_released_as_before():
    assert _label(["b", "a"]) == "{a,b}"
    assert _label(["Married-civ-spouse", "Never-married"]) == "{Married-civ-spouse,Never-married}"
    assert _label(["a"], missing=True) == "{(missing),a}"
    assert [quoted(v) for v in ("flu", "20-29", "a b", "x:y", "é")] == \
        ["flu", "20-29", "a b", "x:y", "é"]


def test_a_value_alone_is_released_byte_for_byte_unless_it_reads_otherwise():
    assert [alone(v) for v in (" sp", "a,b", "  ", "x ")] == [" sp", "a,b", "  ", "x "]
    assert [alone(v) for v in ("*", " * ", "(missing)", "{x}", '"q"', "")] == \
        ['"*"', '" * "', '"(missing)"', '"{x}"', '"""q"""', '""']
    for v in (" sp", "a,b", "  ", "*", " * ", "{x}", '"q"', "", "(missing)"):
        assert read_members(alone(v)) == [(v, alone(v) != v)]


def test_the_issue_cases_are_written_distinctly():
    assert _label(["a,b", "c"]) == '{"a,b",c}'
    assert quoted(" sp") == '" sp"' and quoted("{x}") == '"{x}"'
    assert quoted("*") == '"*"' and quoted("(missing)") == '"(missing)"'
    assert read_members('"{x}"') == [("{x}", True)]
    assert read_members("{x}") == [("x", False)]
    assert read_members("{a, b}") == [("a", False), ("b", False)]     # another tool's set


def _table(values, copies):
    cells = [v for v in values for _ in range(copies)]
    return pd.DataFrame({"c": cells, "n": [str(i) for i in range(len(cells))]})


@pytest.mark.parametrize("k", [2, 4, 6])
def test_a_release_of_odd_values_evaluates_as_anonymize_measured_it(k):
    table = _table(ODD, 2)
    table.loc[len(table)] = [None, "x"]
    table.loc[len(table)] = [None, "y"]
    schema = kg.Schema(quasi_identifiers=["c"])
    res = kg.anonymize(table, schema, k=k, algorithm="mondrian", missing="keep")
    ev = kg.evaluate(table, res.table, schema, k=k, missing="keep")
    assert ev.suppressed == res.suppressed == 0
    assert ev.metrics == res.metrics
    assert ev.verification.holds and ev.verification.k_achieved == res.verification.k_achieved


def test_a_literal_star_is_a_value_not_a_suppressed_record():
    table = _table(["*", "a", "b"], 2)
    schema = kg.Schema(quasi_identifiers=["c"])
    res = kg.anonymize(table, schema, k=2, algorithm="mondrian")
    assert res.suppressed == 0 and res.metrics["loss"] == 0.0
    assert list(res.table["c"].astype(str)[:2]) == ['"*"', '"*"']
    ev = kg.evaluate(table, res.table, schema, k=2)
    assert ev.suppressed == 0 and ev.metrics["loss"] == 0.0


def test_a_literal_missing_text_is_not_the_kept_missing_cell():
    table = _table(["(missing)", "a"], 2)
    table.loc[len(table)] = [None, "x"]
    table.loc[len(table)] = [None, "y"]
    schema = kg.Schema(quasi_identifiers=["c"])
    res = kg.anonymize(table, schema, k=2, algorithm="mondrian", missing="keep")
    cells = list(res.table["c"].astype(str))
    assert cells.count('"(missing)"') == 2 and cells.count("(missing)") == 2
    # an honest release where the two are swapped is caught: each covers only its own
    swapped = res.table["c"].astype(str).replace({'"(missing)"': "(missing)",
                                                  "(missing)": '"(missing)"'})
    with pytest.raises(kg.exceptions.DataError, match="does not cover"):
        kg.evaluate(table, res.table.assign(c=swapped), schema, k=2, missing="keep")


@pytest.mark.parametrize("k", [3, 6])
def test_the_command_line_release_checks_out(tmp_path, k, capsys):
    table = _table(["a,b", "c", " sp", "{x}", "*", "(missing)", 'q"x', "plain"], 3)
    table.loc[len(table)] = ["", "a"]               # the empty CSV cell: missing, kept
    table.loc[len(table)] = ["", "b"]
    table.loc[len(table)] = ["", "c"]
    path, out, run = tmp_path / "in.csv", tmp_path / "out.csv", tmp_path / "run.json"
    table.to_csv(path, index=False)
    assert main(["anonymize", str(path), "--qi", "c", "-k", str(k), "--algorithm", "mondrian",
                 "--missing", "keep", "-o", str(out), "--report", str(run), "-q"]) == 0
    assert main(["evaluate", str(path), str(out), "--qi", "c", "-k", str(k), "--missing",
                 "keep", "--unshuffle", str(run), "--check", "--report",
                 str(tmp_path / "ev.json")]) == 0
    measured = json.loads((tmp_path / "ev.json").read_text())
    made = json.loads(run.read_text())
    assert measured["suppressed"] == made["suppressed"] == 0
    assert measured["metrics"]["loss"] == pytest.approx(made["metrics"]["loss"])
    written = set(pd.read_csv(out, dtype=str, keep_default_na=False)["c"])
    if k == 3:                                       # every value kept alone, as it came
        assert {"a,b", "c", " sp", '"{x}"', '"*"', '"(missing)"', 'q"x', "plain",
                "(missing)"} == written
    capsys.readouterr()


def test_two_values_with_a_comma_and_without_share_a_set(tmp_path):
    table = _table(["a,b", "c"], 1)
    schema = kg.Schema(quasi_identifiers=["c"])
    res = kg.anonymize(table, schema, k=2, algorithm="mondrian")
    assert set(res.table["c"].astype(str)) == {'{"a,b",c}'}
    ev = kg.evaluate(table, res.table, schema, k=2)
    assert ev.verification.holds and ev.metrics == res.metrics
