"""The interval and masking hierarchy builders."""

import numpy as np
import pytest

from kanon_graph import HierarchyError
from kanon_graph.hierarchy import intervals, masking


# ------------------------------------------------------------------ intervals
def test_widths_nest_and_cover_every_value():
    h = intervals(range(1, 101), widths=[5, 10, 20], name="age")
    assert h.height == 4
    assert [len(h.labels(l)) for l in range(5)] == [100, 21, 11, 6, 1]   # 100 opens a band
    assert h.ancestors(37) == ["37", "[35-39]", "[30-39]", "[20-39]", "*"]
    assert h.ancestors(1) == ["1", "[0-4]", "[0-9]", "[0-19]", "*"]
    assert h.ancestors(100) == ["100", "[100-104]", "[100-109]", "[100-119]", "*"]
    # every band holds exactly the integers its label names
    for level in range(1, 4):
        for j, label in enumerate(h.labels(level)):
            lo, hi = (int(x) for x in label.strip("[]").split("-"))
            under = h.leaf_values[h.level_map[level] == j]
            assert lo <= under.min() and under.max() <= hi


def test_widths_with_origin():
    h = intervals([20, 24, 25, 29, 30], widths=[5], origin=20, name="age")
    assert h.generalize(24, 1) == "[20-24]"
    h = intervals([20, 24, 25, 29, 30], widths=[5], origin=21, name="age")
    assert h.generalize(20, 1) == "[16-20]"
    assert h.generalize(24, 1) == "[21-25]"


def test_duplicates_ignored_and_float_values_half_open():
    h = intervals([3, 3, 1], widths=[2], name="x")
    assert h.leaf_labels == ["1", "3"]
    f = intervals([0.5, 1.5, 2.25], widths=[1.0], name="x")
    assert f.generalize(1.5, 1) == "[1-2)"
    assert f.generalize(2.25, 1) == "[2-3)"


def test_widths_that_do_not_nest_rejected():
    with pytest.raises(HierarchyError, match="width 15 is not a multiple of 10"):
        intervals(range(50), widths=[10, 15], name="age")
    with pytest.raises(HierarchyError, match="positive"):
        intervals(range(50), widths=[0], name="age")


def test_cuts():
    h = intervals([1, 5, 12, 25, 40], cuts=[[0, 10, 20, 30], [0, 20]], name="x")
    assert h.ancestors(5) == ["5", "[0-9]", "[0-19]", "*"]
    assert h.ancestors(25) == ["25", "[20-29]", "[20-inf]", "*"]
    assert h.ancestors(40) == ["40", "[30-inf]", "[20-inf]", "*"]
    below = intervals([-3, 4], cuts=[[0]], name="x")
    assert below.generalize(-3, 1) == "[-inf--1]"
    assert below.generalize(4, 1) == "[0-inf]"


def test_cuts_that_do_not_nest_rejected():
    with pytest.raises(HierarchyError) as info:
        intervals(range(30), cuts=[[0, 10, 20], [0, 15]], name="age")
    assert "['15']" in str(info.value) and "nest" in str(info.value) and "'age'" in str(info.value)


def test_interval_argument_errors():
    with pytest.raises(HierarchyError, match="exactly one of widths= or cuts="):
        intervals(range(5), name="x")
    with pytest.raises(HierarchyError, match="exactly one of widths= or cuts="):
        intervals(range(5), widths=[2], cuts=[[0, 2]], name="x")
    with pytest.raises(HierarchyError, match="no values"):
        intervals([], widths=[2], name="x")
    with pytest.raises(HierarchyError, match="must be numbers"):
        intervals(["a", "b"], widths=[2], name="x")


def test_interval_leaves_are_numeric():
    h = intervals(range(20, 41), widths=[5, 10], name="age")
    assert np.array_equal(h.leaf_values, np.arange(20, 41, dtype=float))
    assert h.encode([20.0, 40, 33]).tolist() == [0, 20, 13]


# -------------------------------------------------------------------- masking
def test_masking_levels():
    h = masking(["535280", "535285", "535292"], levels=2, name="zip")
    assert h.height == 2
    assert h.labels(1) == ["53528*", "53529*"]
    assert h.labels(2) == ["5352**"]
    assert h.leaves("53528*") == ["535280", "535285"]


def test_masking_adds_root_when_top_level_is_not_single():
    h = masking(["12", "34"], levels=1, name="x", root="ANY")
    assert h.height == 2
    assert h.ancestors("12") == ["12", "1*", "ANY"]


def test_masking_all_characters_and_custom_mask():
    h = masking(["ab", "ac"], mask="#", name="x")
    assert h.ancestors("ab") == ["ab", "a#", "##"]


def test_masking_accepts_ints_and_dedupes():
    h = masking([11, 12, 12], levels=1, name="x")
    assert h.leaf_labels == ["11", "12"]


def test_masking_errors():
    with pytest.raises(HierarchyError, match=r"different lengths \('123', '1234'\)"):
        masking(["123", "1234"], name="zip")
    with pytest.raises(HierarchyError, match=r"levels must be in \[1, 3\], got 4"):
        masking(["123"], levels=4, name="zip")
    with pytest.raises(HierarchyError, match="no values"):
        masking([], name="zip")


@pytest.mark.parametrize("given, said", [
    (dict(widths=10), "widths= must be a list of finite numbers"),
    (dict(widths=[5, float("nan")]), "widths= must be a list of finite numbers"),
    (dict(cuts=[5, 10]), "cuts= must be a list of levels, each a list of cut points"),
    (dict(cuts=5), "cuts= must be a list of levels, each a list of cut points"),
    (dict(cuts=[["x"]]), "each level of cuts= must be a list of finite numbers"),
])
def test_intervals_names_a_malformed_widths_or_cuts(given, said):
    # a bare number or a flat list of cuts was a TypeError from inside, or read as levels
    with pytest.raises(HierarchyError, match=said):
        intervals([1, 5, 12], name="age", **given)
