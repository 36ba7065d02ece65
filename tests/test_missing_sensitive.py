"""A missing sensitive value is no value (issue 31, item 5).

With ``missing="keep"`` a record whose sensitive cell is missing counts
toward k, never toward distinct, entropy or recursive l; t compares the
known values only (a class without one counts as EMD 1). The same in pandas
and on a Dask table, and in the checks of any released DataFrame.
"""

import numpy as np
import pandas as pd
import pytest

import kanon_graph as kg
from kanon_graph import privacy
from kanon_graph.privacy import PrivacyModel

H = kg.Hierarchy([["a", "*"], ["b", "*"]], name="q")
SCHEMA = kg.Schema(quasi_identifiers=["q"], sensitive=["s"], hierarchies={"q": H})
# class a: flu, cold and a missing cell (2 known values); class b: 3 known values
SMALL = pd.DataFrame({"q": ["a"] * 3 + ["b"] * 3,
                      "s": ["flu", "cold", None, "flu", "cold", "hiv"]})


def _known_l(table, qis, sensitive):
    """Per released class (suppressed rows left out), its distinct known values, by hand."""
    cells = table[qis].astype(str)
    free = ~(cells == "*").all(axis=1)
    groups = table[free].assign(_key=cells[free].agg("|".join, axis=1)).groupby("_key")
    return groups[sensitive].nunique(dropna=True), groups.size()


def test_the_model_counts_known_values_only():
    data = kg.encode(SMALL, SCHEMA, missing="keep")
    assert data.sensitive_missing == {"s": 0}
    class_of = data.attributes[0].codes
    for diversity, expected in (("distinct", 2), ("entropy", 2), ("recursive", 2)):
        model = PrivacyModel(3, l=3, diversity=diversity, c=2).bind(data)
        assert model.missing == 0
        v = model.verify(class_of, data)
        assert v.k_achieved == 3                      # the missing cell counts toward k
        assert v.l_achieved == pytest.approx(expected)
        assert model.failing(class_of, data).tolist() == [True, False]


def test_anonymize_no_longer_claims_l_from_a_missing_value():
    res = kg.anonymize(SMALL, SCHEMA, k=3, l=3, algorithm="optimal", missing="keep")
    assert res.levels == {"q": 1}                     # before: level 0, 'l=3 achieved 3'
    # level 1 is the root '*': every record suppressed by definition, no l claimed
    assert res.suppressed == 6 and res.verification.l_achieved is None
    any_root = kg.Schema(quasi_identifiers=["q"], sensitive=["s"], hierarchies={
        "q": kg.Hierarchy([["a", "any"], ["b", "any"]], name="q")})
    res = kg.anonymize(SMALL, any_root, k=3, l=3, algorithm="optimal", missing="keep")
    assert res.levels == {"q": 1} and res.verification.l_achieved == 3


def test_a_class_of_missing_values_only_has_l_0():
    table = pd.DataFrame({"q": ["a"] * 3 + ["b"] * 3, "s": [None] * 3 + ["x", "y", "z"]})
    data = kg.encode(table, SCHEMA, missing="keep")
    model = PrivacyModel(3, l=1, diversity="entropy").bind(data)
    v = model.verify(data.attributes[0].codes, data)
    assert v.l_achieved == pytest.approx(0, abs=1e-6) and not v.holds


@pytest.mark.parametrize("algorithm", ["optimal", "datafly", "mondrian", "mst", "sd"])
@pytest.mark.parametrize("diversity", ["distinct", "entropy", "recursive"])
def test_every_released_class_holds_l_known_values(algorithm, diversity):
    # a discharge-like table: a fifth of the diagnoses missing
    rng = np.random.default_rng(3)
    n = 300
    table = pd.DataFrame({
        "ward": rng.choice(["a", "b"], n),
        "age": rng.integers(20, 80, n),
        "diagnosis": rng.choice(["flu", "cold", "hiv", "copd", None], n,
                                p=[.25, .2, .15, .2, .2])})
    wards = kg.Hierarchy([["a", "*"], ["b", "*"]], name="ward")
    ages = kg.Hierarchy([[str(a), f"[{a // 20 * 20}-{a // 20 * 20 + 19}]", "*"]
                         for a in range(20, 80)], name="age")
    hierarchies = {"ward": wards, "age": ages}
    if algorithm in ("mondrian", "mst", "sd"):
        hierarchies = {"ward": wards}
    schema = kg.Schema(quasi_identifiers=["ward", "age"], sensitive=["diagnosis"],
                       hierarchies=hierarchies)
    res = kg.anonymize(table, schema, k=5, l=3, diversity=diversity, c=2,
                       algorithm=algorithm, missing="keep", suppression=0.1)
    known, sizes = _known_l(res.table, ["ward", "age"], "diagnosis")
    assert (sizes >= 5).all()
    assert (known >= 3).all()                        # distinct known values: at least l
    assert res.verification.l_achieved >= 3
    by_frame = privacy.l_diversity(res.table[~res.suppressed_mask], ["ward", "age"],
                                   "diagnosis", kind=diversity, c=2)
    assert by_frame >= 3 - 1e-9


