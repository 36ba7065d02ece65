"""Distribution-level utility measures (paper 002, sections 2.7 and 3.3)."""

import numpy as np
import pytest

import kanon_graph as kg
from kanon_graph.metrics.distribution import (cluster_utility, distribution_tests,
                                              ecdf_distance, released_numbers)


def test_released_numbers_midpoints_and_star():
    out = released_numbers(["[20-24]", "[20-25)", "7", "*"], [0, 10, 100])
    assert out.tolist() == [22.0, 22.5, 7.0, 50.0]


def test_released_numbers_uniform_stays_inside_and_is_seeded():
    cells = ["[20-29]"] * 500 + ["*"] * 500
    a = released_numbers(cells, [0, 99], method="uniform", seed=3)
    b = released_numbers(cells, [0, 99], method="uniform", seed=3)
    assert np.array_equal(a, b)
    assert a[:500].min() >= 20 and a[:500].max() <= 29
    assert a[500:].min() >= 0 and a[500:].max() <= 99
    assert set(np.unique(a[:500])) == set(range(20, 30))  # integer data: integer draws
    floats = released_numbers(cells, [0.5, 99.5], method="uniform", seed=3)
    assert len(np.unique(floats[:500])) > 400


def test_released_numbers_rejects_unreadable_cells():
    with pytest.raises(ValueError, match="'Male'"):
        released_numbers(["Male"], [1, 2])


def test_ecdf_distance_by_hand():
    # X = {1, 2}, Y = {3}; at the pooled points 1, 2, 3:
    # S_X = 1/2, 1, 1 and S_Y = 0, 0, 1 -> |diff| = 1/2, 1, 0
    assert ecdf_distance([1, 2], [3]) == (1.0, 0.5)


def test_tests_tell_shift_from_no_shift():
    rng = np.random.default_rng(0)
    x = rng.normal(40, 10, 2000)
    same = distribution_tests(x, x + rng.normal(0, 0.01, 2000))
    shifted = distribution_tests(x, x + 5)
    wider = distribution_tests(x, rng.normal(40, 20, 2000))
    assert same.ks_pvalue > 0.5 and same.t_pvalue > 0.5 and same.f_pvalue > 0.5
    assert shifted.t_pvalue < 1e-6 and shifted.ks_pvalue < 1e-6
    assert wider.f_pvalue < 1e-6 and wider.f_statistic < 1


def test_cluster_utility_zero_for_identical_large_for_disjoint():
    rng = np.random.default_rng(1)
    x = rng.normal(0, 1, (400, 2))
    assert cluster_utility(x, x, clusters=5, seed=0) == pytest.approx(0.0, abs=1e-12)
    far = cluster_utility(x, x + 100, clusters=5, seed=0)
    # every cluster is pure: (n_iO/n_i - 1/2)^2 = 1/4, weights sum to 1 over g used clusters
    assert far > 0.01


def test_generalization_moves_the_age_distribution():
    table = kg.datasets.make_census(3000, seed=5) if hasattr(kg.datasets, "make_census") \
        else None
    if table is None:
        table = kg.datasets.paper_003_table()
        schema = kg.datasets.paper_003_schema()
        levels_fine, levels_coarse = [0, 1, 0], [1, 3, 2]
    else:
        schema = kg.datasets.census_schema()
        levels_fine = [0, 1, 0, 0, 0, 0, 0, 0]
        levels_coarse = [0, 4, 0, 0, 0, 0, 0, 0]
    fine = kg.apply_levels(table, schema, levels_fine)
    coarse = kg.apply_levels(table, schema, levels_coarse)
    age = table["age"].to_numpy()
    d_fine = ecdf_distance(age, released_numbers(fine.table["age"], age))
    d_coarse = ecdf_distance(age, released_numbers(coarse.table["age"], age))
    assert d_fine[0] < d_coarse[0]
    assert d_fine[1] < d_coarse[1]
