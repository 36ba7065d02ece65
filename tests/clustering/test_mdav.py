"""MDAV microaggregation (issue 34, item 2): classes, released aggregates, SSE / SST, the CLI."""

import numpy as np
import pandas as pd
import pytest

import kanon_graph as kg
from kanon_graph.clustering._mdav_kernels import mdav_classes
from kanon_graph.auto.choice import AUTO_CANDIDATES
from kanon_graph.exceptions import PrivacyError
from kanon_graph.privacy import PrivacyModel
from kanon_graph.recoding import recode_aggregate

from mdav_reference import reference_mdav, sse_sst as reference_sse_sst


def _numeric_tables():
    rng = np.random.default_rng(34)
    return {
        "normal-400-k3": (pd.DataFrame(rng.normal(size=(400, 3)), columns=list("abc")), 3),
        "ties-300-k5": (pd.DataFrame(rng.integers(0, 6, (300, 3)), columns=list("abc")), 5),
        "duplicates-200-k3": (pd.DataFrame(rng.integers(0, 3, (200, 2)), columns=list("ab")),
                              3),
        "ages-157-k4": (pd.DataFrame({"age": rng.integers(18, 90, 157),
                                      "hours": rng.integers(10, 60, 157)}), 4),
        "one-column-61-k6": (pd.DataFrame({"x": rng.integers(0, 20, 61)}), 6),
        "constant-column-40-k3": (pd.DataFrame({"x": rng.normal(size=40), "y": 7.0}), 3),
        "identical-11-k3": (pd.DataFrame({"x": [5.0] * 11, "y": [1.0] * 11}), 3),
        "between-2k-3k-10-k4": (pd.DataFrame({"x": rng.normal(size=10)}), 4),
        "n-equals-k-5": (pd.DataFrame({"x": rng.normal(size=5)}), 5),
    }


def _classes(res):
    return sorted(sorted(c.tolist()) for c in res.classes)


@pytest.mark.parametrize("case", sorted(_numeric_tables()))
@pytest.mark.parametrize("centroid", ["mean", "median"])
def test_classes_and_sse_equal_the_reference(case, centroid):
    """The classes and SSE / SST of the papers' algorithm, written out plainly in tests/."""
    table, k = _numeric_tables()[case]
    schema = kg.Schema(quasi_identifiers=list(table.columns))
    res = kg.anonymize(table, schema, k=k, algorithm="mdav", centroid=centroid)
    groups = reference_mdav(table.to_numpy(float), k)
    released = {tuple(res.table.iloc[g[0]]) for g in groups}
    if len(released) == len(groups):         # no two groups release the same tuple
        assert _classes(res) == sorted(groups)
    else:                                     # coinciding tuples merge: one class each
        merged = {}
        for g in groups:
            merged.setdefault(tuple(res.table.iloc[g[0]]), []).extend(g)
        assert _classes(res) == sorted(sorted(g) for g in merged.values())
    assert all(len(c) >= k for c in res.classes) and res.suppressed == 0
    # the groups before any merge, exactly (ties decide which of equal records go together)
    partition = kg.clustering.mdav(kg.encode(table, schema), PrivacyModel(k), rng=None,
                                   centroid=centroid)
    formed = {}
    for row, label in enumerate(partition.class_of):
        formed.setdefault(int(label), []).append(row)
    assert sorted(formed.values()) == sorted(groups)
    expected = reference_sse_sst(table.to_numpy(float), groups, centroid)
    assert res.metrics["sse_sst"] == pytest.approx(expected, rel=1e-9, abs=1e-12)


def test_class_sizes_are_k_to_2k_minus_1():
    table, k = _numeric_tables()["normal-400-k3"]
    res = kg.anonymize(table, kg.Schema(quasi_identifiers=list(table.columns)), k=k,
                       algorithm="mdav")
    sizes = sorted(len(c) for c in res.classes)
    assert sizes[0] >= k and sizes[-1] <= 2 * k - 1
    assert res.stats["groups"] == len(res.classes)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_tree_and_scan_find_the_same_classes(seed):
    """The k-d tree's farthest / nearest answers are the linear scan's, ties included."""
    rng = np.random.default_rng(seed)
    n = 900
    num = rng.integers(0, 5, (n, 2)).astype(float)          # many exact ties
    ordc = rng.integers(0, 4, (n, 1)).astype(np.int64)
    sizes = np.array([4], dtype=np.int64)
    none = np.zeros((n, 0), dtype=np.int64)
    empty = np.zeros(0, dtype=np.int64)
    for k in (2, 3, 7):
        tree = mdav_classes(num, ordc, sizes, none, empty, k, True)
        scan = mdav_classes(num, ordc, sizes, none, empty, k, False)
        assert (tree == scan).all()


