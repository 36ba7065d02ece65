"""Generalization boundaries (MAGVals) in the lattice searches: capped recodings.

Hussien, Darwish & Hefny (2016), Definitions 3-6. Every lattice search run
with ``respect_boundaries=True`` must equal an exhaustive search over the
capped lattice, release no value beyond its MAGVal, and say clearly which
boundaries make k unreachable.
"""

import itertools

import numpy as np
import pandas as pd
import pytest

import kanon_graph as kg
from kanon_graph.baselines.incognito import incognito
from kanon_graph.lattice import FrequencyEngine, Lattice, SQLFrequencyEngine, optimal_search
from kanon_graph.lattice.capped import (binding_boundaries, boundary_levels, capped_rollup_map,
                                        node_magval_levels)
from kanon_graph.lattice.node_metrics import node_metric
from kanon_graph.lattice.rv.search_global import rv_global
from kanon_graph.lattice.rv.search_hybrid import rv_hybrid
from kanon_graph.lattice.rv.search_local import rv_local
from kanon_graph.privacy import PrivacyModel
from kanon_graph.recoding import recode_levels


def _hierarchy(name, leaves, height):
    rows = [[f"{name}{i}"] + [f"{name}g{l}_{i // (2 ** l)}" for l in range(1, height)] + ["*"]
            for i in range(leaves)]
    return kg.Hierarchy.from_rows(rows, name=name)


def marked_case(seed, n=240):
    """A seeded table of 3-4 attributes whose hierarchies carry MAGVal marks at every level."""
    rng = np.random.default_rng(seed)
    shapes = [(9, 3), (6, 2), (4, 1), (12, 3)][: 3 + seed % 2]
    hierarchies, columns = {}, {}
    for j, (leaves, height) in enumerate(shapes):
        name = "abcd"[j]
        h = _hierarchy(name, leaves, height)
        # internal nodes mostly; with seed 2 a leaf may be its own MAGVal
        nodes = [(l, lab) for l in range(0 if seed == 2 else 1, height) for lab in h.labels(l)]
        for pick in rng.choice(len(nodes), size=min(len(nodes), int(rng.integers(0, 3))),
                               replace=False):
            h.mark_magval(nodes[pick][1], nodes[pick][0])
        hierarchies[name] = h
        p = rng.dirichlet(np.full(leaves, 0.7))
        columns[name] = [f"{name}{i}" for i in rng.choice(leaves, size=n, p=p)]
    hierarchies["a"].mark_magval("ag1_0")          # at least one binding boundary
    if seed == 3:                                  # every value of 'a' stops below the root
        for label in hierarchies["a"].labels(2):
            hierarchies["a"].mark_magval(label, 2)
    columns["s"] = rng.choice(["x", "y", "z"], size=n)
    schema = kg.Schema(quasi_identifiers=list(hierarchies), sensitive=["s"],
                       hierarchies=hierarchies, categorical=list(hierarchies))
    return pd.DataFrame(columns), schema


def _capped_nodes(data):
    return itertools.product(*[range(b + 1) for b in boundary_levels(data)])


def _failing(data, model, levels):
    _, class_of = np.unique(data.group_keys(levels, capped=True), return_inverse=True)
    class_of = class_of.reshape(-1)
    return model.failing(class_of, data, int(class_of.max()) + 1)[class_of]


def _release_metric(data, release, metric, k):
    if metric in ("loss", "discernibility"):
        return kg.metrics.get_metric(metric)(release, k)
    if metric == "precision":      # released level over the hierarchy height, 1 if suppressed
        per = [((release.sizes * release.attributes[a.name].level / a.height).sum()
                + release.suppressed) / data.n for a in data.attributes]
        return float(np.mean(per))
    s = release.suppressed          # a suppressed record: the greatest loss (the root)
    if metric == "dm_star":
        return float((release.sizes.astype(float) ** 2).sum() + data.n * s)
    return ((data.n - s) * sum(release.levels) + s * sum(data.heights)) / data.n


