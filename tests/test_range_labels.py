"""A range label that does not cover its node's values is warned about at load."""

import warnings

import pytest

import kanon_graph as kg
from kanon_graph.exceptions import HierarchyWarning
from kanon_graph.hierarchy._labels import range_label_mismatches


def _load(rows):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        h = kg.Hierarchy.from_rows(rows, name="age")
    return h, [w for w in caught if issubclass(w.category, HierarchyWarning)]


def test_a_label_one_off_like_arx_adult_age_warns_naming_label_level_and_values():
    h, caught = _load([["39", "35-39", "*"], ["40", "35-39", "*"], ["41", "40-44", "*"]])
    assert len(caught) == 1
    text = str(caught[0].message)
    assert "'35-39' on level 1 covers values 39 to 40" in text and "hierarchy for 'age'" in text
    assert range_label_mismatches(h) == [(1, "35-39", 39.0, 40.0)]


@pytest.mark.parametrize("rows", [
    [["35", "[35-40)", "*"], ["39", "[35-40)", "*"], ["40", "[40-45)", "*"]],
    [["35", "35-39", "[30, 39]"], ["39", "35-39", "[30, 39]"]],
    [["1", "low", "*"], ["40", "high", "*"]],          # labels that are not ranges
    [["a", "1-2", "*"], ["b", "1-2", "*"]],             # leaves that are not numbers
])
def test_truthful_or_non_range_labels_do_not_warn(rows):
    _, caught = _load(rows)
    assert caught == []


def test_a_half_open_range_must_exclude_its_upper_bound():
    h, caught = _load([["35", "[35-40)", "*"], ["40", "[35-40)", "*"]])
    assert len(caught) == 1 and range_label_mismatches(h)[0][1] == "[35-40)"


def test_the_cli_prints_the_warning_as_one_line(tmp_path, capsys):
    from kanon_graph.cli import main

    (tmp_path / "age.csv").write_text("39;35-39;*\n40;35-39;*\n41;40-44;*\n")
    assert main(["hierarchy", "show", str(tmp_path / "age.csv")]) == 0
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("kanon-graph: warning: ")
    assert "'35-39' on level 1 covers values 39 to 40" in err[0]
