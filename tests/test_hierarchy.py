"""The Hierarchy tree: construction, lookups, generalization, LCA, CHD, MAGVal marks.

Paper values: Venkata Ramana & Valli Kumari (2013), "Graph based local
recoding for data anonymization", Definition 4 and Figure 2 (paper 003).
"""

import numpy as np
import pandas as pd
import pytest

import kanon_graph as kg
from kanon_graph import Hierarchy, HierarchyError


@pytest.fixture
def age():
    """003 Figure 2(a): leaves 20..40, 5-year bands, 10-year bands, [20-40]."""
    return kg.datasets.paper_003_hierarchies()["age"]


@pytest.fixture
def tiny():
    return Hierarchy.from_rows([
        ["a", "ab", "*"],
        ["b", "ab", "*"],
        ["c", "cd", "*"],
        ["d", "cd", "*"],
        ["e", "e", "*"],
    ], name="tiny")


# ------------------------------------------------------------------ structure
def test_paper_003_age_hierarchy_shape(age):
    assert age.height == 3
    assert age.n_leaves == 21
    assert age.labels(1) == ["[20-25]", "[26-30]", "[31-35]", "[36-40]"]
    assert age.labels(2) == ["[20-30]", "[31-40]"]
    assert age.labels(3) == ["[20-40]"]
    assert age.root.name == "[20-40]"
    # leaf counts per node, read off the figure
    assert age.leaf_counts[1].tolist() == [6, 5, 5, 5]
    assert age.leaf_counts[2].tolist() == [11, 10]
    assert age.leaf_counts[3].tolist() == [21]


def test_level_map_is_consistent_with_parents(tiny):
    # the level-l ancestor of every leaf is the parent of its level-(l-1) ancestor
    for leaf in tiny.leaf_labels:
        path = tiny.ancestors(leaf)
        assert [tiny.generalize(leaf, l) for l in range(tiny.height + 1)] == path
        node = tiny.node(leaf, 0)
        walked = [n.name for n in reversed(node.path)]
        assert walked == path


def test_anytree_nodes_carry_level_and_leaf_count(tiny):
    by_name = {(n.name, n.level): n for n in tiny}
    assert by_name[("ab", 1)].leaf_count == 2
    assert by_name[("e", 1)].leaf_count == 1
    assert by_name[("*", 2)].leaf_count == 5
    assert len(tiny) == 5 + 3 + 1
    assert sum(1 for _ in tiny) == len(tiny)


def test_level_of_label_and_repeated_label(tiny):
    assert tiny.level("a") == 0
    assert tiny.level("cd") == 1
    assert tiny.level("*") == 2
    # "e" repeats at level 0 and 1: the lowest node stands for it
    assert tiny.level("e") == 0
    assert tiny.node("e", level=1).level == 1


def test_unknown_label_names_it(tiny):
    with pytest.raises(HierarchyError, match="'zz'"):
        tiny.level("zz")
    with pytest.raises(HierarchyError, match="'tiny'"):
        tiny.leaves("zz")


def test_bad_level_is_rejected(tiny):
    with pytest.raises(HierarchyError, match=r"level must be an integer in \[0, 2\]"):
        tiny.generalize("a", 3)
    with pytest.raises(HierarchyError, match="level"):
        tiny.generalize("a", -1)


# ---------------------------------------------------------------- operations
def test_generalize(age):
    assert age.generalize("24", 0) == "24"
    assert age.generalize(24, 1) == "[20-25]"
    assert age.generalize(26, 1) == "[26-30]"
    assert age.generalize(26, 2) == "[20-30]"
    assert age.generalize(31, 2) == "[31-40]"
    assert age.generalize(40, 3) == "[20-40]"


def test_generalize_accepts_numbers_for_numeric_leaves(age):
    assert age.generalize(24.0, 1) == age.generalize("24", 1) == age.generalize(np.int64(24), 1)
    with pytest.raises(HierarchyError, match="'age'.*not a leaf"):
        age.generalize(41, 1)


def test_lca(age, tiny):
    assert age.lca([24, 25]) == "[20-25]"
    assert age.lca([21, 26]) == "[20-30]"
    assert age.lca([21, 32]) == "[20-40]"
    assert age.lca([36]) == "36"
    assert tiny.lca(["a", "b"]) == "ab"
    assert tiny.lca(["a", "a"]) == "a"
    assert tiny.lca(["a", "e"]) == "*"
    assert tiny.lca_level(tiny.encode(["c", "d"])) == 1
    with pytest.raises(HierarchyError, match="empty"):
        tiny.lca([])


def test_leaves(age, tiny):
    assert age.leaves("[20-25]") == [str(a) for a in range(20, 26)]
    assert age.leaves("[31-40]") == [str(a) for a in range(31, 41)]
    assert age.leaves("24") == ["24"]
    assert tiny.leaves("*") == ["a", "b", "c", "d", "e"]
    assert tiny.leaves("e", level=1) == ["e"]


