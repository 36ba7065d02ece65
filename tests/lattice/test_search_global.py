"""The global RV search (Figure 4) and the hybrid search equal exhaustive search."""

import itertools

import numpy as np
import pandas as pd
import pytest

import kanon_graph as kg
from kanon_graph.lattice.frequency import FrequencyEngine
from kanon_graph.lattice.rv.search_global import (StringList, best_string, make_strings,
                                               ranking_order, rv_global)
from kanon_graph.lattice.rv.search_distributed import rv_distributed
from kanon_graph.lattice.rv.search_hybrid import rv_hybrid
from kanon_graph.privacy import PrivacyModel


def random_hierarchy(rng, name, n_leaves, height):
    """A random tree: each level groups the nodes below it into fewer random parents."""
    labels = [[f"{name}{i}" for i in range(n_leaves)]]
    parent_of = []
    for level in range(1, height):
        below = len(labels[-1])
        size = max(1, int(rng.integers(1, below)) if below > 1 else 1)
        parents = rng.integers(0, size, below)
        parents[rng.permutation(below)[:size]] = np.arange(size)  # no empty parent
        parent_of.append(parents)
        labels.append([f"{name}L{level}_{j}" for j in range(size)])
    rows = []
    for leaf in range(n_leaves):
        node, row = leaf, [labels[0][leaf]]
        for level in range(1, height):
            node = parent_of[level - 1][node]
            row.append(labels[level][node])
        rows.append(row + ["*"])
    return kg.Hierarchy.from_rows(rows, name=name)


def random_case(seed):
    """A seeded table (2-4 attributes, heights 1-3) and random non-increasing RV tables."""
    rng = np.random.default_rng(seed)
    d = int(rng.integers(2, 5))
    n = int(rng.integers(20, 80))
    columns, hierarchies, tables = {}, {}, {}
    for j in range(d):
        name = f"a{j}"
        height = int(rng.integers(1, 4))
        leaves = int(rng.integers(2, 7))
        h = random_hierarchy(rng, name, leaves, height)
        hierarchies[name] = h
        columns[name] = rng.choice(h.leaf_labels, n)
        # coarse values make ties, so the tie-breaking rule is exercised
        values = np.sort(np.round(rng.random(h.height + 1), 1))[::-1]
        tables[name] = values.tolist()
    schema = kg.Schema(quasi_identifiers=list(columns), hierarchies=hierarchies,
                       categorical=list(columns))
    data = kg.encode(pd.DataFrame(columns), schema)
    k = int(rng.integers(2, 7))
    suppression = [0.0, 0.0, 0.05, 0.1][int(rng.integers(0, 4))]
    return data, k, suppression, tables


def charged_best(data, candidates, tables):
    """The best ``(levels, value)`` of ``candidates`` (``(levels, suppressed)`` pairs).

    Written out independently of the search: a string that suppresses s of
    n records is worth (1 - s/n) RV(levels) + (s/n) RV_min, RV_min the sum of
    each table's lowest value; higher value first, then fewer suppressed
    records, fewer root attributes, a smaller level sum, the smaller vector.
    """
    lowest = sum(min(t) for t in tables)
    keyed = []
    for node, s in candidates:
        plain = sum(t[l] for t, l in zip(tables, node))
        value = round((1 - s / data.n) * plain + (s / data.n) * lowest, 10)
        roots = sum(l == h for l, h in zip(node, data.heights))
        keyed.append(((-value, s, roots, sum(node), node), (node, value)))
    return min(keyed)[1] if keyed else None


def exhaustive(data, k, suppression, tables):
    """Every string of the lattice; the best anonymous one by the ranking rule."""
    model = PrivacyModel(k)
    ordered = [list(tables[a.name]) for a in data.attributes]
    budget = int(np.floor(suppression * data.n + 1e-9))
    nodes = list(itertools.product(*[range(h + 1) for h in data.heights]))
    candidates = []
    for node in nodes:
        _, class_of, sizes = np.unique(data.group_keys(node), return_inverse=True,
                                       return_counts=True)
        s = int(sizes[sizes < k].sum())
        if s <= budget:
            candidates.append((node, s))
    return charged_best(data, candidates, ordered), len(nodes)


