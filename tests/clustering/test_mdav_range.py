"""mdav releases every number and date within its class's range (issue 39 items 7 and 8)."""

import datetime as dt

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import kanon_graph as kg
from kanon_graph.cells.kinds import parse_date

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")

AWKWARD = {
    "three 0.1": [0.1] * 3,
    "seven 0.1": [0.1] * 7,
    "four 1/3": [1 / 3] * 4,
    "five 1e-310 (subnormal)": [1e-310] * 5,
    "three 1e308": [1e308] * 3,
    "1e308 twice and -1e308": [1e308, 1e308, -1e308],
    "mixed magnitudes": [0.1, 1e-300, 5e-324, 3.0],
    "large and tiny": [1e16, 1.0, 1e16, 3.0],
    "negative equal": [-2.675] * 3,
}


def _released_numbers(values, centroid):
    table = pd.DataFrame({"x": values})
    res = kg.anonymize(table, kg.Schema(quasi_identifiers=["x"]), k=len(values),
                       algorithm="mdav", centroid=centroid)
    return res, res.table["x"].astype(float)


@pytest.mark.parametrize("centroid", ["mean", "median"])
@pytest.mark.parametrize("case", sorted(AWKWARD))
def test_an_awkward_float_class_releases_a_value_within_its_range(case, centroid):
    values = AWKWARD[case]
    res, released = _released_numbers(values, centroid)
    assert released.nunique() == 1
    assert min(values) <= released.iloc[0] <= max(values)
    if len(set(values)) == 1:
        assert released.iloc[0] == values[0]          # equal values: exactly that value


#: A class of a few values, each repeated (equal floats are where rounding bites).
REPEATED = st.lists(st.tuples(st.floats(allow_nan=False, allow_infinity=False),
                              st.integers(1, 4)), min_size=1, max_size=3).map(
    lambda pairs: [v for v, times in pairs for _ in range(times)])


@settings(max_examples=200, deadline=None)
@given(REPEATED, st.sampled_from(["mean", "median"]))
def test_any_float_class_releases_a_value_within_its_range(values, centroid):
    res, released = _released_numbers(values, centroid)
    assert res.verification.holds
    assert ((released >= min(values)) & (released <= max(values))).all()


def test_classes_of_equal_floats_release_their_value():
    table = pd.DataFrame({"x": [0.1] * 3 + [0.7] * 3 + [2.675] * 3})
    res = kg.anonymize(table, kg.Schema(quasi_identifiers=["x"]), k=3, algorithm="mdav")
    assert sorted(res.table["x"]) == sorted(table["x"])


DATE_TIMES = {
    "equal date-times": (["1934-07-21T16:00"] * 3, r"\d{4}-\d\d-\d\dT\d\d:\d\d"),
    "across midnight": (["1934-07-21T23:50", "1934-07-21T23:59", "1934-07-21T23:59"],
                        r"\d{4}-\d\d-\d\dT\d\d:\d\d"),
    "seconds": (["2001-02-03T04:05:06"] * 2 + ["2001-02-03T04:05:08"],
                r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d"),
    "microseconds": (["2000-01-01T00:00:00.000001"] * 2 + ["2000-01-01T00:00:00.000002"],
                     r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}"),
    "dates": (["1934-07-21", "1934-07-22", "1934-07-22"], r"\d{4}-\d\d-\d\d"),
    "dates, mean half-way": (["1934-07-21", "1934-07-22"] * 2, r"\d{4}-\d\d-\d\d"),
}


@pytest.mark.parametrize("case", sorted(DATE_TIMES))
def test_a_date_time_class_releases_a_date_time_within_its_range(case):
    """3 x 1934-07-21T16:00 released 1934-07-22 (rounded to the day) before."""
    texts, shape = DATE_TIMES[case]
    table = pd.DataFrame({"d": texts})
    schema = kg.Schema(quasi_identifiers=["d"], dates=["d"])
    res = kg.anonymize(table, schema, k=len(texts), algorithm="mdav")
    released = res.table["d"].iloc[0]
    assert res.table["d"].str.fullmatch(shape).all(), released
    whens = [parse_date(t) for t in texts]
    assert min(whens) <= parse_date(released) <= max(whens)
    if len(set(texts)) == 1:
        assert released == texts[0]
    back = kg.evaluate(table, res.table, schema, len(texts), aggregate=res.stats["aggregate"])
    assert back.verification.holds


def test_a_datetime64_column_keeps_its_time():
    table = pd.DataFrame({"d": pd.to_datetime(["1934-07-21 16:00"] * 3 + ["1990-01-02 08:30"] * 3)})
    res = kg.anonymize(table, kg.Schema(quasi_identifiers=["d"]), k=3, algorithm="mdav")
    assert sorted(res.table["d"]) == ["1934-07-21T16:00"] * 3 + ["1990-01-02T08:30"] * 3


def test_a_released_date_past_its_class_is_refused():
    """The check is exact: a date one day past the class's last is refused, not rounded in."""
    import kanon_graph.recoding._aggregate as aggregate

    original = aggregate._date_centres

    def one_day_late(*args):
        centre, labels = original(*args)
        later = [(parse_date(t) + dt.timedelta(days=1)).date().isoformat() for t in labels]
        return centre + 1.0, np.array(later, dtype=object)

    table = pd.DataFrame({"d": ["1934-07-21"] * 3})
    aggregate._date_centres = one_day_late
    try:
        with pytest.raises(kg.PrivacyError, match="released mean '1934-07-22' of 'd' is no mean"):
            kg.anonymize(table, kg.Schema(quasi_identifiers=["d"], dates=["d"]), k=3,
                         algorithm="mdav")
    finally:
        aggregate._date_centres = original