def test_encode_and_missing_values_named(tiny):
    assert tiny.encode(["e", "a", "d", "a"]).tolist() == [4, 0, 3, 0]
    with pytest.raises(HierarchyError) as info:
        tiny.encode(["a", "x", "y", "a"])
    message = str(info.value)
    assert "'tiny'" in message and "'x'" in message and "'y'" in message
    assert "2 value(s)" in message


def test_numeric_leaf_values(age, tiny):
    assert age.leaf_values.tolist() == list(map(float, range(20, 41)))
    assert tiny.leaf_values is None
    assert age.numeric_span(1, 0) == (20.0, 25.0)
    assert age.numeric_span(3, 0) == (20.0, 40.0)


def test_to_rows_round_trip(tiny):
    again = Hierarchy.from_rows(tiny.to_rows(), name="tiny")
    assert again.to_rows() == tiny.to_rows()
    assert [l.tolist() for l in again.level_map] == [l.tolist() for l in tiny.level_map]


# ------------------------------------------------------------------ CHD (003 Def. 4)
def test_chd_paper_example(age):
    # 003 Definition 4: "The distance between the value 24 and [20-30] is 2/3."
    assert age.chd("24", "[20-30]") == pytest.approx(2 / 3)
    assert age.chd(24, "[20-30]") == pytest.approx(2 / 3)


def test_chd_zero_at_same_level_and_one_at_root(age):
    # "The CHD is zero if both values are at same level ... one if the value lies at the root"
    assert age.chd("24", "24") == 0
    assert age.chd("24", "31") == 0
    assert age.chd("[20-25]", "[36-40]") == 0
    assert age.chd("24", "[20-40]") == 1
    assert age.chd("24", "[20-25]") == pytest.approx(1 / 3)
    # symmetric in the levels
    assert age.chd("[20-30]", "24") == pytest.approx(2 / 3)


def test_chd_height_zero_hierarchy():
    flat = Hierarchy.from_rows([["only"]], name="flat")
    assert flat.height == 0
    assert flat.chd("only", "only") == 0.0


# -------------------------------------------------------------- construction errors
def test_single_root_required():
    with pytest.raises(HierarchyError, match="single root.*found 2"):
        Hierarchy.from_rows([["a", "x"], ["b", "y"]], name="two")


def test_rows_of_different_lengths_name_the_row():
    with pytest.raises(HierarchyError) as info:
        Hierarchy.from_rows([["a", "ab", "*"], ["b", "*"]], name="bad")
    message = str(info.value)
    assert "'bad'" in message and "row 2" in message and "'b'" in message


def test_two_parents_rejected():
    with pytest.raises(HierarchyError, match="'x' at level 1 has two parents"):
        Hierarchy.from_rows([["a", "x", "p", "*"], ["b", "x", "q", "*"]], name="h")


def test_same_leaf_with_different_rows_rejected():
    with pytest.raises(HierarchyError, match="'a' appears twice"):
        Hierarchy.from_rows([["a", "x", "*"], ["a", "y", "*"]], name="h")


def test_duplicate_identical_row_warns_and_is_ignored():
    with pytest.warns(UserWarning, match="duplicate row for value 'a'"):
        h = Hierarchy.from_rows([["a", "*"], ["b", "*"], ["a", "*"]], name="h")
    assert h.n_leaves == 2
    assert h.leaf_counts[1].tolist() == [2]


def test_empty_rows_and_empty_cells_rejected():
    with pytest.raises(HierarchyError, match="no rows"):
        Hierarchy.from_rows([], name="h")
    with pytest.raises(HierarchyError, match="empty cell"):
        Hierarchy.from_rows([["a", "", "*"], ["b", "x", "*"]], name="h")


# ---------------------------------------------------------------- from_mapping
def test_from_mapping_dict_list_and_none():
    h = Hierarchy.from_mapping({"*": {"M": {"Male": None}, "F": ["Female", "Other"]}},
                               name="sex")
    assert h.height == 2
    assert h.leaves("F") == ["Female", "Other"]
    assert h.generalize("Male", 1) == "M"
    assert h.lca(["Male", "Other"]) == "*"


def test_from_mapping_unequal_depths_rejected():
    with pytest.raises(HierarchyError) as info:
        Hierarchy.from_mapping({"*": {"M": ["Male"], "Female": None}}, name="sex")
    message = str(info.value)
    assert "unequal depths" in message and "'Female'" in message and "'Male'" in message


def test_from_mapping_needs_one_root():
    with pytest.raises(HierarchyError, match="exactly one top-level key"):
        Hierarchy.from_mapping({"a": ["x"], "b": ["y"]}, name="h")
    with pytest.raises(HierarchyError, match="exactly one top-level key"):
        Hierarchy.from_mapping(["a"], name="h")


# ----------------------------------------------------------------------- MAGVal
def test_magval_defaults_to_root(tiny):
    assert not tiny.has_magvals
    assert tiny.magval("a") == "*"
    assert tiny.magset() == {"*"}
    assert tiny.magval_levels().tolist() == [2] * 5


