"""Bad input fails with a one-line message naming the parameter, attribute or value."""

import numpy as np
import pandas as pd
import pytest

import kanon_graph as kg


def _one_line(info):
    message = str(info.value)
    assert "\n" not in message
    return message


# -------------------------------------------------------------------------- k
@pytest.mark.parametrize("k", [0, -1, 11])
def test_k_out_of_range(table, schema, k):
    with pytest.raises(ValueError) as info:
        kg.anonymize(table, schema, k=k)
    message = _one_line(info)
    assert message == (f"The 'k' parameter of anonymize must be an integer in [1, 10] "
                       f"(the number of records). Got {k}.")


@pytest.mark.parametrize("k", [2.5, "3", True, None])
def test_k_not_an_integer(table, schema, k):
    with pytest.raises(ValueError) as info:
        kg.anonymize(table, schema, k=k)
    assert f"'k' parameter of anonymize must be an integer" in _one_line(info)
    assert f"Got {k!r}." in str(info.value)


def test_k_numpy_integer_accepted(table, schema):
    assert kg.anonymize(table, schema, k=np.int64(3)).k == 3


def test_apply_levels_k_and_levels_checked(table, schema):
    with pytest.raises(ValueError, match=r"'k' parameter of apply_levels .* Got 0\."):
        kg.apply_levels(table, schema, [0, 0, 0], k=0)
    with pytest.raises(ValueError, match=r"\"levels\['age'\]\" parameter of apply_levels must "
                                         r"be an integer in \[0, 3\]\. Got 4\."):
        kg.apply_levels(table, schema, [0, 4, 0])
    with pytest.raises(ValueError, match=r"one level per quasi-identifier \(3: "
                                         r"\['gender', 'age', 'zip'\]\)\. Got 2\."):
        kg.apply_levels(table, schema, [0, 1])
    with pytest.raises(kg.SchemaError, match=r"levels given for \['height'\]"):
        kg.apply_levels(table, schema, {"gender": 0, "age": 0, "zip": 0, "height": 1})
    with pytest.raises(kg.SchemaError, match=r"no level given for quasi-identifier\(s\) \['zip'\]"):
        kg.apply_levels(table, schema, {"gender": 0, "age": 0})
    with pytest.raises(ValueError, match="'suppress' parameter of apply_levels must be a boolean "
                                         "array of length 10"):
        kg.apply_levels(table, schema, [0, 0, 0], suppress=[True, False])


# ---------------------------------------------------------------------- table
def test_empty_table(schema, table):
    with pytest.raises(kg.DataError) as info:
        kg.anonymize(table.iloc[:0], schema, k=1)
    assert _one_line(info) == "anonymize: the table is empty (no rows)"


def test_not_a_dataframe(schema, table):
    with pytest.raises(kg.DataError, match="must be a pandas DataFrame, got list"):
        kg.anonymize([[1, 2]], schema, k=1)
    with pytest.raises(kg.DataError, match="must be a kg.Schema, got dict"):
        kg.anonymize(table, {"quasi_identifiers": ["age"]}, k=1)


def test_quasi_identifier_missing(table):
    schema = kg.Schema(quasi_identifiers=["gender", "height"])
    with pytest.raises(kg.SchemaError) as info:
        kg.anonymize(table, schema, k=2)
    message = _one_line(info)
    assert "anonymize: quasi identifier column 'height' is not in the table" in message


def test_nan_in_quasi_identifier(table, schema):
    table["age"] = table["age"].astype(float)
    table.loc[[3, 6], "age"] = np.nan
    with pytest.raises(kg.DataError) as info:
        kg.anonymize(table, schema, k=2)
    message = _one_line(info)
    assert "column 'age' has 2 missing value(s) (first at row 3)" in message
    assert "missing='drop'" in message


def test_missing_drop_counts_rows(table, schema):
    table["age"] = table["age"].astype(float)
    table.loc[[3, 6], "age"] = np.nan
    res = kg.anonymize(table, schema, k=2, missing="drop")
    assert res.dropped == 2
    covered = sorted(np.concatenate(res.classes + [res.suppressed_rows]).tolist())
    assert covered == [0, 1, 2, 4, 5, 7, 8, 9]
    assert list(res.table.index) == [0, 1, 2, 4, 5, 7, 8, 9]
    with pytest.raises(ValueError, match="'missing' parameter of anonymize must be 'error', "
                                         "'drop' or 'keep'. Got 'skip'."):
        kg.anonymize(table, schema, k=2, missing="skip")


