"""kg.evaluate: privacy and metrics of a released table, ours or another tool's."""

import dataclasses

import numpy as np
import pandas as pd
import pytest

import kanon_graph as kg
from kanon_graph.exceptions import DataError
from kanon_graph.io import numeric_columns, read_table


@pytest.fixture(scope="module")
def census():
    return kg.datasets.make_census(800, seed=4), kg.datasets.census_schema()


@pytest.mark.parametrize("algorithm, options", [
    ("datafly", {}), ("optimal", {}), ("incognito", {}), ("boundaries", {}),
    ("mondrian", {}), ("mst", {}), ("sd", {}), ("k-member", {}), ("bottom-up", {}),
])
def test_evaluate_gives_back_the_metrics_of_anonymize(census, algorithm, options):
    table, schema = census
    info = kg.registry.get_algorithm(algorithm)
    res = kg.anonymize(table, schema, k=6, algorithm=algorithm, seed=1,
                       suppression=0.04 if info.supports_suppression else None, **options)
    ev = kg.evaluate(table, res.table, schema, k=6, suppressed=res.release.class_of < 0)
    assert ev.metrics == res.metrics
    assert ev.verification == res.verification
    assert ev.suppressed == res.suppressed
    assert np.array_equal(ev.release.class_of, res.release.class_of)
    if info.recoding == "global":
        assert ev.levels == res.levels
    sizes = np.bincount(res.release.class_of[res.release.class_of >= 0])
    assert ev.risk == {"highest": 1 / sizes.min(), "average": len(sizes) / sizes.sum()}


def test_evaluate_reads_a_release_back_from_csv(census, tmp_path):
    table, schema = census
    for algorithm in ("datafly", "mondrian"):
        res = kg.anonymize(table, schema, k=4, algorithm=algorithm)
        res.table.to_csv(tmp_path / "r.csv", index=False)
        table.to_csv(tmp_path / "o.csv", index=False)
        original = read_table(tmp_path / "o.csv")  # text: numbers declared as the CLI does
        declared = dataclasses.replace(
            schema, numeric=numeric_columns(original, schema.quasi_identifiers))
        ev = kg.evaluate(original, read_table(tmp_path / "r.csv"), declared, k=4)
        assert ev.metrics == pytest.approx(res.metrics, rel=1e-12)
        assert ev.verification.k_achieved == res.verification.k_achieved


def test_evaluate_checks_l_and_t_like_anonymize(census):
    table, schema = census
    res = kg.anonymize(table, schema, k=5, l=2, t=0.4, algorithm="datafly", suppression=0.05)
    ev = kg.evaluate(table, res.table, schema, k=5, l=2, t=0.4)
    assert ev.verification == res.verification and ev.verification.holds
    strict = kg.evaluate(table, res.table, schema, k=res.verification.k_achieved + 1)
    assert not strict.verification.holds


def test_a_foreign_release_without_hierarchies_by_hand():
    original = pd.DataFrame({"age": [21, 25, 30, 34, 40, 44], "sex": list("MFMFMF"),
                             "disease": ["flu", "hiv", "flu", "cold", "hiv", "flu"]})
    released = pd.DataFrame({"age": ["[20-29]", "[20-29]", "30-39", "30-39", "*", "*"],
                             "sex": ["{F,M}", "{M,F}", "{F,M}", "{F,M}", "*", "*"],
                             "disease": original["disease"]})
    schema = kg.Schema(quasi_identifiers=["age", "sex"], sensitive=["disease"])
    ev = kg.evaluate(original, released, schema, k=2, l=2)
    # {M,F} and {F,M} are different released strings, so rows 0 and 1 are two classes
    assert ev.verification.k_achieved == 1 and ev.suppressed == 2
    released.loc[1, "sex"] = "{F,M}"
    ev = kg.evaluate(original, released, schema, k=2, l=2)
    assert ev.verification.k_achieved == 2 and ev.verification.l_achieved == 2
    assert ev.verification.classes == 2 and ev.suppressed == 2
    # ARX loss per attribute: age ranges 9/23 over 4 records, 1 per suppressed cell;
    # sex sets of both values: 1 per cell
    age = (4 * 9 / 23 + 2) / 6
    assert ev.metrics["loss"] == pytest.approx(((1 + age) * 2) ** 0.5 - 1)
    assert ev.metrics["discernibility"] == 2 ** 2 + 2 ** 2 + 6 * 2
    assert ev.risk == {"highest": 0.5, "average": 0.5}


