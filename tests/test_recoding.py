"""Global (full-domain) and local recoding into released values."""

import numpy as np
import pandas as pd
import pytest

import kanon_graph as kg
from kanon_graph.encoding import encode
from kanon_graph.recoding import SUPPRESSED, recode_levels, recode_partition

QIS = ["gender", "age", "zip"]


@pytest.fixture
def data():
    return encode(kg.datasets.paper_003_table(), kg.datasets.paper_003_schema())


def _rows(release):
    return [tuple(r) for r in release.table()[QIS].itertuples(index=False)]


def test_table_1c_local_recoding(data):
    # 003 Table 1(c): classes {1,2,3}, {4,5,6,7}, {8,9,10}
    release = recode_partition(data, [0, 0, 0, 1, 1, 1, 1, 2, 2, 2])
    rows = _rows(release)
    assert rows[:3] == [("Male", "[20-25]", "535280")] * 3
    assert rows[3:7] == [("Female", "[20-40]", "5352**")] * 4
    assert rows[7:] == [("Male", "[36-40]", "53529*")] * 3
    assert release.sizes.tolist() == [3, 4, 3]
    assert release.attributes["age"].level.tolist() == [1, 3, 1]
    assert release.attributes["zip"].level.tolist() == [0, 2, 1]
    assert release.attributes["age"].distinct.tolist() == [6, 21, 5]
    assert release.attributes["age"].lo.tolist() == [20, 20, 36]
    assert release.attributes["age"].hi.tolist() == [25, 40, 40]
    assert release.levels is None


def test_table_1b_global_recoding(data):
    # 003 Table 1(b): gender kept, age to [20-40], zip to 5352**
    release = recode_levels(data, [0, 3, 2])
    rows = _rows(release)
    assert set(rows) == {("Male", "[20-40]", "5352**"), ("Female", "[20-40]", "5352**")}
    assert release.n_classes == 2
    assert release.sizes.tolist() == [6, 4]              # classes in order of first row
    assert release.class_of.tolist() == [0, 0, 0, 1, 1, 1, 1, 0, 0, 0]
    assert release.levels == (0, 3, 2)


def test_classes_are_row_positions_ordered_by_first_row(data):
    release = recode_levels(data, [0, 3, 2])
    assert [c.tolist() for c in release.classes()] == [[0, 1, 2, 7, 8, 9], [3, 4, 5, 6]]


def test_global_recoding_labels_match_generalize(data):
    hier = kg.datasets.paper_003_hierarchies()
    table = kg.datasets.paper_003_table()
    for levels in [(0, 0, 0), (1, 1, 1), (0, 2, 1), (1, 3, 2)]:
        out = recode_levels(data, levels).table()
        for q, l in zip(QIS, levels):
            assert out[q].tolist() == [hier[q].generalize(v, l) for v in table[q]]


def test_suppression_marks_and_keeps_records(data):
    suppress = np.zeros(10, dtype=bool)
    suppress[[3, 4]] = True
    release = recode_levels(data, [0, 1, 1], suppress=suppress)
    out = release.table()
    assert len(out) == 10
    assert out.loc[3, QIS].tolist() == [SUPPRESSED] * 3
    assert out.loc[3, "disease"] == "Heart Disease"         # sensitive values stay
    assert release.suppressed == 2
    assert release.class_of[[3, 4]].tolist() == [-1, -1]
    assert sum(release.sizes) == 8
    assert all(3 not in c and 4 not in c for c in release.classes())


def test_everything_suppressed(data):
    release = recode_partition(data, np.full(10, -1))
    assert release.n_classes == 0 and release.suppressed == 10
    assert (release.table()[QIS] == SUPPRESSED).all().all()
    release = recode_levels(data, [0, 0, 0], suppress=np.ones(10, dtype=bool))
    assert release.n_classes == 0


def test_identifiers_removed_and_index_kept(data):
    out = recode_levels(data, [0, 0, 0]).table()
    assert list(out.columns) == ["gender", "age", "zip", "disease"]
    table = kg.datasets.paper_003_table()
    table.index = list("abcdefghij")
    out = recode_levels(encode(table, kg.datasets.paper_003_schema()), [0, 0, 0]).table()
    assert list(out.index) == list("abcdefghij")


def test_local_recoding_merges_coinciding_classes():
    table = kg.datasets.paper_003_table()
    table.loc[2, "age"] = 21            # rows 0 and 2 are now both <Male, 21, 535280>
    data = encode(table, kg.datasets.paper_003_schema())
    # classes 5 and 0 both release <Male, 21, 535280>: one equivalence class
    release = recode_partition(data, [5, 3, 0, -1, -1, -1, -1, 1, 1, 1])
    assert release.n_classes == 3
    assert release.sizes.tolist() == [2, 1, 3]
    assert release.class_of.tolist() == [0, 1, 0, -1, -1, -1, -1, 2, 2, 2]
    assert release.attributes["age"].labels.tolist() == ["21", "24", "[36-40]"]