def _exhaustive(data, model, metric, suppression):
    budget = int(np.floor(suppression * data.n + 1e-9))
    best = None
    for levels in _capped_nodes(data):
        suppress = _failing(data, model, levels)
        if suppress.sum() > budget:
            continue
        release = recode_levels(data, levels, suppress=suppress, capped=True)
        key = (round(_release_metric(data, release, metric, model.k), 9), int(release.suppressed),
               sum(levels), levels)
        if best is None or key < best:
            best = key
    return best


# ------------------------------------------------------------- the machinery
def test_boundary_levels_and_rollup_map():
    table, schema = marked_case(0)
    data = kg.encode(table, schema)
    top = boundary_levels(data)
    for attr, b in zip(data.attributes, top):
        h = attr.hierarchy
        present = np.unique(attr.codes)
        assert b == h.magval_levels()[present].max()
        # levels above the boundary change nothing
        assert np.array_equal(attr.at_level(b, True), attr.at_level(h.height, True))
        m = node_magval_levels(h)
        assert np.array_equal(m[:h.n_leaves], h.magval_levels())
        for low, high in itertools.combinations_with_replacement(range(h.height + 1), 2):
            up = capped_rollup_map(h, high)
            assert np.array_equal(up[h.capped_map(low)], h.capped_map(high))
    assert boundary_levels(data, respect_boundaries=False) == tuple(data.heights)
    assert "a" in binding_boundaries(data)
    assert boundary_levels(kg.encode(*marked_case(3)))[0] == 2 < 3   # a truncated lattice


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_capped_rollup_equals_rows_and_group_keys(seed):
    data = kg.encode(*marked_case(seed))
    rolled, direct = FrequencyEngine(data, capped=True), FrequencyEngine(data, capped=True)
    sql = SQLFrequencyEngine(data, capped=True)
    for levels in Lattice(data.heights).nodes():
        fs = rolled.frequency_set(levels)
        plain = direct.frequency_set(levels, rollup=False)
        assert np.array_equal(fs.codes, plain.codes) and np.array_equal(fs.counts, plain.counts)
        keys, counts = np.unique(data.group_keys(levels, capped=True), return_counts=True)
        assert np.array_equal(np.sort(fs.counts), np.sort(counts))
        if sum(levels) % 3 == 0:
            q = sql.frequency_set(levels)
            assert np.array_equal(q.codes, fs.codes) and np.array_equal(q.counts, fs.counts)
    assert rolled.rollups == Lattice(data.heights).size - 1


@pytest.mark.parametrize("metric", ["loss", "precision", "discernibility", "dm_star", "height"])
@pytest.mark.parametrize("suppression", [0.0, 0.15])
def test_node_metrics_match_release_metrics(metric, suppression):
    data = kg.encode(*marked_case(1))
    model = PrivacyModel(4)
    budget = int(np.floor(suppression * data.n + 1e-9))
    scorer = node_metric(metric, data, budget, capped=True)
    engine = FrequencyEngine(data, capped=True)
    nodes = list(_capped_nodes(data))
    bounds = scorer.lower_bound(np.asarray(nodes))
    for levels, bound in zip(nodes, bounds):
        fs = engine.frequency_set(levels)
        failing = engine.failing_groups(levels, model)
        if fs.counts[failing].sum() > budget:
            continue
        release = recode_levels(data, levels, suppress=_failing(data, model, levels),
                                capped=True)
        value = scorer.value(levels, fs, failing)
        assert value == pytest.approx(_release_metric(data, release, metric, model.k),
                                      rel=1e-9, abs=1e-12), levels
        assert bound <= value + 1e-9
        if scorer.exact_without_suppression and release.suppressed == 0:
            assert bound == pytest.approx(value, rel=1e-9, abs=1e-12)


