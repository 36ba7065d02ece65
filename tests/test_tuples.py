"""Distinct tuples with counts (kanon_graph._tuples): the search on tuples, the release on rows."""

import dataclasses

import numpy as np
import pandas as pd
import pytest

import kanon_graph as kg
from kanon_graph import _tuples
from kanon_graph.encoding import encode
from kanon_graph.exceptions import PrivacyError
from kanon_graph.privacy import PrivacyModel
from kanon_graph.privacy._check import released_k
from kanon_graph.recoding import recode_levels


@pytest.fixture(scope="module")
def census():
    """3,000 records holding about 1,500 tuples: many held by several records."""
    table = kg.datasets.make_census(1500, seed=5)
    mixed = pd.concat([table.head(400)] * 4 + [table.tail(1100)], ignore_index=True)
    return mixed, kg.datasets.census_schema()


@pytest.fixture(scope="module")
def rows_optimal():
    """optimal registered again without weights: it runs on one row per record."""
    function = kg.registry.get_algorithm("optimal").function
    kg.register_algorithm("optimal-rows", function, recoding="global", needs_hierarchies=True,
                          supports_suppression=True, supports_boundaries=True)
    yield "optimal-rows"
    kg.registry.unregister_algorithm("optimal-rows")


def test_collapse_keeps_every_row_as_its_tuple(census):
    table, schema = census
    data = encode(table, schema)
    tuples, inverse = _tuples.collapse(data)
    assert tuples.records == data.n and tuples.n < data.n
    for attr, whole in zip(tuples.attributes, data.attributes):
        assert np.array_equal(attr.codes[inverse], whole.codes)
    # tuples in order of their first row: the first row of tuple j comes before tuple j+1's
    first = np.array([np.flatnonzero(inverse == j)[0] for j in range(tuples.n)])
    assert np.all(np.diff(first) > 0)
    assert np.array_equal(np.bincount(inverse), tuples.weights)


@pytest.mark.parametrize("suppression", [None, 0.03])
@pytest.mark.parametrize("k", [2, 10])
def test_optimal_on_tuples_equals_optimal_on_rows(census, rows_optimal, k, suppression):
    table, schema = census
    on_tuples = kg.anonymize(table, schema, k=k, algorithm="optimal", suppression=suppression)
    on_rows = kg.anonymize(table, schema, k=k, algorithm=rows_optimal, suppression=suppression)
    assert on_tuples.levels == on_rows.levels
    assert on_tuples.suppressed == on_rows.suppressed
    assert on_tuples.metrics == pytest.approx(on_rows.metrics)
    assert on_tuples.verification == on_rows.verification
    assert [c.tolist() for c in on_tuples.classes] == [c.tolist() for c in on_rows.classes]
    pd.testing.assert_frame_equal(on_tuples.table, on_rows.table)


def test_the_sql_engine_counts_by_weight(census, rows_optimal):
    table, schema = census
    pytest.importorskip("sqlite3")
    on_tuples = kg.anonymize(table, schema, k=5, algorithm="optimal", engine="sqlite")
    on_rows = kg.anonymize(table, schema, k=5, algorithm=rows_optimal, engine="sqlite")
    assert on_tuples.levels == on_rows.levels and on_tuples.metrics == on_rows.metrics


def test_search_runs_on_tuples_only_for_k_alone(census, monkeypatch):
    table, schema = census
    seen = []
    real = kg.registry.get_algorithm("optimal").function

    def spy(data, model, **kwargs):
        seen.append((data.n, data.weights is not None))
        return real(data, model, **kwargs)

    info = kg.registry.get_algorithm("optimal")
    monkeypatch.setitem(kg.registry._ALGORITHMS, "optimal", dataclasses.replace(info, function=spy))
    kg.anonymize(table, schema, k=5, algorithm="optimal")
    kg.anonymize(table, schema, k=5, l=2, algorithm="optimal")
    assert seen[0][0] < len(table) and seen[0][1]         # k alone: the distinct tuples
    assert seen[1] == (len(table), False)                 # l: one row per record


def test_copies_released_differently_are_refused(census):
    table, schema = census
    data = encode(pd.concat([table.head(30)] * 2, ignore_index=True), schema)
    tuples, _ = _tuples.collapse(data)
    rows = _tuples.expand(tuples)
    assert rows.n == data.n and rows.weights is None
    release = recode_levels(rows, [1] * 8)
    back = _tuples.onto_tuples(release, tuples, "x")
    assert back.class_of.shape == (tuples.n,) and back.suppressed == release.suppressed
    twin = int(np.flatnonzero(tuples.weights > 1)[0])     # a tuple held by two records
    start = int(tuples.weights[:twin].sum())
    split = release.class_of.copy()
    split[start] = -1                                      # one copy suppressed, one not
    with pytest.raises(PrivacyError, match="released copies of one tuple differently"):
        _tuples.onto_tuples(dataclasses.replace(release, class_of=split), tuples, "x")


def test_weighted_counts():
    table = pd.DataFrame({"a": ["x", "y", "*"], "b": ["1", "2", "*"]})
    released = np.array([True, True, False])
    assert released_k(table, ["a", "b"], released) == 1
    assert released_k(table, ["a", "b"], released, weights=np.array([4, 7, 1])) == 4
    data = encode(pd.DataFrame({"q": ["u", "v"], "s": ["p", "q"]}),
                  kg.Schema(quasi_identifiers=["q"], sensitive=["s"]), weights=[3, 5])
    assert data.records == 8 and data.n == 2
    check = PrivacyModel(4).verify(np.array([0, 1]), data)
    assert (check.k_achieved, check.released, check.holds) == (3, 8, False)
    with pytest.raises(ValueError, match="one row per record"):
        PrivacyModel(2, l=2).bind(data).verify(np.array([0, 0]), data)


def test_only_a_global_algorithm_counts_by_weight():
    with pytest.raises(ValueError, match="'weighted' parameter.*recoding='global'"):
        kg.register_algorithm("w-local", lambda data, model, **kw: None, recoding="local",
                              weighted=True)
