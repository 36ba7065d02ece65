"""The public API: anonymize, apply_levels, constraint_violations, the algorithm registry."""

import numpy as np
import pandas as pd
import pytest

import kanon_graph as kg
from kanon_graph.registry import get_algorithm, unregister_algorithm

QIS = ["gender", "age", "zip"]


def _covers(res, n):
    rows = np.concatenate([np.asarray(c) for c in res.classes]
                          + [np.flatnonzero(res.suppressed_mask)])
    return sorted(rows.tolist()) == list(range(n))


# ------------------------------------------------------------------- anonymize
def test_anonymize_result_fields(table, schema):
    res = kg.anonymize(table, schema, k=3, algorithm="datafly")
    assert isinstance(res, kg.AnonymizationResult)
    assert res.algorithm == "datafly" and res.k == 3
    # Datafly on Table 1: age (7 values) -> zip (5) -> age -> gender, then 1 record left
    assert res.levels == {"gender": 1, "age": 2, "zip": 1}
    assert res.level_labels == {"gender": "Person", "age": "[20-30]", "zip": "53528*"}
    assert res.suppressed == 1 and res.suppressed_rows.tolist() == [5]
    assert _covers(res, 10)
    assert all(len(c) >= 3 for c in res.classes)
    assert res.verification.holds and res.verification.k_achieved >= 3
    assert res.verification.suppressed == 1
    assert "id" not in res.table.columns
    assert list(res.table.columns) == ["gender", "age", "zip", "disease"]
    assert res.table.loc[5, QIS].tolist() == ["*"] * 3
    assert res.stats["seconds"] >= 0 and res.stats["generalization_steps"] == 4
    assert set(res.metrics) >= {"ncp", "gcp", "discernibility", "cavg", "loss"}
    assert kg.privacy.k_anonymity(res.table, QIS) >= 3


def test_anonymize_result_is_frozen(table, schema):
    res = kg.anonymize(table, schema, k=2)
    with pytest.raises(AttributeError):
        res.k = 5


def test_released_values_cover_originals(table, schema):
    res = kg.anonymize(table, schema, k=3, algorithm="optimal")
    hier = schema.hierarchies
    released = set(np.concatenate(res.classes).tolist())
    for row in released:
        for q in QIS:
            assert str(hier[q]._normalize(table.loc[row, q])) in hier[q].leaves(
                res.table.loc[row, q], level=res.levels[q])


def test_classes_refer_to_input_positions_with_custom_index(table, schema):
    table.index = [f"p{i}" for i in range(10)]
    res = kg.anonymize(table, schema, k=3)
    assert list(res.table.index) == list(table.index)
    assert _covers(res, 10)
    for c in res.classes:
        assert len(res.table.iloc[c][QIS].drop_duplicates()) == 1


def test_suppressed_rows_are_index_labels_with_a_custom_index(table, schema):
    # Datafly at k=3 suppresses input row 5 (see test_anonymize_result_fields);
    # a shuffled, non-default index must not change which rows `.loc` picks
    table.index = [30 - 3 * i for i in range(10)]
    res = kg.anonymize(table, schema, k=3, algorithm="datafly")
    assert res.suppressed_rows.tolist() == [table.index[5]]
    assert res.suppressed_mask.tolist() == [i == 5 for i in range(10)]
    assert (res.table.loc[res.suppressed_rows, QIS] == "*").all().all()
    assert (res.table[res.suppressed_mask][QIS] == "*").all().all()
    assert not (res.table[~res.suppressed_mask][QIS] == "*").all(axis=1).any()


def test_suppressed_mask_aligned_after_dropping_rows(table, schema):
    table.loc[2, "age"] = np.nan
    res = kg.anonymize(table, schema, k=3, algorithm="datafly", missing="drop")
    assert len(res.suppressed_mask) == len(res.table) == 9
    assert res.suppressed == int(res.suppressed_mask.sum())
    assert list(res.table.index[res.suppressed_mask]) == list(res.suppressed_rows)
    assert (res.table.loc[res.suppressed_rows, QIS] == "*").all().all()


def test_summary_and_class_summary(table, schema):
    res = kg.anonymize(table, schema, k=3, algorithm="datafly")
    summary = res.class_summary()
    assert summary["size"].tolist() == sorted((len(c) for c in res.classes), reverse=True)
    assert list(summary.columns) == QIS + ["size"]
    text = res.summary()
    assert "algorithm datafly, k=3: holds" in text and "1 suppressed" in text
    assert repr(res).startswith("AnonymizationResult(algorithm='datafly', k=3, rows=10")


