"""Paper 001: sensitive-attribute clustering, Byun's IL and the pseudo-code loss."""

import itertools
from dataclasses import replace

import numpy as np
import pandas as pd
import pytest

import kanon_graph as kg
from kanon_graph.encoding import encode
from kanon_graph.metrics import byun_il, paper001_il
from kanon_graph.recoding import recode_partition


def paper001_schema():
    """Table 1: age numeric (no hierarchy), gender and zip with one-level trees."""
    gender = kg.Hierarchy.from_rows([["Male", "Person"], ["Female", "Person"]], name="gender")
    zips = kg.Hierarchy.from_rows([[z, "4433**"] for z in ("443350", "443351", "443352")],
                                  name="zip")
    return kg.Schema(quasi_identifiers=["age", "gender", "zip"], sensitive=["disease"],
                     identifiers=["name"], categorical=["zip"],
                     hierarchies={"gender": gender, "zip": zips})


def _at_top(rel, hierarchy):
    """The attribute released at the root for every class (the paper's Person / 4433**)."""
    m = len(rel.labels)
    return replace(rel, labels=np.full(m, hierarchy.root.name, dtype=object),
                   level=np.full(m, hierarchy.height), node=np.zeros(m, dtype=np.int64),
                   distinct=np.full(m, hierarchy.n_leaves))


@pytest.fixture
def table2():
    """Table 2 of paper 001: {25}, {26}, {27}, {36, 39, 40}; gender Person, zip 4433**."""
    schema = paper001_schema()
    data = encode(kg.datasets.paper_001_table(), schema)
    release = recode_partition(data, np.array([0, 1, 2, 3, 3, 3]))
    attrs = dict(release.attributes)
    for name in ("gender", "zip"):
        attrs[name] = _at_top(attrs[name], schema.hierarchy(name))
    return replace(release, attributes=attrs)


def test_table2_release_is_the_papers(table2):
    out = table2.table()
    assert out["age"].tolist() == ["25", "26", "27", "[36-40]", "[36-40]", "[36-40]"]
    assert set(out["gender"]) == {"Person"} and set(out["zip"]) == {"4433**"}


def test_byun_il_on_table2(table2):
    # 3 singletons * 1 * (0 + 1 + 1) + 3 * (4/15 + 1 + 1)
    assert byun_il(table2) == pytest.approx(12.8)


def test_pseudo_code_loss_on_table2(table2):
    # Byun's IL plus 1 * 1/4 + 1 * 2/4 + 1 * 3/4 + 3 * 4/4
    value = paper001_il(table2)
    assert value == pytest.approx(17.3)
    # the paper's 17.28 is this loss with 4/15 rounded to 0.26
    assert value - 3 * (4 / 15 - 0.26) == pytest.approx(17.28)
    assert kg.metrics.get_metric("paper001_il").monotone is False


def test_rare_values_pool_gives_the_two_age_groups():
    res = kg.anonymize(kg.datasets.paper_001_table(), paper001_schema(), k=3,
                       algorithm="sensitive-clustering", rare="pool")
    assert sorted(map(sorted, res.classes)) == [[0, 1, 2], [3, 4, 5]]
    assert res.table["age"].tolist()[:4] == ["[25-27]"] * 3 + ["[36-40]"]
    assert res.stats["l_diversity"] == 1 and res.stats["homogeneous_records"] == 3
    assert res.stats["prosecutor_risk"] == pytest.approx(1 / 3)
    assert res.stats["rare_values"] == 3 and res.stats["rare_records"] == 3


def test_rare_values_merge_into_nearest_cluster():
    res = kg.anonymize(kg.datasets.paper_001_table(), paper001_schema(), k=3,
                       algorithm="sensitive-clustering")
    # the only cluster is Hepatitis; the three rare records join it
    assert [sorted(c) for c in res.classes] == [[0, 1, 2, 3, 4, 5]]
    assert res.stats["l_diversity"] == 4 and res.stats["homogeneous_classes"] == 0


def _two_values(n, seed):
    rng = np.random.default_rng(seed)
    return pd.DataFrame({"age": rng.integers(20, 60, n), "hours": rng.integers(10, 60, n),
                         "sex": rng.choice(["F", "M"], n),
                         "disease": rng.choice(["flu", "hiv"], n)})


