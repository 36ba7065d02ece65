"""Encoding a table into integer codes per quasi-identifier."""

import numpy as np
import pandas as pd
import pytest

import kanon_graph as kg
from kanon_graph.encoding import combine_codes, encode


@pytest.fixture
def data():
    return encode(kg.datasets.paper_003_table(), kg.datasets.paper_003_schema())


def test_hierarchy_codes_are_leaf_indices(data):
    age = data.attribute("age")
    assert age.kind == "numeric"
    assert [age.domain[c] for c in age.codes] == ["21", "24", "25", "26", "26", "32", "32",
                                                  "36", "36", "38"]
    assert age.values.tolist() == [21, 24, 25, 26, 26, 32, 32, 36, 36, 38]
    zip_ = data.attribute("zip")
    assert zip_.kind == "categorical" and zip_.values is None
    assert [zip_.domain[c] for c in zip_.codes][:5] == ["535280"] * 4 + ["535285"]
    assert data.names == ["gender", "age", "zip"]
    assert data.heights == [1, 3, 2]
    assert data.n == 10


def test_at_level_matches_hierarchy_generalize(data):
    age = data.attribute("age")
    for level in range(age.height + 1):
        labels = [age.hierarchy.label(level, j) for j in age.at_level(level)]
        assert labels == [age.hierarchy.generalize(v, level) for v in age.values]
        assert age.n_at_level(level) == len(age.hierarchy.labels(level))


def test_group_keys_define_the_classes(data):
    keys = data.group_keys([0, 1, 0])
    # 003 Table 1(c)'s first class {1,2,3} = <Male, [20-25], 535280> is one key
    assert len(set(keys[:3])) == 1
    assert len(np.unique(keys)) == 7
    assert len(np.unique(data.group_keys([1, 3, 2]))) == 1
    assert data.generalized_codes([0, 1, 0]).shape == (10, 3)


def test_sensitive_codes(data):
    codes = data.sensitive["disease"]
    domain = data.sensitive_domain["disease"]
    assert domain == sorted(domain)
    assert [domain[c] for c in codes] == kg.datasets.paper_003_table()["disease"].tolist()


def test_hierarchy_free_attributes():
    table = pd.DataFrame({"age": [30, 20, 30, 25], "city": ["b", "a", "b", "c"]})
    data = encode(table, kg.Schema(quasi_identifiers=["age", "city"]))
    age, city = data.attributes
    assert age.hierarchy is None and age.domain == ["20", "25", "30"]
    assert age.codes.tolist() == [2, 0, 2, 1]
    assert city.domain == ["a", "b", "c"] and city.codes.tolist() == [1, 0, 1, 2]
    # hierarchy-free: level 0 is the value, level 1 is everything
    assert age.height == 1
    assert age.at_level(1).tolist() == [0, 0, 0, 0]
    assert age.n_at_level(0) == 3 and age.n_at_level(1) == 1


def test_float_labels_without_hierarchy():
    data = encode(pd.DataFrame({"x": [0.5, 2.0]}), kg.Schema(quasi_identifiers=["x"]))
    assert data.attributes[0].domain == ["0.5", "2"]


def test_index_reset_and_row_labels_kept():
    table = kg.datasets.paper_003_table()
    table.index = [f"r{i}" for i in range(10)]
    data = encode(table, kg.datasets.paper_003_schema())
    assert data.table.index.tolist() == list(range(10))
    assert data.row_labels.tolist() == list(table.index)
    assert data.positions.tolist() == list(range(10))
    assert data.dropped == 0


def test_missing_drop_keeps_positions():
    table = kg.datasets.paper_003_table()
    table["age"] = table["age"].astype(float)
    table.loc[[2, 7], "age"] = np.nan
    table.loc[4, "gender"] = None
    data = encode(table, kg.datasets.paper_003_schema(), missing="drop")
    assert data.dropped == 3
    assert data.n == 7
    assert data.positions.tolist() == [0, 1, 3, 5, 6, 8, 9]
    assert data.attribute("age").values.tolist() == [21, 24, 26, 32, 32, 36, 38]


def test_missing_in_sensitive_column_is_also_checked():
    table = kg.datasets.paper_003_table()
    table.loc[3, "disease"] = None
    with pytest.raises(kg.DataError, match="column 'disease' has 1 missing value"):
        encode(table, kg.datasets.paper_003_schema())


def test_numeric_strings_are_converted():
    table = pd.DataFrame({"age": ["21", "24", "24"]})
    data = encode(table, kg.Schema(quasi_identifiers=["age"], numeric=["age"]))
    assert data.attributes[0].values.tolist() == [21.0, 24.0, 24.0]


def test_combine_codes_mixed_radix_and_overflow_fallback():
    a = np.array([0, 1, 1, 0])
    b = np.array([2, 0, 2, 2])
    assert combine_codes([a, b], [2, 3]).tolist() == [2, 3, 5, 2]
    big = [np.array([0, 1, 1, 0]), np.array([5, 0, 5, 5])]
    keys = combine_codes(big, [2**40, 2**40])
    assert keys[0] == keys[3] and len(set(keys.tolist())) == 3
    assert combine_codes([], []).size == 0


def test_integer_column_against_a_hierarchy_with_text_leaves():
    # leaves '20', '30' and 'unknown' are not all numbers, so integers match by their text
    h = kg.Hierarchy.from_rows([["20", "young", "*"], ["30", "old", "*"],
                                ["unknown", "old", "*"]], name="age")
    table = pd.DataFrame({"age": [20, 30, 20, 30]})
    data = encode(table, kg.Schema(quasi_identifiers=["age"], hierarchies={"age": h}))
    assert data.attributes[0].kind == "numeric"
    assert data.attributes[0].codes.tolist() == [0, 1, 0, 1]
    assert data.attributes[0].values.tolist() == [20.0, 30.0, 20.0, 30.0]