def test_local_recoding_arbitrary_labels(data):
    relabelled = recode_partition(data, [7, 7, 7, 3, 3, 3, 3, 11, 11, 11])
    plain = recode_partition(data, [0, 0, 0, 1, 1, 1, 1, 2, 2, 2])
    assert _rows(relabelled) == _rows(plain)
    assert relabelled.class_of.tolist() == plain.class_of.tolist()


# ------------------------------------------------------------- without hierarchies
@pytest.fixture
def free():
    table = pd.DataFrame({"age": [25, 26, 27, 36, 40, 39],
                          "city": ["b", "a", "b", "c", "c", "a"],
                          "s": list("xyzxyz")})
    return encode(table, kg.Schema(quasi_identifiers=["age", "city"], sensitive=["s"]))


def test_hierarchy_free_local_recoding(free):
    release = recode_partition(free, [0, 0, 0, 1, 1, 1])
    out = release.table()
    assert out["age"].tolist() == ["[25-27]"] * 3 + ["[36-40]"] * 3
    assert out["city"].tolist() == ["{a,b}"] * 3 + ["{a,c}"] * 3
    age = release.attributes["age"]
    assert age.lo.tolist() == [25, 36] and age.hi.tolist() == [27, 40]
    assert age.level is None
    assert release.attributes["city"].distinct.tolist() == [2, 2]


def test_hierarchy_free_single_values(free):
    release = recode_partition(free, [0, 1, 2, 3, 4, 5])
    out = release.table()
    assert out["age"].tolist() == ["25", "26", "27", "36", "40", "39"]
    assert out["city"].tolist() == ["b", "a", "b", "c", "c", "a"]


def test_hierarchy_free_global_levels(free):
    out = recode_levels(free, [1, 0]).table()
    assert out["age"].tolist() == ["[25-40]"] * 6
    assert out["city"].tolist() == ["b", "a", "b", "c", "c", "a"]
    out = recode_levels(free, [0, 1]).table()
    assert out["city"].tolist() == ["{a,b,c}"] * 6
    # the whole range is taken over the released (not suppressed) records
    suppress = np.array([True, False, False, False, False, False])
    out = recode_levels(free, [1, 1], suppress=suppress).table()
    assert out["age"].tolist() == ["*"] + ["[26-40]"] * 5
    assert out["city"].tolist() == ["*"] + ["{a,b,c}"] * 5


# ------------------------------------------------------------ random partitions
def _random_case(seed):
    """A random table over random hierarchies (or none), and a random partition."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 30))
    columns, hier = {}, {}
    for j in range(3):
        name = f"q{j}"
        numeric = bool(rng.integers(0, 2))
        if rng.integers(0, 2):
            leaves = ([str(v) for v in sorted(rng.choice(100, 5, replace=False))] if numeric
                      else [f"{name}-{i}" for i in range(5)])
            groups = rng.integers(0, 2, 5)
            hier[name] = kg.Hierarchy.from_rows(
                [[leaf, f"{name}-g{g}", "*"] for leaf, g in zip(leaves, groups)], name=name)
            values = rng.choice(leaves, n)
            columns[name] = values.astype(int) if numeric else values
        else:
            columns[name] = rng.integers(0, 10, n) if numeric else rng.choice(list("abcde"), n)
    table = pd.DataFrame(columns)
    schema = kg.Schema(quasi_identifiers=list(columns), hierarchies=hier)
    return table, schema, rng.integers(-1, 4, n)


@pytest.mark.parametrize("seed", range(25))
def test_local_recoding_releases_each_class_lca(seed):
    table, schema, class_of = _random_case(seed)
    release = recode_partition(encode(table, schema), class_of)
    out = release.table()
    for c in np.unique(class_of[class_of >= 0]):
        rows = np.flatnonzero(class_of == c)
        for q in table.columns:
            values = table[q].iloc[rows]
            label = out[q].iloc[rows[0]]
            assert (out[q].iloc[rows] == label).all()
            if q in schema.hierarchies:
                expected = schema.hierarchies[q].lca(list(values))
            elif schema.kind(q, table) == "numeric":
                lo, hi = values.min(), values.max()
                expected = str(lo) if lo == hi else f"[{lo}-{hi}]"
            else:
                distinct = sorted(set(values))
                expected = distinct[0] if len(distinct) == 1 else "{" + ",".join(distinct) + "}"
            assert label == expected
    # equivalence classes are exactly the distinct released tuples
    released = out.loc[class_of >= 0, list(table.columns)].astype(str)
    assert len(released.drop_duplicates()) == release.n_classes
    assert (out.loc[class_of < 0, list(table.columns)] == SUPPRESSED).all().all()
