"""The RV searches count records by weight (issue 32 item 5): on counted tuples they find
what they find on the rows, one row per record."""

import dataclasses

import numpy as np
import pandas as pd
import pytest

import kanon_graph as kg
from kanon_graph.pipeline.tuples import collapse
from kanon_graph.lattice.rv.values import research_values
from kanon_graph.lattice.rv.weights import correlation_weights

RV = ["rv-global", "rv-local", "rv-hybrid",
      pytest.param("rv-distributed", marks=pytest.mark.dask)]    # runs with `-m dask`


@pytest.fixture(scope="module")
def rows_and_tuples():
    table = kg.datasets.make_census(700, seed=4)
    # every row twice or thrice, interleaved: many records per tuple
    table = pd.concat([table, table.iloc[::2], table], ignore_index=True)
    data = kg.encode(table, kg.datasets.census_schema())
    tuples, _ = collapse(data)
    assert tuples.n < data.n == tuples.records
    return data, tuples


def _run(name, data, model, **options):
    function = kg.registry.get_algorithm(name).function
    return function(data, model, rng=np.random.default_rng(0), **options)


@pytest.mark.parametrize("suppression", [0.0, 0.03])
@pytest.mark.parametrize("name", RV)
def test_tuples_give_the_rows_answer(rows_and_tuples, name, suppression):
    data, tuples = rows_and_tuples
    options = dict(suppression=suppression, weights="correlation")
    if name == "rv-distributed":
        if not kg.scale.dask_available():
            pytest.skip("rv-distributed needs the optional Dask extra (pip install "
                        "\"kanon_graph[dask]\"); `python -m pytest -m dask` runs it")
        options["memory_budget"] = 4_000
    on_rows = _run(name, data, kg.privacy.PrivacyModel(4).bind(data), **options)
    on_tuples = _run(name, tuples, kg.privacy.PrivacyModel(4).bind(tuples), **options)
    assert on_tuples.levels == on_rows.levels
    for key in ("research_value", "max_research_value", "root_attributes", "withheld",
                "levels_dropped"):
        assert on_tuples.stats[key] == pytest.approx(on_rows.stats[key], abs=1e-9), key
    suppressed_rows = int((np.asarray(on_rows.class_of) < 0).sum())
    gone = np.asarray(on_tuples.class_of) < 0
    assert int(tuples.weights[gone].sum()) == suppressed_rows


def test_research_values_and_correlation_weights_count_records(rows_and_tuples):
    data, tuples = rows_and_tuples
    on_rows, on_tuples = correlation_weights(data), correlation_weights(tuples)
    assert on_tuples == pytest.approx(on_rows, abs=1e-12)
    # the unweighted tuples would weigh differently: the weights are what makes them agree
    bare = dataclasses.replace(collapse(data)[0], weights=None)
    assert correlation_weights(bare) != pytest.approx(on_rows, abs=1e-6)
    for root_zero in (True, False):
        a = research_values(data, weights="correlation", root_zero=root_zero)
        b = research_values(tuples, weights="correlation", root_zero=root_zero)
        for x, y in zip(a.tables, b.tables):
            assert y == pytest.approx(x, abs=1e-12)


@pytest.mark.parametrize("seed", range(5))
def test_weighted_quantiles_are_numpys_on_the_repeated_values(seed):
    from kanon_graph.lattice.rv.weights import _quantiles

    rng = np.random.default_rng(seed)
    values = rng.integers(0, 30, 40).astype(float)
    counts = rng.integers(1, 6, 40)
    qs = np.linspace(0, 1, 11)[1:-1]
    expected = np.quantile(np.repeat(values, counts), qs)
    assert np.array_equal(_quantiles(values, qs, counts), expected)