def test_the_released_frame_checks_agree_and_never_trace_back():
    released = SMALL.copy()
    assert privacy.l_diversity(released, ["q"], "s") == 2
    assert privacy.l_diversity(released, ["q"], "s", kind="recursive", c=2) == 2
    assert privacy.l_diversity(released, ["q"], "s", kind="entropy") == pytest.approx(2)
    only_missing = pd.DataFrame({"q": ["a", "a", "b", "b"], "s": [None, None, "x", "y"]})
    assert privacy.l_diversity(only_missing, ["q"], "s") == 0
    assert privacy.t_closeness(only_missing, ["q"], "s") == 1.0


def test_t_compares_the_known_values_only():
    # class a: x and a missing cell, class b: x, y; known Q = (2/3 x, 1/3 y)
    table = pd.DataFrame({"q": ["a", "a", "b", "b"], "s": ["x", None, "x", "y"]})
    data = kg.encode(table, SCHEMA, missing="keep")
    model = PrivacyModel(2, t=1.0).bind(data)
    v = model.verify(data.attributes[0].codes, data)
    # P_a = (1, 0): EMD 1/3; P_b = (1/2, 1/2): EMD 1/6; the missing cell is in neither
    assert v.t_achieved == pytest.approx(1 / 3)
    assert privacy.t_closeness(table, ["q"], "s") == pytest.approx(1 / 3)
    # a class whose values are all missing cannot be compared: EMD 1
    table = pd.DataFrame({"q": ["a", "a", "b", "b"], "s": [None, None, "x", "y"]})
    data = kg.encode(table, SCHEMA, missing="keep")
    model = PrivacyModel(2, t=0.9).bind(data)
    assert model.failing(data.attributes[0].codes, data).tolist() == [True, False]
    res = kg.anonymize(table, SCHEMA, k=2, t=0.9, algorithm="optimal", missing="keep")
    assert res.levels == {"q": 1}


def test_reachability_counts_known_values_only():
    # the whole table holds 2 known values: distinct l=3 is refused up front
    with pytest.raises(ValueError, match=r"distinct l=3 cannot be reached on sensitive "
                                         r"attribute 's'.*1 missing values are no value.*2"):
        kg.anonymize(SMALL.assign(s=["flu", "cold", None, "flu", "cold", "flu"]), SCHEMA,
                     k=3, l=3, algorithm="optimal", missing="keep")


def test_a_dask_table_takes_missing_keep_and_counts_alike(dask_client):
    import dask.dataframe as dd

    rng = np.random.default_rng(5)
    n = 400
    table = pd.DataFrame({"q": rng.choice(["a", "b", None], n, p=[.45, .45, .1]),
                          "s": rng.choice(["flu", "cold", "hiv", None], n,
                                          p=[.3, .3, .2, .2])})
    plain = kg.anonymize(table, SCHEMA, k=5, l=3, algorithm="optimal", missing="keep",
                         suppression=0.05)
    on_dask = kg.anonymize(dd.from_pandas(table, npartitions=3), SCHEMA, k=5, l=3,
                           algorithm="optimal", missing="keep", suppression=0.05,
                           scheduler=dask_client)
    assert on_dask.levels == plain.levels
    assert on_dask.verification == plain.verification
    assert on_dask.stats["missing_kept"] == plain.stats["missing_kept"]
    out = on_dask.table.compute().sort_index()
    assert out["q"].astype(str).tolist() == plain.table["q"].astype(str).tolist()
    known, _ = _known_l(out, ["q"], "s")
    assert (known >= 3).all()
