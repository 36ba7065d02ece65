"""The distributed global RV search (section 5.3.5): subsets within a memory budget."""

import numpy as np
import pytest

import kanon_graph as kg
from kanon_graph.datasets import make_wide_binary
from kanon_graph.lattice.rv.search_distributed import rv_distributed, split_plan
from kanon_graph.lattice.rv.search_global import rv_global, string_bytes
from kanon_graph.privacy import PrivacyModel


def test_split_plan_fits_the_budget():
    prefix, per_subset, n_subsets = split_plan([0, 1, 0, 0], [3, 2, 1, 2], 20 * string_bytes(4))
    assert per_subset * string_bytes(4) <= 20 * string_bytes(4)
    assert per_subset * n_subsets == 4 * 2 * 2 * 3
    assert (prefix, per_subset, n_subsets) == (1, 12, 4)
    with pytest.raises(ValueError, match="memory_budget"):
        split_plan([0, 0], [1, 1], 3)


def test_twenty_attributes_beyond_the_budget_run_on_dask(dask_client):
    table, schema = make_wide_binary(1000, 20, 0)
    data = kg.encode(table, schema)
    model = PrivacyModel(5)
    budget = 4 * 2**20
    full = 2**20 * string_bytes(20)
    assert full > budget                        # the full string list does not fit
    part = rv_distributed(data, model, memory_budget=budget, scheduler=dask_client)
    stats = part.stats
    assert stats["strings_in_plan"] == 2**20
    assert stats["strings_per_subset"] * string_bytes(20) <= budget
    assert stats["subsets"] > 1 and stats["workers"] == 2 and stats["scheduler"] == "dask"
    # the same answer as the global search over the whole list
    whole = rv_global(data, model)
    assert part.levels == whole.levels
    assert stats["research_value"] == whole.stats["research_value"]
    assert kg.lattice.FrequencyEngine(data).is_anonymous(part.levels, model)


@pytest.mark.parametrize("seed", range(3))
def test_distributed_equals_global_on_small_budgets(seed, dask_client):
    rng = np.random.default_rng(seed)
    table, schema = make_wide_binary(300, 8, seed)
    data = kg.encode(table, schema)
    k = int(rng.integers(2, 10))
    tables = {name: sorted(np.round(rng.random(2), 1).tolist(), reverse=True)
              for name in data.names}
    expected = rv_global(data, PrivacyModel(k), rv_tables=tables)
    for budget, scheduler in ((10 * string_bytes(8), dask_client),
                              (40 * string_bytes(8), "inline")):
        part = rv_distributed(data, PrivacyModel(k), rv_tables=tables,
                              memory_budget=budget, scheduler=scheduler)
        assert part.stats["subsets"] > 1
        assert part.levels == expected.levels
        assert part.stats["research_value"] == expected.stats["research_value"]


def test_through_anonymize_with_options():
    table, schema = kg.datasets.paper_003_table(), kg.datasets.paper_003_schema()
    res = kg.anonymize(table, schema, k=3, algorithm="rv-distributed", memory_budget=80,
                       scheduler="inline", rules={"age": [("30|31", 1)]})
    assert res.stats["subsets"] >= 2 and res.stats["scheduler"] == "inline"
    assert res.verification.k_achieved >= 3
    with pytest.raises(ValueError, match="'workers'"):
        kg.anonymize(table, schema, k=3, algorithm="rv-distributed", workers=0)
    with pytest.raises(ValueError, match="'scheduler'"):
        kg.anonymize(table, schema, k=3, algorithm="rv-distributed", memory_budget=80,
                     scheduler=3)


def test_no_process_pool_of_its_own():
    import kanon_graph.lattice.rv.search_distributed as module

    source = open(module.__file__).read()
    assert "ProcessPoolExecutor" not in source and "multiprocessing" not in source


def test_default_scheduler_is_the_current_client_or_a_local_cluster():
    pytest.importorskip("distributed", reason="the optional Dask extra is not installed")
    from distributed import Client

    from kanon_graph.scale._cluster import worker_threads

    try:        # another test's Client may be current in this process: it is used
        expected = worker_threads(Client.current())
    except ValueError:
        expected = 1                            # else a LocalCluster of workers=1
    table, schema = make_wide_binary(200, 6, 1)
    data = kg.encode(table, schema)
    part = rv_distributed(data, PrivacyModel(3), memory_budget=8 * string_bytes(6), workers=1)
    assert part.stats["scheduler"] == "dask" and part.stats["workers"] == expected
    assert part.levels == rv_global(data, PrivacyModel(3)).levels
