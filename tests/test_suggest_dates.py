"""Issue 48: ``suggest`` drafts a date column as month / quarter / year / 5 years / decade."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd

import kanon_graph as kg


def _born(n: int = 600, seed: int = 3) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    days = rng.integers(0, 60 * 365, size=n)
    born = pd.Timestamp("1931-01-01") + pd.to_timedelta(days, unit="D")
    return pd.DataFrame({"born": born.strftime("%Y-%m-%d"),
                         "sex": rng.choice(["F", "M"], size=n)})


def _month(label: str) -> tuple[int, int]:
    year, month = re.fullmatch(r"(\d{4})-(\d{2})", label).groups()
    assert 1 <= int(month) <= 12, label
    return int(year), int(month)


def _quarter(label: str) -> tuple[int, int]:
    year, quarter = re.fullmatch(r"(\d{4})-Q([1-4])", label).groups()
    return int(year), int(quarter)


def _band(label: str, width: int) -> tuple[int, int]:
    start, end = (int(x) for x in re.fullmatch(r"\[(\d{4})-(\d{4})\]", label).groups())
    assert end - start == width - 1 and start % width == 0, label
    return start, end


def test_a_drafted_date_has_quarter_and_five_year_levels_that_nest():
    table = _born()
    hierarchy, note = kg.hierarchy.suggest(table, kg.Schema(quasi_identifiers=["born", "sex"]),
                                           columns=["born"])["born"]
    assert note == "date: month, quarter, year, 5 years, decade"
    assert hierarchy.height == 6
    quarters_of_month: dict[str, set[str]] = {}
    bands_of_year: dict[str, set[str]] = {}
    for value in table["born"].unique():
        leaf, month, quarter, year, five, decade, root = hierarchy.ancestors(value)
        assert leaf == value and root == "*"
        when = pd.Timestamp(value)
        assert _month(month) == (when.year, when.month)
        assert _quarter(quarter) == (when.year, (when.month - 1) // 3 + 1)
        assert int(year) == when.year
        five_start, five_end = _band(five, 5)
        ten_start, ten_end = _band(decade, 10)
        assert five_start <= when.year <= five_end
        assert ten_start <= five_start and five_end <= ten_end
        quarters_of_month.setdefault(month, set()).add(quarter)
        bands_of_year.setdefault(year, set()).add(five)
    assert all(len(q) == 1 for q in quarters_of_month.values())
    assert all(len(b) == 1 for b in bands_of_year.values())
    assert len(set().union(*quarters_of_month.values())) < len(quarters_of_month)
    assert len(set().union(*bands_of_year.values())) < len(bands_of_year)


def test_the_drafted_date_levels_release_checked():
    table = _born()
    schema = kg.Schema(quasi_identifiers=["born", "sex"])
    drafted = {c: h for c, (h, _) in kg.hierarchy.suggest(table, schema).items()}
    res = kg.anonymize(table, kg.Schema(quasi_identifiers=["born", "sex"], hierarchies=drafted),
                       k=5, seed=0)
    assert res.verification.holds
    assert res.table.groupby(["born", "sex"]).size().min() >= 5