@pytest.mark.parametrize("seed", range(40))
def test_global_and_hybrid_equal_exhaustive_search(seed):
    data, k, suppression, tables = random_case(seed)
    expected, size = exhaustive(data, k, suppression, tables)
    model = PrivacyModel(k)
    for search in (rv_global, rv_hybrid):
        part = search(data, model, suppression=suppression, rv_tables=tables)
        assert (part.levels, part.stats["research_value"]) == expected, search.__name__
        stats = part.stats
        # every generated string is either tested or pruned by a named rule
        assert stats["tests"] + stats["known_without_test"] + sum(
            stats["strings_pruned"].values()) >= stats["strings_generated"]
        assert stats["strings_generated"] <= size
    assert part.stats["tests"] <= size
    if seed % 5 == 0:   # the distributed search's subsets of about 4 strings, combined
        # (run in this process: Dask's own runs are in test_search_distributed.py)
        part = rv_distributed(data, model, suppression=suppression, rv_tables=tables,
                              memory_budget=4 * (len(tables) + 17),
                              scheduler="inline")
        assert (part.levels, part.stats["research_value"]) == expected


@pytest.mark.parametrize("seed", range(20))
@pytest.mark.parametrize("suppression", [0.3, 1.0])
def test_searches_equal_exhaustive_search_with_large_budgets(seed, suppression):
    # suppressed records count at the lowest RV: the searches must not stop at a
    # string of high plain RV that suppresses most of the table
    data, k, _, tables = random_case(seed)
    expected, _ = exhaustive(data, k, suppression, tables)
    model = PrivacyModel(k)
    for search in (rv_global, rv_hybrid):
        part = search(data, model, suppression=suppression, rv_tables=tables)
        assert (part.levels, part.stats["research_value"]) == expected, search.__name__
    if seed % 4 == 0:
        part = rv_distributed(data, model, suppression=suppression, rv_tables=tables,
                              memory_budget=4 * (len(tables) + 17),
                              scheduler="inline")
        assert (part.levels, part.stats["research_value"]) == expected


def test_computed_rv_tables_equal_exhaustive_search(adult_table, adult_schema):
    sample = adult_table.iloc[::15].reset_index(drop=True)
    schema = kg.Schema(quasi_identifiers=["sex", "age", "race", "education"],
                       hierarchies={c: adult_schema.hierarchy(c)
                                    for c in ["sex", "age", "race", "education"]})
    data = kg.encode(sample, schema)
    part = rv_global(data, PrivacyModel(3), weights="correlation",
                     rules={"age": [("20|21", 1)]})
    rv = kg.lattice.rv.research_values(data, weights="correlation",
                                       rules={"age": [("20|21", 1)]})
    expected, _ = exhaustive(data, 3, 0.0, dict(zip(rv.names, rv.tables)))
    assert (part.levels, part.stats["research_value"]) == expected


def test_ranking_prefers_higher_rv_then_fewer_roots_then_lower_levels():
    heights = (2, 2)
    success = [((2, 0), 0.5), ((1, 1), 0.5), ((0, 1), 0.4), ((0, 2), 0.5)]
    # (2, 0) and (0, 2) have a root attribute; (1, 1) has none
    assert best_string(success, heights) == ((1, 1), 0.5)
    assert best_string([((2, 0), 0.5), ((0, 2), 0.5)], heights) == ((0, 2), 0.5)
    order = ranking_order(np.array([[0, 0], [1, 0], [0, 1]]), np.array([0.3, 0.3, 0.3]), heights)
    assert order.tolist()[-1] == 0   # the lowest level sum wins among equals