def test_everything_suppressed_still_summarizes(table, schema):
    res = kg.apply_levels(table, schema, [0, 0, 0], k=10, suppress=np.ones(10, dtype=bool))
    assert res.suppressed == 10 and res.classes == []
    assert res.metrics["loss"] == 1.0 and res.metrics["cavg"] == 10 / 10   # N / k
    assert "10 suppressed" in res.summary()
    assert res.class_summary().empty


def test_class_summary_after_dropping_rows(table, schema):
    table["age"] = table["age"].astype(float)
    table.loc[0, "age"] = np.nan
    res = kg.apply_levels(table, schema, [0, 0, 0], missing="drop")
    summary = res.class_summary()
    assert len(summary) == 9 and summary["size"].tolist() == [1] * 9
    # each class's released values are those of its own record
    expected = table.loc[1:, ["gender", "age", "zip"]].astype(str)
    expected["age"] = expected["age"].str.replace(".0", "", regex=False)
    assert sorted(map(tuple, summary[QIS].values.tolist())) == \
        sorted(map(tuple, expected.values.tolist()))


def test_suppression_budget_respected(table, schema):
    res = kg.anonymize(table, schema, k=3, suppression=0.0)
    assert res.suppressed == 0 and res.verification.holds


def test_l_diversity_and_t_closeness_requested(table, schema):
    res = kg.anonymize(table, schema, k=2, l=3, suppression=0.0)
    assert res.verification.l_achieved >= 3 and res.verification.l == 3
    assert kg.privacy.l_diversity(res.table, QIS, "disease") >= 3
    res = kg.anonymize(table, schema, k=2, t=0.3, suppression=0.0)
    assert res.verification.t_achieved <= 0.3
    assert kg.privacy.t_closeness(res.table, QIS, "disease") <= 0.3 + 1e-12


# ----------------------------------------------------------------- apply_levels
def test_apply_levels_list_and_dict_agree(table, schema):
    a = kg.apply_levels(table, schema, [0, 1, 1], k=2)
    b = kg.apply_levels(table, schema, {"zip": 1, "gender": 0, "age": 1}, k=2)
    pd.testing.assert_frame_equal(a.table, b.table)
    assert a.levels == b.levels == {"gender": 0, "age": 1, "zip": 1}
    assert a.metrics == b.metrics
    assert a.algorithm == "apply_levels"


def test_apply_levels_table_1b(table, schema):
    # 003 Table 1(b): the 3-anonymous global recoding <gender, [20-40], 5352**>
    res = kg.apply_levels(table, schema, [0, 3, 2], k=3)
    assert res.table["age"].unique().tolist() == ["[20-40]"]
    assert res.table["zip"].unique().tolist() == ["5352**"]
    assert [c.tolist() for c in res.classes] == [[0, 1, 2, 7, 8, 9], [3, 4, 5, 6]]
    assert res.verification.holds and res.verification.k_achieved == 4


def test_apply_levels_need_not_be_k_anonymous(table, schema):
    res = kg.apply_levels(table, schema, [0, 0, 0], k=2)
    assert not res.verification.holds and res.verification.k_achieved == 1
    assert res.table[QIS].astype(str).values.tolist() == \
        table[QIS].astype(str).values.tolist()


def test_apply_levels_suppress(table, schema):
    suppress = np.zeros(10, dtype=bool)
    suppress[[3, 4]] = True
    res = kg.apply_levels(table, schema, [0, 1, 0], k=3, suppress=suppress)
    assert res.suppressed == 2 and res.suppressed_rows.tolist() == [3, 4]
    assert _covers(res, 10)
    assert res.table.loc[3, QIS].tolist() == ["*"] * 3
    assert res.verification.suppressed == 2


def test_apply_levels_suppress_aligned_with_dropped_rows(table, schema):
    table["age"] = table["age"].astype(float)
    table.loc[0, "age"] = np.nan
    suppress = np.zeros(10, dtype=bool)
    suppress[9] = True
    res = kg.apply_levels(table, schema, [0, 1, 1], suppress=suppress, missing="drop")
    assert res.dropped == 1
    assert res.suppressed_rows.tolist() == [9]
    assert res.table.loc[9, QIS].tolist() == ["*"] * 3


