"""Research value (Morton et al. 2012, section 4): formulas, rules, weights, tables."""

import numpy as np
import pandas as pd
import pytest

import kanon_graph as kg
from kanon_graph.hierarchy import intervals
from kanon_graph.lattice.rv import (Rule, categorical_rv, correlation_weights, numeric_rv,
                                    research_values, rule_ratio)

TABLE_1 = [("White", "Hispanic", 5), ("White", "Black", 20),
           ("Hispanic", "Black", 10), ("Hispanic", "Asian", 5)]


def race_hierarchy():
    """Level 1 mixes Hispanic and Black only; level 2 is White / Other; level 3 the root."""
    return kg.Hierarchy.from_rows([
        ["White", "White", "White", "*"],
        ["Black", "Black or Hispanic", "Other", "*"],
        ["Hispanic", "Black or Hispanic", "Other", "*"],
        ["Asian", "Asian", "Other", "*"],
    ], name="race")


def test_numeric_worked_example_of_section_4():
    # 0.2 * (125 * 1) / (25*10 + 45*15 + 55*25) * 50/100 = 0.0054
    value = numeric_rv(0.2, [25, 45, 55], [10, 15, 25], base=125, kept=50, total=100)
    assert round(value, 4) == 0.0054
    assert value == pytest.approx(0.2 * 125 / 2300 * 0.5)


def test_numeric_rv_is_the_weight_at_the_most_specific_level():
    assert numeric_rv(0.3, [4, 6], [1, 1]) == pytest.approx(0.3)


def test_constraint_rule_example_of_table_1():
    # a level that mixes Hispanic and Black keeps 30 of the 40 importance points
    assert rule_ratio(TABLE_1, race_hierarchy(), 1) == 0.75


def test_rule_ratio_over_every_level():
    h = race_hierarchy()
    # level 0 keeps every rule; level 2 (White / Other) keeps only the two White rules;
    # the root keeps none
    assert [rule_ratio(TABLE_1, h, level) for level in range(4)] == [1.0, 0.75, 25 / 40, 0.0]


def test_categorical_rv_with_rules():
    h = race_hierarchy()
    table = pd.DataFrame({"race": ["White", "Black", "Hispanic", "Asian"] * 5})
    data = kg.encode(table, kg.Schema(quasi_identifiers=["race"], hierarchies={"race": h}))
    rv = research_values(data, rules={"race": TABLE_1})
    # weight 1 (a single attribute); |A_1| / |A_0| = 3/4 and 0.75 of the rules kept
    assert rv.tables[0] == pytest.approx((1.0, 3 / 4 * 0.75, 2 / 4 * 25 / 40, 0.0))
    assert categorical_rv(0.5, 3, 4, kept=30, total=40) == pytest.approx(0.5 * 0.75 * 0.75)


def age_data(ages):
    h = intervals(range(0, 100), widths=[5, 10, 20], name="age")
    table = pd.DataFrame({"age": ages})
    return kg.encode(table, kg.Schema(quasi_identifiers=["age"], hierarchies={"age": h}))


def test_numeric_boundary_and_range_rules():
    # levels: values, 5-year, 10-year, 20-year bands, root
    h = age_data([20, 21]).attributes[0].hierarchy
    kept = {text: Rule.parse((text, 1)).kept(h).tolist()
            for text in ("20|21", "19|20", "12-18", "10-19", "20-39")}
    assert kept["20|21"] == [True, False, False, False, False]   # [20-24] mixes them
    assert kept["19|20"] == [True, True, True, True, False]      # a band edge up to the root
    assert kept["12-18"] == [True, False, False, False, False]   # [10-14] holds 10 and 11
    assert kept["10-19"] == [True, True, True, False, False]     # [0-19] mixes it with 0-9
    assert kept["20-39"] == [True, True, True, True, False]


