"""Local algorithms within boundaries suppress a failing cell even when it is the only
one (issue 31, item 8).

mst suppressed only with two or more MAGVal cells, mondrian and sd only when
some mark existed: with one cell that fails the model as a whole, and a
budget that allows its suppression, they released it unsuppressed and the
final check raised PrivacyError.
"""

import pandas as pd
import pytest

import kanon_graph as kg

ROWS = [["a1", "A", "*"], ["a2", "A", "*"], ["b1", "B", "*"]]
# x*8, y, z: entropy l 1.89 as one class; no class of these records reaches 2.3
TABLE = pd.DataFrame({"q": ["a1", "a2"] * 5, "s": ["x"] * 8 + ["y", "z"]})
LOCAL = ["mst", "mondrian", "sd"]


def _schema(mark):
    hierarchy = kg.Hierarchy(ROWS, name="q")
    if mark:                     # every value under A: one cell, with a mark
        hierarchy.mark_magval("A")
    return kg.Schema(quasi_identifiers=["q"], sensitive=["s"], hierarchies={"q": hierarchy})


@pytest.mark.parametrize("mark", [True, False])
@pytest.mark.parametrize("algorithm", LOCAL)
def test_the_only_cell_is_suppressed_when_it_fails_as_a_whole(algorithm, mark):
    res = kg.anonymize(TABLE, _schema(mark), k=2, l=2.3, diversity="entropy",
                       algorithm=algorithm, suppression=1.0, respect_boundaries=True)
    assert res.verification.holds
    assert res.suppressed == len(TABLE) and res.classes == []
    assert (res.table["q"].astype(str) == "*").all()


@pytest.mark.parametrize("algorithm", LOCAL)
def test_without_the_budget_the_cell_is_refused_in_one_line(algorithm):
    with pytest.raises(ValueError, match=r"with respect_boundaries, 10 record\(s\) in 1 MAGVal "
                                         r"cell\(s\) cannot form a class"):
        kg.anonymize(TABLE, _schema(True), k=2, l=2.3, diversity="entropy",
                     algorithm=algorithm, suppression=0.5, respect_boundaries=True)


@pytest.mark.parametrize("mark", [True, False])
@pytest.mark.parametrize("algorithm", LOCAL)
def test_a_passing_single_cell_releases_as_without_boundaries(algorithm, mark):
    free = kg.anonymize(TABLE, _schema(mark), k=2, l=1.5, diversity="entropy",
                        algorithm=algorithm, suppression=1.0)
    bounded = kg.anonymize(TABLE, _schema(mark), k=2, l=1.5, diversity="entropy",
                           algorithm=algorithm, suppression=1.0, respect_boundaries=True)
    assert bounded.suppressed == 0
    if not mark:                 # no mark: exactly the unconstrained release
        assert bounded.table.equals(free.table)
