"""t-closeness on the counted tuples takes the distance of the sensitive column's kind
(issue 31, item 6).

The global algorithms that count by weight search the distinct tuples, whose
``table`` has no columns; the kind of an undeclared numeric or date sensitive
column must come from the encoder, not be inferred again from that empty
frame (which gave the equal distance).
"""

import numpy as np
import pandas as pd
import pytest

import kanon_graph as kg
from kanon_graph import privacy
from kanon_graph.pipeline.tuples import collapse
from kanon_graph.privacy import PrivacyModel

# class x holds s = 1, 3 and class y s = 2, 4 (three times each): against Q, uniform
# over 1..4, the ordered EMD of either class is 1/6, the equal one 1/2
TABLE = pd.DataFrame({"a": ["x", "x", "y", "y"] * 3, "s": [1, 3, 2, 4] * 3})
ORDERED, EQUAL = 1 / 6, 1 / 2


def _schema(table=TABLE):
    hierarchy = kg.Hierarchy([["x", "*"], ["y", "*"]], name="a")
    return kg.Schema(quasi_identifiers=["a"], sensitive=["s"], hierarchies={"a": hierarchy})


def test_the_example_measures_as_stated():
    released = TABLE.assign(a=TABLE["a"].astype(str))
    assert privacy.t_closeness(released, ["a"], "s", ordered=True) == pytest.approx(ORDERED)
    assert privacy.t_closeness(released, ["a"], "s", ordered=False) == pytest.approx(EQUAL)


def test_the_model_on_collapsed_tuples_takes_the_ordered_distance():
    data = kg.encode(TABLE, _schema())
    tuples, _ = collapse(data, sensitive=True)
    assert len(tuples.table.columns) == 0          # nothing to infer the kind from
    model = PrivacyModel(2, t=0.2).bind(data)
    class_of = tuples.attributes[0].codes          # one class per value of a
    on_rows = model.verify(data.attributes[0].codes, data)
    on_tuples = model.verify(class_of, tuples)
    assert on_rows.t_achieved == pytest.approx(ORDERED)
    assert on_tuples.t_achieved == pytest.approx(ORDERED)
    assert not model.failing(class_of, tuples).any()


@pytest.mark.parametrize("algorithm", ["optimal", "datafly", "incognito", "boundaries"])
def test_global_algorithms_keep_level_0_where_the_ordered_t_holds(algorithm):
    res = kg.anonymize(TABLE, _schema(), k=2, t=0.2, algorithm=algorithm, suppression=0)
    assert res.table["a"].astype(str).tolist() == TABLE["a"].tolist()     # not '*'
    assert res.verification.t_achieved == pytest.approx(ORDERED)
    assert privacy.t_closeness(res.table, ["a"], "s") == pytest.approx(ORDERED)


def test_a_date_sensitive_column_takes_the_ordered_distance_on_tuples():
    days = pd.to_datetime(["2020-01-01", "2020-01-03", "2020-01-02", "2020-01-04"] * 3)
    table = TABLE.assign(s=days)
    res = kg.anonymize(table, _schema(), k=2, t=0.2, algorithm="optimal", suppression=0)
    assert res.levels == {"a": 0}
    assert res.verification.t_achieved == pytest.approx(ORDERED)


def test_a_declared_categorical_column_keeps_the_equal_distance():
    schema = _schema()
    schema = kg.Schema(quasi_identifiers=["a"], sensitive=["s"], categorical=["s"],
                       hierarchies=dict(schema.hierarchies))
    # the equal EMD 1/2 fails 0.2: only the top, every cell '*', holds, and it suppresses
    # every record, beyond suppression=0
    with pytest.raises(kg.PrivacyError, match="released with every quasi-identifier"):
        kg.anonymize(TABLE, schema, k=2, t=0.2, algorithm="optimal", suppression=0)
    res = kg.anonymize(TABLE, schema, k=2, t=0.5, algorithm="optimal", suppression=0)
    assert res.levels == {"a": 0}
    assert res.verification.t_achieved == pytest.approx(EQUAL)


def test_a_fuzzed_numeric_column_agrees_with_the_release():
    """Random tables: the reported t is the ordered EMD of the released table."""
    rng = np.random.default_rng(7)
    for _ in range(20):
        n = int(rng.integers(12, 40))
        table = pd.DataFrame({"a": rng.choice(["x", "y", "z"], n),
                              "s": rng.integers(0, 6, n)})
        hierarchy = kg.Hierarchy([["x", "xy", "*"], ["y", "xy", "*"], ["z", "z", "*"]],
                                 name="a")
        schema = kg.Schema(quasi_identifiers=["a"], sensitive=["s"],
                           hierarchies={"a": hierarchy})
        res = kg.anonymize(table, schema, k=2, t=0.3, algorithm="optimal", suppression=0.1)
        if res.verification.released:
            assert res.verification.t_achieved == pytest.approx(
                privacy.t_closeness(res.table, ["a"], "s", ordered=True))
