"""Adult with ARX's hierarchies: the reference values ARX 3.9.2 reports.

From ``$KANON_GRAPH_DATA/README.md``: quasi-identifiers sex, age, race, marital-status,
education, native-country, workclass, occupation; k = 5 without suppression; ARX's
optimum is levels [0,4,0,2,3,2,2,1] with Loss 0.591585, 30 classes, the smallest 16.
"""

import numpy as np
import pytest

import kanon_graph as kg

LEVELS = [0, 4, 0, 2, 3, 2, 2, 1]


@pytest.fixture(scope="module")
def reference(adult_table, adult_schema):
    return kg.apply_levels(adult_table, adult_schema, LEVELS, k=5)


def test_table_shape(adult_table, adult_schema):
    assert len(adult_table) == 30162
    assert list(adult_schema.quasi_identifiers) == [
        "sex", "age", "race", "marital-status", "education", "native-country", "workclass",
        "occupation"]


def test_reference_classes(reference):
    sizes = sorted(len(c) for c in reference.classes)
    assert len(sizes) == 30
    assert sizes[0] == 16
    assert sum(sizes) == 30162
    assert reference.verification.holds and reference.verification.k_achieved == 16
    assert reference.suppressed == 0


def test_reference_loss(reference):
    assert round(reference.metrics["loss"], 6) == 0.591585


def test_reference_levels_and_labels(reference, adult_schema):
    assert list(reference.levels.values()) == LEVELS
    assert set(reference.table["age"]) == {"*"}
    assert set(reference.table["native-country"]) == {"*"}
    assert set(reference.table["sex"]) == {"Male", "Female"}


def test_reference_agrees_with_dataframe_checks(reference, adult_schema):
    qis = list(adult_schema.quasi_identifiers)
    # the released table holds 'root' cells ('*') but no suppressed record (all eight '*')
    assert kg.privacy.k_anonymity(reference.table, qis) == 16
    highest, average = kg.privacy.prosecutor_risk(reference.table, qis)
    assert highest == pytest.approx(1 / 16)
    assert average == pytest.approx(30 / 30162)


def test_unmodified_table_has_no_loss(adult_table, adult_schema):
    res = kg.apply_levels(adult_table, adult_schema, [0] * 8, metrics=["loss", "ncp"])
    assert res.metrics == {"loss": 0.0, "ncp": 0.0}
    assert res.verification.k_achieved == 1        # some records are unique


def test_datafly_on_adult(adult_table, adult_schema):
    res = kg.anonymize(adult_table, adult_schema, k=5, algorithm="datafly", suppression=0.0)
    assert res.verification.holds and res.suppressed == 0
    assert min(len(c) for c in res.classes) >= 5
    # Datafly is a heuristic: it cannot beat the optimum ARX finds
    assert res.metrics["loss"] >= 0.591585 - 1e-6
    total = np.concatenate(res.classes)
    assert np.array_equal(np.sort(total), np.arange(30162))