def test_string_list_pruning_rules():
    levels, rv = make_strings([0, 0], [2, 2], [[0.5, 0.3, 0.0], [0.5, 0.2, 0.0]])
    strings = StringList(levels, rv, (2, 2))
    assert strings.rv.tolist() == sorted(strings.rv.tolist())
    strings.apply((1, 1), 0.5, False)   # failure: (0,0) (0,1) (1,0) are more specific
    assert strings.pruned["more_specific"] == 3 and len(strings) == 5
    strings.apply((2, 1), 0.2, True)    # success: (2, 2) has a lower RV
    remaining = {tuple(int(v) for v in node) for node in strings.levels}
    assert remaining == {(0, 2), (1, 2), (2, 0)}
    assert strings.pruned["lower_rv"] == 1 and strings.pruned["more_general"] == 0
    # with a tie, a more general string of equal RV ranks below the success
    levels, rv = make_strings([0, 0], [2, 2], [[0.5, 0.5, 0.0], [0.5, 0.2, 0.0]])
    strings = StringList(levels, rv, (2, 2))
    strings.apply((0, 0), 1.0, True)
    assert len(strings) == 0
    assert strings.pruned == {"lower_rv": 7, "lower_rank": 1, "more_general": 0,
                              "more_specific": 0}
    # a success no longer in the list (the hybrid's local phase) prunes by the figure's rules
    strings = StringList(levels[1:], rv[1:], (2, 2))
    strings.apply((0, 0), 1.0, True)
    assert strings.pruned == {"lower_rv": 7, "lower_rank": 0, "more_general": 1,
                              "more_specific": 0}


def test_rv_global_through_anonymize_records_stats_and_levels():
    table, schema = kg.datasets.paper_003_table(), kg.datasets.paper_003_schema()
    res = kg.anonymize(table, schema, k=2, algorithm="rv-global",
                       weights={"gender": 1, "age": 3, "zip": 1},
                       rules={"age": [("30|31", 2)]})
    for key in ("strings_generated", "frequency_sets", "strings_pruned", "search_seconds",
                "research_value", "root_attributes", "withheld"):
        assert key in res.stats
    assert set(res.stats["strings_pruned"]) == {"lower_rv", "lower_rank", "more_general",
                                                  "more_specific"}
    assert set(res.level_labels) == set(schema.quasi_identifiers)
    # the success list, best first, starts with the chosen string
    first = res.stats["successes"][0]
    assert first["levels"] == tuple(res.levels.values())
    assert first["research_value"] == res.stats["research_value"]
    values = [s["research_value"] for s in res.stats["successes"]]
    assert values == sorted(values, reverse=True)
    assert res.verification.k_achieved >= 2


def test_withheld_attribute_is_released_at_its_root():
    table, schema = kg.datasets.paper_003_table(), kg.datasets.paper_003_schema()
    res = kg.anonymize(table, schema, k=3, algorithm="rv-global", max_levels={"zip": 0})
    assert res.stats["withheld"] == ["zip"]
    assert res.levels["zip"] == schema.hierarchy("zip").height
    # the hierarchy's root label: no information about zip is released
    assert set(res.table["zip"]) == {schema.hierarchy("zip").root.name}


def test_suppression_budget_is_used_and_respected():
    table, schema = kg.datasets.paper_003_table(), kg.datasets.paper_003_schema()
    none = kg.anonymize(table, schema, k=3, algorithm="rv-global")
    some = kg.anonymize(table, schema, k=3, algorithm="rv-global", suppression=0.3)
    assert some.stats["research_value"] >= none.stats["research_value"]
    assert some.suppressed <= 3
    assert none.suppressed == 0


def test_memory_budget_is_enforced():
    table, schema = kg.datasets.paper_003_table(), kg.datasets.paper_003_schema()
    with pytest.raises(MemoryError, match="rv-distributed"):
        kg.anonymize(table, schema, k=2, algorithm="rv-global", memory_budget=10)


def test_l_diversity_is_honoured():
    table, schema = kg.datasets.paper_003_table(), kg.datasets.paper_003_schema()
    res = kg.anonymize(table, schema, k=2, l=2, algorithm="rv-global")
    assert res.verification.l_achieved >= 2
