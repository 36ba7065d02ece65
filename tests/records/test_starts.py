"""Issue 22: the loss distance and the Mondrian start of the graph variants."""

import numpy as np
import pandas as pd
import pytest

import kanon_graph as kg
from kanon_graph.hierarchy import dates, masking
from kanon_graph.records import RecordGraph, loss_distance
from kanon_graph.records.costs import ClassCost, set_cost
from kanon_graph.records.distances import LevelGap

from test_records_graph import random_schema, random_table


def deep_table(n, seed):
    """Zip codes and dates: deep hierarchies whose levels cover very different shares."""
    rng = np.random.default_rng(seed)
    zips = np.char.add("0", rng.integers(2100, 2199, size=n).astype(str))
    dob = (np.datetime64("1950-01-01") + rng.integers(0, 9000, n).astype("timedelta64[D]"))
    table = pd.DataFrame({"zip": zips, "dob": dob.astype(str), "sex": rng.choice(["F", "M"], n)})
    schema = kg.Schema(quasi_identifiers=["zip", "dob", "sex"], hierarchies={
        "zip": masking(table["zip"], levels=5, name="zip"),
        "dob": dates(table["dob"], levels=("year", "decade"), name="dob"),
        "sex": kg.Hierarchy([["F", "*"], ["M", "*"]], name="sex")})
    return table, schema


@pytest.mark.parametrize("seed", range(3))
def test_loss_distance_is_what_releasing_the_pair_costs_per_record(seed):
    table, schema = deep_table(60, seed)
    data = kg.encode(table, schema)
    graph = RecordGraph(data, "loss")
    cost = ClassCost(data, graph.codes, "loss")
    ones = np.ones(graph.n_nodes, dtype=np.int64)
    for i, j in [(0, 1), (2, 7), (5, 30)]:
        pair = np.array([i, j], dtype=np.int64)
        # a class of the two tuples costs 2 records x sum of cell losses = 2 x distance
        assert set_cost(pair, 2, cost.codes, ones, cost.tables) == \
            pytest.approx(2 * graph.pair_distances([i], [j])[0])


def test_loss_distance_prices_levels_by_the_leaves_they_cover():
    table, schema = deep_table(200, 0)
    data = kg.encode(table, schema)
    zip_d, dob_d = loss_distance(data.attribute("zip")), loss_distance(data.attribute("dob"))
    zips = data.attribute("zip")
    a, b = zips.hierarchy.encode(["02110", "02111"])
    h = zips.hierarchy
    under = h.leaf_counts[1][h.level_map[1][a]]         # leaves under '0211*' (up to 10)
    # ARX's cell loss of '0211*'; HDist would price one masked digit at 2/5 of the top
    assert zip_d[a, b] == pytest.approx((under - 1) / (h.n_leaves - 1))
    assert zip_d[a, b] < 0.2
    assert isinstance(dob_d, (np.ndarray, LevelGap))


@pytest.mark.parametrize("seed", range(4))
def test_best_start_keeps_the_lower_start_and_pair_moves_only_lower_it(seed):
    table, schema = deep_table(150, seed)
    runs = {s: kg.anonymize(table, schema, k=4, algorithm="mst", start=s)
            for s in ("graph", "mondrian", "best")}
    for res in runs.values():
        assert res.verification.k_achieved >= 4
    best = runs["best"].stats
    starts = {"graph": best["loss_graph_start"], "mondrian": best["loss_mondrian_start"]}
    assert best["start"] == min(starts, key=lambda s: (starts[s], s != "graph"))
    assert best["loss_after_refine"] <= min(starts.values()) + 1e-12
    assert runs["mondrian"].stats["start"] == "mondrian"
    assert runs["graph"].stats["start"] == "graph"


