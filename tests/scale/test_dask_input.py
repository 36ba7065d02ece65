"""A Dask DataFrame through anonymize / apply_levels: same answer as pandas, never collected."""

import numpy as np
import pandas as pd
import pytest

import kanon_graph as kg
from kanon_graph.exceptions import PrivacyError

dd = pytest.importorskip("dask.dataframe", reason="the optional Dask extra is not installed "
                                                  "(pip install \"kanon_graph[dask]\")")

# safepub samples records one by one: it refuses a Dask table (tests/lattice/test_safepub.py)
GLOBAL = [n for n in kg.algorithms() if kg.registry.get_algorithm(n).recoding == "global"
          and not kg.registry.get_algorithm(n).samples_records]
# paper001_il adds a term that depends on the order of the classes by first
# record; a Dask input's records are counted per tuple, not kept in input order
ORDER_FREE = lambda metrics: {m: v for m, v in metrics.items() if m != "paper001_il"}  # noqa


@pytest.fixture(scope="module")
def census():
    return kg.datasets.make_census(1200, seed=11), kg.datasets.census_schema()


def _same_cells(lazy, table):
    out = lazy.compute()
    assert len(out) == len(table)
    pd.testing.assert_frame_equal(out.astype(str).reset_index(drop=True),
                                  table.astype(str).reset_index(drop=True))


@pytest.mark.parametrize("algorithm", GLOBAL)
def test_every_global_algorithm_equals_numpy(census, dask_client, algorithm):
    table, schema = census
    options = {"memory_budget": 20_000} if algorithm == "rv-distributed" else {}
    ddf = dd.from_pandas(table, npartitions=3)
    try:
        plain = kg.anonymize(table, schema, k=6, algorithm=algorithm, suppression=0.02,
                             **options)
    except PrivacyError as exc:     # a top class over the budget (boundaries): refused on both
        assert "counts as suppressed" in str(exc)
        with pytest.raises(PrivacyError, match="counts as suppressed"):
            kg.anonymize(ddf, schema, k=6, algorithm=algorithm, suppression=0.02,
                         scheduler=dask_client, **options)
        return
    res = kg.anonymize(ddf, schema, k=6, algorithm=algorithm, suppression=0.02,
                       scheduler=dask_client, **options)
    assert res.levels == plain.levels
    assert ORDER_FREE(res.metrics) == pytest.approx(ORDER_FREE(plain.metrics))
    assert res.stats["partitions"] == 3 and res.classes is None
    # the Dask figures are counted on the released cells, a record all '*' suppressed
    # (issue 46 item 5's convention): those of the same cells in memory
    assert (res.suppressed, res.verification.k_achieved) == _counted(plain.table, schema)
    _same_cells(res.table, plain.table)


def _counted(table, schema):
    """Records all '*' and the smallest class of the others, read from released cells."""
    cells = table[list(schema.quasi_identifiers)].astype(str)
    starred = (cells == "*").all(axis=1)
    sizes = cells[~starred].value_counts()
    return int(starred.sum()), int(sizes.min()) if len(sizes) else 0


def test_apply_levels_and_progress(census, dask_client):
    table, schema = census
    ddf = dd.from_pandas(table, npartitions=4)
    seen = []
    res = kg.anonymize(ddf, schema, k=4, algorithm="optimal", scheduler=dask_client,
                       progress=lambda done, total, text: seen.append((done, total)))
    assert seen == [(i, 4) for i in range(1, 5)]
    levels = kg.apply_levels(ddf, schema, res.levels, k=4, scheduler=dask_client)
    plain = kg.apply_levels(table, schema, res.levels, k=4)
    assert levels.verification.k_achieved == plain.verification.k_achieved
    _same_cells(levels.table, plain.table)


def test_missing_rows_dropped_on_request(census, dask_client):
    table, schema = census
    holed = table.copy()
    holed.loc[[3, 500, 1199], "education"] = None
    ddf = dd.from_pandas(holed, npartitions=2)
    with pytest.raises(kg.exceptions.DataError,
                       match="'education' has 3 missing value.*first at row 3\\b"):
        kg.anonymize(ddf, schema, k=5, algorithm="datafly", scheduler=dask_client)
    res = kg.anonymize(ddf, schema, k=5, algorithm="datafly", missing="drop",
                       scheduler=dask_client)
    plain = kg.anonymize(holed, schema, k=5, algorithm="datafly", missing="drop")
    assert res.dropped == 3 and res.levels == plain.levels
    _same_cells(res.table, plain.table)