def test_capped_generalization_is_monotone():
    data = kg.encode(*marked_case(2))
    engine = FrequencyEngine(data, capped=True)
    loss = node_metric("loss", data, 0, capped=True)
    for levels in _capped_nodes(data):
        fs = engine.frequency_set(levels)
        for succ in Lattice(boundary_levels(data)).successors(levels):
            up = engine.frequency_set(succ)
            assert up.min_count >= fs.min_count and up.n_groups <= fs.n_groups
            assert loss.lower_bound(np.asarray([succ]))[0] >= \
                loss.lower_bound(np.asarray([levels]))[0] - 1e-12


# ---------------------------------------------------------------- searches
@pytest.mark.parametrize("seed", range(4))
def test_optimal_equals_exhaustive_over_the_capped_lattice(seed):
    data = kg.encode(*marked_case(seed))
    rng = np.random.default_rng(50 + seed)
    for metric in ("loss", "discernibility", "dm_star", "precision", "height"):
        for suppression in (0.0, 0.1):
            model = PrivacyModel(int(rng.integers(2, 9)))
            expected = _exhaustive(data, model, metric, suppression)
            found = optimal_search(data, model, metric=metric, suppression=suppression,
                                   respect_boundaries=True)
            if expected is None:
                assert found.levels is None
                continue
            assert found.levels == expected[3], (metric, suppression, model.k)
            assert round(found.value, 9) == expected[0]
            assert all(l <= b for l, b in zip(found.levels, boundary_levels(data)))


def test_incognito_finds_every_minimal_capped_node():
    data = kg.encode(*marked_case(3))
    model = PrivacyModel(3)
    passing = [lv for lv in _capped_nodes(data) if not _failing(data, model, lv).any()]
    minimal = sorted(lv for lv in passing
                     if not any(o != lv and all(a <= b for a, b in zip(o, lv)) for o in passing))
    part = incognito(data, model, metric="loss", respect_boundaries=True)
    assert sorted(tuple(m) for m in part.stats["minimal_anonymous"]) == minimal
    assert part.capped and part.levels in minimal
    assert part.levels == _exhaustive(data, model, "loss", 0.0)[3]


def _best_rv(data, model, suppression):
    """The best string by RV over the capped lattice, ranked like the RV searches
    (suppressed records count at each table's lowest RV, written out here)."""
    from test_search_global import charged_best

    rv = kg.lattice.research_values(data, respect_boundaries=True)
    budget = int(np.floor(suppression * data.n + 1e-9))
    candidates = [(lv, int(_failing(data, model, lv).sum())) for lv in _capped_nodes(data)]
    return charged_best(data, [c for c in candidates if c[1] <= budget],
                        [list(t) for t in rv.tables])


@pytest.mark.parametrize("seed", [0, 1])
def test_rv_searches_equal_exhaustive_over_the_capped_lattice(seed):
    data = kg.encode(*marked_case(seed))
    model = PrivacyModel(3 + seed)
    expected = _best_rv(data, model, 0.05)
    for search in (rv_global, rv_hybrid):
        part = search(data, model, suppression=0.05, respect_boundaries=True)
        assert part.capped and part.levels == expected[0]
        assert part.stats["research_value"] == pytest.approx(expected[1])
    local = rv_local(data, model, suppression=0.05, respect_boundaries=True)
    assert all(l <= b for l, b in zip(local.levels, boundary_levels(data)))
    assert _failing(data, model, local.levels).sum() <= int(0.05 * data.n)


def test_rv_tables_are_capped_and_non_increasing():
    data = kg.encode(*marked_case(0))
    plain = kg.lattice.research_values(data)
    capped = kg.lattice.research_values(data, respect_boundaries=True)
    a = data.names.index("a")
    top = boundary_levels(data)[a]
    table = capped.tables[a]
    assert all(x >= y - 1e-12 for x, y in zip(table, table[1:]))
    assert table[top] > 0 == plain.tables[a][-1]        # the boundary level is not "any"
    assert table[0] == plain.tables[a][0]


@pytest.mark.parametrize("name", ["optimal", "incognito", "rv-global", "rv-local",
                                  "rv-hybrid", "rv-distributed"])
