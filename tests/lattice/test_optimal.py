"""The optimal full-domain search: ARX's Adult optimum and agreement with exhaustive search."""

import itertools

import numpy as np
import pandas as pd
import pytest

import kanon_graph as kg
from kanon_graph.lattice import optimal_search
from kanon_graph.privacy import PrivacyModel
from kanon_graph.recoding import recode_levels


def test_adult_k5_loss_is_arx_optimum(adult_table, adult_schema):
    res = kg.anonymize(adult_table, adult_schema, k=5, algorithm="optimal", metric="loss",
                       suppression=0.0)
    assert [res.levels[c] for c in adult_schema.quasi_identifiers] == [0, 4, 0, 2, 3, 2, 2, 1]
    assert res.metrics["loss"] == pytest.approx(0.591585, abs=5e-7)
    assert res.stats["metric_value"] == pytest.approx(res.metrics["loss"], rel=1e-9)
    assert res.verification.classes == 30 and res.verification.k_achieved == 16
    assert res.suppressed == 0
    # far fewer frequency sets than the 6,480 nodes (ARX's Flash checks 142)
    assert res.stats["frequency_sets"] <= 300
    # + the bottom root, + the steps toward checked nodes (FrequencyEngine._step_toward)
    assert (res.stats["frequency_sets"] - res.stats["step_sets"]
            <= res.stats["nodes_checked"] + 1)
    assert res.level_labels["age"] == "*"


def test_adult_suppression_budget_is_respected_and_helps(adult_table, adult_schema):
    strict = kg.anonymize(adult_table, adult_schema, k=5, algorithm="optimal",
                          metric="loss", suppression=0.0)
    loose = kg.anonymize(adult_table, adult_schema, k=5, algorithm="optimal",
                         metric="loss", suppression=0.02)
    assert 0 < loose.suppressed <= int(0.02 * len(adult_table))
    assert loose.metrics["loss"] < strict.metrics["loss"]
    assert loose.stats["metric_value"] == pytest.approx(loose.metrics["loss"], rel=1e-9)


# ---------------------------------------------------------------- exhaustive
def _random_case(seed):
    """A seeded table of 2-4 quasi-identifiers with random hierarchies."""
    rng = np.random.default_rng(seed)
    d = int(rng.integers(2, 5))
    n = int(rng.integers(60, 160))
    columns, hierarchies = {}, {}
    for j in range(d):
        leaves = int(rng.integers(2, 9))
        height = int(rng.integers(1, 4)) if d < 4 else int(rng.integers(1, 3))
        rows = []
        for i in range(leaves):
            row = [f"v{j}_{i}"]
            for level in range(1, height):
                row.append(f"g{j}_{level}_{i // (2 ** level)}")
            row.append("*")
            rows.append(row)
        hierarchies[f"a{j}"] = kg.Hierarchy.from_rows(rows, name=f"a{j}")
        weights = rng.dirichlet(np.full(leaves, 0.6))
        columns[f"a{j}"] = [f"v{j}_{i}" for i in rng.choice(leaves, size=n, p=weights)]
    columns["s"] = rng.choice(["x", "y", "z"], size=n)
    table = pd.DataFrame(columns)
    schema = kg.Schema(quasi_identifiers=[f"a{j}" for j in range(d)], sensitive=["s"],
                       hierarchies=hierarchies, categorical=[f"a{j}" for j in range(d)])
    return table, schema


def _exhaustive(data, model, metric, suppression):
    """Best (value, suppressed, height, levels) over every node, computed independently.

    A suppressed record carries the greatest loss (as if generalized to the
    root of every attribute); ties go to fewer suppressed records.
    """
    budget = int(np.floor(suppression * data.n + 1e-9))
    best = None
    for levels in itertools.product(*[range(h + 1) for h in data.heights]):
        _, class_of = np.unique(data.group_keys(levels), return_inverse=True)
        class_of = class_of.reshape(-1)
        failing = model.failing(class_of, data, int(class_of.max()) + 1)
        suppress = failing[class_of]
        if suppress.sum() > budget:
            continue
        release = recode_levels(data, levels, suppress=suppress)
        s = release.suppressed
        if metric == "loss":
            value = kg.metrics.get_metric("loss")(release, model.k)
        elif metric == "discernibility":
            value = kg.metrics.get_metric("discernibility")(release, model.k)
        elif metric == "dm_star":     # |E|^2 per released class, |D| per suppressed record
            value = float((release.sizes.astype(float) ** 2).sum() + data.n * s)
        elif metric == "precision":
            value = float(np.mean([((data.n - s) * l / h + s) / data.n
                                   for l, h in zip(levels, data.heights)]))
        else:                         # per record: its levels, the heights if suppressed
            value = ((data.n - s) * sum(levels) + s * sum(data.heights)) / data.n
        key = (round(value, 9), int(s), sum(levels), levels)
        if best is None or key < best:
            best = key
    return best