def test_released_means_medians_modes_and_ordinal_medians():
    table = pd.DataFrame({
        "age": [20, 21, 30, 60, 61, 90],
        "edu": ["a", "c", "c", "b", "d", "d"],
        "sex": ["F", "M", "M", "F", "F", "M"],
    })
    schema = kg.Schema(quasi_identifiers=["age", "edu", "sex"])
    res = kg.anonymize(table, schema, k=3, algorithm="mdav", ordinal=["edu"])
    classes = _classes(res)
    assert classes == [[0, 1, 2], [3, 4, 5]]
    assert res.table["age"].tolist() == ([float(np.mean([20, 21, 30]))] * 3
                                        + [float(np.mean([60, 61, 90]))] * 3)
    assert res.table["edu"].tolist() == ["c"] * 3 + ["d"] * 3     # lower medians of a,c,c / b,d,d
    assert res.table["sex"].tolist() == ["M"] * 3 + ["F"] * 3     # modes
    median = kg.anonymize(table, schema, k=3, algorithm="mdav", centroid="median",
                          ordinal="edu")
    assert median.table["age"].tolist() == [21.0] * 3 + [61.0] * 3
    assert res.stats["aggregate"] == {"age": "mean", "edu": "median", "sex": "mode"}


def test_mode_ties_take_the_first_value_and_even_ordinal_the_lower_median():
    table = pd.DataFrame({"x": [1.0, 2.0], "c": ["b", "a"], "o": ["hi", "lo"]})
    data = kg.encode(table, kg.Schema(quasi_identifiers=["x", "c", "o"]))
    release = recode_aggregate(data, np.array([0, 0]), {"x": "mean", "c": "mode", "o": "median"})
    out = release.table()
    assert out["c"].tolist() == ["a", "a"] and out["o"].tolist() == ["hi", "hi"]
    assert out["x"].tolist() == [1.5, 1.5]


def test_classes_with_the_same_released_tuple_merge():
    """Two classes whose means coincide are one class to a reader, and counted as one."""
    table = pd.DataFrame({"x": [0.0, 10.0, 4.0, 6.0]})
    data = kg.encode(table, kg.Schema(quasi_identifiers=["x"]))
    release = recode_aggregate(data, np.array([0, 0, 1, 1]), {"x": "mean"})
    assert release.n_classes == 1 and release.sizes.tolist() == [4]
    assert release.table()["x"].tolist() == [5.0] * 4


def test_sse_sst_is_only_for_microaggregations():
    table, schema = kg.datasets.paper_003_table(), kg.datasets.paper_003_schema()
    res = kg.anonymize(table, schema, k=3, algorithm="mondrian")
    assert "sse_sst" not in res.metrics
    with pytest.raises(ValueError, match="'sse_sst' metric measures a microaggregation"):
        kg.anonymize(table, schema, k=3, algorithm="mondrian", metrics=["sse_sst"])


def test_bad_options_name_the_parameter_and_value():
    table = pd.DataFrame({"x": [1.0, 2.0, 3.0, 4.0], "c": list("abab")})
    schema = kg.Schema(quasi_identifiers=["x", "c"])
    with pytest.raises(ValueError, match=r"The 'centroid' parameter of the mdav algorithm must "
                                         r"be one of \['mean', 'median'\]\. Got 'mode'\."):
        kg.anonymize(table, schema, k=2, algorithm="mdav", centroid="mode")
    with pytest.raises(ValueError, match=r"The 'ordinal' parameter of the mdav algorithm must "
                                         r"name categorical quasi-identifiers \['c'\]\. "
                                         r"Got \['x'\]\."):
        kg.anonymize(table, schema, k=2, algorithm="mdav", ordinal=["x"])


def test_a_kept_missing_category_is_a_value():
    """missing='keep' on a categorical attribute: '(missing)' is a category like any other."""
    table = pd.DataFrame({"x": np.arange(12.0), "c": ["a", None, "a", "b"] * 3})
    res = kg.anonymize(table, kg.Schema(quasi_identifiers=["x", "c"]), k=3, algorithm="mdav",
                       missing="keep")
    assert res.verification.holds and len(res.table) == 12
    assert set(res.table["c"]) <= {"a", "b", kg.encoding.MISSING}


