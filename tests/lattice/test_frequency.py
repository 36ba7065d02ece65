"""Frequency sets: numpy engine with roll-up, and the SQL engines, against pandas."""

import itertools

import numpy as np
import pandas as pd
import pytest

import kanon_graph as kg
from kanon_graph.lattice import (FrequencyEngine, Lattice, SQLFrequencyEngine, duckdb_available,
                                 optimal_search)
from kanon_graph.privacy import PrivacyModel

BACKENDS = ["sqlite"] + (["duckdb"] if duckdb_available() else [])


def _seeded(seed=0, n=400):
    rng = np.random.default_rng(seed)
    hierarchies, columns = {}, {}
    for j, (leaves, height) in enumerate([(9, 3), (6, 2), (4, 1), (12, 2)]):
        rows = [[f"v{i}"] + [f"g{l}_{i // (2 ** l)}" for l in range(1, height)] + ["*"]
                for i in range(leaves)]
        hierarchies[f"a{j}"] = kg.Hierarchy.from_rows(rows, name=f"a{j}")
        p = rng.dirichlet(np.full(leaves, 0.8))
        columns[f"a{j}"] = [f"v{i}" for i in rng.choice(leaves, size=n, p=p)]
    columns["s"] = rng.choice(["x", "y", "z", "w"], size=n)
    schema = kg.Schema(quasi_identifiers=list(hierarchies), sensitive=["s"],
                       hierarchies=hierarchies, categorical=list(hierarchies))
    return kg.encode(pd.DataFrame(columns), schema)


def _pandas_counts(data, levels):
    """{generalized label tuple: count}, straight from the table with pandas."""
    frame = pd.DataFrame({a.name: [a.hierarchy.generalize(v, l) for v in
                                   data.table[a.name].astype(str)]
                          for a, l in zip(data.attributes, levels)})
    return frame.value_counts().to_dict()


def _as_labels(data, fs):
    return {tuple(a.hierarchy.label(l, int(c)) for a, l, c in
                  zip(data.attributes, fs.levels, row)): int(n)
            for row, n in zip(fs.codes, fs.counts)}


def test_frequency_sets_match_pandas_with_and_without_rollup():
    data = _seeded()
    rolled = FrequencyEngine(data)
    direct = FrequencyEngine(data)
    for levels in Lattice(data.heights).nodes():
        fs = rolled.frequency_set(levels)
        plain = direct.frequency_set(levels, rollup=False)
        assert np.array_equal(fs.codes, plain.codes) and np.array_equal(fs.counts, plain.counts)
        assert fs.counts.sum() == data.n
        if sum(levels) % 5 == 0:     # pandas is slow: check a sample of the nodes
            assert _as_labels(data, fs) == _pandas_counts(data, levels)
    size = Lattice(data.heights).size
    assert rolled.frequency_sets_computed == size == direct.frequency_sets_computed
    assert rolled.rollups == size - 1 and rolled.row_scans == 1
    assert direct.rollups == 0
    # a cache hit computes nothing
    rolled.frequency_set(data.heights)
    assert rolled.frequency_sets_computed == size


def test_group_order_matches_class_labels():
    data = _seeded(1)
    eng = FrequencyEngine(data)
    levels = (1, 1, 0, 1)
    fs = eng.frequency_set(levels)
    class_of, n_classes = eng.class_of(levels)
    assert n_classes == fs.n_groups
    assert np.array_equal(np.bincount(class_of), fs.counts)
    generalized = data.generalized_codes(levels)
    assert np.array_equal(generalized[np.unique(class_of, return_index=True)[1]], fs.codes)


def test_small_cache_still_correct():
    data = _seeded(2)
    small = FrequencyEngine(data, cache_tuples=50)
    ref = FrequencyEngine(data)
    for levels in [(0, 0, 0, 0), (1, 0, 0, 0), (1, 1, 0, 1), (3, 2, 1, 2), (2, 1, 1, 0)]:
        assert np.array_equal(small.frequency_set(levels).counts,
                              ref.frequency_set(levels).counts)
    kept = [small.cached(levels) for levels in small._cache.levels()]
    assert small._cache.tuples == sum(fs.n_groups for fs in kept)
    assert small._cache.tuples <= max(50, max(fs.n_groups for fs in kept))


