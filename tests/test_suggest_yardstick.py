"""Issue 48 item 4: the hierarchy-independent yardstick of benchmarks/suggest_vs_builder.py."""

import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import kanon_graph as kg

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
from suggest_vs_builder import data_loss  # noqa: E402


def test_a_cell_costs_the_distinct_values_released_with_it():
    original = pd.DataFrame({"a": [1, 2, 3, 4, 4], "z": ["02139", "02141", "02139", "10001",
                                                         "10002"]})
    released = pd.DataFrame({"a": ["[1-2]", "[1-2]", "3", "*", "4"],
                             "z": ["021**", "021**", "021**", "{10001, 10002}",
                                   "{10001, 10002}"]})
    got = data_loss(original, released, ["a", "z"])
    # a: 4 distinct values; [1-2] joins 2 of them, 3 and 4 stand alone, * costs 1
    assert got["a"] == pytest.approx((1 / 3 + 1 / 3 + 0 + 1 + 0) / 5)
    # z: a mask and a set are scored alike, by what they hold in the data
    assert got["z"] == pytest.approx((1 / 3 * 3 + 1 / 3 * 2) / 5)
    # a suppressed row costs 1 in every column whatever its label
    suppressed = np.array([False, False, True, False, False])
    assert data_loss(original, released, ["a"], suppressed)["a"] == pytest.approx(
        (1 / 3 + 1 / 3 + 1 + 1 + 0) / 5)


def test_the_yardstick_orders_releases_by_how_much_they_hide():
    rng = np.random.default_rng(3)
    table = pd.DataFrame({"age": rng.integers(18, 90, 400),
                          "zip": rng.choice([f"0{z}" for z in range(2100, 2160)], 400)})
    same = data_loss(table, table.astype(str), ["age", "zip"])
    hidden = data_loss(table, pd.DataFrame({"age": ["*"] * 400, "zip": ["*****"] * 400}),
                       ["age", "zip"])
    assert same == {"age": 0.0, "zip": 0.0} and hidden == {"age": 1.0, "zip": 1.0}
    schema = kg.Schema(quasi_identifiers=["age", "zip"])
    losses = [np.mean(list(data_loss(table, kg.anonymize(table, schema, k=k, seed=0).table,
                                     ["age", "zip"]).values())) for k in (2, 20)]
    assert 0 < losses[0] < losses[1] < 1
    with pytest.raises(ValueError, match="rows"):
        data_loss(table, table.head(3), ["age"])
