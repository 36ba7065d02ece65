"""``stepwise`` on weighted distinct tuples releases what it releases on the rows.

The facade runs ``stepwise`` on a table's distinct tuples, each weighted by
its records (``weighted=True`` in the registry; a Dask table's counted
tuples reach it the same way). Every step counts records: the steps'
frequency sets and their loss, the cuts' class and child sizes, the
left-over units (one quasi-identifier tuple at a time on rows and tuples
alike), the suppression budget, the graph moves' multiplicities. So the
partition on the tuples, spread back to the rows, is the partition on the
rows: equal, not merely no worse.
"""

import copy
import dataclasses

import numpy as np
import pandas as pd
import pytest

import kanon_graph as kg
from kanon_graph.pipeline.tuples import collapse, expand
from kanon_graph.privacy import ClassCheck, PrivacyModel
from kanon_graph.scale.sharding import subset
from kanon_graph.stepwise import stepwise
from kanon_graph.stepwise._split import split_classes


def _repeated(n, seed):
    """A census table in which many rows occur two or three times."""
    table = kg.datasets.make_census(n, seed=seed)
    more = [table.sample(frac=0.5, random_state=seed + i) for i in range(2)]
    return pd.concat([table, *more], ignore_index=True)


def _same_classes(a, b):
    """Do ``a`` and ``b`` put the same rows together (labels aside, -1 alike)?"""
    if ((a < 0) != (b < 0)).any():
        return False
    pairs = np.unique(np.stack([a, b]), axis=1)
    return pairs.shape[1] == len(np.unique(a)) == len(np.unique(b))


@pytest.mark.parametrize("seed, options", [
    (0, dict(k=5)), (0, dict(k=10)), (5, dict(k=10)), (0, dict(k=5, l=2)),
    (2, dict(k=5, t=0.3)), (0, dict(k=4, l=2, diversity="entropy"))], ids=str)
def test_the_tuples_release_is_the_rows_release(seed, options):
    data = kg.encode(_repeated(1500, seed), kg.datasets.census_schema())
    model = PrivacyModel(**options).bind(data)
    rows = stepwise(data, model)
    tuples, inverse = collapse(data, sensitive=model.needs_sensitive)
    assert tuples.n < data.n
    weighted = stepwise(tuples, model)
    assert _same_classes(rows.class_of, weighted.class_of[inverse])
    assert weighted.stats["left_over"] == rows.stats["left_over"]


def test_split_classes_counts_records_by_weight():
    data = kg.encode(kg.datasets.paper_003_table(), kg.datasets.paper_003_schema())
    heavy = dataclasses.replace(data, weights=np.full(data.n, 3, dtype=np.int64))
    one = np.zeros(data.n, dtype=np.int64)
    # 10 rows, 30 records: k = 6 cuts only when the records are counted
    assert split_classes(data, one, 6)[1] == 0
    labels, cuts = split_classes(heavy, one, 6)
    assert cuts >= 1
    sizes = np.bincount(labels, weights=heavy.weights)
    assert sizes[sizes > 0].min() >= 6 and sizes.sum() == 30
    # as on the rows repeated three times
    rows = expand(heavy)
    expanded, _ = split_classes(rows, np.zeros(rows.n, dtype=np.int64), 6)
    assert _same_classes(labels[np.repeat(np.arange(data.n), 3)], expanded)


def test_subset_keeps_the_weights_of_its_rows():
    data = kg.encode(_repeated(300, 1), kg.datasets.census_schema())
    tuples, _ = collapse(data)
    part = subset(tuples, np.array([4, 0, 2]))
    assert part.weights.tolist() == tuples.weights[[4, 0, 2]].tolist()
    assert part.records == int(tuples.weights[[4, 0, 2]].sum())


def test_suppression_within_the_budget_is_counted_in_records():
    data = kg.encode(_repeated(1500, 3), kg.datasets.census_schema())
    model = PrivacyModel(5, l=3).bind(data)
    tuples, inverse = collapse(data, sensitive=True)
    rows = stepwise(data, model, suppression=0.01)
    weighted = stepwise(tuples, model, suppression=0.01)
    assert _same_classes(rows.class_of, weighted.class_of[inverse])
    gone = weighted.class_of < 0
    assert weighted.stats["suppressed"] == int(tuples.weights[gone].sum())
    assert weighted.stats["suppressed"] <= int(0.01 * data.n)


@pytest.mark.parametrize("options", [dict(k=5), dict(k=5, l=2), dict(k=5, t=0.3)], ids=str)
def test_magval_cells_on_weighted_tuples(options):
    table = _repeated(1500, 6)
    schema = kg.datasets.census_schema()
    age = copy.deepcopy(schema.hierarchies["age"])
    for label in ("[20-29]", "[30-39]", "[40-49]"):
        age.mark_magval(label, 2)                   # ages never released above a decade
    schema = kg.Schema(quasi_identifiers=schema.quasi_identifiers, sensitive=schema.sensitive,
                       hierarchies={**schema.hierarchies, "age": age})
    data = kg.encode(table, schema)
    model = PrivacyModel(**options).bind(data)
    tuples, inverse = collapse(data, sensitive=model.needs_sensitive)
    rows = stepwise(data, model, respect_boundaries=True, suppression=0.2)
    weighted = stepwise(tuples, model, respect_boundaries=True, suppression=0.2)
    assert weighted.stats["cells"] > 1
    assert _same_classes(rows.class_of, weighted.class_of[inverse])
    assert weighted.stats["suppressed"] == rows.stats["suppressed"]
    if model.t is None:             # t is judged against the released records: by the facade
        placed = np.flatnonzero(weighted.class_of >= 0)
        labels = weighted.class_of[placed]
        bad = ClassCheck(model, tuples).failing_rows(labels, placed)
        assert not bad[np.unique(labels)].any()
    # and through the facade, which runs it on the tuples and verifies the cells
    res = kg.anonymize(table, schema, algorithm="stepwise", respect_boundaries=True,
                       suppression=0.2, **options)
    assert res.verification.holds and not kg.privacy.constraint_violations(res)
