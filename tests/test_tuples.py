"""Distinct tuples with counts (kanon_graph.pipeline.tuples): the search on tuples, the release on rows."""

import dataclasses

import numpy as np
import pandas as pd
import pytest

import kanon_graph as kg
from kanon_graph.pipeline import tuples as _tuples
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
def small():
    """900 records holding about 600 tuples (l and t searches check many nodes)."""
    table = kg.datasets.make_census(600, seed=8)
    mixed = pd.concat([table.head(300)] * 2 + [table.tail(300)], ignore_index=True)
    return mixed, kg.datasets.census_schema()


@pytest.fixture(scope="module")
def on_rows():
    """The weighted algorithms registered again without weights: one row per record."""
    names = {}
    for name in ("optimal", "datafly", "incognito", "boundaries"):
        info = kg.registry.get_algorithm(name)
        kg.register_algorithm(name + "-rows", info.function, recoding="global",
                              needs_hierarchies=True, supports_suppression=True,
                              supports_boundaries=True,
                              default_suppression=info.default_suppression)
        names[name] = name + "-rows"
    yield names
    for name in names.values():
        kg.registry.unregister_algorithm(name)


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


def _same_release(a, b):
    assert a.levels == b.levels and a.suppressed == b.suppressed
    assert a.metrics == pytest.approx(b.metrics)
    assert a.verification == b.verification
    assert [c.tolist() for c in a.classes] == [c.tolist() for c in b.classes]
    pd.testing.assert_frame_equal(a.table, b.table)


@pytest.mark.parametrize("suppression", [None, 0.03])
@pytest.mark.parametrize("k", [2, 10])
@pytest.mark.parametrize("algorithm", ["optimal", "datafly", "incognito", "boundaries"])
def test_on_tuples_equals_on_rows(census, on_rows, algorithm, k, suppression):
    table, schema = census
    on_tuples = kg.anonymize(table, schema, k=k, algorithm=algorithm, suppression=suppression)
    _same_release(on_tuples, kg.anonymize(table, schema, k=k, algorithm=on_rows[algorithm],
                                          suppression=suppression))


MODELS = [dict(l=2), dict(l=1.5, diversity="entropy"),
          dict(l=2, diversity="recursive", c=4.0), dict(t=0.15)]


# with a budget, entropy / recursive l and t are not monotone: optimal then checks every
# node, so it runs them without one; datafly and incognito with one
@pytest.mark.parametrize("algorithm, suppression", [("optimal", None), ("datafly", 0.05),
                                                    ("incognito", 0.05), ("boundaries", 0.05)])
@pytest.mark.parametrize("model", MODELS)
def test_l_and_t_on_tuples_equal_on_rows(small, on_rows, algorithm, suppression, model):
    table, schema = small
    try:
        on_tuples = kg.anonymize(table, schema, k=3, algorithm=algorithm,
                                 suppression=suppression, **model)
    except kg.PrivacyError as refused:     # a top class over the budget: refused on rows too
        with pytest.raises(kg.PrivacyError) as again:
            kg.anonymize(table, schema, k=3, algorithm=on_rows[algorithm],
                         suppression=suppression, **model)
        assert str(again.value) == str(refused).replace(algorithm, on_rows[algorithm])
        assert "released with every quasi-identifier" in str(refused)
        return
    _same_release(on_tuples, kg.anonymize(table, schema, k=3, algorithm=on_rows[algorithm],
                                          suppression=suppression, **model))


def test_the_sql_engine_counts_by_weight(census, on_rows):
    table, schema = census
    on_tuples = kg.anonymize(table, schema, k=5, algorithm="optimal", engine="sqlite")
    _same_release(on_tuples, kg.anonymize(table, schema, k=5, algorithm=on_rows["optimal"],
                                          engine="sqlite"))


def test_the_search_sees_tuples(census, monkeypatch):
    table, schema = census
    seen = []
    info = kg.registry.get_algorithm("optimal")

    def spy(data, model, **kwargs):
        seen.append((data.n, data.records, sorted(data.sensitive)))
        return info.function(data, model, **kwargs)

    monkeypatch.setitem(kg.registry._ALGORITHMS, "optimal",
                        dataclasses.replace(info, function=spy))
    kg.anonymize(table, schema, k=5, algorithm="optimal")
    kg.anonymize(table, schema, k=5, l=2, algorithm="optimal")
    qi_only = len(table.drop_duplicates(list(schema.quasi_identifiers)))
    with_sensitive = len(table.drop_duplicates(list(schema.quasi_identifiers)
                                               + list(schema.sensitive)))
    # k alone: the quasi-identifier tuples; l: with the sensitive value, which l reads
    assert seen == [(qi_only, len(table), []),
                    (with_sensitive, len(table), ["salary-class"])]


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
    # one class of 3 'p' and 5 'q': entropy exp(H(3/8, 5/8)), recursive (c=2, l=2): 5 < 2*3
    one = np.array([0, 0])
    entropy = PrivacyModel(2, l=1.5, diversity="entropy").bind(data).verify(one, data)
    p = np.array([3, 5]) / 8
    assert entropy.l_achieved == pytest.approx(np.exp(-(p * np.log(p)).sum()), abs=1e-6)
    recursive = PrivacyModel(2, l=2, diversity="recursive", c=2.0).bind(data)
    assert recursive.verify(one, data).l_achieved == 2


def test_a_microaggregation_does_not_count_by_weight():
    # a local recoding may (stepwise does: its release is a function of the tuple)
    with pytest.raises(ValueError, match="'weighted' parameter.*recoding='global' or 'local'"):
        kg.register_algorithm("w-micro", lambda data, model, **kw: None,
                              recoding="microaggregation", weighted=True)
    assert kg.registry.get_algorithm("stepwise").weighted
