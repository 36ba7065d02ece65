"""l and t are counted again on the released cells, as k is (issue 31, item 10).

The algorithm's classes may hold l and t while the table the user receives
groups its records otherwise; the final check groups the released records
by their quasi-identifier cells and measures k, l and t on those groups.
A forged released table (its cells split a class) must be refused.
"""

import numpy as np
import pandas as pd
import pytest

import kanon_graph as kg
from kanon_graph.exceptions import PrivacyError
from kanon_graph.privacy._check import released_classes
from kanon_graph.recoding._release import Release

H = kg.Hierarchy([["a", "*"], ["b", "*"]], name="q")
SCHEMA = kg.Schema(quasi_identifiers=["q"], sensitive=["s"], hierarchies={"q": H})
# level 0 holds: classes a and b, each x, x, y, y (l 2, t 0); the forgeries below split
# them into groups of 2 and 4, so k=2 still holds on the cells and only l or t can fail
TABLE = pd.DataFrame({"q": list("aaaabbbb"), "s": list("xxyyxxyy")})


def _split_by_value(monkeypatch, value):
    """Release the records holding sensitive ``value`` under a cell text of their own."""
    original = Release.table

    def forged(self):
        frame = original(self)
        rows = np.flatnonzero(np.asarray(frame["s"]) == value)
        frame["q"] = frame["q"].astype("str")
        frame.loc[frame.index[rows], "q"] = "forged"
        return frame

    monkeypatch.setattr(Release, "table", forged)


def test_released_classes_group_by_text():
    t = pd.DataFrame({"q": pd.Categorical(["x", "y", "x", "*"]), "r": ["1", "1", "1", "*"]})
    got = released_classes(t, ["q", "r"], np.array([True, True, True, False]))
    assert got.tolist() == [0, 1, 0, -1]


def test_the_honest_release_passes():
    res = kg.anonymize(TABLE, SCHEMA, k=2, l=2, t=0.0, algorithm="optimal")
    assert res.levels == {"q": 0} and res.verification.holds


def test_released_cells_that_break_l_are_refused(monkeypatch):
    # the forged cells make two groups of 4: every x, every y (each l 1, each size >= k)
    _split_by_value(monkeypatch, "y")
    with pytest.raises(PrivacyError, match=r"counted on its released cells: FAILS: k=2 "
                                           r"\(smallest class 2\), distinct l=2 \(achieved 1\)"):
        kg.anonymize(TABLE, SCHEMA, k=2, l=2, algorithm="optimal")


@pytest.mark.parametrize("diversity", ["entropy", "recursive"])
def test_every_kind_of_l_is_recounted(monkeypatch, diversity):
    _split_by_value(monkeypatch, "y")
    with pytest.raises(PrivacyError, match="counted on its released cells"):
        kg.anonymize(TABLE, SCHEMA, k=2, l=1.5, diversity=diversity, c=2, algorithm="optimal")


def test_released_cells_that_break_t_are_refused(monkeypatch):
    _split_by_value(monkeypatch, "y")
    with pytest.raises(PrivacyError, match=r"counted on its released cells: .*t=0.2 "
                                           r"\(equal distance, largest EMD 0.5000\)"):
        kg.anonymize(TABLE, SCHEMA, k=2, t=0.2, algorithm="optimal")


def test_weighted_tuples_are_recounted_too(monkeypatch):
    # datafly runs on the counted tuples; the release is spread back to the rows
    _split_by_value(monkeypatch, "x")
    with pytest.raises(PrivacyError, match="counted on its released cells"):
        kg.anonymize(TABLE, SCHEMA, k=2, l=2, algorithm="datafly")
