"""``flat``, the hierarchy-free default (issue 41, item 3): frequent tuples kept, the rest
by mst, or by mondrian on the whole rest past MST_LIMIT records."""

import numpy as np
import pandas as pd
import pytest

import kanon_graph as kg
from kanon_graph import flat
from kanon_graph.auto import choice as _auto

QIS = ["sex", "age", "race", "education"]


def _table(n=1500, seed=3):
    return kg.datasets.make_census(n, seed=seed)[QIS + ["occupation"]]


def _schema():
    return kg.Schema(quasi_identifiers=QIS, numeric=["age"], categorical=["sex", "race", "education"])


def _rows_of_frequent_tuples(table, k):
    counts = table.groupby(QIS, observed=True)[QIS[0]].transform("size")
    return np.flatnonzero(counts.to_numpy() >= k)


@pytest.fixture
def large(monkeypatch):
    """Every table counts as large (frequent tuples kept), as a million rows would."""
    monkeypatch.setattr(flat, "WHOLE_MST", 100)


def test_a_table_mst_takes_whole_is_mst_s_release():
    table = _table(1200)
    ours = kg.anonymize(table, _schema(), k=5, algorithm="flat")
    assert ours.stats["inner"] == "mst" and ours.stats["frequent"] == 0
    mst = kg.anonymize(table, _schema(), k=5, algorithm="mst")
    pd.testing.assert_frame_equal(ours.table, mst.table)


def test_frequent_tuples_are_released_as_they_are(large):
    table, k = _table(), 5
    res = kg.anonymize(table, _schema(), k=k, algorithm="flat")
    assert res.verification.holds
    frequent = _rows_of_frequent_tuples(table, k)
    assert 0 < len(frequent) < len(table) and res.stats["frequent"] == len(frequent)
    released = res.table.iloc[frequent][QIS].astype(str).to_numpy()
    original = table.iloc[frequent][QIS].astype(str).to_numpy()
    assert (released == original).all()          # no cell of a frequent tuple generalized
    assert res.stats["inner"] == "mst" and res.stats["rare"] == len(table) - len(frequent)


def test_with_l_no_frequent_tuple_is_kept(large):
    """Issue 46 item 12, what flat's docstring says: with l (or t) a frequent tuple is not
    kept as a class (it may hold one sensitive value); the inner algorithm clusters all."""
    table = _table()
    schema = kg.Schema(quasi_identifiers=QIS, numeric=["age"], sensitive=["occupation"],
                       categorical=["sex", "race", "education"])
    res = kg.anonymize(table, schema, k=5, l=2, algorithm="flat")
    assert res.verification.holds and len(_rows_of_frequent_tuples(table, 5)) > 0
    assert res.stats["frequent"] == 0 and res.stats["clustered"] == len(table)


def test_the_rest_is_what_mst_makes_of_it(large):
    """The rare records' release is mst's release of those records alone."""
    table, k = _table(), 5
    res = kg.anonymize(table, _schema(), k=k, algorithm="flat")
    frequent = _rows_of_frequent_tuples(table, k)
    rare = np.setdiff1d(np.arange(len(table)), frequent)
    alone = kg.anonymize(table.iloc[rare], _schema(), k=k, algorithm="mst")
    mine = res.table.iloc[rare][QIS].astype(str).reset_index(drop=True)
    pd.testing.assert_frame_equal(mine, alone.table[QIS].astype(str).reset_index(drop=True))


def test_many_rare_records_go_to_mondrian_on_the_whole_rest(large, monkeypatch):
    table, k = _table(3000), 5
    monkeypatch.setattr(flat, "MST_LIMIT", 100)
    res = kg.anonymize(table, _schema(), k=k, algorithm="flat", shard_size=200)
    assert res.verification.holds and res.stats["inner"] == "mondrian"
    assert "shards" not in res.stats                # one mondrian over the rest, not shards
    rare = np.setdiff1d(np.arange(len(table)), _rows_of_frequent_tuples(table, k))
    alone = kg.anonymize(table.iloc[rare], _schema(), k=k, algorithm="mondrian",
                         shard_size=len(rare))
    mine = res.table.iloc[rare][QIS].astype(str).reset_index(drop=True)
    pd.testing.assert_frame_equal(mine, alone.table[QIS].astype(str).reset_index(drop=True))


def test_fewer_rare_records_than_k_cluster_with_the_whole_table(large):
    """Nearly every record in a frequent tuple: the few others cluster with everyone."""
    base = pd.DataFrame({"a": ["x"] * 6 + ["y"] * 6, "b": [1] * 6 + [2] * 6})
    table = pd.concat([base] * 10 + [pd.DataFrame({"a": ["z"], "b": [9]})], ignore_index=True)
    schema = kg.Schema(quasi_identifiers=["a", "b"], numeric=["b"], categorical=["a"])
    res = kg.anonymize(table, schema, k=5, algorithm="flat")
    assert res.verification.holds and res.stats["inner"] == "mst"
    assert res.stats["rare"] == 1 and res.stats["clustered"] == len(table) and min(len(c) for c in res.classes) >= 5


def test_a_category_is_released_as_a_set_or_as_itself(large):
    """Without a hierarchy a category is released as the values its class holds."""
    table = _table(1500)
    res = kg.anonymize(table, _schema(), k=5, algorithm="flat")
    assert res.stats["frequent"] > 0
    for cls in res.classes:
        cells = set(res.table.iloc[cls]["race"].astype(str))
        values = set(table.iloc[cls]["race"].astype(str))
        assert len(cells) == 1
        cell = cells.pop()
        assert cell in values if len(values) == 1 else all(v in cell for v in values)


def test_progress_is_reported_up_to_the_whole_table(large):
    seen = []
    table = _table(1200)
    kg.anonymize(table, _schema(), k=5, algorithm="flat",
                 progress=lambda done, total, text: seen.append((done, total, text)))
    assert seen and seen[0][2].startswith("flat") and seen[-1][:2] == (len(table), len(table))


def test_auto_runs_flat_without_hierarchies_and_k_alone():
    table = _table(900)
    res = kg.anonymize(table, _schema(), k=5)
    assert res.algorithm == _auto.FLAT_TAUGHT == "flat" and res.stats["auto"]["tried"] == []
    assert "no quasi-identifier has a hierarchy" in res.stats["auto"]["reason"]
    alone = kg.anonymize(table, _schema(), k=5, algorithm="flat")
    pd.testing.assert_frame_equal(res.table, alone.table)
