"""Information-loss metrics against hand-computed values.

The main example is paper 003's Table 1(c) (Venkata Ramana & Valli Kumari 2013):
classes <Male, [20-25], 535280> (3 records), <Female, [20-40], 5352**> (4) and
<Male, [36-40], 53529*> (3), on the Figure 2 hierarchies: gender 2 leaves (height 1),
age the 21 leaves 20..40 (height 3), zip 5 leaves (height 2).
"""

import itertools

import numpy as np
import pandas as pd
import pytest

import kanon_graph as kg
from kanon_graph.encoding import encode
from kanon_graph.metrics import (arx_loss, arx_loss_per_attribute, byun_il, cavg,
                                 compute_metrics, discernibility, gcp, get_metric,
                                 minimal_distortion, ncp_per_attribute, register_metric,
                                 total_ncp, unregister_metric, utility)
from kanon_graph.recoding import AttributeRelease, Release, recode_levels, recode_partition

TABLE_1C = [0, 0, 0, 1, 1, 1, 1, 2, 2, 2]
BUILT_IN = ["byun_il", "cavg", "discernibility", "gcp", "loss", "minimal_distortion", "ncp",
            "utility"]


@pytest.fixture(scope="module")
def data():
    return encode(kg.datasets.paper_003_table(), kg.datasets.paper_003_schema())


@pytest.fixture(scope="module")
def table_1c(data):
    return recode_partition(data, TABLE_1C)


@pytest.fixture(scope="module")
def suppressed(data):
    """Table 1(c) with the third class suppressed instead."""
    return recode_partition(data, [0, 0, 0, 1, 1, 1, 1, -1, -1, -1])


# ------------------------------------------------------------------------- NCP
def test_ncp_per_class(table_1c):
    per = ncp_per_attribute(table_1c)
    assert per["gender"].tolist() == [0, 0, 0]
    # numeric (003 eq. 5): span of the leaves under the released band over 40 - 20
    assert per["age"] == pytest.approx([5 / 20, 20 / 20, 4 / 20])
    # categorical with hierarchy (003 eq. 6): 0 for one leaf, else leaves under / 5
    assert per["zip"] == pytest.approx([0, 5 / 5, 2 / 5])


def test_total_ncp_and_gcp(table_1c):
    # 3 (0 + .25 + 0) + 4 (0 + 1 + 1) + 3 (0 + .2 + .4) = 10.55
    assert total_ncp(table_1c) == pytest.approx(10.55)
    # GCP (003 eq. 7) = 10.55 / (d N) = 10.55 / 30
    assert gcp(table_1c) == pytest.approx(10.55 / 30)
    # data utility (000 eq. 4)
    assert utility(table_1c) == pytest.approx(1 - 10.55 / 30)


def test_ncp_suppressed_record_costs_every_attribute(suppressed):
    # .75 + 8 + 3 suppressed records * 3 attributes
    assert total_ncp(suppressed) == pytest.approx(17.75)
    assert gcp(suppressed) == pytest.approx(17.75 / 30)


def test_hierarchy_free_ncp():
    # 000 eq. 2 (numeric) and eq. 3 (categorical: distinct values in the class over
    # distinct values of the column)
    table = pd.DataFrame({"age": [25, 26, 27, 36, 40, 39], "city": list("babcca")})
    data = encode(table, kg.Schema(quasi_identifiers=["age", "city"]))
    release = recode_partition(data, [0, 0, 0, 1, 1, 1])
    per = ncp_per_attribute(release)
    assert per["age"] == pytest.approx([2 / 15, 4 / 15])
    assert per["city"] == pytest.approx([2 / 3, 2 / 3])
    assert total_ncp(release) == pytest.approx(3 * (2 / 15 + 2 / 3) + 3 * (4 / 15 + 2 / 3))
    assert gcp(release) == pytest.approx(5.2 / 12)
    mixed = recode_partition(data, [0, 1, 1, 2, 2, 3])      # b | a, b | c, c | a
    assert ncp_per_attribute(mixed)["city"] == pytest.approx([0, 2 / 3, 0, 0])


