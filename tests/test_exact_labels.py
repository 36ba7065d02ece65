"""Released numeric intervals carry the original values' own text (issue 11, items 1-2)."""

import numpy as np
import pandas as pd
import pytest

import kanon_graph as kg


def _release(values, k, algorithm="mondrian", **schema):
    table = pd.DataFrame({"x": values})
    return kg.anonymize(table, kg.Schema(quasi_identifiers=["x"], **schema), k=k,
                        algorithm=algorithm).table["x"].tolist()


def test_interval_bounds_are_the_values_own_text():
    out = _release([0.1234567, 0.987654321, 0.5], k=3)
    assert out == ["[0.1234567-0.987654321]"] * 3


def test_close_values_never_share_a_label():
    assert _release([1234567.25, 1234567.75], k=1) == ["1234567.25", "1234567.75"]


def test_int64_beyond_2_53_keeps_every_digit():
    values = np.array([2**53 + 1, 2**53, 5], dtype=np.int64)
    out = _release(values, k=3)
    assert out == ["[5-9007199254740993]"] * 3
    assert _release(values[:1], k=1) == ["9007199254740993"]


def test_mondrian_cuts_integers_one_float_cannot_tell_apart():
    # 2**53 and 2**53 + 1 are one float: Mondrian ranks by the exact codes, so at k=1
    # each is its own class, released as its own digits
    values = np.array([2**53 + 1, 2**53, 5], dtype=np.int64)
    assert _release(values, k=1, algorithm="mondrian") == [str(v) for v in values]


@pytest.mark.parametrize("algorithm", ["mondrian", "mst", "k-member"])
def test_numeric_text_column_keeps_its_texts(algorithm):
    texts = ["1.50", "2", "1e3", "-0"]
    assert _release(texts, k=1, algorithm=algorithm) == texts
    out = _release(texts, k=4, algorithm=algorithm)
    assert out == ["[-0-1e3]"] * 4


def test_numeric_text_that_is_no_number_names_column_row_and_value():
    table = pd.DataFrame({"x": ["1", "2", "x3"]}, index=["a", "b", "c"])
    with pytest.raises(kg.DataError) as info:
        kg.anonymize(table, kg.Schema(quasi_identifiers=["x"], numeric=["x"]), k=1,
                     algorithm="mondrian")
    message = str(info.value)
    assert "'x'" in message and "'x3'" in message and "(row 2)" in message


def test_numerically_equal_leaves_match_by_text():
    h = kg.Hierarchy.from_rows([["1", "A", "*"], ["01", "B", "*"], ["2", "A", "*"]], name="x")
    schema = kg.Schema(quasi_identifiers=["x"], hierarchies={"x": h})
    out = kg.apply_levels(pd.DataFrame({"x": [1, 1, 2, 2]}), schema, [1]).table["x"]
    assert out.tolist() == ["A"] * 4
    out = kg.apply_levels(pd.DataFrame({"x": ["01", "2"]}), schema, [1]).table["x"]
    assert out.tolist() == ["B", "A"]
    with pytest.raises(kg.HierarchyError, match=r"value '1\.0' .* leaves '1' and '01'"):
        kg.apply_levels(pd.DataFrame({"x": ["1.0", "2"]}), schema, [1])
