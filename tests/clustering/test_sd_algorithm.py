"""The SD greedy algorithm (paper 000, section 4.2 / Figure 3) and its metrics (eq. 2-4)."""

import numpy as np
import pandas as pd
import pytest

import kanon_graph as kg
from kanon_graph.clustering import contingency_distances
from kanon_graph.privacy import PrivacyModel


def naive_sd(table, cat_cols, num_col, k):
    """Figure 3 record by record, straight from the readings in the docstrings.

    Returns the classes as sorted lists of row positions.
    """
    cat = np.column_stack([pd.factorize(table[c], sort=True)[0] for c in cat_cols])
    x = table[num_col].to_numpy(float)
    num = (x - 0) / (x.max() - x.min())
    cards = [table[c].nunique() for c in [num_col] + cat_cols]
    sort_col = ([num_col] + cat_cols)[int(np.argmax(cards))]
    columns = [num_col] + cat_cols
    keys = [pd.factorize(table[c], sort=True)[0] for c in [sort_col] + columns]
    remaining = list(np.lexsort(keys[::-1]))
    classes = []
    while len(remaining) >= k:
        t1 = remaining[0]
        cd = contingency_distances(cat[remaining], cat[t1], k)
        merge, rest = [t1], remaining[1:]
        while len(merge) < k:
            mean = num[merge].sum() / len(merge)
            best, chosen = np.inf, None
            for r in rest:
                d = 0.0
                for a in range(cat.shape[1]):
                    d += min(cd.matrix[a, u, cat[r, a]] for u in set(cat[merge, a]))
                d += abs(num[r] - mean)
                if d < best:
                    best, chosen = d, r
            merge.append(chosen)
            rest.remove(chosen)
        classes.append(merge)
        remaining = rest
    for r in remaining:
        cd = contingency_distances(cat, cat[r], k)
        dists = []
        for members in classes:
            d = abs(num[r] - num[members].sum() / len(members))
            for a in range(cat.shape[1]):
                d += min(cd.matrix[a, cat[r, a], u] for u in set(cat[members, a]))
            dists.append(d)
        classes[int(np.argmin(dists))].append(r)
    return sorted(sorted(int(i) for i in c) for c in classes)


def exact_table(n, seed):
    """Dyadic distances only (range 8, cardinalities 2, 3, 5), so float sums are exact."""
    rng = np.random.default_rng(seed)
    age = rng.integers(0, 9, n)
    age[:2] = [0, 8]
    return pd.DataFrame({
        "age": age,
        "sex": rng.choice(["F", "M"], n),
        "blood": rng.choice(["A", "B", "O"], n, p=[0.5, 0.3, 0.2]),
        "job": rng.choice(["a", "b", "c", "d", "e"], n, p=[0.4, 0.25, 0.15, 0.12, 0.08]),
    })


@pytest.mark.parametrize("n, k, seed", [(40, 2, 0), (61, 3, 1), (90, 5, 2), (33, 4, 3),
                                        (100, 7, 4), (120, 2, 5)])
@pytest.mark.parametrize("coarse_age", [False, True], ids=["sort-on-age", "sort-on-job"])
def test_matches_the_record_by_record_algorithm(n, k, seed, coarse_age):
    table = exact_table(n, seed)
    if coarse_age:      # three ages: the five-valued job becomes the sort attribute
        table["age"] = table["age"] // 4 * 4
    schema = kg.Schema(quasi_identifiers=["age", "sex", "blood", "job"])
    # the partition itself: the release may merge classes whose released tuples coincide
    part = kg.clustering.spatial_distance(kg.encode(table, schema), PrivacyModel(k=k),
                                         variant="paper")
    got = sorted(np.flatnonzero(part.class_of == c).tolist() for c in np.unique(part.class_of))
    assert got == naive_sd(table, ["sex", "blood", "job"], "age", k)
    assert kg.anonymize(table, schema, k=k, algorithm="sd", variant="paper").verification.k_achieved >= k


def six_rows():
    table = pd.DataFrame({"age": [25, 27, 31, 45, 48, 52],
                          "sex": ["F", "F", "M", "M", "F", "M"]})
    return table, kg.Schema(quasi_identifiers=["age", "sex"])


