"""Issue 48 item 2 (the data yardstick's misses): suggest's levels step evenly.

Bands from a finest width of 1 or 2 double (2 -> 4 -> 8) rather than jump
five-fold to 10 (FARS's day and month of death), and the look-alike groups'
merges are weighed by the number of values a merged group holds (rare values
chained into one group of many). Both decided on the tuning tables.
"""

import numpy as np
import pandas as pd
import pytest

import kanon_graph as kg
from kanon_graph.hierarchy import _groups


@pytest.mark.parametrize(("lo", "hi", "want"), [
    (0, 31, [2, 4, 8, 16]),                  # a day of the month
    (1, 12, [1, 2, 4, 8]),                   # a month
    (0, 99, [5, 10, 20]),                    # from 5 the round widths stay
])
def test_widths_from_one_or_two_double(lo, hi, want):
    assert kg.hierarchy.round_widths(lo, hi, integral=True) == want


@pytest.mark.parametrize("seed", range(5))
def test_a_day_of_month_drafts_bands_at_most_twice_as_wide_per_level(seed):
    """Each level's bands hold at most twice the values of the level below (a 2-day band
    went straight to a 10-day one)."""
    rng = np.random.default_rng(seed)
    rows = 4000
    day = rng.integers(1, 32, rows)
    month = rng.integers(1, 13, rows)
    table = pd.DataFrame({"day": day, "month": month,      # neighbours' records look alike
                          "shift": (day + rng.integers(0, 3, rows)) // 4,
                          "season": (month + rng.integers(0, 2, rows)) // 3})
    made = kg.hierarchy.suggest(table, kg.Schema(quasi_identifiers=["day", "month"],
                                                 sensitive=["shift", "season"]))
    for column in ("day", "month"):
        hierarchy, how = made[column]
        assert "bands" in how, how
        rows_of = hierarchy.to_rows()
        widest = [max(sum(1 for r in rows_of if r[level] == node)
                      for node in {r[level] for r in rows_of})
                  for level in range(hierarchy.height)]          # below the root
        assert widest[0] <= 2 and all(b <= 2 * a for a, b in zip(widest, widest[1:])), \
            (column, widest)


def _sizes(level):
    return sorted(np.unique(level, return_counts=True)[1].tolist())


def test_look_alike_groups_weigh_their_number_of_values():
    """Five equally common values on a line at 0, 1, 2, 3 and 5: Ward's merges alone
    (main) made the two groups 4 values and 1 ({0, 1, 2, 3} against {5}); weighed by the
    values a merged group holds, they are 2 and 3 ({0, 1} against {2, 3, 5})."""
    points = np.array([[0.0], [1.0], [2.0], [3.0], [5.0]])
    (two,) = _groups.group_levels(points, np.ones(5), factor=2)
    assert _sizes(two) == [2, 3]
    assert two[0] == two[1] and two[2] == two[3] == two[4]


def test_weighing_by_values_evens_the_groups_on_random_profiles():
    """Over 200 random columns (profiles, row counts), the drafted levels' largest group
    holds fewer times the values of the smallest with the weighing than with Ward's
    merges alone (not on every column: a soft weight, not a rule)."""
    def uneven(seed, balance):
        rng = np.random.default_rng(seed)
        n = int(rng.integers(5, 40))
        points, weights = rng.random((n, 3)), rng.integers(1, 500, n).astype(float)
        saved = _groups._BALANCE
        _groups._BALANCE = balance
        try:
            levels = _groups.group_levels(points, weights, factor=2)
        finally:
            _groups._BALANCE = saved
        return np.mean([max(_sizes(g)) / min(_sizes(g)) for g in levels])

    weighed = np.mean([uneven(seed, _groups._BALANCE) for seed in range(200)])
    plain = np.mean([uneven(seed, 0.0) for seed in range(200)])
    assert _groups._BALANCE > 0 and weighed < 0.9 * plain, (weighed, plain)