def test_numeric_rv_from_data_matches_the_formula():
    rng = np.random.default_rng(5)
    ages = rng.integers(0, 100, 200)
    data = age_data(ages)
    h = data.attributes[0].hierarchy
    rv = research_values(data, rules={"age": [("20|21", 2), ("64|65", 3)]})
    for level in range(h.height):
        nodes = h.level_map[level][data.attributes[0].codes]
        spans = h.leaf_counts[level][nodes]
        kept = sum(imp for text, imp in [("20|21", 2), ("64|65", 3)]
                   if Rule.parse((text, imp)).kept(h)[level])
        assert rv.tables[0][level] == pytest.approx(len(ages) / spans.sum() * kept / 5)
    assert rv.tables[0][-1] == 0.0


def test_tables_never_increase_and_start_at_the_weight(adult_table, adult_schema):
    data = kg.encode(adult_table, adult_schema)
    rv = research_values(data, weights="correlation",
                         rules={"age": [("20|21", 1), ("64|65", 1)],
                                "race": [("White", "Black", 1)]})
    assert sum(rv.weights) == pytest.approx(1.0)
    for table, weight in zip(rv.tables, rv.weights):
        assert table[0] == pytest.approx(weight)
        assert all(a >= b for a, b in zip(table, table[1:]))
        assert table[-1] == 0.0


def test_user_weights_are_normalized_and_checked():
    data = kg.encode(kg.datasets.paper_003_table(), kg.datasets.paper_003_schema())
    rv = research_values(data, weights={"gender": 2, "age": 6, "zip": 2})
    assert [t[0] for t in rv.tables] == pytest.approx([0.2, 0.6, 0.2])
    with pytest.raises(ValueError, match="missing \\['zip'\\]"):
        research_values(data, weights={"gender": 1, "age": 1})
    with pytest.raises(ValueError, match="'weights'"):
        research_values(data, weights="pearson")


def test_given_tables_are_used_as_given_and_validated():
    data = kg.encode(kg.datasets.paper_003_table(), kg.datasets.paper_003_schema())
    rv = research_values(data, rv_tables={"age": [0.95, 0.72, 0.58, 0.10]})
    assert rv.tables[data.names.index("age")] == (0.95, 0.72, 0.58, 0.10)
    assert rv.total((0, 1, 0)) == pytest.approx(rv.tables[0][0] + 0.72 + rv.tables[2][0])
    with pytest.raises(ValueError, match="must not increase"):
        research_values(data, rv_tables={"age": [0.5, 0.7, 0.2, 0.0]})
    with pytest.raises(ValueError, match="4 finite numbers"):
        research_values(data, rv_tables={"age": [0.5, 0.2]})
    with pytest.raises(ValueError, match="not quasi-identifiers"):
        research_values(data, rv_tables={"salary": [1, 0]})


def test_bad_rules_are_refused():
    h = race_hierarchy()
    with pytest.raises(ValueError, match="not a node"):
        Rule.parse(("White", "Martian", 1)).kept(h)
    with pytest.raises(ValueError, match="'a\\|b'"):
        Rule.parse(("twenty", 1))
    with pytest.raises(ValueError, match="overlap"):
        Rule.parse(("White", "White", 1)).kept(h)
    with pytest.raises(ValueError, match="numeric leaves"):
        Rule.parse(("20|21", 1)).kept(h)
    data = kg.encode(kg.datasets.paper_003_table(), kg.datasets.paper_003_schema())
    with pytest.raises(ValueError, match="list of rules"):
        research_values(data, rules={"age": "20|21"})


def test_correlation_weights_favour_independent_attributes():
    rng = np.random.default_rng(1)
    base = rng.integers(0, 5, 800)
    noisy = np.where(rng.random(800) < 0.9, base, rng.integers(0, 5, 800))
    table = pd.DataFrame({"a": base, "b": noisy, "c": rng.integers(0, 5, 800),
                          "x": rng.normal(size=800)})
    table["y"] = table["x"] * 2 + rng.normal(scale=0.1, size=800)
    data = kg.encode(table, kg.Schema(quasi_identifiers=["a", "b", "c", "x", "y"],
                                      categorical=["a", "b", "c"]))
    w = correlation_weights(data)
    assert sum(w.values()) == pytest.approx(1.0)
    assert w["c"] > w["a"] and w["c"] > w["b"]
    assert w["c"] > w["x"] and w["c"] > w["y"]
