"""stepwise's leftovers under k and distinct l placed in one compiled pass (issue 47 item 2)."""

import numpy as np

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
    args = (units, m, level, ref, sizes, old, per, anc)
    python = _leftovers._place_units.py_func(*[a.copy() for a in args])
    monkeypatch.setattr(_jit, "PYTHON_WORK", 0)                  # compile it
    compiled = _leftovers._place_units(*[a.copy() for a in args])
    assert python.tolist() == compiled.tolist() and len(set(python.tolist())) > 1


def test_stepwise_with_compiled_leftovers_still_verifies():
    table = kg.datasets.make_census(3000, seed=2)
    for options in (dict(k=50), dict(k=10, l=2)):     # both leave records to place
        res = kg.anonymize(table, kg.datasets.census_schema(), algorithm="stepwise", **options)
        assert res.verification.holds and res.stats["placed"] > 0
