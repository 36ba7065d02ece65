"""MAGVal, MAGSet and constraint violations (Hussien, Darwish & Hefny 2016, section 2.3).

Paper 002, Figure 2: the Location hierarchy A.R.E -> South / Mid / North Egypt ->
cities, with the MAGVals of Geza, Helwan and Alex marked.
"""

import numpy as np
import pandas as pd
import pytest

import kanon_graph as kg
from kanon_graph import Hierarchy


@pytest.fixture
def location():
    return kg.datasets.paper_002_location()


@pytest.fixture
def table():
    cities = ["Geza", "Aswan", "Luxor", "Helwan", "Fayoum", "Minya", "Alex", "Tanta",
              "Damietta", "Geza", "Helwan", "Alex"]
    return pd.DataFrame({"name": [f"p{i}" for i in range(len(cities))],
                         "location": cities,
                         "disease": ["Flu", "HIV"] * (len(cities) // 2)})


def _schema(h):
    return kg.Schema(quasi_identifiers=["location"], identifiers=["name"],
                     sensitive=["disease"], hierarchies={"location": h})


def test_figure_2_geza(location):
    # "Geza may be generalized to itself or South Egypt, but not to A.R.E"
    assert location.allows("Geza", "Geza")
    assert location.allows("Geza", "South Egypt")
    assert not location.allows("Geza", "A.R.E")
    assert location.allows("Helwan", "Mid Egypt") and not location.allows("Helwan", "A.R.E")
    assert location.allows("Alex", "North Egypt") and not location.allows("Alex", "A.R.E")
    assert location.magval("Geza") == "South Egypt"
    assert location.magval("Helwan") == "Mid Egypt"
    assert location.magval("Alex") == "North Egypt"


def test_figure_2_magset(location):
    assert location.magset() == {"South Egypt", "Mid Egypt", "North Egypt"}


def test_unmarked_leaves_have_the_root_as_magval():
    h = Hierarchy.from_mapping({"A.R.E": {"South Egypt": ["Geza", "Aswan"],
                                          "North Egypt": ["Alex", "Tanta"]}}, name="location")
    assert h.magval("Geza") == "A.R.E" and h.magset() == {"A.R.E"}
    h.mark_magval("South Egypt")
    assert h.magval("Aswan") == "South Egypt"
    assert h.magval("Alex") == h.magval("Tanta") == "A.R.E"
    assert h.magset() == {"South Egypt", "A.R.E"}
    assert h.magval_levels().tolist() == [1, 1, 2, 2]
    assert h.allows("Alex", "A.R.E")


def test_mark_by_level_when_label_repeats():
    h = Hierarchy.from_rows([["x", "x", "*"], ["y", "g", "*"]], name="h")
    h.mark_magval("x", level=1)
    assert h.magval_levels().tolist() == [1, 2]
    assert h.allows("x", "x", level=1) and not h.allows("x", "*")


def test_no_violation_at_level_1(location, table):
    res = kg.apply_levels(table, _schema(location), [1])
    assert sorted(set(res.table["location"])) == ["Mid Egypt", "North Egypt", "South Egypt"]
    assert kg.constraint_violations(res) == []


def test_violations_at_the_root(location, table):
    res = kg.apply_levels(table, _schema(location), {"location": 2})
    found = kg.constraint_violations(res)
    # every city's MAGVal is its region, so every record violates
    assert len(found) == len(table)
    geza = [v for v in found if v.value == "Geza"]
    assert len(geza) == 2
    assert geza[0] == kg.Violation(row=0, attribute="location", value="Geza",
                                   released="A.R.E", magval="South Egypt")
    assert sorted(v.row for v in found) == list(range(len(table)))


def test_violations_only_for_marked_values(table):
    h = Hierarchy.from_mapping({"A.R.E": {
        "South Egypt": ["Geza", "Aswan", "Luxor"],
        "Mid Egypt": ["Helwan", "Fayoum", "Minya"],
        "North Egypt": ["Alex", "Tanta", "Damietta"]}}, name="location")
    h.mark_magval("Geza", level=0)
    res = kg.apply_levels(table, _schema(h), [1])
    found = kg.constraint_violations(res)
    assert [(v.row, v.value, v.released, v.magval) for v in found] == [
        (0, "Geza", "South Egypt", "Geza"), (9, "Geza", "South Egypt", "Geza")]


def test_suppressed_record_is_withheld_not_a_violation(location, table):
    suppress = np.zeros(len(table), dtype=bool)
    suppress[3] = True                      # Helwan, MAGVal Mid Egypt
    res = kg.apply_levels(table, _schema(location), [1], suppress=suppress)
    assert res.table["location"].iloc[3] == "*" and res.suppressed == 1
    assert kg.constraint_violations(res) == []
    # at the root, every marked value breaks its boundary, suppressed or not
    root = kg.apply_levels(table, _schema(location), [2], suppress=suppress)
    assert 3 not in [v.row for v in kg.constraint_violations(root)]
    assert len(kg.constraint_violations(root)) == len(table) - 1


def test_violations_of_a_dataframe_release(location, table):
    released = table.copy()
    released["location"] = ["South Egypt", "A.R.E", "Luxor", "Mid Egypt", "Mid Egypt",
                            "Mid Egypt", "North Egypt", "North Egypt", "North Egypt",
                            "South Egypt", "North Egypt", "A.R.E"]
    found = kg.constraint_violations(released, _schema(location), table)
    # Aswan -> A.R.E and Alex -> A.R.E are beyond the MAGVal; Helwan -> North Egypt is
    # not an ancestor of Helwan at all, so it is not a permitted value either
    assert [(v.row, v.value, v.released) for v in found] == [
        (1, "Aswan", "A.R.E"), (10, "Helwan", "North Egypt"), (11, "Alex", "A.R.E")]


def test_dataframe_release_needs_schema_and_original(location, table):
    with pytest.raises(ValueError, match="needs the schema and the original table"):
        kg.constraint_violations(table)
    with pytest.raises(kg.DataError, match="3 rows but the original has 12"):
        kg.constraint_violations(table.head(3), _schema(location), table)


def test_anonymize_then_check_constraints(location, table):
    res = kg.anonymize(table, _schema(location), k=3, algorithm="datafly", suppression=0.0)
    # 3 Geza/Helwan/Alex-region records per region at level 1: k=3 holds there
    assert res.levels == {"location": 1}
    assert kg.constraint_violations(res) == []


def test_magvals_from_files_drive_violations(tmp_path, table):
    path = tmp_path / "location.csv"
    location = kg.datasets.paper_002_location()
    location.clear_magvals()
    kg.write_hierarchy(location, path)
    (tmp_path / "location.csv.magval").write_text("South Egypt\n")
    h = kg.read_hierarchy(path)
    res = kg.apply_levels(table, _schema(h), [2])
    assert sorted({v.value for v in kg.constraint_violations(res)}) == ["Aswan", "Geza", "Luxor"]
    # the same mark in the cell syntax
    path.write_text(path.read_text().replace(";South Egypt;", ";*South Egypt*;"))
    (tmp_path / "location.csv.magval").unlink()
    h = kg.read_hierarchy(path)
    assert h.magset() == {"South Egypt", "A.R.E"}
    res = kg.apply_levels(table, _schema(h), [2])
    assert len(kg.constraint_violations(res)) == 4     # Geza twice, Aswan, Luxor