def test_mondrian_start_is_skipped_with_l_diversity_and_paper_is_untouched():
    table = random_table(120, 1)
    res = kg.anonymize(table, random_schema(), k=3, l=2, algorithm="mst")
    assert res.stats["start"] == "graph" and res.verification.l_achieved >= 2
    paper = kg.anonymize(table, random_schema(), k=3, algorithm="mst", split="paper")
    assert "start" not in paper.stats


@pytest.mark.parametrize("algorithm", ["mst", "sd"])
def test_unknown_start_names_the_parameter(algorithm):
    with pytest.raises(ValueError, match="'start' parameter"):
        kg.anonymize(random_table(30, 0), random_schema(), k=2, algorithm=algorithm,
                     start="nowhere")


@pytest.mark.parametrize("seed", range(4))
def test_resplit_pairs_never_raises_the_cost_and_keeps_k(seed):
    from kanon_graph.records.pairs import resplit_pairs

    table, schema = deep_table(200, seed)
    data = kg.encode(table, schema)
    graph = RecordGraph(data, "loss")
    cost = ClassCost(data, graph.codes, "loss")
    rng = np.random.default_rng(seed)
    # a poor start: tuples dealt round-robin in random order into classes of about 8 records
    order = rng.permutation(graph.n_nodes)
    labels = np.empty(graph.n_nodes, dtype=np.int64)
    labels[order] = np.arange(graph.n_nodes) % max(graph.n_records // 8, 1)
    assert np.bincount(labels, weights=graph.counts).min() >= 4
    eu, ev = order[:-1], order[1:]
    out, moves = resplit_pairs(cost, labels.copy(), graph.counts, eu, ev, 4)
    assert np.bincount(out, weights=graph.counts).min() >= 4
    assert cost.of_labels(out, graph.counts) <= cost.of_labels(labels, graph.counts) + 1e-9
    assert moves > 0 and cost.of_labels(out, graph.counts) < cost.of_labels(labels, graph.counts)


def test_lazy_loss_distance_matches_the_matrix(monkeypatch):
    """Above MAX_MATRIX_CODES the loss distance is a LevelGap of per-code cell losses: same
    distances, same minimum spanning tree weight (compiled Prim on both paths)."""
    import kanon_graph.records.distances as dist
    from kanon_graph.records import minimum_spanning_edges

    table, schema = deep_table(300, 5)
    data = kg.encode(table, schema)
    dense = RecordGraph(data, "loss")
    monkeypatch.setattr(dist, "MAX_MATRIX_CODES", 3)
    lazy = RecordGraph(data, "loss")
    assert any(isinstance(p, LevelGap) and np.ndim(p.weights) == 2 for p in lazy.parts)
    i, j = np.triu_indices(dense.n_nodes, 1)
    assert np.allclose(dense.pair_distances(i, j), lazy.pair_distances(i, j))
    assert np.allclose(dense.distances_from(7), lazy.distances_from(7))
    a = minimum_spanning_edges(dense, "prim")[2].sum()
    b = minimum_spanning_edges(lazy, "prim")[2].sum()
    assert a == pytest.approx(b)


@pytest.mark.parametrize("seed", range(4))
def test_median_cuts_never_raise_the_cost_and_keep_k(seed):
    from kanon_graph.records.cuts import cut_big_classes

    table, schema = deep_table(200, seed)
    data = kg.encode(table, schema)
    graph = RecordGraph(data, "loss")
    cost = ClassCost(data, graph.codes, "loss")
    labels = np.arange(graph.n_nodes) % 3                  # three big, mixed classes
    out, cuts = cut_big_classes(cost, labels.copy(), graph.counts, 4)
    sizes = np.bincount(out, weights=graph.counts)
    assert sizes.min() >= 4 and cuts == len(sizes) - 3
    assert cost.of_labels(out, graph.counts) < cost.of_labels(labels, graph.counts)
    # a class below 2k is never cut
    same, none = cut_big_classes(cost, np.zeros(graph.n_nodes, dtype=np.int64), graph.counts,
                                 graph.n_records // 2 + 1)
    assert none == 0 and (same == 0).all()
