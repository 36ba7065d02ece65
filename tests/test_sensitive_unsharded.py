"""Issue 40 item 2: l-diversity and t-closeness are never refused for the table's size."""

import pytest

import kanon_graph as kg
from kanon_graph.scale import shard_rule


def _census(n):
    return kg.datasets.make_census(n, seed=1), kg.datasets.census_schema()


def test_t_closeness_is_not_sharded_when_no_shard_size_is_given(monkeypatch):
    """On main a local algorithm on more records than the default shard size refused t
    ("a shard does not see the whole table"); shards come only from the caller now.
    (mst's measured whole-table limit set below 900 rows, so that k and l would shard.)"""
    monkeypatch.setattr(shard_rule, "DEFAULT_SHARD_SIZE", 300)
    measured = shard_rule.SHARD_EVIDENCE["mst"]
    monkeypatch.setitem(shard_rule.SHARD_EVIDENCE, "mst",
                        shard_rule.ShardEvidence(measured.costs, whole_limit=600))
    table, schema = _census(900)
    res = kg.anonymize(table, schema, k=5, t=0.3, algorithm="mst")
    assert res.verification.holds and "shards" not in res.stats
    res = kg.anonymize(table, schema, k=5, l=2, algorithm="mst")      # l shards as before
    assert res.verification.holds and res.stats["shards"] > 1


def test_a_shard_size_the_caller_gives_still_refuses_t_clearly():
    table, schema = _census(900)
    with pytest.raises(ValueError, match="shard_size of at least"):
        kg.anonymize(table, schema, k=5, t=0.3, algorithm="mst", shard_size=300)


def test_stepwise_never_runs_in_shards():
    assert kg.registry.get_algorithm("stepwise").shards is False
    table, schema = _census(900)
    for options in (dict(t=0.3), dict(l=2), {}):
        res = kg.anonymize(table, schema, k=5, algorithm="stepwise", shard_size=300,
                           **options)
        assert res.verification.holds and "shards" not in res.stats


def test_the_default_takes_t_closeness_without_options(monkeypatch):
    monkeypatch.setattr(shard_rule, "DEFAULT_SHARD_SIZE", 300)
    table, schema = _census(900)
    res = kg.anonymize(table, schema, k=5, t=0.2)
    assert res.verification.holds and res.suppressed == 0


@pytest.mark.slow
def test_sixty_thousand_rows_with_t_closeness_and_no_options():
    table, schema = _census(60_000)
    res = kg.anonymize(table, schema, k=10, t=0.2)
    assert res.verification.holds and res.verification.t_achieved <= 0.2
    assert res.suppressed == 0
