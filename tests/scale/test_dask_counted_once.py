"""The Dask global path reads its input once (issue 47 item 3).

``kg.anonymize`` on a Dask table counts each partition's tuples once; the
check before the release is returned reads the released cells of those
counted tuples (each released by the function that releases a partition,
weighted by its records), not the input again. ``res.write`` still reads the
input to write it and counts the cells it writes (issue 46). The tests count
the partitions' reads; the check's figures are compared with a recount of
the lazy release's own cells.
"""

from collections import Counter

import numpy as np
import pandas as pd
import pytest

import kanon_graph as kg

dd = pytest.importorskip("dask.dataframe", reason="the optional Dask extra is not installed "
                                                  "(pip install \"kanon_graph[dask]\")")
pytest.importorskip("pyarrow", reason="Parquet files need pyarrow (kanon_graph[dask])")
import dask  # noqa: E402


def _counted_reads(table, log, parts=3):
    """A Dask table over ``table`` whose partitions log each read to the file ``log`` (a
    Client's workers run a copy of the task: a file, not a Python object, counts)."""
    bounds = np.linspace(0, len(table), parts + 1).astype(int)
    log.write_text("")

    def load(i):
        with open(log, "a") as handle:
            handle.write(f"{i}\n")
        return table.iloc[bounds[i]:bounds[i + 1]]

    ddf = dd.from_delayed([dask.delayed(load, pure=True)(i) for i in range(parts)],
                          meta=table.iloc[:0], verify_meta=False)
    return ddf, lambda: dict(Counter(int(line) for line in log.read_text().split()))


@pytest.mark.parametrize("options", [dict(algorithm="optimal"), dict(l=2)], ids=str)
def test_anonymize_reads_each_partition_once_and_the_write_once_more(tmp_path, options):
    table, schema = kg.datasets.make_census(900, seed=11), kg.datasets.census_schema()
    ddf, reads = _counted_reads(table, tmp_path / "reads.log")
    res = kg.anonymize(ddf, schema, k=5, **options)
    assert reads() == {0: 1, 1: 1, 2: 1}
    res.write(tmp_path / "out")
    assert reads() == {0: 2, 1: 2, 2: 2}
    out = pd.read_parquet(tmp_path / "out")
    assert len(out) == len(table)
    qis = list(schema.quasi_identifiers)
    starred = (out[qis].astype(str) == "*").all(axis=1)
    assert out.loc[~starred, qis].astype(str).value_counts().min() >= 5


@pytest.mark.parametrize("options", [dict(algorithm="optimal"), dict(l=2),
                                     dict(algorithm="datafly", suppression=0.1)], ids=str)
def test_the_check_from_the_counts_equals_a_recount_of_the_released_cells(options):
    from kanon_graph.scale._released import check_released_cells

    table, schema = kg.datasets.make_census(900, seed=12), kg.datasets.census_schema()
    res = kg.anonymize(dd.from_pandas(table, npartitions=3), schema, k=5, **options)
    recount = check_released_cells(res.table, res.cell_check, where="test")
    assert res.verification == recount
    if "algorithm" not in options:
        return                  # auto: on Dask stepwise on the tuples, in memory its own choice
    memory = kg.anonymize(table, schema, k=5, **options)
    assert (res.verification.released, res.verification.suppressed) == \
        (memory.verification.released, memory.verification.suppressed)