def test_hand_worked_example_and_metrics():
    table, schema = six_rows()
    res = kg.anonymize(table, schema, k=2, algorithm="sd", variant="paper",
                       metrics=["ncp", "gcp", "utility"])
    assert sorted(map(sorted, res.classes)) == [[0, 1], [2, 3], [4, 5]]
    # eq. (2): ranges 2, 14, 4 over 27; eq. (3): {F,M} is 2 of 2 values, else 0
    total = 2 * (2 / 27) + 2 * (14 / 27) + 2 * (4 / 27 + 2 / 2)
    assert res.metrics["ncp"] == pytest.approx(total)
    assert res.metrics["gcp"] == pytest.approx(total / (2 * 6))       # normalized to [0, 1]
    assert res.metrics["utility"] == pytest.approx(1 - total / 12)    # eq. (4)
    assert res.table["sex"].tolist()[4:] == ["{F,M}", "{F,M}"]


def test_categorical_ncp_is_card_u_over_card_d():
    # three values in the column, a class holding two of them costs 2/3 per record
    table = pd.DataFrame({"c": ["x", "y", "x", "z", "z", "z"]})
    schema = kg.Schema(quasi_identifiers=["c"])
    res = kg.anonymize(table, schema, k=2, algorithm="sd", metrics=["ncp", "gcp"])
    sizes = {frozenset(table["c"][list(c)]): len(c) for c in res.classes}
    expect = sum(n * (len(vals) / 3 if len(vals) > 1 else 0) for vals, n in sizes.items())
    assert res.metrics["ncp"] == pytest.approx(expect)
    assert 0 <= res.metrics["gcp"] <= 1


def test_exactly_k_remaining_records_form_a_class():
    table, schema = six_rows()
    res = kg.anonymize(table, schema, k=3, algorithm="sd", variant="paper")
    assert sorted(len(c) for c in res.classes) == [3, 3]
    assert res.stats["leftovers"] == 0


def test_leftovers_join_the_nearest_centre():
    # k = 3 on 7 rows: two classes, the last record joins the closer one by age
    table = pd.DataFrame({"age": [20, 21, 22, 60, 61, 62, 59], "sex": ["F"] * 7})
    schema = kg.Schema(quasi_identifiers=["age", "sex"])
    res = kg.anonymize(table, schema, k=3, algorithm="sd", variant="paper")
    assert res.stats["leftovers"] == 1
    assert sorted(map(sorted, res.classes)) == [[0, 1, 2], [3, 4, 5, 6]]
    assert res.table["age"].tolist()[3:] == ["[59-62]"] * 4


def test_duplicates_and_determinism():
    table = pd.concat([exact_table(50, 7)] * 3, ignore_index=True)
    schema = kg.Schema(quasi_identifiers=["age", "sex", "blood", "job"])
    a = kg.anonymize(table, schema, k=4, algorithm="sd", seed=1)
    b = kg.anonymize(table, schema, k=4, algorithm="sd", seed=2)
    assert [list(c) for c in a.classes] == [list(c) for c in b.classes]
    assert min(len(c) for c in a.classes) >= 4
    assert a.stats["distinct_tuples"] <= 50
    # identical tuples are cheap to merge: most classes release original values
    assert a.metrics["gcp"] < 0.2


def test_declares_itself():
    info = kg.registry.get_algorithm("sd")
    # it suppresses only MAGVal cells that cannot reach k, within the user's budget
    assert (info.recoding, info.needs_hierarchies, info.supports_suppression,
            info.supports_boundaries) == ("local", False, True, True)


def test_runs_with_hierarchies_and_releases_lcas():
    table = kg.datasets.paper_003_table()
    res = kg.anonymize(table, kg.datasets.paper_003_schema(), k=3, algorithm="sd")
    assert res.verification.k_achieved >= 3
    assert res.suppressed == 0


def test_algorithm_called_directly_on_encoded_data():
    table, schema = six_rows()
    part = kg.clustering.spatial_distance(kg.encode(table, schema), PrivacyModel(k=2),
                                         variant="paper")
    assert part.levels is None
    assert sorted(np.bincount(part.class_of).tolist()) == [2, 2, 2]


def test_adult_slice_hierarchy_free(adult_table):
    qis = ["sex", "age", "race", "marital-status", "education", "native-country",
           "workclass", "occupation"]
    table = adult_table.head(400)
    schema = kg.Schema(quasi_identifiers=qis, sensitive=["salary-class"], numeric=["age"],
                       categorical=[q for q in qis if q != "age"])
    res = kg.anonymize(table, schema, k=5, algorithm="sd",
                       metrics=["ncp", "gcp", "utility"])
    assert min(len(c) for c in res.classes) >= 5
    assert res.stats["sort_attribute"] == "age"
    assert res.metrics["utility"] == pytest.approx(1 - res.metrics["gcp"])
    assert 0 < res.metrics["gcp"] < 1
    released = res.table["age"].astype(str)
    assert released.str.fullmatch(r"\d+|\[\d+-\d+\]").all()


