"""Issue 48 item 4: ``auto`` without hierarchies weighs flat against suggest's drafts and
says why in ``res.stats["auto"]``."""

import sys
from pathlib import Path

import numpy as np

import kanon_graph as kg

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
from suggest_vs_builder import data_loss, span_loss  # noqa: E402

QIS = ["age", "sex", "race", "education", "occupation"]


def test_auto_without_hierarchies_says_flat_beat_the_drafts_and_it_does_here():
    census = kg.datasets.make_census(1500, seed=4)
    free = kg.Schema(quasi_identifiers=QIS, sensitive=["salary"] if "salary" in census
                     else [])
    res = kg.anonymize(census, free, k=5, seed=0)
    assert res.algorithm == "flat" and res.verification.holds
    assert "suggest's drafted hierarchies" in res.stats["auto"]["reason"]
    made = kg.hierarchy.suggest(census, free)
    drafted = kg.Schema(quasi_identifiers=QIS, hierarchies={c: h for c, (h, _) in made.items()})
    other = kg.anonymize(census, drafted, k=5, seed=0)
    for yardstick in (data_loss, span_loss):
        mine = np.mean(list(yardstick(census, res.table, QIS, res.suppressed_mask).values()))
        theirs = np.mean(list(yardstick(census, other.table, QIS,
                                        other.suppressed_mask).values()))
        assert mine < theirs, (yardstick.__name__, mine, theirs)