def test_classes_are_homogeneous_and_stats_match_the_release():
    table = _two_values(60, 0)
    schema = kg.Schema(quasi_identifiers=["age", "hours", "sex"], sensitive=["disease"])
    res = kg.anonymize(table, schema, k=4, algorithm="sensitive-clustering")
    l = kg.privacy.l_diversity(res.table, ["age", "hours", "sex"], "disease")
    assert res.stats["l_diversity"] == l
    highest, average = kg.privacy.prosecutor_risk(res.table, ["age", "hours", "sex"])
    assert res.stats["prosecutor_risk"] == pytest.approx(highest)
    assert res.stats["average_risk"] == pytest.approx(average)
    for members in res.classes:
        if len(set(table["disease"].iloc[members])) == 1:
            assert 4 <= len(members)
    assert res.stats["homogeneous_classes"] >= 1


def test_segmentation_is_the_least_il_partition_of_the_sorted_run():
    rng = np.random.default_rng(3)
    table = pd.DataFrame({"age": np.sort(rng.integers(20, 70, 10)),
                          "sex": rng.choice(["F", "M"], 10), "disease": ["flu"] * 10})
    schema = kg.Schema(quasi_identifiers=["age", "sex"], sensitive=["disease"])
    res = kg.anonymize(table, schema, k=3, algorithm="sensitive-clustering",
                       metrics=["byun_il"])
    data = encode(table, schema)
    order = np.lexsort([data.attributes[1].codes, table["age"].to_numpy()])
    best = np.inf
    for cuts in range(0, 3):
        for points in itertools.combinations(range(3, 8), cuts):
            bounds = [0, *points, 10]
            if any(b - a < 3 for a, b in zip(bounds, bounds[1:])):
                continue
            class_of = np.empty(10, dtype=int)
            for i, (a, b) in enumerate(zip(bounds, bounds[1:])):
                class_of[order[a:b]] = i
            best = min(best, byun_il(recode_partition(data, class_of)))
    assert res.metrics["byun_il"] == pytest.approx(best)


def test_sort_by_changes_the_order():
    table = _two_values(40, 1)
    schema = kg.Schema(quasi_identifiers=["age", "hours", "sex"], sensitive=["disease"])
    by_age = kg.anonymize(table, schema, k=5, algorithm="sensitive-clustering")
    by_hours = kg.anonymize(table, schema, k=5, algorithm="sensitive-clustering",
                            sort_by="hours")
    assert by_age.stats["sort_by"] == "age" and by_hours.stats["sort_by"] == "hours"
    spread = lambda res, col: np.mean([np.ptp(table[col].iloc[c]) for c in res.classes])
    assert spread(by_hours, "hours") < spread(by_age, "hours")


@pytest.mark.parametrize("kwargs, message", [
    ({"l": 2}, "l-diversity"),
    ({"t": 0.9}, "t-closeness"),
    # a one-value class is not recursive (1, 1)-diverse: this used to end in a PrivacyError
    ({"l": 1, "diversity": "recursive", "c": 1.0}, "l-diversity"),
    ({"sort_by": "zip2"}, "sort_by"),
    ({"rare": "drop"}, "rare"),
])
def test_errors_name_the_problem(kwargs, message):
    with pytest.raises(ValueError, match=message):
        kg.anonymize(kg.datasets.paper_001_table(), paper001_schema(), k=2,
                     algorithm="sensitive-clustering", **kwargs)


def test_needs_a_sensitive_attribute():
    schema = kg.Schema(quasi_identifiers=["age", "gender"], identifiers=["name"])
    with pytest.raises(ValueError, match="sensitive attribute"):
        kg.anonymize(kg.datasets.paper_001_table(), schema, k=2,
                     algorithm="sensitive-clustering")


@pytest.mark.parametrize("kwargs", [{"l": 1}, {"l": 1, "diversity": "entropy"},
                                    {"l": 1, "diversity": "recursive", "c": 2.0}])
def test_l_one_that_homogeneous_classes_meet_is_accepted(kwargs):
    res = kg.anonymize(kg.datasets.paper_001_table(), paper001_schema(), k=2,
                       algorithm="sensitive-clustering", **kwargs)
    assert res.verification.holds and res.verification.l_achieved >= 1


# --------------------------------------------- missing sensitive values (issue 39 item 9)
def _with_missing(values):
    return pd.DataFrame({"age": np.arange(20, 20 + len(values)),
                         "zip": [1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6][:len(values)],
                         "disease": values})


def _known_per_class(res):
    known = res.table["disease"].notna().to_numpy()
    return [int(known[rows].sum()) for rows in res.classes]