def test_constraint_violations_through_the_api(table, schema):
    hier = kg.datasets.paper_003_hierarchies()
    hier["age"].mark_magval("[20-30]")
    constrained = kg.Schema(quasi_identifiers=QIS, identifiers=["id"], sensitive=["disease"],
                            categorical=["zip"], hierarchies=hier)
    assert kg.constraint_violations(kg.apply_levels(table, constrained, [0, 2, 0])) == []
    found = kg.constraint_violations(kg.apply_levels(table, constrained, [0, 3, 0]))
    # ages 21-26 (records 1-5) may go up to [20-30] only
    assert [(v.row, v.value, v.released, v.magval) for v in found] == [
        (r, a, "[20-40]", "[20-30]") for r, a in enumerate(["21", "24", "25", "26", "26"])]


# ------------------------------------------------------- the registry and custom algorithms
def _sorted_chunks(data, model, *, rng, suppression=None, by=0):
    """Sort records by one quasi-identifier and cut them into runs of k (a local recoding)."""
    order = np.argsort(data.attributes[by].codes, kind="stable")
    class_of = np.empty(data.n, dtype=np.int64)
    n_groups = max(data.n // model.k, 1)
    class_of[order] = np.minimum(np.arange(data.n) // model.k, n_groups - 1)
    return kg.Partition(class_of, stats={"groups": n_groups})


@pytest.fixture
def register():
    names = []

    def add(name, fn, **kw):
        kg.register_algorithm(name, fn, **kw)
        names.append(name)

    yield add
    for name in names:
        unregister_algorithm(name)
    assert not set(names) & set(kg.algorithms())


def test_custom_algorithm_end_to_end(table, schema, register):
    register("test-sorted-chunks", _sorted_chunks, recoding="local")
    assert "test-sorted-chunks" in kg.algorithms()
    info = get_algorithm("test-sorted-chunks")
    assert info.recoding == "local" and info.options() == ["by"]
    assert info.description.startswith("Sort records by one quasi-identifier")
    res = kg.anonymize(table, schema, k=3, algorithm="test-sorted-chunks", by=1, seed=0)
    assert res.levels is None and res.level_labels is None
    assert res.stats["groups"] == 3
    # ages are already sorted: runs {1,2,3}, {4,5,6}, {7,8,9,10} (the last takes the rest)
    assert [c.tolist() for c in res.classes] == [[0, 1, 2], [3, 4, 5], [6, 7, 8, 9]]
    assert res.table["age"].tolist() == ["[20-25]"] * 3 + ["[20-40]"] * 3 + ["[31-40]"] * 4
    assert res.table["gender"].tolist() == ["Male"] * 3 + ["Female"] * 3 + ["Person"] * 4
    assert res.verification.holds and res.suppressed == 0
    with pytest.raises(ValueError, match=r"Unknown option\(s\) \['depth'\] for algorithm "
                                         r"'test-sorted-chunks'; it accepts \['by'\]"):
        kg.anonymize(table, schema, k=3, algorithm="test-sorted-chunks", depth=2)


def test_registering_twice_needs_replace(register):
    register("test-dup", _sorted_chunks, recoding="local")
    with pytest.raises(ValueError, match="'test-dup' is already registered"):
        kg.register_algorithm("test-dup", _sorted_chunks, recoding="local")
    kg.register_algorithm("test-dup", _sorted_chunks, recoding="global", replace=True)
    assert get_algorithm("test-dup").recoding == "global"
    with pytest.raises(ValueError, match=r"'recoding' parameter of register_algorithm must be "
                                         r"one of \['global', 'local', 'microaggregation'\]\. "
                                         r"Got 'both'\."):
        kg.register_algorithm("test-x", _sorted_chunks, recoding="both")


def test_options_of_an_algorithm_written_without_star(table, schema, register):
    def plain(data, model, rng=None, suppression=None, width=2):
        return kg.Partition(np.arange(data.n) // width)

    register("test-plain", plain, recoding="local")
    assert get_algorithm("test-plain").options() == ["width"]
    res = kg.anonymize(table, schema, k=5, algorithm="test-plain", width=5)
    assert [c.tolist() for c in res.classes] == [[0, 1, 2, 3, 4], [5, 6, 7, 8, 9]]


def test_algorithm_accepting_any_option(table, schema, register):
    seen = {}

    def anything(data, model, *, rng, suppression=None, **options):
        seen.update(options)
        return kg.Partition(np.zeros(data.n, dtype=np.int64))

    register("test-anything", anything, recoding="local")
    kg.anonymize(table, schema, k=2, algorithm="test-anything", alpha=1, beta="x")
    assert seen == {"alpha": 1, "beta": "x"}


def test_seed_reaches_the_algorithm(table, schema, register):
    draws = []

    def random_pairs(data, model, *, rng, suppression=None):
        draws.append(rng.integers(1 << 30))
        return kg.Partition(np.zeros(data.n, dtype=np.int64))

    register("test-random", random_pairs, recoding="local")
    for seed in (7, 7, 8):
        kg.anonymize(table, schema, k=2, algorithm="test-random", seed=seed)
    assert draws[0] == draws[1] != draws[2]


# --------------------------------------------------- broken algorithms are caught
def _broken(kind):
    def algorithm(data, model, *, rng, suppression=None):
        n = data.n
        if kind == "singletons":                      # not k-anonymous
            return kg.Partition(np.arange(n))
        if kind == "loses-record":                    # one record missing
            return kg.Partition(np.zeros(n - 1, dtype=np.int64))
        if kind == "loses-record-global":
            return kg.Partition(np.zeros(n - 1, dtype=np.int64), tuple(data.heights))
        if kind == "levels-too-low":                  # global, not k-anonymous
            return kg.Partition(np.zeros(n, dtype=np.int64), (0,) * len(data.attributes))
        if kind == "bad-levels":
            return kg.Partition(np.zeros(n, dtype=np.int64), (0, 9, 0))
        if kind == "over-suppresses":
            return kg.Partition(np.full(n, -1, dtype=np.int64))
        if kind == "not-a-partition":
            return np.zeros(n)
        raise AssertionError(kind)

    return algorithm


@pytest.mark.parametrize("kind, message", [
    ("singletons", r"fails its privacy check: FAILS: k=3 \(smallest class 1\)"),
    ("loses-record", r"returned \(9,\) class labels for 10 records"),
    ("loses-record-global", r"returned \(9,\) class labels for 10 records"),
    ("levels-too-low", "fails its privacy check"),
    ("bad-levels", r"returned levels \(0, 9, 0\)"),
    ("over-suppresses", "suppressed 10 records, more than the allowed 10.00% of 10"),
    ("not-a-partition", "returned ndarray, not a kg.Partition"),
])
def test_broken_algorithm_raises_privacy_error(table, schema, register, kind, message):
    name = f"test-broken-{kind}"
    register(name, _broken(kind), recoding="local")
    with pytest.raises(kg.PrivacyError, match=message):
        kg.anonymize(table, schema, k=3, algorithm=name, suppression=0.1)


def test_fully_generalized_release_with_star_roots_is_counted_as_suppressed(register):
    # roots labelled '*' read like suppressed cells: a record whose quasi-identifiers are
    # all '*' is suppressed by definition, and counted, whatever the algorithm said
    table = pd.DataFrame({"a": ["x", "y", "x", "y"], "b": ["1", "1", "2", "2"]})
    hier = {c: kg.Hierarchy.from_rows([[v, "*"] for v in sorted(set(table[c]))], name=c)
            for c in ["a", "b"]}
    schema = kg.Schema(quasi_identifiers=["a", "b"], hierarchies=hier)

    def to_root(data, model, *, rng, suppression=None):
        return kg.Partition(np.zeros(data.n, dtype=np.int64), tuple(data.heights))

    register("test-to-root", to_root, recoding="global")
    res = kg.anonymize(table, schema, k=4, algorithm="test-to-root")
    assert res.suppressed == 4 and res.classes == [] and res.suppressed_mask.all()
    assert res.verification.holds and res.verification.released == 0
    assert (res.table == "*").all().all()
    # counted as suppressed, the top class breaks a stated budget: refused, never passed
    with pytest.raises(kg.PrivacyError, match=r"suppressed 4 records \(4 of them released "
                                               r"with every quasi-identifier '\*', which counts "
                                               r"as suppressed\), more than the allowed 50\.00% "
                                               r"of 4"):
        kg.anonymize(table, schema, k=4, algorithm="test-to-root", suppression=0.5)