def test_ncp_categorical_hierarchy_counts_leaves_not_values():
    # a class holding only 'a' and 'b' released as '*' over leaves a, b, c, d
    h = kg.Hierarchy.from_rows([["a", "ab", "*"], ["b", "ab", "*"], ["c", "cd", "*"],
                                ["d", "cd", "*"]], name="x")
    table = pd.DataFrame({"x": ["a", "c", "b", "d"]})
    data = encode(table, kg.Schema(quasi_identifiers=["x"], hierarchies={"x": h}))
    release = recode_partition(data, [0, 0, 1, 1])
    assert release.table()["x"].tolist() == ["*"] * 4
    assert ncp_per_attribute(release)["x"].tolist() == [1.0]
    release = recode_partition(data, [0, 1, 0, 1])
    assert ncp_per_attribute(release)["x"].tolist() == [0.5, 0.5]


# -------------------------------------------------------------- discernibility
def test_discernibility(table_1c, suppressed):
    # 003 eq. 8: 3^2 + 4^2 + 3^2
    assert discernibility(table_1c, 3) == 34
    # 000 eq. 1: classes smaller than k cost |D| |E|
    assert discernibility(table_1c, 4) == 10 * 3 + 16 + 10 * 3
    # suppressed records cost |D| each
    assert discernibility(suppressed, 3) == 9 + 16 + 10 * 3


# ------------------------------------------------------------------------ CAVG
def test_cavg(table_1c, suppressed):
    # 003 eq. 9: records / (classes * k)
    assert cavg(table_1c, 3) == pytest.approx(10 / 9)
    assert cavg(table_1c, 2) == pytest.approx(10 / 6)
    # the 3 suppressed records (all '*') count as one more class: 10 / (3 * 3)
    assert cavg(suppressed, 3) == pytest.approx(10 / 9)


# ------------------------------------------------ every record suppressed (item 14)
def _all_suppressed_expected(data, k):
    """Each metric with every record suppressed, from its definition in docs/metrics.md."""
    n, d = data.n, len(data.attributes)
    return {"ncp": d * n, "gcp": 1.0, "utility": 0.0, "discernibility": n * n,
            "cavg": n / k, "loss": 1.0,
            "minimal_distortion": n * sum(a.height for a in data.attributes),
            "byun_il": d * n, "paper001_il": (d + 1) * n}


@pytest.mark.parametrize("name", BUILT_IN + ["paper001_il"])
@pytest.mark.parametrize("k", [1, 3, 10])
def test_every_metric_is_defined_when_every_record_is_suppressed(data, name, k):
    info = kg.metrics.get_metric(name)
    empty = recode_partition(data, np.full(data.n, -1))
    value = info(empty, k)
    assert np.isfinite(value)
    assert value == pytest.approx(_all_suppressed_expected(data, k)[name])
    # never better than releasing every record at the top of every hierarchy
    top = info(recode_partition(data, np.zeros(data.n, dtype=int)), k)
    assert (value >= top - 1e-12) if info.lower_is_better else (value <= top + 1e-12)


# ------------------------------------------------------------------------ ARX Loss
def test_arx_loss(table_1c):
    per = arx_loss_per_attribute(table_1c)
    # (leaves under the value - 1) / (leaves - 1), averaged over records
    assert per["gender"] == 0
    assert per["age"] == pytest.approx((3 * 5 / 20 + 4 * 20 / 20 + 3 * 4 / 20) / 10)
    assert per["zip"] == pytest.approx((3 * 0 + 4 * 4 / 4 + 3 * 1 / 4) / 10)
    assert arx_loss(table_1c) == pytest.approx((1 * 1.535 * 1.475) ** (1 / 3) - 1)


