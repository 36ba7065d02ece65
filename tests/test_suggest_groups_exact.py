"""suggest's look-alike grouping (hierarchy/_groups.py) counted in one pass: the same
profiles as a plain count, each described column factorized once (issue 48's speed target)."""

from collections import Counter

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import kanon_graph as kg
from kanon_graph.cells.kinds import inferred_kind
from kanon_graph.hierarchy import _groups
from kanon_graph.hierarchy._groups import _TOP, Context, profiles, similar_groups


def _plain_codes(series):
    """The profile codes (and their number) as the module defines them, row by row:
    a numeric column of more than _TOP numbers in quintiles of its rows, else its
    values (the _TOP most common alone, the rest pooled), -1 for a missing cell."""
    values = list(series)
    present = [v for v in values if not pd.isna(v)]
    if series.dtype.kind in "biuf":
        numbers = np.array([float(v) for v in present])
        if len(np.unique(numbers)) > _TOP:
            cuts = np.quantile(numbers, [0.2, 0.4, 0.6, 0.8])
            return [-1 if pd.isna(v) else int(np.searchsorted(cuts, float(v), side="right"))
                    for v in values], 5
    firsts = list(dict.fromkeys(present))             # first appearance, as pd.factorize
    counts = Counter(present)
    if len(firsts) > _TOP:
        ranked = sorted(firsts, key=lambda v: -counts[v])   # stable: ties by appearance
        code = {v: min(i, _TOP) for i, v in enumerate(ranked)}
        width = _TOP + 1
    else:
        code = {v: i for i, v in enumerate(firsts)}
        width = max(len(firsts), 1)
    return [-1 if pd.isna(v) else code[v] for v in values], width


def _plain_profiles(table, column, values, others):
    """Per value, per other column, the share of its records with each code (loops)."""
    blocks = []
    for other in others:
        codes, width = _plain_codes(table[other])
        block = np.zeros((len(values), width))
        for v, c in zip(table[column], codes):
            if not pd.isna(v) and str(v) in values and c >= 0:
                block[values.index(str(v)), c] += 1
        total = block.sum(axis=1, keepdims=True)
        blocks.append(block / np.maximum(total, 1))
    return np.hstack(blocks) if blocks else np.zeros((len(values), 1))


_LABELS = st.sampled_from(["a", "b", "c", "d", "e", "f", "g", "h", None])
_MANY = st.sampled_from([f"v{i}" for i in range(20)] + [None])
_NUMBERS = st.sampled_from([-3.5, -0.0, 0.0, 0.5, 1.0, 2.0, 2.5, 7.0, 9.0, 11.0, 13.0,
                            17.0, 19.0, 23.0, 29.0, 31.0, float("nan")])
_INTS = st.integers(min_value=2 ** 53 - 8, max_value=2 ** 53 + 8)   # some merge as floats


@st.composite
def _tables(draw):
    n = draw(st.integers(min_value=1, max_value=60))
    return pd.DataFrame({
        "target": draw(st.lists(_LABELS, min_size=n, max_size=n)),
        "many": pd.Series(draw(st.lists(_MANY, min_size=n, max_size=n)), dtype="str"),
        "number": draw(st.lists(_NUMBERS, min_size=n, max_size=n)),
        "big": np.array(draw(st.lists(_INTS, min_size=n, max_size=n)), dtype=np.int64),
        "small": np.array(draw(st.lists(st.integers(0, 3), min_size=n, max_size=n))),
    })


@settings(max_examples=150, deadline=None)
@given(_tables(), st.permutations(["many", "number", "big", "small"]))
def test_profiles_equal_a_plain_count(table, others):
    values = sorted({str(v) for v in table["target"].dropna()})
    got = profiles(Context(table), "target", values, others)
    assert np.array_equal(got, _plain_profiles(table, "target", values, others))


@settings(max_examples=150, deadline=None)
@given(_tables())
def test_codes_equal_the_plain_codes(table):
    context = Context(table)
    for column in table.columns:
        codes, width = context.coded(column)
        assert (codes.tolist(), width) == _plain_codes(table[column]), column