def test_every_row_missing(schema, table):
    table["gender"] = None
    with pytest.raises(kg.DataError, match="every row has a missing value"):
        kg.anonymize(table, schema, k=1, missing="drop")


def test_text_in_numeric_column(table):
    table["age"] = table["age"].astype(object)
    table.loc[4, "age"] = "twenty-six"
    schema = kg.Schema(quasi_identifiers=["gender", "age"], numeric=["age"])
    with pytest.raises(kg.DataError) as info:
        kg.anonymize(table, schema, k=2)
    message = _one_line(info)
    assert "numeric column 'age' holds text 'twenty-six' (row 4)" in message


def test_value_missing_from_hierarchy(table, schema):
    table.loc[2, "age"] = 99
    table.loc[5, "age"] = 17
    with pytest.raises(kg.HierarchyError) as info:
        kg.anonymize(table, schema, k=2)
    message = _one_line(info)
    assert "'age'" in message
    assert "2 value(s) in the data are not leaves" in message
    assert "'17'" in message and "'99'" in message     # as labels, not 99.0


def test_categorical_value_missing_from_hierarchy(table, schema):
    table.loc[0, "zip"] = "999999"
    with pytest.raises(kg.HierarchyError, match="'zip'.*'999999'"):
        kg.apply_levels(table, schema, [0, 0, 0])


# ------------------------------------------------------------- names and options
def test_unknown_algorithm_lists_known(table, schema):
    with pytest.raises(ValueError) as info:
        kg.anonymize(table, schema, k=2, algorithm="nope")
    message = _one_line(info)
    assert message.startswith("Unknown algorithm 'nope'. Known algorithms: [")
    assert "'datafly'" in message
    for name in kg.algorithms():
        assert repr(name) in message


def test_unknown_metric_lists_known(table, schema):
    with pytest.raises(ValueError) as info:
        kg.anonymize(table, schema, k=2, metrics=["ncp", "nope"])
    message = _one_line(info)
    assert message.startswith("Unknown metric 'nope'. Known metrics: [")
    assert "'loss'" in message and "'discernibility'" in message
    with pytest.raises(ValueError, match="Unknown metric 'nope'"):
        kg.apply_levels(table, schema, [0, 0, 0], metrics=["nope"])


def test_unknown_algorithm_option(table, schema):
    with pytest.raises(ValueError) as info:
        kg.anonymize(table, schema, k=2, algorithm="datafly", depth=3)
    assert _one_line(info) == ("Unknown option(s) ['depth'] for algorithm 'datafly'; "
                               "it accepts no options.")


@pytest.mark.parametrize("l", [0, 0.5, -2, "2", True])
def test_l_out_of_range(table, schema, l):
    with pytest.raises(ValueError) as info:
        kg.anonymize(table, schema, k=2, l=l)
    assert _one_line(info) == f"The 'l' parameter of anonymize must be a number >= 1. Got {l!r}."


@pytest.mark.parametrize("t", [-0.1, 1.5, "0.2", False])
def test_t_out_of_range(table, schema, t):
    with pytest.raises(ValueError) as info:
        kg.anonymize(table, schema, k=2, t=t)
    assert _one_line(info) == f"The 't' parameter of anonymize must be a number in [0, 1]. Got {t!r}."


def test_bad_diversity_and_suppression(table, schema):
    with pytest.raises(ValueError, match=r"'diversity' parameter of anonymize must be one of "
                                         r"\['distinct', 'entropy', 'recursive'\]\. Got 'max'\."):
        kg.anonymize(table, schema, k=2, l=2, diversity="max")
    with pytest.raises(ValueError, match=r"'suppression' parameter of anonymize must be a number "
                                         r"in \[0, 1\]\. Got 2\."):
        kg.anonymize(table, schema, k=2, suppression=2)