def test_arx_loss_suppressed_cells_cost_one(suppressed):
    per = arx_loss_per_attribute(suppressed)
    assert per["gender"] == pytest.approx(0.3)
    assert per["age"] == pytest.approx((0.75 + 4 + 3) / 10)
    assert per["zip"] == pytest.approx((0 + 4 + 3) / 10)
    assert arx_loss(suppressed) == pytest.approx((1.3 * 1.775 * 1.7) ** (1 / 3) - 1)


def test_arx_loss_extremes(data):
    assert arx_loss(recode_levels(data, [0, 0, 0])) == 0
    assert arx_loss(recode_levels(data, [1, 3, 2])) == pytest.approx(1.0)
    assert arx_loss(recode_levels(data, [0, 0, 0], suppress=np.ones(10, bool))) == pytest.approx(1.0)


def test_arx_loss_hierarchy_free():
    table = pd.DataFrame({"age": [20, 30, 40, 40], "city": list("abca")})
    data = encode(table, kg.Schema(quasi_identifiers=["age", "city"]))
    release = recode_partition(data, [0, 0, 1, 1])
    per = arx_loss_per_attribute(release)
    assert per["age"] == pytest.approx((2 * 10 / 20 + 2 * 0) / 4)
    assert per["city"] == pytest.approx((2 * 1 / 2 + 2 * 1 / 2) / 4)


# ----------------------------------------------------------- minimal distortion
def test_minimal_distortion(table_1c, suppressed):
    # levels: age 1, 3, 1; zip 0, 2, 1 -> 3*1 + 4*3 + 3*1 + 4*2 + 3*1
    assert minimal_distortion(table_1c) == 29
    # a suppressed record costs every hierarchy's height: 1 + 3 + 2
    assert minimal_distortion(suppressed) == 3 + 12 + 8 + 3 * (1 + 3 + 2)


# ---------------------------------------------------------------------- Byun IL
def test_byun_il_on_table_1c(table_1c):
    # age numeric: .75 + 4 + .6; zip level/height: 4 * 2/2 + 3 * 1/2; gender 0
    assert byun_il(table_1c) == pytest.approx(5.35 + 5.5)


def _paper_001_release():
    """Paper 001 Table 1 released as its Table 2: clusters {25}, {26}, {27}, {36, 39, 40};
    age numeric without hierarchy; gender and zip generalized one level (to Person and
    4433**) in every cluster, as the table shows."""
    table = kg.datasets.paper_001_table()
    gender = kg.Hierarchy.from_rows([["Male", "Person"], ["Female", "Person"]], name="gender")
    zips = kg.Hierarchy.from_rows([[z, "4433**"] for z in ["443350", "443351", "443352"]],
                                  name="zip")
    schema = kg.Schema(quasi_identifiers=["age", "gender", "zip"], identifiers=["name"],
                       sensitive=["disease"], categorical=["zip"],
                       hierarchies={"gender": gender, "zip": zips})
    data = encode(table, schema)
    release = recode_partition(data, [0, 1, 2, 3, 3, 3])
    top = {name: AttributeRelease(np.array([h.root.name] * 4, dtype=object),
                                  np.ones(4, dtype=np.int64), np.zeros(4, dtype=np.int64),
                                  None, None, np.full(4, h.n_leaves))
           for name, h in (("gender", gender), ("zip", zips))}
    attributes = dict(release.attributes, **top)
    return Release(data, release.class_of, release.sizes, attributes)


def test_byun_il_paper_001():
    release = _paper_001_release()
    out = release.table()
    assert out["age"].tolist() == ["25", "26", "27", "[36-40]", "[36-40]", "[36-40]"]
    assert set(out["gender"]) == {"Person"} and set(out["zip"]) == {"4433**"}
    # IL = sum |c| (age span / 15 + 1 (gender) + 1 (zip)):
    #      3 * 1 * (0 + 1 + 1) + 3 * (4/15 + 1 + 1) = 6 + 6.8 = 12.8
    # The paper prints 17.28: its pseudo-code (section 5.1) adds (i + 1) / size to each
    # cluster's term; that variant is a separate metric, not Byun et al.'s formula.
    assert byun_il(release) == pytest.approx(12.8)


