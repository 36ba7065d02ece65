"""Date text read once per distinct cell (issue 47 item 1).

A column's distinct date texts were read by the kind inference, the format
rule (twice) and the encoder in turn: four ``strptime`` calls per distinct
text (five for a date-time). Each distinct ``(text, format)`` is now read
once; the readings and the warnings are the same as before.
"""

import _strptime
import datetime as dt
import warnings
from collections import Counter

import numpy as np
import pandas as pd
import pytest

import kanon_graph as kg
from kanon_graph.exceptions import InferenceWarning
from kanon_graph.cells import date_text


def _forget():
    clear = getattr(getattr(date_text, "_read", None), "cache_clear", None)
    if clear is not None:
        clear()


@pytest.fixture
def readings(monkeypatch):
    """Every ``datetime.strptime`` call of the test, as ``(text, format)`` pairs."""
    _forget()
    seen = Counter()
    original = _strptime._strptime_datetime

    def counted(cls, text, fmt="%a %b %d %H:%M:%S %Y"):
        seen[text, fmt] += 1
        return original(cls, text, fmt)

    # datetime.strptime looks this function up in the _strptime module on every call
    monkeypatch.setattr(_strptime, "_strptime_datetime", counted)
    yield seen
    _forget()


def _visits(n=600, seed=3):
    """US date text (month first, told by days above 12), 40 distinct births, repeated."""
    rng = np.random.default_rng(seed)
    days = pd.Timestamp("1950-01-01") + pd.to_timedelta(rng.integers(0, 20_000, 40), unit="D")
    births = [d.strftime("%m/%d/%Y") for d in days]
    times = [f"{d.strftime('%m/%d/%Y')} {h:02d}:30" for d, h in zip(days[:25], range(8, 33))]
    return pd.DataFrame({"dob": rng.choice(births, n),
                         "visit": rng.choice([t for t in times if int(t[11:13]) < 24], n),
                         "sex": rng.choice(["F", "M"], n)})


def test_a_column_of_repeated_dates_reads_each_distinct_text_once(readings):
    table = _visits()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", InferenceWarning)
        res = kg.anonymize(table, kg.Schema(quasi_identifiers=["dob", "visit", "sex"]), k=5,
                           algorithm="mondrian")
    assert len(res.table) == len(table)
    distinct = set(table["dob"]) | set(table["visit"])
    read = {text for text, _ in readings}
    assert distinct <= read                           # every distinct date text was read
    twice = {pair: n for pair, n in readings.items() if n > 1}
    assert not twice, f"read more than once: {sorted(twice.items())[:5]}"
    # a date-time tries the bare format once, then the format with a time once
    per_text = Counter(text for text, _ in readings)
    assert max(per_text[t] for t in set(table["dob"])) == 1
    assert len(readings) < 3 * len(distinct)


def _old_parse_with(text, fmt):
    """The reading before issue 47: strptime tried afresh on every call."""
    text = text.strip()
    for time in (date_text._TIMES if "%H" not in fmt else ("",)):
        try:
            return dt.datetime.strptime(text, fmt + time)
        except ValueError:
            continue
    return None


MESSY = ["13/03/1961", " 13/03/1961 ", "1/3/1961", "31/02/1961", "13/03/61", "03/13/1961",
         "13.03.1961", "13-03-1961", "13/03/1961 08:30", "13/03/1961T08:30:15",
         "13/03/1961 8:30", "13/03/1961 25:00", "13/03/1961 08:30 PM", "13/03/1961\t08:30",
         "", " ", "1961-03-13", "1961/03/13", "1961/13/03", "29/02/2000", "29/02/1900",
         "00/01/2000", "13/03/1961 08:30:60", "abc", "13/03/19610", "01/02/1970"]
FORMATS = ["%d/%m/%Y", "%m/%d/%Y", "%d.%m.%Y", "%Y/%m/%d", "%Y/%d/%m", "%d-%m-%Y",
           "%d/%m/%Y %H:%M", "%Y-%m-%d"]


@pytest.mark.parametrize("fmt", FORMATS)
def test_readings_equal_the_old_path_on_messy_text_first_and_second_time(fmt):
    _forget()
    for attempt in range(2):                      # fresh, then from what was kept
        for text in MESSY:
            assert date_text.parse_with(text, fmt) == _old_parse_with(text, fmt), (text, attempt)


def test_column_rules_and_cell_problems_are_unchanged_by_what_was_kept(monkeypatch):
    columns = [MESSY, ["13/03/1961", "01/02/1970"], ["03/13/1961", "01/02/1970 08:30"],
               ["01/02/1970", "03/04/1961"], ["1961/13/03", "1970/01/02"],
               ["13/03/1961", "31/02/1970"], ["13/03/61"], ["13/03/1961", "03/13/1961"],
               ["13.03.1961", "14/03/1961", "15/03/1961"]]

    def answers():
        out = []
        for texts in columns:
            out.append(date_text.date_reading(texts))
            for fmt in (None, "%d/%m/%Y", "%m/%d/%Y"):
                out.append([date_text.cell_problem(t, fmt) for t in texts])
                try:
                    out.append(date_text.column_date_format(texts, "c", "here", given=fmt))
                except kg.DataError as exc:
                    out.append(str(exc))
        return out

    _forget()
    first, kept = answers(), answers()             # the second from the kept readings
    monkeypatch.setattr(date_text, "parse_with", _old_parse_with)
    old = answers()
    assert first == old and kept == old