def test_sensitive_attribute_needed_for_l(table):
    schema = kg.Schema(quasi_identifiers=["gender", "age"],
                       hierarchies=kg.datasets.paper_003_hierarchies())
    with pytest.raises(kg.SchemaError, match="need a sensitive attribute"):
        kg.anonymize(table, schema, k=2, l=2)
    with pytest.raises(kg.SchemaError, match="'sensitive' parameter names 'zip'"):
        kg.anonymize(table, kg.datasets.paper_003_schema(), k=2, l=2, sensitive="zip")


def test_algorithm_needing_hierarchies(table):
    schema = kg.Schema(quasi_identifiers=["gender", "age"])
    with pytest.raises(kg.SchemaError, match=r"'datafly' needs a hierarchy for every "
                                             r"quasi-identifier; none is given for \['gender', 'age'\]"):
        kg.anonymize(table, schema, k=2, algorithm="datafly")


def test_privacy_helpers_name_missing_columns():
    frame = pd.DataFrame({"a": [1, 2]})
    with pytest.raises(kg.SchemaError, match=r"\['b'\] are not in the table"):
        kg.privacy.k_anonymity(frame, ["a", "b"])
    with pytest.raises(kg.SchemaError, match="sensitive column 's' is not in the table"):
        kg.privacy.l_diversity(frame, ["a"], "s")
    with pytest.raises(ValueError, match=r"'kind' parameter of l_diversity must be one of"):
        kg.privacy.l_diversity(frame, ["a"], "a", kind="max")


@pytest.mark.parametrize("c", [0, -1.5, "2", None])
def test_c_must_be_positive(table, schema, c):
    with pytest.raises(ValueError) as info:
        kg.anonymize(table, schema, k=2, l=2, diversity="recursive", c=c)
    assert _one_line(info) == f"The 'c' parameter of anonymize must be a positive number. Got {c!r}."


@pytest.mark.parametrize("l", [float("nan"), float("inf"), np.float64("nan"), 2 + 0j])
def test_l_not_a_finite_number(table, schema, l):
    with pytest.raises(ValueError) as info:
        kg.anonymize(table, schema, k=2, l=l)
    assert _one_line(info) == f"The 'l' parameter of anonymize must be a number >= 1. Got {l!r}."


@pytest.mark.parametrize("t", [float("nan"), np.float64("nan"), 0.5 + 0j])
def test_t_not_a_finite_number(table, schema, t):
    with pytest.raises(ValueError) as info:
        kg.anonymize(table, schema, k=2, t=t)
    assert _one_line(info) == f"The 't' parameter of anonymize must be a number in [0, 1]. Got {t!r}."


@pytest.mark.parametrize("c", [float("nan"), float("inf"), 1 + 0j])
def test_c_not_a_finite_number(table, schema, c):
    with pytest.raises(ValueError) as info:
        kg.anonymize(table, schema, k=2, l=2, diversity="recursive", c=c)
    assert _one_line(info) == f"The 'c' parameter of anonymize must be a positive number. Got {c!r}."


@pytest.mark.parametrize("k", [np.float64(3), 3 + 0j, [3], float("nan")])
def test_k_of_odd_types(table, schema, k):
    with pytest.raises(ValueError) as info:
        kg.anonymize(table, schema, k=k)
    assert "'k' parameter of anonymize must be an integer" in _one_line(info)


@pytest.mark.parametrize("diversity", [["distinct"], None])
def test_diversity_of_odd_types(table, schema, diversity):
    with pytest.raises(ValueError) as info:
        kg.anonymize(table, schema, k=2, l=2, diversity=diversity)
    assert "'diversity' parameter of anonymize must be one of" in _one_line(info)


@pytest.mark.parametrize("doubled", ["age", "disease", "id"])
def test_duplicate_column_names_refused(table, schema, doubled):
    frame = pd.concat([table, table[[doubled]]], axis=1)
    for call in (lambda: kg.anonymize(frame, schema, k=2),
                 lambda: kg.apply_levels(frame, schema, [0, 0, 0])):
        with pytest.raises(kg.SchemaError) as info:
            call()
        message = _one_line(info)
        assert f"several columns named {doubled!r}" in message
