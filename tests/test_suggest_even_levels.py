"""Issue 48 item 2 (the data yardstick's misses): suggest's levels step evenly.

Bands from a finest width of 1 or 2 double (2 -> 4 -> 8) rather than jump
five-fold to 10 (FARS's day and month of death, decided on the tuning tables).
"""

import numpy as np
import pandas as pd
import pytest

import kanon_graph as kg


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