@pytest.mark.parametrize("rare", ["merge", "pool"])
@pytest.mark.parametrize("kwargs", [{}, {"l": 1}, {"l": 1, "diversity": "recursive", "c": 2},
                                    {"l": 1, "diversity": "entropy"}])
def test_missing_sensitive_values_never_form_a_class_of_their_own(kwargs, rare):
    """missing='keep': a missing value is no value (l counts the known ones), so a class of
    missing values only has l 0 and was refused by the check with l=1."""
    table = _with_missing(["a", "a", "a", None, None, None, "b", "b", "b", None])
    schema = kg.Schema(quasi_identifiers=["age", "zip"], sensitive=["disease"])
    res = kg.anonymize(table, schema, k=2, algorithm="sensitive-clustering",
                       missing="keep", rare=rare, **kwargs)
    assert res.verification.holds and len(res.suppressed_rows) == 0
    assert min(_known_per_class(res)) >= 1
    assert res.stats["l_diversity"] == 1          # of the known values
    assert sorted(map(str, res.table["disease"])) == sorted(map(str, table["disease"]))


def test_fewer_known_values_than_k_make_one_class_with_the_missing():
    table = _with_missing(["a", None, None, "b", None, None])
    res = kg.anonymize(table, kg.Schema(quasi_identifiers=["age", "zip"], sensitive=["disease"]),
                       k=3, algorithm="sensitive-clustering", missing="keep", l=1)
    assert [len(c) for c in res.classes] == [6] and _known_per_class(res) == [2]
    assert res.stats["l_diversity"] == 2


def test_only_missing_sensitive_values_are_refused_by_name():
    table = _with_missing([None] * 6)
    with pytest.raises(ValueError, match="every record's sensitive value 'disease' is missing"):
        kg.anonymize(table, kg.Schema(quasi_identifiers=["age", "zip"], sensitive=["disease"]),
                     k=2, algorithm="sensitive-clustering", missing="keep")


def test_a_boundary_cell_of_missing_values_is_suppressed_within_the_budget():
    loc = kg.datasets.paper_002_location()
    loc.clear_magvals()
    loc.mark_magval("South Egypt")                  # Geza and Aswan apart from Alex and Tanta
    table = pd.DataFrame({"location": ["Geza", "Aswan", "Geza", "Aswan",
                                       "Alex", "Tanta", "Alex", "Tanta"],
                          "disease": ["flu", "hiv", "flu", "hiv", None, None, None, None]})
    schema = kg.Schema(quasi_identifiers=["location"], sensitive=["disease"],
                       hierarchies={"location": loc})
    run = dict(k=2, algorithm="sensitive-clustering", missing="keep", respect_boundaries=True)
    res = kg.anonymize(table, schema, suppression=0.5, **run)
    assert sorted(res.suppressed_rows.tolist()) == [4, 5, 6, 7]
    assert min(_known_per_class(res)) >= 1
    with pytest.raises(ValueError, match="cannot form a class"):
        kg.anonymize(table, schema, **run)


# ------------------------------------- the sensitive column the caller chose (issue 46 item 7)
@pytest.mark.parametrize("rare", ["merge", "pool"])
def test_clusters_are_cut_by_the_chosen_sensitive_column(rare):
    """Two sensitive columns, ``sensitive="s2"``, k = l = 1, and s2 missing in one record:
    the clusters were cut by s1 (the schema's first), so that record stood alone in a class
    with no known s2 (distinct l 0) and the check refused the release. Cut by s2, its
    record joins a class that holds a known s2, and the release goes out."""
    table = pd.DataFrame({"age": [30, 31, 40, 41], "s1": ["a", "a", "b", "b"],
                          "s2": ["x", None, "y", "y"]})
    schema = kg.Schema(quasi_identifiers=["age"], sensitive=["s1", "s2"])
    res = kg.anonymize(table, schema, k=1, l=1, sensitive="s2", missing="keep", rare=rare,
                       algorithm="sensitive-clustering")
    assert res.verification.holds and res.verification.l_achieved >= 1
    assert len(res.suppressed_rows) == 0 and res.stats["sensitive"] == "s2"
    known = res.table["s2"].notna().to_numpy()
    assert all(known[rows].any() for rows in res.classes)
    # every class of one known s2 value (the method's homogeneous classes)
    for rows in res.classes:
        assert res.table["s2"].iloc[rows].dropna().nunique() == 1
    # the default column is still the schema's first
    first = kg.anonymize(table, schema, k=1, missing="keep", algorithm="sensitive-clustering")
    assert first.stats["sensitive"] == "s1"
