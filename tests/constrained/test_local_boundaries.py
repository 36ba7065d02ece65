"""Generalization boundaries in the local recodings (Hussien et al. 2016, Defs. 3-6).

The helper (kanon_graph.recoding.boundaries) against the definition, then
every local algorithm with ``respect_boundaries``: no violation, the same
result as before without marks or without the option, and a clear error
when the boundaries make k unreachable without a suppression budget.
"""

import numpy as np
import pandas as pd
import pytest

import kanon_graph as kg
from kanon_graph.hierarchy import intervals
from kanon_graph.recoding import (allowed_classes, class_cells, magval_cells,
                                  union_allowed)

LOCAL = ["mst", "sd", "sensitive-clustering", "mondrian", "k-member", "bottom-up"]
CITIES = ["Geza", "Aswan", "Luxor", "Helwan", "Fayoum", "Minya", "Alex", "Tanta", "Damietta"]


def location_case(n=90, seed=0, marked=True):
    """A table over paper 002's Figure 2 Location hierarchy, plus age and sex."""
    rng = np.random.default_rng(seed)
    table = pd.DataFrame({
        "location": rng.choice(CITIES, n),
        "age": rng.integers(20, 80, n),
        "sex": rng.choice(["F", "M"], n),
        "disease": rng.choice(["flu", "cancer", "hiv"], n),
    })
    loc = kg.datasets.paper_002_location()
    if not marked:
        loc.clear_magvals()
    hier = {"location": loc, "age": intervals(range(0, 100), widths=[5, 10, 20, 40], name="age"),
            "sex": kg.Hierarchy.from_rows([["F", "*"], ["M", "*"]], name="sex")}
    schema = kg.Schema(quasi_identifiers=["location", "age", "sex"], sensitive=["disease"],
                       hierarchies=hier)
    return table, schema


def random_marks(schema, rng, p=0.3):
    """Mark a random set of inner nodes of every hierarchy as MAGVals."""
    for column in schema.quasi_identifiers:
        h = schema.hierarchy(column)
        for level in range(1, h.height):
            for label in h.labels(level):
                if rng.random() < p:
                    h.mark_magval(label, level)


# ----------------------------------------------------------------- the helper
@pytest.mark.parametrize("seed", range(6))
def test_cells_decide_exactly_what_definition_5_allows(seed):
    """A class is allowed (LCA at or below every member's MAGVal) iff it lies in one cell."""
    rng = np.random.default_rng(seed)
    table, schema = location_case(60, seed)
    random_marks(schema, rng, p=0.4)
    data = kg.encode(table, schema)
    cells = magval_cells(data)
    for n_classes in (2, 6, 20):
        class_of = rng.integers(0, n_classes, data.n)
        present = np.bincount(class_of, minlength=n_classes) > 0
        by_cells = class_cells(cells, class_of, n_classes) >= 0
        allowed = allowed_classes(data, class_of, n_classes)
        assert np.array_equal(allowed[present], by_cells[present])
    # classes inside one cell are allowed, even when the cell is large
    assert allowed_classes(data, cells).all()
    # unions of two allowed classes: the summaries decide like the definition
    pieces = cells * 3 + rng.integers(0, 3, data.n)
    summary = class_cells(cells, pieces)
    for a, b in rng.integers(0, pieces.max() + 1, (20, 2)):
        if not (pieces == a).any() or not (pieces == b).any():
            continue
        joined = np.where(pieces == b, a, pieces)
        expected = allowed_classes(data, joined)[a]
        assert bool(union_allowed(summary[a], summary[b])) == bool(expected)


def test_root_magval_records_cannot_join_a_bounded_record():
    """A record with MAGVal = root and one under a marked node never share a class."""
    loc = kg.datasets.paper_002_location()
    loc.clear_magvals()
    loc.mark_magval("South Egypt")
    schema = kg.Schema(quasi_identifiers=["location"], hierarchies={"location": loc})
    data = kg.encode(pd.DataFrame({"location": ["Geza", "Alex", "Tanta", "Aswan"]}), schema)
    assert magval_cells(data).tolist() == [0, 1, 1, 0]
    assert allowed_classes(data, [0, 0, 1, 1]).tolist() == [False, False]
    assert allowed_classes(data, [0, 1, 1, 0]).tolist() == [True, True]