@pytest.mark.parametrize("row, column, value, needle", [
    (3, "age", "[40-49]", "does not cover the original value '30'"),
    (2, "age", "forty", "neither a number nor a range"),
    (1, "gender", "female", "not a node of its hierarchy"),
    (4, "zip", "535**", "not a node of its hierarchy"),
])
def test_unknown_released_values_give_a_one_line_error(row, column, value, needle):
    table, schema = kg.datasets.paper_003_table(), kg.datasets.paper_003_schema()
    released = kg.anonymize(table, schema, k=2).table.copy()
    if column == "age" and value == "forty":
        schema = kg.Schema(quasi_identifiers=["gender", "age", "zip"], identifiers=["id"],
                           hierarchies={c: h for c, h in kg.datasets.paper_003_hierarchies()
                                        .items() if c != "age"})
    released[column] = released[column].astype(object)
    released.loc[row, column] = value
    if value == "[40-49]":
        schema = kg.Schema(quasi_identifiers=["gender", "age", "zip"], identifiers=["id"],
                           hierarchies={c: h for c, h in kg.datasets.paper_003_hierarchies()
                                        .items() if c != "age"})
        table = table.copy()
        table.loc[row, "age"] = 30
    with pytest.raises(DataError) as info:
        kg.evaluate(table, released, schema, k=2)
    message = str(info.value)
    assert "\n" not in message
    assert f"{value!r}" in message and f"{column!r}" in message and f"row {row}" in message
    assert needle in message


def test_row_count_and_columns_are_checked():
    table, schema = kg.datasets.paper_003_table(), kg.datasets.paper_003_schema()
    released = kg.anonymize(table, schema, k=2).table
    with pytest.raises(DataError, match="row-aligned"):
        kg.evaluate(table, released.iloc[:-1], schema)
    with pytest.raises(DataError, match=r"\['zip'\]"):
        kg.evaluate(table, released.drop(columns="zip"), schema)
    with pytest.raises(ValueError, match="'k' parameter of evaluate"):
        kg.evaluate(table, released, schema, k=0)


def test_evaluate_on_adult_matches_anonymize(adult_table, adult_schema):
    for algorithm in ("datafly", "mondrian"):
        res = kg.anonymize(adult_table, adult_schema, k=5, algorithm=algorithm)
        ev = kg.evaluate(adult_table, res.table, adult_schema, k=5,
                         suppressed=res.release.class_of < 0)
        assert ev.metrics == res.metrics
        assert ev.verification == res.verification


def test_a_release_made_with_missing_drop_is_evaluated_with_missing_drop(tmp_path):
    """anonymize(missing='drop') releases fewer rows; evaluate(missing='drop') aligns them."""
    table = kg.datasets.make_census(400, seed=5)
    table.loc[[3, 17], "race"] = None
    schema = kg.datasets.census_schema()
    res = kg.anonymize(table, schema, k=4, algorithm="mondrian", missing="drop")
    assert len(res.table) == 398
    with pytest.raises(kg.DataError, match="needs missing='drop' here too|missing value"):
        kg.evaluate(table, res.table, schema, k=4)
    ev = kg.evaluate(table, res.table, schema, k=4, missing="drop")
    assert ev.dropped == 2 and ev.verification.holds
    assert ev.metrics["loss"] == pytest.approx(res.metrics["loss"])
    assert ev.as_dict()["dropped"] == 2


def test_cli_evaluate_takes_missing_drop(tmp_path, capsys):
    from kanon_graph.cli import main

    table = kg.datasets.make_census(300, seed=6)
    table.loc[5, "sex"] = None
    table.to_csv(tmp_path / "in.csv", index=False)
    qis = "sex,age,race"
    assert main(["anonymize", "--keep-order", str(tmp_path / "in.csv"), "--qi", qis, "-k", "3",
                 "--algorithm", "mondrian", "--missing", "drop",
                 "-o", str(tmp_path / "out.csv")]) == 0
    assert main(["evaluate", str(tmp_path / "in.csv"), str(tmp_path / "out.csv"),
                 "--qi", qis, "-k", "3"]) == 1
    assert "--missing drop" in capsys.readouterr().err
    assert main(["evaluate", str(tmp_path / "in.csv"), str(tmp_path / "out.csv"),
                 "--qi", qis, "-k", "3", "--missing", "drop"]) == 0
    out = capsys.readouterr().out
    assert "1 row(s) of the original with a missing value were left out" in out
