"""SD's default variant: nearest-neighbour merging on a kNN record graph (``variant="graph"``)."""

import numpy as np
import pandas as pd
import pytest

import kanon_graph as kg
from kanon_graph.clustering.sd import graph as sd_graph
from kanon_graph.clustering.sd.tuples import sd_tuples
from kanon_graph.privacy import PrivacyModel
from kanon_graph.records.costs import ClassCost


def random_table(n, seed):
    rng = np.random.default_rng(seed)
    return pd.DataFrame({
        "age": rng.integers(18, 80, n),
        "sex": rng.choice(["F", "M"], n),
        "job": rng.choice(list("abcdefg"), n),
        "zip": rng.choice([f"0{z}" for z in range(2100, 2140)], n),
        "disease": rng.choice(list("xyzw"), n),
    })


SCHEMA = kg.Schema(quasi_identifiers=["age", "sex", "job", "zip"], sensitive=["disease"],
                   numeric=["age"], categorical=["sex", "job", "zip"])


def pair_cost(data, tuples, i, j):
    """NCP of releasing tuples i and j together, from the definitions (eq. 2-3)."""
    total = 0.0
    for a, attr in enumerate(data.attributes):
        x, y = tuples.codes[i, a], tuples.codes[j, a]
        if attr.kind == "numeric":
            values = np.zeros(attr.n_codes)
            values[attr.codes] = attr.values
            total += abs(values[x] - values[y]) / (attr.values.max() - attr.values.min())
        elif x != y:
            total += 2 / attr.n_codes
    return total


def test_knn_graph_with_a_window_over_everything_is_the_exact_knn():
    table = random_table(60, 0)
    data = kg.encode(table, SCHEMA)
    tuples = sd_tuples(data)
    u = len(tuples.weight)
    eu, ev = sd_graph.knn_graph(tuples, ClassCost(data, tuples.codes, "ncp"), neighbours=4,
                                window=u)
    cost = np.array([[pair_cost(data, tuples, i, j) for j in range(u)] for i in range(u)])
    for t in range(u):
        got = set(ev[eu == t].tolist())
        assert len(got) == 4 and t not in got
        others = np.delete(np.arange(u), t)
        fourth = np.sort(cost[t, others])[3]
        nearest = {int(o) for o in others if cost[t, o] < fourth - 1e-12}
        assert nearest <= got                       # the 4 nearest (up to ties) are kept
        assert all(cost[t, o] <= fourth + 1e-12 for o in got)


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("k", [2, 3, 7])
def test_graph_release_is_k_anonymous_covers_every_record_and_is_deterministic(seed, k):
    table = random_table(90 + 17 * seed, seed)
    a = kg.anonymize(table, SCHEMA, k=k, algorithm="sd", seed=seed)
    b = kg.anonymize(table.sample(frac=1, random_state=seed), SCHEMA, k=k, algorithm="sd")
    assert a.stats["variant"] == "graph"
    assert a.verification.k_achieved >= k
    rows = np.sort(np.concatenate([np.asarray(c) for c in a.classes]))
    assert rows.tolist() == list(range(len(table)))
    # the same records end up together whatever the row order
    same = {frozenset(table.index[list(c)]) for c in a.classes}
    shuffled = b.table.index
    assert same == {frozenset(shuffled[list(c)]) for c in b.classes}
    # refinement never raises the loss it reports
    assert a.stats["loss_after_refine"] <= a.stats["loss_before_refine"] + 1e-12


@pytest.mark.parametrize("seed", range(4))
def test_graph_release_with_l_and_t(seed):
    table = random_table(120, seed)
    res = kg.anonymize(table, SCHEMA, k=3, l=2, t=0.6, algorithm="sd")
    assert res.verification.k_achieved >= 3
    assert res.verification.l_achieved >= 2
    assert res.verification.t_achieved <= 0.6 + 1e-9


