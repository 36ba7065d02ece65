"""Issue 32 item 5: a Dask table counted by codes, on dask's threads when no Client is open."""

import numpy as np
import pandas as pd
import pytest

import kanon_graph as kg

dd = pytest.importorskip("dask.dataframe", reason="the optional Dask extra is not installed "
                                                  "(pip install \"kanon_graph[dask]\")")
distributed = pytest.importorskip("distributed", reason="the optional Dask extra is not "
                                                        "installed")

from kanon_graph.scale._counts import add_counts, count_tuples  # noqa: E402


def _partitions(seed):
    """Three partitions: categoricals whose categories differ, text, numbers, missing cells."""
    rng = np.random.default_rng(seed)
    parts = []
    for i, n in enumerate((40, 0, 55)):
        words = np.array(["a", "b", "c", "d"])[: 2 + i]
        frame = pd.DataFrame({
            "cat": pd.Categorical(rng.choice(words, n), categories=words[::-1]),
            "text": pd.Series(rng.choice(["x", "y", None], n), dtype=object),
            "num": rng.integers(0, 3, n).astype(float)})
        if n:
            frame.loc[frame.index[::7], "num"] = np.nan
        parts.append(frame)
    return parts


@pytest.mark.parametrize("seed", range(4))
def test_counts_by_codes_are_groupbys(seed):
    """The partitions' counts added up are ``groupby(dropna=False).size()`` of the whole
    table: the same tuples (missing cells one value per column), the same counts."""
    parts = _partitions(seed)
    columns = ["cat", "text", "num"]
    counted = add_counts([count_tuples(p, columns) for p in parts], columns)
    whole = pd.concat([p.astype({"cat": object}) for p in parts], ignore_index=True)
    expected = whole.groupby(columns, dropna=False).size()
    assert int(counted["__kg_count__"].sum()) == len(whole)
    got = {tuple("NA" if pd.isna(v) else v for v in row[:-1]): row[-1]
           for row in counted.itertuples(index=False)}
    want = {tuple("NA" if pd.isna(v) else v for v in key): n for key, n in expected.items()}
    assert got == want
    assert len(counted) == len(want)


def test_released_cells_are_counted_by_their_text():
    """``text=True`` tells cells apart by what a reader sees: 1 and "1" are one class."""
    part = pd.DataFrame({"q": pd.Series([1, "1", "2"], dtype=object)})
    counted = add_counts([count_tuples(part, ["q"], text=True)], ["q"])
    assert sorted(counted["__kg_count__"].tolist()) == [1, 2]


@pytest.fixture
def no_cluster(monkeypatch):
    """Fail if a LocalCluster is started."""
    def refuse(*args, **kwargs):
        raise AssertionError("a LocalCluster was started")

    monkeypatch.setattr(distributed.LocalCluster, "__init__", refuse)


def test_default_scheduler_runs_on_dask_threads_without_a_cluster(no_cluster):
    """No Client open: the partitions are counted and the release checked on dask's
    threads here (no cluster), one progress step per partition, the in-memory release."""
    table, schema = kg.datasets.make_census(900, seed=2), kg.datasets.census_schema()
    plain = kg.anonymize(table, schema, k=5, algorithm="optimal", suppression=0.02)
    seen = []
    res = kg.anonymize(dd.from_pandas(table, npartitions=4), schema, k=5,
                       algorithm="optimal", suppression=0.02,
                       progress=lambda done, total, text: seen.append((done, total)))
    assert seen == [(i, 4) for i in range(1, 5)]
    assert res.levels == plain.levels and res.verification == plain.verification
    pd.testing.assert_frame_equal(res.table.compute().astype(str).reset_index(drop=True),
                                  plain.table.astype(str).reset_index(drop=True))


def test_default_scheduler_uses_an_open_client(monkeypatch):
    """A Client open in the process is used for both passes, not dask's threads."""
    import dask

    def refuse(*args, **kwargs):
        raise AssertionError("dask's local scheduler ran instead of the open Client")

    table, schema = kg.datasets.make_census(600, seed=3), kg.datasets.census_schema()
    with distributed.Client(processes=False, n_workers=1, threads_per_worker=2,
                            dashboard_address=":0"):
        monkeypatch.setattr(dask, "compute", refuse)
        res = kg.anonymize(dd.from_pandas(table, npartitions=2), schema, k=5,
                           algorithm="optimal")
    assert res.verification.k_achieved >= 5


def test_a_forged_cell_is_caught_on_threads_too(monkeypatch):
    """The release's check reads its cells on dask's threads as on a Client."""
    from kanon_graph.scale import dask_input

    table, schema = kg.datasets.make_census(600, seed=4), kg.datasets.census_schema()
    real = dask_input._release_by_value

    def forged(part, *args):
        out = real(part, *args)
        cells = out["education"].astype(object).to_numpy().copy()
        cells[0] = "forged"
        out["education"] = pd.Series(cells, index=out.index, dtype="str")
        return out

    monkeypatch.setattr(dask_input, "_release_by_value", forged)
    with pytest.raises(kg.exceptions.PrivacyError, match="the release of the counted tuples"):
        kg.anonymize(dd.from_pandas(table, npartitions=2), schema, k=5, algorithm="optimal")
