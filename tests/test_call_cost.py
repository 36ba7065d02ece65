"""One anonymize call does its work once, and still checks what it releases (issue 17, item 7).

The released table is built once; the independent k is recounted from that
table's cells through codes that map one to one to their texts; columns the
algorithm does not generalize reach the user unchanged, dtype included.
"""

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import kanon_graph as kg
from kanon_graph.exceptions import PrivacyError
from kanon_graph.privacy._check import _text_codes, released_k
from kanon_graph.recoding._release import Release


def _census(n=400):
    return kg.datasets.make_census(n, seed=1), kg.datasets.census_schema()


def test_the_released_table_is_built_once(monkeypatch):
    table, schema = _census()
    calls = []
    original = Release.table

    def counted(self):
        calls.append(1)
        return original(self)

    monkeypatch.setattr(Release, "table", counted)
    result = kg.anonymize(table, schema, k=5, algorithm="datafly")
    assert len(calls) == 1
    assert result.verification.holds


def _forge(monkeypatch, change):
    original = Release.table

    def forged(self):
        frame = original(self)
        change(frame, self)
        return frame

    monkeypatch.setattr(Release, "table", forged)


def test_a_released_cell_that_breaks_k_is_caught(monkeypatch):
    # the classes are fine; one released cell is not: only a check on the cells sees it
    table, schema = _census()
    qi = schema.quasi_identifiers[0]

    def change(frame, release):
        row = int(np.flatnonzero(release.class_of >= 0)[0])
        frame[qi] = frame[qi].astype("str")     # released as a categorical: open it up
        frame.loc[frame.index[row], qi] = "a value no other record shows"

    _forge(monkeypatch, change)
    with pytest.raises(PrivacyError, match="fails its privacy check"):
        kg.anonymize(table, schema, k=5, algorithm="datafly")


def test_labels_that_differ_only_by_type_are_one_text():
    # 1 and "1" read alike in the released table: they are one code
    codes, texts = _text_codes(pd.Series([1, "1", "2", 2.5], dtype=object))
    assert codes.tolist() == [0, 0, 1, 2] and list(texts) == ["1", "2", "2.5"]


def test_colliding_labels_of_two_classes_are_one_group():
    # two classes whose labels collide are one group to the reader, counted together;
    # two classes with different labels are two groups, however the codes were made
    frame = pd.DataFrame({"a": pd.array(["[1-5]"] * 3 + ["[1-5]"] * 2 + ["[6-9]"] * 2,
                                        dtype="str")})
    released = np.ones(7, dtype=bool)
    assert released_k(frame, ["a"], released) == 2
    frame.loc[5:, "a"] = "[1-5]"
    assert released_k(frame, ["a"], released) == 7


LABELS = st.sampled_from(["*", "a", "b", "[1-5]", "[1-5] ", "1", "01", "{a,b}", ""])


@settings(max_examples=150, deadline=None)
@given(st.data())
def test_released_k_is_value_counts_over_the_released_text(data):
    n = data.draw(st.integers(1, 30))
    width = data.draw(st.integers(1, 3))
    columns = {f"q{j}": data.draw(st.lists(LABELS, min_size=n, max_size=n)) for j in range(width)}
    frame = pd.DataFrame(columns)
    if data.draw(st.booleans()):
        frame = frame.astype("str")
    released = np.array(data.draw(st.lists(st.booleans(), min_size=n, max_size=n)))
    rows = frame[list(columns)].iloc[np.flatnonzero(released)].astype(str)
    expected = int(rows.value_counts().min()) if len(rows) else 0
    assert released_k(frame, list(columns), released) == expected


def test_columns_left_alone_keep_their_values_and_dtype():
    table, schema = _census(300)
    table = table.assign(visits=pd.array([None if i % 7 == 0 else i for i in range(300)],
                                         dtype="Int64"),
                         colour=pd.Categorical(["red", "blue", "red"] * 100))
    result = kg.anonymize(table, schema, k=5, algorithm="datafly")
    for column in ("visits", "colour"):
        pd.testing.assert_series_equal(result.table[column], table[column])
    for column in schema.quasi_identifiers:
        # released text: a categorical whose categories are texts, each once
        dtype = result.table[column].dtype
        assert isinstance(dtype, pd.CategoricalDtype)
        assert dtype.categories.dtype == pd.Series(["x"]).dtype
        assert dtype.categories.is_unique


def test_a_released_category_that_breaks_k_is_caught(monkeypatch):
    # the cells are read through the categorical's own codes and categories: moving one
    # record's code to another category changes its text, and the check sees it
    table, schema = _census()
    qi = schema.quasi_identifiers[0]

    def change(frame, release):
        column = frame[qi].cat.add_categories(["a value no other record shows"])
        codes = np.asarray(column.cat.codes).copy()
        codes[int(np.flatnonzero(release.class_of >= 0)[0])] = len(column.cat.categories) - 1
        frame[qi] = pd.Categorical.from_codes(codes, dtype=column.dtype)

    _forge(monkeypatch, change)
    with pytest.raises(PrivacyError, match="fails its privacy check"):
        kg.anonymize(table, schema, k=5, algorithm="datafly")


def test_released_k_reads_a_categorical_like_its_text():
    texts = ["[1-5]", "[1-5]", "[6-9]", "*", "[6-9]", "[6-9]"]
    released = np.array([True, True, True, False, True, True])
    as_text = pd.DataFrame({"a": texts})
    as_category = pd.DataFrame({"a": pd.Categorical(texts, categories=["*", "[6-9]", "[1-5]",
                                                                        "unused"])})
    assert released_k(as_category, ["a"], released) == released_k(as_text, ["a"], released) == 2
    with_missing = pd.DataFrame({"a": pd.Categorical(["x", None, "x"])})
    assert released_k(with_missing, ["a"], np.ones(3, bool)) == 1


def test_released_table_is_the_same_text_as_before(monkeypatch):
    # the labels-by-class construction gives, cell for cell, the labels of each record's class
    table, schema = _census(300)
    result = kg.anonymize(table, schema, k=4, algorithm="mondrian")
    release = result.release
    for name in schema.quasi_identifiers:
        labels = np.append(release.attributes[name].labels.astype(object), "*")
        expected = labels[np.where(release.class_of < 0, release.n_classes, release.class_of)]
        assert result.table[name].tolist() == expected.tolist()
