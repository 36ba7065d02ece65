"""SpatialDistance's hierarchy-free distances (paper 000, section 4.1)."""

import numpy as np
import pandas as pd
import pytest

import kanon_graph as kg
from kanon_graph.clustering import contingency_distances, numeric_distances


def table_from_counts(counts, columns):
    rows = [key for key, n in counts.items() for _ in range(n)]
    return pd.DataFrame(rows, columns=columns)


FIGURE_1 = {("Male", "Japan"): 5, ("Male", "Korea"): 5, ("Male", "China"): 1,
            ("Female", "Japan"): 3, ("Female", "Korea"): 0, ("Female", "China"): 6}

# Figure 2(c): Gender x Nationality x Education
EDUCATION = ["High School", "Bachelor", "Master", "PhD"]
FIGURE_2C = {("Male", "Japan"): [9, 4, 8, 2], ("Male", "China"): [6, 4, 7, 1],
             ("Male", "Korea"): [7, 5, 4, 1], ("Female", "Japan"): [2, 1, 3, 3],
             ("Female", "China"): [5, 3, 8, 2], ("Female", "Korea"): [5, 6, 1, 3]}


def figure_1():
    table = table_from_counts(FIGURE_1, ["gender", "nationality"])
    return table, kg.Schema(quasi_identifiers=["gender", "nationality"])


def figure_2():
    counts = {(g, n, e): c for (g, n), row in FIGURE_2C.items() for e, c in zip(EDUCATION, row)}
    table = table_from_counts(counts, ["gender", "nationality", "education"])
    return table, kg.Schema(quasi_identifiers=["gender", "nationality", "education"])


def test_figure_1_similarities_and_distances():
    table, schema = figure_1()
    assert tuple(table.iloc[0]) == ("Male", "Japan")
    d = kg.sd_value_distances(table, schema, reference=0, k=3)
    assert d["gender"] == {"Female": 1.0, "Male": 0.0}
    assert d["nationality"]["Japan"] == 0.0
    assert d["nationality"]["China"] == pytest.approx(1 / 2)
    assert d["nationality"]["Korea"] == pytest.approx(1 / 4)

    codes = np.column_stack([pd.factorize(table[c], sort=True)[0] for c in table])
    domain = sorted(table["nationality"].unique())            # China, Japan, Korea
    cd = contingency_distances(codes, codes[0], k=3)
    s = dict(zip(domain, cd.similarity[1][:3]))
    assert s["Japan"] == pytest.approx(5 / 11)
    assert s["Korea"] == pytest.approx(5 / 11)
    assert s["China"] == pytest.approx(1 / 11)
    assert cd.depth.tolist() == [0, 1]                       # Nationality | Gender
    assert cd.order == (0, 1)


def test_figure_1_from_a_female_reference():
    table, schema = figure_1()
    ref = int(np.flatnonzero((table["gender"] == "Female") & (table["nationality"] == "China"))[0])
    d = kg.sd_value_distances(table, schema, reference=ref, k=3)
    # Female row 3, 0, 6: Korea (|0-6|) is least similar to China, then Japan (|3-6|)
    assert d["nationality"] == {"China": 0.0, "Japan": 0.25, "Korea": 0.5}
    assert d["gender"] == {"Female": 0.0, "Male": 1.0}


def test_row_below_k_widens_to_other_rows():
    table, schema = figure_1()
    # Male row holds 11 < 12 tuples: both rows are used, Japan 8, Korea 5, China 7
    d = kg.sd_value_distances(table, schema, reference=0, k=12)
    assert d["nationality"] == {"China": 0.25, "Japan": 0.0, "Korea": 0.5}
    codes = np.column_stack([pd.factorize(table[c], sort=True)[0] for c in table])
    cd = contingency_distances(codes, codes[0], k=12)
    assert cd.depth.tolist() == [0, 0]
    assert cd.counts[1][:3].tolist() == [7, 8, 5]


def test_figure_2_conditions_on_all_lower_attributes():
    table, schema = figure_2()
    assert tuple(table.iloc[0]) == ("Male", "Japan", "High School")
    d = kg.sd_value_distances(table, schema, reference=0, k=3)
    # Nationality | Male: Japan 23, China 18, Korea 17 -> Korea least similar
    assert d["nationality"] == {"China": 0.25, "Japan": 0.0, "Korea": 0.5}
    # Education | Male, Japan: 9, 4, 8, 2 -> PhD, Bachelor, Master; scale 1/4, Card - 1 = 3
    assert d["education"]["PhD"] == pytest.approx(1 / 12)
    assert d["education"]["Bachelor"] == pytest.approx(1 / 36)
    assert d["education"]["Master"] == pytest.approx(1 / 108)
    assert d["education"]["High School"] == 0.0


