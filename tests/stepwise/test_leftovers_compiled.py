"""stepwise's leftovers under k and distinct l placed in one compiled pass (issue 47 item 2)."""

import numpy as np
import pytest

import kanon_graph as kg
from kanon_graph import _jit
from kanon_graph.stepwise import _leftovers


def test_compiled_leftover_placement_is_the_python_one(monkeypatch):
    """The compiled pass gives the classes of its Python source."""
    rng = np.random.default_rng(0)
    d, n_classes, leaves = 3, 40, 12
    anc = np.stack([np.stack([np.arange(leaves), np.arange(leaves) // 3,
                              np.arange(leaves) // 6, np.zeros(leaves, dtype=np.int64)])] * d)
    per = rng.random((d, 4, n_classes)).cumsum(axis=1)
    ref = rng.integers(0, leaves, (n_classes, d))
    level = rng.integers(0, 2, (n_classes, d))
    old = np.stack([per[j, level[:, j], np.arange(n_classes)] for j in range(d)], axis=1)
    sizes = rng.integers(5, 20, n_classes)
    units = rng.integers(0, leaves, (60, d))
    m = rng.integers(1, 4, 60)
    lca = np.stack([_leftovers._pair_levels(a) for a in anc])
    args = (units, m, level, ref, sizes, old, per, anc, lca, True)
    python = _leftovers._place_units.py_func(*_copies(args))
    monkeypatch.setattr(_jit, "PYTHON_WORK", 0)                  # compile it
    compiled = _leftovers._place_units(*_copies(args))
    assert python.tolist() == compiled.tolist() and len(set(python.tolist())) > 1


def test_stepwise_with_compiled_leftovers_still_verifies():
    table = kg.datasets.make_census(3000, seed=2)
    for options in (dict(k=50), dict(k=10, l=2)):     # both leave records to place
        res = kg.anonymize(table, kg.datasets.census_schema(), algorithm="stepwise", **options)
        assert res.verification.holds and res.stats["placed"] > 0


def _copies(args):
    return [a.copy() if isinstance(a, np.ndarray) else a for a in args]


def _reference(units, m, level, ref, sizes, old, per, anc):
    """Each unit joins the class of least added loss, every class summed in full (ancestors
    walked, no class skipped): the rule the kernel's shortcuts must not change."""
    level, sizes, old = level.copy(), sizes.copy(), old.copy()
    d = units.shape[1]
    chosen = []
    for u in range(len(units)):
        best, best_extra = 0, np.inf
        for c in range(len(level)):
            extra = 0.0
            for j in range(d):
                lv = level[c, j]
                while anc[j, lv, ref[c, j]] != anc[j, lv, units[u, j]]:
                    lv += 1
                extra += (sizes[c] + m[u]) * per[j, lv, c] - sizes[c] * old[c, j]
            if extra < best_extra or (extra == best_extra and c < best):
                best, best_extra = c, extra
        for j in range(d):
            lv = level[best, j]
            while anc[j, lv, ref[best, j]] != anc[j, lv, units[u, j]]:
                lv += 1
            level[best, j], old[best, j] = lv, per[j, lv, best]
        sizes[best] += m[u]
        chosen.append(best)
    return chosen


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("tabulated", [True, False])
def test_placement_with_pair_levels_and_partial_sums_is_the_full_rule(seed, tabulated):
    """Pair levels read from a table and classes left once their partial sum is beaten
    choose what the full rule chooses, class by class and unit by unit."""
    rng = np.random.default_rng(seed)
    d, n_classes, leaves = 4, 30, 16
    anc = np.stack([np.stack([np.arange(leaves), np.arange(leaves) // 2, np.arange(leaves) // 4,
                              np.arange(leaves) // 8, np.zeros(leaves, dtype=np.int64)])] * d)
    per = np.round(rng.random((d, 5, n_classes)), 1).cumsum(axis=1)    # ties on purpose
    per[:, 0] = 0.0
    ref = rng.integers(0, leaves, (n_classes, d))
    level = rng.integers(0, 3, (n_classes, d))
    old = np.stack([per[j, level[:, j], np.arange(n_classes)] for j in range(d)], axis=1)
    sizes = rng.integers(5, 20, n_classes)
    units = rng.integers(0, leaves, (80, d))
    m = rng.integers(1, 4, 80)
    lca = np.stack([_leftovers._pair_levels(a) for a in anc]) if tabulated \
        else np.zeros((0, 0, 0), dtype=np.int64)
    got = _leftovers._place_units.py_func(units, m, level.copy(), ref, sizes.copy(), old.copy(),
                                          per, anc, lca, True)
    assert got.tolist() == _reference(units, m, level, ref, sizes, old, per, anc)
