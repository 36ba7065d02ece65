"""kg.evaluate on Dask DataFrames: the same measures as pandas, counted partition by partition."""

import numpy as np
import pandas as pd
import pytest

import kanon_graph as kg
from kanon_graph.exceptions import DataError

dd = pytest.importorskip("dask.dataframe", reason="the optional Dask extra is not installed "
                                                  "(pip install \"kanon_graph[dask]\")")
pytest.importorskip("pyarrow", reason="Parquet files need pyarrow (kanon_graph[dask])")


def _same(ev, pandas_ev):
    """Same as_dict() but for paper001_il, which depends on the order of the records."""
    got, want = ev.as_dict(), pandas_ev.as_dict()
    metrics = [{m: v for m, v in d.pop("metrics").items() if m != "paper001_il"}
               for d in (got, want)]
    assert metrics[0] == pytest.approx(metrics[1])
    assert got.pop("verification").describe() == want.pop("verification").describe()
    assert got == want


@pytest.fixture(scope="module")
def census():
    return kg.datasets.make_census(1500, seed=3), kg.datasets.census_schema()


def _written(tmp_path, table, res, partitions):
    """The original as ``partitions`` Parquet files and the Dask release written beside it."""
    dd.from_pandas(table, npartitions=partitions).to_parquet(tmp_path / "original",
                                                             write_index=False)
    res.table.to_parquet(tmp_path / "release", write_index=False)
    return dd.read_parquet(tmp_path / "original"), dd.read_parquet(tmp_path / "release")


@pytest.mark.parametrize("suppression", [0.0, 0.05])
def test_written_release_evaluates_as_in_pandas(census, dask_client, tmp_path, suppression):
    table, schema = census
    k = 8 if suppression else 5
    res = kg.anonymize(dd.from_pandas(table, npartitions=3), schema, k=k, algorithm="optimal",
                       suppression=suppression, scheduler=dask_client)
    plain = kg.anonymize(table, schema, k=k, algorithm="optimal", suppression=suppression)
    original, released = _written(tmp_path, table, res, 3)
    ev = kg.evaluate(original, released, schema, k=k, l=2, sensitive="salary-class")
    pandas_ev = kg.evaluate(table, plain.table, schema, k=k, l=2, sensitive="salary-class")
    _same(ev, pandas_ev)
    assert ev.levels == plain.levels and ev.verification.holds == pandas_ev.verification.holds
    assert ev.release.data.n == len(table)
    if suppression:
        assert 0 < ev.suppressed == plain.suppressed
    else:
        assert ev.suppressed == 0


def test_local_release_in_pandas_partitions_equals_pandas(census, dask_client):
    """Any row-aligned pair of Dask frames, here a local recoding split into 4 partitions."""
    table, schema = census
    res = kg.anonymize(table, schema, k=4, algorithm="mondrian")
    ev = kg.evaluate(dd.from_pandas(table, npartitions=4),
                     dd.from_pandas(res.table.astype(str), npartitions=4), schema, k=4)
    pandas_ev = kg.evaluate(table, res.table, schema, k=4)
    _same(ev, pandas_ev)


def test_bad_cell_names_partition_and_row(census, dask_client):
    table, schema = census
    released = table.astype(str)
    released.loc[released.index[700], "age"] = "nonsense"
    with pytest.raises(DataError, match=r"'nonsense' of 'age' in row 'partition 1, row 200'"):
        kg.evaluate(dd.from_pandas(table, npartitions=3),
                    dd.from_pandas(released, npartitions=3), schema, k=2)


def test_misaligned_partitions_are_refused(census, dask_client):
    table, schema = census
    with pytest.raises(DataError, match="3 partitions but the original has 2"):
        kg.evaluate(dd.from_pandas(table, npartitions=2), dd.from_pandas(table, npartitions=3),
                    schema)
    shifted = dd.from_pandas(table, npartitions=3).repartition(
        divisions=[0, 400, 1000, len(table) - 1])
    # partitions 0 and 1 are both off (400 and 600 rows against 500): either is reported
    with pytest.raises(DataError, match="partition [01] of the released table has [46]00 rows "
                                        "but the original's has 500"):
        kg.evaluate(dd.from_pandas(table, npartitions=3), shifted, schema)
    with pytest.raises(DataError, match="the original table must be a Dask DataFrame"):
        kg.evaluate(table, dd.from_pandas(table, npartitions=3), schema)
    with pytest.raises(ValueError, match="'suppressed' parameter of evaluate is not available"):
        kg.evaluate(dd.from_pandas(table, npartitions=3), dd.from_pandas(table, npartitions=3),
                    schema, suppressed=np.zeros(len(table), dtype=bool))


def test_evaluate_on_dask_takes_a_target_like_pandas(dask_client):
    """The classification metrics (a target) are computed from the counted tuples too."""
    pytest.importorskip("sklearn")
    table = kg.datasets.make_census(1200, seed=3)
    schema = kg.datasets.census_schema()
    res = kg.anonymize(table, schema, k=5, algorithm="optimal")
    plain = kg.evaluate(table, res.table, schema, k=5, target="salary-class")
    on_dask = kg.evaluate(dd.from_pandas(table, npartitions=3),
                          dd.from_pandas(res.table, npartitions=3), schema, k=5,
                          target="salary-class")
    assert "classification_accuracy" in on_dask.metrics
    assert on_dask.metrics["classification_accuracy"] == pytest.approx(
        plain.metrics["classification_accuracy"], abs=0.05)