def test_figure_2_widening_drops_the_innermost_condition_first():
    table, schema = figure_2()
    codes = np.column_stack([pd.factorize(table[c], sort=True)[0] for c in table])
    # (Male, Japan) holds 23 tuples; k = 24 drops Nationality and keeps Gender
    cd = contingency_distances(codes, codes[0], k=24)
    assert cd.depth.tolist() == [0, 1, 1]
    edu = sorted(EDUCATION)                     # Bachelor, High School, Master, PhD
    male = np.sum([FIGURE_2C[("Male", n)] for n in ("Japan", "China", "Korea")], axis=0)
    expect = dict(zip(EDUCATION, male))
    assert cd.counts[2][:4].tolist() == [expect[e] for e in edu]
    # beyond the Male block (58 tuples) nothing is conditioned on
    cd = contingency_distances(codes, codes[0], k=59)
    assert cd.depth.tolist() == [0, 0, 0]
    assert cd.counts[2][:4].sum() == len(table)


def test_more_values_keep_dividing_by_card_minus_one():
    # one attribute of five values, counts 10, 7, 5, 2, 1 and the reference first
    codes = np.repeat(np.arange(5), [10, 7, 5, 2, 1])[:, None]
    cd = contingency_distances(codes, [0], k=1)
    assert cd.distances(0).tolist() == [0.0, 4.0 ** -4, 4.0 ** -3, 4.0 ** -2, 4.0 ** -1]


def test_ties_share_one_distance_with_competition_ranks():
    # counts 6 | 8, 4 | 3 | 10: |8-6| = |4-6| tie for rank 3, after 10 (rank 1), 3 (rank 2)
    codes = np.repeat(np.arange(5), [6, 8, 4, 3, 10])[:, None]
    d = contingency_distances(codes, [0], k=1).distances(0)
    assert d[4] == 4.0 ** -1
    assert d[3] == 4.0 ** -2
    assert d[1] == d[2] == 4.0 ** -3
    assert d[0] == 0.0


def test_scale_follows_the_smallest_distance_of_the_previous_attribute():
    # sex (2 values) -> colour (3 values) -> size (4 values), all rows conditioned on
    # the reference (0, 0): colour | sex=0 counts 6, 4, 1; size | (0, 0) counts 3, 1, 2, 0
    rows = ([(0, 0, 0)] * 3 + [(0, 0, 1)] + [(0, 0, 2)] * 2 + [(0, 1, 3)] * 4
            + [(0, 2, 1)] + [(1, 1, 1)] * 5)
    codes = np.array(rows)
    cd = contingency_distances(codes, codes[0], k=1)
    assert cd.distances(0).tolist() == [0.0, 1.0]
    assert cd.distances(1).tolist() == [0.0, 0.25, 0.5]      # |4-6| < |1-6|
    # size: |0-3| -> 1/4 / 3, |1-3| -> 1/4 / 9, |2-3| -> 1/4 / 27
    assert cd.distances(2) == pytest.approx([0, 1 / 36, 1 / 108, 1 / 12])


def test_cardinality_one_attribute_is_all_zero():
    codes = np.column_stack([np.zeros(6, int), [0, 0, 0, 1, 1, 2]])
    cd = contingency_distances(codes, [0, 0], k=1)
    assert cd.distances(0).tolist() == [0.0]
    # no scale from a one-value attribute: the next starts at 1 again
    assert cd.distances(1).tolist() == [0.0, 0.25, 0.5]


def test_numeric_distance_is_eq_5():
    table = pd.DataFrame({"age": [20, 30, 60, 40], "sex": ["F", "M", "F", "M"]})
    schema = kg.Schema(quasi_identifiers=["age", "sex"])
    d = kg.sd_value_distances(table, schema, reference=1, k=2)
    assert d["age"] == {20: 0.25, 30: 0.0, 40: 0.25, 60: 0.75}
    assert numeric_distances([1, 2], 1, span=0).tolist() == [0.0, 0.0]


def test_hierarchies_are_ignored():
    table = kg.datasets.paper_003_table()
    plain = kg.Schema(quasi_identifiers=["gender", "age", "zip"], categorical=["zip"])
    with_h = kg.datasets.paper_003_schema()
    assert kg.sd_value_distances(table, plain, 2, k=2) == \
        kg.sd_value_distances(table, with_h, 2, k=2)


@pytest.mark.parametrize("reference, k, message", [
    (-1, 2, "'reference'"), (11, 2, "'reference'"), (0, 0, "'k'"), (0, 2.5, "'k'"),
])
def test_bad_parameters_name_the_parameter(reference, k, message):
    table, schema = figure_1()
    with pytest.raises(kg.DataError, match=message):
        kg.sd_value_distances(table, schema, reference=reference if reference != 11
                              else len(table), k=k)
