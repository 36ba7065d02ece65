"""Step 2's classes without a large child are left out at once (issue 47, patients 20k).

:func:`~kanon_graph.stepwise._split._may_cut` says which classes have, on some
attribute, a child of their common ancestor holding ``k`` records; :func:`_cuts` finds
no cut in any other class. On random tables and partitions, weighted or not, under k
alone and under l: split_classes gives the same labels and cut count with the filter as
without it, and each class the filter leaves out is one ``_cuts`` finds nothing in.
"""

import numpy as np
import pandas as pd
import pytest

import kanon_graph as kg
from kanon_graph.pipeline.tuples import for_algorithm
from kanon_graph.privacy import ClassCheck, PrivacyModel
from kanon_graph.stepwise import _split


def _data(n, seed, weighted):
    table = kg.datasets.make_census(n, seed=seed)
    schema = kg.datasets.census_schema()
    qis = ["sex", "age", "race", "marital-status", "education"][: 2 + seed % 4]
    schema = kg.Schema(quasi_identifiers=qis, sensitive=["occupation"],
                       hierarchies={q: schema.hierarchies[q] for q in qis})
    data = kg.encode(table, schema)
    if weighted:
        data = for_algorithm(data, True, "stepwise", sensitive=True)[0]
    return data


def _unfiltered(monkeypatch):
    monkeypatch.setattr(_split, "_may_cut", lambda codes, weights, maps, starts, k:
                        np.ones(len(starts), dtype=bool))


@pytest.mark.parametrize("seed", range(24))
def test_split_classes_is_the_same_with_the_filter(seed, monkeypatch):
    rng = np.random.default_rng(seed)
    data = _data(int(rng.integers(200, 1500)), seed, weighted=seed % 2 == 1)
    k = int(rng.integers(2, 25))
    # classes of rows sorted by their codes (close tuples), random ones, and left-out rows
    codes = np.column_stack([a.codes for a in data.attributes])
    if seed % 3 == 0:
        class_of = rng.integers(0, max(1, data.n // int(rng.integers(5, 60))), data.n)
    else:
        rank = np.lexsort(codes.T[::-1])
        class_of = np.empty(data.n, dtype=np.int64)
        class_of[rank] = np.arange(data.n) // int(rng.integers(5, 200))
    class_of = class_of.astype(np.int64)
    class_of[rng.random(data.n) < 0.05] = -1
    check = None
    if seed % 4 == 3:
        model = PrivacyModel(k=k, l=2, sensitive="occupation").bind(data)
        check = ClassCheck(model, data)
    fast = _split.split_classes(data, class_of, k, check)
    # every class left out is one _cuts finds nothing in
    maps = [a.hierarchy.level_map for a in data.attributes]
    weights = np.ones(data.n, np.int64) if data.weights is None else data.weights
    order = np.argsort(class_of, kind="stable")
    bounds = np.flatnonzero(np.diff(class_of[order])) + 1
    may = _split._may_cut(codes[order], weights[order], maps,
                          np.concatenate([[0], bounds]).astype(np.int64), k)
    costs = kg.lattice.node_metrics.LossMetric(data, 0).cells
    mine = _split.cell_losses(data)            # step 2's own copy of the same cells
    assert all(np.array_equal(a, b) for x, y in zip(costs, mine) for a, b in zip(x, y))
    for rows, kept in zip(np.split(order, bounds), may.tolist()):
        if not kept:
            assert _split._cuts(codes[rows], weights[rows], maps, costs, k) == []
    with monkeypatch.context() as mp:
        _unfiltered(mp)
        slow = _split.split_classes(data, class_of, k, check)
    assert np.array_equal(fast[0], slow[0]) and fast[1] == slow[1]


def test_a_class_without_a_large_child_is_not_searched_for_cuts(monkeypatch):
    """On main every class of 2k records went through _cuts."""
    zips = [f"{d}{x}" for d in range(10) for x in range(3)]          # 10 children of 3 leaves
    hierarchy = kg.Hierarchy([[z, z[0] + "*", "*"] for z in zips], name="zip")
    table = pd.DataFrame({"zip": [zips[i % 30] for i in range(120)], "s": "a"})
    data = kg.encode(table, kg.Schema(quasi_identifiers=["zip"], sensitive=["s"],
                                      hierarchies={"zip": hierarchy}))
    k = 20                             # each child holds 12 records, the class 120
    class_of = np.zeros(data.n, dtype=np.int64)
    seen = []
    real = _split._cuts
    monkeypatch.setattr(_split, "_cuts", lambda *a: seen.append(1) or real(*a))
    labels, cuts = _split.split_classes(data, class_of, k)
    assert seen == [] and cuts == 0 and (labels == 0).all()
    labels, cuts = _split.split_classes(data, class_of, 12)       # a child holds 12: cut
    assert len(seen) >= 1 and cuts == 1 and len(np.unique(labels)) == 10