# ----------------------------------------------------------- every algorithm
@pytest.mark.parametrize("name", LOCAL)
@pytest.mark.parametrize("k", [2, 4])
def test_figure_2_no_value_above_its_magval(name, k):
    table, schema = location_case()
    res = kg.anonymize(table, schema, k=k, algorithm=name, respect_boundaries=True, seed=0)
    assert kg.constraint_violations(res) == []
    assert res.verification.k_achieved >= k
    assert "A.R.E" not in set(res.table["location"])
    data = kg.encode(table, schema)
    assert allowed_classes(data, res.release.class_of).all()


@pytest.mark.parametrize("name", LOCAL)
def test_figure_2_without_the_option_crosses_the_boundaries(name):
    """The test above has teeth: unconstrained runs do release A.R.E here."""
    table, schema = location_case()
    res = kg.anonymize(table, schema, k=40, algorithm=name, seed=0)
    assert kg.constraint_violations(res)


@pytest.mark.parametrize("name", LOCAL)
@pytest.mark.parametrize("seed", [1, 2])
def test_random_marks_are_respected(name, seed):
    rng = np.random.default_rng(seed)
    table, schema = location_case(150, seed)
    random_marks(schema, rng)
    res = kg.anonymize(table, schema, k=3, algorithm=name, respect_boundaries=True,
                       suppression=0.3, seed=seed)
    assert kg.constraint_violations(res) == []
    assert res.verification.k_achieved >= 3
    cells = magval_cells(kg.encode(table, schema))
    # only whole cells that cannot hold k records are suppressed
    small = np.bincount(cells)[cells] < 3
    assert np.array_equal(np.sort(res.suppressed_rows), np.flatnonzero(small))


@pytest.mark.parametrize("name", LOCAL)
def test_same_result_without_marks_or_without_the_option(name):
    table, schema = location_case(120, 3)
    plain_table, plain_schema = location_case(120, 3, marked=False)
    base = kg.anonymize(plain_table, plain_schema, k=3, algorithm=name, seed=5)
    unmarked = kg.anonymize(plain_table, plain_schema, k=3, algorithm=name, seed=5,
                            respect_boundaries=True)
    ignored = kg.anonymize(table, schema, k=3, algorithm=name, seed=5,
                           respect_boundaries=False)
    for other in (unmarked, ignored):
        assert np.array_equal(other.release.class_of, base.release.class_of)
        assert other.table.equals(base.table)


def test_mst_paper_003_example_unchanged():
    table, schema = kg.datasets.paper_003_table(), kg.datasets.paper_003_schema()
    res = kg.anonymize(table, schema, k=3, algorithm="mst", respect_boundaries=True,
                       split="paper")
    assert [sorted((c + 1).tolist()) for c in res.classes] == [[1, 2, 3], [4, 5, 6, 7],
                                                             [8, 9, 10]]
    assert (res.stats["edges_removed"], res.stats["merges"]) == (2, 0)


def test_mst_cuts_and_merges_only_within_cells():
    """With marks the MST is cut between cells and small classes merge inside their cell."""
    table, schema = location_case(200, 7)
    res = kg.anonymize(table, schema, k=10, algorithm="mst", respect_boundaries=True)
    plain = kg.anonymize(table, schema, k=10, algorithm="mst")
    cells = magval_cells(kg.encode(table, schema))
    assert all(len(set(cells[c])) == 1 for c in res.classes)
    assert any(len(set(cells[c])) > 1 for c in plain.classes)
    # every cell is still split into several classes, not released whole
    assert len(res.classes) > len(set(cells))


@pytest.mark.parametrize("name", LOCAL)
def test_impossible_without_budget_names_the_magval(name):
    table, schema = location_case(60, 4)
    table.loc[:, "location"] = np.where(table["location"].isin(["Geza", "Aswan", "Luxor"]),
                                        "Alex", table["location"])
    table.loc[0, "location"] = "Geza"                     # South Egypt: a cell of one record
    with pytest.raises(ValueError, match=r"location='South Egypt'.*suppression"):
        kg.anonymize(table, schema, k=2, algorithm=name, respect_boundaries=True)
    res = kg.anonymize(table, schema, k=2, algorithm=name, respect_boundaries=True,
                       suppression=0.05)
    assert res.suppressed_rows.tolist() == [0]
    assert kg.constraint_violations(res) == []