def test_a_released_value_outside_its_class_is_refused():
    """The cover check of a microaggregation: an aggregate outside its class never leaves."""
    @kg.register_algorithm("mdav-broken", recoding="microaggregation")
    def broken(data, model, *, rng, suppression=None):
        return kg.Partition(np.zeros(data.n, dtype=np.int64), aggregate={"x": "mean"})

    try:
        import kanon_graph.recoding._aggregate as aggregate

        table = pd.DataFrame({"x": [1.0, 2.0, 3.0]})
        original = aggregate._numeric_centres
        aggregate._numeric_centres = lambda *a: original(*a) + 100.0
        try:
            with pytest.raises(PrivacyError, match="released mean .* of 'x' is no mean"):
                kg.anonymize(table, kg.Schema(quasi_identifiers=["x"]), k=3,
                             algorithm="mdav-broken")
        finally:
            aggregate._numeric_centres = original
        with pytest.raises(PrivacyError, match="aggregates \\[\\], not every quasi-identifier"):
            kg.registry.unregister_algorithm("mdav-broken")
            kg.register_algorithm("mdav-broken", recoding="microaggregation")(
                lambda data, model, *, rng, suppression=None:
                kg.Partition(np.zeros(data.n, dtype=np.int64), aggregate={}))
            kg.anonymize(table, kg.Schema(quasi_identifiers=["x"]), k=3,
                         algorithm="mdav-broken")
    finally:
        kg.registry.unregister_algorithm("mdav-broken")


def test_cli_writes_numbers_that_stay_k_anonymous(tmp_path, capsys):
    from kanon_graph.cli import main

    rng = np.random.default_rng(5)
    table = pd.DataFrame({"age": rng.integers(18, 90, 120),
                          "hours": np.round(rng.normal(40, 8, 120), 1),
                          "sex": rng.choice(["F", "M"], 120),
                          "disease": rng.choice(["flu", "none"], 120)})
    table.to_csv(tmp_path / "in.csv", index=False)
    for out, extra in (("out.csv", ["--centroid", "median"]), ("out.parquet", [])):
        code = main(["anonymize", str(tmp_path / "in.csv"), "--qi", "age,hours,sex", "-k", "4",
                     "--algorithm", "mdav", "-o", str(tmp_path / out), "-q", *extra])
        assert code == 0
        back = (pd.read_csv(tmp_path / out) if out.endswith(".csv")
                else pd.read_parquet(tmp_path / out))
        assert len(back) == 120 and back["age"].dtype == float
        assert back.groupby(["age", "hours", "sex"]).size().min() >= 4
        assert sorted(back["disease"]) == sorted(table["disease"])
    back = pd.read_csv(tmp_path / "out.csv")          # medians: an age, or halfway between two
    assert back["age"].between(table["age"].min(), table["age"].max()).all()
    assert ((back["age"] * 2) % 1 == 0).all()


def test_auto_never_chooses_mdav():
    assert "mdav" not in AUTO_CANDIDATES


def test_evaluate_and_the_report_read_a_microaggregation():
    """kg.evaluate(aggregate=...) re-measures the released table; res.report() says what it is."""
    rng = np.random.default_rng(8)
    table = pd.DataFrame({"age": rng.integers(18, 90, 60),
                          "hours": np.round(rng.normal(40, 8, 60), 1),
                          "sex": rng.choice(["F", "M"], 60),
                          "day": pd.date_range("2000-01-01", periods=60, freq="7D")
                          .strftime("%Y-%m-%d")})
    schema = kg.Schema(quasi_identifiers=["age", "hours", "sex", "day"], dates=["day"])
    for centroid in ("mean", "median"):
        res = kg.anonymize(table, schema, k=5, algorithm="mdav", centroid=centroid)
        ev = kg.evaluate(table, res.table, schema, 5, aggregate=res.stats["aggregate"])
        assert ev.verification.holds and ev.metrics == res.metrics
    with pytest.raises(kg.exceptions.DataError, match="does not cover"):
        kg.evaluate(table, res.table, schema, 5)          # read as a generalization: refused
    bad = res.table.copy()
    bad.loc[bad.index[res.classes[0]], "hours"] = 1000.0      # one whole class
    first = int(res.classes[0][0])
    with pytest.raises(kg.exceptions.DataError, match=rf"released value '1000' of 'hours' in "
                                                      rf"row {first} lies outside its class's "
                                                      rf"values"):
        kg.evaluate(table, bad, schema, 5, aggregate=res.stats["aggregate"])
    from kanon_graph.report._result import content_of_result

    content = content_of_result(res)
    assert content["summary"]["recoding"] == "microaggregation"
    assert "a microaggregation" in content["lattice"]["note"]
    assert content["loss"]["overall"]["sse_sst"] == res.metrics["sse_sst"]