def test_magval_is_first_mark_on_the_path(tiny):
    tiny.mark_magval("ab").mark_magval("*")
    assert tiny.magval("a") == "ab"
    assert tiny.magval("c") == "*"
    # a leaf can be its own MAGVal (no generalization allowed)
    tiny.mark_magval("d", level=0)
    assert tiny.magval("d") == "d"
    assert tiny.magset() == {"ab", "*", "d"}
    assert tiny.is_magval("ab") and not tiny.is_magval("cd")
    assert tiny.node("ab").magval is True


def test_allows(tiny):
    tiny.mark_magval("ab")
    assert tiny.allows("a", "a") is True
    assert tiny.allows("a", "ab") is True
    assert tiny.allows("a", "*") is False
    assert tiny.allows("c", "*") is True          # unmarked: up to the root
    assert tiny.allows("a", "cd") is False        # not an ancestor at all
    assert tiny.allows("c", "d") is False


def test_clear_magvals(tiny):
    tiny.mark_magval("ab")
    tiny.clear_magvals()
    assert not tiny.has_magvals
    assert tiny.magval("a") == "*"
    assert all(not n.magval for n in tiny)


def test_repr(tiny):
    assert repr(tiny) == "Hierarchy('tiny', height=2, leaves=5, nodes=9)"


# ------------------------------------------------- one label, two different leaf sets
def _leaf_and_group_g():
    return [["G", "X", "*"], ["a", "G", "*"], ["b", "G", "*"]]


def test_label_on_two_levels_over_different_values_refused_from_rows():
    with pytest.raises(kg.HierarchyError) as info:
        kg.Hierarchy.from_rows(_leaf_and_group_g(), name="q")
    message = str(info.value)
    assert "\n" not in message and "hierarchy for 'q'" in message
    assert "label 'G' stands on level 0" in message and "on level 1" in message


def test_label_on_two_levels_refused_from_mapping_and_file(tmp_path):
    with pytest.raises(kg.HierarchyError, match=r"hierarchy for 'q'.*label 'G' stands on level 0"):
        kg.Hierarchy.from_mapping({"*": {"X": ["G"], "G": ["a", "b"]}}, name="q")
    path = tmp_path / "q.csv"
    path.write_text("G;X;*\na;G;*\nb;G;*\n")
    with pytest.raises(kg.HierarchyError, match=r"q\.csv.*label 'G' stands on level 0 .* level 1"):
        kg.read_hierarchy(path)


def test_label_repeated_over_the_same_values_is_one_concept():
    # ARX pads a short path by repeating a value, as Adult's age does with [80-100]
    h = kg.Hierarchy.from_rows([["1", "low", "low", "*"], ["2", "low", "low", "*"],
                                ["3", "3-4", "high", "*"], ["4", "3-4", "high", "*"]], name="v")
    assert h.level("low") == 1 and h.leaves("low") == h.leaves("low", level=2) == ["1", "2"]
    h.mark_magval("low", level=2)
    assert h.allows("1", "low") and h.allows("1", "low", level=2)
    assert not h.allows("1", "*")
    assert h.chd("1", "low") == pytest.approx(1 / 3)


def test_adult_age_80_100_with_a_boundary_mark_anonymizes():
    hier = kg.load_hierarchies(kg.datasets.adult_hierarchies_path())
    age = hier["age"]
    age.mark_magval("[80-100]", level=4)
    table = pd.DataFrame({"age": [81, 85, 90, 95, 99, 100, 30, 31, 33, 38],
                          "s": list("abababaabb")})
    schema = kg.Schema(quasi_identifiers=["age"], sensitive=["s"], hierarchies={"age": age})
    for algorithm in ("mondrian", "mst", "datafly"):
        res = kg.anonymize(table, schema, k=3, algorithm=algorithm, respect_boundaries=True)
        assert kg.constraint_violations(res) == []
        kept = ~res.suppressed_mask[:6]
        assert (res.table["age"][:6][kept] != "*").all()  # never above [80-100]


def test_the_tree_is_built_on_first_use_with_the_marks_made_before():
    # an anonymization reads the per-level arrays only; the anytree nodes are built when
    # someone walks the tree, and show every MAGVal mark made before and after
    table, schema = kg.datasets.paper_003_table(), kg.datasets.paper_003_schema()
    h = schema.hierarchies["age"]
    fresh = Hierarchy.from_rows([[h.label(0, i)] + [h.generalize(h.label(0, i), level)
                                                    for level in range(1, h.height + 1)]
                                 for i in range(h.n_leaves)], name="age")
    schema = kg.Schema(quasi_identifiers=list(schema.quasi_identifiers),
                       hierarchies={**schema.hierarchies, "age": fresh})
    kg.anonymize(table, schema, k=3, algorithm="optimal")
    assert fresh._tree is None
    top = fresh.labels(1)[0]
    fresh.mark_magval(top, 1)
    assert fresh.node(top, 1).magval and fresh.root.leaf_count == fresh.n_leaves
    fresh.clear_magvals()
    assert not fresh.node(top, 1).magval