@settings(max_examples=60, deadline=None)
@given(_tables())
def test_a_context_shared_by_columns_draws_what_a_fresh_one_draws(table):
    shared = Context(table)
    for column in ("target", "many"):
        others = [c for c in table.columns if c != column]
        if table[column].nunique() >= 2:
            assert similar_groups(shared, column, others) \
                == similar_groups(table.copy(), column, others)


def test_suggest_factorizes_each_described_column_once(monkeypatch):
    """The look-alike grouping reads a column's values once per suggest call, however
    many categorical columns it draws (each described column was factorized up to three
    times: as the column drawn, as another column's profile, for its counts)."""
    rng = np.random.default_rng(48)
    n = 3000
    words = ["ash", "birch", "cedar", "elm", "fir", "hazel", "larch", "maple", "oak",
             "pine", "rowan", "yew"]
    table = pd.DataFrame({"job": rng.choice(words, n), "town": rng.choice(words[:9], n),
                          "degree": rng.choice(words[:7], n),
                          "age": rng.integers(18, 90, n), "cost": rng.gamma(2, 500, n)})
    seen = Counter()
    real = pd.factorize

    def counting(values, *args, **kwargs):
        if isinstance(values, pd.Series):
            seen[values.name] += 1
        return real(values, *args, **kwargs)

    monkeypatch.setattr(_groups.pd, "factorize", counting)
    made = kg.hierarchy.suggest(table, kg.Schema(quasi_identifiers=["job", "town", "degree",
                                                                    "age"],
                                                 sensitive=["cost"]))
    assert all("look alike" in made[c][1] for c in ("job", "town", "degree"))
    assert seen and max(seen.values()) == 1, seen


@pytest.mark.parametrize("rows", [1, 70_000])
def test_profiles_of_more_rows_than_one_chunk(rows):
    """The counts are taken chunk by chunk (:data:`_groups._CHUNK` rows): a table
    longer than a chunk is counted whole."""
    rng = np.random.default_rng(1)
    table = pd.DataFrame({"target": rng.choice(list("abcde"), rows),
                          "other": rng.choice(list("xyz"), rows)})
    values = sorted(set(table["target"]))
    got = profiles(Context(table), "target", values, ["other"])
    counts = pd.crosstab(table["target"], table["other"]).reindex(
        index=values, columns=list(dict.fromkeys(table["other"])), fill_value=0)
    want = counts.to_numpy() / np.maximum(counts.to_numpy().sum(axis=1, keepdims=True), 1)
    assert np.array_equal(got, want)


_CELLS = st.one_of(st.sampled_from(["a", "b", "0", "-0.0", "", " a"]), st.none(),
                   st.just(float("nan")), st.integers(-3, 3), st.sampled_from([-0.0, 0.0, 1.5]))


@settings(max_examples=200, deadline=None)
@given(st.lists(_CELLS, min_size=1, max_size=30),
       st.sampled_from([object, "str", "category", None]))
def test_distinct_values_are_pd_uniques(cells, dtype):
    """What suggest reads a categorical column's distinct values as: the very objects
    ``pd.unique`` finds, in its order, whatever the column's dtype."""
    try:
        series = pd.Series(cells, dtype=dtype)
    except (TypeError, ValueError):
        return
    got = Context(pd.DataFrame({"c": series})).distinct("c")
    want = list(pd.unique(series.dropna()))
    assert [(type(v), v) for v in got] == [(type(v), v) for v in want]


_TEXTS = st.sampled_from(["13/03/1961", "01/02/1970", "1961-03-13", "$1,234.50", "$12",
                          "12%", "7.5%", "02139", "10001", "F32.1", "nurse", "17", "3.5",
                          "1.234,50 EUR", "", " a "])


@settings(max_examples=200, deadline=None)
@given(st.lists(st.one_of(_TEXTS, st.none()), min_size=1, max_size=12),
       st.sampled_from([object, "str", "category"]))
def test_kind_read_from_the_shared_values_is_the_kind_read_alone(cells, dtype):
    """suggest hands column_kind the distinct values its Context found: the kind (and
    the code flag) are those read from the column alone."""
    series = pd.Series(cells, dtype=dtype)
    shared = Context(pd.DataFrame({"c": series})).text_values("c")
    assert inferred_kind(series, shared) == inferred_kind(series)