def test_is_anonymous_with_suppression_and_l_diversity():
    data = _seeded(3)
    eng = FrequencyEngine(data)
    for levels in [(0, 0, 0, 0), (1, 1, 0, 1), (2, 1, 1, 1), (3, 2, 1, 2)]:
        _, class_of = np.unique(data.group_keys(levels), return_inverse=True)
        sizes = np.bincount(class_of.reshape(-1))
        for k in (2, 5, 20):
            small = int(sizes[sizes < k].sum())
            assert eng.is_anonymous(levels, k) == (small == 0)
            assert eng.is_anonymous(levels, PrivacyModel(k), suppression=0.1) == \
                (small <= int(0.1 * data.n))
        model = PrivacyModel(2, l=3).bind(data)
        failing = model.failing(class_of.reshape(-1), data, len(sizes))
        assert eng.is_anonymous(levels, model) == (not failing.any())
    with pytest.raises(ValueError, match="'levels'"):
        eng.frequency_set((0, 0, 0))


@pytest.mark.parametrize("backend", BACKENDS)
def test_sql_engine_equals_numpy_engine(backend):
    data = _seeded(4)
    sql = SQLFrequencyEngine(data, backend=backend)
    eng = FrequencyEngine(data)
    rng = np.random.default_rng(0)
    nodes = list(Lattice(data.heights).nodes())
    for i in rng.choice(len(nodes), size=12, replace=False):
        levels = nodes[i]
        ref = eng.frequency_set(levels)
        got = sql.frequency_set(levels)
        assert np.array_equal(got.codes, ref.codes) and np.array_equal(got.counts, ref.counts)
        assert sql.min_count(levels) == ref.min_count
        for k in (2, 4, 10):
            assert sql.failing_records(levels, k) == ref.failing_records(k)
            assert sql.is_anonymous(levels, k) == eng.is_anonymous(levels, k)
            assert sql.is_anonymous(levels, k, suppression=0.05) == \
                eng.is_anonymous(levels, k, suppression=0.05)
    assert sql.query((0, 1, 1, 2)).startswith("select min(c) from (select count(*) as c from")


@pytest.mark.parametrize("backend", BACKENDS)
def test_sql_engine_on_paper_003_table(backend):
    data = kg.encode(kg.datasets.paper_003_table(), kg.datasets.paper_003_schema())
    sql = SQLFrequencyEngine(data, backend=backend, table="patients")
    eng = FrequencyEngine(data)
    for levels in itertools.product(*[range(h + 1) for h in data.heights]):
        assert sql.min_count(levels) == eng.frequency_set(levels).min_count
        assert np.array_equal(sql.frequency_set(levels).counts, eng.frequency_set(levels).counts)
    # the optimal search finds the same node through either engine
    model = PrivacyModel(3)
    by_sql = optimal_search(data, model, metric="loss", engine=SQLFrequencyEngine(data,
                                                                                backend=backend))
    assert by_sql.levels == optimal_search(data, model, metric="loss").levels
    res = kg.anonymize(kg.datasets.paper_003_table(), kg.datasets.paper_003_schema(), k=3,
                       algorithm="optimal", engine=backend)
    assert tuple(res.levels.values()) == by_sql.levels


def test_sql_engine_refuses_bad_arguments():
    data = kg.encode(kg.datasets.paper_003_table(), kg.datasets.paper_003_schema())
    with pytest.raises(ValueError, match="'backend'"):
        SQLFrequencyEngine(data, backend="oracle")
    with pytest.raises(ValueError, match="'table'"):
        SQLFrequencyEngine(data, table="x; drop table y")
    with pytest.raises(ValueError, match="k-anonymity only"):
        SQLFrequencyEngine(data).is_anonymous((0, 0, 0), PrivacyModel(2, l=2).bind(data))
