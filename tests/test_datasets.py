import dataclasses
"""kanon_graph.datasets: make_census, census_schema, load_adult."""

import warnings

import numpy as np
import pandas as pd
import pytest

import kanon_graph as kg
from kanon_graph.datasets import (ADULT_COLUMNS, adult_hierarchies, census_schema, load_adult,
                                  make_census)
from kanon_graph.recoding import recode_partition

N = 20_000


@pytest.fixture(scope="module")
def census():
    return make_census(N, seed=0)


# ------------------------------------------------------------------ make_census
def test_same_seed_same_table_other_seed_other_table(census):
    again = make_census(N, seed=0)
    pd.testing.assert_frame_equal(census, again)
    other = make_census(N, seed=1)
    assert not census.equals(other)
    assert (census["age"].to_numpy() != other["age"].to_numpy()).mean() > 0.5
    generator = make_census(100, seed=np.random.default_rng(5))
    assert generator.equals(make_census(100, seed=np.random.default_rng(5)))


def test_schema_and_value_sets(census, adult_table):
    assert list(census.columns) == ADULT_COLUMNS
    assert census["age"].dtype == np.int64
    assert census["age"].between(17, 90).all()
    hier = adult_hierarchies()
    for column in ADULT_COLUMNS:
        values = set(census[column].unique().tolist())
        leaves = set(hier[column].leaf_labels)
        assert {str(v) for v in values} <= leaves, column
        if column != "age":
            # the same value set as Adult (categories), all common values drawn
            assert set(census[column].cat.categories) == set(adult_table[column]), column
            common = adult_table[column].value_counts(normalize=True)
            assert set(common[common > 0.002].index) <= values, column


def test_marginals_close_to_adult(census, adult_table):
    for column in ADULT_COLUMNS:
        p = census[column].astype(str).value_counts(normalize=True)
        q = adult_table[column].astype(str).value_counts(normalize=True)
        tv = 0.5 * p.sub(q, fill_value=0).abs().sum()   # total variation distance
        assert tv < 0.05, (column, tv)


def _share(frame, column, value, where=None):
    rows = frame if where is None else frame[where]
    return float((rows[column] == value).mean())


def test_correlations(census):
    young = census["age"] < 25
    old = census["age"] >= 65
    married = "Married-civ-spouse"
    assert _share(census, "marital-status", married, young) < 0.5 * _share(
        census, "marital-status", married)
    assert _share(census, "marital-status", "Widowed", old) > 5 * _share(
        census, "marital-status", "Widowed")
    graduate = census["education"].isin(["Masters", "Prof-school", "Doctorate"])
    assert _share(census, "salary-class", ">50K", graduate) > 1.8 * _share(
        census, "salary-class", ">50K")
    assert _share(census, "occupation", "Prof-specialty", graduate) > 2.5 * _share(
        census, "occupation", "Prof-specialty")
    female = census["sex"] == "Female"
    assert _share(census, "occupation", "Adm-clerical", female) > 2 * _share(
        census, "occupation", "Adm-clerical", ~female)
    asian = census["race"] == "Asian-Pac-Islander"
    assert _share(census, "native-country", "United-States", asian) < 0.5
    assert _share(census, "native-country", "United-States", ~asian) > 0.85


def test_bad_n():
    for n in (0, -3, 2.5, "10", True):
        with pytest.raises(ValueError, match="'n' parameter of make_census"):
            make_census(n)


def test_census_schema_anonymizes(census):
    schema = census_schema()
    assert schema.quasi_identifiers == tuple(ADULT_COLUMNS[:-1])
    assert schema.sensitive == ("salary-class",)
    assert {c: schema.hierarchy(c).height for c in schema.quasi_identifiers}["age"] == 5
    table = make_census(1000, seed=0)
    res = kg.anonymize(table, schema, k=5, algorithm="datafly")
    assert res.verification.holds and res.verification.k_achieved >= 5
    assert sum(len(c) for c in res.classes) + res.suppressed == 1000
    assert kg.privacy.k_anonymity(res.table, list(schema.quasi_identifiers)) >= 5


def test_encode_categorical_same_as_strings(census):
    schema = census_schema()
    as_text = census.astype({c: str for c in ADULT_COLUMNS if c != "age"})
    a, b = kg.encode(census, schema), kg.encode(as_text, schema)
    for x, y in zip(a.attributes, b.attributes):
        assert np.array_equal(x.codes, y.codes), x.name
        labels = np.asarray(x.hierarchy.leaf_labels, dtype=object)[x.codes]
        assert (labels == census[x.name].astype(str).to_numpy()).all(), x.name


def test_hierarchy_encode_names_missing_and_unknown_values():
    hier = adult_hierarchies()
    with pytest.raises(kg.HierarchyError, match=r"2 value\(s\).*'Mars'.*'nan'"):
        hier["native-country"].encode(np.array(["Peru", "Mars", np.nan, "Peru"], dtype=object))
    with pytest.raises(kg.HierarchyError, match=r"'None'"):
        hier["sex"].encode(["Male", None])
    assert hier["age"].encode([17, 17.0, "17", 90]).tolist() == [16, 16, 16, 89]
    with pytest.raises(kg.HierarchyError, match="200"):
        hier["age"].encode([17, 200])


