"""Greedy k-member clustering: clusters of k, furthest-record seeds, least-IL growth."""

import numpy as np
import pandas as pd
import pytest

import kanon_graph as kg
from kanon_graph.baselines import k_member
from kanon_graph.privacy import PrivacyModel


def test_three_bands_are_found_from_any_first_record():
    values = [0, 1, 2, 10, 11, 12, 20, 21, 22]
    table = pd.DataFrame({"x": values, "s": ["a"] * 9}).sample(frac=1, random_state=1)
    schema = kg.Schema(quasi_identifiers=["x"], sensitive=["s"])
    for seed in range(5):
        res = kg.anonymize(table, schema, k=3, algorithm="k-member", seed=seed)
        bands = sorted(sorted(table["x"].to_numpy()[c].tolist()) for c in res.classes)
        assert bands == [[0, 1, 2], [10, 11, 12], [20, 21, 22]]


@pytest.mark.parametrize("n, k", [(100, 3), (101, 7), (64, 8)])
def test_cluster_sizes(n, k):
    rng = np.random.default_rng(n)
    table = pd.DataFrame({"age": rng.integers(18, 80, n),
                          "sex": rng.choice(["F", "M"], n),
                          "s": rng.choice(["x", "y"], n)})
    data = kg.encode(table, kg.Schema(quasi_identifiers=["age", "sex"], sensitive=["s"]))
    part = k_member(data, PrivacyModel(k), rng=np.random.default_rng(0))
    sizes = np.bincount(part.class_of)
    assert len(sizes) == n // k == part.stats["clusters"]
    assert sizes.min() >= k and sizes.max() <= 2 * k - 1
    assert sizes.sum() == n


def test_seed_picks_the_first_record():
    rng = np.random.default_rng(2)
    table = pd.DataFrame({"a": rng.integers(0, 50, 60), "b": rng.integers(0, 50, 60),
                          "s": ["z"] * 60})
    schema = kg.Schema(quasi_identifiers=["a", "b"], sensitive=["s"])
    firsts = {kg.anonymize(table, schema, k=4, algorithm="k-member", seed=s)
              .stats["first_record"] for s in range(6)}
    assert len(firsts) > 1


def test_duplicates_are_clustered_together():
    table = pd.DataFrame({"a": [5] * 7 + [40] * 7, "b": ["u"] * 7 + ["v"] * 7,
                          "s": ["z"] * 14})
    schema = kg.Schema(quasi_identifiers=["a", "b"], sensitive=["s"])
    res = kg.anonymize(table, schema, k=3, algorithm="k-member", seed=0,
                       metrics=["byun_il"])
    assert res.metrics["byun_il"] == 0.0


def test_refuses_l_diversity():
    table = kg.datasets.paper_003_table()
    with pytest.raises(ValueError, match="l-diversity"):
        kg.anonymize(table, kg.datasets.paper_003_schema(), k=2, l=2, algorithm="k-member")


def test_loss_distance_on_a_hierarchy_over_the_matrix_limit():
    """A hierarchy of more codes than MAX_MATRIX_CODES gets per-code level weights from the
    'loss' distance; k-member's kernel reads them per node (it failed with 'setting an
    array element with a sequence')."""
    import numpy as np
    import pandas as pd

    from kanon_graph.records.distances import MAX_MATRIX_CODES

    codes = [f"{i:05d}" for i in range(MAX_MATRIX_CODES + 500)]
    rng = np.random.default_rng(3)
    table = pd.DataFrame({"zip": rng.choice(codes[:2000], 200),
                          "sex": rng.choice(["F", "M"], 200)})
    schema = kg.Schema(quasi_identifiers=["zip", "sex"], categorical=["zip"],
                       hierarchies={"zip": kg.hierarchy.masking(codes, name="zip"),
                                    "sex": kg.Hierarchy.from_rows([["F", "*"], ["M", "*"]],
                                                                  name="sex")})
    res = kg.anonymize(table, schema, k=5, algorithm="k-member", distance="loss")
    assert res.verification.holds and res.verification.k_achieved >= 5
    released = res.table["zip"].astype(str)
    assert all(z.startswith(r.rstrip("*")) for z, r in zip(table["zip"], released))