def test_small_clusters_closed_off_in_the_graph_join_by_a_scan():
    # mutual nearest pairs and one neighbour each: every pair is an island of 2 < k
    table = pd.DataFrame({"x": [0, 1, 10, 11, 20, 21]})
    schema = kg.Schema(quasi_identifiers=["x"], numeric=["x"])
    res = kg.anonymize(table, schema, k=3, algorithm="sd", neighbours=1, window=1,
                       start="graph", refine=False)    # the merging on its own
    assert res.stats["orphans"] > 0
    assert res.verification.k_achieved >= 3
    assert sorted(len(c) for c in res.classes) == [6]   # the last pair has nowhere else to go
    # the refinement's median cut splits that class again (issue 22)
    cut = kg.anonymize(table, schema, k=3, algorithm="sd", neighbours=1, window=1,
                       start="graph")
    assert sorted(len(c) for c in cut.classes) == [3, 3] and cut.stats["class_cuts"] == 1


def test_graph_merges_by_the_least_loss_increase():
    # two tight groups far apart: the release keeps them apart, exactly
    table = pd.DataFrame({"age": [20, 21, 22, 60, 61, 62], "sex": ["F"] * 6})
    schema = kg.Schema(quasi_identifiers=["age", "sex"])
    res = kg.anonymize(table, schema, k=3, algorithm="sd")
    assert sorted(map(sorted, res.classes)) == [[0, 1, 2], [3, 4, 5]]
    assert res.table["age"].tolist() == ["[20-22]"] * 3 + ["[60-62]"] * 3


def test_graph_beats_the_paper_and_mondrian_on_adult_with_hierarchies(adult_table,
                                                                       adult_schema):
    table = adult_table.head(3000)
    loss = {}
    for name, options in [("graph", {"algorithm": "sd"}),
                          ("paper", {"algorithm": "sd", "variant": "paper"}),
                          ("mondrian", {"algorithm": "mondrian"})]:
        res = kg.anonymize(table, adult_schema, k=10, metrics=["loss"], **options)
        assert res.verification.k_achieved >= 10
        loss[name] = res.metrics["loss"]
    assert loss["graph"] < loss["mondrian"] < loss["paper"]


@pytest.mark.parametrize("option, value, message", [
    ("variant", "fast", "'variant' parameter of the sd algorithm must be one of"),
    ("neighbours", 0, "'neighbours' parameter of the sd algorithm must be a positive"),
    ("window", 2.5, "'window' parameter of the sd algorithm must be a positive"),
    ("metric", "entropy", "'metric' parameter of the sd algorithm must be one of"),
    ("refine", "no", "'refine' parameter of the sd algorithm must be True or False"),
])
def test_bad_options_are_named(option, value, message):
    table = random_table(20, 1)
    with pytest.raises(ValueError, match=message):
        kg.anonymize(table, SCHEMA, k=2, algorithm="sd", **{option: value})


def test_paper_variant_called_by_name_on_encoded_data():
    data = kg.encode(random_table(40, 2), SCHEMA)
    part = kg.clustering.spatial_distance(data, PrivacyModel(k=4), variant="paper")
    assert part.stats["variant"] == "paper" and "leftovers" in part.stats
    assert np.bincount(part.class_of).min() >= 4


def test_paper_variant_refuses_the_graph_options():
    with pytest.raises(ValueError, match="apply to variant='graph' only"):
        kg.anonymize(random_table(20, 1), SCHEMA, k=2, algorithm="sd", variant="paper",
                     refine=False)


@pytest.mark.parametrize("metric", ["loss", "gcp", "discernibility"])
def test_refinement_lowers_the_chosen_metric_and_can_be_turned_off(metric):
    table = random_table(300, 3)
    plain = kg.anonymize(table, SCHEMA, k=5, algorithm="sd", metric=metric, refine=False)
    assert plain.stats["refine_moves"] == 0
    assert plain.stats["loss_before_refine"] == plain.stats["loss_after_refine"]
    res = kg.anonymize(table, SCHEMA, k=5, algorithm="sd", metric=metric, start="graph")
    assert res.stats["loss_before_refine"] == pytest.approx(plain.stats["loss_after_refine"])
    assert res.stats["loss_after_refine"] < res.stats["loss_before_refine"]
    assert res.stats["refine_moves"] + res.stats["refine_splits"] > 0
    assert res.verification.k_achieved >= 5
    # the default also refines from Mondrian's classes and keeps the lower of the two
    best = kg.anonymize(table, SCHEMA, k=5, algorithm="sd", metric=metric)
    assert best.stats["loss_after_refine"] <= res.stats["loss_after_refine"] + 1e-12
    assert best.verification.k_achieved >= 5