def test_local_release_labels_match_scalar_hierarchy_lookups(census):
    # recode_partition computes labels, leaf counts and numeric spans per level
    # in bulk; they must equal the per-node lookups of the hierarchy
    data = kg.encode(census.head(3000), census_schema())
    rng = np.random.default_rng(3)
    class_of = rng.integers(-1, 400, size=data.n)
    class_of[np.argsort(data.attribute("age").codes)[:50]] = 400   # a class of close ages
    release = recode_partition(data, class_of)
    levels_seen = set()
    for attr in data.attributes:
        rel = release.attributes[attr.name]
        h = attr.hierarchy
        levels_seen |= {(attr.name, int(l)) for l in rel.level}
        for c in range(release.n_classes):
            level, node = int(rel.level[c]), int(rel.node[c])
            assert rel.labels[c] == h.label(level, node)
            assert rel.distinct[c] == h.leaf_counts[level][node]
            if attr.name == "age":
                assert (rel.lo[c], rel.hi[c]) == h.numeric_span(level, node)
    ages = {l for name, l in levels_seen if name == "age"}
    assert len(ages) >= 2          # classes released at different levels of one attribute


# ------------------------------------------------------------------- load_adult
def test_load_adult_arx_file_and_folder(adult_dir, adult_table):
    by_folder = load_adult(adult_dir)
    by_file = load_adult(adult_dir / "adult.csv")
    assert len(by_folder) == 30162 and by_folder.attrs["dropped"] == 0
    assert list(by_folder.columns) == ADULT_COLUMNS
    assert by_folder["age"].dtype == np.int64
    pd.testing.assert_frame_equal(by_folder, by_file)
    assert (by_folder.astype(str).to_numpy() == adult_table.astype(str).to_numpy()).all()


UCI_ROWS = [
    "39, State-gov, 77516, Bachelors, 13, Never-married, Adm-clerical, Not-in-family, "
    "White, Male, 2174, 0, 40, United-States, <=50K",
    "50, Self-emp-not-inc, 83311, Bachelors, 13, Married-civ-spouse, Exec-managerial, "
    "Husband, White, Male, 0, 0, 13, United-States, >50K",
    "54, ?, 180211, Some-college, 10, Married-civ-spouse, ?, Husband, Asian-Pac-Islander, "
    "Male, 0, 0, 60, South, >50K",
    "38, Private, 215646, HS-grad, 9, Divorced, Handlers-cleaners, Not-in-family, White, "
    "Female, 0, 0, 40, ?, <=50K",
    "37, Private, 284582, Masters, 14, Married-civ-spouse, Exec-managerial, Wife, Black, "
    "Female, 0, 0, 40, Cuba, <=50K",
]


def test_load_adult_uci_format_drops_missing_rows(tmp_path):
    (tmp_path / "adult.data").write_text("\n".join(UCI_ROWS) + "\n\n")
    with pytest.warns(UserWarning, match="dropped 2 row"):
        df = load_adult(tmp_path)
    assert df.attrs["dropped"] == 2
    assert list(df.columns) == ADULT_COLUMNS
    assert df["age"].tolist() == [39, 50, 37]
    assert df["workclass"].tolist() == ["State-gov", "Self-emp-not-inc", "Private"]
    assert df.loc[2].drop("age").tolist() == ["Female", "Black", "Married-civ-spouse",
                                              "Masters", "Cuba", "Private",
                                              "Exec-managerial", "<=50K"]
    # values are stripped of UCI's leading spaces, so the hierarchies accept them
    kg.encode(df, census_schema())


def test_load_adult_uci_test_file(tmp_path):
    path = tmp_path / "adult.test"
    rows = [r.replace("<=50K", "<=50K.").replace(">50K", ">50K.") for r in UCI_ROWS[:2]]
    path.write_text("|1x3 Cross validator\n" + "\n".join(rows) + "\n")
    with warnings.catch_warnings():
        warnings.simplefilter("error")           # nothing dropped, nothing reported
        df = load_adult(path)
    assert df["salary-class"].tolist() == ["<=50K", ">50K"] and df.attrs["dropped"] == 0


def test_load_adult_errors(tmp_path):
    with pytest.raises(FileNotFoundError, match="no file or folder"):
        load_adult(tmp_path / "nowhere.csv")
    with pytest.raises(FileNotFoundError, match="without adult.csv or adult.data"):
        load_adult(tmp_path)
    bad = tmp_path / "bad.csv"
    bad.write_text("a;b;c\n1;2;3\n")
    with pytest.raises(kg.DataError, match="neither ARX's adult.csv"):
        load_adult(bad)
    text_age = tmp_path / "text_age.csv"
    text_age.write_text(";".join(ADULT_COLUMNS) + "\n"
                        "Male;old;White;Divorced;HS-grad;Peru;Private;Sales;<=50K\n")
    with pytest.raises(kg.DataError, match="'age'.*'old'"):
        load_adult(text_age)


def test_encode_reads_only_pandas_missing_cells_as_missing(census):
    """``?``, blank and empty cells are values (issue 11 item 10); NaN / None are missing."""
    table = census.head(500).copy()
    table["workclass"] = table["workclass"].cat.add_categories(["?"])
    table.loc[[3, 7], "workclass"] = "?"
    table.loc[9, "workclass"] = np.nan
    as_text = table.astype({"occupation": str})
    as_text.loc[[7, 11], "occupation"] = " ? "
    as_text.loc[20, "occupation"] = ""
    as_text.loc[21, "occupation"] = None
    schema = dataclasses.replace(census_schema(), hierarchies={})  # '?' is no leaf of them
    for frame, dropped in ((table, 1), (as_text, 2)):
        data = kg.encode(frame, schema, missing="drop")
        assert data.dropped == dropped and data.n == 500 - dropped
        assert "?" in data.attribute("workclass").domain
        with pytest.raises(kg.DataError, match="missing value"):
            kg.encode(frame, schema)
    occupation = kg.encode(as_text, schema, missing="drop").attribute("occupation")
    assert " ? " in occupation.domain and "" in occupation.domain
