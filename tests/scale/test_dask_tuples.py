"""A Dask table's counted tuples: optimal runs on them; one row per record only where needed."""

import pandas as pd
import pytest

import kanon_graph as kg
from kanon_graph.pipeline import run as _pipeline
from kanon_graph.pipeline import tuples as _tuples

dd = pytest.importorskip("dask.dataframe", reason="the optional Dask extra is not installed "
                                                  "(pip install \"kanon_graph[dask]\")")


@pytest.fixture(scope="module")
def census():
    table = kg.datasets.make_census(1000, seed=3)
    return pd.concat([table] * 3, ignore_index=True), kg.datasets.census_schema()


def _encoded_sizes(monkeypatch):
    """Record (rows, records) of every table anonymize encodes."""
    seen = []
    real = _pipeline.encode      # the encode step of the pipeline anonymize runs

    def spy(table, schema, **kwargs):
        data = real(table, schema, **kwargs)
        seen.append((data.n, data.records))
        return data

    monkeypatch.setattr(_pipeline, "encode", spy)
    return seen


def _no_expand(monkeypatch):
    def refuse(tuples):
        raise AssertionError("the tuples were repeated into one row per record")

    monkeypatch.setattr(_tuples, "expand", refuse)


def test_optimal_never_builds_one_row_per_record(census, dask_client, monkeypatch):
    table, schema = census
    plain = kg.anonymize(table, schema, k=5, algorithm="optimal", suppression=0.02)
    seen = _encoded_sizes(monkeypatch)
    _no_expand(monkeypatch)
    res = kg.anonymize(dd.from_pandas(table, npartitions=3), schema, k=5, algorithm="optimal",
                       suppression=0.02, scheduler=dask_client)
    assert seen == [(res.stats["distinct_tuples"], len(table))]
    assert res.stats["distinct_tuples"] <= 1000 < len(table)
    assert res.levels == plain.levels and res.suppressed == plain.suppressed
    assert res.verification == plain.verification
    assert res.metrics["loss"] == pytest.approx(plain.metrics["loss"])
    pd.testing.assert_frame_equal(res.table.compute().astype(str).reset_index(drop=True),
                                  plain.table.astype(str).reset_index(drop=True))


def test_missing_rows_dropped_count_records(census, dask_client, monkeypatch):
    table, schema = census
    holed = table.copy()
    holed.loc[[3, 1003, 2003, 7], "education"] = None       # one tuple thrice, another once
    plain = kg.anonymize(holed, schema, k=4, algorithm="optimal", missing="drop")
    _no_expand(monkeypatch)
    res = kg.anonymize(dd.from_pandas(holed, npartitions=2), schema, k=4, algorithm="optimal",
                       missing="drop", scheduler=dask_client)
    assert res.dropped == plain.dropped == 4
    assert res.levels == plain.levels and res.verification == plain.verification
    assert len(res.table.compute()) == len(table) - 4


@pytest.mark.parametrize("model", [dict(l=2), dict(t=0.2)])
def test_l_and_t_run_on_the_tuples_too(census, dask_client, monkeypatch, model):
    table, schema = census
    plain = kg.anonymize(table, schema, k=4, algorithm="optimal", suppression=0.05, **model)
    seen = _encoded_sizes(monkeypatch)
    _no_expand(monkeypatch)
    res = kg.anonymize(dd.from_pandas(table, npartitions=3), schema, k=4,
                       algorithm="optimal", suppression=0.05, scheduler=dask_client, **model)
    assert seen == [(res.stats["distinct_tuples"], len(table))]
    assert res.levels == plain.levels and res.verification == plain.verification
    pd.testing.assert_frame_equal(res.table.compute().astype(str).reset_index(drop=True),
                                  plain.table.astype(str).reset_index(drop=True))


def test_an_algorithm_without_weights_gets_one_row_per_record(census, dask_client,
                                                               monkeypatch):
    """A plug-in global algorithm that does not declare ``weighted`` is handed one row per
    record (every built-in global algorithm counts by weight now, the RV searches too)."""
    table, schema = census
    plain_fn = kg.registry.get_algorithm("datafly").function
    kg.register_algorithm("rows-only-datafly", plain_fn, recoding="global",
                          needs_hierarchies=True)
    try:
        plain = kg.anonymize(table, schema, k=4, algorithm="rows-only-datafly")
        seen = []
        real = _tuples.expand
        monkeypatch.setattr(_tuples, "expand", lambda t: seen.append(t.records) or real(t))
        res = kg.anonymize(dd.from_pandas(table, npartitions=3), schema, k=4,
                           algorithm="rows-only-datafly", scheduler=dask_client)
    finally:
        kg.registry.unregister_algorithm("rows-only-datafly")
    assert seen == [len(table)]
    assert res.levels == plain.levels and res.verification == plain.verification


@pytest.mark.parametrize("algorithm", ["rv-global", "rv-local", "rv-hybrid", "rv-distributed"])
def test_rv_searches_count_by_weight_on_dask(census, dask_client, monkeypatch, algorithm):
    """The RV searches run on the counted tuples, never one row per record, and release
    what the in-memory call releases."""
    table, schema = census
    options = {"memory_budget": 20_000} if algorithm == "rv-distributed" else {}
    plain = kg.anonymize(table, schema, k=4, algorithm=algorithm, suppression=0.02,
                         weights="correlation", **options)
    seen = _encoded_sizes(monkeypatch)
    _no_expand(monkeypatch)
    res = kg.anonymize(dd.from_pandas(table, npartitions=3), schema, k=4,
                       algorithm=algorithm, suppression=0.02, weights="correlation",
                       scheduler=dask_client, **options)
    assert seen == [(res.stats["distinct_tuples"], len(table))]
    assert res.levels == plain.levels and res.suppressed == plain.suppressed
    assert res.stats["research_value"] == pytest.approx(plain.stats["research_value"],
                                                        abs=1e-9)
    pd.testing.assert_frame_equal(res.table.compute().astype(str).reset_index(drop=True),
                                  plain.table.astype(str).reset_index(drop=True))