def test_byun_il_suppression_and_hierarchy_free():
    table = pd.DataFrame({"age": [20, 30, 40, 40], "city": list("abca")})
    data = encode(table, kg.Schema(quasi_identifiers=["age", "city"]))
    release = recode_partition(data, [0, 0, 1, -1])
    # class {20, 30}/{a, b}: 2 (10/20 + 1); class {40}/{c}: 0; suppressed: 1 per attribute
    assert byun_il(release) == pytest.approx(2 * 1.5 + 0 + 2)


# ------------------------------------------------------------------- registry
def test_built_in_metrics_registered_with_declarations():
    for name in BUILT_IN:
        assert name in kg.metrics.metric_names()
    assert get_metric("utility").lower_is_better is False
    assert all(get_metric(n).lower_is_better for n in BUILT_IN if n != "utility")
    assert get_metric("discernibility").monotone is False
    assert all(get_metric(n).monotone for n in BUILT_IN if n != "discernibility")
    assert get_metric("gcp").description.startswith("GCP")


def _successors(levels, heights):
    for i, (l, h) in enumerate(zip(levels, heights)):
        if l < h:
            yield levels[:i] + (l + 1,) + levels[i + 1:]


def test_declared_monotone_metrics_are_monotone(data):
    # every metric declared monotone never improves when one level is raised, at every
    # node of the paper 003 lattice (2 * 4 * 3 nodes), for k = 3
    heights = tuple(data.heights)
    values = {levels: compute_metrics(recode_levels(data, levels), 3, BUILT_IN)
              for levels in itertools.product(*(range(h + 1) for h in heights))}
    for levels, here in values.items():
        for up in _successors(levels, heights):
            for name in BUILT_IN:
                info = get_metric(name)
                if not info.monotone:
                    continue
                worse = values[up][name] - here[name]
                assert (worse if info.lower_is_better else -worse) >= -1e-12, (name, levels, up)
    # discernibility is declared not monotone because it is not: [0,1,0] beats [0,0,0]
    assert values[(0, 1, 0)]["discernibility"] == 79 < values[(0, 0, 0)]["discernibility"] == 100


def test_register_metric_open_registry(table_1c):
    @register_metric("n_classes_test", lower_is_better=False, monotone=False)
    def n_classes(release, k):
        """Number of classes."""
        return release.n_classes

    try:
        info = get_metric("n_classes_test")
        assert (info.lower_is_better, info.monotone, info.description) == (
            False, False, "Number of classes.")
        assert compute_metrics(table_1c, 3, ["n_classes_test", "cavg"]) == {
            "n_classes_test": 3.0, "cavg": pytest.approx(10 / 9)}
        with pytest.raises(ValueError, match="'n_classes_test' is already registered"):
            register_metric("n_classes_test", n_classes)
        register_metric("n_classes_test", lambda r, k: 0, replace=True)
        assert get_metric("n_classes_test")(table_1c, 3) == 0.0
    finally:
        unregister_metric("n_classes_test")
    assert "n_classes_test" not in kg.metrics.metric_names()
    with pytest.raises(ValueError, match="Unknown metric 'n_classes_test'. Known metrics: "):
        get_metric("n_classes_test")


def test_result_metrics_have_the_required_keys():
    res = kg.apply_levels(kg.datasets.paper_003_table(), kg.datasets.paper_003_schema(),
                          [0, 1, 1], k=2)
    for key in ["ncp", "gcp", "discernibility", "cavg", "loss"]:
        assert key in res.metrics
    only = kg.apply_levels(kg.datasets.paper_003_table(), kg.datasets.paper_003_schema(),
                           [0, 1, 1], k=2, metrics=["loss"])
    assert list(only.metrics) == ["loss"]
