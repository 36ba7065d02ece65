"""Issue 48 item 2: a categorical column with many values gets levels of values whose
records look alike on the other columns."""

import numpy as np
import pandas as pd

import kanon_graph as kg


def _jobs(n=4000, seed=8):
    """30 occupations in three families; a family's records share an age range and a
    sector, so the data say which occupations belong together."""
    rng = np.random.default_rng(seed)
    names = [f"job {chr(97 + i // 10)}{chr(97 + i % 10)}" for i in range(30)]
    weights = 1 / np.arange(1, 31) ** 0.8
    job = rng.choice(30, n, p=weights / weights.sum())
    family = job % 3
    age = rng.integers(20, 35, n) + 15 * family
    sector = np.array(["public", "private", "self"])[family]
    return pd.DataFrame({"occupation": np.array(names)[job], "age": age, "sector": sector})


def test_values_whose_records_look_alike_share_a_group():
    table = _jobs()
    schema = kg.Schema(quasi_identifiers=["occupation", "age", "sector"])
    h, note = kg.hierarchy.suggest(table, schema)["occupation"]
    assert h.height >= 3 and "look alike" in note
    # the level with three groups or more: no group mixes two families
    level = max(lv for lv in range(1, h.height) if len(h.labels(lv)) >= 3)
    for label in h.labels(level):
        families = {(10 * (ord(v[4]) - 97) + ord(v[5]) - 97) % 3 for v in h.leaves(label)}
        assert len(families) == 1, (label, families)
    # every leaf is the column's own text; group names list members
    assert set(h.leaf_labels) == set(table["occupation"])
    assert any(lab.startswith("{") for lab in h.labels(1))


def test_many_values_kept_finer_than_star_at_k10():
    table = _jobs()
    schema = kg.Schema(quasi_identifiers=["occupation", "age", "sector"])
    made = kg.hierarchy.suggest(table, schema)
    drafted = kg.Schema(quasi_identifiers=["occupation", "age", "sector"],
                        hierarchies={c: h for c, (h, _) in made.items()})
    res = kg.anonymize(table, drafted, k=10, seed=0)
    assert res.verification.holds
    assert (res.table["occupation"].astype(str) != "*").mean() >= 0.8