@pytest.mark.parametrize("seed", range(6))
def test_optimal_equals_exhaustive(seed):
    table, schema = _random_case(seed)
    data = kg.encode(table, schema)
    rng = np.random.default_rng(100 + seed)
    for metric in ("loss", "discernibility", "dm_star", "precision", "height"):
        for suppression in (0.0, 0.1):
            k = int(rng.integers(2, 8))
            model = PrivacyModel(k)
            expected = _exhaustive(data, model, metric, suppression)
            found = optimal_search(data, model, metric=metric, suppression=suppression)
            if expected is None:
                assert found.levels is None
                continue
            assert found.levels == expected[3], (metric, suppression, k)
            assert round(found.value, 9) == expected[0]


def test_optimal_with_l_diversity_equals_exhaustive():
    table, schema = _random_case(11)
    data = kg.encode(table, schema)
    model = PrivacyModel(2, l=2).bind(data)
    expected = _exhaustive(data, model, "loss", 0.05)
    found = optimal_search(data, model, metric="loss", suppression=0.05)
    assert found.levels == expected[3]
    res = kg.anonymize(table, schema, k=2, l=2, algorithm="optimal", suppression=0.05)
    assert tuple(res.levels.values()) == expected[3]
    assert res.verification.l_achieved >= 2


def test_status_after_search_is_consistent():
    data = kg.encode(kg.datasets.paper_003_table(), kg.datasets.paper_003_schema())
    model = PrivacyModel(3)
    found = optimal_search(data, model, metric="loss")
    status = found.status
    assert status.status(found.levels) == "chosen"
    engine = kg.lattice.FrequencyEngine(data)
    for node in kg.lattice.Lattice(data.heights).nodes():
        known = status.is_anonymous(node)
        if known is not None:
            assert known == engine.is_anonymous(node, model)


def test_unknown_metric_and_impossible_model():
    table = kg.datasets.paper_003_table()
    schema = kg.datasets.paper_003_schema()
    with pytest.raises(ValueError, match="'metric' parameter"):
        kg.anonymize(table, schema, k=2, algorithm="optimal", metric="nope")
    with pytest.raises(ValueError, match="no generalization satisfies"):
        kg.lattice.optimal(kg.encode(table, schema), PrivacyModel(6, l=6).bind(
            kg.encode(table, schema)))


def test_registered_capabilities():
    info = kg.registry.get_algorithm("optimal")
    assert (info.recoding, info.needs_hierarchies, info.supports_suppression) == \
        ("global", True, True)


@pytest.mark.parametrize("k, levels, value", [
    (5, [1, 2, 3, 3, 1, 2, 1, 2], 1.42377891e8),
    (100, [5, 2, 3, 3, 1, 2, 0, 2], 4.36925397e8),
])
def test_fars_discernibility_matches_arx(fars_dir, k, levels, value):
    """ARX's TestAnonymizationKAnonymity cases on FARS (DM*, 0% suppression)."""
    table = pd.read_csv(fars_dir / "fars_int.csv", sep=";")
    with pytest.warns(UserWarning, match="duplicate row"):
        hierarchies = kg.load_hierarchies(fars_dir)
    data = kg.encode(table, kg.Schema(quasi_identifiers=list(table.columns),
                                      hierarchies=hierarchies))
    for metric in ("dm_star", "discernibility"):     # the same without suppression
        found = optimal_search(data, PrivacyModel(k), metric=metric)
        assert list(found.levels) == levels and found.value == value
        assert found.stats["frequency_sets"] < 400


def test_model_declared_not_monotone_is_searched_without_spreading():
    """A model whose check is not monotone is searched node by node, not refused."""
    class Odd(PrivacyModel):
        monotone = False

    data = kg.encode(kg.datasets.paper_003_table(), kg.datasets.paper_003_schema())
    found = optimal_search(data, Odd(2), metric="height")
    assert found.levels == _exhaustive(data, Odd(2), "height", 0.0)[3]
    assert found.status.minimal_anonymous == [] and found.status.maximal_not_anonymous == []
