"""SD's distances on the record graph (MST issue's plug-in protocol)."""

import numpy as np
import pandas as pd
import pytest

import kanon_graph as kg
from kanon_graph.clustering import sd_attribute_distance, sd_record_distance
from kanon_graph.records import RecordGraph, get_distance

FIGURE_1 = {("Male", "Japan"): 5, ("Male", "Korea"): 5, ("Male", "China"): 1,
            ("Female", "Japan"): 3, ("Female", "China"): 6}


def figure_1_data():
    rows = [key for key, n in FIGURE_1.items() for _ in range(n)]
    table = pd.DataFrame(rows, columns=["gender", "nationality"])
    return kg.encode(table, kg.Schema(quasi_identifiers=["gender", "nationality"]))


def test_sd_is_a_registered_symmetric_attribute_distance():
    assert get_distance("sd") is sd_attribute_distance
    data = figure_1_data()
    nat = data.attribute("nationality")              # codes: China, Japan, Korea
    d = sd_attribute_distance(nat)
    assert np.allclose(d, d.T) and np.all(np.diag(d) == 0)
    # marginal counts China 7, Japan 8, Korea 5: from Japan, Korea (|5-8|) is least similar
    # (1/2) and China 1/4; from Korea, Japan 1/2 and China 1/4; from China, Korea 1/2
    # and Japan 1/4: pairs are the mean of both directions
    assert d[1, 2] == pytest.approx(0.5)
    assert d[0, 1] == pytest.approx(0.25)
    assert d[0, 2] == pytest.approx((0.5 + 0.25) / 2)
    assert sd_attribute_distance(data.attribute("gender")).tolist() == [[0, 1], [1, 0]]


def test_numeric_attribute_distance_is_eq_5():
    table = pd.DataFrame({"age": [20, 30, 60]})
    data = kg.encode(table, kg.Schema(quasi_identifiers=["age"]))
    assert np.allclose(sd_attribute_distance(data.attributes[0]),
                       [[0, 0.25, 1], [0.25, 0, 0.75], [1, 0.75, 0]])


def test_record_distance_is_the_papers_distance_from_t1():
    data = figure_1_data()
    graph = RecordGraph(data, record_distance=sd_record_distance(data, k=3))
    by_node = {tuple(data.attributes[a].domain[c] for a, c in enumerate(codes)): i
               for i, codes in enumerate(graph.codes)}
    d = graph.distances_from(by_node[("Male", "Japan")])
    assert d[by_node[("Male", "Korea")]] == pytest.approx(0.25)
    assert d[by_node[("Male", "China")]] == pytest.approx(0.5)
    assert d[by_node[("Female", "Japan")]] == pytest.approx(1.0)
    assert d[by_node[("Female", "China")]] == pytest.approx(1.5)
    # from another reference the conditioning changes: (Female, China) ranks on 3, 0, 6
    d = graph.distances_from(by_node[("Female", "China")])
    assert d[by_node[("Female", "Japan")]] == pytest.approx(0.25)


def test_mst_runs_on_the_sd_distance():
    table = kg.datasets.paper_003_table()
    schema = kg.Schema(quasi_identifiers=["gender", "age", "zip"], categorical=["zip"])
    res = kg.anonymize(table, schema, k=3, algorithm="mst", distance="sd")
    assert res.verification.k_achieved >= 3
