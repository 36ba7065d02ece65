"""Sharded local recoding: median cuts into shards, the local algorithm inside each."""

import numpy as np
import pandas as pd
import pytest

import kanon_graph as kg
from kanon_graph.privacy import PrivacyModel
from kanon_graph.scale.sharding import run_sharded, shard_records

LOCAL = ["mst", "sd", "k-member", "bottom-up", "mondrian"]


@pytest.fixture(scope="module")
def census():
    return kg.datasets.make_census(3000, seed=7), kg.datasets.census_schema()


def _shard_of(shards, n):
    out = np.full(n, -1)
    for i, rows in enumerate(shards):
        assert (out[rows] == -1).all()          # no record in two shards
        out[rows] = i
    return out


def test_shards_cover_every_record_once_within_bounds(census):
    data = kg.encode(*census)
    shards = shard_records(data, PrivacyModel(5), shard_size=400)
    shard_of = _shard_of(shards, data.n)
    assert (shard_of >= 0).all() and len(shards) >= 3000 // 400
    assert all(5 <= len(rows) <= 400 for rows in shards)


def test_cuts_keep_every_shard_l_diverse(census):
    data = kg.encode(*census)
    model = PrivacyModel(5, l=2).bind(data)
    shards = shard_records(data, model, shard_size=300)
    assert len(shards) > 1
    values = data.sensitive["salary-class"]
    assert all(len(np.unique(values[rows])) >= 2 for rows in shards)


def test_no_allowed_cut_keeps_one_shard():
    table = pd.DataFrame({"a": ["x"] * 40, "b": ["y"] * 40})
    data = kg.encode(table, kg.Schema(quasi_identifiers=["a", "b"]))
    assert len(shard_records(data, PrivacyModel(2), shard_size=10)) == 1


@pytest.mark.parametrize("algorithm", LOCAL)
def test_sharded_release_is_k_anonymous_and_complete(census, algorithm):
    table, schema = census
    res = kg.anonymize(table, schema, k=5, algorithm=algorithm, shard_size=700, seed=3)
    assert res.stats["shards"] >= 5 and res.stats["largest_shard"] <= 700
    assert res.verification.k_achieved >= 5
    assert len(res.table) == len(table) and res.suppressed == 0
    covered = np.sort(np.concatenate(res.classes))
    assert (covered == np.arange(len(table))).all()
    # the partition's classes never cross shards (the release may then merge
    # classes of different shards whose released tuples coincide)
    data = kg.encode(table, schema)
    shard_of = _shard_of(shard_records(data, PrivacyModel(5), 700), data.n)
    part = run_sharded(kg.registry.get_algorithm(algorithm).function, data, PrivacyModel(5),
                       rng=np.random.default_rng(3), shard_size=700)
    assert (part.class_of >= 0).all()
    pairs = np.unique(np.column_stack([part.class_of, shard_of]), axis=0)
    assert len(pairs) == len(np.unique(part.class_of))
    # the released values are recomputed into classes of at least k
    qi = list(schema.quasi_identifiers)
    assert res.table[qi].astype(str).value_counts().min() >= 5


@pytest.mark.parametrize("algorithm", ["mst", "sd"])
def test_one_shard_equals_the_unsharded_algorithm(census, algorithm):
    table, schema = census
    small = table.iloc[:800]
    plain = kg.anonymize(small, schema, k=4, algorithm=algorithm, seed=1)
    fits = kg.anonymize(small, schema, k=4, algorithm=algorithm, seed=1, shard_size=800)
    pd.testing.assert_frame_equal(plain.table, fits.table)
    # larger than the shard size, but no cut leaves k on both sides: one shard
    cramped = kg.anonymize(small, schema, k=401, algorithm=algorithm, seed=1, shard_size=500)
    whole = kg.anonymize(small, schema, k=401, algorithm=algorithm, seed=1)
    assert cramped.stats["shards"] == 1
    pd.testing.assert_frame_equal(cramped.table, whole.table)


def test_shards_as_dask_tasks_equal_in_process(census, dask_client):
    table, schema = census
    progress = []
    local = kg.anonymize(table, schema, k=5, algorithm="sd", shard_size=700, seed=2)
    remote = kg.anonymize(table, schema, k=5, algorithm="sd", shard_size=700, seed=2,
                          scheduler=dask_client,
                          progress=lambda done, total, text: progress.append((done, total)))
    assert remote.stats["scheduler"] == "dask" and local.stats["scheduler"] == "in-process"
    pd.testing.assert_frame_equal(local.table, remote.table)
    assert progress[-1] == (remote.stats["shards"], remote.stats["shards"])
    assert [d for d, _ in progress] == list(range(1, remote.stats["shards"] + 1))


def test_t_closeness_is_not_sharded(census):
    table, schema = census
    with pytest.raises(ValueError, match="t-closeness.*shard_size"):
        kg.anonymize(table, schema, k=5, t=0.5, algorithm="mondrian", shard_size=700)
    data = kg.encode(table, schema)
    info = kg.registry.get_algorithm("mst")
    with pytest.raises(ValueError, match="t-closeness"):
        run_sharded(info.function, data, PrivacyModel(5, t=0.5).bind(data),
                    rng=np.random.default_rng(0), shard_size=700)


def test_shard_size_is_validated(census):
    table, schema = census
    with pytest.raises(ValueError, match="'shard_size' parameter of anonymize"):
        kg.anonymize(table, schema, k=5, algorithm="mst", shard_size=0)