def _pairs_table():
    """SD's k=2 classes are [20-21], [22-23], [50-51], [52-53], each of one value."""
    table = pd.DataFrame({"age": [20, 21, 22, 23, 50, 51, 52, 53], "s": list("aabbaabb")})
    return table, kg.Schema(quasi_identifiers=["age"], sensitive=["s"])


@pytest.mark.parametrize("criterion", [{"l": 2}, {"l": 2, "diversity": "entropy"}, {"t": 0.3}])
def test_failing_classes_merge_with_their_nearest_class(criterion):
    """l / t: a failing class joins its nearest class in SD's distance, as for k.

    SD used to ignore l and t and leave the release to the final check,
    which raised a PrivacyError here.
    """
    table, schema = _pairs_table()
    plain = kg.anonymize(table, schema, k=2, algorithm="sd", variant="paper")
    assert plain.table["age"].nunique() == 4
    res = kg.anonymize(table, schema, k=2, algorithm="sd", variant="paper", **criterion)
    assert res.verification.holds
    # [20-21] joins [22-23] (not [50-51]), [50-51] joins [52-53]
    assert res.table["age"].tolist() == ["[20-23]"] * 4 + ["[50-53]"] * 4
    assert res.stats["l_t_merges"] == 2
    # the graph variant merges failing classes along its graph, to the same release
    res = kg.anonymize(table, schema, k=2, algorithm="sd", **criterion)
    assert res.table["age"].tolist() == ["[20-23]"] * 4 + ["[50-53]"] * 4


def test_classes_that_pass_are_not_merged():
    """With l met by the k-clusters already, the release is SD's k-only release."""
    table = pd.DataFrame({"age": [20, 21, 22, 23, 50, 51, 52, 53], "s": list("abababab")})
    schema = kg.Schema(quasi_identifiers=["age"], sensitive=["s"])
    plain = kg.anonymize(table, schema, k=2, algorithm="sd")
    res = kg.anonymize(table, schema, k=2, l=2, algorithm="sd")
    pd.testing.assert_frame_equal(res.table, plain.table)
    assert res.stats["l_t_merges"] == 0


@pytest.mark.parametrize("seed", range(12))
def test_l_and_t_hold_on_random_tables(seed):
    """Random tables with l and / or t: SD releases what was asked, never a PrivacyError."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(8, 80))
    table = pd.DataFrame({
        "age": rng.integers(18, 70, n),
        "sex": rng.choice(["F", "M"], n),
        "job": rng.choice(["clerk", "nurse", "teacher", "farmer"], n),
        "s": rng.choice(["flu", "cancer", "hiv", "none"], n, p=[0.55, 0.2, 0.15, 0.1]),
    })
    schema = kg.Schema(quasi_identifiers=["age", "sex", "job"], sensitive=["s"])
    k = int(rng.integers(1, 5))
    l_ = int(rng.integers(2, 4)) if seed % 3 != 2 else None
    t = float(rng.choice([0.2, 0.35])) if seed % 3 != 0 else None
    try:
        res = kg.anonymize(table, schema, k=k, l=l_, t=t, algorithm="sd")
    except ValueError as exc:           # refused up front: the whole table fails
        assert "cannot be reached" in str(exc)
        return
    ver = res.verification
    assert ver.holds and ver.k_achieved >= k
    assert l_ is None or ver.l_achieved >= l_
    assert t is None or ver.t_achieved <= t + 1e-12


def test_l_with_boundaries_merges_within_cells():
    """With MAGVal marks, merging for l never crosses a cell."""
    hier = kg.Hierarchy.from_mapping({"*": {"young": ["20", "21", "22", "23"],
                                            "old": ["50", "51", "52", "53"]}}, name="age")
    hier.mark_magval("young").mark_magval("old")
    table = pd.DataFrame({"age": ["20", "21", "22", "23", "50", "51", "52", "53"],
                          "s": list("aabbaabb")})
    schema = kg.Schema(quasi_identifiers=["age"], sensitive=["s"], categorical=["age"],
                       hierarchies={"age": hier})
    res = kg.anonymize(table, schema, k=2, l=2, algorithm="sd", respect_boundaries=True)
    assert res.verification.holds and kg.constraint_violations(res) == []
    assert res.table["age"].tolist() == ["young"] * 4 + ["old"] * 4
