"""``missing="keep"`` keeps the hierarchy's MAGVal marks (issue 31, item 7).

The missing leaf is added to a copy of the hierarchy; that copy must carry
every mark, or the algorithms search without boundaries and the final check
refuses what ``missing="drop"`` releases.
"""

import numpy as np
import pandas as pd
import pytest

import kanon_graph as kg
from kanon_graph.encoding import MISSING

ROWS = [["a1", "A", "*"], ["a2", "A", "*"], ["b1", "B", "*"], ["b2", "B", "*"]]
# 3 of each value and 3 missing cells: at k=6 the a's stop at their MAGVal A, the b's and
# the missing cells (whose MAGVal is the root) go to '*'
TABLE = pd.DataFrame({"q": ["a1", "a2", "b1", "b2"] * 3 + [None] * 3})


def _schema():
    hierarchy = kg.Hierarchy(ROWS, name="q").mark_magval("A")
    return kg.Schema(quasi_identifiers=["q"], hierarchies={"q": hierarchy})


def test_the_missing_leaf_keeps_every_mark():
    data = kg.encode(TABLE, _schema(), missing="keep")
    h = data.attributes[0].hierarchy
    assert MISSING in h.leaf_labels
    assert h.is_magval("A") and not h.is_magval("B")
    assert h.magval("a1") == "A" and h.magval(MISSING) == "*"
    assert data.attributes[0].hierarchy.has_magvals


@pytest.mark.parametrize("algorithm", ["optimal", "incognito", "boundaries", "mst",
                                       "mondrian", "datafly"])
def test_keep_releases_within_the_boundaries(algorithm):
    drop = kg.anonymize(TABLE, _schema(), k=6, algorithm=algorithm, missing="drop",
                        respect_boundaries=True)
    keep = kg.anonymize(TABLE, _schema(), k=6, algorithm=algorithm, missing="keep",
                        respect_boundaries=True)
    assert drop.dropped == 3 and keep.stats["missing_kept"] == {"q": 3}
    assert kg.constraint_violations(keep) == []
    released = keep.table["q"].astype(str).to_numpy()
    a_rows = TABLE["q"].isin(["a1", "a2"]).to_numpy()
    assert set(released[a_rows]) <= {"a1", "a2", "A"}       # never above A
    assert keep.verification.holds and keep.suppressed + keep.verification.released == 15


def test_marks_on_the_root_side_survive_too():
    # mark B as well: both subtrees are bounded; the missing cells can only be suppressed
    hierarchy = kg.Hierarchy(ROWS, name="q").mark_magval("A").mark_magval("B")
    schema = kg.Schema(quasi_identifiers=["q"], hierarchies={"q": hierarchy})
    res = kg.anonymize(TABLE, schema, k=6, algorithm="optimal", missing="keep",
                       respect_boundaries=True, suppression=0.2)
    assert kg.constraint_violations(res) == []
    assert sorted(np.unique(res.table["q"].astype(str))) == ["*", "A", "B"]
    assert res.suppressed == 3
