"""Issue 48 item 1: integers of varying width that are codes (FARS's irace, istatenum) are
read as codes from the data and get look-alike groups, not quantity bands; an age stays a
quantity; the draft's note says why."""

import numpy as np
import pandas as pd

import kanon_graph as kg
from kanon_graph.hierarchy._groups import Context, similar_groups
from kanon_graph.hierarchy._integers import cheaper, read_integers


def _accidents(n=6000, seed=4):
    """State numbers 1 to 56 with gaps (FIPS-like: no 3, 7, 14, ...), in four regions that
    share a speed limit and a road type; the numbering says nothing of the region. Age is a
    quantity that drives the driver's licence years."""
    rng = np.random.default_rng(seed)
    states = np.array([s for s in range(1, 57) if s not in (3, 7, 14, 43, 52)])
    region = rng.permutation(len(states)) % 4
    pick = rng.integers(0, len(states), n)
    age = rng.integers(16, 90, n)
    return pd.DataFrame({
        "state": states[pick],
        "speed": (25 + 15 * region[pick] + rng.integers(0, 10, n)),
        "road": np.array(["urban", "rural", "highway", "county"])[region[pick]],
        "age": age,
        "licence": np.clip(age - 16 - rng.integers(0, 5, n), 0, None),
    })


def test_an_integer_code_with_gaps_gets_groups_and_says_why():
    table = _accidents()
    schema = kg.Schema(quasi_identifiers=["state", "speed", "road", "age"],
                       sensitive=["licence"])
    made = kg.hierarchy.suggest(table, schema)
    h, note = made["state"]
    assert "a code" in note and "accident of numbering" in note and "look alike" in note
    assert "band" not in note
    # the level with about four groups: each group's states share one region (the
    # records say so), which no band of neighbouring numbers does
    region = dict(zip(table["state"].astype(str), table["road"]))
    level = max(lv for lv in range(1, h.height) if len(h.labels(lv)) >= 4)
    for label in h.labels(level):
        assert len({region[v] for v in h.leaves(label)}) == 1, label
    assert set(h.leaf_labels) == set(table["state"].astype(str))
    # the age stays a quantity with bands, and says why
    age_h, age_note = made["age"]
    assert "a quantity" in age_note and "order means something" in age_note
    assert "bands of width" in age_note
    # the drafts release, and the release holds
    res = kg.anonymize(table, kg.Schema(quasi_identifiers=schema.quasi_identifiers,
                                        sensitive=["licence"],
                                        hierarchies={c: h for c, (h, _) in made.items()}),
                       k=5, seed=0)
    assert res.verification.holds


def test_a_column_without_evidence_stays_a_quantity():
    # too few rows per value to say: a quantity, and the note says there is no evidence
    few = _accidents(n=300)
    note = kg.hierarchy.suggest(few, kg.Schema(quasi_identifiers=["state", "road"]))["state"][1]
    assert "do not differ beyond noise" in note and "bands of width" in note
    # enough rows, but a column independent of the others (pure noise): no evidence either
    rng = np.random.default_rng(9)
    table = pd.DataFrame({"age": rng.integers(18, 90, 5000), "job": rng.choice(list("abc"), 5000),
                          "pay": rng.lognormal(9, 0.5, 5000).round(2)})
    note = kg.hierarchy.suggest(table, kg.Schema(quasi_identifiers=list(table)))["age"][1]
    assert "do not differ beyond noise" in note and "bands of width" in note
    # the command line declares every column of numbers numeric: the data still decide
    state = _accidents()
    h, note = kg.hierarchy.suggest(state, kg.Schema(quasi_identifiers=["state", "speed", "road"],
                                                    numeric=["state", "speed"]))["state"]
    assert "a code" in note and "look alike" in note


def test_the_quick_release_prefers_groups_for_a_code_and_bands_for_a_quantity():
    table = _accidents()
    context = Context(table)
    drafted = kg.hierarchy.suggest(table, kg.Schema(quasi_identifiers=["state", "speed",
                                                                       "road"]))
    bands = kg.hierarchy.intervals(table["state"].unique(), widths=[5, 10, 20], name="state")
    chosen, costs = cheaper([bands, drafted["state"][0]], context, "state",
                            ["speed", "road", "age"])
    assert chosen == 1 and costs[1] < costs[0]
    ages = kg.Hierarchy(similar_groups(context, "age", ["licence", "road"]), name="age")
    age_bands = kg.hierarchy.intervals(table["age"].unique(), widths=[5, 10, 20], name="age")
    chosen, costs = cheaper([ages, age_bands], context, "age", ["licence", "road"])
    assert chosen == 1 and costs[1] < costs[0]
    assert read_integers(context, "age", ["licence"], list(table["age"].unique())).kind \
        == "quantity"


def test_drafted_groups_halve_so_seven_values_keep_a_level_between():
    """Groups halve level by level: seven statuses in three families get three groups
    before two (with thirds they went straight from the values to two groups)."""
    rng = np.random.default_rng(6)
    family = {"a": 0, "b": 0, "c": 1, "d": 1, "e": 2, "f": 2, "g": 2}
    status = rng.choice(list(family), 3000)
    fam = np.array([family[s] for s in status])
    table = pd.DataFrame({"status": status, "age": rng.integers(20, 30, 3000) + 20 * fam,
                          "sector": np.array(["x", "y", "z"])[fam]})
    h, note = kg.hierarchy.suggest(table, kg.Schema(quasi_identifiers=list(table)))["status"]
    assert [len(h.labels(lv)) for lv in range(h.height + 1)] == [7, 3, 2, 1]
    assert "3 -> 2 groups" in note
    for label in h.labels(1):
        assert len({family[v] for v in h.leaves(label)}) == 1


def test_a_few_valued_number_drops_a_band_that_holds_almost_every_row():
    """FARS's isex (0, 1 and a rare 2): the band [0-1] held 98% of the rows, almost '*'
    at half its cost; it is left out and the note says so."""
    rng = np.random.default_rng(7)
    table = pd.DataFrame({"sex": rng.choice([0, 1, 2], 2000, p=[0.6, 0.38, 0.02]),
                          "age": rng.integers(20, 80, 2000)})
    h, note = kg.hierarchy.suggest(table, kg.Schema(quasi_identifiers=list(table)))["sex"]
    assert all(len(h.leaves(label)) < 2 or label == h.root
               for lv in range(1, h.height) for label in h.labels(lv))
    assert "left out" in note and "90%" in note
    # a spread-out few-valued number keeps its band
    even = pd.DataFrame({"n": rng.choice([0, 1, 2, 3], 2000), "age": rng.integers(20, 80, 2000)})
    h, note = kg.hierarchy.suggest(even, kg.Schema(quasi_identifiers=list(even)))["n"]
    assert "left out" not in note and any(len(h.leaves(b)) == 2 for b in h.labels(h.height - 1))


def test_an_unsure_reading_drafts_both_and_the_quick_release_chooses(monkeypatch):
    """With the code threshold out of reach, the state numbers read 'code or quantity':
    both drafts are made, the quick data-only release picks the groups, and the note gives
    both costs."""
    from kanon_graph.hierarchy import _integers

    monkeypatch.setattr(_integers, "CODE_FROM", 5.0)
    table = _accidents()
    made = kg.hierarchy.suggest(table, kg.Schema(quasi_identifiers=["state", "speed", "road",
                                                                    "age"]))
    h, note = made["state"]
    assert "code or quantity" in note and "drafted both" in note
    assert "with bands" in note and "with groups" in note and "look alike" in note
    assert any(label.startswith("{") for label in h.labels(1))