def test_local_algorithms_are_refused_with_the_alternatives(census, dask_client):
    table, schema = census
    ddf = dd.from_pandas(table, npartitions=2)
    with pytest.raises(ValueError, match="'mst' recodes locally.*'stepwise'.*'optimal'"):
        kg.anonymize(ddf, schema, k=5, algorithm="mst", scheduler=dask_client)
    with pytest.raises(ValueError, match="'mdav' is a microaggregation.*'stepwise'"):
        kg.anonymize(ddf, schema, k=5, algorithm="mdav", scheduler=dask_client)
    with pytest.raises(ValueError, match="'suppress' parameter of apply_levels"):
        kg.apply_levels(ddf, schema, [1] * 8, suppress=np.zeros(1200, bool),
                        scheduler=dask_client)


@pytest.mark.parametrize("mapper", ["_release_by_value", "_release_partition"])
def test_release_is_checked_from_its_cells(census, dask_client, monkeypatch, mapper):
    """A release whose partition mapping loses records is refused, not returned
    (per-value lookups, and the whole-tuple mapping they fall back to)."""
    from kanon_graph.scale import dask_input

    table, schema = census
    ddf = dd.from_pandas(table, npartitions=2)
    if mapper == "_release_partition":
        monkeypatch.setattr(dask_input, "_per_value", lambda *a: None)
    real = getattr(dask_input, mapper)
    monkeypatch.setattr(dask_input, mapper, lambda part, *a: real(part, *a).iloc[1:])
    with pytest.raises(kg.exceptions.PrivacyError, match="the release of the counted tuples"):
        kg.anonymize(ddf, schema, k=5, algorithm="datafly", scheduler=dask_client)


def test_per_value_lookup_falls_back_when_a_value_is_released_two_ways():
    """The per-column lookup is used only when each original value has one released label."""
    from kanon_graph.scale.dask_input import _GONE, _per_value

    mapping = pd.DataFrame({"a": ["x", "x", "y"], "s": ["p", "q", "p"],
                            "__kg_rel_a": ["X", "X", "Y"], _GONE: [False, False, True]})
    assert _per_value(mapping, ["a", "s"], ["a"])["a"].to_dict() == {"x": "X"}
    mapping.loc[1, "__kg_rel_a"] = "other"
    assert _per_value(mapping, ["a", "s"], ["a"]) is None


def test_a_forged_released_cell_is_caught(census, dask_client, monkeypatch):
    """One released cell changed after the mapping makes a class of one: the release is
    refused, because the class sizes are read back from the released cells."""
    from kanon_graph.scale import dask_input

    table, schema = census
    ddf = dd.from_pandas(table, npartitions=2)
    real = dask_input._release_by_value

    def forged(part, *args):
        out = real(part, *args)
        cells = out["education"].astype(object).to_numpy().copy()
        cells[0] = "forged"
        out["education"] = pd.Series(cells, index=out.index, dtype="str")
        return out

    monkeypatch.setattr(dask_input, "_release_by_value", forged)
    with pytest.raises(kg.exceptions.PrivacyError, match="the release of the counted tuples"):
        kg.anonymize(ddf, schema, k=5, algorithm="optimal", scheduler=dask_client)


def test_released_columns_are_text_like_the_pandas_release(census, dask_client):
    """The per-value release builds its cells as codes into the labels' texts: a
    categorical of text as in memory (the same categories in every partition), the same
    cells row by row as the in-memory call (suppressed rows included)."""
    table, schema = census
    ddf = dd.from_pandas(table, npartitions=3)
    plain = kg.anonymize(table, schema, k=8, algorithm="optimal", suppression=0.05)
    res = kg.anonymize(ddf, schema, k=8, algorithm="optimal", suppression=0.05,
                       scheduler=dask_client)
    assert res.suppressed == plain.suppressed > 0
    out = res.table.compute()
    for column in schema.quasi_identifiers:
        assert isinstance(out[column].dtype, pd.CategoricalDtype)
        assert pd.api.types.is_string_dtype(out[column].cat.categories.dtype)
        assert set(out[column].cat.categories) == set(plain.table[column].cat.categories)
        assert out[column].tolist() == plain.table[column].astype(str).tolist()


def test_the_input_is_counted_once_on_the_given_scheduler(census, dask_client, monkeypatch):
    """The tuples are counted by the Client the call was given, once: the release's check
    reads the released cells of those counted tuples (issue 47 item 3), not the input
    again (it used to send a second count of every partition)."""
    table, schema = census
    ddf = dd.from_pandas(table, npartitions=3)
    sent = []
    real = dask_client.compute

    def spy(collection, *args, **kwargs):
        sent.append(collection)
        return real(collection, *args, **kwargs)

    monkeypatch.setattr(dask_client, "compute", spy)
    res = kg.anonymize(ddf, schema, k=5, algorithm="optimal", scheduler=dask_client)
    assert res.verification.k_achieved >= 5
    counts = [c for c in sent if isinstance(c, list)
              and all(str(t.key).startswith("count_tuples") for t in c)]
    assert [len(c) for c in counts] == [3]
