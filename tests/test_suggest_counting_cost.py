"""What suggest's look-alike grouping costs on a table, and that the cheaper counting
gives the same figures (issue 48's speed target: suggest on Adult no more than 10% slower
than the code before the issue)."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import kanon_graph as kg
from kanon_graph.hierarchy import _groups
from kanon_graph.hierarchy._groups import Context, _sorted_quantiles, profiles
from kanon_graph.hierarchy._integers import order_ratio

from test_suggest_groups_exact import _plain_profiles, _tables


def _adult_like(rows=6000, seed=48):
    """Nine described columns of 2 to 16 values, as Adult's quasi-identifiers are."""
    rng = np.random.default_rng(seed)
    words = ["ash", "beech", "birch", "cedar", "elm", "fir", "hazel", "holly", "larch",
             "lime", "maple", "oak", "pine", "rowan", "willow", "yew"]
    return pd.DataFrame({
        "sex": rng.choice(words[:2], rows), "age": rng.integers(17, 90, rows),
        "race": rng.choice(words[:5], rows), "marital": rng.choice(words[:7], rows),
        "education": rng.choice(words, rows), "country": rng.choice(words[:14], rows),
        "work": rng.choice(words[:7], rows), "job": rng.choice(words[:14], rows),
        "salary": rng.choice(words[:2], rows)})


def test_profiles_count_fewer_keys_than_cells(monkeypatch):
    """A profile counts a few columns to a key (packs of codes), not one key per cell:
    on nine Adult-like columns, under half of rows x columns keys (every cell was one)."""
    table = _adult_like()
    counted = []
    real = np.bincount

    def counting(keys, *args, **kwargs):
        counted.append(np.size(keys))
        return real(keys, *args, **kwargs)

    context = Context(table)
    for column in table.columns:             # each column's codes, made once per table
        context.coded(column)
    for column in ("education", "job", "marital"):
        values = sorted(context.texts(column))
        others = [c for c in table.columns if c != column]
        want = _plain_profiles(table, column, values, others)
        counted.clear()
        monkeypatch.setattr(_groups.np, "bincount", counting)
        got = profiles(context, column, values, others)
        monkeypatch.setattr(_groups.np, "bincount", real)
        assert np.array_equal(got, want), column
        assert 0 < sum(counted) <= len(table) * len(table.columns) / 2, (column, counted)


@pytest.mark.parametrize("pack", [1, 4, 16, 64])
@settings(max_examples=60, deadline=None)
@given(_tables(), st.permutations(["many", "number", "big", "small"]))
def test_packed_profiles_equal_a_plain_count(pack, table, others):
    """However the columns are packed (small packs make the small tables pack too)."""
    values = sorted({str(v) for v in table["target"].dropna()})
    saved = _groups._PACK
    _groups._PACK = pack
    try:
        got = profiles(Context(table), "target", values, others)
    finally:
        _groups._PACK = saved
    assert np.array_equal(got, _plain_profiles(table, "target", values, others))


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(st.integers(-10, 10).map(float),
                          st.floats(-1e17, 1e17, allow_nan=False),
                          st.integers(2 ** 53 - 8, 2 ** 53 + 8).map(float)),
                min_size=1, max_size=80),
       st.lists(st.floats(0, 1), min_size=1, max_size=6))
def test_sorted_quantiles_are_numpys(values, quantiles):
    ranked = np.sort(np.array(values))
    assert np.array_equal(_sorted_quantiles(ranked, quantiles), np.quantile(ranked, quantiles))


def _direct_order_ratio(table, column, others):
    """The order ratio as the module defines it, with each squared distance summed
    term by term (the profiles of the values in numeric order)."""
    counts = table[column].value_counts()
    values = sorted(counts.index)
    weights = counts[values].to_numpy(dtype=float)
    points = profiles(Context(table), column, [str(v) for v in values], others)
    noise = (points * (1 - points)).sum(axis=1) / weights
    raw = ((points[:, None, :] - points[None, :, :]) ** 2).sum(axis=2)
    clean = raw - noise[:, None] - noise[None, :]
    pair = np.minimum(weights[:, None], weights[None, :])
    np.fill_diagonal(pair, 0.0)
    spread = (clean * pair).sum() / pair.sum()
    if not spread > 0.1 * (raw * pair).sum() / pair.sum():
        return None
    i = np.arange(len(values) - 1)
    return max(float((clean[i, i + 1] * pair[i, i + 1]).sum() / pair[i, i + 1].sum()
                     / spread), 0.0)


@pytest.mark.parametrize("seed", range(12))
def test_order_ratio_is_the_direct_sum(seed):
    rng = np.random.default_rng(seed)
    rows = int(rng.integers(300, 3000))
    values = int(rng.integers(3, 40))
    number = rng.integers(0, values, rows)
    tie = rng.random()                                # how much the order shows
    near = np.where(rng.random(rows) < tie, number // 4, rng.integers(0, values // 4 + 1, rows))
    table = pd.DataFrame({"n": number, "near": near.astype(str),
                          "noise": rng.choice(list("abc"), rows)})
    got = order_ratio(Context(table), "n", ["near", "noise"])
    want = _direct_order_ratio(table, "n", ["near", "noise"])
    assert (got is None) == (want is None)
    if want is not None:
        assert got == pytest.approx(want, rel=1e-9, abs=1e-12)


def test_suggest_drops_the_missing_cells_of_a_grouped_column_only_if_read(monkeypatch):
    """A text column drafted as look-alike groups is read from its distinct values:
    suggest copies none of its cells to drop the missing ones (it did for every column)."""
    table = _adult_like(3000)
    table.loc[::7, "job"] = None
    dropped = []
    real = pd.Series.dropna

    def counting(self, *args, **kwargs):
        dropped.append(self.name)
        return real(self, *args, **kwargs)

    monkeypatch.setattr(pd.Series, "dropna", counting)
    qis = ["education", "job", "marital", "country", "age"]
    made = kg.hierarchy.suggest(table, kg.Schema(quasi_identifiers=qis, sensitive=["salary"]))
    grouped = [c for c in qis if "look alike" in made[c][1]]
    assert set(grouped) >= {"education", "job", "marital", "country"}, made
    assert not set(dropped) & set(grouped), dropped
