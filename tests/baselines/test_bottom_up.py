"""Bottom-up local recoding: cheapest merges, splitting unions of 2k or more."""

import numpy as np
import pandas as pd

import kanon_graph as kg
from kanon_graph.baselines import bottom_up
from kanon_graph.privacy import PrivacyModel


def test_two_bands():
    table = pd.DataFrame({"x": [12, 0, 11, 1, 2, 10], "s": ["a"] * 6})
    schema = kg.Schema(quasi_identifiers=["x"], sensitive=["s"])
    res = kg.anonymize(table, schema, k=3, algorithm="bottom-up")
    bands = sorted(sorted(table["x"].to_numpy()[c].tolist()) for c in res.classes)
    assert bands == [[0, 1, 2], [10, 11, 12]]


def test_a_large_partner_is_split_not_swallowed():
    table = pd.DataFrame({"x": [5] * 10 + [7, 50, 51, 52], "s": ["a"] * 14})
    data = kg.encode(table, kg.Schema(quasi_identifiers=["x"], sensitive=["s"]))
    part = bottom_up(data, PrivacyModel(3))
    groups = sorted(sorted(table["x"].to_numpy()[part.class_of == c].tolist())
                    for c in np.unique(part.class_of))
    assert groups == [[5] * 8, [5, 5, 7], [50, 51, 52]]
    assert part.stats["splits"] == 1


def test_groups_are_below_2k_unless_one_tuple():
    rng = np.random.default_rng(0)
    n, k = 300, 5
    table = pd.DataFrame({"age": rng.integers(20, 40, n), "sex": rng.choice(["F", "M"], n),
                          "job": rng.choice(["a", "b", "c"], n), "s": ["z"] * n})
    schema = kg.Schema(quasi_identifiers=["age", "sex", "job"], sensitive=["s"])
    data = kg.encode(table, schema)
    part = bottom_up(data, PrivacyModel(k))
    for c in np.unique(part.class_of):
        rows = table.iloc[np.flatnonzero(part.class_of == c)]
        assert len(rows) >= k
        assert len(rows) < 2 * k or len(rows.drop_duplicates(["age", "sex", "job"])) == 1


def test_merging_beats_one_class():
    rng = np.random.default_rng(1)
    table = pd.DataFrame({"age": rng.integers(18, 90, 200), "hours": rng.integers(1, 99, 200),
                          "s": ["z"] * 200})
    schema = kg.Schema(quasi_identifiers=["age", "hours"], sensitive=["s"])
    res = kg.anonymize(table, schema, k=4, algorithm="bottom-up", metrics=["gcp"])
    assert res.metrics["gcp"] < 0.2
    assert len(res.classes) >= 200 // 8