def test_full_run_has_no_constraint_violation(name):
    table, schema = marked_case(1)
    res = kg.anonymize(table, schema, k=4, algorithm=name, respect_boundaries=True,
                       suppression=0.05)
    assert kg.constraint_violations(res) == []
    assert res.verification.k_achieved >= 4
    data = kg.encode(table, schema)
    assert all(res.levels[n] <= b for n, b in zip(data.names, boundary_levels(data)))


def _location_case():
    """Paper 002's Figure 2: Geza, Helwan and Alex stop at South, Mid and North Egypt."""
    h = kg.Hierarchy.from_mapping({"A.R.E": {
        "South Egypt": ["Geza", "Aswan"], "Mid Egypt": ["Helwan", "Cairo"],
        "North Egypt": ["Alex", "Tanta"]}}, name="location")
    h.mark_magval("South Egypt").mark_magval("Mid Egypt").mark_magval("North Egypt")
    sex = kg.Hierarchy.from_rows([["F", "*"], ["M", "*"]], name="sex")
    rows = [("Geza", "F")] * 4 + [("Helwan", "M")] * 4 + [("Alex", "F")] * 3 + [("Cairo", "M")]
    table = pd.DataFrame(rows, columns=["location", "sex"])
    schema = kg.Schema(quasi_identifiers=["location", "sex"], categorical=["location"],
                       hierarchies={"location": h, "sex": sex})
    return table, schema


@pytest.mark.parametrize("name", ["optimal", "incognito", "rv-global", "rv-local",
                                  "rv-hybrid", "rv-distributed"])
def test_unreachable_k_names_the_binding_boundary(name):
    table, schema = _location_case()
    # North Egypt holds 3 records: k=4 needs A.R.E, which the MAGVals forbid
    stops = r"generalization boundaries of 'location' \(values stop at Mid Egypt, " \
            r"North Egypt, South Egypt\).*allow suppression >= 0\.2500"
    with pytest.raises(ValueError, match=stops):
        kg.anonymize(table, schema, k=4, algorithm=name, respect_boundaries=True)
    res = kg.anonymize(table, schema, k=4, algorithm=name, respect_boundaries=True,
                       suppression=0.25)
    assert res.suppressed == 3 and kg.constraint_violations(res) == []
    assert "A.R.E" not in set(res.table["location"])
    free = kg.anonymize(table, schema, k=4, algorithm=name)   # without boundaries: reachable
    assert free.suppressed == 0


def test_engine_mode_must_match():
    data = kg.encode(*marked_case(0))
    with pytest.raises(ValueError, match="capped"):
        optimal_search(data, PrivacyModel(2), engine=FrequencyEngine(data),
                       respect_boundaries=True)


def test_adult_unchanged_without_magvals(adult_table, adult_schema):
    res = kg.anonymize(adult_table, adult_schema, k=5, algorithm="optimal", metric="loss",
                       respect_boundaries=True)
    assert [res.levels[c] for c in adult_schema.quasi_identifiers] == [0, 4, 0, 2, 3, 2, 2, 1]
    assert res.metrics["loss"] == pytest.approx(0.591585, abs=5e-7)


def test_sql_engine_in_capped_mode_gives_the_same_optimum():
    table, schema = marked_case(3)
    data = kg.encode(table, schema)
    model = PrivacyModel(4)
    numpy_part = kg.lattice.optimal(data, model, metric="loss", respect_boundaries=True)
    sql_part = kg.lattice.optimal(data, model, metric="loss", engine="sqlite",
                                  respect_boundaries=True)
    assert sql_part.levels == numpy_part.levels and sql_part.capped


def test_rv_distributed_over_subsets_equals_rv_global_with_boundaries():
    from kanon_graph.lattice.rv.search_distributed import rv_distributed

    data = kg.encode(*marked_case(3))
    model = PrivacyModel(3)
    best = rv_global(data, model, respect_boundaries=True)
    split = rv_distributed(data, model, respect_boundaries=True, memory_budget=400,
                           scheduler="inline")
    assert split.stats["subsets"] > 1 and split.capped
    assert split.levels == best.levels
