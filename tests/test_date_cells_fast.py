"""Plain ISO date columns are read by numpy at once (encoding/cells.py; issue 47, the patients row)."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kanon_graph.encoding import cells
from kanon_graph.exceptions import DataError


def _both(series):
    """``_date_cells`` with the numpy path and with every text parsed one by one."""
    def run():
        try:
            return cells._date_cells(series, "dob", "test")
        except DataError as error:
            return str(error)

    fast = run()
    real = cells._plain_iso_days
    cells._plain_iso_days = lambda uniques: None
    try:
        slow = run()
    finally:
        cells._plain_iso_days = real
    return fast, slow


def _same(fast, slow):
    if isinstance(slow, str):
        assert fast == slow
        return
    codes, texts, days, fmt = fast
    assert np.array_equal(codes, slow[0]) and texts == slow[1] and fmt == slow[3]
    assert np.array_equal(days, slow[2]) and days.dtype == slow[2].dtype


texts = st.one_of(
    st.dates().map(lambda d: d.isoformat()),                        # plain dates
    st.builds(lambda y, m, d: f"{y:04d}-{m:02d}-{d:02d}",          # any digits: 0000, 02-30
              st.integers(0, 9999), st.integers(0, 13), st.integers(0, 32)),
    st.sampled_from(["1970-01", "1970", "19700101", "1970-01-01T08:30", " 1970-01-01",
                     "1970-01-01 ", "1970/01/01", "abc"]),
)


@settings(max_examples=150, deadline=None)
@given(st.lists(texts, min_size=1, max_size=30), st.integers(0, 2**16))
def test_the_numpy_path_gives_what_parsing_each_text_gives(values, seed):
    rng = np.random.default_rng(seed)
    series = pd.Series(rng.choice(np.asarray(values, dtype=object), size=3 * len(values)))
    _same(*_both(series))


def test_a_plain_iso_column_is_not_parsed_text_by_text(monkeypatch):
    dates = pd.date_range("1940-01-01", periods=3000, freq="D").strftime("%Y-%m-%d")
    series = pd.Series(np.random.default_rng(0).choice(np.asarray(dates), size=5000))
    slow = _both(series)[1]
    parsed = []
    real = cells.parse_date
    monkeypatch.setattr(cells, "parse_date", lambda *a: parsed.append(a) or real(*a))
    formats = []
    real_format = cells.column_date_format
    monkeypatch.setattr(cells, "column_date_format",
                        lambda *a, **k: formats.append(a) or real_format(*a, **k))
    fast = cells._date_cells(series, "dob", "test")
    assert parsed == [] and formats == []          # ISO known from the numpy read
    _same(fast, slow)


@pytest.mark.parametrize("bad", ["1970-02-30", "0000-01-01"])
def test_a_bad_day_among_plain_dates_is_still_named(bad):
    series = pd.Series(["1970-01-01", bad, "1971-05-05"])
    with pytest.raises(DataError, match=bad):
        cells._date_cells(series, "dob", "test")


def _numeric_both(series):
    def run():
        try:
            return cells._numeric_cells(series, "income", "test")
        except DataError as error:
            return str(error)

    fast = run()
    real = cells._plain_numbers
    cells._plain_numbers = lambda uniques: None
    try:
        slow = run()
    finally:
        cells._plain_numbers = real
    return fast, slow


@settings(max_examples=150, deadline=None)
@given(st.one_of(st.lists(st.floats(allow_nan=False, width=64), min_size=1, max_size=30),
                 st.lists(st.integers(-2**62, 2**62), min_size=1, max_size=30)),
       st.integers(0, 2**16))
def test_numeric_columns_are_coded_as_each_value_one_by_one_codes_them(values, seed):
    rng = np.random.default_rng(seed)
    series = pd.Series(np.asarray(values)[rng.integers(0, len(values), size=3 * len(values))])
    fast, slow = _numeric_both(series)
    if isinstance(slow, str):
        assert fast == slow
        return
    assert np.array_equal(fast[0], slow[0]) and fast[1] == slow[1]
    assert np.array_equal(fast[2], slow[2]) and fast[2].dtype == slow[2].dtype


def test_a_float_column_is_not_coded_value_by_value(monkeypatch):
    series = pd.Series(np.round(np.random.default_rng(1).uniform(0, 1e5, size=5000), 2))
    slow = _numeric_both(series)[1]
    seen = []
    monkeypatch.setattr(cells, "is_text_column", lambda s: seen.append(1) or False)
    real = cells.number_reader
    monkeypatch.setattr(cells, "number_reader",
                        lambda *a: seen.append("reader") or real(*a))
    fast = cells._numeric_cells(series, "income", "test")
    assert "reader" not in seen
    assert np.array_equal(fast[0], slow[0]) and fast[1] == slow[1]
    assert np.array_equal(fast[2], slow[2])
