"""A suppression budget never makes the up-front check refuse more (issue 31, item 9).

The check used to remove as many records as the budget allowed before
measuring entropy / recursive l, so ``suppression=1.0`` refused what
``suppression=0.0`` releases.
"""

import itertools

import numpy as np
import pandas as pd
import pytest

import kanon_graph as kg
from kanon_graph.privacy import PrivacyModel
from kanon_graph.privacy import _measures as m
from kanon_graph.privacy.reachability import best_clip

H = kg.Hierarchy([["a", "*"]], name="q")
SCHEMA = kg.Schema(quasi_identifiers=["q"], sensitive=["s"], hierarchies={"q": H})
EVEN = pd.DataFrame({"q": ["a"] * 20, "s": ["x"] * 10 + ["y"] * 10})     # entropy l 2


@pytest.mark.parametrize("suppression", [0.0, 0.5, 1.0])
@pytest.mark.parametrize("criterion", [dict(l=1.9, diversity="entropy"),
                                       dict(l=2, diversity="recursive", c=2)])
def test_one_even_class_is_released_whatever_the_budget(suppression, criterion):
    res = kg.anonymize(EVEN, SCHEMA, k=3, algorithm="optimal", suppression=suppression,
                       **criterion)
    assert res.verification.holds and res.suppressed == 0


def test_a_budget_still_helps_where_removal_evens_the_class():
    # x*8, y, z: entropy l 1.89 as a whole; without 7 x's every value once, l 3
    table = pd.DataFrame({"q": ["a"] * 10, "s": ["x"] * 8 + ["y", "z"]})
    with pytest.raises(ValueError, match=r"entropy l=2.5 cannot be reached.*whole table"):
        kg.anonymize(table, SCHEMA, k=2, l=2.5, diversity="entropy", algorithm="optimal",
                     suppression=0.0)
    with pytest.raises(ValueError, match=r"entropy l=2.5 cannot be reached.*best one class"):
        kg.anonymize(table, SCHEMA, k=2, l=2.5, diversity="entropy", algorithm="optimal",
                     suppression=0.3)      # 3 removals leave x*5, y, z: l 2.1


def _diversity(kept, model):
    """Entropy l, or whether recursive (c, l) holds, of one class with ``kept`` per value."""
    labels, values = np.zeros(len(kept), dtype=np.int64), np.arange(len(kept))
    if model.diversity == "entropy":
        return float(m.entropy_l(labels, values, 1, kept)[0])
    return bool(m.recursive_cl_holds(labels, values, model.c, model.l, 1, kept)[0])


def _brute_best(counts, drop, model):
    """The best of every sub-multiset that removes at most ``drop`` records (none's last)."""
    best = None
    for removal in itertools.product(*[range(c) for c in counts]):
        if sum(removal) <= drop:
            score = _diversity(np.asarray(counts) - np.asarray(removal), model)
            best = score if best is None else max(best, score)
    return best


@pytest.mark.parametrize("model", [PrivacyModel(2, l=2, diversity="entropy"),
                                   PrivacyModel(2, l=2, diversity="recursive", c=1.5),
                                   PrivacyModel(2, l=3, diversity="recursive", c=1.0),
                                   PrivacyModel(2, l=3, diversity="recursive", c=3.0)])
def test_the_chosen_class_is_the_most_diverse_the_budget_allows(model):
    rng = np.random.default_rng(11)
    for _ in range(80):
        counts = rng.integers(1, 7, int(rng.integers(2, 5)))
        drop = int(rng.integers(0, counts.sum() - len(counts) + 1))
        kept = best_clip(counts, drop, model)
        assert (kept >= 1).all() and (kept <= counts).all()
        assert counts.sum() - kept.sum() <= drop
        assert _diversity(kept, model) == pytest.approx(_brute_best(counts, drop, model))
